// dpkit/volterra/schedule.hpp — learning-rate schedules γ(t) of noisy HSGD and their integrals.
//
// LKSP25 §3 scales the SGD step as η_k = γ(k/d)/d, t = k/d, and the risk equations depend on
// the schedule through γ(t) and Γ(t) = ∫_0^t γ(s) ds (LKSP25 §4.1, eq. (5)).
// Every schedule here has Γ in closed form, so the solvers never integrate γ numerically.
//
//   constant          γ(t) = γ0
//   step_decay        γ(t) = γ0·f^⌊t/τ⌋                       (jumps at t = τ, 2τ, …)
//   polynomial_decay  γ(t) = γ0/(1 + t/t0)^p                  (p = 1: the 3/(1 + 0.5t) of the
//                                                              ODE-lift check, γ0 = 3, t0 = 2)
//   cosine            γ(t) = γ_min + (γ0 − γ_min)(1 + cos(πt/T))/2 for t ≤ T, γ_min after
//   piecewise_linear  linear interpolation of a table (t_k, γ_k), t_0 = 0, γ constant after
//                     the last knot
//
// γ is right-continuous; left_limit() gives γ(t⁻) where γ jumps. breakpoints() lists where γ
// or γ′ is discontinuous, so that time steppers can restart there instead of stepping across.
#pragma once

#include <string>
#include <variant>
#include <vector>

namespace dpkit::volterra {

class schedule {
 public:
  /// γ(t) = gamma > 0.
  static schedule constant(double gamma);
  /// γ(t) = gamma0·factor^⌊t/interval⌋; gamma0 > 0, factor ∈ (0, 1], interval > 0.
  static schedule step_decay(double gamma0, double factor, double interval);
  /// γ(t) = gamma0/(1 + t/time_scale)^power; gamma0 > 0, time_scale > 0, power ≥ 0.
  static schedule polynomial_decay(double gamma0, double time_scale, double power);
  /// γ(t) = gamma_min + (gamma0 − gamma_min)(1 + cos(πt/horizon))/2 for t ≤ horizon, then
  /// gamma_min; gamma0 > 0, gamma_min ∈ [0, gamma0], horizon > 0.
  static schedule cosine(double gamma0, double gamma_min, double horizon);
  /// Linear interpolation of (times[k], rates[k]); times[0] = 0, strictly increasing, finite;
  /// rates finite and ≥ 0, not all 0; γ = rates.back() after the last knot. One knot is a
  /// constant schedule.
  static schedule piecewise_linear(std::vector<double> times, std::vector<double> rates);

  /// γ(t) for t ≥ 0 (right-continuous). Throws std::domain_error for t < 0 or not finite.
  [[nodiscard]] double rate(double t) const;
  /// lim_{s↑t} γ(s) (equals γ(t) except at the jumps of step_decay); γ(0) at t = 0.
  [[nodiscard]] double left_limit(double t) const;
  /// Γ(t) = ∫_0^t γ(s) ds in closed form (exact up to rounding).
  [[nodiscard]] double integral(double t) const;
  /// The points of (0, t_end) where γ or γ′ is discontinuous, increasing.
  [[nodiscard]] std::vector<double> breakpoints(double t_end) const;
  /// sup of γ over [0, t_end].
  [[nodiscard]] double max_rate(double t_end) const;
  /// True for constant(): the kernels of (6)–(7) are then convolution kernels.
  [[nodiscard]] bool is_constant() const;
  /// e.g. "constant(gamma=50)", for messages and output headers.
  [[nodiscard]] std::string describe() const;

 private:
  struct constant_rate {
    double gamma;
  };
  struct step {
    double gamma0, factor, interval;
  };
  struct polynomial {
    double gamma0, time_scale, power;
  };
  struct cosine_rate {
    double gamma0, gamma_min, horizon;
  };
  struct table {
    std::vector<double> t, g, area;  // knots, rates, Γ at the knots
  };
  using rep = std::variant<constant_rate, step, polynomial, cosine_rate, table>;
  explicit schedule(rep r) : rep_(std::move(r)) {}
  rep rep_;
};

}  // namespace dpkit::volterra
