// Statistics of the reference simulator: Clopper–Pearson intervals (spot values from mpmath,
// exact coverage by summing binomial probabilities), Student t intervals, Kolmogorov–Smirnov
// statistics and p-values (mpmath values of the Kolmogorov law, Monte Carlo size of the test),
// and Mahalanobis distances with χ² Q–Q points.
//
// Statistical checks use fixed seeds (dpkit::random_stream), so every run is deterministic;
// each check also states the probability with which it would fail for a fresh seed if the code
// were right (its false-alarm probability), which is ≤ 1e-6 unless said otherwise.
#include "dpkit/sim/statistics.hpp"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <boost/math/distributions/chi_squared.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "dpkit/core/normal.hpp"
#include "dpkit/core/random.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
namespace sim = dpkit::sim;

namespace {

using dpkit::test::kNan;
using dpkit::test::kInf;

// Exact coverage P_p(lower(X) ≤ p ≤ upper(X)), X ~ Bin(n, p), by summing binomial
// probabilities (Boost.Math binomial pdf) over the k whose interval (intervals[k]) contains p.
double coverage(const std::vector<sim::confidence_interval>& intervals, double p) {
  const std::size_t n = intervals.size() - 1;
  const boost::math::binomial_distribution<double> bin(static_cast<double>(n), p);
  double covered = 0;
  for (std::size_t k = 0; k <= n; ++k)
    if (intervals[k].lower <= p && p <= intervals[k].upper)
      covered += boost::math::pdf(bin, static_cast<double>(k));
  return covered;
}

}  // namespace

TEST_CASE("clopper_pearson matches 50-digit references", "[statistics][sim]") {
  // Reference: mpmath 1.3.0 at 50 digits, solving P(Bin(n, lo) ≥ k) = a/2 and
  // P(Bin(n, hi) ≤ k) = a/2 by bisection on the binomial sums (no beta function involved).
  // (7, 20, 0.95) also agrees with R's binom.test(7, 20): [0.1539092, 0.5921885].
  struct reference {
    std::size_t k, n;
    double confidence, lower, upper;
  };
  const auto c = GENERATE(values<reference>({
      {7, 20, 0.95, 0.15390920478454115976, 0.59218853453282811805},
      {0, 10, 0.95, 0.0, 0.30849710781876082391},
      {10, 10, 0.95, 0.69150289218123917609, 1.0},
      {3, 1000, 0.99, 0.00033814452906649326176, 0.010933777420405242056},
      {500, 1000, 0.9, 0.47351773123569120446, 0.52648226876430879554},
      {1, 2, 0.5, 0.13397459621556135324, 0.86602540378443864676},
  }));
  CAPTURE(c.k, c.n, c.confidence);
  const auto ci = sim::clopper_pearson(c.k, c.n, c.confidence);
  CHECK_THAT(ci.lower, WithinRel(c.lower, 1e-12) || WithinAbs(c.lower, 0));
  CHECK_THAT(ci.upper, WithinRel(c.upper, 1e-12));
  CHECK(ci.estimate == static_cast<double>(c.k) / static_cast<double>(c.n));
  CHECK(ci.confidence == c.confidence);
}

TEST_CASE("clopper_pearson has closed forms at k = 0 and k = n", "[statistics][sim]") {
  for (const std::size_t n : {1u, 3u, 100u, 100000u}) {
    for (const double confidence : {0.5, 0.95, 1 - 1e-9}) {
      CAPTURE(n, confidence);
      const double tail = (1 - confidence) / 2;
      const auto none = sim::clopper_pearson(0, n, confidence);
      CHECK(none.lower == 0);
      CHECK_THAT(none.upper,
                 WithinRel(-std::expm1(std::log(tail) / static_cast<double>(n)), 1e-12));
      const auto all = sim::clopper_pearson(n, n, confidence);
      CHECK(all.upper == 1);
      CHECK_THAT(all.lower, WithinRel(std::exp(std::log(tail) / static_cast<double>(n)), 1e-12));
    }
  }
}

TEST_CASE("clopper_pearson covers p with probability >= confidence, exactly", "[statistics][sim]") {
  // Coverage is a step function of p whose infimum is approached just outside an interval end,
  // so besides a grid we probe p one ulp beyond every limit: a too-narrow interval (e.g. one
  // tail at a instead of a/2) fails there. Exact sums, no randomness.
  for (const std::size_t n : {1u, 2u, 5u, 17u, 60u}) {
    for (const double confidence : {0.8, 0.95, 0.99}) {
      std::vector<sim::confidence_interval> intervals;
      for (std::size_t k = 0; k <= n; ++k)
        intervals.push_back(sim::clopper_pearson(k, n, confidence));
      std::vector<double> ps;
      for (int i = 1; i < 100; ++i) ps.push_back(i / 100.0);
      for (const auto& ci : intervals) {
        if (ci.lower > 0) ps.push_back(std::nextafter(ci.lower, 0.0));
        if (ci.upper < 1) ps.push_back(std::nextafter(ci.upper, 1.0));
      }
      double worst = 1;
      for (const double p : ps) worst = std::min(worst, coverage(intervals, p));
      CAPTURE(n, confidence, worst);
      CHECK(worst >= confidence - 1e-12);
      // Not vacuous: from n = 17 on, the infimum is within a quarter of 1 − confidence of the
      // level (measured: 0.8191, 0.95095, 0.99064 at n = 17), so an interval built with tails
      // a/4 instead of a/2 (coverage ≥ 1 − a/2) would fail here.
      if (n >= 17) CHECK(worst < confidence + 0.25 * (1 - confidence));
    }
  }
}

TEST_CASE("clopper_pearson rejects bad input", "[statistics][sim]") {
  REQUIRE_THROWS_AS(sim::clopper_pearson(0, 0, 0.95), std::domain_error);
  REQUIRE_THROWS_WITH(sim::clopper_pearson(0, 0, 0.95),
                      Contains("clopper_pearson: trials is 0, but must be >= 1"));
  REQUIRE_THROWS_WITH(sim::clopper_pearson(6, 5, 0.95),
                      Contains("clopper_pearson: successes is 6, but must be <= trials (5)"));
  REQUIRE_THROWS_WITH(sim::clopper_pearson(1, 5, 1.0),
                      Contains("clopper_pearson: confidence is 1, but must be in (0, 1)"));
  REQUIRE_THROWS_AS(sim::clopper_pearson(1, 5, 0.0), std::domain_error);
  REQUIRE_THROWS_AS(sim::clopper_pearson(1, 5, kNan), std::domain_error);
}

TEST_CASE("mean_interval uses Student t quantiles", "[statistics][sim]") {
  // t_{0.975, ν} from mpmath 1.3.0 (40 digits; root of the t CDF written as a regularised
  // incomplete beta function).
  struct reference {
    std::size_t n;
    double t;
  };
  const auto c = GENERATE(values<reference>({
      {5, 2.776445105197794357803104846748627563933},
      {10, 2.262157162798205542607769637943216168573},
      {30, 2.045229642132704298193772221507074957687},
  }));
  CAPTURE(c.n);
  const double s = 1.5, m = -0.25;
  const auto ci = sim::mean_interval(m, s, c.n, 0.95);
  const double half = c.t * s / std::sqrt(static_cast<double>(c.n));
  CHECK_THAT(ci.upper - m, WithinRel(half, 1e-12));
  CHECK_THAT(m - ci.lower, WithinRel(half, 1e-12));
  CHECK(ci.estimate == m);
  CHECK(ci.confidence == 0.95);
}

TEST_CASE("mean_interval tends to the normal interval and covers normal means",
          "[statistics][sim]") {
  const auto big = sim::mean_interval(0, 1, 10'000'000, 0.95);
  // z_{0.975} = 1.959963984540054 (mpmath); t − z ≈ (z³ + z)/(4ν) ≈ 2.4e-7 at ν = 1e7.
  CHECK_THAT(big.upper * std::sqrt(1e7), WithinRel(1.959963984540054, 1e-6));
  CHECK(sim::mean_interval(3, 0, 2, 0.99).lower == 3);

  // Coverage of N(0.7, 2²) means from n = 5 samples, R = 20000 replicates (fixed seed 11). The
  // t interval is exact for normal data; |coverage − 0.95| > 5σ (σ = √(0.95·0.05/R)) has
  // probability 5.7e-7 for a fresh seed.
  constexpr int R = 20000;
  constexpr std::size_t n = 5;
  int covered = 0;
  for (int r = 0; r < R; ++r) {
    dpkit::random_stream rng(11, static_cast<std::uint64_t>(r), 0);
    double x[n], sum = 0;
    for (double& v : x) sum += (v = rng.normal(0.7, 2.0));
    const double mean = sum / n;
    double ss = 0;
    for (const double v : x) ss += (v - mean) * (v - mean);
    const auto ci = sim::mean_interval(mean, std::sqrt(ss / (n - 1)), n, 0.95);
    covered += ci.lower <= 0.7 && 0.7 <= ci.upper;
  }
  const double coverage = static_cast<double>(covered) / R;
  CAPTURE(coverage);
  CHECK(std::abs(coverage - 0.95) <= 5 * std::sqrt(0.95 * 0.05 / R));
}

TEST_CASE("mean_interval rejects bad input", "[statistics][sim]") {
  REQUIRE_THROWS_WITH(sim::mean_interval(0, 1, 1, 0.95),
                      Contains("mean_interval: n is 1, but must be >= 2"));
  REQUIRE_THROWS_WITH(sim::mean_interval(0, -1, 5, 0.95),
                      Contains("mean_interval: standard_deviation is -1, but must be"));
  REQUIRE_THROWS_AS(sim::mean_interval(kNan, 1, 5, 0.95), std::domain_error);
  REQUIRE_THROWS_AS(sim::mean_interval(0, kInf, 5, 0.95), std::domain_error);
  REQUIRE_THROWS_AS(sim::mean_interval(0, 1, 5, 1.5), std::domain_error);
}

TEST_CASE("ks_statistic spot values", "[statistics][sim]") {
  auto uniform = [](double u) { return std::clamp(u, 0.0, 1.0); };
  // Sorted {0.1, 0.5, 0.9}: max(1/3 − 0.1, 0.9 − 2/3) = 0.7/3, by hand.
  const std::vector<double> x = {0.9, 0.1, 0.5};
  CHECK_THAT(sim::ks_statistic(x, uniform), WithinRel(0.7 / 3, 1e-15));
  // One sample at u: D = max(u, 1 − u).
  CHECK(sim::ks_statistic(std::vector<double>{0.3}, uniform) == 0.7);
  // A sample at +∞ sits where F = 1.
  CHECK(sim::ks_statistic(std::vector<double>{0.5, kInf}, uniform) == 0.5);
  // Input order does not matter.
  const std::vector<double> y = {0.5, 0.9, 0.1};
  CHECK(sim::ks_statistic(x, uniform) == sim::ks_statistic(y, uniform));
}

TEST_CASE("ks_two_sample equals the brute-force supremum, ties included", "[statistics][sim]") {
  CHECK(sim::ks_two_sample(std::vector<double>{1, 2}, std::vector<double>{3, 4}) == 1);
  CHECK(sim::ks_two_sample(std::vector<double>{1, 2, 3}, std::vector<double>{3, 2, 1}) == 0);
  // Ties across samples: F_a(1) = 2/3, F_b(1) = 1/3; both 1 at 2.
  CHECK_THAT(sim::ks_two_sample(std::vector<double>{1, 1, 2}, std::vector<double>{1, 2, 2}),
             WithinRel(1.0 / 3, 1e-15));

  // Brute force: evaluate both empirical CDFs by counting at every pooled value. Values rounded
  // to 0.25 so that ties are frequent.
  dpkit::random_stream rng(5, 0, 0);
  for (int rep = 0; rep < 20; ++rep) {
    std::vector<double> a(37), b(23);
    for (double& v : a) v = std::round(4 * rng.normal()) / 4;
    for (double& v : b) v = std::round(4 * rng.normal(0.3, 1)) / 4;
    double brute = 0;
    for (const auto* pool : {&a, &b})
      for (const double t : *pool) {
        const double fa = static_cast<double>(
                              std::count_if(a.begin(), a.end(), [t](double v) { return v <= t; })) /
                          static_cast<double>(a.size());
        const double fb = static_cast<double>(
                              std::count_if(b.begin(), b.end(), [t](double v) { return v <= t; })) /
                          static_cast<double>(b.size());
        brute = std::max(brute, std::abs(fa - fb));
      }
    CAPTURE(rep);
    CHECK(sim::ks_two_sample(a, b) == brute);
    CHECK(sim::ks_two_sample(b, a) == brute);
  }
}

TEST_CASE("kolmogorov_survival matches 40-digit references and table values", "[statistics][sim]") {
  // Q_KS(λ) from mpmath 1.3.0 (40 digits, nsum of the alternating series; the theta form agrees
  // to all printed digits).
  struct reference {
    double lambda, q;
  };
  const auto c = GENERATE(values<reference>({
      {0.3, 0.99999069419866543337},
      {0.5, 0.96394524366487509439},
      {1.0, 0.2699996716773545212},
      {1.18, 0.12345380942976567771},
      {1.2238, 0.10002342783567781975},
      {1.358, 0.050026797334447014226},
      {1.628, 0.009975522431181049103},
      {2.0, 0.00067092525577969534654},
      {3.0, 3.0459959489425256872e-8},
  }));
  CAPTURE(c.lambda);
  CHECK_THAT(sim::kolmogorov_survival(c.lambda), WithinRel(c.q, 1e-13));
}

TEST_CASE("kolmogorov_survival: critical values, branch switch and edges", "[statistics][sim]") {
  // Asymptotic critical values of the Kolmogorov law in every KS table (Smirnov 1948):
  // 1.224 at 10 %, 1.358 at 5 %, 1.628 at 1 % (rounded to 3 decimals, hence the tolerance).
  CHECK_THAT(sim::kolmogorov_survival(1.224), WithinAbs(0.10, 2e-4));
  CHECK_THAT(sim::kolmogorov_survival(1.358), WithinAbs(0.05, 1e-4));
  CHECK_THAT(sim::kolmogorov_survival(1.628), WithinAbs(0.01, 5e-5));
  // The two series meet at λ = 1.18 without a jump.
  const double below = sim::kolmogorov_survival(std::nextafter(1.18, 0.0));
  const double above = sim::kolmogorov_survival(1.18);
  CHECK_THAT(below, WithinRel(above, 1e-14));
  // Monotone on a grid.
  double previous = 1;
  for (double lambda = 0.05; lambda < 6; lambda += 0.01) {
    const double q = sim::kolmogorov_survival(lambda);
    CAPTURE(lambda);
    CHECK(q <= previous);
    CHECK(q >= 0);
    previous = q;
  }
  CHECK(sim::kolmogorov_survival(0) == 1);
  CHECK(sim::kolmogorov_survival(-1) == 1);
  CHECK(sim::kolmogorov_survival(kInf) == 0);
  REQUIRE_THROWS_AS(sim::kolmogorov_survival(kNan), std::domain_error);
}

TEST_CASE("ks_p_value has the stated size by Monte Carlo", "[statistics][sim]") {
  // One sample, n = 10 uniforms against the uniform CDF, R = 20000 replicates (fixed seed 7).
  // Stephens' approximation is not exact, so the band is 5σ of the Monte Carlo proportion
  // (false alarm 5.7e-7 for an exact p-value) plus 0.003 for the approximation; measured:
  // 0.0503 at 5 %, 0.0099 at 1 %.
  constexpr int R = 20000;
  constexpr std::size_t n = 10;
  int reject5 = 0, reject1 = 0;
  for (int r = 0; r < R; ++r) {
    dpkit::random_stream rng(7, static_cast<std::uint64_t>(r), 0);
    std::vector<double> x(n);
    for (double& v : x) v = rng.uniform();
    const double p = sim::ks_p_value(sim::ks_statistic(x, [](double u) { return u; }), n);
    reject5 += p <= 0.05;
    reject1 += p <= 0.01;
  }
  const double size5 = static_cast<double>(reject5) / R, size1 = static_cast<double>(reject1) / R;
  CAPTURE(size5, size1);
  CHECK(std::abs(size5 - 0.05) <= 5 * std::sqrt(0.05 * 0.95 / R) + 0.003);
  CHECK(std::abs(size1 - 0.01) <= 5 * std::sqrt(0.01 * 0.99 / R) + 0.002);

  // Two samples (200 and 300 normals, R = 4000, seed 8): the two-sample law is discrete, so
  // the band is wider: 5σ + 0.01 (measured 0.051 at n = m = 200, 0.059 at n = m = 100).
  constexpr int R2 = 4000;
  int reject2 = 0;
  for (int r = 0; r < R2; ++r) {
    dpkit::random_stream rng(8, static_cast<std::uint64_t>(r), 0);
    std::vector<double> a(200), b(300);
    for (double& v : a) v = rng.normal();
    for (double& v : b) v = rng.normal();
    reject2 += sim::ks_p_value(sim::ks_two_sample(a, b), 200.0 * 300.0 / 500.0) <= 0.05;
  }
  const double size2 = static_cast<double>(reject2) / R2;
  CAPTURE(size2);
  CHECK(std::abs(size2 - 0.05) <= 5 * std::sqrt(0.05 * 0.95 / R2) + 0.01);
}

TEST_CASE("ks test accepts the right law and rejects a shifted one", "[statistics][sim]") {
  // 5000 N(0, 1) draws (seed 3). Against Φ: p > 1e-6 (false alarm ≈ 1e-6, the p-value being
  // approximately uniform). Against N(0.15, 1): D ≈ 0.06, λ ≈ 4.2, p ≈ 1e-15; p < 1e-6 fails
  // with probability < 1e-6 for a fresh seed (D would have to fall below 0.035).
  dpkit::random_stream rng(3, 0, 0);
  std::vector<double> x(5000);
  for (double& v : x) v = rng.normal();
  const double n = static_cast<double>(x.size());
  const double p_right =
      sim::ks_p_value(sim::ks_statistic(x, [](double t) { return dpkit::normal_cdf(t); }), n);
  const double p_wrong = sim::ks_p_value(
      sim::ks_statistic(x, [](double t) { return dpkit::normal_cdf(t - 0.15); }), n);
  CAPTURE(p_right, p_wrong);
  CHECK(p_right > 1e-6);
  CHECK(p_wrong < 1e-6);
}

TEST_CASE("ks functions reject bad input", "[statistics][sim]") {
  auto uniform = [](double u) { return u; };
  REQUIRE_THROWS_WITH(sim::ks_statistic(std::vector<double>{}, uniform),
                      Contains("ks_statistic: size of samples is 0, but must be >= 1"));
  REQUIRE_THROWS_WITH(sim::ks_statistic(std::vector<double>{0.1, kNan}, uniform),
                      Contains("ks_statistic: samples[1] is nan"));
  REQUIRE_THROWS_WITH(sim::ks_statistic(std::vector<double>{2.0}, uniform),
                      Contains("cdf(sample) is 2, but must be in [0, 1]"));
  REQUIRE_THROWS_AS(sim::ks_two_sample(std::vector<double>{}, std::vector<double>{1}),
                    std::domain_error);
  REQUIRE_THROWS_AS(sim::ks_two_sample(std::vector<double>{1}, std::vector<double>{kNan}),
                    std::domain_error);
  REQUIRE_THROWS_AS(sim::ks_p_value(1.5, 10), std::domain_error);
  REQUIRE_THROWS_AS(sim::ks_p_value(0.5, 0), std::domain_error);
}

TEST_CASE("mahalanobis_squared spot values and an independent inverse", "[statistics][sim]") {
  // Σ = [[2, 1], [1, 2]], Σ⁻¹ = [[2, −1], [−1, 2]]/3 by hand.
  Eigen::MatrixXd cov(2, 2);
  cov << 2, 1, 1, 2;
  Eigen::MatrixXd x(3, 2);
  x << 2, 1,  //
      2, 2,   //
      2, 0;
  const Eigen::VectorXd m = Eigen::Vector2d(1, 1);
  const Eigen::VectorXd d2 = sim::mahalanobis_squared(x, m, cov);
  REQUIRE(d2.size() == 3);
  CHECK_THAT(d2(0), WithinRel(2.0 / 3, 1e-15));  // (1, 0)
  CHECK_THAT(d2(1), WithinRel(2.0 / 3, 1e-15));  // (1, 1)
  CHECK_THAT(d2(2), WithinRel(2.0, 1e-15));      // (1, −1)

  // Identity covariance: squared Euclidean norms.
  const Eigen::MatrixXd z = Eigen::MatrixXd::Random(10, 4);
  const Eigen::VectorXd dz =
      sim::mahalanobis_squared(z, Eigen::VectorXd::Zero(4), Eigen::MatrixXd::Identity(4, 4));
  for (int i = 0; i < 10; ++i) CHECK_THAT(dz(i), WithinRel(z.row(i).squaredNorm(), 1e-14));

  // A random SPD matrix against the full-pivot LU inverse (an independent route).
  const Eigen::MatrixXd a = Eigen::MatrixXd::Random(5, 5);
  const Eigen::MatrixXd spd = a * a.transpose() + 0.5 * Eigen::MatrixXd::Identity(5, 5);
  const Eigen::MatrixXd inv = spd.fullPivLu().inverse();
  const Eigen::VectorXd mu = Eigen::VectorXd::Random(5);
  const Eigen::MatrixXd y = Eigen::MatrixXd::Random(8, 5);
  const Eigen::VectorXd dy = sim::mahalanobis_squared(y, mu, spd);
  for (int i = 0; i < 8; ++i) {
    const Eigen::VectorXd e = y.row(i).transpose() - mu;
    CHECK_THAT(dy(i), WithinRel(e.dot(inv * e), 1e-11));
  }
}

TEST_CASE("mahalanobis_squared of Gaussian samples is chi-squared", "[statistics][sim]") {
  // 4000 draws of N(m, Σ), Σ = [[4, 1.2, 0], [1.2, 1, −0.3], [0, −0.3, 0.5]], generated as
  // m + L z with Eigen's LLT of Σ in the test (seed 9). d² ~ χ²₃ exactly: the KS p-value must
  // exceed 1e-6 (false alarm ≈ 1e-6). Against χ²₂ the KS test must reject (D ≈ 0.2).
  Eigen::Matrix3d cov;
  cov << 4, 1.2, 0, 1.2, 1, -0.3, 0, -0.3, 0.5;
  const Eigen::Vector3d m(1, -2, 0.5);
  const Eigen::Matrix3d l = cov.llt().matrixL();
  constexpr int n = 4000;
  Eigen::MatrixXd x(n, 3);
  dpkit::random_stream rng(9, 0, 0);
  for (int i = 0; i < n; ++i) {
    const Eigen::Vector3d z(rng.normal(), rng.normal(), rng.normal());
    x.row(i) = (m + l * z).transpose();
  }
  const Eigen::VectorXd d2 = sim::mahalanobis_squared(x, m, cov);
  const std::span<const double> values(d2.data(), static_cast<std::size_t>(d2.size()));
  const boost::math::chi_squared_distribution<double> chi3(3), chi2(2);
  const double p3 = sim::ks_p_value(
      sim::ks_statistic(values, [&](double t) { return boost::math::cdf(chi3, t); }), n);
  const double p2 = sim::ks_p_value(
      sim::ks_statistic(values, [&](double t) { return boost::math::cdf(chi2, t); }), n);
  CAPTURE(p3, p2);
  CHECK(p3 > 1e-6);
  CHECK(p2 < 1e-6);

  // Q–Q points: mid-range quantiles agree within Monte Carlo error (the 50 % point of χ²₃ is
  // 2.366; its sample quantile has sd ≈ 0.04 at n = 4000, so 0.25 is > 6 sd).
  const auto qq = sim::chi_squared_qq(d2, 3);
  REQUIRE(qq.size() == static_cast<std::size_t>(n));
  CHECK_THAT(qq[n / 2].empirical, WithinAbs(qq[n / 2].theoretical, 0.25));
}

TEST_CASE("mahalanobis_squared rejects bad covariances and shapes", "[statistics][sim]") {
  const Eigen::MatrixXd x = Eigen::MatrixXd::Ones(2, 2);
  const Eigen::VectorXd m = Eigen::VectorXd::Zero(2);
  Eigen::MatrixXd indefinite(2, 2), singular(2, 2), asymmetric(2, 2);
  indefinite << 1, 2, 2, 1;
  singular << 1, 1, 1, 1;
  asymmetric << 2, 1, 0, 2;
  REQUIRE_THROWS_AS(sim::mahalanobis_squared(x, m, indefinite), std::domain_error);
  REQUIRE_THROWS_WITH(sim::mahalanobis_squared(x, m, indefinite),
                      Contains("mahalanobis_squared: smallest Cholesky pivot of covariance") &&
                          Contains("positive definite"));
  REQUIRE_THROWS_WITH(sim::mahalanobis_squared(x, m, singular), Contains("positive definite"));
  REQUIRE_THROWS_WITH(sim::mahalanobis_squared(x, m, asymmetric), Contains("symmetric"));
  REQUIRE_THROWS_WITH(sim::mahalanobis_squared(x, m, Eigen::MatrixXd::Identity(3, 3)),
                      Contains("shape of covariance is 3x3, but must be 2x2"));
  REQUIRE_THROWS_WITH(
      sim::mahalanobis_squared(Eigen::MatrixXd::Ones(2, 3), m, Eigen::MatrixXd::Identity(2, 2)),
      Contains("columns of samples is 3, but must be 2"));
  Eigen::MatrixXd bad = x;
  bad(1, 0) = std::numeric_limits<double>::quiet_NaN();
  REQUIRE_THROWS_AS(sim::mahalanobis_squared(bad, m, Eigen::MatrixXd::Identity(2, 2)),
                    std::domain_error);
}

TEST_CASE("chi_squared_qq uses Hazen plotting positions", "[statistics][sim]") {
  // χ²₂ is Exp(1/2): quantile(p) = −2 log(1 − p), a closed form independent of Boost.
  const std::vector<double> v = {3.0, 0.5, 1.0, 7.0};
  const auto qq = sim::chi_squared_qq(v, 2);
  REQUIRE(qq.size() == 4);
  const double sorted[] = {0.5, 1.0, 3.0, 7.0};
  for (std::size_t i = 0; i < 4; ++i) {
    const double p = (static_cast<double>(i) + 0.5) / 4;
    CAPTURE(i);
    CHECK_THAT(qq[i].theoretical, WithinRel(-2 * std::log1p(-p), 1e-13));
    CHECK(qq[i].empirical == sorted[i]);
  }
  REQUIRE_THROWS_WITH(sim::chi_squared_qq(std::vector<double>{}, 2),
                      Contains("chi_squared_qq: size of values is 0, but must be >= 1"));
  REQUIRE_THROWS_AS(sim::chi_squared_qq(v, 0), std::domain_error);
  REQUIRE_THROWS_AS(sim::chi_squared_qq(std::vector<double>{kNan}, 2), std::domain_error);
}
