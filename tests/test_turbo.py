"TuRBO-1: the state rules, the trust region, the candidates, and a step-by-step reference run of the whole loop."
import math, warnings
import numpy as np
import pytest
from scipy.stats import qmc
from hdbo_nb.core import Problem
from hdbo_nb.gp import GP, Matern
from hdbo_nb.bo import optimize, latin_hypercube, get_method
from hdbo_nb.turbo import (TuRBO, TRState, tr_update, tr_weights, tr_box, tr_candidates, failure_tolerance,
                           n_candidates)


# ---------------------------------------------------------------------------------------------- the state rules
def test_success_needs_the_margin_above_the_best():
    s = tr_update(TRState(0.8, best=10.), 10.01 + 1e-9)
    assert (s.n_success, s.n_failure, s.best) == (1, 0, 10.01 + 1e-9)
    s = tr_update(TRState(0.8, best=10.), 10.01)               # exactly best + 1e-3 |best|: not a success
    assert (s.n_success, s.n_failure) == (0, 1)
    s = tr_update(TRState(0.8, best=10.), 9.999)               # worse: a failure, best kept
    assert (s.n_success, s.n_failure, s.best) == (0, 1, 10.)
    s = tr_update(TRState(0.8, best=-10.), -9.985)             # negative best: the margin is still upwards
    assert (s.n_success, s.n_failure) == (1, 0)
    s = tr_update(TRState(0.8, best=-10.), -9.995)
    assert (s.n_success, s.n_failure) == (0, 1)
    s = tr_update(TRState(0.8, best=0.), 1e-12)                # best 0: any increase
    assert s.n_success == 1
    s = tr_update(TRState(0.8, best=-math.inf), -1e9)          # no best yet: any finite value
    assert s.n_success == 1


def test_counters_are_consecutive_and_failed_evaluations_fail():
    s = TRState(0.8, n_success=3, n_failure=0, best=1.)
    s = tr_update(s, 0.)
    assert (s.n_success, s.n_failure) == (0, 1)
    s = tr_update(TRState(0.8, n_success=0, n_failure=3, best=1.), 2.)
    assert (s.n_success, s.n_failure) == (1, 0)
    for bad in (math.nan, -math.inf):
        s = tr_update(TRState(0.8, best=1.), bad)
        assert (s.n_success, s.n_failure, s.best) == (0, 1, 1.)


def test_doubling_after_success_tol_and_clamping():
    s = TRState(0.4, best=0.)
    for i in range(2): s = tr_update(s, i + 1., success_tol=3)
    assert (s.length, s.n_success) == (0.4, 2)
    s = tr_update(s, 10., success_tol=3)
    assert (s.length, s.n_success, s.n_failure) == (0.8, 0, 0)
    for i in range(3): s = tr_update(s, 20. + i, success_tol=3)
    assert s.length == 1.6
    for i in range(3): s = tr_update(s, 30. + i, success_tol=3)
    assert s.length == 1.6                                     # min(2 L, L_max)
    s = TRState(1.2, n_success=9, best=0.)
    assert tr_update(s, 1.).length == 1.6                      # default success_tol 10, clamped


def test_halving_after_failure_tol_and_restart_below_l_min():
    s, lengths = TRState(0.8, best=0.), []
    for _ in range(7 * 4):
        assert not s.restart
        s = tr_update(s, -1., failure_tol=4); lengths.append(s.length)
    assert lengths[2] == 0.8 and lengths[3] == 0.4 and lengths[4] == 0.4 and lengths[7] == 0.2
    assert lengths[4 * 6 - 1] == 0.8 / 64 and not (0.8 / 64 < 0.5**7)
    assert s.length == 0.8 / 128 and s.restart and s.n_failure == 0
    s = tr_update(TRState(0.5**7, n_failure=4, best=0.), -1., failure_tol=5)
    assert s.length == 0.5**8 and s.restart
    s = tr_update(TRState(0.5**6, n_failure=4, best=0.), -1., failure_tol=5)
    assert s.length == 0.5**7 and not s.restart               # L = L_min exactly: no restart yet


def test_failure_tolerance_default():
    assert [failure_tolerance(d) for d in (1, 3, 4, 5, 20)] == [4, 4, 4, 5, 20]
    assert failure_tolerance(20, q=3) == 7
    assert TuRBO(np.tile([0., 1.], (3, 1))).failure_tol == 4
    assert TuRBO(np.tile([0., 1.], (12, 1))).failure_tol == 12


# ------------------------------------------------------------------------------- the box and the candidates
def test_weights_have_geometric_mean_one_and_keep_ratios():
    ls = np.array([0.05, 0.2, 0.2, 3.])
    w = tr_weights(ls)
    assert abs(np.prod(w) - 1) < 1e-12
    np.testing.assert_allclose(w / w[0], ls / ls[0], rtol=1e-12)


def test_box_is_centred_and_clipped():
    lb, ub = tr_box([0.5, 0.9], [2., 0.5], 0.4)
    np.testing.assert_allclose(lb, [0.1, 0.8]); np.testing.assert_allclose(ub, [0.9, 1.])


def test_candidates_mask_rate_and_at_least_one_coordinate():
    D = 80
    c = np.full(D, 0.5); lb, ub = tr_box(c, np.ones(D), 0.5)
    X, m = tr_candidates(c, lb, ub, 3000, rng=1)
    assert abs(m.mean() - 20 / D) < 0.01                       # p = min(20/D, 1)
    assert ((X >= lb) & (X <= ub)).all() and (X[~m] == 0.5).all()
    X, m = tr_candidates(np.full(3, 0.5), np.zeros(3), np.ones(3), 500, rng=1)
    assert m.all()                                             # D <= 20: every coordinate
    X, m = tr_candidates(np.full(6, 0.5), np.zeros(6), np.ones(6), 600, rng=1, prob=1e-6)
    assert (m.sum(1) == 1).all()
    assert len(np.unique(np.argmax(m, 1))) == 6                # the forced coordinate is uniform over all D
    assert n_candidates(3) == 2000 and n_candidates(20) == 4000 and n_candidates(30) == 5000


# ------------------------------------------------------------------------------------------ reference run
def _reference_turbo(f, bounds, budget, seed, n_init, n_cand, success_tol, failure_tol, L0=0.8, L_min=0.5**7,
                     L_max=1.6):
    """TuRBO-1 written out directly: each run an LHS design, then per step a fresh ML GP on the run's points,
    the box around the run's best point stretched by the normalised lengthscales, Sobol candidates under a
    perturbation mask, the argmax of one joint posterior sample, the counters and L, a restart below L_min."""
    lo, hi = bounds[:, 0], bounds[:, 1]
    D = len(lo)
    rng = np.random.default_rng(seed)
    rng.integers(2**63)                                        # the optimiser's observation-noise stream
    out = []
    restarts = 0
    while len(out) < budget:
        design = list(latin_hypercube(n_init, D, rng))         # a run: fresh design, fresh data, L = L0
        U, Y = [], []
        L, n_s, n_f, best = L0, 0, 0, -math.inf
        first = True
        while len(out) < budget:
            row = dict(length=L, n_success=n_s, n_failure=n_f, restart_index=restarts,
                       restart=float(first and restarts > 0))
            first = False
            if design:
                u, step = design.pop(0), False
            else:
                gp = GP(Matern(2.5, np.full(D, 0.5)), noise=1e-6, lengthscale_bounds=(0.005, 4.))
                gp.fit(np.array(U), np.array(Y), n_restarts=0, rng=rng)
                ls = gp.kernel.lengthscale
                w = ls / np.mean(ls)
                w = w / np.exp(np.mean(np.log(w)))              # prod(w)^(1/D), without overflow
                center = np.array(U[int(np.argmax(Y))])
                lb, ub = np.maximum(center - L * w / 2, 0), np.minimum(center + L * w / 2, 1)
                with warnings.catch_warnings():
                    warnings.simplefilter('ignore')
                    P = qmc.Sobol(D, scramble=True, rng=rng).random(n_cand)
                P = lb + P * (ub - lb)
                M = rng.random((n_cand, D)) <= min(20 / D, 1)
                none = np.flatnonzero(M.sum(1) == 0)
                M[none, rng.integers(0, D, len(none))] = True
                C = np.where(M, P, center)
                sample = gp.sample(C, 1, rng)[0]
                u, step = C[int(np.argmax(sample))], True
                row.update(lb=lb, ub=ub)
            x = lo + (hi - lo) * u
            y = float(f(x))
            row.update(x=x, y=y, init=float(not step))
            out.append(row)
            U.append((x - lo) / (hi - lo)); Y.append(y)
            if step:
                if y > best + 1e-3 * abs(best): n_s, n_f = n_s + 1, 0
                else: n_s, n_f = 0, n_f + 1
                if n_s == success_tol: L, n_s = min(2 * L, L_max), 0
                elif n_f == failure_tol: L, n_f = L / 2, 0
            best = max(best, y)
            if L < L_min:
                restarts += 1
                break
    return out


def _bowl(x):
    "A smooth maximum at (0.3, -0.2, 0.1, ...) with unequal curvatures (so the ARD lengthscales differ)."
    z = np.asarray(x) - 0.3 * np.cos(np.arange(len(x)))
    return float(-np.sum(z**2 * (1 + 4 * np.arange(len(x)))) + 0.3 * np.sin(3 * x[0]))


@pytest.mark.parametrize('D,seed,success_tol,failure_tol', [(2, 0, 2, 2), (3, 1, 2, 2), (4, 2, 1, None), (25, 3, 10, None)])
def test_matches_the_reference_loop_step_by_step(D, seed, success_tol, failure_tol):
    "Same seed, same steps: points, boxes, L, counters and restarts of `TuRBO` equal the reference loop's."
    bounds = np.tile([-2., 2.], (D, 1))
    budget, n_cand, L_min = max(45, 2 * D + 8), 300, 0.5**4     # D = 25: a perturbation mask with p = 20/D < 1
    tol = failure_tol or max(4, D)                             # the default: ceil(max(4/q, D/q)) with q = 1
    ref = _reference_turbo(_bowl, bounds, budget, seed, 2 * D, n_cand, success_tol, tol, L_min=L_min)
    p = Problem(_bowl, bounds, name='bowl')
    opt = TuRBO(bounds, rng=seed, n_candidates=n_cand, success_tol=success_tol, failure_tol=failure_tol,
                length_min=L_min, noise='fixed')               # n_init: the default 2D; exact values, as `run` on `p`
    for t, r in enumerate(ref):
        x = opt.ask()
        np.testing.assert_allclose(x, r['x'], rtol=0, atol=1e-12, err_msg=f"step {t}")
        if 'lb' in r:
            lb, ub = opt.trust_region()
            np.testing.assert_allclose(lb, -2 + 4 * r['lb'], atol=1e-12); np.testing.assert_allclose(ub, -2 + 4 * r['ub'], atol=1e-12)
            assert ((x >= lb - 1e-12) & (x <= ub + 1e-12)).all()
        opt.tell(x, *p.evaluate(x))
    d = opt.trace.diagnostics
    for k in ('length', 'n_success', 'n_failure', 'restart_index', 'restart', 'init'):
        np.testing.assert_array_equal(d[k], [r[k] for r in ref], err_msg=k)
    L = d['length']
    if D > 20: return
    assert (L[1:] == L[:-1] / 2).any(), "L should halve"
    if failure_tol: assert d['restart_index'][-1] >= 1 and (L[1:] == 2 * L[:-1]).any(), "should restart and double"
    else:   # success_tol = 1: a success at L_max leaves L = L_max with both counters at 0
        clamp = (L[:-1] == 1.6) & (L[1:] == 1.6) & (d['init'][:-1] == 0) & (d['n_failure'][1:] == 0)
        assert clamp.any(), "L should reach L_max and stay there through a success"


def test_restart_forgets_the_old_run():
    p = Problem(_bowl, np.tile([-2., 2.], (2, 1)), name='bowl')
    opt = TuRBO(p.bounds, rng=0, n_init=4, n_candidates=200, failure_tol=1, length_min=0.3)
    tr = opt.run(p, 30)
    d = tr.diagnostics
    starts = np.flatnonzero(d['restart'] == 1)
    assert len(starts) >= 2
    for s in starts:
        assert (d['init'][s:s + 4] == 1).all() and d['length'][s] == 0.8 and d['restart_index'][s] == d['restart_index'][s - 1] + 1
    last = starts[-1]
    assert len(opt._U) == len(tr) - last                      # the GP data is the current run only


def test_chosen_points_lie_in_the_trust_region():
    p = Problem(lambda x: -float(np.sum((x - 0.2)**2)), np.tile([-1., 3.], (5, 1)), name='sphere5')
    opt = TuRBO(p.bounds, rng=4, n_candidates=300)
    for t in range(40):
        x = opt.ask()
        if t >= opt.n_init:
            lb, ub = opt.trust_region()
            assert ((x >= lb - 1e-12) & (x <= ub + 1e-12)).all()
            assert (ub - lb).max() < 4 * 1.6                   # a box smaller than the domain
        opt.tell(x, *p.evaluate(x))


def test_beats_random_search():
    "On an 8-D bowl with 60 evaluations random search stays far from the optimum; TuRBO gets close."
    D = 8
    p = Problem(lambda x: -float(np.sum((x - 1.)**2)), np.tile([-5., 10.], (D, 1)), f_opt=0., name='bowl8')
    for seed in range(3):
        r_t = optimize(p, 'turbo', budget=60, rng=seed, n_candidates=200).simple_regret()[-1]
        r_r = optimize(p, 'random', budget=60, rng=seed).simple_regret()[-1]
        assert r_r > 20 and r_t < 0.2 * r_r, (seed, r_t, r_r)


def test_shares_the_gp_baselines_design_and_handles_failures():
    p = Problem(_bowl, np.tile([-2., 2.], (3, 1)), name='bowl')
    a = optimize(p, 'turbo', budget=8, rng=3, n_init=7, init='uniform', n_candidates=100)
    b = optimize(p, 'gp-ucb', budget=8, rng=3, n_init=7, init='uniform')
    np.testing.assert_array_equal(a.X[:7], b.X[:7])
    opt = TuRBO(p.bounds, rng=0, n_init=4, n_candidates=100)
    for t in range(10):
        x = opt.ask()
        opt.tell(x, math.nan if t == 6 else _bowl(x))
    d = opt.trace.diagnostics
    assert d['failed'][6] == 1 and d['n_failure'][7] == d['n_failure'][6] + 1 or d['length'][7] < d['length'][6]
    assert opt._imputed.count(True) == 1


def test_registered_and_bad_options():
    assert get_method('turbo') is TuRBO
    B = np.tile([0., 1.], (3, 1))
    for kw, msg in [(dict(success_tol=0), 'success_tol must be a positive integer'),
                    (dict(failure_tol=1.5), 'failure_tol must be a positive integer'),
                    (dict(n_candidates=-1), 'n_candidates must be a positive integer'),
                    (dict(length_init=2.), 'length_min <= length_init <= length_max'),
                    (dict(length_min=math.nan), 'length_min must be a finite number'),
                    (dict(prob_perturb=1.5), 'prob_perturb must be in (0, 1]'),
                    (dict(init='sobol'), "init must be 'lhs' or 'uniform'"),
                    (dict(n_init=0), 'n_init must be a positive integer')]:
        with pytest.raises(ValueError, match=msg.replace('(', r'\(').replace(']', r'\]')): TuRBO(B, **kw)
    with pytest.raises(TypeError, match='unknown option'): TuRBO(B, beta=2.)
    opt = TuRBO(B, rng=0); opt.ask()
    with pytest.raises(ValueError, match=r'sequential \(q = 1\)'): opt.ask()
    with pytest.raises(ValueError, match='no trust region'): TuRBO(B).trust_region()


def test_a_failed_likelihood_fit_keeps_going(monkeypatch):
    from hdbo_nb import gp as G
    def fail(self, *a, **k): raise G.GPError('no start could be evaluated')
    monkeypatch.setattr(G.GP, '_optimize', fail)
    p = Problem(_bowl, np.tile([-2., 2.], (2, 1)), name='bowl')
    with pytest.warns(UserWarning, match='GP fit failed'):
        tr = optimize(p, 'turbo', budget=8, rng=0, n_init=4, n_candidates=50)
    assert len(tr) == 8 and np.isfinite(tr.y).all()


def test_resumes_from_its_trace_as_an_uninterrupted_run():
    from hdbo_nb.bo import Optimizer
    p = Problem(_bowl, np.tile([-2., 2.], (2, 1)), name='bowl')
    kw = dict(n_init=4, n_candidates=100, failure_tol=1, length_min=0.3)
    full = optimize(p, 'turbo', budget=30, rng=2, **kw)
    part = optimize(p, 'turbo', budget=17, rng=2, **kw)
    rest = Optimizer.from_trace(part, problem=p).run(p, 30)
    np.testing.assert_array_equal(rest.X, full.X)
    np.testing.assert_array_equal(rest.diagnostics['restart_index'], full.diagnostics['restart_index'])
