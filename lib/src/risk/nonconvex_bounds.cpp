#include "dpkit/risk/nonconvex_bounds.hpp"
#include "detail/conditions.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <utility>

#include "dpkit/core/check.hpp"

namespace dpkit::risk {
namespace {

using detail::at_most;
using detail::log_over;

constexpr const char* kThm1 = "SWX+23, Thm 1 (Alg 2)";
constexpr const char* kThm2 = "SWX+23, Thm 2 (Alg 3)";

double dbl(long long n) {
  return static_cast<double>(n);
}

double sum_terms(const std::vector<bound_term>& terms) {
  double s = 0;
  for (const bound_term& t : terms) s += t.value;
  return s;
}

// Sets value, status and label: `ok` when every condition holds, condition_violated otherwise.
void finish(risk_bound& r, bound_status ok) {
  r.value = sum_terms(r.terms);
  detail::set_status(r, ok);
}

void check_eps_delta(const char* fn, double epsilon, double delta) {
  check_positive(fn, "epsilon", epsilon);
  check_open_probability(fn, "delta", delta);
}

void check_problem(const char* fn, const glm_problem& p) {
  check_at_least(fn, "examples", p.examples, 1);
  // An upper bound on a rank: at most 2^53 (a probe's 1e308 overflowed θ·log(1/δ) and made
  // the step size 0, refused as "--eta is 0").
  if (!(p.theta >= 1 && p.theta <= 9007199254740992.0))
    throw_domain_error(fn, "theta", p.theta, "in [1, 2^53] (an upper bound on a rank)");
  check_eps_delta(fn, p.epsilon, p.delta);
  check_positive(fn, "W", p.W);
  check_positive(fn, "G", p.G);
  check_positive(fn, "B", p.B);
  check_nonnegative(fn, "M", p.M);
}

void check_hidden(const char* fn, const nonconvex_hidden_constants& c) {
  const std::pair<const char*, double> fields[] = {
      {"bound", c.bound},         {"polylog", c.polylog},
      {"step_size", c.step_size}, {"jl_dimension", c.jl_dimension},
      {"smoothing", c.smoothing}, {"oracle", c.oracle},
      {"steps", c.steps},         {"sample_size", c.sample_size},
      {"exponent", c.exponent}};
  for (const auto& [name, value] : fields)
    check_positive(fn, std::string("hidden_constants.") + name, value);
}

void check_optional_eta(const char* fn, double eta) {
  if (!std::isnan(eta)) check_positive(fn, "eta", eta);
}

// ε < 1 (strict: Thms 1, 2, 7) or ε ≤ 1 (Thms 4, 5, 6, 8).
condition epsilon_condition(double epsilon, bool strict, const char* source) {
  if (strict) return {"epsilon < 1", epsilon, 1, epsilon < 1, source};
  return at_most("epsilon <= 1", epsilon, 1, source);
}

std::vector<glm_phase> schedule(const char* fn,
                                long long n,
                                double eta,
                                double B,
                                double epsilon,
                                double delta,
                                double noise_factor,
                                double log_argument) {
  check_at_least(fn, "examples", n, 2);
  check_positive(fn, "eta", eta);
  check_positive(fn, "B", B);
  check_eps_delta(fn, epsilon, delta);
  std::vector<glm_phase> out;
  // SWX+23, Alg 2 step 2: n_i = ⌊n/2^i⌋; k = ⌊log₂ n⌋ (the paper's ⌈log₂ n⌉ with empty phases
  // skipped is the same schedule; docs/findings.md).
  long long two_i = 2;
  double four_i = 4;
  for (long long i = 1; two_i <= n; ++i, two_i *= 2, four_i *= 4) {
    glm_phase p;
    p.index = i;
    p.size = n / two_i;
    p.eta = eta / four_i;  // η_i = η/4^i
    // τ_i = noise_factor·B η_i √log(log_argument/δ)/ε (Alg 2: 8, 1; Alg 3: 16, 2).
    p.tau = noise_factor * B * p.eta * std::sqrt(log_over(log_argument, delta)) / epsilon;
    if (!std::isfinite(p.tau))  // once "phases[i].tau is inf" (--label-bound 1e308)
      throw_domain_error(
          fn,
          "phase " + std::to_string(i) + "'s noise tau = " + format_value(noise_factor) +
              " B eta/4^i sqrt(log(" + format_value(log_argument) + "/delta))/epsilon",
          p.tau,
          "finite (the label bound B times the step size eta is too "
          "large for double precision at this epsilon)");
    out.push_back(p);
    if (two_i > n / 2) break;  // next 2^{i+1} > n (and avoids overflow)
  }
  return out;
}

}  // namespace

// ---- Lemma 1
// --------------------------------------------------------------------------------------

double gaussian_mechanism_sigma(double sensitivity, double epsilon, double delta) {
  constexpr const char* fn = "gaussian_mechanism_sigma";
  check_nonnegative(fn, "sensitivity", sensitivity);
  check_eps_delta(fn, epsilon, delta);
  // SWX+23, Lemma 1: ξ ~ N(0, 2Δ² log(1.25/δ)/ε² I).
  return sensitivity * std::sqrt(2 * log_over(1.25, delta)) / epsilon;
}

// ---- Lemmas 3 and 7 -----------------------------------------------------------------------------

double surrogate_risk_factor(double G) {
  check_positive("surrogate_risk_factor", "G", G);
  return 2 * G;  // SWX+23, Lemma 3
}

double surrogate_excess_to_risk(double G, double surrogate_excess) {
  constexpr const char* fn = "surrogate_excess_to_risk";
  check_positive(fn, "G", G);
  check_nonnegative(fn, "surrogate_excess", surrogate_excess);
  return 2 * G * surrogate_excess;  // SWX+23, Lemma 3
}

kernel_surrogate_constants kernel_surrogate_lemma(double G, double M) {
  constexpr const char* fn = "kernel_surrogate_lemma";
  check_positive(fn, "G", G);
  check_nonnegative(fn, "M", M);
  // SWX+23, Lemma 7: factor 4G, floor 2G²M² + 4GM.
  return {4 * G, 2 * G * G * M * M + 4 * G * M};
}

double kernel_surrogate_excess_to_risk(double G, double M, double surrogate_excess) {
  constexpr const char* fn = "kernel_surrogate_excess_to_risk";
  // With M > 0, w* need not minimise L^ℓ_P, so the surrogate excess may be negative (any finite
  // value is a valid input; the right-hand side can then be below the floor).
  check_finite(fn, "surrogate_excess", surrogate_excess);
  check_positive(fn, "G", G);
  check_nonnegative(fn, "M", M);
  const kernel_surrogate_constants k = kernel_surrogate_lemma(G, M);
  return k.factor * surrogate_excess + k.floor;
}

// ---- Lemmas 4–6 -------------------------------------------------------------------------------

double moreau_sandwich_gap(double G, double beta) {
  constexpr const char* fn = "moreau_sandwich_gap";
  check_nonnegative(fn, "G", G);
  check_positive(fn, "beta", beta);
  return G * G / (2 * beta);  // SWX+23, Lemma 4 (c)
}

double moreau_envelope_lipschitz(double G) {
  check_nonnegative("moreau_envelope_lipschitz", "G", G);
  return 2 * G;  // SWX+23, Lemma 4 (a)
}

double moreau_surrogate_gap(double B, double beta) {
  constexpr const char* fn = "moreau_surrogate_gap";
  check_positive(fn, "B", B);
  check_positive(fn, "beta", beta);
  return 2 * B * B / beta;  // SWX+23, Lemma 5
}

double prox_localisation_radius(double B, double beta) {
  constexpr const char* fn = "prox_localisation_radius";
  check_positive(fn, "B", B);
  check_positive(fn, "beta", beta);
  return 4 * B / beta;  // SWX+23, proof of Lemma 6: Q = [m − 4B/β, m + 4B/β]
}

oracle_error gradient_oracle_error(double B, double beta, long long oracle_steps) {
  constexpr const char* fn = "gradient_oracle_error";
  check_positive(fn, "B", B);
  check_positive(fn, "beta", beta);
  check_at_least(fn, "oracle_steps", oracle_steps, 1);
  const double T = dbl(oracle_steps);
  oracle_error e;
  // SWX+23, proof of Lemma 6: β/2 |ū − u*|² ≤ h(ū) − h(u*) ≤ 72B²/(β(T_o + 1)) (PGD with
  // η_t = 2/(β(t + 1)) on a β-strongly convex 6B-Lipschitz h, 2L²/(β(T + 1)) with L = 6B).
  e.objective_gap = 72 * B * B / (beta * (T + 1));
  // |ū − u*| ≤ 12B/(β√T_o) (the proof's rounding of 12B/(β√(T_o + 1))).
  e.iterate_error = 12 * B / (beta * std::sqrt(T));
  // ‖x β(m − ū) − x β(m − u*)‖ = β‖x‖|ū − u*| ≤ 12B/√T_o.
  e.gradient_error = 12 * B / std::sqrt(T);
  return e;
}

long long gradient_oracle_steps(double B, double gamma) {
  constexpr const char* fn = "gradient_oracle_steps";
  check_positive(fn, "B", B);
  check_positive(fn, "gamma", gamma);
  // SWX+23, Alg 4 step 2: T = 144B²/γ², formed as (12B/γ)² (B² overflowed at B = 1e160
  // although γ ∝ B in Thm 4, and the ratio does not depend on B).
  const double ratio = 12 * B / gamma;
  const double t = std::ceil(ratio * ratio);
  if (!(t < 9.0e18))
    throw_domain_error(fn, "Algorithm 4's step count 144 B^2/gamma^2 (gamma its accuracy)",
                       format_value(t),
                       "< 9e18 (an integer count: a larger oracle accuracy gamma, or fewer "
                       "examples)");
  return std::max(1LL, static_cast<long long>(t));
}

// ---- sensitivities and noise
// ----------------------------------------------------------------------

double phased_sgd_sensitivity(double B, double eta_i) {
  constexpr const char* fn = "phased_sgd_sensitivity";
  check_positive(fn, "B", B);
  check_positive(fn, "eta_i", eta_i);
  return 4 * B * eta_i;  // SWX+23, proof of Thm 1 (FKT Thm 4.4): 2η_i·2B
}

double phased_sgd_noise(double B, double eta_i, double epsilon, double delta) {
  constexpr const char* fn = "phased_sgd_noise";
  check_positive(fn, "B", B);
  check_positive(fn, "eta_i", eta_i);
  check_eps_delta(fn, epsilon, delta);
  return 8 * B * eta_i * std::sqrt(std::log(1 / delta)) / epsilon;  // SWX+23, Alg 2 step 3
}

double jl_phased_sgd_noise(double B, double eta_i, double epsilon, double delta) {
  constexpr const char* fn = "jl_phased_sgd_noise";
  check_positive(fn, "B", B);
  check_positive(fn, "eta_i", eta_i);
  check_eps_delta(fn, epsilon, delta);
  return 16 * B * eta_i * std::sqrt(log_over(2, delta)) / epsilon;  // SWX+23, Alg 3 step 2
}

double moreau_phased_sgd_sensitivity_proof(double B,
                                           double eta_i,
                                           double oracle_gamma,
                                           long long examples) {
  constexpr const char* fn = "moreau_phased_sgd_sensitivity_proof";
  check_positive(fn, "B", B);
  check_positive(fn, "eta_i", eta_i);
  check_nonnegative(fn, "oracle_gamma", oracle_gamma);
  check_at_least(fn, "examples", examples, 1);
  // SWX+23, proof of Thm 4: ‖w̄_i − w̄′_i‖ ≤ 4Bη_i + γη_i(n + 1).
  return 4 * B * eta_i + oracle_gamma * eta_i * (dbl(examples) + 1);
}

double moreau_phased_sgd_sensitivity(double B, double eta_i) {
  constexpr const char* fn = "moreau_phased_sgd_sensitivity";
  check_positive(fn, "B", B);
  check_positive(fn, "eta_i", eta_i);
  return 5 * B * eta_i;  // SWX+23, proof of Thm 4
}

double moreau_phased_sgd_noise(double B, double eta_i, double epsilon, double delta) {
  constexpr const char* fn = "moreau_phased_sgd_noise";
  check_positive(fn, "B", B);
  check_positive(fn, "eta_i", eta_i);
  check_eps_delta(fn, epsilon, delta);
  // SWX+23, Alg 5: τ_i = 10BRη_i√log(1/δ)/ε with R = 1 (docs/findings.md).
  return 10 * B * eta_i * std::sqrt(std::log(1 / delta)) / epsilon;
}

double jl_moreau_phased_sgd_noise(double B, double eta_i, double epsilon, double delta) {
  constexpr const char* fn = "jl_moreau_phased_sgd_noise";
  check_positive(fn, "B", B);
  check_positive(fn, "eta_i", eta_i);
  check_eps_delta(fn, epsilon, delta);
  return 20 * B * eta_i * std::sqrt(log_over(2, delta)) / epsilon;  // SWX+23, Alg 6 step 2
}

double relu_gd_sensitivity(double W, double B, long long examples) {
  constexpr const char* fn = "relu_gd_sensitivity";
  check_positive(fn, "W", W);
  check_positive(fn, "B", B);
  check_at_least(fn, "examples", examples, 1);
  return 4 * (4 * W + B) / dbl(examples);  // SWX+23, proof of Thm 6
}

double relu_gd_noise_variance(
    double W, double B, long long steps, long long examples, double epsilon, double delta) {
  constexpr const char* fn = "relu_gd_noise_variance";
  check_positive(fn, "W", W);
  check_positive(fn, "B", B);
  check_at_least(fn, "steps", steps, 1);
  check_at_least(fn, "examples", examples, 1);
  check_eps_delta(fn, epsilon, delta);
  const double n = dbl(examples);
  // SWX+23, Alg 7: σ² = 32(4W + B)² T log(2/δ)/(n²ε²).
  return 32 * (4 * W + B) * (4 * W + B) * dbl(steps) * log_over(2, delta) /
         (n * n * epsilon * epsilon);
}

adaptive_gd_noise adaptive_gd_noise_scale(double iterate_norm,
                                          long long dimension,
                                          double B,
                                          long long chunk,
                                          double epsilon,
                                          double delta) {
  constexpr const char* fn = "adaptive_gd_noise_scale";
  check_nonnegative(fn, "iterate_norm", iterate_norm);
  check_at_least(fn, "dimension", dimension, 1);
  check_positive(fn, "B", B);
  check_at_least(fn, "chunk", chunk, 1);
  check_eps_delta(fn, epsilon, delta);
  const double sd = std::sqrt(dbl(dimension)), m = dbl(chunk);
  const double a = sd * iterate_norm + B;  // √d‖w‖ + B
  const double L = log_over(1.25, delta);
  adaptive_gd_noise r;
  // SWX+23, Alg 8 step 3 as printed: 8(√d‖w‖ + B)² log(1.25/δ)/(m²ε²).
  r.printed = 8 * a * a * L / (m * m * epsilon * epsilon);
  r.printed_std = std::sqrt(r.printed);
  r.printed_sensitivity = 2 * a / m;  // proof of Thm 7: (√d‖w‖ + B)/m per sample, replace-one
  r.text_sensitivity = 2 * (iterate_norm + B);  // Sec 4.2 text, as printed
  // Corrected sensitivity (docs/findings.md): per-sample gradient norm ≤ (√d‖w‖ + B)√d, replace-one
  // ⇒ 2√d(…)/m.
  r.corrected_sensitivity = 2 * sd * a / m;
  r.corrected_std = r.corrected_sensitivity * std::sqrt(2 * L) / epsilon;  // Lemma 1
  return r;
}

// ---- switches
// -------------------------------------------------------------------------------------

double nonconvex_glm_switch_epsilon(double theta, long long examples) {
  constexpr const char* fn = "nonconvex_glm_switch_epsilon";
  check_positive(fn, "theta", theta);
  check_at_least(fn, "examples", examples, 1);
  return std::pow(theta, 1.5) / dbl(examples);  // SWX+23, Alg 1
}

double kernel_glm_switch_epsilon(double theta, long long examples) {
  constexpr const char* fn = "kernel_glm_switch_epsilon";
  check_positive(fn, "theta", theta);
  check_at_least(fn, "examples", examples, 1);
  return theta / dbl(examples);  // SWX+23, Alg 9 step 1
}

// ---- phase schedule and phase sum -------------------------------------------------------------

std::vector<glm_phase> phased_sgd_schedule(
    long long examples, double eta, double B, double epsilon, double delta) {
  return schedule("phased_sgd_schedule", examples, eta, B, epsilon, delta, 8, 1);
}

std::vector<glm_phase> jl_phased_sgd_schedule(
    long long examples, double eta, double B, double epsilon, double delta) {
  return schedule("jl_phased_sgd_schedule", examples, eta, B, epsilon, delta, 16, 2);
}

phase_sum_bound phase_sum_inequality(const std::vector<glm_phase>& phases,
                                     double rank,
                                     double B,
                                     double G,
                                     double initial_distance) {
  constexpr const char* fn = "phase_sum_inequality";
  if (phases.empty()) throw_domain_error(fn, "phases.size()", 0.0, ">= 1");
  for (const glm_phase& p : phases) {
    check_at_least(fn, "phases[i].size", p.size, 1);
    check_positive(fn, "phases[i].eta", p.eta);
    check_nonnegative(fn, "phases[i].tau", p.tau);
  }
  check_nonnegative(fn, "rank", rank);
  check_positive(fn, "B", B);
  check_positive(fn, "G", G);
  check_nonnegative(fn, "initial_distance", initial_distance);
  // SWX+23, App A (proof of Thm 1), Lemma 8 summed over phases with w̄_0 = w*:
  //   D0²/(2η_1n_1) + Σ_{i≥2} θτ_{i−1}²/(2η_in_i) + 2B²Σ_i η_i + 2Bτ_k.
  const glm_phase& first = phases.front();
  const double initial = initial_distance * initial_distance / (2 * first.eta * dbl(first.size));
  double noise = 0, step = 0;
  for (std::size_t i = 0; i < phases.size(); ++i) {
    step += phases[i].eta;
    if (i == 0) continue;
    const double tau = phases[i - 1].tau;
    noise += rank * tau * tau / (2 * phases[i].eta * dbl(phases[i].size));
  }
  phase_sum_bound r;
  r.source = "SWX+23, App A (proof of Thm 1): Lemma 8 summed over the phases";
  r.terms = {{"initial D0^2/(2 eta_1 n_1)", initial},
             {"noise sum rank tau_{i-1}^2/(2 eta_i n_i)", noise},
             {"step 2 B^2 sum eta_i", 2 * B * B * step},
             {"output 2 B tau_k", 2 * B * phases.back().tau}};
  finish(r, bound_status::explicit_bound);
  r.surrogate = r.value;
  r.excess_risk = 2 * G * r.value;  // SWX+23, Lemma 3
  r.phases = phases;
  return r;
}

phase_sum_bound phased_sgd_phase_sum(const glm_problem& problem,
                                     double eta,
                                     double initial_distance) {
  constexpr const char* fn = "phased_sgd_phase_sum";
  check_problem(fn, problem);
  return phase_sum_inequality(
      phased_sgd_schedule(problem.examples, eta, problem.B, problem.epsilon, problem.delta),
      problem.theta, problem.B, problem.G, initial_distance);
}

phase_sum_approximation phased_sgd_phase_sum_approximation(const glm_problem& problem,
                                                           double eta,
                                                           double initial_distance) {
  constexpr const char* fn = "phased_sgd_phase_sum_approximation";
  check_problem(fn, problem);
  check_positive(fn, "eta", eta);
  check_nonnegative(fn, "initial_distance", initial_distance);
  const double n = dbl(problem.examples), B = problem.B, eps = problem.epsilon;
  const double D0 = initial_distance, ld = std::log(1 / problem.delta);
  // The phase sum in closed form (derived here, not in the paper).
  const double c = 2.0 / 3 + 256 * problem.theta * ld / (n * eps * eps);
  phase_sum_approximation a;
  a.terms = {{"initial 4 D0^2/(eta n)", 4 * D0 * D0 / (eta * n)},
             {"step and noise B^2 eta (2/3 + 256 theta log(1/delta)/(n eps^2))", B * B * eta * c},
             {"output 16 B^2 eta sqrt(log(1/delta))/(n^2 eps)",
              16 * B * B * eta * std::sqrt(ld) / (n * n * eps)}};
  a.value = sum_terms(a.terms);
  a.eta_star = 2 * D0 / (B * std::sqrt(n * c));
  a.value_at_eta_star =
      4 * D0 * B * std::sqrt(2 / (3 * n) + 256 * problem.theta * ld / (n * n * eps * eps));
  return a;
}

// ---- theorem rates
// --------------------------------------------------------------------------------

risk_bound phased_sgd_rate(const glm_problem& problem,
                           double eta,
                           const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "phased_sgd_rate";
  check_problem(fn, problem);
  check_optional_eta(fn, eta);
  check_hidden(fn, c);
  const double n = dbl(problem.examples);
  risk_bound r;
  r.source = kThm1;
  // SWX+23, Thm 1: O(1/√n + √(θ log(1/δ))/(nε)).
  r.terms = {
      {"sampling 1/sqrt(n)", c.bound / std::sqrt(n)},
      {"privacy sqrt(theta log(1/delta))/(n eps)",
       c.bound * std::sqrt(problem.theta * std::log(1 / problem.delta)) / (n * problem.epsilon)}};
  r.conditions.push_back(epsilon_condition(problem.epsilon, true, kThm1));
  if (!std::isnan(eta))
    r.conditions.push_back(at_most("eta <= 2/G (privacy)", eta, 2 / problem.G, kThm1));
  finish(r, bound_status::up_to_constants);
  return r;
}

double phased_sgd_step_size(const glm_problem& problem, const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "phased_sgd_step_size";
  check_problem(fn, problem);
  check_hidden(fn, c);
  // SWX+23, Thm 1: η = O(min{ε/√(θ log(1/δ)), 1/√n}).
  return c.step_size *
         std::min(problem.epsilon / std::sqrt(problem.theta * std::log(1 / problem.delta)),
                  1 / std::sqrt(dbl(problem.examples)));
}

risk_bound jl_phased_sgd_rate(const glm_problem& problem,
                              double eta,
                              const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "jl_phased_sgd_rate";
  check_problem(fn, problem);
  check_optional_eta(fn, eta);
  check_hidden(fn, c);
  const double n = dbl(problem.examples);
  risk_bound r;
  r.source = kThm2;
  // SWX+23, Thm 2: Õ(√log(1/δ)/(nε)^{2/3} + 1/√n).
  r.terms = {{"privacy sqrt(log(1/delta))/(n eps)^(2/3)",
              c.bound * c.polylog * std::sqrt(std::log(1 / problem.delta)) /
                  std::pow(n * problem.epsilon, 2.0 / 3)},
             {"sampling 1/sqrt(n)", c.bound / std::sqrt(n)}};
  r.conditions.push_back(epsilon_condition(problem.epsilon, true, kThm2));
  if (!std::isnan(eta))
    r.conditions.push_back(at_most("eta <= 1/(2G) (privacy proof of SWX+23 Thm 2)", eta,
                                   1 / (2 * problem.G), kThm2));
  finish(r, bound_status::up_to_constants);
  return r;
}

double jl_dimension(const glm_problem& problem, const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "jl_dimension";
  check_problem(fn, problem);
  check_hidden(fn, c);
  const double n = dbl(problem.examples);
  // SWX+23, Thm 2: m = O(log(n/δ)(nε)^{2/3}).
  return c.jl_dimension * std::log(n / problem.delta) * std::pow(n * problem.epsilon, 2.0 / 3);
}

jl_tradeoff jl_dimension_tradeoff(const glm_problem& problem,
                                  double m,
                                  const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "jl_dimension_tradeoff";
  check_problem(fn, problem);
  check_positive(fn, "m", m);
  check_hidden(fn, c);
  const double n = dbl(problem.examples), ld = std::log(1 / problem.delta);
  const double W = problem.W, B = problem.B, G = problem.G, ne = n * problem.epsilon;
  auto terms = [&](double mm) {
    // SWX+23, proof of Thm 2: Õ(GW/m + BW(√(m log(1/δ))/(nε) + 1/√n)).
    return std::vector<bound_term>{
        {"JL bias G W/m", c.bound * G * W / mm},
        {"privacy B W sqrt(m log(1/delta))/(n eps)", c.bound * B * W * std::sqrt(mm * ld) / ne},
        {"sampling B W/sqrt(n)", c.bound * B * W / std::sqrt(n)}};
  };
  jl_tradeoff t;
  t.at_m.source = "SWX+23, proof of Thm 2 (logs dropped)";
  t.at_m.terms = terms(m);
  finish(t.at_m, bound_status::up_to_constants);
  // d/dm [a/m + b√m] = 0 ⇒ m* = (2a/b)^{2/3}, a = GW, b = BW√ld/(nε).
  t.m_star = std::pow(2 * G * ne / (B * std::sqrt(ld)), 2.0 / 3);
  t.value_at_m_star = sum_terms(terms(t.m_star));
  return t;
}

risk_bound nonconvex_glm_rate(const glm_problem& problem, const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "nonconvex_glm_rate";
  check_problem(fn, problem);
  check_hidden(fn, c);
  const double n = dbl(problem.examples), ne = n * problem.epsilon;
  const double sl = std::sqrt(std::log(1 / problem.delta));
  const double alg2 = c.polylog * std::sqrt(problem.theta) * sl / ne;
  const double alg3 = c.polylog * sl / std::pow(ne, 2.0 / 3);
  const bool uses_alg2 =
      problem.epsilon > nonconvex_glm_switch_epsilon(problem.theta, problem.examples);
  risk_bound r;
  r.source = "SWX+23, Alg 1 / Remark 3";
  // SWX+23, Remark 3: Õ(n^{−1/2} + min{√θ(nε)^{−1}, (nε)^{−2/3}}).
  r.terms = {{"sampling 1/sqrt(n)", c.bound / std::sqrt(n)},
             {uses_alg2 ? "privacy, Alg 2 branch sqrt(theta log(1/delta))/(n eps)"
                        : "privacy, Alg 3 branch sqrt(log(1/delta))/(n eps)^(2/3)",
              c.bound * std::min(alg2, alg3)}};
  r.conditions.push_back(epsilon_condition(problem.epsilon, true, "SWX+23, Thms 1-2"));
  finish(r, bound_status::up_to_constants);
  return r;
}

risk_bound moreau_phased_sgd_rate(const glm_problem& problem, const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "moreau_phased_sgd_rate";
  check_problem(fn, problem);
  check_hidden(fn, c);
  const double n = dbl(problem.examples);
  risk_bound r;
  r.source = "SWX+23, Thm 4 (Alg 5), eq. (3)";
  r.terms = {
      {"privacy sqrt(theta log(1/delta))/(n eps)",
       c.bound * std::sqrt(problem.theta * std::log(1 / problem.delta)) / (n * problem.epsilon)},
      {"sampling 1/sqrt(n)", c.bound / std::sqrt(n)}};
  r.conditions.push_back(epsilon_condition(problem.epsilon, false, "SWX+23, Thm 4"));
  finish(r, bound_status::up_to_constants);
  return r;
}

risk_bound moreau_phased_sgd_proof_bound(const glm_problem& problem,
                                         double beta,
                                         const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "moreau_phased_sgd_proof_bound";
  check_problem(fn, problem);
  if (!std::isnan(beta)) check_positive(fn, "beta", beta);
  check_hidden(fn, c);
  const double n = dbl(problem.examples), G = problem.G, B = problem.B, W = problem.W;
  // SWX+23, proof of Thm 4: β = O(√n B/W²).
  const double b = std::isnan(beta) ? c.smoothing * std::sqrt(n) * B / (W * W) : beta;
  risk_bound r;
  r.source = "SWX+23, proof of Thm 4";
  // O(GW²B)(√(θ log(1/δ))/(nε) + 1/√n) + GB²/β.
  r.terms = {{"privacy G W^2 B sqrt(theta log(1/delta))/(n eps)",
              c.bound * G * W * W * B * std::sqrt(problem.theta * std::log(1 / problem.delta)) /
                  (n * problem.epsilon)},
             {"sampling G W^2 B/sqrt(n)", c.bound * G * W * W * B / std::sqrt(n)},
             {"Moreau bias G B^2/beta", G * B * B / b}};
  r.conditions.push_back(epsilon_condition(problem.epsilon, false, "SWX+23, Thm 4"));
  finish(r, bound_status::up_to_constants);
  return r;
}

moreau_parameters moreau_phased_sgd_parameters(const glm_problem& problem,
                                               const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "moreau_phased_sgd_parameters";
  check_problem(fn, problem);
  check_hidden(fn, c);
  if (problem.examples < 2) throw_domain_error(fn, "examples", dbl(problem.examples), ">= 2");
  const double n = dbl(problem.examples), B = problem.B, W = problem.W;
  moreau_parameters p;
  p.beta = c.smoothing * std::sqrt(n) * B / (W * W);   // proof of Thm 4
  p.gamma = c.oracle * B / (n * std::log(n));          // proof of Thm 4: γ = B/(n log n)
  if (!(p.gamma > 0 && std::isfinite(p.gamma)))
    throw_domain_error(fn, "Algorithm 4's accuracy gamma = c-oracle B/(n log n)", p.gamma,
                       "finite and > 0 (it leaves double precision at this hidden constant "
                       "c-oracle and label bound B)");
  p.eta = phased_sgd_step_size(problem, c);            // Thm 4: as Thm 1
  p.oracle_steps = gradient_oracle_steps(B, p.gamma);  // Alg 4
  p.eta_le_2_over_beta = p.eta <= 2 / p.beta;
  return p;
}

risk_bound jl_moreau_phased_sgd_rate(const glm_problem& problem,
                                     const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "jl_moreau_phased_sgd_rate";
  check_problem(fn, problem);
  check_hidden(fn, c);
  const double n = dbl(problem.examples);
  risk_bound r;
  r.source = "SWX+23, Thm 5 (Alg 6)";
  r.terms = {{"sampling 1/sqrt(n)", c.bound / std::sqrt(n)},
             {"privacy sqrt(log(1/delta))/(n eps)^(2/3)",
              c.bound * c.polylog * std::sqrt(std::log(1 / problem.delta)) /
                  std::pow(n * problem.epsilon, 2.0 / 3)}};
  r.conditions.push_back(epsilon_condition(problem.epsilon, false, "SWX+23, Thm 5"));
  finish(r, bound_status::up_to_constants);
  return r;
}

risk_bound relu_projected_gd_rate(const glm_problem& problem, const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "relu_projected_gd_rate";
  check_problem(fn, problem);
  check_hidden(fn, c);
  const double n = dbl(problem.examples);
  risk_bound r;
  r.source = "SWX+23, Thm 6 (Alg 7)";
  r.terms = {{"sampling 1/sqrt(n)", c.bound / std::sqrt(n)},
             {"privacy sqrt(log(1/delta))/(n eps)^(2/3)",
              c.bound * c.polylog * std::sqrt(std::log(1 / problem.delta)) /
                  std::pow(n * problem.epsilon, 2.0 / 3)}};
  r.conditions.push_back(epsilon_condition(problem.epsilon, false, "SWX+23, Thm 6"));
  finish(r, bound_status::up_to_constants);
  return r;
}

namespace {
// The proof's η = W/(√T max{W + B, (W + B)√(mT log(1/δ))/(nε)}) (SWX+23, proof of Thm 6).
double relu_gd_proof_eta(const glm_problem& p, double T, double m) {
  const double WB = p.W + p.B;
  return p.W / (std::sqrt(T) * std::max(WB, WB * std::sqrt(m * T * std::log(1 / p.delta)) /
                                                (dbl(p.examples) * p.epsilon)));
}
}  // namespace

risk_bound relu_gd_proof_bound(const glm_problem& problem,
                               long long steps,
                               double jl_dim,
                               double eta,
                               const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "relu_gd_proof_bound";
  check_problem(fn, problem);
  check_at_least(fn, "steps", steps, 1);
  check_positive(fn, "jl_dim", jl_dim);
  check_optional_eta(fn, eta);
  check_hidden(fn, c);
  const double n = dbl(problem.examples), T = dbl(steps), m = jl_dim;
  const double W = problem.W, WB = problem.W + problem.B, ne = n * problem.epsilon;
  const double e = std::isnan(eta) ? relu_gd_proof_eta(problem, T, m) : eta;
  const double k = c.bound;
  risk_bound r;
  r.source = "SWX+23, proof of Thm 6 (logs dropped)";
  r.terms = {{"optimisation W^2/(eta T)", k * W * W / (e * T)},
             {"privacy eta (W+B)^2 T m log(1/delta)/(n eps)^2",
              k * e * WB * WB * T * m * std::log(1 / problem.delta) / (ne * ne)},
             {"stability (W+B)^2 eta T/n", k * WB * WB * e * T / n},
             {"JL bias W log(n/delta)/m", k * W * std::log(n / problem.delta) / m},
             {"step variance eta (W+B)^2", k * e * WB * WB}};
  r.conditions.push_back(epsilon_condition(problem.epsilon, false, "SWX+23, Thm 6"));
  r.conditions.push_back(at_most("eta <= 1/2", e, 0.5, "SWX+23, Thm 6"));
  finish(r, bound_status::up_to_constants);
  return r;
}

relu_gd_horizon relu_gd_steps(const glm_problem& problem,
                              double jl_dim,
                              double eta,
                              const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "relu_gd_steps";
  check_problem(fn, problem);
  check_positive(fn, "jl_dim", jl_dim);
  check_optional_eta(fn, eta);
  check_hidden(fn, c);
  const double n = dbl(problem.examples), ne = n * problem.epsilon;
  const double ld = std::log(1 / problem.delta);
  relu_gd_horizon h;
  // SWX+23, Thm 6: T = O(min{n, n²ε²/(m log(1/δ))}).
  h.theorem_steps = c.steps * std::min(n, ne * ne / (jl_dim * ld));
  if (!std::isnan(eta)) {
    // a/T + bT with a = W²/η, b = η(W + B)²(m log(1/δ)/(nε)² + 1/n): T* = √(a/b).
    const double WB = problem.W + problem.B;
    h.optimal_steps = problem.W / (eta * WB * std::sqrt(jl_dim * ld / (ne * ne) + 1 / n));
  }
  return h;
}

risk_bound agnostic_relu_guarantee(double opt, double mu, double alpha) {
  constexpr const char* fn = "agnostic_relu_guarantee";
  check_nonnegative(fn, "opt", opt);
  check_positive(fn, "mu", mu);
  check_nonnegative(fn, "alpha", alpha);
  risk_bound r;
  r.source = "SWX+23, Thm 7 (Alg 8)";
  // SWX+23, Thm 7: L_P(w_T) ≤ 2(1 + 2μ) L_P(w*) + α.
  r.terms = {{"2(1+2mu) opt", 2 * (1 + 2 * mu) * opt}, {"alpha", alpha}};
  finish(r, bound_status::explicit_bound);
  return r;
}

risk_bound agnostic_relu_sample_size(long long dimension,
                                     double w_star_norm,
                                     double epsilon,
                                     double delta,
                                     double alpha,
                                     double zeta,
                                     const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "agnostic_relu_sample_size";
  check_at_least(fn, "dimension", dimension, 1);
  check_positive(fn, "w_star_norm", w_star_norm);
  check_eps_delta(fn, epsilon, delta);
  check_positive(fn, "alpha", alpha);
  check_open_probability(fn, "zeta", zeta);
  check_hidden(fn, c);
  const double d = dbl(dimension), w = w_star_norm, lz = std::log(1 / zeta);
  risk_bound r;
  r.source = "SWX+23, Thm 7";
  // n ≥ Ω̃(max{d‖w*_ℓ‖√(log(1/δ) log(1/ζ))/(εα), ‖w*_ℓ‖² d log⁴(1/ζ)/α²}).
  const double priv =
      c.sample_size * d * w * std::sqrt(std::log(1 / delta) * lz) / (epsilon * alpha);
  // (‖w*‖/α)² rather than ‖w*‖²/α²: both squares underflowed to 0 at ‖w*‖ = 2e-170,
  // α = 1e-170, and the 0/0 dropped out of the max below, leaving the privacy term alone.
  const double ratio = w / alpha;
  const double stat = c.sample_size * ratio * ratio * d * std::pow(lz, 4);
  r.terms = {{"privacy d |w*| sqrt(log(1/delta) log(1/zeta))/(eps alpha)", priv},
             {"statistical |w*|^2 d log^4(1/zeta)/alpha^2", stat}};
  r.conditions.push_back(
      at_most("alpha < |w*_l|", alpha, std::nextafter(w, 0.0), "SWX+23, Thm 7"));
  r.conditions.push_back({"epsilon < 1", epsilon, 1, epsilon < 1, "SWX+23, Thm 7"});
  finish(r, bound_status::up_to_constants);
  // A max, not a sum; NaN in either term stays NaN (std::max drops a NaN second argument).
  r.value = std::isnan(priv) || std::isnan(stat) ? NAN : std::max(priv, stat);
  return r;
}

agnostic_relu_contraction_bound agnostic_relu_contraction(double mu, double eta) {
  constexpr const char* fn = "agnostic_relu_contraction";
  check_positive(fn, "mu", mu);
  check_positive(fn, "eta", eta);
  agnostic_relu_contraction_bound b;
  b.tau = mu / 3;                  // SWX+23, Lemma 14: τ = μ/3
  b.factor = 1 - b.tau * eta / 2;  // eq. (12)-(13)
  b.noise_coefficient = eta * (4 * eta + 1 / b.tau);
  b.eta_le_1_over_16 = eta <= 1.0 / 16;  // Thm 7
  return b;
}

risk_bound kernel_glm_rate(const glm_problem& problem, const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "kernel_glm_rate";
  check_problem(fn, problem);
  check_hidden(fn, c);
  const double n = dbl(problem.examples), ne = n * problem.epsilon;
  const double ld = std::log(1 / problem.delta);
  const double alg2 = std::sqrt(problem.theta * ld) / ne;
  const double alg3 = std::sqrt(ld) / std::sqrt(ne);
  const bool uses_alg2 =
      problem.epsilon > kernel_glm_switch_epsilon(problem.theta, problem.examples);
  risk_bound r;
  r.source = "SWX+23, Thm 8 / Cor 1 (Alg 9)";
  // SWX+23, Thm 8: Õ(min{√(θ log(1/δ))/(nε), √log(1/δ)/√(nε)}) + 1/√n + M² + M.
  r.terms = {{uses_alg2 ? "privacy, Alg 2 branch sqrt(theta log(1/delta))/(n eps)"
                        : "privacy, Alg 3 branch sqrt(log(1/delta))/sqrt(n eps)",
              c.bound * c.polylog * std::min(alg2, alg3)},
             {"sampling 1/sqrt(n)", 1 / std::sqrt(n)},
             {"misspecification M^2 + M", problem.M * problem.M + problem.M}};
  r.conditions.push_back(epsilon_condition(problem.epsilon, false, "SWX+23, Thm 8"));
  finish(r, bound_status::up_to_constants);
  return r;
}

risk_bound two_layer_sample_size(hidden_activation activation,
                                 long long hidden_units,
                                 double alpha,
                                 double G,
                                 double theta,
                                 double epsilon,
                                 double delta,
                                 const nonconvex_hidden_constants& c) {
  constexpr const char* fn = "two_layer_sample_size";
  check_at_least(fn, "hidden_units", hidden_units, 1);
  check_positive(fn, "alpha", alpha);
  check_positive(fn, "G", G);
  check_positive(fn, "theta", theta);
  check_eps_delta(fn, epsilon, delta);
  check_hidden(fn, c);
  const double k = dbl(hidden_units), C = c.exponent, ld = std::log(1 / delta);
  const double a = k * G / alpha;
  risk_bound r;
  if (activation == hidden_activation::sigmoid) {
    r.source = "SWX+23, Thm 10";
    r.terms = {{"JL branch (kG/alpha)^(2C) log(1/delta)/eps",
                c.sample_size * std::pow(a, 2 * C) * ld / epsilon},
               {"Alg 2 branch (Gk/alpha)^C sqrt(theta log(1/delta))/eps",
                c.sample_size * std::pow(a, C) * std::sqrt(theta * ld) / epsilon}};
  } else {
    r.source = "SWX+23, Thm 11";
    r.terms = {{"JL branch 4^(C Gk/alpha) log(1/delta)/eps",
                c.sample_size * std::pow(4.0, C * a) * ld / epsilon},
               {"Alg 2 branch 2^(C Gk/alpha) sqrt(theta log(1/delta))/eps",
                c.sample_size * std::pow(2.0, C * a) * std::sqrt(theta * ld) / epsilon}};
  }
  finish(r, bound_status::up_to_constants);
  return r;
}

}  // namespace dpkit::risk
