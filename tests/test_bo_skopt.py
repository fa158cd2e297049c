"""`defaults='skopt'`: the GP baselines with scikit-optimize 0.10's `gp_minimize` defaults (hdbo_nb.bo).

The preset resolves to the listed values, explicit options override it, runs without it are unchanged (a stored
reference from before the option existed), the GP under the preset is scikit-learn's GP with skopt's kernel, and the
acquisitions are skopt's `gaussian_ei` / `gaussian_pi` / `gaussian_lcb` (the closed forms always; skopt's own
functions where scikit-optimize is importable).
"""
import json, os
import numpy as np, pytest
from scipy.stats import norm
from hdbo_nb.core import Trace, check_stored
from hdbo_nb.acquisition import ei, pi, ucb
from hdbo_nb.bo import optimize, get_method, preset_options, SKOPT_DEFAULTS, PRESETS, GPEI, GPPI, GPUCB
from hdbo_nb.experiments import Experiment, experiment_runs, run_hash
from hdbo_nb.functions import get_problem

HERE = os.path.dirname(__file__)
MODEL = dict(n_init=10, init='uniform', nu=2.5, lengthscale0=1., lengthscale_bounds=(0.01, 100.), lengthscale_prior=None,
             variance_bounds=(0.01, 1000.), noise='fit', noise_init=1., noise_bounds=(1e-5, 1e5), n_restarts=2,
             gp_maxiter=15_000, refit_every=1, refit_warm=False, acq_optimizer='lbfgs', n_samples=10_000,
             acq_local=False, n_starts=5, acq_stacked=False, acq_maxiter=20, acq_ftol=None)

# ---------------------------------------------------------------- the preset
@pytest.mark.parametrize('method,own', [('gp-ei', dict(xi=0.01, xi_units='y')), ('gp-pi', dict(xi=0.01, xi_units='y')),
                                        ('gp-ucb', dict(beta=1.96**2, beta_scale=1.))])
def test_preset_resolves_to_skopt_defaults(method, own):
    assert preset_options(method, 'skopt') == {**MODEL, **own}
    opt = get_method(method)([[0, 1]] * 3, rng=0, defaults='skopt')
    for k, v in {**MODEL, **own}.items(): assert opt.options[k] == v, k
    assert opt.n_init == 10 and opt.fit_noise and opt.noise0 == 1.
    assert opt.trace.meta['preset'] == dict(name='skopt', options={**MODEL, **own}, overridden=[])
    assert opt.trace.meta['options'] == dict(defaults='skopt')

def test_preset_errors():
    with pytest.raises(ValueError, match='unknown preset'): GPEI([[0, 1]], defaults='skopt2')
    with pytest.raises(ValueError, match='takes no `defaults`'): preset_options('random', 'skopt')
    with pytest.raises(ValueError, match='xi_units'): GPEI([[0, 1]], xi_units='sd')
    assert set(PRESETS) == {'skopt'} and PRESETS['skopt'] is SKOPT_DEFAULTS

def test_user_options_override_the_preset():
    opt = GPEI([[0, 1]] * 2, rng=0, defaults='skopt', n_init=4, xi=0.1, refit_every=3)
    assert (opt.options['n_init'], opt.options['xi'], opt.options['refit_every']) == (4, 0.1, 3)
    assert opt.options['xi_units'] == 'y' and opt.options['n_samples'] == 10_000
    pre = opt.trace.meta['preset']
    assert pre['overridden'] == ['n_init', 'refit_every', 'xi'] and not set(pre['options']) & {'n_init', 'xi', 'refit_every'}
    # a run: the design has the user's size; the GP is refitted on the user's schedule
    tr = optimize(get_problem('branin'), 'gp-ei', 12, rng=0, defaults='skopt', n_init=4, refit_every=3, n_samples=500)
    assert tr.diagnostics['init'][:4].tolist() == [1.] * 4 and tr.diagnostics['init'][4:].sum() == 0
    assert tr.diagnostics['refit'][4:].tolist() == [1., 0., 0., 1., 0., 0., 1., 0.]

def test_preset_run_refits_every_step_and_records_meta(tmp_path):
    tr = optimize(get_problem('branin'), 'gp-ucb', 13, rng=1, defaults='skopt', n_samples=300)
    d = tr.diagnostics
    assert d['init'][:10].tolist() == [1.] * 10 and (d['refit'][10:] == 1).all()
    np.testing.assert_array_equal(d['beta_t'][10:], 1.96**2)
    tr.save(str(tmp_path / 't.npz'))
    back = Trace.load(str(tmp_path / 't.npz'))
    pre = back.meta['preset']
    assert pre['name'] == 'skopt' and pre['overridden'] == ['n_samples'] and 'n_samples' not in pre['options']
    assert list(pre['options']['noise_bounds']) == [1e-5, 1e5] and pre['options']['beta'] == 1.96**2

def test_fresh_refit_starts_from_the_initial_values():
    "refit_warm=False: each refit is a new GP (as skopt's clone), so the result does not depend on the previous fit."
    p = get_problem('branin')
    opt = GPEI(p.bounds, rng=0, defaults='skopt', n_samples=200)
    X = np.random.default_rng(5).uniform(p.bounds[:, 0], p.bounds[:, 1], (12, 2))
    for x in X[:11]: opt.tell(x, p(x))
    opt.ask(); gp1 = opt.gp
    opt.tell(X[11], p(X[11])); opt._pending.clear(); opt._asked.clear()
    opt.ask(); assert opt.gp is not gp1 and opt.gp.n_fits == 1 and opt.gp.n == 12

# ---------------------------------------------------------------- nothing changes without the option
def test_runs_without_the_option_are_unchanged():
    ref = json.load(open(os.path.join(HERE, 'bo_reference.json')))
    for k, v in ref.items():
        if k.startswith('_'): continue
        m, nz = k.split('/')
        tr = optimize(get_problem('branin', noise_std=float(nz[5:])), m, 9, rng=3, n_init=5, n_samples=200, refit_every=2)
        # stored numbers (rule in 00_core): the points are L-BFGS-B end points, so 'optimizer' (norm-wise 1e-3);
        # a changed algorithm moves them by the size of the box
        check_stored(tr.X, v['X'], 'optimizer', what=f'{k}: X'); check_stored(tr.y, v['y'], 'optimizer', what=f'{k}: y')
        assert 'preset' not in tr.meta and tr.meta['options'] == dict(n_init=5, n_samples=200, refit_every=2)

def test_new_options_at_their_defaults_change_nothing():
    p = get_problem('branin', noise_std=1.)
    explicit = dict(defaults=None, noise_init=1e-6, noise_bounds=(1e-8, 10.), variance_bounds=(1e-4, 1e4), refit_warm=True,
                    gp_maxiter=200, acq_local=True, acq_stacked=True, acq_maxiter=200, xi_units='std')
    a = optimize(p, 'gp-ei', 10, rng=2, n_init=5, n_samples=200)
    b = optimize(p, 'gp-ei', 10, rng=2, n_init=5, n_samples=200, **explicit)
    np.testing.assert_array_equal(a.X, b.X)

def test_cache_keys_do_not_see_the_new_options():
    "A run's identity is the options given, not the class defaults: adding defaulted options keeps every earlier key."
    e = Experiment('k', methods={'ei': 'gp-ei', 'ucb': ('gp-ucb', dict(beta_scale=1.))}, problems={'b': 'branin'},
                   seeds=1, budget=20)
    keys = {r.method_label: r.key for r in experiment_runs(e)}
    assert keys == {'ei': run_hash(dict(method='gp-ei', options={}, problem=dict(name='branin', kwargs={}), budget=20, seed=0)),
                    'ucb': run_hash(dict(method='gp-ucb', options=dict(beta_scale=1.), problem=dict(name='branin', kwargs={}),
                                         budget=20, seed=0))}
    e2 = Experiment('k', methods={'ei': ('gp-ei', dict(defaults='skopt'))}, problems={'b': 'branin'}, seeds=1, budget=20)
    assert next(iter(experiment_runs(e2))).key != keys['ei']

# ---------------------------------------------------------------- the GP is scikit-learn's with skopt's kernel
@pytest.fixture(scope='module')
def fitted():
    "A GP-EI under the preset after 14 Branin evaluations, its GP fitted by the first proposal."
    p = get_problem('branin')
    opt = GPEI(p.bounds, rng=0, defaults='skopt', n_samples=500)
    X = np.random.default_rng(3).uniform(p.bounds[:, 0], p.bounds[:, 1], (14, 2))
    for x in X: opt.tell(x, p(x))
    opt.ask()
    return opt, np.array(opt._U), np.array(opt._Y)

def sklearn_gp(gp, U, Y):
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel
    k = ConstantKernel(gp.kernel.variance, 'fixed') * Matern(gp.kernel.lengthscale, 'fixed', nu=2.5) \
        + WhiteKernel(gp.noise, 'fixed')
    sk = GaussianProcessRegressor(k, normalize_y=True, optimizer=None).fit(U, Y)   # alpha=1e-10, as skopt's
    return sk

def test_gp_matches_sklearn_at_the_same_hyperparameters(fitted):
    opt, U, Y = fitted
    gp = opt.gp
    assert gp.fit_noise and gp.lengthscale_prior is None and gp.normalize_y
    assert np.all((gp.kernel.lengthscale >= 0.01) & (gp.kernel.lengthscale <= 100)) and 0.01 <= gp.kernel.variance <= 1000
    assert 1e-5 * (1 - 1e-9) <= gp.noise <= 1e5   # on Branin (noiseless) at the lower bound, as scikit-learn's fit
    sk = sklearn_gp(gp, U, Y)
    Xs = np.random.default_rng(4).random((50, 2))
    mu, sd = gp.predict(Xs)
    mu_sk, sd_sk = sk.predict(Xs, return_std=True)
    sd_sk = np.sqrt(np.maximum(sd_sk**2 - gp.noise * Y.std()**2, 0))   # skopt predicts f: the white noise set to 0
    s = Y.std()
    np.testing.assert_allclose(mu, mu_sk, rtol=0, atol=1e-6 * s)
    np.testing.assert_allclose(sd, sd_sk, rtol=0, atol=1e-6 * s)
    assert abs(gp.log_marginal_likelihood() - sk.log_marginal_likelihood_value_) < 1e-6

@pytest.mark.filterwarnings('ignore::sklearn.exceptions.ConvergenceWarning')
def test_hyperparameter_fit_is_as_good_as_sklearns(fitted):
    "scikit-learn's own fit of skopt's GP (2 restarts) finds no higher likelihood than ours on the same data."
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel
    opt, U, Y = fitted
    k = ConstantKernel(1.0, (0.01, 1000.0)) * Matern(np.ones(2), [(0.01, 100)] * 2, nu=2.5) + WhiteKernel()
    best = max(GaussianProcessRegressor(k, normalize_y=True, n_restarts_optimizer=2, random_state=s).fit(U, Y)
               .log_marginal_likelihood_value_ for s in range(3))
    assert opt.gp.log_marginal_likelihood() >= best - 1e-4

def test_gp_matches_skopts_regressor(fitted):
    skgp = pytest.importorskip('skopt.learning', reason='scikit-optimize not installed (pip install "hdbo-nb[peers]")')
    from skopt.learning.gaussian_process.kernels import ConstantKernel, Matern, WhiteKernel
    opt, U, Y = fitted
    gp = opt.gp
    k = ConstantKernel(gp.kernel.variance, 'fixed') * Matern(gp.kernel.lengthscale, 'fixed', nu=2.5) \
        + WhiteKernel(gp.noise, 'fixed')
    sk = skgp.GaussianProcessRegressor(k, normalize_y=True, noise='gaussian', optimizer=None).fit(U, Y)
    Xs = np.random.default_rng(4).random((50, 2))
    mu, sd = gp.predict(Xs); mu_sk, sd_sk = sk.predict(Xs, return_std=True)
    np.testing.assert_allclose(mu, mu_sk, rtol=0, atol=1e-6 * Y.std())
    np.testing.assert_allclose(sd, sd_sk, rtol=0, atol=1e-6 * Y.std())

# ---------------------------------------------------------------- the acquisitions are skopt's
MU = np.array([-3., -0.4, 0., 0.2, 1.5, 4.]); SD = np.array([0.5, 1e-3, 2., 0.3, 1., 0.05]); BEST, XI = 0.1, 0.01

def skopt_forms(mu_y, sd, y_opt, xi, kappa):
    "gaussian_ei / gaussian_pi / gaussian_lcb of skopt 0.10 at given mean and sd of the minimised y (sd > 0)."
    imp = y_opt - xi - mu_y; z = imp / sd
    return imp * norm.cdf(z) + sd * norm.pdf(z), norm.cdf(z), mu_y - kappa * sd

def test_acquisitions_equal_skopts_closed_forms():
    e, p, lcb = skopt_forms(-MU, SD, -BEST, XI, 1.96)   # maximising f is minimising y = -f
    np.testing.assert_allclose(ei(MU, SD, BEST, XI), e, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(pi(MU, SD, BEST, XI), p, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ucb(MU, SD, 1.96**2), -lcb, rtol=1e-12, atol=1e-15)

class _Model:
    "A stand-in for a fitted skopt model: predict returns the given mean and sd of y."
    def __init__(self, mu, sd): self.mu, self.sd = mu, sd
    def predict(self, X, return_std=False): return (self.mu, self.sd) if return_std else self.mu

def test_acquisitions_equal_skopts_functions():
    acq = pytest.importorskip('skopt.acquisition', reason='scikit-optimize not installed (pip install "hdbo-nb[peers]")')
    m, X = _Model(-MU, SD), np.zeros((len(MU), 1))
    np.testing.assert_allclose(ei(MU, SD, BEST, XI), acq.gaussian_ei(X, m, y_opt=-BEST, xi=XI), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(pi(MU, SD, BEST, XI), acq.gaussian_pi(X, m, y_opt=-BEST, xi=XI), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ucb(MU, SD, 1.96**2), -acq.gaussian_lcb(X, m, kappa=1.96), rtol=1e-12, atol=1e-15)

@pytest.mark.parametrize('cls', [GPEI, GPPI])
def test_preset_xi_is_absolute_in_y_units(fitted, cls):
    "skopt's xi is in the objective's units (its predict undoes normalize_y): not multiplied by std(y) under the preset."
    _, U, Y = fitted
    p = get_problem('branin')
    opt = cls(p.bounds, rng=0, defaults='skopt', n_samples=200)
    for u, y in zip(U, Y): opt.tell(p.bounds[:, 0] + u * (p.bounds[:, 1] - p.bounds[:, 0]), y)
    opt.ask()
    assert opt.gp.y_std > 10 and opt.acquisition.xi == 0.01
    Xs = np.random.default_rng(6).random((20, 2))
    mu, sd = opt.gp.predict(Xs)
    e, pr, _ = skopt_forms(-mu, sd, -Y.max(), 0.01, 1.96)
    np.testing.assert_allclose(opt.acquisition(opt.gp, Xs), e if cls is GPEI else pr, rtol=1e-10, atol=1e-14)
    own = cls(p.bounds, rng=0, n_samples=200, xi=0.01)   # the package's default units: xi times std(y)
    for u, y in zip(U, Y): own.tell(p.bounds[:, 0] + u * (p.bounds[:, 1] - p.bounds[:, 0]), y)
    own.ask()
    assert own.acquisition.xi == pytest.approx(0.01 * own.gp.y_std)

def test_preset_acquisition_maximiser_settings(monkeypatch):
    "skopt's: 10 000 uniform samples, then one L-BFGS-B climb of at most 20 iterations from each of the 5 best."
    import hdbo_nb.bo as bo
    calls, real = [], bo.maximize_lbfgs
    def spy(*a, **kw): calls.append(kw); return real(*a, **kw)
    monkeypatch.setattr(bo, 'maximize_lbfgs', spy)
    optimize(get_problem('branin'), 'gp-ei', 11, rng=0, defaults='skopt')
    optimize(get_problem('branin'), 'gp-ei', 6, rng=0)
    kw, own = calls
    assert (kw['n_samples'], kw['n_starts'], kw['maxiter'], kw['stacked'], kw['ftol'], kw['candidates']) == \
           (10_000, 5, 20, False, None, None)
    assert (own['n_samples'], own['n_starts'], own['maxiter'], own['stacked'], own['ftol'], len(own['candidates'])) == \
           (1000, 5, 200, True, 1e-6, 100)

def test_preset_run_resumes_from_its_trace():
    "The trace records `defaults='skopt'` among its options: `from_trace` rebuilds the preset and continues exactly."
    p = get_problem('branin')
    full = optimize(p, 'gp-ei', 14, rng=4, defaults='skopt', n_samples=300)
    part = optimize(p, 'gp-ei', 12, rng=4, defaults='skopt', n_samples=300)
    opt = get_method('gp-ei').from_trace(part, problem=p)
    assert opt.options['xi_units'] == 'y' and opt.options['refit_every'] == 1
    np.testing.assert_array_equal(opt.run(p, 14).X, full.X)
