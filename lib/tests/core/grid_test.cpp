#include "dpkit/core/grid.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

TEST_CASE("linspace and logspace hit their end points exactly", "[core][grid]") {
  const auto x = dpkit::linspace(-1.0, 3.0, 5);
  REQUIRE(x.size() == 5);
  CHECK(x.front() == -1.0);
  CHECK(x[1] == 0.0);
  CHECK(x.back() == 3.0);
  const auto y = dpkit::logspace(1e-3, 1e3, 7);
  REQUIRE(y.size() == 7);
  CHECK(y.front() == 1e-3);
  CHECK(y.back() == 1e3);
  for (std::size_t i = 1; i < y.size(); ++i) CHECK(std::abs(y[i] / y[i - 1] - 10.0) < 1e-12);
}

TEST_CASE("grids reject bad input", "[core][grid]") {
  REQUIRE_THROWS_AS(dpkit::linspace(0.0, 1.0, 1), std::domain_error);
  REQUIRE_THROWS_AS(dpkit::logspace(0.0, 1.0, 3), std::domain_error);
  REQUIRE_THROWS_AS(dpkit::linspace(0.0, NAN, 3), std::domain_error);
}
