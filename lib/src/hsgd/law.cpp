#include "dpkit/hsgd/law.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>
#include <utility>

#include "dpkit/core/check.hpp"
#include "dpkit/volterra/risk.hpp"

namespace dpkit::hsgd {
namespace {

std::string idx(const char* name, Eigen::Index i) {
  return std::string(name) + "[" + std::to_string(i) + "]";
}

void check_size(const char* fn, const char* name, Eigen::Index size, long long d) {
  if (static_cast<long long>(size) != d)
    throw_domain_error(fn, std::string(name) + ".size()",
                       format_value(static_cast<long long>(size)), "d = " + format_value(d));
}

void check_finite_vector(const char* fn, const char* name, const Eigen::VectorXd& v) {
  for (Eigen::Index i = 0; i < v.size(); ++i) check_finite(fn, idx(name, i), v[i]);
}

}  // namespace

// ---- eigenbasis ---------------------------------------------------------------------------------

eigenbasis eigenbasis::identity(long long d) {
  check_at_least("eigenbasis::identity", "d", d, 1);
  eigenbasis b;
  b.kind_ = kind::identity;
  b.d_ = d;
  return b;
}

eigenbasis eigenbasis::dense(Eigen::MatrixXd vectors) {
  constexpr const char* fn = "eigenbasis::dense";
  check_at_least(fn, "vectors.rows()", static_cast<long long>(vectors.rows()), 1);
  if (vectors.cols() != vectors.rows())
    throw_domain_error(fn, "vectors.cols()", format_value(static_cast<long long>(vectors.cols())),
                       "vectors.rows() = " + format_value(static_cast<long long>(vectors.rows())));
  if (!vectors.allFinite()) throw_domain_error(fn, "vectors", "non-finite", "finite");
  const Eigen::MatrixXd gram = vectors.transpose() * vectors;
  const double off =
      (gram - Eigen::MatrixXd::Identity(gram.rows(), gram.cols())).cwiseAbs().maxCoeff();
  if (off > 1e-10) throw_domain_error(fn, "max |U^T U - I|", off, "<= 1e-10 (orthonormal columns)");
  eigenbasis b;
  b.kind_ = kind::dense;
  b.d_ = vectors.rows();
  b.u_ = std::move(vectors);
  return b;
}

eigenbasis eigenbasis::householder(const Eigen::VectorXd& u) {
  constexpr const char* fn = "eigenbasis::householder";
  check_at_least(fn, "u.size()", static_cast<long long>(u.size()), 1);
  check_finite_vector(fn, "u", u);
  const double norm = u.norm();
  if (!(norm > 0)) throw_domain_error(fn, "|u|", norm, "> 0");
  // v = û + sign(û₀)e₀ avoids cancellation; then Hû = −sign(û₀)e₀, i.e. He₀ = ∓û (Golub & Van
  // Loan, Algorithm 5.1.1).
  eigenbasis b;
  b.kind_ = kind::householder;
  b.d_ = u.size();
  b.v_ = u / norm;
  b.v_[0] += b.v_[0] >= 0 ? 1.0 : -1.0;
  b.beta_ = 2 / b.v_.squaredNorm();
  return b;
}

Eigen::VectorXd eigenbasis::to_eigen(const Eigen::Ref<const Eigen::VectorXd>& x) const {
  check_size("eigenbasis::to_eigen", "x", x.size(), d_);
  switch (kind_) {
    case kind::identity:
      return x;
    case kind::dense:
      return u_.transpose() * x;
    case kind::householder:
      return x - (beta_ * v_.dot(x)) * v_;
  }
  return x;
}

Eigen::VectorXd eigenbasis::from_eigen(const Eigen::Ref<const Eigen::VectorXd>& y) const {
  check_size("eigenbasis::from_eigen", "y", y.size(), d_);
  switch (kind_) {
    case kind::identity:
      return y;
    case kind::dense:
      return u_ * y;
    case kind::householder:
      return y - (beta_ * v_.dot(y)) * v_;  // H is symmetric and orthogonal
  }
  return y;
}

Eigen::MatrixXd eigenbasis::matrix() const {
  switch (kind_) {
    case kind::identity:
      return Eigen::MatrixXd::Identity(d_, d_);
    case kind::dense:
      return u_;
    case kind::householder:
      return Eigen::MatrixXd::Identity(d_, d_) - beta_ * v_ * v_.transpose();
  }
  return {};
}

// ---- gaussian_law -------------------------------------------------------------------------------

gaussian_law::gaussian_law(eigenbasis basis,
                           std::span<const double> eigenvalues,
                           const Eigen::VectorXd& x0,
                           const Eigen::VectorXd& xtilde,
                           const volterra::problem_parameters& params,
                           const volterra::schedule& gamma,
                           double horizon,
                           const law_options& options)
    : basis_(std::move(basis)), gamma_(gamma), horizon_(horizon) {
  constexpr const char* fn = "gaussian_law";
  d_ = basis_.dimension();
  check_size(fn, "eigenvalues", static_cast<Eigen::Index>(eigenvalues.size()), d_);
  check_size(fn, "x0", x0.size(), d_);
  check_size(fn, "xtilde", xtilde.size(), d_);
  check_finite_vector(fn, "x0", x0);
  check_finite_vector(fn, "xtilde", xtilde);
  for (std::size_t k = 0; k < eigenvalues.size(); ++k)
    check_nonnegative(fn, "eigenvalues[" + std::to_string(k) + "]", eigenvalues[k]);
  check_nonnegative(fn, "params.ridge", params.ridge);
  check_nonnegative(fn, "params.label_noise", params.label_noise);
  check_nonnegative(fn, "params.sigma", params.sigma);
  check_positive(fn, "horizon", horizon);
  check_at_least(fn, "options.grid_intervals", options.grid_intervals, 2);
  check_positive(fn, "options.relative_tolerance", options.relative_tolerance);
  check_nonnegative(fn, "options.group_tolerance", options.group_tolerance);

  const Eigen::VectorXd e_x0 = basis_.to_eigen(x0);
  const Eigen::VectorXd e_xt = basis_.to_eigen(xtilde);

  // Eigen-groups: decreasing eigenvalue, anchored on each group's first member with the rule of
  // volterra::from_eigenvalues (kDefaultGroupTolerance), so no chain of small gaps can drift.
  std::vector<int> order(static_cast<std::size_t>(d_));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    return eigenvalues[static_cast<std::size_t>(a)] > eigenvalues[static_cast<std::size_t>(b)];
  });
  const double lambda_max = eigenvalues[static_cast<std::size_t>(order.front())];
  const double gap = options.group_tolerance * lambda_max;
  group_of_.assign(static_cast<std::size_t>(d_), -1);
  std::vector<volterra::eigen_group> groups;
  for (std::size_t i = 0; i < order.size();) {
    const double first = eigenvalues[static_cast<std::size_t>(order[i])];
    volterra::eigen_group g{0, 0, 0, 0, 0};
    double lambda_sum = 0;
    std::size_t j = i;
    for (; j < order.size() && first - eigenvalues[static_cast<std::size_t>(order[j])] <= gap;
         ++j) {
      const int k = order[j];
      const double e0 = e_x0[k] - e_xt[k];
      lambda_sum += eigenvalues[static_cast<std::size_t>(k)];
      g.e0_sq += e0 * e0;
      g.xstar_sq += e_xt[k] * e_xt[k];
      g.e0_xstar += e0 * e_xt[k];
      group_of_[static_cast<std::size_t>(k)] = static_cast<int>(groups.size());
    }
    g.multiplicity = static_cast<double>(j - i);
    g.eigenvalue = j - i == 1 ? first : lambda_sum / g.multiplicity;
    groups.push_back(g);
    i = j;
  }
  problem_ = volterra::from_groups(std::move(groups), d_, params);

  kappa_.resize(problem_.groups.size());
  for (std::size_t g = 0; g < kappa_.size(); ++g)
    kappa_[g] = problem_.groups[g].eigenvalue + params.ridge;
  x0_ = e_x0;
  xstar_.resize(d_);
  for (Eigen::Index k = 0; k < d_; ++k) {
    const std::size_t g = static_cast<std::size_t>(group_of_[static_cast<std::size_t>(k)]);
    // x⋆ = (Σ + δI)⁻¹Σx̃ (LKSP25 §4.1); a coordinate with κ = 0 never moves, so x⋆ is moot.
    xstar_[k] = kappa_[g] > 0 ? problem_.groups[g].eigenvalue * e_xt[k] / kappa_[g] : 0.0;
  }
  build(options);
}

gaussian_law gaussian_law::from_covariance(const Eigen::MatrixXd& sigma_matrix,
                                           const Eigen::VectorXd& x0,
                                           const Eigen::VectorXd& xtilde,
                                           const volterra::problem_parameters& params,
                                           const volterra::schedule& gamma,
                                           double horizon,
                                           const law_options& options) {
  constexpr const char* fn = "gaussian_law::from_covariance";
  const Eigen::Index d = sigma_matrix.rows();
  check_at_least(fn, "sigma_matrix.rows()", static_cast<long long>(d), 1);
  if (sigma_matrix.cols() != d)
    throw_domain_error(fn, "sigma_matrix.cols()",
                       format_value(static_cast<long long>(sigma_matrix.cols())),
                       "sigma_matrix.rows() = " + format_value(static_cast<long long>(d)));
  if (!sigma_matrix.allFinite()) throw_domain_error(fn, "sigma_matrix", "non-finite", "finite");
  const double scale = sigma_matrix.cwiseAbs().maxCoeff();
  const double asym = (sigma_matrix - sigma_matrix.transpose()).cwiseAbs().maxCoeff();
  if (asym > 1e-12 * scale)
    throw_domain_error(fn, "max |Sigma - Sigma^T|", asym, "<= 1e-12 max |Sigma_ij| (symmetric)");
  const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(sigma_matrix);
  if (eig.info() != Eigen::Success)
    throw_domain_error(fn, "sigma_matrix", "not diagonalisable by SelfAdjointEigenSolver",
                       "symmetric positive semidefinite");
  std::vector<double> lambda(static_cast<std::size_t>(d));
  const double lambda_max = eig.eigenvalues().cwiseAbs().maxCoeff();
  for (Eigen::Index k = 0; k < d; ++k) {
    double l = eig.eigenvalues()[k];
    if (l < 0) {
      if (l < -options.group_tolerance * lambda_max)
        throw_domain_error(fn, idx("eigenvalue", k), l,
                           ">= -group_tolerance * max |eigenvalue| (positive semidefinite)");
      l = 0;
    }
    lambda[static_cast<std::size_t>(k)] = l;
  }
  return gaussian_law(eigenbasis::dense(eig.eigenvectors()), lambda, x0, xtilde, params, gamma,
                      horizon, options);
}

gaussian_law gaussian_law::two_level(long long d,
                                     double lambda_bulk,
                                     double lambda_spike,
                                     const Eigen::VectorXd& x0,
                                     const Eigen::VectorXd& xtilde,
                                     const volterra::problem_parameters& params,
                                     const volterra::schedule& gamma,
                                     double horizon,
                                     const law_options& options) {
  constexpr const char* fn = "gaussian_law::two_level";
  check_at_least(fn, "d", d, 2);
  check_nonnegative(fn, "lambda_bulk", lambda_bulk);
  check_nonnegative(fn, "lambda_spike", lambda_spike);
  // H e₀ = ±𝟏/√d: coordinate 0 is the spike direction, the others span 𝟏^⊥.
  std::vector<double> lambda(static_cast<std::size_t>(d), lambda_bulk);
  lambda[0] = lambda_spike;
  return gaussian_law(eigenbasis::householder(Eigen::VectorXd::Ones(d)), lambda, x0, xtilde, params,
                      gamma, horizon, options);
}

gaussian_law gaussian_law::lksp25_design(const Eigen::VectorXd& x0,
                                          const Eigen::VectorXd& xtilde,
                                          const volterra::problem_parameters& params,
                                          const volterra::schedule& gamma,
                                          double horizon,
                                          const law_options& options) {
  const long long d = x0.size();
  check_at_least("gaussian_law::lksp25_design", "x0.size()", d, 2);
  const double lambda_b = 1.0 / (12.0 * static_cast<double>(d));  // the design's E[aaᵀ]
  return two_level(d, lambda_b, 0.25 + lambda_b, x0, xtilde, params, gamma, horizon, options);
}

void gaussian_law::build(const law_options& options) {
  const double T = horizon_;
  const std::size_t r = problem_.groups.size();
  const double kappa_max = *std::max_element(kappa_.begin(), kappa_.end());
  const double gamma_max = gamma_.max_rate(T);
  // The fastest relaxation time of the eigen-variances (ẇ = −2γκw + ...).
  const double t_fast = gamma_max * kappa_max > 0 ? 1 / (2 * gamma_max * kappa_max) : T;

  std::vector<double> coarse;
  const long long n = options.grid_intervals;
  for (long long i = 0; i <= n; ++i) coarse.push_back(T * static_cast<double>(i) / n);
  // Geometric grading t = a + t_fast(e^x − 1), x uniform: steps ∝ t_fast near a, ∝ t − a later.
  auto graded = [&](double a, double length, long long steps) {
    if (!(t_fast < length)) return;
    const double x_end = std::log1p(length / t_fast);
    for (long long i = 1; i < steps; ++i)
      coarse.push_back(a + t_fast * std::expm1(x_end * static_cast<double>(i) / steps));
  };
  graded(0.0, T, std::max<long long>(n / 2, 2));
  for (double b : gamma_.breakpoints(T)) {
    coarse.push_back(b);
    graded(b, std::min(T - b, 16 * t_fast), 32);  // γ may jump at b: a new fast transient
  }
  std::sort(coarse.begin(), coarse.end());
  std::vector<double> nodes;
  for (double t : coarse)
    if (nodes.empty() || t - nodes.back() > 1e-13 * T) nodes.push_back(t);
  nodes.back() = T;
  grid_.clear();
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    if (i > 0) grid_.push_back(0.5 * (nodes[i - 1] + nodes[i]));
    grid_.push_back(nodes[i]);
  }

  const volterra::risk_curve curve =
      volterra::solve_risk(problem_, gamma_, grid_, options.relative_tolerance, true);
  status_.termination = curve.termination;
  status_.message = curve.message;
  status_.evaluations = static_cast<int>(std::min<long long>(curve.steps, 2147483647LL));
  const std::size_t N = grid_.size();
  P_.assign(curve.P.begin(), curve.P.end());
  w_.assign(N * r, NAN);
  bool finite = curve.variances.rows() == static_cast<Eigen::Index>(N) &&
                curve.variances.cols() == static_cast<Eigen::Index>(r);
  for (std::size_t i = 0; finite && i < N; ++i) {
    finite = finite && std::isfinite(P_[i]);
    for (std::size_t g = 0; g < r; ++g) {
      const double w = curve.variances(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(g));
      w_[i * r + g] = w;
      finite = finite && std::isfinite(w);
    }
  }
  if (!finite && status_.termination != termination_type::failure) {
    status_.termination = termination_type::failure;
    status_.message += (status_.message.empty() ? "" : "; ") +
                       std::string("non-finite P_t or w_g(t) on the law's grid");
  }
  rate_right_.resize(N);
  rate_left_.resize(N);
  for (std::size_t i = 0; i < N; ++i) {
    rate_right_[i] = gamma_.rate(grid_[i]);
    rate_left_[i] = gamma_.left_limit(grid_[i]);
  }

  // Interpolation error of the grid before halving: the midpoints (odd nodes) from their even
  // neighbours, relative to each group's largest variance.
  const double d = static_cast<double>(d_), sigma2 = problem_.sigma * problem_.sigma;
  interpolation_error_ = 0;
  for (std::size_t g = 0; finite && g < r; ++g) {
    double scale = 0;
    for (std::size_t i = 0; i < N; ++i) scale = std::max(scale, w_[i * r + g]);
    if (!(scale > 0)) continue;
    const double lambda = problem_.groups[g].eigenvalue, kap = kappa_[g];
    auto slope = [&](double rate, std::size_t i) {
      return -2 * rate * kap * w_[i * r + g] + rate * rate / d * (2 * lambda * P_[i] + sigma2);
    };
    for (std::size_t j = 1; j + 1 < N; j += 2) {
      const double h = grid_[j + 1] - grid_[j - 1];
      const double x = (grid_[j] - grid_[j - 1]) / h;
      const double x2 = x * x, x3 = x2 * x;
      const double est = (2 * x3 - 3 * x2 + 1) * w_[(j - 1) * r + g] +
                         (x3 - 2 * x2 + x) * h * slope(rate_right_[j - 1], j - 1) +
                         (-2 * x3 + 3 * x2) * w_[(j + 1) * r + g] +
                         (x3 - x2) * h * slope(rate_left_[j + 1], j + 1);
      interpolation_error_ = std::max(interpolation_error_, std::abs(est - w_[j * r + g]) / scale);
    }
  }
}

void gaussian_law::check_time(const char* fn, double t) const {
  if (!(t >= 0 && t <= horizon_))
    throw_domain_error(fn, "t", t, "in [0, horizon] = [0, " + format_value(horizon_) + "]");
}

std::size_t gaussian_law::locate(double t) const {
  const auto it = std::upper_bound(grid_.begin(), grid_.end(), t);
  const std::size_t i = static_cast<std::size_t>(std::max<std::ptrdiff_t>(it - grid_.begin(), 1));
  return std::min(i - 1, grid_.size() - 2);
}

double gaussian_law::Gamma(double t) const {
  check_time("gaussian_law::Gamma", t);
  return gamma_.integral(t);
}

void gaussian_law::group_variances(double t, std::span<double> out) const {
  constexpr const char* fn = "gaussian_law::group_variances";
  check_time(fn, t);
  const std::size_t r = problem_.groups.size();
  if (out.size() != r)
    throw_domain_error(fn, "out.size()", format_value(static_cast<long long>(out.size())),
                       "group_count() = " + format_value(static_cast<long long>(r)));
  // Cubic Hermite on [t_i, t_{i+1}] with the ODE slopes ẇ = −2γκw + (γ²/d)(2λP + σ²) (the ODE
  // lift, docs/volterra.md) at both ends: γ(t_i) on the right of t_i, γ(t_{i+1}⁻) on the left of
  // t_{i+1}, so a jump of γ at a node is respected.
  const std::size_t i = locate(t);
  const double h = grid_[i + 1] - grid_[i];
  const double x = (t - grid_[i]) / h;
  const double x2 = x * x, x3 = x2 * x;
  const double h00 = 2 * x3 - 3 * x2 + 1, h10 = x3 - 2 * x2 + x, h01 = -2 * x3 + 3 * x2,
               h11 = x3 - x2;
  const double d = static_cast<double>(d_), sigma2 = problem_.sigma * problem_.sigma;
  const double g0 = rate_right_[i], g1 = rate_left_[i + 1];
  for (std::size_t g = 0; g < r; ++g) {
    const double lambda = problem_.groups[g].eigenvalue, kap = kappa_[g];
    const double w0 = w_[i * r + g], w1 = w_[(i + 1) * r + g];
    const double s0 = -2 * g0 * kap * w0 + g0 * g0 / d * (2 * lambda * P_[i] + sigma2);
    const double s1 = -2 * g1 * kap * w1 + g1 * g1 / d * (2 * lambda * P_[i + 1] + sigma2);
    out[g] = std::max(0.0, h00 * w0 + h10 * h * s0 + h01 * w1 + h11 * h * s1);
  }
}

void gaussian_law::group_decay(double t, std::span<double> out) const {
  constexpr const char* fn = "gaussian_law::group_decay";
  check_time(fn, t);
  if (out.size() != kappa_.size())
    throw_domain_error(fn, "out.size()", format_value(static_cast<long long>(out.size())),
                       "group_count() = " + format_value(static_cast<long long>(kappa_.size())));
  const double G = gamma_.integral(t);
  for (std::size_t g = 0; g < kappa_.size(); ++g) out[g] = std::exp(-kappa_[g] * G);
}

double gaussian_law::P(double t) const {
  check_time("gaussian_law::P", t);
  std::vector<double> w(problem_.groups.size());
  group_variances(t, w);
  // P_t = 𝒫(X^gf_Γ(t)) + ½Σ_g k_g λ_g w_g(t) (the ODE lift, docs/volterra.md).
  double fluct = 0;
  for (std::size_t g = 0; g < w.size(); ++g)
    fluct += problem_.groups[g].multiplicity * problem_.groups[g].eigenvalue * w[g];
  return volterra::gradient_flow_risk(problem_, gamma_.integral(t)).P + 0.5 * fluct;
}

Eigen::VectorXd gaussian_law::variances(double t) const {
  check_time("gaussian_law::variances", t);
  std::vector<double> w(problem_.groups.size());
  group_variances(t, w);
  Eigen::VectorXd out(d_);
  for (Eigen::Index k = 0; k < d_; ++k) out[k] = w[static_cast<std::size_t>(group_of_[k])];
  return out;
}

Eigen::VectorXd gaussian_law::mean(double t) const {
  check_time("gaussian_law::mean", t);
  std::vector<double> phi(kappa_.size());
  group_decay(t, phi);
  Eigen::VectorXd m(d_);
  // m(t) = x⋆ + e^{−κΓ(t)}(x0 − x⋆) (LKSP25 eqs. (5), (10)).
  for (Eigen::Index k = 0; k < d_; ++k)
    m[k] = xstar_[k] + phi[static_cast<std::size_t>(group_of_[k])] * (x0_[k] - xstar_[k]);
  return m;
}

}  // namespace dpkit::hsgd
