"""GP micro-benchmark: hdbo_nb.gp.GP against scikit-learn's GaussianProcessRegressor.

Fit with hyperparameter optimisation (Matérn-5/2 ARD kernel with signal variance and a fitted noise level, same
bounds, same initial values and the same number of random restarts for both), then predict mean and std at 10^4
points, for n = 100, 500, 1000 training points in D = 6. Single-threaded BLAS for both, one process.
Prints the wall-time ratio sklearn/ours (> 1 means we are faster) and the log marginal likelihood each reached.

    python benchmarks/gp.py [--sizes 100 500 1000] [--restarts 1] [--dim 6] [--seeds 0 1 2]

Random restarts start at different random points in the two libraries, so each size is run on several seeds
(data and restarts) and the times are summed; with `--restarts 0` both follow the same path from the same start.

Second table, the inner loop of GP-UCB/GP-EI with DIRECT: a GP on n points with fixed hyperparameters gains k
points one at a time, each followed by m one-point predictions (as DIRECT calls an acquisition). Ours appends with
`GP.add` (a rank-one Cholesky update); scikit-learn, which has no update, refits with `optimizer=None`.

    python benchmarks/gp.py [--inc-n 700] [--inc-k 5] [--inc-m 1000]
"""
import os
for v in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'BLIS_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS'):
    os.environ[v] = '1'
import argparse, time, warnings
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1)
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import ConstantKernel, Matern as skMatern, WhiteKernel
from hdbo_nb.gp import GP, Matern

LS_B, VAR_B, NOISE_B = (1e-2, 1e2), (1e-3, 1e3), (1e-6, 1.)

def data(n, D, m, seed):
    "A smooth test function on [0, 1]^D with a little noise (Hartmann-like sum of bumps)."
    rng = np.random.default_rng(seed)
    C, w = rng.random((4, D)), rng.uniform(0.5, 2, 4)
    f = lambda X: (w * np.exp(-4 * ((X[:, None, :] - C)**2).sum(-1))).sum(1) + np.sin(3 * X[:, 0])
    X, Xs = rng.random((n, D)), rng.random((m, D))
    return X, f(X) + 0.01 * rng.standard_normal(n), Xs

def run_ours(X, y, Xs, restarts, seed):
    t0 = time.perf_counter()
    gp = GP(Matern(2.5, np.ones(X.shape[1])), noise=1e-2, fit_noise=True, lengthscale_bounds=LS_B,
            variance_bounds=VAR_B, noise_bounds=NOISE_B, maxiter=15000).fit(X, y, n_restarts=restarts, rng=seed)
    t1 = time.perf_counter()
    mu, sd = gp.predict(Xs)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, gp.lml_, mu, sd

def run_sklearn(X, y, Xs, restarts, seed):
    k = ConstantKernel(1., VAR_B) * skMatern(np.ones(X.shape[1]), LS_B, nu=2.5) + WhiteKernel(1e-2, NOISE_B)
    t0 = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        sk = GaussianProcessRegressor(k, alpha=0., normalize_y=True, n_restarts_optimizer=restarts,
                                      random_state=seed).fit(X, y)
    t1 = time.perf_counter()
    mu, sd = sk.predict(Xs, return_std=True)
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, sk.log_marginal_likelihood_value_, mu, sd

def incremental(n, D, k, m, seed):
    "Seconds for k one-point additions, each followed by m one-point predictions: (ours, sklearn, max |mean diff|)."
    X, y, Xs = data(n + k, D, m, seed)
    ls, var, nz = np.full(D, 0.5), 1.0, 1e-2
    gp = GP(Matern(2.5, ls, var), noise=nz, normalize_y=False).fit(X[:n], y[:n], optimize=False)
    k_sk = ConstantKernel(var, 'fixed') * skMatern(ls, 'fixed', nu=2.5) + WhiteKernel(nz, 'fixed')
    t0 = time.perf_counter()
    for i in range(n, n + k):
        gp.add(X[i], y[i])
        mo = np.array([gp.predict(x[None])[0][0] for x in Xs])
    t1 = time.perf_counter()
    for i in range(n, n + k):
        sk = GaussianProcessRegressor(k_sk, alpha=0., optimizer=None).fit(X[:i + 1], y[:i + 1])
        ms = np.array([sk.predict(x[None], return_std=True)[0][0] for x in Xs])
    t2 = time.perf_counter()
    return t1 - t0, t2 - t1, float(np.max(np.abs(mo - ms)))

def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument('--sizes', type=int, nargs='*', default=[100, 500, 1000])  # none: only the inner-loop table
    p.add_argument('--restarts', type=int, default=1)
    p.add_argument('--dim', type=int, default=6)
    p.add_argument('--m', type=int, default=10_000)
    p.add_argument('--seeds', type=int, nargs='+', default=[0, 1, 2])
    p.add_argument('--inc-n', type=int, default=700)
    p.add_argument('--inc-k', type=int, default=5)
    p.add_argument('--inc-m', type=int, default=1000)
    a = p.parse_args(argv)
    print(f"D={a.dim}, Matérn-5/2 ARD + fitted noise, {a.restarts} random restart(s) + initial start each, "
          f"predict mean+std at {a.m} points, 1 BLAS thread")
    hdr = f"{'n':>5} | {'sklearn fit':>11} {'pred':>6} | {'ours fit':>8} {'pred':>6} | {'ratio fit':>9} {'ratio total':>11} | {'LML sklearn':>11} {'LML ours':>9}"
    print(hdr); print('-' * len(hdr))
    X, y, Xs = data(30, a.dim, 1000, 99)          # warm-up (imports, first-call allocations) for both, untimed
    run_ours(X, y, Xs, 0, 0); run_sklearn(X, y, Xs, 0, 0)
    for n in a.sizes:
        T = np.zeros(4)
        for seed in a.seeds:
            X, y, Xs = data(n, a.dim, a.m, seed)
            fo, po, lo, mo, so = run_ours(X, y, Xs, a.restarts, seed)
            fs, ps, ls, ms, ss = run_sklearn(X, y, Xs, a.restarts, seed)
            T += [fs, ps, fo, po]
            print(f"{n:>5} | {fs:>10.2f}s {ps:>5.2f}s | {fo:>7.2f}s {po:>5.2f}s | {fs/fo:>9.1f} {(fs+ps)/(fo+po):>11.1f} | "
                  f"{ls:>11.3f} {lo:>9.3f}   seed {seed}", flush=True)
        fs, ps, fo, po = T
        print(f"{n:>5} | {fs:>10.2f}s {ps:>5.2f}s | {fo:>7.2f}s {po:>5.2f}s | {fs/fo:>9.1f} {(fs+ps)/(fo+po):>11.1f} |"
              f"   (total over {len(a.seeds)} seeds)", flush=True)
    print(f"\nInner loop: n = {a.inc_n} points, then {a.inc_k} added one at a time, each followed by {a.inc_m} "
          f"one-point predictions (fixed hyperparameters)")
    print(f"{'seed':>5} | {'sklearn':>8} | {'ours':>8} | {'ratio':>6} | max |mean diff|")
    for seed in a.seeds:
        to, ts, d = incremental(a.inc_n, a.dim, a.inc_k, a.inc_m, seed)
        print(f"{seed:>5} | {ts:>7.2f}s | {to:>7.2f}s | {ts / to:>6.1f} | {d:.1e}", flush=True)

if __name__ == '__main__': main()
