#!/usr/bin/env bash
# Break each rule of SI-BO once and check that tests/test_sibo.py notices (run from the project's root, with ../shared beside it).
# (A larger ADMM step, 10/(rho L), is not a broken rule: it converges to the same X-hat, within 5e-5.)
F=hdbo_nb/sibo.py
python ../shared/tools/mutants.py tests/test_sibo.py \
 -m $F "/ math.sqrt(m_Phi)" "/ math.sqrt(m_X)" "directions scaled by 1/sqrt(m_X)" \
 -m $F "return (fp - fc).sum(1) / eps" "return (fc - fp).sum(1) / eps" "wrong sign of the finite difference" \
 -m $F "return (U * np.minimum(s, lam)) @ Vt" "return W * min(1., lam / np.linalg.norm(W))" "Frobenius instead of spectral ball" \
 -m $F "return np.linalg.svd(X_hat, full_matrices=False)[0][:, :k].T.copy()" "return np.linalg.svd(X_hat, full_matrices=True)[0][:k, :].copy()" "rows of U instead of columns" \
 -m $F "        u = mu + math.sqrt(bt) * sd
        i = int(self.rng.choice" "        u = mu - math.sqrt(bt) * sd
        i = int(self.rng.choice" "UCB sign" \
 -m $F "        u = mu + math.sqrt(bt) * sd
        i = int(self.rng.choice" "        u = mu + 0 * sd
        i = int(self.rng.choice" "mean instead of UCB" \
 -m $F "beta_srinivas_finite(t, len" "beta_srinivas_finite(t + 1, len" "beta_t off by one" \
 -m $F "return (np.atleast_2d(X) - self.c) @ self.P.T" "return np.atleast_2d(X) @ self.P.T" "projection not centred" \
 -m $F "self.set_subspace(A_hat, self.si_X, vals)" "self.set_subspace(A_hat)" "SI points not in the GP data" \
 -m $F "si_points(self.radius * self.xi" "si_points(self.xi" "centres on the unit sphere regardless of the domain" \
 -m $F "self._mu += v * gp._z[n]; self._var -= v * v" "self._mu += v * gp._z[n]; self._var -= v" "grid variance update" \
 -m $F "M = _svt(M - Gop(GM - b + W + U) / L, 1. / (rho * L))" "M = _svt(M - Gop(GM - b + W + U) / L, 0.)" "no singular-value shrinkage in the ADMM" \
 -m $F "1.2 * eps * m_X * k * C2 / (2 * math.sqrt(m_Phi))" "1.2 * eps * m_X * k**2 * C2 / (2 * math.sqrt(m_Phi))" "practical lambda's curvature term with k^2" \
 -m $F "lam = _lambda(o['lambda_rule'], self.Phi, o['eps'], self.sigma," "lam = _lambda(o['lambda_rule'], self.Phi, o['eps'], 0.," "lambda ignores the known noise sigma" \
 -m $F "nv = max(1e-6, 0. if self.noise_var is None else self.noise_var)" "nv = 1e-6" "GP noise variance ignores sigma^2" \
 -m $F "        u = mu + math.sqrt(bt) * sd
        i = int(np.argmax(u))" "        u = mu + math.sqrt(bt) * sd
        i = int(np.argmin(u))" "RandomH-UCB takes the UCB's minimiser" \
 -m $F "vals = np.array([np.mean(v) for v in self._si_vals])" "vals = np.array([v[0] for v in self._si_vals])" "n_res repeats not averaged" \
 -m $F "    M, theta = _make_feasible(M, G, b, lam)" "    theta = 0." "ADMM iterate reported without the feasibility step" \
 -m $F "return frac * spectral_norm(A_adj(Phi, y))" "return frac * np.linalg.norm(A_adj(Phi, y))" "data lambda with the Frobenius norm" \
 -m $F "            return lambda_oracle(Phi, y, X)" "            return lambda_oracle(Phi, y, 0 * X)" "oracle lambda without the true X"
