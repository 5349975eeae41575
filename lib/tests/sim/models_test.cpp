// Concrete models: hand-computed / mpmath spot values, gradients and Hessian-vector products
// against central finite differences, closed forms (normal equations, log 2, log K, the K = 2
// softmax ≡ logistic identity), extreme margins, BSA24's worst-case constructions, and bad
// input.
//
// Finite-difference tolerance. Central differences with step h_j = h·max(1, |x_j|),
// h = ε^{1/3} ≈ 6.1e-6, have truncation error ≤ h²/6·max|f'''| ≈ 6e-12·max|f'''| and rounding
// error ≈ ε|f|/h ≈ 4e-11·|f|. At the test points (features O(1), margins up to ~30) both are
// O(1e-9): the measured worst case is 8e-10 for gradients and 2.3e-9 for softmax
// Hessian-vector products. kFdTolerance = 1e-7 (mollified: |Δ|/max(1, |g|)) leaves a factor
// ≥ 40, while a wrong factor, sign or missing ridge term is an O(1e-2 .. 1) error.
// Hessian-vector products are checked the same way, as central differences of the gradient.
#include "dpkit/sim/models.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <memory>
#include <stdexcept>
#include <utility>

#include "dpkit/core/random.hpp"
#include "dpkit/core/tolerance.hpp"
#include "dpkit/sim/data.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using dpkit::random_stream;
using dpkit::sim::dataset;
using dpkit::sim::model;

namespace {

using dpkit::test::kNan;
constexpr double kFdTolerance = 1e-7;
using dpkit::test::kFdStep;

Eigen::VectorXd gradient_of(const model& m, std::size_t i, const Eigen::VectorXd& x) {
  Eigen::VectorXd g(static_cast<Eigen::Index>(m.dimension()));
  m.gradient(i, x, g);
  return g;
}

Eigen::VectorXd hessian_vector_of(const model& m,
                                  std::size_t i,
                                  const Eigen::VectorXd& x,
                                  const Eigen::VectorXd& v) {
  Eigen::VectorXd out(static_cast<Eigen::Index>(m.dimension()));
  m.hessian_vector(i, x, v, out);
  return out;
}

// max_j |g_j − fd_j| / max(1, |fd_j|) (Boost's mollified error).
double mollified_max(const Eigen::VectorXd& g, const Eigen::VectorXd& fd) {
  double worst = 0;
  for (Eigen::Index j = 0; j < g.size(); ++j)
    worst = std::fmax(worst, dpkit::test::mollified_error(g(j), fd(j)));
  return worst;
}

// Central differences of the loss, coordinate by coordinate.
Eigen::VectorXd fd_gradient(const model& m, std::size_t i, const Eigen::VectorXd& x) {
  Eigen::VectorXd fd(x.size());
  for (Eigen::Index j = 0; j < x.size(); ++j) {
    const double h = kFdStep * std::fmax(1, std::abs(x(j)));
    Eigen::VectorXd plus = x, minus = x;
    plus(j) += h;
    minus(j) -= h;
    fd(j) = (m.loss(i, plus) - m.loss(i, minus)) / (plus(j) - minus(j));
  }
  return fd;
}

// Central difference of the gradient along v.
Eigen::VectorXd fd_hessian_vector(const model& m,
                                  std::size_t i,
                                  const Eigen::VectorXd& x,
                                  const Eigen::VectorXd& v) {
  const double h = kFdStep * std::fmax(1, x.norm()) / std::fmax(1e-300, v.norm());
  return (gradient_of(m, i, x + h * v) - gradient_of(m, i, x - h * v)) / (2 * h);
}

// Gradients and Hessian-vector products of every example at a few random points.
void check_derivatives(const model& m, std::uint64_t seed, double x_scale) {
  random_stream s(seed, 0, 1);
  const auto p = static_cast<Eigen::Index>(m.dimension());
  for (int trial = 0; trial < 3; ++trial) {
    Eigen::VectorXd x(p), v(p);
    for (Eigen::Index j = 0; j < p; ++j) x(j) = x_scale * s.normal();
    for (Eigen::Index j = 0; j < p; ++j) v(j) = s.normal();
    for (std::size_t i = 0; i < m.examples(); ++i) {
      CAPTURE(m.describe(), trial, i, x.transpose());
      const Eigen::VectorXd g = gradient_of(m, i, x);
      CHECK(mollified_max(g, fd_gradient(m, i, x)) < kFdTolerance);
      if (m.has_hessian_vector()) {
        CHECK(mollified_max(hessian_vector_of(m, i, x, v), fd_hessian_vector(m, i, x, v)) <
              kFdTolerance);
      }
    }
  }
}

std::shared_ptr<const dataset> gaussian_regression_data(std::size_t n, std::size_t d) {
  random_stream data(11, 0, 0), noise(11, 0, 4);
  auto out = std::make_shared<dataset>();
  out->features = dpkit::sim::gaussian_design(
      n, Eigen::VectorXd::LinSpaced(static_cast<Eigen::Index>(d), 0.5, 2), data);
  const Eigen::VectorXd x_star = Eigen::VectorXd::LinSpaced(static_cast<Eigen::Index>(d), -1, 1);
  out->labels = dpkit::sim::linear_labels(out->features, x_star, 0.5, noise);
  return out;
}

std::shared_ptr<const dataset> one_example(Eigen::VectorXd a, double y) {
  auto out = std::make_shared<dataset>();
  out->features = a.transpose();
  out->labels = Eigen::VectorXd::Constant(1, y);
  return out;
}

}  // namespace

// ---- least squares ---------------------------------------------------------------------------

TEST_CASE("least_squares: hand-computed values", "[models]") {
  // a = (1, 2), y = 3, ridge 0.5, x = (2, −1): r = aᵀx − y = −3,
  // f = ½(9 + 0.5·5) = 5.75, ∇f = −3·(1, 2) + 0.5·(2, −1) = (−2, −6.5),
  // ∇²f·(1, 1) = (1, 2)·3 + 0.5·(1, 1) = (3.5, 6.5).
  const dpkit::sim::least_squares m(one_example(Eigen::Vector2d(1, 2), 3), 0.5);
  const Eigen::Vector2d x(2, -1);
  CHECK(m.dimension() == 2);
  CHECK(m.examples() == 1);
  CHECK(m.has_hessian_vector());
  CHECK(m.loss(0, x) == 5.75);
  CHECK(gradient_of(m, 0, x) == Eigen::Vector2d(-2, -6.5));
  CHECK(hessian_vector_of(m, 0, x, Eigen::Vector2d(1, 1)) == Eigen::Vector2d(3.5, 6.5));
  CHECK(m.describe() == "least squares (n = 1, d = 2, ridge 0.5)");
}

TEST_CASE("least_squares: derivatives against finite differences", "[models]") {
  const dpkit::sim::least_squares m(gaussian_regression_data(8, 5), 0.1);
  check_derivatives(m, 1, 1.0);
}

TEST_CASE("least_squares: the normal-equation minimiser zeroes the mean gradient", "[models]") {
  // (1/n) Σ ∇f_i(x) = (AᵀA/n + δI)x − Aᵀy/n = 0 at x̂ = (AᵀA + nδI)⁻¹Aᵀy.
  const auto data = gaussian_regression_data(200, 6);
  const double ridge = 0.05, n = 200;
  const dpkit::sim::least_squares m(data, ridge);
  const Eigen::MatrixXd& a = data->features;
  const Eigen::VectorXd x_hat = (a.transpose() * a + n * ridge * Eigen::MatrixXd::Identity(6, 6))
                                    .ldlt()
                                    .solve(a.transpose() * data->labels);
  Eigen::VectorXd mean = Eigen::VectorXd::Zero(6), g(6);
  double scale = 0;  // Σ‖∇f_i‖/n: the size of the terms that cancel
  for (std::size_t i = 0; i < m.examples(); ++i) {
    m.gradient(i, x_hat, g);
    mean += g / n;
    scale += g.norm() / n;
  }
  CAPTURE(mean.transpose(), scale);
  CHECK(mean.norm() <= 1e3 * dpkit::tol::kMachineEps * scale);
  // The override of the empirical risk agrees with the plain loop of the base class, and x̂ is
  // a minimum of it.
  const double risk = m.empirical_risk(x_hat);
  CHECK_THAT(risk, WithinRel(m.model::empirical_risk(x_hat), dpkit::tol::kTol2));
  random_stream s(2, 0, 1);
  for (int k = 0; k < 5; ++k) {
    Eigen::VectorXd step(6);
    for (Eigen::Index j = 0; j < 6; ++j) step(j) = 1e-3 * s.normal();
    CHECK(m.empirical_risk(x_hat + step) > risk);
  }
}

TEST_CASE("least_squares on a replace-one neighbour differs in one example only", "[models]") {
  const auto data = gaussian_regression_data(6, 3);
  const auto neighbour =
      std::make_shared<dataset>(dpkit::sim::replace_one(*data, 4, Eigen::Vector3d(1, -1, 2), 10));
  const dpkit::sim::least_squares m(data, 0.1), m_prime(neighbour, 0.1);
  const Eigen::Vector3d x(0.3, 0.2, -0.1);
  for (std::size_t i = 0; i < 6; ++i) {
    CAPTURE(i);
    if (i == 4)  // aᵀx − y = 0.3 − 0.2 − 0.2 − 10 = −10.1
      CHECK_THAT(m_prime.loss(i, x),
                 WithinRel(0.5 * (10.1 * 10.1 + 0.1 * 0.14), dpkit::tol::kTol1));
    else
      CHECK(m_prime.loss(i, x) == m.loss(i, x));
  }
}

// ---- logistic regression ---------------------------------------------------------------------

TEST_CASE("logistic_regression: log 2 at x = 0 and spot values", "[models]") {
  auto labelled = std::make_shared<dataset>(*gaussian_regression_data(10, 3));
  for (Eigen::Index i = 0; i < labelled->labels.size(); ++i)
    labelled->labels(i) = i % 3 == 0 ? -1 : 1;
  const dpkit::sim::logistic_regression m(labelled, 0.3);
  const Eigen::Vector3d zero = Eigen::Vector3d::Zero();
  for (std::size_t i = 0; i < m.examples(); ++i) {
    CAPTURE(i);
    CHECK_THAT(m.loss(i, zero), WithinRel(std::log(2.0), dpkit::tol::kTol0));
    // ∇f_i(0) = −σ(0)·y_i a_i = −y_i a_i/2.
    const Eigen::VectorXd expected =
        -0.5 * labelled->labels(static_cast<Eigen::Index>(i)) *
        labelled->features.row(static_cast<Eigen::Index>(i)).transpose();
    CHECK((gradient_of(m, i, zero) - expected).cwiseAbs().maxCoeff() <= dpkit::tol::kTol1);
  }
  CHECK(m.describe() == "logistic regression (n = 10, d = 3, ridge 0.3)");

  // Margins m = y aᵀx with a = (1), y = ±1, ridge 0: log(1 + e^{−m}) from mpmath at 40 digits.
  struct spot {
    double y, x, loss;
  };
  const dpkit::sim::logistic_regression plus(one_example(Eigen::VectorXd::Ones(1), 1), 0);
  const dpkit::sim::logistic_regression minus(one_example(Eigen::VectorXd::Ones(1), -1), 0);
  for (const spot& c : {spot{1, 1, 0.31326168751822283405},      // m = 1
                        spot{-1, 1, 1.3132616875182228340},      // m = −1
                        spot{1, 40, 4.2483542552915889863e-18},  // naive log(1 + e^{−40}) = 0
                        spot{-1, 40, 40.000000000000000004}}) {  // m = −40
    CAPTURE(c.y, c.x);
    const auto& mm = c.y > 0 ? plus : minus;
    CHECK_THAT(mm.loss(0, Eigen::VectorXd::Constant(1, c.x)), WithinRel(c.loss, dpkit::tol::kTol1));
  }
}

TEST_CASE("logistic_regression: finite and correct at margins +-800", "[models]") {
  // a = (2, −1), y = +1, x = ±(400, 0): margins m = ±800.
  const double ridge = 0.01;
  const dpkit::sim::logistic_regression m(one_example(Eigen::Vector2d(2, -1), 1), ridge);
  const Eigen::Vector2d x_plus(400, 0), x_minus(-400, 0);
  const double penalty = 0.5 * ridge * 400 * 400;
  // m = 800: log(1 + e^{−800}) ≈ 3.7e-348 underflows to 0; gradient = ridge·x.
  CHECK_THAT(m.loss(0, x_plus), WithinRel(penalty, dpkit::tol::kTol0));
  const Eigen::VectorXd g_plus = gradient_of(m, 0, x_plus);
  CHECK(g_plus.allFinite());
  CHECK((g_plus - ridge * x_plus).cwiseAbs().maxCoeff() <= dpkit::tol::kTol1);
  // m = −800: log(1 + e^{800}) = 800 (+ e^{−800}); gradient = −y a + ridge·x.
  CHECK_THAT(m.loss(0, x_minus), WithinRel(800 + penalty, dpkit::tol::kTol0));
  const Eigen::VectorXd g_minus = gradient_of(m, 0, x_minus);
  CHECK((g_minus - (-Eigen::Vector2d(2, -1) + ridge * x_minus)).cwiseAbs().maxCoeff() <=
        dpkit::tol::kTol1);
  // Curvature σ(m)σ(−m) ≈ e^{−800} = 0: only the ridge remains.
  for (const Eigen::Vector2d& x : {x_plus, x_minus}) {
    const Eigen::VectorXd hv = hessian_vector_of(m, 0, x, Eigen::Vector2d(1, 3));
    CHECK(hv.allFinite());
    CHECK((hv - ridge * Eigen::Vector2d(1, 3)).cwiseAbs().maxCoeff() <= dpkit::tol::kTol1);
  }
}

TEST_CASE("logistic_regression: derivatives against finite differences", "[models]") {
  auto data = std::make_shared<dataset>(*gaussian_regression_data(6, 4));
  random_stream s(3, 0, 4);
  for (Eigen::Index i = 0; i < data->labels.size(); ++i)
    data->labels(i) = s.bernoulli(0.5) ? 1 : -1;
  check_derivatives(dpkit::sim::logistic_regression(data, 0.2), 2, 1.0);
  // Large margins (|m| up to ~30), where the stable branches matter.
  check_derivatives(dpkit::sim::logistic_regression(data, 0.0), 3, 8.0);
}

// ---- softmax regression ----------------------------------------------------------------------

TEST_CASE("softmax_regression: spot values and log K at W = 0 and column-major layout",
          "[models]") {
  // a = (1, −2); W columns w0 = (0.5, 0.25), w1 = (−1, 0.5), w2 = (2, 1): logits (0, −2, 0),
  // log Σ e^{z} = log(2 + e^{−2}) = 0.75862367567951347131 (mpmath, 40 digits).
  const double lse = 0.75862367567951347131;
  Eigen::VectorXd x(6);
  x << 0.5, 0.25, -1, 0.5, 2, 1;  // vec(W), column-major
  for (int label : {0, 1, 2}) {
    const dpkit::sim::softmax_regression m(one_example(Eigen::Vector2d(1, -2), label), 3, 0);
    CAPTURE(label);
    CHECK(m.dimension() == 6);
    CHECK_THAT(m.loss(0, x), WithinRel(label == 1 ? lse + 2 : lse, dpkit::tol::kTol1));
    CHECK_THAT(m.loss(0, Eigen::VectorXd::Zero(6)), WithinRel(std::log(3.0), dpkit::tol::kTol0));
  }
  // The ridge adds (δ/2)‖x‖² = 0.25·6.5625.
  const dpkit::sim::softmax_regression ridged(one_example(Eigen::Vector2d(1, -2), 0), 3, 0.5);
  CHECK_THAT(ridged.loss(0, x), WithinRel(lse + 0.25 * 6.5625, dpkit::tol::kTol1));
  CHECK(ridged.describe() == "softmax regression (n = 1, d = 2, K = 3, ridge 0.5)");
  // Gradient by hand: π = (1, e^{−2}, 1)/(2 + e^{−2}), label 0: ∇_{w_k} = (π_k − [k = 0])·a.
  const dpkit::sim::softmax_regression m0(one_example(Eigen::Vector2d(1, -2), 0), 3, 0);
  const double z = 2 + std::exp(-2.0);
  const Eigen::Vector3d pi(1 / z, std::exp(-2.0) / z, 1 / z);
  Eigen::VectorXd expected(6);
  expected << (pi(0) - 1) * 1, (pi(0) - 1) * -2, pi(1) * 1, pi(1) * -2, pi(2) * 1, pi(2) * -2;
  CHECK((gradient_of(m0, 0, x) - expected).cwiseAbs().maxCoeff() <= dpkit::tol::kTol1);
}

TEST_CASE("error_rate counts misclassified examples, ties included", "[models]") {
  // Logistic: a = 1, −1, 2, 0 with y = 1, 1, −1, 1 at x = 1: margins 1, −1, −2, 0 → 3 errors
  // (a zero margin counts as one).
  auto four = std::make_shared<dataset>();
  four->features = Eigen::MatrixXd(4, 1);
  four->features << 1, -1, 2, 0;
  four->labels = Eigen::Vector4d(1, 1, -1, 1);
  const dpkit::sim::logistic_regression lr(four, 0);
  CHECK(lr.error_rate(Eigen::VectorXd::Ones(1)) == 0.75);
  CHECK(lr.error_rate(-Eigen::VectorXd::Ones(1)) == 0.5);  // margins −1, 1, 2, 0
  CHECK_THROWS_AS(lr.error_rate(Eigen::VectorXd::Ones(2)), std::domain_error);
  // Softmax: logits (0, −2, 0) for a = (1, −2) (the spot values above): a tie between classes 0
  // and 2 predicts class 0.
  Eigen::VectorXd x(6);
  x << 0.5, 0.25, -1, 0.5, 2, 1;
  for (int label : {0, 1, 2}) {
    const dpkit::sim::softmax_regression m(one_example(Eigen::Vector2d(1, -2), label), 3, 0);
    CAPTURE(label);
    CHECK(m.error_rate(x) == (label == 0 ? 0.0 : 1.0));
  }
  const dpkit::sim::softmax_regression m(one_example(Eigen::Vector2d(1, -2), 2), 3, 0);
  Eigen::VectorXd y = x;
  y(5) = 1.25;  // w2 = (2, 1.25): logit 2 − 2.5 = −0.5 below class 0's 0: class 0 predicted
  CHECK(m.error_rate(y) == 1.0);
  y(4) = 3;  // w2 = (3, 1.25): logit 3 − 2.5 = 0.5 above 0 and −2: class 2 predicted
  CHECK(m.error_rate(y) == 0.0);
  CHECK_THROWS_AS(m.error_rate(Eigen::VectorXd::Ones(2)), std::domain_error);
}

TEST_CASE("softmax_regression with K = 2 is logistic regression in w1 - w0", "[models]") {
  // log Σ_k e^{z_k} − z_y with z = (a·w0, a·w1) equals log(1 + e^{−ỹ aᵀ(w1 − w0)}),
  // ỹ = +1 for class 1 and −1 for class 0; ∇_{w1} = ∇_x logistic and ∇_{w0} = −∇_x logistic.
  const auto base = gaussian_regression_data(8, 3);
  auto classes = std::make_shared<dataset>(*base), signs = std::make_shared<dataset>(*base);
  for (Eigen::Index i = 0; i < base->labels.size(); ++i) {
    classes->labels(i) = i % 3 == 1 ? 0 : 1;
    signs->labels(i) = i % 3 == 1 ? -1 : 1;
  }
  const dpkit::sim::softmax_regression soft(classes, 2, 0);
  const dpkit::sim::logistic_regression logit(signs, 0);
  Eigen::VectorXd x(6);
  x << 0.4, -0.2, 1.1, -0.7, 0.3, 0.9;
  const Eigen::VectorXd diff = x.tail(3) - x.head(3);
  for (std::size_t i = 0; i < 8; ++i) {
    CAPTURE(i);
    CHECK_THAT(soft.loss(i, x), WithinRel(logit.loss(i, diff), dpkit::tol::kTol2));
    const Eigen::VectorXd gs = gradient_of(soft, i, x), gl = gradient_of(logit, i, diff);
    CHECK((gs.tail(3) - gl).cwiseAbs().maxCoeff() <= dpkit::tol::kTol1);
    CHECK((gs.head(3) + gl).cwiseAbs().maxCoeff() <= dpkit::tol::kTol1);
  }
}

TEST_CASE("softmax_regression: derivatives and invariances and extreme logits", "[models]") {
  // Shapes that exercise the in-place logit scratch: d = 1 (column k starts at index k),
  // K > d, and d > K.
  const std::pair<std::size_t, std::size_t> shapes[] = {{1, 5}, {2, 7}, {4, 3}};
  for (const auto& [d, k] : shapes) {
    auto data = std::make_shared<dataset>(*gaussian_regression_data(5, d));
    random_stream s(4, d, 4);
    for (Eigen::Index i = 0; i < data->labels.size(); ++i)
      data->labels(i) = static_cast<double>(s.below(k));
    CAPTURE(d, k);
    check_derivatives(dpkit::sim::softmax_regression(data, k, 0.1), 5 + d, 1.0);

    // Without ridge: adding c to every w_k leaves the loss unchanged, and the gradient's
    // blocks sum to zero (Σ_k (π_k − [k = y]) = 0).
    const dpkit::sim::softmax_regression m(data, k, 0);
    const auto p = static_cast<Eigen::Index>(d * k), dd = static_cast<Eigen::Index>(d);
    Eigen::VectorXd x(p), shifted(p);
    for (Eigen::Index j = 0; j < p; ++j) x(j) = s.normal();
    const Eigen::VectorXd c = Eigen::VectorXd::LinSpaced(dd, 0.5, 3);
    for (std::size_t kk = 0; kk < k; ++kk)
      shifted.segment(static_cast<Eigen::Index>(kk) * dd, dd) =
          x.segment(static_cast<Eigen::Index>(kk) * dd, dd) + c;
    for (std::size_t i = 0; i < 5; ++i) {
      CHECK_THAT(m.loss(i, shifted), WithinRel(m.loss(i, x), dpkit::tol::kTol3));
      const Eigen::VectorXd g = gradient_of(m, i, x);
      const Eigen::Map<const Eigen::MatrixXd> blocks(g.data(), dd, static_cast<Eigen::Index>(k));
      CHECK(blocks.rowwise().sum().cwiseAbs().maxCoeff() <= dpkit::tol::kTol2);
    }
  }

  // Logits (800, −800, 0) from a = (1), W = (800, −800, 0): finite, and correct to all digits.
  Eigen::VectorXd x(3);
  x << 800, -800, 0;
  const dpkit::sim::softmax_regression top(one_example(Eigen::VectorXd::Ones(1), 0), 3, 0);
  const dpkit::sim::softmax_regression low(one_example(Eigen::VectorXd::Ones(1), 1), 3, 0);
  CHECK(top.loss(0, x) == 0);  // log(1 + e^{−800} + e^{−1600}) underflows to 0
  CHECK_THAT(low.loss(0, x), WithinRel(1600, dpkit::tol::kTol0));
  const Eigen::VectorXd g_low = gradient_of(low, 0, x);
  CHECK(g_low.allFinite());
  CHECK_THAT(g_low(0), WithinAbs(1, dpkit::tol::kTol0));   // π_0 − 0
  CHECK_THAT(g_low(1), WithinAbs(-1, dpkit::tol::kTol0));  // π_1 − 1
  CHECK_THAT(g_low(2), WithinAbs(0, dpkit::tol::kTol0));
  CHECK(hessian_vector_of(low, 0, x, Eigen::Vector3d(1, 2, 3)).allFinite());
}

// ---- quadratic and linear (BSA24 worst cases) -----------------------------------------------

TEST_CASE("quadratic: (m/2)|x|^2 and the W1 neighbour gradient m x - L v", "[models]") {
  const double mm = 0.7, big_l = 2.5;
  const auto base = std::make_shared<const dpkit::sim::quadratic>(4, 3, mm);
  const Eigen::Vector3d x(1, -2, 0.5), v(0, 0.6, 0.8);
  CHECK(base->loss(2, x) == 0.5 * mm * 5.25);
  CHECK_THAT(base->empirical_risk(x), WithinRel(base->model::empirical_risk(x), dpkit::tol::kTol1));
  CHECK((gradient_of(*base, 1, x) - mm * x).cwiseAbs().maxCoeff() == 0);
  CHECK(hessian_vector_of(*base, 0, x, v) == mm * v);
  CHECK(base->describe() == "quadratic (m/2)|x|^2 (n = 4, d = 3, m = 0.7)");
  check_derivatives(*base, 6, 1.0);

  // W1 (docs/shifted.md): ∇f′_i = m x for i ≠ i*, ∇f′_{i*} = m x − L v.
  const dpkit::sim::linearly_perturbed neighbour(base, 3, big_l * v);
  for (std::size_t i = 0; i < 4; ++i) {
    const Eigen::Vector3d expected =
        i == 3 ? Eigen::Vector3d(mm * x - big_l * v) : Eigen::Vector3d(mm * x);
    CHECK((gradient_of(neighbour, i, x) - expected).cwiseAbs().maxCoeff() <= dpkit::tol::kTol0);
  }
  check_derivatives(neighbour, 7, 1.0);
}

TEST_CASE("linear: constant gradients g_i (W4 one-step NoisySGD construction)", "[models]") {
  // W4 (docs/shifted.md): gradients 0 (i ≠ i*), (1 − λ)L u and −λL u.
  const double lambda = 0.3, big_l = 2;
  const Eigen::Vector2d u(0.6, 0.8);
  Eigen::MatrixXd g(3, 2);
  g.row(0).setZero();
  g.row(1) = (1 - lambda) * big_l * u.transpose();
  g.row(2) = -lambda * big_l * u.transpose();
  const dpkit::sim::linear m(g);
  CHECK(m.examples() == 3);
  CHECK(m.dimension() == 2);
  const Eigen::Vector2d x(5, -7);
  for (std::size_t i = 0; i < 3; ++i) {
    const auto r = static_cast<Eigen::Index>(i);
    CHECK(gradient_of(m, i, x) == g.row(r).transpose());
    CHECK(gradient_of(m, i, -3 * x) == g.row(r).transpose());
    CHECK(m.loss(i, x) == g.row(r).dot(x));
    CHECK(hessian_vector_of(m, i, x, Eigen::Vector2d(1, 1)).isZero(0));
  }
  CHECK_THAT(m.describe(), Contains("linear losses (n = 3, p = 2"));
  check_derivatives(m, 8, 1.0);
}

// ---- bad input ---------------------------------------------------------------------------------

TEST_CASE("models reject bad input", "[models]") {
  const auto data = gaussian_regression_data(4, 2);
  CHECK_THROWS_WITH(dpkit::sim::least_squares(nullptr, 0),
                    "least_squares: data is null, but must be a dataset");
  CHECK_THROWS_WITH(dpkit::sim::least_squares(data, -1),
                    "least_squares: ridge is -1, but must be finite and >= 0");
  CHECK_THROWS_AS(dpkit::sim::least_squares(data, kNan), std::domain_error);
  auto bad = std::make_shared<dataset>(*data);
  bad->features(1, 1) = kNan;
  CHECK_THROWS_WITH(dpkit::sim::least_squares(bad, 0),
                    "least_squares: feature (row 1, column 1) is nan, but must be finite");

  CHECK_THROWS_WITH(
      dpkit::sim::logistic_regression(data, 0),
      Contains("logistic_regression: label 0 is") && Contains("but must be -1 or +1"));
  auto signs = std::make_shared<dataset>(*data);
  signs->labels.setOnes();
  CHECK_NOTHROW(dpkit::sim::logistic_regression(signs, 0));
  CHECK_THROWS_AS(dpkit::sim::logistic_regression(signs, -0.5), std::domain_error);

  auto classes = std::make_shared<dataset>(*data);
  classes->labels << 0, 1, 2, 1;
  CHECK_NOTHROW(dpkit::sim::softmax_regression(classes, 3, 0));
  CHECK_THROWS_WITH(dpkit::sim::softmax_regression(classes, 2, 0),
                    "softmax_regression: label 2 is 2, but must be an integer in [0, 2)");
  CHECK_THROWS_WITH(dpkit::sim::softmax_regression(classes, 1, 0),
                    "softmax_regression: classes is 1, but must be >= 2");
  classes->labels(3) = 0.5;
  CHECK_THROWS_WITH(dpkit::sim::softmax_regression(classes, 3, 0),
                    "softmax_regression: label 3 is 0.5, but must be an integer in [0, 3)");

  CHECK_THROWS_WITH(dpkit::sim::quadratic(0, 2, 1), "quadratic: n is 0, but must be >= 1");
  CHECK_THROWS_WITH(dpkit::sim::quadratic(2, 0, 1), "quadratic: d is 0, but must be >= 1");
  CHECK_THROWS_WITH(dpkit::sim::quadratic(2, 2, -1),
                    "quadratic: m is -1, but must be finite and >= 0");
  CHECK_THROWS_AS(dpkit::sim::quadratic(2, 2, kNan), std::domain_error);

  CHECK_THROWS_WITH(dpkit::sim::linear(Eigen::MatrixXd(0, 2)),
                    "linear: gradients.rows() is 0, but must be >= 1");
  Eigen::MatrixXd g = Eigen::MatrixXd::Ones(2, 2);
  g(1, 0) = -std::numeric_limits<double>::infinity();
  CHECK_THROWS_WITH(dpkit::sim::linear(g), "linear: gradients(1, 0) is -inf, but must be finite");
}
