"Chaining-UCB (Contal, Malherbe & Vayatis 2015): a direct dense reference of Algorithms 1-2 compared step by step."
import math, itertools
import numpy as np, pytest
from hdbo_nb.core import Finite, FiniteProblem
from hdbo_nb.gp import SE, GP, CandidatePosterior
from hdbo_nb.bo import METHODS, optimize
from hdbo_nb.acquisition import beta_srinivas_finite
from hdbo_nb.chaining import (ChainingUCB, canonical_dist2, canonical_pairs, greedy_cover, nested_covers, n_levels, h_value,
                              chaining_bonus, chaining_problem, chaining_se, CHAINING_PROBLEMS)

# ---------------------------------------------------------------- the reference: Algorithms 1 and 2 as printed
def ref_cover(D, eps, U):
    "Algorithm 2: among uncovered points, the one with most uncovered neighbours (lowest index on ties)."
    U, T = sorted(U), []
    while U:
        deg = [sum(D[x, u] <= eps for u in U) for x in U]
        c = U[int(np.argmax(deg))]; T.append(c)
        U = [u for u in U if D[c, u] > eps]
    return T

def ref_nested(D, L):
    "Algorithm 1's covers: T_i = T_{i-1} + Cover({x : d(x, T_{i-1}) > eps_i}, eps_i), T_0 empty."
    T, out = [], []
    for i in range(1, L + 1):
        e = 2.0 ** (1 - i)
        T = T + ref_cover(D, e, [x for x in range(len(D)) if not T or D[x, T].min() > e])
        out.append(list(T))
    return out

def ref_posterior(K0, idx, y, noise):
    "Eq. 1 in batch form."
    if not idx: return np.zeros(len(K0)), K0.copy()
    I = np.array(idx); C = K0[np.ix_(I, I)] + noise * np.eye(len(I))
    A = np.linalg.solve(C, K0[I])
    return A.T @ np.array(y), K0 - K0[:, I] @ A

def ref_step(K0, idx, y, noise, t, delta=0.05, scale=1., covers=True, diag=False):
    """One iteration of Algorithm 1: (chosen index, [|T_i|], [H_i], sigma_min); with `diag` also the mechanism diagnostic
    (whether every |T_i| = 1 changes the arg max, and the levels with sigma_min <= eps_i < max sigma)."""
    mu, cov = ref_posterior(K0, idx, y, noise)
    s2 = np.maximum(np.diag(cov), 0); sigma = np.sqrt(s2)
    D = np.sqrt(np.maximum(s2[:, None] + s2[None] - 2 * cov, 0)); np.fill_diagonal(D, 0)
    smin = max(sigma.min(), 1e-6)
    L = min(math.ceil(1 - math.log2(smin)), 30)
    sizes = [len(T) for T in ref_nested(D, L)] if covers else [1] * L
    Hof = lambda sz: [scale * 2.0 ** (1 - i) * math.sqrt(2 * math.log((sz[i - 1] + 1) * i**2 * t**2 * math.pi**4 / (36 * delta)))
                      for i in range(1, L + 1)]
    score = lambda H: mu + sum(H[i - 1] * (sigma > 2.0 ** (1 - i)) for i in range(1, L + 1) if 2.0 ** (1 - i) >= smin)
    H = Hof(sizes); j = int(np.argmax(score(H)))
    if not diag: return j, sizes, H, smin
    acts = j != int(np.argmax(score(Hof([1] * L))))
    return j, sizes, H, smin, acts, sum(smin <= 2.0 ** (1 - i) < sigma.max() for i in range(1, L + 1))

def small_problem(N=120, seed=0, ls=1.0):
    r = np.random.default_rng(seed)
    X = r.uniform(0, 6, (N, 2)); K = SE(ls)(X)
    f = np.linalg.cholesky(K + 1e-6 * np.eye(N)) @ r.standard_normal(N)
    return FiniteProblem(f, Finite(X, gram=K), noise_std=0.05)

@pytest.mark.parametrize('h_scale,seed', [('alg1', 0), ('alg1', 1), ('theory', 2)])
def test_matches_reference_step_by_step(h_scale, seed):
    p = small_problem(seed=seed)
    tr = optimize(p, 'chaining-ucb', budget=28, rng=seed, h_scale=h_scale, dtype='float64')
    d, X, y = tr.diagnostics, tr.X[:, 0].astype(int), tr.y
    for k in range(10, 28):
        t = k - 9
        j, sizes, H, smin = ref_step(p.domain.gram, X[:k].tolist(), y[:k].tolist(), 0.05**2, t,
                                     scale=1. if h_scale == 'alg1' else 2.)
        assert X[k] == j, f"step {t}: chose {X[k]}, the reference {j}"
        assert d['n_levels'][k] == len(sizes)
        assert [d[f'T_{i}'][k] for i in range(1, len(sizes) + 1)] == sizes
        np.testing.assert_allclose([d[f'H_{i}'][k] for i in range(1, len(H) + 1)], H, rtol=1e-12)
        np.testing.assert_allclose(d['sigma_min'][k], smin, rtol=1e-9)
    _compare(p, tr, range(10, 28, 6), scale=1. if h_scale == 'alg1' else 2.)

def _compare(p, tr, steps, noise=0.05**2, **kw):
    "The run `tr` on `p` against the reference at the given steps (indices into the trace): choice, covers, H_i, diagnostic."
    d, X, y = tr.diagnostics, tr.X[:, 0].astype(int), tr.y
    for k in steps:
        j, sizes, H, smin, acts, lv = ref_step(p.domain.gram, X[:k].tolist(), y[:k].tolist(), noise, k - 9, diag=True, **kw)
        assert X[k] == j, f"step {k - 9}: chose {X[k]}, the reference {j}"
        assert [d[f'T_{i}'][k] for i in range(1, len(sizes) + 1)] == sizes
        np.testing.assert_allclose([d[f'H_{i}'][k] for i in range(1, len(H) + 1)], H, rtol=1e-12)
        assert d['cover_acts'][k] == acts and d['active_levels'][k] == lv, f"step {k - 9}: diagnostic"

def test_sparse_path_matches_reference():
    "A design where few pairs are within eps_1 = 1: the score works on the pairs of the posterior metric (not the dense matrix)."
    r = np.random.default_rng(8)
    X = r.uniform(0, 25, (150, 2)); K = SE(1.)(X)
    p = FiniteProblem(np.linalg.cholesky(K + 1e-6 * np.eye(150)) @ r.standard_normal(150), Finite(X, gram=K), noise_std=0.05)
    assert np.count_nonzero(K >= 0.5) < 0.02 * 150**2          # d_0^2 = 2 - 2k <= 1: one or two per cent of the pairs
    dense = []
    tr = optimize(p, 'chaining-ucb', budget=20, rng=8, dtype='float64', callback=lambda o: dense.append(o._dense))
    assert not any(dense)                                      # every step took the sparse path (the posterior metric
    _compare(p, tr, range(10, 20))                             # shrinks near the data: later steps go dense)

def test_many_levels_match_reference():
    "Low noise: sigma_min near eta, ten levels; the finest covers and a floor on sigma_min would show."
    r = np.random.default_rng(9)
    X = r.uniform(0, 5, (110, 2)); K = SE(1.)(X)
    p = FiniteProblem(np.linalg.cholesky(K + 1e-6 * np.eye(110)) @ r.standard_normal(110), Finite(X, gram=K), noise_std=0.002)
    tr = optimize(p, 'chaining-ucb', budget=26, rng=9, dtype='float64')
    assert tr.diagnostics['n_levels'][-1] >= 9 and tr.diagnostics['sigma_min'][-1] < 0.01
    _compare(p, tr, range(10, 26), noise=0.002**2)

def test_without_covers_matches_reference():
    "cover_sizes='one': the same staircase with every |T_i| = 1, no covers computed, the covers never act."
    p = small_problem(seed=3)
    tr = optimize(p, 'chaining-ucb', budget=24, rng=3, dtype='float64', cover_sizes='one')
    d, X, y = tr.diagnostics, tr.X[:, 0].astype(int), tr.y
    for k in range(10, 24):
        j, sizes, H, smin = ref_step(p.domain.gram, X[:k].tolist(), y[:k].tolist(), 0.05**2, k - 9, covers=False)
        assert X[k] == j and d['cover_acts'][k] == 0
        np.testing.assert_allclose([d[f'H_{i}'][k] for i in range(1, len(H) + 1)], H, rtol=1e-12)
    with pytest.raises(ValueError, match='cover_sizes'): optimize(p, 'chaining-ucb', budget=12, rng=0, cover_sizes='x')

def test_the_covers_act_and_the_replay_agrees():
    "A dense small square: the covers change the arg max at some steps; replaying the cached-style trace gives the same diagnostic."
    from hdbo_nb.chaining import replay_cover_acts, chaining_se
    p = chaining_se(N=300, seed=1, side=5.)
    tr = optimize(p, 'chaining-ucb', budget=60, rng=1, dtype='float64')
    d = tr.diagnostics
    assert d['cover_acts'][10:].sum() > 0
    _compare(p, tr, [int(k) for k in np.flatnonzero(d['cover_acts'] == 1)[:3]])    # the reference agrees where they act
    rp = replay_cover_acts(tr, p)
    assert rp['agrees'].all() and np.array_equal(rp['cover_acts'], d['cover_acts'][10:])
    assert np.array_equal(rp['active_levels'], d['active_levels'][10:])

def test_levels_reach_the_finest_cover():
    "With small sigma_min the finest levels matter: a long run on a dense design keeps matching the reference."
    p = small_problem(N=90, seed=5, ls=0.7)
    tr = optimize(p, 'chaining-ucb', budget=40, rng=5, dtype='float64')
    X, y = tr.X[:, 0].astype(int), tr.y
    assert tr.diagnostics['n_levels'][-1] >= 5
    for k in (30, 39):
        assert ref_step(p.domain.gram, X[:k].tolist(), y[:k].tolist(), 0.05**2, k - 9)[0] == X[k]

# ---------------------------------------------------------------- posterior
def test_posterior_rank_one_equals_batch_and_sklearn():
    from sklearn.gaussian_process import GaussianProcessRegressor
    from sklearn.gaussian_process.kernels import RBF, ConstantKernel
    r = np.random.default_rng(0)
    X = r.uniform(0, 5, (80, 2)); K0 = SE(1.)(X)
    idx = r.integers(0, 80, 30).tolist(); y = (np.sin(X[idx, 0]) + 0.05 * r.standard_normal(30)).tolist()
    post = CandidatePosterior(K0, 0.05**2, refactor_every=None)
    for j, v in zip(idx, y): post.add(j, v)
    mu, cov = ref_posterior(K0, idx, y, 0.05**2)
    np.testing.assert_allclose(post.mu, mu, atol=1e-8); np.testing.assert_allclose(post.cov, cov, atol=1e-8)
    gpr = GaussianProcessRegressor(ConstantKernel(1., 'fixed') * RBF(1., 'fixed'), alpha=0.05**2, optimizer=None)
    gpr.fit(X[idx], y)
    m2, c2 = gpr.predict(X, return_cov=True)
    np.testing.assert_allclose(post.mu, m2, atol=1e-6); np.testing.assert_allclose(post.cov, c2, atol=1e-6)
    post2 = CandidatePosterior(K0, 0.05**2, refactor_every=7)     # periodic refactorisation: same result
    for j, v in zip(idx, y): post2.add(j, v)
    np.testing.assert_allclose(post2.cov, cov, atol=1e-8)

def test_posterior_bad_input():
    with pytest.raises(ValueError, match='square'): CandidatePosterior(np.ones((3, 4)), 0.1)
    with pytest.raises(ValueError, match='noise'): CandidatePosterior(np.eye(3), -1.)
    with pytest.raises(IndexError): CandidatePosterior(np.eye(3), 0.1).add(3, 0.)

# ---------------------------------------------------------------- metric and covers
def test_metric_properties():
    r = np.random.default_rng(1)
    X = r.uniform(0, 4, (50, 2)); K0 = SE(1.)(X)
    post = CandidatePosterior(K0, 0.01)
    for j in r.integers(0, 50, 10): post.add(j, r.standard_normal())
    D = np.sqrt(canonical_dist2(post.cov, np.float64)); D0 = np.sqrt(canonical_dist2(K0, np.float64))
    assert np.allclose(D, D.T) and np.all(np.diag(D) == 0)
    i, j, k = r.integers(0, 50, (3, 4000))
    assert np.all(D[i, k] <= D[i, j] + D[j, k] + 1e-9)
    assert np.all(D <= D0 + 1e-9)
    assert np.all(D0 <= np.linalg.norm(X[:, None] - X[None], axis=-1) + 1e-9)
    assert canonical_dist2(post.cov).dtype == np.float32

def _min_cover(D, eps):
    for m in range(1, len(D) + 1):
        for T in itertools.combinations(range(len(D)), m):
            if np.all(D[:, list(T)].min(1) <= eps): return m

@pytest.mark.parametrize('seed', range(12))
def test_cover_valid_separated_and_equal_to_reference(seed):
    r = np.random.default_rng(seed)
    P = r.uniform(0, 3, (int(r.integers(4, 14)), 2)); D = np.linalg.norm(P[:, None] - P[None], axis=-1)
    for eps in (0.4, 0.8, 1.5):
        T = greedy_cover(D, eps)
        assert T.tolist() == ref_cover(D, eps, range(len(D)))
        assert D[:, T].min(1).max() <= eps
        off = D[np.ix_(T, T)][~np.eye(len(T), dtype=bool)]
        assert off.size == 0 or off.min() > eps
        assert len(T) >= _min_cover(D, eps)

@pytest.mark.parametrize('density', [0.03, 0.3, 0.9])
def test_sparse_and_dense_bookkeeping_agree_with_reference(density):
    from hdbo_nb.chaining import _greedy_dense, _greedy_csr, _csr
    r = np.random.default_rng(int(density * 100))
    for _ in range(5):
        n = 60
        B = r.random((n, n)) < density; B = B | B.T; np.fill_diagonal(B, True)
        D = np.where(B, 0.5, 2.); np.fill_diagonal(D, 0)
        ref = ref_cover(D, 1., range(n))
        assert _greedy_dense(B) == ref
        rr, cc = np.nonzero(B)
        assert _greedy_csr(n, *_csr(n, rr, cc), np.ones(n, dtype=bool)) == ref

def test_cover_subset_pairs_and_errors():
    r = np.random.default_rng(3)
    P = r.uniform(0, 10, (300, 2)); D = np.linalg.norm(P[:, None] - P[None], axis=-1)
    sub = np.flatnonzero(P[:, 1] < 5)
    assert greedy_cover(D, 0.9, sub).tolist() == ref_cover(D, 0.9, sub.tolist())
    rows, cols = np.nonzero(D <= 2.)
    assert greedy_cover((300, rows, cols, D[rows, cols]), 0.9).tolist() == greedy_cover(D, 0.9).tolist()
    with pytest.raises(ValueError, match='square'): greedy_cover(D[:5], 1.)
    with pytest.raises(ValueError, match='eps'): greedy_cover(D, -1.)

def test_nested_covers_exact_ties():
    "Distances exactly equal to eps_i (a grid with step 1/4): d(x, T) = eps_i counts as covered."
    x = 0.25 * np.arange(23)
    D = np.abs(x[:, None] - x[None])
    assert [T.tolist() for T in nested_covers(D**2, 4)] == ref_nested(D, 4)

def test_nested_covers_nested_and_valid():
    r = np.random.default_rng(4)
    X = r.uniform(0, 8, (200, 2)); D2 = canonical_dist2(SE(1.)(X), np.float64)
    T = nested_covers(D2, 6)
    for i in range(1, 6):
        assert set(T[i - 1]) <= set(T[i])
        assert np.sqrt(D2[:, T[i]].min(1)).max() <= 2.0 ** (-i) + 1e-12

def test_pairs_path_equals_dense_path():
    "The score's covers from the pairs within eps_1 equal those from the dense matrix, ties and subsets included."
    r = np.random.default_rng(5)
    for side, dens in ((25., 0.1), (10., 1.), (4., 1.)):
        post = CandidatePosterior(SE(1.)(r.uniform(0, side, (500, 2))), 0.05**2)
        for j in r.choice(500, 20, replace=False): post.add(int(j), r.standard_normal())
        for dt in (np.float32, np.float64):
            P = canonical_pairs(post.cov, dtype=dt, block=37, max_density=dens)
            assert np.all(np.diff(P[1]) >= 0) and P[3].max() <= 1
            D2 = canonical_dist2(post.cov, dt)
            assert [T.tolist() for T in nested_covers(P, 8)] == [T.tolist() for T in nested_covers(D2, 8)]
    x = 0.25 * np.arange(23); D = np.abs(x[:, None] - x[None]) ** 2             # exact ties at eps_i
    rows, cols = np.nonzero(D <= 1)
    assert [T.tolist() for T in nested_covers((23, rows, cols, D[rows, cols]), 4)] == ref_nested(np.sqrt(D), 4)
    assert canonical_pairs(np.ones((40, 40))) is None                          # everything within reach: dense
    with pytest.raises(ValueError, match='within eps_1'): nested_covers((23, rows, cols, D[rows, cols] + 1), 2)

def test_se_sample_cube():
    from hdbo_nb.chaining import se_sample_cube
    p = se_sample_cube(N=50, dim=1, side=20., seed=3)
    assert p.domain.features.shape == (50, 1) and p.name == 'se-cube-N50-D1'
    q = se_sample_cube(N=50, dim=1, side=20., seed=3)
    assert np.array_equal(p.domain.features, q.domain.features) and p.f_opt == q.f_opt
    with pytest.raises(ValueError, match='dim'): se_sample_cube(N=10, dim=0, side=1.)

# ---------------------------------------------------------------- constants and reductions
def test_hand_computed_values():
    assert abs(h_value(0.5, 3, 2, 1) - 1.8390) < 1e-4
    assert abs(h_value(0.25, 100, 3, 50) - 1.5259) < 1e-4
    assert abs(math.sqrt(beta_srinivas_finite(1, 10_000, 0.05)) - 5.0406) < 1e-4
    assert [n_levels(s) for s in (1., 0.5, 0.49, 0.05)] == [1, 2, 3, 6]
    b = chaining_bonus(np.array([0.05, 0.2, 0.3, 0.6, 1.0]), [9., 4., 2., 1., 0.5, 0.25], 0.05)
    assert b.tolist() == [0., 1. + 0.5, 2. + 1. + 0.5, 4. + 2. + 1. + 0.5, 4. + 2. + 1. + 0.5]   # eps_6 < sigma_min, eps_1 = sigma

def test_bonus_level_at_sigma_min():
    "Algorithm 1's sum runs over sigma_min <= eps_i < sigma(x): a level whose eps_i equals sigma_min counts."
    b = chaining_bonus(np.array([0.25, 0.3, 0.5, 0.6]), [9., 4., 2., 1.], 0.25)
    assert b.tolist() == [0., 2., 2., 4. + 2.]
    from hdbo_nb.chaining import active_levels            # the same range: eps_2 = 1/2 and eps_3 = 1/4 = sigma_min separate
    assert active_levels(np.array([0.25, 0.3, 0.5, 0.6]), 0.25, 4) == 2 and active_levels(np.array([0.3, 1.]), 0.3, 3) == 1

def test_reductions():
    opt = ChainingUCB(np.array([[-0.5, 29.5]]), rng=0, domain=Finite(gram=np.eye(30)), noise_std=0.05, n_init=0)
    opt.ask(); assert len(opt.last['T'][0]) == 30
    opt = ChainingUCB(np.array([[-0.5, 29.5]]), rng=0, domain=Finite(gram=np.ones((30, 30))), noise_std=0.05, n_init=1)
    x = opt.ask(); opt.tell(x, 0.); opt.ask()
    assert all(len(T) == 1 for T in opt.last['T'])

def test_t_counts_iterations_from_one():
    p = small_problem(N=60, seed=7)
    tr = optimize(p, 'chaining-ucb', budget=14, rng=0, dtype='float64')
    d = tr.diagnostics
    for k in range(10, 14):
        L = int(d['n_levels'][k])
        assert abs(d[f'H_{L}'][k] - h_value(2.0 ** (1 - L), int(d[f'T_{L}'][k]), L, k - 9)) < 1e-12
    tr2 = optimize(p, 'gp-ucb-finite', budget=12, rng=0)
    assert abs(tr2.diagnostics['beta_t'][10] - beta_srinivas_finite(1, 60, 0.05)) < 1e-12

def test_determinism_logging_and_errors():
    p = chaining_se(N=150, seed=2)
    t1, t2 = (optimize(p, 'chaining-ucb', budget=15, rng=3) for _ in range(2))
    assert np.array_equal(t1.X, t2.X) and np.array_equal(t1.y, t2.y)
    d = t1.diagnostics
    for k in ('n_levels', 'sigma_min', 'T_1', 'H_1', 'step_time', 'bonus', 'cover_acts', 'active_levels'): assert np.isfinite(d[k][10:]).all()
    assert METHODS['chaining-ucb'] is ChainingUCB
    with pytest.raises(ValueError, match='h_scale'): optimize(p, 'chaining-ucb', budget=12, rng=0, h_scale='x')
    from hdbo_nb.functions import get_problem
    with pytest.raises(ValueError, match='finite problems only'): optimize(get_problem('branin'), 'chaining-ucb', 12, rng=0)

def test_problems():
    for n in CHAINING_PROBLEMS:
        p = chaining_problem(n, N=200, seed=1)
        K = p.domain.gram
        assert K.shape == (200, 200) and np.all(np.abs(np.diag(K) - 1) < 1e-9) and p.noise_std == 0.05
        assert p.f_opt == p.values.max()
        assert np.array_equal(chaining_problem(n, N=200, seed=1).values, p.values)
    with pytest.raises(ValueError, match='unknown problem'): chaining_problem('nope')

# ---------------------------------------------------------------- the claims scorecard
CLAIM_KEYS = {'fig1-staircase', 'fig2-se', 'fig2-himmelblau', 'fig2-graphs', 'fig2-covers-act', 'large-design',
              'covering-numbers', 'chaining-vs-union', 'theorem1-runs', 'a3-constants', 'a2-lemma', 'h-scale', 'a1-path',
              'greedy-approx', 'corollary1-rates', 'sigma-sum'}

def test_claims_give_verdicts_on_the_cache(scorecard):
    "Every registered Chaining-UCB claim evaluates to a verdict (not an error) on the committed results cache."
    from hdbo_nb.claims import VERDICTS
    from conftest import paper_results
    rs = paper_results(scorecard, 'chaining')
    assert CLAIM_KEYS <= {r.claim.key for r in rs}
    assert all(r.measurement is not None for r in rs), [(r.claim.id, r.error) for r in rs if r.error]
    assert all(r.verdict in VERDICTS and r.measurement.value for r in rs)
    kinds = {r.claim.key: r.claim.kind for r in rs}
    assert {k for k, v in kinds.items() if v == 'erratum'} == {'a3-constants', 'a2-lemma', 'h-scale', 'a1-path'}
    assert {k for k, v in kinds.items() if v == 'arithmetic'} == {'fig1-staircase'}
