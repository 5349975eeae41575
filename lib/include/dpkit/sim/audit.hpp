// dpkit/sim/audit.hpp — privacy auditing from Monte Carlo samples of a scalar statistic.
//
// Run a mechanism many times on neighbouring datasets D and D′ and record a scalar statistic
// of each output (for a Gaussian mechanism the output itself, for a training run e.g. the
// projection ⟨X_t, v⟩ of the final iterate). Every threshold θ defines a test of "D" against
// "D′"; its type I error α = P_D(reject) and type II error β = P_{D′}(accept) lie on or above
// the true tradeoff curve T(D, D′) (BSA24 §2.2, Def 2.2). Estimating (α, β) with
// simultaneous Clopper–Pearson boxes gives
//
//   * estimate_tradeoff:    the empirical tradeoff points with confidence boxes;
//   * audit_tradeoff:       a verdict on a claimed lower bound f ≤ T (f-DP claim): violated
//                           when a whole box lies below f, holds when every box lies on or
//                           above f (docs/architecture.md, "Validation");
//   * epsilon_lower_bound:  a certified lower bound on the ε of any (ε, δ)-DP guarantee.
//
// Method: Jagielski, Ullman & Oprea 2020 (arXiv 2006.07709) and Nasr et al. 2021
// (arXiv 2101.04535), as in google-deepmind/jax_privacy auditing.py (`epsilon_clopper_pearson`
// with Bonferroni over all thresholds).
//
// Monte Carlo can refute a privacy claim, never prove one: "holds" means only that the
// sampled tests are consistent with the claim at the stated confidence.
//
// Uses only dpkit::core and Boost.Math (through statistics.hpp): the simulator must not know
// the bound it is checked against.
#pragma once

#include <cmath>
#include <cstddef>
#include <functional>
#include <span>
#include <string_view>
#include <vector>

#include "dpkit/core/result.hpp"

namespace dpkit::sim {

/// Outcome of checking a claimed bound against Monte Carlo confidence intervals
/// (docs/architecture.md, "Validation").
enum class verdict {
  /// Every confidence region lies on the claimed side of the bound.
  holds,
  /// Some confidence region lies wholly on the wrong side: the claim is refuted at the stated
  /// confidence.
  violated,
  /// Neither: some region straddles the bound.
  inconclusive,
  /// The data (or an exact computation) contradict a claim *as the paper states it*, while
  /// what dpkit audits in its place is not contradicted. Never returned by audit_tradeoff; set
  /// by validation scenarios whose paper claim is known to fail (the expected refutations).
  refuted,
};

/// "holds", "violated", "inconclusive" or "refuted".
std::string_view to_string(verdict v) noexcept;

/// Which threshold tests are run. The null hypothesis is always "the data set is D".
enum class test_direction {
  /// Reject D when statistic > θ (use when the statistic tends to be larger under D′):
  /// α = P_D(stat > θ), β = P_{D′}(stat ≤ θ).
  reject_above,
  /// Reject D when statistic < θ (the statistic tends to be smaller under D′):
  /// α = P_D(stat < θ), β = P_{D′}(stat ≥ θ).
  reject_below,
  /// Both families of tests (twice as many intervals in the Bonferroni correction).
  both,
};

/// "reject-above", "reject-below" or "both".
std::string_view to_string(test_direction d) noexcept;

/// Options of estimate_tradeoff.
struct tradeoff_options {
  /// Thresholds θ. For a strictly valid confidence statement they must be fixed before the
  /// samples are seen (e.g. from theory or a pilot run). No NaN; ±∞ allowed; duplicates are
  /// removed. Default: empty, in which case `threshold_count` is used.
  std::vector<double> thresholds;
  /// When `thresholds` is empty: m thresholds at the pooled-sample quantiles j/(m + 1),
  /// j = 1, …, m (order statistic ⌈p·N⌉ of the N pooled samples; duplicates removed). These
  /// thresholds depend on the samples, which the Clopper–Pearson argument does not strictly
  /// cover (the effect is of the order of one sample per count); `empirical_tradeoff::
  /// thresholds_from_data` records it. Must be ≥ 1. Default: 20.
  std::size_t threshold_count = 20;
  /// When `thresholds` is empty and pilot_fraction ∈ (0, 1): the m thresholds are the pooled
  /// quantiles of a pilot — the first ⌊pilot_fraction·n⌋ samples of each side — and the
  /// tradeoff is estimated on the remaining samples only. The thresholds are then independent
  /// of the samples the intervals use, so the simultaneous Clopper–Pearson statement holds
  /// exactly. The samples must be in an order unrelated to their values (e.g. by replicate
  /// index, as run_monte_carlo stores them). 0 (default): quantiles of all samples (see above).
  double pilot_fraction = 0;
  /// Simultaneous confidence of the whole family of intervals, in (0, 1). Default: 0.95.
  double confidence = 0.95;
  /// Default: reject_above.
  test_direction direction = test_direction::reject_above;
};

/// One threshold test with its estimated errors and their simultaneous confidence limits.
struct tradeoff_point {
  double threshold = NAN;
  double alpha = NAN;     ///< α̂: fraction of D samples on the rejecting side (type I error)
  double alpha_lo = NAN;  ///< Clopper–Pearson limits of α at interval_confidence
  double alpha_hi = NAN;
  double beta = NAN;  ///< β̂: fraction of D′ samples on the accepting side (type II error)
  double beta_lo = NAN;
  double beta_hi = NAN;
  test_direction direction = test_direction::reject_above;  ///< reject_above or reject_below
};

/// Empirical tradeoff points; all boxes [alpha_lo, alpha_hi] × [beta_lo, beta_hi] contain the
/// true (α, β) simultaneously with probability ≥ `confidence` (Bonferroni). Label: estimate.
struct empirical_tradeoff {
  /// reject_above points first (thresholds ascending), then reject_below points.
  std::vector<tradeoff_point> points;
  std::size_t n_d = 0;                ///< number of samples under D
  std::size_t n_dprime = 0;           ///< number of samples under D′
  double confidence = NAN;            ///< simultaneous (family-wise) confidence
  std::size_t intervals = 0;          ///< Bonferroni family size: 2 × points.size()
  double interval_confidence = NAN;   ///< of each interval: 1 − (1 − confidence)/intervals
  bool thresholds_from_data = false;  ///< true when thresholds were quantiles of the same samples
  std::size_t pilot_d = 0;            ///< samples of D used only to choose thresholds
  std::size_t pilot_dprime = 0;       ///< samples of D′ used only to choose thresholds
  bound_kind kind = bound_kind::estimate;
};

/// Estimates the tradeoff points (α̂(θ), β̂(θ)) of threshold tests between the samples of a
/// scalar statistic under D and under D′ (the threshold tests of JUO20 and
/// NST+21 in 1-D). Each α and β gets a two-sided Clopper–Pearson interval (statistics.hpp) at level
/// 1 − (1 − confidence)/K, with K = 2 × (number of points) the number of intervals, so that by
/// Bonferroni's inequality all K intervals hold simultaneously with probability ≥ confidence.
/// Requires both sample sets non-empty and free of NaN (±∞ allowed), options as documented.
/// Cost: O(N log N + K log N) plus K incomplete-beta inversions.
empirical_tradeoff estimate_tradeoff(std::span<const double> samples_d,
                                     std::span<const double> samples_dprime,
                                     const tradeoff_options& options = {});

/// Result of audit_tradeoff. Margins are differences of type II errors (β scale).
struct tradeoff_audit {
  sim::verdict verdict = sim::verdict::inconclusive;
  double confidence = NAN;  ///< the simultaneous confidence of the boxes (and the verdict)
  /// Certified diagnostics (at `confidence`):
  std::size_t violation_index = 0;  ///< argmax_i [f(alpha_hi_i) − beta_hi_i]
  double violation_margin = NAN;    ///< max_i [f(alpha_hi_i) − beta_hi_i]; > 0 ⇔ violated
  std::size_t hold_index = 0;       ///< argmin_i [beta_lo_i − f(alpha_lo_i)]
  double hold_margin = NAN;         ///< min_i [beta_lo_i − f(alpha_lo_i)]; ≥ 0 ⇔ holds
  /// Tightness (point estimates, no confidence statement):
  std::size_t closest_index = 0;  ///< argmin_i [beta_i − f(alpha_i)]
  /// min_i [β̂_i − f(α̂_i)]: where the estimated curve comes closest to the claim. Near 0 for a
  /// tight claim; negative when a point estimate lies below the claim.
  double min_gap = NAN;
  std::size_t loosest_index = 0;  ///< argmax_i [beta_i − f(alpha_i)]
  /// max_i [β̂_i − f(α̂_i)]: the largest amount by which the estimated curve exceeds the claim
  /// (how loose the claim is at its worst among the tested points).
  double max_gap = NAN;
};

/// Checks a claimed tradeoff lower bound f (an f-DP claim T(D, D′) ≥ f; f non-increasing on
/// [0, 1], as every tradeoff function is — BSA24 Def 2.2) against the empirical boxes:
///
///   violated      iff some i has beta_hi_i < f(alpha_hi_i): the whole box lies below f
///                 (valid because f is non-increasing, so f ≥ f(alpha_hi) on the box);
///   holds         iff every i has beta_lo_i ≥ f(alpha_lo_i): every box lies on or above f;
///   inconclusive  otherwise.
///
/// A threshold beyond the D samples (no D sample
/// rejected, alpha_lo = 0) needs beta_lo ≥ f(0), usually 1, so such thresholds make "holds"
/// unreachable: audit at moderate α (0.01–0.5). If the claim is
/// true, "violated" is returned with probability ≤ 1 − confidence (exactly so for thresholds
/// fixed in advance). Requires a non-empty `empirical` and f(α) not NaN at every α used.
tradeoff_audit audit_tradeoff(const empirical_tradeoff& empirical,
                              const std::function<double(double)>& f);

/// Result of epsilon_lower_bound. Label: lower_bound, holding with probability ≥ confidence.
struct epsilon_audit {
  double epsilon = 0;  ///< certified lower bound on ε at `delta`; 0 when none positive
  double delta = NAN;
  double confidence = NAN;  ///< probability with which the bound holds
  double threshold = NAN;   ///< θ of the test achieving it (NaN when epsilon = 0)
  std::size_t index = 0;    ///< its index in empirical.points (points.size() when none)
  test_direction direction = test_direction::reject_above;  ///< its direction
  bound_kind kind = bound_kind::lower_bound;
};

/// The largest ε certified by any of the tests: an (ε, δ)-DP mechanism has, for every test
/// with errors (α, β) (Kairouz, Oh & Viswanath 2015 Thm 2.1; BSA24 §2.6),
///
///     α + e^ε β ≥ 1 − δ    and    β + e^ε α ≥ 1 − δ,
///
/// so on the event that every box holds (probability ≥ confidence)
///
///     ε ≥ max_i max( log((1 − δ − alpha_hi_i)/beta_hi_i), log((1 − δ − beta_hi_i)/alpha_hi_i) ),
///
/// terms with a non-positive numerator skipped (Clopper–Pearson upper limits are > 0, so
/// the denominators are positive). Returns max(0, that): a **lower bound** on the ε of every
/// (ε, δ)-DP guarantee for this pair of neighbours, holding with probability ≥ confidence.
/// It grows only like log n (about 5.5 for μ = 2, n = 1e5 against a true 10 at
/// δ = 1e-5). Requires δ ∈ [0, 1) and a non-empty `empirical`.
epsilon_audit epsilon_lower_bound(const empirical_tradeoff& empirical, double delta);

}  // namespace dpkit::sim
