#include "dpkit/volterra/risk.hpp"

#include <algorithm>
#include <array>
#include <boost/numeric/odeint/integrate/integrate_times.hpp>
#include <boost/numeric/odeint/integrate/max_step_checker.hpp>
#include <boost/numeric/odeint/stepper/generation.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta_dopri5.hpp>
#include <boost/numeric/odeint/util/odeint_error.hpp>
#include <climits>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

#include "dpkit/core/check.hpp"
#include "dpkit/core/tolerance.hpp"

namespace dpkit::volterra {
namespace {

namespace odeint = boost::numeric::odeint;

// ---- the problem in struct-of-arrays form ------------------------------------------------------

struct groups_data {
  std::size_t r = 0;
  std::vector<double> lambda, kappa, k, ratio, S0, C0, X;  // ratio = δ/κ (0 when κ = 0)
  double d = 1, delta = 0, sigma2 = 0, label = 0;
  double lambda_max = 0, kappa_max = 0;
  double kernel_sum = 0;  // Σ k λ²/κ, so that K(γ) = γ·kernel_sum/(2d)

  explicit groups_data(const problem& p) {
    r = p.groups.size();
    d = static_cast<double>(p.d);
    delta = p.ridge;
    sigma2 = p.sigma * p.sigma;
    label = p.label_noise;
    for (const eigen_group& g : p.groups) {
      const double kap = g.eigenvalue + p.ridge;
      lambda.push_back(g.eigenvalue);
      kappa.push_back(kap);
      k.push_back(g.multiplicity);
      ratio.push_back(kap > 0 ? p.ridge / kap : 0.0);
      S0.push_back(g.e0_sq);
      C0.push_back(g.e0_xstar);
      X.push_back(g.xstar_sq);
      lambda_max = std::max(lambda_max, g.eigenvalue);
      kappa_max = std::max(kappa_max, kap);
      if (kap > 0) kernel_sum += g.multiplicity * g.eigenvalue * g.eigenvalue / kap;
    }
  }
  [[nodiscard]] double kernel_norm(double gamma) const { return gamma * kernel_sum / (2 * d); }
};

// Gradient-flow group sums at φ = e^{−κΓ}, om = 1 − φ (LKSP25 eq. (5) in the eigenbasis, written
// with the group statistics): the mean error of each coordinate is e = φ e0 − om·(δ/κ)·x̃, so
//   Σe²       = φ² S0 − 2φ·om·r C0 + om² r² X,
//   Σ(e + x̃)² = φ² S0 + 2φ q C0 + q² X,   q = 1 − om·r,   r = δ/κ.
struct gf_sums {
  double err_sq, x_sq;
};
inline gf_sums gradient_flow_group(const groups_data& G, std::size_t g, double phi, double om) {
  const double r = G.ratio[g];
  const double q = 1 - om * r;
  return {phi * phi * G.S0[g] - 2 * phi * om * r * G.C0[g] + om * om * r * r * G.X[g],
          phi * phi * G.S0[g] + 2 * phi * q * G.C0[g] + q * q * G.X[g]};
}

// 𝒫(X^gf) and ℛ(X^gf) at Γ: 𝒫 = ½E w² + ½Σ λ Σe², ℛ = 𝒫 + (δ/2)Σ Σ(e + x̃)².
risk_pair gradient_flow(const groups_data& G, double Gamma) {
  double P = 0, xs = 0;
  for (std::size_t g = 0; g < G.r; ++g) {
    const double phi = std::exp(-G.kappa[g] * Gamma);
    const double om = -std::expm1(-G.kappa[g] * Gamma);
    const gf_sums s = gradient_flow_group(G, g, phi, om);
    P += G.lambda[g] * s.err_sq;
    xs += s.x_sq;
  }
  P = 0.5 * G.label + 0.5 * P;
  return {P, P + 0.5 * G.delta * xs};
}

// ---- argument checks --------------------------------------------------------------------------

void check_times(const char* fn, std::span<const double> times) {
  for (std::size_t i = 0; i < times.size(); ++i) {
    const std::string name = "times[" + std::to_string(i) + "]";
    if (!(std::isfinite(times[i]) && times[i] >= 0))
      throw_domain_error(fn, name, times[i], "finite and >= 0");
    if (i > 0 && times[i] < times[i - 1])
      throw_domain_error(fn, name, times[i],
                         ">= times[" + std::to_string(i - 1) + "] = " + format_value(times[i - 1]) +
                             " (nondecreasing)");
  }
}

// The number of the fastest relaxation times in the horizon, 2·max γ·κ_max·T, must be finite
// for the solvers' time grids and first steps (beyond it they overflow to inf or NaN; found by
// probing --ridge 1e308). 1e300 leaves every grid formula a factor 1e8 of headroom; a run that
// long has relaxed 1e300 times over, and its late risk is the stationary one.
constexpr double kLargestRelaxations = 1e300;

void check_relaxations(const char* fn, const groups_data& G, const schedule& s, double T) {
  const double n = 2 * s.max_rate(T) * G.kappa_max * T;
  if (!(n <= kLargestRelaxations))
    throw_domain_error(fn, "2 x learning rate x (largest eigenvalue + ridge) x horizon", n,
                       "<= 1e300 (the solvers' time grids overflow beyond: lower the learning "
                       "rate, the spectrum's scale, the ridge or the horizon)");
}

risk_curve empty_curve(std::span<const double> times, std::string method) {
  risk_curve c;
  c.method = std::move(method);
  c.times.assign(times.begin(), times.end());
  const std::size_t n = times.size();
  c.P.assign(n, NAN);
  c.R.assign(n, NAN);
  c.P_error.assign(n, NAN);
  c.R_error.assign(n, NAN);
  return c;
}

std::string kernel_note(double K) {
  if (!(K >= 1)) return {};
  return "sup_t K(gamma(t)) = " + format_value(K) +
         " >= 1: the dynamics is unstable and P_t can grow exponentially";
}

void append(std::string& message, const std::string& more) {
  if (more.empty()) return;
  if (!message.empty()) message += "; ";
  message += more;
}

int clamp_int(long long n) {
  return static_cast<int>(std::min<long long>(n, INT_MAX));
}

// ---- 1a. the ODE lift by Dormand–Prince (Boost.Odeint) -----------------------------------------

using state = std::vector<double>;

struct budget_exceeded {};
struct non_finite_state {
  double t;
};

// State layout: [S_0..S_{r−1}, C_0..C_{r−1}, w_0..w_{r−1}] (see risk.hpp). odeint copies the
// system, so everything mutable is held by pointer.
class lift_system {
 public:
  lift_system(const groups_data& G, const schedule& s, long long* calls, long long max_calls)
      : G_(&G), s_(&s), calls_(calls), max_calls_(max_calls) {}

  // Within a segment [a, b] of smoothness of γ, stage times at b use γ(b⁻): a step ending on a
  // jump of γ must not see the next piece.
  void set_segment_end(double b) {
    end_ = b;
    end_lo_ = b - 8 * tol::kMachineEps * std::abs(b);
  }

  [[nodiscard]] double P(const state& x) const {
    const groups_data& G = *G_;
    const std::size_t r = G.r;
    double sum = 0;
    for (std::size_t g = 0; g < r; ++g) sum += G.lambda[g] * (x[g] + G.k[g] * x[2 * r + g]);
    return 0.5 * G.label + 0.5 * sum;  // ODE lift (docs/volterra.md): P = 𝒫(X^gf) + ½Σλ_i w_i
  }

  [[nodiscard]] double R(const state& x, double P) const {
    const groups_data& G = *G_;
    const std::size_t r = G.r;
    double sum = 0;
    for (std::size_t g = 0; g < r; ++g) sum += x[g] + 2 * x[r + g] + G.X[g] + G.k[g] * x[2 * r + g];
    return P + 0.5 * G.delta * sum;  // R = P + (δ/2)Σ((e + x̃)² + v)
  }

  void operator()(const state& x, state& dxdt, double t) const {
    if (++*calls_ > max_calls_) throw budget_exceeded{};
    const groups_data& G = *G_;
    const std::size_t r = G.r;
    const double gamma = t >= end_lo_ ? s_->left_limit(end_) : s_->rate(t);
    const double P = this->P(x);
    if (!std::isfinite(P)) throw non_finite_state{t};
    const double forcing = gamma * gamma / G.d;
    const double* S = x.data();
    const double* C = S + r;
    const double* w = C + r;
    double* dS = dxdt.data();
    double* dC = dS + r;
    double* dw = dC + r;
    for (std::size_t g = 0; g < r; ++g) {
      // ė_i = −γ(κ_i e_i + δ x̃_i), summed into S = Σe², C = Σe x̃.
      dS[g] = -2 * gamma * (G.kappa[g] * S[g] + G.delta * C[g]);
      dC[g] = -gamma * (G.kappa[g] * C[g] + G.delta * G.X[g]);
      // ODE lift: ẇ = −2γκ w + (γ²/d)(2λP + σ²).
      dw[g] = -2 * gamma * G.kappa[g] * w[g] + forcing * (2 * G.lambda[g] * P + G.sigma2);
    }
  }

 private:
  const groups_data* G_;
  const schedule* s_;
  long long* calls_;
  long long max_calls_;
  double end_ = INFINITY, end_lo_ = INFINITY;
};

struct lift_run {
  termination_type termination = termination_type::converged;
  std::string message;
  std::vector<double> P, R;
  Eigen::MatrixXd w;
  long long steps = 0;
};

lift_run run_lift(const groups_data& G,
                  const schedule& s,
                  std::span<const double> times,
                  double rtol,
                  double atol,
                  long long max_steps,
                  bool store_w) {
  const std::size_t n = times.size(), r = G.r;
  lift_run out;
  out.P.assign(n, NAN);
  out.R.assign(n, NAN);
  if (store_w)
    out.w =
        Eigen::MatrixXd::Constant(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(r), NAN);
  state x(3 * r, 0.0);
  std::copy(G.S0.begin(), G.S0.end(), x.begin());
  std::copy(G.C0.begin(), G.C0.end(), x.begin() + static_cast<std::ptrdiff_t>(r));

  long long calls = 0;
  // Dormand–Prince uses 6 new right-hand sides per step (accepted or rejected; FSAL).
  const long long max_calls = max_steps > LLONG_MAX / 8 ? LLONG_MAX : 6 * max_steps + 8;
  lift_system sys(G, s, &calls, max_calls);

  std::size_t next = 0;  // next output to record
  auto record = [&](const state& xs, double t) {
    const double P = sys.P(xs);
    if (!std::isfinite(P)) throw non_finite_state{t};
    while (next < n && times[next] == t) {
      out.P[next] = P;
      out.R[next] = sys.R(xs, P);
      if (store_w)
        for (std::size_t g = 0; g < r; ++g)
          out.w(static_cast<Eigen::Index>(next), static_cast<Eigen::Index>(g)) = xs[2 * r + g];
      ++next;
    }
  };

  const double T = n == 0 ? 0.0 : times[n - 1];
  std::vector<double> bounds{0.0};
  for (double b : s.breakpoints(T)) bounds.push_back(b);
  bounds.push_back(T);
  const double rate_scale = 2 * s.max_rate(T) * G.kappa_max;
  const int checker_steps = clamp_int(max_steps);

  try {
    record(x, 0.0);
    for (std::size_t seg = 0; seg + 1 < bounds.size(); ++seg) {
      const double a = bounds[seg], b = bounds[seg + 1];
      if (!(b > a)) continue;
      // odeint decides that an output time has been reached with an absolute tolerance of one
      // machine epsilon, and then interpolates the dense output before taking any step —
      // reading buffers that are not set yet (a segfault, found by fuzzing `--times 1e-20`).
      // Outputs that close to the segment start take the start's state: exact to
      // O(resolution × the largest rate), far below the integration tolerance.
      const double resolution =
          16 * std::numeric_limits<double>::epsilon() * std::max(1.0, std::abs(b));
      while (next < n && times[next] > a && times[next] <= a + resolution) record(x, times[next]);
      if (b - a <= resolution) continue;
      std::vector<double> obs_times{a};
      for (std::size_t i = next; i < n && times[i] <= b; ++i)
        if (times[i] > obs_times.back()) obs_times.push_back(times[i]);
      if (obs_times.back() < b) obs_times.push_back(b);
      sys.set_segment_end(b);
      // First guess of the step: a fraction of the fastest relaxation time; the controller
      // adapts it.
      const double dt0 = rate_scale > 0 ? std::min(b - a, 0.1 / rate_scale) : b - a;
      // odeint started with a zero step never advances (and reads unset buffers: a segfault
      // found by probing --learning-rate 1e299 --ridge 1e10); check_relaxations keeps it > 0,
      // and this keeps a caller that skipped it from crashing.
      if (!(dt0 > 0)) throw non_finite_state{a};
      auto stepper = odeint::make_dense_output(atol, rtol, odeint::runge_kutta_dopri5<state>());
      bool first = true;
      auto observer = [&](const state& xs, double t) {
        if (first) {  // the segment start was recorded at the end of the previous segment
          first = false;
          return;
        }
        record(xs, t);
      };
      out.steps += static_cast<long long>(
          odeint::integrate_times(stepper, sys, x, obs_times.begin(), obs_times.end(), dt0,
                                  observer, odeint::max_step_checker(checker_steps)));
    }
  } catch (const budget_exceeded&) {
    out.termination = termination_type::max_iterations;
    out.message = "step budget max_steps = " + format_value(max_steps) +
                  " exhausted before t = " + (next < n ? format_value(times[next]) : "end") +
                  "; later times are NaN";
  } catch (const non_finite_state& e) {
    out.termination = termination_type::failure;
    out.message = "the state became non-finite at t = " + format_value(e.t) +
                  " (overflow of a diverging solution)";
  } catch (const odeint::no_progress_error& e) {
    out.termination = termination_type::max_iterations;
    out.message = std::string(e.what()) + " (max_steps between two output times)";
  } catch (const odeint::odeint_error& e) {
    out.termination = termination_type::failure;
    out.message = e.what();
  }
  if (out.termination != termination_type::converged) {
    // Values recorded before the stop are trustworthy; the rest stay NaN.
    for (std::size_t i = next; i < n; ++i) out.P[i] = out.R[i] = NAN;
  }
  // Accepted steps; after an early stop, the budget spent (accepted + rejected).
  if (out.termination != termination_type::converged) out.steps = std::max(out.steps, calls / 6);
  return out;
}

// ---- nested grids for the fixed-grid solvers ---------------------------------------------------

struct grid_run {
  bool ok = true;
  std::string message;
  std::vector<double> P, R;  // at the outputs
  Eigen::MatrixXd w;         // outputs × groups, when requested
};

std::vector<double> make_grid(std::vector<double> base,
                              std::span<const double> times,
                              const std::vector<double>& breakpoints) {
  base.insert(base.end(), times.begin(), times.end());
  base.insert(base.end(), breakpoints.begin(), breakpoints.end());
  base.push_back(0.0);
  std::sort(base.begin(), base.end());
  base.erase(std::unique(base.begin(), base.end()), base.end());
  return base;
}

std::vector<double> refine(const std::vector<double>& grid) {
  std::vector<double> fine;
  fine.reserve(2 * grid.size());
  for (std::size_t i = 0; i + 1 < grid.size(); ++i) {
    fine.push_back(grid[i]);
    fine.push_back(grid[i] + 0.5 * (grid[i + 1] - grid[i]));
  }
  fine.push_back(grid.back());
  fine.erase(std::unique(fine.begin(), fine.end()), fine.end());
  return fine;
}

std::vector<std::size_t> output_nodes(const std::vector<double>& grid,
                                      std::span<const double> times) {
  std::vector<std::size_t> idx(times.size());
  for (std::size_t i = 0; i < times.size(); ++i)
    idx[i] = static_cast<std::size_t>(std::lower_bound(grid.begin(), grid.end(), times[i]) -
                                      grid.begin());
  return idx;
}

struct nested_options {
  long long initial_steps, max_steps;
  double rtol, atol;
  bool adaptive, extrapolate;
};

// Solves on a coarse grid and its successive midpoint refinements (each interval halved, so
// the levels share one base mesh and the error has an asymptotic expansion in the refinement
// factor h: C₂h² + C₄h⁴ + … for these symmetric second-order rules [Gragg; Hairer, Nørsett &
// Wanner I, §II.8–9]).
//  * extrapolate = false: returns P_h with the estimate |P_h − P_2h| (≈ 3× the error of P_h).
//  * extrapolate = true: returns the Richardson value X_h = (4P_h − P_2h)/3 with the estimate
//    |X_h − X_2h| (an estimate of the error of X_2h, so conservative for X_h); needs three
//    levels.
// Refines until the estimate meets atol + rtol·|value| at every output (P and R), or max_steps.
template <class Run>
risk_curve nested_solve(std::span<const double> times,
                        std::vector<double> grid,
                        const nested_options& o,
                        std::string method,
                        Run run) {
  risk_curve c = empty_curve(times, std::move(method));
  const std::size_t n = times.size();
  if (grid.size() == 1) {  // every requested time is 0: P_0 = 𝒫(x0) exactly
    grid_run only = run(grid);
    c.P = only.P;
    c.R = only.R;
    c.variances = only.w;
    std::fill(c.P_error.begin(), c.P_error.end(), 0.0);
    std::fill(c.R_error.begin(), c.R_error.end(), 0.0);
    return c;
  }
  const std::size_t need = o.extrapolate ? 3 : 2;  // levels for one value + estimate
  // Nominal steps of the current level (the grid also holds the requested times and the
  // breakpoints); max_steps is compared with it, so initial_steps = max_steps = N runs exactly
  // the levels …, N/2, N.
  long long nominal = std::max(1LL, o.initial_steps >> (need - 1));
  std::vector<grid_run> history;  // consecutive successful levels, the latest last
  std::size_t levels = 0;
  auto richardson = [](double fine, double coarse) { return (4 * fine - coarse) / 3; };
  for (;;) {
    grid_run current = run(grid);
    ++levels;
    c.steps = static_cast<long long>(grid.size()) - 1;
    c.evaluations = clamp_int(c.steps);
    const bool ok = current.ok;
    std::string failure = current.message;
    if (ok) {
      history.push_back(std::move(current));
      if (history.size() > need) history.erase(history.begin());
    } else {
      history.clear();
    }
    bool have_estimate = history.size() == need;
    if (have_estimate) {
      const grid_run &h1 = history[need - 1], &h2 = history[need - 2];
      bool met = true;
      for (std::size_t i = 0; i < n; ++i) {
        if (o.extrapolate) {
          const grid_run& h3 = history[0];
          c.P[i] = richardson(h1.P[i], h2.P[i]);
          c.R[i] = richardson(h1.R[i], h2.R[i]);
          c.P_error[i] = std::abs(c.P[i] - richardson(h2.P[i], h3.P[i]));
          c.R_error[i] = std::abs(c.R[i] - richardson(h2.R[i], h3.R[i]));
        } else {
          c.P[i] = h1.P[i];
          c.R[i] = h1.R[i];
          c.P_error[i] = std::abs(h1.P[i] - h2.P[i]);
          c.R_error[i] = std::abs(h1.R[i] - h2.R[i]);
        }
        met = met && c.P_error[i] <= o.atol + o.rtol * std::abs(c.P[i]) &&
              c.R_error[i] <= o.atol + o.rtol * std::abs(c.R[i]);
      }
      c.variances = h1.w;
      if (o.extrapolate && h1.w.size() > 0) c.variances = (4 * h1.w - h2.w) / 3;
      if (met || !o.adaptive) {
        c.termination = termination_type::converged;
        if (!met) c.message = "fixed grids (adaptive = false): error estimate above the tolerance";
        return c;
      }
    }
    if ((!o.adaptive && levels >= need) || 2 * nominal > o.max_steps) {
      if (have_estimate) {
        c.termination = termination_type::max_iterations;
        c.message = "max_steps = " + format_value(o.max_steps) +
                    " reached before the error estimate met the tolerance";
      } else if (ok) {
        // The finest grid worked but the coarser ones did not: no estimate.
        const grid_run& h1 = history.back();
        c.P = h1.P;
        c.R = h1.R;
        c.variances = h1.w;
        std::fill(c.P_error.begin(), c.P_error.end(), INFINITY);
        std::fill(c.R_error.begin(), c.R_error.end(), INFINITY);
        c.termination = termination_type::max_iterations;
        c.message = "no error estimate: a coarser grid failed or too few levels fit in max_steps";
      } else {
        c.termination = termination_type::failure;
        c.message = failure;
      }
      return c;
    }
    grid = refine(grid);
    nominal *= 2;
  }
}

// ---- 1b. the exponential trapezoid stepper -----------------------------------------------------
//
// Custom code, not odeint: odeint's stiff steppers (rosenbrock4, implicit_euler) need uBLAS
// matrices and a dense LU, O(r³) per step, whereas the lift's
// stiff part is diagonal and its coupling rank one, so an exponential integrator with a
// scalar implicit solve is exact for the stiff part at O(r) per step.
//
// In u = Γ(t): dw/du = −2κ w + g(u), g = (γ/d)(2λP + σ²). Exactly,
//   w(u + Δ) = e^{−2κΔ} w(u) + ∫_0^Δ e^{−2κ(Δ−v)} g(u + v) dv,
// and with g linear between the step ends the integral is Δ(ψ_a(z) g_n + ψ_b(z) g_{n+1}),
// z = 2κΔ, ψ_a(z) = (1 − e^{−z}(1 + z))/z², ψ_b(z) = (z − 1 + e^{−z})/z² (both → ½: the
// trapezoid rule). [derived here]

// Taylor coefficients: ψ_b(z) = Σ (−1)^j z^j/(j+2)!, ψ_a(z) = Σ (−1)^j (j+1) z^j/(j+2)!.
constexpr int kSeriesTerms = 11;  // z < 0.1: the first omitted term is < 0.1¹¹/13! ≈ 2e-21
constexpr double kSeriesBelow = 0.1;
constexpr std::array<std::array<double, kSeriesTerms>, 2> etd_coefficients() {
  std::array<std::array<double, kSeriesTerms>, 2> c{};
  double factorial = 2;  // (j + 2)!
  for (int j = 0; j < kSeriesTerms; ++j) {
    const double sign = j % 2 == 0 ? 1.0 : -1.0;
    c[0][static_cast<std::size_t>(j)] = sign * (j + 1) / factorial;
    c[1][static_cast<std::size_t>(j)] = sign / factorial;
    factorial *= j + 3;
  }
  return c;
}
constexpr auto kEtd = etd_coefficients();

// One group's step factors for x = κΔu: e = e^{−x}, E = e^{−2x} and the weights ψ_a(z),
// ψ_b(z) at z = 2x, with one transcendental call. Below z = 0.1 the closed forms cancel
// (numerators ≈ z²/2), so the series is used; for 0.1 ≤ z < 1, E − 1 comes from expm1 so
// that 1 − E(1 + z) and z − 1 + E lose at most ≈ 20ε; above, E itself is accurate.
// Measured against 50-digit values on z ∈ [1e-9, 200]: ≤ 18ε relative (scratch check, not
// a unit test; these weights only multiply O(h²) quadrature terms).
struct etd_factors {
  double e, E, psi_a, psi_b;
};
inline etd_factors etd_step(double x) {
  const double z = 2 * x;
  etd_factors f;
  if (z < 1) {
    const double em1 = std::expm1(-x);
    const double Em1 = em1 * (2 + em1);  // e^{−z} − 1
    f.e = 1 + em1;
    f.E = 1 + Em1;
    if (z < kSeriesBelow) {
      double a = kEtd[0][kSeriesTerms - 1], b = kEtd[1][kSeriesTerms - 1];
      for (int j = kSeriesTerms - 2; j >= 0; --j) {
        a = a * z + kEtd[0][static_cast<std::size_t>(j)];
        b = b * z + kEtd[1][static_cast<std::size_t>(j)];
      }
      f.psi_a = a;
      f.psi_b = b;
    } else {
      const double z2 = z * z;
      f.psi_a = (-Em1 - z * f.E) / z2;
      f.psi_b = (z + Em1) / z2;
    }
  } else {
    f.e = std::exp(-x);
    f.E = f.e * f.e;
    const double z2 = z * z;
    f.psi_a = (1 - f.E * (1 + z)) / z2;
    f.psi_b = (z - 1 + f.E) / z2;
  }
  return f;
}

grid_run run_exponential(const groups_data& G,
                         const schedule& s,
                         const std::vector<double>& grid,
                         std::span<const double> times,
                         bool store_w) {
  const std::size_t r = G.r, n = times.size(), N = grid.size() - 1;
  grid_run out;
  out.P.assign(n, NAN);
  out.R.assign(n, NAN);
  if (store_w) out.w.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(r));
  const std::vector<std::size_t> nodes = output_nodes(grid, times);
  std::vector<char> is_output(grid.size(), 0);
  for (std::size_t i : nodes) is_output[i] = 1;

  std::vector<double> w(r, 0.0), phi(r, 1.0), om(r, 0.0), bp(r), B(r);
  double P = gradient_flow(G, 0.0).P;  // P_0 = 𝒫(x0)

  std::size_t next = 0;
  auto record = [&](std::size_t node, double Pn) {
    while (next < n && nodes[next] == node) {
      double xs = 0;
      for (std::size_t g = 0; g < r; ++g) {
        const gf_sums m = gradient_flow_group(G, g, phi[g], om[g]);
        xs += m.x_sq + G.k[g] * w[g];
      }
      out.P[next] = Pn;
      out.R[next] = Pn + 0.5 * G.delta * xs;  // R = P + (δ/2)Σ((e + x̃)² + v)
      if (store_w)
        for (std::size_t g = 0; g < r; ++g)
          out.w(static_cast<Eigen::Index>(next), static_cast<Eigen::Index>(g)) = w[g];
      ++next;
    }
  };
  record(0, P);

  double Gamma0 = 0;
  constexpr std::size_t kResync = 32;  // recompute φ = e^{−κΓ} exactly every 32 steps
  for (std::size_t step = 0; step < N; ++step) {
    const double t0 = grid[step], t1 = grid[step + 1];
    const double Gamma1 = s.integral(t1);
    const double du = Gamma1 - Gamma0;
    const double gl = s.rate(t0) / G.d;        // γ(t_n⁺)/d
    const double gr = s.left_limit(t1) / G.d;  // γ(t_{n+1}⁻)/d
    const bool exact_phi = is_output[step + 1] || (step + 1) % kResync == 0 || step + 1 == N;
    double F = 0, num = 0, den = 0;
    for (std::size_t g = 0; g < r; ++g) {
      const etd_factors f = etd_step(G.kappa[g] * du);  // E = e^{−2κΔu}
      if (exact_phi) {
        phi[g] = std::exp(-G.kappa[g] * Gamma1);
        om[g] = -std::expm1(-G.kappa[g] * Gamma1);
      } else {
        phi[g] *= f.e;
        om[g] = 1 - phi[g];
      }
      const gf_sums m = gradient_flow_group(G, g, phi[g], om[g]);
      F += G.lambda[g] * m.err_sq;
      const double A = du * f.psi_a;
      B[g] = du * f.psi_b;
      bp[g] = f.E * w[g] + A * gl * (2 * G.lambda[g] * P + G.sigma2);
      num += G.k[g] * G.lambda[g] * (bp[g] + B[g] * gr * G.sigma2);
      den += G.k[g] * G.lambda[g] * G.lambda[g] * B[g];
    }
    // P_{n+1} = 𝒫(X^gf) + ½Σ kλ w_{n+1} with w_{n+1} = bp + B·(γ_r/d)(2λP_{n+1} + σ²): one
    // scalar linear equation (the rank-one coupling of the ODE lift).
    const double denominator = 1 - gr * den;
    if (!(denominator > 0)) {
      out.ok = false;
      out.message = "implicit coupling singular at t = " + format_value(t1) +
                    " (1 - (gamma/d) sum k lambda^2 B = " + format_value(denominator) +
                    "): the step is too large for the unstable dynamics";
      return out;
    }
    const double P1 = (0.5 * G.label + 0.5 * F + 0.5 * num) / denominator;
    if (!std::isfinite(P1)) {
      out.ok = false;
      out.message = "P became non-finite at t = " + format_value(t1) + " (overflow)";
      return out;
    }
    for (std::size_t g = 0; g < r; ++g)
      w[g] = bp[g] + B[g] * gr * (2 * G.lambda[g] * P1 + G.sigma2);
    P = P1;
    Gamma0 = Gamma1;
    if (is_output[step + 1]) record(step + 1, P);
  }
  return out;
}

// ---- 2. the product trapezoid rule for (6)–(7) -------------------------------------------------

grid_run run_trapezoid(const groups_data& G,
                       const schedule& s,
                       const std::vector<double>& grid,
                       std::span<const double> times) {
  const std::size_t r = G.r, n = times.size(), N = grid.size() - 1;
  grid_run out;
  out.P.assign(n, NAN);
  out.R.assign(n, NAN);
  std::vector<double> Gam(N + 1), gp(N + 1), gm(N + 1), f(N + 1), fR(N + 1), P(N + 1), R(N + 1);
  for (std::size_t i = 0; i <= N; ++i) {
    Gam[i] = s.integral(grid[i]);
    gp[i] = s.rate(grid[i]);
    gm[i] = s.left_limit(grid[i]);
    const risk_pair gf = gradient_flow(G, Gam[i]);
    f[i] = gf.P;
    fR[i] = gf.R;
  }
  // Kernel sums at s = t (E = 1).
  double d1 = 0, d2 = 0, d3 = 0, d4 = 0;
  for (std::size_t g = 0; g < r; ++g) {
    d1 += G.k[g] * G.lambda[g] * G.lambda[g];
    d2 += G.k[g] * G.lambda[g];
    d3 += G.k[g] * G.lambda[g] * G.kappa[g];
    d4 += G.k[g] * G.kappa[g];
  }
  const double noise = G.sigma2 / (2 * G.d);
  P[0] = f[0];
  R[0] = fR[0];
  for (std::size_t i = 1; i <= N; ++i) {
    double accP = f[i], accR = fR[i];
    for (std::size_t j = 0; j < i; ++j) {
      // Trapezoid weight of node j in ∫_0^{t_i} γ(s)²(...) ds, with the one-sided γ(t_j^∓) of
      // the intervals left and right of t_j (so jumps of γ at nodes cost no accuracy).
      double c = 0.5 * (grid[j + 1] - grid[j]) * gp[j] * gp[j];
      if (j > 0) c += 0.5 * (grid[j] - grid[j - 1]) * gm[j] * gm[j];
      double s1 = 0, s2 = 0, s3 = 0, s4 = 0;
      const double dG = Gam[i] - Gam[j];
      for (std::size_t g = 0; g < r; ++g) {
        const double E = std::exp(-2 * G.kappa[g] * dG);  // E_i(t, s) = e^{−2κ_i(Γ(t) − Γ(s))}
        const double kl = G.k[g] * G.lambda[g] * E;
        s1 += kl * G.lambda[g];
        s2 += kl;
        s3 += kl * G.kappa[g];
        s4 += G.k[g] * G.kappa[g] * E;
      }
      // The kernels of (6)–(7) in the eigenbasis: G(t,s;Σ) = (γ²/d)Σ kλ²E, G′(t,s;Σ) = (σ²γ²/(2d))Σ
      // kλE and the same with Σ + δI: (γ²/d)Σ kλκE, (σ²γ²/(2d))Σ kκE; γ² is inside c.
      accP += c * (s1 / G.d * P[j] + noise * s2);
      accR += c * (s3 / G.d * P[j] + noise * s4);
    }
    const double c = 0.5 * (grid[i] - grid[i - 1]) * gm[i] * gm[i];
    const double denominator = 1 - c * d1 / G.d;  // 1 − ω_ii G_ii
    if (!(denominator > 0)) {
      out.ok = false;
      out.message = "product trapezoid singular at t = " + format_value(grid[i]) +
                    " (1 - w_ii G_ii = " + format_value(denominator) + "): step too large";
      return out;
    }
    P[i] = (accP + c * noise * d2) / denominator;
    R[i] = accR + c * (d3 / G.d * P[i] + noise * d4);
    if (!std::isfinite(P[i]) || !std::isfinite(R[i])) {
      out.ok = false;
      out.message = "non-finite value at t = " + format_value(grid[i]) + " (overflow)";
      return out;
    }
  }
  const std::vector<std::size_t> nodes = output_nodes(grid, times);
  for (std::size_t k = 0; k < n; ++k) {
    out.P[k] = P[nodes[k]];
    out.R[k] = R[nodes[k]];
  }
  return out;
}

}  // namespace

// ---- public API -------------------------------------------------------------------------------

risk_pair gradient_flow_risk(const problem& p, double Gamma) {
  constexpr const char* fn = "gradient_flow_risk";
  validate(p, fn);
  check_nonnegative(fn, "Gamma", Gamma);
  return gradient_flow(groups_data(p), Gamma);
}

double kernel_norm(const problem& p, double gamma) {
  constexpr const char* fn = "kernel_norm";
  validate(p, fn);
  check_nonnegative(fn, "gamma", gamma);
  return groups_data(p).kernel_norm(gamma);  // K_∞ (docs/volterra.md)
}

risk_curve solve_ode_lift(const problem& p,
                          const schedule& gamma,
                          std::span<const double> times,
                          const ode_options& o) {
  constexpr const char* fn = "solve_ode_lift";
  validate(p, fn);
  check_times(fn, times);
  check_positive(fn, "relative_tolerance", o.relative_tolerance);
  check_nonnegative(fn, "absolute_tolerance", o.absolute_tolerance);
  check_at_least(fn, "max_steps", o.max_steps, 1);
  const groups_data G(p);
  risk_curve c = empty_curve(times, "ode-lift dopri5");
  if (times.empty()) return c;
  const double T = times.back();
  check_relaxations(fn, G, gamma, T);
  c.max_kernel_norm = G.kernel_norm(gamma.max_rate(T));

  double atol = o.absolute_tolerance;
  if (atol == 0) {
    // Automatic: far below the relative accuracy of P and R at their natural scale.
    const risk_pair r0 = gradient_flow(G, 0.0);
    const double noise_scale = 0.25 * G.sigma2 * gamma.max_rate(T);  // ≈ G′_∞·d/tr Σ
    const double scale = std::max({r0.P, r0.R, noise_scale, 1e-300});
    atol = 1e-6 * o.relative_tolerance * scale;
  }
  const lift_run run =
      run_lift(G, gamma, times, o.relative_tolerance, atol, o.max_steps, o.store_variances);
  c.P = run.P;
  c.R = run.R;
  c.variances = run.w;
  c.steps = run.steps;
  c.evaluations = clamp_int(run.steps);
  c.termination = run.termination;
  c.message = run.message;
  if (run.termination == termination_type::converged && o.estimate_error) {
    const lift_run loose =
        run_lift(G, gamma, times, 10 * o.relative_tolerance, 10 * atol, o.max_steps, false);
    if (loose.termination == termination_type::converged) {
      for (std::size_t i = 0; i < times.size(); ++i) {
        c.P_error[i] = std::abs(c.P[i] - loose.P[i]);
        c.R_error[i] = std::abs(c.R[i] - loose.R[i]);
      }
    } else {
      std::fill(c.P_error.begin(), c.P_error.end(), INFINITY);
      std::fill(c.R_error.begin(), c.R_error.end(), INFINITY);
      append(c.message, "no error estimate: the 10x looser run stopped (" + loose.message + ")");
    }
  }
  append(c.message, kernel_note(c.max_kernel_norm));
  return c;
}

risk_curve solve_exponential(const problem& p,
                             const schedule& gamma,
                             std::span<const double> times,
                             const exponential_options& o) {
  constexpr const char* fn = "solve_exponential";
  validate(p, fn);
  check_times(fn, times);
  check_at_least(fn, "initial_steps", o.initial_steps, 2);
  check_at_least(fn, "max_steps", o.max_steps, o.initial_steps);
  check_nonnegative(fn, "relative_tolerance", o.relative_tolerance);
  check_nonnegative(fn, "absolute_tolerance", o.absolute_tolerance);
  check_nonnegative(fn, "time_scale", o.time_scale);
  const groups_data G(p);
  const std::string method = "exponential trapezoid on the ODE lift, log-time grid";
  if (times.empty()) return empty_curve(times, method);
  const double T = times.back();
  check_relaxations(fn, G, gamma, T);
  const double gamma_max = gamma.max_rate(T);
  double ts = o.time_scale;
  if (ts == 0) ts = gamma_max * G.kappa_max > 0 ? 1 / (2 * gamma_max * G.kappa_max) : T;
  ts = std::min(ts, std::max(T, std::numeric_limits<double>::min()));
  // Coarsest grid: t_n = t_s·((1 + T/t_s)^{n/N} − 1), N = initial_steps/2 (or /4 when
  // extrapolating: three levels end at initial_steps).
  const long long N = std::max(1LL, o.initial_steps >> (o.extrapolate ? 2 : 1));
  std::vector<double> base;
  if (T > 0) {
    const double L = std::log1p(T / ts);
    for (long long i = 1; i < N; ++i)
      base.push_back(ts * std::expm1(L * static_cast<double>(i) / static_cast<double>(N)));
  }
  std::vector<double> grid = make_grid(std::move(base), times, gamma.breakpoints(T));
  risk_curve c = nested_solve(times, std::move(grid),
                              {o.initial_steps, o.max_steps, o.relative_tolerance,
                               o.absolute_tolerance, o.adaptive, o.extrapolate},
                              method, [&](const std::vector<double>& g) {
                                return run_exponential(G, gamma, g, times, o.store_variances);
                              });
  c.max_kernel_norm = G.kernel_norm(gamma_max);
  append(c.message, kernel_note(c.max_kernel_norm));
  return c;
}

risk_curve solve_product_trapezoid(const problem& p,
                                   const schedule& gamma,
                                   std::span<const double> times,
                                   const trapezoid_options& o) {
  constexpr const char* fn = "solve_product_trapezoid";
  validate(p, fn);
  check_times(fn, times);
  check_at_least(fn, "initial_steps", o.initial_steps, 2);
  check_at_least(fn, "max_steps", o.max_steps, o.initial_steps);
  check_nonnegative(fn, "relative_tolerance", o.relative_tolerance);
  check_nonnegative(fn, "absolute_tolerance", o.absolute_tolerance);
  const groups_data G(p);
  const std::string method = "product trapezoid on (6)-(7)";
  if (times.empty()) return empty_curve(times, method);
  const double T = times.back();
  check_relaxations(fn, G, gamma, T);
  const long long N = std::max(1LL, o.initial_steps >> (o.extrapolate ? 2 : 1));
  std::vector<double> base;
  for (long long i = 1; i < N; ++i)
    base.push_back(T * static_cast<double>(i) / static_cast<double>(N));
  std::vector<double> grid = make_grid(std::move(base), times, gamma.breakpoints(T));
  risk_curve c = nested_solve(
      times, std::move(grid),
      {o.initial_steps, o.max_steps, o.relative_tolerance, o.absolute_tolerance, o.adaptive,
       o.extrapolate},
      method, [&](const std::vector<double>& g) { return run_trapezoid(G, gamma, g, times); });
  c.max_kernel_norm = G.kernel_norm(gamma.max_rate(T));
  append(c.message, kernel_note(c.max_kernel_norm));
  return c;
}

risk_curve solve_risk(const problem& p,
                      const schedule& gamma,
                      std::span<const double> times,
                      double relative_tolerance,
                      bool store_variances) {
  constexpr const char* fn = "solve_risk";
  validate(p, fn);
  check_times(fn, times);
  check_positive(fn, "relative_tolerance", relative_tolerance);
  const groups_data G(p);
  const double T = times.empty() ? 0.0 : times.back();
  // An explicit Runge–Kutta step is limited to ≈ 3.3/(2γκ_max): Γ(T)·2κ_max/3.3 steps at least.
  if (gamma.integral(T) * 2 * G.kappa_max <= 3e4) {
    ode_options o;
    o.relative_tolerance = 1e-2 * relative_tolerance;
    o.store_variances = store_variances;
    return solve_ode_lift(p, gamma, times, o);
  }
  exponential_options o;
  o.relative_tolerance = relative_tolerance;
  o.store_variances = store_variances;
  return solve_exponential(p, gamma, times, o);
}

risk_curve isotropic_constant_rate(const problem& p, double gamma, std::span<const double> times) {
  constexpr const char* fn = "isotropic_constant_rate";
  validate(p, fn);
  check_positive(fn, "gamma", gamma);
  check_times(fn, times);
  if (p.groups.size() != 1)
    throw_domain_error(fn, "groups.size()", format_value(static_cast<long long>(p.groups.size())),
                       "1 (isotropic Sigma = lambda I)");
  const groups_data G(p);
  risk_curve c = empty_curve(times, "isotropic closed form");
  const double lambda = G.lambda[0], kappa = G.kappa[0], r = G.ratio[0];
  const double g2l2 = gamma * gamma * lambda * lambda;
  const double cc = gamma * kappa;   // c = γ(λ + δ)
  const double rho = 2 * cc - g2l2;  // ρ = 2c − γ²λ²
  // The isotropic closed form (docs/volterra.md) in group sums: β_b = x⋆ − x̃ = −r x̃,
  // x0 − x⋆ = e0 + r x̃.
  const double f0 = 0.5 * lambda * r * r * G.X[0] + 0.5 * G.label;
  const double f1 = -lambda * r * (G.C0[0] + r * G.X[0]);
  const double f2 = 0.5 * lambda * (G.S0[0] + 2 * r * G.C0[0] + r * r * G.X[0]);
  const double h = kappa > 0 ? G.sigma2 * gamma * lambda / (4 * kappa) : 0.0;
  // (1 − e^{−at})/a, → t as a → 0, without cancellation.
  auto phi1 = [](double a, double t) { return a == 0 ? t : -std::expm1(-a * t) / a; };
  const double K = G.kernel_norm(gamma);
  c.max_kernel_norm = K;
  c.steps = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    const double t = times[i];
    const double ect = std::exp(-cc * t), ert = std::exp(-rho * t);
    const double a = (f0 + h) * (1 + g2l2 * phi1(rho, t));
    // (e^{−ct} − e^{−ρt})/(ρ − c) = e^{−min(c,ρ)t}·(1 − e^{−|ρ−c|t})/|ρ − c|: no ∞·0 for ρ < c.
    const double diff = std::exp(-std::min(cc, rho) * t) * phi1(std::abs(rho - cc), t);
    const double b = f1 * (ect + g2l2 * diff);
    const double e = (f2 - h) * ert;
    c.P[i] = a + b + e;
    const risk_pair gf = gradient_flow(G, gamma * t);
    if (lambda > 0) {
      c.R[i] = gf.R + kappa / lambda * (c.P[i] - gf.P);  // regularised risk
    } else {
      // λ = 0: no feedback; ½κ d w with w = (γσ²/(2dκ))(1 − e^{−2ct}) (γ²σ²t/d when κ = 0).
      c.R[i] = gf.R + 0.5 * G.sigma2 * gamma * gamma * phi1(2 * cc, t);
    }
    // Rounding only: a few ulp of the largest term of each sum.
    const double scale = std::abs(a) + std::abs(b) + std::abs(e);
    c.P_error[i] = 64 * tol::kMachineEps * scale;
    c.R_error[i] = 64 * tol::kMachineEps *
                   (std::abs(gf.R) + (lambda > 0 ? kappa / lambda * (scale + gf.P) : c.R[i]));
    if (!std::isfinite(c.P[i]) || !std::isfinite(c.R[i])) {
      c.termination = termination_type::failure;
      c.message = "P_t overflows at t = " + format_value(t);
    }
  }
  if (rho <= 0)
    append(c.message, "rho = 2c - gamma^2 lambda^2 = " + format_value(rho) +
                          " <= 0 (K_inf = " + format_value(K) + " >= 1): P_t grows without bound");
  return c;
}

plateau_result plateau(const problem& p, double gamma) {
  constexpr const char* fn = "plateau";
  validate(p, fn);
  check_positive(fn, "gamma", gamma);
  const groups_data G(p);
  plateau_result out;
  // Derived in docs/volterra.md.
  double noise_sum = 0, P_x = 0, x_sq = 0, trace_pos = 0;
  for (std::size_t g = 0; g < G.r; ++g) {
    const double kap = G.kappa[g], r = G.ratio[g];
    if (kap > 0) {
      noise_sum += G.k[g] * G.lambda[g] / kap;
      trace_pos += G.k[g] * G.lambda[g];
    }
    P_x += G.lambda[g] * r * r * G.X[g];  // λ(δ/κ)²‖x̃‖²_g
    x_sq += (1 - r) * (1 - r) * G.X[g];   // ‖x⋆‖²_g, x⋆ = (λ/κ)x̃
  }
  out.kernel_norm = G.kernel_norm(gamma);
  out.noise_forcing = G.sigma2 * gamma / (4 * G.d) * noise_sum;
  out.P_xstar = 0.5 * P_x + 0.5 * G.label;
  out.R_xstar = out.P_xstar + 0.5 * G.delta * x_sq;
  out.stable = out.kernel_norm < 1;
  out.evaluations = 0;
  if (!out.stable) {
    out.P_inf = out.R_inf = INFINITY;
    out.termination = termination_type::failure;
    out.message =
        "K_inf = (gamma/(2d)) sum k lambda^2/(lambda + delta) = " + format_value(out.kernel_norm) +
        " >= 1: P_t diverges, no plateau (stability needs gamma < " +
        format_value(2 * G.d / G.kernel_sum) + ")";
    return out;
  }
  out.P_inf = (out.P_xstar + out.noise_forcing) / (1 - out.kernel_norm);
  // R_∞ = ℛ(x⋆) + ½Σ_g k κ w_g(∞) = ℛ(x⋆) + (γ/(4d))Σ_{κ>0} k(2λP_∞ + σ²); with every κ > 0 this
  // is ℛ(x⋆) + γ tr Σ P_∞/(2d) + σ²γ/4 (docs/volterra.md).
  double k_pos = 0;
  for (std::size_t g = 0; g < G.r; ++g)
    if (G.kappa[g] > 0) k_pos += G.k[g];
  out.R_inf = out.R_xstar + gamma / (4 * G.d) * (2 * trace_pos * out.P_inf + G.sigma2 * k_pos);
  out.variances.resize(G.r);
  for (std::size_t g = 0; g < G.r; ++g) {
    if (G.kappa[g] > 0)
      out.variances[g] = gamma * (2 * G.lambda[g] * out.P_inf + G.sigma2) / (2 * G.d * G.kappa[g]);
    else
      out.variances[g] = G.sigma2 > 0 ? INFINITY : 0.0;  // ẇ = γ²σ²/d: no limit
  }
  return out;
}

}  // namespace dpkit::volterra
