#include "dpkit/volterra/spectrum.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <numbers>
#include <numeric>
#include <ostream>
#include <stdexcept>
#include <string>

#include "dpkit/core/check.hpp"
#include "dpkit/core/csv.hpp"
#include "dpkit/core/parse.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/core/roots.hpp"

namespace dpkit::volterra {
namespace {

// Relative slack of the Cauchy–Schwarz and Σk = d checks (rounding in user-computed sums).
constexpr double kConsistencySlack = 1e-12;

std::string field(std::size_t g, const char* name) {
  return "groups[" + std::to_string(g) + "]." + name;
}

void check_parameters(std::string_view fn, const problem_parameters& params) {
  check_nonnegative(fn, "ridge", params.ridge);
  check_nonnegative(fn, "label_noise", params.label_noise);
  check_nonnegative(fn, "sigma", params.sigma);
}

problem make_problem(std::vector<eigen_group> groups, long long d, const problem_parameters& prm) {
  problem p;
  p.groups = std::move(groups);
  p.d = d;
  p.ridge = prm.ridge;
  p.label_noise = prm.label_noise;
  p.sigma = prm.sigma;
  return p;
}

// Per-coordinate eigen-data, sorted by decreasing eigenvalue and merged into groups
// (see kDefaultGroupTolerance for the rule).
struct coordinate {
  double lambda, e0, xt;  // λ_i, x0,i − x̃_i, x̃_i
};

std::vector<eigen_group> group_coordinates(std::vector<coordinate> c, double tolerance) {
  std::sort(c.begin(), c.end(),
            [](const coordinate& a, const coordinate& b) { return a.lambda > b.lambda; });
  const double lambda_max = c.empty() ? 0.0 : std::abs(c.front().lambda);
  const double gap = tolerance * lambda_max;
  std::vector<eigen_group> groups;
  std::size_t i = 0;
  while (i < c.size()) {
    const double first = c[i].lambda;
    eigen_group g{0, 0, 0, 0, 0};
    double lambda_sum = 0;
    std::size_t j = i;
    // Anchored on the group's first member, so no chain of small gaps can drift.
    for (; j < c.size() && first - c[j].lambda <= gap; ++j) {
      lambda_sum += c[j].lambda;
      g.e0_sq += c[j].e0 * c[j].e0;
      g.xstar_sq += c[j].xt * c[j].xt;
      g.e0_xstar += c[j].e0 * c[j].xt;
    }
    g.multiplicity = static_cast<double>(j - i);
    g.eigenvalue = j - i == 1 ? first : lambda_sum / g.multiplicity;
    groups.push_back(g);
    i = j;
  }
  return groups;
}

// Spreads the totals over the groups by multiplicity (energies' documented meaning).
void spread(std::vector<eigen_group>& groups, long long d, const energies& e) {
  for (eigen_group& g : groups) {
    const double share = g.multiplicity / static_cast<double>(d);
    g.e0_sq = share * e.e0_sq;
    g.xstar_sq = share * e.xstar_sq;
    g.e0_xstar = share * e.e0_xstar;
  }
}

void check_energies(std::string_view fn, const energies& e) {
  check_nonnegative(fn, "energies.e0_sq", e.e0_sq);
  check_nonnegative(fn, "energies.xstar_sq", e.xstar_sq);
  check_finite(fn, "energies.e0_xstar", e.e0_xstar);
  const double bound = std::sqrt(e.e0_sq * e.xstar_sq);
  if (std::abs(e.e0_xstar) > bound * (1 + kConsistencySlack))
    throw_domain_error(fn, "energies.e0_xstar", e.e0_xstar,
                       "at most " + format_value(bound) +
                           " in absolute value (Cauchy-Schwarz: the square root of the start "
                           "error times the target norm)");
}

void check_vector(std::string_view fn,
                  std::string_view name,
                  std::span<const double> v,
                  long long d) {
  if (static_cast<long long>(v.size()) != d)
    throw_domain_error(fn, std::string(name) + ".size()",
                       format_value(static_cast<long long>(v.size())), "d = " + format_value(d));
  for (std::size_t i = 0; i < v.size(); ++i)
    check_finite(fn, std::string(name) + "[" + std::to_string(i) + "]", v[i]);
}

// ---- Marchenko–Pastur in the angle variable -------------------------------------------------
//
// [derived here] Substitute x(θ) = s²(1 + c) − 2s²√c cos θ, θ ∈ [0, π], which maps [0, π] onto
// the support [a, b]. Then √((b − x)(x − a)) = 2s²√c sin θ and dx = 2s²√c sin θ dθ, so
//   p(x) dx = (2s²/π) sin²θ / x(θ) dθ,        x p(x) dx = (2s²/π) sin²θ dθ.
// First moment up to θ:  M(θ) = (2s²/π)(θ/2 − sin(2θ)/4)          (M(π) = s²).
// CDF of the continuous part:  F_c(θ) = (2/π) ∫_0^θ sin²φ/(A − B cos φ) dφ, A = 1 + c, B = 2√c.
// With 1 − u² = (A − Bu)(u/B + A/B²) + (1 − A²/B²), u = cos φ, and A² − B² = (1 − c)²,
//   ∫_0^θ sin²φ/(A − B cos φ) dφ = sin θ/B + Aθ/B² − ((1 − c)²/(4c))·(2/|1 − c|)
//                                    · atan(((1 + √c)/|1 − √c|) tan(θ/2)),
// and for c = 1: (θ + sin θ)/2. Check: F_c(π) = 1 for c ≤ 1 and 1/c for c > 1 (the atom
// 1 − 1/c at 0 makes up the rest). The unit tests compare F with quadrature of the density.
double mp_continuous_cdf(double theta, double c) {
  const double sc = std::sqrt(c);
  if (c == 1) return (theta + std::sin(theta)) / std::numbers::pi;
  const double A = 1 + c, B = 2 * sc;
  if (c < 1e-4 || c > 1e4) {
    // The closed form cancels terms of size 1/(4c) (c/4 for large c) down to a result of size 1
    // (1/c), losing digits like eps/c (eps·c): at ratio 1e-20 it put the whole spectrum at 4s²
    // and 0 instead of near s² (found by probing). There, adaptive Gauss–Kronrod on the smooth
    // integrand (A − B cos φ ≥ (1 − √c)² > 0) keeps full relative accuracy.
    const auto f = [&](double phi) {
      const double s = std::sin(phi);
      return s * s / (A - B * std::cos(phi));
    };
    return 2 / std::numbers::pi *
           boost::math::quadrature::gauss_kronrod<double, 61>::integrate(f, 0.0, theta, 15, 1e-14);
  }
  const double half = theta / 2;
  // tan(θ/2) → ∞ at θ = π: atan → π/2.
  const double at = half >= std::numbers::pi / 2
                        ? std::numbers::pi / 2
                        : std::atan((1 + sc) / std::abs(1 - sc) * std::tan(half));
  const double integral =
      std::sin(theta) / B + A * theta / (B * B) - std::abs(1 - c) / (2 * c) * at;
  return 2 / std::numbers::pi * integral;
}

double mp_first_moment(double theta, double scale) {
  return 2 * scale / std::numbers::pi * (theta / 2 - std::sin(2 * theta) / 4);
}

// θ with F_c(θ) = target ∈ [0, F_c(π)], by TOMS 748 (core/roots.hpp).
double mp_theta(double target, double c) {
  const double top = mp_continuous_cdf(std::numbers::pi, c);
  if (target <= 0) return 0;
  if (target >= top) return std::numbers::pi;
  const root_result r = find_root([&](double th) { return mp_continuous_cdf(th, c) - target; }, 0.0,
                                  std::numbers::pi);
  if (!r.converged())
    throw std::runtime_error("marchenko_pastur: quantile search failed: " + r.message);
  return r.root;
}

std::string trim_copy(std::string s) {
  const auto first = s.find_first_not_of(" \t\r");
  const auto last = s.find_last_not_of(" \t\r");
  return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}

}  // namespace

void validate(const problem& p, std::string_view fn) {
  check_at_least(fn, "d", p.d, 1);
  check_parameters(fn, {p.ridge, p.label_noise, p.sigma});
  if (p.groups.empty()) throw_domain_error(fn, "groups.size()", "0", ">= 1");
  double total = 0;
  for (std::size_t g = 0; g < p.groups.size(); ++g) {
    const eigen_group& e = p.groups[g];
    check_nonnegative(fn, field(g, "eigenvalue"), e.eigenvalue);
    check_positive(fn, field(g, "multiplicity"), e.multiplicity);
    check_nonnegative(fn, field(g, "e0_sq"), e.e0_sq);
    check_nonnegative(fn, field(g, "xstar_sq"), e.xstar_sq);
    check_finite(fn, field(g, "e0_xstar"), e.e0_xstar);
    const double bound = std::sqrt(e.e0_sq * e.xstar_sq);
    if (std::abs(e.e0_xstar) > bound * (1 + kConsistencySlack))
      throw_domain_error(fn, field(g, "e0_xstar"), e.e0_xstar,
                         "at most sqrt(e0_sq*xstar_sq) = " + format_value(bound) +
                             " in absolute value (Cauchy-Schwarz)");
    total += e.multiplicity;
  }
  const double d = static_cast<double>(p.d);
  if (!(std::abs(total - d) <= kConsistencySlack * d))
    throw_domain_error(fn, "sum of multiplicities", total, "d = " + format_value(p.d));
}

problem from_groups(std::vector<eigen_group> groups, long long d, const problem_parameters& prm) {
  problem p = make_problem(std::move(groups), d, prm);
  validate(p, "from_groups");
  return p;
}

problem from_eigenvalues(std::span<const double> eigenvalues,
                         std::span<const double> x0,
                         std::span<const double> xtilde,
                         const problem_parameters& prm,
                         double group_tolerance) {
  constexpr const char* fn = "from_eigenvalues";
  const auto d = static_cast<long long>(eigenvalues.size());
  check_at_least(fn, "eigenvalues.size()", d, 1);
  check_nonnegative(fn, "group_tolerance", group_tolerance);
  check_parameters(fn, prm);
  check_vector(fn, "x0", x0, d);
  check_vector(fn, "xtilde", xtilde, d);
  std::vector<coordinate> c(eigenvalues.size());
  for (std::size_t i = 0; i < c.size(); ++i) {
    check_nonnegative(fn, "eigenvalues[" + std::to_string(i) + "]", eigenvalues[i]);
    c[i] = {eigenvalues[i], x0[i] - xtilde[i], xtilde[i]};
  }
  problem p = make_problem(group_coordinates(std::move(c), group_tolerance), d, prm);
  validate(p, fn);
  return p;
}

problem from_covariance(const Eigen::MatrixXd& S,
                        const Eigen::VectorXd& x0,
                        const Eigen::VectorXd& xtilde,
                        const problem_parameters& prm,
                        double group_tolerance) {
  constexpr const char* fn = "from_covariance";
  const auto d = static_cast<long long>(S.rows());
  check_at_least(fn, "sigma_matrix.rows()", d, 1);
  if (S.cols() != S.rows())
    throw_domain_error(fn, "sigma_matrix.cols()", format_value(static_cast<long long>(S.cols())),
                       "sigma_matrix.rows() = " + format_value(d) + " (square)");
  check_nonnegative(fn, "group_tolerance", group_tolerance);
  check_parameters(fn, prm);
  check_vector(fn, "x0", {x0.data(), static_cast<std::size_t>(x0.size())}, d);
  check_vector(fn, "xtilde", {xtilde.data(), static_cast<std::size_t>(xtilde.size())}, d);
  double max_abs = 0;
  for (Eigen::Index j = 0; j < S.cols(); ++j)
    for (Eigen::Index i = 0; i < S.rows(); ++i) {
      if (!std::isfinite(S(i, j)))
        throw_domain_error(fn, "sigma_matrix(" + std::to_string(i) + ", " + std::to_string(j) + ")",
                           S(i, j), "finite");
      max_abs = std::max(max_abs, std::abs(S(i, j)));
    }
  const double asym = (S - S.transpose()).cwiseAbs().maxCoeff();
  if (asym > 1e-12 * max_abs)
    throw_domain_error(
        fn, "max |sigma_matrix - sigma_matrix^T|", asym,
        "<= 1e-12 * max |sigma_matrix_ij| = " + format_value(1e-12 * max_abs) + " (symmetric)");
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(S);
  if (eig.info() != Eigen::Success)
    throw std::runtime_error("from_covariance: Eigen::SelfAdjointEigenSolver did not converge");
  const Eigen::VectorXd& lambda = eig.eigenvalues();  // increasing
  const double lambda_max = std::max(std::abs(lambda.maxCoeff()), std::abs(lambda.minCoeff()));
  const Eigen::VectorXd e0 = eig.eigenvectors().transpose() * (x0 - xtilde);
  const Eigen::VectorXd xt = eig.eigenvectors().transpose() * xtilde;
  std::vector<coordinate> c(static_cast<std::size_t>(d));
  for (Eigen::Index i = 0; i < lambda.size(); ++i) {
    double l = lambda(i);
    if (l < 0) {
      // Rounding of a singular Σ, or an indefinite matrix.
      if (l < -group_tolerance * lambda_max)
        throw_domain_error(fn, "smallest eigenvalue of sigma_matrix", l,
                           ">= -group_tolerance * max |eigenvalue| = " +
                               format_value(-group_tolerance * lambda_max) +
                               " (positive semidefinite)");
      l = 0;
    }
    c[static_cast<std::size_t>(i)] = {l, e0(i), xt(i)};
  }
  problem p = make_problem(group_coordinates(std::move(c), group_tolerance), d, prm);
  validate(p, fn);
  return p;
}

problem isotropic(long long d, double lambda, const energies& e, const problem_parameters& prm) {
  constexpr const char* fn = "isotropic";
  check_at_least(fn, "d", d, 1);
  check_nonnegative(fn, "lambda", lambda);
  check_energies(fn, e);
  check_parameters(fn, prm);
  std::vector<eigen_group> groups{{lambda, static_cast<double>(d), 0, 0, 0}};
  spread(groups, d, e);
  problem p = make_problem(std::move(groups), d, prm);
  validate(p, fn);
  return p;
}

problem spiked(long long d,
               double lambda_bulk,
               std::span<const double> spikes,
               const energies& e,
               const problem_parameters& prm) {
  constexpr const char* fn = "spiked";
  check_at_least(fn, "d", d, 1);
  check_nonnegative(fn, "lambda_bulk", lambda_bulk);
  const auto m = static_cast<long long>(spikes.size());
  if (m > d) throw_domain_error(fn, "spikes.size()", format_value(m), "<= d = " + format_value(d));
  check_energies(fn, e);
  check_parameters(fn, prm);
  std::vector<double> values(spikes.begin(), spikes.end());
  for (std::size_t j = 0; j < values.size(); ++j)
    check_nonnegative(fn, "spikes[" + std::to_string(j) + "]", values[j]);
  std::sort(values.begin(), values.end(), std::greater<>());
  std::vector<eigen_group> groups;
  for (double v : values) {
    if (!groups.empty() && groups.back().eigenvalue == v)
      groups.back().multiplicity += 1;
    else
      groups.push_back({v, 1, 0, 0, 0});
  }
  if (m < d) {
    auto same = std::find_if(groups.begin(), groups.end(),
                             [&](const eigen_group& g) { return g.eigenvalue == lambda_bulk; });
    if (same != groups.end())
      same->multiplicity += static_cast<double>(d - m);
    else
      groups.push_back({lambda_bulk, static_cast<double>(d - m), 0, 0, 0});
  }
  std::sort(groups.begin(), groups.end(),
            [](const eigen_group& a, const eigen_group& b) { return a.eigenvalue > b.eigenvalue; });
  spread(groups, d, e);
  problem p = make_problem(std::move(groups), d, prm);
  validate(p, fn);
  return p;
}

problem two_level(long long d,
                  double lambda_bulk,
                  double lambda_spike,
                  std::span<const double> x0,
                  std::span<const double> xtilde,
                  const problem_parameters& prm) {
  constexpr const char* fn = "two_level";
  check_at_least(fn, "d", d, 1);
  check_nonnegative(fn, "lambda_bulk", lambda_bulk);
  check_nonnegative(fn, "lambda_spike", lambda_spike);
  check_parameters(fn, prm);
  check_vector(fn, "x0", x0, d);
  check_vector(fn, "xtilde", xtilde, d);
  // Two-level Σ (docs/volterra.md): x_{0,1} = uᵀx0, x̃_1 = uᵀx̃, u = 𝟏/√d; the bulk parts are the
  // residuals.
  const double inv_sqrt_d = 1 / std::sqrt(static_cast<double>(d));
  double sum_e0 = 0, sum_xt = 0;
  for (long long i = 0; i < d; ++i) {
    sum_e0 += x0[static_cast<std::size_t>(i)] - xtilde[static_cast<std::size_t>(i)];
    sum_xt += xtilde[static_cast<std::size_t>(i)];
  }
  const double a = sum_e0 * inv_sqrt_d, b = sum_xt * inv_sqrt_d;  // u-components
  const double mean_e0 = sum_e0 / static_cast<double>(d);         // (uᵀv)u_i = mean of v
  const double mean_xt = sum_xt / static_cast<double>(d);
  eigen_group spike{lambda_spike, 1, a * a, b * b, a * b};
  eigen_group bulk{lambda_bulk, static_cast<double>(d - 1), 0, 0, 0};
  for (long long i = 0; i < d; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const double re = (x0[k] - xtilde[k]) - mean_e0, rx = xtilde[k] - mean_xt;
    bulk.e0_sq += re * re;
    bulk.xstar_sq += rx * rx;
    bulk.e0_xstar += re * rx;
  }
  std::vector<eigen_group> groups;
  if (d == 1) {
    groups.push_back(spike);
  } else if (lambda_spike == lambda_bulk) {
    spike.multiplicity += bulk.multiplicity;
    spike.e0_sq += bulk.e0_sq;
    spike.xstar_sq += bulk.xstar_sq;
    spike.e0_xstar += bulk.e0_xstar;
    groups.push_back(spike);
  } else if (lambda_spike > lambda_bulk) {
    groups = {spike, bulk};
  } else {
    groups = {bulk, spike};
  }
  problem p = make_problem(std::move(groups), d, prm);
  validate(p, fn);
  return p;
}

problem lksp25_design(long long d,
                       std::span<const double> x0,
                       std::span<const double> xtilde,
                       const problem_parameters& prm) {
  check_at_least("lksp25_design", "d", d, 1);
  const double dd = static_cast<double>(d);
  // Σ = E[aaᵀ] = I/(12d) + 𝟏𝟏ᵀ/(4d); λ_1 = 1/4 + 1/(12d), λ_b = 1/(12d).
  return two_level(d, 1 / (12 * dd), 0.25 + 1 / (12 * dd), x0, xtilde, prm);
}

lksp25_vectors lksp25_start(long long d,
                              double x0_scale,
                              std::uint64_t seed,
                              std::uint64_t stream) {
  constexpr const char* fn = "lksp25_start";
  check_at_least(fn, "d", d, 1);
  // ‖x0‖² = s²·χ²_d enters every risk and divergence: at most 1e100 (a probe's 1e308 drew
  // x0[8] = inf, and 1e200 overflowed a group's squared norm).
  if (!(x0_scale >= 0 && x0_scale <= 1e100))
    throw_domain_error(fn, "x0_scale", x0_scale,
                       "in [0, 1e100] (the squared norm of x0 enters the risk)");
  random_stream rng(seed, 0, stream);
  lksp25_vectors v{Eigen::VectorXd(d), Eigen::VectorXd(d)};
  // The draw order of LKSP25's released code: x̃ first, then x0.
  for (double& x : v.xtilde) x = rng.uniform(0, 1 / std::sqrt(static_cast<double>(d)));
  for (double& x : v.x0) x = x0_scale * rng.normal();
  return v;
}

problem lksp25_experiment(long long d,
                           lksp25_sigma which,
                           double x0_scale,
                           std::uint64_t seed,
                           const problem_parameters& prm) {
  check_at_least("lksp25_experiment", "d", d, 1);
  const lksp25_vectors v = lksp25_start(d, x0_scale, seed);
  const std::span<const double> x0(v.x0.data(), v.x0.size()), xt(v.xtilde.data(), v.xtilde.size());
  if (which == lksp25_sigma::design) return lksp25_design(d, x0, xt, prm);
  const std::vector<double> lambda(static_cast<std::size_t>(d),
                                   1 / (12.0 * static_cast<double>(d)));
  return from_eigenvalues(lambda, x0, xt, prm);
}

problem power_law(long long d,
                  double exponent,
                  double trace_sigma,
                  const energies& e,
                  const problem_parameters& prm) {
  constexpr const char* fn = "power_law";
  check_at_least(fn, "d", d, 1);
  check_nonnegative(fn, "exponent", exponent);
  check_positive(fn, "trace", trace_sigma);
  check_energies(fn, e);
  check_parameters(fn, prm);
  if (exponent == 0) return isotropic(d, trace_sigma / static_cast<double>(d), e, prm);
  std::vector<double> lambda(static_cast<std::size_t>(d));
  for (long long j = 0; j < d; ++j)
    lambda[static_cast<std::size_t>(j)] = std::pow(static_cast<double>(j + 1), -exponent);
  // Sum from the smallest term up, for accuracy.
  const double norm = std::accumulate(lambda.rbegin(), lambda.rend(), 0.0);
  std::vector<eigen_group> groups(lambda.size());
  for (std::size_t j = 0; j < lambda.size(); ++j)
    groups[j] = {trace_sigma * lambda[j] / norm, 1, 0, 0, 0};
  spread(groups, d, e);
  problem p = make_problem(std::move(groups), d, prm);
  validate(p, fn);
  return p;
}

double marchenko_pastur_cdf(double x, double ratio, double scale) {
  constexpr const char* fn = "marchenko_pastur_cdf";
  check_positive(fn, "ratio", ratio);
  check_positive(fn, "scale", scale);
  check_not_nan(fn, "x", x);
  const double atom = ratio > 1 ? 1 - 1 / ratio : 0.0;
  const double sc = std::sqrt(ratio);
  const double a = scale * (1 - sc) * (1 - sc), b = scale * (1 + sc) * (1 + sc);
  if (x < 0) return 0;
  if (x >= b) return 1;
  if (x <= a) return atom;
  // Invert x(θ) = s²(1 + c) − 2s²√c cos θ.
  const double cos_theta = std::clamp((scale * (1 + ratio) - x) / (2 * scale * sc), -1.0, 1.0);
  return atom + mp_continuous_cdf(std::acos(cos_theta), ratio);
}

problem marchenko_pastur(long long d,
                         double ratio,
                         double scale,
                         long long n_groups,
                         const energies& e,
                         const problem_parameters& prm) {
  constexpr const char* fn = "marchenko_pastur";
  check_at_least(fn, "d", d, 1);
  check_positive(fn, "ratio", ratio);
  check_positive(fn, "scale", scale);
  check_at_least(fn, "groups", n_groups, 1);
  check_energies(fn, e);
  check_parameters(fn, prm);
  const double atom = ratio > 1 ? 1 - 1 / ratio : 0.0;
  const double G = static_cast<double>(n_groups);
  // Cumulative first moment at probability level q: 0 inside the atom, then M(θ(q − atom)).
  auto moment_at = [&](double q) {
    if (q <= atom) return 0.0;
    return mp_first_moment(mp_theta(q - atom, ratio), scale);
  };
  std::vector<eigen_group> groups;
  double previous = 0;  // M at level 0
  for (long long j = 1; j <= n_groups; ++j) {
    const double q = j == n_groups ? 1.0 : static_cast<double>(j) / G;
    const double m = j == n_groups ? scale : moment_at(q);  // M(π) = s² exactly
    const double lambda = std::max(0.0, (m - previous) * G);
    previous = m;
    const double k = static_cast<double>(d) / G;
    if (!groups.empty() && groups.back().eigenvalue == lambda)
      groups.back().multiplicity += k;
    else
      groups.push_back({lambda, k, 0, 0, 0});
  }
  std::sort(groups.begin(), groups.end(),
            [](const eigen_group& a, const eigen_group& b) { return a.eigenvalue > b.eigenvalue; });
  spread(groups, d, e);
  problem p = make_problem(std::move(groups), d, prm);
  validate(p, fn);
  return p;
}

double trace(const problem& p) {
  double t = 0;
  for (const eigen_group& g : p.groups) t += g.multiplicity * g.eigenvalue;
  return t;
}

void write_problem_csv(const problem& p, std::ostream& out) {
  validate(p, "write_problem_csv");
  out << "# what: dpkit volterra problem: spectrum of Sigma = E[a a^T] as eigen-groups\n"
      << "# columns: per group sums over its coordinates in the eigenbasis: e0_sq = sum "
         "(x0 - xtilde)^2, xstar_sq = sum xtilde^2, e0_xstar = sum (x0 - xtilde) xtilde "
         "(xtilde = label target, not the ridge minimiser)\n"
      << "# d: " << p.d << "\n"
      << "# ridge: " << format_value(p.ridge) << "\n"
      << "# label_noise: " << format_value(p.label_noise) << "\n"
      << "# sigma: " << format_value(p.sigma) << "\n";
  std::vector<std::vector<double>> rows;
  for (const eigen_group& g : p.groups)
    rows.push_back({g.eigenvalue, g.multiplicity, g.e0_sq, g.xstar_sq, g.e0_xstar});
  write_csv(out, {"eigenvalue", "multiplicity", "e0_sq", "xstar_sq", "e0_xstar"}, rows);
}

void write_problem_csv(const problem& p, const std::filesystem::path& path) {
  validate(p, "write_problem_csv");
  std::ofstream out(path);
  if (!out) throw std::runtime_error(path.string() + ": cannot open for writing");
  write_problem_csv(p, out);
  out.close();
  if (!out) throw std::runtime_error(path.string() + ": write failed");
}

problem read_problem_csv(const std::filesystem::path& path) {
  return read_problem_csv(path, problem_file_defaults{});
}

problem read_problem_csv(const std::filesystem::path& path, const problem_file_defaults& defaults) {
  const csv_table t = read_csv(path);  // runtime_error on I/O and cell errors
  auto number_or = [&](const char* name, const std::optional<double>& fallback) {
    const std::string v = trim_copy(t.provenance(name));
    if (v.empty()) {
      if (fallback) return *fallback;
      throw std::runtime_error(path.string() + ": missing header line '# " + name +
                               ": ...' (and no default given for it)");
    }
    const std::optional<double> x = parse_double(v);
    if (!x)
      throw std::runtime_error(path.string() + ": header '" + name + "' is '" + v +
                               "', not a number");
    return *x;
  };
  auto column = [&](const char* name) {
    try {
      return t.column(name);
    } catch (const std::out_of_range& e) {
      throw std::runtime_error(e.what());  // names the file and the column
    }
  };
  problem p;
  const std::size_t c_lambda = column("eigenvalue"), c_k = column("multiplicity"),
                    c_e0 = column("e0_sq"), c_xs = column("xstar_sq"), c_cross = column("e0_xstar");
  p.groups.reserve(t.rows.size());
  for (const auto& row : t.rows)
    p.groups.push_back({row[c_lambda], row[c_k], row[c_e0], row[c_xs], row[c_cross]});
  const std::string dv = trim_copy(t.provenance("d"));
  if (dv.empty()) {
    // d = Σ multiplicities (validate checks that each is a positive integer).
    double total = 0;
    for (const auto& g : p.groups) total += g.multiplicity;
    p.d = total >= 1 && total < 9.2e18 ? static_cast<long long>(total) : 0;
  } else {
    const std::optional<long long> d = parse_integer(dv);
    if (!d) throw std::runtime_error(path.string() + ": header 'd' is '" + dv + "', not an integer");
    p.d = *d;
  }
  p.ridge = number_or("ridge", defaults.ridge);
  p.label_noise = number_or("label_noise", defaults.label_noise);
  p.sigma = number_or("sigma", defaults.sigma);
  validate(p, path.string());
  return p;
}

}  // namespace dpkit::volterra
