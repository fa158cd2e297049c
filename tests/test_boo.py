"BOO (Tran-The et al. 2021): budget, depth limit, sampling rule, beta_p, reproducibility, failures."
import math
import numpy as np, pytest
from hdbo_nb.core import Problem
from hdbo_nb.bo import METHODS, optimize
from hdbo_nb.functions import get_problem
from hdbo_nb.boo import BOO, beta_boo

def test_registered(): assert METHODS['boo'] is BOO

def test_beta_p_table():
    for p, v in [(1, 2.894), (200, 6.337), (800, 6.963)]:
        assert abs(math.sqrt(beta_boo(p)) - v) < 1e-3
    with pytest.raises(ValueError): beta_boo(1, eta=1.5)

@pytest.mark.parametrize('a,b', [(2, 2), (2, 3), (4, 3)])          # m = 4, 8, 64
def test_one_evaluation_per_expansion(a, b):
    p = get_problem('hartmann3')
    opt = BOO(p.bounds, rng=2, a=a, b=b, refit_every=10)
    tr = opt.run(p, 40)
    T = opt.tree
    assert len(tr) == 40
    assert np.array_equal(T.evaluated[:T.n], T.expanded[:T.n])
    assert int(T.expanded.sum()) == 40 - opt.n_init
    assert T.n == 1 + a**b * (40 - opt.n_init)

def test_depth_limit_and_counter():
    p = get_problem('branin')
    tr = optimize(p, 'boo', budget=60, rng=0, refit_every=5)
    d = tr.diagnostics
    k = ~np.isnan(d['p'])
    assert np.all(d['depth'][k] <= np.floor(np.sqrt(d['p'][k])) + d['guard'][k])
    assert np.array_equal(d['p'][k], np.arange(1, k.sum() + 1))
    assert np.all(d['ucb'][k] >= d['lcb'][k])
    assert tr.meta['method'] == 'boo'

def test_same_seed_same_trace():
    p = get_problem('hartmann3')
    t1 = optimize(p, 'boo', budget=30, rng=4)
    t2 = optimize(p, 'boo', budget=30, rng=4)
    np.testing.assert_array_equal(t1.X, t2.X); np.testing.assert_array_equal(t1.y, t2.y)

def test_converges_on_a_smooth_function():
    f = Problem(lambda x: float(-np.sum((x - np.array([0.31, 0.62]))**2)), [[0, 1]] * 2, f_opt=0., name='q')
    tr = optimize(f, 'boo', budget=40, rng=0)
    assert tr.simple_regret()[-1] < 1e-3       # centres only, depth <= sqrt(p) = 6: cells of side 1/64

def test_failures_recorded():
    def f(x): return np.nan if x[0] > 0.6 else float(-np.sum((x - 0.3)**2))
    prob = Problem(f, [[0, 1]] * 2, f_opt=0., name='holes')
    tr = optimize(prob, 'boo', budget=25, rng=0, on_nan='record')
    assert len(tr) == 25 and np.isnan(tr.y).any() and np.nanmax(tr.y) > -0.01

def test_bad_options():
    with pytest.raises(ValueError, match='b must be'): BOO([[0, 1]] * 2, b=3)
    with pytest.raises(ValueError, match='refit_every'): BOO([[0, 1]] * 2, refit_every=0)

def test_claims_evaluate_on_the_committed_cache():
    "Every registered claim of the BOO paper measures to a verdict (not an error) on the committed results cache."
    from pathlib import Path
    from hdbo_nb.claims import evaluate_claims, VERDICTS
    res = evaluate_claims('boo', Path(__file__).resolve().parents[1] / 'results')
    assert len(res) == 19, [r.claim.id for r in res]
    assert {r.claim.kind for r in res} == {'experiment', 'theory', 'erratum'}
    bad = {r.claim.id: r.error for r in res if r.measurement is None}
    assert not bad, bad
    assert all(r.verdict in VERDICTS for r in res)
