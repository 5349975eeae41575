// support/exact_curves.hpp — privacy curves with a closed form, at 50 digits.
//
// The unit tests and the domain sweep (validation/sweep) check certified ends against these
// wherever a run falls in one of their regimes. They share no code with the accountants: each is
// written from its formula in Boost.Multiprecision's cpp_bin_float_50 (erfc and exp at 50
// digits, an exponent range far beyond double's), so a wrong bound cannot be matched by the same
// mistake here.
//
//   gaussian            every phase full batch: the run is exactly μ-GDP,
//                       δ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2)  (Dong, Roth & Su 2022);
//                       below μ = 1e-20, where the two terms agree to more digits than 50,
//                       as [Φ(a) − Φ(a − μ)] − (e^ε − 1)Φ(a − μ) with the first part's series.
//   poisson_one_step    one Poisson-subsampled step, add/remove: the worse of the two directions,
//                       remove δ(ε) = q Φ̄((x* − 1)/σ) − (e^ε − 1 + q) Φ̄(x*/σ),
//                       x* = σ² log((e^ε − 1 + q)/q) + 1/2; add δ(ε) = (1 − e^ε(1−q)) Φ(x_a/σ) −
//                       e^ε q Φ((x_a − 1)/σ), x_a = σ² log((e^{−ε} − 1 + q)/q) + 1/2 (0 once
//                       e^ε(1 − q) ≥ 1).
//   poisson_replace_one_one_step
//                       one Poisson step, replace-one: (1−q)N(0,σ²) + qN(1,σ²) against
//                       (1−q)N(0,σ²) + qN(−1,σ²); the likelihood ratio is increasing in x, its
//                       level set x* found at 50 digits; δ(ε) = q[Φ̄((x*−1)/σ) −
//                       e^ε Φ̄((x*+1)/σ)] − (1−q)(e^ε − 1)Φ̄(x*/σ), parts of size q (no
//                       difference of two tails near 1/2, which loses a q below 1e-50).
//   wor_one_step        one fixed-size batch, replace-one: the pair C_q(G(2/σ)),
//                       δ(ε) = q·δ_G(2/σ)(log(1 + (e^ε − 1)/q)) (BSA24 Prop D.4).
//   poisson_small_sigma Poisson add/remove, any number of steps, σ ≤ 0.005: with K ~ Bin(T, q)
//                       steps holding the record, the remove direction's loss is
//                       N(K(log q + 1/(2σ²)) + (T − K) log(1 − q), K/σ²) up to terms below
//                       e^{−1000} (each included step's log(1 − q + q e^s) is log q + s to within
//                       e^{−s}/q, s ≥ 1/(2σ²) − 50/σ; an excluded step's is log(1 − q) to within
//                       q e^{s}, s ≤ −1/(2σ²) + 50/σ, outside a probability e^{−1250}), so
//                       δ_remove(ε) = Σ_k Bin(k) [Φ̄(a_k) − e^{ε − m_k + v_k/2} Φ̄(a_k + √v_k)],
//                       a_k = (ε − m_k)/√v_k; the add direction's loss is −T log(1 − q) to the same
//                       precision: δ_add(ε) = (1 − (1 − q)^T e^ε)₊. The worse of the two.
//                       For δ ≥ 1e-300 (terms of weight below e^{−830} are left out: the
//                       weights are log-concave, so the rest is one run about the mode, found
//                       outward from it); runs whose sum would need more than 4000 terms are
//                       left out (nullopt). At each ε the terms are summed in the order of a
//                       bound w_k·e^{−a_k²/2}/2 on each (a_k > 0), and stop where it is e^{−140}
//                       below the sum so far (< 1e-57 of it left out).
//   binomial_gaussian   the pair (Σ_k Bin(k; n, q) N(k, s²), N(0, s²)), q ∈ (0, 1): the count of a
//                       matrix mechanism's participations seen through its projection (a lower
//                       bound on the mechanism, accounting/matrix_mechanism.hpp). The log
//                       likelihood ratio L(u) = log Σ_k w_k e^{(ku − k²/2)/s²} increases in u;
//                       remove δ(ε) = Σ_k w_k Φ̄((u* − k)/s) − e^ε Φ̄(u*/s) with L(u*) = ε, add
//                       δ(ε) = Φ(u′/s) − e^ε Σ_k w_k Φ((u′ − k)/s) with L(u′) = −ε (0 where
//                       n log(1 − q) ≥ −ε); the roots by Newton's method inside a bisection
//                       bracket at 50 digits (δ is stationary in them). The worse of the two. n + 1
//                       terms per evaluation: for small n.
#pragma once

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <functional>
#include <optional>

namespace dpkit::test {

using real50 = boost::multiprecision::cpp_bin_float_50;

/// A privacy curve as log δ(ε), ε ≥ 0, at 50 digits (log space: the runs of the sweep reach
/// ε ~ 1e20 and δ ~ 1e-300, beyond what even a 50-digit e^ε and Φ̄ hold in linear form).
using delta_curve = std::function<real50(const real50& epsilon)>;

delta_curve gaussian_curve(const real50& mu);
delta_curve poisson_one_step_curve(double sigma, double q);
delta_curve poisson_replace_one_one_step_curve(double sigma, double q);
delta_curve wor_one_step_curve(double sigma, double q);
/// nullopt outside σ ≤ 0.005 or where the sum is too long (header comment).
std::optional<delta_curve> poisson_small_sigma_curve(double sigma, double q, long long steps);

/// n ≥ 1 participations, q ∈ (0, 1), s > 0 (header comment).
delta_curve binomial_gaussian_curve(long long n, double q, double s);

/// The exact ε at δ of a curve: 0 where δ(0) ≤ δ, else the root of δ(ε) = δ (to ~45 digits).
real50 exact_epsilon(const delta_curve& curve, double delta);

/// Whether a double is at least / at most an exact value (compared at 50 digits).
inline bool at_least(double bound, const real50& exact) {
  return real50(bound) >= exact;
}
inline bool at_most(double bound, const real50& exact) {
  return real50(bound) <= exact;
}

}  // namespace dpkit::test
