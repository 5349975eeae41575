// dpkit/core/normal.hpp — the standard normal distribution, accurate in both tails.
//
// Privacy computations live in the tails: δ(ε) of μ-GDP is a difference Φ(a) − e^ε Φ(b) of
// tail probabilities, and G(μ)(α) = Φ(Φ⁻¹(1 − α) − μ) needs Φ⁻¹ near 0 and 1. Computing
// Φ(x) as (1 + erf(x/√2))/2 loses every digit below 1e-16 (it shifts a GDP-composition ε of
// BSA24's Table 4 by about +0.7), so here:
//
//   Φ(x)        = erfc(−x/√2)/2                 (Boost.Math erfc; full relative accuracy)
//   log Φ(x)    = log erfc(−x/√2) − log 2       (GSL gsl_sf_log_erfc; no underflow, x → −∞)
//               = log1p(−Φ(−x))                 for x > 0 (tiny negative values stay exact)
//   Φ⁻¹(p)      = −√2 erfc⁻¹(2p)                 (Boost.Math erfc_inv; p down to 1e-308)
//   Φ⁻¹(1 − q)  = √2 erfc⁻¹(2q)                  (no rounding of 1 − q)
//
// Measured accuracy against 50-digit mpmath tables (data/reference/normal_*.csv) is in
// docs/core.md; the tests in lib/tests/core/normal_test.cpp enforce it.
//
// Domain: NaN arguments throw std::domain_error; ±∞ are valid where stated.
#pragma once

namespace dpkit {

/// φ(x) = exp(−x²/2)/√(2π). x = ±∞ gives 0.
double normal_pdf(double x);
/// log φ(x) = −x²/2 − log √(2π). x = ±∞ gives −∞.
double normal_lpdf(double x);

/// Φ(x) = P(Z ≤ x). Relative accuracy is kept in the lower tail (Φ(−37) ≈ 5.7e-300);
/// Φ(x) underflows to 0 below x ≈ −38.4, where normal_lcdf must be used.
double normal_cdf(double x);
/// 1 − Φ(x) = Φ(−x), without cancellation.
double normal_ccdf(double x);

/// log Φ(x), finite for every finite x (log Φ(−1e5) ≈ −5e9), exact tiny values for x ≫ 0.
double normal_lcdf(double x);
/// log(1 − Φ(x)) = log Φ(−x).
double normal_lccdf(double x);

/// P(a < Z ≤ b) = Φ(b) − Φ(a) for a ≤ b (±∞ allowed), differenced in the tail where both
/// values are small (Φ below 0, 1 − Φ above), so that narrow intervals far in either tail keep
/// their relative accuracy; an interval straddling 0 has no cancellation.
double normal_interval(double a, double b);

/// Φ⁻¹(p) for p ∈ [0, 1]; Φ⁻¹(0) = −∞, Φ⁻¹(1) = +∞. For p close to 1, prefer
/// normal_quantile_complement(1 − p) when 1 − p is known more accurately than p.
double normal_quantile(double p);
/// Φ⁻¹(1 − q) for q ∈ [0, 1], computed without forming 1 − q (so q = 1e-300 works).
double normal_quantile_complement(double q);
/// Φ⁻¹(exp(log_p)) for log_p ≤ 0, including log_p far below log(DBL_MIN) ≈ −708 where p
/// itself is not representable (Newton iteration on normal_lcdf; converges to ~2 ulp).
double normal_quantile_from_log(double log_p);

}  // namespace dpkit
