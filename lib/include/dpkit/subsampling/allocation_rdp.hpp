// dpkit/subsampling/allocation_rdp.hpp — Rényi DP of one epoch of random allocation ("balls in
// bins") with the Gaussian mechanism.
//
// Each example is used in exactly one of the t steps of an epoch, the step chosen uniformly at
// random (balls-and-bins sampling, Chua et al. 2025, arXiv:2412.16802 [CGH+25]; random
// 1-out-of-t allocation in Feldman & Shenfeld 2025, arXiv:2502.08202 [FS25]). With add/remove
// neighbours, clipping norm 1 and noise multiplier σ (μ = 1/σ) the epoch's releases compare, in
// units of σ,
//
//     P = (1/t) Σ_j N(μ e_j, I_t)   (with the example)   against   Q = N(0, I_t)   (without),
//
// whose likelihood ratio is P/Q(x) = S/t, S = Σ_j Y_j, Y_j = exp(μ x_j − μ²/2): under Q the Y_j
// are i.i.d. log-normal with E[Y^k] = exp(k(k − 1)μ²/2). Both directions' Rényi divergences are
// moments of S/t:
//
// * remove, D_α(P‖Q): e^{(α−1)D_α} = E_Q[(S/t)^α]. At integer α the multinomial expansion,
//   grouped by the partition λ of α into m ≤ t parts (c_v parts equal to v), is exact:
//
//     E[S^α] = Σ_λ  t!/((t − m)! Π_v c_v!) · α!/Π_i λ_i! · exp(Σ_i λ_i(λ_i − 1)μ²/2)
//
//   ([FS25] compute the same moment). α ≤ 40 here (37 338 partitions at 40).
// * add, D_α(Q‖P): e^{(α−1)D_α} = E_Q[(S/t)^{−(α−1)}], a negative moment, by the Laplace
//   representation x^{−a} = Γ(a)^{−1} ∫_0^∞ v^{a−1} e^{−vx} dv (a = α − 1 > 0):
//
//     E[(S/t)^{−a}] = Γ(a)^{−1} ∫_0^∞ v^{a−1} φ(v/t)^t dv,   φ(s) = E[e^{−sY}],
//
//   φ by adaptive Gauss–Kronrod over the Gaussian x (1 − φ formed directly, so that φ^t keeps
//   its precision), the outer integral in log space split at its peak (tanh-sinh, exp-sinh).
//   Relative tolerance 1e-12; the curve's values carry allowances of 1e-9 relative and 1e-13
//   absolute on (α − 1)D_α (the log of a moment near 1 is known to ~1e-16 absolute).
//
// t = 1 is the Gaussian mechanism G(μ) in both directions (αμ²/2).
#pragma once

#include <vector>

namespace dpkit::subsampling {

/// (α − 1)·D_α(P‖Q) (remove direction), exact, at integer α ∈ [2, 40]; μ ∈ (0, 40], t ≥ 1.
double allocation_remove_log_moment(long long alpha, double mu, long long t);

/// (α − 1)·D_α(Q‖P) (add direction) by quadrature at real α ∈ (1, 1e4]; μ ∈ (0, 40], t ≥ 1.
double allocation_add_log_moment(double alpha, double mu, long long t);

/// The larger of the two directions' Rényi divergences of one epoch, D_α, at every integer
/// α ∈ [2, alpha_max] (alpha_max ≤ 40; out[α − 2]), rounded up by the allowance above: an
/// upper bound on the epoch's RDP. The add direction shares one table of φ(v/t)^t across the
/// orders: the outer integral by the trapezoid rule in log v (step 0.02, exponentially
/// convergent for this analytic, rapidly decaying integrand) and φ by the trapezoid rule in x
/// (step ≤ 0.025/max(1, μ)); agreement with the adaptive allocation_add_log_moment is tested.
/// The returned list may end below alpha_max: at an order whose add-direction moment is out of
/// numerical reach (small noise, high orders) the orders from there on are left out (any set of
/// orders gives a valid bound); where order 2 is, it throws naming the noise multiplier 1/μ.
std::vector<double> allocation_epoch_rdp(double mu, long long t, long long alpha_max = 40);

}  // namespace dpkit::subsampling
