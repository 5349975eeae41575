// One-sided Clopper–Pearson limits: closed forms at k = 0 and k = n, the symmetry
// lower(k, n, a) = 1 − upper(n − k, n, a), and the defining tail equations against a direct
// long-double sum of the binomial probabilities.
#include "dpkit/core/binomial.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>

using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;

namespace {

// P(Bin(n, p) ≤ k), summed in long double.
long double binomial_cdf(std::size_t k, std::size_t n, long double p) {
  long double sum = 0;
  for (std::size_t j = 0; j <= k; ++j)
    sum += std::exp(std::lgamma(static_cast<long double>(n) + 1) -
                    std::lgamma(static_cast<long double>(j) + 1) -
                    std::lgamma(static_cast<long double>(n - j) + 1) +
                    static_cast<long double>(j) * std::log(p) +
                    static_cast<long double>(n - j) * std::log1p(-p));
  return sum;
}

}  // namespace

TEST_CASE("binomial limits: closed forms at the ends", "[core][binomial]") {
  for (const std::size_t n : {1u, 7u, 300u}) {
    for (const double a : {0.05, 1e-6}) {
      CHECK(dpkit::binomial_lower_limit(0, n, a) == 0.0);
      CHECK(dpkit::binomial_upper_limit(n, n, a) == 1.0);
      const double root = std::pow(a, 1.0 / static_cast<double>(n));
      CHECK_THAT(dpkit::binomial_upper_limit(0, n, a), WithinRel(1 - root, 1e-12));
      CHECK_THAT(dpkit::binomial_lower_limit(n, n, a), WithinRel(root, 1e-12));
    }
  }
}

TEST_CASE("binomial limits: symmetry and the tail equations", "[core][binomial]") {
  const std::size_t n = 57;
  for (std::size_t k = 1; k < n; k += 7) {
    for (const double a : {0.025, 1e-4}) {
      const double up = dpkit::binomial_upper_limit(k, n, a);
      const double lo = dpkit::binomial_lower_limit(k, n, a);
      CHECK_THAT(lo, WithinRel(1 - dpkit::binomial_upper_limit(n - k, n, a), 1e-10));
      // P(Bin(n, upper) ≤ k) = a and P(Bin(n, lower) ≥ k) = a.
      CHECK_THAT(static_cast<double>(binomial_cdf(k, n, up)), WithinRel(a, 1e-9));
      CHECK_THAT(static_cast<double>(1 - binomial_cdf(k - 1, n, lo)), WithinRel(a, 1e-9));
    }
  }
  CHECK_THROWS_AS(dpkit::binomial_upper_limit(3, 2, 0.05), std::domain_error);
  CHECK_THROWS_AS(dpkit::binomial_upper_limit(0, 0, 0.05), std::domain_error);
  CHECK_THROWS_AS(dpkit::binomial_lower_limit(1, 2, 0), std::domain_error);
}
