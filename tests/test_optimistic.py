"Properties of the partition P(m; a, b), the tree, and the tree baselines SOO, BaMSOO, IMGPO."
import math
import numpy as np, pytest
from hdbo_nb.core import Problem
from hdbo_nb.bo import METHODS, optimize
from hdbo_nb.functions import get_problem
from hdbo_nb.optimistic import (partition, Tree, cell_widths, lemma1_bounds, lemma2_bound, SOO, BaMSOO, IMGPO,
                                beta_bamsoo, varsigma_imgpo, h_max_sqrt)

@pytest.mark.parametrize('D,a,b', [(1, 2, 1), (2, 3, 2), (3, 2, 1), (3, 2, 3), (4, 2, 2), (5, 2, 5), (3, 5, 1)])
def test_partition_tiles_random_cells(D, a, b):
    rng = np.random.default_rng(D * 100 + a * 10 + b)
    for _ in range(5):
        lo, w = rng.random(D), rng.uniform(0.1, 1, D)
        clo, cw = partition(lo, w, a, b)
        assert len(clo) == a**b
        assert math.isclose(np.prod(cw, 1).sum(), np.prod(w), rel_tol=1e-12)
        X = lo + w * rng.random((500, D))
        inside = ((X[:, None] >= clo[None]) & (X[:, None] < clo[None] + cw[None])).all(-1)
        assert np.all(inside.sum(1) == 1)
        cut = cw[0] < w
        assert cut.sum() == b
        if b < D: assert w[cut].min() >= w[~cut].max()
        # the children's centres lie inside the parent, pairwise interiors disjoint (checked through the volumes)
        c = clo + cw / 2
        assert np.all((c > lo) & (c < lo + w))

@pytest.mark.parametrize('D', [1, 2, 3, 4, 5])
def test_lemmas_1_2(D):
    for b in range(1, D + 1):
        for a in (2, 3):
            for h in range(13):
                w = cell_widths(h, D, a, b)
                hi, lo = lemma1_bounds(h, D, a, b)
                assert w.max() <= hi * (1 + 1e-12) and w.min() >= lo * (1 - 1e-12)
                assert 0.5 * np.linalg.norm(w) <= lemma2_bound(h, D, a, b) * (1 + 1e-12)

def test_bad_partition_arguments():
    with pytest.raises(ValueError, match='a must be'): partition(np.zeros(2), np.ones(2), 1, 1)
    with pytest.raises(ValueError, match='b must be'): partition(np.zeros(2), np.ones(2), 2, 0)
    with pytest.raises(ValueError, match='width'): partition(np.zeros(2), np.array([1., 0.]), 2, 1)

def test_tree_path_and_leaves():
    T = Tree(3, 2, 3)
    x = np.array([0.3, 0.8, 0.1])
    for _ in range(4): T.expand(T.path_to(x)[-1])
    path = T.path_to(x)
    assert len(path) == 5 and [int(T.depth[i]) for i in path] == [0, 1, 2, 3, 4]
    lo, w = T.lo[path[-1]], T.width[path[-1]]
    assert np.all(lo <= x) and np.all(x <= lo + w)
    assert sum(len(L) for L in T.leaves) == T.n - int(T.expanded.sum())

def test_registered():
    for name in ('soo', 'bamsoo', 'imgpo'): assert name in METHODS

def test_unknown_option_is_an_error():
    with pytest.raises(TypeError, match='unknown option'): SOO([[0, 1]], m=3)

@pytest.mark.parametrize('a,b', [(2, 1), (2, 2), (3, 1)])
def test_soo_spends_m_evaluations_per_expansion(a, b):
    p = get_problem('branin')
    opt = SOO(p.bounds, a=a, b=b)
    tr = opt.run(p, 61)
    T = opt.tree
    new_per_expansion = (a**b - 1) if a % 2 else a**b          # odd a: the middle child reuses its parent's value
    n_exp = int(T.expanded.sum())
    assert len(tr) == 61
    assert 1 + new_per_expansion * (n_exp - 1) < 61 <= 1 + new_per_expansion * n_exp
    d = tr.diagnostics
    assert np.all(d['depth'][1:] - 1 <= d['h_max'][1:] + d['guard'][1:])

def test_soo_converges_on_a_quadratic():
    f = Problem(lambda x: float(-np.sum((x - 0.3)**2)), [[0, 1]] * 2, f_opt=0., name='q')
    tr = optimize(f, 'soo', budget=150)
    assert tr.simple_regret()[-1] < 1e-3

def test_bamsoo_evaluates_only_when_ucb_reaches_incumbent():
    p = get_problem('branin')
    opt = BaMSOO(p.bounds, rng=3)
    tr = opt.run(p, 50)
    d = tr.diagnostics
    n0 = opt.n_init + 1
    inc = np.maximum.accumulate(tr.y)
    assert np.all(d['ucb'][n0:] >= inc[n0 - 1:-1] - 1e-9)
    T = opt.tree
    assert opt.n_skipped > 0
    assert int(T.evaluated[:T.n].sum()) <= 1 + 2 * int(T.expanded.sum())   # <= m per expansion
    assert T.n - 2 < int(T.evaluated[:T.n].sum()) + opt.n_skipped <= T.n   # every node: evaluated or its LCB (the last expansion may be unfinished)
    assert math.isclose(beta_bamsoo(10), 2 * math.log(math.pi**2 * 100 / 0.3))

def test_imgpo_no_duplicates_no_depth_limit():
    p = get_problem('branin')
    opt = IMGPO(p.bounds, rng=0)
    tr = opt.run(p, 60)
    assert len(np.unique(np.round(tr.X, 12), axis=0)) == 60
    assert opt.tree.m == 3 and opt.M >= 1
    assert math.isclose(varsigma_imgpo(2), math.sqrt(2 * math.log(math.pi**2 * 4 / 0.6)))

@pytest.mark.parametrize('name', ['soo', 'bamsoo', 'imgpo'])
def test_failures_are_recorded_and_the_search_goes_on(name):
    def f(x): return np.nan if x[0] > 0.6 else float(-np.sum((x - 0.3)**2))
    prob = Problem(f, [[0, 1]] * 2, f_opt=0., name='holes')
    tr = optimize(prob, name, budget=30, rng=0, on_nan='record')
    assert len(tr) == 30 and np.isnan(tr.y).any()
    assert np.nanmax(tr.y) > -0.05

@pytest.mark.parametrize('name', ['soo', 'bamsoo', 'imgpo'])
def test_same_seed_same_trace(name):
    p = get_problem('hartmann3')
    t1, t2 = optimize(p, name, budget=25, rng=5), optimize(p, name, budget=25, rng=5)
    np.testing.assert_array_equal(t1.X, t2.X)

def test_h_max():
    assert [h_max_sqrt(p) for p in (1, 2, 4, 15, 16)] == [1, 1, 2, 3, 4]

def test_imgpo_deeper_lookahead_and_custom_depth_limits():
    p = get_problem('branin')
    tr = optimize(p, 'imgpo', budget=30, rng=1, Xi=2, refit_every=5)
    assert len(tr) == 30
    opt = SOO(p.bounds, h_max=lambda q: 2)                        # a fixed depth limit: the guard lets it go on
    tr = opt.run(p, 40)
    assert len(tr) == 40 and np.nanmax(tr.diagnostics['guard']) >= 1
    with pytest.raises(ValueError, match='h_max'): SOO(p.bounds, h_max='log')

def test_max_nodes_guard():
    p = get_problem('branin')
    with pytest.raises(RuntimeError, match='max_nodes'): optimize(p, 'soo', budget=500, max_nodes=50)
