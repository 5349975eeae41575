// dpkit/sim/statistics.hpp — the statistics with which the reference simulator judges its
// Monte Carlo output: confidence intervals for proportions and means, Kolmogorov–Smirnov
// goodness of fit, and Mahalanobis distances with a χ² Q–Q check for Gaussian laws.
//
// Every function states what it returns: an exact interval (Clopper–Pearson: coverage ≥ the
// nominal level for every p), or an approximation (the t interval for non-normal data, the
// asymptotic Kolmogorov p-value). Bad input throws std::domain_error with the message
// "<function>: <name> is <value>, but must be <constraint>" (dpkit/core/check.hpp).
//
// Uses only dpkit::core, Boost.Math and Eigen (the sim module must not know any bound).
#pragma once

#include <Eigen/Dense>
#include <cmath>
#include <cstddef>
#include <functional>
#include <span>
#include <vector>

namespace dpkit::sim {

/// A two-sided confidence interval [lower, upper] around a point estimate.
struct confidence_interval {
  double lower = NAN;       ///< lower confidence limit
  double upper = NAN;       ///< upper confidence limit
  double estimate = NAN;    ///< the point estimate (k/n for a proportion, the sample mean)
  double confidence = NAN;  ///< nominal two-sided coverage, e.g. 0.95
};

// --- proportions and means ---------------------------------------------------------------

/// Clopper–Pearson ("exact") two-sided interval for a binomial proportion p from k successes
/// in n trials, at coverage `confidence` = 1 − a (Clopper & Pearson 1934, Biometrika 26:404):
///
///     lower = I⁻¹_{a/2}(k, n − k + 1)        (0 when k = 0)
///     upper = I⁻¹_{1−a/2}(k + 1, n − k)      (1 when k = n)
///
/// with I⁻¹ the inverse regularised incomplete beta function (Boost.Math ibeta_inv /
/// ibetac_inv; the upper limit is taken from the complement so a/2 ≪ 1 is not rounded). Each
/// tail has probability ≤ a/2, so P(lower ≤ p ≤ upper) ≥ confidence for every p and n: the
/// interval is a certified (conservative) confidence interval, not an approximation. For
/// k = 0 the upper limit is 1 − (a/2)^{1/n}, for k = n the lower limit is (a/2)^{1/n}.
/// Requires n ≥ 1, k ≤ n, confidence ∈ (0, 1). `estimate` = k/n.
confidence_interval clopper_pearson(std::size_t successes, std::size_t trials, double confidence);

/// Two-sided interval for a population mean from the sample mean and the sample standard
/// deviation s (denominator n − 1) of n ≥ 2 observations:
///
///     mean ± t_{(1+confidence)/2, n−1} · s / √n
///
/// with the Student t quantile (Boost.Math students_t_distribution) for every n — it is exact
/// for normal data and tends to the normal quantile z_{(1+confidence)/2} as n grows, so no
/// switch between t and z is needed. For non-normal data it is an **approximation** (CLT),
/// with no guarantee at small n. Requires mean finite, standard_deviation finite and ≥ 0,
/// n ≥ 2, confidence ∈ (0, 1).
confidence_interval mean_interval(double mean,
                                  double standard_deviation,
                                  std::size_t n,
                                  double confidence);

// --- Kolmogorov–Smirnov ------------------------------------------------------------------

/// One-sample Kolmogorov–Smirnov statistic D_n = sup_x |F_n(x) − F(x)| of the samples
/// against a continuous CDF F. Computed on a sorted copy x₍₁₎ ≤ … ≤ x₍ₙ₎ as
/// max_i max(i/n − F(x₍ᵢ₎), F(x₍ᵢ₎) − (i − 1)/n) (exact for continuous F). Requires at least
/// one sample, no NaN samples (±∞ allowed), and F(x) ∈ [0, 1] at every sample.
double ks_statistic(std::span<const double> samples, const std::function<double(double)>& cdf);

/// Two-sample Kolmogorov–Smirnov statistic D = sup_x |F_a(x) − F_b(x)| of the two empirical
/// CDFs, evaluated exactly at every jump (tied values are stepped over together in both
/// samples). Requires both samples non-empty and free of NaN. Its p-value:
/// ks_p_value(D, n_a·n_b/(n_a + n_b)).
double ks_two_sample(std::span<const double> a, std::span<const double> b);

/// Survival function of the Kolmogorov distribution (the limit law of √n·D_n):
///
///     Q_KS(λ) = P(K > λ) = 2 Σ_{j≥1} (−1)^{j−1} exp(−2 j² λ²)                  (λ ≥ 1.18)
///             = 1 − (√(2π)/λ) Σ_{j≥1} exp(−(2j − 1)² π² / (8 λ²))          (λ < 1.18)
///
/// (Kolmogorov 1933; the second form is the Jacobi-theta transform of the first, used where
/// the alternating series converges slowly; Numerical Recipes 3rd ed. §6.14.12). Both series
/// are summed until the next term is below 1e-17 relative; agreement with 40-digit mpmath
/// values is ~1e-15 (statistics_test.cpp). λ ≤ 0 gives 1, λ = +∞ gives 0; NaN throws.
double kolmogorov_survival(double lambda);

/// **Approximate** p-value of a Kolmogorov–Smirnov statistic D from (effective) sample size
/// n: Q_KS((√n + 0.12 + 0.11/√n) · D), Stephens' small-sample correction of the asymptotic
/// law (Stephens 1970, JRSS B 32:115; Numerical Recipes 3rd ed. §14.3.3). It is an
/// approximation, not a bound: Stephens reports it accurate for n ≥ 4 in the upper tail
/// (p ≲ 0.2), which is what tests use; statistics_test.cpp checks it by Monte Carlo. One
/// sample: n = number of samples; two samples: n = n_a·n_b/(n_a + n_b) (less accurate for
/// small samples because the two-sample law is discrete). Requires D ∈ [0, 1], n > 0 finite.
double ks_p_value(double statistic, double effective_n);

// --- Mahalanobis distances ---------------------------------------------------------------

/// Squared Mahalanobis distances d²_i = (x_i − m)ᵀ Σ⁻¹ (x_i − m) of the rows x_i of
/// `samples` (one sample per row, d columns) from `mean` (size d) under `covariance` (d × d),
/// computed through the Cholesky factor Σ = L Lᵀ (Eigen LLT) as ‖L⁻¹(x_i − m)‖², never by
/// forming Σ⁻¹. If x_i ~ N(m, Σ) then d²_i ~ χ²_d (exact), which chi_squared_qq checks.
/// Throws std::domain_error if the sizes disagree, any entry is not finite, Σ is not
/// symmetric (to a relative 1e-12), or Σ is not numerically positive definite (the Cholesky
/// factorisation fails, or its smallest pivot L_ii² is below d·ε_mach·max_i Σ_ii).
Eigen::VectorXd mahalanobis_squared(const Eigen::MatrixXd& samples,
                                    const Eigen::VectorXd& mean,
                                    const Eigen::MatrixXd& covariance);

/// One point of a Q–Q plot.
struct qq_point {
  double theoretical = NAN;  ///< quantile of the reference law at the plotting position
  double empirical = NAN;    ///< the order statistic
};

/// χ² Q–Q points for values that should be χ²_dof distributed (e.g. mahalanobis_squared with
/// dof = d): the i-th smallest value (i = 1, …, n) against the χ²_dof quantile at the
/// plotting position (i − 0.5)/n (Hazen's positions; Boost.Math chi_squared_distribution
/// quantile). Points lie near the diagonal when the law is right; this is a diagnostic, not a
/// test (use ks_statistic for a p-value). Requires at least one value, no NaN, dof > 0 finite.
std::vector<qq_point> chi_squared_qq(std::span<const double> values, double dof);

/// Overload for the output of mahalanobis_squared.
inline std::vector<qq_point> chi_squared_qq(const Eigen::VectorXd& values, double dof) {
  return chi_squared_qq(std::span<const double>(values.data(), values.size()), dof);
}

}  // namespace dpkit::sim
