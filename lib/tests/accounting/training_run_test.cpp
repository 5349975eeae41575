#include "dpkit/accounting/training_run.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

namespace acc = dpkit::accounting;
using Catch::Matchers::Contains;

TEST_CASE("training runs: Gaussian detection, mu and factors", "[accounting][run]") {
  acc::training_run run;
  run.phases.push_back({2.0, 1.0, acc::sampling_scheme::poisson, 16});
  run.phases.push_back({4.0, 1.0, acc::sampling_scheme::without_replacement, 4});
  run.gaussian_mu = 1.0;
  REQUIRE(run.is_gaussian());
  // √(1 + 16·(1/2)² + 4·(2/4)²) = √(1 + 4 + 1).
  CHECK(std::abs(run.gdp_mu() - std::sqrt(6.0)) < 1e-15);
  CHECK(run.total_steps() == 21);
  CHECK_FALSE(run.has_poisson_subsampling());
  run.phases[0].sampling_rate = 0.1;
  CHECK_FALSE(run.is_gaussian());
  CHECK(run.has_poisson_subsampling());
  const auto factors = acc::loss_factors(run, dpkit::subsampling::adjacency_direction::remove);
  REQUIRE(factors.size() == 3);
  CHECK(factors[0].count == 1);
  CHECK(factors[1].count == 16);
  CHECK_THAT(run.describe(),
             Contains("16 steps with noise multiplier 2, sampling rate 0.1 (poisson, add-remove)"));
  CHECK(acc::to_string(acc::sampling_scheme::without_replacement) == "without-replacement");
}

TEST_CASE("training runs are validated with check_* messages", "[accounting][run]") {
  acc::training_run run;
  run.phases.push_back({0.0, 0.5, acc::sampling_scheme::poisson, 10});
  REQUIRE_THROWS_WITH(run.validate("f"),
                      Contains("f: noise_multiplier is 0, but must be finite and >= 1e-100"));
  run.phases[0] = {1.0, 0.0, acc::sampling_scheme::poisson, 10};
  REQUIRE_THROWS_WITH(run.validate("f"),
                      Contains("f: sampling_rate is 0, but must be in [2.2250738585072014e-308, 1]"));
  run.phases[0] = {1.0, 0.5, acc::sampling_scheme::poisson, 0};
  REQUIRE_THROWS_WITH(run.validate("f"), Contains("f: steps is 0, but must be >= 1"));
  run.phases[0] = {1.0, NAN, acc::sampling_scheme::poisson, 1};
  REQUIRE_THROWS_AS(run.validate("f"), std::domain_error);
  // The edge values: refused with a pointer to the queries that answer them, or accepted.
  run.phases[0] = {INFINITY, 0.5, acc::sampling_scheme::poisson, 1};
  REQUIRE_THROWS_WITH(run.validate("f"), Contains("only the epsilon and delta queries answer"));
  REQUIRE_NOTHROW(run.validate("f", /*edge_values=*/true));
  run.phases[0] = {0.0, 0.0, acc::sampling_scheme::poisson, 1};
  REQUIRE_NOTHROW(run.validate("f", true));
  run.phases[0] = {-1.0, 0.5, acc::sampling_scheme::poisson, 1};
  REQUIRE_THROWS_WITH(
      run.validate("f", true),
      Contains("must be 0 (no noise), +inf (nothing released) or in [1e-100, +inf)"));
  run.phases[0] = {1.0, 1.5, acc::sampling_scheme::poisson, 1};
  REQUIRE_THROWS_WITH(run.validate("f", true),
                      Contains("must be 0 (never sampled) or in [2.2250738585072014e-308, 1]"));
  // Below the smallest noise multiplier and sampling rate the accountants take (1e-100, the
  // smallest normal double): refused, never silently accounted.
  run.phases[0] = {1e-200, 0.5, acc::sampling_scheme::poisson, 1};
  REQUIRE_THROWS_WITH(run.validate("f"), Contains("noise_multiplier is 1e-200"));
  REQUIRE_THROWS_WITH(run.validate("f", true), Contains("noise_multiplier is 1e-200"));
  run.phases[0] = {1.0, 1e-310, acc::sampling_scheme::poisson, 1};
  REQUIRE_THROWS_WITH(run.validate("f"), Contains("sampling_rate is 1e-310"));
  acc::training_run empty;
  REQUIRE_NOTHROW(empty.validate("f"));  // perfectly private
  CHECK(empty.gdp_mu() == 0);
}
