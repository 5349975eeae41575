// Benchmarks of the hsgd module (Google Benchmark): LKSP25's Figure 2(b) computation — the
// last-iterate RDP trajectory at 30 release times for the 900 extreme-label pairs of an
// n = 1500, d = 1000 instance. Results: docs/performance.md.
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "dpkit/core/random.hpp"
#include "dpkit/hsgd/law.hpp"
#include "dpkit/hsgd/privacy.hpp"
#include "dpkit/sim/data.hpp"
#include "dpkit/volterra/spectrum.hpp"

namespace hs = dpkit::hsgd;
namespace vo = dpkit::volterra;

namespace {
struct setup {
  Eigen::VectorXd x0, xt;
  hs::dataset data;
};

// LKSP25 §5: x̃, a_ij iid U(0, 1/√d), x0 ~ N(0, 4I), labels aᵀx̃ + N(0, 0.01/d) clamped at 3 sd.
setup make_setup(long long d, long long n) {
  dpkit::volterra::lksp25_vectors start = dpkit::volterra::lksp25_start(d, 2, 2);
  dpkit::random_stream feats(2, 0, 1), noise(2, 0, 2);
  setup s{std::move(start.x0), std::move(start.xtilde), {}};
  s.data.features = dpkit::sim::uniform_design(std::size_t(n), std::size_t(d), feats);
  const double sd = std::sqrt(0.01 / double(d));
  s.data.labels = dpkit::sim::linear_labels(s.data.features, s.xt, sd, noise, 3 * sd);
  return s;
}
}  // namespace

// Arg 0: the design's true Σ (two-level, Householder basis); 1: the released code's I/(12d).
static void BM_fig2b_last_iterate(benchmark::State& state) {
  const long long d = 1000, n = 1500;
  const setup s = make_setup(d, n);
  const vo::problem_parameters par{0.1, 0.01 / double(d), 1.5};
  const vo::schedule gamma = vo::schedule::constant(50);
  const double T = double(n) / double(d);
  const hs::gaussian_law law =
      state.range(0) == 0
          ? hs::gaussian_law::lksp25_design(s.x0, s.xt, par, gamma, T)
          : hs::gaussian_law(hs::eigenbasis::identity(d),
                             std::vector<double>(std::size_t(d), 1 / (12.0 * double(d))), s.x0,
                             s.xt, par, gamma, T);
  const std::vector<hs::record_pair> pairs = hs::extreme_label_pairs(s.data, 30);
  std::vector<double> times;
  for (int k = 1; k <= 30; ++k) times.push_back(T * k / 30);
  for (auto _ : state)
    benchmark::DoNotOptimize(hs::last_iterate_rdp(law, s.data, pairs, times, 2.0).values.back());
}
BENCHMARK(BM_fig2b_last_iterate)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
