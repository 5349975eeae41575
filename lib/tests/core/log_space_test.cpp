#include "dpkit/core/log_space.hpp"

#include <boost/multiprecision/cpp_bin_float.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>
#include <vector>

#include "dpkit/core/tolerance.hpp"
#include "support/test_util.hpp"

using dpkit::test::relative_error;
using namespace dpkit::tol;

namespace {
using dpkit::test::kInf;
}

// Spot values: closed forms evaluated where double arithmetic is exact or trivially accurate.
TEST_CASE("log1mexp is accurate on both sides of -log 2", "[core][log_space]") {
  // log(1 − e^x) for x = log(1/2): log(1/2).
  CHECK(relative_error(dpkit::log1mexp(std::log(0.5)), std::log(0.5)) < kTol1);
  // Tiny |x|: log(1 − e^x) ≈ log(−x) − x/2 (series; error x²/24).
  const double x = -1e-20;
  CHECK(relative_error(dpkit::log1mexp(x), std::log(1e-20) + 5e-21) < kTol0);
  // Very negative x: log(1 − e^x) ≈ −e^x.
  CHECK(relative_error(dpkit::log1mexp(-50.0), -std::exp(-50.0)) < kTol0);
  CHECK(dpkit::log1mexp(0.0) == -kInf);
  REQUIRE_THROWS_AS(dpkit::log1mexp(1e-3), std::domain_error);
}

TEST_CASE("log1pexp, log_expm1 have no overflow or cancellation", "[core][log_space]") {
  CHECK(dpkit::log1pexp(1000.0) == 1000.0);
  CHECK(relative_error(dpkit::log1pexp(-800.0), std::exp(-800.0)) == 0);
  CHECK(relative_error(dpkit::log1pexp(0.0), std::log(2.0)) < kTol0);
  CHECK(relative_error(dpkit::log_expm1(1e-30), std::log(1e-30)) < kTol0);
  CHECK(relative_error(dpkit::log_expm1(1000.0), 1000.0) < kTol0);
  CHECK(dpkit::log_expm1(0.0) == -kInf);
  REQUIRE_THROWS_AS(dpkit::log_expm1(-1.0), std::domain_error);
}

TEST_CASE("log_sum_exp and log_diff_exp", "[core][log_space]") {
  CHECK(relative_error(dpkit::log_sum_exp(std::log(2.0), std::log(3.0)), std::log(5.0)) < kTol0);
  CHECK(dpkit::log_sum_exp(-kInf, 3.0) == 3.0);
  CHECK(relative_error(dpkit::log_sum_exp(1000.0, 1000.0), 1000.0 + std::log(2.0)) < kTol0);
  const std::vector<double> v = {-1000.0, -1000.0, -1000.0, -1000.0};
  CHECK(relative_error(dpkit::log_sum_exp(v), -1000.0 + std::log(4.0)) < kTol0);
  CHECK(dpkit::log_sum_exp(std::vector<double>{}) == -kInf);
  CHECK(relative_error(dpkit::log_diff_exp(std::log(5.0), std::log(3.0)), std::log(2.0)) < kTol1);
  CHECK(dpkit::log_diff_exp(7.0, 7.0) == -kInf);
  REQUIRE_THROWS_AS(dpkit::log_diff_exp(1.0, 2.0), std::domain_error);
  REQUIRE_THROWS_AS(dpkit::log_sum_exp(NAN, 1.0), std::domain_error);
}

// exp_upper against e^x at 50 digits, over a seeded sweep of its whole domain: normal results,
// the subnormal range (x in [-745.2, -708.4]) and below, where e^x underflows to 0 in double.
TEST_CASE("exp_upper is an upper bound on e^x everywhere, and never 0 for finite x",
          "[core][log_space]") {
  using real50 = boost::multiprecision::cpp_bin_float_50;
  constexpr double kMin = std::numeric_limits<double>::min();
  constexpr double kTiny = std::numeric_limits<double>::denorm_min();
  std::mt19937_64 gen(20261127);
  std::uniform_real_distribution<double> normal_range(-708.0, 0.0), sub_range(-746.0, -708.0);
  for (int i = 0; i < 4000; ++i) {
    const double x = i % 2 == 0 ? normal_range(gen) : sub_range(gen);
    const double up = dpkit::exp_upper(x);
    const real50 exact = exp(real50(x));
    INFO("x = " << x << ", exp_upper = " << up);
    REQUIRE(real50(up) >= exact);
    REQUIRE(up > 0);
    // Tight: within two ulps of the result (normal), two subnormal steps (below).
    if (up >= kMin)
      CHECK(real50(up) <= exact * (1 + real50(4.5e-16)));
    else
      CHECK(real50(up) <= exact + 2 * real50(kTiny));
  }
  CHECK(dpkit::exp_upper(-1e4) == kTiny);
  CHECK(dpkit::exp_upper(std::numeric_limits<double>::lowest()) == kTiny);
  CHECK(dpkit::exp_upper(-kInf) == 0);
  CHECK(dpkit::exp_upper(0.0) >= 1.0);
  CHECK(std::isnan(dpkit::exp_upper(NAN)));
  // exp_lower, the mirror: at or below e^x everywhere, and moved in the subnormal range too.
  std::mt19937_64 gen2(20261128);
  std::uniform_real_distribution<double> any(-746.0, 0.0);
  for (int i = 0; i < 4000; ++i) {
    const double x = any(gen2);
    const double lo = dpkit::exp_lower(x);
    INFO("x = " << x << ", exp_lower = " << lo);
    REQUIRE(real50(lo) <= exp(real50(x)));
    REQUIRE(lo >= 0);
  }
  CHECK(dpkit::exp_lower(-1e4) == 0);
  CHECK(dpkit::exp_lower(-kInf) == 0);
  CHECK(dpkit::exp_lower(0.0) < 1.0);
  CHECK(std::isnan(dpkit::exp_lower(NAN)));
}
