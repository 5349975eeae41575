#include "dpkit/accounting/accountant.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace acc = dpkit::accounting;
using Catch::Matchers::Contains;

namespace {
acc::training_run dpsgd(double sigma, double q, long long steps) {
  acc::training_run run;
  run.phases.push_back({sigma, q, acc::sampling_scheme::poisson, steps});
  return run;
}
}  // namespace

TEST_CASE("the facade labels every accountant honestly", "[accounting]") {
  const auto run = dpsgd(1.0, 0.01, 1000);
  const auto pld = acc::estimate_epsilon(run, 1e-5, acc::accountant_type::pld);
  const auto rdp = acc::estimate_epsilon(run, 1e-5, acc::accountant_type::rdp);
  const auto clt = acc::estimate_epsilon(run, 1e-5, acc::accountant_type::clt);
  CHECK(pld.kind == dpkit::bound_kind::upper_bound);
  CHECK(pld.lower <= pld.value);
  CHECK(rdp.kind == dpkit::bound_kind::upper_bound);
  CHECK(std::isnan(rdp.lower));
  CHECK(rdp.value >= pld.lower);
  CHECK(clt.kind == dpkit::bound_kind::approximation);
  CHECK(std::isnan(clt.upper));
  CHECK_THAT(pld.method, Contains("PLD/FFT"));
  CHECK(acc::to_string(acc::accountant_type::clt) == "clt");
  const auto d = acc::estimate_delta(run, 1.0, acc::accountant_type::pld);
  CHECK(d.lower <= d.value);
  CHECK(std::isfinite(d.log_value));
}

TEST_CASE("noise calibration returns the safe end of a tight bracket",
          "[accounting][calibration]") {
  for (auto a : {acc::accountant_type::pld, acc::accountant_type::rdp}) {
    const auto c =
        acc::calibrate_noise_multiplier(dpsgd(1.0, 0.01, 1000), 1.0, 1e-5, {a, {}, 1e-3});
    CAPTURE(acc::to_string(a), c.noise_multiplier, c.noise_multiplier_lower);
    REQUIRE(c.converged());
    CHECK(c.estimate.value <= 1.0);  // the budget holds at the returned value
    CHECK(c.noise_multiplier_lower <= c.noise_multiplier);
    CHECK(c.noise_multiplier / c.noise_multiplier_lower - 1 <= 1e-3 + 1e-12);
    // and it is exceeded a little below the bracket
    const auto below =
        acc::estimate_epsilon(dpsgd(c.noise_multiplier_lower * 0.999, 0.01, 1000), 1e-5, a);
    CHECK(below.value > 1.0);
  }
}

TEST_CASE("a failed calibration says which accountant failed, and returns no sigma",
          "[accounting][calibration]") {
  // RDP's conversions cannot go below about log(1/δ)/(α_max − 1) = 690/9999 = 0.069 at
  // δ = 1e-300, whatever σ is, so a budget of ε = 1e-3 is out of its reach: the search must
  // fail, not return a σ or a row labelled pld.
  const auto c = acc::calibrate_noise_multiplier(dpsgd(1.0, 0.01, 1000), 1e-3, 1e-300,
                                                 {acc::accountant_type::rdp, {}, 1e-3});
  CHECK_FALSE(c.converged());
  CHECK(std::isnan(c.noise_multiplier));
  CHECK(c.estimate.accountant == acc::accountant_type::rdp);
  CHECK_FALSE(c.estimate.converged());
  // The message says where the search stopped and that the budget was still exceeded there.
  CHECK_THAT(c.message, Contains("could not bracket the noise multiplier: at noise multiplier"));
  CHECK_THAT(c.message, Contains("(target 0.001;"));
}

TEST_CASE("steps calibration finds the largest number of steps", "[accounting][calibration]") {
  const auto c = acc::calibrate_steps(dpsgd(2.0, 0.01, 1), 1.0, 1e-5, 1000000);
  REQUIRE(c.steps > 1);
  CHECK(c.estimate.value <= 1.0);
  CHECK(
      acc::estimate_epsilon(dpsgd(2.0, 0.01, c.steps + 1), 1e-5, acc::accountant_type::pld).value >
      1.0);
  const auto none = acc::calibrate_steps(dpsgd(0.1, 1.0, 1), 0.01, 1e-5, 100);
  CHECK(none.steps == 0);
  REQUIRE_THROWS_AS(acc::calibrate_noise_multiplier(dpsgd(1.0, 0.01, 10), 0.0, 1e-5),
                    std::domain_error);
  REQUIRE_THROWS_AS(acc::calibrate_steps(dpsgd(1.0, 0.01, 10), 1.0, 1e-5, 0), std::domain_error);
}

TEST_CASE("curves over the steps answer as the accountants do alone",
          "[accounting][curve]") {
  const auto run = dpsgd(1.1, 256.0 / 60000.0, 1);
  const std::vector<long long> steps = {235, 2344, 14063};
  for (auto a : {acc::accountant_type::pld, acc::accountant_type::rdp, acc::accountant_type::clt}) {
    const auto eps = acc::estimate_epsilon_curve(run, steps, 1e-5, a);
    const auto del = acc::estimate_delta_curve(run, steps, 1.0, a);
    REQUIRE(eps.size() == 3);
    REQUIRE(del.size() == 3);
    for (std::size_t i = 0; i < steps.size(); ++i) {
      auto one = run;
      one.phases.back().steps = steps[i];
      const auto e = acc::estimate_epsilon(one, 1e-5, a);
      const auto d = acc::estimate_delta(one, 1.0, a);
      INFO(acc::to_string(a) << ", T = " << steps[i]);
      CHECK(eps[i].accountant == a);
      CHECK(eps[i].kind == e.kind);
      CHECK(del[i].kind == d.kind);
      if (a == acc::accountant_type::pld) {
        // Both certified: the brackets of the same exact value intersect.
        CHECK(eps[i].lower <= e.upper);
        CHECK(e.lower <= eps[i].upper);
        CHECK(del[i].lower <= d.upper);
        CHECK(d.lower <= del[i].upper);
        CHECK_THAT(eps[i].method, Contains("PLD/FFT"));
      } else {
        CHECK(eps[i].value == e.value);
        CHECK(del[i].value == d.value);
        CHECK(eps[i].method == e.method);
      }
    }
  }
}
