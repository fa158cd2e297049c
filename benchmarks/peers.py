"""Speed and accuracy against the libraries users would pick instead: bayes_opt (3.x), scikit-optimize (0.10.x), BoTorch.

In one process and one sitting, runs our GP-UCB and GP-EI (default options) and
  * bayes_opt `BayesianOptimization` with its defaults (UCB, kappa = 2.576, i.e. beta = 6.6; 5 random initial
    points; sklearn GP with a Matérn-5/2 kernel, 5 optimiser restarts, refitted every step; acquisition maximised
    by 10^4 random samples + 10 L-BFGS-B runs), and
  * scikit-optimize `gp_minimize` with its defaults (acq_func='gp_hedge', 10 initial points, Matérn-5/2 ARD GP with
    noise, acquisition maximised by 10^4 samples + 5 L-BFGS-B runs)
  * BoTorch (optional: `--peers botorch-logei botorch-ucb`; skipped with a message where torch/botorch are missing),
    the standard tutorial loop: a SingleTaskGP with its default priors, inputs normalised and outputs standardised,
    refitted by `fit_gpytorch_mll` every step; qLogExpectedImprovement (q = 1) or UpperConfidenceBound (beta = 0.1,
    as the BoTorch docs use) maximised by `optimize_acqf` (10 restarts from 512 raw samples); 2D + 1 Sobol initial
    points, as many as our default design,
on Branin (40 evaluations) and Hartmann-6 (100 evaluations), 10 seeds each, single-threaded BLAS for everyone.
Prints per problem the total wall time (and CPU time) of each method, the ratios peer/ours, the median final simple
regret with its interquartile range, and how many runs ended with regret > 0.05 (on Hartmann-6: stuck at the local
maximum 3.2032, regret ~0.12). Seeds are interleaved (seed 0 for every method, then seed 1, ...), so that load from
other processes on a shared machine affects every method alike; CPU time is the least load-sensitive measure.

    pip install -e ".[peers]"      # bayesian-optimization>=3,<4, scikit-optimize>=0.10,<0.11
    python benchmarks/peers.py [--seeds 10] [--first-seed 0] [--problems branin hartmann6] [--peers bayes_opt skopt]
    python benchmarks/peers.py --problems branin --seeds 5 --ours gp-ei:skopt gp-pi:skopt gp-ucb:skopt \
        --peers skopt-ei skopt-pi skopt-lcb     # our baselines at scikit-optimize's defaults beside gp_minimize's

The budget counts every evaluation, initial designs included, for every method. Regret is computed from the
noiseless values of the points each method evaluated: r = f* - max_i f(x_i).
"""
import os
for v in ('OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS', 'MKL_NUM_THREADS', 'BLIS_NUM_THREADS', 'VECLIB_MAXIMUM_THREADS'):
    os.environ[v] = '1'
os.environ.setdefault('HDBO_PROGRESS', '0')
import argparse, functools, json, time, warnings
import numpy as np
from threadpoolctl import threadpool_limits
threadpool_limits(1)
from hdbo_nb.bo import optimize
from hdbo_nb.functions import get_problem

BUDGETS = {'branin': 40, 'hartmann6': 100}

def run_ours(method):
    "Our `method`; 'gp-ei:skopt' is 'gp-ei' with `defaults='skopt'` (scikit-optimize's gp_minimize defaults)."
    name, _, preset = method.partition(':')
    opts = dict(defaults=preset) if preset else {}
    def run(problem, budget, seed):
        tr = optimize(problem, name, budget, rng=seed, **opts)
        return tr.f
    return run

def run_bayes_opt(problem, budget, seed):
    from bayes_opt import BayesianOptimization
    names = [f"x{i}" for i in range(problem.dim)]
    fs = []
    def f(**kw):
        v = problem(np.array([kw[n] for n in names])); fs.append(v); return v
    opt = BayesianOptimization(f=f, pbounds={n: tuple(b) for n, b in zip(names, problem.bounds)}, random_state=seed,
                               verbose=0)
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        opt.maximize(init_points=5, n_iter=budget - 5)
    return np.array(fs)

def run_skopt(problem, budget, seed, acq_func='gp_hedge'):
    from skopt import gp_minimize
    fs = []
    def g(x):
        v = problem(np.array(x, dtype=float)); fs.append(v); return -v
    with warnings.catch_warnings():
        warnings.simplefilter('ignore')
        gp_minimize(g, [tuple(map(float, b)) for b in problem.bounds], n_calls=budget, random_state=seed, acq_func=acq_func)
    return np.array(fs)

def run_botorch(acq):
    "BoTorch's tutorial loop with `acq` = 'logei' (qLogExpectedImprovement) or 'ucb' (UpperConfidenceBound, beta 0.1)."
    def run(problem, budget, seed):
        import torch
        from botorch.models import SingleTaskGP
        from botorch.models.transforms import Normalize, Standardize
        from botorch.fit import fit_gpytorch_mll
        from gpytorch.mlls import ExactMarginalLogLikelihood
        from botorch.acquisition import qLogExpectedImprovement, UpperConfidenceBound
        from botorch.optim import optimize_acqf
        from botorch.utils.sampling import draw_sobol_samples
        torch.set_num_threads(1); torch.manual_seed(seed)
        B = torch.tensor(np.asarray(problem.bounds, float).T, dtype=torch.double)
        f = lambda x: float(problem(x.detach().numpy()))
        X = draw_sobol_samples(bounds=B, n=2 * problem.dim + 1, q=1, seed=seed).squeeze(1)
        Y = torch.tensor([[f(x)] for x in X], dtype=torch.double)
        with warnings.catch_warnings():
            warnings.simplefilter('ignore')
            while len(Y) < budget:
                gp = SingleTaskGP(X, Y, input_transform=Normalize(d=problem.dim), outcome_transform=Standardize(m=1))
                fit_gpytorch_mll(ExactMarginalLogLikelihood(gp.likelihood, gp))
                af = qLogExpectedImprovement(gp, best_f=Y.max()) if acq == 'logei' else UpperConfidenceBound(gp, beta=0.1)
                x, _ = optimize_acqf(af, bounds=B, q=1, num_restarts=10, raw_samples=512)
                X, Y = torch.cat([X, x]), torch.cat([Y, torch.tensor([[f(x[0])]], dtype=torch.double)])
        return Y.squeeze(-1).numpy()
    return run

RUNNERS = {'ours gp-ucb': run_ours('gp-ucb'), 'ours gp-ei': run_ours('gp-ei'),
           'bayes_opt': run_bayes_opt, 'skopt': run_skopt,
           # gp_minimize with one acquisition (its defaults otherwise): the peers of our `defaults='skopt'` baselines
           'skopt-ei': functools.partial(run_skopt, acq_func='EI'), 'skopt-pi': functools.partial(run_skopt, acq_func='PI'),
           'skopt-lcb': functools.partial(run_skopt, acq_func='LCB'),
           'botorch-logei': run_botorch('logei'), 'botorch-ucb': run_botorch('ucb')}

def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('--seeds', type=int, default=10)
    ap.add_argument('--first-seed', type=int, default=0, help='seeds are first-seed, first-seed + 1, ...')
    ap.add_argument('--problems', nargs='+', default=list(BUDGETS))
    ap.add_argument('--peers', nargs='+', default=['bayes_opt', 'skopt'])
    ap.add_argument('--ours', nargs='*', default=['gp-ucb', 'gp-ei'],
                    help="our methods (ratios are against these); 'gp-ei:skopt' runs gp-ei with defaults='skopt'")
    ap.add_argument('--json', default=None, help='also write the raw results to this file')
    a = ap.parse_args(argv)
    ours = [f"ours {m}" for m in a.ours]
    for m in a.ours: RUNNERS.setdefault(f"ours {m}", run_ours(m))
    unknown = [m for m in a.peers if m not in RUNNERS]
    if unknown: raise SystemExit(f"unknown peers {unknown}; known: {sorted(k for k in RUNNERS if not k.startswith('ours'))}")
    peers = []
    for m in a.peers:   # a peer whose library is missing is skipped, with the reason
        mod = 'skopt' if m.startswith('skopt') else {'bayes_opt': 'bayes_opt'}.get(m, 'botorch')
        try: lib = __import__(mod); print(f"{m}: {mod} {lib.__version__}"); peers.append(m)
        except ImportError as e:
            print(f"{m}: skipped ({e}; " + ("pip install torch botorch" if mod == 'botorch' else "pip install -e '.[peers]'") + ")")
    methods = ours + peers
    out = {}
    for pname in a.problems:
        problem, budget = get_problem(pname), BUDGETS.get(pname, 50)
        res = {m: dict(time=0., cpu=0., regret=[]) for m in methods}
        for s in range(a.first_seed, a.first_seed + a.seeds):   # interleaved, so that load from other processes hits every method alike
            for m in methods:
                t0, c0 = time.perf_counter(), time.process_time()
                f = RUNNERS[m](problem, budget, s)
                res[m]['time'] += time.perf_counter() - t0; res[m]['cpu'] += time.process_time() - c0
                assert len(f) == budget, (m, len(f))
                res[m]['regret'].append(float(problem.f_opt - np.nanmax(f)))
            print(f"  {pname} seed {s}: " + ', '.join(f"{m} {res[m]['regret'][-1]:.2e}" for m in methods), flush=True)
        out[pname] = res
        print(f"\n{pname}: {budget} evaluations x {a.seeds} seeds")
        print(f"  {'method':17s} {'wall [s]':>9s} {'cpu [s]':>8s} {'median r':>10s} {'IQR of r':>22s}  stuck" +
              ''.join(f"  {'wall/' + o.split()[-1]:>12s}  {'cpu/' + o.split()[-1]:>11s}" for o in ours))
        for m in methods:
            r = np.array(res[m]['regret'])
            ratios = ''.join(f"  {res[m]['time'] / res[o]['time']:12.1f}  {res[m]['cpu'] / res[o]['cpu']:11.1f}" for o in ours)
            print(f"  {m:17s} {res[m]['time']:9.2f} {res[m]['cpu']:8.2f} {np.median(r):10.3e} "
                  f"[{np.quantile(r, .25):.2e}, {np.quantile(r, .75):.2e}]  {int((r > 0.05).sum()):3d}/{len(r)}{ratios}")
        print(flush=True)
        if a.json:
            with open(a.json, 'w') as fh: json.dump(out, fh, indent=1)
    return out

if __name__ == '__main__':
    main()
