// dpkit/sim/claim_audit.hpp — auditing a user's privacy claim against Monte Carlo samples.
//
// A privacy claim about a pair of neighbouring datasets (D, D′) is a lower bound f on the
// tradeoff curve of the mechanism's output: T(D, D′) ≥ f (f-DP; BSA24 Def 2.2). Three forms:
//
//   μ-GDP        f(α) = Φ(Φ⁻¹(1 − α) − μ)                               (Dong, Roth & Su 2022)
//   (ε, δ)-DP    f(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α))        (Kairouz et al. 2015)
//   a curve      points (α_i, β_i) from the user: linear between them, β_1 left of the first
//                (a tradeoff curve is non-increasing, so T(α) ≥ T(α_1) ≥ β_1 there), 0 right of
//                the last (no claim there).
//   Rényi DP     orders a_i > 1 with ε_i: D_a(M(D)‖M(D′)) ≤ ε_i and D_a(M(D′)‖M(D)) ≤ ε_i. A
//                test with errors (α, β) post-processes the pair into Bernoulli pairs, so
//                (1 − β)^a α^{1−a} + β^a (1 − α)^{1−a} ≤ e^{(a−1)ε} and
//                α^a (1 − β)^{1−a} + (1 − α)^a β^{1−a} ≤ e^{(a−1)ε} (data processing); f(α) is
//                the smallest β ≤ 1 − α meeting every constraint (each side convex in β with its
//                minimum 1 at β = 1 − α: found by bisection, to 1e-12 and rounded down).
//
// audit_privacy_claim runs the threshold tests of audit.hpp on samples of a scalar statistic
// of the output under D and under D′ (for a training run, e.g. a projection of the final
// iterate): thresholds from a pilot share of the samples, simultaneous Clopper–Pearson boxes
// on the rest, and the verdict of audit_tradeoff — `violated` when some box lies wholly below
// the claimed curve (the claim is refuted at the stated confidence), `holds` when every box
// lies on or above it, `inconclusive` otherwise (a tight claim is inconclusive: its boxes
// straddle it). It adds what a reader needs to judge the verdict: the smallest gap β − f(α)
// with the range the boxes allow, the resolution (the median half-width of the β boxes: a
// claim further than about this above the truth at the tested points is caught), a certified
// lower bound on ε at δ, and for GDP claims the Gaussian-pair estimate μ̂ with the claim's
// tightness μ/μ̂.
//
// Monte Carlo can refute a claim, never prove it: "holds" means only that the sampled tests
// are consistent with it. The statistic decides what can be seen: a claim can be violated by
// the mechanism yet hold for every threshold test of one statistic.
//
// A risk claim bounds the expected loss along the run: E F(X_t) ≤ b(t) at given steps t (F the
// empirical risk on D; for an excess-risk bound add F(x*) to b). audit_risk_claim checks it
// with Student-t intervals for the mean at each step, simultaneous over the steps (Bonferroni):
// `violated` when some step's interval lies wholly above its bound, `holds` when every interval
// lies at or below, `inconclusive` otherwise. These intervals are a normal approximation (CLT),
// exact for Gaussian risks; the confidence is nominal.
//
// Uses only dpkit::core and the sim audit (the simulator does not know the accountants).
#pragma once

#include <cmath>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "dpkit/sim/audit.hpp"

namespace dpkit::sim {

enum class claim_kind { gdp, epsilon_delta, tradeoff_curve, renyi };

/// A claimed lower bound on the tradeoff curve of (D, D′).
class privacy_claim {
 public:
  /// μ-GDP, μ ≥ 0 finite.
  static privacy_claim gdp(double mu);
  /// (ε, δ)-DP, ε ≥ 0 finite, δ ∈ [0, 1).
  static privacy_claim epsilon_delta(double epsilon, double delta);
  /// A curve through (α_i, β_i): α strictly increasing in [0, 1], β non-increasing in [0, 1],
  /// at least two points. Throws std::domain_error naming the first offending point (index).
  static privacy_claim tradeoff_curve(std::vector<double> alpha, std::vector<double> beta);
  /// Rényi DP of both orders of the pair at orders a_i > 1 (finite, increasing) with
  /// ε_i ≥ 0 finite; at least one order. Throws std::domain_error naming the point.
  static privacy_claim renyi(std::vector<double> orders, std::vector<double> epsilons);

  [[nodiscard]] claim_kind kind() const { return kind_; }
  [[nodiscard]] double mu() const { return mu_; }
  [[nodiscard]] double epsilon() const { return epsilon_; }
  [[nodiscard]] double delta() const { return delta_; }
  [[nodiscard]] const std::vector<double>& alpha() const { return alpha_; }
  [[nodiscard]] const std::vector<double>& beta() const { return beta_; }

  /// The claimed curve f(α) at α ∈ [0, 1].
  [[nodiscard]] double operator()(double alpha) const;
  /// "mu-GDP with mu = 1", "(epsilon, delta) = (1, 1e-05)", "a tradeoff curve of 5 points".
  [[nodiscard]] std::string describe() const;

 private:
  claim_kind kind_ = claim_kind::gdp;
  double mu_ = NAN, epsilon_ = NAN, delta_ = NAN;
  std::vector<double> alpha_, beta_;
};

struct claim_audit_options {
  /// Simultaneous confidence of all boxes (and of the verdict and the ε lower bound), in
  /// (0, 1). Default 0.95.
  double confidence = 0.95;
  /// Threshold tests per direction, ≥ 1. Default 24.
  std::size_t thresholds = 24;
  /// Share of each side's samples used only to place the thresholds (pooled quantiles), in
  /// (0, 1): the boxes then use independent samples and the confidence statement is exact.
  /// Default 0.1.
  double pilot_fraction = 0.1;
  /// Which tests: both directions by default (the statistic may move either way under D′).
  test_direction direction = test_direction::both;
  /// δ of the certified ε lower bound; NaN: the claim's δ for (ε, δ) claims, 1e-5 otherwise.
  double delta = NAN;
};

struct claim_audit {
  sim::verdict verdict = sim::verdict::inconclusive;
  std::string reason;       ///< one sentence: which box decided it
  double confidence = NAN;  ///< of the boxes, the verdict and epsilon_lower
  /// min_i [β̂_i − f(α̂_i)] (point estimates; ~0 for a tight claim, < 0 where an estimate lies
  /// below the claim) and the range the boxes allow: min over boxes of their worst and best
  /// corners (f decreasing: (α_lo, β_lo) and (α_hi, β_hi)).
  double min_gap = NAN, min_gap_lo = NAN, min_gap_hi = NAN;
  /// Median over the tests of the β boxes' half-widths: the smallest vertical distance between
  /// claim and truth these samples resolve.
  double resolution = NAN;
  /// Certified at `confidence`: no (ε, δ)-DP guarantee with a smaller ε holds for this pair.
  epsilon_audit epsilon_lower;
  /// μ̂ = |mean′ − mean|/pooled sd with a normal-approximation interval (an estimate of the
  /// pair's Gaussian-DP parameter, exact in the limit for Gaussian statistics; computed for
  /// every claim) and, for GDP claims, the tightness μ_claim/μ̂ (NaN for the others).
  double mu_estimate = NAN, mu_lo = NAN, mu_hi = NAN, tightness = NAN;
  empirical_tradeoff empirical;  ///< the tests, boxes and sample counts
  tradeoff_audit audit;          ///< the margins behind the verdict
};

/// Audits `claim` on samples of one scalar statistic under D and under D′ (each ≥ 20 samples,
/// no NaN). Throws std::domain_error on bad options or samples.
claim_audit audit_privacy_claim(std::span<const double> samples_d,
                                std::span<const double> samples_dprime,
                                const privacy_claim& claim,
                                const claim_audit_options& options = {});

/// A claimed upper bound on the expected risk at steps t_1 < t_2 < … (t ≥ 0).
class risk_claim {
 public:
  /// Steps strictly increasing and ≥ 0, bounds finite, at least one point. Throws
  /// std::domain_error naming the first offending point.
  static risk_claim at_steps(std::vector<long> steps, std::vector<double> bounds);
  [[nodiscard]] const std::vector<long>& steps() const { return steps_; }
  [[nodiscard]] const std::vector<double>& bounds() const { return bounds_; }

 private:
  std::vector<long> steps_;
  std::vector<double> bounds_;
};

/// The Monte Carlo estimate of the risk at one step: mean, sample sd and count (≥ 2).
struct risk_estimate {
  double mean = NAN;
  double sd = NAN;
  std::size_t count = 0;
};

struct risk_audit_row {
  long step = 0;
  double bound = NAN;
  double mean = NAN, lower = NAN, upper = NAN;  ///< simultaneous interval at `confidence`
  double tightness = NAN;                       ///< bound / mean (1: tight; > 1: room)
};

struct risk_audit {
  sim::verdict verdict = sim::verdict::inconclusive;
  std::string reason;
  double confidence = NAN;
  std::vector<risk_audit_row> rows;
  /// Median over the steps of the intervals' half-widths: a bound more than about this below
  /// the true expected risk is caught.
  double resolution = NAN;
};

/// Audits `claim` on estimates at its steps (estimates[i] at claim.steps()[i]); confidence in
/// (0, 1). Throws std::domain_error on a size mismatch or a bad estimate.
risk_audit audit_risk_claim(const risk_claim& claim,
                            std::span<const risk_estimate> estimates,
                            double confidence = 0.95);

}  // namespace dpkit::sim
