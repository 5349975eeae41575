#include "dpkit/subsampling/subsampled_rdp.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

#include "support/check_accuracy.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using dpkit::test::relative_error;
namespace ss = dpkit::subsampling;

TEST_CASE("Poisson RDP at alpha = 2 and q = 1 has closed forms", "[subsampling][rdp]") {
  // A_2 − 1 = q²(e^{1/σ²} − 1) exactly (the binomial sum has one term), so ε(2) = log1p(·).
  for (double q : {1e-8, 1e-4, 0.01, 0.3}) {
    for (double s : {0.5, 1.0, 4.0}) {
      CAPTURE(q, s);
      CHECK(relative_error(ss::poisson_gaussian_rdp(q, s, 2.0),
                           std::log1p(q * q * std::expm1(1 / (s * s)))) < 1e-14);
    }
  }
  CHECK(ss::poisson_gaussian_rdp(1.0, 2.0, 7.5) == 7.5 / 8);
  CHECK(ss::wor_gaussian_rdp(1.0, 2.0, 7.5) == 2 * 7.5 / 4);
}

TEST_CASE("fractional orders join the integer orders continuously", "[subsampling][rdp]") {
  // Quadrature (fractional) and exact sums (integer) are independent code paths.
  for (double q : {1e-6, 0.01, 0.2}) {
    for (double s : {0.7, 1.0, 3.0}) {
      for (double a : {3.0, 10.0, 50.0}) {
        CAPTURE(q, s, a);
        const double at = ss::poisson_gaussian_rdp(q, s, a);
        const double near = ss::poisson_gaussian_rdp(q, s, a + 1e-7);
        CHECK(std::abs(near - at) <= 1e-6 * std::abs(at) + 1e-300);
        CHECK(near >= at * (1 - 1e-9));  // RDP is non-decreasing in α
      }
    }
  }
}

TEST_CASE("fractional orders stay between their bounds at every noise multiplier",
          "[subsampling][rdp]") {
  // (α − 1)ε(α) is convex and increasing in α, and log A_α lies between α(log q + (α−1)/(2σ²))
  // and α·log(1 − q + q e^{(α−1)/(2σ²)}) (Minkowski): on a sweep of σ from 1e-14 to 3 every
  // fractional order must sit between the neighbouring orders and never above the upper bound.
  // Below σ ≈ 7e-10 the quadrature once returned A = 1, so ε(1.5) = 0 while ε(2) ≈ 1e19 (the RDP
  // accountant then certified ε = 6e-14 for a run whose ε is 5.6e20).
  int checked = 0;
  for (double q : {1e-8, 0.01, 0.5, 0.999}) {
    for (double lg = -14; lg <= 0.5; lg += 0.1) {
      const double s = std::pow(10.0, lg);
      double previous = 0;
      for (double a : {1.01, 1.1, 1.25, 1.5, 1.75, 2.0, 2.5, 3.5, 10.5, 100.5}) {
        CAPTURE(q, s, a);
        const double e = ss::poisson_gaussian_rdp(q, s, a);
        const double next = ss::poisson_gaussian_rdp(q, s, std::max(2.0, std::ceil(a)));
        CHECK(e >= previous * (1 - 1e-9));
        CHECK(e <= next * (1 + 1e-9));
        const double drift = (a - 1) / (2 * s * s);
        const double upper = drift < 700 ? std::log1p(q * std::expm1(drift))
                                         : std::log(q) + drift;  // (q < 1: within 1e-300)
        CHECK(e <= a * upper / (a - 1) * (1 + 1e-9) + 1e-300);
        previous = e;
        ++checked;
      }
    }
  }
  CHECK(checked == 4 * 146 * 10);
}

TEST_CASE("WBK19 bound: integer formula and convex interpolation", "[subsampling][rdp]") {
  const double q = 0.01, s = 1.5;
  // Written out at α = 3: (1/2)·log(1 + q²·3·min{4(e^{4/σ²} − 1), 2e^{4/σ²}} + 2q³e^{2·3·2/σ²}).
  const double e2 = 4 / (s * s);
  const double a3 = std::log(1 + q * q * 3 * std::min(4 * std::expm1(e2), 2 * std::exp(e2)) +
                             2 * q * q * q * std::exp(12 / (s * s))) /
                    2;
  CHECK(relative_error(ss::wor_gaussian_rdp_wbk19(q, s, 3.0), a3) < 1e-13);
  // Between integers (α − 1)ε(α) is the linear interpolation.
  const double m3 = 2 * ss::wor_gaussian_rdp_wbk19(q, s, 3.0),
               m4 = 3 * ss::wor_gaussian_rdp_wbk19(q, s, 4.0);
  CHECK(relative_error(2.25 * ss::wor_gaussian_rdp_wbk19(q, s, 3.25), 0.75 * m3 + 0.25 * m4) <
        1e-14);
  CHECK(ss::wor_gaussian_rdp_wbk19(q, s, 1.5) == ss::wor_gaussian_rdp_wbk19(q, s, 2.0));
}

TEST_CASE("without-replacement RDP from the C_q(G) profile", "[subsampling][rdp]") {
  // The profile route never exceeds WBK19's general bound at integer orders (both bound the
  // same mechanism; the profile is exact for the pair it comes from). Where the subsampled pair
  // is close to Poisson the two must also sit between the Poisson RDP at μ = 2/σ (the remove
  // direction alone, a lower bound on the symmetric pair's divergence: the symmetric profile is
  // the larger of the two directions') and WBK19.
  for (double q : {1e-4, 0.01, 0.1, 0.5}) {
    for (double s : {0.7, 1.5, 5.0, 24.3}) {
      for (double a : {2.0, 3.0, 8.0, 20.0, 64.0}) {
        CAPTURE(q, s, a);
        const double profile = ss::wor_gaussian_rdp(q, s, a);
        CHECK(profile <= ss::wor_gaussian_rdp_wbk19(q, s, a) * (1 + 1e-12));
        CHECK(profile >= ss::poisson_gaussian_rdp(q, s / 2, a) * (1 - 1e-11));
      }
    }
  }
  // Below q = 1e-100 the general bound stands in for the profile: still between the two bounds.
  for (double q : {1e-101, 1.5119817053963781e-130, 1e-300}) {
    for (double a : {1.5, 2.0, 9.9, 64.0}) {
      CAPTURE(q, a);
      const double w = ss::wor_gaussian_rdp(q, 0.608, a);
      CHECK(w == ss::wor_gaussian_rdp_wbk19(q, 0.608, a));
      CHECK(w >= ss::poisson_gaussian_rdp(q, 0.304, a));
    }
  }
  // Monotone and continuous in α across real orders (quadrature at every α, no interpolation).
  for (double a : {1.01, 1.5, 2.5, 7.3, 31.7}) {
    CAPTURE(a);
    const double at = ss::wor_gaussian_rdp(0.05, 2.0, a),
                 near = ss::wor_gaussian_rdp(0.05, 2.0, a + 1e-6);
    CHECK(near >= at * (1 - 1e-10));
    CHECK(near - at <= 1e-5 * at);
  }
}

TEST_CASE("subsampled RDP rejects bad input", "[subsampling][rdp]") {
  REQUIRE_THROWS_WITH(ss::poisson_gaussian_rdp(0.0, 1.0, 2.0),
                      Contains("q is 0, but must be in (0, 1]"));
  REQUIRE_THROWS_WITH(ss::poisson_gaussian_rdp(0.1, 1.0, 1.0),
                      Contains("alpha is 1, but must be in (1, 1e6]"));
  REQUIRE_THROWS_AS(ss::poisson_gaussian_rdp(0.1, -1.0, 2.0), std::domain_error);
  REQUIRE_THROWS_AS(ss::wor_gaussian_rdp(0.1, 1.0, NAN), std::domain_error);
}

TEST_CASE("subsampled RDP matches high-precision references", "[subsampling][rdp][reference]") {
  // data/generators/accounting_reference.py: Poisson by exact sums (integer α) and mpmath
  // quadrature (fractional α), cross-checked; WBK19 written out in 50 digits.
  // The wide table reaches the corners the first one does not (σ down to 0.1, where the tail
  // peak of the integrand sits far out and the RDP was once 6× too small).
  for (const char* id : {"poisson_gaussian_rdp", "poisson_gaussian_rdp_wide", "wor_gaussian_rdp",
                         "wor_gaussian_rdp_wbk19"}) {
    SECTION(id) {
      dpkit::test::check_accuracy_case(id);
    }
  }
}
