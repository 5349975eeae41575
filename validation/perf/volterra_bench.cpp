// Benchmarks of the volterra module (Google Benchmark): risk trajectories of noisy HSGD by the
// ODE lift, against a transcription of the LKSP25 authors' general-Σ path (O(N²d³)). Results and
// the command that reproduces them: docs/performance.md.
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <cmath>
#include <unsupported/Eigen/MatrixFunctions>
#include <vector>

#include "dpkit/core/grid.hpp"
#include "dpkit/volterra/risk.hpp"
#include "dpkit/volterra/schedule.hpp"
#include "dpkit/volterra/spectrum.hpp"

namespace vo = dpkit::volterra;

namespace {
vo::problem power_law_problem(long long d, double exponent, double ridge, double sigma) {
  vo::problem_parameters par;
  par.ridge = ridge;
  par.sigma = sigma;
  par.label_noise = 0.01;
  return vo::power_law(d, exponent, 1.0, {1.0, 0.5, 0.0}, par);
}
}  // namespace

// The target: 1e4 distinct eigenvalues (power law, d = 1e4) over 1e5 SGD steps
// (t = k/d up to 10), 1 000 output times, relative tolerance 1e-8 (solve_risk picks the
// solver). Arg: d.
static void BM_risk_power_law(benchmark::State& state) {
  const long long d = state.range(0);
  const vo::problem p = power_law_problem(d, 1.5, 1e-3, 0.05);
  const vo::schedule g = vo::schedule::constant(1.0);  // SGD step 1/d
  const std::vector<double> times = dpkit::linspace(0.0, 1e5 / double(d), 1000);
  for (auto _ : state) benchmark::DoNotOptimize(vo::solve_risk(p, g, times).P.back());
}
BENCHMARK(BM_risk_power_law)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

// Stiff, long horizon (λ ∝ j^{-3/2}, d = 1000, δ = 0, γ = 1000, T = 1000,
// i.e. 1e6 SGD steps), the exponential stepper at relative tolerance 1e-6.
static void BM_risk_stiff_long(benchmark::State& state) {
  const vo::problem p = power_law_problem(1000, 1.5, 0.0, 0.05);
  const vo::schedule g = vo::schedule::constant(1000.0);
  const std::vector<double> times = dpkit::linspace(0.0, 1000.0, 200);
  vo::exponential_options o;
  o.relative_tolerance = 1e-6;
  for (auto _ : state) benchmark::DoNotOptimize(vo::solve_exponential(p, g, times, o).P.back());
}
BENCHMARK(BM_risk_stiff_long)->Unit(benchmark::kMillisecond);

// The LKSP25 authors' general-Σ path (their released code, `Cal_risk_functions.py`,
// transcribed): for every pair (t_i, s_j) of a uniform grid, a dense d×d matrix exponential of
// −2AΓ(t_i − s_j) for the kernels G and G′, a left-endpoint rectangle rule, and the gradient-flow
// term by a matrix exponential too: O(N²d³). Written here only to measure the speed-up; it is
// first order, so at equal N it is also less accurate than dpkit's solvers. Args: d, N.
static void BM_authors_direct(benchmark::State& state) {
  const auto d = static_cast<Eigen::Index>(state.range(0));
  const auto n = static_cast<int>(state.range(1));
  const double gamma = 1, ridge = 1e-3, sigma = 0.05, label = 0.01, horizon = 5;
  Eigen::VectorXd lambda(d);
  for (Eigen::Index j = 0; j < d; ++j) lambda[j] = std::pow(double(j + 1), -1.5);
  lambda /= lambda.sum();
  // A general Σ: the spectrum rotated by a fixed orthogonal matrix (what the dense path sees).
  const Eigen::MatrixXd q =
      Eigen::HouseholderQR<Eigen::MatrixXd>(Eigen::MatrixXd::Random(d, d)).householderQ();
  const Eigen::MatrixXd S = q * lambda.asDiagonal() * q.transpose();
  const Eigen::MatrixXd A = S + ridge * Eigen::MatrixXd::Identity(d, d);
  const Eigen::VectorXd xt = Eigen::VectorXd::Constant(d, std::sqrt(0.5 / double(d)));
  const Eigen::VectorXd x0 = xt + Eigen::VectorXd::Constant(d, 1 / std::sqrt(double(d)));
  const double h = horizon / n;
  for (auto _ : state) {
    std::vector<double> P(static_cast<std::size_t>(n) + 1);
    for (int i = 0; i <= n; ++i) {
      // gradient flow: e = e^{−AΓ}(x0 − x⋆) + x⋆ − x̃, x⋆ = A⁻¹Σx̃
      const Eigen::VectorXd xs = A.ldlt().solve(S * xt);
      const Eigen::MatrixXd E = (-A * gamma * h * i).exp();
      const Eigen::VectorXd e = E * (x0 - xs) + xs - xt;
      double p = 0.5 * e.dot(S * e) + 0.5 * label;
      for (int j = 0; j < i; ++j) {
        const Eigen::MatrixXd K = (-2 * A * gamma * h * (i - j)).exp();
        const double G = gamma * gamma / double(d) * (S * S * K).trace();
        const double Gp = sigma * sigma * gamma * gamma / (2 * double(d)) * (S * K).trace();
        p += h * (G * P[static_cast<std::size_t>(j)] + Gp);
      }
      P[static_cast<std::size_t>(i)] = p;
    }
    benchmark::DoNotOptimize(P.back());
  }
}
BENCHMARK(BM_authors_direct)
    ->Args({20, 50})
    ->Args({40, 50})
    ->Args({80, 50})
    ->Unit(benchmark::kMillisecond);

// dpkit on the same problems (the ODE lift in the eigenbasis) at relative tolerance 1e-8.
static void BM_dpkit_same(benchmark::State& state) {
  const long long d = state.range(0);
  const vo::problem p = power_law_problem(d, 1.5, 1e-3, 0.05);
  const vo::schedule g = vo::schedule::constant(1.0);
  const std::vector<double> times = dpkit::linspace(0.0, 5.0, state.range(1) + 1);
  for (auto _ : state) benchmark::DoNotOptimize(vo::solve_risk(p, g, times).P.back());
}
BENCHMARK(BM_dpkit_same)
    ->Args({20, 50})
    ->Args({40, 50})
    ->Args({80, 50})
    ->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
