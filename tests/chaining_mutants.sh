#!/usr/bin/env bash
# Break each rule of Chaining-UCB (Algorithms 1-2) once and check that tests/test_chaining.py notices (run from the
# project's root, with ../shared beside it, or with MUTANTS=path/to/mutants.py).
C=hdbo_nb/chaining.py
python ${MUTANTS:-../shared/tools/mutants.py} tests/test_chaining.py \
 -m $C "e = eps_i if h_scale == 'alg1' else 2 * eps_i" "e = 2 * eps_i if h_scale == 'alg1' else 2 * eps_i" "H_i with eps_(i-1) under Algorithm 1's scale" \
 -m $C "return int(min(max(math.ceil(1 - math.log2(sigma_min) - 1e-12), 1), max_levels))" "return int(min(max(math.ceil(2 - math.log2(sigma_min) - 1e-12), 1), max_levels))" "one level too many" \
 -m $C "return 2.0 ** (1 - i)" "return 2.0 ** (-i)" "eps_i off by one level" \
 -m $C "if e >= sigma_min: b += h * (sigma > e)" "if e > sigma_min: b += h * (sigma > e)" "level range: the level at sigma_min dropped" \
 -m $C "if e >= sigma_min: b += h * (sigma > e)" "if e >= sigma_min: b += h * (sigma >= e)" "bonus steps at sigma = eps_i" \
 -m $C "s = post.mu + bonus" "s = post.mu - bonus" "wrong sign of the bonus" \
 -m $C "s = post.mu + bonus" "s = post.mu + 0 * bonus" "the mean instead of the upper bound" \
 -m $C "hs = lambda size, i: h_value(eps_level(i), size, i, t, o['delta'], o['h_scale'])" "hs = lambda size, i: h_value(eps_level(i), size, i, t + 1, o['delta'], o['h_scale'])" "t off by one" \
 -m $C "math.log((size + 1) * i**2 * t**2" "math.log((size + 2) * i**2 * t**2" "|T_i| + 2 in H_i" \
 -m $C "Xb = np.flatnonzero(dT2 > e2)" "Xb = np.flatnonzero(dT2 >= e2)" "dense path: a point at exactly eps_i counted as uncovered" \
 -m $C "act = dT2 > e2 " "act = dT2 >= e2 " "pairs path: a point at exactly eps_i counted as uncovered" \
 -m $C "np.minimum(dT2, D2[new[a:a + 256]].min(0), out=dT2)" "np.minimum(dT2, dT2, out=dT2)" "dense path: d(x, T) not updated" \
 -m $C "np.minimum.at(dT2, cols[s], d2[s])" "pass" "pairs path: d(x, T) not updated" \
 -m $C "c = int(np.argmax(deg))                    # the largest" "c = len(deg) - 1 - int(np.argmax(deg[::-1]))   # the largest" "ties to the highest index (sparse)" \
 -m $C "np.subtract.at(deg, _neighbours(indptr, indices, S), 1)" "pass" "sparse greedy: degrees not updated" \
 -m $C "deg -= np.where(uncovered, np.count_nonzero(B[S], axis=0), 0)" "pass" "dense greedy: degrees not updated" \
 -m $C "blk = v[a:b, None] + v[None, :] - 2 * np.asarray(cov[a:b], dtype=float)" "blk = v[a:b, None] + v[None, :] - np.asarray(cov[a:b], dtype=float)" "d_n^2 without the factor 2 (dense)" \
 -m $C "blk -= 2 * np.asarray(cov[a:b], dtype=float)" "blk -= np.asarray(cov[a:b], dtype=float)" "d_n^2 without the factor 2 (pairs)" \
 -m $C "smin = max(float(sigma.min()), o['sigma_floor'])" "smin = max(float(sigma.max()), o['sigma_floor'])" "sigma_max instead of sigma_min" \
 -m $C "D2 = None if self._dense else canonical_pairs(self.post.cov, dtype=dt)" "D2 = None if self._dense else canonical_pairs(self.K0, dtype=dt)" "sparse path: the prior metric instead of the posterior one" \
 -m $C "sigma_floor=1e-6,   # floor" "sigma_floor=0.03,   # floor" "sigma_min floored at 0.03 (six levels at most)" \
 -m $C "chaining_bonus(sigma, [hs(1, i) for i in range(1, L + 1)], smin)" "chaining_bonus(sigma, [hs(2, i) for i in range(1, L + 1)], smin)" "diagnostic: |T_i| = 2 in the counterfactual" \
 -m $C "return sum(1 for i in range(1, L + 1) if sigma_min <= eps_level(i) < smax)" "return sum(1 for i in range(1, L + 1) if sigma_min < eps_level(i) < smax)" "diagnostic: active levels without the level at sigma_min" \
 -m $C "else [np.zeros(1, dtype=np.int64)] * L" "else [np.zeros(2, dtype=np.int64)] * L" "ablation: |T_i| = 2 instead of 1"
