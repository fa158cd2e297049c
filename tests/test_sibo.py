"""SI-BO (Djolonga, Krause & Cevher 2013): the operator, the Dantzig selector, the subspace, and SI-BO's steps against
a direct implementation written here from the paper's equations."""
import math
import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor
from sklearn.gaussian_process.kernels import Matern as SkMatern
from hdbo_nb.core import Problem
from hdbo_nb.bo import optimize
from hdbo_nb.sibo import (si_design, si_points, si_measurements, A_op, A_adj, dantzig_selector, matrix_lasso, subspace_from,
                          cos_theta, random_subspace, lambda_paper, lambda_noise, lambda_practical, learn_subspace, nuclear_norm,
                          spectral_norm, sigma_hat,
                          sibo_gp_problem, gabor_problem, z_grid, ball, SIBO, ExactUCB, RandomHUCB, GridPosterior)
from hdbo_nb.gp import GP, Matern


def quadratic(d, k, rng):
    A = random_subspace(k, d, rng)
    H = np.array([[2., .5, 0.], [.5, -1., .3], [0., .3, 1.5]])[:k, :k]
    b = np.array([1., -2., .5])[:k]
    g = lambda U: 0.5 * np.einsum('ni,ij,nj->n', U, H, U) + U @ b
    grad = lambda Xc: A.T @ (H @ (A @ Xc.T) + b[:, None])       # X = [grad f(xi_j)]_j, (d, m_X)
    return A, H, g, grad


# ---------------------------------------------------------------- the operator and Eq. 1
def test_adjoint_and_isometry():
    _, Phi = si_design(50, 4, 300, rng=0)
    rng = np.random.default_rng(1)
    M, v = rng.standard_normal((50, 4)), rng.standard_normal(300)
    assert abs(A_op(Phi, M) @ v - np.sum(M * A_adj(Phi, v))) < 1e-12 * np.abs(A_op(Phi, M) @ v).max() * 300
    np.testing.assert_allclose(np.abs(Phi), 1 / math.sqrt(300), rtol=1e-14)   # entries +-1/sqrt(m_Phi), not 1/sqrt(m_X)
    r = np.mean([np.sum(A_op(si_design(50, 4, 300, rng=s)[1], M) ** 2) for s in range(40)]) / np.sum(M ** 2)
    assert abs(r - 1) < 0.05


def test_measurements_match_a_direct_loop():
    "Eq. 1 written as a loop over measurements i and centres j."
    d, mX, mPhi, eps = 12, 3, 20, 0.07
    A, H, g, grad = quadratic(d, 2, 0)
    f = lambda x: float(g((A @ x)[None])[0])
    xi, Phi = si_design(d, mX, mPhi, rng=3)
    y_ref = np.array([sum((f(xi[j] + eps * Phi[i, :, j]) - f(xi[j])) / eps for j in range(mX)) for i in range(mPhi)])
    y = si_measurements(g(si_points(xi, Phi, eps) @ A.T), mX, eps)
    np.testing.assert_allclose(y, y_ref, rtol=1e-12, atol=1e-12)


def test_quadratic_curvature_identity():
    d, k, mX, mPhi, eps = 40, 3, 5, 150, 0.1
    A, H, g, grad = quadratic(d, k, 2)
    xi, Phi = si_design(d, mX, mPhi, rng=4)
    y = si_measurements(g(si_points(xi, Phi, eps) @ A.T), mX, eps)
    curv = 0.5 * eps * np.einsum('idj,de,iej->i', Phi, A.T @ H @ A, Phi)
    np.testing.assert_allclose(y - A_op(Phi, grad(xi)), curv, atol=1e-10)


# ---------------------------------------------------------------- the Dantzig selector (Eq. 2)
def _instance(d=100, k=2, mX=5, mPhi=500, eps=1e-3, sigma=0., seed=0):
    A, H, g, grad = quadratic(d, k, seed)
    xi, Phi = si_design(d, mX, mPhi, rng=seed + 10)
    vals = g(si_points(xi, Phi, eps) @ A.T) + sigma * np.random.default_rng(seed).standard_normal(mX * (mPhi + 1))
    y = si_measurements(vals, mX, eps)
    X = grad(xi)
    return A, Phi, y, X


def test_noiseless_recovery():
    A, Phi, y, X = _instance()
    lam = 1.05 * spectral_norm(A_adj(Phi, y - A_op(Phi, X)))
    res = dantzig_selector(Phi, y, lam, full=True)
    assert res.converged and res.constraint <= lam * (1 + 1e-4)
    assert np.linalg.norm(res.X - X) / np.linalg.norm(X) < 1e-2
    assert cos_theta(A, subspace_from(res.X, 2)).min() > 0.999


def test_ds_optimality_certificates():
    "Feasible, below the Lasso's nuclear norm (the Lasso solution is feasible for the same lambda), duality gap small."
    A, Phi, y, X = _instance(d=40, mX=4, mPhi=200, eps=0.2, sigma=0.01, seed=1)
    lam = 0.5 * spectral_norm(A_adj(Phi, y))
    res = dantzig_selector(Phi, y, lam, full=True)
    L = matrix_lasso(Phi, y, lam)
    assert spectral_norm(A_adj(Phi, y - A_op(Phi, L))) <= lam * (1 + 1e-6)
    assert res.constraint <= lam * (1 + 1e-4)
    assert res.objective <= nuclear_norm(L) * (1 + 1e-3)
    assert -1e-12 <= res.gap < 1e-3, res


@pytest.mark.parametrize('seed', range(4))
def test_ds_answer_is_feasible(seed):
    "The reported X meets its constraint exactly (the ADMM's last iterate moved towards the exact fit), so its gap is >= 0."
    A, Phi, y, X = _instance(d=30, mX=3, mPhi=100, eps=0.3, sigma=0.01, seed=seed)
    for f in (0.3, 0.7):
        lam = f * spectral_norm(A_adj(Phi, y))
        res = dantzig_selector(Phi, y, lam, full=True, tol=1e-3)
        assert spectral_norm(A_adj(Phi, y - A_op(Phi, res.X))) <= lam * (1 + 1e-12) and res.constraint <= lam * (1 + 1e-12)
        assert res.gap >= -1e-9, res


def test_ds_against_cvxpy():
    cp = pytest.importorskip('cvxpy')
    A, Phi, y, X = _instance(d=30, mX=3, mPhi=150, eps=0.2, sigma=0.01, seed=2)
    lam = 0.4 * spectral_norm(A_adj(Phi, y))
    d, m = Phi.shape[1:]
    Amat = Phi.reshape(len(Phi), -1)
    M = cp.Variable((d, m))
    r = cp.reshape(Amat.T @ y - Amat.T @ (Amat @ cp.vec(M, order='C')), (d, m), order='C')
    prob = cp.Problem(cp.Minimize(cp.normNuc(M)), [cp.sigma_max(r) <= lam])
    prob.solve(solver='SCS', eps=1e-9, max_iters=200000)
    res = dantzig_selector(Phi, y, lam, full=True)
    assert abs(res.objective - prob.value) <= 1e-3 * prob.value


def test_ds_zero_when_lambda_covers_b_and_bad_input():
    A, Phi, y, X = _instance(d=20, mX=3, mPhi=60)
    lam = 1.0001 * spectral_norm(A_adj(Phi, y))
    assert not dantzig_selector(Phi, y, lam).any()
    assert dantzig_selector(Phi, y, 0.5 * lam).any()
    with pytest.raises(ValueError, match='non-finite'): dantzig_selector(Phi, np.r_[y[:-1], np.nan], lam)
    with pytest.raises(ValueError, match='lam'): dantzig_selector(Phi, y, -1.)
    with pytest.raises(ValueError, match='shape|must be'): dantzig_selector(Phi[0], y, 1.)


def test_subspace_uses_columns_of_U():
    rng = np.random.default_rng(5)
    U = np.linalg.qr(rng.standard_normal((30, 4)))[0]
    V = np.linalg.qr(rng.standard_normal((4, 4)))[0]
    Xh = U @ np.diag([5., 3., 1e-3, 1e-4]) @ V.T
    Ah = subspace_from(Xh, 2)
    np.testing.assert_allclose(np.abs(Ah @ U[:, :2]), np.eye(2), atol=1e-10)
    np.testing.assert_allclose(Ah @ Ah.T, np.eye(2), atol=1e-12)
    a = cos_theta(random_subspace(2, 400, 0), random_subspace(2, 400, 1))
    assert a.max() < 0.3                                          # O(sqrt(k/d)) for random subspaces


def test_lambda_rules():
    # Eq. 4 at hand-computed values: 1.2 (4 * 0.3 * 100 * 5 * 4 / (2 sqrt(500)) + sqrt(5 * 5 * 500) * 0.01 / 0.3)
    want = 1.2 * (4 * 0.3 * 100 * 5 * 4 / (2 * math.sqrt(500)) + math.sqrt(12500) * 0.01 / 0.3)
    assert abs(lambda_paper(0.3, 100, 5, 500, 2, 0.01) - want) < 1e-12
    assert abs(lambda_paper(0.3, 100, 5, 500, 2, 0.01, n_res=4) - 1.2 * (4 * 0.3 * 100 * 5 * 4 / (2 * math.sqrt(500))
                                                                           + math.sqrt(12500) * 0.005 / 0.3)) < 1e-12
    _, Phi = si_design(40, 3, 150, rng=0)
    l1, l2, l4 = (lambda_noise(Phi, 0.3, 0.01 * s, rng=7) for s in (1, 2, 4))
    assert abs(l2 / l1 - 2) < 1e-9 and abs(l4 / l1 - 4) < 1e-9
    assert abs(lambda_noise(Phi, 0.3, 0.01, n_res=4, rng=7) / l1 - 0.5) < 1e-9
    # the simulated quantile covers the actual noise term ~95% of the time
    rng = np.random.default_rng(0)
    cover = [spectral_norm(A_adj(Phi, ((0.01 * rng.standard_normal((150, 3))) - 0.01 * rng.standard_normal(3)).sum(1) / 0.3)) <= l1
             for _ in range(400)]
    assert 0.9 < np.mean(cover) <= 1.


def test_learn_subspace_noiseless():
    p = sibo_gp_problem(d=40, seed=3, noise_std=0.)
    r = learn_subspace(p.batch, 40, 2, 5, 250, 1e-3, rng=0)
    assert cos_theta(p.A, r['A_hat']).min() > 0.99


# ---------------------------------------------------------------- SI-BO's steps against a direct implementation
def _shifted_problem(d=12, k=2, noise=0.):
    "f(x) = g(A (x - c)) on a cube not centred at 0, so that a missing centring shows; with its gradient."
    A, H, g, grad = quadratic(d, k, 7)
    c, R = 0.3, 1.1
    f = lambda X: -g((np.atleast_2d(X) - c) @ A.T)
    p = Problem(f, np.tile([c - R, c + R], (d, 1)), noise_std=noise, vectorized=True, name='shifted quadratic')
    p.A, p.grad = A, lambda X: -grad(np.atleast_2d(X) - c).T
    return p, c, R


def _ref_adjoint(Phi, v):
    "A*(v) = sum_i v_i Phi_i, as a loop."
    out = np.zeros(Phi.shape[1:])
    for i in range(len(Phi)): out += v[i] * Phi[i]
    return out


def _ref_lambda(rule, Phi, y, eps, sigma, k, n_res, r, X, C2=4., frac=0.25):
    "lambda by each rule, written out from Sec. 3 (Eq. 4) and the package's documented practical rule."
    m_Phi, d, m_X = Phi.shape
    if rule == 'practical':   # 95 % quantile of ||A*(z)||_2 (noise of the n_res-averaged values) + k-typical curvature term
        s, v = sigma / math.sqrt(n_res), []
        for _ in range(200):
            nc, npt = s * r.standard_normal(m_X), s * r.standard_normal((m_Phi, m_X))
            v.append(np.linalg.norm(_ref_adjoint(Phi, (npt - nc).sum(1) / eps), 2))
        return (np.quantile(v, 0.95) if sigma > 0 else 0.) + 1.2 * eps * m_X * k * C2 / (2 * math.sqrt(m_Phi))
    if rule == 'paper':
        return 1.2 * (C2 * eps * d * m_X * k**2 / (2 * math.sqrt(m_Phi)) + math.sqrt(5 * m_X * m_Phi) * sigma / math.sqrt(n_res) / eps)
    if rule == 'oracle': return np.linalg.norm(_ref_adjoint(Phi, y - np.einsum('idj,dj->i', Phi, X)), 2)
    if rule == 'data': return frac * np.linalg.norm(_ref_adjoint(Phi, y), 2)
    return float(rule)


@pytest.mark.parametrize('noise, rule, n_res, eps', [(0., 1e-3, 1, 0.05), (0.02, 'practical', 1, 0.5), (0.02, 'oracle', 1, 0.5),
                                                    (0.02, 'data', 2, 0.5)])
def test_sibo_steps_match_reference(noise, rule, n_res, eps):
    """The SI points in order (each asked n_res times), the measurements from the averaged repeats, lambda by its rule
    with the known sigma, the subspace, and the first two GP-UCB steps (sklearn's GP with the noise variance sigma^2)."""
    d, k, mX, mPhi, eps_bar = 12, 2, 3, 40, 0.1
    p, c, R = _shifted_problem(d, k, noise)
    opt = SIBO(p.bounds, rng=11, k=k, m_X=mX, m_Phi=mPhi, eps=eps, lambda_rule=rule, n_res=n_res)
    opt.prepare_run(p, 10_000)
    # the reference design: same draws as the optimiser's (one si_design call on its generator)
    r = np.random.default_rng(11); r.integers(2**63)                # the optimiser's first draw seeds its noise
    xi, Phi = si_design(d, mX, mPhi, r)
    rad = R / (1 + eps_bar)
    pts = [c + rad * xi[j] for j in range(mX)] + [c + rad * xi[j] + eps * Phi[i, :, j] for i in range(mPhi) for j in range(mX)]
    told = np.zeros((n_res, len(pts)))
    noise_rng = np.random.default_rng(5)
    for t in range(len(pts) * n_res):
        x = opt.ask()
        np.testing.assert_allclose(x, pts[t % len(pts)], atol=1e-14)
        told[t // len(pts), t % len(pts)] = yv = p(x) + noise * noise_rng.standard_normal()
        opt.tell(x, yv)
    vals = told.mean(0)
    y = np.array([sum((vals[mX + i * mX + j] - vals[j]) / eps for j in range(mX)) for i in range(mPhi)])
    Xtrue = np.array([p.grad(pts[j])[0] for j in range(mX)]).T
    lam = _ref_lambda(rule, Phi, y, eps, noise, k, n_res, r, Xtrue)
    Xh = dantzig_selector(Phi, y, lam)
    Ah = np.linalg.svd(Xh)[0][:, :k].T
    # first GP-UCB step: sklearn's GP on the projected SI points, UCB on the disc grid, beta_1 of the finite-set rule
    Zd = (np.array(pts) - c) @ Ah.T
    alpha = max(noise ** 2, 1e-6)
    gpr = GaussianProcessRegressor(SkMatern(0.5, nu=2.5), alpha=alpha, optimizer=None, normalize_y=False).fit(Zd, vals)
    x = opt.ask()
    assert abs(opt.trace.meta['lam'] - lam) <= 1e-9 * lam and opt.trace.meta['x_hat_zero'] is False
    Ah_opt = np.array(opt.trace.meta['A_hat'])
    np.testing.assert_allclose(np.abs(np.sum(Ah_opt * Ah, 1)), 1., atol=1e-6)
    Ah = Ah * np.sign(np.sum(Ah_opt * Ah, 1))[:, None]           # singular vectors are defined up to sign
    assert abs(opt.post.gp.noise - alpha) <= 1e-12
    Z = z_grid(k, R)
    mu, sd = gpr.predict(Z, return_std=True)
    beta1 = 2 * math.log(len(Z) * 1 * math.pi ** 2 / (6 * 0.1))
    z = Z[np.argmax(mu + math.sqrt(beta1) * sd)]
    np.testing.assert_allclose(x, c + z @ Ah, atol=1e-6)
    assert abs(opt._pending[x.tobytes()]['beta_t'] - beta1) < 1e-10
    # the next step: the told value enters the GP, beta_2 grows
    y1 = p(x) + noise * noise_rng.standard_normal()
    opt.tell(x, y1)
    gpr.fit(np.vstack([Zd, (x - c) @ Ah.T]), np.r_[vals, y1])
    x2 = opt.ask()
    mu, sd = gpr.predict(Z, return_std=True)
    beta2 = 2 * math.log(len(Z) * 4 * math.pi ** 2 / (6 * 0.1))
    np.testing.assert_allclose(x2, c + Z[np.argmax(mu + math.sqrt(beta2) * sd)] @ Ah, atol=1e-6)


def test_randomh_steps_match_reference():
    "RandomH-UCB: fresh uniform candidates in the ball each step, the UCB's maximiser among them (sklearn's GP)."
    d, n, noise = 6, 50, 0.05
    p, c, R = _shifted_problem(d, 2, noise)
    opt = RandomHUCB(p.bounds, rng=3, n_candidates=n)
    opt.prepare_run(p, 100)
    r = np.random.default_rng(3); r.integers(2**63)
    X, Y, noise_rng = [], [], np.random.default_rng(0)
    for t in range(1, 7):
        G = r.standard_normal((n, d)); G /= np.linalg.norm(G, axis=1, keepdims=True)
        C = c + G * (R * r.random((n, 1)) ** (1 / d))
        if X:
            gpr = GaussianProcessRegressor(SkMatern(0.5, nu=2.5), alpha=noise ** 2, optimizer=None).fit(np.array(X) - c, Y)
            mu, sd = gpr.predict(C - c, return_std=True)
        else: mu, sd = np.zeros(n), np.ones(n)
        u = mu + math.sqrt(2 * math.log(n * t ** 2 * math.pi ** 2 / (6 * 0.1))) * sd
        x = opt.ask()
        np.testing.assert_allclose(x, C[np.argmax(u)], atol=1e-9)
        yv = p(x) + noise * noise_rng.standard_normal()
        opt.tell(x, yv); X.append(x); Y.append(yv)


def test_lambda_practical_curvature_term():
    "Without noise the practical lambda is its curvature term, 1.2 eps m_X k C2 / (2 sqrt(m_Phi)) (k, not k^2)."
    _, Phi = si_design(30, 4, 90, rng=0)
    for k, C2 in ((1, 4.), (2, 4.), (3, 7.)):
        assert abs(lambda_practical(Phi, 0.2, 0., k, C2) - 1.2 * 0.2 * 4 * k * C2 / (2 * math.sqrt(90))) < 1e-12


def test_x_hat_zero_is_said():
    "Eq. 4's lambda covers ||A*(y)||_2 here: X_hat = 0, a warning, the trace says so, and GP-UCB runs on a random subspace."
    p = sibo_gp_problem(d=20, seed=0)
    with pytest.warns(UserWarning, match='X_hat = 0'):
        tr = optimize(p, 'si-bo', 3 * 61 + 5, rng=0, m_X=3, m_Phi=60, lambda_rule='paper')
    assert tr.meta['x_hat_zero'] is True and tr.meta['lam_ratio'] >= 1 and tr.meta['x_hat_sv'][0] == 0
    tr = optimize(p, 'si-bo', 3 * 61 + 5, rng=0, m_X=3, m_Phi=60, lambda_rule='data')
    assert tr.meta['x_hat_zero'] is False and abs(tr.meta['lam_ratio'] - 0.25) < 1e-12


def test_sigma_hat():
    "Sec. 3's noise bound, and the option that gives it to the GP (T = the GP-UCB steps)."
    assert abs(sigma_hat(0.01, 1000, 0.1) - 0.01 * math.sqrt(2 * math.log(10) + 2 * math.log(1000) - math.log(2 * math.pi))) < 1e-15
    with pytest.raises(ValueError, match='sqrt'): sigma_hat(0.01, 1, 0.5)
    p = sibo_gp_problem(d=20, seed=0)
    opt = SIBO(p.bounds, rng=0, m_X=3, m_Phi=60, noise_var='sigma_hat')
    opt.prepare_run(p, 3 * 61 + 500)
    assert abs(opt.noise_var - sigma_hat(0.01, 500, 0.1) ** 2) < 1e-18 and opt.sigma == 0.01
    with pytest.raises(ValueError, match='noise_var'): SIBO(p.bounds, noise_var='sigma')


def test_budget_bookkeeping_and_trace():
    p = sibo_gp_problem(d=20, seed=0)
    for n_res in (1, 2):
        tr = optimize(p, 'si-bo', 3 * (60 + 1) * n_res + 25, rng=0, m_X=3, m_Phi=60, n_res=n_res)
        ph = tr.diagnostics['phase']
        assert (ph[:3 * 61 * n_res] == 0).all() and (ph[3 * 61 * n_res:] == 1).all() and len(tr) == 3 * 61 * n_res + 25
        assert np.isnan(tr.diagnostics['beta_t'][:3 * 61 * n_res]).all() and (np.diff(tr.diagnostics['beta_t'][3 * 61 * n_res:]) > 0).all()
        assert len(tr.meta['cos_theta']) == 2 and np.shape(tr.meta['A_hat']) == (2, 20)
    with pytest.raises(ValueError, match='budget'): optimize(p, 'si-bo', 3 * 61, rng=0, m_X=3, m_Phi=60)


def test_bad_options_and_tells():
    p = sibo_gp_problem(d=10, seed=0)
    with pytest.raises(ValueError, match='k must'): SIBO(p.bounds, k=0)
    with pytest.raises(ValueError, match='lambda_rule'): SIBO(p.bounds, lambda_rule='eq4')
    with pytest.raises(ValueError, match='true gradients'): optimize(Problem(p.f, p.bounds, noise_std=0.01, vectorized=True), 'si-bo', 70, rng=0, m_X=2, m_Phi=10, lambda_rule='oracle')
    with pytest.raises(ValueError, match='cube'): SIBO(np.array([[0, 1.], [0, 2.]]), k=1)
    with pytest.raises(ValueError, match='eps'): SIBO(p.bounds, eps=0)
    opt = SIBO(p.bounds, rng=0, m_X=2, m_Phi=10)
    with pytest.raises(ValueError, match='SI points'): opt.tell(np.zeros(10), 0.)
    with pytest.raises(ValueError, match='true subspace'): optimize(Problem(lambda x: 0., np.tile([-1, 1.], (3, 1))), 'exact-ucb', 5)


def test_grid_posterior_matches_gp():
    gp = GP(Matern(2.5, 0.5), noise=1e-4, normalize_y=False)
    Z = z_grid(2, 1.1, 15)
    post = GridPosterior(gp, Z)
    X = ball(40, 2, 1.1, rng=0)
    for x in X: post.add(x, np.cos(2 * x[0]) * x[1])
    post.add(X[3], 0.2)                                           # a repeated input
    mu, sd = post.mean_std()
    skl = GaussianProcessRegressor(SkMatern(0.5, nu=2.5), alpha=1e-4, optimizer=None).fit(np.vstack([X, X[3]]),
                                                                                        np.r_[np.cos(2 * X[:, 0]) * X[:, 1], 0.2])
    m2, s2 = skl.predict(Z, return_std=True)
    np.testing.assert_allclose(mu, m2, atol=1e-8); np.testing.assert_allclose(sd, s2, atol=1e-7)


def test_problems_and_exact_ucb():
    p = sibo_gp_problem(d=30, seed=2)
    assert abs(p(p.x_opt) - 1) < 1e-9 and p.batch(ball(5000, 30, 1.1, rng=1)).max() <= 1 + 1e-9
    assert p.batch(np.full((1, 30), 5.)).max() <= 1 + 1e-9          # outside the ball: the radial projection
    q = gabor_problem(size=9)
    assert abs(q(q.x_opt) - 1) < 1e-12 and q.dim == 81
    tr = optimize(sibo_gp_problem(d=30, seed=2, noise_std=0.), 'exact-ucb', 300, rng=0)
    assert tr.simple_regret()[-1] < 0.01


def test_determinism():
    p = sibo_gp_problem(d=15, seed=1)
    a, b = (optimize(p, 'si-bo', 3 * 41 + 10, rng=4, m_X=3, m_Phi=40) for _ in range(2))
    np.testing.assert_array_equal(a.X, b.X); np.testing.assert_array_equal(a.y, b.y)


def test_si_points_scale_with_the_domain():
    "Centres on the sphere of radius R / (1 + eps_bar) about the cube's centre; every SI point inside the domain."
    q = gabor_problem(size=7)                                       # the cube [0, 1]^49: c = 0.5, R = 0.5
    opt = SIBO(q.bounds, rng=0, k=1, m_X=2, m_Phi=30, eps=0.05)
    np.testing.assert_allclose(np.linalg.norm(opt.si_X[:2] - 0.5, axis=1), 0.5 / 1.1, rtol=1e-12)
    assert (np.linalg.norm(opt.si_X - 0.5, axis=1) <= 0.5).all()
    np.testing.assert_allclose(opt.si_X[2:4] - opt.si_X[:2], 0.05 * opt.Phi[0].T, atol=1e-14)   # xi_j + eps phi_{1,j}


def test_coinciding_si_points_are_each_told():
    "At small d two sign vectors of one centre can coincide; each copy is asked and told once and SI-BO goes on to GP-UCB."
    from hdbo_nb.sibo import SIBO
    p = sibo_gp_problem(d=8, seed=0)
    opt = SIBO(p.bounds, rng=7, m_X=3, m_Phi=20)
    assert len({x.tobytes() for x in opt.si_X}) < len(opt.si_X)  # the instance has coinciding points
    t = optimize(p, 'si-bo', budget=80, rng=7, m_X=3, m_Phi=20)
    assert len(t) == 80 and np.all(np.isfinite(t.y))


def test_final_stats_keys_by_problem_and_method():
    "One method on two problems: two entries, not one overwriting the other."
    from hdbo_nb.core import Trace
    from hdbo_nb.sibo_experiments import final_stats
    def tr(vals):
        t = Trace(1, dict(f_opt=1.))
        for v in vals: t.add([0.], v, v)
        return t
    st = final_stats({('M', 'P1'): [tr([0.1, 0.5]), tr([0.2, 0.9])], ('M', 'P2'): [tr([0.3, 0.4]), tr([0.3, 0.4])]})
    assert set(st) == {('P1', 'M'), ('P2', 'M')}
    assert abs(st[('P1', 'M')]['S'] - 0.3) < 1e-12 and abs(st[('P2', 'M')]['S'] - 0.6) < 1e-12 and st[('P1', 'M')]['n'] == 2
