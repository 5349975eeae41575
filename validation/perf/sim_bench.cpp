// Replicate throughput of the Monte Carlo engine: NoisySGD on least squares with d = 1000
// (n = 2000 Gaussian examples, batch 50 without replacement, 100 steps, σ = 1, η = 0.05), one
// replicate = one full training run; 1 and 2 threads. Results: docs/performance.md.
#include <benchmark/benchmark.h>

#include <memory>

#include "dpkit/core/random.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/data.hpp"
#include "dpkit/sim/models.hpp"
#include "dpkit/sim/monte_carlo.hpp"

namespace sim = dpkit::sim;

namespace {
struct problem {
  std::shared_ptr<sim::least_squares> model;
  sim::noisy_gradient_options options;
};

const problem& least_squares_problem() {
  static const problem p = [] {
    const std::size_t n = 2000, d = 1000;
    dpkit::random_stream s(1, 0, 0);
    auto data = std::make_shared<sim::dataset>();
    data->features = sim::gaussian_design(n, Eigen::VectorXd::Constant(d, 1.0 / d), s);
    const Eigen::VectorXd x_star = Eigen::VectorXd::Ones(d);
    data->labels = sim::linear_labels(data->features, x_star, 0.5, s);
    problem out;
    out.model = std::make_shared<sim::least_squares>(data, 1e-3);
    out.options.batches = sim::batch_rule::shuffled;
    out.options.batch_size = 50;
    out.options.steps = 100;
    out.options.learning_rate = 0.05;
    out.options.noise = 1;
    return out;
  }();
  return p;
}
}  // namespace

static void BM_noisy_sgd_replicates(benchmark::State& state) {
  const problem& p = least_squares_problem();
  const auto d = static_cast<Eigen::Index>(p.model->dimension());
  sim::monte_carlo_options mc;
  mc.replicates = 32;
  mc.threads = static_cast<int>(state.range(0));
  mc.chunk = 1;
  for (auto _ : state) {
    const auto res = sim::run_monte_carlo(
        {{"risk"}},
        [&](std::uint64_t r, std::span<double> out) {
          const sim::vector x =
              sim::run_noisy_gradient(*p.model, p.options, sim::vector::Zero(d), {1, r, 0});
          out[0] = p.model->empirical_risk(x);
        },
        mc);
    benchmark::DoNotOptimize(res.observables[0].stats.mean());
  }
  state.counters["replicates_per_s"] = benchmark::Counter(
      static_cast<double>(mc.replicates), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_noisy_sgd_replicates)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
