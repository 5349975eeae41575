// Benchmarks of the Gaussian privacy core (Google Benchmark). Results and the command that
// reproduces them: docs/performance.md.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>

#include "dpkit/core/normal.hpp"
#include "dpkit/divergence/gaussian_renyi.hpp"
#include "dpkit/divergence/gaussian_tradeoff.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "dpkit/divergence/rdp.hpp"

namespace dv = dpkit::divergence;

static void BM_normal_cdf_tail(benchmark::State& state) {
  double x = -30;
  for (auto _ : state) benchmark::DoNotOptimize(dpkit::normal_cdf(x));
}
BENCHMARK(BM_normal_cdf_tail);

static void BM_normal_lcdf_deep_tail(benchmark::State& state) {
  double x = -100;
  for (auto _ : state) benchmark::DoNotOptimize(dpkit::normal_lcdf(x));
}
BENCHMARK(BM_normal_lcdf_deep_tail);

static void BM_normal_quantile(benchmark::State& state) {
  double p = 1e-12;
  for (auto _ : state) benchmark::DoNotOptimize(dpkit::normal_quantile(p));
}
BENCHMARK(BM_normal_quantile);

static void BM_gdp_delta(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(dv::gdp_delta(1.0, 4.0));
}
BENCHMARK(BM_gdp_delta);

// δ where the closed form Φ(a) − e^εΦ(b) cancels (μ²/ε ≲ 1e-9): μ = 1e-5, x₁ = ε/μ − μ/2 = 1, by
// the Mills-ratio path (10-point Gauss–Legendre, docs/divergence.md; before it, exp-sinh
// quadrature). What the without-replacement RDP's profile integral evaluates at large σ.
static void BM_gdp_delta_cancelling(benchmark::State& state) {
  const double mu = 1e-5, eps = mu * (1 + mu / 2);
  for (auto _ : state) benchmark::DoNotOptimize(dv::gdp_log_delta(mu, eps));
}
BENCHMARK(BM_gdp_delta_cancelling);

// ε(δ) for μ-GDP — what `dpkit epsilon --mu` and the full-batch accountant call.
static void BM_gdp_epsilon(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(dv::gdp_epsilon(1.0, 1e-5).value);
}
BENCHMARK(BM_gdp_epsilon);

static void BM_gdp_mu(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(dv::gdp_mu(2.0, 1e-5).value);
}
BENCHMARK(BM_gdp_mu);

// Best of the four RDP conversions, each optimised over α (continuous search).
static void BM_rdp_epsilon_linear(benchmark::State& state) {
  const auto curve = dv::rdp_curve::linear(0.5);
  for (auto _ : state) benchmark::DoNotOptimize(dv::rdp_epsilon(curve, 1e-5).value);
}
BENCHMARK(BM_rdp_epsilon_linear);

static void BM_gaussian_tradeoff_beta(benchmark::State& state) {
  const dv::gaussian_tradeoff g(1.0);
  for (auto _ : state) benchmark::DoNotOptimize(g.beta(0.01));
}
BENCHMARK(BM_gaussian_tradeoff_beta);

// Dense D_α between d-dimensional Gaussians (three LDLT factorisations, O(d³)). V₂ = 1.5 V₁ + I
// keeps M = αV₂ + (1 − α)V₁ = 2V₁ + 2I positive definite at α = 2.
static void BM_renyi_dense(benchmark::State& state) {
  const auto d = static_cast<Eigen::Index>(state.range(0));
  const Eigen::MatrixXd a = Eigen::MatrixXd::Random(d, d);
  const Eigen::MatrixXd v1 = a * a.transpose() + Eigen::MatrixXd::Identity(d, d);
  const dv::multivariate_normal p{Eigen::VectorXd::Zero(d), v1};
  const dv::multivariate_normal q{Eigen::VectorXd::Ones(d),
                                  1.5 * v1 + Eigen::MatrixXd::Identity(d, d)};
  for (auto _ : state) benchmark::DoNotOptimize(dv::renyi_divergence(p, q, 2.0));
}
BENCHMARK(BM_renyi_dense)->Arg(3)->Arg(30)->Arg(300);

BENCHMARK_MAIN();
