#include "dpkit/core/normal.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "dpkit/core/tolerance.hpp"
#include "support/check_accuracy.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using dpkit::test::relative_error;
using namespace dpkit::tol;

namespace {
using dpkit::test::kInf;
}  // namespace

using dpkit::test::check_accuracy_case;

// Category 2 (STYLE.md rule 13): bulk accuracy against the 50-digit mpmath tables.
TEST_CASE("normal functions match 50-digit references", "[core][normal][reference]") {
  const char* ids[] = {"normal_cdf",
                       "normal_ccdf",
                       "normal_lcdf",
                       "normal_lccdf",
                       "normal_quantile",
                       "normal_quantile_complement",
                       "normal_quantile_from_log"};
  for (const char* id : ids) {
    SECTION(id) {
      check_accuracy_case(id);
    }
  }
}

// Category 1: spot values from independent sources (exact values; textbook constants).
TEST_CASE("normal spot values", "[core][normal]") {
  CHECK(dpkit::normal_cdf(0.0) == 0.5);
  CHECK(dpkit::normal_quantile(0.5) == 0.0);
  // z_{0.975} = 1.959963984540054 (Abramowitz & Stegun Table 26.5, 15 digits).
  CHECK(relative_error(dpkit::normal_quantile(0.975), 1.959963984540054) < 1e-15);
  CHECK(relative_error(dpkit::normal_quantile_complement(0.025), 1.959963984540054) < 1e-15);
  // φ(0) = 1/√(2π).
  CHECK(relative_error(dpkit::normal_pdf(0.0), 0.3989422804014327) < kTol0);
  CHECK(relative_error(dpkit::normal_lpdf(3.0), -4.5 - 0.9189385332046728) < kTol0);
}

// Category 3: identities and round trips.
TEST_CASE("normal identities and round trips", "[core][normal]") {
  for (double x = -30; x <= 30; x += 0.37) {
    CAPTURE(x);
    CHECK(relative_error(dpkit::normal_cdf(x), dpkit::normal_ccdf(-x)) == 0);
    CHECK(relative_error(dpkit::normal_lccdf(x), dpkit::normal_lcdf(-x)) == 0);
    // Only below x = 1: above, Φ(x) rounds towards 1 and the round trip is ill-conditioned.
    if (x < 1) CHECK(relative_error(dpkit::normal_quantile(dpkit::normal_cdf(x)), x) < kTol3);
  }
  // log-space quantile round trip far beyond the double range of p: Φ(−1e4) = e^{−5e7}.
  for (double x : {-1e4, -3000.0, -500.0, -40.0, -38.5, -10.0, -1.0, 0.3, 4.0}) {
    CAPTURE(x);
    CHECK(relative_error(dpkit::normal_quantile_from_log(dpkit::normal_lcdf(x)), x) < kTol2);
  }
  // Φ(x) + Φ(−x) = 1 away from the tails.
  for (double x = -5; x <= 5; x += 0.5)
    CHECK(std::abs(dpkit::normal_cdf(x) + dpkit::normal_cdf(-x) - 1) < kTol1);
}

// Category 4: edges and bad input.
TEST_CASE("normal edges and domain errors", "[core][normal]") {
  CHECK(dpkit::normal_cdf(-kInf) == 0);
  CHECK(dpkit::normal_cdf(kInf) == 1);
  CHECK(dpkit::normal_ccdf(kInf) == 0);
  CHECK(dpkit::normal_lcdf(-kInf) == -kInf);
  CHECK(dpkit::normal_lcdf(kInf) == 0);
  CHECK(dpkit::normal_quantile(0.0) == -kInf);
  CHECK(dpkit::normal_quantile(1.0) == kInf);
  CHECK(dpkit::normal_quantile_complement(0.0) == kInf);
  CHECK(dpkit::normal_quantile_complement(1.0) == -kInf);
  CHECK(dpkit::normal_quantile_from_log(0.0) == kInf);
  CHECK(dpkit::normal_quantile_from_log(-kInf) == -kInf);
  CHECK(dpkit::normal_pdf(kInf) == 0);
  // Far beyond GSL's log erfc range (it returns −inf from x ≈ −3.4e51, NaN beyond): the
  // asymptotic log Φ(x) = −x²/2 − log(−x) − log √(2π) + O(x⁻²) is exact in double here.
  for (double x : {-1e10, -1e60, -1e150}) {
    CAPTURE(x);
    CHECK(relative_error(dpkit::normal_lcdf(x), -0.5 * x * x - std::log(-x) - 0.9189385332046728) <
          kTol0);
  }
  CHECK(dpkit::normal_lcdf(-1e155) == -kInf);  // log Φ itself is below −DBL_MAX
  // Smallest subnormal: the quantile is still finite.
  CHECK(std::isfinite(dpkit::normal_quantile(std::numeric_limits<double>::denorm_min())));
  REQUIRE_THROWS_WITH(dpkit::normal_cdf(NAN), Contains("normal_cdf: x is nan, but must be"));
  REQUIRE_THROWS_WITH(dpkit::normal_quantile(1.5),
                      Contains("normal_quantile: p is 1.5, but must be in [0, 1]"));
  REQUIRE_THROWS_AS(dpkit::normal_quantile(-0.1), std::domain_error);
  REQUIRE_THROWS_AS(dpkit::normal_quantile_from_log(0.1), std::domain_error);
  REQUIRE_THROWS_AS(dpkit::normal_lcdf(NAN), std::domain_error);
}

TEST_CASE("normal_interval keeps relative accuracy in both tails", "[core][normal]") {
  // Independent: for a narrow interval [a, a + h] far in a tail, Φ(a + h) − Φ(a) = ∫ φ, and
  // Simpson's rule on φ errs by ≈ h⁴a⁴/2880 relative (3e-14 at a = −30, h = 1e-4).
  for (double a : {-30.0, -8.0, 7.0, 25.0}) {
    const double b = a + 1e-4;
    const double h = b - a;  // exact (Sterbenz); a + 1e-4 itself is rounded
    const double simpson =
        h / 6 * (dpkit::normal_pdf(a) + 4 * dpkit::normal_pdf(a + h / 2) + dpkit::normal_pdf(b));
    CAPTURE(a);
    CHECK(relative_error(dpkit::normal_interval(a, b), simpson) < 1e-12);
  }
  CHECK(relative_error(dpkit::normal_interval(-1.0, 2.0),
                       dpkit::normal_cdf(2.0) - dpkit::normal_cdf(-1.0)) < kTol1);
  CHECK(dpkit::normal_interval(-kInf, kInf) == 1.0);
  CHECK(dpkit::normal_interval(3.0, kInf) == dpkit::normal_ccdf(3.0));
  CHECK(dpkit::normal_interval(1.0, 1.0) == 0.0);
  REQUIRE_THROWS_AS(dpkit::normal_interval(2.0, 1.0), std::domain_error);
}
