#include "dpkit/risk/longtail_bounds.hpp"
#include "detail/conditions.hpp"

#include <algorithm>
#include <boost/math/distributions/binomial.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <utility>

#include "dpkit/core/check.hpp"
#include "dpkit/core/normal.hpp"

namespace dpkit::risk {
namespace {

using detail::at_least;
using detail::at_most;
using detail::log_over;
using detail::positive;

constexpr const char* kThm1 = "ZXD+26, Thm 1";
constexpr const char* kThm2 = "ZXD+26, Thm 2";
constexpr const char* kThm3a = "ZXD+26, Thm 3 Statement 1";
constexpr const char* kThm3b = "ZXD+26, Thm 3 Statement 2";
constexpr const char* kRem4 = "ZXD+26, Remark 4";
constexpr const char* kCond1 = "ZXD+26, Condition 1";

std::string count(std::size_t n) {
  return format_value(static_cast<long long>(n));
}

// Status and label from the conditions (as kan_bounds.cpp).
void finish(risk_bound& r, bound_status ok) {
  detail::set_status(r, ok);
}

void check_class(const char* fn, const longtail_problem& p, std::size_t k) {
  if (k >= p.classes()) throw_domain_error(fn, "k", count(k), "< K = " + count(p.classes()));
}

void check_setting(const char* fn, const longtail_setting& s) {
  check_positive(fn, "width", s.width);
  check_positive(fn, "eta", s.eta);
  check_nonnegative(fn, "steps", s.steps);
  if (!(s.clip > 0)) throw_domain_error(fn, "clip", s.clip, "> 0 (+inf: no clipping)");
  check_nonnegative(fn, "noise_std", s.noise_std);
  check_open_probability(fn, "fail_delta", s.fail_delta);
}

void check_constants(const char* fn, const longtail_constants& c) {
  const std::pair<const char*, double> fields[] = {{"drift", c.drift},
                                                   {"drift_noise", c.drift_noise},
                                                   {"iterations", c.iterations},
                                                   {"rate", c.rate},
                                                   {"floor", c.floor},
                                                   {"c1", c.c1},
                                                   {"c2", c.c2},
                                                   {"C1", c.C1},
                                                   {"C2", c.C2}};
  for (const auto& [name, value] : fields)
    check_positive(fn, std::string("longtail_constants.") + name, value);
}

// max_{j≠k} √|S_j| ‖A_kᵀA_j‖_F.
double max_cross_term(const longtail_problem& p, std::size_t k) {
  double best = 0;
  for (std::size_t j = 0; j < p.classes(); ++j)
    if (j != k) best = std::max(best, std::sqrt(p.class_counts[j]) * p.cross_at(k, j));
  return best;
}

// The other-class sums of Thm 3 and Remark 4: a term exp(−c (N/D_j)²) for every j ≠ k, where
// D_j = scale·√|S_j|‖A_kᵀA_j‖_F + offset.
void add_class_terms(risk_bound& r,
                     const longtail_problem& p,
                     std::size_t k,
                     double numerator,
                     double scale,
                     double offset,
                     double c) {
  r.value = 0;
  for (std::size_t j = 0; j < p.classes(); ++j) {
    if (j == k) continue;
    const double D = scale * std::sqrt(p.class_counts[j]) * p.cross_at(k, j) + offset;
    const double ratio = numerator / D;
    const double term = std::exp(-c * ratio * ratio);
    r.terms.push_back({"j = " + count(j), term});
    r.value += term;
  }
}

}  // namespace

// ---- problem ------------------------------------------------------------------------------------

double longtail_problem::examples() const {
  double n = 0;
  for (double c : class_counts) n += c;
  return n;
}

void longtail_problem::validate(const char* fn) const {
  const std::size_t K = classes();
  if (K < 2 || K > kLargestLongtailClasses)
    throw_domain_error(fn, "classes", count(K),
                       "in [2, 100] (Condition 1 compares every pair of classes)");
  auto check_vec = [&](const char* name, const std::vector<double>& v, std::size_t size) {
    if (v.size() != size)
      throw_domain_error(fn, std::string(name) + ".size()", count(v.size()), count(size));
    for (double x : v) check_nonnegative(fn, name, x);
  };
  check_vec("class_counts", class_counts, K);
  check_vec("frobenius", frobenius, K);
  check_vec("cross", cross, K * K);
  check_vec("cross_operator", cross_operator, K * K);
  check_vec("operator_norm", operator_norm, K);
  check_vec("smallest_nonzero", smallest_nonzero, K);
  check_vec("rank", rank, K);
  for (double x : signal_norms) check_nonnegative(fn, "signal_norms", x);
  check_positive(fn, "dimension", dimension);
  if (!(examples() > 0)) throw_domain_error(fn, "n = sum of class_counts", examples(), "> 0");
}

longtail_problem spiked_problem(std::size_t K,
                                std::size_t d,
                                double signal_norm,
                                double s,
                                double lambda,
                                const std::vector<double>& class_counts) {
  constexpr const char* fn = "spiked_problem";
  check_at_least(fn, "classes", static_cast<long long>(K), 2);
  if (d < 2 * K) throw_domain_error(fn, "dimension", count(d), ">= 2K = " + count(2 * K));
  check_nonnegative(fn, "signal_norm", signal_norm);
  // s⁴ enters the cross norms ‖A_iᵀA_j‖_F² of the construction: below 1e-75 it underflows, and
  // the bounds' conditions compared 0/0 (a probe's --noise-scale 1e-200; SNR, NCR blank at 1e-100).
  if (!(s >= 1e-75 && s <= 1e75))
    throw_domain_error(fn, "noise_scale", s,
                       "in [1e-75, 1e75] (its fourth power enters the cross norms)");
  check_nonnegative(fn, "lambda", lambda);
  if (class_counts.size() != K)
    throw_domain_error(fn, "class_counts.size()", count(class_counts.size()), "K = " + count(K));
  // Closed forms of the spiked construction, D = d − K.
  const double D = static_cast<double>(d - K), s2 = s * s, l2 = lambda * lambda;
  longtail_problem p;
  p.signal_norms.assign(K, signal_norm);
  p.class_counts = class_counts;
  p.frobenius.assign(K, std::sqrt(s2 * (D - 1) + l2));
  p.cross.assign(K * K, std::sqrt(s2 * s2 * (D - 2) + 2 * s2 * l2));
  p.cross_operator.assign(K * K, std::max(s2, s * lambda));
  for (std::size_t k = 0; k < K; ++k) {
    p.cross[k * K + k] = std::sqrt(s2 * s2 * (D - 1) + l2 * l2);
    p.cross_operator[k * K + k] = std::max(s2, l2);
  }
  p.operator_norm.assign(K, std::max(s, lambda));
  p.smallest_nonzero.assign(K, lambda > 0 ? std::min(s, lambda) : s);
  p.rank.assign(K, lambda > 0 ? D : D - 1);
  p.dimension = static_cast<double>(d);
  p.validate(fn);
  return p;
}

double clipping_factor(const longtail_problem& p, std::size_t k, double clip) {
  constexpr const char* fn = "clipping_factor";
  p.validate(fn);
  check_class(fn, p, k);
  check_positive(fn, "clip", clip);
  // Λ_k = C/(‖u_k‖ + ‖A_k‖_F) (ZXD+26 §4).
  return clip / (p.signal_norms[k] + p.frobenius[k]);
}

double setting_clipping_factor(const longtail_problem& p,
                               const longtail_setting& s,
                               std::size_t k) {
  // Remark 5: the clean limit is Λ_k = 1. The proofs use Λ_k as a lower bound on the clipping
  // multiplier h = 1/max{1, ‖∇L‖/C} ≤ 1 (eq. (66), Lemma 20), so the factor they support is
  // min{1, Λ_k}: as printed, a clip above the gradients' scale gave Λ_k > 1 and a bound better
  // than clean training's (--clip 100: Λ_k = 6.66, test error bound 0 against 3.7e-112 at
  // --clip inf). docs/findings.md.
  return std::isinf(s.clip) ? 1.0 : std::min(1.0, clipping_factor(p, k, s.clip));
}

double snr(const longtail_problem& p, std::size_t k, std::size_t j) {
  p.validate("snr");
  check_class("snr", p, k);
  check_class("snr", p, j);
  // SNR_{k,j} = |S_k|‖u_k‖²/(√|S_j| ‖A_kᵀA_j‖_F) (ZXD+26 §4).
  const double u = p.signal_norms[k];
  return p.class_counts[k] * u * u / (std::sqrt(p.class_counts[j]) * p.cross_at(k, j));
}

double ncr(const longtail_problem& p, std::size_t k, std::size_t j) {
  p.validate("ncr");
  check_class("ncr", p, k);
  check_class("ncr", p, j);
  // NCR_{k,j} = √|S_k| ‖A_kᵀA_k‖_F/(√|S_j| ‖A_kᵀA_j‖_F) (ZXD+26 §4).
  return std::sqrt(p.class_counts[k]) * p.cross_at(k, k) /
         (std::sqrt(p.class_counts[j]) * p.cross_at(k, j));
}

double phi(const longtail_problem& p) {
  p.validate("phi");
  // φ = min_{k₁,k₂} min{‖A_{k₁}ᵀA_{k₂}‖_F, ‖u_{k₁}‖²} (ZXD+26 §4).
  double best = std::numeric_limits<double>::infinity();
  for (std::size_t a = 0; a < p.classes(); ++a) {
    best = std::min(best, p.signal_norms[a] * p.signal_norms[a]);
    for (std::size_t b = 0; b < p.classes(); ++b) best = std::min(best, p.cross_at(a, b));
  }
  return best;
}

// ---- Theorem 1 ----------------------------------------------------------------------------------

double thm1_drift_slope(const longtail_problem& p,
                        const longtail_setting& s,
                        std::size_t k,
                        double xi_norm_sq,
                        double one_minus_logit) {
  constexpr const char* fn = "thm1_drift_slope";
  p.validate(fn);
  check_class(fn, p, k);
  check_setting(fn, s);
  check_nonnegative(fn, "xi_norm_sq", xi_norm_sq);
  check_bounded(fn, "one_minus_logit", one_minus_logit, 0, 1);
  // Per-step drift ηΛ_y(1 − logit_y)‖ξ‖²/(n√m) (ZXD+26 App C.4).
  return s.eta * setting_clipping_factor(p, s, k) * one_minus_logit * xi_norm_sq /
         (p.examples() * std::sqrt(s.width));
}

risk_bound thm1_memorisation(const longtail_problem& p,
                             const longtail_setting& s,
                             std::size_t k,
                             double xi_norm_sq,
                             double sum_one_minus_logit,
                             thm1_noise_form form,
                             const longtail_constants& c) {
  constexpr const char* fn = "thm1_memorisation";
  p.validate(fn);
  check_class(fn, p, k);
  check_setting(fn, s);
  check_constants(fn, c);
  check_nonnegative(fn, "xi_norm_sq", xi_norm_sq);
  check_nonnegative(fn, "sum_one_minus_logit", sum_one_minus_logit);
  const double n = p.examples(), lam = setting_clipping_factor(p, s, k);
  risk_bound r;
  r.source = kThm1;
  // U = Ω(Σ_t ηΛ_y(1 − logit_y)‖ξ‖²/(n√m)) − O(noise) (ZXD+26 Thm 1).
  const double drift =
      c.drift * s.eta * lam * xi_norm_sq * sum_one_minus_logit / (n * std::sqrt(s.width));
  double noise = 0;
  switch (form) {
    case thm1_noise_form::statement:  // O(ησ_n‖A_y‖_F), as stated
      noise = c.drift_noise * s.eta * s.noise_std * p.frobenius[k];
      break;
    case thm1_noise_form::proof:  // O(ηTσ_n‖A_y‖_F), the proof's sum
      noise = c.drift_noise * s.eta * s.steps * s.noise_std * p.frobenius[k];
      break;
    case thm1_noise_form::exact_std:  // ησ_n‖ξ‖√T, exact
      noise = s.eta * s.noise_std * std::sqrt(xi_norm_sq * s.steps);
      break;
  }
  r.terms = {{"drift", drift}, {"DP noise", -noise}};
  r.value = drift - noise;
  if (!std::isnan(s.sigma0)) {
    // T ≥ Ω(n√m σ₀/(ηΛ_y‖A_y‖_F)).
    r.conditions.push_back(at_least(
        "T >= iterations n sqrt(m) sigma0/(eta Lambda_y ||A_y||_F)", s.steps,
        c.iterations * n * std::sqrt(s.width) * s.sigma0 / (s.eta * lam * p.frobenius[k]), kThm1));
  }
  finish(r, bound_status::up_to_constants);
  return r;
}

// ---- Theorem 2 ----------------------------------------------------------------------------------

double thm2_loss_floor(const longtail_problem& p,
                       const longtail_setting& s,
                       std::size_t k,
                       const longtail_constants& c) {
  constexpr const char* fn = "thm2_loss_floor";
  p.validate(fn);
  check_class(fn, p, k);
  check_setting(fn, s);
  check_constants(fn, c);
  if (s.noise_std == 0) return 0;
  const double u = p.signal_norms[k], lam = setting_clipping_factor(p, s, k);
  // O(n√m σ_n √d (‖u_y‖ + ‖A_y‖_F)/(Λ_y|S_y|‖u_y‖²)) (ZXD+26 Thm 2; +inf when u_y = 0).
  return c.floor * p.examples() * std::sqrt(s.width) * s.noise_std * std::sqrt(p.dimension) *
         (u + p.frobenius[k]) / (lam * p.class_counts[k] * u * u);
}

risk_bound thm2_training_loss(const longtail_problem& p,
                              const longtail_setting& s,
                              std::size_t k,
                              double initial_loss,
                              const longtail_constants& c) {
  constexpr const char* fn = "thm2_training_loss";
  p.validate(fn);
  check_class(fn, p, k);
  check_setting(fn, s);
  check_constants(fn, c);
  check_nonnegative(fn, "initial_loss", initial_loss);
  const double u = p.signal_norms[k], lam = setting_clipping_factor(p, s, k);
  // exp(−Ω(ηTΛ_y|S_y|‖u_y‖²/(n√m)))·L(W⁽⁰⁾) (ZXD+26 Thm 2, "vanishing error").
  const double vanishing = std::exp(-c.rate * s.eta * s.steps * lam * p.class_counts[k] * u * u /
                                    (p.examples() * std::sqrt(s.width))) *
                           initial_loss;
  const double floor = thm2_loss_floor(p, s, k, c);
  risk_bound r;
  r.source = kThm2;
  r.terms = {{"vanishing error", vanishing}, {"privacy protection error", floor}};
  r.value = vanishing + floor;
  finish(r, bound_status::up_to_constants);
  return r;
}

// ---- Theorem 3 ----------------------------------------------------------------------------------

risk_bound thm3_all_data(const longtail_problem& p,
                         const longtail_setting& s,
                         std::size_t k,
                         const longtail_constants& c) {
  constexpr const char* fn = "thm3_all_data";
  p.validate(fn);
  check_class(fn, p, k);
  check_setting(fn, s);
  check_constants(fn, c);
  const double n = p.examples(), u = p.signal_norms[k], lam = setting_clipping_factor(p, s, k);
  const double signal = p.class_counts[k] * lam * u * u;  // |S_k|Λ_k‖u_k‖²
  // N_D = |S_k|Λ_k‖u_k‖² − nσ_n‖u_k‖√(2 log(2/δ)) (Thm 3, Statement 1).
  const double numerator = signal - n * s.noise_std * u * std::sqrt(2 * std::log(2 / s.fail_delta));
  risk_bound r;
  r.source = kThm3a;
  // D_j = √|S_j|‖A_kᵀA_j‖_F + nσ_n‖A_k‖_F.
  add_class_terms(r, p, k, numerator, 1, n * s.noise_std * p.frobenius[k], c.c1);
  r.conditions.push_back(at_least(
      "|S_k| Lambda_k ||u_k||^2 >= C1 (max_j sqrt|S_j| ||A_k'A_j||_F + n sigma_n (||u_k|| + "
      "||A_k||_F))",
      signal, c.C1 * (max_cross_term(p, k) + n * s.noise_std * (u + p.frobenius[k])), kThm3a));
  r.conditions.push_back(positive("N_D > 0", numerator, kThm3a));
  finish(r, bound_status::up_to_constants);
  return r;
}

risk_bound thm3_tail(const longtail_problem& p,
                     const longtail_setting& s,
                     std::size_t k,
                     double tail_L,
                     const longtail_constants& c) {
  constexpr const char* fn = "thm3_tail";
  p.validate(fn);
  check_class(fn, p, k);
  check_setting(fn, s);
  check_constants(fn, c);
  check_finite(fn, "tail_L", tail_L);
  const double n = p.examples(), lam = setting_clipping_factor(p, s, k);
  // a = √|S_k|Λ_k‖A_kᵀA_k‖_F, b = nσ_n‖A_k‖_op, N_T(L) = aL − b√(d + L²) (Thm 3, Statement 2).
  const double a = std::sqrt(p.class_counts[k]) * lam * p.cross_at(k, k);
  const double b = n * s.noise_std * p.operator_norm[k];
  const double root = std::sqrt(p.dimension + tail_L * tail_L);
  const double numerator = a * tail_L - b * root;
  risk_bound r;
  r.source = kThm3b;
  add_class_terms(r, p, k, numerator, 1, n * s.noise_std * p.frobenius[k], c.c2);
  r.conditions.push_back(at_least(
      "sqrt|S_k| Lambda_k ||A_k'A_k||_F >= C2 (max_j sqrt|S_j| ||A_k'A_j||_F + n sigma_n "
      "sqrt(d + L^2) ||A_k||_op + n sigma_n ||A_k||_F)",
      a, c.C2 * (max_cross_term(p, k) + b * root + n * s.noise_std * p.frobenius[k]), kThm3b));
  r.conditions.push_back(positive("N_T(L) > 0", numerator, kThm3b));
  finish(r, bound_status::up_to_constants);
  return r;
}

tail_regime remark3_tail_regime(const longtail_problem& p,
                                const longtail_setting& s,
                                std::size_t k) {
  constexpr const char* fn = "remark3_tail_regime";
  p.validate(fn);
  check_class(fn, p, k);
  check_setting(fn, s);
  tail_regime t;
  t.a = std::sqrt(p.class_counts[k]) * setting_clipping_factor(p, s, k) * p.cross_at(k, k);
  t.b = p.examples() * s.noise_std * p.operator_norm[k];
  t.larger_L_helps = t.a > t.b;
  // N_T(L) > 0 ⇔ a > b and L > b√d/√(a² − b²) (derived here).
  t.threshold_L = t.b == 0    ? 0.0
                  : t.a > t.b ? t.b * std::sqrt(p.dimension) / std::sqrt((t.a - t.b) * (t.a + t.b))
                              : std::numeric_limits<double>::infinity();
  return t;
}

double remark4_noise(
    double clip, double steps, double dp_delta, double examples, double epsilon, double constant) {
  constexpr const char* fn = "remark4_noise";
  check_positive(fn, "clip", clip);
  check_nonnegative(fn, "steps", steps);
  check_open_probability(fn, "dp_delta", dp_delta);
  check_positive(fn, "examples", examples);
  check_positive(fn, "epsilon", epsilon);
  check_positive(fn, "constant", constant);
  // ZXD+26 Remark 4: σ_n = O(C√(T ln(1/δ))/(nε)).
  return constant * clip * std::sqrt(steps * std::log(1 / dp_delta)) / (examples * epsilon);
}

risk_bound remark4_all_data(const longtail_problem& p,
                            const longtail_setting& s,
                            std::size_t k,
                            double epsilon,
                            const longtail_constants& c) {
  constexpr const char* fn = "remark4_all_data";
  p.validate(fn);
  check_class(fn, p, k);
  check_setting(fn, s);
  check_constants(fn, c);
  check_positive(fn, "epsilon", epsilon);
  check_positive(fn, "clip (finite)", s.clip);
  // min{1, Λ_k}, as in every bound (setting_clipping_factor).
  const double u = p.signal_norms[k], lam = setting_clipping_factor(p, s, k);
  const double ct = s.clip * std::sqrt(s.steps);
  // (ε|S_k|Λ_k‖u_k‖² − C√T‖u_k‖)/(ε√|S_j|‖A_kᵀA_j‖_F + C√T‖A_k‖_F) (ZXD+26 Remark 4).
  const double numerator = epsilon * p.class_counts[k] * lam * u * u - ct * u;
  risk_bound r;
  r.source = kRem4;
  add_class_terms(r, p, k, numerator, epsilon, ct * p.frobenius[k], c.c1);
  r.conditions.push_back(positive("numerator > 0", numerator, kRem4));
  finish(r, bound_status::up_to_constants);
  return r;
}

calibrated_ratios calibrated_margin_ratios(const longtail_problem& p,
                                           const longtail_setting& s,
                                           std::size_t k,
                                           double tail_L,
                                           double epsilon,
                                           double dp_delta,
                                           double noise_constant) {
  constexpr const char* fn = "calibrated_margin_ratios";
  p.validate(fn);
  check_class(fn, p, k);
  check_setting(fn, s);
  check_positive(fn, "clip (finite)", s.clip);
  check_finite(fn, "tail_L", tail_L);
  calibrated_ratios out;
  out.noise_std = remark4_noise(s.clip, s.steps, dp_delta, p.examples(), epsilon, noise_constant);
  const double n = p.examples(), u = p.signal_norms[k], lam = setting_clipping_factor(p, s, k);
  const double ns = n * out.noise_std;
  // N_D, N_T(L), D_j of Thm 3 at σ_n = Remark 4's calibration.
  const double nd =
      p.class_counts[k] * lam * u * u - ns * u * std::sqrt(2 * std::log(2 / s.fail_delta));
  const double nt = std::sqrt(p.class_counts[k]) * lam * p.cross_at(k, k) * tail_L -
                    ns * p.operator_norm[k] * std::sqrt(p.dimension + tail_L * tail_L);
  for (std::size_t j = 0; j < p.classes(); ++j) {
    if (j == k) continue;
    const double D = std::sqrt(p.class_counts[j]) * p.cross_at(k, j) + ns * p.frobenius[k];
    out.all_data.push_back(nd / D);
    out.tail.push_back(nt / D);
  }
  return out;
}

// ---- Condition 1 --------------------------------------------------------------------------------

std::vector<condition> condition1(const longtail_problem& p,
                                  const longtail_setting& s,
                                  const condition1_constants& c) {
  constexpr const char* fn = "condition1";
  p.validate(fn);
  check_setting(fn, s);
  check_positive(fn, "c1", c.c1);
  check_open_probability(fn, "c2", c.c2);
  check_positive(fn, "c_abs", c.c_abs);
  check_positive(fn, "sigma0", s.sigma0);
  check_positive(fn, "batch_size", s.batch_size);
  if (!(s.steps >= 2)) throw_domain_error(fn, "steps", s.steps, ">= 2 (log T > 0)");
  const std::size_t K = p.classes();
  const double n = p.examples(), m = s.width, d = p.dimension, delta = s.fail_delta;
  const double logn2 = log_over(n * n, delta);
  double max_cross = 0;
  for (double v : p.cross) max_cross = std::max(max_cross, v);
  std::vector<condition> out;
  auto pair = [&](std::size_t i, std::size_t j) { return "(" + count(i) + "," + count(j) + ")"; };
  // (a), for all i, j.
  for (std::size_t i = 0; i < K; ++i) {
    const double tr = p.frobenius[i] * p.frobenius[i];
    for (std::size_t j = 0; j < K; ++j) {
      const double rhs =
          c.c1 * n *
          std::max(p.cross_at(i, j) * logn2,
                   std::sqrt(n) * std::sqrt(max_cross) * std::sqrt(logn2) / p.class_counts[i]);
      out.push_back(
          at_least("(a) Tr(A_i'A_i) >= c1 n max{||A_i'A_j||_F log(n^2/delta), ...} " + pair(i, j),
                   tr, rhs, kCond1));
      out.push_back(
          at_least("(a) ||A_i'A_j||_F/||A_i'A_j||_op >= c1 sqrt(log(K/delta)) " + pair(i, j),
                   p.cross_at(i, j) / p.cross_operator[i * K + j],
                   c.c1 * std::sqrt(log_over(static_cast<double>(K), delta)), kCond1));
      if (!c.self_dominance_reading) {
        double other = 0;
        for (std::size_t k = 0; k < K; ++k)
          if (k != j) other = std::max(other, p.cross_at(i, k));
        out.push_back(
            at_least("(a) ||A_i'A_j||_F >= c1 max_{k!=j} ||A_i'A_k||_F (literal) " + pair(i, j),
                     p.cross_at(i, j), c.c1 * other, kCond1));
      }
    }
    if (c.self_dominance_reading) {
      double other = 0;
      for (std::size_t k = 0; k < K; ++k)
        if (k != i) other = std::max(other, p.cross_at(i, k));
      out.push_back(
          at_least("(a) ||A_i'A_i||_F >= c1 max_{k!=i} ||A_i'A_k||_F (i = " + count(i) + ")",
                   p.cross_at(i, i), c.c1 * other, kCond1));
    }
  }
  // (b).
  double cond_ratio = 0;
  for (std::size_t i = 0; i < K; ++i) {
    const double r = p.operator_norm[i] / p.smallest_nonzero[i];
    cond_ratio = std::max(cond_ratio, r * r);
  }
  out.push_back(at_least("(b) m >= c1 log(n/delta) max_i (lambda+max/lambda+min)^2", m,
                         c.c1 * log_over(n, delta) * cond_ratio, kCond1));
  out.push_back(at_least("(b) n >= c1 log(m/delta)", n, c.c1 * log_over(m, delta), kCond1));
  const double logT = std::log(s.steps);
  out.push_back(at_least("(b) m >= c1 log(n/delta) log(T)^2/(n sigma0^2)", m,
                         c.c1 * log_over(n, delta) * logT * logT / (n * s.sigma0 * s.sigma0),
                         kCond1));
  for (std::size_t j = 0; j < K; ++j)
    out.push_back(at_least("(b) min{m, d, rank(A_j)} - 0.9m >= C n (j = " + count(j) + ")",
                           std::min({m, d, p.rank[j]}) - 0.9 * m, c.c_abs * n, kCond1));
  out.push_back(at_least("(b) d >= c1 log(mn/delta)", d, c.c1 * log_over(m * n, delta), kCond1));
  // (c).
  double max_signal_noise = 0, max_trace = 0;
  for (std::size_t k = 0; k < K; ++k) {
    const double tr = p.frobenius[k] * p.frobenius[k];
    max_signal_noise = std::max(max_signal_noise, p.signal_norms[k] + std::sqrt(1.5 * tr));
    max_trace = std::max(max_trace, tr);
  }
  // With C = +inf (clean training) the first limit is 0 and the line fails (it is stated for
  // DP-SGD with finite C).
  const double eta_limit_1 =
      std::isinf(s.clip) ? 0.0
                         : 1 / (c.c1 * (s.clip + std::sqrt(d) * s.noise_std) * max_signal_noise);
  out.push_back(
      at_most("(c) eta <= 1/(c1 (C + sqrt(d) sigma_n) max_k(||u_k|| + sqrt(1.5 Tr(A_k'A_k))))",
              s.eta, eta_limit_1, kCond1));
  out.push_back(
      at_most("(c) eta <= m n log(T)/max_j Tr(A_j'A_j)", s.eta, m * n * logT / max_trace, kCond1));
  out.push_back(at_least("(c) B >= c2 n", s.batch_size, c.c2 * n, kCond1));
  double scale = 0;
  const double lkm = log_over(static_cast<double>(K) * m, delta);
  for (std::size_t k = 0; k < K; ++k)
    scale = std::max({scale, std::sqrt(lkm) * p.signal_norms[k], lkm * p.frobenius[k]});
  out.push_back(at_most(
      "(c) sigma0 <= phi/(c1 n max_k{sqrt(log(Km/delta)) ||u_k||, log(Km/delta) ||A_k||_F})",
      s.sigma0, phi(p) / (c.c1 * n * scale), kCond1));
  return out;
}

// ---- Appendix B lemmas --------------------------------------------------------------------------

double lemma9_claimed(long long m) {
  check_at_least("lemma9_claimed", "m", m, 1);
  return std::exp(-8.0 * static_cast<double>(m) / 25);  // ZXD+26 Lemma 9 as printed
}

double lemma9_hoeffding(long long m) {
  check_at_least("lemma9_hoeffding", "m", m, 1);
  // Hoeffding: P[X − m/2 ≤ −0.1m] ≤ exp(−2m·0.1²) = exp(−m/50) (docs/findings.md).
  return std::exp(-static_cast<double>(m) / 50);
}

double lemma9_exact(long long m) {
  check_at_least("lemma9_exact", "m", m, 1);
  // X < 0.4m ⇔ 5X < 2m ⇔ X ≤ ⌈2m/5⌉ − 1 (integer arithmetic: no rounding of 0.4m).
  const long long k = (2 * m + 4) / 5 - 1;
  if (k < 0) return 0;
  const boost::math::binomial_distribution<double> bin(static_cast<double>(m), 0.5);
  return boost::math::cdf(bin, static_cast<double>(k));
}

double lemma7_bound(double noise_std, double u_norm, double fail_delta) {
  constexpr const char* fn = "lemma7_bound";
  check_nonnegative(fn, "noise_std", noise_std);
  check_nonnegative(fn, "u_norm", u_norm);
  check_open_probability(fn, "fail_delta", fail_delta);
  // ZXD+26 Lemma 7: σ_n‖u‖√(2 log(2/δ)).
  return noise_std * u_norm * std::sqrt(2 * std::log(2 / fail_delta));
}

double lemma7_exact_tail(double noise_std, double u_norm, double t) {
  constexpr const char* fn = "lemma7_exact_tail";
  check_positive(fn, "noise_std", noise_std);
  check_positive(fn, "u_norm", u_norm);
  check_nonnegative(fn, "t", t);
  // ⟨n, u⟩ ~ N(0, σ_n²‖u‖²): P[|·| ≥ t] = 2Φ̄(t/(σ_n‖u‖)).
  return 2 * normal_ccdf(t / (noise_std * u_norm));
}

double lemma25_norm_bound(double dimension, double tail_L, double fail_delta) {
  constexpr const char* fn = "lemma25_norm_bound";
  check_greater(fn, "dimension", dimension, 1);
  check_positive(fn, "tail_L", tail_L);
  check_open_probability(fn, "fail_delta", fail_delta);
  // Derived in the header: (L + x/L)² + (d − 1) + 2√((d − 1)x) + 2x, x = ln(2/δ).
  const double x = std::log(2 / fail_delta);
  const double z = tail_L + x / tail_L;
  return z * z + (dimension - 1) + 2 * std::sqrt((dimension - 1) * x) + 2 * x;
}

double lemma25_proof_form(double dimension, double tail_L, double fail_delta) {
  constexpr const char* fn = "lemma25_proof_form";
  check_positive(fn, "dimension", dimension);
  check_finite(fn, "tail_L", tail_L);
  check_open_probability(fn, "fail_delta", fail_delta);
  const double x = std::log(2 / fail_delta);
  // The proof of Lemma 25 as written: d + L² + 2√(d ln(2/δ)) + 4 ln(2/δ).
  return dimension + tail_L * tail_L + 2 * std::sqrt(dimension * x) + 4 * x;
}

}  // namespace dpkit::risk
