// The risk solvers of LKSP25 eqs. (6)–(7) checked against each other and against closed
// forms: the ODE lift (dopri5) is the reference for the observed second order of the product
// trapezoid and the exponential stepper (STYLE.md rule 14: order as h halves, and honest error
// estimates); the isotropic constant-rate solution and the plateau (docs/volterra.md) against the
// ODE lift to 1e-9; the plateau's K_∞ and G′_∞ against independently measured values; stiffness,
// breakpoints, divergence, bad input.
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpkit/volterra/risk.hpp"
#include "support/test_util.hpp"

namespace vt = dpkit::volterra;
using Catch::Matchers::Contains;
using dpkit::termination_type;
using dpkit::test::describe_mismatch;
using dpkit::test::relative_error;

namespace {

// The ODE lift's check setup, grouped: d = 40 (8 groups of 5) with eigenvalues spread over
// [0.05, 2], γ(t) = 3/(1 + 0.5t), δ = 0.1, σ = 1.3. K(γ(0)) > 1: the risk first grows, so the
// Volterra feedback is exercised hard.
vt::problem generic_problem() {
  std::vector<vt::eigen_group> groups;
  for (int j = 0; j < 8; ++j) {
    const double lambda = 0.05 + 1.95 * j * j / 49.0;
    const double k = 5;
    groups.push_back({lambda, k, k * (1.0 + 0.1 * j), k * 0.25, -k * (0.2 - 0.03 * j)});
  }
  return vt::from_groups(groups, 40, {0.1, 0.01, 1.3});
}

std::vector<double> uniform_times(double T, int n) {
  std::vector<double> t;
  for (int i = 1; i <= n; ++i) t.push_back(T * i / n);
  return t;
}

double max_abs_error(const std::vector<double>& a, const std::vector<double>& b) {
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, std::abs(a[i] - b[i]));
  return e;
}

double max_rel_error(const std::vector<double>& a, const std::vector<double>& ref) {
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, relative_error(a[i], ref[i]));
  return e;
}

vt::risk_curve reference(const vt::problem& p,
                         const vt::schedule& s,
                         const std::vector<double>& times) {
  vt::ode_options o;
  o.relative_tolerance = 1e-13;
  o.store_variances = true;
  vt::risk_curve c = vt::solve_ode_lift(p, s, times, o);
  REQUIRE(c.converged());
  return c;
}

}  // namespace

TEST_CASE("product trapezoid converges at second order to the ODE lift",
          "[volterra][risk]") {
  const vt::problem p = generic_problem();
  const vt::schedule s = vt::schedule::polynomial_decay(3, 2, 1);
  const std::vector<double> times = uniform_times(2.0, 8);
  const vt::risk_curve ref = reference(p, s, times);
  CHECK(ref.max_kernel_norm > 1);  // the transient is unstable at γ(0) = 3
  double previous_P = 0, previous_R = 0;
  for (long long N : {64LL, 128LL, 256LL}) {
    vt::trapezoid_options o;
    o.initial_steps = N;
    o.max_steps = N;
    o.adaptive = false;
    o.extrapolate = false;  // the raw second-order rule
    const vt::risk_curve c = vt::solve_product_trapezoid(p, s, times, o);
    REQUIRE(c.converged());
    CHECK(c.steps == N);
    const double eP = max_abs_error(c.P, ref.P), eR = max_abs_error(c.R, ref.R);
    CAPTURE(N, eP, eR);
    // The estimate |P_h − P_2h| is honest (≥ the true error) for this second-order method.
    for (std::size_t i = 0; i < times.size(); ++i) {
      CHECK(std::abs(c.P[i] - ref.P[i]) <= c.P_error[i]);
      CHECK(std::abs(c.R[i] - ref.R[i]) <= c.R_error[i]);
    }
    if (previous_P > 0) {
      const double order_P = std::log2(previous_P / eP), order_R = std::log2(previous_R / eR);
      CAPTURE(order_P, order_R);
      CHECK(order_P >= 1.8);
      CHECK(order_P <= 2.2);
      CHECK(order_R >= 1.8);
      CHECK(order_R <= 2.2);
    }
    previous_P = eP;
    previous_R = eR;
  }
}

TEST_CASE("Richardson extrapolation over nested grids is fourth order and honest",
          "[volterra][risk]") {
  // The symmetric product trapezoid has an error expansion in h², h⁴ on nested grids, so
  // X_h = (4P_h − P_2h)/3 converges at order 4; its estimate |X_h − X_2h| is conservative
  // (measured ≈ 15× the true error).
  const vt::problem p = generic_problem();
  const vt::schedule s = vt::schedule::polynomial_decay(3, 2, 1);
  const std::vector<double> times = uniform_times(2.0, 8);
  const vt::risk_curve ref = reference(p, s, times);
  double previous = 0;
  for (long long N : {128LL, 256LL, 512LL}) {
    vt::trapezoid_options o;
    o.initial_steps = N;
    o.max_steps = N;
    o.adaptive = false;
    const vt::risk_curve c = vt::solve_product_trapezoid(p, s, times, o);
    REQUIRE(c.converged());
    const double e = max_abs_error(c.P, ref.P);
    CAPTURE(N, e);
    for (std::size_t i = 0; i < times.size(); ++i)
      CHECK(std::abs(c.P[i] - ref.P[i]) <= c.P_error[i]);
    if (previous > 0) {
      const double order = std::log2(previous / e);
      CAPTURE(order);
      CHECK(order >= 3.7);
      CHECK(order <= 4.3);
    }
    previous = e;
  }
}

TEST_CASE("exponential stepper converges at second order to the ODE lift", "[volterra][risk]") {
  const vt::problem p = generic_problem();
  const vt::schedule s = vt::schedule::polynomial_decay(3, 2, 1);
  const std::vector<double> times = uniform_times(2.0, 8);
  const vt::risk_curve ref = reference(p, s, times);
  // A grid close to uniform (t_s = T): with the automatic t_s = 1/(2γκ_max) ≈ T/25 most
  // steps go to the early transient and the asymptotic regime starts only near N = 512
  // (measured: orders 1.40, 1.65, 1.83, 1.95 from N = 32 to 512).
  double previous = 0;
  for (long long N : {64LL, 128LL, 256LL}) {
    vt::exponential_options o;
    o.initial_steps = N;
    o.max_steps = N;
    o.adaptive = false;
    o.extrapolate = false;  // the raw second-order rule
    o.time_scale = 2.0;
    const vt::risk_curve c = vt::solve_exponential(p, s, times, o);
    REQUIRE(c.converged());
    const double e = max_abs_error(c.P, ref.P);
    CAPTURE(N, e);
    for (std::size_t i = 0; i < times.size(); ++i)
      CHECK(std::abs(c.P[i] - ref.P[i]) <= c.P_error[i]);
    if (previous > 0) {
      const double order = std::log2(previous / e);
      CAPTURE(order);
      CHECK(order >= 1.8);
      CHECK(order <= 2.2);
    }
    previous = e;
  }
  // Adaptive: meets its tolerance, and the estimate is honest.
  vt::exponential_options o;
  o.relative_tolerance = 1e-9;
  o.store_variances = true;
  const vt::risk_curve c = vt::solve_exponential(p, s, times, o);
  REQUIRE(c.converged());
  CHECK(max_rel_error(c.P, ref.P) < 1e-9);
  CHECK(max_rel_error(c.R, ref.R) < 1e-9);
  CHECK((c.variances - ref.variances).cwiseAbs().maxCoeff() < 1e-9 * ref.variances.maxCoeff());
}

TEST_CASE("ODE lift: error estimate, variances and the gradient-flow identity",
          "[volterra][risk]") {
  const vt::problem p = generic_problem();
  const vt::schedule s = vt::schedule::polynomial_decay(3, 2, 1);
  const std::vector<double> times{0.0, 0.5, 0.5, 1.0, 2.0};  // 0 and a repeated time allowed
  vt::ode_options o;
  o.relative_tolerance = 1e-8;
  o.store_variances = true;
  const vt::risk_curve c = vt::solve_ode_lift(p, s, times, o);
  REQUIRE(c.converged());
  const vt::risk_curve ref = reference(p, s, times);
  for (std::size_t i = 0; i < times.size(); ++i) {
    CAPTURE(i);
    CHECK(std::abs(c.P[i] - ref.P[i]) <= c.P_error[i]);
    CHECK(std::abs(c.R[i] - ref.R[i]) <= c.R_error[i]);
    CHECK(c.P_error[i] < 1e-6 * ref.P[i]);
    // ODE lift: P_t = 𝒫(X^gf) + ½Σλ_i w_i and R_t = ℛ(X^gf) + ½Σκ_i w_i.
    const vt::risk_pair gf = vt::gradient_flow_risk(p, s.integral(times[i]));
    double half_lw = 0, half_kw = 0;
    for (std::size_t g = 0; g < p.groups.size(); ++g) {
      const double w = c.variances(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(g));
      half_lw += 0.5 * p.groups[g].multiplicity * p.groups[g].eigenvalue * w;
      half_kw += 0.5 * p.groups[g].multiplicity * (p.groups[g].eigenvalue + p.ridge) * w;
    }
    CHECK(relative_error(c.P[i], gf.P + half_lw) < 1e-7);
    CHECK(relative_error(c.R[i], gf.R + half_kw) < 1e-7);
  }
  // t = 0: the start, exactly.
  const vt::risk_pair start = vt::gradient_flow_risk(p, 0);
  CHECK(c.P[0] == start.P);
  CHECK(c.R[0] == start.R);
  CHECK(c.P[1] == c.P[2]);
  // 𝒫(x0) = ½Σλ‖x0 − x̃‖²_g + ½E w², written out.
  double P0 = 0.5 * p.label_noise;
  for (const auto& g : p.groups) P0 += 0.5 * g.eigenvalue * g.e0_sq;
  CHECK(relative_error(start.P, P0) < 1e-15);
}

TEST_CASE("isotropic closed form equals the ODE lift to 1e-9",
          "[volterra][risk]") {
  const double lambda = 0.8, delta = 0.1, kappa = lambda + delta;
  const vt::problem p = vt::isotropic(100, lambda, {3.0, 1.0, -0.5}, {delta, 0.02, 0.7});
  const std::vector<double> times{0.0, 0.1, 0.4, 1.0, 2.5, 6.0};
  struct rate_case {
    double gamma;
    const char* what;
  };
  // Generic; ρ = c (γ = κ/λ²); ρ = 0, K_∞ = 1 (γ = 2κ/λ²: P grows linearly); unstable.
  for (const rate_case rc :
       {rate_case{1.5, "generic"}, rate_case{kappa / (lambda * lambda), "rho = c"},
        rate_case{2 * kappa / (lambda * lambda), "rho = 0"}, rate_case{3.0, "unstable"}}) {
    CAPTURE(rc.what);
    const vt::schedule s = vt::schedule::constant(rc.gamma);
    const vt::risk_curve closed = vt::isotropic_constant_rate(p, rc.gamma, times);
    REQUIRE(closed.converged());
    const vt::risk_curve ode = reference(p, s, times);
    for (std::size_t i = 0; i < times.size(); ++i) {
      CAPTURE(times[i]);
      INFO(describe_mismatch(closed.P[i], ode.P[i]));
      CHECK(relative_error(closed.P[i], ode.P[i]) < 1e-9);
      CHECK(relative_error(closed.R[i], ode.R[i]) < 1e-9);
    }
    if (rc.gamma >= 2 * kappa / (lambda * lambda))
      CHECK_THAT(closed.message, Contains("grows without bound"));
    else
      CHECK(closed.message.empty());
  }
  // P_0 = 𝒫(x0) = ½λ‖x0 − x̃‖² + ½E w².
  CHECK(relative_error(vt::isotropic_constant_rate(p, 1.5, std::vector<double>{0.0}).P[0],
                       0.5 * lambda * 3.0 + 0.5 * 0.02) < 1e-15);
  // The exponential stepper and the product trapezoid agree with it too.
  const vt::risk_curve closed = vt::isotropic_constant_rate(p, 1.5, times);
  vt::exponential_options eo;
  eo.relative_tolerance = 1e-10;
  CHECK(max_rel_error(vt::solve_exponential(p, vt::schedule::constant(1.5), times, eo).P,
                      closed.P) < 1e-9);
  vt::trapezoid_options to;
  to.relative_tolerance = 1e-5;
  const vt::risk_curve trap =
      vt::solve_product_trapezoid(p, vt::schedule::constant(1.5), times, to);
  CHECK(trap.converged());
  CHECK(max_rel_error(trap.P, closed.P) < 1e-5);
  CHECK(max_rel_error(trap.R, closed.R) < 1e-5);
}

TEST_CASE("output times within odeint's time resolution of a segment start",
          "[volterra][risk]") {
  // odeint treats a time within one machine epsilon of the current one as reached and once
  // interpolated its dense output before any step: `dpkit hsgd risk --times 1e-20` segfaulted.
  // Such outputs now take the start's state; the closed form says how little P moves there.
  const double lambda = 0.8, delta = 0.1;
  const vt::problem p = vt::isotropic(100, lambda, {3.0, 1.0, -0.5}, {delta, 0.02, 0.7});
  const std::vector<double> times{1e-300, 1e-20, 2e-16, 1.0};
  const vt::risk_curve ode = vt::solve_ode_lift(p, vt::schedule::constant(1.5), times);
  const vt::risk_curve closed = vt::isotropic_constant_rate(p, 1.5, times);
  REQUIRE(ode.converged());
  for (std::size_t i = 0; i < times.size(); ++i) {
    CAPTURE(times[i]);
    CHECK(relative_error(ode.P[i], closed.P[i]) < 1e-9);
  }
}

TEST_CASE("plateau equals the long-time ODE lift to 1e-9", "[volterra][risk]") {
  // λ ∈ [0.2, 1.6], δ = 0.1, γ = 1: K_∞ ≈ 0.3; the slowest transient e^{−2γκ_min(1−K)t}
  // is below 1e-40 at t = 200.
  std::vector<vt::eigen_group> groups;
  for (int j = 0; j < 6; ++j) {
    const double k = 2 + j;
    groups.push_back({0.2 + 0.28 * j, k, k * 1.5, k * 0.3, k * 0.1});
  }
  const vt::problem p = vt::from_groups(groups, 27, {0.1, 0.05, 0.9});
  const double gamma = 1.0;
  const vt::plateau_result pl = vt::plateau(p, gamma);
  REQUIRE(pl.converged());
  REQUIRE(pl.stable);
  CHECK(pl.kernel_norm == vt::kernel_norm(p, gamma));
  const std::vector<double> T{200.0};
  const vt::risk_curve ode = reference(p, vt::schedule::constant(gamma), T);
  CHECK(relative_error(pl.P_inf, ode.P[0]) < 1e-9);
  CHECK(relative_error(pl.R_inf, ode.R[0]) < 1e-9);
  for (std::size_t g = 0; g < groups.size(); ++g)
    CHECK(relative_error(pl.variances[g], ode.variances(0, static_cast<Eigen::Index>(g))) < 1e-9);
  // For one group the plateau is the t → ∞ limit of the isotropic closed form,
  // (f0 + h)/(1 − γ²λ²/(2c)).
  const vt::problem iso = vt::isotropic(100, 0.8, {3.0, 1.0, -0.5}, {0.1, 0.02, 0.7});
  const vt::risk_curve far = vt::isotropic_constant_rate(iso, 1.5, std::vector<double>{1e4});
  const vt::plateau_result pi = vt::plateau(iso, 1.5);
  CHECK(relative_error(pi.P_inf, far.P[0]) < 1e-13);
  CHECK(relative_error(pi.R_inf, far.R[0]) < 1e-13);
  // P_∞ does not depend on x0 and is affine increasing in σ².
  vt::problem other = p;
  for (auto& g : other.groups) g.e0_sq *= 4;
  CHECK(vt::plateau(other, gamma).P_inf == pl.P_inf);
}

TEST_CASE("plateau of the LKSP25 design: K_inf and G'_inf as independently measured",
          "[volterra][risk]") {
  // γ = 50, δ = 0.1, d = 1000 (measured independently): true Σ:
  // K_∞ = 4.468e-3, G′_∞ = 0.019327σ²; the released code's Σ = I/(12d): 1.73e-6, 0.010408σ².
  const long long d = 1000;
  const std::vector<double> x0(d, 0.0), xt(d, 1 / std::sqrt(3.0 * d));
  const vt::problem design = vt::lksp25_design(d, x0, xt, {0.1, 0.01 / d, 1.0});
  const vt::plateau_result pl = vt::plateau(design, 50);
  CHECK(std::abs(pl.kernel_norm - 4.468e-3) < 0.0005e-3);
  CHECK(std::abs(pl.noise_forcing - 0.019327) < 0.0000005);
  const vt::problem code = vt::isotropic(d, 1.0 / (12 * d), {0, 1.0 / 3, 0}, {0.1, 0.01 / d, 1.0});
  const vt::plateau_result pc = vt::plateau(code, 50);
  CHECK(std::abs(pc.kernel_norm - 1.73e-6) < 0.005e-6);
  CHECK(std::abs(pc.noise_forcing - 0.010408) < 0.0000005);
  // Unstable: γ above 2d/Σ kλ²/κ.
  const vt::plateau_result bad = vt::plateau(design, 50 / pl.kernel_norm);
  CHECK_FALSE(bad.stable);
  CHECK(bad.termination == termination_type::failure);
  CHECK(bad.P_inf == INFINITY);
  CHECK_THAT(bad.message, Contains("K_inf") && Contains(">= 1: P_t diverges"));
}

TEST_CASE("stiff long horizon: the exponential stepper on a power-law spectrum",
          "[volterra][risk]") {
  // The stiff benchmark of docs/performance.md at small scale: λ_j ∝ j^{−3/2}, tr Σ = 1, δ = 0, K_∞
  // = 0.5; rates 2γλ_j span 0.08 … 77 and t ∈ [0, 500]: ≈ 4·10⁴ relaxation times of the fastest
  // mode.
  const vt::problem p = vt::power_law(100, 1.5, 1.0, {1.0, 1.0, -0.3}, {0.0, 0.001, 0.05});
  const double gamma = 100;
  CHECK(relative_error(vt::kernel_norm(p, gamma), 0.5) < 1e-14);
  const std::vector<double> times{1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0, 500.0};
  const vt::schedule s = vt::schedule::constant(gamma);
  const vt::risk_curve ref = reference(p, s, times);
  vt::exponential_options o;
  o.relative_tolerance = 1e-8;
  const vt::risk_curve c = vt::solve_exponential(p, s, times, o);
  REQUIRE(c.converged());
  CAPTURE(c.steps, ref.steps);
  CHECK(max_rel_error(c.P, ref.P) < 1e-8);
  CHECK(max_rel_error(c.R, ref.R) < 1e-8);
  // Honest estimates, up to the reference's own accuracy (≈ 1e-12 relative at rtol 1e-13).
  for (std::size_t i = 0; i < times.size(); ++i)
    CHECK(std::abs(c.P[i] - ref.P[i]) <= c.P_error[i] + 1e-11 * ref.P[i]);
  // At t = 500 every mode has relaxed: the plateau.
  CHECK(relative_error(c.P.back(), vt::plateau(p, gamma).P_inf) < 1e-8);
  // Automatic choice: this problem is stiff for an explicit method (Γ(T)·2κ_max > 3e4).
  const vt::risk_curve automatic = vt::solve_risk(p, s, times);
  CHECK(automatic.converged());
  CHECK_THAT(automatic.method, Contains("exponential"));
  CHECK(max_rel_error(automatic.P, ref.P) < 1e-7);
  const std::vector<double> short_times{0.5};  // Γ(T)·2κ_max ≈ 40: explicit
  CHECK_THAT(vt::solve_risk(p, s, short_times).method, Contains("dopri5"));
}

TEST_CASE("schedules with breakpoints: the three solvers agree", "[volterra][risk]") {
  const vt::problem p = generic_problem();
  const std::vector<double> times{0.3, 0.75, 1.0, 1.6, 2.0};
  for (const vt::schedule& s :
       {vt::schedule::step_decay(2.0, 0.5, 0.5), vt::schedule::cosine(2.5, 0.2, 1.2),
        vt::schedule::piecewise_linear({0, 0.4, 1.1}, {0.5, 2.5, 1.0})}) {
    CAPTURE(s.describe());
    const vt::risk_curve ref = reference(p, s, times);
    vt::exponential_options eo;
    eo.relative_tolerance = 1e-9;
    const vt::risk_curve e = vt::solve_exponential(p, s, times, eo);
    REQUIRE(e.converged());
    CHECK(max_rel_error(e.P, ref.P) < 1e-8);
    CHECK(max_rel_error(e.R, ref.R) < 1e-8);
    vt::trapezoid_options to;
    to.relative_tolerance = 1e-5;
    const vt::risk_curve t = vt::solve_product_trapezoid(p, s, times, to);
    REQUIRE(t.converged());
    CHECK(max_rel_error(t.P, ref.P) < 1e-5);
    CHECK(max_rel_error(t.R, ref.R) < 1e-5);
  }
}

TEST_CASE("divergence and budgets are reported, never silent", "[volterra][risk]") {
  const vt::problem p = vt::isotropic(10, 1.0, {1.0, 0.0, 0.0}, {0.0, 0.0, 1.0});
  // K_∞ = γλ²/(2κ) = 2 at γ = 4: P_t ∝ e^{|ρ|t}, ρ = 2γ − γ² = −8; it overflows near t = 90.
  const vt::schedule s = vt::schedule::constant(4.0);
  const std::vector<double> near{1.0, 2.0};
  const vt::risk_curve ode = vt::solve_ode_lift(p, s, near);
  CHECK(ode.converged());
  CHECK(ode.max_kernel_norm == 2.0);
  CHECK_THAT(ode.message, Contains("unstable"));
  const vt::risk_curve closed = vt::isotropic_constant_rate(p, 4.0, near);
  CHECK(max_rel_error(ode.P, closed.P) < 1e-8);
  const vt::risk_curve far = vt::solve_ode_lift(p, s, std::vector<double>{1.0, 200.0});
  CHECK(far.termination == termination_type::failure);
  CHECK_THAT(far.message, Contains("non-finite"));
  CHECK(std::isnan(far.P[1]));
  CHECK(relative_error(far.P[0], closed.P[0]) < 1e-8);  // the part before the overflow stands

  // Step budget of the explicit solver on a stiff problem.
  const vt::problem stiff = vt::power_law(50, 1.5, 1.0, {1.0, 1.0, 0.0}, {0.0, 0.0, 0.1});
  vt::ode_options o;
  o.max_steps = 50;
  const vt::risk_curve cut =
      vt::solve_ode_lift(stiff, vt::schedule::constant(100), std::vector<double>{0.001, 100.0}, o);
  CHECK(cut.termination == termination_type::max_iterations);
  CHECK(std::isfinite(cut.P[0]));
  CHECK(std::isnan(cut.P[1]));
  // The fixed-grid solvers run out of max_steps before a tight tolerance.
  vt::exponential_options eo;
  eo.relative_tolerance = 1e-14;
  eo.max_steps = 512;
  // (γ = 50: K_∞ = 0.5. At γ = 100, K_∞ = 1 and P_t is exactly linear in t for large t —
  // which the trapezoid rule integrates exactly.)
  const vt::risk_curve ex =
      vt::solve_exponential(stiff, vt::schedule::constant(50), std::vector<double>{10.0}, eo);
  CHECK(ex.termination == termination_type::max_iterations);
  CHECK(std::isfinite(ex.P[0]));
  CHECK(ex.P_error[0] > 0);
}

TEST_CASE("risk solvers: bad input is rejected", "[volterra][risk]") {
  const vt::problem p = generic_problem();
  const vt::schedule s = vt::schedule::constant(1);
  CHECK_THROWS_WITH(vt::solve_ode_lift(p, s, std::vector<double>{1.0, 0.5}),
                    "solve_ode_lift: times[1] is 0.5, but must be >= times[0] = 1 (nondecreasing)");
  CHECK_THROWS_WITH(vt::solve_exponential(p, s, std::vector<double>{-1.0}),
                    "solve_exponential: times[0] is -1, but must be finite and >= 0");
  CHECK_THROWS_AS(vt::solve_product_trapezoid(p, s, std::vector<double>{NAN}), std::domain_error);
  vt::problem broken = p;
  broken.groups[0].multiplicity = 0;
  CHECK_THROWS_WITH(vt::solve_ode_lift(broken, s, std::vector<double>{1.0}),
                    Contains("groups[0].multiplicity is 0"));
  CHECK_THROWS_WITH(vt::isotropic_constant_rate(p, 1.0, std::vector<double>{1.0}),
                    Contains("groups.size() is 8, but must be 1"));
  CHECK_THROWS_AS(vt::plateau(p, 0.0), std::domain_error);
  vt::ode_options o;
  o.relative_tolerance = 0;
  CHECK_THROWS_AS(vt::solve_ode_lift(p, s, std::vector<double>{1.0}, o), std::domain_error);
  vt::exponential_options eo;
  eo.max_steps = 10;
  CHECK_THROWS_AS(vt::solve_exponential(p, s, std::vector<double>{1.0}, eo), std::domain_error);
  // 2γκ_max·T beyond 1e300: refused by name, before any grid overflows (a probe's
  // --learning-rate 1e299 --ridge 1e10 started odeint with a zero step and crashed).
  vt::problem stiff = p;
  stiff.ridge = 1e10;
  const vt::schedule fast = vt::schedule::constant(1e299);
  for (int solver = 0; solver < 4; ++solver) {
    CAPTURE(solver);
    const std::vector<double> t{0.5, 1.0};
    auto run = [&] {
      if (solver == 0) return vt::solve_ode_lift(stiff, fast, t);
      if (solver == 1) return vt::solve_exponential(stiff, fast, t);
      if (solver == 2) return vt::solve_product_trapezoid(stiff, fast, t);
      return vt::solve_risk(stiff, fast, t);
    };
    CHECK_THROWS_WITH(run(), Contains("2 x learning rate x (largest eigenvalue + ridge) x horizon "
                                      "is inf, but must be <= 1e300"));
  }
  // κ_max = 2 + 0.1 (generic_problem): 2·1·2.1·1e300 = 4.2e300.
  CHECK_THROWS_WITH(vt::solve_risk(p, s, std::vector<double>{1e300}),
                    Contains("x horizon is 4.2"));
  // No times: an empty, converged curve.
  const vt::risk_curve none = vt::solve_ode_lift(p, s, std::vector<double>{});
  CHECK(none.converged());
  CHECK(none.P.empty());
}
