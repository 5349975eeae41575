// dpkit/divergence/gdp.hpp — Gaussian differential privacy ↔ (ε, δ).
//
// A μ-GDP mechanism is (ε, δ(ε))-DP for every ε ∈ ℝ with (Balle & Wang 2018 Thm 8;
// DRS22 Cor. 2.13; BSA24 Lemma A.3)
//
//     δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2),
//
// and this curve is tight: it is the hockey-stick divergence of N(0,1) and N(μ,1).
// Evaluated in log space, log δ = log Φ(a) + log(1 − e^{ε + log Φ(b) − log Φ(a)}), so
// neither e^ε (ε up to 1e5) nor the tails (δ down to 1e-300 and below) overflow or
// underflow, and Φ never goes through (1 + erf)/2 (which shifts ε by +0.7 at μ = 4.714,
// δ = 1e-5). Where the two terms agree to more than ~12 digits (μ²/ε ≲ 1e-9), the
// difference is instead computed as a cancellation-free integral (see gdp.cpp).
#pragma once

#include <cmath>

#include "dpkit/divergence/result.hpp"

namespace dpkit::divergence {

/// Supported range of every function here: μ ∈ [0, 1e6] (ε up to ~5e11). Beyond, δ(ε) near
/// its median ε ≈ μ²/2 changes within one ulp of ε, so no double-precision evaluation is
/// meaningful; larger μ throws std::domain_error.
inline constexpr double kLargestGdpMu = 1e6;

/// δ(ε) of μ-GDP; μ ∈ [0, 1e6], ε finite (any sign). μ = 0 gives max(0, 1 − e^ε).
double gdp_delta(double mu, double epsilon);

/// log δ(ε) of μ-GDP; finite where δ underflows. −∞ when δ = 0 (μ = 0, ε ≥ 0) or when
/// log δ itself is below −1.8e308.
double gdp_log_delta(double mu, double epsilon);

/// Certified enclosure of log δ_μ(ε) for every μ ∈ [mu_lo, mu_hi]: lower ≤ log δ ≤ upper for
/// the exact real values (docs/divergence.md, "What the labels guarantee": the error of every
/// floating-point step is bounded and added outward). About 1e-13 relative wide for μ ≥ 1;
/// wider where the closed form's two terms nearly cancel (1e-11 at μ = 0.01; up to 5e-6
/// relative in δ at μ = 1e-4, δ ~ 1e-200).
struct log_delta_bounds {
  double lower = NAN;
  double upper = NAN;
};
log_delta_bounds gdp_log_delta_bounds(double mu_lo, double mu_hi, double epsilon);

/// The same enclosure of δ_μ(ε) itself, rounded outward once more (and of log δ, which stays
/// finite where δ underflows to 0).
struct delta_bounds {
  double lower = NAN, upper = NAN;
  double log_lower = NAN, log_upper = NAN;
};
delta_bounds gdp_delta_bounds(double mu_lo, double mu_hi, double epsilon);

/// The smallest ε ≥ 0 such that μ-GDP implies (ε, δ)-DP; μ ∈ [0, 1e6], δ ∈ (0, 1).
/// ε = 0 when δ ≥ δ(0) = 2Φ(μ/2) − 1. Result: kind upper_bound, tight = true; a certified
/// bracket: the exact ε lies in [lower, upper] (~1e-13 relative wide for μ ≥ 1, see
/// gdp_log_delta_bounds), and `value` = `upper`.
epsilon_result gdp_epsilon(double mu, double delta);

/// gdp_epsilon's certified upper end for any μ ≥ 0, +∞ included: +∞ beyond kLargestGdpMu
/// (ε exceeds 5e11 there: a true, if trivial, upper bound), for reports that show a number for
/// whatever noise they are given (a paper's noise at δ within 1e-16 of 1 gave μ = 3.4e7).
double gdp_epsilon_upper(double mu, double delta);

/// The certified bracket of ε valid for every μ ∈ [mu_lo, mu_hi] (an interval that covers the
/// rounding of a μ computed from a training run): `upper` for μ_hi, `lower` for μ_lo.
epsilon_result gdp_epsilon_bounds(double mu_lo, double mu_hi, double delta);

/// The largest μ such that μ-GDP implies (ε, δ)-DP, i.e. δ_μ(ε) = δ; ε ∈ [0, 1e11],
/// δ ∈ (0, 1). `value` is the lower (safe) end of the bracket.
calibration_result gdp_mu(double epsilon, double delta);

/// The smallest noise standard deviation σ for which the Gaussian mechanism with ℓ₂
/// sensitivity Δ is (ε, δ)-DP: the analytic Gaussian mechanism (Balle & Wang 2018 Alg. 1),
/// σ = Δ / gdp_mu(ε, δ). `value` is the upper (safe) end of the bracket.
calibration_result analytic_gaussian_sigma(double epsilon, double delta, double sensitivity);

}  // namespace dpkit::divergence
