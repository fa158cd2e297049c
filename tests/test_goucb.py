"GO-UCB (Liu & Wang 2023): a reference round computed directly, Eq. (5), the optima, random search's regret, presets."
import math
import numpy as np, pytest
from scipy.special import expit
from hdbo_nb.core import Problem
from hdbo_nb.bo import METHODS, optimize
from hdbo_nb.functions import get_problem
from hdbo_nb.goucb import (GOUCB, GOUCB_PRESETS, MLP, LinearizedRidge, oracle_adam, oracle_gd, oracle_lstsq, lambda_goucb,
                           beta_goucb, phase_sizes, goucb_F, n_weights, ucb_linearized)

# ---------------------------------------------------------------- a direct reference implementation (tiny model)
def ref_parts(w, d, h):
    W1 = w[:h * d].reshape(h, d); b1 = w[h * d:h * d + h]; w2 = w[h * d + h:h * d + 2 * h]; b2 = w[-1]
    return W1, b1, w2, b2

def ref_f(w, x, d, h):
    W1, b1, w2, b2 = ref_parts(w, d, h)
    return sum(w2[k] / (1 + math.exp(-(W1[k] @ x + b1[k]))) for k in range(h)) + b2

def ref_grads(w, x, d, h):
    "(grad_w, grad_x) of f_w(x), written unit by unit."
    W1, b1, w2, b2 = ref_parts(w, d, h)
    gW1, gb1, gw2, gx = np.zeros((h, d)), np.zeros(h), np.zeros(h), np.zeros(d)
    for k in range(h):
        s = 1 / (1 + math.exp(-(W1[k] @ x + b1[k])))
        gW1[k] = w2[k] * s * (1 - s) * x; gb1[k] = w2[k] * s * (1 - s); gw2[k] = s
        gx += w2[k] * s * (1 - s) * W1[k]
    return np.concatenate([gW1.ravel(), gb1, gw2, [1.]]), gx

def ref_step5(w_hat, Sigma, beta, X0, lo, hi, eta, iters, d, h):
    "Each start on its own: joint ascent, clip x, retract w onto {||w - w_hat||_Sigma^2 <= beta} along the ray."
    best = None
    for x0 in X0:
        x, w = x0.copy(), w_hat.copy()
        for _ in range(iters):
            gw, gx = ref_grads(w, x, d, h)
            x = np.minimum(np.maximum(x + eta * gx, lo), hi); w = w + eta * gw
            v = w - w_hat; q = v @ Sigma @ v
            if q > beta: w = w_hat + v * math.sqrt(beta / q)
        val = ref_f(w, x, d, h)
        if best is None or val > best[0]: best = (val, x, w)
    return best[1], best[2]

D, H = 2, 3
W_STAR = np.random.default_rng(7).normal(0, 1.5, n_weights(D, H))

def tiny_problem():
    m = MLP(D, H)
    return Problem(lambda X: m(W_STAR, X), [[-3, 3], [-3, 3]], name='tiny', vectorized=True)

@pytest.mark.parametrize('beta', [3e-4, 1e6])
def test_reference_rounds(beta):
    "Sigma_t, w_hat_t, the ball, the starts and the chosen x of every Phase II round equal a direct computation."
    p, n, T, eta, iters = tiny_problem(), 4, 5, 2e-2, 60
    opt = GOUCB(p.bounds, rng=3, n_init=n, T=T, config='trained', hidden=H, beta=beta, eta=eta, iters=iters, starts=3,
                oracle_iters=150)
    lam = math.sqrt(T) * math.log(T)**2
    X, y, bound = [], [], []
    for k in range(n + T):
        x = opt.ask()
        if k >= n:
            if k == n:   # the oracle saw the Phase I data only, from the recorded initialisation
                w0 = oracle_adam(opt.model, np.array(X), np.array(y), opt.w_init, lr=1e-2, iters=150)
                np.testing.assert_allclose(opt.w0, w0, rtol=0, atol=1e-12)
                w_hist = []
            # direct Eqs. (3), (5): Phase I points never enter Sigma, gradients at the centres w_hat_i
            Sigma, rhs, w_hat = lam * np.eye(len(w0)), lam * w0, w0.copy()
            for i in range(k - n):
                g = ref_grads(w_hist[i], X[n + i], D, H)[0]
                Sigma = Sigma + np.outer(g, g)
                rhs = rhs + g * (g @ w_hist[i] + y[n + i] - ref_f(w_hist[i], X[n + i], D, H))
                w_hat = np.linalg.solve(Sigma, rhs)
            w_hist.append(w_hat)
            np.testing.assert_allclose(opt.ridge.w, w_hat, rtol=0, atol=1e-9)
            np.testing.assert_allclose(opt.ridge.Sigma, Sigma, rtol=0, atol=1e-9)
            inc = np.array(X)[int(np.argmax(y))]
            np.testing.assert_array_equal(opt.last_starts[0], inc)            # the incumbent is the first start
            xr, wr = ref_step5(w_hat, Sigma, beta, opt.last_starts, p.bounds[:, 0], p.bounds[:, 1], eta, iters, D, H)
            np.testing.assert_allclose(x, xr, rtol=0, atol=1e-9)
            np.testing.assert_allclose(opt.last_w_tilde, wr, rtol=0, atol=1e-9)
            v = opt.last_w_tilde - w_hat
            assert v @ Sigma @ v <= beta * (1 + 1e-9)
            bound.append(abs(v @ Sigma @ v - beta) < 1e-9 * beta)
            assert opt._pending[x.tobytes()]['ball_bound'] == float(bound[-1])
        yx = p(x); opt.tell(x, yx); X.append(x); y.append(yx)
    if beta < 1: assert all(bound)            # a small ball binds in every round: the retraction is exercised
    else: assert not any(bound)

def test_linearized_matches_enumeration():
    "config='linearized' without polishing picks the argmax of f_x(w_hat) + sqrt(beta) ||grad||_{Sigma^-1} over its candidates."
    p, n, T = tiny_problem(), 4, 4
    opt = GOUCB(p.bounds, rng=5, n_init=n, T=T, config='linearized', hidden=H, polish=0, n_candidates=200, oracle_iters=100)
    lam = lambda_goucb(T)
    for k in range(n + T):
        x = opt.ask()
        if k >= n:
            R, C = opt.ridge, opt.last_starts
            Sinv = np.linalg.inv(lam * np.eye(R.G.shape[1]) + R.G.T @ R.G)
            ucb = [ref_f(R.w, c, D, H) + math.sqrt(n_weights(D, H)) * math.sqrt(ref_grads(R.w, c, D, H)[0] @ Sinv @
                   ref_grads(R.w, c, D, H)[0]) for c in C]
            np.testing.assert_allclose(x, C[int(np.argmax(ucb))], rtol=0, atol=1e-12)
            np.testing.assert_allclose(opt._pending[x.tobytes()]['ucb'], max(ucb), rtol=1e-9)
        opt.tell(x, p(x))

# ---------------------------------------------------------------- gradients, Eq. (5), oracles
def test_gradients_finite_differences():
    m = MLP(20); g = np.random.default_rng(0)
    w, X = 2 * m.init(g), g.uniform(-5, 5, (3, 20))
    f, J, Gx = m.value_and_grads(w, X)
    for i in range(3):
        gw, gx = ref_grads(w, X[i], 20, 25)
        np.testing.assert_allclose(J[i], gw, rtol=1e-10, atol=1e-12); np.testing.assert_allclose(Gx[i], gx, rtol=1e-10, atol=1e-12)
        assert abs(f[i] - ref_f(w, X[i], 20, 25)) < 1e-10
    e = 1e-6
    for j in g.choice(551, 20, replace=False):
        dw = np.zeros(551); dw[j] = e
        fd = (m(w + dw, X) - m(w - dw, X)) / (2 * e)
        assert np.abs(fd - J[:, j]).max() <= 1e-6 * max(1., np.abs(J).max())
    test_dw = [n_weights(d) for d in (20, 7, 8, 11)]
    assert test_dw == [551, 226, 251, 326]

def test_eq5_direct_and_incremental():
    m = MLP(20); g = np.random.default_rng(2)
    w0 = m.init(g); R = LinearizedRidge(w0, lam=lambda_goucb(64))
    assert np.array_equal(R.w, w0) and np.array_equal(R.Sigma, R.lam * np.eye(551))
    Gs, cs = [], []
    for t in range(40):
        x = g.uniform(-5, 5, (1, 20)); f, J, _ = m.value_and_grads(R.w, x)
        cs.append(J[0] @ R.w + float(x.sum()) - f[0]); Gs.append(J[0])
        R.add(J[0], f[0], float(x.sum()))
        if t in (0, 9, 39):
            w_direct = LinearizedRidge.direct(w0, R.lam, np.array(Gs), np.array(cs))     # Eq. (4) as least squares
            assert np.abs(R.w - w_direct).max() < 1e-8
            S = R.lam * np.eye(551) + np.array(Gs).T @ np.array(Gs)                      # from scratch
            np.testing.assert_allclose(R.Sigma, S, rtol=0, atol=1e-9)
            np.testing.assert_allclose(R.w, np.linalg.solve(S, np.array(Gs).T @ np.array(cs) + R.lam * w0), rtol=0, atol=1e-8)
            assert abs(R.logdet() - np.linalg.slogdet(S)[1]) < 1e-8
    with pytest.raises(ValueError, match='lambda'): LinearizedRidge(w0, -1.)

def test_oracles():
    m = MLP(2, 3); g = np.random.default_rng(0)
    w_star = g.normal(0, 1.5, m.d_w); X = g.uniform(-3, 3, (200, 2)); y = m(w_star, X)
    assert np.abs(m(oracle_lstsq(m, X, y, rng=0), X) - y).max() < 1e-6
    w0 = m.init(1)
    step = oracle_gd(m, X[:8], y[:8], w0, lr=1e-3, iters=1)        # one step of gradient descent on the MSE
    f, J, _ = m.value_and_grads(w0, X[:8])
    np.testing.assert_allclose(step, w0 - 1e-3 * 2 * J.T @ (f - y[:8]) / 8, rtol=0, atol=1e-14)
    assert np.linalg.norm(oracle_gd(m, X[:8], y[:8], w0) - w0) < 1e-6           # App. D.1's lr 1e-11 barely moves
    y8 = 100 + 50 * y[:8]
    W1, b1, w2, b2 = m.unpack(w0)
    np.testing.assert_allclose(oracle_adam(m, X[:8], y8, w0, iters=0), m.pack(W1, b1, y8.std() * w2, y8.std() * b2 + y8.mean()),
                               rtol=1e-12)                                        # standardisation mapped back exactly
    wa = oracle_adam(m, X[:8], y8, w0)
    assert np.sqrt(np.mean((m(wa, X[:8]) - y8)**2)) < 0.05 * np.sqrt(np.mean((m(w0, X[:8]) - y8)**2))

# ---------------------------------------------------------------- problems and settings
def test_optima():
    p1, p2, p3 = (get_problem(f'goucb-f{i}') for i in (1, 2, 3))
    assert p1(np.full(20, 5.)) == 26. and p1.f_opt == 26.
    assert abs(p2.f_opt - 783.3233140754284) < 1e-9 and abs(p2(np.full(20, -2.903534)) - 783.3233) < 1e-4
    assert p3.f_opt == 0. and p3(np.zeros(20)) == 0.
    x = np.random.default_rng(0).uniform(-5, 5, (5, 20))
    np.testing.assert_allclose(p1.batch(x), 25 * expit(x.sum(1) + 1) + 1)
    np.testing.assert_allclose(p2.batch(x), -0.5 * (x**4 - 16 * x**2 + 5 * x).sum(1))
    np.testing.assert_allclose(p3.batch(x), -200 + (10 * np.cos(2 * np.pi * x) - x**2).sum(1))
    m = MLP(20); np.testing.assert_allclose(m(np.ones(551), x), p1.batch(x), rtol=1e-13)   # f1 is the model at w = 1
    assert goucb_F('goucb-f1') == 26. and goucb_F('goucb-f2') == 2500. and 807.0 < goucb_F('goucb-f3') < 807.1
    assert abs(p3.batch(np.full((1, 20), 4.5229))[0]) <= goucb_F('goucb-f3')

@pytest.mark.parametrize('name,exact', [('goucb-f1', 11.741), ('goucb-f2', 699.990), ('goucb-f3', 366.667)])
def test_random_search_regret(name, exact):
    "Random search's mean per-step regret equals the exact expectation within Monte-Carlo error."
    p = get_problem(name)
    r = np.concatenate([p.f_opt - optimize(p, 'random', budget=2000, rng=s).f for s in range(5)])
    se = r.std(ddof=1) / math.sqrt(len(r))
    assert abs(r.mean() - exact) < 4 * se, (r.mean(), exact, se)

def test_exact_random_regret_values():
    "The exact values: f1 by quadrature over the Irwin-Hall sum, f2 = f2* - 250/3, f3 = 1100/3."
    from scipy.stats import norm
    assert abs(783.3233140754284 - 250 / 3 - 699.990) < 1e-3 and abs(1100 / 3 - 366.667) < 1e-3
    g = np.random.default_rng(0); S = g.uniform(-5, 5, (400_000, 20)).sum(1)
    v = 25 * (1 - expit(S + 1)); assert abs(v.mean() - 11.741) < 4 * v.std() / math.sqrt(len(v)) + 1e-3

def test_settings():
    assert phase_sizes(30) == (5, 25) and phase_sizes(72) == (8, 64) and phase_sizes(3) == (1, 2) and phase_sizes(16) == (3, 13)
    for B in range(3, 300):             # the largest n with n <= sqrt(T), n + T = B
        n, T = phase_sizes(B)
        assert n + T == B and n <= math.sqrt(T) and n + 1 > math.sqrt(B - n - 1)
    assert abs(lambda_goucb(25) - 51.81) < 0.01 and abs(lambda_goucb(64) - 138.38) < 0.01
    assert beta_goucb(3, 25, 551, 26.) == 551**3 * 26**4 * 3 / 25
    assert METHODS['go-ucb'] is GOUCB
    p = get_problem('goucb-f1')
    tr = optimize(p, 'go-ucb', budget=12, rng=1, iters=20)                     # paper preset: F = sup|f| = 26
    d = tr.diagnostics; ph2 = d['phase'] == 2
    assert int((d['phase'] == 1).sum()) == 3 and int(ph2.sum()) == 9
    np.testing.assert_allclose(d['beta_t'][ph2], [beta_goucb(t, 9, 551, 26.) for t in range(1, 10)], rtol=1e-12)
    np.testing.assert_allclose(d['lam'][ph2], lambda_goucb(9), rtol=1e-12)
    np.testing.assert_allclose(d['t'][ph2], np.arange(1, 10))
    tr = optimize(get_problem('goucb-f3'), 'go-ucb', budget=12, rng=1, iters=20, config='trained')  # F_hat = max|y| so far
    d = tr.diagnostics; ph2 = np.flatnonzero(d['phase'] == 2)
    Fh = [np.abs(tr.y[:i]).max() for i in ph2]
    np.testing.assert_allclose(d['F_hat'][ph2], Fh, rtol=1e-12)
    np.testing.assert_allclose(d['beta_t'][ph2], [beta_goucb(t, 9, 551, F) for t, F in zip(range(1, 10), Fh)], rtol=1e-12)
    opt = GOUCB(p.bounds, rng=0, config='trained', iters=5, oracle='gd', oracle_lr=0.)  # with lr 0 the oracle returns its start
    opt.run(p, 5); np.testing.assert_array_equal(opt.w0, opt.w_init)

def test_shared_design_and_determinism():
    p = get_problem('goucb-f2', noise_std=0.01)
    t1 = optimize(p, 'go-ucb', budget=12, rng=4, iters=50)
    t2 = optimize(p, 'go-ucb', budget=12, rng=4, iters=50)
    assert np.array_equal(t1.X, t2.X) and np.array_equal(t1.y, t2.y)
    assert not np.array_equal(t1.X, optimize(p, 'go-ucb', budget=12, rng=5, iters=50).X)
    np.testing.assert_array_equal(optimize(p, 'random', budget=3, rng=4).X, t1.X[:3])
    np.testing.assert_array_equal(optimize(p, 'gp-ei', budget=4, rng=4, n_init=3, init='uniform').X[:3], t1.X[:3])

def test_scale_x_same_function_class():
    "scale_x maps the box to [0,1]^d for the model: points stay in the box, Phase I is unchanged."
    p = get_problem('goucb-f3')
    a = optimize(p, 'go-ucb', budget=8, rng=2, iters=20, scale_x=True)
    b = optimize(p, 'go-ucb', budget=8, rng=2, iters=20)
    assert np.array_equal(a.X[:2], b.X[:2]) and np.all(np.abs(a.X) <= 5)

def test_bad_input():
    p = get_problem('goucb-f1')
    with pytest.raises(ValueError, match='config'): GOUCB(p.bounds, config='fast')
    with pytest.raises(ValueError, match='oracle'): GOUCB(p.bounds, oracle='sgd')
    with pytest.raises(ValueError, match='phase lengths'): GOUCB(p.bounds, rng=0).ask()
    with pytest.raises(ValueError, match='budget'): optimize(p, 'go-ucb', budget=2, rng=0)
    with pytest.raises(ValueError, match='T >= 2'): lambda_goucb(1)
    with pytest.raises(ValueError, match='no F'): goucb_F('branin')
    with pytest.raises(ValueError, match='551'): MLP(20)(np.zeros(3), np.zeros((1, 20)))

# ---------------------------------------------------------------- the claims scorecard
def test_claims_evaluate_on_the_committed_cache(scorecard):
    "Every registered GO-UCB claim measures to a verdict (not an error) on the committed results cache."
    from hdbo_nb.claims import VERDICTS
    from conftest import paper_results
    rs = paper_results(scorecard, 'goucb')
    assert len(rs) >= 20 and {r.claim.kind for r in rs} == {'experiment', 'theory', 'erratum', 'arithmetic'}
    assert [(r.claim.id, r.error) for r in rs if r.measurement is None] == []
    assert all(r.verdict in VERDICTS for r in rs)
    nb = {c.claim.page.partition('#')[0] for c in rs}
    assert nb == {'41_goucb_theory.ipynb', '42_goucb_experiments.ipynb'}, nb

def test_random_regret_closed_form():
    "The claims' closed form for random search's regret per evaluation agrees with the exact values above."
    from hdbo_nb.goucb_experiments import random_regret_per_step
    assert abs(random_regret_per_step('f2') - 699.990) < 1e-3 and abs(random_regret_per_step('f3') - 366.667) < 1e-3

# ---------------------------------------------------------------- pinned by tests/goucb_mutants.sh
def test_step5_box_and_sigma_ball():
    "Step 5 on its own: x is projected onto the box, w retracted onto the Sigma-ball (G != 0), the best start is kept."
    from hdbo_nb.goucb import step5_ascent
    m, g = MLP(D, H), np.random.default_rng(11)
    G, lam, beta, eta, iters = g.normal(0, 1, (3, m.d_w)), 2., 0.5, 0.3, 40
    lo, hi = np.full(D, -0.2), np.full(D, 0.2)
    X0 = g.uniform(lo, hi, (3, D))
    x, wt, info = step5_ascent(m, W_STAR, G, lam, beta, X0, lo, hi, eta=eta, iters=iters)
    Sigma = lam * np.eye(m.d_w) + G.T @ G
    xr, wr = ref_step5(W_STAR, Sigma, beta, X0, lo, hi, eta, iters, D, H)
    np.testing.assert_allclose(x, xr, rtol=0, atol=1e-9); np.testing.assert_allclose(wt, wr, rtol=0, atol=1e-9)
    assert np.any(np.isclose(x, lo, rtol=0, atol=1e-12) | np.isclose(x, hi, rtol=0, atol=1e-12))   # the box binds
    v = wt - W_STAR
    assert abs(v @ Sigma @ v - beta) < 1e-9 * beta and info['bound']                               # the ball binds
    assert abs(lam * v @ v - beta) > 1e-3 * beta                                                  # not a Euclidean ball

def test_scale_x_is_a_change_of_coordinates():
    "scale_x=True on a box equals scale_x=False on [0, 1]^d with f composed with the affine map: same z, Sigma, w_hat."
    m, lo, wd = MLP(D, H), np.array([-1., 2.]), np.array([4., 2.])
    f_unit = lambda Z: m(W_STAR, 6 * np.atleast_2d(Z) - 3)
    pa = Problem(lambda X: f_unit((np.atleast_2d(X) - lo) / wd), np.stack([lo, lo + wd], 1), name='box', vectorized=True)
    pb = Problem(f_unit, [[0., 1.], [0., 1.]], name='unit', vectorized=True)
    kw = dict(rng=2, n_init=3, T=4, config='trained', hidden=H, beta=0.01, iters=30, eta=2e-2, starts=2, oracle_iters=100)
    a, b = GOUCB(pa.bounds, scale_x=True, **kw), GOUCB(pb.bounds, **kw)
    for k in range(7):
        xa, xb = a.ask(), b.ask()
        np.testing.assert_allclose(xa, lo + wd * xb, rtol=0, atol=1e-9)
        if k >= 3:
            np.testing.assert_allclose(a.ridge.Sigma, b.ridge.Sigma, rtol=0, atol=1e-8)
            np.testing.assert_allclose(a.ridge.w, b.ridge.w, rtol=0, atol=1e-8)
        a.tell(xa, pa(xa)); b.tell(xb, pb(xb))
    assert a.ridge.G.shape == (4, m.d_w)

def test_phase_lengths_from_one_option():
    "n_init alone gives T = budget - n; T alone gives n = budget - T; lambda follows T."
    p, kw = tiny_problem(), dict(rng=0, config='trained', hidden=H, iters=5, oracle_iters=10)
    for opt, nT in [(GOUCB(p.bounds, n_init=2, **kw), (2, 7)), (GOUCB(p.bounds, T=6, **kw), (3, 6)),
                    (GOUCB(p.bounds, **kw), phase_sizes(9))]:
        tr = opt.run(p, 9)
        d = tr.diagnostics
        assert (opt.n, opt.T) == nT and int((d['phase'] == 1).sum()) == nT[0] and int((d['phase'] == 2).sum()) == nT[1]
        np.testing.assert_allclose(d['lam'][d['phase'] == 2], lambda_goucb(nT[1]), rtol=1e-12)

def test_beta_options():
    "beta_t: 'paper', 'd_w', a number or a callable, each times beta_scale."
    p = tiny_problem(); dw = n_weights(D, H)
    for beta, ref in [('paper', beta_goucb(2, 7, dw, 2.)), ('d_w', dw), (5., 5.), (lambda t, T, d, F: t * T * d * F, 2 * 7 * dw * 2.)]:
        opt = GOUCB(p.bounds, n_init=2, T=7, F=2., beta=beta, beta_scale=3., hidden=H)
        assert abs(opt.beta_t(2) - 3 * ref) <= 1e-12 * abs(ref)

def test_round_diagnostics():
    "u_t = ||grad_w f_x(w_hat)||_{Sigma^-1} at the chosen x, log det Sigma_t and the Sigma-distance of w_tilde, per round."
    p, n, T = tiny_problem(), 3, 4
    opt = GOUCB(p.bounds, rng=4, n_init=n, T=T, config='trained', hidden=H, beta=0.05, iters=30, eta=2e-2, starts=2, oracle_iters=80)
    for k in range(n + T):
        x = opt.ask()
        if k >= n:
            R, dg = opt.ridge, opt._pending[x.tobytes()]
            S = lambda_goucb(T) * np.eye(R.G.shape[1]) + R.G.T @ R.G
            gr = ref_grads(R.w, x, D, H)[0]; v = opt.last_w_tilde - R.w
            assert abs(dg['u_t'] - math.sqrt(gr @ np.linalg.solve(S, gr))) < 1e-9 * max(1., dg['u_t'])
            assert abs(dg['logdet_sigma'] - np.linalg.slogdet(S)[1]) < 1e-8
            assert abs(dg['dist_sigma'] - math.sqrt(v @ S @ v)) < 1e-9 and dg['t'] == k - n + 1
        opt.tell(x, p(x))

def test_linearized_polish():
    "polish > 0: L-BFGS-B from the best candidates; the chosen x's UCB is the recorded one, at least the best candidate's."
    p, n, T = tiny_problem(), 3, 3
    opt = GOUCB(p.bounds, rng=6, n_init=n, T=T, config='linearized', hidden=H, polish=2, n_candidates=40, oracle_iters=80)
    gains = []
    for k in range(n + T):
        x = opt.ask()
        if k >= n:
            R, C, beta = opt.ridge, opt.last_starts, float(n_weights(D, H))
            u_x = ucb_linearized(opt.model, R.w, R, beta, x[None])[0][0]; u_C = ucb_linearized(opt.model, R.w, R, beta, C)[0].max()
            assert abs(opt._pending[x.tobytes()]['ucb'] - u_x) < 1e-9 * abs(u_x) and np.all((x >= -3) & (x <= 3))
            gains.append(u_x - u_C)
        opt.tell(x, p(x))
    assert min(gains) >= 0 and max(gains) > 1e-6


# ---------------------------------------------------------------- the 'paper' preset: App. D.1's constants, pinned
def test_paper_preset_constants():
    "The 'paper' preset states App. D.1's constants; Step 5's starts (the paper is silent) are named as ours."
    P = GOUCB_PRESETS['paper']
    assert (P['oracle'], P['oracle_lr'], P['oracle_iters']) == ('gd', 1e-11, 2000)      # "SGD ... 2000 iterations and 1e-11"
    assert (P['step5'], P['eta'], P['iters']) == ('ascent', 1e-4, 2000)                # "gradient ascent ... 2000 iterations, 1e-4"
    assert (P['beta'], P['lam'], P['F_rule']) == ('paper', 'paper', 'range')            # d_w^3 F^4 t/T, sqrt(T) log^2 T, F = sup|f|
    assert (P['starts'], P['incumbent_start']) == (8, None)                              # ours: the incumbent and 7 uniform points

def test_paper_preset_rounds():
    "Every Phase II round of config='paper' equals a direct computation with App. D.1's literal constants."
    p, n, T, F = tiny_problem(), 4, 2, 2.5
    opt = GOUCB(p.bounds, rng=8, n_init=n, T=T, hidden=H, F=F)          # config='paper' by default, nothing overridden
    X, y = [], []
    dw, lam = n_weights(D, H), math.sqrt(T) * math.log(T)**2
    for k in range(n + T):
        x = opt.ask()
        if k == n:      # the oracle: full-batch gradient descent on the MSE, 2000 steps at 1e-11, from the recorded init
            w = opt.w_init.copy(); Xa, ya = np.array(X), np.array(y)
            for _ in range(2000):
                g = sum(2 * (ref_f(w, xi, D, H) - yi) * ref_grads(w, xi, D, H)[0] for xi, yi in zip(Xa, ya)) / n
                w = w - 1e-11 * g
            np.testing.assert_allclose(opt.w0, w, rtol=0, atol=1e-13)
            assert 0 < np.abs(opt.w0 - opt.w_init).max() < 1e-6
        if k >= n:
            t = k - n + 1
            R = opt.ridge
            assert abs(R.lam - lam) < 1e-12 and abs(opt._pending[x.tobytes()]["beta_t"] - dw**3 * F**4 * t / T) <= 1e-12 * dw**3 * F**4
            S = opt.last_starts
            assert len(S) == 8 and np.array_equal(S[0], np.array(X)[int(np.argmax(y))])     # the incumbent first, 7 uniform
            Sigma = lam * np.eye(dw) + R.G.T @ R.G
            xr, wr = ref_step5(R.w, Sigma, dw**3 * F**4 * t / T, S, p.bounds[:, 0], p.bounds[:, 1], 1e-4, 2000, D, H)
            np.testing.assert_allclose(x, xr, rtol=0, atol=1e-9); np.testing.assert_allclose(opt.last_w_tilde, wr, rtol=0, atol=1e-9)
        yx = p(x); opt.tell(x, yx); X.append(x); y.append(yx)

@pytest.mark.parametrize('starts,inc,first_is_incumbent,B', [(1, None, False, 1), (1, True, True, 1), (3, False, False, 3), (3, None, True, 3)])
def test_step5_start_options(starts, inc, first_is_incumbent, B):
    "starts / incumbent_start: how many starts, and whether the first is the best point so far (the rest uniform)."
    p = tiny_problem()
    opt = GOUCB(p.bounds, rng=2, n_init=3, T=2, hidden=H, starts=starts, incumbent_start=inc, iters=5, config='trained', oracle_iters=5)
    for k in range(4):
        x = opt.ask()
        if k == 3:
            S = opt.last_starts; assert len(S) == B
            inc_x = np.array(opt._X)[int(np.argmax(opt._Y))]
            assert np.array_equal(S[0], inc_x) == first_is_incumbent
        opt.tell(x, p(x))
    with pytest.raises(ValueError, match='starts'): GOUCB(p.bounds, starts=0)

# ---------------------------------------------------------------- the theory checks' helpers
def test_align_to_and_hessian_norm():
    "align_to returns the representation of w* nearest the reference (units flipped and permuted back); the Hessian norm is exact."
    from hdbo_nb.goucb_theory import align_to, aligned_error, hessian_norm
    m, g = MLP(2, 4), np.random.default_rng(5)
    w = m.init(g) * 3; W1, b1, w2, b2 = m.unpack(w); perm = [3, 1, 0, 2]; flip = np.array([1., -1., -1., 1.])
    # flip units 1, 2 (sigma(-z) = 1 - sigma(z)), then permute: the same function
    W1f, b1f, w2f = W1 * flip[:, None], b1 * flip, w2 * flip
    b2f = b2 + w2[flip < 0].sum()
    w_eq = m.pack(W1f[perm], b1f[perm], w2f[perm], b2f)
    X = g.uniform(-3, 3, (20, 2))
    np.testing.assert_allclose(m(w_eq, X), m(w, X), rtol=0, atol=1e-12)
    np.testing.assert_allclose(align_to(m, w_eq, w), w, rtol=0, atol=1e-12)
    assert aligned_error(m, w_eq, w) < 1e-20
    e = 1e-5
    for x, hn in zip(X[:3], hessian_norm(m, w, X[:3])):
        H = np.array([(m.jac_w(w + e * np.eye(17)[j], x[None])[0] - m.jac_w(w - e * np.eye(17)[j], x[None])[0]) / (2 * e) for j in range(17)])
        assert abs(hn - np.abs(np.linalg.eigvalsh((H + H.T) / 2)).max()) < 1e-6 * hn
