// dpkit/subsampling/subsampled_tradeoff.hpp — the subsampling operator C_p (BSA24 §2.5).
//
//   f_p = p·f + (1 − p)·Id,    C_p(f) = min{f_p, f_p⁻¹}**                      (BSA24 Def 4.7)
//
// the tightest f-DP guarantee of a mechanism that is f-DP, run on a subsample of a fraction
// p (DRS22 Thm 4.2: sampling without replacement, replace-one neighbours).
//
// For f = G(μ) the closed form has three pieces (BSA24 Def 4.7, §C.4.1, Fig. 4):
// with α* = Φ(−μ/2) and β* = pΦ(−μ/2) + (1 − p)Φ(μ/2),
//
//   C_p(G(μ))(α) = pΦ(Φ⁻¹(1−α) − μ) + (1 − p)(1 − α)          0 ≤ α ≤ α*
//                = (1 + p)Φ(−μ/2) + (1 − p)Φ(μ/2) − α          α* ≤ α ≤ β*   (slope −1)
//                = (G(μ)_p)⁻¹(α)                                β* ≤ α ≤ 1
//
// and it is symmetric. `subsample(f, p)` computes C_p(f) for any tradeoff function on a grid
// (lower convex envelope of min{f_p, f_p⁻¹}); the tests check it against the closed form.
#pragma once

#include <cstddef>
#include <string>

#include "dpkit/divergence/tradeoff.hpp"

namespace dpkit::subsampling {

/// The one-sided G(μ)_p = p·G(μ) + (1 − p)·Id = T(N(0,1), (1−p)N(0,1) + pN(μ,1)).
/// Not symmetric; BSA24 fn. 13 warns it differs from C_p(G(μ)).
class gaussian_mixture_tradeoff final : public divergence::tradeoff_function {
 public:
  gaussian_mixture_tradeoff(double mu, double p);  ///< μ ≥ 0, p ∈ [0, 1]
  [[nodiscard]] double beta(double alpha) const override;
  [[nodiscard]] double power(double alpha) const override;
  /// (G(μ)_p)⁻¹(β) = Φ(z) with (1 − p)Φ(z) + pΦ(z + μ) = 1 − β (BSA24 §C.4.1 (c)).
  [[nodiscard]] double inverse(double beta) const override;
  [[nodiscard]] std::string describe() const override;

 private:
  double mu_, p_;
};

/// C_p(G(μ)) in closed form (three pieces). μ ≥ 0, p ∈ [0, 1].
class cp_gaussian_tradeoff final : public divergence::tradeoff_function {
 public:
  cp_gaussian_tradeoff(double mu, double p);
  [[nodiscard]] double mu() const noexcept { return mu_; }
  [[nodiscard]] double p() const noexcept { return p_; }
  [[nodiscard]] double beta(double alpha) const override;
  [[nodiscard]] double power(double alpha) const override;
  /// C_p(G(μ)) is symmetric: its inverse is itself.
  [[nodiscard]] double inverse(double beta) const override;
  /// δ(ε) = p·δ_{G(μ)}(log(1 + (e^ε − 1)/p)) for ε > 0 (from the proof of BSA24 Prop D.4),
  /// symmetric below 0.
  [[nodiscard]] double privacy_profile(double epsilon) const override;
  [[nodiscard]] std::string describe() const override;

 private:
  double mu_, p_, alpha_star_, beta_star_, middle_;
  gaussian_mixture_tradeoff one_sided_;
};

/// C_p(f) for a general tradeoff function: h(α) = min{f_p(α), f_p⁻¹(α)} on `points` equally
/// spaced α, then the lower convex envelope (p ∈ [0, 1], points ≥ 3). The result lies on or
/// above the exact C_p(f) by O(grid spacing²) (chords of a convex curve), i.e. it is
/// slightly optimistic; use the closed form where one exists.
divergence::piecewise_linear_tradeoff subsample(const divergence::tradeoff_function& f,
                                                double p,
                                                std::size_t points = 4001);

}  // namespace dpkit::subsampling
