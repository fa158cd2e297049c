"""One evaluation of GO-UCB's hyperparameter-tuning objectives (Sec. 6.2, App. D.2), per classifier and data set, one
process, one BLAS thread.

Prints per (classifier, data set) the wall time of one evaluation (fit on four folds, score the fifth) at the centre of
[0, 10]^d_x, the mean and the maximum over random points of the domain, and for the MLP the slowest corner of its
search space (max_iter 300, n_iter_no_change 10, a learning rate of 1e-6 that never converges). The paper's Fig. 3 runs
3 classifiers x 6 methods x 5 folds x 72 evaluations; multiply the mean by that to size a sweep.

    python benchmarks/goucb_hpo.py [--data breast-cancer australian diabetes] [--points 10] [--scale]
"""
import os
for v in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'BLIS_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS'):
    os.environ[v] = '1'
os.environ.setdefault('HDBO_PROGRESS', '0')
import argparse, time
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1)
from hdbo_nb.goucb import hpo_problem, hpo_encode, hpo_decode

def _time(p, x) -> tuple:
    t0 = time.perf_counter(); a = p(x); return time.perf_counter() - t0, a

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--data', nargs='+', default=['breast-cancer', 'australian', 'diabetes'])
    ap.add_argument('--models', nargs='+', default=['rf', 'mlp', 'gb'])
    ap.add_argument('--points', type=int, default=10, help='uniform random points per task')
    ap.add_argument('--scale', action='store_true', help='standardise the inputs (StandardScaler)')
    a = ap.parse_args(argv)
    print(f"{'task':40s} {'centre s':>9} {'mean s':>8} {'max s':>8}  {'slowest corner s':>16}  accuracy range")
    for d in a.data:
        for m in a.models:
            p = hpo_problem(m, d, fold=0, scale=a.scale)
            p(np.full(p.dim, 5.))   # warm-up: imports and the data cache
            c, _ = _time(p, np.full(p.dim, 5.))
            res = [_time(p, x) for x in np.random.default_rng(0).uniform(0, 10, (a.points, p.dim))]
            ts, acc = np.array([r[0] for r in res]), np.array([r[1] for r in res])
            corner = ''
            if m == 'mlp':
                slow = {**hpo_decode('mlp', np.zeros(8)), 'activation': 'relu', 'max_iter': 300, 'n_iter_no_change': 10}
                corner = f"{_time(p, hpo_encode('mlp', slow))[0]:16.2f}"
            print(f"{p.name:40s} {c:9.2f} {ts.mean():8.2f} {ts.max():8.2f}  {corner:>16}  [{acc.min():.3f}, {acc.max():.3f}]")

if __name__ == '__main__': main()
