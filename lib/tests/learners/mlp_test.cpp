// The multi-layer ReLU network of SWX+23 §6 (mlp.hpp): the forward pass against an
// independent dense-matrix construction, the back-propagated gradient against central finite
// differences (L = 2, 3, 4) and Euler's identity ⟨∇f(W), W⟩ = L·f(W), the He initialisation
// through exact laws (f(W0, x)/‖h_{L−1}‖ ~ N(0, 1) and E‖h_l‖² = ‖x‖²), the NTK linearisation,
// Algorithm 10 (the two normalisers, the per-layer constraint, the exact sensitivity C/(qn)),
// the synthetic teacher task, and bad input.
//
// Finite differences. Inside an activation region f is multilinear in the layers, hence affine
// in any single weight: the central difference of f is exact up to rounding, ≈ ε|f|/h ≈ 4e-11
// for h = ε^{1/3}; the logistic loss adds a truncation error h²/6·|ℓ‴|·|∂f|³ ≲ 1e-10. A stencil
// that straddles a kink (a pre-activation within ~h of 0) would be an O(1) error; at the fixed
// seeds below none does (the probability is ~1e-5 per unit and coordinate). kFd = 1e-7
// (mollified) leaves a factor ≥ 1000, while a wrong √m, a wrong mask or a transposed block is an
// O(0.1–1) error.
//
// Monte Carlo tolerances are certified at failure probability ≤ 1e-6 each: the DKW inequality
// (Massart 1990) P(sup|F_n − F| > t) ≤ 2e^{−2nt²}, and median-of-means with a known variance
// (Chebyshev per group, Hoeffding over groups).
#include "dpkit/learners/mlp.hpp"

#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <vector>

#include "dpkit/core/random.hpp"
#include "dpkit/core/tolerance.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/model.hpp"
#include "dpkit/sim/statistics.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using dpkit::random_stream;
using dpkit::learners::alg10_normaliser;
using dpkit::learners::alg10_options;
using dpkit::sim::dataset;
using dpkit::learners::mlp_architecture;
using dpkit::learners::mlp_constraint;
using dpkit::learners::mlp_model;
using dpkit::learners::mlp_network;
using dpkit::learners::mlp_ntk_model;
using dpkit::sim::vector;

namespace {

constexpr double kFd = 1e-7;
using dpkit::test::kFdStep;

// Unit-norm inputs and random ±1 labels.
std::shared_ptr<const dataset> sphere_data(std::size_t n, std::size_t d, std::uint64_t seed) {
  random_stream s(seed, 0, 0);
  dataset data;
  data.features.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(d));
  data.labels.resize(static_cast<Eigen::Index>(n));
  for (Eigen::Index i = 0; i < data.features.rows(); ++i) {
    vector x(static_cast<Eigen::Index>(d));
    for (auto& v : x) v = s.normal();
    data.features.row(i) = x.transpose() / x.norm();
    data.labels(i) = s.uniform() < 0.5 ? 1.0 : -1.0;
  }
  return std::make_shared<const dataset>(std::move(data));
}

// An independent forward pass: the layers as column-major Eigen matrices filled entry by entry
// from the documented layout (row-major blocks W_1, …, W_L).
double dense_forward(const mlp_architecture& a, const vector& w, const vector& x) {
  std::size_t offset = 0;
  vector h = x;
  for (std::size_t l = 1; l <= a.depth; ++l) {
    const std::size_t rows = l == a.depth ? 1 : a.width,
                      cols = l == 1 ? a.input_dimension : a.width;
    Eigen::MatrixXd W(static_cast<Eigen::Index>(rows), static_cast<Eigen::Index>(cols));
    for (std::size_t j = 0; j < rows; ++j)
      for (std::size_t k = 0; k < cols; ++k)
        W(static_cast<Eigen::Index>(j), static_cast<Eigen::Index>(k)) =
            w(static_cast<Eigen::Index>(offset + j * cols + k));
    offset += rows * cols;
    const vector pre = W * h;
    h = l == a.depth ? pre : vector(pre.cwiseMax(0.0));
  }
  REQUIRE(offset == a.dimension());
  return std::sqrt(static_cast<double>(a.width)) * h(0);
}

double mollified(double computed, double expected) {
  return dpkit::test::mollified_error(computed, expected);
}

}  // namespace

TEST_CASE("mlp: layout, parameter count and the forward pass against dense matrices", "[mlp]") {
  for (std::size_t L : {2u, 3u, 4u}) {
    const mlp_architecture a{5, 7, L};
    CAPTURE(L);
    // p = md + (L − 2)m² + m (SWX+23 Alg 10).
    CHECK(a.dimension() == 35 + (L - 2) * 49 + 7);
    CHECK(a.layer_offset(1) == 0);
    CHECK(a.layer_offset(2) == 35);
    CHECK(a.layer_offset(L) + a.layer_size(L) == a.dimension());
    CHECK(a.rows(L) == 1);
    CHECK(a.columns(1) == 5);
    const mlp_network net(a);
    random_stream s(3, L, 1);
    const vector w = dpkit::learners::mlp_initial_weights(a, s);
    for (int t = 0; t < 5; ++t) {
      vector x(5);
      for (auto& v : x) v = s.normal();
      const double expected = dense_forward(a, w, x);
      CHECK(mollified(net.output(w, x), expected) <= dpkit::tol::kTol2);
    }
  }
}

TEST_CASE("mlp: back-propagation matches central differences for L = 2, 3, 4", "[mlp]") {
  for (std::size_t L : {2u, 3u, 4u}) {
    CAPTURE(L);
    const mlp_architecture a{3, 6, L};
    auto data = sphere_data(4, 3, 11 + L);
    const mlp_model f(data, a);
    random_stream s(5, L, 1);
    const vector w = dpkit::learners::mlp_initial_weights(a, s);
    const auto p = static_cast<Eigen::Index>(a.dimension());
    vector g(p), gf(p);
    for (std::size_t i = 0; i < f.examples(); ++i) {
      f.gradient(i, w, g);
      const vector x = data->features.row(static_cast<Eigen::Index>(i)).transpose();
      f.network().output_gradient(w, x, gf);
      double worst_loss = 0, worst_f = 0;
      for (Eigen::Index k = 0; k < p; ++k) {
        const double h = kFdStep * std::max(1.0, std::abs(w(k)));
        vector wp = w, wm = w;
        wp(k) += h;
        wm(k) -= h;
        const double dl = (f.loss(i, wp) - f.loss(i, wm)) / (2 * h);
        const double df = (f.network().output(wp, x) - f.network().output(wm, x)) / (2 * h);
        worst_loss = std::max(worst_loss, mollified(g(k), dl));
        worst_f = std::max(worst_f, mollified(gf(k), df));
      }
      CHECK(worst_loss <= kFd);
      CHECK(worst_f <= kFd);
      // Euler's identity for a function positively homogeneous of degree 1 in each layer:
      // ⟨∇_{W_l} f, W_l⟩ = f for every l, so ⟨∇f, W⟩ = L f.
      const double fx = f.network().output(w, x);
      for (std::size_t l = 1; l <= L; ++l) {
        const auto o = static_cast<Eigen::Index>(a.layer_offset(l));
        const auto b = static_cast<Eigen::Index>(a.layer_size(l));
        CHECK(mollified(gf.segment(o, b).dot(w.segment(o, b)), fx) <= dpkit::tol::kTol3);
      }
      // The loss gradient is ℓ′(y f)·y·∇f (logistic, S = 1: |ℓ′| < 1).
      const double y = data->labels(static_cast<Eigen::Index>(i));
      const double scale = -y / (1 + std::exp(y * fx));
      CHECK((g - scale * gf).norm() <= dpkit::tol::kTol3 * std::max(1.0, gf.norm()));
    }
  }
}

TEST_CASE("mlp: He initialisation gives f(W0, x)/||h_{L-1}|| ~ N(0, 1) exactly", "[mlp]") {
  // W_L ~ N(0, I/m) independent of h_{L−1}, so f = √m W_L h_{L−1} ~ N(0, ‖h_{L−1}‖²) given
  // h_{L−1}: the ratio is exactly standard normal. DKW at failure probability 1e-6.
  const mlp_architecture a{5, 16, 3};
  const mlp_network net(a);
  vector x(5);
  x << 0.6, -0.2, 0.1, 0.7, -0.3;
  x /= x.norm();
  const std::size_t N = 4000;
  std::vector<double> ratio(N);
  vector norms(3);
  for (std::size_t r = 0; r < N; ++r) {
    random_stream s(17, r, 1);
    const vector w = dpkit::learners::mlp_initial_weights(a, s);
    net.hidden_norms(w, x, norms);
    ratio[r] = net.output(w, x) / norms(2);
  }
  const boost::math::normal_distribution<double> z;
  const double D =
      dpkit::sim::ks_statistic(ratio, [&](double v) { return boost::math::cdf(z, v); });
  const double t = std::sqrt(std::log(2 / 1e-6) / (2 * static_cast<double>(N)));  // ≈ 0.043
  CHECK(D <= t);
  // A last layer with variance 2/m (the W_l value) would give N(0, 2): sup|Φ(v) − Φ(v/√2)|
  // ≈ 0.083 > t, so the test can tell them apart.
}

TEST_CASE("mlp: He initialisation keeps E||h_l||^2 = ||x||^2 (Lemma 20, claim 34)", "[mlp]") {
  // Given h_{l−1}, ‖h_l‖² = Σ_j σ(g_j)², g_j ~ N(0, 2‖h_{l−1}‖²/m) i.i.d.: mean ‖h_{l−1}‖²,
  // variance 5‖h_{l−1}‖⁴/m (E σ(g)² = s²/2, E σ(g)⁴ = 3s⁴/2). Hence E‖h_l‖² = ‖x‖² and
  // Var ‖h_l‖² = ‖x‖⁴((1 + 5/m)^l − 1) exactly. Median of k = 120 group means of 200: each
  // group mean is within t = 2√(Var/200) w.p. ≥ 3/4 (Chebyshev), and the median fails only if
  // ≥ 60 groups fail: ≤ e^{−k/8} = 3e-7 (Hoeffding) per layer.
  const mlp_architecture a{4, 32, 3};
  const mlp_network net(a);
  vector x(4);
  x << 0.5, 0.5, -0.5, 0.5;  // ‖x‖ = 1
  const std::size_t groups = 120, per_group = 200;
  const double m = 32;
  std::vector<std::vector<double>> means(3, std::vector<double>(groups, 0.0));
  vector norms(3);
  for (std::size_t g = 0; g < groups; ++g)
    for (std::size_t r = 0; r < per_group; ++r) {
      random_stream s(23, g * per_group + r, 1);
      const vector w = dpkit::learners::mlp_initial_weights(a, s);
      net.hidden_norms(w, x, norms);
      for (std::size_t l = 1; l < 3; ++l)
        means[l][g] += norms(static_cast<Eigen::Index>(l)) * norms(static_cast<Eigen::Index>(l)) /
                       static_cast<double>(per_group);
    }
  for (std::size_t l = 1; l < 3; ++l) {
    std::vector<double> v = means[l];
    std::nth_element(v.begin(), v.begin() + groups / 2, v.end());
    const double median = v[groups / 2];
    const double var = std::pow(1 + 5 / m, static_cast<double>(l)) - 1;
    const double t = 2 * std::sqrt(var / static_cast<double>(per_group));
    CAPTURE(l, median, t);
    CHECK(std::abs(median - 1) <= t);  // t ≈ 0.058 (l = 1), 0.082 (l = 2); 1/m variance → 1/2^l
  }
}

TEST_CASE("mlp: the NTK linearisation is the first-order expansion at W0", "[mlp]") {
  const mlp_architecture a{3, 8, 3};
  const mlp_network net(a);
  random_stream s(29, 0, 1);
  const vector w0 = dpkit::learners::mlp_initial_weights(a, s);
  vector x(3);
  x << 0.2, -0.9, 0.4;
  x /= x.norm();
  // f_ntk(W0) = f(W0).
  CHECK(net.ntk_output(w0, w0, x) == net.output(w0, x));
  // f_ntk is affine with gradient ∇f(W0): exact along any direction.
  vector g0(static_cast<Eigen::Index>(a.dimension())), dir(g0.size());
  net.output_gradient(w0, x, g0);
  for (auto& v : dir) v = s.normal();
  const double t = 0.3;
  CHECK(mollified(net.ntk_output(w0, w0 + t * dir, x), net.output(w0, x) + t * g0.dot(dir)) <=
        dpkit::tol::kTol3);
  // Inside the activation region of W0 the gap f − f_ntk is O(t²): halving t divides it by ≈ 4
  // (f is a polynomial of degree L in t there; f_ntk its first-order Taylor polynomial).
  auto gap = [&](double tt) {
    return std::abs(net.output(w0 + tt * dir, x) - net.ntk_output(w0, w0 + tt * dir, x));
  };
  const double ratio = gap(5e-4) / gap(1e-3);
  CHECK(ratio > 0.2);
  CHECK(ratio < 0.3);

  // The model on a dataset: loss and gradient equal the network's at W0.
  auto data = sphere_data(6, 3, 31);
  const mlp_model f(data, a);
  const mlp_ntk_model lin(data, a, w0);
  vector gl(g0.size()), gn(g0.size());
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(mollified(lin.loss(i, w0), f.loss(i, w0)) <= dpkit::tol::kTol3);
    lin.gradient(i, w0, gl);
    f.gradient(i, w0, gn);
    CHECK((gl - gn).norm() <= dpkit::tol::kTol3 * std::max(1.0, gn.norm()));
    CHECK(mollified(lin.output(i, w0 + t * dir),
                    net.ntk_output(w0, w0 + t * dir,
                                   data->features.row(static_cast<Eigen::Index>(i)).transpose())) <=
          dpkit::tol::kTol3);
  }
}

TEST_CASE("mlp: per-layer projections for Algorithm 10", "[mlp]") {
  const mlp_architecture a{2, 3, 3};  // blocks of 6, 9, 3
  random_stream s(37, 0, 1);
  const vector w0 = dpkit::learners::mlp_initial_weights(a, s);
  vector x(18);
  for (auto& v : x) v = 3 * s.normal();
  const double R = 0.9;
  // around_init: ‖W_l − W0_l‖ ≤ R/√m, each layer pulled radially towards W0_l.
  vector y = x;
  dpkit::learners::mlp_projection(a, mlp_constraint::around_init, R, w0).apply(y);
  for (std::size_t l = 1; l <= 3; ++l) {
    const auto o = static_cast<Eigen::Index>(a.layer_offset(l));
    const auto b = static_cast<Eigen::Index>(a.layer_size(l));
    const vector d = x.segment(o, b) - w0.segment(o, b);
    const vector expected = w0.segment(o, b) + d * std::min(1.0, R / std::sqrt(3.0) / d.norm());
    CHECK((y.segment(o, b) - expected).norm() <= dpkit::tol::kTol2);
  }
  // printed: ‖W_l‖ ≤ R around 0.
  vector z = x;
  dpkit::learners::mlp_projection(a, mlp_constraint::printed, R, w0).apply(z);
  for (std::size_t l = 1; l <= 3; ++l)
    CHECK(z.segment(static_cast<Eigen::Index>(a.layer_offset(l)),
                    static_cast<Eigen::Index>(a.layer_size(l)))
              .norm() <= R * (1 + dpkit::tol::kTol1));
  vector u = x;
  dpkit::learners::mlp_projection(a, mlp_constraint::none, R, w0).apply(u);
  CHECK(u == x);
  CHECK_THROWS_AS(dpkit::learners::mlp_projection(a, mlp_constraint::printed, -1, w0),
                  std::domain_error);
  CHECK_THROWS_AS(dpkit::learners::mlp_projection(a, mlp_constraint::printed, 1, vector::Zero(3)),
                  std::domain_error);
}

TEST_CASE("mlp: Algorithm 10 runs, averages and stays in the per-layer balls", "[mlp]") {
  const mlp_architecture a{4, 8, 3};
  random_stream ds(41, 0, 0);
  const auto teacher = dpkit::learners::random_sphere_teacher(4, 4, ds);
  const dataset all = dpkit::learners::sphere_teacher_data(140, teacher, 0.0, ds);
  auto [train, test] = dpkit::learners::train_test_split(all, 100);
  auto data = std::make_shared<const dataset>(train);
  const mlp_model f(data, a);
  random_stream is(41, 0, 1);
  const vector w0 = dpkit::learners::mlp_initial_weights(a, is);
  alg10_options o;
  o.sampling_rate = 0.2;
  o.steps = 40;
  o.learning_rate = 0.05;
  o.clip = 1.0;
  o.noise = dpkit::learners::alg10_noise_std(1.0, o.clip, o.sampling_rate, 100);
  o.radius = 2.0;
  const dpkit::sim::random_key key{41, 0, 10};

  SECTION("the expected-batch run is run_noisy_gradient with the averaged iterates") {
    const auto r = dpkit::learners::run_alg10(f, o, w0, key, &test);
    vector sum = vector::Zero(w0.size());
    const vector last =
        dpkit::sim::run_noisy_gradient(f, dpkit::learners::alg10_noisy_gradient_options(f, o, w0), w0,
                                       key, [&](long t, const vector& w) {
                                         if (t > 0) sum += w;
                                       });
    CHECK(r.last == last);
    CHECK((r.average - sum / 40.0).norm() <= dpkit::tol::kTol2 * sum.norm());
    // Every iterate is in B(W0_l, R/√m) per layer: max_l ‖W_l − W0_l‖·√m ≤ R.
    CHECK(r.max_layer_distance <= o.radius * (1 + dpkit::tol::kTol2));
    CHECK(r.max_layer_distance > 0);
    CHECK(r.min_batch <= r.mean_batch);
    CHECK(r.train_average.error >= 0);
    CHECK(r.test_average.loss > 0);
    // The realised batch sizes: mean_batch/100 is the mean of 40·100 independent
    // Bernoulli(0.2) inclusions, within ±√(log(2e6)/8000) = ±0.0426 of 0.2 w.p. ≥ 1 − 1e-6
    // (Hoeffding): mean_batch ∈ 20 ± 4.26.
    CHECK(std::abs(r.mean_batch - 20) <= 100 * std::sqrt(std::log(2e6) / 8000));
  }

  SECTION("with q = 1 the two normalisers coincide (|B_t| = n = qn)") {
    o.sampling_rate = 1;
    o.noise = 0.01;
    const auto e = dpkit::learners::run_alg10(f, o, w0, key);
    o.normaliser = alg10_normaliser::realised_batch;
    const auto r = dpkit::learners::run_alg10(f, o, w0, key);
    CHECK((e.last - r.last).norm() <= dpkit::tol::kTol2 * e.last.norm());
    CHECK(e.min_batch == 100);
  }

  SECTION("the realised-batch step is the mean over the batch drawn, an empty batch no step") {
    // One step built by hand: the batch replayed from its stream (stream_base + 2), each
    // gradient clipped to C, their mean over |B|, one step of size eta, no noise or projection.
    o.steps = 1;
    o.noise = 0;
    o.constraint = mlp_constraint::none;
    o.normaliser = alg10_normaliser::realised_batch;
    const auto r = dpkit::learners::run_alg10(f, o, w0, key);
    dpkit::random_stream replay(key.seed, key.replicate, key.stream_base + 2);
    const std::vector<std::size_t> batch = replay.poisson_sample(f.examples(), o.sampling_rate);
    REQUIRE(batch.size() > 1);
    vector g = vector::Zero(w0.size()), gi(w0.size());
    for (std::size_t i : batch) {
      f.gradient(i, w0, gi);
      if (gi.norm() > o.clip) gi *= o.clip / gi.norm();
      g += gi;
    }
    const vector expected = w0 - o.learning_rate * (g / static_cast<double>(batch.size()));
    CHECK((r.last - expected).norm() <= 1e-14 * expected.norm());
    o.sampling_rate = 1e-300;  // every batch empty: the mean of nothing is not taken
    CHECK(dpkit::learners::run_alg10(f, o, w0, key).last == w0);
  }

  SECTION("the realised-batch run sees the same batches and noise draws") {
    o.noise = 0;
    o.normaliser = alg10_normaliser::realised_batch;
    const auto r = dpkit::learners::run_alg10(f, o, w0, key);
    CHECK(r.max_layer_distance <= o.radius * (1 + dpkit::tol::kTol2));
    o.normaliser = alg10_normaliser::expected_batch;
    const auto e = dpkit::learners::run_alg10(f, o, w0, key);
    CHECK(r.min_batch == e.min_batch);
    CHECK(r.mean_batch == e.mean_batch);
  }

  SECTION("sensitivity: removing one example moves one step by at most eta C/(qn)") {
    // Expected-batch normaliser: (1/(qn)) Σ_{B_t} clip_C(g_i) changes by ≤ C/(qn) when example i*
    // is removed (zeroed), for every batch — the sensitivity behind z = σqn/C.
    o.steps = 1;
    o.noise = 0;
    o.constraint = mlp_constraint::none;
    o.clip = 0.05;  // every per-example gradient is clipped (‖∇f_i‖ ≈ ‖∇f‖/2 ≫ 0.05)
    const auto base = std::make_shared<const mlp_model>(data, a);
    double worst = 0;
    for (std::size_t rep = 0; rep < 60; ++rep) {
      const dpkit::sim::random_key k{43, rep, 0};
      const std::size_t removed = rep % 100;
      const dpkit::sim::zeroed_example neighbour(base, removed);
      const auto opts = dpkit::learners::alg10_noisy_gradient_options(f, o, w0);
      const vector x1 = dpkit::sim::run_noisy_gradient(f, opts, w0, k);
      const vector x1p = dpkit::sim::run_noisy_gradient(neighbour, opts, w0, k);
      worst = std::max(worst, (x1 - x1p).norm());
    }
    const double limit = o.learning_rate * o.clip / (o.sampling_rate * 100);
    // x1 − x1′ is a difference of O(1) iterates: rounding ~ε·‖w0‖ ≈ 1e-15 absolute.
    CHECK(worst <= limit + 1e-13);
    // Attained whenever the removed example is in the batch (60 draws at q = 0.2: it is missed
    // every time with probability 0.8^60 = 1.5e-6).
    CHECK(worst >= 0.999 * limit);
  }
}

TEST_CASE("mlp: the noise map z <-> sigma and the teacher task", "[mlp]") {
  // σ = zC/(qn) (sensitivity C/(qn) of the expected-batch mean).
  CHECK_THAT(dpkit::learners::alg10_noise_std(1.5, 4.0, 0.1, 500), WithinRel(1.5 * 4.0 / 50.0, 1e-15));
  CHECK_THAT(dpkit::learners::alg10_noise_multiplier(dpkit::learners::alg10_noise_std(0.7, 3, 0.05, 1000), 3,
                                                0.05, 1000),
             WithinRel(0.7, 1e-15));
  // b = (Σ a_k) E σ(x_1): x uniform on S^1 gives E max(0, cos θ) = 1/π; on S^2, x_1 is uniform
  // on [−1, 1] (Archimedes) and E max(0, x_1) = 1/4. One hidden unit: Σ a_k = 1.
  random_stream s(47, 0, 0);
  CHECK_THAT(dpkit::learners::random_sphere_teacher(2, 1, s).offset,
             WithinRel(1 / std::numbers::pi, 1e-14));
  CHECK_THAT(dpkit::learners::random_sphere_teacher(3, 1, s).offset, WithinRel(0.25, 1e-14));
  CHECK(dpkit::learners::random_sphere_teacher(3, 4, s).offset == 0);  // alternating signs, K even
  const auto teacher = dpkit::learners::random_sphere_teacher(6, 5, s);
  CHECK_THAT(teacher.directions.row(2).norm(), WithinRel(1.0, 1e-15));
  // Label noise: the flipped fraction is Binomial(n, η)/n; Clopper–Pearson at 1 − 1e-6.
  const std::size_t n = 4000;
  const dataset d = dpkit::learners::sphere_teacher_data(n, teacher, 0.2, s);
  std::size_t flipped = 0;
  for (Eigen::Index i = 0; i < d.features.rows(); ++i) {
    CHECK_THAT(d.features.row(i).norm(), WithinRel(1.0, 1e-14));
    const double clean = teacher.value(d.features.row(i).transpose()) >= 0 ? 1 : -1;
    if (d.labels(i) != clean) ++flipped;
  }
  const auto ci = dpkit::sim::clopper_pearson(flipped, n, 1 - 1e-6);
  CHECK(ci.lower <= 0.2);
  CHECK(ci.upper >= 0.2);
  const auto [train, test] = dpkit::learners::train_test_split(d, 3000);
  CHECK(train.size() == 3000);
  CHECK(test.size() == 1000);
  CHECK(test.features.row(0) == d.features.row(3000));
  const auto lin = dpkit::learners::random_sphere_teacher(3, 0, s);
  CHECK(lin.linear);
  vector x(3);
  x << 0.3, 0.4, -0.2;
  CHECK_THAT(lin.value(x), WithinRel(lin.directions.row(0).dot(x), 1e-15));
}

TEST_CASE("mlp: bad input is rejected", "[mlp]") {
  CHECK_THROWS_AS(mlp_network(mlp_architecture{3, 4, 1}), std::domain_error);
  CHECK_THROWS_WITH(mlp_network(mlp_architecture{0, 4, 3}), Contains("must be >= 1"));
  const mlp_architecture a{3, 4, 3};
  const mlp_network net(a);
  CHECK_THROWS_AS(net.output(vector::Zero(5), vector::Zero(3)), std::domain_error);
  vector x = vector::Zero(3);
  x(1) = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_AS(net.output(vector::Zero(static_cast<Eigen::Index>(a.dimension())), x),
                  std::domain_error);
  auto data = sphere_data(5, 3, 53);
  dataset bad = *data;
  bad.labels(2) = 0.5;
  CHECK_THROWS_WITH(mlp_model(std::make_shared<const dataset>(bad), a), Contains("-1 or +1"));
  CHECK_THROWS_AS(mlp_model(data, mlp_architecture{4, 4, 3}), std::domain_error);
  CHECK_THROWS_AS(mlp_model(nullptr, a), std::domain_error);
  const mlp_model f(data, a);
  const vector w0 = vector::Zero(static_cast<Eigen::Index>(a.dimension()));
  alg10_options o;
  o.sampling_rate = 0;
  CHECK_THROWS_AS(dpkit::learners::run_alg10(f, o, w0, {}), std::domain_error);
  o.sampling_rate = 0.5;
  o.clip = 0;
  CHECK_THROWS_AS(dpkit::learners::run_alg10(f, o, w0, {}), std::domain_error);
  o.clip = 1;
  CHECK_THROWS_AS(dpkit::learners::run_alg10(f, o, vector::Zero(3), {}), std::domain_error);
  CHECK_THROWS_AS(dpkit::learners::alg10_noise_std(-1, 1, 0.1, 10), std::domain_error);
  CHECK_THROWS_AS(dpkit::learners::alg10_noise_std(1, 1, 1.5, 10), std::domain_error);
  random_stream s(1, 0, 0);
  const auto teacher = dpkit::learners::random_sphere_teacher(3, 2, s);
  CHECK_THROWS_AS(dpkit::learners::sphere_teacher_data(10, teacher, 0.7, s), std::domain_error);
  CHECK_THROWS_AS(dpkit::learners::sphere_teacher_data(0, teacher, 0.1, s), std::domain_error);
  CHECK_THROWS_AS(dpkit::learners::train_test_split(*data, 5), std::domain_error);
  CHECK_THROWS_AS(dpkit::learners::random_sphere_teacher(0, 2, s), std::domain_error);
}
