"""SI-BO's two costly pieces against a peer: the Dantzig selector (our linearised ADMM against cvxpy with SCS, the
generic SDP route, on the same instance and lambda, compared at matched objective) and one Exact-UCB run at the
paper's size (d = 100, T = 3500, a 2821-point grid), one process, one BLAS thread.

Prints the CPU time (`time.process_time`) of each solver, the ratio, both objectives and constraint values; then the
time of one Exact-UCB run. cvxpy is optional (`pip install cvxpy`); without it the comparison is skipped with a message.

    python benchmarks/sibo.py [--seeds 3] [--no-ucb]
"""
import os
for v in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'BLIS_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS'):
    os.environ[v] = '1'
os.environ.setdefault('HDBO_PROGRESS', '0')
import argparse, time
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1)
from hdbo_nb.sibo import (si_design, si_points, si_measurements, A_adj, dantzig_selector, spectral_norm, nuclear_norm,
                          sibo_gp_problem)
from hdbo_nb.bo import optimize


def instance(seed, d=100, k=2, m_X=5, m_Phi=500, eps=0.3, sigma=0.01):
    "The SI measurements of the Fig. 3 GP sample (d = 100) with the paper's noise; lambda at half ||A*(y)||."
    p = sibo_gp_problem(d=d, seed=seed, noise_std=sigma)
    rng = np.random.default_rng(seed)
    xi, Phi = si_design(d, m_X, m_Phi, rng)
    P = si_points(xi, Phi, eps)
    y = si_measurements(p.batch(P) + sigma * rng.standard_normal(len(P)), m_X, eps)
    return Phi, y, 0.5 * spectral_norm(A_adj(Phi, y))


def cvxpy_ds(Phi, y, lam):
    import cvxpy as cp
    d, m = Phi.shape[1:]
    Amat = Phi.reshape(len(Phi), -1)
    G, b = Amat.T @ Amat, Amat.T @ y
    M = cp.Variable((d, m))
    r = cp.reshape(b - G @ cp.vec(M, order='C'), (d, m), order='C')
    prob = cp.Problem(cp.Minimize(cp.normNuc(M)), [cp.sigma_max(r) <= lam])
    prob.solve(solver='SCS', eps=1e-6, max_iters=100000)
    return M.value


def main(argv=None):
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument('--seeds', type=int, default=3)
    a.add_argument('--no-ucb', action='store_true', help='skip the Exact-UCB run')
    a = a.parse_args(argv)
    try: import cvxpy  # noqa: F401
    except ImportError: cvxpy = None
    print("Dantzig selector, d = 100, m_X = 5, m_Phi = 500 (CPU seconds; objective ||X||_*, constraint / lambda)")
    for s in range(a.seeds):
        Phi, y, lam = instance(s)
        c0 = time.process_time(); X = dantzig_selector(Phi, y, lam); t_ours = time.process_time() - c0
        line = (f"  seed {s}: ADMM {t_ours:6.2f} s, ||X||_* {nuclear_norm(X):.5f}, "
                f"constraint {spectral_norm(A_adj(Phi, y - np.tensordot(Phi, X, axes=([1, 2], [0, 1])))) / lam:.5f}")
        if cvxpy is not None:
            c0 = time.process_time(); Xc = cvxpy_ds(Phi, y, lam); t_c = time.process_time() - c0
            line += (f" | cvxpy+SCS {t_c:6.2f} s, ||X||_* {nuclear_norm(Xc):.5f}, constraint "
                     f"{spectral_norm(A_adj(Phi, y - np.tensordot(Phi, Xc, axes=([1, 2], [0, 1])))) / lam:.5f} | "
                     f"SCS / ADMM time {t_c / t_ours:.1f}x")
        print(line, flush=True)
    if cvxpy is None: print("  cvxpy is not installed (pip install cvxpy): the SDP comparison is skipped")
    if not a.no_ucb:
        p = sibo_gp_problem(d=100, seed=0)
        c0 = time.process_time(); tr = optimize(p, 'exact-ucb', 3500, rng=0); t = time.process_time() - c0
        print(f"Exact-UCB, d = 100, T = 3500, grid of {tr.meta['grid_size']} points: {t:.1f} s CPU "
              f"(final simple regret {tr.simple_regret()[-1]:.4f})")


if __name__ == '__main__': main()
