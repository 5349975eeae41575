// dpkit/divergence/tradeoff.hpp — tradeoff functions as objects (f-DP, BSA24 §2.2).
//
// A tradeoff function f : [0, 1] → [0, 1] is convex, continuous, non-increasing and
// f(α) ≤ 1 − α (BSA24 Lemma 2.3). f(α) is the smallest type II error of a test of
// P vs Q with type I error α: f = T(P, Q). A mechanism is f-DP when T(M(S), M(S′)) ≥ f.
//
// Any tradeoff function has the privacy profile (DRS22 Prop. 5)
//
//     δ_f(ε) = 1 + f*(−e^ε) = sup_{α ∈ [0,1]} { 1 − f(α) − e^ε α },
//
// and the mechanism is (ε, δ_f(ε))-DP for every ε. The base class computes it numerically
// (primal–dual); subclasses with a closed form override it.
#pragma once

#include <span>
#include <string>
#include <vector>

#include "dpkit/divergence/result.hpp"

namespace dpkit::divergence {

class tradeoff_function {
 public:
  virtual ~tradeoff_function() = default;

  /// f(α) for α ∈ [0, 1].
  [[nodiscard]] virtual double beta(double alpha) const = 0;

  /// 1 − f(α), the power of the optimal test. The default subtracts; curves with values
  /// near 1 override it to avoid cancellation (it is what δ(ε) is built from).
  [[nodiscard]] virtual double power(double alpha) const;

  /// Left-continuous inverse f⁻¹(β) = inf{α ∈ [0,1] : f(α) ≤ β}. Default: bisection.
  [[nodiscard]] virtual double inverse(double beta) const;

  /// δ_f(ε) = sup_α {1 − f(α) − e^ε α} ≥ 0, for any real ε. Default: primal_dual_profile.
  [[nodiscard]] virtual double privacy_profile(double epsilon) const;

  /// One-line description for reports, e.g. "G(1.5)".
  [[nodiscard]] virtual std::string describe() const = 0;
};

/// The numerical primal–dual profile: maximises 1 − f(α) − e^ε α over α ∈ [0, 1] by a
/// scan in log α ∈ [−745, 0] followed by Brent's method (the objective is concave in α,
/// hence unimodal in log α). Absolute accuracy ≈ a few ulp of power(α*). Exposed so that
/// closed forms can be checked against it.
double primal_dual_profile(const tradeoff_function& f, double epsilon);

/// The smallest ε ≥ 0 with δ_f(ε) ≤ δ (by bracketed root finding on the profile).
/// `value` is the bracket end at which δ_f(ε) ≤ δ holds; kind is upper_bound.
epsilon_result tradeoff_epsilon(const tradeoff_function& f, double delta);

/// A piecewise-linear convex tradeoff function, stored by its vertices.
///
/// Built as the lower convex envelope (greatest convex minorant, Andrew's monotone chain)
/// of sample points; this is how a general C_p(f) = min{f_p, f_p⁻¹}** is formed (BSA24
/// Def 4.7). Note the direction of the error when the samples lie *on* a convex f: the
/// chords lie above f, so this curve is slightly *more* private than f and its δ(ε) is
/// slightly *smaller* — an optimistic approximation, O(h²) in the grid spacing.
class piecewise_linear_tradeoff final : public tradeoff_function {
 public:
  /// Lower convex envelope of (alpha[i], beta[i]). Requirements (std::domain_error
  /// otherwise): equal lengths ≥ 2, α ∈ [0, 1] with min α = 0 and max α = 1, β ∈ [0, 1].
  static piecewise_linear_tradeoff lower_convex_envelope(std::span<const double> alpha,
                                                         std::span<const double> beta);

  /// The tradeoff function of (ε, δ)-DP: f(α) = max{0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)}
  /// (DRS22 eq. (5)). ε ≥ 0, δ ∈ [0, 1].
  static piecewise_linear_tradeoff from_epsilon_delta(double epsilon, double delta);

  [[nodiscard]] double beta(double alpha) const override;
  [[nodiscard]] double inverse(double beta) const override;
  /// Exact: the supremum of a concave piecewise-linear function is at a vertex.
  [[nodiscard]] double privacy_profile(double epsilon) const override;
  [[nodiscard]] std::string describe() const override;

  [[nodiscard]] const std::vector<double>& vertex_alpha() const { return alpha_; }
  [[nodiscard]] const std::vector<double>& vertex_beta() const { return beta_; }

 private:
  piecewise_linear_tradeoff(std::vector<double> alpha, std::vector<double> beta);
  std::vector<double> alpha_;  // increasing, from 0 to 1
  std::vector<double> beta_;   // non-increasing, convex
};

}  // namespace dpkit::divergence
