#include "dpkit/core/roots.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

using Catch::Matchers::Contains;
using dpkit::termination_type;

TEST_CASE("find_root converges to a few ulp and returns a certified bracket", "[core][roots]") {
  // Independent reference: the cube root of 2 from the C library.
  const auto r = dpkit::find_root([](double x) { return x * x * x - 2.0; }, 0.0, 2.0);
  REQUIRE(r.termination == termination_type::converged);
  CHECK(r.message.empty());
  CHECK(std::abs(r.root - std::cbrt(2.0)) <= 4 * std::numeric_limits<double>::epsilon());
  CHECK(r.lower <= std::cbrt(2.0));
  CHECK(r.upper >= std::cbrt(2.0));
  CHECK(r.f_lower <= 0);
  CHECK(r.f_upper >= 0);
  CHECK(r.evaluations > 2);
  CHECK(r.evaluations < 40);
}

TEST_CASE("find_root reports failure instead of throwing or guessing", "[core][roots]") {
  const auto no_bracket = dpkit::find_root([](double x) { return x * x + 1; }, -1.0, 1.0);
  CHECK(no_bracket.termination == termination_type::failure);
  CHECK_THAT(no_bracket.message, Contains("does not bracket a root"));

  const auto nan = dpkit::find_root([](double x) { return x > 0.3 ? NAN : x - 1; }, 0.0, 2.0);
  CHECK(nan.termination == termination_type::failure);
  CHECK_THAT(nan.message, Contains("is NaN"));

  dpkit::root_options tight;
  tight.max_evaluations = 4;
  const auto capped =
      dpkit::find_root([](double x) { return std::tan(x) - 1e3; }, 0.0, 1.5707, tight);
  CHECK(capped.termination == termination_type::max_iterations);
  CHECK_THAT(capped.message, Contains("stopped after"));
  CHECK(capped.lower <= std::atan(1e3));
  CHECK(capped.upper >= std::atan(1e3));

  REQUIRE_THROWS_AS(dpkit::find_root([](double x) { return x; }, NAN, 1.0), std::domain_error);
}

TEST_CASE("find_root handles a root at a bracket end", "[core][roots]") {
  const auto r = dpkit::find_root([](double x) { return x - 1.0; }, 1.0, 3.0);
  CHECK(r.termination == termination_type::converged);
  CHECK(r.root == 1.0);
}

TEST_CASE("find_root_expanding_upward widens the bracket geometrically", "[core][roots]") {
  const auto r =
      dpkit::find_root_expanding_upward([](double x) { return std::log(x + 1) - 50.0; }, 0.0, 1.0);
  REQUIRE(r.termination == termination_type::converged);
  CHECK(std::abs(r.root - std::expm1(50.0)) <= 8 * std::numeric_limits<double>::epsilon() * r.root);
  const auto never =
      dpkit::find_root_expanding_upward([](double) { return 1.0; }, 0.0, 1.0, {}, 2.0, 10);
  CHECK(never.termination == termination_type::failure);
  CHECK_THAT(never.message, Contains("no sign change"));
}
