// Benchmarks of the DP-SGD accountants over the grid of the accounting issue:
// q ∈ {0.001, 0.01, 0.1, 1}, σ ∈ {0.5, 0.8, 1, 2, 5}, T ∈ {1, 1e2, 1e3, 1e4, 1e5}, δ = 1e-5,
// Poisson sampling, single-threaded, default accuracy (PLD bracket ≤ 0.1 % of ε).
// Results and the command that reproduces them: docs/performance.md.
#include <benchmark/benchmark.h>
#include <fftw3.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "dpkit/accounting/accountant.hpp"

namespace acc = dpkit::accounting;

namespace {
constexpr double kQ[] = {0.001, 0.01, 0.1, 1.0};
constexpr double kSigma[] = {0.5, 0.8, 1.0, 2.0, 5.0};
constexpr long long kSteps[] = {1, 100, 1000, 10000, 100000};

acc::training_run grid_run(const benchmark::State& state) {
  acc::training_run run;
  run.phases.push_back({kSigma[state.range(1)], kQ[state.range(0)], acc::sampling_scheme::poisson,
                        kSteps[state.range(2)]});
  return run;
}

void grid(benchmark::internal::Benchmark* b) {
  for (int q = 0; q < 4; ++q)
    for (int s = 0; s < 5; ++s)
      for (int t = 0; t < 5; ++t) b->Args({q, s, t});
}

void label(benchmark::State& state, const acc::privacy_estimate& e) {
  state.counters["epsilon"] = e.value;
  state.counters["relative_gap"] =
      std::isfinite(e.lower) && e.value > 0 ? (e.value - e.lower) / e.value : 0;
  state.counters["fft"] = static_cast<double>(e.pld.fft_size);
  state.counters["passes"] = static_cast<double>(e.pld.passes);
}
}  // namespace

static void BM_pld_epsilon(benchmark::State& state) {
  const acc::training_run run = grid_run(state);
  acc::privacy_estimate e;
  for (auto _ : state) e = acc::estimate_epsilon(run, 1e-5, acc::accountant_type::pld);
  label(state, e);
}
BENCHMARK(BM_pld_epsilon)
    ->Apply(grid)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

// The physical limit of a certified bracket: the FFTs its final grid needs. A composition of
// one repeated step is one real-to-complex transform of the discretised step and one
// complex-to-real transform of the powered spectrum, of the FFT size n the bracket reports; a
// Poisson run composes both adjacency directions and both sides, so 4 such pairs. This times
// one pair as the engine runs it (FFTW_ESTIMATE plans, made once; new-array execution);
// validation/perf/fft_limit.py divides each grid case's time by 4× the pair at its n.
static void BM_fft_pair(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  struct deleter {
    void operator()(void* p) const { fftw_free(p); }
  };
  std::unique_ptr<double, deleter> real(static_cast<double*>(fftw_malloc(sizeof(double) * n)));
  std::unique_ptr<fftw_complex, deleter> spectrum(
      static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * (n / 2 + 1))));
  const int size = static_cast<int>(n);
  fftw_plan forward = fftw_plan_dft_r2c_1d(size, real.get(), spectrum.get(), FFTW_ESTIMATE);
  fftw_plan backward = fftw_plan_dft_c2r_1d(size, spectrum.get(), real.get(), FFTW_ESTIMATE);
  for (std::size_t k = 0; k < n; ++k) real.get()[k] = 1.0 / static_cast<double>(k + 1);
  for (auto _ : state) {
    fftw_execute_dft_r2c(forward, real.get(), spectrum.get());
    fftw_execute_dft_c2r(backward, spectrum.get(), real.get());
    benchmark::DoNotOptimize(real.get()[0]);
  }
  fftw_destroy_plan(forward);
  fftw_destroy_plan(backward);
}
BENCHMARK(BM_fft_pair)->RangeMultiplier(2)->Range(1 << 10, 1 << 24)->Unit(benchmark::kMillisecond);

static void BM_rdp_epsilon(benchmark::State& state) {
  const acc::training_run run = grid_run(state);
  acc::privacy_estimate e;
  for (auto _ : state) e = acc::estimate_epsilon(run, 1e-5, acc::accountant_type::rdp);
  label(state, e);
}
BENCHMARK(BM_rdp_epsilon)
    ->Apply(grid)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true);

static void BM_calibrate_pld(benchmark::State& state) {
  acc::training_run run = grid_run(state);
  // Calibrate to the ε that σ = 1 would give (bounded to a sensible range).
  acc::training_run reference = run;
  reference.phases[0].noise_multiplier = 1.0;
  const double target = std::clamp(
      acc::estimate_epsilon(reference, 1e-5, acc::accountant_type::rdp).value, 0.1, 50.0);
  acc::noise_calibration c;
  for (auto _ : state) c = acc::calibrate_noise_multiplier(run, target, 1e-5);
  state.counters["sigma"] = c.noise_multiplier;
  state.counters["evaluations"] = c.evaluations;
}
BENCHMARK(BM_calibrate_pld)
    ->Apply(grid)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(1);

// Shuffled fixed-size batches (accounting/shuffling.hpp): the certified bracket (lower bound of
// Chua et al. 2024 by the sliced epoch maximum, composed over the complete epochs; upper bound
// without amplification) for steps per epoch t = 1/q ∈ {10, 100, 1000}, σ of the grid up to 2,
// and 1, 10 or 50 epochs.
// One epoch scheme's certified bracket at (q, σ, epochs) = the benchmark's three indices.
static void epoch_scheme_epsilon(benchmark::State& state, acc::sampling_scheme scheme) {
  acc::training_run run;
  constexpr long long kEpochs[] = {1, 10, 50};
  const double q = kQ[state.range(0)];
  run.phases.push_back({kSigma[state.range(1)], q, scheme,
                        static_cast<long long>(std::llround(1 / q)) * kEpochs[state.range(2)]});
  acc::privacy_estimate e;
  for (auto _ : state) e = acc::estimate_epsilon(run, 1e-5, acc::accountant_type::pld);
  state.counters["epsilon_lower"] = e.lower;
  state.counters["epsilon_upper"] = e.upper;
}

static void BM_shuffling_epsilon(benchmark::State& state) {
  epoch_scheme_epsilon(state, acc::sampling_scheme::shuffling);
}
BENCHMARK(BM_shuffling_epsilon)
    ->ArgsProduct({{0, 1, 2}, {0, 1, 2, 3}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(1);

// Random allocation (balls in bins): the certified bracket (the epoch's likelihood ratio in the
// convex order, both sides) over the same grid as shuffling.
static void BM_allocation_epsilon(benchmark::State& state) {
  epoch_scheme_epsilon(state, acc::sampling_scheme::random_allocation);
}
BENCHMARK(BM_allocation_epsilon)
    ->ArgsProduct({{0, 1, 2}, {0, 1, 2, 3}, {0, 1, 2}})
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(1);

// Poisson batches with replace-one neighbours, and truncated Poisson batches (n = 100/q records,
// B = 1.2 × the expected batch of 100, add/remove): the certified PLD bracket over the grid's
// q < 1 (75 cases each).
void subsampled_grid(benchmark::internal::Benchmark* b) {
  for (int q = 0; q < 3; ++q)
    for (int s = 0; s < 5; ++s)
      for (int t = 0; t < 5; ++t) b->Args({q, s, t});
}

static void BM_replace_one_epsilon(benchmark::State& state) {
  acc::training_run run = grid_run(state);
  run.phases[0].neighbours = acc::neighbouring::replace_one;
  acc::privacy_estimate e;
  for (auto _ : state) e = acc::estimate_epsilon(run, 1e-5, acc::accountant_type::pld);
  label(state, e);
}
BENCHMARK(BM_replace_one_epsilon)
    ->Apply(subsampled_grid)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(1);

static void BM_truncated_epsilon(benchmark::State& state) {
  acc::training_run run = grid_run(state);
  acc::training_phase& p = run.phases[0];
  p.sampling = acc::sampling_scheme::truncated_poisson;
  p.dataset_size = std::llround(100 / p.sampling_rate);
  p.max_batch_size = 120;
  acc::privacy_estimate e;
  for (auto _ : state) e = acc::estimate_epsilon(run, 1e-5, acc::accountant_type::pld);
  state.counters["epsilon_lower"] = e.lower;
  state.counters["epsilon_upper"] = e.upper;
}
BENCHMARK(BM_truncated_epsilon)
    ->Apply(subsampled_grid)
    ->Unit(benchmark::kMillisecond)
    ->Iterations(1)
    ->Repetitions(1);

// A training loop's accounting: batch 256 of 60 000 (q = 256/60000), σ = 1, the certified ε at
// δ = 1e-5 asked after every epoch (235 steps) for 60 epochs (14 100 steps), or after every 10
// steps for 1 000 steps. Arg 0: one incremental_accountant; arg 1: a fresh estimate_epsilon per
// query (what a loop without it does).
static void training_loop(benchmark::State& state, long long every, long long queries) {
  const bool incremental = state.range(0) == 0;
  acc::training_run run;
  run.phases.push_back({1.0, 256.0 / 60000.0, acc::sampling_scheme::poisson, 0});
  double last = 0;
  long long discretisations = 0;
  for (auto _ : state) {
    acc::incremental_accountant a(run);
    for (long long i = 1; i <= queries; ++i) {
      if (incremental) {
        a.add_steps(every);
        last = a.epsilon(1e-5).value;
      } else {
        acc::training_run r = run;
        r.phases[0].steps = i * every;
        last = acc::estimate_epsilon(r, 1e-5, acc::accountant_type::pld).value;
      }
    }
    discretisations = a.discretisations();
  }
  state.counters["epsilon_final"] = last;
  state.counters["discretisations"] = static_cast<double>(discretisations);
  state.counters["queries"] = static_cast<double>(queries);
}
static void BM_loop_per_epoch(benchmark::State& state) {
  training_loop(state, 235, 60);
}
static void BM_loop_every_10_steps(benchmark::State& state) {
  training_loop(state, 10, 100);
}
BENCHMARK(BM_loop_per_epoch)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_loop_every_10_steps)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_MAIN();
