// dpkit/divergence/gaussian_tradeoff.hpp — the Gaussian tradeoff function G(μ) (GDP).
//
//   G(μ)(α) = T(N(0,1), N(μ,1))(α) = Φ(Φ⁻¹(1 − α) − μ),  μ ≥ 0     (BSA24 Def 2.4)
//
// Properties used and tested (BSA24 Def 2.4, Lemma A.2, eqs. (3.3)–(3.4)): G(0) = Id; G(μ) is
// symmetric, G(μ)⁻¹ = G(μ); G(μ)′(α) = −exp(μz − μ²/2) with z = Φ⁻¹(1 − α), so the slope is −1 at
// the fixed point α = Φ(−μ/2); and G(μ₁) ⊗ G(μ₂) = G(√(μ₁² + μ₂²)) (BSA24 eq. (3.3)).
// Its privacy profile is the Balle–Wang formula (gdp.hpp).
#pragma once

#include <span>
#include <string>

#include "dpkit/divergence/tradeoff.hpp"

namespace dpkit::divergence {

class gaussian_tradeoff final : public tradeoff_function {
 public:
  /// μ finite and ≥ 0 (std::domain_error otherwise).
  explicit gaussian_tradeoff(double mu);

  [[nodiscard]] double mu() const noexcept { return mu_; }

  /// Φ(Φ⁻¹(1 − α) − μ), with Φ⁻¹(1 − α) formed without rounding 1 − α.
  [[nodiscard]] double beta(double alpha) const override;
  /// log G(μ)(α), finite where G(μ)(α) underflows (large μ).
  [[nodiscard]] double log_beta(double alpha) const;
  /// 1 − G(μ)(α) = Φ(μ − Φ⁻¹(1 − α)), without cancellation.
  [[nodiscard]] double power(double alpha) const override;
  /// G(μ)⁻¹ = G(μ) (symmetry).
  [[nodiscard]] double inverse(double beta) const override;
  /// G(μ)′(α) = −exp(μ Φ⁻¹(1 − α) − μ²/2) for α ∈ (0, 1).
  [[nodiscard]] double slope(double alpha) const;
  /// Balle–Wang closed form (gdp_delta).
  [[nodiscard]] double privacy_profile(double epsilon) const override;
  [[nodiscard]] std::string describe() const override;

 private:
  double mu_;
};

/// G(μ₁) ⊗ G(μ₂) = G(√(μ₁² + μ₂²)) (BSA24 eq. (3.3)); computed with hypot (no overflow).
gaussian_tradeoff compose(const gaussian_tradeoff& f, const gaussian_tradeoff& g);

/// ⊗_k G(μ_k) = G(‖μ‖₂) (BSA24 eq. (3.4)); an empty list gives G(0) = Id.
gaussian_tradeoff compose_gaussian(std::span<const double> mus);

}  // namespace dpkit::divergence
