"Benchmark functions: known optima, no better value found numerically, rescale/embed properties, GP sample paths."
import warnings
import numpy as np, pytest
from hdbo_nb.core import uniform
from hdbo_nb.gp import Matern, SE
from hdbo_nb.functions import (PROBLEMS, get_problem, list_problems, rescale, embed, numerical_max, random_rotation,
                               gp_sample_problem, RFFSample, _preimage, problem_table)

# every registered problem, and the dimension-generic ones at several dimensions
CASES = [(n, None) for n in list_problems()]
CASES += [(n, d) for n in list_problems() if PROBLEMS[n].dim is None and n != 'augmented-camelback' for d in (3, 5)]
CASES += [('michalewicz', 10), ('ackley', 10), ('levy', 10), ('augmented-camelback', 6)]

@pytest.mark.parametrize('name,dim', CASES)
def test_optimum(name, dim):
    "f(x*) = f*, and nothing better among 10^4 random points with the best 20 polished by L-BFGS-B."
    p = get_problem(name, dim=dim)
    assert p.f_opt is not None and p.x_opts is not None
    np.testing.assert_allclose(p.batch(p.x_opts), p.f_opt, rtol=1e-12, atol=1e-12)
    assert np.all(p.x_opts >= p.bounds[:, 0]) and np.all(p.x_opts <= p.bounds[:, 1])
    for seed in (0, 1):
        x, v = numerical_max(p.batch, p.bounds, n_search=10_000, n_polish=20, rng=seed)
        assert v <= p.f_opt + 1e-6, (name, dim, v - p.f_opt, x)
        assert np.isclose(p(x), v)

# published values (BoTorch synthetic.py / SFU library), maximisation convention f = -g
PUBLISHED = [('branin', None, -0.397887, [[-np.pi, 12.275], [np.pi, 2.275], [9.42478, 2.475]], 1e-6),
             ('camelback', None, 1.0316, [[0.0898, -0.7126], [-0.0898, 0.7126]], 1e-4),
             ('hartmann3', None, 3.86278, [[0.114614, 0.555649, 0.852547]], 1e-5),
             ('hartmann6', None, 3.32237, [[0.20169, 0.150011, 0.476874, 0.275332, 0.311652, 0.6573]], 1e-5),
             ('ackley', 4, 0., [[0] * 4], 1e-12), ('levy', 4, 0., [[1] * 4], 1e-12),
             ('rosenbrock', 4, 0., [[1] * 4], 1e-12), ('rastrigin', 4, 0., [[0] * 4], 1e-12),
             ('hyper-ellipsoid', 4, 0., [[0] * 4], 1e-12),
             ('styblinski-tang', 3, 3 * 39.166166, [[-2.903534] * 3], 1e-5),
             ('schwefel', 3, -3 * 1.2728e-5, [[420.9687] * 3], 1e-8),
             ('shekel5', None, 10.1532, [[4] * 4], 1e-4), ('shekel7', None, 10.4029, [[4] * 4], 1e-4),
             ('shekel10', None, 10.536443, [[4] * 4], 1e-6),
             ('michalewicz', 2, 1.80130341, [[2.20290552, 1.57079633]], 1e-8),
             ('michalewicz', 5, 4.687658, None, 1e-6), ('michalewicz', 10, 9.66015, None, 1e-5)]

@pytest.mark.parametrize('name,dim,f_opt,x_opt,tol', PUBLISHED)
def test_published(name, dim, f_opt, x_opt, tol):
    p = get_problem(name, dim=dim)
    assert abs(p.f_opt - f_opt) <= tol, (p.f_opt, f_opt)
    if x_opt is not None:
        np.testing.assert_allclose(p.x_opts, x_opt, atol=1e-3 if 'shekel' in name else 1e-4)

def test_michalewicz_published_location():
    # d = 5 and 10 minimisers as listed in the literature (separable, so a prefix of the d = 10 one is the d = 5 one)
    x10 = [2.202906, 1.570796, 1.284992, 1.923058, 1.720470, 1.570796, 1.454414, 1.756087, 1.655717, 1.570796]
    np.testing.assert_allclose(get_problem('michalewicz', dim=10).x_opt, x10, atol=2e-6)
    np.testing.assert_allclose(get_problem('michalewicz', dim=5).x_opt, x10[:5], atol=2e-6)

def test_formulas_against_reference_points():
    "A few values computed by hand from the reference formulas."
    test = lambda n, x, v, d=None: np.testing.assert_allclose(get_problem(n, dim=d)(np.array(x, float)), v, rtol=1e-10)
    test('branin', [0, 0], -(36 + 10 * (1 - 1 / (8 * np.pi)) + 10))
    test('camelback', [1, 1], -((4 - 2.1 + 1 / 3) + 1 + 0))
    test('rosenbrock', [0, 0, 0], -2., 3)
    test('rastrigin', [0.5, 0.5], -(20 + 2 * (0.25 + 10)), 2)
    test('hyper-ellipsoid', [1, 2, 3], -(1 + (1 + 4) + (1 + 4 + 9)), 3)
    test('styblinski-tang', [1, -1], -0.5 * ((1 - 16 + 5) + (1 - 16 - 5)), 2)
    test('schwefel', [0, 0], -2 * 418.9829, 2)
    test('ackley', [1, 1], -(20 * (1 - np.exp(-0.2)) + np.e - np.exp(1)), 2)
    # Hartmann-3 at the centre: -g = sum_i alpha_i exp(-sum_j A_ij (0.5 - P_ij)^2)
    A = np.array([[3, 10, 30], [0.1, 10, 35], [3, 10, 30], [0.1, 10, 35]])
    P = 1e-4 * np.array([[3689, 1170, 2673], [4699, 4387, 7470], [1091, 8732, 5547], [381, 5743, 8828]])
    test('hartmann3', [0.5] * 3, np.dot([1, 1.2, 3, 3.2], np.exp(-(A * (0.5 - P)**2).sum(1))))

def test_fixed_dim_and_names():
    for n in ['branin', 'camelback', 'hartmann3', 'hartmann6', 'shekel5']:
        with pytest.raises(ValueError, match='-dimensional, got dim'): get_problem(n, dim=PROBLEMS[n].dim + 1)
        assert get_problem(n, dim=PROBLEMS[n].dim).dim == PROBLEMS[n].dim
    with pytest.raises(ValueError, match="did you mean 'schwefel'"): get_problem('schwefl')
    with pytest.raises(ValueError, match='known problems'): get_problem('zzzzzz')
    with pytest.raises(TypeError, match='string'): get_problem(3)
    with pytest.raises(ValueError, match='dim >= 1'): get_problem('ackley', dim=0)
    with pytest.raises(ValueError, match='M must be 5, 7 or 10'):
        from hdbo_nb.functions import shekel; shekel(np.zeros((1, 4)), M=6)
    with pytest.raises(ValueError, match='4 columns'): get_problem('shekel').f(np.zeros((2, 3)))
    with pytest.raises(ValueError, match='only apply with embed_dim'): get_problem('ackley', rotate=True)
    assert get_problem('SHEKEL').name == 'shekel10' and get_problem('hart6').name == 'hartmann6'
    assert get_problem('ackley', dim=3, noise_std=0.5).noise_std == 0.5
    assert 'hartmann6' in problem_table()

@pytest.mark.parametrize('name', list_problems())
@pytest.mark.parametrize('to', [(-1, 1), (0, 1)])
def test_rescale(name, to):
    p = get_problem(name, dim=4 if PROBLEMS[name].dim is None else None)
    r = rescale(p, to)
    assert np.all(r.bounds == np.array(to, float)) and r.f_opt == p.f_opt and r.noise_std == p.noise_std
    np.testing.assert_allclose(r.batch(r.x_opts), p.f_opt, rtol=1e-10, atol=1e-10)
    U = uniform(r.bounds, 200, rng=0)
    np.testing.assert_allclose(r.batch(U), p.batch(r.to_base(U)), rtol=1e-12)
    np.testing.assert_allclose(r.from_base(r.to_base(U)), U, atol=1e-12)
    assert get_problem(name, dim=4 if PROBLEMS[name].dim is None else None, rescale_to=to).f_opt == p.f_opt

def test_embed_axis_aligned():
    h = get_problem('hartmann3')
    e = embed(h, 12, active=[11, 0, 5])
    assert e.dim == 12 and np.all(e.bounds == [0, 1]) and e.f_opt == h.f_opt
    np.testing.assert_allclose(e(e.x_opt), h.f_opt, rtol=1e-14)
    np.testing.assert_array_equal(e.x_opt[[11, 0, 5]], h.x_opt)
    X = uniform(e.bounds, 500, rng=1)
    np.testing.assert_array_equal(e.batch(X), h.batch(X[:, [11, 0, 5]]))
    Y = uniform(e.bounds, 500, rng=2); Y[:, [11, 0, 5]] = X[:, [11, 0, 5]]
    np.testing.assert_array_equal(e.batch(X), e.batch(Y))  # inactive coordinates do not matter
    r = embed(h, 12, active='random', rng=4)
    assert len(set(r.active.tolist())) == 3 and np.all(np.diff(r.active) > 0)
    assert embed(get_problem('branin'), 5, inactive_bounds=(0, 2)).bounds[4].tolist() == [0, 2]
    with pytest.raises(ValueError, match='distinct integer'): embed(h, 12, active=[0, 1])
    with pytest.raises(ValueError, match='distinct integer'): embed(h, 12, active=[0, 1, 12])
    with pytest.raises(ValueError, match="'random'"): embed(h, 12, active='first')
    with pytest.raises(ValueError, match='D must be an integer'): embed(h, 2.5)
    # augmented camelback, first two coordinates active (MS-UCB's harder z-part case) and the last two
    for D in (20, 50, 100):
        a = get_problem('augmented-camelback', dim=D, rescale_to=(-1, 1))
        assert a.dim == D and np.all(a.bounds == [-1, 1])
        np.testing.assert_allclose(a.batch(a.x_opts), 1.0316284534898774, rtol=1e-12)
    b = get_problem('augmented-camelback', dim=20, active=[18, 19], rescale_to=(-1, 1))
    np.testing.assert_allclose(b.x_opts[:, 18:], [[0.0299473, -0.3563282], [-0.0299473, 0.3563282]], atol=1e-6)

@pytest.mark.parametrize('name,D', [('hartmann6', 30), ('branin', 10), ('camelback', 100), ('ackley', 40),
                                    ('hartmann3', 3)])
def test_embed_rotated(name, D):
    p = get_problem(name, dim=5 if name == 'ackley' else None)
    e = embed(p, D, rotate=True, rng=7)
    Q = e.rotation
    assert Q.shape == (D, p.dim) and np.allclose(Q.T @ Q, np.eye(p.dim), atol=1e-12)
    assert e.f_opt == p.f_opt and np.all(e.bounds == [-1, 1])          # rotation preserves f*
    np.testing.assert_allclose(e.batch(e.x_opts), p.f_opt, rtol=1e-9, atol=1e-9)
    x, v = numerical_max(e.batch, e.bounds, n_search=5000, n_polish=5, rng=0)
    assert v <= e.f_opt + 1e-9
    # moving along the null space of Q^T changes nothing
    if D > p.dim:
        X = 0.5 * uniform(e.bounds, 300, rng=1)
        Y = X + 0.4 * uniform(e.bounds, 300, rng=2) @ (np.eye(D) - Q @ Q.T)
        np.testing.assert_allclose(e.batch(X), e.batch(Y), rtol=1e-12, atol=1e-12)
    assert np.array_equal(embed(p, D, rotate=True, rng=7).rotation, Q)  # same seed, same rotation

def test_rotation_moves_optimum_out():
    "D = d: the preimage is unique; if it leaves the box, f_opt becomes None with a warning."
    p = rescale(get_problem('schwefel', dim=2), (-1, 1))   # maximiser near the corner (0.84, 0.84)
    seen_none = seen_ok = False
    for seed in range(40):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter('always')
            e = embed(p, 2, rotate=True, rng=seed)
        if e.f_opt is None:
            seen_none = True; assert e.x_opts is None and any('out of' in str(x.message) for x in w)
            assert e.batch(uniform(e.bounds, 2000, rng=0)).max() < p.f_opt
        else:
            seen_ok = True; np.testing.assert_allclose(e(e.x_opt), p.f_opt, rtol=0, atol=1e-9)
    assert seen_none and seen_ok
    # the linear program finds a preimage when the minimum-norm one is outside the box
    Q = np.array([[0.96, 0], [0.28, 0], [0, 1]]); u = np.array([1.1, 0.])
    assert np.abs(Q @ u).max() > 1                           # minimum-norm preimage (1.056, 0.308, 0) is outside
    x = _preimage(Q, u)
    assert x is not None and np.abs(x).max() <= 1 and np.allclose(Q.T @ x, u, atol=1e-9)
    assert _preimage(np.eye(2), np.array([0.5, 1.5])) is None

def test_random_rotation_haar():
    Qs = np.stack([random_rotation(4, 2, rng=s) for s in range(4000)])
    np.testing.assert_allclose(Qs.mean(0), 0, atol=0.04)
    np.testing.assert_allclose((Qs**2).mean(0), 0.25, atol=0.02)
    with pytest.raises(ValueError, match='0 < d <= D'): random_rotation(2, 3)

@pytest.mark.parametrize('kernel', [SE(0.4, 1.5), Matern(1.5, 0.4), Matern(2.5, [0.3, 0.6], 2.0)])
def test_rff_covariance(kernel):
    "Empirical covariance of RFF sample paths over many draws matches the kernel."
    Xq = np.array([[0., 0.], [0.1, 0.05], [0.3, -0.2], [0.6, 0.4], [1.5, 1.5]])
    F = np.stack([RFFSample(kernel, 2, 300, rng=s)(Xq) for s in range(4000)])
    K = kernel(Xq)
    np.testing.assert_allclose(F.mean(0), 0, atol=4 * np.sqrt(kernel.variance / 4000))
    se = np.sqrt((K**2 + np.outer(np.diag(K), np.diag(K))) / 4000)  # std error of an empirical covariance
    assert np.all(np.abs(F.T @ F / len(F) - K) < 5 * se + 0.01), (F.T @ F / len(F), K)

def test_rff_gradient_and_optimum():
    p = gp_sample_problem(Matern(2.5, 0.15), dim=2, n_features=800, rng=3)
    s, X, h = p.sample, uniform(p.bounds, 10, rng=0), 1e-6
    fd = np.stack([(s(X + h * e) - s(X - h * e)) / (2 * h) for e in np.eye(2)], 1)
    np.testing.assert_allclose(s.grad(X), fd, rtol=1e-5, atol=1e-7)
    dense = p.batch(uniform(p.bounds, 50_000, rng=1)).max()
    assert p.f_opt >= dense - 1e-12 and np.isclose(p(p.x_opt), p.f_opt)
    g = gp_sample_problem(SE(0.1), dim=1, n_features=500, rng=4)
    grid = g.batch(np.linspace(0, 1, 100_001)[:, None]).max()
    assert g.f_opt >= grid - 1e-12 and g.f_opt - grid < 1e-6
    q = gp_sample_problem(Matern(2.5, 0.15), dim=2, n_features=800, rng=3)
    assert q.f_opt == p.f_opt and np.array_equal(q.sample.omega, p.sample.omega)   # same seed, same function

def test_exact_sample():
    k = Matern(1.5, 0.3)
    Xc = np.linspace(0, 1, 6)[:, None]
    F = np.stack([gp_sample_problem(k, dim=1, method='exact', candidates=Xc, rng=s).values for s in range(4000)])
    K = k(Xc)
    assert np.all(np.abs(F.T @ F / len(F) - K) < 5 * np.sqrt((K**2 + 1) / 4000) + 0.01)
    p = gp_sample_problem(k, dim=2, method='exact', candidates=300, rng=0)
    assert p.candidates.shape == (300, 2) and p.f_opt == p.values.max()
    X = uniform(p.bounds, 1000, rng=1)
    nearest = np.argmin(((X[:, None] - p.candidates[None])**2).sum(-1), 1)
    np.testing.assert_array_equal(p.batch(X), p.values[nearest])
    assert p.batch(X).max() <= p.f_opt
    # duplicated candidates need jitter but work
    d = gp_sample_problem(k, dim=1, method='exact', candidates=np.r_[Xc, Xc], rng=0)
    assert d.jitter > 0 and np.allclose(d.values[:6], d.values[6:], atol=1e-3)
    with pytest.raises(ValueError, match='inside bounds'):
        gp_sample_problem(k, dim=1, method='exact', candidates=Xc + 2, bounds=[[0, 1]])
    with pytest.raises(ValueError, match='positive number'): gp_sample_problem(k, dim=1, method='exact', candidates=0)
    with pytest.raises(TypeError, match='Kernel'): gp_sample_problem('matern', dim=1)
