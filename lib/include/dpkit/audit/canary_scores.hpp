// dpkit/audit/canary_scores.hpp — the privacy a real training run's canary scores prove.
//
// A practitioner trains with canaries, some inserted ("in") and some held out ("out"), and
// scores each canary after training (loss, logit, gradient inner product; larger = more likely
// a member). Every threshold θ is a membership test "in iff score ≥ θ" with a true positive
// rate TPR(θ) and a false positive rate FPR(θ). An (ε, δ)-DP training run forces every such
// test to satisfy TPR ≤ e^ε·FPR + δ (Kairouz, Oh & Viswanath 2015), a μ-GDP run forces
// 1 − TPR ≥ Φ(Φ⁻¹(1 − FPR) − μ) (Dong, Roth & Su 2022). Turning counts into confidence limits
// turns these inequalities into lower bounds on ε (or μ) that hold with a stated probability —
// to set beside the accountant's certified upper bound: a lower bound above the claimed ε is a
// bug (a wrong sampler, a missing clip, noise on the wrong tensor).
//
// Two protocols, two families of statistics:
//
//   * independent runs (each score from its own training run, or canaries treated as
//     independent): Clopper–Pearson ε (Jagielski, Ullman & Oprea 2020; Nasr et al. 2021),
//     the GDP route (Nasr et al. 2023), TPR at a given FPR and AUROC;
//   * one run with m canaries, each inserted by an independent fair coin: the one-run ε of
//     Steinke, Nasr & Jagielski 2023 and the one-run f-DP (Gaussian) bound of Mahloujifar,
//     Melis & Chaudhuri 2024. Only these are sound for scores of one run, which are dependent.
//
// Every number says what it is (core/result.hpp bound_kind): `lower_bound` — ε of every
// (ε, δ)-DP guarantee of the run is at least this, with probability ≥ confidence — or
// `estimate`. The GDP-based ε (the GDP route, one-run f-DP) are estimates: what they certify
// is a lower bound on μ (`mu_lower`) for μ-GDP guarantees; the ε of μ_lower-GDP at δ is the ε
// of the run only if its tradeoff curve is Gaussian-shaped.
//
// References: docs/audit.md ("Audit a real run from canary scores"), docs/references.md.
// Method cross-checked against google-deepmind/jax_privacy auditing.py (CanaryScoreAuditor)
// on shared score arrays (canary_scores_test.cpp); the differences are documented there.
//
// Uses dpkit::core and dpkit::divergence (the GDP ↔ (ε, δ) conversion) only.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "dpkit/core/result.hpp"

namespace dpkit::audit {

// --- the scores' counts ------------------------------------------------------------------

/// The membership tests of the scores: for each candidate threshold θ_j (the distinct scores,
/// ascending, then +∞, the test that guesses nobody), the number of in-canaries and of
/// out-canaries with score ≥ θ_j. Both counts are non-increasing in j and 0 at θ = +∞.
struct score_counts {
  std::vector<double> thresholds;
  std::vector<std::size_t> true_positives;   ///< #{in ≥ θ_j}
  std::vector<std::size_t> false_positives;  ///< #{out ≥ θ_j}
  std::size_t n_in = 0;
  std::size_t n_out = 0;
};

/// Counts of the scores. Requires both non-empty (for a one-run audit where every canary is
/// on one side, use one_run_epsilon directly) and free of NaN (±∞ allowed). O(N log N).
score_counts count_scores(std::span<const double> in_scores, std::span<const double> out_scores);

// --- independent-runs statistics ---------------------------------------------------------

/// One threshold's contribution to an ε (or μ) lower bound.
struct threshold_bound {
  double value = 0;         ///< the bound (ε or μ); 0 when no threshold gives a positive one
  double threshold = NAN;   ///< θ of the test achieving it (NaN when value = 0)
  std::size_t true_positives = 0;
  std::size_t false_positives = 0;
  bool reverse = false;  ///< achieved by the reverse test "in iff score < θ" (two-sided only)
};

/// Clopper–Pearson ε lower bound over the thresholds of `counts`. At each θ, the one-sided
/// limits FPR_hi (upper, of the out-canaries' count) and FNR_hi = 1 − TPR_lo (upper, of the
/// in-canaries' misses), each at error `tail`, give
///
///     ε ≥ log((1 − FNR_hi − δ) / FPR_hi)                     (the test "in iff score ≥ θ")
///     ε ≥ log((1 − FPR_hi − δ) / FNR_hi)                     (two_sided: "in iff score < θ")
///
/// for every (ε, δ)-DP run, on the event that both limits hold (probability ≥ 1 − 2·tail);
/// the reverse test uses the same two limits, so two_sided costs no confidence. The caller
/// chooses `tail`: (1 − confidence)/(2·K) over K thresholds (Bonferroni) holds for all K tests
/// at once. Result: the largest bound (≥ 0). Requires tail ∈ (0, 0.5], δ ∈ [0, 1).
threshold_bound clopper_pearson_epsilon(const score_counts& counts,
                                        double tail,
                                        double delta,
                                        bool two_sided);

/// The GDP route: a lower bound on μ of every μ-GDP guarantee of the run. A μ-GDP run has, at
/// every threshold, FNR ≥ Φ(Φ⁻¹(1 − FPR) − μ), so
///
///     μ ≥ Φ⁻¹(1 − FPR_hi) − Φ⁻¹(FNR_hi)
///
/// on the event that both upper limits hold (each at error `tail`; Bonferroni over K
/// thresholds: (1 − confidence)/(2K)). Thresholds where either limit is 1 are skipped.
/// One-sided ("in iff score ≥ θ"): the reverse test would need lower limits, a larger family.
threshold_bound gdp_mu_lower(const score_counts& counts, double tail);

// --- one-run statistics (m canaries in one run, each inserted by a fair coin) ------------

/// p-value of "the run is (ε, δ)-DP" when `correct` of `guesses` membership guesses about m
/// canaries are right (Steinke, Nasr & Jagielski 2023 [SNJ23], one-sided guesses: k₋ = 0): with
/// q = e^ε/(1 + e^ε) and W ~ Binomial(guesses, q),
///
///     p = P(W ≥ v) + 2mδ · max_{i=1..v} P(v − i ≤ W < v)/i,        v = correct,
///
/// capped at 1. Requires guesses ≤ m, correct ≤ guesses, ε ≥ 0, δ ∈ [0, 1).
double one_run_p_value(std::size_t m,
                       std::size_t guesses,
                       std::size_t correct,
                       double epsilon,
                       double delta);

/// The largest ε whose (ε, δ) claim the guesses reject at significance 1 − confidence:
/// sup{ε : one_run_p_value(ε) ≤ 1 − confidence} (0 when none; bisection to 1e-9 relative,
/// rounded down). A lower bound on ε with probability ≥ confidence (Steinke et al. 2023).
/// `at_least` > 0: 0 unless the guesses reject ε = at_least, the search starting there (a
/// threshold search skips, at the cost of one p-value, every count that cannot beat its best).
double one_run_epsilon(std::size_t m,
                       std::size_t guesses,
                       std::size_t correct,
                       double confidence,
                       double delta,
                       double at_least = 0);

/// The largest μ for which the guesses reject "the run is μ-GDP" at significance
/// 1 − confidence, by the one-run f-DP audit of Mahloujifar, Melis & Chaudhuri 2024 [MMC24]
/// for membership guesses (its recursion through the inverse of the tradeoff curve's blow-up,
/// as jax_privacy's epsilon_one_run_fdp runs it): 0 when none.
/// A lower bound on μ of every μ-GDP guarantee, with probability ≥ confidence.
/// `at_least` as for one_run_epsilon.
double one_run_gdp_mu(std::size_t m,
                      std::size_t guesses,
                      std::size_t correct,
                      double confidence,
                      double at_least = 0);

// --- descriptive statistics ---------------------------------------------------------------

/// Largest TPR at false positive rate ≤ fpr, allowing a random choice between two thresholds
/// (the upper concave hull of the ROC points, interpolated) — an estimate.
struct tpr_at_fpr_result {
  double fpr = NAN;
  double tpr = NAN;        ///< the estimate
  double tpr_lower = NAN;  ///< Clopper–Pearson lower limit (at (1 − confidence)/2) of the
                           ///< left hull vertex's TPR
  double tpr_upper = NAN;  ///< upper limit of the right hull vertex's TPR
  double confidence = NAN;
};
tpr_at_fpr_result tpr_at_fpr(const score_counts& counts, double fpr, double confidence);

/// Area under the ROC curve: P(in > out) + P(in = out)/2 over all pairs (Mann–Whitney), the
/// trapezoid rule on the ROC points. An estimate.
double auroc(const score_counts& counts);

/// Area under the concave hull of the ROC points (the best tests that randomise between two
/// thresholds) — ≥ auroc; jax_privacy's attack_auroc. An estimate.
double auroc_hull(const score_counts& counts);

// --- the whole audit ----------------------------------------------------------------------

/// How the ε lower bounds of the independent-runs protocol (and the one-run ones without
/// `guesses`) choose their threshold.
enum class threshold_strategy {
  /// Every candidate threshold, the family's error split evenly over them (Bonferroni). The
  /// candidates are the scores themselves (as in Nasr et al. 2021 and jax_privacy), a
  /// data-dependent family: exact up to the order of one score per count.
  bonferroni,
  /// A random part of the scores (`split_fraction`) chooses the threshold; the rest, which it
  /// never saw, evaluates that one test: exact.
  split,
};
/// "bonferroni" or "split".
std::string_view to_string(threshold_strategy s) noexcept;
/// The strategy of that name ('_' read as '-'), or std::nullopt.
std::optional<threshold_strategy> parse_threshold_strategy(std::string_view name) noexcept;

struct canary_audit_options {
  double delta = 1e-5;         ///< ε is reported at this δ ∈ [0, 1)
  double confidence = 0.95;    ///< of every lower bound and interval, in (0.5, 1)
  threshold_strategy strategy = threshold_strategy::bonferroni;
  double split_fraction = 0.5;  ///< split: the share that chooses the threshold, in (0, 1)
  std::uint64_t seed = 0;       ///< split: the random partition
  bool two_sided = false;       ///< Clopper–Pearson: the reverse tests too
  double fpr = 0.01;            ///< TPR is reported at this false positive rate, in [0, 1]
  /// One run with m = in + out canaries, each inserted by a fair coin: adds the one-run rows
  /// and makes them the ones that bound ε (the independent-runs rows become estimates).
  bool one_run = false;
  /// One run: guess "in" for the `guesses` highest scores (ties at the cut all guessed), a
  /// number fixed before the scores were seen — no threshold search. Requires one_run.
  std::optional<std::size_t> guesses;
  /// A claimed upper bound on ε at δ: violated when the primary lower bound (one-run ε with
  /// one_run, else Clopper–Pearson) exceeds it. NaN: no claim.
  double claim_epsilon = NAN;
};

/// One row of the audit.
struct audit_statistic {
  std::string statistic;  ///< clopper-pearson, gdp, one-run, one-run-fdp, tpr-at-fpr, auroc
  bound_kind kind = bound_kind::estimate;  ///< of `epsilon` (lower_bound or estimate)
  double epsilon = NAN;   ///< at `delta`; NaN for tpr-at-fpr and auroc
  double delta = NAN;
  double confidence = NAN;
  double mu_lower = NAN;  ///< gdp, one-run-fdp: certified lower bound on μ (μ-GDP claims)
  double threshold = NAN;  ///< θ of the test that gave the bound (scores ≥ θ guessed in)
  std::size_t guesses = 0;  ///< one-run rows: guesses made and how many were right
  std::size_t correct = 0;
  double fpr = NAN, tpr = NAN, tpr_lower = NAN, tpr_upper = NAN;  ///< tpr-at-fpr
  double auroc = NAN;       ///< auroc: Mann–Whitney
  double auroc_hull = NAN;  ///< auroc: the area under the ROC's concave hull
  std::string method;  ///< how it was computed, in words (threshold strategy, family size)
};

/// One number a row reports, as the front ends print it (a count when `integer`).
struct audit_field {
  std::string_view name;
  double value = NAN;
  bool integer = false;
};

/// The numbers of a row that apply to its statistic, in the order the front ends print them:
/// epsilon, delta, confidence, mu_lower, threshold, guesses and correct (one-run rows), fpr,
/// tpr, tpr_lower, tpr_upper, auroc, auroc_hull — those that are NaN left out. The one list
/// `dpkit audit --scores` (JSON) and `dpkit.audit_scores` (the row dicts) both write.
std::vector<audit_field> reported_fields(const audit_statistic& row);

struct canary_audit {
  std::vector<audit_statistic> rows;
  std::size_t n_in = 0, n_out = 0;
  canary_audit_options options;
  /// The row whose lower bound is compared with a claim: "one-run" or "clopper-pearson".
  std::string primary;
  /// With a claim (claim_epsilon not NaN): "violated" when the primary lower bound exceeds
  /// it — the claim is refuted at `confidence` — else "inconclusive" (scores can refute a
  /// privacy claim, never prove one: "holds" is never given). Empty without a claim.
  std::string verdict;
};

/// The audit of canary scores (larger = more likely a member): the rows clopper-pearson and
/// gdp (lower bounds for independent runs; estimates with one_run), one-run and one-run-fdp
/// (one_run only), tpr-at-fpr and auroc. Requires non-empty score sets without NaN, options
/// as documented; split needs ≥ 2 scores on each side. std::domain_error naming the argument
/// otherwise.
canary_audit audit_canary_scores(std::span<const double> in_scores,
                                 std::span<const double> out_scores,
                                 const canary_audit_options& options = {});

}  // namespace dpkit::audit
