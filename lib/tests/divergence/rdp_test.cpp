#include "dpkit/divergence/rdp.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "dpkit/divergence/gdp.hpp"
#include "support/check_accuracy.hpp"

using Catch::Matchers::Contains;
using dpkit::test::check_accuracy_case;
using dpkit::test::relative_error;
namespace dv = dpkit::divergence;
using dv::rdp_conversion;

TEST_CASE("RDP conversions match 50-digit optimised references", "[divergence][rdp][reference]") {
  for (const char* id : {"rdp_BS16", "rdp_Mir17", "rdp_BBG20", "rdp_ALC21"}) {
    SECTION(id) {
      check_accuracy_case(id);
    }
  }
}

TEST_CASE("every RDP conversion upper-bounds the exact GDP epsilon", "[divergence][rdp]") {
  // μ-GDP is (α, αμ²/2)-RDP; converting back can only lose: each conversion's ε must be at
  // least the exact (tight) ε of μ-GDP. A conversion formula with a sign or factor error
  // would dip below it somewhere on this grid.
  for (double mu : {0.05, 0.3, 1.0, 3.0, 10.0}) {
    for (double delta : {1e-12, 1e-6, 1e-3, 0.1}) {
      CAPTURE(mu, delta);
      const double exact = dv::gdp_epsilon(mu, delta).value;
      const auto curve = dv::gdp_rdp_curve(mu);
      CHECK(curve(7.0) == dv::gdp_rdp(mu, 7.0));
      const auto r = dv::rdp_epsilon(curve, delta);
      REQUIRE(r.converged());
      CHECK(r.kind == dpkit::bound_kind::upper_bound);
      CHECK_FALSE(r.tight);
      for (const auto& c : r.candidates) {
        CAPTURE(dv::to_string(c.conversion), c.value);
        REQUIRE(c.applicable);
        CHECK(c.value >= exact * (1 - 1e-12));
      }
      CHECK(r.value == std::min({r.candidates[0].value, r.candidates[1].value,
                                   r.candidates[2].value, r.candidates[3].value}));
    }
  }
}

TEST_CASE("BS16 is the analytic optimum of Mir17 for linear curves and BBG20 never loses to Mir17",
          "[divergence][rdp]") {
  for (double rho : {1e-3, 0.1, 2.0}) {
    for (double delta : {1e-9, 1e-4}) {
      CAPTURE(rho, delta);
      const auto r = dv::rdp_epsilon(dv::rdp_curve::linear(rho), delta);
      const double bs = r.candidates[0].value, mir = r.candidates[1].value,
                   bbg = r.candidates[2].value;
      CHECK(relative_error(mir, bs) < 1e-12);
      CHECK(relative_error(r.candidates[1].alpha, r.candidates[0].alpha) < 1e-5);
      CHECK(bbg <= mir);
      CHECK(r.conversion != rdp_conversion::mir17);
    }
  }
}

TEST_CASE("discrete orders: the optimum is the best order", "[divergence][rdp]") {
  const std::vector<double> alphas = {1.5, 2, 3, 4, 8, 16, 32, 64};
  std::vector<double> eps;
  for (double a : alphas) eps.push_back(0.05 * a * a / (a + 1));  // a convex-ish made-up curve
  const auto curve = dv::rdp_curve::at_orders(alphas, eps);
  const double delta = 1e-6;
  const auto r = dv::rdp_epsilon(curve, delta);
  double brute = INFINITY;
  for (std::size_t i = 0; i < alphas.size(); ++i)
    for (rdp_conversion c : {rdp_conversion::mir17, rdp_conversion::bbg20, rdp_conversion::alc21})
      brute = std::min(brute, dv::rdp_epsilon_at_order(c, alphas[i], eps[i], delta));
  CHECK(r.value == std::max(brute, 0.0));
  CHECK(std::find(alphas.begin(), alphas.end(), r.alpha) != alphas.end());
  CHECK_FALSE(r.candidates[0].applicable);  // BS16 needs a linear curve
  REQUIRE_THROWS_AS(curve(5.0), std::domain_error);
}

TEST_CASE("continuous curves agree with linear ones", "[divergence][rdp]") {
  const double rho = 0.02, delta = 1e-7;
  const auto lin = dv::rdp_epsilon(dv::rdp_curve::linear(rho), delta);
  const auto cont = dv::rdp_epsilon(
      dv::rdp_curve::continuous([rho](double a) { return rho * a; }, 1 + 1e-9, 1e8), delta);
  for (std::size_t k = 1; k < 4; ++k)
    CHECK(relative_error(cont.candidates[k].value, lin.candidates[k].value) < 1e-12);
}

TEST_CASE("rdp_delta is consistent with rdp_epsilon", "[divergence][rdp]") {
  for (double rho : {1e-3, 0.05, 1.0}) {
    for (double delta : {1e-10, 1e-5}) {
      CAPTURE(rho, delta);
      const auto curve = dv::rdp_curve::linear(rho);
      const auto e = dv::rdp_epsilon(curve, delta);
      const auto d = dv::rdp_delta(curve, e.value);
      CHECK(d.value <= delta * (1 + 1e-8));
      CHECK(d.value >= delta * 0.5);  // the same conversions, inverted: not much better either
      // δ at the exact GDP ε must be at least the exact δ (RDP can only lose).
      const double mu = std::sqrt(2 * rho);
      const double eps = dv::gdp_epsilon(mu, delta).value;
      CHECK(dv::rdp_delta(curve, eps).value >= delta * (1 - 1e-9));
    }
  }
}

TEST_CASE("RDP edge cases and bad input", "[divergence][rdp]") {
  CHECK(dv::rdp_epsilon(dv::rdp_curve::linear(0.0), 1e-5).value == 0.0);
  CHECK(dv::gdp_rdp(2.0, 3.0) == 6.0);
  CHECK(dv::to_string(rdp_conversion::bbg20) == "BBG20");
  REQUIRE_THROWS_WITH(dv::gdp_rdp(1.0, 1.0),
                      Contains("gdp_rdp: alpha is 1, but must be finite and > 1"));
  REQUIRE_THROWS_AS(dv::rdp_curve::linear(-1.0), std::domain_error);
  REQUIRE_THROWS_AS(dv::rdp_curve::at_orders({0.5}, {1.0}), std::domain_error);
  REQUIRE_THROWS_AS(dv::rdp_curve::at_orders({2.0, 3.0}, {1.0}), std::domain_error);
  REQUIRE_THROWS_AS(dv::rdp_epsilon(dv::rdp_curve::linear(1.0), 1.0), std::domain_error);
  REQUIRE_THROWS_AS(dv::rdp_curve::continuous(nullptr, 2.0, 3.0), std::domain_error);
}
