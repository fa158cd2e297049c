#!/usr/bin/env python
"""Does the current code still produce the cached runs? Reruns one seed of every (method, problem) of a cached
experiment and compares its values with the stored trace.

    python tools/audit_cache.py goucb-fig2                 # seed 0 of every (method, problem) of the full experiment
    python tools/audit_cache.py goucb-fig2 --seed 3 --max-seconds 600
    python tools/audit_cache.py goucb-fig3 --methods GP-EI GP-UCB

A run's identity in the cache is its specification (method, options, problem, budget, seed); the code version is in it
only for experiments that opt in (`Experiment(version='auto')`). A change to the core GP or an acquisition therefore
leaves older traces in place. Each rerun is reported as

- `same`: bit for bit;
- `close`: every value within `--rtol` of the stored one (another BLAS kernel gives such differences);
- `DIFFERS`: the runs part; the first evaluation where they do is printed. A run whose trajectory depends on an
  arg max (most BO methods) can part after last-bit differences too, so rerun a `DIFFERS` run under the kernel that
  wrote it before calling it stale; a run that parts on this machine's own kernel, where it reran before, is stale.

Exits 1 if any run differs. Runs one BLAS thread per process, as the sweeps do.
"""
import argparse, os, sys, time
for k in ('OPENBLAS_NUM_THREADS', 'OMP_NUM_THREADS', 'MKL_NUM_THREADS'): os.environ.setdefault(k, '1')
import numpy as np


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('experiment')
    ap.add_argument('--scale', default='full', choices=('quick', 'full'))
    ap.add_argument('--cache', default='results', help='results cache (default: results)')
    ap.add_argument('--seed', type=int, default=0, help='the seed rerun (default 0)')
    ap.add_argument('--methods', nargs='*', help='method labels (default: all)')
    ap.add_argument('--problems', nargs='*', help='problem labels (default: all)')
    ap.add_argument('--rtol', type=float, default=1e-6, help="relative tolerance of 'close' (default 1e-6)")
    ap.add_argument('--max-seconds', type=float, default=float('inf'), help='stop starting reruns after this long')
    a = ap.parse_args(argv)
    from hdbo_nb.experiments import get_experiment, load_results, experiment_runs, _execute
    from hdbo_nb.registry import load_all
    load_all()
    exp = get_experiment(a.experiment, a.scale)
    res = load_results(exp, cache_dir=a.cache, scale=a.scale)
    t0, bad, done = time.time(), 0, 0
    for run in experiment_runs(exp):
        if run.seed != a.seed or (a.methods and run.method_label not in a.methods) or (a.problems and run.problem_label not in a.problems):
            continue
        stored = [t for t in res.get((run.method_label, run.problem_label), []) if int(t.meta['seed']) == run.seed]
        if not stored: print(f"{run.problem_label:28s} {run.method_label:36s} not in the cache"); continue
        if time.time() - t0 > a.max_seconds: print(f"stopped after {a.max_seconds:.0f} s"); break
        t1 = time.time(); _, tr, err = _execute(run)
        if err: print(f"{run.problem_label:28s} {run.method_label:36s} ERROR {err}"); bad += 1; continue
        f0, f1 = np.asarray(stored[0].f, float), np.asarray(tr.f, float)
        if len(f0) != len(f1): verdict = f"DIFFERS (length {len(f1)} against {len(f0)})"
        elif np.array_equal(f0, f1): verdict = 'same'
        else:
            off = ~np.isclose(f1, f0, rtol=a.rtol, atol=a.rtol * max(1., float(np.abs(f0).max())))
            verdict = 'close' if not off.any() else f"DIFFERS from evaluation {int(np.argmax(off)) + 1} (sum {f0.sum():.6g} -> {f1.sum():.6g})"
        bad += verdict.startswith('DIFFERS'); done += 1
        print(f"{run.problem_label:28s} {run.method_label:36s} {verdict} ({time.time() - t1:.0f} s)", flush=True)
    print(f"{done} reruns, {bad} differ")
    return 1 if bad else 0


if __name__ == '__main__': sys.exit(main())
