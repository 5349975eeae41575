// The reviewed list of expected refutations: claims of the papers that the data (or an exact
// computation) contradict *as printed*. `dpkit validate` prints them in their own section with
// the reason below, and fails (exit 3) on a refutation that is not in this list, and on a listed
// refutation that no longer reproduces in a tier it is expected in — so neither a code change
// nor a change of parameters can silently turn a refuted claim into "holds". Adding an entry is
// a finding about a paper: put it in docs/findings.md too, with its evidence.
#include "harness.hpp"

namespace dpkit::validation {

const std::vector<expected_refutation>& expected_refutations() {
  static const std::vector<expected_refutation> list = {
      {"zxd26-lemma9-false",
       "Lemma 9 (Zhang, Xie, Ding, Fu, Liu & Wang, long-tailed memorisation): P[Bin(m, 1/2) < "
       "0.4m] <= "
       "exp(-8m/25)",
       "the exponent is wrong: Hoeffding gives exp(-2m(0.1)^2) = exp(-m/50), and the exact "
       "probability exceeds exp(-8m/25) for every m but 1, 2 and 5",
       "exact binomial CDF for m = 1..2000 (no Monte Carlo): m = 100 gives 0.0176 against the "
       "printed 1.27e-14",
       true, true},
      {"zxd26-init-lemmas",
       "Lemmas 18-19 (long-tailed memorisation): every example keeps |S_i^(0)| >= 0.4m active "
       "neurons (and every neuron 0.4n examples) with probability >= 1 - n exp(-8m/25)",
       "the probability comes from the false Lemma 9 (zxd26-lemma9-false); with Lemma 9 "
       "corrected it is 1 - n exp(-m/50), which the scenario audits in its place: per example "
       "and per neuron as equivalences within half of each exact binomial probability (not "
       "resolved at the quick size, where they can only refute), the all-i bound at m = 400, the "
       "one audited width where it is below 1 (not resolved at the quick size; at m = 20 and 100 "
       "it is 1, not audited)",
       "at n = 150 some example fails in 98 % of draws at m = 20 (Clopper-Pearson [85, 100] %) "
       "against the printed <= 0.25, and in 47 % [27, 67] % at m = 100 against the printed "
       "1.9e-12 (seed 2026); 38-48 % at m = 100 at seeds 1, 7, 99, 3; full tier (n = 500): 48 % "
       "[39, 57] % at m = 100 against 6.3e-12, 12 % [6.9, 18.9] % at m = 200 against 8.0e-26",
       true, true},
      {"zxd26-thm3-tail-gap",
       "Remark 3: the test-error gap between long-tailed points and all points grows with the "
       "DP noise",
       "in the paper's spiked construction the L-tail of the clean model's memorised direction "
       "is dominated by each class's own spike coordinate, so tail points are more class-typical "
       "and stay easier than average under DP; Thm 3's own directions (both errors grow) hold",
       "not reproducible at the quick size, so not required to reproduce: the slope of the "
       "(tail - all) error in z is -0.0019 at 16 quick replicates (seed 2026; 98.75% Student t "
       "interval [-0.0041, 0.0003], Bonferroni over 4), and was negative at every seed tried at 32 "
       "(-0.0018, -0.0004, -0.0013, -0.0005 at seeds 2026, 1, 7, 99; 97.5% interval wholly below "
       "0 only at 2026); the gap never grows. Listed so that a run which "
       "does resolve it is reported as this known refutation, not as an unexpected one",
       false, false},
      {"zxd26-thm3-tail-L",
       "claim 27 (Remark 3.3): under DP in the regime a <= b, increasing L does not reduce the "
       "tail error",
       "Remark 3.3 reads an upper bound that is vacuous in that regime as a statement about the "
       "error; the measured error keeps the clean model's ordering in L, only less steeply. "
       "Scope: the regime a <= b located with Thm 3's hidden constants set to 1, a configuration "
       "outside Condition 1 (as every simulable one is), the L-tail along the clean model's "
       "aggregate neuron (the paper leaves it undefined): claim 27 read literally here, not Thm 3",
       "quick tier, 16 replicates: slope of the DP tail error in L at the calibrated z = 4.0 "
       "(a = 7.0 <= b = 23.6) is -0.116 (seed 2026), -0.100, -0.103, -0.112 (seeds 1, 7, 99), "
       "its 99% Student t interval (Bonferroni over 5) wholly below 0 at every seed ([-0.127, "
       "-0.104] at 2026)",
       true, false},
      {"lksp25-privacy-fixed-pair",
       "Thm 4.3 read as a DP statement: for two datasets that share every other record, noisy "
       "SGD's last iterate is as private as the HSGD law's Renyi divergence says (up to the HSGD "
       "law's exact error over the data, 1.8-3.1 %)",
       "the HSGD law models the other records as a diffusion and counts their fluctuation as "
       "privacy noise; for a fixed pair noisy SGD's last iterate is affine in the DP noise and "
       "exactly mu_fixed-GDP, with mu_fixed about twice the HSGD mu at the audited setting. "
       "Scope: least squares, two-level spectrum, d = 64 (full 128), one pair at a known "
       "position s = 0.8 (Thm 4.3's position mixture and sup over pairs not simulated), not "
       "LKSP25's d = 1000 instance",
       "exact mu_fixed from the affine recursion, confirmed by SGD's mu-hat (6 000 replicates per "
       "side): 4.055 vs HSGD mu (1 + a) = 1.803 (seed 2026), 3.703 vs 1.866 (1), 4.013 vs 1.962 "
       "(7), 3.201 vs 1.400 (99); full tier (d = 128, 64 000): 3.754 vs 1.779",
       true, true},
  };
  return list;
}

const expected_refutation* find_expected_refutation(const std::string& id) {
  for (const expected_refutation& e : expected_refutations())
    if (e.id == id) return &e;
  return nullptr;
}

judgement judge(const scenario_result& r, tier t, double bound_factor) {
  const expected_refutation* e = find_expected_refutation(r.id);
  if (r.verdict == verdict::violated)
    return {true, "violated: " + r.verdict_reason};
  if (r.verdict == verdict::refuted)
    return e ? judgement{false, ""}
             : judgement{true,
                         "refuted, but not in the reviewed list of expected refutations "
                         "(validation/scenarios/expected_refutations.cpp): " +
                             r.verdict_reason};
  // A listed refutation must still reproduce where it is expected, at the claims as stated.
  const bool expected_here = e && (t == tier::quick ? e->quick : e->full);
  if (expected_here && bound_factor == 1)
    return {true, "an expected refutation no longer reproduces (verdict " +
                      std::string(sim::to_string(r.verdict)) + "): " + e->claim};
  return {false, ""};
}

}  // namespace dpkit::validation
