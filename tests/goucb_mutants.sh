#!/usr/bin/env bash
# Break each rule of GO-UCB (Liu & Wang 2023, Algorithm 1) once and check that tests/test_goucb.py notices (run from the
# project's root, with ../shared beside it, or with MUTANTS=path/to/mutants.py).
# The claims test reads the committed results cache, which the throw-away copy does not have: it is left out.
T=hdbo_nb/goucb.py
PYTEST_ADDOPTS="${PYTEST_ADDOPTS:-} --deselect tests/test_goucb.py::test_claims_evaluate_on_the_committed_cache" \
python ${MUTANTS:-../shared/tools/mutants.py} tests/test_goucb.py \
 -m $T "value_and_grads(self.ridge.w, z[None])" "value_and_grads(getattr(self, 'last_w_tilde', self.ridge.w), z[None])" "Sigma update with the gradient at w_tilde, not at w_hat_t" \
 -m $T "self.ridge = LinearizedRidge(w0, self.lam)" "self.ridge = LinearizedRidge(w0, self.lam); [self.ridge.add(self.model.jac_w(self.ridge.w, xi[None])[0], self.model(self.ridge.w, xi[None])[0], yi) for xi, yi in zip(X, y)]" "Phase I points enter Sigma_t" \
 -m $T "q = lam * np.einsum('ij,ij->i', V, V) + ((V @ GT)**2).sum(1)" "q = lam * np.einsum('ij,ij->i', V, V)" "Euclidean ball instead of the Sigma-norm ball" \
 -m $T "np.sqrt(beta / q[over])" "(beta / q[over])" "retraction not onto the ball's surface (sqrt dropped)" \
 -m $T "X = np.clip(X + eta * gx, lo, hi); W += eta * gw" "X = np.clip(X + eta * gx, lo, hi)" "no optimism over w (w_tilde = w_hat)" \
 -m $T "c = float(g @ self.w + y - f_hat)" "c = float(g @ self.w - y + f_hat)" "wrong sign of the residual in Eq. (5)" \
 -m $T "self.Sigma, self.r, self.w = self.lam * np.eye(d)," "self.Sigma, self.r, self.w = np.eye(d)," "lambda missing from Sigma_0" \
 -m $T "self._chol = None
        self.w = cho_solve(self.chol, self.r)" "self.w = cho_solve(self.chol, self.r)" "incremental update with a stale Cholesky factor" \
 -m $T "return (J * cho_solve(self.chol, J.T).T).sum(1)" "return (J * (self.Sigma @ J.T).T).sum(1)" "the Sigma-norm instead of the Sigma^-1-norm of the gradient" \
 -m $T "return f + math.sqrt(beta) * u, u" "return f + beta * u, u" "beta_t instead of sqrt(beta_t) in the UCB" \
 -m $T "U = ucb_linearized(model, ridge.w, ridge, beta, X0)[0]" "U = model(ridge.w, X0)" "linearized preset ranks by the mean, not the UCB" \
 -m $T "n = int((math.sqrt(1 + 4 * budget) - 1) / 2)" "n = int((math.sqrt(1 + 4 * budget) + 1) / 2)" "phase sizes off by one" \
 -m $T "t = k - self.n + 1" "t = k - self.n + 2" "Phase II round index off by one in beta_t" \
 -m $T "a = w2 * s * (1 - s)" "a = w2 * s" "sigmoid derivative dropped from the gradients" \
 -m $T "X = np.clip(X + eta * gx, lo, hi)" "X = X + eta * gx" "Step 5: x not projected onto the box" \
 -m $T "f = model(W, X); j = int(np.argmax(f))" "f = model(W, X); j = 0" "Step 5 keeps the first start, not the best" \
 -m $T "z = self._in(x)" "z = np.asarray(x, float)" "scale_x: the update sees x, not the model's input z" \
 -m $T "return self._out(z), diag" "return z, diag" "scale_x: ask returns z, not x" \
 -m $T "elif self.T is None: self.T = budget - self.n" "elif self.T is None: self.T = budget" "T ignores a given n" \
 -m $T "return float(self.options['beta_scale'] * v)" "return float(v)" "beta_scale ignored" \
 -m $T "u = math.sqrt(max(float(R.inv_norm2(M.jac_w(R.w, z[None]))[0]), 0.))" "u = math.sqrt(max(float(R.inv_norm2(M.jac_w(R.w0, z[None]))[0]), 0.))" "u_t with the gradient at w_hat_0" \
 -m $T "if -r.fun > bv: bx, bv = np.clip(r.x, lo, hi), -float(r.fun)" "if False: pass" "linearized: polishing ignored" \
 -m $T "GOUCB_D1 = dict(oracle_lr=1e-11," "GOUCB_D1 = dict(oracle_lr=1e-10," "paper preset: App. D.1's oracle learning rate" \
 -m $T "oracle_iters=2000, lam='paper'" "oracle_iters=1000, lam='paper'" "paper preset: App. D.1's oracle iterations" \
 -m $T "eta=1e-4, iters=2000)   # what" "eta=1e-3, iters=2000)   # what" "paper preset: App. D.1's Step 5 step size eta" \
 -m $T "eta=1e-4, iters=2000)   # what" "eta=1e-4, iters=1000)   # what" "paper preset: App. D.1's Step 5 iterations K" \
 -m $T "'paper': dict(GOUCB_D1, oracle='gd'," "'paper': dict(GOUCB_D1, oracle='adam'," "paper preset: an oracle that trains" \
 -m $T "'paper': dict(GOUCB_D1, oracle='gd', F_rule='range', step5='ascent', starts=8," "'paper': dict(GOUCB_D1, oracle='gd', F_rule='range', step5='ascent', starts=4," "paper preset: 4 Step 5 starts, not 8" \
 -m $T "at_inc = B > 1 if" "at_inc = False if" "Step 5: the incumbent is never a start" \
 -m $T "return math.sqrt(T) * math.log(T)**2" "return math.sqrt(T) * math.log2(T)**2" "lambda with log base 2" \
 -m $T "return d_w**3 * F**4 * t / T" "return d_w**3 * F**3 * t / T" "beta_t with F^3"
