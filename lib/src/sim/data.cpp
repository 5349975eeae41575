#include "dpkit/sim/data.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "dpkit/core/check.hpp"

namespace dpkit::sim {
namespace {

std::string count(long long n) {
  return format_value(n);
}

void check_rows(const char* fn, std::size_t n) {
  if (n == 0) throw_domain_error(fn, "n", "0", ">= 1");
}

void check_eigenvalues(const char* fn, const Eigen::Ref<const Eigen::VectorXd>& eigenvalues) {
  check_at_least(fn, "eigenvalues.size()", eigenvalues.size(), 1);
  for (Eigen::Index j = 0; j < eigenvalues.size(); ++j)
    check_nonnegative(fn, "eigenvalues(" + count(j) + ")", eigenvalues(j));
}

// Names an entry "name(i, j)", or "name(i)" for a vector.
void check_all_finite(const char* fn,
                      const char* name,
                      const Eigen::Ref<const Eigen::MatrixXd>& m,
                      bool is_vector = false) {
  for (Eigen::Index j = 0; j < m.cols(); ++j)
    for (Eigen::Index i = 0; i < m.rows(); ++i)
      if (!std::isfinite(m(i, j)))
        throw_domain_error(
            fn, std::string(name) + "(" + count(i) + (is_vector ? "" : ", " + count(j)) + ")",
            m(i, j), "finite");
}

// Checks shared by the label generators: a non-empty design, finite entries, and a parameter
// with as many rows as the design has columns.
void check_design_and_parameter(const char* fn,
                                const Eigen::Ref<const Eigen::MatrixXd>& features,
                                const char* parameter_name,
                                const Eigen::Ref<const Eigen::MatrixXd>& parameter,
                                bool is_vector) {
  check_at_least(fn, "features.rows()", features.rows(), 1);
  check_at_least(fn, "features.cols()", features.cols(), 1);
  if (parameter.rows() != features.cols())
    throw_domain_error(fn, std::string(parameter_name) + (is_vector ? ".size()" : ".rows()"),
                       count(parameter.rows()), "features.cols() = " + count(features.cols()));
  check_all_finite(fn, "features", features);
  check_all_finite(fn, parameter_name, parameter, is_vector);
}

// n×d standard normal matrix, drawn row by row (the documented draw order).
Eigen::MatrixXd standard_normal_rows(std::size_t n, Eigen::Index d, random_stream& stream) {
  Eigen::MatrixXd z(static_cast<Eigen::Index>(n), d);
  for (Eigen::Index i = 0; i < z.rows(); ++i)
    for (Eigen::Index j = 0; j < d; ++j) z(i, j) = stream.normal();
  return z;
}

}  // namespace

Eigen::MatrixXd gaussian_design(std::size_t n,
                                const Eigen::Ref<const Eigen::VectorXd>& eigenvalues,
                                random_stream& stream) {
  constexpr const char* fn = "gaussian_design";
  check_rows(fn, n);
  check_eigenvalues(fn, eigenvalues);
  Eigen::MatrixXd a = standard_normal_rows(n, eigenvalues.size(), stream);
  // a_ij = √λ_j z_ij: row covariance diag(λ).
  a *= eigenvalues.cwiseSqrt().asDiagonal();
  return a;
}

Eigen::MatrixXd gaussian_design(std::size_t n,
                                const Eigen::Ref<const Eigen::VectorXd>& eigenvalues,
                                const Eigen::Ref<const Eigen::MatrixXd>& basis,
                                random_stream& stream) {
  constexpr const char* fn = "gaussian_design";
  check_rows(fn, n);
  check_eigenvalues(fn, eigenvalues);
  const Eigen::Index d = eigenvalues.size();
  if (basis.rows() != d || basis.cols() != d)
    throw_domain_error(fn, "basis", count(basis.rows()) + "x" + count(basis.cols()),
                       "square of size eigenvalues.size() = " + count(d));
  check_all_finite(fn, "basis", basis);
  const double defect =
      (basis.transpose() * basis - Eigen::MatrixXd::Identity(d, d)).cwiseAbs().maxCoeff();
  if (defect > 1e-8)
    throw_domain_error(fn, "max |basisᵀ·basis − I|", defect, "<= 1e-8 (an orthogonal basis)");
  const Eigen::MatrixXd z = standard_normal_rows(n, d, stream);
  // Row i: a_iᵀ = z_iᵀ diag(√λ) Uᵀ, so Cov(a_i) = U diag(λ) Uᵀ.
  return z * eigenvalues.cwiseSqrt().asDiagonal() * basis.transpose();
}

Eigen::MatrixXd random_orthogonal(std::size_t d, random_stream& stream) {
  constexpr const char* fn = "random_orthogonal";
  if (d == 0) throw_domain_error(fn, "d", "0", ">= 1");
  const auto m = static_cast<Eigen::Index>(d);
  Eigen::MatrixXd g(m, m);
  for (Eigen::Index j = 0; j < m; ++j)
    for (Eigen::Index i = 0; i < m; ++i) g(i, j) = stream.normal();
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  Eigen::MatrixXd q = qr.householderQ();
  // Mezzadri (2007) §5: Q·diag(sign R_jj) is Haar on O(d). R_jj = 0 has probability zero.
  const auto& r = qr.matrixQR();
  for (Eigen::Index j = 0; j < m; ++j)
    if (r(j, j) < 0) q.col(j) = -q.col(j);
  return q;
}

Eigen::MatrixXd uniform_design(std::size_t n, std::size_t d, random_stream& stream) {
  constexpr const char* fn = "uniform_design";
  check_rows(fn, n);
  if (d == 0) throw_domain_error(fn, "d", "0", ">= 1");
  const auto rows = static_cast<Eigen::Index>(n), cols = static_cast<Eigen::Index>(d);
  // LKSP25 §5: a_ij ~ U(0, 1/√d).
  const double scale = 1 / std::sqrt(static_cast<double>(d));
  Eigen::MatrixXd a(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) a(i, j) = scale * stream.uniform();
  return a;
}

Eigen::VectorXd linear_labels(const Eigen::Ref<const Eigen::MatrixXd>& features,
                              const Eigen::Ref<const Eigen::VectorXd>& x_star,
                              double noise_sd,
                              random_stream& stream,
                              double clamp) {
  constexpr const char* fn = "linear_labels";
  check_design_and_parameter(fn, features, "x_star", x_star, true);
  // ξ² enters every risk: beyond 1e150 it overflows (a probe's 1e308 gave labels of ±inf).
  if (!(noise_sd >= 0 && noise_sd <= 1e150))
    throw_domain_error(fn, "noise_sd", noise_sd, "in [0, 1e150] (the squared labels overflow beyond)");
  if (!(clamp >= 0)) throw_domain_error(fn, "clamp", clamp, ">= 0 (+inf: no clamping)");
  // LKSP25 §1.3 Assumption 2 / §5: b = aᵀx̃ + ξ, ξ ~ N(0, noise_sd²) clamped (np.clip).
  Eigen::VectorXd y = features * x_star;
  for (Eigen::Index i = 0; i < y.size(); ++i) {
    const double xi = noise_sd * stream.normal();
    y(i) += std::fmin(std::fmax(xi, -clamp), clamp);
  }
  return y;
}

Eigen::VectorXd logistic_labels(const Eigen::Ref<const Eigen::MatrixXd>& features,
                                const Eigen::Ref<const Eigen::VectorXd>& x_star,
                                random_stream& stream) {
  constexpr const char* fn = "logistic_labels";
  check_design_and_parameter(fn, features, "x_star", x_star, true);
  const Eigen::VectorXd z = features * x_star;
  Eigen::VectorXd y(z.size());
  for (Eigen::Index i = 0; i < z.size(); ++i) {
    // P(y = +1) = 1/(1 + e^{−z}), evaluated without overflow on either side.
    const double p = z(i) >= 0 ? 1 / (1 + std::exp(-z(i))) : std::exp(z(i)) / (1 + std::exp(z(i)));
    y(i) = stream.uniform() < p ? 1.0 : -1.0;
  }
  return y;
}

Eigen::VectorXd softmax_labels(const Eigen::Ref<const Eigen::MatrixXd>& features,
                               const Eigen::Ref<const Eigen::MatrixXd>& w_star,
                               random_stream& stream) {
  constexpr const char* fn = "softmax_labels";
  check_design_and_parameter(fn, features, "w_star", w_star, false);
  check_at_least(fn, "the number of classes w_star.cols()", w_star.cols(), 2);
  const Eigen::MatrixXd logits = features * w_star;  // n×K, row i = (a_iᵀw_k)_k
  const Eigen::Index k_classes = logits.cols();
  Eigen::VectorXd y(logits.rows());
  Eigen::VectorXd weights(k_classes);
  for (Eigen::Index i = 0; i < logits.rows(); ++i) {
    // P(k) = exp(z_k − max z)/Σ_j exp(z_j − max z): the shift cancels and nothing overflows.
    const double top = logits.row(i).maxCoeff();
    for (Eigen::Index k = 0; k < k_classes; ++k) weights(k) = std::exp(logits(i, k) - top);
    // Inverse CDF with u·Σ weights, avoiding a division. If rounding in the running
    // subtraction leaves u unassigned, it goes to the last class of positive probability, never
    // to one whose weight underflowed to 0.
    double target = stream.uniform() * weights.sum();
    Eigen::Index label = k_classes - 1;
    while (weights(label) == 0) --label;  // the maximum logit has weight 1, so this stops
    for (Eigen::Index k = 0; k < label; ++k) {
      if (target < weights(k)) {
        label = k;
        break;
      }
      target -= weights(k);
    }
    y(i) = static_cast<double>(label);
  }
  return y;
}

dataset unit_ball_margin_data(std::size_t n,
                              const Eigen::Ref<const Eigen::VectorXd>& direction,
                              double margin,
                              random_stream& stream) {
  constexpr const char* fn = "unit_ball_margin_data";
  check_rows(fn, n);
  check_at_least(fn, "direction.size()", direction.size(), 1);
  check_all_finite(fn, "direction", direction, true);
  const double norm = direction.norm();
  if (!(norm > 0)) throw_domain_error(fn, "|direction|", norm, "> 0");
  if (!(margin >= 0 && margin < 1)) throw_domain_error(fn, "margin", margin, "in [0, 1)");
  const Eigen::VectorXd v = direction / norm;
  const Eigen::Index d = v.size();
  dataset data;
  data.features.resize(static_cast<Eigen::Index>(n), d);
  data.labels.resize(static_cast<Eigen::Index>(n));
  Eigen::VectorXd z(d);
  for (Eigen::Index i = 0; i < data.features.rows(); ++i) {
    const double y = stream.uniform() < 0.5 ? 1.0 : -1.0;
    const double t = margin + (1 - margin) * stream.uniform();
    for (Eigen::Index j = 0; j < d; ++j) z(j) = stream.normal();
    const double u3 = stream.uniform();
    // Uniform direction in v⊥ (the projection of an isotropic Gaussian), uniform radius in the
    // (d − 1)-ball of radius √(1 − t²): r = R·U^{1/(d−1)}.
    z -= v.dot(z) * v;
    const double zn = z.norm();
    const double rho =
        d > 1 && zn > 0 ? std::sqrt(1 - t * t) * std::pow(u3, 1 / static_cast<double>(d - 1)) / zn
                        : 0.0;
    Eigen::VectorXd x = y * t * v + rho * z;
    // t² + ρ² ≤ 1 exactly; rounding may leave ‖x‖ a few ulp above 1, which is pulled back.
    const double xn = x.norm();
    if (xn > 1) x /= xn * (1 + 4 * std::numeric_limits<double>::epsilon());
    data.features.row(i) = x.transpose();
    data.labels(i) = y;
  }
  return data;
}

}  // namespace dpkit::sim
