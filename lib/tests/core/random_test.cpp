// Counter-based random streams: the Philox known answer, reproducibility and independence of
// keys, and distribution checks at stated confidence. Every statistical check below is a
// two-sided test whose false-alarm probability is at most 1e-6 (thresholds from Boost.Math's
// distributions, not typed in), so a failure means a bug, not bad luck.
#include "dpkit/core/random.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <stdexcept>
#include <vector>

#include "dpkit/core/normal.hpp"

using dpkit::random_stream;

namespace {

constexpr double kAlpha = 1e-6;  // false-alarm probability of each statistical check

// |z| threshold of a two-sided normal test at level kAlpha.
double z_threshold() {
  return boost::math::quantile(boost::math::complement(boost::math::normal(), kAlpha / 2));
}

// Upper chi-square threshold with `dof` degrees of freedom at level kAlpha.
double chi2_threshold(double dof) {
  return boost::math::quantile(boost::math::complement(boost::math::chi_squared(dof), kAlpha));
}

double chi2_statistic(const std::vector<long>& counts, double expected) {
  double s = 0;
  for (long c : counts)
    s += (static_cast<double>(c) - expected) * (static_cast<double>(c) - expected) / expected;
  return s;
}

}  // namespace

TEST_CASE("Philox4x64-10 known answer (Random123 kat_vectors)", "[random]") {
  // Counter (0,0,0,0), key (0,0) → the published output. random_stream(seed 0, replicate 0,
  // stream 0) evaluates exactly that block first.
  random_stream s(0, 0, 0);
  CHECK(s.bits() == 0x16554d9eca36314cULL);
  CHECK(s.bits() == 0xdb20fe9d672d0fdcULL);
  CHECK(s.bits() == 0xd7e772cee186176bULL);
  CHECK(s.bits() == 0x7e68b68aec7ba23bULL);
  CHECK(s.words_used() == 4);
}

TEST_CASE("streams are pure functions of (seed, replicate, stream, index)", "[random]") {
  auto draw = [](std::uint64_t seed, std::uint64_t rep, std::uint64_t stream) {
    random_stream s(seed, rep, stream);
    std::vector<std::uint64_t> v(9);
    for (auto& x : v) x = s.bits();
    return v;
  };
  CHECK(draw(7, 3, 2) == draw(7, 3, 2));
  CHECK(draw(7, 3, 2) != draw(8, 3, 2));
  CHECK(draw(7, 3, 2) != draw(7, 4, 2));
  CHECK(draw(7, 3, 2) != draw(7, 3, 1));
  // Interleaving consumers of different streams does not change either stream.
  random_stream a(1, 2, 3), b(1, 2, 4), a2(1, 2, 3);
  std::vector<double> x, y;
  for (int i = 0; i < 11; ++i) {
    x.push_back(a.normal());
    (void)b.uniform();
  }
  for (int i = 0; i < 11; ++i) y.push_back(a2.normal());
  CHECK(x == y);
}

TEST_CASE("fill_normal draws what normal() draws, from any cache state", "[random]") {
  // fill_normal works pair by pair without the cache's per-draw bookkeeping; it must leave every
  // Monte Carlo result unchanged, so it must give the same bits, leave the same cached draw and
  // consume the same words as n calls of normal(), whatever came before.
  for (int before = 0; before < 3; ++before)
    for (std::size_t n : {0, 1, 2, 3, 4, 5, 8, 17}) {
      random_stream a(11, 5, 3), b(11, 5, 3);
      for (int i = 0; i < before; ++i) CHECK(a.normal() == b.normal());
      std::vector<double> filled(n), drawn(n);
      a.fill_normal(filled);
      for (double& v : drawn) v = b.normal();
      CHECK(filled == drawn);
      CHECK(a.words_used() == b.words_used());
      CHECK(a.normal() == b.normal());  // the same cached second draw, or the same next pair
      CHECK(a.uniform() == b.uniform());
    }
  random_stream c(1, 1, 1);
  CHECK(c.words_used() == 0);
  for (int i = 0; i < 7; ++i) (void)c.bits();
  CHECK(c.words_used() == 7);
}

TEST_CASE("uniform: in (0, 1), mean and variance", "[random]") {
  random_stream s(42, 0, 0);
  const int n = 1'000'000;
  double sum = 0, sum2 = 0, lo = 1, hi = 0;
  for (int i = 0; i < n; ++i) {
    const double u = s.uniform();
    sum += u;
    sum2 += u * u;
    lo = std::min(lo, u);
    hi = std::max(hi, u);
  }
  CHECK(lo > 0);
  CHECK(hi < 1);
  // Mean 1/2 with variance 1/12; E[U²] = 1/3 with variance 4/45.
  CHECK(std::abs(sum / n - 0.5) / std::sqrt(1.0 / 12 / n) < z_threshold());
  CHECK(std::abs(sum2 / n - 1.0 / 3) / std::sqrt(4.0 / 45 / n) < z_threshold());
}

TEST_CASE("normal: Kolmogorov-Smirnov against Phi and the first four moments", "[random]") {
  random_stream s(2026, 5, 3);
  const int n = 200'000;
  std::vector<double> z(static_cast<std::size_t>(n));
  s.fill_normal(z);
  double m1 = 0, m2 = 0, m4 = 0;
  for (double v : z) {
    m1 += v;
    m2 += v * v;
    m4 += v * v * v * v;
  }
  CHECK(std::abs(m1 / n) / std::sqrt(1.0 / n) < z_threshold());
  CHECK(std::abs(m2 / n - 1) / std::sqrt(2.0 / n) < z_threshold());   // Var(Z²) = 2
  CHECK(std::abs(m4 / n - 3) / std::sqrt(96.0 / n) < z_threshold());  // Var(Z⁴) = 105 − 9
  std::sort(z.begin(), z.end());
  double d = 0;
  for (int i = 0; i < n; ++i) {
    const double f = dpkit::normal_cdf(z[static_cast<std::size_t>(i)]);
    d = std::max({d, f - static_cast<double>(i) / n, static_cast<double>(i + 1) / n - f});
  }
  // Dvoretzky–Kiefer–Wolfowitz: P(D > t) ≤ 2 exp(−2 n t²).
  const double t = std::sqrt(std::log(2 / kAlpha) / (2.0 * n));
  CHECK(d < t);
}

TEST_CASE("below(n): unbiased integers (chi-square)", "[random]") {
  random_stream s(9, 9, 9);
  for (std::uint64_t n : {1ULL, 2ULL, 7ULL, 1000ULL}) {
    CAPTURE(n);
    const long draws = static_cast<long>(200 * n + 70000);
    std::vector<long> counts(n, 0);
    for (long i = 0; i < draws; ++i) {
      const std::uint64_t k = s.below(n);
      REQUIRE(k < n);
      ++counts[k];
    }
    if (n > 1)
      CHECK(chi2_statistic(counts, static_cast<double>(draws) / static_cast<double>(n)) <
            chi2_threshold(static_cast<double>(n - 1)));
  }
  CHECK_THROWS_AS(s.below(0), std::domain_error);
}

TEST_CASE("permutation: a permutation, each position uniform", "[random]") {
  random_stream s(3, 1, 4);
  const std::size_t n = 6;
  const long reps = 60'000;
  std::vector<long> where_zero(n, 0);
  for (long r = 0; r < reps; ++r) {
    const auto p = s.permutation(n);
    REQUIRE(std::set<std::size_t>(p.begin(), p.end()).size() == n);
    REQUIRE(*std::max_element(p.begin(), p.end()) == n - 1);
    ++where_zero[static_cast<std::size_t>(std::find(p.begin(), p.end(), 0) - p.begin())];
  }
  CHECK(chi2_statistic(where_zero, static_cast<double>(reps) / n) < chi2_threshold(n - 1.0));
  CHECK(s.permutation(0).empty());
}

TEST_CASE("sample_without_replacement: distinct, uniform inclusion (both algorithms)", "[random]") {
  random_stream s(11, 0, 2);
  struct setting {
    std::size_t n, k;  // k·4 < n: Floyd; otherwise partial Fisher–Yates
  };
  for (const setting& c : {setting{40, 3}, setting{10, 6}, setting{5, 5}}) {
    CAPTURE(c.n, c.k);
    const long reps = 40'000;
    std::vector<long> included(c.n, 0);
    for (long r = 0; r < reps; ++r) {
      const auto idx = s.sample_without_replacement(c.n, c.k);
      REQUIRE(idx.size() == c.k);
      REQUIRE(std::set<std::size_t>(idx.begin(), idx.end()).size() == c.k);
      for (std::size_t i : idx) {
        REQUIRE(i < c.n);
        ++included[i];
      }
    }
    if (c.k < c.n) {
      // Each index is included with probability p = k/n, and two indices together with
      // p(k−1)/(n−1): the count vector has covariance reps·p(1−p)·n/(n−1)·(I − J/n), so the
      // Pearson statistic times (n−1)/(n(1−p)) is asymptotically chi-square with n − 1 dof.
      const double nn = static_cast<double>(c.n), p = static_cast<double>(c.k) / nn;
      const double expected = static_cast<double>(reps) * p;
      const double stat = chi2_statistic(included, expected) * (nn - 1) / (nn * (1 - p));
      CHECK(stat < chi2_threshold(static_cast<double>(c.n) - 1));
    } else {
      for (long v : included) CHECK(v == reps);
    }
  }
  CHECK_THROWS_AS(s.sample_without_replacement(3, 4), std::domain_error);
}

TEST_CASE("poisson_sample: Binomial(n, q) size, ascending", "[random]") {
  random_stream s(5, 6, 7);
  const std::size_t n = 1000;
  const double q = 0.03;
  const int reps = 4000;
  double total = 0;
  for (int r = 0; r < reps; ++r) {
    const auto idx = s.poisson_sample(n, q);
    REQUIRE(std::is_sorted(idx.begin(), idx.end()));
    total += static_cast<double>(idx.size());
  }
  const double mean = total / reps, sd = std::sqrt(n * q * (1 - q) / reps);
  CHECK(std::abs(mean - n * q) / sd < z_threshold());
  CHECK(s.poisson_sample(10, 0).empty());
  CHECK(s.poisson_sample(10, 1).size() == 10);
  CHECK_THROWS_AS(s.poisson_sample(10, 1.5), std::domain_error);
}
