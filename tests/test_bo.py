"Property tests of the acquisition functions, the maximisers and the optimiser loop (hdbo_nb.acquisition, hdbo_nb.bo)."
import math
import numpy as np, pytest
from hdbo_nb.core import Problem, Trace, ObjectiveError
from hdbo_nb.gp import GP, Matern
from hdbo_nb.acquisition import (ucb, ei, pi, UCB, EI, PI, beta_srinivas_finite, beta_srinivas_continuous,
                                 beta_srinivas_practical, beta_constant, maximize_finite, maximize_lbfgs,
                                 maximize_direct)
from hdbo_nb.bo import (METHODS, Optimizer, register_method, get_method, optimize, RandomSearch, GPOptimizer,
                        latin_hypercube)
from hdbo_nb.functions import get_problem

def sphere(D=2, c=0.3):
    return Problem(lambda x: -float(np.sum((x - c)**2)), [[-1, 1]] * D, f_opt=0., x_opt=np.full(D, c), name='sphere')

# ---------------------------------------------------------------- acquisition maths
@pytest.fixture(scope='module')
def fitted_gp():
    rng = np.random.default_rng(1)
    X = rng.random((25, 4)); y = np.sin(3 * X[:, 0]) + np.cos(2 * X[:, 1]) * X[:, 2] - X[:, 3]**2
    return GP().fit(X, y, rng=0)

@pytest.mark.parametrize('acq', [UCB(0.5), UCB(9.), EI(), EI(xi=0.1), PI(), PI(xi=0.05)], ids=repr)
def test_acquisition_gradient_matches_finite_differences(fitted_gp, acq):
    X = np.random.default_rng(2).random((30, 4)); h = 1e-6
    a, g = acq.value_and_grad(fitted_gp, X)
    np.testing.assert_allclose(a, acq(fitted_gp, X), rtol=1e-12, atol=1e-12)
    fd = np.stack([(acq(fitted_gp, X + h * e) - acq(fitted_gp, X - h * e)) / (2 * h) for e in np.eye(4)], 1)
    np.testing.assert_allclose(g, fd, atol=1e-5 * (1 + np.abs(fd).max()))

def test_ei_pi_closed_forms_and_monte_carlo():
    rng = np.random.default_rng(0)
    for _ in range(5):
        mu, s, best = rng.normal(), rng.uniform(0.1, 2), rng.normal()
        f = mu + s * rng.standard_normal(500_000)
        assert abs(ei(mu, s, best) - np.maximum(f - best, 0).mean()) < 5e-3 * (1 + s)
        assert abs(pi(mu, s, best) - (f > best).mean()) < 5e-3
    # sigma -> 0: EI -> max(mu - best, 0), PI -> 1[mu > best], continuously
    for s in (1e-6, 1e-9, 0.):
        assert abs(ei(2., s, 1.5) - 0.5) < 1e-6 and ei(1., s, 1.5) < 1e-6
        assert pi(2., s, 1.5) > 1 - 1e-6 and pi(1., s, 1.5) < 1e-6
    # EI grows with sigma (for fixed mean) and with mu; UCB matches bayes_opt's kappa = sqrt(beta)
    assert np.all(np.diff(ei(0., np.linspace(0.1, 3, 20), 0.5)) > 0)
    assert np.all(np.diff(ei(np.linspace(-1, 1, 20), 1., 0.)) > 0)
    assert ucb(1., 2., 2.576**2) == pytest.approx(1 + 2 * 2.576)

def test_beta_schedules():
    t = np.arange(1, 50)
    for b in (beta_srinivas_finite(t, 100), beta_srinivas_continuous(t, 3), beta_srinivas_practical(t, 3)):
        assert np.all(np.diff(b) > 0) and np.all(b > 0)
    assert beta_srinivas_finite(4, 100, delta=0.05) == pytest.approx(2 * math.log(100 * 16 * math.pi**2 / 0.3))
    assert beta_srinivas_continuous(3, 2, delta=0.1, a=2, b=3, r=4) == pytest.approx(
        2 * math.log(9 * 2 * math.pi**2 / 0.3) + 4 * math.log(9 * 2 * 3 * 4 * math.sqrt(math.log(8 * 2 / 0.1))))
    assert beta_constant(3.)(10) == 3.
    with pytest.raises(ValueError): beta_srinivas_finite(1, 10, delta=0.)

# ---------------------------------------------------------------- maximisers
def _peaks(X):
    "Two bumps on [0, 1]^3, global max ~1 within 1e-4 of (0.7, 0.2, 0.5); gradient included."
    X = np.atleast_2d(X); c1, c2 = np.array([0.7, 0.2, 0.5]), np.array([0.2, 0.8, 0.3])
    e1 = np.exp(-15 * ((X - c1)**2).sum(1)); e2 = 0.7 * np.exp(-15 * ((X - c2)**2).sum(1))
    return e1 + e2, -30 * (e1[:, None] * (X - c1) + e2[:, None] * (X - c2))

def test_maximisers_find_known_maximum():
    b = np.tile([0., 1.], (3, 1))
    for stacked in (True, False):
        x, v = maximize_lbfgs(_peaks, b, rng=0, n_samples=300, n_starts=4, stacked=stacked)
        np.testing.assert_allclose(x, [0.7, 0.2, 0.5], atol=1e-4); assert v == pytest.approx(_peaks(x)[0][0])
        assert v >= _peaks(np.array([0.7, 0.2, 0.5]))[0][0] and np.abs(_peaks(x)[1]).max() < 1e-4   # a stationary point
    x, v = maximize_direct(lambda X: _peaks(X)[0], b, maxfun=3000)
    np.testing.assert_allclose(x, [0.7, 0.2, 0.5], atol=2e-2)
    G = latin_hypercube(2000, 3, rng=0)
    x, v = maximize_finite(lambda X: _peaks(X)[0], G)
    assert v == pytest.approx(_peaks(G)[0].max())

def test_lbfgs_never_worse_than_its_samples():
    b = np.tile([0., 1.], (3, 1))
    rng = np.random.default_rng(0)
    cand = rng.random((50, 3))
    x, v = maximize_lbfgs(_peaks, b, rng=1, n_samples=10, n_starts=0, candidates=cand)
    assert v >= _peaks(cand)[0].max() - 1e-15

# ---------------------------------------------------------------- registry and loop
def test_registry_and_errors():
    assert {'random', 'gp-ucb', 'gp-ei', 'gp-pi'} <= set(METHODS)
    with pytest.raises(ValueError, match="did you mean 'gp-ucb'"): get_method('gp_ucb')
    with pytest.raises(ValueError, match='known methods'): optimize(sphere(), 'no-such-method', 5)
    with pytest.raises(TypeError): register_method('bad')(dict)
    with pytest.raises(TypeError, match='unknown option'): optimize(sphere(), 'gp-ei', 10, beta=2.)

def test_user_method_registers_and_runs():
    @register_method('_test-grid')
    class Corner(Optimizer):
        defaults = dict(step=0.5)
        def _ask(self): return self.bounds[:, 0] + self.options['step'] * len(self.trace) % 1 * np.ptp(self.bounds, 1), {}
    try:
        tr = optimize(sphere(), '_test-grid', 4, rng=0, step=0.25)
        assert len(tr) == 4 and tr.meta['method'] == '_test-grid' and tr.meta['options'] == {'step': 0.25}
    finally: METHODS.pop('_test-grid')

@pytest.mark.parametrize('name', ['random', 'gp-ucb', 'gp-ei', 'gp-pi'])
def test_same_seed_same_trace_noisy(name):
    p = get_problem('hartmann3', noise_std=0.1)
    t1, t2 = optimize(p, name, 15, rng=11), optimize(p, name, 15, rng=11)
    np.testing.assert_array_equal(t1.X, t2.X); np.testing.assert_array_equal(t1.y, t2.y)
    assert not np.array_equal(t1.X, optimize(p, name, 15, rng=12).X)

def test_trace_meta_diagnostics_and_save(tmp_path):
    p = get_problem('branin')
    tr = optimize(p, 'gp-ucb', 12, rng=3, refit_every=2)
    m = tr.meta
    assert (m['method'], m['problem'], m['dim'], m['budget'], m['seed'], m['status']) == ('gp-ucb', 'branin', 2, 12, 3, 'done')
    assert m['f_opt'] == pytest.approx(p.f_opt) and m['options'] == {'refit_every': 2}
    d = tr.diagnostics
    assert {'beta_t', 'acq', 'fit_time', 'acq_time', 'refit', 'init'} <= set(d)
    assert np.all(d['init'][:5] == 1) and np.all(d['init'][5:] == 0) and np.isfinite(d['beta_t'][5:]).all()
    assert d['refit'][5] == 1 and d['refit'][5:].sum() >= 3
    tr2 = Trace.load(tr.save(tmp_path / 'run.npz'))
    np.testing.assert_array_equal(tr2.X, tr.X); assert tr2.meta['options'] == {'refit_every': 2}

def test_ask_tell_equals_run():
    p = sphere(3)
    tr = optimize(p, 'gp-ei', 12, rng=4)   # a Problem that says it is noiseless: the GP keeps a fixed jitter
    opt = get_method('gp-ei')(p.bounds, rng=4, noise='fixed')
    for _ in range(12):
        x = opt.ask(); opt.tell(x, p(x), p(x))
    np.testing.assert_array_equal(opt.trace.X, tr.X)
    # ask/tell knows nothing of the noise, as with a plain function: the noise is fitted in both
    tr = optimize(p.f, 'gp-ei', 12, rng=4, bounds=p.bounds)
    opt = get_method('gp-ei')(p.bounds, rng=4)
    for _ in range(12):
        x = opt.ask(); opt.tell(x, p(x), p(x))
    np.testing.assert_array_equal(opt.trace.X, tr.X)

def test_budget_counts_everything_and_run_continues():
    p = sphere()
    opt = get_method('gp-ucb')(p.bounds, rng=0)
    assert len(opt.run(p, 8)) == 8
    assert len(opt.run(p, 11)) == 11 and opt.trace.meta['budget'] == 11
    assert np.isfinite(opt.trace.diagnostics['acq'][8:]).all()

# ---------------------------------------------------------------- section 7: bad input
@pytest.mark.parametrize('bounds, msg', [([[1, 0]], 'lo >= hi'), ([[0, 0]], 'lo >= hi'), ([[0, np.nan]], 'finite'),
                                         ([[0, 1, 2]], 'shape'), ('abc', 'numeric')])
def test_bad_bounds(bounds, msg):
    for name in ('random', 'gp-ucb'):
        with pytest.raises(ValueError, match=msg): get_method(name)(bounds)

def test_tell_bad_point():
    opt = get_method('gp-ei')([[0, 1], [0, 1]], rng=0)
    with pytest.raises(ValueError, match=r'shape \(2,\)'): opt.tell([0.5], 1.)
    with pytest.raises(ValueError, match='outside the bounds'): opt.tell([0.5, 1.5], 1.)
    with pytest.raises(ValueError, match='non-finite'): opt.tell([np.nan, 0.5], 1.)
    assert len(opt.trace) == 0

def _flaky(bad_at, value=np.nan, exc=None, D=2):
    base, n = sphere(D), [0]
    def f(x):
        n[0] += 1
        if n[0] == bad_at + 1:
            if exc is not None: raise exc
            return value
        return base.f(x)
    return Problem(f, base.bounds, f_opt=0., name='flaky')

@pytest.mark.parametrize('value', [np.nan, np.inf, -np.inf])
@pytest.mark.parametrize('name', ['random', 'gp-ucb'])
def test_objective_non_finite_raises_with_trace(value, name):
    with pytest.raises(ObjectiveError, match='returned') as ei_:
        optimize(_flaky(8, value), name, 15, rng=0)
    e = ei_.value
    assert len(e.trace) == 8 and e.trace.meta['status'] == 'failed' and e.x.shape == (2,)
    assert str(e.x.tolist()) in str(e)
    np.testing.assert_array_equal(e.trace.X, optimize(sphere(), name, 8, rng=0).X)   # nothing lost

def test_objective_non_finite_recorded_and_ignored_by_gp():
    "failures='ignore' keeps failures out of the GP; the default imputes them (see test_failures_visible_to_the_gp)."
    for failures, n_gp in (('ignore', 13), ('impute', 14)):
        tr_opt = get_method('gp-ucb')(sphere().bounds, rng=0, failures=failures)
        tr = tr_opt.run(_flaky(7), 15, on_nan='record')
        assert len(tr) == 15 and tr.meta['status'] == 'done'
        assert np.isnan(tr.y[7]) and tr.diagnostics['failed'][7] == 1 and np.isfinite(np.delete(tr.y, 7)).all()
        assert tr_opt.gp.n == n_gp and np.isfinite(tr_opt.gp.y).all()   # 14 successes (+ the failure), the last not yet used
        assert np.isfinite(tr.simple_regret()).all()

def test_all_initial_points_failing_keeps_going():
    p = Problem(lambda x: np.nan if x[0] < 2 else 0., [[0, 1], [0, 1]], name='always-nan')
    tr = optimize(p, 'gp-ei', 8, rng=0, on_nan='record')
    assert len(tr) == 8 and np.isnan(tr.y).all()

def test_objective_raises_keeps_trace():
    with pytest.raises(ObjectiveError, match='KeyError') as ei_:
        optimize(_flaky(6, exc=KeyError('sensor')), 'gp-ei', 12, rng=1)
    e = ei_.value
    assert len(e.trace) == 6 and isinstance(e.__cause__, KeyError) and e.trace.meta['status'] == 'failed'

def test_budget_smaller_than_initial_design():
    with pytest.raises(ValueError, match='smaller than the initial design n_init=6'):
        optimize(sphere(), 'gp-ei', 5, n_init=6)
    with pytest.raises(ValueError, match='positive integer'): optimize(sphere(), 'gp-ei', 2.5)
    assert len(optimize(sphere(), 'gp-ei', 3, rng=0)) == 3     # the default design shrinks instead

def test_problem_bounds_must_match():
    with pytest.raises(ValueError, match='differ'): RandomSearch([[0, 1]]).run(sphere(1), 3)

# ---------------------------------------------------------------- it optimises
def test_gp_methods_beat_random_on_branin():
    p = get_problem('branin')
    med = {m: np.median([optimize(p, m, 40, rng=s).simple_regret()[-1] for s in range(3)])
           for m in ('random', 'gp-ucb', 'gp-ei')}
    assert med['gp-ucb'] < 0.05 and med['gp-ei'] < 0.05 and med['random'] > 5 * max(med['gp-ucb'], med['gp-ei'])

def test_direct_and_finite_maximisers_in_the_loop():
    p = get_problem('branin')
    # DIRECT as the inner maximiser: as good as the default L-BFGS-B maximiser, and far better than random search
    r = {o: np.median([optimize(p, m, 20, rng=s, **kw).simple_regret()[-1] for s in range(3)])
         for o, m, kw in [('direct', 'gp-ei', dict(acq_optimizer='direct', maxfun=500)), ('lbfgs', 'gp-ei', {}), ('random', 'random', {})]}
    assert r['direct'] < 0.5 and r['direct'] < 2 * r['lbfgs'] + 1e-3 and r['random'] > 3 * r['direct'], r
    C = latin_hypercube(400, 2, rng=0) * np.ptp(p.bounds, 1) + p.bounds[:, 0]
    tr = optimize(p, 'gp-ucb', 20, rng=0, acq_optimizer='finite', candidates=C, beta='srinivas-finite')
    assert all((np.abs(C - x).max(1) < 1e-12).any() for x in tr.X[5:])

# ---------------------------------------------------------------- failures, noise, batches (issue 16, items 1-3)
def _cliff():
    "Fails (NaN) for x0 > 0.6; the maximum (0.3, 0.3) is well inside the feasible part (60 % of the box)."
    return Problem(lambda x: np.nan if x[0] > 0.6 else -float(np.sum((x - .3)**2)), [[0, 1]] * 2, f_opt=0., name='cliff')

def test_failures_visible_to_the_gp():
    p = _cliff()
    frac = lambda m, **kw: np.mean([np.isnan(optimize(p, m, 30, rng=s, on_nan='record', **kw).y).mean() for s in range(3)])
    fr = {m: frac(m) for m in ('random', 'gp-ucb', 'gp-ei')}
    assert fr['gp-ucb'] < fr['random'] and fr['gp-ei'] < fr['random'], fr
    assert frac('gp-ucb', failures='ignore') > 0.6          # the old behaviour, kept as an option, keeps failing
    # the GP's data holds the failed point at the worst value observed before it; the trace keeps NaN
    opt = get_method('gp-ucb')(p.bounds, rng=0)
    tr = opt.run(p, 20, on_nan='record')
    bad = np.flatnonzero(np.isnan(tr.y))
    assert len(bad) and opt.gp.n >= 19 and np.isfinite(opt.gp.y).all()
    first = bad[bad > np.flatnonzero(np.isfinite(tr.y))[0]][0]    # a failure after a success
    U = (tr.X - p.bounds[:, 0]) / np.ptp(p.bounds, 1)
    j = int(np.flatnonzero((np.abs(opt.gp.X - U[first]).max(1) < 1e-12))[0])
    assert opt.gp.y[j] == np.nanmin(tr.y[:first])
    with pytest.raises(ValueError, match='failures'): get_method('gp-ucb')(p.bounds, failures='zero')

def _noisy_branin(): return get_problem('branin', noise_std=5.)

def test_noise_option_same_in_run_and_ask_tell():
    p = _noisy_branin()
    # ask/tell with noise='fit' fits the noise, and gives the same points as run() with the same values
    tr = optimize(p, 'gp-ucb', 25, rng=0, noise='fit')
    opt = get_method('gp-ucb')(p.bounds, rng=0, noise='fit')
    for y in tr.y: opt.tell(opt.ask(), y)
    np.testing.assert_array_equal(opt.trace.X, tr.X)
    assert opt.gp.fit_noise and opt.gp.noise > 1e-3
    # a value is a fixed noise variance in both paths; 'fixed' is 1e-6 even when run() sees a noisy problem
    for noise, want in ((0.05, 0.05), ('fixed', 1e-6)):
        o1 = get_method('gp-ucb')(p.bounds, rng=0, noise=noise); o1.run(p, 12)
        o2 = get_method('gp-ucb')(p.bounds, rng=0, noise=noise)
        for y in o1.trace.y: o2.tell(o2.ask(), y)
        o2.ask()
        assert o1.gp.noise == o2.gp.noise == want and not o1.gp.fit_noise
    # the default keeps its rule: run() fits noise on a noisy problem
    o = get_method('gp-ucb')(p.bounds, rng=0); o.run(p, 12); assert o.gp.fit_noise
    with pytest.raises(ValueError, match='noise'): get_method('gp-ucb')(p.bounds, noise='fitted')
    with pytest.raises(ValueError, match='noise'): get_method('gp-ucb')(p.bounds, noise=-1.)

def test_recommend_posterior_mean_on_noisy_problems():
    p = _noisy_branin()
    gaps = []
    for s in range(4):
        opt = get_method('gp-ucb')(p.bounds, rng=s, noise='fit')
        tr = opt.run(p, 25)
        xr = opt.recommend()
        assert any(np.array_equal(xr, x) for x in tr.X)          # one of the evaluated points
        gaps.append(p.f(xr) - tr.f[int(np.nanargmax(tr.y))])     # true value: recommended - best noisy observation
    assert np.mean(gaps) > 0 and min(gaps) >= -1e-9, gaps
    # noiseless: the best observation, as before
    q = get_problem('branin'); opt = get_method('gp-ucb')(q.bounds, rng=0); tr = opt.run(q, 12)
    np.testing.assert_array_equal(opt.recommend(), tr.X[int(np.argmax(tr.y))])
    r = RandomSearch(q.bounds, rng=0); tr = r.run(q, 5)
    np.testing.assert_array_equal(r.recommend(), tr.X[int(np.argmax(tr.y))])
    with pytest.raises(ValueError, match='no successful'): RandomSearch(q.bounds).recommend()

@pytest.mark.parametrize('name, opts', [('gp-ucb', {}), ('gp-ei', {}), ('gp-pi', {}), ('gp-ucb', dict(pending='believer')),
                                        ('gp-ucb', dict(pending='believer', beta=0.)),   # believer + pure mean: only the guard helps
                                        ('random', {})])
def test_batches_and_pending_points_are_distinct(name, opts):
    p = get_problem('branin')
    opt = get_method(name)(p.bounds, rng=0, **opts)
    opt.run(p, 8)
    X = np.vstack([opt.ask(), opt.ask(), opt.ask(), opt.ask(3)])     # 3 single asks, then a batch of 3
    assert X.shape == (6, 2) and len(np.unique(X.round(6), axis=0)) == 6
    assert np.min([np.abs(a - b).max() for i, a in enumerate(X) for b in X[:i]]) > 1e-3 * np.ptp(p.bounds)
    assert opt.pending.shape == (6, 2)
    for x in X: opt.tell(x, p(x))
    assert len(opt.trace) == 14 and opt.pending.shape == (0, 2)
    x = opt.ask(); assert not any(np.array_equal(x, z) for z in X)
    with pytest.raises(ValueError, match='positive integer'): opt.ask(0)

def test_batch_run_equals_sequential_when_nothing_pending():
    p = get_problem('branin')
    o = get_method('gp-ucb')(p.bounds, rng=0, noise='fixed')   # as `run` on a problem that says it is noiseless
    for _ in range(10):
        x = o.ask(1)[0]; o.tell(x, p(x))
    np.testing.assert_array_equal(o.trace.X, optimize(p, 'gp-ucb', 10, rng=0).X)


# ---- silent degradations (clear errors or warnings instead)
def test_budget_within_initial_design_warns():
    p = get_problem('hartmann6')
    with pytest.warns(UserWarning, match='random search'): optimize(p, 'gp-ucb', 13, rng=0)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        optimize(p, 'gp-ucb', 14, rng=0)          # one model-based step: no warning
        optimize(p, 'random', 5, rng=0)            # random search has no design to warn about

@pytest.mark.parametrize('budget', [None, float('nan'), float('inf'), 2.5, 0, -3, True, '10'])
def test_bad_budgets_are_clear_errors(budget):
    with pytest.raises(ValueError, match='budget must be a positive integer'):
        optimize(get_problem('branin'), 'random', budget, rng=0)

def test_tell_none_is_an_error_not_a_failure():
    opt = get_method('random')(get_problem('branin').bounds, rng=0)
    x = opt.ask()
    with pytest.raises(TypeError, match='y must be a number'): opt.tell(x, None)
    assert len(opt.trace) == 0
    opt.tell(x, float('nan')); assert len(opt.trace) == 1 and opt.trace.diagnostics['failed'][0] == 1

def test_ctrl_c_keeps_the_evaluations():
    from hdbo_nb.core import Problem
    n = [0]
    def f(x):
        n[0] += 1
        if n[0] == 7: raise KeyboardInterrupt
        return -float(np.sum(x ** 2))
    with pytest.raises(KeyboardInterrupt) as e: optimize(Problem(f, [[0, 1]] * 2), 'random', 20, rng=0)
    assert len(e.value.trace) == 6 and e.value.trace.meta['status'] == 'interrupted'

def test_paper_methods_resolve_without_import():
    import subprocess, sys
    code = "from hdbo_nb.bo import get_method; print(get_method('boo').__module__)"
    out = subprocess.run([sys.executable, '-c', code], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == 'hdbo_nb.boo', out.stderr

# ---------------------------------------------------------------- own initial points, resume, pickling
def test_points_told_before_the_first_ask_count_toward_the_design():
    branin = get_problem('branin')   # D = 2: a design of 2D + 1 = 5 points
    tr = optimize(branin, 'random', 15, rng=1)
    opt = get_method('gp-ucb')(branin.bounds, rng=0)
    for x, y in zip(tr.X, tr.y): opt.tell(x, y)
    for _ in range(3): opt.tell(opt.ask(), -1.)
    assert not opt.trace.diagnostics['init'][15:].any()   # no design point drawn after 15 told points
    opt = get_method('gp-ei')(branin.bounds, rng=0)
    for x, y in zip(tr.X[:2], tr.y[:2]): opt.tell(x, y)
    for _ in range(5): opt.tell(opt.ask(), -1.)
    np.testing.assert_array_equal(opt.trace.diagnostics['init'][2:], [1, 1, 1, 0, 0])   # 5 - 2 design points

def test_finite_methods_count_told_points_toward_the_design():
    from hdbo_nb.core import Finite
    D = Finite(np.linspace(0, 1, 40)[:, None])
    opt = get_method('random-finite')(D.bounds, rng=0, domain=D, n_init=10)
    for i in range(12): opt.tell(D.point(i), float(i))
    opt.tell(opt.ask(), 0.)
    assert opt.trace.diagnostics['init'][-1] == 0

def test_from_trace_continues_an_interrupted_run_exactly(tmp_path):
    branin = get_problem('branin')
    full = optimize(branin, 'gp-ucb', 20, rng=0)
    part = optimize(branin, 'gp-ucb', 12, rng=0)
    part.save(tmp_path / 'part.npz'); loaded = Trace.load(tmp_path / 'part.npz')
    for cls in (Optimizer, get_method('gp-ucb')):   # the trace's method, or the class it is called on
        opt = cls.from_trace(loaded)
        assert type(opt) is get_method('gp-ucb') and len(opt.trace) == 12 and not opt.pending.size
        tr = opt.run(branin, 20)
        np.testing.assert_array_equal(tr.X, full.X); np.testing.assert_array_equal(tr.y, full.y)
        assert tr.meta['resumed'] == dict(n=12, replayed=True) and tr.meta['seed'] == 0 and tr.meta['budget'] == 20
    np.testing.assert_array_equal(tr.times[:12], part.times)   # the recorded times and diagnostics are kept
    np.testing.assert_array_equal(tr.diagnostics['beta_t'][:12], part.diagnostics['beta_t'])

def test_from_trace_replays_the_noise_stream_of_a_noisy_problem():
    noisy = get_problem('branin', noise_std=1.)
    full = optimize(noisy, 'gp-ei', 14, rng=3, n_init=4)
    part = optimize(noisy, 'gp-ei', 9, rng=3, n_init=4)
    tr = Optimizer.from_trace(part, problem=noisy).run(noisy, 14)
    np.testing.assert_array_equal(tr.X, full.X); np.testing.assert_array_equal(tr.y, full.y)

def test_from_trace_without_replay_tells_the_points_and_keeps_the_budget():
    branin = get_problem('branin')
    part = optimize(branin, 'gp-ucb', 12, rng=0)
    for kw in (dict(replay=False), dict(rng=5)):
        opt = Optimizer.from_trace(part, **kw)
        assert opt.trace.meta['resumed'] == dict(n=12, replayed=False)
        tr = opt.run(branin, 20)
        assert len(tr) == 20 and not tr.diagnostics['init'][12:].any()   # no second design
        np.testing.assert_array_equal(tr.X[:12], part.X)
        assert np.isfinite(tr.y).all() and (np.abs(tr.X) <= 15).all()
    bad = optimize(branin, 'gp-ucb', 8, rng=0); bad._X[6] = bad._X[6] + 0.1   # a replay that cannot match
    with pytest.warns(UserWarning, match='diverged at evaluation 7'): opt = Optimizer.from_trace(bad)
    assert len(opt.trace) == 8 and opt.trace.meta['resumed']['replayed'] is False
    with pytest.raises(ValueError, match='bounds'): Optimizer.from_trace(Trace(2, meta=dict(method='gp-ucb')))
    with pytest.raises(ValueError, match='method'): Optimizer.from_trace(Trace(2))

def _pickle_case(name):
    from hdbo_nb.bo import FiniteOptimizer
    from hdbo_nb.core import Finite
    cls = METHODS[name]
    if issubclass(cls, FiniteOptimizer):
        X = np.linspace(0, 1, 30)[:, None]
        D = Finite(X, gram=np.exp(-0.5 * (X - X.T)**2 / 0.1)); return cls(D.bounds, rng=0, domain=D)
    return cls([[0., 1.]] * 3, rng=0)

def _registered():
    from hdbo_nb.experiments import load_all
    load_all(); return sorted(METHODS)

@pytest.mark.parametrize('name', _registered())
def test_every_registered_optimiser_pickles(name):
    import pickle
    opt = _pickle_case(name)
    opt2 = pickle.loads(pickle.dumps(opt))
    assert type(opt2) is type(opt) and opt2.options.keys() == opt.options.keys()

def test_a_gp_ucb_optimiser_pickled_mid_run_continues_identically():
    import pickle
    branin = get_problem('branin')
    opt = get_method('gp-ucb')(branin.bounds, rng=0, beta='srinivas')
    opt.run(branin, 8)
    opt2 = pickle.loads(pickle.dumps(opt))
    np.testing.assert_array_equal(opt.run(branin, 11).X, opt2.run(branin, 11).X)


# ---------------------------------------------------------------- issue 36: a user coming from Optuna or scikit-optimize
from hdbo_nb.core import Space, Real, Integer, Categorical

def _bowl(x): return float(np.sum((np.asarray(x) - 0.3)**2))   # minimum 0 at 0.3

def test_all_failed_run_has_no_best_point():
    "Every evaluation failed: `best_x` is no failed point, it refuses as `recommend()` does."
    tr = optimize(lambda x: float('nan'), 'gp-ei', 6, rng=0, bounds=[[0, 1]] * 2, on_nan='record')
    assert np.isnan(tr.y).all() and tr.meta['status'] == 'done' and 'all failed' in repr(tr)
    for get in (lambda: tr.best_x, lambda: tr.best_y, lambda: tr.best_value, lambda: tr.best_index):
        with pytest.raises(ValueError, match='all 6 evaluations failed'): get()
    opt = get_method('random')([[0, 1]], rng=0); opt.tell(opt.ask(), float('nan'))
    with pytest.raises(ValueError, match='no successful evaluation'): opt.recommend()

@pytest.mark.parametrize('value', ['1.0', b'1', None, [1.0, 2.0], {'y': 1.}, 1 + 2j])
def test_an_objective_returning_a_non_number_is_refused_as_tell_refuses_it(value):
    opt = get_method('random')([[0, 1]], rng=0)
    with pytest.raises((TypeError, ValueError), match=r'must be a (number|scalar)'): opt.tell(opt.ask(), value)
    for kw in (dict(), dict(minimize=True), dict(catch=(TypeError, ValueError))):   # never converted, never caught
        with pytest.raises(ObjectiveError, match=r'not a number|must be a scalar|raised ValueError') as e:
            optimize(lambda x: value, 'random', 3, rng=0, bounds=[[0, 1]], **kw)
        assert len(e.value.trace) == 0
    if isinstance(value, str):
        vec = Problem(lambda X: np.array([value] * len(X)), [[0, 1]], vectorized=True)
        with pytest.raises(ObjectiveError, match='not a number'): optimize(vec, 'random', 2, rng=0)
        with pytest.raises(TypeError, match='must be numbers'): vec.batch([[0.5]])

def test_a_raising_callback_keeps_the_trace():
    def cb(opt):
        if len(opt.trace) == 5: raise RuntimeError('my callback broke')
    with pytest.raises(RuntimeError, match='my callback broke') as e:
        optimize(sphere(), 'gp-ei', 10, rng=0, n_init=3, callback=cb)
    assert len(e.value.trace) == 5 and e.value.trace.meta['status'] == 'failed'
    np.testing.assert_array_equal(e.value.trace.X, optimize(sphere(), 'gp-ei', 5, rng=0, n_init=3).X)

def test_catch_records_the_failure_with_its_message_and_goes_on(tmp_path):
    calls = []
    def sim(x):
        calls.append(1)
        if len(calls) in (3, 7): raise ValueError(f'simulator crashed at call {len(calls)}')
        return -_bowl(x)
    tr = optimize(sim, 'gp-ei', 12, rng=0, bounds=[[0, 1]] * 2, catch=(ValueError,))
    assert len(tr) == 12 and tr.meta['status'] == 'done' and np.isfinite(tr.y[7:]).all()
    assert np.isnan(tr.y[[2, 6]]).all() and list(tr.diagnostics['failed'][[2, 6]]) == [1., 1.]
    assert tr.meta['errors'] == {'2': 'ValueError: simulator crashed at call 3', '6': 'ValueError: simulator crashed at call 7'}
    assert Trace.load(tr.save(tmp_path / 't.npz')).meta['errors'] == tr.meta['errors']
    calls.clear()   # an exception not named in `catch` still stops the run, with the trace
    with pytest.raises(ObjectiveError, match='simulator crashed') as e: optimize(sim, 'gp-ei', 12, rng=0, bounds=[[0, 1]] * 2, catch=KeyError)
    assert len(e.value.trace) == 2
    with pytest.raises(TypeError, match='catch must be'): optimize(sim, 'random', 3, bounds=[[0, 1]], catch='ValueError')
    with pytest.raises(TypeError, match='catch must be'): optimize(sim, 'random', 3, bounds=[[0, 1]], catch=(KeyboardInterrupt,))

SPACE = Space(lr=Real(1e-4, 1e-1, log=True), layers=Integer(1, 6), act=Categorical(['relu', 'tanh', 'gelu']))
def _loss(p): return (math.log10(p['lr']) + 2)**2 + 0.1 * (p['layers'] - 3)**2 + {'relu': 0.2, 'tanh': 0.5, 'gelu': 0.}[p['act']]

def test_ask_tell_with_a_space_and_minimisation():
    "get_method(name)(space, minimize=True): `ask()` returns a dict, `tell(dict, y)` takes the user's own sign."
    opt = get_method('gp-ei')(SPACE, rng=0, minimize=True)
    for _ in range(25):
        p = opt.ask()
        assert isinstance(p, dict) and set(p) == {'lr', 'layers', 'act'}
        opt.tell(p, _loss(p))
    tr = opt.trace
    assert tr.meta['minimize'] is True and tr.meta['space'] == SPACE.spec()
    np.testing.assert_allclose(tr.y, [-_loss(SPACE.decode(x)) for x in tr.X])   # stored in the maximisation sign
    best = opt.recommend()
    assert isinstance(best, dict) and _loss(best) == pytest.approx(tr.best_value) == pytest.approx(min(map(_loss, map(SPACE.decode, tr.X))))
    assert tr.best_value < 0.3 and tr.best_params == best
    # the same run as optimize(f, bounds=space, minimize=True), point for point
    np.testing.assert_array_equal(optimize(_loss, 'gp-ei', 25, rng=0, bounds=SPACE, minimize=True).X, tr.X)
    batch = opt.ask(3)
    assert isinstance(batch, list) and len(batch) == 3 and len(opt.pending) == 3
    for p in batch: opt.tell(p, _loss(p))
    assert len(opt.pending) == 0 and len(tr) == 28
    opt.tell(dict(lr=1e-2, layers=3, act='gelu'), 0.)            # a dict it did not propose: encoded
    best = opt.recommend()
    assert tr.best_value == 0. and best['lr'] == pytest.approx(1e-2) and (best['layers'], best['act']) == (3, 'gelu')
    with pytest.raises(TypeError, match='built on a Space'): get_method('gp-ei')([[0, 1]]).tell({'x': 1.}, 0.)
    with pytest.raises(TypeError, match='minimize must be'): get_method('random')(SPACE, minimize='yes')

@pytest.mark.parametrize('name', ['random', 'gp-ucb', 'turbo'])
def test_every_box_method_asks_dicts_on_a_space(name):
    opt = get_method(name)(SPACE, rng=1, minimize=True)
    for _ in range(12): p = opt.ask(); opt.tell(p, _loss(p))
    assert isinstance(opt.recommend(), dict) and len(opt.trace) == 12 and opt.trace.best_value > 0

def test_checkpoint_saves_every_evaluation_and_resumes(tmp_path):
    ck = tmp_path / 'run.npz'
    full = optimize(_loss, 'gp-ei', 14, rng=3, bounds=SPACE, minimize=True)
    calls = []
    def interrupted(p):
        calls.append(p)
        if len(calls) == 9: raise KeyboardInterrupt   # Ctrl-C during evaluation 9
        return _loss(p)
    with pytest.raises(KeyboardInterrupt):
        optimize(interrupted, 'gp-ei', 14, rng=3, bounds=SPACE, minimize=True, checkpoint=ck)
    saved = Trace.load(ck)
    assert len(saved) == 8 and saved.meta['status'] == 'interrupted'
    assert sorted(p.name for p in tmp_path.iterdir()) == ['run.npz']   # atomic: no temporary file left behind
    seen = []
    def rest(p): seen.append(p); return _loss(p)
    tr = optimize(rest, 'gp-ei', 14, rng=3, bounds=SPACE, minimize=True, checkpoint=ck)
    assert len(seen) == 6 and tr.meta['resumed'] == dict(n=8, replayed=True)   # only what was missing is evaluated
    np.testing.assert_array_equal(tr.X, full.X)                                 # as if never interrupted
    again = Trace.load(ck); assert len(again) == 14 and again.meta['status'] == 'done'
    assert len(optimize(rest, 'gp-ei', 14, rng=None, bounds=SPACE, minimize=True, checkpoint=ck)) == 14 and len(seen) == 6
    with pytest.raises(ValueError, match='holds another run'):
        optimize(_loss, 'gp-ucb', 14, rng=3, bounds=SPACE, minimize=True, checkpoint=ck)
    with pytest.raises(ValueError, match='holds another run'):
        optimize(_loss, 'gp-ei', 14, rng=4, bounds=SPACE, minimize=True, checkpoint=ck)
    with pytest.raises(ValueError, match='.npz'): optimize(_loss, 'gp-ei', 5, bounds=SPACE, checkpoint=tmp_path / 'run.json')

def test_trace_plot_in_the_users_sign():
    import matplotlib; matplotlib.use('Agg')
    import matplotlib.pyplot as plt
    tr = optimize(lambda x: _bowl(x) + 2., 'random', 10, rng=0, bounds=[[-1, 1]] * 2, minimize=True, f_opt=2.)
    vals = np.array([_bowl(x) + 2. for x in tr.X])
    ax = tr.plot()
    best = [l for l in ax.get_lines() if l.get_label() == 'best so far'][0]
    np.testing.assert_allclose(best.get_ydata(), np.minimum.accumulate(vals))    # the minimum so far, positive
    assert [l for l in ax.get_lines() if l.get_label() == 'optimum'][0].get_ydata()[0] == 2.
    plt.close('all')
    from hdbo_nb.experiments import plot_regret                                  # and the sweep plot, f* unknown
    tr2 = optimize(lambda x: _bowl(x) + 2., 'random', 10, rng=0, bounds=[[-1, 1]] * 2, minimize=True)
    fig = plot_regret({('random', 'bowl'): [tr2]}, interval='none')
    np.testing.assert_allclose(fig.axes[0].get_lines()[0].get_ydata(), np.minimum.accumulate(vals))
    plt.close('all')

def test_noise_is_fitted_for_plain_functions_and_the_best_point_is_the_posterior_means():
    "A noisy plain function (sigma 0.1, max 0): the GP fits the noise and reports the evaluated point of largest posterior mean."
    noise = np.random.default_rng(0)
    def noisy(x): return -_bowl(x) + 0.1 * noise.standard_normal()
    tr = optimize(noisy, 'gp-ei', 40, rng=0, bounds=[[0, 1]] * 2)
    assert tr.meta['noise_model'] == 'fit' and tr.meta['best']['by'] == 'posterior mean'
    best_obs = np.nanmax(tr.y)
    assert best_obs > 0.05                                    # the best observation is a lucky draw above the maximum 0
    assert tr.best_y < best_obs and abs(tr.best_y + _bowl(tr.best_x)) < 0.05   # the posterior mean is close to f there
    assert _bowl(tr.best_x) <= _bowl(tr.X[int(np.nanargmax(tr.y))]) + 1e-12
    # a problem that says it is noiseless keeps the fixed jitter and the best observation; so does noise='fixed'
    p = get_problem('branin')
    for t in (optimize(p, 'gp-ei', 12, rng=0), optimize(p.f, 'gp-ei', 12, rng=0, bounds=p.bounds, noise='fixed')):
        assert t.meta['noise_model'] == 'fixed' and 'best' not in t.meta and t.best_y == np.max(t.y)
    # a noiseless plain function: the fitted noise is negligible, the best observation is reported
    t = optimize(lambda x: -_bowl(x), 'gp-ei', 20, rng=0, bounds=[[0, 1]] * 2)
    assert t.meta['noise_model'] == 'fit' and 'best' not in t.meta and t.best_y == np.max(t.y)

def test_registered_experiments_keep_their_noise_model_and_refit_schedule():
    """The new defaults (noise fitted for plain functions, refit_every='auto') do not change what a registered
    experiment's GP runs do: each of their problems says whether it is noisy, and no such run outgrows `REFIT_AUTO`."""
    from hdbo_nb.experiments import EXPERIMENTS, get_experiment, experiment_runs
    from hdbo_nb.bo import REFIT_AUTO
    names, checked, seen = EXPERIMENTS.all(), 0, set()
    for name in names:
        exp = get_experiment(name, 'full')
        for pl, pspec in exp.problems.items():
            for ml, (m, _) in exp.methods.items():
                cls = get_method(m)
                if not issubclass(cls, GPOptimizer): continue
                o = {**cls.option_defaults(), **exp.options_for(ml, pl)}
                if o.get('refit_every', 1) == 'auto': assert exp.budget_for(pl) <= REFIT_AUTO['until'], (name, ml, pl)
                if o.get('noise') == 'auto' and o.get('fit_noise') is None and (name, pl) not in seen:
                    seen.add((name, pl))
                    run = next(r for r in experiment_runs(exp) if r.problem_label == pl)
                    assert run.make_problem().noise_known, (name, pl)   # so 'auto' fits exactly when noise_std > 0, as before
                checked += 1
    assert checked > 50

def test_refit_auto_is_every_5_up_to_200_then_at_a_quarter_more_data():
    opt = get_method('gp-ei')([[0, 1]], rng=0)
    def schedule(o, N):
        o._n_fit, out = 2, []
        for n in range(3, N + 1):
            if o._refit_due(n): out.append(n); o._n_fit = n
        return out
    auto, five = schedule(opt, 1000), schedule(get_method('gp-ei')([[0, 1]], rng=0, refit_every=5), 1000)
    assert [n for n in auto if n <= 200] == [n for n in five if n <= 200]           # as before up to 200 points
    late = [n for n in auto if n > 200]
    assert len(late) <= 8 and all(b >= 1.25 * a for a, b in zip(late, late[1:]))   # then geometric: 8 refits to 1000
    assert len([n for n in five if n > 200]) == 160

def test_an_exact_gp_above_2000_observations_warns_and_says_what_to_do():
    with pytest.warns(UserWarning, match=r"exact GP on up to 2500 observations.*'turbo'"):
        optimize(sphere(), 'gp-ei', 2500, rng=0, callback=lambda o: True)
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter('error')
        optimize(sphere(), 'gp-ei', 2000, rng=0, callback=lambda o: True)
        optimize(sphere(), 'random', 5000, rng=0, callback=lambda o: True)
