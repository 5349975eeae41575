#include "dpkit/divergence/gaussian_renyi.hpp"

#include <cmath>
#include <string>

#include "dpkit/core/check.hpp"

namespace dpkit::divergence {
namespace {

constexpr const char* kFn = "renyi_divergence";

void check_normal(const char* name, const univariate_normal& n) {
  check_finite(kFn, std::string(name) + ".mean", n.mean);
  check_positive(kFn, std::string(name) + ".variance", n.variance);
}

// LDLT of an SPD matrix with its log-determinant; throws the check_* message otherwise.
struct spd_factor {
  Eigen::LDLT<Eigen::MatrixXd> ldlt;
  double log_det = 0;
};

spd_factor factor_spd(const Eigen::MatrixXd& m, const std::string& name, const std::string& why) {
  spd_factor f;
  if (!m.allFinite()) throw_domain_error(kFn, name, "non-finite", "finite");
  const double asym = (m - m.transpose()).cwiseAbs().maxCoeff();
  if (asym > 1e-12 * m.cwiseAbs().maxCoeff())
    throw_domain_error(kFn, name + " (max |V - V^T|)", asym, "0 (a symmetric matrix)");
  f.ldlt.compute(m);
  const double min_pivot = m.rows() == 0 ? 1.0 : f.ldlt.vectorD().minCoeff();
  if (f.ldlt.info() != Eigen::Success || !(min_pivot > 0))
    throw_domain_error(kFn, name + " (smallest LDLT pivot)", min_pivot, "> 0, " + why);
  f.log_det = f.ldlt.vectorD().array().log().sum();
  return f;
}

}  // namespace

double renyi_divergence(const univariate_normal& p, const univariate_normal& q, double alpha) {
  check_positive(kFn, "alpha", alpha);
  check_normal("p", p);
  check_normal("q", q);
  const double delta = p.mean - q.mean;
  const double t = (p.variance - q.variance) / q.variance;  // r − 1 with r = v₁/v₂
  if (alpha == 1) {
    // KL(P‖Q) = ½[(r − 1) − log r + Δ²/v₂]; t − log1p(t) keeps r ≈ 1 accurate.
    return 0.5 * ((t - std::log1p(t)) + delta * delta / q.variance);
  }
  // Gil et al. (2013) (GAL13), in the correct order (docs/findings.md): M = α v₂ + (1 − α) v₁.
  const double m = alpha * q.variance + (1 - alpha) * p.variance;
  if (!(m > 0))
    throw_domain_error(kFn, "alpha*q.variance + (1-alpha)*p.variance", m,
                       "> 0 (otherwise D_alpha(p||q) = +inf)");
  // log(M/v₂) − (1 − α) log(v₁/v₂), with M/v₂ = 1 + (1 − α)t.
  const double log_term = std::log1p((1 - alpha) * t) - (1 - alpha) * std::log1p(t);
  return 0.5 * alpha * delta * delta / m - log_term / (2 * (alpha - 1));
}

double renyi_divergence(const multivariate_normal& p, const multivariate_normal& q, double alpha) {
  check_positive(kFn, "alpha", alpha);
  const Eigen::Index d = p.mean.size();
  auto check_dim = [&](const char* name, Eigen::Index size) {
    if (size != d)
      throw_domain_error(kFn, name, format_value(static_cast<long long>(size)),
                         "equal to p.mean.size() = " + format_value(static_cast<long long>(d)));
  };
  check_dim("q.mean.size()", q.mean.size());
  check_dim("p.covariance.rows()", p.covariance.rows());
  check_dim("p.covariance.cols()", p.covariance.cols());
  check_dim("q.covariance.rows()", q.covariance.rows());
  check_dim("q.covariance.cols()", q.covariance.cols());
  if (!p.mean.allFinite()) throw_domain_error(kFn, "p.mean", "non-finite", "finite");
  if (!q.mean.allFinite()) throw_domain_error(kFn, "q.mean", "non-finite", "finite");
  const spd_factor v1 = factor_spd(p.covariance, "p.covariance", "positive definite");
  const spd_factor v2 = factor_spd(q.covariance, "q.covariance", "positive definite");
  const Eigen::VectorXd delta = p.mean - q.mean;
  if (alpha == 1) {
    // KL = ½[tr(V₂⁻¹V₁) + Δᵀ V₂⁻¹ Δ − d + log det V₂ − log det V₁].
    const double trace = v2.ldlt.solve(p.covariance).trace();
    const double quad = delta.dot(v2.ldlt.solve(delta));
    return 0.5 * (trace + quad - static_cast<double>(d) + v2.log_det - v1.log_det);
  }
  const Eigen::MatrixXd m = alpha * q.covariance + (1 - alpha) * p.covariance;
  const spd_factor mf = factor_spd(
      m, "alpha*q.covariance + (1-alpha)*p.covariance",
      "positive definite (otherwise D_alpha(p||q) = +inf) at alpha = " + format_value(alpha));
  const double quad = delta.dot(mf.ldlt.solve(delta));
  const double log_term = mf.log_det - (1 - alpha) * v1.log_det - alpha * v2.log_det;
  return 0.5 * alpha * quad - log_term / (2 * (alpha - 1));
}

}  // namespace dpkit::divergence
