// The noisy-gradient template and the HSGD Euler–Maruyama simulator against exact laws.
// Statistical checks use z-tests with a two-sided false-alarm probability of 1e-6 each on fixed
// seeds; deterministic checks compare with hand-computed iterates.
#include "dpkit/sim/algorithm.hpp"

#include <boost/math/distributions/normal.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <stdexcept>

#include "dpkit/core/random.hpp"
#include "dpkit/sim/monte_carlo.hpp"

using namespace dpkit::sim;

namespace {

double z_threshold() {
  return boost::math::quantile(boost::math::complement(boost::math::normal(), 0.5e-6));
}

// Test-local models (the library's own live in models.hpp; these keep this file independent).
// f_i(x) = (m/2)‖x‖² for all i.
class test_quadratic final : public model {
 public:
  test_quadratic(std::size_t n, std::size_t d, double m) : n_(n), d_(d), m_(m) {}
  std::size_t dimension() const override { return d_; }
  std::size_t examples() const override { return n_; }
  double loss(std::size_t, const_vector_ref x) const override { return 0.5 * m_ * x.squaredNorm(); }
  void gradient(std::size_t, const_vector_ref x, vector_ref g) const override { g = m_ * x; }
  std::string describe() const override { return "test quadratic"; }

 private:
  std::size_t n_, d_;
  double m_;
};

// f_i(x) = g_iᵀx with the rows of G as constant gradients.
class test_linear final : public model {
 public:
  explicit test_linear(Eigen::MatrixXd g) : g_(std::move(g)) {}
  std::size_t dimension() const override { return static_cast<std::size_t>(g_.cols()); }
  std::size_t examples() const override { return static_cast<std::size_t>(g_.rows()); }
  double loss(std::size_t i, const_vector_ref x) const override {
    return g_.row(static_cast<Eigen::Index>(i)).dot(x);
  }
  void gradient(std::size_t i, const_vector_ref, vector_ref g) const override {
    g = g_.row(static_cast<Eigen::Index>(i)).transpose();
  }
  std::string describe() const override { return "test linear"; }

 private:
  Eigen::MatrixXd g_;
};

// z-score of an observed mean against the expected one with known variance.
double z_mean(const observable_summary& s, double expected_mean, double variance) {
  return std::abs(s.stats.mean() - expected_mean) /
         std::sqrt(variance / static_cast<double>(s.stats.count()));
}
// z-score of an observed variance (normal data: Var(s²) ≈ 2σ⁴/(R−1)).
double z_variance(const observable_summary& s, double expected_variance) {
  return std::abs(s.stats.variance() - expected_variance) /
         (expected_variance * std::sqrt(2.0 / static_cast<double>(s.stats.count() - 1)));
}

}  // namespace

TEST_CASE("NoisyGD on BSA24's W1 pair has the exact Gaussian laws of Thm C.5", "[algorithm]") {
  // ∇f_i = m x; on D′ example i* has ∇f′ = m x − L v. X_0 = 0, c = 1 − ηm:
  // X_t ~ N(0, v_t I), X′_t ~ N(m_t v, v_t I), v_t = η²σ² (1 − c^{2t})/(1 − c²),
  // m_t = (ηL/n)(1 − c^t)/(1 − c) (W1, docs/shifted.md).
  const std::size_t n = 5, d = 3;
  const double m = 1, L = 2, eta = 0.3, sigma = 1.5;
  const long t = 12;
  auto base = std::make_shared<test_quadratic>(n, d, m);
  vector v = vector::Zero(d);
  v[0] = 1;
  const linearly_perturbed neighbour(base, 2, L * v);
  noisy_gradient_options o;
  o.steps = t;
  o.learning_rate = eta;
  o.noise = sigma;
  const double c = 1 - eta * m;
  const double vt = eta * eta * sigma * sigma * (1 - std::pow(c, 2 * t)) / (1 - c * c);
  const double mt = eta * L / n * (1 - std::pow(c, t)) / (1 - c);
  monte_carlo_options mc;
  mc.replicates = 20000;
  mc.seed = 17;
  const auto res = run_monte_carlo(
      {{"x0"}, {"x1"}, {"x0_prime"}},
      [&](std::uint64_t r, std::span<double> out) {
        const vector x = run_noisy_gradient(*base, o, vector::Zero(d), {mc.seed, r, 0});
        const vector xp = run_noisy_gradient(neighbour, o, vector::Zero(d), {mc.seed, r, 100});
        out[0] = x[0];
        out[1] = x[1];
        out[2] = xp[0];
      },
      mc);
  CHECK(z_mean(res.at("x0"), 0, vt) < z_threshold());
  CHECK(z_variance(res.at("x0"), vt) < z_threshold());
  CHECK(z_variance(res.at("x1"), vt) < z_threshold());
  CHECK(z_mean(res.at("x0_prime"), mt, vt) < z_threshold());
  CHECK(z_variance(res.at("x0_prime"), vt) < z_threshold());
  // The check has power: the mean of X′ is many standard errors away from 0.
  CHECK(z_mean(res.at("x0_prime"), 0, vt) > 10 * z_threshold());
}

TEST_CASE("deterministic batches: hand-computed iterates", "[algorithm]") {
  // Constant gradients g_0 = 1, g_1 = 2, g_2 = 4, g_3 = 8 (1-D), no noise, η = 0.5.
  Eigen::MatrixXd g(4, 1);
  g << 1, 2, 4, 8;
  const test_linear f(g);
  noisy_gradient_options o;
  o.learning_rate = 0.5;
  o.steps = 3;
  SECTION("full batch: each step moves by η·mean = 0.5·3.75") {
    const vector x = run_noisy_gradient(f, o, vector::Zero(1), {});
    CHECK(x[0] == Approx(-3 * 0.5 * 3.75).epsilon(1e-15));
  }
  SECTION("cyclic, b = 2, order (3, 0, 1, 2): batches {3,0}, {1,2}, {3,0}") {
    o.batches = batch_rule::cyclic;
    o.batch_size = 2;
    o.order = {3, 0, 1, 2};
    const vector x = run_noisy_gradient(f, o, vector::Zero(1), {});
    CHECK(x[0] == Approx(-0.5 * (4.5 + 3 + 4.5)).epsilon(1e-15));
  }
  SECTION("one pass over the default order 0, 1, 2") {
    o.batches = batch_rule::one_pass;
    const vector x = run_noisy_gradient(f, o, vector::Zero(1), {});
    CHECK(x[0] == Approx(-0.5 * (1 + 2 + 4)).epsilon(1e-15));
  }
  SECTION("clipping at C = 3 and a schedule η_k = 1/(k+1)") {
    o.batches = batch_rule::one_pass;
    o.clip = 3;
    o.schedule = [](long k) { return 1.0 / static_cast<double>(k + 1); };
    const vector x = run_noisy_gradient(f, o, vector::Zero(1), {});
    CHECK(x[0] == Approx(-(1 + 2.0 / 2 + 3.0 / 3)).epsilon(1e-15));
  }
  SECTION("weight decay ω = 0.4 after clipping at C = 1: x ← (1 − ηω)x − η·1") {
    o.batches = batch_rule::one_pass;
    o.clip = 1;
    o.weight_decay = 0.4;
    const vector x = run_noisy_gradient(f, o, vector::Constant(1, 10), {});
    // x₁ = 0.8·10 − 0.5 = 7.5, x₂ = 0.8·7.5 − 0.5 = 5.5, x₃ = 0.8·5.5 − 0.5 = 3.9.
    CHECK(x[0] == Approx(3.9).epsilon(1e-15));
  }
  SECTION("projection onto the box [-1, 1] after each step") {
    o.constraint = projection::box(vector::Constant(1, -1), vector::Constant(1, 1));
    const vector x = run_noisy_gradient(f, o, vector::Zero(1), {});
    CHECK(x[0] == -1);
  }
}

TEST_CASE("projections onto a ball and a box", "[algorithm]") {
  vector x(2);
  x << 3, 4;
  projection::ball(vector::Zero(2), 1).apply(x);
  CHECK(x[0] == Approx(0.6));
  CHECK(x[1] == Approx(0.8));
  vector y(2);
  y << 0.1, -0.2;
  projection::ball(vector::Zero(2), 1).apply(y);  // inside: unchanged
  CHECK(y[0] == 0.1);
  CHECK(projection::ball(vector::Zero(2), 1.5).diameter() == 3);
  CHECK(std::isinf(projection::none().diameter()));
  CHECK_THROWS_AS(projection::box(vector::Constant(1, 1), vector::Constant(1, 0)),
                  std::domain_error);
}

TEST_CASE("block_balls is the exact Euclidean projection onto a product of balls",
          "[algorithm][mlp]") {
  // Blocks [0, 2) radius 1 around (1, 0), [3, 6) radius 0.5 around 0; coordinate 2 is free.
  vector c = vector::Zero(6);
  c(0) = 1;
  const projection P = projection::block_balls(c, {3, 0}, {3, 2}, {0.5, 1.0});
  // Hand value: block 1 (3, 4) − (1, 0) = (2, 4) → (1, 0) + (2, 4)/√20; block 2 (0, 0, 2) →
  // (0, 0, 0.5); coordinate 2 unchanged.
  vector x(6);
  x << 3, 4, -7, 0, 0, 2;
  vector y = x;
  P.apply(y);
  CHECK_THAT(y(0), Catch::Matchers::WithinRel(1 + 2 / std::sqrt(20.0), 1e-15));
  CHECK_THAT(y(1), Catch::Matchers::WithinRel(4 / std::sqrt(20.0), 1e-15));
  CHECK(y(2) == -7);
  CHECK(y(3) == 0);
  CHECK_THAT(y(5), Catch::Matchers::WithinRel(0.5, 1e-15));
  // Brute force: Π(x) is in K and no point of K is closer to x. 20000 random points of K
  // (uniform directions, radii uniform in [0, r], a third on the spheres) and random x; the
  // variational inequality ⟨x − Π(x), z − Π(x)⟩ ≤ 0 for all z ∈ K characterises Π exactly.
  dpkit::random_stream s(7, 0, 0);
  auto sample_in_K = [&](vector& z) {
    z(2) = 5 * s.normal();
    for (int b = 0; b < 2; ++b) {
      const Eigen::Index o = b == 0 ? 0 : 3, size = b == 0 ? 2 : 3;
      const double r = b == 0 ? 1.0 : 0.5;
      vector u(size);
      for (auto& v : u) v = s.normal();
      const double radius = s.uniform() < 1.0 / 3 ? r : r * s.uniform();
      z.segment(o, size) = c.segment(o, size) + u * (radius / u.norm());
    }
  };
  double worst_vi = -INFINITY, worst_gap = INFINITY;
  vector z(6);
  for (int trial = 0; trial < 20; ++trial) {
    for (auto& v : x) v = 2 * s.normal();
    y = x;
    P.apply(y);
    CHECK((y.segment(0, 2) - c.segment(0, 2)).norm() <= 1 + 1e-15);
    CHECK(y.segment(3, 3).norm() <= 0.5 + 1e-15);
    CHECK(y(2) == x(2));
    for (int k = 0; k < 1000; ++k) {
      sample_in_K(z);
      worst_vi = std::max(worst_vi, (x - y).dot(z - y));
      worst_gap = std::min(worst_gap, (x - z).norm() - (x - y).norm());
    }
  }
  CHECK(worst_vi <= 1e-12);
  CHECK(worst_gap >= -1e-12);
  // Diameter: 2√(Σ r²) when the blocks cover every coordinate; ∞ otherwise.
  CHECK(std::isinf(P.diameter()));
  const projection Q = projection::block_balls(vector::Zero(3), {0, 1}, {1, 2}, {3, 4});
  CHECK_THAT(Q.diameter(), Catch::Matchers::WithinRel(10.0, 1e-15));
  // Bad input: overlap, out of range, empty block, list sizes, negative radius, NaN centre.
  CHECK_THROWS_WITH(projection::block_balls(vector::Zero(4), {0, 1}, {2, 2}, {1, 1}),
                    Catch::Matchers::Contains("must not overlap"));
  CHECK_THROWS_AS(projection::block_balls(vector::Zero(4), {3}, {2}, {1}), std::domain_error);
  CHECK_THROWS_AS(projection::block_balls(vector::Zero(4), {0}, {0}, {1}), std::domain_error);
  CHECK_THROWS_AS(projection::block_balls(vector::Zero(4), {0}, {2, 1}, {1}), std::domain_error);
  CHECK_THROWS_AS(projection::block_balls(vector::Zero(4), {0}, {2}, {-1}), std::domain_error);
  vector bad = vector::Zero(4);
  bad(1) = NAN;
  CHECK_THROWS_AS(projection::block_balls(bad, {0}, {2}, {1}), std::domain_error);
  // run_noisy_gradient checks the centre's size against the model.
  const test_quadratic f(1, 2, 1.0);
  noisy_gradient_options o;
  o.constraint = projection::block_balls(vector::Zero(3), {0}, {2}, {1});
  CHECK_THROWS_AS(run_noisy_gradient(f, o, vector::Zero(2), {}), std::domain_error);
}

TEST_CASE("Poisson and shuffled batches are unbiased and correlated noise has its covariance",
          "[algorithm]") {
  const std::size_t n = 20;
  Eigen::MatrixXd g = Eigen::MatrixXd::Zero(n, 1);
  for (std::size_t i = 0; i < n; ++i) g(static_cast<Eigen::Index>(i), 0) = static_cast<double>(i);
  const test_linear f(g);
  const double mean_gradient = 9.5;  // (0 + … + 19)/20
  noisy_gradient_options o;
  o.learning_rate = 1;
  o.steps = 5;
  monte_carlo_options mc;
  mc.replicates = 20000;
  mc.seed = 3;
  SECTION("Poisson, q = 0.2: E X_T = −T·mean gradient") {
    o.batches = batch_rule::poisson;
    o.sampling_rate = 0.2;
    const auto res = run_monte_carlo(
        {{"x"}},
        [&](std::uint64_t r, std::span<double> out) {
          out[0] = run_noisy_gradient(f, o, vector::Zero(1), {mc.seed, r, 0})[0];
        },
        mc);
    // Var of one step's ḡ = Σ g_i² q(1−q)/(qn)² ; T independent steps.
    double sum_sq = 0;
    for (std::size_t i = 0; i < n; ++i) sum_sq += static_cast<double>(i * i);
    const double var = 5 * sum_sq * 0.2 * 0.8 / (0.2 * n * 0.2 * n);
    CHECK(z_mean(res.at("x"), -5 * mean_gradient, var) < z_threshold());
    CHECK(z_variance(res.at("x"), var) < 2 * z_threshold());  // not normal: looser
  }
  SECTION("shuffled, b = 4: E X_T = −T·mean gradient") {
    o.batches = batch_rule::shuffled;
    o.batch_size = 4;
    const auto res = run_monte_carlo(
        {{"x"}},
        [&](std::uint64_t r, std::span<double> out) {
          out[0] = run_noisy_gradient(f, o, vector::Zero(1), {mc.seed, r, 0})[0];
        },
        mc);
    // Sampling without replacement: Var(mean of b) = S²/b·(1 − b/n), S² the population variance
    // with divisor n − 1.
    const double s2 = 35.0;  // Var of 0..19 with divisor 19 = n(n+1)/12 = 35
    const double var = 5 * s2 / 4 * (1 - 4.0 / n);
    CHECK(z_mean(res.at("x"), -5 * mean_gradient, var) < z_threshold());
  }
  SECTION("DP-λCGD noise: Var X_T = σ²(1 + (1 − λ)²(T − 1)) (WSK+26 §2)") {
    const test_linear zero(Eigen::MatrixXd::Zero(3, 2));
    o.noise = 1.3;
    o.correlation = 0.6;
    o.steps = 7;
    const auto res = run_monte_carlo(
        {{"x"}},
        [&](std::uint64_t r, std::span<double> out) {
          out[0] = run_noisy_gradient(zero, o, vector::Zero(2), {mc.seed, r, 0})[1];
        },
        mc);
    const double var = 1.3 * 1.3 * (1 + 0.4 * 0.4 * 6);
    CHECK(z_mean(res.at("x"), 0, var) < z_threshold());
    CHECK(z_variance(res.at("x"), var) < z_threshold());
  }
}

TEST_CASE("LMC on the quadratic of Remark 5.3 reaches N(0, 2/((2 − ηm)m))", "[algorithm]") {
  const double m = 2, eta = 0.2;
  const test_quadratic f(1, 1, m);
  const auto o = lmc_options(eta, 200);  // c^{2t} = 0.6^400: stationary to double precision
  monte_carlo_options mc;
  mc.replicates = 20000;
  mc.seed = 5;
  const auto res = run_monte_carlo(
      {{"x"}},
      [&](std::uint64_t r, std::span<double> out) {
        out[0] = run_noisy_gradient(f, o, vector::Zero(1), {mc.seed, r, 0})[0];
      },
      mc);
  const double var = 2 / ((2 - eta * m) * m);
  CHECK(z_mean(res.at("x"), 0, var) < z_threshold());
  CHECK(z_variance(res.at("x"), var) < z_threshold());
}

TEST_CASE("HSGD Euler-Maruyama: exact fixed point and the exact discrete OU variance",
          "[algorithm]") {
  SECTION("started at the target with no noise, the process stays there") {
    hsgd_sde sde;
    sde.eigenvalues = vector::Constant(4, 0.5);
    sde.target = vector::LinSpaced(4, -1, 1);
    const vector x = run_hsgd_euler_maruyama(sde, sde.target, 3.0, 0.01, {1, 0, 0});
    CHECK((x - sde.target).norm() == 0);
  }
  SECTION("Σ = 0, ridge δ: an OU process whose EM variance obeys v ← (1 − δh)²v + γ²σ²h/d") {
    hsgd_sde sde;
    const Eigen::Index d = 2;
    sde.eigenvalues = vector::Zero(d);
    sde.target = vector::Zero(d);
    sde.ridge = 0.7;
    sde.noise = 1.1;
    sde.gamma = [](double) { return 1.5; };
    const double h = 0.05, horizon = 1.0;  // 20 steps exactly
    double v = 0;
    for (int k = 0; k < 20; ++k)
      v = std::pow(1 - 1.5 * 0.7 * h, 2) * v + 1.5 * 1.5 * 1.1 * 1.1 * h / static_cast<double>(d);
    monte_carlo_options mc;
    mc.replicates = 20000;
    mc.seed = 8;
    const auto res = run_monte_carlo(
        {{"x"}},
        [&](std::uint64_t r, std::span<double> out) {
          out[0] = run_hsgd_euler_maruyama(sde, vector::Zero(d), horizon, h, {mc.seed, r, 0})[0];
        },
        mc);
    CHECK(z_mean(res.at("x"), 0, v) < z_threshold());
    CHECK(z_variance(res.at("x"), v) < z_threshold());
  }
}

TEST_CASE("algorithm options are checked", "[algorithm]") {
  const test_quadratic f(6, 2, 1);
  noisy_gradient_options o;
  o.batches = batch_rule::cyclic;
  o.batch_size = 4;  // does not divide 6
  CHECK_THROWS_AS(run_noisy_gradient(f, o, vector::Zero(2), {}), std::domain_error);
  o = {};
  o.correlation = 1;
  CHECK_THROWS_AS(run_noisy_gradient(f, o, vector::Zero(2), {}), std::domain_error);
  o = {};
  o.weight_decay = -0.1;
  CHECK_THROWS_WITH(run_noisy_gradient(f, o, vector::Zero(2), {}),
                    Catch::Matchers::Contains("weight_decay"));
  o = {};
  o.batches = batch_rule::one_pass;
  o.steps = 7;
  CHECK_THROWS_AS(run_noisy_gradient(f, o, vector::Zero(2), {}), std::domain_error);
  o = {};
  CHECK_THROWS_AS(run_noisy_gradient(f, o, vector::Zero(3), {}), std::domain_error);
  o.order = {0, 1, 2, 3, 4, 4};
  CHECK_THROWS_AS(run_noisy_gradient(f, o, vector::Zero(2), {}), std::domain_error);
}
