// Learning-rate schedules: γ(t) against the defining formulas written out here, Γ(t) against
// adaptive Gauss–Kronrod quadrature of γ (boost::math::quadrature, split at the breakpoints),
// the jump structure, and bad input.
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <numbers>
#include <stdexcept>
#include <string>
#include <vector>

#include "dpkit/volterra/schedule.hpp"
#include "support/test_util.hpp"

using dpkit::test::describe_mismatch;
using dpkit::test::relative_error;
using dpkit::volterra::schedule;

namespace {

// ∫_0^t γ by 61-point Gauss–Kronrod on each smooth piece (an independent evaluation of Γ).
double quadrature_integral(const schedule& s, double t) {
  std::vector<double> cuts{0.0};
  for (double b : s.breakpoints(t)) cuts.push_back(b);
  cuts.push_back(t);
  double total = 0;
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
    const double a = cuts[k], b = cuts[k + 1];
    // Inside a piece γ is smooth; evaluate away from the right end's jump by the left limit.
    auto f = [&](double x) { return x >= b ? s.left_limit(b) : s.rate(x); };
    double error = 0;
    total +=
        boost::math::quadrature::gauss_kronrod<double, 61>::integrate(f, a, b, 8, 1e-14, &error);
  }
  return total;
}

struct schedule_case {
  const char* name;
  schedule s;
};

std::vector<schedule_case> all_schedules() {
  return {
      {"constant", schedule::constant(2.5)},
      {"step_decay", schedule::step_decay(3.0, 0.5, 0.7)},
      {"step_decay factor 1", schedule::step_decay(3.0, 1.0, 0.7)},
      {"polynomial p=1", schedule::polynomial_decay(3.0, 2.0, 1.0)},
      {"polynomial p=0.5", schedule::polynomial_decay(1.5, 0.3, 0.5)},
      {"polynomial p=2.5", schedule::polynomial_decay(1.5, 0.3, 2.5)},
      {"polynomial p=1+1e-9", schedule::polynomial_decay(3.0, 2.0, 1 + 1e-9)},
      {"polynomial p=0", schedule::polynomial_decay(1.5, 0.3, 0.0)},
      {"cosine", schedule::cosine(4.0, 0.5, 3.0)},
      {"cosine to zero", schedule::cosine(4.0, 0.0, 1.0)},
      {"piecewise_linear", schedule::piecewise_linear({0, 0.5, 1.2, 4}, {0.1, 2.0, 1.0, 1.0})},
      {"piecewise_linear one knot", schedule::piecewise_linear({0}, {1.75})},
  };
}

}  // namespace

TEST_CASE("schedule: gamma(t) equals the defining formulas", "[volterra][schedule]") {
  const double pi = std::numbers::pi;
  for (double t : {0.0, 0.3, 0.7, 1.0, 2.1, 3.0, 7.5}) {
    CAPTURE(t);
    CHECK(schedule::constant(2.5).rate(t) == 2.5);
    CHECK(relative_error(schedule::step_decay(3, 0.5, 0.7).rate(t),
                         3 * std::pow(0.5, std::floor(t / 0.7 + 1e-12))) < 1e-15);
    CHECK(relative_error(schedule::polynomial_decay(3, 2, 1).rate(t), 3 / (1 + 0.5 * t)) <
          1e-15);  // the ODE-lift check's gamma(t) = 3/(1 + 0.5t)
    CHECK(relative_error(schedule::polynomial_decay(1.5, 0.3, 2.5).rate(t),
                         1.5 / std::pow(1 + t / 0.3, 2.5)) < 1e-14);
    const double cosine = t <= 3 ? 0.5 + 3.5 * 0.5 * (1 + std::cos(pi * t / 3)) : 0.5;
    CHECK(relative_error(schedule::cosine(4, 0.5, 3).rate(t), cosine) < 1e-14);
  }
  const schedule table = schedule::piecewise_linear({0, 0.5, 1.2, 4}, {0.1, 2.0, 1.0, 1.0});
  CHECK(table.rate(0) == 0.1);
  CHECK(relative_error(table.rate(0.25), 0.1 + 0.5 * 1.9) < 1e-15);
  CHECK(relative_error(table.rate(0.85), 2.0 - 0.5) < 1e-15);
  CHECK(table.rate(1.2) == 1.0);
  CHECK(table.rate(100) == 1.0);  // constant after the last knot
}

TEST_CASE("schedule: Gamma(t) equals Gauss-Kronrod quadrature of gamma", "[volterra][schedule]") {
  for (const schedule_case& c : all_schedules()) {
    for (double t : {0.0, 1e-6, 0.35, 0.7, 1.0, 1.4, 2.1, 3.0, 4.0, 9.3}) {
      CAPTURE(c.name, t);
      const double exact = c.s.integral(t);
      const double quad = quadrature_integral(c.s, t);
      INFO(describe_mismatch(exact, quad));
      CHECK(relative_error(exact, quad) < 1e-13);
    }
  }
}

TEST_CASE("schedule: Gamma is continuous across p = 1 of the polynomial decay",
          "[volterra][schedule]") {
  // Γ = γ0 t0 log(1 + t/t0) at p = 1 (the expm1 form must not lose digits next to it).
  const double t = 5.0;
  const double at_one = 3 * 2 * std::log1p(t / 2);
  for (double p : {1 - 1e-12, 1.0, 1 + 1e-12}) {
    CAPTURE(p);
    CHECK(relative_error(schedule::polynomial_decay(3, 2, p).integral(t), at_one) < 1e-11);
  }
}

TEST_CASE("schedule: jumps, left limits, breakpoints and max rate", "[volterra][schedule]") {
  const schedule s = schedule::step_decay(3.0, 0.5, 0.1);
  // t = 0.3 is 3·0.1 as multiplication gives it; 0.3/0.1 rounds below 3.
  CHECK(s.rate(3 * 0.1) == 3 * 0.125);
  CHECK(s.left_limit(3 * 0.1) == 3 * 0.25);
  CHECK(s.left_limit(0.25) == s.rate(0.25));
  CHECK(s.left_limit(0.0) == 3.0);
  const std::vector<double> b = s.breakpoints(0.45);
  REQUIRE(b.size() == 4);
  CHECK(b[2] == 3 * 0.1);
  CHECK(s.max_rate(10) == 3.0);
  CHECK(schedule::step_decay(3.0, 1.0, 0.1).breakpoints(10).empty());  // factor 1: no jumps

  CHECK(schedule::cosine(4, 0.5, 3).breakpoints(5) == std::vector<double>{3.0});
  CHECK(schedule::cosine(4, 0.5, 3).breakpoints(3).empty());
  const schedule table = schedule::piecewise_linear({0, 0.5, 1.2, 4}, {0.1, 2.0, 1.0, 1.0});
  CHECK(table.breakpoints(2) == std::vector<double>{0.5, 1.2});
  CHECK(table.max_rate(0.25) == table.rate(0.25));
  CHECK(table.max_rate(3) == 2.0);
  CHECK(schedule::polynomial_decay(3, 2, 1).breakpoints(100).empty());
  CHECK(schedule::constant(1).is_constant());
  CHECK_FALSE(schedule::polynomial_decay(3, 2, 0).is_constant());
  CHECK(schedule::constant(50).describe() == "constant(gamma=50)");
}

TEST_CASE("schedule: bad input is rejected", "[volterra][schedule]") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(schedule::constant(0),
                    "schedule::constant: gamma is 0, but must be finite and > 0");
  CHECK_THROWS_AS(schedule::constant(NAN), std::domain_error);
  CHECK_THROWS_WITH(schedule::step_decay(1, 1.5, 1),
                    "schedule::step_decay: factor is 1.5, but must be in (0, 1]");
  CHECK_THROWS_AS(schedule::step_decay(1, 0.5, 0), std::domain_error);
  CHECK_THROWS_AS(schedule::polynomial_decay(1, 1, -1), std::domain_error);
  CHECK_THROWS_AS(schedule::cosine(1, 2, 1), std::domain_error);
  CHECK_THROWS_WITH(schedule::piecewise_linear({0.5, 1}, {1, 1}),
                    "schedule::piecewise_linear: times[0] is 0.5, but must be 0");
  CHECK_THROWS_WITH(schedule::piecewise_linear({0, 1, 1}, {1, 1, 1}),
                    Contains("times[2] is 1, but must be finite and > the previous time, 1 (strictly"));
  CHECK_THROWS_AS(schedule::piecewise_linear({0, 1}, {1}), std::domain_error);
  CHECK_THROWS_AS(schedule::piecewise_linear({0, 1}, {1, -1}), std::domain_error);
  CHECK_THROWS_AS(schedule::piecewise_linear({0, 1}, {0, 0}), std::domain_error);
  CHECK_THROWS_AS(schedule::piecewise_linear({}, {}), std::domain_error);
  // At most 1e5 decay breakpoints before the horizon (interval 1e-300 asked for 1e300).
  CHECK_THROWS_WITH(schedule::step_decay(1, 0.5, 1e-300).breakpoints(1),
                    Contains("interval is 1e-300, but must be >= horizon / 1e5 = 1e-05"));
  CHECK(schedule::step_decay(1, 0.5, std::ldexp(1.0, -16)).breakpoints(1).size() == 65535);
  const schedule s = schedule::constant(1);
  CHECK_THROWS_WITH(s.rate(-1), "schedule::rate: t is -1, but must be finite and >= 0");
  CHECK_THROWS_AS(s.integral(NAN), std::domain_error);
  CHECK_THROWS_AS(s.integral(INFINITY), std::domain_error);
}
