"""Chaining-UCB's cost per step at N = 2500 and 10^4 on the SE task (one process, one BLAS thread), after 30 and 110
observations (early in a run the score works on the pairs within eps_1 = 1; late in a run, when more than a tenth of all
pairs are that close, on the dense matrix). The same nested covers of Algorithm 1 computed two ways, and a third on request:

* ours: `ChainingUCB.score` as it runs (distances, covers, H_i and the bonus);
* the fair baseline: the dense N x N matrix of Eq. 2 and the textbook greedy bookkeeping (each uncovered point's degree
  updated incrementally as centres are picked), what a careful direct implementation does;
* `--naive`: Algorithm 2 transcribed naively, every uncovered point's uncovered neighbours recounted (one matrix-vector
  product) at every pick (about a minute per score at 10^4);

and a GP-UCB step (score and posterior update) on the same instance, its posterior built before the clock starts. Prints
CPU seconds (`time.process_time`, the best of `--repeats`) and ratios, leading with ours against the fair baseline, and
checks that every computation gives the same covers.

    python benchmarks/chaining.py [--N 2500 10000] [--obs 30 110] [--repeats 3] [--naive]
"""
import os
for v in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'BLIS_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS'):
    os.environ[v] = '1'
os.environ.setdefault('HDBO_PROGRESS', '0')
import argparse, time
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1)
from hdbo_nb.chaining import chaining_se, ChainingUCB, canonical_dist2, nested_covers, n_levels, eps_level
from hdbo_nb.bo import GPUCBFinite

def cpu(f, repeats):
    ts = []
    for _ in range(repeats):
        t0 = time.process_time(); out = f(); ts.append(time.process_time() - t0)
    return min(ts), out

def dense_greedy_covers(D2, L):
    "Algorithm 1 with Algorithm 2 as printed on the dense eps_i-graph: degrees recounted at every pick."
    N = len(D2); dT2 = np.full(N, np.inf); T, out = [], []
    for i in range(1, L + 1):
        e2 = eps_level(i) ** 2
        Xb = np.flatnonzero(dT2 > e2)
        if len(Xb):
            B = (D2[np.ix_(Xb, Xb)] <= e2).astype(np.float32)
            unc = np.ones(len(Xb), dtype=np.float32); new = []
            while unc.any():
                deg = B @ unc; deg[unc == 0] = -1
                c = int(np.argmax(deg)); new.append(Xb[c]); unc[B[c] > 0] = 0
            T.extend(new)
            for a in range(0, len(new), 256): np.minimum(dT2, D2[new[a:a + 256]].min(0), out=dT2)
        out.append(np.array(T, dtype=np.int64))
    return out

def prepared(p, n_obs):
    "A Chaining-UCB optimiser and a GP-UCB one holding the same n_obs observations (GP-UCB's choices after Chaining-UCB's first 30)."
    opt, g = ChainingUCB(p.bounds, rng=0, domain=p.domain, noise_std=0.05), GPUCBFinite(p.bounds, rng=0, domain=p.domain, noise_std=0.05)
    for k in range(n_obs):
        x = opt.ask() if k < 30 else g.ask()
        y = p.evaluate(x, 0)[0]; opt.tell(x, y); g.tell(x, y)
    g._posterior()                     # GP-UCB builds its posterior lazily: built here, not inside the timed step
    return opt, g

def main(argv=None):
    a = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    a.add_argument('--N', type=int, nargs='+', default=[2500, 10_000])
    a.add_argument('--obs', type=int, nargs='+', default=[30, 110])
    a.add_argument('--repeats', type=int, default=3)
    a.add_argument('--naive', action='store_true', help='also time Algorithm 2 transcribed naively (slow at 10^4)')
    a = a.parse_args(argv)
    for N in a.N:
        p = chaining_se(N=N, seed=0)
        for n_obs in a.obs:
            opt, g = prepared(p, n_obs)
            post = opt.post
            L = n_levels(max(float(post.sigma.min()), 1e-6))
            t_ours, _ = cpu(lambda: opt.score(n_obs - 9), a.repeats)
            path = 'dense' if opt._dense else 'pairs'
            T0 = opt.last['T']
            t_inc, T1 = cpu(lambda: nested_covers(canonical_dist2(post.cov), L), a.repeats)
            same = all(np.array_equal(x, y) for x, y in zip(T0, T1))
            naive = ''
            if a.naive:
                t_naive, T2 = cpu(lambda: dense_greedy_covers(canonical_dist2(post.cov), L), 1)
                same &= all(np.array_equal(x, z) for x, z in zip(T0, T2))
                naive = f"; Algorithm 2 transcribed naively {t_naive:.1f} s (x{t_naive / t_ours:.0f})"
            assert same, 'the computations disagree on the covers'
            def gp_step():
                x = g.ask(); g.tell(x, p.evaluate(x, 0)[0])
            t_gp, _ = cpu(gp_step, a.repeats)
            t_upd, _ = cpu(lambda: post.add(5, 0.1), 1)
            print(f"N = {N}, {n_obs} observations ({path} path, {L} levels, |T_L| = {len(T0[-1])}): speed-up over the fair "
                  f"baseline (dense, incremental degrees) x{t_inc / t_ours:.1f} ({t_ours:.2f} s against {t_inc:.2f} s){naive}; "
                  f"Chaining-UCB step (score + update) / GP-UCB step = {(t_ours + t_upd) / t_gp:.0f}", flush=True)

if __name__ == '__main__': main()
