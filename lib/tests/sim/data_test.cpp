// Data generators: distribution checks, each at a stated false-alarm probability, plus
// determinism, documented draw order and bad input.
//
// Statistical checks (fixed seeds, so they either always pass or always fail; the false-alarm
// probability says how unlikely a failure of a correct generator would be over the choice of
// seed). Every TEST_CASE below has a family-wise false-alarm probability ≤ kAlpha = 1e-6,
// split evenly (Bonferroni) over its individual checks:
// * Gaussian quadratic forms: for a fixed direction u and rows a_i ~ N(0, Σ),
//   Σ_i (uᵀa_i)² / (uᵀΣu) ~ χ²_n exactly; two-sided χ² test (quantiles from Boost.Math).
// * Means of bounded i.i.d. variables: Hoeffding, P(|mean − μ| ≥ t) ≤ 2 exp(−2 n t²/range²).
// * Sums of independent centred variables with |X_i| ≤ 1 and total variance V (label
//   generators, conditionally on the design): Bernstein, P(|S| ≥ t) ≤ 2 exp(−t²/(2(V + t/3))).
// * Gaussian label noise: Σ ξ_i/(sd √n) ~ N(0, 1) and Σ ξ_i²/sd² ~ χ²_n, both exact.
#include "dpkit/sim/data.hpp"

#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/normal.hpp>
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using dpkit::random_stream;

namespace {

constexpr double kAlpha = 1e-6;  // family-wise false-alarm probability of each TEST_CASE
using dpkit::test::kNan;
using dpkit::test::kInf;

// Two-sided χ²_n test at level alpha: is `statistic` inside the central 1 − alpha interval?
bool chi2_accepts(double statistic, double n, double alpha) {
  const boost::math::chi_squared chi2(n);
  const double lo = boost::math::quantile(chi2, alpha / 2);
  const double hi = boost::math::quantile(boost::math::complement(chi2, alpha / 2));
  return statistic > lo && statistic < hi;
}

// |z| threshold of a two-sided standard normal test at level alpha.
double z_threshold(double alpha) {
  return boost::math::quantile(boost::math::complement(boost::math::normal(), alpha / 2));
}

// Hoeffding half-width for the mean of n i.i.d. variables with the given range, level alpha.
double hoeffding(double n, double range, double alpha) {
  return range * std::sqrt(std::log(2 / alpha) / (2 * n));
}

// Bernstein threshold t with 2 exp(−t²/(2(V + t/3))) = alpha, for |X_i| ≤ 1.
double bernstein(double variance, double alpha) {
  const double l = std::log(2 / alpha);
  return l / 3 + std::sqrt(l * l / 9 + 2 * l * variance);
}

// The quadratic-form directions used for covariance checks: e_j and (e_j ± e_k)/√2.
std::vector<Eigen::VectorXd> directions(Eigen::Index d) {
  std::vector<Eigen::VectorXd> out;
  for (Eigen::Index j = 0; j < d; ++j) out.push_back(Eigen::VectorXd::Unit(d, j));
  for (Eigen::Index j = 0; j < d; ++j)
    for (Eigen::Index k = j + 1; k < d; ++k)
      for (double s : {1.0, -1.0}) {
        Eigen::VectorXd u = Eigen::VectorXd::Zero(d);
        u(j) = 1 / std::sqrt(2.0);
        u(k) = s / std::sqrt(2.0);
        out.push_back(u);
      }
  return out;
}

// Checks rows of `a` against N(0, sigma) through exact χ² tests on every direction of
// directions(d), Bonferroni-split so that the whole check has level kAlpha.
void check_gaussian_rows(const Eigen::MatrixXd& a, const Eigen::MatrixXd& sigma) {
  const std::vector<Eigen::VectorXd> us = directions(a.cols());
  const double alpha = kAlpha / static_cast<double>(us.size());
  for (const Eigen::VectorXd& u : us) {
    const double statistic = (a * u).squaredNorm() / u.dot(sigma * u);
    CAPTURE(u.transpose(), statistic, a.rows());
    CHECK(chi2_accepts(statistic, static_cast<double>(a.rows()), alpha));
  }
}

}  // namespace

TEST_CASE("gaussian_design: rows are N(0 diag(lambda)) by exact chi-square tests", "[data]") {
  const Eigen::Vector4d lambda(4, 1, 0.25, 0.01);
  random_stream stream(1, 0, 0);
  const Eigen::MatrixXd a = dpkit::sim::gaussian_design(20000, lambda, stream);
  REQUIRE(a.rows() == 20000);
  REQUIRE(a.cols() == 4);
  // 16 directions at 1e-6/16 each. With n = 20000 the test rejects a variance off by ±5 %,
  // so √λ ↔ λ or a missing scale fails.
  check_gaussian_rows(a, lambda.asDiagonal().toDenseMatrix());
}

TEST_CASE("gaussian_design: eigenbasis overload gives rows N(0 U diag(lambda) U^T)", "[data]") {
  const Eigen::Vector4d lambda(3, 1, 0.5, 0.1);
  random_stream basis_stream(2, 0, 7);
  const Eigen::MatrixXd u = dpkit::sim::random_orthogonal(4, basis_stream);
  random_stream stream(2, 0, 0);
  const Eigen::MatrixXd a = dpkit::sim::gaussian_design(20000, lambda, u, stream);
  check_gaussian_rows(a, u * lambda.asDiagonal() * u.transpose());

  // Documented construction: A = Z diag(√λ) Uᵀ with Z the standard normal design of the same
  // stream (the diagonal overload with λ = 1).
  random_stream again(2, 0, 0);
  const Eigen::MatrixXd z = dpkit::sim::gaussian_design(20000, Eigen::Vector4d::Ones(), again);
  const Eigen::MatrixXd expected = z * lambda.cwiseSqrt().asDiagonal() * u.transpose();
  CHECK((a - expected).cwiseAbs().maxCoeff() <= 1e-13 * expected.cwiseAbs().maxCoeff());
}

TEST_CASE("gaussian_design: determinism and row-by-row draw order", "[data]") {
  const Eigen::Vector3d lambda(1, 2, 3);
  random_stream s1(5, 3, 0), s2(5, 3, 0), s3(5, 3, 1), s_short(5, 3, 0);
  const Eigen::MatrixXd a1 = dpkit::sim::gaussian_design(40, lambda, s1);
  const Eigen::MatrixXd a2 = dpkit::sim::gaussian_design(40, lambda, s2);
  const Eigen::MatrixXd a3 = dpkit::sim::gaussian_design(40, lambda, s3);
  const Eigen::MatrixXd prefix = dpkit::sim::gaussian_design(15, lambda, s_short);
  CHECK(a1 == a2);  // same key → bit-identical
  CHECK(a1 != a3);  // another stream number → other data
  CHECK(prefix == a1.topRows(15));
  // The stream continues where the design stopped: the next draws are rows 15, 16, ….
  CHECK(dpkit::sim::gaussian_design(25, lambda, s_short) == a1.bottomRows(25));
}

TEST_CASE("random_orthogonal: orthogonal and Haar (sign-fixed QR)", "[data]") {
  random_stream stream(3, 0, 0);
  for (std::size_t d : {1, 2, 5, 30}) {
    const Eigen::MatrixXd q = dpkit::sim::random_orthogonal(d, stream);
    const auto m = static_cast<Eigen::Index>(d);
    CAPTURE(d);
    CHECK((q.transpose() * q - Eigen::MatrixXd::Identity(m, m)).cwiseAbs().maxCoeff() <= 1e-14);
  }
  // Under Haar measure on O(3): E q_ij = 0, E q_ij² = 1/3 (each column is uniform on the
  // sphere), and det Q = ±1 with probability 1/2 each. Unfixed Householder QR fails the first:
  // its q_00 = g_00/R_00 is always negative (E q_00 = −1/2). 9 + 9 + 1 Hoeffding checks.
  constexpr int kDraws = 4000;
  constexpr double kChecks = 19;
  Eigen::Matrix3d sum = Eigen::Matrix3d::Zero(), sum_sq = Eigen::Matrix3d::Zero();
  int positive_det = 0;
  for (int r = 0; r < kDraws; ++r) {
    const Eigen::Matrix3d q = dpkit::sim::random_orthogonal(3, stream);
    sum += q;
    sum_sq += q.cwiseAbs2();
    positive_det += q.determinant() > 0;
  }
  const double n = kDraws;
  const double t_mean = hoeffding(n, 2, kAlpha / kChecks);    // q_ij ∈ [−1, 1]
  const double t_square = hoeffding(n, 1, kAlpha / kChecks);  // q_ij² ∈ [0, 1]
  CAPTURE(sum / n, sum_sq / n, t_mean, t_square);
  CHECK((sum / n).cwiseAbs().maxCoeff() < t_mean);
  CHECK(((sum_sq / n).array() - 1.0 / 3).abs().maxCoeff() < t_square);
  CHECK(std::abs(positive_det / n - 0.5) < t_square);
}

TEST_CASE("uniform_design: U(0 1/sqrt(d)) entries with second moment I/(12d) + 11^T/(4d)",
          "[data]") {
  // LKSP25 §5's design: Σ = E[a aᵀ] = I/(12d) + 11ᵀ/(4d) (second moment) and
  // Cov(a) = I/(12d). Products a_ij a_ik lie in [0, 1/d] and entries in [0, 1/√d], so Hoeffding
  // applies: 15 second-moment entries + 5 means, Bonferroni over 20 checks. At n = 20000, d = 5
  // the half-width is 4e-3 against entries 0.067 (diagonal) and 0.05 (off-diagonal), so a
  // centred design (off-diagonal 0) or U(0, 1)/d scaling fails.
  constexpr std::size_t n = 20000, d = 5;
  random_stream stream(4, 0, 0);
  const Eigen::MatrixXd a = dpkit::sim::uniform_design(n, d, stream);
  REQUIRE(a.rows() == static_cast<Eigen::Index>(n));
  REQUIRE(a.cols() == static_cast<Eigen::Index>(d));
  const double dd = d, nn = n, root_d = std::sqrt(dd);
  CHECK(a.minCoeff() > 0);
  CHECK(a.maxCoeff() < 1 / root_d);

  const Eigen::MatrixXd sigma =
      Eigen::MatrixXd::Identity(d, d) / (12 * dd) + Eigen::MatrixXd::Ones(d, d) / (4 * dd);
  const Eigen::MatrixXd second_moment = a.transpose() * a / nn;
  const Eigen::VectorXd mean = a.colwise().mean().transpose();
  const double t_second = hoeffding(nn, 1 / dd, kAlpha / 20);
  const double t_mean = hoeffding(nn, 1 / root_d, kAlpha / 20);
  const double mu = 1 / (2 * root_d);
  CAPTURE(second_moment, sigma, mean.transpose(), t_second, t_mean);
  CHECK((second_moment - sigma).cwiseAbs().maxCoeff() < t_second);
  CHECK((mean.array() - mu).abs().maxCoeff() < t_mean);
  // Sample covariance against I/(12d), on the same events: |Ĉ − C| ≤ t_second + t_mean(2μ +
  // t_mean).
  const Eigen::MatrixXd covariance = second_moment - mean * mean.transpose();
  CHECK((covariance - Eigen::MatrixXd::Identity(d, d) / (12 * dd)).cwiseAbs().maxCoeff() <
        t_second + t_mean * (2 * mu + t_mean));
  // Row by row: a prefix of a longer design.
  random_stream again(4, 0, 0);
  CHECK(dpkit::sim::uniform_design(7, d, again) == a.topRows(7));
}

TEST_CASE("linear_labels: y = A x_star + Gaussian noise optionally clamped", "[data]") {
  constexpr std::size_t n = 20000;
  random_stream design_stream(5, 0, 0);
  const Eigen::MatrixXd a =
      dpkit::sim::gaussian_design(n, Eigen::Vector3d(1, 2, 0.5), design_stream);
  const Eigen::Vector3d x_star(0.5, -1, 2);
  const double sd = 0.3;
  const Eigen::VectorXd ax = a * x_star;

  random_stream s_plain(5, 0, 4), s_clamped(5, 0, 4), s_exact(5, 0, 4);
  const Eigen::VectorXd y = dpkit::sim::linear_labels(a, x_star, sd, s_plain);
  const Eigen::VectorXd residual = y - ax;
  // Exact tests on the noise, 2 checks + 1 Bernstein below: Bonferroni over 3.
  const double nn = n;
  const double z = residual.sum() / (sd * std::sqrt(nn));
  CAPTURE(z, residual.squaredNorm() / (sd * sd));
  CHECK(std::abs(z) < z_threshold(kAlpha / 3));
  CHECK(chi2_accepts(residual.squaredNorm() / (sd * sd), nn, kAlpha / 3));

  // Clamping at ±3 sd (LKSP25 §5): the same draws, clamped (deterministic check) …
  const double clamp = 3 * sd;
  const Eigen::VectorXd yc = dpkit::sim::linear_labels(a, x_star, sd, s_clamped, clamp);
  const Eigen::VectorXd expected = ax + residual.cwiseMax(-clamp).cwiseMin(clamp);
  CHECK((yc - expected).cwiseAbs().maxCoeff() <= 1e-13);
  // … and a fraction 2Φ(−3) = 0.0026998 of them at the bound (Bernstein, count of Bernoulli).
  const double p_tail = 2 * boost::math::cdf(boost::math::normal(), -3.0);
  const double at_bound = ((yc - ax).cwiseAbs().array() >= clamp * (1 - 1e-9)).count();
  CAPTURE(at_bound, nn * p_tail);
  CHECK(std::abs(at_bound - nn * p_tail) < bernstein(nn * p_tail * (1 - p_tail), kAlpha / 3));

  // noise_sd = 0: exact labels, and the stream still advances by one normal per example.
  const Eigen::VectorXd y0 = dpkit::sim::linear_labels(a, x_star, 0.0, s_exact);
  CHECK(y0 == ax);
  CHECK(s_exact.words_used() == s_plain.words_used());
  CHECK(s_clamped.words_used() == s_plain.words_used());
}

TEST_CASE("logistic_labels: P(y = +1) = 1/(1 + exp(-a^T x_star))", "[data]") {
  constexpr std::size_t n = 20000;
  random_stream design_stream(6, 0, 0);
  const Eigen::MatrixXd a = dpkit::sim::gaussian_design(n, Eigen::Vector3d::Ones(), design_stream);
  const Eigen::Vector3d x_star(1, -0.5, 2);
  random_stream stream(6, 0, 4);
  const Eigen::VectorXd y = dpkit::sim::logistic_labels(a, x_star, stream);
  REQUIRE(y.size() == static_cast<Eigen::Index>(n));
  CHECK((y.array().abs() == 1).all());

  // Conditionally on the design, X_i = 1{y_i = +1} − p_i are independent, centred, |X_i| ≤ 1.
  // Two Bernstein checks: weights 1, and weights sign(a_iᵀx*) (which catches P(+1) = σ(−z):
  // a symmetric design hides that from the unweighted count).
  const Eigen::VectorXd margin = a * x_star;
  double s_plain = 0, s_signed = 0, variance = 0;
  for (Eigen::Index i = 0; i < margin.size(); ++i) {
    const double p = 1 / (1 + std::exp(-margin(i)));
    const double x = (y(i) > 0 ? 1.0 : 0.0) - p;
    s_plain += x;
    s_signed += margin(i) >= 0 ? x : -x;
    variance += p * (1 - p);
  }
  const double t = bernstein(variance, kAlpha / 2);
  CAPTURE(s_plain, s_signed, t);
  CHECK(std::abs(s_plain) < t);
  CHECK(std::abs(s_signed) < t);

  random_stream again(6, 0, 4);
  CHECK(dpkit::sim::logistic_labels(a, x_star, again) == y);
}

TEST_CASE("softmax_labels: P(y = k) proportional to exp(a^T w_k)", "[data]") {
  constexpr std::size_t n = 20000;
  random_stream design_stream(7, 0, 0);
  Eigen::MatrixXd a(n, 3);
  a.col(0).setOnes();  // an intercept, so that the class frequencies differ
  a.rightCols(2) = dpkit::sim::gaussian_design(n, Eigen::Vector2d(1, 1), design_stream);
  Eigen::MatrixXd w(3, 3);  // d×K, column k = w_k
  w << 0.5, -0.3, 0.0,      //
      1.0, 0.0, -1.0,       //
      0.0, 1.5, 0.5;
  random_stream stream(7, 0, 4);
  const Eigen::VectorXd y = dpkit::sim::softmax_labels(a, w, stream);
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    REQUIRE(y(i) == std::floor(y(i)));
    REQUIRE(y(i) >= 0);
    REQUIRE(y(i) < 3);
  }
  // Per class k: X_i = 1{y_i = k} − π_ik, weights 1 and sign(a_i1): 6 Bernstein checks.
  const Eigen::MatrixXd logits = a * w;
  for (Eigen::Index k = 0; k < 3; ++k) {
    double s_plain = 0, s_signed = 0, variance = 0;
    for (Eigen::Index i = 0; i < logits.rows(); ++i) {
      const double p = std::exp(logits(i, k)) / logits.row(i).array().exp().sum();
      const double x = (y(i) == static_cast<double>(k) ? 1.0 : 0.0) - p;
      s_plain += x;
      s_signed += a(i, 1) >= 0 ? x : -x;
      variance += p * (1 - p);
    }
    const double t = bernstein(variance, kAlpha / 6);
    CAPTURE(k, s_plain, s_signed, t);
    CHECK(std::abs(s_plain) < t);
    CHECK(std::abs(s_signed) < t);
  }

  // Huge logits are safe: P(class 1) = 1 − O(e^{−800}).
  Eigen::MatrixXd one = Eigen::MatrixXd::Ones(50, 1);
  Eigen::MatrixXd w_big(1, 3);
  w_big << 0, 800, -800;
  random_stream s_big(7, 1, 4);
  CHECK((dpkit::sim::softmax_labels(one, w_big, s_big).array() == 1).all());
}

TEST_CASE("data generators reject bad input", "[data]") {
  random_stream s(0, 0, 0);
  const Eigen::MatrixXd a = Eigen::MatrixXd::Ones(4, 2);
  const Eigen::Vector2d x(1, 1);
  CHECK_THROWS_WITH(dpkit::sim::gaussian_design(0, Eigen::Vector2d(1, 1), s),
                    "gaussian_design: n is 0, but must be >= 1");
  CHECK_THROWS_WITH(dpkit::sim::gaussian_design(3, Eigen::Vector2d(1, -1), s),
                    "gaussian_design: eigenvalues(1) is -1, but must be finite and >= 0");
  CHECK_THROWS_WITH(dpkit::sim::gaussian_design(3, Eigen::Vector2d(kNan, 1), s),
                    Contains("is nan, but must be finite and >= 0"));
  CHECK_THROWS_AS(dpkit::sim::gaussian_design(3, Eigen::VectorXd(), s), std::domain_error);
  CHECK_THROWS_WITH(
      dpkit::sim::gaussian_design(3, Eigen::Vector2d(1, 1), Eigen::Matrix2d{{1, 0}, {0.5, 1}}, s),
      Contains("but must be <= 1e-8 (an orthogonal basis)"));
  CHECK_THROWS_WITH(
      dpkit::sim::gaussian_design(3, Eigen::Vector2d(1, 1), Eigen::Matrix3d::Identity(), s),
      "gaussian_design: basis is 3x3, but must be square of size eigenvalues.size() = 2");
  CHECK_THROWS_WITH(dpkit::sim::random_orthogonal(0, s),
                    "random_orthogonal: d is 0, but must be >= 1");
  CHECK_THROWS_WITH(dpkit::sim::uniform_design(3, 0, s),
                    "uniform_design: d is 0, but must be >= 1");
  CHECK_THROWS_AS(dpkit::sim::uniform_design(0, 3, s), std::domain_error);

  CHECK_THROWS_WITH(dpkit::sim::linear_labels(a, Eigen::Vector3d(1, 1, 1), 1.0, s),
                    "linear_labels: x_star.size() is 3, but must be features.cols() = 2");
  CHECK_THROWS_WITH(dpkit::sim::linear_labels(a, x, -1.0, s),
                    "linear_labels: noise_sd is -1, but must be in [0, 1e150] (the squared labels "
                    "overflow beyond)");
  CHECK_THROWS_WITH(dpkit::sim::linear_labels(a, x, 1e308, s),
                    Catch::Matchers::Contains("noise_sd is 1e+308, but must be in [0, 1e150]"));
  CHECK_THROWS_WITH(dpkit::sim::linear_labels(a, x, 1.0, s, kNan),
                    "linear_labels: clamp is nan, but must be >= 0 (+inf: no clamping)");
  CHECK_THROWS_AS(dpkit::sim::linear_labels(a, x, 1.0, s, -1.0), std::domain_error);
  CHECK_NOTHROW(dpkit::sim::linear_labels(a, x, 1.0, s, kInf));
  Eigen::MatrixXd bad = a;
  bad(2, 1) = kInf;
  CHECK_THROWS_WITH(dpkit::sim::linear_labels(bad, x, 1.0, s),
                    "linear_labels: features(2, 1) is inf, but must be finite");
  CHECK_THROWS_WITH(dpkit::sim::logistic_labels(a, Eigen::Vector2d(kNan, 0), s),
                    "logistic_labels: x_star(0) is nan, but must be finite");
  CHECK_THROWS_WITH(dpkit::sim::softmax_labels(a, Eigen::MatrixXd::Ones(2, 1), s),
                    "softmax_labels: the number of classes w_star.cols() is 1, but must be >= 2");
  CHECK_THROWS_AS(dpkit::sim::softmax_labels(a, Eigen::MatrixXd::Ones(3, 2), s), std::domain_error);
}

TEST_CASE("unit_ball_margin_data: labels +-1, norm <= 1, margin along v, documented laws",
          "[data]") {
  // Deterministic invariants on every example, then three Hoeffding checks (Bonferroni over
  // kAlpha): P(y = +1) = 1/2; t = y·vᵀx uniform on [margin, 1] (mean (1 + margin)/2); and
  // (ρ/√(1 − t²))^{d−1} = u₃ uniform on [0, 1] (mean 1/2), ρ the norm of the part orthogonal to v.
  const double margin = 0.2;
  const Eigen::Vector3d direction(1, 2, -2);  // v = direction/3
  const Eigen::Vector3d v = direction / 3;
  random_stream s(5, 0, 0);
  const std::size_t n = 20000;
  const auto data = dpkit::sim::unit_ball_margin_data(n, direction, margin, s);
  REQUIRE(data.size() == n);
  REQUIRE(data.dimension() == 3);
  double plus = 0, t_sum = 0, u_sum = 0;
  for (Eigen::Index i = 0; i < data.features.rows(); ++i) {
    const Eigen::Vector3d x = data.features.row(i).transpose();
    const double y = data.labels(i);
    REQUIRE((y == 1 || y == -1));
    REQUIRE(x.norm() <= 1);
    const double t = y * v.dot(x);
    REQUIRE(t >= margin * (1 - 1e-15));
    plus += y > 0;
    t_sum += t;
    const double rho = (x - v.dot(x) * v).norm();
    u_sum += rho * rho / (1 - t * t);  // (ρ/√(1 − t²))^{d−1} with d − 1 = 2
  }
  const double nn = static_cast<double>(n);
  CHECK(std::abs(plus / nn - 0.5) < hoeffding(nn, 1, kAlpha / 3));
  CHECK(std::abs(t_sum / nn - (1 + margin) / 2) < hoeffding(nn, 1 - margin, kAlpha / 3));
  CHECK(std::abs(u_sum / nn - 0.5) < hoeffding(nn, 1, kAlpha / 3));
  // Determinism: the same stream gives the same data. d = 1: x = y·t, |x| ≥ margin.
  random_stream s2(5, 0, 0);
  CHECK(dpkit::sim::unit_ball_margin_data(n, direction, margin, s2).features == data.features);
  random_stream a(9, 0, 0);
  const auto one = dpkit::sim::unit_ball_margin_data(10, Eigen::VectorXd::Ones(1), 0.5, a);
  CHECK((one.features.array().abs() >= 0.5).all());
  CHECK((one.features.array().abs() < 1).all());
  // Bad input.
  CHECK_THROWS_WITH(dpkit::sim::unit_ball_margin_data(0, direction, 0.1, s),
                    "unit_ball_margin_data: n is 0, but must be >= 1");
  CHECK_THROWS_WITH(dpkit::sim::unit_ball_margin_data(3, Eigen::Vector3d::Zero(), 0.1, s),
                    "unit_ball_margin_data: |direction| is 0, but must be > 0");
  CHECK_THROWS_WITH(dpkit::sim::unit_ball_margin_data(3, direction, 1, s),
                    "unit_ball_margin_data: margin is 1, but must be in [0, 1)");
  CHECK_THROWS_WITH(dpkit::sim::unit_ball_margin_data(3, Eigen::Vector2d(kNan, 1), 0.1, s),
                    "unit_ball_margin_data: direction(0) is nan, but must be finite");
}
