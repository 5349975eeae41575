#include "dpkit/sim/models.hpp"

#include <cassert>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "dpkit/core/check.hpp"

namespace dpkit::sim {
namespace {

std::string count(std::size_t n) {
  return format_value(static_cast<long long>(n));
}

void check_parameter_size(const char* fn, const_vector_ref x, std::size_t p) {
  if (static_cast<std::size_t>(x.size()) != p)
    throw_domain_error(fn, "x.size()", count(static_cast<std::size_t>(x.size())),
                       "the number of parameters " + count(p));
}

std::shared_ptr<const dataset> checked(const char* fn, std::shared_ptr<const dataset> data) {
  if (!data) throw_domain_error(fn, "data", "null", "a dataset");
  check_dataset(fn, *data);
  return data;
}

// log(1 + e^{−m}) for any finite m: log1p(e^{−m}) has no cancellation for m ≥ 0, and for m < 0
// the identity log(1 + e^{−m}) = −m + log(1 + e^{m}) keeps e^{·} ≤ 1 (no overflow).
double log1p_exp_neg(double m) {
  return m >= 0 ? std::log1p(std::exp(-m)) : -m + std::log1p(std::exp(m));
}

// σ(t) = 1/(1 + e^{−t}), through e^{−|t|} so that nothing overflows; relative accuracy a few
// ulp on both tails.
double sigmoid(double t) {
  if (t >= 0) return 1 / (1 + std::exp(-t));
  const double e = std::exp(t);
  return e / (1 + e);
}

std::string describe_data(const dataset& data) {
  return "n = " + count(data.size()) + ", d = " + count(data.dimension());
}

}  // namespace

// ---- least squares ---------------------------------------------------------------------------

dataset_model::dataset_model(const char* function,
                             std::shared_ptr<const dataset> data,
                             double ridge)
    : data_(checked(function, std::move(data))),
      ridge_(ridge),
      by_example_(data_->features.transpose()) {}

least_squares::least_squares(std::shared_ptr<const dataset> data, double ridge)
    : dataset_model("least_squares", std::move(data), ridge) {
  check_nonnegative("least_squares", "ridge", ridge_);
}

double least_squares::loss(std::size_t i, const_vector_ref x) const {
  assert(i < examples() && static_cast<std::size_t>(x.size()) == dimension());
  const auto k = static_cast<Eigen::Index>(i);
  // LKSP25 §1.1: f(x; a, b) = ½((aᵀx − b)² + δ‖x‖²).
  const double r = by_example_.col(k).transpose().dot(x) - data_->labels(k);
  return 0.5 * (r * r + ridge_ * x.squaredNorm());
}

void least_squares::gradient(std::size_t i, const_vector_ref x, vector_ref g) const {
  assert(i < examples() && static_cast<std::size_t>(x.size()) == dimension());
  const auto k = static_cast<Eigen::Index>(i);
  const auto a = by_example_.col(k).transpose();
  // LKSP25 §1.1: ∇f = a(aᵀx − b) + δx.
  const double r = a.dot(x) - data_->labels(k);
  g.noalias() = r * a.transpose() + ridge_ * x;
}

void least_squares::hessian_vector(std::size_t i,
                                   const_vector_ref,
                                   const_vector_ref v,
                                   vector_ref out) const {
  assert(i < examples() && static_cast<std::size_t>(v.size()) == dimension());
  const auto a = by_example_.col(static_cast<Eigen::Index>(i)).transpose();
  // ∇²f = a aᵀ + δI (LKSP25 §1.2 per example).
  out.noalias() = a.dot(v) * a.transpose() + ridge_ * v;
}

double least_squares::empirical_risk(const_vector_ref x) const {
  // (1/n) Σ f_i = (1/(2n))‖Ax − y‖² + (δ/2)‖x‖².
  const double n = static_cast<double>(examples());
  return (data_->features * x - data_->labels).squaredNorm() / (2 * n) +
         0.5 * ridge_ * x.squaredNorm();
}

std::string least_squares::describe() const {
  return "least squares (" + describe_data(*data_) + ", ridge " + format_value(ridge_) + ")";
}

// ---- logistic regression ---------------------------------------------------------------------

logistic_regression::logistic_regression(std::shared_ptr<const dataset> data, double ridge)
    : dataset_model("logistic_regression", std::move(data), ridge) {
  constexpr const char* fn = "logistic_regression";
  check_nonnegative(fn, "ridge", ridge_);
  for (Eigen::Index i = 0; i < data_->labels.size(); ++i) {
    const double y = data_->labels(i);
    if (y != 1 && y != -1)
      throw_domain_error(fn, "label " + count(static_cast<std::size_t>(i)), y, "-1 or +1");
  }
}

double logistic_regression::loss(std::size_t i, const_vector_ref x) const {
  assert(i < examples() && static_cast<std::size_t>(x.size()) == dimension());
  const auto k = static_cast<Eigen::Index>(i);
  const double m = data_->labels(k) * by_example_.col(k).dot(x);
  return log1p_exp_neg(m) + 0.5 * ridge_ * x.squaredNorm();
}

void logistic_regression::gradient(std::size_t i, const_vector_ref x, vector_ref g) const {
  assert(i < examples() && static_cast<std::size_t>(x.size()) == dimension());
  const auto k = static_cast<Eigen::Index>(i);
  const auto a = by_example_.col(k);
  const double y = data_->labels(k);
  // d/dm log(1 + e^{−m}) = −σ(−m), and ∂m/∂x = y·a.
  const double c = -y * sigmoid(-y * a.dot(x));
  g.noalias() = c * a + ridge_ * x;
}

void logistic_regression::hessian_vector(std::size_t i,
                                         const_vector_ref x,
                                         const_vector_ref v,
                                         vector_ref out) const {
  assert(i < examples() && static_cast<std::size_t>(v.size()) == dimension());
  const auto k = static_cast<Eigen::Index>(i);
  const auto a = by_example_.col(k);
  // d²/dm² log(1 + e^{−m}) = σ(m)σ(−m) = e^{−|m|}/(1 + e^{−|m|})², symmetric in m (y² = 1).
  const double e = std::exp(-std::abs(a.dot(x)));
  const double w = e / ((1 + e) * (1 + e));
  out.noalias() = (w * a.dot(v)) * a + ridge_ * v;
}

double logistic_regression::error_rate(const_vector_ref x) const {
  check_parameter_size("logistic_regression::error_rate", x, dimension());
  const Eigen::VectorXd margins =
      data_->labels.cwiseProduct((x.transpose() * by_example_).transpose());
  return static_cast<double>((margins.array() <= 0).count()) / static_cast<double>(examples());
}

std::string logistic_regression::describe() const {
  return "logistic regression (" + describe_data(*data_) + ", ridge " + format_value(ridge_) + ")";
}

// ---- softmax regression ----------------------------------------------------------------------

softmax_regression::softmax_regression(std::shared_ptr<const dataset> data,
                                       std::size_t classes,
                                       double ridge)
    : dataset_model("softmax_regression", std::move(data), ridge), classes_(classes) {
  constexpr const char* fn = "softmax_regression";
  check_at_least(fn, "classes", static_cast<long long>(classes_), 2);
  check_nonnegative(fn, "ridge", ridge_);
  const auto k_classes = static_cast<double>(classes_);
  for (Eigen::Index i = 0; i < data_->labels.size(); ++i) {
    const double y = data_->labels(i);
    if (!(y >= 0 && y < k_classes && y == std::floor(y)))
      throw_domain_error(fn, "label " + count(static_cast<std::size_t>(i)), y,
                         "an integer in [0, " + count(classes_) + ")");
  }
}

double softmax_regression::loss(std::size_t i, const_vector_ref x) const {
  assert(i < examples() && static_cast<std::size_t>(x.size()) == dimension());
  const auto k_row = static_cast<Eigen::Index>(i);
  const auto d = static_cast<Eigen::Index>(data_->dimension());
  const auto k_classes = static_cast<Eigen::Index>(classes_);
  const Eigen::Map<const Eigen::MatrixXd> w(x.data(), d, k_classes);  // x = vec(W)
  const auto a = by_example_.col(k_row);
  // log Σ exp(z_k) = max z + log Σ exp(z_k − max z); the logits are recomputed in the second
  // pass rather than stored, so the loss does not allocate either.
  double top = -std::numeric_limits<double>::infinity();
  for (Eigen::Index k = 0; k < k_classes; ++k) top = std::fmax(top, a.dot(w.col(k)));
  double sum = 0;
  for (Eigen::Index k = 0; k < k_classes; ++k) sum += std::exp(a.dot(w.col(k)) - top);
  const auto label = static_cast<Eigen::Index>(data_->labels(k_row));
  return (top - a.dot(w.col(label))) + std::log(sum) + 0.5 * ridge_ * x.squaredNorm();
}

void softmax_regression::gradient(std::size_t i, const_vector_ref x, vector_ref g) const {
  assert(i < examples() && static_cast<std::size_t>(x.size()) == dimension());
  const auto k_row = static_cast<Eigen::Index>(i);
  const auto d = static_cast<Eigen::Index>(data_->dimension());
  const auto k_classes = static_cast<Eigen::Index>(classes_);
  const Eigen::Map<const Eigen::MatrixXd> w(x.data(), d, k_classes);
  const auto a = by_example_.col(k_row);
  const auto label = static_cast<Eigen::Index>(data_->labels(k_row));
  // Scratch without allocation: logit z_k is kept in g(k) while the columns of ∇_W f are written
  // from the last (k = K−1) to the first. Column k occupies g[k·d, k·d + d), which starts at or
  // after index k, so writing it never overwrites a logit z_j with j < k that is still needed,
  // and z_k itself is read before its column is written.
  double top = -std::numeric_limits<double>::infinity();
  for (Eigen::Index k = 0; k < k_classes; ++k) {
    g(k) = a.dot(w.col(k));
    top = std::fmax(top, g(k));
  }
  double sum = 0;
  for (Eigen::Index k = 0; k < k_classes; ++k) sum += std::exp(g(k) - top);
  for (Eigen::Index k = k_classes - 1; k >= 0; --k) {
    // ∇_{w_k} f = (π_k − [k = y])·a + δ·w_k (Bishop 2006, §4.3.4).
    const double pi_k = std::exp(g(k) - top) / sum;
    const double c = pi_k - (k == label ? 1.0 : 0.0);
    g.segment(k * d, d).noalias() = c * a + ridge_ * x.segment(k * d, d);
  }
}

void softmax_regression::hessian_vector(std::size_t i,
                                        const_vector_ref x,
                                        const_vector_ref v,
                                        vector_ref out) const {
  assert(i < examples() && static_cast<std::size_t>(x.size()) == dimension() &&
         v.size() == x.size());
  const auto k_row = static_cast<Eigen::Index>(i);
  const auto d = static_cast<Eigen::Index>(data_->dimension());
  const auto k_classes = static_cast<Eigen::Index>(classes_);
  const Eigen::Map<const Eigen::MatrixXd> w(x.data(), d, k_classes);
  const Eigen::Map<const Eigen::MatrixXd> v_mat(v.data(), d, k_classes);
  const auto a = by_example_.col(k_row);
  Eigen::VectorXd pi = w.transpose() * a;  // logits, then probabilities
  pi = (pi.array() - pi.maxCoeff()).exp();
  pi /= pi.sum();
  const Eigen::VectorXd u = v_mat.transpose() * a;
  // ∇²_W f[V] = a (π ⊙ u − π (πᵀu))ᵀ: the softmax Jacobian diag(π) − ππᵀ applied to u = Vᵀa.
  const double pu = pi.dot(u);
  for (Eigen::Index k = 0; k < k_classes; ++k)
    out.segment(k * d, d).noalias() = (pi(k) * (u(k) - pu)) * a + ridge_ * v.segment(k * d, d);
}

double softmax_regression::error_rate(const_vector_ref x) const {
  check_parameter_size("softmax_regression::error_rate", x, dimension());
  const auto d = static_cast<Eigen::Index>(data_->dimension());
  const auto k = static_cast<Eigen::Index>(classes_);
  const Eigen::Map<const Eigen::MatrixXd> w(x.data(), d, k);
  const Eigen::MatrixXd logits = w.transpose() * by_example_;  // K×n
  std::size_t wrong = 0;
  for (Eigen::Index i = 0; i < logits.cols(); ++i) {
    Eigen::Index best = 0;
    logits.col(i).maxCoeff(&best);  // the first index of the maximum
    if (static_cast<double>(best) != data_->labels(i)) ++wrong;
  }
  return static_cast<double>(wrong) / static_cast<double>(examples());
}

std::string softmax_regression::describe() const {
  return "softmax regression (" + describe_data(*data_) + ", K = " + count(classes_) + ", ridge " +
         format_value(ridge_) + ")";
}

// ---- quadratic -------------------------------------------------------------------------------

quadratic::quadratic(std::size_t n, std::size_t d, double m) : n_(n), d_(d), m_(m) {
  constexpr const char* fn = "quadratic";
  check_at_least(fn, "n", static_cast<long long>(n_), 1);
  check_at_least(fn, "d", static_cast<long long>(d_), 1);
  check_nonnegative(fn, "m", m_);
}

double quadratic::loss(std::size_t i, const_vector_ref x) const {
  assert(i < n_ && static_cast<std::size_t>(x.size()) == d_);
  (void)i;
  // W1/W3 (docs/shifted.md): F = (m/2)‖x‖².
  return 0.5 * m_ * x.squaredNorm();
}

void quadratic::gradient(std::size_t i, const_vector_ref x, vector_ref g) const {
  assert(i < n_ && static_cast<std::size_t>(x.size()) == d_);
  (void)i;
  g.noalias() = m_ * x;
}

void quadratic::hessian_vector(std::size_t i,
                               const_vector_ref,
                               const_vector_ref v,
                               vector_ref out) const {
  assert(i < n_ && static_cast<std::size_t>(v.size()) == d_);
  (void)i;
  out.noalias() = m_ * v;
}

double quadratic::empirical_risk(const_vector_ref x) const {
  const double plain = 0.5 * m_ * x.squaredNorm();
  if (std::isfinite(plain)) return plain;
  // ‖x‖² overflowed while (m/2)‖x‖² may not (m = 1e-200, ‖x‖ = 1e160 is a risk of 5e119, once
  // reported as a diverged run): (√m ‖x‖)²/2 with the scaled norm.
  const double s = std::sqrt(m_) * x.stableNorm();
  return 0.5 * s * s;
}

std::string quadratic::describe() const {
  return "quadratic (m/2)|x|^2 (n = " + count(n_) + ", d = " + count(d_) +
         ", m = " + format_value(m_) + ")";
}

// ---- linear ----------------------------------------------------------------------------------

linear::linear(Eigen::MatrixXd gradients) : g_(std::move(gradients)) {
  constexpr const char* fn = "linear";
  check_at_least(fn, "gradients.rows()", g_.rows(), 1);
  check_at_least(fn, "gradients.cols()", g_.cols(), 1);
  for (Eigen::Index j = 0; j < g_.cols(); ++j)
    for (Eigen::Index i = 0; i < g_.rows(); ++i)
      if (!std::isfinite(g_(i, j)))
        throw_domain_error(fn,
                           "gradients(" + count(static_cast<std::size_t>(i)) + ", " +
                               count(static_cast<std::size_t>(j)) + ")",
                           g_(i, j), "finite");
}

double linear::loss(std::size_t i, const_vector_ref x) const {
  assert(i < examples() && static_cast<std::size_t>(x.size()) == dimension());
  return g_.row(static_cast<Eigen::Index>(i)).dot(x);
}

void linear::gradient(std::size_t i, const_vector_ref x, vector_ref g) const {
  assert(i < examples() && static_cast<std::size_t>(x.size()) == dimension());
  (void)x;
  g.noalias() = g_.row(static_cast<Eigen::Index>(i)).transpose();
}

void linear::hessian_vector(std::size_t i,
                            const_vector_ref,
                            const_vector_ref v,
                            vector_ref out) const {
  assert(i < examples() && static_cast<std::size_t>(v.size()) == dimension());
  (void)i;
  (void)v;
  out.setZero();
}

std::string linear::describe() const {
  return "linear losses (n = " + count(examples()) + ", p = " + count(dimension()) +
         ", max |g_i| = " + format_value(g_.rowwise().norm().maxCoeff()) + ")";
}

}  // namespace dpkit::sim
