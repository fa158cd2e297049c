#!/usr/bin/env bash
# Break each rule of TuRBO-1 once and check that tests/test_turbo.py notices (run from the project's root, with
# ../shared beside it, or with MUTANTS=path/to/mutants.py).
T=hdbo_nb/turbo.py
python ${MUTANTS:-../shared/tools/mutants.py} tests/test_turbo.py \
 -m $T "threshold = state.best + improvement * abs(state.best)" "threshold = state.best - improvement * abs(state.best)" "success threshold below the best" \
 -m $T "elif n_f == failure_tol: L, n_f = L / 2, 0" "elif n_f == failure_tol: L, n_f = L * 2, 0" "doubling instead of halving after failures" \
 -m $T "return math.ceil(max(4 / q, D / q))" "return math.ceil(max(4 / q, D / q)) + 1" "failure_tol off by one" \
 -m $T "if n_s == success_tol: L, n_s = min(2 * L, length_max), 0" "if n_s == success_tol: L, n_s = 2 * L, 0" "no clamping at L_max" \
 -m $T "    center = U[int(np.argmax(Y))]" "    center = U[-1]" "TR centre: the last point, not the best" \
 -m $T "    return min(20 / D, 1.)" "    return min(10 / D, 1.)" "perturbation probability 10/D" \
 -m $T "mask[empty, rng.integers(0, D, len(empty))] = True" "pass" "candidates with no perturbed coordinate" \
 -m $T "    return w / np.exp(np.mean(np.log(w)))" "    return w" "weights not normalised to product 1" \
 -m $T "return TRState(L, n_s, n_f, max(state.best, y), L < length_min)" "return TRState(L, n_s, n_f, max(state.best, y), False)" "no restart" \
 -m $T "    if self.state.restart: self._restart()" "    pass" "restart flag ignored by the optimiser"
