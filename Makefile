comma := ,
# One-command set-up. `make demo` and `make test` work on a fresh machine with only Python 3.10+.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
EXTRAS ?= dev,dask,docs
# Small linear algebra is 100x slower with multi-threaded BLAS on small machines: one thread per process.
export OMP_NUM_THREADS ?= 1
export OPENBLAS_NUM_THREADS ?= 1
export MKL_NUM_THREADS ?= 1
export MPLBACKEND ?= Agg

.PHONY: demo test test-all export check-export nbtest nbtest-all pytest clean-nbs bench help docs docs-test readme

help:
	@echo "make demo     create $(VENV), install, run 'hdbo demo'"
	@echo "make test     create $(VENV) if missing, install, check export, run notebooks (not 'slow' cells) and pytest (docs site in headless Chromium included)"
	@echo "make test-all the same with the notebooks' 'slow' cells too (long: they redraw every figure from the results cache)"
	@echo "make export   nbdev_export + nbdev_clean"
	@echo "make docs     build the site into _docs/ (nbdev_docs if quarto is installed, else offline with Sphinx)"
	@echo "make docs-test  README, adapter and browser tests of the site (all also in make test)"
	@echo "make readme   regenerate README.md from nbs/index.ipynb (offline)"
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

# the notebooks as nbdev_test runs them, each in a fresh process, with a timing table (tools/nbtest.py)
nbtest: install
	$(BIN)/python tools/nbtest.py --n_workers 2

nbtest-all: install
	$(BIN)/python tools/nbtest.py --n_workers 2 --flags slow

pytest: install
	$(BIN)/python -m pytest -q --durations=5 tests/

test: check-export nbtest pytest
	@$(BIN)/python tools/nbtest.py --report

test-all: check-export nbtest-all pytest
	@$(BIN)/python tools/nbtest.py --report --flags slow

export: install
	$(BIN)/nbdev_export
	$(BIN)/nbdev_clean

# the site: Quarto's nbdev_docs when quarto is on PATH, else the offline engine (tools/docs.py); prints which
docs: install
	$(BIN)/python tools/docs.py build

# only the docs tests (part of `make test` too): README freshness, the adapter, the site in headless Chromium
docs-test: install
	$(BIN)/python -m pytest -q tests/test_readme.py tests/test_docs_adapter.py tests/test_docs_site.py

readme: install
	$(BIN)/python tools/docs.py readme

bench: install
	$(BIN)/python -m pip install -q -e ".[peers]"
	$(BIN)/python benchmarks/peers.py
	$(BIN)/python benchmarks/gp.py
	$(BIN)/python benchmarks/boo.py
	$(BIN)/python benchmarks/sibo.py
	$(BIN)/python benchmarks/chaining.py
	$(BIN)/python benchmarks/goucb.py
	$(BIN)/python benchmarks/turbo.py
