// dpkit/volterra/risk.hpp — the expected risks of noisy HSGD (LKSP25 Thm 4.2).
//
// P_t = E 𝒫(X_t) and R_t = E ℛ(X_t), 𝒫(x) = ½E(aᵀx − b)², ℛ(x) = 𝒫(x) + (δ/2)‖x‖², for the
// HSGD diffusion (LKSP25 eq. (1)), solve the Volterra equations (LKSP25 eqs. (6), (7))
//
//   P_t = 𝒫(X^gf_Γ(t)) + ∫_0^t G(t,s;Σ) P_s ds + ∫_0^t G′(t,s;Σ) ds,
//   R_t = ℛ(X^gf_Γ(t)) + ∫_0^t G(t,s;Σ+δI) P_s ds + ∫_0^t G′(t,s;Σ+δI) ds,
//
// G(t,s;M) = (γ²(s)/d) tr(ΣM e^{−2A(Γ(t)−Γ(s))}), G′(t,s;M) = (σ²γ²(s)/(2d)) tr(M
// e^{−2A(Γ(t)−Γ(s))}), A = Σ + δI. Three independent ways to get them:
//
//  1. The exact ODE lift (derived in docs/volterra.md): per eigen-group the mean
//     statistics S = Σ e_i², C = Σ e_i x̃_i (e = E X − x̃) and the per-coordinate eigen-variance
//     w = u_iᵀ Cov(X_t) u_i evolve by
//        Ṡ = −2γ(κS + δC),  Ċ = −γ(κC + δ‖x̃‖²_g),  ẇ = −2γκ w + (γ²/d)(2λP_t + σ²),  w(0) = 0,
//        P_t = ½E w² + ½Σ_g λ_g(S_g + k_g w_g),   R_t = P_t + (δ/2)Σ_g (S_g + 2C_g + ‖x̃‖²_g + k_g
//        w_g),
//     a linear system coupled only through the scalar P_t: O(#groups) per step, no quadrature
//     error. solve_ode_lift() integrates it with Boost.Odeint's adaptive Dormand–Prince 5(4);
//     solve_exponential() with an exponential (integrating-factor) trapezoid rule on a
//     log-time grid, for stiff spectra and long horizons.
//  2. solve_product_trapezoid(): the integral equations themselves by the product trapezoid
//     rule, O(N²·#groups), as an independent cross-check.
//  3. Closed forms for constant γ: the isotropic solution and the plateau P_∞ with
//     its stability condition K_∞ < 1 (both derived in docs/volterra.md).
//
// Every solver returns P_t and R_t on the requested times with an absolute error estimate and
// a termination status (core/result.hpp): `converged` (the estimate meets the tolerance, or
// the closed form is exact), `max_iterations` (the step budget ran out; values are the best
// available, the estimate says how good), `failure` (the values must not be used: e.g. the
// state overflowed or the implicit coupling became singular; the message says where). Bad
// arguments throw std::domain_error (core/check.hpp). Divergence (K_∞ ≥ 1 for constant γ, or
// sup_t K(γ(t)) ≥ 1) is stated in `message` and in `max_kernel_norm`; the solvers still return
// the (correct, growing) finite-time values, while plateau() reports failure.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <span>
#include <string>
#include <vector>

#include "dpkit/core/result.hpp"
#include "dpkit/volterra/schedule.hpp"
#include "dpkit/volterra/spectrum.hpp"

namespace dpkit::volterra {

/// P_t and R_t on a time grid.
struct risk_curve : solver_status {
  std::string method;           ///< e.g. "ode-lift dopri5"
  std::vector<double> times;    ///< the requested times
  std::vector<double> P;        ///< P_t = E 𝒫(X_t) (LKSP25 eq. (6)); includes ½E w²
  std::vector<double> R;        ///< R_t = E ℛ(X_t) (LKSP25 eq. (7))
  std::vector<double> P_error;  ///< estimated absolute error of P (see each solver)
  std::vector<double> R_error;  ///< estimated absolute error of R
  /// w_g(t) = u_iᵀ Cov(X_t) u_i for i in group g (the diagonal of V(t) in LKSP25 eq. (10),
  /// in the eigenbasis): rows = times, columns = groups. Empty unless requested.
  Eigen::MatrixXd variances;
  long long steps = 0;  ///< time steps of the returned solution
  /// sup over the integration interval of K(γ(t)) = (γ(t)/(2d)) Σ_g k_g λ_g²/κ_g; for constant
  /// γ this is K_∞ of the plateau (docs/volterra.md), and P_t is bounded iff it is < 1.
  double max_kernel_norm = NAN;
};

/// 𝒫 and ℛ of the gradient-flow mean X^gf_Γ (LKSP25 eq. (5)) at intrinsic time Γ ≥ 0.
struct risk_pair {
  double P = NAN;
  double R = NAN;
};
risk_pair gradient_flow_risk(const problem& p, double Gamma);

/// K = (γ/(2d)) Σ_g k_g λ_g²/(λ_g + δ) (docs/volterra.md; groups with λ = δ = 0 contribute 0).
double kernel_norm(const problem& p, double gamma);

// ---- 1. the ODE lift -------------------------------------------------------------------------

struct ode_options {
  /// Relative and absolute tolerance of odeint's error checker (per state component).
  /// Default: relative 1e-10; absolute 0 = automatic, 1e-6·relative·(scale of P and R).
  double relative_tolerance = 1e-10;
  double absolute_tolerance = 0;
  /// Budget of Dormand–Prince steps (accepted + rejected) over the whole run; also the
  /// odeint max_step_checker limit between two output times. Default 10⁶.
  long long max_steps = 1'000'000;
  /// Estimate the error by a second run at 10× looser tolerances: the error estimate is
  /// |P_tol − P_10tol|, the error of the looser run, which (tolerance proportionality)
  /// overestimates that of the returned one about tenfold. Off: errors are NaN. Default true.
  bool estimate_error = true;
  bool store_variances = false;  ///< fill risk_curve::variances. Default false.
};

/// The ODE lift (see the file comment) by runge_kutta_dopri5 with dense output
/// (Boost.Odeint), restarted at the schedule's breakpoints so that no step crosses a jump of
/// γ. Explicit: the step is limited by stability to ≈ 3.3/(2γκ_max), so the cost grows like
/// Γ(T)·κ_max — use solve_exponential() for stiff spectra or long horizons. `times`: finite,
/// ≥ 0, nondecreasing (may be empty). termination: converged when both runs completed;
/// max_iterations when max_steps ran out (unreached times are NaN); failure on an odeint
/// error or a non-finite state (divergence past overflow).
risk_curve solve_ode_lift(const problem& p,
                          const schedule& gamma,
                          std::span<const double> times,
                          const ode_options& options = {});

/// The fixed-grid solvers (solve_exponential, solve_product_trapezoid) run on nested grids:
/// a coarsest grid and its midpoint refinements (every interval halved). On the levels
/// h, 2h (and 4h) they return, with extrapolate = false, P_h with the estimate |P_h − P_2h|
/// (for these second-order rules ≈ 3× the error of P_h); with extrapolate = true, the
/// Richardson value X_h = (4P_h − P_2h)/3 (the h² term cancels; the symmetric rules leave h⁴)
/// with the estimate |X_h − X_2h| (the error of X_2h, so ≈ 16× that of X_h). The grids are
/// refined until the estimate is ≤ absolute + relative·|value| at every output, for P and R.
struct exponential_options {
  /// Steps of the finest of the first levels compared (the coarsest has 1/2, or 1/4 when
  /// extrapolating). Default 256.
  long long initial_steps = 256;
  /// Largest number of steps before giving up with max_iterations. Default 2²².
  long long max_steps = 1LL << 22;
  /// Defaults: relative 1e-8, absolute 0.
  double relative_tolerance = 1e-8;
  double absolute_tolerance = 0;
  /// Richardson extrapolation across levels (above). Default true.
  bool extrapolate = true;
  /// t_s of the log-time grid t_n = t_s·((1 + T/t_s)^{n/N} − 1): uniform steps t_s·log(1+T/t_s)/N
  /// for t ≪ t_s, geometric for t ≫ t_s. Default 0 = automatic, 1/(2·γ_max·κ_max), the
  /// fastest relaxation time (clamped to ≤ T).
  double time_scale = 0;
  /// false: exactly the first levels (initial_steps/2 and initial_steps, and initial_steps/4
  /// when extrapolating), no further refinement; the error estimate is reported and
  /// termination is converged (failure if the finest run fails).
  bool adaptive = true;
  bool store_variances = false;
};

/// The ODE lift by an exponential trapezoid rule in the intrinsic time u = Γ(t): each w_g is
/// advanced exactly through its linear part e^{−2κ_gΔu} and the forcing (γ/d)(2λP + σ²) is
/// interpolated linearly in u between the step ends (exponential time differencing, second
/// order), implicitly in P at the new node — a scalar equation, since the coupling is rank
/// one (Sherman–Morrison). The gradient-flow part is exact (LKSP25 eq. (5)). Unconditionally
/// stable for the stiff part; O(#groups) per step; the grid contains the requested times and
/// the schedule's breakpoints. Nested grids and error estimate: see exponential_options.
/// termination: converged,
/// max_iterations (max_steps reached first), or failure (the implicit denominator
/// 1 − (γ/d)Σ kλ²B became ≤ 0 — only possible when K(γ) ≥ 1 and the step is large — on every
/// grid tried, or a non-finite value).
risk_curve solve_exponential(const problem& p,
                             const schedule& gamma,
                             std::span<const double> times,
                             const exponential_options& options = {});

// ---- 2. the integral equations directly ------------------------------------------------------

struct trapezoid_options {
  /// Steps of the finest of the first levels (uniform, plus the requested times and the
  /// breakpoints); nested grids as for exponential_options. Default 256.
  long long initial_steps = 256;
  /// Largest number of steps (cost ∝ steps²·#groups). Default 4096.
  long long max_steps = 4096;
  /// Defaults: relative 1e-6, absolute 0.
  double relative_tolerance = 1e-6;
  double absolute_tolerance = 0;
  /// Richardson extrapolation across levels. Default true.
  bool extrapolate = true;
  /// false: exactly the first levels, as exponential_options::adaptive.
  bool adaptive = true;
};

/// LKSP25 eqs. (6)–(7) discretised by the product trapezoid rule, implicit at the end point:
/// P_i(1 − ω_ii G_ii) = f_i + Σ_{j<i} ω_ij G_ij P_j + Σ_{j≤i} ω_ij G′_ij with
/// the kernels summed over the eigen-groups directly (in the eigenbasis of Σ), every (i, j) pair
/// evaluated: O(N²·#groups), second order for smooth γ (one-sided γ at jumps of γ). It shares
/// nothing with the ODE lift but the gradient-flow term, so it serves as a cross-check.
/// Nested grids and error estimate as for solve_exponential.
risk_curve solve_product_trapezoid(const problem& p,
                                   const schedule& gamma,
                                   std::span<const double> times,
                                   const trapezoid_options& options = {});

/// The default solver: solve_ode_lift (relative tolerance `relative_tolerance`·1e-2) when an
/// explicit method needs few steps (Γ(T)·2κ_max ≤ 3·10⁴), otherwise solve_exponential
/// (relative tolerance `relative_tolerance`). Default 1e-8.
risk_curve solve_risk(const problem& p,
                      const schedule& gamma,
                      std::span<const double> times,
                      double relative_tolerance = 1e-8,
                      bool store_variances = false);

// ---- 3. closed forms (constant γ) -----------------------------------------------------------

/// The isotropic constant-rate solution (derived in docs/volterra.md) for a problem with one group
/// (Σ = λI, multiplicity d) and γ(t) ≡ gamma > 0: with c = γκ, ρ = 2c − γ²λ²,
///   P_t = (f0 + h)[1 + γ²λ²(1 − e^{−ρt})/ρ] + f1[e^{−ct} + γ²λ²(e^{−ct} − e^{−ρt})/(ρ − c)]
///         + (f2 − h)e^{−ρt},
/// R_t = ℛ(X^gf) + (κ/λ)(P_t − 𝒫(X^gf)); the removable singularities ρ = 0 and ρ = c are
/// evaluated stably. Exact; the error estimate is the rounding bound 64ε·Σ|terms|.
/// termination converged (failure only if a value overflows); when ρ ≤ 0 (K_∞ ≥ 1) the
/// message says that P_t grows without bound. Throws std::domain_error for more than one group.
risk_curve isotropic_constant_rate(const problem& p, double gamma, std::span<const double> times);

/// The long-time limit for constant γ (derived in docs/volterra.md).
struct plateau_result : solver_status {
  double P_inf = NAN;          ///< (𝒫(x⋆) + G′_∞)/(1 − K_∞); +inf when unstable
  double R_inf = NAN;          ///< ℛ(x⋆) + ½Σ_g k_g κ_g w_g(∞); +inf when unstable
  double kernel_norm = NAN;    ///< K_∞ = (γ/(2d)) Σ k λ²/κ
  double noise_forcing = NAN;  ///< G′_∞ = (σ²γ/(4d)) Σ k λ/κ
  double P_xstar = NAN;        ///< 𝒫(x⋆), x⋆ = (Σ + δI)⁻¹Σx̃ the ridge minimiser
  double R_xstar = NAN;        ///< ℛ(x⋆)
  /// w_g(∞) = γ(2λ_g P_∞ + σ²)/(2dκ_g) (+inf for κ_g = 0 with σ > 0); empty when unstable.
  std::vector<double> variances;
  bool stable = false;  ///< K_∞ < 1
};

/// P_∞ and R_∞ for γ(t) ≡ gamma. K_∞ ≥ 1: P_t grows exponentially and has no limit — the
/// result then has stable = false, termination failure, P_inf = R_inf = +inf and a message
/// giving K_∞ (no exception: divergence is a property of the input, not bad input).
plateau_result plateau(const problem& p, double gamma);

}  // namespace dpkit::volterra
