"""BOO's cost per run against the tree baselines it is compared with (SOO, BaMSOO, IMGPO), on Hartmann-3 at the paper's
size (N = 200, the `boo-fig3` options: a GP refit after every evaluation), one process, one BLAS thread.

Prints per method the mean wall time and CPU time (`time.process_time`, the less load-sensitive of the two) of one
run, the ratio to BOO, and the median final log10 simple regret. Seeds are interleaved (seed 0 for every method, then
seed 1, ...) so that load from other processes affects every method alike.

    python benchmarks/boo.py [--seeds 3] [--methods BOO SOO BaMSOO IMGPO]
"""
import os
for v in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'BLIS_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS'):
    os.environ[v] = '1'
os.environ.setdefault('HDBO_PROGRESS', '0')
import argparse, time
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1)
import hdbo_nb.boo
from hdbo_nb.bo import get_method
from hdbo_nb.experiments import get_experiment, experiment_runs

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--seeds', type=int, default=3)
    p.add_argument('--methods', nargs='+', default=['BOO', 'SOO', 'BaMSOO', 'IMGPO'])
    a = p.parse_args(argv)
    runs = [r for r in experiment_runs(get_experiment('boo-fig3', 'full'))
            if r.problem_label == 'Hartmann-3' and r.method_label in a.methods and r.seed < a.seeds]
    runs.sort(key=lambda r: (r.seed, a.methods.index(r.method_label)))
    res = {m: dict(wall=[], cpu=[], log10r=[]) for m in a.methods}
    for r in runs:
        problem = r.make_problem()
        opt = get_method(r.method)(problem.bounds, rng=r.seed, **r.options)
        t0, c0 = time.perf_counter(), time.process_time()
        tr = opt.run(problem, r.budget)
        res[r.method_label]['wall'].append(time.perf_counter() - t0)
        res[r.method_label]['cpu'].append(time.process_time() - c0)
        res[r.method_label]['log10r'].append(np.log10(max(tr.simple_regret()[-1], 1e-300)))
        print(f"  {r.method_label:7s} seed {r.seed}: {res[r.method_label]['wall'][-1]:6.2f} s wall, "
              f"{res[r.method_label]['cpu'][-1]:6.2f} s CPU", flush=True)
    b = np.mean(res['BOO']['cpu']) if 'BOO' in res else float('nan')
    print(f"\nHartmann-3, N = {runs[0].budget}, {a.seeds} seeds, one BLAS thread (mean per run)")
    print(f"{'method':8s} {'wall [s]':>9s} {'CPU [s]':>8s} {'CPU / BOO':>10s} {'median log10 regret':>20s}")
    for m, v in res.items():
        print(f"{m:8s} {np.mean(v['wall']):9.2f} {np.mean(v['cpu']):8.2f} {np.mean(v['cpu']) / b:10.3f} "
              f"{np.median(v['log10r']):20.2f}")

if __name__ == '__main__': main()
