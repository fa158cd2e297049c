comma := ,
# One-command set-up. `make demo` and `make test` work on a fresh machine with only Python 3.10+.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
EXTRAS ?= dev,dask
# Small linear algebra is 100x slower with multi-threaded BLAS on small machines: one thread per process.
export OMP_NUM_THREADS ?= 1
export OPENBLAS_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1
export MPLBACKEND ?= Agg

.PHONY: demo test export check-export nbtest pytest clean-nbs bench help

help:
	@echo "make demo     create $(VENV), install, run 'hdbo demo'"
	@echo "make test     create $(VENV) if missing, install, check export, run notebooks (not 'slow' cells) and pytest"
	@echo "make export   nbdev_export + nbdev_clean"
	@echo "make bench    speed and accuracy against peers (benchmarks/README.md)"

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip

# reinstall when the package metadata changes
$(VENV)/.installed-$(subst $(comma),-,$(EXTRAS)): $(BIN)/python settings.ini setup.py
	$(BIN)/python -m pip install -q -e ".[$(EXTRAS)]"
	touch $@

install: $(VENV)/.installed-$(subst $(comma),-,$(EXTRAS))

demo: install
	$(BIN)/hdbo demo

check-export: install
	@rm -rf .cache/export-check && mkdir -p .cache/export-check && cp -r hdbo_nb .cache/export-check/
	$(BIN)/nbdev_export
	@if diff -r -x __pycache__ .cache/export-check/hdbo_nb hdbo_nb; then echo "export check: hdbo_nb/ matches nbs/"; \
	 else echo "export check FAILED: hdbo_nb/ is out of sync with nbs/ (run nbdev_export and commit)"; exit 1; fi

nbtest: install
	$(BIN)/nbdev_test --n_workers 2 --timing

pytest: install
	$(BIN)/python -m pytest -q tests/

test: check-export nbtest pytest

export: install
	$(BIN)/nbdev_export
	$(BIN)/nbdev_clean

bench: install
	$(BIN)/python -m pip install -q -e ".[peers]"
	$(BIN)/python benchmarks/peers.py
	$(BIN)/python benchmarks/gp.py
