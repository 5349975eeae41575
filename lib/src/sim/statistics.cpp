#include "dpkit/sim/statistics.hpp"

#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
#include <boost/math/distributions/students_t.hpp>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>

#include "dpkit/core/binomial.hpp"
#include "dpkit/core/check.hpp"

namespace dpkit::sim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

void check_samples(const char* function, const char* name, std::span<const double> x) {
  if (x.empty()) throw_domain_error(function, "size of " + std::string(name), "0", ">= 1");
  for (std::size_t i = 0; i < x.size(); ++i)
    if (std::isnan(x[i]))
      check_not_nan(function, std::string(name) + "[" + std::to_string(i) + "]", x[i]);
}

std::string shape(Eigen::Index rows, Eigen::Index cols) {
  return std::to_string(rows) + "x" + std::to_string(cols);
}

}  // namespace

confidence_interval clopper_pearson(std::size_t successes, std::size_t trials, double confidence) {
  constexpr const char* kFunction = "clopper_pearson";
  check_at_least(kFunction, "trials", static_cast<long long>(trials), 1);
  if (successes > trials)
    throw_domain_error(kFunction, "successes", format_value(static_cast<long long>(successes)),
                       "<= trials (" + format_value(static_cast<long long>(trials)) + ")");
  check_open_probability(kFunction, "confidence", confidence);

  const double tail = 0.5 * (1 - confidence);  // a/2 on each side
  confidence_interval ci;
  ci.estimate = static_cast<double>(successes) / static_cast<double>(trials);
  ci.confidence = confidence;
  ci.lower = binomial_lower_limit(successes, trials, tail);  // dpkit/core/binomial.hpp
  ci.upper = binomial_upper_limit(successes, trials, tail);
  return ci;
}

confidence_interval mean_interval(double mean,
                                  double standard_deviation,
                                  std::size_t n,
                                  double confidence) {
  constexpr const char* kFunction = "mean_interval";
  check_finite(kFunction, "mean", mean);
  check_nonnegative(kFunction, "standard_deviation", standard_deviation);
  check_at_least(kFunction, "n", static_cast<long long>(n), 2);
  check_open_probability(kFunction, "confidence", confidence);

  const double nd = static_cast<double>(n);
  const boost::math::students_t_distribution<double> t(nd - 1);
  // Upper quantile from the complement, so that confidence close to 1 is not rounded.
  const double q = boost::math::quantile(boost::math::complement(t, 0.5 * (1 - confidence)));
  const double half_width = q * standard_deviation / std::sqrt(nd);
  return {.lower = mean - half_width,
          .upper = mean + half_width,
          .estimate = mean,
          .confidence = confidence};
}

double ks_statistic(std::span<const double> samples, const std::function<double(double)>& cdf) {
  constexpr const char* kFunction = "ks_statistic";
  check_samples(kFunction, "samples", samples);
  std::vector<double> x(samples.begin(), samples.end());
  std::sort(x.begin(), x.end());
  const double n = static_cast<double>(x.size());
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double f = cdf(x[i]);
    check_probability(kFunction, "cdf(sample)", f);
    const double above = static_cast<double>(i + 1) / n - f;  // F_n jumps to (i+1)/n at x₍ᵢ₎
    const double below = f - static_cast<double>(i) / n;      // F_n is i/n just before x₍ᵢ₎
    d = std::max({d, above, below});
  }
  return d;
}

double ks_two_sample(std::span<const double> a, std::span<const double> b) {
  constexpr const char* kFunction = "ks_two_sample";
  check_samples(kFunction, "a", a);
  check_samples(kFunction, "b", b);
  std::vector<double> x(a.begin(), a.end()), y(b.begin(), b.end());
  std::sort(x.begin(), x.end());
  std::sort(y.begin(), y.end());
  const double na = static_cast<double>(x.size()), nb = static_cast<double>(y.size());
  std::size_t i = 0, j = 0;
  double d = 0;
  // Walk the pooled jump points in order; after stepping over every copy of the current value
  // in both samples, both empirical CDFs are evaluated at that value.
  while (i < x.size() && j < y.size()) {
    const double v = std::min(x[i], y[j]);
    while (i < x.size() && x[i] == v) ++i;
    while (j < y.size() && y[j] == v) ++j;
    d = std::max(d, std::abs(static_cast<double>(i) / na - static_cast<double>(j) / nb));
  }
  // Past the end of one sample its CDF is 1 and the other only increases towards 1, so the
  // last evaluated difference already bounds the rest.
  return d;
}

double kolmogorov_survival(double lambda) {
  check_not_nan("kolmogorov_survival", "lambda", lambda);
  if (lambda <= 0) return 1;
  if (lambda == kInf) return 0;
  // Series choice (Numerical Recipes 3rd ed. §6.14.12): at λ = 1.18 the alternating series
  // needs ~4 terms and the theta series ~4 terms; each converges faster on its own side.
  constexpr double kSwitch = 1.18;
  constexpr double kTermTolerance = 1e-17;
  constexpr int kMaxTerms = 100;  // never reached: ≤ 5 terms on either side of the switch
  if (lambda >= kSwitch) {
    // Q = 2 Σ (−1)^{j−1} e^{−2j²λ²}: terms decrease monotonically, so the truncation error is
    // below the first omitted term; the first term dominates, no cancellation in the tail.
    double sum = 0, sign = 1;
    for (int j = 1; j <= kMaxTerms; ++j) {
      const double term = std::exp(-2.0 * j * j * lambda * lambda);
      sum += sign * term;
      if (term <= kTermTolerance * sum) break;
      sign = -sign;
    }
    return 2 * sum;
  }
  // 1 − Q = (√(2π)/λ) Σ e^{−(2j−1)²π²/(8λ²)}; all terms positive, so 1 − Q is accurate to a
  // few ulp and Q = 1 − (1 − Q) ≥ 0.12 loses nothing.
  const double c = std::numbers::pi * std::numbers::pi / (8 * lambda * lambda);
  double sum = 0;
  for (int j = 1; j <= kMaxTerms; ++j) {
    const double m = 2.0 * j - 1;
    const double term = std::exp(-m * m * c);
    sum += term;
    if (term <= kTermTolerance * sum) break;
  }
  const double cdf = std::sqrt(2 * std::numbers::pi) / lambda * sum;
  return std::max(0.0, 1 - cdf);
}

double ks_p_value(double statistic, double effective_n) {
  constexpr const char* kFunction = "ks_p_value";
  check_bounded(kFunction, "statistic", statistic, 0, 1);
  check_positive(kFunction, "effective_n", effective_n);
  const double sqrt_n = std::sqrt(effective_n);
  // Stephens 1970 (JRSS B 32:115), Numerical Recipes 3rd ed. eq. (14.3.18).
  return kolmogorov_survival((sqrt_n + 0.12 + 0.11 / sqrt_n) * statistic);
}

Eigen::VectorXd mahalanobis_squared(const Eigen::MatrixXd& samples,
                                    const Eigen::VectorXd& mean,
                                    const Eigen::MatrixXd& covariance) {
  constexpr const char* kFunction = "mahalanobis_squared";
  const Eigen::Index d = mean.size();
  if (d < 1) throw_domain_error(kFunction, "size of mean", "0", ">= 1");
  if (covariance.rows() != d || covariance.cols() != d)
    throw_domain_error(kFunction, "shape of covariance",
                       shape(covariance.rows(), covariance.cols()),
                       shape(d, d) + " (the size of mean)");
  if (samples.cols() != d)
    throw_domain_error(kFunction, "columns of samples", std::to_string(samples.cols()),
                       std::to_string(d) + " (the size of mean)");
  if (!samples.allFinite()) throw_domain_error(kFunction, "samples", "not all finite", "finite");
  if (!mean.allFinite()) throw_domain_error(kFunction, "mean", "not all finite", "finite");
  if (!covariance.allFinite())
    throw_domain_error(kFunction, "covariance", "not all finite", "finite");

  const double scale = covariance.cwiseAbs().maxCoeff();
  const double asymmetry = (covariance - covariance.transpose()).cwiseAbs().maxCoeff();
  if (asymmetry > 1e-12 * scale)
    throw_domain_error(kFunction, "max |covariance - covariance^T|", asymmetry,
                       "<= 1e-12 max |covariance| (symmetric)");

  const Eigen::LLT<Eigen::MatrixXd> llt(covariance);
  // LLT only fails on a non-positive pivot; a pivot that survives only by rounding (a singular
  // Σ) is rejected too, so that d² is never dominated by the inverse of rounding noise.
  const double min_pivot =
      llt.info() == Eigen::Success ? llt.matrixLLT().diagonal().array().square().minCoeff() : 0;
  const double pivot_floor = static_cast<double>(d) * std::numeric_limits<double>::epsilon() *
                             covariance.diagonal().maxCoeff();
  if (!(llt.info() == Eigen::Success && min_pivot > pivot_floor))
    throw_domain_error(kFunction, "smallest Cholesky pivot of covariance", min_pivot,
                       "> " + format_value(pivot_floor) + " (positive definite)");

  // Columns of Y = L⁻¹ (X − m)ᵀ; d²_i = ‖Y_i‖².
  Eigen::MatrixXd centred = (samples.rowwise() - mean.transpose()).transpose();
  llt.matrixL().solveInPlace(centred);
  return centred.colwise().squaredNorm().transpose();
}

std::vector<qq_point> chi_squared_qq(std::span<const double> values, double dof) {
  constexpr const char* kFunction = "chi_squared_qq";
  check_samples(kFunction, "values", values);
  check_positive(kFunction, "dof", dof);
  std::vector<double> x(values.begin(), values.end());
  std::sort(x.begin(), x.end());
  const boost::math::chi_squared_distribution<double> chi2(dof);
  const double n = static_cast<double>(x.size());
  std::vector<qq_point> points(x.size());
  for (std::size_t i = 0; i < x.size(); ++i)
    points[i] = {.theoretical = boost::math::quantile(chi2, (static_cast<double>(i) + 0.5) / n),
                 .empirical = x[i]};
  return points;
}

}  // namespace dpkit::sim
