"""Our TuRBO-1 (`turbo`) against BoTorch's TuRBO-1 tutorial loop (q = 1) on the tutorial's problem, 20-D Ackley on
[-5, 10]^20, with the same initial-design size (2D), budget and candidate count, one process, one BLAS/torch thread.

Prints per method the time per trust-region step (wall and CPU, the whole run divided by the evaluations after the
first design), BoTorch's time over ours, and the final simple regret per seed (Ackley's optimum is 0 at the origin).
Seeds are interleaved (seed 0 for both methods, then seed 1, ...). The BoTorch loop is a re-implementation of the
tutorial's (a new `SingleTaskGP` with its Matérn-5/2 ARD kernel, lengthscales in [0.005, 4] and noise in
[1e-8, 1e-3] fitted by `fit_gpytorch_mll` at every step, the lengthscale-weighted box, the perturbation mask,
`MaxPosteriorSampling` with Cholesky at any size, the tutorial's state update), with q = 1 and a restart from a new
Sobol design when the tutorial's loop would stop. BoTorch is optional (`pip install botorch`, which brings torch and
gpytorch); without it the script says so and runs ours only.

    python benchmarks/turbo.py [--seeds 3] [--budget 100] [--dim 20] [--out benchmarks/results/turbo.json]
"""
import os
for v in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'BLIS_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS'):
    os.environ[v] = '1'
os.environ.setdefault('HDBO_PROGRESS', '0')
import argparse, json, math, platform, time, warnings
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1)
from hdbo_nb.core import Problem
from hdbo_nb.functions import ackley
from hdbo_nb.turbo import TuRBO, n_candidates, failure_tolerance

try:
    import torch
    torch.set_num_threads(1)
    import gpytorch, botorch
    HAVE_TORCH = True
except ImportError as e:
    HAVE_TORCH, TORCH_ERROR = False, str(e)


def problem(dim):
    return Problem.from_minimization(ackley, np.tile([-5., 10.], (dim, 1)), g_min=0., name=f'ackley{dim}')


def run_ours(dim, budget, seed):
    p = problem(dim)
    opt = TuRBO(p.bounds, rng=seed)                       # defaults: n_init 2D, the tutorial's constants
    t0, c0 = time.perf_counter(), time.process_time()
    tr = opt.run(p, budget)
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    d = tr.diagnostics
    return dict(wall=wall, cpu=cpu, steps=int(np.sum(d['init'] == 0)), regret=float(tr.simple_regret()[-1]),
                restarts=int(d['restart_index'][-1]), fit=float(np.nansum(d['fit_time'])),
                ts=float(np.nansum(d['ts_time'])))


def run_botorch(dim, budget, seed):
    "The tutorial's TuRBO-1 loop with q = 1 (re-implemented), restarting from a new Sobol design when it converges."
    from botorch.models import SingleTaskGP
    from botorch.fit import fit_gpytorch_mll
    from botorch.generation import MaxPosteriorSampling
    from gpytorch.constraints import Interval
    from gpytorch.kernels import MaternKernel, ScaleKernel
    from gpytorch.likelihoods import GaussianLikelihood
    from gpytorch.mlls import ExactMarginalLogLikelihood
    from torch.quasirandom import SobolEngine
    dt = torch.double
    torch.manual_seed(seed)
    p = problem(dim)
    lo, hi = p.bounds[:, 0], p.bounds[:, 1]
    f = lambda u: float(p.evaluate(lo + (hi - lo) * u.numpy())[0])
    n_init, n_cand, fail_tol = 2 * dim, n_candidates(dim), failure_tolerance(dim)
    ys, steps, restarts = [], 0, -1
    t0, c0 = time.perf_counter(), time.process_time()
    while len(ys) < budget:
        restarts += 1
        X = SobolEngine(dim, scramble=True, seed=1000 * seed + restarts).draw(min(n_init, budget - len(ys))).to(dt)
        Y = torch.tensor([f(x) for x in X], dtype=dt).unsqueeze(-1)
        ys += Y[:, 0].tolist()
        L, n_s, n_f, best = 0.8, 0, 0, Y.max().item()
        while len(ys) < budget:
            train_Y = (Y - Y.mean()) / Y.std()
            kernel = ScaleKernel(MaternKernel(nu=2.5, ard_num_dims=dim, lengthscale_constraint=Interval(0.005, 4.0)))
            model = SingleTaskGP(X, train_Y, covar_module=kernel,
                                 likelihood=GaussianLikelihood(noise_constraint=Interval(1e-8, 1e-3)))
            with gpytorch.settings.max_cholesky_size(float('inf')):
                with warnings.catch_warnings():
                    warnings.simplefilter('ignore')
                    fit_gpytorch_mll(ExactMarginalLogLikelihood(model.likelihood, model))
                ls = model.covar_module.base_kernel.lengthscale.detach().reshape(-1)
                w = ls / ls.mean()
                w = w / torch.prod(w.pow(1.0 / dim))
                c = X[train_Y.argmax()].clone()
                lb, ub = torch.clamp(c - w * L / 2, 0., 1.), torch.clamp(c + w * L / 2, 0., 1.)
                P = lb + (ub - lb) * SobolEngine(dim, scramble=True).draw(n_cand).to(dt)
                mask = torch.rand(n_cand, dim, dtype=dt) <= min(20. / dim, 1.)
                empty = torch.where(mask.sum(1) == 0)[0]
                mask[empty, torch.randint(0, dim, (len(empty),))] = True
                C = c.expand(n_cand, dim).clone()
                C[mask] = P[mask]
                with torch.no_grad():
                    x = MaxPosteriorSampling(model=model, replacement=False)(C, num_samples=1)
            y = f(x[0])
            steps += 1
            if y > best + 1e-3 * abs(best): n_s, n_f = n_s + 1, 0
            else: n_s, n_f = 0, n_f + 1
            if n_s == 10: L, n_s = min(2 * L, 1.6), 0
            elif n_f == fail_tol: L, n_f = L / 2, 0
            best = max(best, y)
            X = torch.cat([X, x]); Y = torch.cat([Y, torch.tensor([[y]], dtype=dt)])
            ys.append(y)
            if L < 0.5**7: break
    wall, cpu = time.perf_counter() - t0, time.process_time() - c0
    return dict(wall=wall, cpu=cpu, steps=steps, regret=float(-max(ys)), restarts=restarts)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument('--seeds', type=int, default=3)
    ap.add_argument('--budget', type=int, default=100)
    ap.add_argument('--dim', type=int, default=20)
    ap.add_argument('--out', default=os.path.join(os.path.dirname(os.path.abspath(__file__)), 'results', 'turbo.json'))
    a = ap.parse_args(argv)
    methods = {'ours turbo': run_ours}
    if HAVE_TORCH: methods['BoTorch tutorial'] = run_botorch
    else: print(f"torch/botorch cannot be imported ({TORCH_ERROR}): running ours only "
                "(pip install botorch for the comparison)")
    print(f"Ackley-{a.dim} on [-5, 10]^{a.dim}, budget {a.budget} (n_init {2 * a.dim}), {n_candidates(a.dim)} "
          f"candidates, {a.seeds} seeds, one thread", flush=True)
    res = {m: [] for m in methods}
    for seed in range(a.seeds):
        for m, fn in methods.items():
            r = fn(a.dim, a.budget, seed)
            res[m].append(r)
            print(f"  {m:17s} seed {seed}: {r['wall']:7.1f} s wall, {r['cpu']:7.1f} s CPU, {r['steps']} TR steps, "
                  f"{r['restarts']} restarts, final regret {r['regret']:.3f}", flush=True)
    per = lambda m, k: float(np.mean([r[k] / max(r['steps'], 1) for r in res[m]]))
    ref = 'ours turbo'
    print(f"\n{'method':17s} {'wall/step [s]':>14s} {'CPU/step [s]':>13s} {'CPU vs ours':>12s}  final regret per seed")
    for m in methods:
        print(f"{m:17s} {per(m, 'wall'):14.3f} {per(m, 'cpu'):13.3f} {per(m, 'cpu') / per(ref, 'cpu'):12.2f}  "
              + ', '.join(f"{r['regret']:.3f}" for r in res[m]))
    out = dict(problem=f'ackley{a.dim} on [-5, 10]^{a.dim}', budget=a.budget, n_init=2 * a.dim,
               n_candidates=n_candidates(a.dim), seeds=a.seeds, runs=res,
               per_step={m: dict(wall=per(m, 'wall'), cpu=per(m, 'cpu')) for m in methods},
               versions=dict(python=platform.python_version(), numpy=np.__version__,
                             **({'torch': torch.__version__, 'botorch': botorch.__version__,
                                 'gpytorch': gpytorch.__version__} if HAVE_TORCH else {})))
    os.makedirs(os.path.dirname(a.out), exist_ok=True)
    with open(a.out, 'w') as fh: json.dump(out, fh, indent=1)
    print(f"saved {a.out}")


if __name__ == '__main__': main()
