"""Chaining-UCB's cost per step: our covers (sparse or dense bookkeeping, chosen per level) against the same greedy with
dense bookkeeping at every level, and a whole Chaining-UCB step against a GP-UCB step, on the SE task after 30
observations, one process, one BLAS thread.

Prints CPU seconds (`time.process_time`, the less load-sensitive measure) per step and the ratios, and checks that
both cover computations return the same covers.

    python benchmarks/chaining.py [--N 2500 10000] [--repeats 3]
"""
import os
for v in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'BLIS_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS'):
    os.environ[v] = '1'
os.environ.setdefault('HDBO_PROGRESS', '0')
import argparse, time
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1)
import hdbo_nb.chaining as ch
from hdbo_nb.chaining import chaining_se, ChainingUCB, canonical_dist2, nested_covers, n_levels
from hdbo_nb.bo import GPUCBFinite

def cpu(f, repeats):
    ts = []
    for _ in range(repeats):
        t0 = time.process_time(); out = f(); ts.append(time.process_time() - t0)
    return min(ts), out

def prepared(cls, p, n_obs=30):
    opt = cls(p.bounds, rng=0, domain=p.domain, noise_std=0.05)
    for _ in range(n_obs):
        x = opt.ask(); opt.tell(x, p.evaluate(x, 0)[0])
    return opt

def main(argv=None):
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument('--N', type=int, nargs='+', default=[2500, 10_000])
    a.add_argument('--repeats', type=int, default=3)
    a = a.parse_args(argv)
    for N in a.N:
        p = chaining_se(N=N, seed=0)
        opt = prepared(ChainingUCB, p)
        D2 = canonical_dist2(opt.post.cov)
        L = n_levels(max(float(opt.post.sigma.min()), 1e-6))
        t_ours, T1 = cpu(lambda: nested_covers(D2, L), a.repeats)
        orig = ch._greedy
        ch._greedy = lambda B, dense_above=0.: orig(B, dense_above=-1.)      # dense bookkeeping at every level
        try: t_dense, T2 = cpu(lambda: nested_covers(D2, L), a.repeats)
        finally: ch._greedy = orig
        assert all(np.array_equal(x, y) for x, y in zip(T1, T2))
        t_step, _ = cpu(lambda: opt.score(1), a.repeats)
        g = prepared(GPUCBFinite, p)
        def gp_step():
            x = g.ask(); g.tell(x, p.evaluate(x, 0)[0])
        t_gp, _ = cpu(gp_step, a.repeats)
        t_upd, _ = cpu(lambda: opt.post.add(5, 0.1), 1)
        print(f"N = {N}: {L} levels, |T_L| = {len(T1[-1])}; covers ours {t_ours:.3f} s, dense bookkeeping {t_dense:.3f} s "
              f"(x{t_dense / t_ours:.1f}); Chaining-UCB score {t_step:.3f} s + posterior update {t_upd:.3f} s; "
              f"GP-UCB step (score + update) {t_gp:.3f} s (ratio {(t_step + t_upd) / t_gp:.0f})", flush=True)

if __name__ == '__main__': main()
