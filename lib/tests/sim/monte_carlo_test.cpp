// The Monte Carlo engine: mergeable moments against a two-pass computation, bit-identical
// results for any number of threads and any chunking of the work, exceptions, quantiles.
#include "dpkit/sim/monte_carlo.hpp"

#include <catch2/catch.hpp>
#include <cmath>
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
  double raw[5];
  all.to_array(raw);
  const moments back = moments::from_array(raw);
  CHECK(back.mean() == all.mean());
  CHECK(back.variance() == all.variance());
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
