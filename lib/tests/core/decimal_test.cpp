#include "dpkit/core/decimal.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

// The exhaustive check is the seeded sweep of lib/tests/accounting/run_units_test.cpp (integer
// references); here the reading of the decimal at the ends of the double range.
TEST_CASE("ceilings of decimals as written", "[core][decimal]") {
  CHECK(dpkit::ceil_as_written(2.2, 1000, 100) == 22);  // the binary 2.2 would give 23
  CHECK(dpkit::ceil_as_written(0.1, 30, 3) == 1);
  CHECK(dpkit::ceil_as_written(1e-300, 1, 1) == 1);
  CHECK(dpkit::ceil_as_written(5e-324, 1, 1) == 1);  // the smallest subnormal, "5e-324"
  CHECK(dpkit::ceil_as_written(9007199254740992.0, 1, 1) == 9007199254740992LL);
  CHECK_FALSE(dpkit::ceil_as_written(9007199254740992.0, 2, 1).has_value());
  CHECK_FALSE(dpkit::ceil_as_written(1.7976931348623157e308, 1, 1).has_value());
  CHECK(dpkit::ceil_as_written(123.456, 0, 7) == 0);
  CHECK(dpkit::ceil_quotient_as_written(3, 0.3) == 10);  // the binary 0.3 would give 11
  CHECK(dpkit::ceil_quotient_as_written(0.7, 0.07) == 10);
  CHECK(dpkit::ceil_quotient_as_written(1e-300, 1e300) == 1);
  CHECK_FALSE(dpkit::ceil_quotient_as_written(1e300, 1e-300).has_value());
  CHECK_THROWS_AS(dpkit::ceil_as_written(0, 1, 1), std::domain_error);
  CHECK_THROWS_AS(dpkit::ceil_as_written(std::nan(""), 1, 1), std::domain_error);
  CHECK_THROWS_AS(dpkit::ceil_as_written(1, 1, 0), std::domain_error);
  CHECK_THROWS_AS(dpkit::ceil_quotient_as_written(1, INFINITY), std::domain_error);
}
