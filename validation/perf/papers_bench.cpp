// Cost of the SWX+23 and ZXD+26 simulators at the sizes the validation scenarios run:
//
//  * SWX+23 Part I/II (learners/glm.hpp): one run of Algorithm 2 (phased SGD) at n = 2¹² and 2¹⁶, of
//    Algorithm 1 on both of its branches (Alg 2 and the JL Alg 3), Algorithm 5 with the exact
//    prox, Algorithm 7 (DP projected GD, n = 4096), Algorithm 8 (adaptive batched GD) and
//    Algorithm 9 (the kernelised GLM, polynomial degree 2 and 3), all at d = 20 on the unit
//    sphere with data rank θ = 5 (Algs 7/8: rank d), and the population excess risk with 10⁵
//    draws (what every GLM scenario evaluates per replicate);
//  * SWX+23 §6 (learners/mlp.hpp): Algorithm 10 at validation/scenarios/swx23_mlp.cpp's configuration
//    (d = 8, L = 3, n = 1000 train + 1000 test, Poisson q = 0.05, T = 200, C = 1, R = 4, η of
//    Thm 13, z calibrated for ε = 1, δ = 1/n²) for widths m ∈ {16, 64, 256}, and the per-example
//    gradient of mlp_model;
//  * ZXD+26 (learners/longtail.hpp): train_longtail at the quick tier of
//    validation/scenarios/zxd26_longtail.cpp (K = 3, d = 150, m = 20, n = 150, B = 64, 20 epochs)
//    and at the paper's configuration (K = 5, d = 1000, m = 100, n = 500, B = 256; 8 of the 40
//    steps of 20 epochs, reported per step), each clean (no clipping, no noise) and DP (C = 1,
//    σ_n = zC/B with z = 1); the same runs through the generic run_noisy_gradient (the path
//    train_longtail took before its structured trainer: the "before" column, and a bit-identity
//    check: the benchmark fails if the two differ); and one whole paper-size replicate (data,
//    Haar-rotated initialisation, clean and DP training of 40 steps, test errors).
// Results: docs/performance.md ("SWX+23 and ZXD+26 simulators").
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <utility>
#include <vector>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/risk/mlp_bounds.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/learners/glm.hpp"
#include "dpkit/learners/longtail.hpp"
#include "dpkit/learners/mlp.hpp"

namespace sim = dpkit::sim;
namespace learners = dpkit::learners;
using dpkit::random_stream;

namespace {

// ---- SWX+23 GLMs -----------------------------------------------------------------------------

constexpr std::size_t kGlmDim = 20, kGlmRank = 5;

// Sigmoid teacher with binary labels, x uniform on the unit sphere of a θ = 5 coordinate
// subspace of R^20, w* = (1, …, 1, 0, …)/√θ (‖w*‖ = 1).
learners::glm_population sigmoid_population() {
  learners::glm_population p;
  p.design = learners::glm_design::coordinate(kGlmDim, kGlmRank, learners::glm_design_law::unit_sphere);
  p.teacher.link = learners::glm_link::sigmoid;
  p.teacher.w_star = sim::vector::Zero(static_cast<Eigen::Index>(kGlmDim));
  p.teacher.w_star.head(static_cast<Eigen::Index>(kGlmRank)).setConstant(1 / std::sqrt(5.0));
  p.teacher.noise = learners::glm_label_noise::binary;
  return p;
}

// Well-specified ReLU teacher y = ReLU(⟨w*, x⟩) + U[−0.5, 0.5], x uniform on S^{d−1}, ‖w*‖ = 1
// (as 001-thm6-*; ‖x‖ = 1, |y| ≤ 1.5).
learners::glm_population relu_population() {
  learners::glm_population p;
  p.design = learners::glm_design::coordinate(kGlmDim, kGlmDim, learners::glm_design_law::unit_sphere);
  p.teacher.link = learners::glm_link::relu;
  p.teacher.w_star = sim::vector::Constant(static_cast<Eigen::Index>(kGlmDim), 1 / std::sqrt(20.0));
  p.teacher.noise = learners::glm_label_noise::uniform;
  p.teacher.noise_scale = 0.5;
  return p;
}

// Agnostic ReLU regression (Alg 8): x ~ N(0, I_d), labels clamped to [−B, B] (as
// swx23-thm7-alg8-contraction).
learners::glm_population gaussian_relu_population() {
  learners::glm_population p = relu_population();
  p.design = learners::glm_design::coordinate(kGlmDim, kGlmDim, learners::glm_design_law::gaussian);
  p.teacher.clamp = 2;
  return p;
}

// Data sets drawn once per (population, n).
const sim::dataset& glm_data(int which, std::size_t n) {
  static std::map<std::pair<int, std::size_t>, sim::dataset> cache;
  auto it = cache.find({which, n});
  if (it == cache.end()) {
    random_stream fs(1, 0, 0), ls(1, 0, 1);
    const learners::glm_population p = which == 0   ? sigmoid_population()
                                  : which == 1 ? relu_population()
                                               : gaussian_relu_population();
    it = cache.emplace(std::make_pair(which, n), p.sample(n, fs, ls)).first;
  }
  return it->second;
}

}  // namespace

// Alg 2, ε = 1, δ = 1e-5, the paper's default η and τ_i.
static void BM_phased_sgd(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const sim::dataset& data = glm_data(0, n);
  learners::phased_sgd_options o;
  o.theta_rank = static_cast<double>(kGlmRank);
  std::uint64_t rep = 0;
  for (auto _ : state) {
    const learners::glm_result r = learners::phased_sgd(data, o, {1, rep++, 10});
    benchmark::DoNotOptimize(r.w.data());
  }
  state.counters["examples_per_s"] =
      benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_phased_sgd)->Arg(1 << 12)->Arg(1 << 16)->Unit(benchmark::kMillisecond);

// Alg 1 at n = 4096: ε = 1 takes the Alg 2 branch (ε > θ^{3/2}/n); ε = 0.002 the Alg 3 branch
// (JL to m = ⌈log(n/δ)(nε)^{2/3}⌉ = 81 dimensions). Arg: 0 → ε = 1, 1 → ε = 0.002.
static void BM_dp_glm(benchmark::State& state) {
  const sim::dataset& data = glm_data(0, 4096);
  learners::phased_sgd_options o;
  o.theta_rank = static_cast<double>(kGlmRank);
  o.epsilon = state.range(0) == 0 ? 1 : 0.002;
  std::uint64_t rep = 0;
  for (auto _ : state) {
    const learners::glm_result r = learners::dp_glm(data, o, {1, rep++, 10});
    benchmark::DoNotOptimize(r.w.data());
    state.SetLabel(r.branch);
  }
}
BENCHMARK(BM_dp_glm)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// Alg 5 with the exact prox oracle (β = √n), n = 4096.
static void BM_moreau_phased_sgd(benchmark::State& state) {
  const sim::dataset& data = glm_data(0, 4096);
  learners::phased_sgd_options o;
  o.theta_rank = static_cast<double>(kGlmRank);
  o.oracle = learners::moreau_oracle_kind::exact;
  std::uint64_t rep = 0;
  for (auto _ : state) {
    const learners::glm_result r = learners::moreau_phased_sgd(data, o, {1, rep++, 10});
    benchmark::DoNotOptimize(r.w.data());
  }
}
BENCHMARK(BM_moreau_phased_sgd)->Unit(benchmark::kMillisecond);

// Alg 7 at n = 4096 without JL (Φ = I_d, as the scenarios), Thm 6's default T (= n here) and η:
// T full-batch gradient steps over n records.
static void BM_relu_dp_pgd(benchmark::State& state) {
  const sim::dataset& data = glm_data(1, 4096);
  learners::relu_pgd_options o;
  o.W_norm = 1;
  o.B_bound = 1.5;
  o.use_jl = false;
  std::uint64_t rep = 0;
  long steps = 0;
  for (auto _ : state) {
    const learners::glm_result r = learners::relu_dp_pgd(data, o, {1, rep++, 10});
    steps = static_cast<long>(r.releases.size());
    benchmark::DoNotOptimize(r.w.data());
  }
  state.counters["steps"] = static_cast<double>(steps);
}
BENCHMARK(BM_relu_dp_pgd)->Unit(benchmark::kMillisecond);

// Alg 8: T = 100 steps over disjoint chunks of 64 records (n = 6400), Gaussian features,
// corrected sensitivity with R_x = √d.
static void BM_adaptive_batched_gd(benchmark::State& state) {
  const sim::dataset& data = glm_data(2, 6400);
  learners::adaptive_gd_options o;
  o.B_bound = 2;
  o.steps = 100;
  o.corrected_sensitivity = true;
  std::uint64_t rep = 0;
  for (auto _ : state) {
    const learners::glm_result r = learners::adaptive_batched_gd(data, o, {1, rep++, 10});
    benchmark::DoNotOptimize(r.w.data());
  }
}
BENCHMARK(BM_adaptive_batched_gd)->Unit(benchmark::kMillisecond);

// Alg 9 at n = 4096, d = 20: polynomial features of degree q (k = 231 for q = 2, 1771 for q =
// 3), then Alg 2 in R^k (ε = 1 > θ/n with θ = k). Includes building the features.
static void BM_dp_kernel_glm(benchmark::State& state) {
  const sim::dataset& data = glm_data(0, 4096);
  const int degree = static_cast<int>(state.range(0));
  learners::phased_sgd_options o;
  std::uint64_t rep = 0;
  for (auto _ : state) {
    const learners::glm_result r = learners::dp_kernel_glm(data, degree, o, {1, rep++, 10});
    benchmark::DoNotOptimize(r.w.data());
  }
  state.counters["features"] =
      static_cast<double>(learners::polynomial_feature_dimension(kGlmDim, degree));
}
BENCHMARK(BM_dp_kernel_glm)->Arg(2)->Arg(3)->Unit(benchmark::kMillisecond);

// glm_population::excess_risk with 10⁵ draws of x (O(1) each): Arg 0 the sigmoid/binary
// population, 1 the ReLU population with uniform label noise.
static void BM_excess_risk(benchmark::State& state) {
  const bool relu = state.range(0) == 1;
  const learners::glm_population p = relu ? relu_population() : sigmoid_population();
  const sim::vector w = 0.5 * p.teacher.w_star;
  const std::size_t draws = 100000;
  std::uint64_t rep = 0;
  for (auto _ : state) {
    random_stream s(1, rep++, 2);
    const learners::mc_estimate e =
        p.excess_risk(relu ? learners::glm_link::relu : learners::glm_link::sigmoid, w, draws, s);
    benchmark::DoNotOptimize(e.value);
  }
  state.counters["draws_per_s"] =
      benchmark::Counter(static_cast<double>(draws), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_excess_risk)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

// ---- SWX+23 Algorithm 10 ----------------------------------------------------------------------

namespace {

constexpr std::size_t kMlpDim = 8, kMlpDepth = 3;
constexpr long kMlpSteps = 200;
constexpr double kMlpRate = 0.05, kMlpClip = 1, kMlpRadius = 4;

struct mlp_task {
  std::shared_ptr<const sim::dataset> train;
  sim::dataset test;
  double z = 0;  // noise multiplier for ε = 1, δ = 1/n² (RDP, as swx23_mlp.cpp)
};

const mlp_task& alg10_task() {
  static const mlp_task t = [] {
    random_stream s(1, 0, 0);
    const learners::sphere_teacher teacher = learners::random_sphere_teacher(kMlpDim, 4, s);
    const sim::dataset all = learners::sphere_teacher_data(2000, teacher, 0.05, s);
    auto [train, test] = learners::train_test_split(all, 1000);
    mlp_task out;
    out.train = std::make_shared<const sim::dataset>(std::move(train));
    out.test = std::move(test);
    dpkit::accounting::training_run run;
    run.phases.push_back({1.0, kMlpRate, dpkit::accounting::sampling_scheme::poisson, kMlpSteps});
    dpkit::accounting::calibration_options o;
    o.accountant = dpkit::accounting::accountant_type::rdp;
    out.z = dpkit::accounting::calibrate_noise_multiplier(run, 1, 1e-6, o).noise_multiplier;
    return out;
  }();
  return t;
}

}  // namespace

// One run of Alg 10 (T = 200 steps, expected batch 50, averaged iterate, train and test
// evaluation) at width m (p = 8m + m² + m parameters).
static void BM_run_alg10(benchmark::State& state) {
  const auto m = static_cast<std::size_t>(state.range(0));
  const mlp_task& task = alg10_task();
  const learners::mlp_architecture a{kMlpDim, m, kMlpDepth};
  const learners::mlp_model f(task.train, a);
  random_stream init(1, 0, 1);
  const sim::vector w0 = learners::mlp_initial_weights(a, init);
  dpkit::risk::mlp_training tr;
  tr.examples = 1000;
  tr.input_dimension = kMlpDim;
  tr.width = static_cast<long long>(m);
  tr.depth = kMlpDepth;
  tr.steps = kMlpSteps;
  tr.radius = kMlpRadius;
  tr.clip = kMlpClip;
  tr.epsilon = 1;
  tr.delta = 1e-6;
  tr.sampling_rate = kMlpRate;
  learners::alg10_options o;
  o.sampling_rate = kMlpRate;
  o.steps = kMlpSteps;
  o.learning_rate = dpkit::risk::mlp_step_size(tr);
  o.clip = kMlpClip;
  o.noise = learners::alg10_noise_std(task.z, kMlpClip, kMlpRate, 1000);
  o.constraint = learners::mlp_constraint::around_init;
  o.radius = kMlpRadius;
  std::uint64_t rep = 0;
  for (auto _ : state) {
    const learners::alg10_result r = learners::run_alg10(f, o, w0, {1, rep++, 10}, &task.test);
    benchmark::DoNotOptimize(r.test_average.loss);
  }
  state.counters["parameters"] = static_cast<double>(a.dimension());
  state.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(kMlpSteps),
                                                     benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_run_alg10)->Arg(16)->Arg(64)->Arg(256)->Unit(benchmark::kMillisecond);

// Per-example gradient of mlp_model (forward + backward pass), every training example once.
static void BM_mlp_gradient(benchmark::State& state) {
  const auto m = static_cast<std::size_t>(state.range(0));
  const mlp_task& task = alg10_task();
  const learners::mlp_architecture a{kMlpDim, m, kMlpDepth};
  const learners::mlp_model f(task.train, a);
  random_stream init(1, 0, 1);
  const sim::vector w = learners::mlp_initial_weights(a, init);
  sim::vector g(w.size());
  for (auto _ : state) {
    for (std::size_t i = 0; i < f.examples(); ++i) f.gradient(i, w, g);
    benchmark::DoNotOptimize(g.data());
  }
  state.counters["gradients_per_s"] = benchmark::Counter(
      static_cast<double>(f.examples()), benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_mlp_gradient)->Arg(16)->Arg(64)->Arg(256)->Unit(benchmark::kMicrosecond);

// ---- ZXD+26 --------------------------------------------------------------------------------

namespace {

struct lt_size {
  std::size_t K, d, m, per_class, B;
  double ncr;
};
constexpr lt_size kQuick{3, 150, 20, 50, 64, 200};       // zxd26_longtail.cpp quick tier
constexpr lt_size kPaper{5, 1000, 100, 100, 256, 1400};  // ZXD+26 §5.1 (full tier)

struct lt_problem {
  std::shared_ptr<const learners::longtail_data> train;
  learners::longtail_data test;
  std::unique_ptr<learners::longtail_network> net;
  sim::vector w0;
};

// As zxd26_longtail.cpp's make_problem: ‖u‖ = 0.5, spiked spectra for the NCR, Gaussian ζ,
// PyTorch initialisation (Haar-rotated), streams 0 data, 5 test, 1 init.
lt_problem make_longtail(const lt_size& s, std::uint64_t rep) {
  learners::longtail_data_options o;
  o.classes = s.K;
  o.dimension = s.d;
  o.signal_norm = 0.5;
  o.spike = learners::spike_for_ncr(s.K, s.d, 0.5, s.ncr);
  random_stream ds(1, rep, 0), ts(1, rep, 5), is(1, rep, 1);
  lt_problem p;
  p.train = std::make_shared<const learners::longtail_data>(
      learners::generate_longtail_data(o, std::vector<std::size_t>(s.K, s.per_class), ds));
  p.test = learners::generate_longtail_data(o, std::vector<std::size_t>(s.K, 100), ts);
  p.net = std::make_unique<learners::longtail_network>(p.train, s.m);
  learners::initialisation init;
  init.type = learners::initialisation::kind::pytorch_uniform;
  p.w0 = learners::longtail_initial_weights(s.K, s.m, s.d, init, is);
  return p;
}

const lt_problem& longtail_problem(bool paper) {
  static const lt_problem quick = make_longtail(kQuick, 0);
  if (!paper) return quick;
  static const lt_problem full = make_longtail(kPaper, 0);
  return full;
}

// Clean (C = 0, σ_n = 0) or DP (C = 1, σ_n = zC/B with z = 1); 20 epochs, or `steps` steps.
learners::longtail_training longtail_options(const lt_size& s, bool dp, long steps) {
  learners::longtail_training t;
  t.batch_size = s.B;
  t.epochs = 20;
  t.steps = steps;
  t.clip = dp ? 1 : 0;
  t.noise_std = dp ? learners::noise_std_for(1, 1, s.B) : 0;
  t.record_every = 1000000;  // first and last record only, as the scenarios
  return t;
}

// Arg 0: paper size? Arg 1: DP? Arg 2: 0 → train_longtail, 1 → generic run_noisy_gradient.
void run_longtail(benchmark::State& state, long steps) {
  const bool paper = state.range(0) == 1, dp = state.range(1) == 1, generic = state.range(2) == 1;
  const lt_size& s = paper ? kPaper : kQuick;
  const lt_problem& p = longtail_problem(paper);
  const learners::longtail_training t = longtail_options(s, dp, steps);
  const sim::noisy_gradient_options o = learners::to_noisy_gradient_options(t, p.train->size());
  // The two paths must agree bit for bit (train_longtail's structured trainer).
  const sim::vector a = learners::train_longtail(*p.net, t, p.w0, {1, 0, 10}).weights;
  const sim::vector b = sim::run_noisy_gradient(*p.net, o, p.w0, {1, 0, 10});
  if (a != b) {
    state.SkipWithError("train_longtail and run_noisy_gradient differ");
    return;
  }
  std::uint64_t rep = 1;
  for (auto _ : state) {
    const sim::random_key key{1, rep++, 10};
    const sim::vector w = generic ? sim::run_noisy_gradient(*p.net, o, p.w0, key)
                                  : learners::train_longtail(*p.net, t, p.w0, key).weights;
    benchmark::DoNotOptimize(w.data());
  }
  state.counters["steps_per_s"] = benchmark::Counter(static_cast<double>(o.steps),
                                                     benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

// Quick tier, 20 epochs (T = 47 steps).
static void BM_train_longtail_quick(benchmark::State& state) {
  run_longtail(state, 0);
}
BENCHMARK(BM_train_longtail_quick)
    ->ArgNames({"paper", "dp", "generic"})
    ->Args({0, 0, 0})
    ->Args({0, 0, 1})
    ->Args({0, 1, 0})
    ->Args({0, 1, 1})
    ->Unit(benchmark::kMillisecond);

// Paper size, 8 steps of B = 256 (the 20-epoch run has 40).
static void BM_train_longtail_paper(benchmark::State& state) {
  run_longtail(state, 8);
}
BENCHMARK(BM_train_longtail_paper)
    ->ArgNames({"paper", "dp", "generic"})
    ->Args({1, 0, 0})
    ->Args({1, 0, 1})
    ->Args({1, 1, 0})
    ->Args({1, 1, 1})
    ->Iterations(2)
    ->Unit(benchmark::kMillisecond);

// One whole paper-size replicate: data (train and test), the Haar-rotated initialisation
// (a d × d QR), clean and DP training for 20 epochs (40 steps each), test errors of both.
static void BM_longtail_replicate_paper(benchmark::State& state) {
  std::uint64_t rep = 1;
  for (auto _ : state) {
    const lt_problem p = make_longtail(kPaper, rep);
    const sim::random_key key{1, rep++, 10};
    const learners::longtail_run clean =
        learners::train_longtail(*p.net, longtail_options(kPaper, false, 0), p.w0, key);
    const learners::longtail_run dp =
        learners::train_longtail(*p.net, longtail_options(kPaper, true, 0), p.w0, key);
    benchmark::DoNotOptimize(learners::test_errors(*p.net, clean.weights, p.test).overall());
    benchmark::DoNotOptimize(learners::test_errors(*p.net, dp.weights, p.test).overall());
  }
}
BENCHMARK(BM_longtail_replicate_paper)->Iterations(1)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
