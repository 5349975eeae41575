// The Monte Carlo engine: mergeable moments against a two-pass computation, bit-identical
// results for any number of threads and any chunking of the work, exceptions, quantiles.
#include "dpkit/sim/monte_carlo.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "dpkit/core/random.hpp"

using namespace dpkit::sim;

TEST_CASE("moments: Welford and merging agree with a two-pass computation", "[monte_carlo]") {
  std::vector<double> x;
  dpkit::random_stream s(1, 2, 3);
  for (int i = 0; i < 1001; ++i) x.push_back(1e6 + s.normal(0, 3));  // large offset: stability
  double mean = 0;
  for (double v : x) mean += v;
  mean /= static_cast<double>(x.size());
  double ss = 0;
  for (double v : x) ss += (v - mean) * (v - mean);
  const double var = ss / static_cast<double>(x.size() - 1);
  moments all, a, b;
  for (std::size_t i = 0; i < x.size(); ++i) {
    all.add(x[i]);
    (i < 377 ? a : b).add(x[i]);
  }
  a.merge(b);
  for (const moments* m : {&all, &a}) {
    CHECK(m->count() == 1001);
    CHECK(m->mean() == Approx(mean).epsilon(1e-15));
    CHECK(m->variance() == Approx(var).epsilon(1e-9));
    CHECK(m->min() == *std::min_element(x.begin(), x.end()));
    CHECK(m->max() == *std::max_element(x.begin(), x.end()));
  }
  double raw[moments::kArraySize];
  all.to_array(raw);
  const moments back = moments::from_array(raw);
  CHECK(back.mean() == all.mean());
  CHECK(back.variance() == all.variance());
}

TEST_CASE("moments at the ends of the double range: exactly the scaled moments of O(1) values",
          "[monte_carlo]") {
  // Multiplying every value by 2^k multiplies the mean and the standard deviation by 2^k,
  // exactly in binary floating point (barring overflow and underflow). The unscaled recurrence
  // squared deviations of ~1e160 to inf and of ~1e-170 to 0: the simulate summary showed
  // sd = inf (and an infinite interval) for a risk near 1e160.
  std::vector<double> y;
  dpkit::random_stream s(4, 5, 6);
  for (int i = 0; i < 257; ++i) y.push_back(3 + s.normal(0, 2));
  moments plain;
  for (double v : y) plain.add(v);
  REQUIRE(std::isfinite(plain.standard_deviation()));
  for (const int k : {530, 1000, -560, -1000}) {
    CAPTURE(k);
    moments all, a, b, zeros_first;
    zeros_first.add(0.0);
    zeros_first.add(0.0);
    for (std::size_t i = 0; i < y.size(); ++i) {
      const double x = std::ldexp(y[i], k);
      all.add(x);
      (i % 3 == 0 ? a : b).add(x);
    }
    a.merge(b);
    CHECK(all.mean() == std::ldexp(plain.mean(), k));
    CHECK(all.standard_deviation() == std::ldexp(plain.standard_deviation(), k));
    CHECK(all.standard_error() == std::ldexp(plain.standard_error(), k));
    CHECK(a.mean() == Approx(all.mean()).epsilon(1e-14));
    CHECK(a.standard_deviation() == Approx(all.standard_deviation()).epsilon(1e-12));
    if (k < 500) {
      CHECK(all.variance() == Approx(std::ldexp(plain.variance(), 2 * k)).epsilon(1e-15));
    } else {
      CHECK(std::isinf(all.variance()));  // s^2 itself exceeds the largest double
    }
    double raw[moments::kArraySize];
    a.to_array(raw);
    const moments back = moments::from_array(raw);
    CHECK(back.standard_deviation() == a.standard_deviation());
    // Zeros before the first nonzero value: the moments of the whole set, against two passes
    // on the O(1) values with two zeros in front.
    for (double v : y) zeros_first.add(std::ldexp(v, k));
    moments zy;
    zy.add(0.0);
    zy.add(0.0);
    for (double v : y) zy.add(v);
    CHECK(zeros_first.standard_deviation() == std::ldexp(zy.standard_deviation(), k));
  }
}

TEST_CASE("moments: an inf or NaN makes the mean non-finite for good, merged or added",
          "[monte_carlo]") {
  const double inf = std::numeric_limits<double>::infinity();
  auto of = [](std::initializer_list<double> xs) {
    moments m;
    for (double x : xs) m.add(x);
    return m;
  };
  // Added: after the inf, zeros and finite values alike.
  CHECK_FALSE(std::isfinite(of({inf, 0.0}).mean()));
  CHECK_FALSE(std::isfinite(of({1.0, inf, 2.0}).mean()));
  CHECK(std::isnan(of({1.0, inf, 2.0}).standard_deviation()));
  CHECK(std::isnan(of({0.0, std::nan(""), 0.0}).mean()));
  // Merged: an all-zero accumulator with one that saw only zeros and a non-finite value (the
  // chunks of a run whose replicates diverged), in either order, and with a scaled one.
  for (const moments& bad : {of({std::nan("")}), of({inf, 0.0}), of({0.0, -inf}), of({3.0, inf})})
    for (const moments& good : {of({0.0, 0.0}), of({1e200, -3.0}), moments{}}) {
      moments a = good, b = bad;
      a.merge(bad);
      b.merge(good);
      CHECK_FALSE(std::isfinite(a.mean()));
      CHECK_FALSE(std::isfinite(b.mean()));
      CHECK(a.count() == good.count() + bad.count());
    }
}

TEST_CASE("results are bit-identical for 1, 2 and 3 threads", "[monte_carlo]") {
  const auto f = [](std::uint64_t r, std::span<double> out) {
    dpkit::random_stream s(99, r, 0);
    double acc = 0;
    for (int i = 0; i < 50; ++i) acc += s.normal();
    out[0] = acc;
    out[1] = acc * acc;
  };
  std::vector<monte_carlo_result> runs;
  for (int threads : {1, 2, 3}) {
    monte_carlo_options o;
    o.replicates = 1000;
    o.seed = 99;
    o.threads = threads;
    o.chunk = 7;
    runs.push_back(run_monte_carlo({{"sum", true}, {"square"}}, f, o));
  }
  for (const auto& r : runs) {
    CHECK(r.at("sum").stats.mean() == runs[0].at("sum").stats.mean());
    CHECK(r.at("sum").stats.variance() == runs[0].at("sum").stats.variance());
    CHECK(r.at("square").stats.mean() == runs[0].at("square").stats.mean());
    CHECK(r.at("sum").samples == runs[0].at("sum").samples);
    CHECK(r.at("square").samples.empty());
  }
  CHECK(runs[1].threads == 2);
  // Var(sum of 50 normals) = 50: a sanity check with a 1e-6 false-alarm z bound (|z| < 4.9).
  const auto& s = runs[0].at("sum").stats;
  CHECK(std::abs(s.mean()) / std::sqrt(50.0 / 1000) < 4.9);
}

TEST_CASE("quantiles, intervals and errors", "[monte_carlo]") {
  monte_carlo_options o;
  o.replicates = 101;
  const auto r = run_monte_carlo(
      {{"i", true}},
      [](std::uint64_t k, std::span<double> out) { out[0] = static_cast<double>(k); }, o);
  CHECK(r.at("i").quantile(0.5) == 50);
  CHECK(r.at("i").quantile(0.25) == 25);
  CHECK(r.at("i").quantile(1) == 100);
  const auto [lo, hi] = r.at("i").mean_interval(0.95);
  CHECK(lo < 50);
  CHECK(hi > 50);
  CHECK_THROWS_AS(r.at("missing"), std::domain_error);
  CHECK_THROWS_WITH(run_monte_carlo(
                        {{"x"}},
                        [](std::uint64_t k, std::span<double> out) {
                          if (k == 42) throw std::runtime_error("replicate 42 failed");
                          out[0] = 1;
                        },
                        o),
                    "replicate 42 failed");
  o.replicates = 0;
  CHECK_THROWS_AS(run_monte_carlo(
                      {{"x"}}, [](std::uint64_t, std::span<double>) {}, o),
                  std::domain_error);
}

TEST_CASE("non-finite replicates are named, counted where samples are kept", "[monte_carlo]") {
  monte_carlo_options o;
  o.replicates = 10;
  o.threads = 2;
  // Replicates 3 and 7 overflow (inf, NaN); "fine" stays finite; "blind" keeps no samples.
  const auto r = run_monte_carlo(
      {{"kept", true}, {"blind"}, {"fine", true}},
      [](std::uint64_t k, std::span<double> out) {
        const double bad = k == 3 ? INFINITY : k == 7 ? NAN : 1.0;
        out[0] = bad;
        out[1] = bad;
        out[2] = static_cast<double>(k);
      },
      o);
  CHECK(non_finite_observables(r) == "kept (2 of 10 replicates), blind");
  o.replicates = 4;
  const auto clean = run_monte_carlo(
      {{"x", true}, {"y"}},
      [](std::uint64_t k, std::span<double> out) { out[0] = out[1] = 1e307 * double(k); }, o);
  CHECK(non_finite_observables(clean).empty());
}
