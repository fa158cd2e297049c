#!/usr/bin/env bash
# Break each rule of BOO, SOO, BaMSOO and IMGPO once and check that the reference-trace tests notice (run from the
# project's root, with ../shared beside it). Every mutant must leave the tree search finite (a sweep that can never
# expand hangs the test run: mutants.py has no time-out).
B=hdbo_nb/boo.py; O=hdbo_nb/optimistic.py
python ../shared/tools/mutants.py tests/test_boo.py::test_boo_matches_algorithm_1 tests/test_boo.py::test_boo_paper_gp_baselines_step_by_step \
 -m $B "if not U[j] >= vmax: return None" "if False: return None" "BOO: no v_max check" \
 -m $B "j = int(np.argmax(U))" "j = int(np.argmax(mu))" "BOO: selects by the mean" \
 -m $B "return max(vmax, y), p + 1" "return max(vmax, float(U[j])), p + 1" "BOO: v_max updated with the UCB" \
 -m $B "beta = beta_boo(p, self.eta)" "beta = beta_boo(p + 1, self.eta)" "BOO: beta_p off by one" \
 -m $B "return max(vmax, y), p + 1" "return max(vmax, y), p + 2" "BOO: p advances by two per expansion" \
 -m $B "return max(vmax, y), p + 1" "return max(vmax, y), self.n_evals - self.n_init + 1" "BOO, odd a: p advances only with an evaluation" \
 -m $O "while h <= min(tree.height, self.h_max(p) + extra):" "while h <= min(tree.height, self.h_max(p - 1) + extra):" "depth limit read at p - 1" \
 -m $O "dims = np.argsort(-width, kind='stable')[:b]" "dims = (len(width) - 1 - np.argsort(-width[::-1], kind='stable'))[:b]" "partition: ties to the highest index" \
 -m $O "return math.isqrt(max(int(p), 0))" "return math.isqrt(max(int(p), 0)) + 1" "h_max(p) one level deeper" \
 -m $O "dims = np.argsort(-width, kind='stable')[:b]" "dims = np.argsort(width, kind='stable')[:b]" "partition cuts the shortest sides" \
 -m $B "acq_optimizer='direct', refit_every=1" "acq_optimizer='direct', refit_every=5" "GP baselines: refit every 5" \
 -m $B "if self.options['nu'] is None: self.options['nu'] = boo_nu(self.dim)" "if self.options['nu'] is None: self.options['nu'] = 2.5" "GP baselines: nu 2.5" \
 -m $B "if self.options['n_init'] is None: self.n_init = self.dim + 1" "if self.options['n_init'] is None: self.n_init = self.dim + 2" "GP baselines: D + 2 initial points" \
 -m $B "defaults = dict(beta='srinivas-practical', beta_scale=1.0, delta=0.05)" "defaults = dict(beta='srinivas-practical', beta_scale=1.0, delta=0.1)" "GP-UCB: delta 0.1"
python ../shared/tools/mutants.py tests/test_optimistic.py::test_soo_matches_its_pseudocode tests/test_optimistic.py::test_bamsoo_matches_its_pseudocode tests/test_optimistic.py::test_imgpo_matches_its_pseudocode \
 -m $O "            if not T.value[i] >= vmax: return None
            kids = T.expand(i)" "            kids = T.expand(i)" "SOO: no v_max check" \
 -m $O "                    T.value[c] = lcb; self.n_skipped += 1" "                    T.value[c] = ucb; self.n_skipped += 1" "BaMSOO: UCB instead of LCB for skipped children" \
 -m $O "                    if T.value[i] < vmax: break" "                    pass" "IMGPO: no v_max check in steps (i)-(ii)" \
 -m $O "                    del cand[h]" "                    pass" "IMGPO: no look-ahead (step iii)" \
 -m $O "                        T.value[c] = ucb; self.M += 1" "                        T.value[c] = ucb" "IMGPO: M not counted" \
 -m $O "return math.isqrt(max(int(p), 0))" "return max(math.isqrt(max(int(p), 0)) - 1, 0)" "h_max(p) one level shallower" \
 -m $O "return T.value[i], p + 1" "return T.value[kids].max(), p + 1" "SOO: v_max set from the best child, not the expanded node" \
 -m $O "            for c in T.expand(i):
                p += 1" "            p += 1
            for c in T.expand(i):" "BaMSOO: p counts expansions, not nodes" \
 -m $O "sb = math.sqrt(beta_bamsoo(p, self.eta))" "sb = math.sqrt(beta_bamsoo(p - 1, self.eta))" "BaMSOO: beta_p read at p - 1" \
 -m $O "return mu + varsigma_imgpo(self.M, self.eta) * sd" "return mu + varsigma_imgpo(self.M + 1, self.eta) * sd" "IMGPO: varsigma_M off by one" \
 -m $O "while h <= min(tree.height, self.h_max(p) + extra):" "while h <= min(tree.height, self.h_max(p - 1) + extra):" "SOO/BaMSOO: depth limit read at p - 1"
python ../shared/tools/mutants.py tests/test_boo.py::test_unlimited_depth_runs_to_the_budget tests/test_optimistic.py::test_tree_stops_splitting_at_the_resolution_limit \
 -m $O "MIN_WIDTH = 2.0 ** -40" "MIN_WIDTH = 0.0" "no resolution limit (h_max=None dives until the widths underflow)" \
 -m $O "return bool(np.sort(self.width[i])[-self.b] / self.a >= self.min_width)" "return True" "every node splittable" \
 -m $O "ok = np.sort(cw, 1)[:, -self.b] / self.a >= self.min_width" "ok = np.ones(len(cw), bool)" "children at the resolution limit kept among the leaves"
