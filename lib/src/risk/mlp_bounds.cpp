#include "dpkit/risk/mlp_bounds.hpp"
#include "detail/conditions.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "dpkit/core/check.hpp"

namespace dpkit::risk {
namespace {

using detail::at_least;
using detail::at_most;

constexpr const char* kThm13 = "SWX+23, Thm 13 eq. (7)";

double dbl(long long n) {
  return static_cast<double>(n);
}

void check_hidden(const char* fn, const mlp_hidden_constants& c) {
  const std::pair<const char*, double> fields[] = {
      {"convergence", c.convergence},
      {"optimisation", c.optimisation},
      {"privacy", c.privacy},
      {"step_size", c.step_size},
      {"noise", c.noise},
      {"privacy_regime", c.privacy_regime},
      {"clip", c.clip},
      {"batch", c.batch},
      {"sample_size", c.sample_size},
      {"width", c.width},
      {"linearisation", c.linearisation},
      {"linearisation_radius", c.linearisation_radius}};
  for (const auto& [name, value] : fields)
    check_positive(fn, std::string("hidden_constants.") + name, value);
}

void check_training(const char* fn, const mlp_training& s) {
  check_at_least(fn, "examples", s.examples, 1);
  check_at_least(fn, "input_dimension", s.input_dimension, 1);
  check_at_least(fn, "width", s.width, 1);
  check_at_least(fn, "depth", s.depth, 2);
  check_at_least(fn, "steps", s.steps, 1);
  check_positive(fn, "lipschitz", s.lipschitz);
  check_positive(fn, "radius", s.radius);
  check_positive(fn, "clip", s.clip);
  check_positive(fn, "epsilon", s.epsilon);
  check_open_probability(fn, "delta", s.delta);
  if (!(s.sampling_rate > 0 && s.sampling_rate <= 1))
    throw_domain_error(fn, "sampling_rate", s.sampling_rate, "in (0, 1]");
  check_open_probability(fn, "xi", s.xi);
  check_open_probability(fn, "gamma", s.gamma);
  check_open_probability(fn, "gamma_batch", s.gamma_batch);
}

// max(L, d/m) (eq. (7)) or L + d/m (proof of Thm 13).
double width_factor_of(const mlp_training& s, width_factor form) {
  const double L = dbl(s.depth), ratio = dbl(s.input_dimension) / dbl(s.width);
  return form == width_factor::max_form ? std::max(L, ratio) : L + ratio;
}

// The privacy term without its √T: c·S L^{3/2} R·factor·log(1/γ) log(1/δ) m²/(n²ε²).
double privacy_slope(const mlp_training& s, const mlp_hidden_constants& c, width_factor form) {
  const double L = dbl(s.depth), m = dbl(s.width), n = dbl(s.examples);
  return c.privacy * s.lipschitz * std::pow(L, 1.5) * s.radius * width_factor_of(s, form) *
         std::log(1 / s.gamma) * std::log(1 / s.delta) * m * m / (n * n * s.epsilon * s.epsilon);
}

}  // namespace

// ---- the terms of eq. (7)
// ------------------------------------------------------------------------

double mlp_convergence_term(long long steps, double xi, const mlp_hidden_constants& c) {
  constexpr const char* fn = "mlp_convergence_term";
  check_at_least(fn, "steps", steps, 1);
  check_open_probability(fn, "xi", xi);
  check_hidden(fn, c);
  // SWX+23 Thm 13 eq. (7): √(log(1/ξ)/T).
  return c.convergence * std::sqrt(std::log(1 / xi) / dbl(steps));
}

double mlp_optimisation_term(const mlp_training& s, const mlp_hidden_constants& c) {
  constexpr const char* fn = "mlp_optimisation_term";
  check_training(fn, s);
  check_hidden(fn, c);
  // Proof of Thm 13 (App C): Õ(SL^{3/2}R/√T).
  return c.optimisation * mlp_delta_slack(s);
}

double mlp_privacy_term(const mlp_training& s, const mlp_hidden_constants& c, width_factor form) {
  constexpr const char* fn = "mlp_privacy_term";
  check_training(fn, s);
  check_hidden(fn, c);
  // SWX+23 Thm 13 eq. (7): S L^{3/2} R · max(L, d/m) log(1/γ) log(1/δ) m² √T/(n² ε²).
  return privacy_slope(s, c, form) * std::sqrt(dbl(s.steps));
}

risk_bound mlp_thm13(const mlp_training& s,
                     double approximation,
                     const mlp_hidden_constants& c,
                     width_factor form) {
  constexpr const char* fn = "mlp_thm13";
  check_training(fn, s);
  check_hidden(fn, c);
  check_nonnegative(fn, "approximation", approximation);
  risk_bound r;
  r.source = kThm13;
  r.terms = {{"convergence sqrt(log(1/xi)/T)", mlp_convergence_term(s.steps, s.xi, c)},
             {"optimisation S L^{3/2} R/sqrt(T) (proof, App C)", mlp_optimisation_term(s, c)},
             {"NTRF approximation (given)", approximation},
             {std::string("privacy S L^{3/2} R ") +
                  (form == width_factor::max_form ? "max(L, d/m)" : "(L + d/m)") +
                  " log(1/gamma) log(1/delta) m^2 sqrt(T)/(n eps)^2",
              mlp_privacy_term(s, c, form)}};
  r.value = 0;
  for (const bound_term& t : r.terms) r.value += t.value;
  const double L = dbl(s.depth), m = dbl(s.width), n = dbl(s.examples), d = dbl(s.input_dimension);
  const double T = dbl(s.steps), M = s.sampling_rate * n;
  // Thm 13's hypotheses (SWX+23 §6).
  r.conditions.push_back(at_most("C <= c_clip min{S L sqrt(m), R} (Thm 13)", s.clip,
                                 c.clip * std::min(s.lipschitz * L * std::sqrt(m), s.radius),
                                 kThm13));
  r.conditions.push_back(at_least("M = q n >= c_batch log(T/gamma_1) (Thm 13, Lemma 23)", M,
                                  c.batch * std::log(T / s.gamma_batch), kThm13));
  r.conditions.push_back(at_least(
      "n >= c_n C (sqrt(Lm) + sqrt(md)) sqrt(T log(1/gamma) log(1/delta))/(R eps) (Thm 13)", n,
      c.sample_size * s.clip * (std::sqrt(L * m) + std::sqrt(m * d)) *
          std::sqrt(T * std::log(1 / s.gamma) * std::log(1 / s.delta)) / (s.radius * s.epsilon),
      kThm13));
  r.conditions.push_back(mlp_privacy_regime(s.sampling_rate, s.steps, s.epsilon, c));
  r.conditions.push_back(mlp_width_conditions(s, c).front());
  r.conditions.push_back(at_most("xi <= 1/e (Thm 13)", s.xi, std::exp(-1.0), kThm13));
  r.conditions.push_back(
      at_most("eps <= 1 (Algorithm 10 input)", s.epsilon, 1, "SWX+23, Alg 10"));
  r.conditions.push_back(
      at_most("delta <= 1/n^2 (Algorithm 10 input)", s.delta, 1 / (n * n), "SWX+23, Alg 10"));
  std::string failed;
  for (const condition& k : r.conditions)
    if (!k.holds) failed += (failed.empty() ? "" : "; ") + k.name;
  r.status = failed.empty() ? bound_status::up_to_constants : bound_status::condition_violated;
  r.label = failed.empty()
                ? std::string(to_string(bound_status::up_to_constants))
                : std::string(to_string(bound_status::condition_violated)) + ": " + failed;
  return r;
}

// ---- step size, noise and the C-cancellation
// -----------------------------------------------------

double mlp_step_size(const mlp_training& s, const mlp_hidden_constants& c, step_size_form form) {
  constexpr const char* fn = "mlp_step_size";
  check_training(fn, s);
  check_hidden(fn, c);
  const double L = dbl(s.depth), m = dbl(s.width), T = dbl(s.steps);
  // Thm 13: η = Θ(√L R/(C√(mT))) (App C's ηT with Δ = SL^{3/2}R/√T), printed as
  // √(LR)/(C√(mT)) (docs/findings.md).
  const double numerator =
      form == step_size_form::corrected ? std::sqrt(L) * s.radius : std::sqrt(L * s.radius);
  return c.step_size * numerator / (s.clip * std::sqrt(m * T));
}

double mlp_paper_noise_std(double q,
                           double clip,
                           long long steps,
                           double delta,
                           double batch,
                           double epsilon,
                           const mlp_hidden_constants& c) {
  constexpr const char* fn = "mlp_paper_noise_std";
  if (!(q > 0 && q <= 1)) throw_domain_error(fn, "sampling_rate", q, "in (0, 1]");
  check_positive(fn, "clip", clip);
  check_at_least(fn, "steps", steps, 1);
  check_open_probability(fn, "delta", delta);
  check_positive(fn, "batch", batch);
  check_positive(fn, "epsilon", epsilon);
  check_hidden(fn, c);
  // SWX+23 Thm 13 (privacy): σ_t ≥ c₂ q C √(T log(1/δ))/(|B_t| ε).
  return c.noise * q * clip * std::sqrt(dbl(steps) * std::log(1 / delta)) / (batch * epsilon);
}

condition mlp_privacy_regime(double q,
                             long long steps,
                             double epsilon,
                             const mlp_hidden_constants& c) {
  constexpr const char* fn = "mlp_privacy_regime";
  if (!(q > 0 && q <= 1)) throw_domain_error(fn, "sampling_rate", q, "in (0, 1]");
  check_at_least(fn, "steps", steps, 1);
  check_positive(fn, "epsilon", epsilon);
  check_hidden(fn, c);
  // Thm 13: "for any ε < c₁ q² T" (strict).
  const double limit = c.privacy_regime * q * q * dbl(steps);
  return {"eps < c_1 q^2 T (Thm 13 privacy)", epsilon, limit, epsilon < limit, kThm13};
}

double mlp_parameter_count(long long d, long long m, long long L) {
  constexpr const char* fn = "mlp_parameter_count";
  check_at_least(fn, "input_dimension", d, 1);
  check_at_least(fn, "width", m, 1);
  check_at_least(fn, "depth", L, 2);
  // SWX+23 Alg 10: m²(L − 2) + md + m.
  return dbl(m) * dbl(d) + dbl(L - 2) * dbl(m) * dbl(m) + dbl(m);
}

double mlp_lemma25_privacy_error(const mlp_training& s, const mlp_hidden_constants& c) {
  constexpr const char* fn = "mlp_lemma25_privacy_error";
  check_training(fn, s);
  check_hidden(fn, c);
  const double L = dbl(s.depth), m = dbl(s.width);
  const double p = mlp_parameter_count(s.input_dimension, s.width, s.depth);
  const double eta = mlp_step_size(s, c);
  const double sigma = mlp_paper_noise_std(s.sampling_rate, s.clip, s.steps, s.delta,
                                           s.sampling_rate * dbl(s.examples), s.epsilon, c);
  // SWX+23 Lemma 25 (κ = 1): (1/T) Σ_t (S L η √m/(2C)) ‖G_t‖² with E‖G_t‖² = pσ².
  return s.lipschitz * L * eta * std::sqrt(m) / (2 * s.clip) * p * sigma * sigma;
}

// ---- the trade-off in T ------------------------------------------------------------------------

mlp_steps_tradeoff mlp_optimal_steps(const mlp_training& s,
                                     const mlp_hidden_constants& c,
                                     width_factor form) {
  constexpr const char* fn = "mlp_optimal_steps";
  check_training(fn, s);
  check_hidden(fn, c);
  mlp_steps_tradeoff t;
  // a/√T + b√T is minimal at T* = a/b with value 2√(ab).
  t.a = c.convergence * std::sqrt(std::log(1 / s.xi)) +
        c.optimisation * s.lipschitz * std::pow(dbl(s.depth), 1.5) * s.radius;
  t.b = privacy_slope(s, c, form);
  t.steps = t.a / t.b;
  t.value = 2 * std::sqrt(t.a * t.b);
  t.label = std::string(to_string(bound_status::up_to_constants));
  return t;
}

// ---- the width conditions ----------------------------------------------------------------------

double mlp_delta_slack(const mlp_training& s) {
  check_training("mlp_delta_slack", s);
  // App C, Lemma 25: Δ = Θ(S L^{3/2} R/√T).
  return s.lipschitz * std::pow(dbl(s.depth), 1.5) * s.radius / std::sqrt(dbl(s.steps));
}

std::vector<condition> mlp_width_conditions(const mlp_training& s, const mlp_hidden_constants& c) {
  constexpr const char* fn = "mlp_width_conditions";
  check_training(fn, s);
  check_hidden(fn, c);
  const double L = dbl(s.depth), m = dbl(s.width), T = dbl(s.steps), n = dbl(s.examples);
  const double S = s.lipschitz, R = s.radius, C = s.clip, D = mlp_delta_slack(s);
  const double log_m = std::log(m);
  std::vector<condition> out;
  // 0. Thm 13 statement: m* = Ω̃(Poly(S, L, R) T⁷ C^{−8} [log(1/ξ)]³), Poly := 1.
  out.push_back(
      at_least("m >= m* = Poly(S,L,R) T^7 C^-8 log(1/xi)^3, Poly := 1 (Thm 13 statement)", m,
               c.width * std::pow(T, 7) * std::pow(C, -8) * std::pow(std::log(1 / s.xi), 3),
               "SWX+23, Thm 13"));
  // 1. Lemma 25: m ≥ O(L^{56} R^{24} Δ^{−14} S^{−8} C^{−8} [log m]^{12}).
  out.push_back(at_least("m >= L^56 R^24 Delta^-14 S^-8 C^-8 (log m)^12 (Lemma 25)", m,
                         c.width * std::pow(L, 56) * std::pow(R, 24) * std::pow(D, -14) *
                             std::pow(S, -8) * std::pow(C, -8) * std::pow(log_m, 12),
                         "SWX+23, Lemma 25"));
  // 2. Proof of Thm 13: m ≥ Ω̃(L^{56} R^{16} Δ^{−14} S^{−2} C^{−8} [log(nL + 1/ξ)]³).
  out.push_back(at_least("m >= L^56 R^16 Delta^-14 S^-2 C^-8 log(nL + 1/xi)^3 (proof of Thm 13)", m,
                         c.width * std::pow(L, 56) * std::pow(R, 16) * std::pow(D, -14) *
                             std::pow(S, -2) * std::pow(C, -8) *
                             std::pow(std::log(n * L + 1 / s.xi), 3),
                         "SWX+23, proof of Thm 13"));
  // 3. Proof of Thm 13 (linearisation error O(SLR/√T)): m ≥ Ω(log(m)³ L^{12} R² T³).
  out.push_back(at_least("m >= (log m)^3 L^12 R^2 T^3 (proof of Thm 13, linearisation)", m,
                         c.width * std::pow(log_m, 3) * std::pow(L, 12) * R * R * std::pow(T, 3),
                         "SWX+23, proof of Thm 13"));
  // 4. Lemma 22, eq. (19): m^{1/8} ≥ Ω̃(R S^{3/4} L^{9/4} Δ^{3/4}).
  out.push_back(
      at_least("m >= (R S^{3/4} L^{9/4} Delta^{3/4})^8 (Lemma 22, eq. (19))", m,
               c.width * std::pow(R * std::pow(S, 0.75) * std::pow(L, 2.25) * std::pow(D, 0.75), 8),
               "SWX+23, Lemma 22 eq. (19)"));
  return out;
}

// ---- Lemma 23 and Lemma 18
// -----------------------------------------------------------------------

double lemma23_batch_floor(double M, long long steps, double gamma) {
  constexpr const char* fn = "lemma23_batch_floor";
  check_positive(fn, "expected_batch", M);
  check_at_least(fn, "steps", steps, 1);
  check_open_probability(fn, "gamma", gamma);
  // SWX+23 Lemma 23: |B_t| ≥ (1 − √(3 log(T/γ)/M)) M for all t ≤ T w.p. ≥ 1 − γ (Chernoff
  // P(X ≤ (1 − a)M) ≤ exp(−a²M/2) ≤ exp(−a²M/3), union over T steps).
  return (1 - std::sqrt(3 * std::log(dbl(steps) / gamma) / M)) * M;
}

double mlp_linearisation_gap_omega(double omega,
                                   long long depth,
                                   long long width,
                                   const mlp_hidden_constants& c) {
  constexpr const char* fn = "mlp_linearisation_gap_omega";
  check_positive(fn, "omega", omega);
  check_at_least(fn, "depth", depth, 2);
  check_at_least(fn, "width", width, 2);
  check_hidden(fn, c);
  const double m = dbl(width);
  // SWX+23 Lemma 18 (Cao–Gu 2019a Lemma 4.1): O(ω^{4/3} L³ √(m log m)).
  return c.linearisation * std::pow(omega, 4.0 / 3.0) * std::pow(dbl(depth), 3) *
         std::sqrt(m * std::log(m));
}

double mlp_linearisation_gap(double radius,
                             long long depth,
                             long long width,
                             const mlp_hidden_constants& c) {
  constexpr const char* fn = "mlp_linearisation_gap";
  check_positive(fn, "radius", radius);
  check_at_least(fn, "depth", depth, 2);
  check_at_least(fn, "width", width, 2);
  check_hidden(fn, c);
  const double m = dbl(width);
  // Lemma 18 at ω = R/√m: O(R^{4/3} L³ √(log m) m^{−1/6}).
  return c.linearisation * std::pow(radius, 4.0 / 3.0) * std::pow(dbl(depth), 3) *
         std::sqrt(std::log(m)) * std::pow(m, -1.0 / 6.0);
}

condition mlp_linearisation_radius_condition(double radius,
                                             long long depth,
                                             long long width,
                                             const mlp_hidden_constants& c) {
  constexpr const char* fn = "mlp_linearisation_radius_condition";
  check_positive(fn, "radius", radius);
  check_at_least(fn, "depth", depth, 2);
  check_at_least(fn, "width", width, 2);
  check_hidden(fn, c);
  const double m = dbl(width);
  // Lemma 18: ω ≤ κ L^{−6} [log m]^{−3/2}.
  return at_most("omega = R/sqrt(m) <= kappa L^-6 (log m)^-3/2 (Lemma 18)", radius / std::sqrt(m),
                 c.linearisation_radius * std::pow(dbl(depth), -6) * std::pow(std::log(m), -1.5),
                 "SWX+23, Lemma 18");
}

}  // namespace dpkit::risk
