#include "dpkit/core/check.hpp"

#include <catch2/catch.hpp>
#include <limits>
#include <stdexcept>

using Catch::Matchers::Contains;
using Catch::Matchers::Equals;

TEST_CASE("check_* messages follow '<function>: <name> is <value>, but must be <constraint>'",
          "[core][check]") {
  REQUIRE_THROWS_WITH(dpkit::check_positive("f", "sigma", -1.5),
                      Equals("f: sigma is -1.5, but must be finite and > 0"));
  REQUIRE_THROWS_WITH(dpkit::check_open_probability("gdp_epsilon", "delta", 1.0),
                      Equals("gdp_epsilon: delta is 1, but must be in (0, 1)"));
  REQUIRE_THROWS_WITH(dpkit::check_probability("g", "p", 1.25),
                      Equals("g: p is 1.25, but must be in [0, 1]"));
  REQUIRE_THROWS_WITH(dpkit::check_nonnegative("g", "mu", -0.25),
                      Equals("g: mu is -0.25, but must be finite and >= 0"));
  REQUIRE_THROWS_WITH(dpkit::check_greater("h", "alpha", 1.0, 1.0),
                      Equals("h: alpha is 1, but must be finite and > 1"));
  REQUIRE_THROWS_WITH(dpkit::check_bounded("h", "x", 3.0, 0.0, 2.5),
                      Equals("h: x is 3, but must be in [0, 2.5]"));
  REQUIRE_THROWS_WITH(dpkit::check_at_least("h", "n", 1, 2), Equals("h: n is 1, but must be >= 2"));
}

TEST_CASE("check_* reject NaN and infinities unless documented", "[core][check]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  REQUIRE_THROWS_AS(dpkit::check_positive("f", "x", nan), std::domain_error);
  REQUIRE_THROWS_AS(dpkit::check_positive("f", "x", inf), std::domain_error);
  REQUIRE_THROWS_AS(dpkit::check_nonnegative("f", "x", inf), std::domain_error);
  REQUIRE_THROWS_AS(dpkit::check_probability("f", "p", nan), std::domain_error);
  REQUIRE_THROWS_AS(dpkit::check_open_probability("f", "p", nan), std::domain_error);
  REQUIRE_THROWS_AS(dpkit::check_finite("f", "x", -inf), std::domain_error);
  REQUIRE_THROWS_WITH(dpkit::check_not_nan("f", "x", nan), Contains("x is nan"));
  REQUIRE_NOTHROW(dpkit::check_not_nan("f", "x", inf));
  REQUIRE_NOTHROW(dpkit::check_probability("f", "p", 0.0));
  REQUIRE_NOTHROW(dpkit::check_probability("f", "p", 1.0));
  REQUIRE_NOTHROW(dpkit::check_positive("f", "x", 5e-324));
}

TEST_CASE("format_value gives the shortest round-trip text", "[core][check]") {
  CHECK(dpkit::format_value(0.1) == "0.1");
  CHECK(dpkit::format_value(1e-300) == "1e-300");
  CHECK(dpkit::format_value(-2.5) == "-2.5");
  CHECK(dpkit::format_value(std::numeric_limits<double>::infinity()) == "inf");
  CHECK(dpkit::format_value(-std::numeric_limits<double>::infinity()) == "-inf");
  CHECK(dpkit::format_value(std::numeric_limits<double>::quiet_NaN()) == "nan");
  CHECK(dpkit::format_value(42LL) == "42");
  const double x = 0.1 + 0.2;
  CHECK(std::stod(dpkit::format_value(x)) == x);
}
