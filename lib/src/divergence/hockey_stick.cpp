#include "dpkit/divergence/hockey_stick.hpp"

#include <cmath>

#include "dpkit/core/check.hpp"
#include "dpkit/divergence/gdp.hpp"

namespace dpkit::divergence {
namespace {
constexpr const char* kFn = "hockey_stick_divergence";
}

double hockey_stick_divergence(const univariate_normal& p,
                               const univariate_normal& q,
                               double epsilon) {
  check_finite(kFn, "p.mean", p.mean);
  check_finite(kFn, "q.mean", q.mean);
  check_positive(kFn, "p.variance", p.variance);
  check_positive(kFn, "q.variance", q.variance);
  check_finite(kFn, "epsilon", epsilon);
  if (std::abs(p.variance - q.variance) > 1e-12 * q.variance)
    throw_domain_error(kFn, "p.variance", p.variance,
                       "equal to q.variance = " + format_value(q.variance) +
                           " (unequal variances are not supported)");
  // Balle & Wang (2018) Thm 8: depends only on μ = |m₁ − m₂|/σ.
  return gdp_delta(std::abs(p.mean - q.mean) / std::sqrt(q.variance), epsilon);
}

double hockey_stick_divergence(const multivariate_normal& p,
                               const multivariate_normal& q,
                               double epsilon) {
  check_finite(kFn, "epsilon", epsilon);
  const Eigen::Index d = p.mean.size();
  if (q.mean.size() != d || p.covariance.rows() != d || p.covariance.cols() != d ||
      q.covariance.rows() != d || q.covariance.cols() != d)
    throw_domain_error(kFn, "the dimensions", "inconsistent",
                       "mean sizes equal to covariance sizes");
  if (!p.mean.allFinite() || !q.mean.allFinite())
    throw_domain_error(kFn, "a mean", "non-finite", "finite");
  const double scale = q.covariance.cwiseAbs().maxCoeff();
  if ((p.covariance - q.covariance).cwiseAbs().maxCoeff() > 1e-12 * scale)
    throw_domain_error(kFn, "p.covariance", "different from q.covariance",
                       "equal to q.covariance (unequal covariances are not supported)");
  const Eigen::LDLT<Eigen::MatrixXd> ldlt(q.covariance);
  if (ldlt.info() != Eigen::Success || !(ldlt.vectorD().minCoeff() > 0))
    throw_domain_error(kFn, "q.covariance (smallest LDLT pivot)",
                       d == 0 ? 0.0 : ldlt.vectorD().minCoeff(), "> 0 (positive definite)");
  const Eigen::VectorXd delta = p.mean - q.mean;
  return gdp_delta(std::sqrt(std::max(delta.dot(ldlt.solve(delta)), 0.0)), epsilon);
}

}  // namespace dpkit::divergence
