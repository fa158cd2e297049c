#!/usr/bin/env bash
# Break each rule of MS-UCB (Algorithm 1, the choices around it, and the rules its claims apply) once and check that the
# tests notice (run from the project's root, with ../shared beside it).
M=hdbo_nb/msucb.py
E=hdbo_nb/msucb_experiments.py
H=hdbo_nb/msucb_theory.py
T=tests/test_msucb.py
python ../shared/tools/mutants.py $T::test_steps_match_a_direct_implementation $T::test_beta_values $T::test_card_Z \
 $T::test_incumbent_z_added_once $T::test_box_run_is_the_unit_run_mapped $T::test_nan_is_recorded_and_ignored $T::test_cache_exact_at_high_D $T::test_batched_scores_every_slice \
 $T::test_ard_option_and_cpu_diagnostic $T::test_run_summaries_on_a_small_sweep $T::test_headline_rule $T::test_theory_checks_fail_on_their_variants \
 -m $M "return np.concatenate([z, y], axis=-1)" "return np.concatenate([y, z], axis=-1)" "slice layout: x = concat(y, z)" \
 -m $M "gp.X[:, D - d:]" "gp.X[:, :d]" "slice layout: the posterior reads y from the first d coordinates" \
 -m $M "self._Xz[n0:n0 + k] = Xnew[:, :self.p]" "self._Xz[n0:n0 + k] = Xnew[:, self.D - self.p:]" "slice layout: the cache reads z from the last coordinates" \
 -m $M "+ 2 * d * np.log(2 * b * d * np.sqrt(np.log(6 * D * a / delta)) * t ** 2))" "+ 2 * d * np.log(2 * b * d * np.sqrt(np.log(2 * D * a / delta)) * t ** 2))" "beta_t: Lemma 3's 2Da in place of 6Da" \
 -m $M "(2 * np.log(np.pi ** 2 * t ** 2 / delta)" "(2 * np.log(np.pi ** 2 * t ** 2 / (3 * delta))" "beta_t: pi^2 t^2 / (3 delta)" \
 -m $M "+ 2 * d * np.log(2 * b * d * np.sqrt(np.log(6 * D * a / delta)) * t ** 2))" "+ 2 * D * np.log(2 * b * D * np.sqrt(np.log(6 * D * a / delta)) * t ** 2))" "beta_t: D in place of d" \
 -m $M "sd, sb = np.sqrt(var), math.sqrt(beta)" "sd, sb = np.sqrt(var), beta" "beta_t in place of its square root" \
 -m $M "return int(N0 * t ** alpha)" "return int(N0 * (t + 1) ** alpha)" "N_t = N0 (t+1)^alpha" \
 -m $M "Znew = self.rng.uniform(-1, 1, (n_new_subspaces(t, self.N0, self.alpha), self.D - self.d))" "Znew = self.rng.uniform(-1, 1, (n_new_subspaces(max(t - 1, 1), self.N0, self.alpha), self.D - self.d))" "N_t read at t - 1" \
 -m $M "j, y, val = maximize_slices(post, beta, self.rng," "j, y, val = maximize_slices(post, 0., self.rng," "the posterior mean in place of the UCB" \
 -m $M "if not np.any(np.all(self.cache.Z == z_inc, axis=1)): Znew = np.vstack([Znew, z_inc])" "Znew = np.vstack([Znew, z_inc])" "incumbent z appended every iteration (duplicates)" \
 -m $M "beta = self.beta(t)" "beta = self.beta(t + 1)" "beta_t off by one (beta_{t+1})" \
 -m $M "if len(self.U) < self.n_init:" "if len(self.U) <= self.n_init:" "one initial point too many (t off by one)" \
 -m $M "if not np.isfinite(y): return" "if y is None: return" "a NaN value reaches the GP" \
 -m $M "per = max(1, max_evals // m)" "per = max_evals // m" "batched: a slice may get no score when max_evals < |Z_t|" \
 -m $M "idx = np.repeat(np.arange(m), per)" "idx = np.repeat(np.arange(m)[:max_evals], per)" "batched: only the first max_evals slices scored" \
 -m $M "if kernel is None: kernel = Matern(2.5, np.ones(self.D) if ard else 1.0)" "if kernel is None: kernel = Matern(2.5, 1.0)" "ard=True ignored" \
 -m $E "n0, d = min(initial_design_size(tr) or 20, len(tr)), tr.diagnostics" "n0, d = len(tr), tr.diagnostics" "summaries: the best initial point read after every evaluation" \
 -m $E "return null_rule(v, note, {MS: bool(_learning(panels, MS, drop)), GD: bool(_learning(panels, GD, drop))})" "return v, note" "headline: no null-model rule" \
 -m $E "        lost = [pl for pl in inf if panels[pl].beats(GD, MS, drop)]" "        lost = [pl for pl in inf if panels[pl].beats(MS, GD, drop)]" "headline: the comparison reversed" \
 -m $E "all(cpu(MS, pl, drop) < cpu(GD, pl, drop) for pl in panels)" "all(cpu(MS, pl, drop) > 0 for pl in panels)" "headline: the cost never compared" \
 -m $H "slope < slope_max," "slope < 2 * slope_max," "Theorem 1's check: the slope bound loosened"
