// SWX+23's private GLM learners (learners/glm.hpp, Algorithms 1–3, 5–9): JL matrices and
// polynomial (multinomial-kernel) features, the phased SGD family with output perturbation
// (Algorithms 1, 2, 3, 5, 6, 9), DP projected GD for ReLU regression (Algorithm 7) and adaptive
// DP batched GD for agnostic ReLU regression (Algorithm 8), each with the Gaussian-release
// privacy bookkeeping of its proof. The links, the data model and the Moreau envelope with
// Algorithm 4 are in glm.cpp.
#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "detail/glm.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/learners/glm.hpp"

namespace dpkit::learners {

using detail::glm::count;
using detail::glm::moreau_derivative_unchecked;
using detail::glm::oracle_steps;
using detail::glm::oracle_unchecked;
using detail::glm::relu;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
// Slack on ‖x‖ ≤ 1 (Assumption 1) for rounding in generated designs.
constexpr double kNormSlack = 1e-12;

}  // namespace

// =============================================================================================
// JL matrices and polynomial features
// =============================================================================================

Eigen::MatrixXd jl_matrix(std::size_t m, std::size_t d, random_stream& stream) {
  constexpr const char* fn = "jl_matrix";
  if (m == 0) throw_domain_error(fn, "m", "0", ">= 1");
  if (d == 0) throw_domain_error(fn, "d", "0", ">= 1");
  const auto rows = static_cast<Eigen::Index>(m), cols = static_cast<Eigen::Index>(d);
  const double scale = 1 / std::sqrt(static_cast<double>(m));  // Def 6: Φ = R/√m
  Eigen::MatrixXd phi(rows, cols);
  for (Eigen::Index i = 0; i < rows; ++i)
    for (Eigen::Index j = 0; j < cols; ++j) phi(i, j) = scale * stream.normal();
  return phi;
}

namespace {

constexpr int kMaxDegree = 8;
constexpr double kMaxFeatures = 1e7;

// The monomials of degree ≤ q in d variables: for each, its nondecreasing index tuple (in
// lexicographic order within a degree) and coefficient √(j!/α!).
struct monomial_table {
  std::vector<int> degree;                // j per monomial
  std::vector<std::vector<int>> indices;  // i_1 ≤ … ≤ i_j
  std::vector<double> coefficient;
};

monomial_table monomials(std::size_t d, int q) {
  monomial_table t;
  std::vector<int> idx;
  const int dd = static_cast<int>(d);
  for (int j = 0; j <= q; ++j) {
    idx.assign(static_cast<std::size_t>(j), 0);
    while (true) {
      // √(j!/Π α_k!) with α_k the multiplicities in idx.
      double log_c = std::lgamma(j + 1.0);
      for (std::size_t a = 0; a < idx.size();) {
        std::size_t b = a;
        while (b < idx.size() && idx[b] == idx[a]) ++b;
        log_c -= std::lgamma(static_cast<double>(b - a) + 1.0);
        a = b;
      }
      t.degree.push_back(j);
      t.indices.push_back(idx);
      t.coefficient.push_back(std::exp(0.5 * log_c));
      // Next nondecreasing tuple in lexicographic order.
      int pos = j - 1;
      while (pos >= 0 && idx[static_cast<std::size_t>(pos)] == dd - 1) --pos;
      if (pos < 0) break;
      const int v = idx[static_cast<std::size_t>(pos)] + 1;
      for (int k = pos; k < j; ++k) idx[static_cast<std::size_t>(k)] = v;
    }
  }
  return t;
}

void check_degree(const char* fn, int degree) {
  if (degree < 0 || degree > kMaxDegree)
    throw_domain_error(fn, "degree", count(static_cast<long long>(degree)), "in [0, 8]");
}

}  // namespace

std::size_t polynomial_feature_dimension(std::size_t d, int degree) {
  constexpr const char* fn = "polynomial_feature_dimension";
  check_degree(fn, degree);
  if (d == 0) throw_domain_error(fn, "d", "0", ">= 1");
  // Σ_j C(d + j − 1, j), in double to detect overflow.
  double total = 0, term = 1;
  for (int j = 0; j <= degree; ++j) {
    if (j > 0) term *= static_cast<double>(d + static_cast<std::size_t>(j) - 1) / j;
    total += term;
  }
  if (total > kMaxFeatures)
    throw_domain_error(fn, "degree", count(static_cast<long long>(degree)),
                       "small enough that the polynomial features of " +
                           count(static_cast<long long>(d)) +
                           " input dimensions number at most 1e7 (they number " +
                           format_value(total) + "; a smaller degree or dimension)");
  return static_cast<std::size_t>(std::llround(total));
}

Eigen::MatrixXd polynomial_features(const Eigen::Ref<const Eigen::MatrixXd>& features, int degree) {
  constexpr const char* fn = "polynomial_features";
  check_degree(fn, degree);
  check_at_least(fn, "features.cols()", static_cast<long long>(features.cols()), 1);
  check_at_least(fn, "features.rows()", static_cast<long long>(features.rows()), 1);
  for (Eigen::Index j = 0; j < features.cols(); ++j)
    for (Eigen::Index i = 0; i < features.rows(); ++i)
      if (!std::isfinite(features(i, j)))
        throw_domain_error(fn,
                           "features(" + count(static_cast<long long>(i)) + ", " +
                               count(static_cast<long long>(j)) + ")",
                           features(i, j), "finite");
  const auto d = static_cast<std::size_t>(features.cols());
  const std::size_t k = polynomial_feature_dimension(d, degree);
  const monomial_table t = monomials(d, degree);
  const double norm = 1 / std::sqrt(degree + 1.0);
  Eigen::MatrixXd psi(features.rows(), static_cast<Eigen::Index>(k));
  for (Eigen::Index i = 0; i < features.rows(); ++i) {
    for (std::size_t a = 0; a < k; ++a) {
      double v = t.coefficient[a] * norm;
      for (const int c : t.indices[a]) v *= features(i, c);
      psi(i, static_cast<Eigen::Index>(a)) = v;
    }
  }
  return psi;
}

vector polynomial_feature_map(const_vector_ref x, int degree) {
  const Eigen::MatrixXd row = x.transpose();
  return polynomial_features(row, degree).row(0).transpose();
}

// =============================================================================================
// Phased algorithms (Algs 1, 2, 3, 5, 6, 9)
// =============================================================================================

std::vector<std::size_t> phase_sizes(std::size_t n) {
  if (n < 2) throw_domain_error("phase_sizes", "dataset_size", count(n), ">= 2");
  // SWX+23 Alg 2 step 2: n_i = ⌊n/2^i⌋, i = 1, …, k; k = ⌊log₂ n⌋ (the printed ⌈log₂ n⌉ leaves an
  // empty last phase unless n is a power of 2; docs/findings.md).
  std::vector<std::size_t> sizes;
  for (std::size_t s = n / 2; s >= 1; s /= 2) sizes.push_back(s);
  return sizes;
}

namespace {

constexpr const char* kAlg1 = "SWX+23 Alg 1 (dispatcher)";
constexpr const char* kAlg2 = "SWX+23 Alg 2 (phased SGD, output perturbation)";
constexpr const char* kAlg3 = "SWX+23 Alg 3 (JL + phased SGD)";
constexpr const char* kAlg5 = "SWX+23 Alg 5 (Moreau-smoothed phased SGD)";
constexpr const char* kAlg6 = "SWX+23 Alg 6 (JL + Moreau-smoothed phased SGD)";
constexpr const char* kAlg7 = "SWX+23 Alg 7 (JL + DP projected GD, ReLU)";
constexpr const char* kAlg8 = "SWX+23 Alg 8 (adaptive DP batched GD)";
constexpr const char* kAlg9 = "SWX+23 Alg 9 (phased SGD on polynomial-kernel features)";

// What the phased core needs; the public functions fill it from the options.
struct phased_plan {
  glm_link link = glm_link::sigmoid;
  double eta = 0;
  bool moreau = false;
  moreau_oracle_kind oracle = moreau_oracle_kind::exact;
  double beta = 0, oracle_B = 0, gamma = 0;  // gamma = 0 for the exact oracle
  long long oracle_steps = 0;
  double tau_coefficient = 0;   // τ_i = tau_coefficient · η_i
  double sens_coefficient = 0;  // sensitivity = (sens_coefficient + sens_gamma·γ(n_i + 1))·η_i
  double sens_gamma = 0;
  bool add_noise = true;
  double noise_multiplier = 0;
};

struct phased_output {
  vector w;
  std::vector<vector> averages;
  std::vector<glm_release> releases;
};

// SWX+23 Alg 2 step 3 on the columns of X (p×n, column i = record i in the running space).
phased_output run_phased(const Eigen::MatrixXd& X,
                         const Eigen::VectorXd& y,
                         const vector& w0,
                         const phased_plan& plan,
                         random_stream& noise) {
  const auto n = static_cast<std::size_t>(X.cols());
  const std::vector<std::size_t> sizes = phase_sizes(n);
  phased_output out;
  vector w = w0, sum(X.rows());
  std::size_t offset = 0;
  double eta_i = plan.eta;
  for (const std::size_t n_i : sizes) {
    eta_i /= 4;  // η_i = η/4^i
    sum.setZero();
    for (std::size_t t = 0; t < n_i; ++t) {
      const auto col = static_cast<Eigen::Index>(offset + t);
      sum += w;  // average of w_i^1 … w_i^{n_i}: the start point in, the last iterate out
      const double a = X.col(col).dot(w), yi = y(col);
      double s;
      if (plan.moreau && !std::isfinite(a)) {
        // A diverged iterate (an overflowing step) has no Moreau prox: it stays NaN and the
        // result says so (the prox's root search refused it as "lower is nan", an input error).
        s = std::numeric_limits<double>::quiet_NaN();
      } else if (!plan.moreau) {
        s = link_value(plan.link, a) - yi;  // ∇ℓ = (σ(⟨w,x⟩) − y)x
      } else if (plan.oracle == moreau_oracle_kind::exact) {
        s = moreau_derivative_unchecked(plan.link, yi, plan.beta, a);  // ∇f_β = x·g_β′(⟨w,x⟩)
      } else {
        s = oracle_unchecked(plan.link, yi, plan.beta, a, plan.oracle_B, plan.oracle_steps)
                .derivative;  // Alg 4
      }
      w.noalias() -= (eta_i * s) * X.col(col);
    }
    vector avg = sum / static_cast<double>(n_i);
    glm_release r;
    r.eta = eta_i;
    r.samples = static_cast<long long>(n_i);
    r.sensitivity =
        (plan.sens_coefficient + plan.sens_gamma * plan.gamma * (static_cast<double>(n_i) + 1)) *
        eta_i;
    r.paper_std = plan.tau_coefficient * eta_i;
    r.noise_std = !plan.add_noise             ? 0.0
                  : plan.noise_multiplier > 0 ? plan.noise_multiplier * r.sensitivity
                                              : r.paper_std;
    w = avg;
    if (plan.add_noise)
      for (Eigen::Index j = 0; j < w.size(); ++j) w(j) += r.noise_std * noise.normal();
    out.averages.push_back(std::move(avg));
    out.releases.push_back(r);
    offset += n_i;
  }
  out.w = std::move(w);
  return out;
}

// Checks shared by the phased algorithms; returns B.
double check_phased(const char* fn, const dataset& data, const phased_sgd_options& o) {
  check_dataset(fn, data);
  check_positive(fn, "options.epsilon", o.epsilon);
  check_open_probability(fn, "options.delta", o.delta);
  check_nonnegative(fn, "options.eta", o.eta);
  check_nonnegative(fn, "options.B_bound", o.B_bound);
  check_nonnegative(fn, "options.theta_rank", o.theta_rank);
  check_nonnegative(fn, "options.beta_smooth", o.beta_smooth);
  check_nonnegative(fn, "options.gamma_oracle", o.gamma_oracle);
  check_nonnegative(fn, "options.noise_multiplier", o.noise_multiplier);
  check_at_least(fn, "options.max_oracle_steps", o.max_oracle_steps, 1);
  if (o.link == glm_link::relu)
    throw_domain_error(fn, "options.link", "relu",
                       "a bounded link (sigmoid or tanh; Assumption 1)");
  check_at_least(fn, "dataset_size", static_cast<long long>(data.size()), 2);
  const double B = o.B_bound > 0 ? o.B_bound : link_range_bound(o.link);
  if (B < link_range_bound(o.link))
    throw_domain_error(fn, "options.B_bound", B,
                       ">= sup|sigma| = " + format_value(link_range_bound(o.link)) +
                           " (Assumption 1), or 0 for the link's bound");
  for (Eigen::Index i = 0; i < data.features.rows(); ++i) {
    const double r = data.features.row(i).norm();
    if (r > 1 + kNormSlack)
      throw_domain_error(fn, "||x_" + count(static_cast<long long>(i)) + "||", r,
                         "<= 1 (Assumption 1)");
    if (std::abs(data.labels(i)) > B)
      throw_domain_error(fn, "y_" + count(static_cast<long long>(i)), data.labels(i),
                         "in [-B, B], B = " + format_value(B));
  }
  if (o.w0.size() != 0 && o.w0.size() != data.features.cols())
    throw_domain_error(fn, "options.w0.size()", count(static_cast<long long>(o.w0.size())),
                       "0 or d = " + count(static_cast<long long>(data.features.cols())));
  return B;
}

std::size_t default_jl_dim(std::size_t n, double epsilon, double delta, bool kernel) {
  // Thm 2/5/6: m = O(log(n/δ)(nε)^{2/3}); Alg 9: O(log(n/δ)·nε) — constants 1.
  const auto nd = static_cast<double>(n);
  const double m =
      std::log(nd / delta) * (kernel ? nd * epsilon : std::cbrt(nd * epsilon * nd * epsilon));
  // Converting a double beyond the range of size_t is undefined (a probe's --epsilon 1e308 gave
  // m = 0): at most 1e9 rows, as every count the CLI takes.
  if (!(m <= 1e9))
    throw_domain_error("default_jl_dim", "epsilon", epsilon,
                       "small enough that the JL dimension " +
                           std::string(kernel ? "log(n/delta) n eps" : "log(n/delta) (n eps)^(2/3)") +
                           " = " + format_value(m) + " is at most 1e9");
  return static_cast<std::size_t>(std::max(1.0, std::ceil(m)));
}

// Gaussian-release privacy from the per-release data.
gaussian_release_privacy summarise(const std::vector<glm_release>& releases,
                                   long long compositions,
                                   bool noise_on,
                                   std::string note) {
  gaussian_release_privacy p;
  p.compositions = compositions;
  double z = kInf;
  for (const glm_release& r : releases) z = std::min(z, r.noise_std / r.sensitivity);
  p.noise_multiplier = noise_on && std::isfinite(z) ? z : 0.0;
  if (!noise_on) note = "noise off (add_noise = false): not private. " + note;
  p.note = std::move(note);
  return p;
}

std::string step_condition(const char* what, double eta_1, double limit) {
  const bool ok = eta_1 <= limit * (1 + 1e-12);
  return std::string(ok ? "" : "WARNING: ") + "eta_1 = " + format_value(eta_1) +
         (ok ? " <= " : " > ") + what + " = " + format_value(limit) +
         (ok ? " (non-expansive steps: the sensitivity bound applies)"
             : " (non-expansiveness not guaranteed: the sensitivity bound is not proved)");
}

enum class phased_kind { alg2, alg3, alg5, alg6 };

glm_result run_phased_algorithm(const char* fn,
                                phased_kind kind,
                                const dataset& data,
                                const phased_sgd_options& o,
                                const random_key& key,
                                bool kernel_jl = false) {
  const double B = check_phased(fn, data, o);
  const std::size_t n = data.size();
  const auto nd = static_cast<double>(n);
  const std::size_t d = data.dimension();
  const bool jl = kind == phased_kind::alg3 || kind == phased_kind::alg6;
  const bool moreau = kind == phased_kind::alg5 || kind == phased_kind::alg6;
  const double G = link_lipschitz(o.link);
  const double log_delta = std::log(1 / o.delta), log_2delta = std::log(2 / o.delta);

  glm_result res;
  phased_plan plan;
  plan.link = o.link;
  plan.add_noise = o.add_noise;
  plan.noise_multiplier = o.noise_multiplier;
  plan.moreau = moreau;

  // Running space: R^d, or R^m under JL (X is p×n, column = record).
  Eigen::MatrixXd X;
  std::size_t p = d;
  if (jl) {
    p = o.jl_dim > 0 ? o.jl_dim : default_jl_dim(n, o.epsilon, o.delta, kernel_jl);
    random_stream jl_stream(key.seed, key.replicate, key.stream_base + 5);
    res.jl = jl_matrix(p, d, jl_stream);
    X.noalias() = res.jl * data.features.transpose();  // no temporary: X is p×n, often large
    res.jl_max_norm = X.colwise().norm().maxCoeff();
  } else {
    X = data.features.transpose();
  }
  const double theta =
      jl ? static_cast<double>(p) : (o.theta_rank > 0 ? o.theta_rank : static_cast<double>(d));

  // Moreau parameters (Thm 4/5): β = √n, γ = B/(n ln n); B → 2B inside Alg 4 for Alg 6.
  if (moreau) {
    plan.beta = o.beta_smooth > 0 ? o.beta_smooth : std::sqrt(nd);
    plan.oracle = o.oracle;
    plan.oracle_B = kind == phased_kind::alg6 ? 2 * B : B;
    if (o.oracle == moreau_oracle_kind::algorithm4) {
      plan.gamma = o.gamma_oracle > 0 ? o.gamma_oracle : B / (nd * std::log(nd));
      plan.oracle_steps = oracle_steps(fn, plan.oracle_B, plan.gamma, o.max_oracle_steps);
      res.oracle_steps = plan.oracle_steps;
    }
  }

  // Step-size condition of each privacy proof, and the default η (constants 1).
  double eta_limit = 0;
  const char* limit_name = "";
  switch (kind) {
    case phased_kind::alg2:
      eta_limit = 2 / G, limit_name = "2/G";  // non-expansiveness, used by the privacy proof
      break;
    case phased_kind::alg3:
      eta_limit = 2 / (4 * G),
      limit_name = "2/(4G)";  // proof of Thm 2: loss 4G-smooth on the JL event
      break;
    case phased_kind::alg5:
      eta_limit = 2 / plan.beta, limit_name = "2/beta";  // Thm 4: f_β is β-smooth
      break;
    case phased_kind::alg6:
      eta_limit = 2 / (4 * plan.beta), limit_name = "2/(4 beta)";  // ‖Φx‖ ≤ 2: 4β-smooth
      break;
  }
  plan.eta =
      o.eta > 0
          ? o.eta
          : std::min({o.epsilon / std::sqrt(theta * log_delta), 1 / std::sqrt(nd), eta_limit});

  // τ_i and the proof's sensitivity (header of each algorithm).
  switch (kind) {
    case phased_kind::alg2:
      plan.tau_coefficient = 8 * B * std::sqrt(log_delta) / o.epsilon;  // Alg 2 step 3
      plan.sens_coefficient = 4 * B;
      break;
    case phased_kind::alg3:
      plan.tau_coefficient = 16 * B * std::sqrt(log_2delta) / o.epsilon;  // Alg 3 step 2
      plan.sens_coefficient = 8 * B;
      break;
    case phased_kind::alg5:
      plan.tau_coefficient = 10 * B * std::sqrt(log_delta) / o.epsilon;  // Alg 5 (R = 1)
      plan.sens_coefficient = 4 * B;
      plan.sens_gamma = 1;
      break;
    case phased_kind::alg6:
      plan.tau_coefficient = 20 * B * std::sqrt(log_2delta) / o.epsilon;  // Alg 6 step 2
      plan.sens_coefficient = 8 * B;
      plan.sens_gamma = 2;
      break;
  }

  vector w0 = o.w0.size() != 0 ? vector(o.w0) : vector::Zero(static_cast<Eigen::Index>(d));
  if (jl)
    w0 = o.w0.size() != 0 ? vector(res.jl * o.w0) : vector::Zero(static_cast<Eigen::Index>(p));

  random_stream noise(key.seed, key.replicate, key.stream_base + 3);
  phased_output out = run_phased(X, data.labels, w0, plan, noise);

  res.phase_averages = std::move(out.averages);
  res.releases = std::move(out.releases);
  if (jl) {
    res.w = res.jl.transpose() * out.w;  // Alg 3 step 3: ŵ = Φᵀ w_k
    res.w_reduced = std::move(out.w);
  } else {
    res.w = std::move(out.w);
  }

  std::string note =
      "replace-one neighbours; disjoint phases, each record enters one release (adaptive "
      "parallel composition); ";
  const double eta_1 = res.releases.front().eta;
  switch (kind) {
    case phased_kind::alg2:
      res.algorithm = kAlg2;
      note += "sensitivity of the phase average 4B eta_i (proof of SWX+23 Thm 1, B = " +
              format_value(B) + "); ";
      break;
    case phased_kind::alg3:
      res.algorithm = kAlg3;
      note +=
          "sensitivity 8B eta_i on the JL event ||Phi x|| <= 2 for every record including a "
          "replacement (proof of Thm 2; its failure probability, delta/2 in the paper, is "
          "not in z); max_i ||Phi x_i|| = " +
          format_value(res.jl_max_norm) +
          (res.jl_max_norm <= 2 ? "" : " > 2: WARNING, event fails") + "; ";
      break;
    case phased_kind::alg5:
      res.algorithm = kAlg5;
      note += "sensitivity 4B eta_i + gamma eta_i (n_i + 1) (proof of Thm 4; gamma = " +
              format_value(plan.gamma) +
              (o.oracle == moreau_oracle_kind::exact ? ", exact prox oracle" : ", Alg 4 oracle") +
              "); ";
      break;
    case phased_kind::alg6:
      res.algorithm = kAlg6;
      note +=
          "sensitivity 8B eta_i + 2 gamma eta_i (n_i + 1) on the JL event (proof of Thm 5; "
          "gamma = " +
          format_value(plan.gamma) + "); max_i ||Phi x_i|| = " + format_value(res.jl_max_norm) +
          (res.jl_max_norm <= 2 ? "" : " > 2: WARNING, event fails") + "; ";
      break;
  }
  note += step_condition(limit_name, eta_1, eta_limit);
  note += o.noise_multiplier > 0 ? "; std = noise_multiplier x sensitivity (override)"
                                 : "; std = the paper's tau_i";
  res.privacy = summarise(res.releases, 1, o.add_noise, std::move(note));
  return res;
}

}  // namespace

glm_result phased_sgd(const dataset& data,
                      const phased_sgd_options& options,
                      const random_key& key) {
  return run_phased_algorithm("phased_sgd", phased_kind::alg2, data, options, key);
}

glm_result jl_phased_sgd(const dataset& data,
                         const phased_sgd_options& options,
                         const random_key& key) {
  return run_phased_algorithm("jl_phased_sgd", phased_kind::alg3, data, options, key);
}

glm_result moreau_phased_sgd(const dataset& data,
                             const phased_sgd_options& options,
                             const random_key& key) {
  return run_phased_algorithm("moreau_phased_sgd", phased_kind::alg5, data, options, key);
}

glm_result jl_moreau_phased_sgd(const dataset& data,
                                const phased_sgd_options& options,
                                const random_key& key) {
  return run_phased_algorithm("jl_moreau_phased_sgd", phased_kind::alg6, data, options, key);
}

glm_result dp_glm(const dataset& data, const phased_sgd_options& options, const random_key& key) {
  constexpr const char* fn = "dp_glm";
  check_phased(fn, data, options);
  const double theta =
      options.theta_rank > 0 ? options.theta_rank : static_cast<double>(data.dimension());
  const auto n = static_cast<double>(data.size());
  // SWX+23 Alg 1: ε > θ^{3/2}/n → Alg 2, else Alg 3.
  const bool alg2 = options.epsilon > std::pow(theta, 1.5) / n;
  glm_result r = alg2 ? run_phased_algorithm(fn, phased_kind::alg2, data, options, key)
                      : run_phased_algorithm(fn, phased_kind::alg3, data, options, key);
  r.branch = alg2 ? "Alg 2" : "Alg 3";
  r.algorithm = std::string(kAlg1) + " -> " + r.algorithm;
  return r;
}

glm_result dp_kernel_glm(const dataset& data,
                         int degree,
                         const phased_sgd_options& options,
                         const random_key& key) {
  constexpr const char* fn = "dp_kernel_glm";
  check_dataset(fn, data);
  check_degree(fn, degree);
  dataset features;
  features.features = polynomial_features(data.features, degree);
  features.labels = data.labels;
  check_phased(fn, features, options);
  const double theta =
      options.theta_rank > 0 ? options.theta_rank : static_cast<double>(features.dimension());
  const auto n = static_cast<double>(data.size());
  // SWX+23 Alg 9 step 1: ε > θ/n → Alg 2 on ψ(x), else Alg 3 (m = O(log(n/δ) nε)).
  const bool alg2 = options.epsilon > theta / n;
  glm_result r = alg2 ? run_phased_algorithm(fn, phased_kind::alg2, features, options, key)
                      : run_phased_algorithm(fn, phased_kind::alg3, features, options, key, true);
  r.branch = alg2 ? "Alg 2" : "Alg 3";
  r.algorithm = std::string(kAlg9) + " -> " + r.algorithm;
  return r;
}

Eigen::VectorXd kernel_predict(glm_link link,
                               const_vector_ref w,
                               const Eigen::Ref<const Eigen::MatrixXd>& features,
                               int degree) {
  constexpr const char* fn = "kernel_predict";
  const Eigen::MatrixXd psi = polynomial_features(features, degree);
  if (w.size() != psi.cols())
    throw_domain_error(fn, "w.size()", count(static_cast<long long>(w.size())),
                       "the feature dimension " + count(static_cast<long long>(psi.cols())));
  Eigen::VectorXd h = psi * w;
  for (Eigen::Index i = 0; i < h.size(); ++i) h(i) = link_value(link, h(i));
  return h;
}

// =============================================================================================
// Algorithm 7
// =============================================================================================

glm_result relu_dp_pgd(const dataset& data, const relu_pgd_options& o, const random_key& key) {
  constexpr const char* fn = "relu_dp_pgd";
  check_dataset(fn, data);
  check_positive(fn, "options.epsilon", o.epsilon);
  check_open_probability(fn, "options.delta", o.delta);
  check_positive(fn, "options.W_norm", o.W_norm);
  check_positive(fn, "options.B_bound", o.B_bound);
  // Their squares enter the step size and the risk (glm.hpp, kLargestTeacherNorm); B is W + h or
  // 2W + h in the papers' settings, with W and h each at most that norm.
  check_bounded(fn, "options.W_norm", o.W_norm, 0, kLargestTeacherNorm);
  check_bounded(fn, "options.B_bound", o.B_bound, 0, 10 * kLargestTeacherNorm);
  check_at_least(fn, "options.steps", o.steps, 0);
  check_nonnegative(fn, "options.eta", o.eta);
  check_nonnegative(fn, "options.noise_multiplier", o.noise_multiplier);
  const double W = o.W_norm, B = o.B_bound;
  for (Eigen::Index i = 0; i < data.features.rows(); ++i) {
    const double r = data.features.row(i).norm();
    if (r > 1 + kNormSlack)
      throw_domain_error(fn, "||x_" + count(static_cast<long long>(i)) + "||", r, "<= 1");
    if (std::abs(data.labels(i)) > B)
      throw_domain_error(fn, "y_" + count(static_cast<long long>(i)), data.labels(i),
                         "in [-B, B], B = " + format_value(B));
  }
  const std::size_t n = data.size(), d = data.dimension();
  const auto nd = static_cast<double>(n);
  glm_result res;
  res.algorithm = kAlg7;
  Eigen::MatrixXd X;  // m×n, column = Φx_i
  std::size_t m = d;
  if (o.use_jl) {
    m = o.jl_dim > 0 ? o.jl_dim : default_jl_dim(n, o.epsilon, o.delta, false);
    random_stream jl_stream(key.seed, key.replicate, key.stream_base + 5);
    res.jl = jl_matrix(m, d, jl_stream);
    X.noalias() = res.jl * data.features.transpose();  // no temporary: X is m×n, often large
    res.jl_max_norm = X.colwise().norm().maxCoeff();
  } else {
    X = data.features.transpose();
  }
  const auto md = static_cast<double>(m);
  const double log_delta = std::log(1 / o.delta), log_2delta = std::log(2 / o.delta);
  // Thm 6: T = min{n, n²ε²/(m log(1/δ))}, η = W/(√T max{W + B, (W + B)√(mT log(1/δ))/(nε)}) ≤ 1/2.
  const long T = o.steps > 0
                     ? o.steps
                     : std::max(1L, static_cast<long>(std::floor(std::min(
                                        nd, nd * nd * o.epsilon * o.epsilon / (md * log_delta)))));
  const auto Td = static_cast<double>(T);
  const double eta =
      o.eta > 0
          ? o.eta
          : std::min(0.5,
                     W / (std::sqrt(Td) * std::max(W + B, (W + B) * std::sqrt(md * Td * log_delta) /
                                                              (nd * o.epsilon))));
  // Proof of Thm 6: sensitivity 4(4W + B)/n; σ² = 32(4W + B)²T log(2/δ)/(n²ε²) (Alg 7 step 2).
  const double sensitivity = 4 * (4 * W + B) / nd;
  const double paper_std = std::sqrt(32 * Td * log_2delta) * (4 * W + B) / (nd * o.epsilon);
  const double std_used = !o.add_noise             ? 0.0
                          : o.noise_multiplier > 0 ? o.noise_multiplier * sensitivity
                                                   : paper_std;
  const auto mi = static_cast<Eigen::Index>(m);
  vector w = vector::Zero(mi), sum = vector::Zero(mi), g(mi);
  Eigen::VectorXd a(static_cast<Eigen::Index>(n));
  random_stream noise(key.seed, key.replicate, key.stream_base + 3);
  const double radius = 2 * W;  // 𝒲̃ = {‖w‖ ≤ 2W}
  for (long t = 1; t <= T; ++t) {
    sum += w;  // w̃_1 … w̃_T
    a.noalias() = X.transpose() * w;
    for (Eigen::Index i = 0; i < a.size(); ++i) a(i) = relu(a(i)) - data.labels(i);
    g.noalias() = X * a;
    g /= nd;
    if (o.add_noise)
      for (Eigen::Index j = 0; j < mi; ++j) g(j) += std_used * noise.normal();
    w.noalias() -= eta * g;
    const double norm = w.norm();
    if (norm > radius) w *= radius / norm;
  }
  const vector avg = sum / Td;
  res.w = o.use_jl ? vector(res.jl.transpose() * avg) : avg;  // (1/T) Σ Φᵀ w̃_t
  res.w_reduced = o.use_jl ? avg : vector();
  glm_release r;
  r.eta = eta;
  r.samples = static_cast<long long>(n);
  r.sensitivity = sensitivity;
  r.noise_std = std_used;
  r.paper_std = paper_std;
  res.releases.assign(static_cast<std::size_t>(T), r);
  std::string note =
      "replace-one neighbours; T Gaussian releases of the full-gradient average, each with "
      "sensitivity 4(4W + B)/n (proof of Thm 6: ||Phi x|| <= 2, ||w|| <= 2W, W = " +
      format_value(W) + ", B = " + format_value(B) + ")";
  if (o.use_jl)
    note += "; on the JL event (failure probability not in z); max_i ||Phi x_i|| = " +
            format_value(res.jl_max_norm) +
            (res.jl_max_norm <= 2 ? "" : " > 2: WARNING, event fails");
  note += o.noise_multiplier > 0 ? "; std = noise_multiplier x sensitivity (override)"
                                 : "; std = the paper's sigma";
  res.privacy = summarise(res.releases, T, o.add_noise, std::move(note));
  return res;
}

// =============================================================================================
// Algorithm 8
// =============================================================================================

glm_result adaptive_batched_gd(const dataset& data,
                               const adaptive_gd_options& o,
                               const random_key& key) {
  constexpr const char* fn = "adaptive_batched_gd";
  check_dataset(fn, data);
  check_positive(fn, "options.epsilon", o.epsilon);
  check_open_probability(fn, "options.delta", o.delta);
  check_positive(fn, "options.B_bound", o.B_bound);
  check_bounded(fn, "options.B_bound", o.B_bound, 0, 10 * kLargestTeacherNorm);  // as Alg 7
  check_at_least(fn, "options.steps", o.steps, 1);
  check_positive(fn, "options.eta", o.eta);
  check_nonnegative(fn, "options.feature_norm_bound", o.feature_norm_bound);
  check_nonnegative(fn, "options.noise_multiplier", o.noise_multiplier);
  const std::size_t n = data.size(), d = data.dimension();
  if (static_cast<std::size_t>(o.steps) > n)
    throw_domain_error(fn, "options.steps", count(static_cast<long long>(o.steps)),
                       "<= n = " + count(n));
  const double B = o.B_bound;
  for (Eigen::Index i = 0; i < data.labels.size(); ++i)
    if (std::abs(data.labels(i)) > B)
      throw_domain_error(fn, "y_" + count(static_cast<long long>(i)), data.labels(i),
                         "in [-B, B], B = " + format_value(B));
  const auto T = static_cast<std::size_t>(o.steps);
  const std::size_t m = n / T;  // Alg 8 step 1: m = n/T (the remainder is unused)
  const auto md = static_cast<double>(m);
  const double sqrt_d = std::sqrt(static_cast<double>(d));
  const double Rx = o.feature_norm_bound > 0 ? o.feature_norm_bound : sqrt_d;
  const double gauss = std::sqrt(8 * std::log(1.25 / o.delta)) / o.epsilon;

  glm_result res;
  res.algorithm = kAlg8;
  for (std::size_t i = 0; i < T * m; ++i)
    if (data.features.row(static_cast<Eigen::Index>(i)).norm() > Rx) ++res.features_over_bound;

  const auto di = static_cast<Eigen::Index>(d);
  vector w = vector::Zero(di), g(di);
  Eigen::VectorXd a(static_cast<Eigen::Index>(m));
  random_stream noise(key.seed, key.replicate, key.stream_base + 3);
  double z_printed = kInf;
  for (std::size_t i = 0; i < T; ++i) {
    const auto start = static_cast<Eigen::Index>(i * m), rows = static_cast<Eigen::Index>(m);
    const auto chunk = data.features.middleRows(start, rows);
    const double wn = w.norm();
    // Alg 8 step 3 as printed, read as a variance (docs/findings.md):
    // σ² = 8(√d‖w‖ + B)² log(1.25/δ)/(m²ε²) — the Gaussian mechanism on (√d‖w‖ + B)/m.
    const double printed_sens = (sqrt_d * wn + B) / md;
    // Corrected replace-one sensitivity: per-sample gradient norm ≤ R_x(R_x‖w‖ + B).
    const double corrected_sens = 2 * Rx * (Rx * wn + B) / md;
    glm_release r;
    r.eta = o.eta;
    r.samples = static_cast<long long>(m);
    r.sensitivity = corrected_sens;
    r.paper_std = gauss * printed_sens;
    r.noise_std = !o.add_noise              ? 0.0
                  : o.noise_multiplier > 0  ? o.noise_multiplier * corrected_sens
                  : o.corrected_sensitivity ? gauss * corrected_sens
                                            : r.paper_std;
    z_printed = std::min(z_printed, r.noise_std / printed_sens);
    a.noalias() = chunk * w;
    for (Eigen::Index k = 0; k < rows; ++k) a(k) = relu(a(k)) - data.labels(start + k);
    g.noalias() = chunk.transpose() * a;
    g /= md;
    if (o.add_noise)
      for (Eigen::Index j = 0; j < di; ++j) g(j) += r.noise_std * noise.normal();
    w.noalias() -= o.eta * g;
    res.releases.push_back(r);
  }
  res.w = std::move(w);
  std::string note = "replace-one neighbours; disjoint chunks of m = " + count(m) +
                     ", each record enters one release; z against the corrected sensitivity "
                     "2 R_x (R_x ||w|| + B)/m with R_x = " +
                     format_value(Rx) + " (the paper's printed (sqrt(d)||w|| + B)/m gives z = " +
                     format_value(o.add_noise ? z_printed : 0.0) + ")";
  if (res.features_over_bound > 0)
    note += "; WARNING: " + count(res.features_over_bound) +
            " records have ||x|| > R_x, not covered by the sensitivity bound";
  note += o.noise_multiplier > 0    ? "; std = noise_multiplier x corrected sensitivity (override)"
          : o.corrected_sensitivity ? "; std calibrated on the corrected sensitivity"
                                    : "; std = the printed formula read as a variance";
  res.privacy = summarise(res.releases, 1, o.add_noise, std::move(note));
  return res;
}

}  // namespace dpkit::learners
