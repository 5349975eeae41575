// Benchmarks of the shifted module (Google Benchmark): the optimisation problem's exact solver,
// the τ scan, the cyclic worst case over j*, and NoisySGD's PLD-certified τ search. Results and
// the command that reproduces them: docs/performance.md.
#include <benchmark/benchmark.h>

#include <vector>

#include "dpkit/shifted/bounds.hpp"
#include "dpkit/shifted/interpolation.hpp"
#include "dpkit/shifted/noisy_sgd.hpp"

namespace sh = dpkit::shifted;

// One window of n steps (strongly convex, constant sensitivity): O(n).
static void BM_solve_interpolation(benchmark::State& state) {
  const std::vector<double> s(static_cast<std::size_t>(state.range(0)), 0.01);
  for (auto _ : state) benchmark::DoNotOptimize(sh::solve_interpolation({0.99, s, 0.0}).value);
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_solve_interpolation)
    ->Arg(100)
    ->Arg(10000)
    ->Arg(1000000)
    ->Unit(benchmark::kMicrosecond);

// The scan over τ with z_τ = D (constrained): O(t²).
static void BM_best_interpolation_with_diameter(benchmark::State& state) {
  const std::vector<double> s(static_cast<std::size_t>(state.range(0)), 0.01);
  for (auto _ : state) benchmark::DoNotOptimize(sh::best_interpolation(1.0, s, 1.0).value);
}
BENCHMARK(BM_best_interpolation_with_diameter)
    ->Arg(100)
    ->Arg(1000)
    ->Arg(10000)
    ->Unit(benchmark::kMillisecond);

// NoisyCGD, worst case over the l batches (l = 20, E = 50: t = 1000 steps).
static void BM_noisy_cgd_shifted(benchmark::State& state) {
  sh::noisy_gradient_setting s;
  s.sensitivity = 2;
  s.examples = 200;
  s.batch_size = 10;
  s.noise = 1;
  s.learning_rate = 0.1;
  s.steps = 1000;
  s.contraction = 0.99;
  for (auto _ : state) benchmark::DoNotOptimize(sh::noisy_cgd_shifted(s).mu);
}
BENCHMARK(BM_noisy_cgd_shifted)->Unit(benchmark::kMillisecond);

// NoisySGD Thm 4.9: certified ε over τ by PLD (p = 0.1, L/(bσ) = 0.02, c = 0.9), t steps.
static void BM_noisy_sgd_strongly_convex(benchmark::State& state) {
  sh::noisy_gradient_setting s;
  s.sensitivity = 1;
  s.examples = 1000;
  s.batch_size = 100;
  s.noise = 0.5;
  s.learning_rate = 0.5;
  s.steps = state.range(0);
  s.contraction = 0.9;
  int evaluations = 0;
  for (auto _ : state) {
    const auto b = sh::noisy_sgd_strongly_convex(s, 1e-5);
    evaluations = b.evaluations;
    benchmark::DoNotOptimize(b.estimate.value);
  }
  state.counters["pld_evaluations"] = evaluations;
}
BENCHMARK(BM_noisy_sgd_strongly_convex)->Arg(1000)->Arg(100000)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
