// Benchmarks of the correlated-noise calibration (Google Benchmark): calibrate_correlated for
// every method over λ ∈ {0, 0.5, 0.9}, r ∈ {0.01, 0.1}, T ∈ {1e2, 1e3, 1e4, 1e5}, ε = 1,
// δ = 1e-5, default options, single thread. The λ = 0 routes (pld, d9, d9-eq19,
// pld-replace-one) are registered at λ = 0 only (elsewhere they return "not applicable" at once).
// Names: BM_correlated/<method>/lambda:<λ>/r:<r>/T:<T>; counters: kappa (the calibrated noise
// multiplier; inf where the route certifies the budget at no κ) and evaluations. Plus
// BM_correlation_spectral_norm (λ = 0.9), the O(T) ingredient of f9-exact. Results and the command
// that reproduces them: docs/performance.md.
#include <benchmark/benchmark.h>

#include <string>

#include "dpkit/accounting/correlated.hpp"

namespace acc = dpkit::accounting;

namespace {
constexpr double kLambda[] = {0.0, 0.5, 0.9};
constexpr double kRate[] = {0.01, 0.1};
constexpr long long kSteps[] = {100, 1000, 10000, 100000};
constexpr double kEpsilon = 1.0, kDelta = 1e-5;

bool lambda_zero_only(acc::correlated_method m) {
  return m == acc::correlated_method::pld || m == acc::correlated_method::d9 ||
         m == acc::correlated_method::d9_eq19 || m == acc::correlated_method::pld_replace_one;
}

std::string text(double x) {
  std::string s = std::to_string(x);  // "0.500000"
  s.erase(s.find_last_not_of('0') + 1);
  if (s.back() == '.') s.pop_back();
  return s;
}

void calibrate(benchmark::State& state, acc::correlated_method method, acc::correlated_setting s) {
  acc::correlated_noise r;
  for (auto _ : state) {
    r = acc::calibrate_correlated(s, kEpsilon, kDelta, method);
    // The whole result, not r.noise_multiplier: with g++ the non-const DoNotOptimize of a
    // double lvalue can corrupt it (google/benchmark#903, GCC PR 92597; seen here with 1.7.1).
    benchmark::DoNotOptimize(r);
  }
  if (r.termination == dpkit::termination_type::failure) {
    state.SkipWithError(r.message.c_str());
    return;
  }
  state.counters["kappa"] = r.noise_multiplier;
  state.counters["evaluations"] = r.evaluations;
}

void register_grid() {
  for (acc::correlated_method m : acc::kAllCorrelatedMethods)
    for (double lambda : kLambda) {
      if (lambda != 0 && lambda_zero_only(m)) continue;
      for (double rate : kRate)
        for (long long steps : kSteps) {
          const std::string name = "BM_correlated/" + std::string(acc::to_string(m)) +
                                   "/lambda:" + text(lambda) + "/r:" + text(rate) +
                                   "/T:" + std::to_string(steps);
          benchmark::RegisterBenchmark(name.c_str(), calibrate, m,
                                       acc::correlated_setting{lambda, rate, steps})
              ->Unit(benchmark::kMillisecond)
              ->MinTime(0.05);
        }
    }
}
}  // namespace

// The ingredient that dominates f9-exact at λ ≠ 0: ‖C‖₂ by Sturm bisection, O(T) per step.
static void BM_correlation_spectral_norm(benchmark::State& state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(acc::correlation_spectral_norm(0.9, state.range(0)).value);
}
BENCHMARK(BM_correlation_spectral_norm)
    ->Arg(1000)
    ->Arg(10000)
    ->Arg(100000)
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.05);

int main(int argc, char** argv) {
  register_grid();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
