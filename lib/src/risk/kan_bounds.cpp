#include "dpkit/risk/kan_bounds.hpp"
#include "detail/conditions.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>
#include <utility>

#include "dpkit/core/check.hpp"

namespace dpkit::risk {
namespace {

using detail::at_least;
using detail::at_most;
using detail::log_over;
using detail::positive;

constexpr const char* kC13 = "WSK+26, Thm 4.1 / C.13";

// ---- conditions and labels --------------------------------------------------------------------

// Sets status and label from the conditions: `ok` when all hold, condition_violated otherwise.
void finish(risk_bound& r, bound_status ok) {
  detail::set_status(r, ok);
}

double sum_terms(const std::vector<bound_term>& terms) {
  double s = 0;
  for (const bound_term& t : terms) s += t.value;
  return s;
}

double sum_terms(const risk_bound& r) {
  return sum_terms(r.terms);
}

// ---- input checks -------------------------------------------------------------------------------

void check_constants(const char* fn, const kan_constants& k) {
  check_nonnegative(fn, "B_sigma", k.B_sigma);
  check_nonnegative(fn, "B_sigma_1", k.B_sigma_1);
  check_nonnegative(fn, "B_sigma_2", k.B_sigma_2);
  check_nonnegative(fn, "B_b", k.B_b);
  check_nonnegative(fn, "B_b_1", k.B_b_1);
  check_nonnegative(fn, "B_b_2", k.B_b_2);
}

void check_hidden(const char* fn, const hidden_constants& c) {
  const std::pair<const char*, double> fields[] = {{"C_sigma_b", c.C_sigma_b},
                                                   {"bound", c.bound},
                                                   {"polylog", c.polylog},
                                                   {"step_size_condition", c.step_size_condition},
                                                   {"width_lower", c.width_lower},
                                                   {"width_upper", c.width_upper},
                                                   {"width_generalization", c.width_generalization},
                                                   {"radius", c.radius},
                                                   {"batch", c.batch},
                                                   {"steps", c.steps},
                                                   {"step_size", c.step_size},
                                                   {"width", c.width},
                                                   {"noise", c.noise}};
  for (const auto& [name, value] : fields)
    check_positive(fn, std::string("hidden_constants.") + name, value);
}

void check_delta(const char* fn, const char* name, double delta) {
  check_open_probability(fn, name, delta);
}

void check_training(const char* fn, const kan_training& s) {
  check_at_least(fn, "examples", s.examples, 1);
  check_at_least(fn, "input_dimension", s.input_dimension, 1);
  check_at_least(fn, "width", s.width, 1);
  check_at_least(fn, "basis_size", s.basis_size, 1);
  check_at_least(fn, "batch_size", s.batch_size, 1);
  if (s.batch_size > s.examples)
    throw_domain_error(fn, "batch_size", format_value(s.batch_size),
                       "<= examples = " + format_value(s.examples));
  check_at_least(fn, "steps", s.steps, 1);
  check_positive(fn, "eta", s.eta);
  check_nonnegative(fn, "kappa", s.kappa);
  if (!(s.lambda >= 0 && s.lambda < 1)) throw_domain_error(fn, "lambda", s.lambda, "in [0, 1)");
  check_positive(fn, "gamma", s.gamma);
  check_delta(fn, "delta", s.delta);
  if (!(s.clip > 0)) throw_domain_error(fn, "clip", s.clip, "> 0 (+inf: no clipping)");
  if (!std::isnan(s.radius) && !(s.radius > 0))
    throw_domain_error(fn, "radius", s.radius, "> 0, +inf (no projection) or NaN (default)");
}

double dbl(long long n) {
  return static_cast<double>(n);
}

// R* of the setting, or the theorems' choice R* ≍ (log T + √log(n/δ))/γ (Thm 4.1, D.14).
double radius_of(const kan_training& s, const hidden_constants& c) {
  if (!std::isnan(s.radius)) return s.radius;
  return c.radius * (std::log(dbl(s.steps)) + std::sqrt(std::log(dbl(s.examples) / s.delta))) /
         s.gamma;
}

// ---- shared conditions ------------------------------------------------------------------------

condition margin_condition(double gamma, const char* source) {
  return at_most("gamma <= 1 (Assumption 3.3: gamma in (0, 1])", gamma, 1, source);
}

condition step_size_condition(const kan_training& s, const hidden_constants& c, const char* src) {
  // η ≤ 1/(12 C_{σ,b} p³).
  return at_most("eta <= 1/(12 C_{sigma,b} p^3)", s.eta,
                 1 / (12 * c.C_sigma_b * std::pow(dbl(s.basis_size), 3)), src);
}

condition clip_condition(const kan_training& s, const kan_constants& k, const char* src) {
  // C_clip ≥ G_δ (eq. (5)): clipping inactive on E_δ.
  const double G = kan_curvature_bounds(k, s.width, s.basis_size, s.delta).gradient;
  return at_least("C_clip >= G_delta (eq. (5))", s.clip, G, src);
}

// ---- A_corr of Thm 4.1
// ---------------------------------------------------------------------------

std::vector<bound_term> a_corr_terms(const kan_training& s) {
  const double g = s.gamma, eta = s.eta, T = dbl(s.steps), B = dbl(s.batch_size);
  const double md = dbl(s.width) * dbl(s.input_dimension);
  const double lam = s.lambda, kap = s.kappa;
  // WSK+26, Thm 4.1: A_corr.
  return {{"optimization 1/(gamma^2 eta T)", 1 / (g * g * eta * T)},
          {"sampling 1/(gamma sqrt(B T))", 1 / (g * std::sqrt(B * T))},
          {"step eta (1/B + 1/T)", eta * (1 / B + 1 / T)},
          {"linear noise (1-lambda) kappa/(B sqrt T) (1/gamma + eta sqrt(md)/sqrt B)",
           (1 - lam) * kap / (B * std::sqrt(T)) * (1 / g + eta * std::sqrt(md) / std::sqrt(B))},
          {"quadratic noise ((1-lambda)^2 + lambda^2 eta) eta kappa^2 md/B^2",
           ((1 - lam) * (1 - lam) + lam * lam * eta) * eta * kap * kap * md / (B * B)}};
}

// The conditions of Thm C.13 (shared with C.23).
void correlated_conditions(risk_bound& r,
                           const kan_training& s,
                           const kan_constants& k,
                           const hidden_constants& c) {
  const double g = s.gamma, eta = s.eta, T = dbl(s.steps), B = dbl(s.batch_size);
  const double lam = s.lambda, kap = s.kappa;
  r.conditions.push_back(positive("lambda > 0 (Thm C.13: 0 < lambda < 1)", lam, kC13));
  r.conditions.push_back(positive("kappa > 0 (Thm C.13)", kap, kC13));
  r.conditions.push_back(margin_condition(g, kC13));
  r.conditions.push_back(step_size_condition(s, c, kC13));
  r.conditions.push_back(clip_condition(s, k, kC13));
  // ηγ√T(1/√B + κ(1 − λ)/B) + η²γ²(T/B + 1) ≲ 1.
  const double step = eta * g * std::sqrt(T) * (1 / std::sqrt(B) + kap * (1 - lam) / B) +
                      eta * eta * g * g * (T / B + 1);
  r.conditions.push_back(
      at_most("eta gamma sqrt(T)(1/sqrt(B) + kappa(1-lambda)/B) + "
              "eta^2 gamma^2 (T/B + 1) <= c-step-size-condition",
              step, c.step_size_condition, kC13));
  // Ω̃(γ^{−4}) ≤ m ≤ Õ(B²/(η²κ²γ²d) min{1, 1/(T((1 − λ)² + λ²η))}).
  const double m = dbl(s.width);
  r.conditions.push_back(
      at_least("m >= c-width-lower gamma^-4", m, c.width_lower / std::pow(g, 4), kC13));
  const double q = (1 - lam) * (1 - lam) + lam * lam * eta;
  const double upper = c.width_upper * B * B /
                       (eta * eta * kap * kap * g * g * dbl(s.input_dimension)) *
                       std::min(1.0, 1 / (T * q));
  r.conditions.push_back(
      at_most("m <= c-width-upper B^2/(eta^2 kappa^2 gamma^2 d) "
              "min{1, 1/(T((1-lambda)^2 + lambda^2 eta))}",
              m, upper, kC13));
}

}  // namespace

std::string_view to_string(bound_status s) noexcept {
  switch (s) {
    case bound_status::explicit_bound:
      return "explicit bound";
    case bound_status::up_to_constants:
      return "up to hidden constants";
    case bound_status::condition_violated:
      return "condition violated";
  }
  return "condition violated";
}

bool risk_bound::conditions_hold() const noexcept {
  return std::all_of(conditions.begin(), conditions.end(),
                     [](const condition& c) { return c.holds; });
}

kan_constants cubic_bspline_constants(kan_activation activation, double spacing) {
  // h = 2/G on [−1, 1] with G ≥ 1 grid intervals, so h ≤ 2 (a probe's 1e308 made B″_b = 0
  // and the automatic clip 0, "--clip is 0"); at most 1e100 intervals keeps 2/h² ≤ 2e200, far
  // from overflowing (it overflows below h ≈ 1e-154).
  if (!(spacing >= 1e-100 && spacing <= 2))
    throw_domain_error("cubic_bspline_constants", "spacing", spacing,
                       "in [1e-100, 2] (h = 2/G on [-1, 1] with 1 <= G <= 1e100 grid intervals)");
  const double h = spacing;
  // Cardinal cubic B-spline: max N = 2/3 (at the centre), max |N′| = 2/3 (at 4/3 and 8/3),
  // max |N″| = 2 (at the centre); scaled by h^{−r}.
  kan_constants k;
  k.B_b = 2.0 / 3;
  k.B_b_1 = 2 / (3 * h);
  k.B_b_2 = 2 / (h * h);
  k.B_sigma = 1;
  if (activation == kan_activation::tanh) {
    k.B_sigma_1 = 1;
    k.B_sigma_2 = 4 / (3 * std::numbers::sqrt3);
  } else {
    k.B_sigma_1 = 0.25;
    k.B_sigma_2 = 1 / (6 * std::numbers::sqrt3);
  }
  return k;
}

// ---- Lemmas B.5–B.7 ----------------------------------------------------------------------------

second_layer_radii lemma_b5(long long width, long long basis_size, double delta) {
  constexpr const char* fn = "lemma_b5";
  check_at_least(fn, "width", width, 1);
  check_at_least(fn, "basis_size", basis_size, 1);
  check_delta(fn, "delta", delta);
  const double m = dbl(width), p = dbl(basis_size);
  // WSK+26, Lemma B.5, eq. (1).
  return {4 * std::sqrt(p * m) + 2 * std::sqrt(log_over(2, delta)),
          4 * std::sqrt(p) + 2 * std::sqrt(log_over(2 * m, delta))};
}

kan_curvature kan_curvature_given_c(const kan_constants& k,
                                    long long width,
                                    long long basis_size,
                                    double c_norm,
                                    double c_block_norm) {
  constexpr const char* fn = "kan_curvature_given_c";
  check_constants(fn, k);
  check_at_least(fn, "width", width, 1);
  check_at_least(fn, "basis_size", basis_size, 1);
  check_nonnegative(fn, "c_norm", c_norm);
  check_nonnegative(fn, "c_block_norm", c_block_norm);
  const double m = dbl(width), p = dbl(basis_size);
  kan_curvature r;
  // WSK+26, proof of Lemma B.6, eq. (3) before (1) is used: B′_σ B_b B′_b √(p²/m) ‖c‖.
  r.gradient = k.B_sigma_1 * k.B_b * k.B_b_1 * p * c_norm / std::sqrt(m);
  // eq. (4) before (1): B_b² p/√m · max_j ‖c_j‖ · √p (B″_σ B′_b + B′_σ² B″_b).
  r.hessian = k.B_b * k.B_b * (k.B_sigma_2 * k.B_b_1 + k.B_sigma_1 * k.B_sigma_1 * k.B_b_2) *
              std::pow(p, 1.5) * c_block_norm / std::sqrt(m);
  // WSK+26, proof of Lemma B.7: λ_min ≥ −‖∇²f‖ ℓ (|ℓ′| ≤ ℓ), λ_max ≤ ¼‖∇f‖² + ‖∇²f‖,
  // ‖∇L_S‖² ≤ (mean |ℓ′|)² G² ≤ G² L_S (|ℓ′| ≤ min(1, ℓ)).
  r.weak_convexity = r.hessian;
  r.smoothness = 0.25 * r.gradient * r.gradient + r.hessian;
  r.self_bounding = r.gradient * r.gradient;
  r.status = bound_status::explicit_bound;
  r.label = std::string(to_string(r.status));
  r.source = "WSK+26, Lemmas B.6-B.7 (proofs, before Lemma B.5 is applied)";
  return r;
}

kan_curvature kan_curvature_bounds(const kan_constants& k,
                                   long long width,
                                   long long basis_size,
                                   double delta) {
  const second_layer_radii c = lemma_b5(width, basis_size, delta);
  kan_curvature r = kan_curvature_given_c(k, width, basis_size, c.norm, c.block_norm);
  r.source =
      "WSK+26, Lemmas B.5-B.7 (proofs, eqs. (3)-(5)); on E_delta, probability >= 1 - delta";
  return r;
}

kan_curvature kan_curvature_stated(long long width,
                                   long long basis_size,
                                   double delta,
                                   const hidden_constants& c) {
  constexpr const char* fn = "kan_curvature_stated";
  check_at_least(fn, "width", width, 1);
  check_at_least(fn, "basis_size", basis_size, 1);
  check_delta(fn, "delta", delta);
  check_hidden(fn, c);
  const double m = dbl(width), p = dbl(basis_size), C = c.C_sigma_b;
  kan_curvature r;
  // WSK+26, Lemma B.6 as stated.
  r.gradient = C * p * (std::sqrt(p) + std::sqrt(std::log(1 / delta) / m));
  r.hessian = C * std::pow(p, 1.5) * (std::sqrt(p) + std::sqrt(log_over(m, delta))) / std::sqrt(m);
  // WSK+26, Lemma B.7 as stated.
  r.weak_convexity = r.hessian;
  r.smoothness = C * std::pow(p, 3);
  r.self_bounding = 4 * C * std::pow(p, 3);
  r.status = bound_status::up_to_constants;
  r.label = std::string(to_string(r.status));
  r.source = "WSK+26, Lemmas B.6-B.7 (statements, hidden C_{sigma,b})";
  return r;
}

// ---- Lemma C.12
// ----------------------------------------------------------------------------------

risk_bound kan_comparator_radius(double gamma,
                                 long long basis_size,
                                 long long examples,
                                 long long steps,
                                 double delta,
                                 double B_b,
                                 double hessian) {
  constexpr const char* fn = "kan_comparator_radius";
  check_positive(fn, "gamma", gamma);
  check_at_least(fn, "basis_size", basis_size, 1);
  check_at_least(fn, "examples", examples, 1);
  check_at_least(fn, "steps", steps, 1);
  check_delta(fn, "delta", delta);
  check_nonnegative(fn, "B_b", B_b);
  check_nonnegative(fn, "hessian", hessian);
  constexpr const char* src = "WSK+26, Lemma C.12 (explicit constants from its proof)";
  risk_bound r;
  r.source = src;
  // |f_{W_0}(x_i)| ≤ B_b √(2p log(2n/δ)) for all i w.p. ≥ 1 − δ/2 (eq. (15)) must be ≤ τγ/2,
  // and y f_{W*} ≥ τγ/4 ≥ log T gives ℓ ≤ e^{−log T} = 1/T.
  const double output = B_b * std::sqrt(2 * dbl(basis_size) * log_over(2 * dbl(examples), delta));
  const double tau = std::max(2 * output, 4 * std::log(dbl(steps))) / gamma;
  r.terms = {{"output at init 2 B_b sqrt(2p log(2n/delta))/gamma", 2 * output / gamma},
             {"loss 1/T needs 4 log(T)/gamma", 4 * std::log(dbl(steps)) / gamma}};
  r.value = tau;
  r.conditions.push_back(margin_condition(gamma, src));
  // The second-order term (τ²/2)‖∇²f‖ ≤ τγ/4.
  r.conditions.push_back(at_most("tau H_{delta/2} <= gamma/2", tau * hessian, gamma / 2, src));
  finish(r, bound_status::explicit_bound);
  return r;
}

// ---- the explicit certificate (docs/kan.md)
// ------------------------------------------------------------

kan_certificate kan_correlated_certificate(const kan_training& s,
                                           const kan_constants& k,
                                           const certificate_inputs& in) {
  constexpr const char* fn = "kan_correlated_certificate";
  check_training(fn, s);
  check_constants(fn, k);
  if (std::isnan(s.radius))
    throw_domain_error(fn, "radius", s.radius, "given (> 0, +inf: no projection)");
  if (s.kappa > 0 && !std::isfinite(s.clip))
    throw_domain_error(fn, "clip", s.clip,
                       "finite when kappa > 0 (the noise scale is C_clip kappa/B)");
  check_nonnegative(fn, "tau", in.tau);
  check_nonnegative(fn, "comparator_loss", in.comparator_loss);
  check_delta(fn, "delta_init", in.delta_init);
  check_delta(fn, "delta_Z", in.delta_Z);
  check_delta(fn, "delta_Delta", in.delta_Delta);
  check_delta(fn, "delta_pot", in.delta_pot);
  constexpr const char* src = "WSK+26, Lemmas C.3, C.5, C.6, C.10, C.11 (explicit certificate)";

  kan_certificate r;
  r.source = src;
  const double eta = s.eta, T = dbl(s.steps), B = dbl(s.batch_size), lam = s.lambda;
  const double D = dbl(s.width) * dbl(s.input_dimension) * dbl(s.basis_size);  // mdp
  // Step 1: G, H, β = G²/4 + H, ν = H, c = C_clip κ/B.
  r.curvature = kan_curvature_bounds(k, s.width, s.basis_size, in.delta_init);
  const double G = r.curvature.gradient, beta = r.curvature.smoothness;
  const double nu = r.curvature.weak_convexity;
  const double c = s.kappa > 0 ? s.clip * s.kappa / B : 0.0;
  r.noise_scale = c;
  // Step 2: Lemma C.5 (Laurent–Massart + Gaussian maximum) and Lemma C.6.
  const double lz = std::log(2 / in.delta_Z);
  r.z = std::sqrt(D) + std::sqrt(2 * std::log(2 * T / in.delta_Z));
  r.V_Z = (T - 1) * D + 2 * std::sqrt((T - 1) * D * lz) + 2 * lz;
  r.V_Delta = 2 * T * G * G / B + 8 * G * G * std::log(1 / in.delta_Delta);
  // Step 4: M_pot(R̄) = aR̄ + b (Lemma C.10, eq. (13)).
  const double lp = std::log(6 / in.delta_pot);
  r.a = 4 * std::numbers::sqrt2 * eta * G * std::sqrt(T * lp / B) +
        4 * (1 - lam) * eta * c * std::sqrt(T * lp);
  r.b = 4 * (1 - lam) * eta * eta * c * G * std::sqrt(r.V_Z * lp / B);
  // (10) with equality: R̄² = K + aR̄ + b (Lemma C.3 writes 12βλ²η³c²; the C.13 proof's 2β is
  // a typo; docs/kan.md).
  const double noise_quad =
      ((1 - lam) * (1 - lam) * eta * eta * c * c + 12 * beta * lam * lam * eta * eta * eta * c * c);
  const double K = in.tau * in.tau + 8.0 / 3 * eta * T * in.comparator_loss +
                   2 * eta * eta * r.V_Delta + noise_quad * r.V_Z;
  r.R_bar = 0.5 * (r.a + std::sqrt(r.a * r.a + 4 * (K + r.b)));
  // Step 6: the bound of Lemma C.3 with (M, V_Δ, V_Z) = (aR̄ + b, V_{Δ,δ_Δ}, V_{Z,δ_Z}).
  r.terms = {
      {"comparator 8 L_S(W*)", 8 * in.comparator_loss},
      {"distance 3 tau^2/(eta T)", 3 * in.tau * in.tau / (eta * T)},
      {"martingales 3(a R_bar + b)/(eta T)", 3 * (r.a * r.R_bar + r.b) / (eta * T)},
      {"mini-batch 6 eta V_Delta/T", 6 * eta * r.V_Delta / T},
      {"noise 3((1-lambda)^2 eta + 12 beta lambda^2 eta^2) c^2 V_Z/T",
       3 * ((1 - lam) * (1 - lam) * eta + 12 * beta * lam * lam * eta * eta) * c * c * r.V_Z / T}};
  r.value = sum_terms(r);
  r.probability = 1 - (in.delta_init + in.delta_Z + in.delta_Delta + in.delta_pot);
  // Step 5: the three conditions, plus C_clip ≥ G_δ and Lemma C.11's 0 < λ.
  const double shift = eta * c * r.z;
  r.conditions.push_back(
      at_most("eta <= 1/(12 beta), beta = G^2/4 + H", eta, 1 / (12 * beta), src));
  r.conditions.push_back(at_most("nu (R_bar + eta c z)^2 <= 1/2 (Lemma C.2, eq. (7))",
                                 nu * (r.R_bar + shift) * (r.R_bar + shift), 0.5, src));
  r.conditions.push_back(at_least("R* >= R_bar + tau + eta c z (projection inactive)", s.radius,
                                  r.R_bar + in.tau + shift, src));
  r.conditions.push_back(at_least("C_clip >= G_delta (eq. (5))", s.clip, G, src));
  r.conditions.push_back(positive("lambda > 0 (Lemma C.11: 0 < lambda < 1)", lam, src));
  finish(r, bound_status::explicit_bound);
  return r;
}

namespace {

// The common start of the up-to-constants theorems: validate the inputs, name the source.
risk_bound start_bound(const char* fn,
                       const kan_training& s,
                       const kan_constants& k,
                       const hidden_constants& c,
                       const char* source) {
  check_training(fn, s);
  check_constants(fn, k);
  check_hidden(fn, c);
  risk_bound r;
  r.source = source;
  return r;
}

}  // namespace

// ---- Thm 4.1 / C.13 and Thm 5.2 / C.23
// -----------------------------------------------------------

risk_bound kan_correlated_optimization(const kan_training& s,
                                       const kan_constants& k,
                                       const hidden_constants& c) {
  risk_bound r = start_bound("kan_correlated_optimization", s, k, c, kC13);
  r.terms = a_corr_terms(s);
  // WSK+26, Thm C.13: ≲ polylog(nT/δ)·A_corr.
  r.value = c.bound * c.polylog * sum_terms(r);
  correlated_conditions(r, s, k, c);
  finish(r, bound_status::up_to_constants);
  return r;
}

risk_bound kan_correlated_population(const kan_training& s,
                                     const kan_constants& k,
                                     const hidden_constants& c,
                                     statement form) {
  const char* src = form == statement::appendix ? "WSK+26, Thm C.23" : "WSK+26, Thm 5.2";
  risk_bound r = start_bound("kan_correlated_population", s, k, c, src);
  double a_corr = sum_terms(a_corr_terms(s));
  a_corr *= c.polylog;
  const double n = dbl(s.examples), T = dbl(s.steps), B = dbl(s.batch_size), m = dbl(s.width);
  const double eta = s.eta, delta = s.delta, R = radius_of(s, c);
  const double l1 = std::log(1 / delta), ln = log_over(n, delta);
  double factor, residual;
  if (form == statement::appendix) {
    // WSK+26, Thm C.23: (1 + ηT log(1/δ)/n)(A_corr + log(n/δ)(√m + R*)δ).
    factor = 1 + eta * T * l1 / n;
    residual = ln * (std::sqrt(m) + R) * delta;
  } else {
    // WSK+26, Thm 5.2: (1 + ηT/n)(A_corr + (√m + R*)δ).
    factor = 1 + eta * T / n;
    residual = (std::sqrt(m) + R) * delta;
  }
  r.terms = {{"optimization A_corr", c.bound * a_corr},
             {"failure-event residual", c.bound * residual},
             {"generalization (factor - 1)(A_corr + residual)",
              c.bound * (factor - 1) * (a_corr + residual)}};
  r.value = c.bound * factor * (a_corr + residual);
  correlated_conditions(r, s, k, c);
  // m ≳ R*² log(m/δ) η² (T A_corr + (log(n/δ) + R*)(√(T log(1/δ)/B) + log(1/δ)))².
  const double inner = T * a_corr + (ln + R) * (std::sqrt(T * l1 / B) + l1);
  r.conditions.push_back(at_least(
      "m >= width_generalization R*^2 log(m/delta) eta^2 (T A_corr + (log(n/delta) + R*)"
      "(sqrt(T log(1/delta)/B) + log(1/delta)))^2",
      m, c.width_generalization * R * R * log_over(m, delta) * eta * eta * inner * inner, src));
  finish(r, bound_status::up_to_constants);
  return r;
}

// ---- Thm D.14 / D.16 (independent noise)
// ---------------------------------------------------------

namespace {

std::vector<bound_term> a_van_terms(const kan_training& s) {
  const double g = s.gamma, eta = s.eta, T = dbl(s.steps), B = dbl(s.batch_size);
  const double n = dbl(s.examples), delta = s.delta, kap = s.kappa;
  const double md = dbl(s.width) * dbl(s.input_dimension);
  const double L = std::log(1 / delta), ln = log_over(n, delta), lT = std::log(T);
  const double rho = lT + std::sqrt(ln);
  // WSK+26, Thm D.14: A_van.
  return {
      {"optimization (log^2 T + log(n/delta))/(gamma^2 eta T)", (lT * lT + ln) / (g * g * eta * T)},
      {"sampling log(1/delta) rho_T/(gamma sqrt(B T))", L * rho / (g * std::sqrt(B * T))},
      {"linear noise log(1/delta) rho_T kappa/(gamma B sqrt T)",
       L * rho * kap / (g * B * std::sqrt(T))},
      {"step eta log(1/delta)(1/B + log(1/delta)/T)", eta * L * (1 / B + L / T)},
      {"quadratic noise eta md log^2(1/delta) kappa^2/B^2",
       eta * md * L * L * kap * kap / (B * B)}};
}

void independent_conditions(risk_bound& r,
                            const kan_training& s,
                            const kan_constants& k,
                            const hidden_constants& c,
                            const char* src) {
  const double T = dbl(s.steps), n = dbl(s.examples), m = dbl(s.width), delta = s.delta;
  r.conditions.push_back(at_most("lambda = 0 (independent noise)", s.lambda, 0, src));
  r.conditions.push_back(margin_condition(s.gamma, src));
  r.conditions.push_back(step_size_condition(s, c, src));
  r.conditions.push_back(clip_condition(s, k, src));
  const double lT = std::log(T), ln = log_over(n, delta);
  const double w1 = log_over(m, delta) * (std::pow(lT, 4) + ln * ln) / std::pow(s.gamma, 4);
  const double w2 = log_over(n * T, delta) / (T * dbl(s.input_dimension));
  r.conditions.push_back(at_least(
      "m >= c-width-lower max{log(m/delta)(log^4 T + log^2(n/delta))/gamma^4, log(nT/delta)/(T d)}",
      m, c.width_lower * std::max(w1, w2), src));
}

}  // namespace

risk_bound kan_independent_optimization(const kan_training& s,
                                        const kan_constants& k,
                                        const hidden_constants& c) {
  constexpr const char* src = "WSK+26, Thm D.14";
  risk_bound r = start_bound("kan_independent_optimization", s, k, c, src);
  r.terms = a_van_terms(s);
  r.value = c.bound * sum_terms(r);
  independent_conditions(r, s, k, c, src);
  finish(r, bound_status::up_to_constants);
  return r;
}

risk_bound kan_independent_population(const kan_training& s,
                                      const kan_constants& k,
                                      const hidden_constants& c) {
  constexpr const char* src = "WSK+26, Thm D.16";
  risk_bound r = start_bound("kan_independent_population", s, k, c, src);
  double a_van = sum_terms(a_van_terms(s));
  const double n = dbl(s.examples), T = dbl(s.steps), B = dbl(s.batch_size), m = dbl(s.width);
  const double eta = s.eta, delta = s.delta;
  const double L = std::log(1 / delta), ln = log_over(n, delta);
  const double rho = std::log(T) + std::sqrt(ln);
  // WSK+26, Thm D.16.
  const double factor = 1 + eta * T * L / n;
  const double residual = delta * std::sqrt(ln);
  const double tail = std::sqrt(L) * rho * delta / s.gamma;
  r.terms = {{"optimization A_van", c.bound * a_van},
             {"failure-event residual delta sqrt(log(n/delta))", c.bound * residual},
             {"generalization (factor - 1)(A_van + residual)",
              c.bound * (factor - 1) * (a_van + residual)},
             {"stability tail sqrt(log(1/delta)) rho_T delta/gamma", c.bound * tail}};
  r.value = c.bound * (factor * (a_van + residual) + tail);
  independent_conditions(r, s, k, c, src);
  r.conditions.push_back(at_least(
      "m >= width_generalization log(m/delta) eta^2 (T^2 A_van^2 + log(n/delta) log^2(1/delta)"
      "(T/B + 1))",
      m,
      c.width_generalization * log_over(m, delta) * eta * eta *
          (T * T * a_van * a_van + ln * L * L * (T / B + 1)),
      src));
  finish(r, bound_status::up_to_constants);
  return r;
}

// ---- Thm E.1 (non-private)
// ---------------------------------------------------------------------------

namespace {

std::vector<bound_term> a_non_terms(const kan_training& s) {
  const double g = s.gamma, eta = s.eta, T = dbl(s.steps), B = dbl(s.batch_size);
  // WSK+26, Thm E.1: A_non.
  return {{"optimization 1/(gamma^2 eta T)", 1 / (g * g * eta * T)},
          {"sampling 1/(gamma sqrt(B T))", 1 / (g * std::sqrt(B * T))},
          {"step eta/B", eta / B}};
}

void sgd_conditions(risk_bound& r,
                    const kan_training& s,
                    const kan_constants& k,
                    const hidden_constants& c,
                    const char* src) {
  const double T = dbl(s.steps), n = dbl(s.examples), m = dbl(s.width), delta = s.delta;
  r.conditions.push_back(at_most("kappa = 0 (non-private)", s.kappa, 0, src));
  r.conditions.push_back(margin_condition(s.gamma, src));
  r.conditions.push_back(step_size_condition(s, c, src));
  r.conditions.push_back(clip_condition(s, k, src));
  const double lT = std::log(T), ln = log_over(n, delta);
  r.conditions.push_back(at_least(
      "m >= c-width-lower log(m/delta)(log^4 T + log^2(n/delta))/gamma^4", m,
      c.width_lower * log_over(m, delta) * (std::pow(lT, 4) + ln * ln) / std::pow(s.gamma, 4),
      src));
}

}  // namespace

risk_bound kan_sgd_optimization(const kan_training& s,
                                const kan_constants& k,
                                const hidden_constants& c) {
  constexpr const char* src = "WSK+26, Thm E.1 (optimization)";
  risk_bound r = start_bound("kan_sgd_optimization", s, k, c, src);
  r.terms = a_non_terms(s);
  r.value = c.bound * sum_terms(r);
  sgd_conditions(r, s, k, c, src);
  finish(r, bound_status::up_to_constants);
  return r;
}

risk_bound kan_sgd_population(const kan_training& s,
                              const kan_constants& k,
                              const hidden_constants& c) {
  constexpr const char* src = "WSK+26, Thm E.1 (population)";
  risk_bound r = start_bound("kan_sgd_population", s, k, c, src);
  double a_non = sum_terms(a_non_terms(s));
  const double n = dbl(s.examples), T = dbl(s.steps), B = dbl(s.batch_size), m = dbl(s.width);
  const double eta = s.eta, delta = s.delta;
  // WSK+26, Thm E.1: (1 + ηT/n)(A_non + δ) + δ/γ.
  r.terms = {{"optimization A_non", c.bound * a_non},
             {"failure-event residual delta", c.bound * delta},
             {"generalization (eta T/n)(A_non + delta) + delta/gamma",
              c.bound * (eta * T / n * (a_non + delta) + delta / s.gamma)}};
  r.value = c.bound * ((1 + eta * T / n) * (a_non + delta) + delta / s.gamma);
  sgd_conditions(r, s, k, c, src);
  const double L = std::log(1 / delta), ln = log_over(n, delta);
  r.conditions.push_back(at_least(
      "m >= width_generalization log(m/delta) eta^2 (T^2 A_non^2 + log(n/delta) log^2(1/delta)"
      "(T/B + 1))",
      m,
      c.width_generalization * log_over(m, delta) * eta * eta *
          (T * T * a_non * a_non + ln * L * L * (T / B + 1)),
      src));
  finish(r, bound_status::up_to_constants);
  return r;
}

// ---- corollaries
// -----------------------------------------------------------------------------------

namespace {

void check_problem(const char* fn, const rate_problem& p, bool needs_epsilon) {
  check_at_least(fn, "examples", p.examples, 1);
  check_at_least(fn, "input_dimension", p.input_dimension, 1);
  check_at_least(fn, "basis_size", p.basis_size, 1);
  if (needs_epsilon) check_positive(fn, "epsilon", p.epsilon);
  check_positive(fn, "gamma", p.gamma);
  check_delta(fn, "delta", p.delta);
  check_at_least(fn, "batch_size", p.batch_size, 0);
  if (p.batch_size > p.examples)
    throw_domain_error(fn, "batch_size", format_value(p.batch_size),
                       "<= examples = " + format_value(p.examples));
  check_at_least(fn, "width", p.width, 0);
}

// A positive integer from a real choice (rounded, at least 1, at most `most`).
long long count_from(double x, long long most) {
  const double r = std::round(x);
  if (!(r >= 1)) return 1;
  return r >= dbl(most) ? most : static_cast<long long>(r);
}

long long width_from(double x) {
  const double r = std::ceil(x);
  return r >= 9.0e18 ? static_cast<long long>(9.0e18) : std::max(1LL, static_cast<long long>(r));
}

risk_bound rate(double value, std::string name, const char* src) {
  risk_bound r;
  r.source = src;
  r.terms = {{std::move(name), value}};
  r.value = value;
  return r;
}

void add_common(kan_rate& out, const std::vector<condition>& conditions) {
  for (risk_bound* r : {&out.optimization, &out.population}) {
    r->conditions = conditions;
    finish(*r, bound_status::up_to_constants);
  }
}

condition eta_condition(const kan_training& s, const hidden_constants& c, const char* src) {
  return at_most("eta <= 1/(12 C_{sigma,b} p^3)", s.eta,
                 1 / (12 * c.C_sigma_b * std::pow(dbl(s.basis_size), 3)), src);
}

}  // namespace

kan_rate kan_correlated_rate(const rate_problem& p, const hidden_constants& c) {
  constexpr const char* fn = "kan_correlated_rate";
  check_problem(fn, p, true);
  check_hidden(fn, c);
  if (!(p.lambda >= 0 && p.lambda < 1)) throw_domain_error(fn, "lambda", p.lambda, "in [0, 1)");
  if (!(p.rho > 0 && p.rho <= 1)) throw_domain_error(fn, "rho", p.rho, "in (0, 1]");
  constexpr const char* src = "WSK+26, Cor 5.3 / C.24";
  const double n = dbl(p.examples), d = dbl(p.input_dimension), g = p.gamma, eps = p.epsilon;
  kan_rate out;
  kan_training& s = out.setting;
  s.examples = p.examples;
  s.input_dimension = p.input_dimension;
  s.basis_size = p.basis_size;
  s.gamma = g;
  s.delta = p.delta;
  s.lambda = p.lambda;
  // B = ρn, η ≍ 1, T ≍ min{√n/γ, nεγ²/√d}, m ≍ polylog/γ⁶.
  s.batch_size = count_from(p.rho * n, p.examples);
  s.eta = c.step_size;
  s.steps = count_from(c.steps * std::min(std::sqrt(n) / g, n * eps * g * g / std::sqrt(d)),
                       static_cast<long long>(9.0e18));
  s.width = width_from(c.width * c.polylog / std::pow(g, 6));
  // Thm 5.1: κ² ≍ ((1 − λ^T)/(1 − λ))² (rT + √(rT log(1/δ))) log(1/δ)/ε², r = B/n.
  const double T = dbl(s.steps), r_ = dbl(s.batch_size) / n, L = std::log(1 / p.delta);
  const double amp = p.lambda > 0 ? (1 - std::pow(p.lambda, T)) / (1 - p.lambda) : 1.0;
  s.kappa = std::sqrt(c.noise * amp * amp * (r_ * T + std::sqrt(r_ * T * L)) * L) / eps;
  const double value =
      c.bound * c.polylog * (1 / (g * std::sqrt(n)) + std::sqrt(d) / (std::pow(g, 4) * n * eps));
  out.optimization = rate(value, "1/(gamma sqrt n) + sqrt(d)/(gamma^4 n epsilon)", src);
  out.population = out.optimization;
  const double m = dbl(s.width);
  add_common(out, {positive("lambda > 0 (0 < lambda < 1 fixed)", p.lambda, src),
                   at_most("rho < 1 (0 < rho < 1 fixed)", p.rho, std::nextafter(1.0, 0.0), src),
                   margin_condition(g, src),
                   at_most("delta <= min{1/(n sqrt m), gamma/n}", p.delta,
                           std::min(1 / (n * std::sqrt(m)), g / n), src),
                   eta_condition(s, c, src)});
  return out;
}

kan_rate kan_independent_rate(const rate_problem& p, const hidden_constants& c) {
  constexpr const char* fn = "kan_independent_rate";
  check_problem(fn, p, true);
  check_hidden(fn, c);
  constexpr const char* src = "WSK+26, Cor 5.5";
  const double n = dbl(p.examples), d = dbl(p.input_dimension), g = p.gamma, eps = p.epsilon;
  kan_rate out;
  kan_training& s = out.setting;
  s.examples = p.examples;
  s.input_dimension = p.input_dimension;
  s.basis_size = p.basis_size;
  s.gamma = g;
  s.delta = p.delta;
  s.lambda = 0;
  // B ≍ γ√n, η ≍ min{1, γ²√nε/√d}, T ≍ √n/γ, m ≍ polylog/γ⁴.
  const double B_real = c.batch * g * std::sqrt(n);
  s.batch_size = count_from(B_real, p.examples);
  s.eta = c.step_size * std::min(1.0, g * g * std::sqrt(n) * eps / std::sqrt(d));
  s.steps = count_from(c.steps * std::sqrt(n) / g, static_cast<long long>(9.0e18));
  s.width = width_from(c.width * c.polylog / std::pow(g, 4));
  // Thm 5.4: κ² ≍ B²T log(1/δ)/(n²ε²).
  const double B = dbl(s.batch_size), T = dbl(s.steps);
  s.kappa = std::sqrt(c.noise * B * B * T * std::log(1 / p.delta)) / (n * eps);
  const double value =
      c.bound * (1 / (g * std::sqrt(n)) + std::sqrt(d) / (std::pow(g, 3) * n * eps));
  out.optimization = rate(value, "1/(gamma sqrt n) + sqrt(d)/(gamma^3 n epsilon)", src);
  out.population = out.optimization;
  add_common(out,
             {margin_condition(g, src), at_most("delta <= gamma/n", p.delta, g / n, src),
              eta_condition(s, c, src), at_least("B >= 1 (B = batch gamma sqrt n)", B_real, 1, src),
              at_most("B <= n (B = batch gamma sqrt n)", B_real, n, src)});
  return out;
}

kan_rate kan_sgd_rate(const rate_problem& p, const hidden_constants& c) {
  constexpr const char* fn = "kan_sgd_rate";
  check_problem(fn, p, false);
  check_hidden(fn, c);
  constexpr const char* src = "WSK+26, Cor 5.6";
  const double n = dbl(p.examples), g = p.gamma;
  kan_rate out;
  kan_training& s = out.setting;
  s.examples = p.examples;
  s.input_dimension = p.input_dimension;
  s.basis_size = p.basis_size;
  s.gamma = g;
  s.delta = p.delta;
  s.kappa = 0;
  // B ≲ γ√n, η ≍ B/n, T ≍ n²/(γ²B), m ≳ polylog/γ⁴.
  const double B_limit = c.batch * g * std::sqrt(n);
  s.batch_size = p.batch_size > 0 ? p.batch_size : count_from(std::floor(B_limit), p.examples);
  const double B = dbl(s.batch_size);
  s.eta = c.step_size * B / n;
  s.steps = count_from(c.steps * n * n / (g * g * B), static_cast<long long>(9.0e18));
  const double m_min = c.width * c.polylog / std::pow(g, 4);
  s.width = p.width > 0 ? p.width : width_from(m_min);
  out.optimization = rate(c.bound / n, "1/n", src);
  out.population = rate(c.bound / (g * g * n), "1/(gamma^2 n)", src);
  add_common(out,
             {margin_condition(g, src), at_most("delta <= 1/(gamma n)", p.delta, 1 / (g * n), src),
              at_most("B <= batch gamma sqrt n", B, B_limit, src), eta_condition(s, c, src),
              at_least("m >= width polylog/gamma^4", dbl(s.width), m_min, src)});
  return out;
}

kan_rate kan_gd_rate(const rate_problem& p, const hidden_constants& c) {
  constexpr const char* fn = "kan_gd_rate";
  check_problem(fn, p, false);
  check_hidden(fn, c);
  constexpr const char* src = "WSK+26, App. E (full-batch GD after Cor 5.6)";
  const double n = dbl(p.examples), g = p.gamma;
  kan_rate out;
  kan_training& s = out.setting;
  s.examples = p.examples;
  s.input_dimension = p.input_dimension;
  s.basis_size = p.basis_size;
  s.gamma = g;
  s.delta = p.delta;
  s.kappa = 0;
  s.batch_size = p.examples;
  s.eta = c.step_size;
  s.steps = count_from(c.steps * n / (g * g), static_cast<long long>(9.0e18));
  const double m_min = c.width * c.polylog / std::pow(g, 4);
  s.width = p.width > 0 ? p.width : width_from(m_min);
  out.optimization = rate(c.bound / (g * g * dbl(s.steps)), "1/(gamma^2 T)", src);
  out.population = rate(c.bound / (g * g * n), "1/(gamma^2 n)", src);
  add_common(
      out,
      {margin_condition(g, src), at_most("delta <= 1/(gamma n)", p.delta, 1 / (g * n), src),
       eta_condition(s, c, src), at_least("m >= width polylog/gamma^4", dbl(s.width), m_min, src)});
  return out;
}

}  // namespace dpkit::risk
