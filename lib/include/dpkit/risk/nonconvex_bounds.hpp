// dpkit/risk/nonconvex_bounds.hpp — the bounds of SWX+23 ("Differentially Private Non-convex
// Learning for Multi-layer Neural Networks", Shen et al. 2023) Parts I and II: DP learning of
// generalised linear models y = σ(⟨w*, x⟩) + ζ with a monotone G-Lipschitz link bounded by B
// through the convex surrogate ℓ(w; x, y) = ∫_0^{⟨w,x⟩} (σ(z) − y) dz (Algorithms 1–8), and its
// kernelised version for two-layer networks (Algorithm 9). Part III (multi-layer ReLU nets,
// Thm 13) is in risk/mlp_bounds.hpp.
//
// Two kinds of numbers come out (docs/architecture.md, "Labelled bounds"):
//
// * explicit — the constants the proofs state exactly: Lemma 1 (Gaussian mechanism), Lemma 3
//   (factor 2G), Lemmas 4–6 (Moreau envelope and gradient oracle), Lemma 7 (factor 4G, floor
//   2G²M² + 4GM), the sensitivities and noise scales of Algorithms 2, 3, 5, 6, 7, 8, the regime
//   switches of Algorithms 1 and 9, and the phase-sum inequality assembled in the proof of Thm 1
//   (App A, Lemma 8 summed over the phases). These are plain numbers or risk_bound with
//   status explicit_bound.
// * up to hidden constants — Theorems 1, 2, 4, 5, 6, 7, 8, Corollary 1, Remark 3 and the shapes
//   of Theorems 10–11 are stated with O(·) / Õ(·). Each hidden constant is a NAMED field of
//   `nonconvex_hidden_constants`; the default 1 is NOT a proven constant ("hidden constant,
//   unknown"). Such numbers are good for slopes, ratios, crossings and trade-off locations, not
//   for absolute values.
//
// One approximation (the phase sum in closed form, derived here) is labelled as such: it
// is never returned as a bound.
//
// The result vocabulary (risk_bound, bound_term, condition, bound_status) is shared with the
// other risk bounds and declared in risk/kan_bounds.hpp.
//
// Bad input (NaN, n < 1, ε ≤ 0, δ ∉ (0, 1), negative constants, …) throws std::domain_error
// through core/check.hpp. Legal values outside a theorem's hypotheses (η > 2/G, ε ≥ 1) are
// conditions of the result, not errors.
//
// Symbols (as in SWX+23): W bounds ‖w*‖₂, B bounds |y| and |σ|, G is the link's Lipschitz
// constant, θ bounds the expected data rank, m is the JL dimension (Alg 3, 6, 7, 9) or the chunk
// size n/T (Alg 8), M the misspecification bound (Sec 5), μ the isotropic-log-concave ReLU
// constant (Lemma 12), log is natural.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "dpkit/risk/kan_bounds.hpp"

namespace dpkit::risk {

// ---- inputs -----------------------------------------------------------------------------------

/// A Part I / Part II learning problem with the paper's symbols (Assumptions 1 and 3).
struct glm_problem {
  long long examples = 0;  ///< n
  double theta = NAN;      ///< θ ≥ 1, upper bound on the expected rank of Σ x_i x_iᵀ
  double epsilon = NAN;    ///< ε > 0 of (ε, δ)-DP (the theorems assume ε < 1 or ε ≤ 1)
  double delta = NAN;      ///< δ ∈ (0, 1)
  double W = 1;            ///< W ≥ ‖w*‖₂
  double G = 1;            ///< G, Lipschitz constant of the link (1/4 for the sigmoid)
  double B = 1;            ///< B ≥ |y|, |σ|
  double M = 0;            ///< M ≥ |φ(x)|, misspecification of the kernel model (Sec 5 only)
};

/// The hidden constants of the O(·)/Õ(·) statements of SWX+23 Parts I–II. Each is a named
/// input; every default 1 is a hidden constant, unknown (not a proven value).
struct nonconvex_hidden_constants {
  double bound = 1;      ///< the absolute constant of the O(·) / Õ(·) of the risk bound itself
  double polylog = 1;    ///< the log factors Õ hides (Thm 2: "omits log(n/δ)"): multiplies
                         ///< the privacy term of the Õ rates
  double step_size = 1;  ///< η = step_size·(the theorem's min{…}) (Thms 1, 2, 4, 5, 8)
  double jl_dimension = 1;  ///< m = jl_dimension·log(n/δ)(nε)^{2/3} (Thms 2, 5, 6) or
                            ///< jl_dimension·log(n/δ)·nε (Thm 8)
  double smoothing = 1;     ///< β = smoothing·√n·B/W² (Thm 4 proof)
  double oracle = 1;        ///< γ = oracle·B/(n log n) (Thm 4 proof)
  double steps = 1;         ///< T = steps·(the theorem's T) (Thms 6, 7)
  double sample_size = 1;   ///< the Ω̃/O of a sample complexity (Thms 7, 10, 11)
  double exponent = 1;      ///< C of Lemmas 16–17 / Thms 10–11 (the exponent constant)
};

// ---- Lemma 1: Gaussian mechanism --------------------------------------------------------------

/// σ = Δ√(2 log(1.25/δ))/ε (SWX+23 Lemma 1; (ε, δ)-DP for 0 < ε, δ < 1). Throws unless Δ ≥ 0,
/// ε > 0 and δ ∈ (0, 1) (ε ≥ 1 is allowed: the formula is evaluated, the lemma does not apply).
double gaussian_mechanism_sigma(double sensitivity, double epsilon, double delta);

// ---- Lemmas 3 and 7: surrogate-to-risk constants (explicit) -----------------------------------

/// 2G: L_P(w) − L_P(w*) ≤ 2G (L^ℓ_P(w) − L^ℓ_P(w*)) for every w (SWX+23 Lemma 3).
double surrogate_risk_factor(double G);

/// 2G × surrogate_excess (Lemma 3's bound on the true excess risk). surrogate_excess ≥ 0.
double surrogate_excess_to_risk(double G, double surrogate_excess);

/// The explicit constants of Lemma 7 (SWX+23 Sec 5, App B).
struct kernel_surrogate_constants {
  double factor = NAN;  ///< 4G
  double floor = NAN;   ///< 2G²M² + 4GM (irreducible as n → ∞)
};
/// Lemma 7: L_P(w) − min_h L_P(h) ≤ 4G (L^ℓ_P(w) − L^ℓ_P(w*)) + 2G²M² + 4GM.
kernel_surrogate_constants kernel_surrogate_lemma(double G, double M);

/// Lemma 7's right-hand side 4G·surrogate_excess + 2G²M² + 4GM. The surrogate excess may be
/// negative (with M > 0, w* does not minimise L^ℓ_P); it must be finite.
double kernel_surrogate_excess_to_risk(double G, double M, double surrogate_excess);

// ---- Lemmas 4–6: Moreau envelope and the gradient oracle (explicit) -----------------------------

/// Lemma 4 (c): ℓ_β ≤ ℓ ≤ ℓ_β + G²/(2β) for a convex G-Lipschitz ℓ. Returns G²/(2β).
double moreau_sandwich_gap(double G, double beta);

/// Lemma 4 (a): the envelope is 2G-Lipschitz and β-smooth. Returns 2G.
double moreau_envelope_lipschitz(double G);

/// Lemma 5: |f_β(w; x, y) − ℓ(w; x, y)| ≤ 2B²/β. Returns 2B²/β.
double moreau_surrogate_gap(double B, double beta);

/// Proof of Lemma 6: prox^β_g(m) ∈ [m − 4B/β, m + 4B/β]. Returns the radius 4B/β.
double prox_localisation_radius(double B, double beta);

/// The proof-level constants of Lemma 6 for T_o projected-gradient steps of Algorithm 4
/// (η_t = 2/(β(t+1)), weighted average) on the β-strongly convex, 6B-Lipschitz prox objective.
struct oracle_error {
  double objective_gap = NAN;  ///< h(ū) − h(u*) ≤ 72B²/(β(T_o + 1))
  double iterate_error = NAN;  ///< |ū − u*| ≤ 12B/(β√T_o)
  double gradient_error = NAN;  ///< ‖∇f_β − O_{β,γ}‖₂ ≤ 12B/√T_o (for ‖x‖₂ ≤ 1)
};
oracle_error gradient_oracle_error(double B, double beta, long long oracle_steps);

/// T_o(γ) = ⌈144B²/γ²⌉ (Alg 4 step 2; Lemma 6: then the gradient error is ≤ γ).
long long gradient_oracle_steps(double B, double gamma);

// ---- sensitivities and noise scales (explicit, as the paper states them) -----------------------

/// Alg 2 (proof of Thm 1): replace-one sensitivity of the phase average ‖w̄_i − w̄′_i‖ ≤ 4Bη_i
/// (for η_i ≤ 2/G).
double phased_sgd_sensitivity(double B, double eta_i);
/// Alg 2 step 3: τ_i = 8Bη_i√log(1/δ)/ε.
double phased_sgd_noise(double B, double eta_i, double epsilon, double delta);
/// Alg 3 step 2: τ_i = 16Bη_i√log(2/δ)/ε (sensitivity 8Bη_i on the JL event, ‖Φx‖ ≤ 2).
double jl_phased_sgd_noise(double B, double eta_i, double epsilon, double delta);
/// Alg 5 (proof of Thm 4): the proof's sensitivity 4Bη_i + γη_i(n + 1) (oracle_gamma: γ of
/// Alg 4, n: samples).
double moreau_phased_sgd_sensitivity_proof(double B,
                                           double eta_i,
                                           double oracle_gamma,
                                           long long examples);
/// Alg 5: the sensitivity the noise is calibrated to, 5Bη_i (the proof's bound when
/// γ(n + 1) ≤ B).
double moreau_phased_sgd_sensitivity(double B, double eta_i);
/// Alg 5: τ_i = 10BRη_i√log(1/δ)/ε with the undefined R = max‖x‖ = 1 (docs/findings.md).
double moreau_phased_sgd_noise(double B, double eta_i, double epsilon, double delta);
/// Alg 6: τ_i = 20Bη_i√log(2/δ)/ε.
double jl_moreau_phased_sgd_noise(double B, double eta_i, double epsilon, double delta);
/// Alg 7 (proof of Thm 6): sensitivity of the averaged full gradient on the JL event,
/// Δ = 4(4W + B)/n.
double relu_gd_sensitivity(double W, double B, long long examples);
/// Alg 7: σ² = 32(4W + B)²T log(2/δ)/(n²ε²) (= Δ²·2T log(2/δ)/ε²).
double relu_gd_noise_variance(
    double W, double B, long long steps, long long examples, double epsilon, double delta);

/// Alg 8's noise for one step (chunk of m = n/T samples, current iterate norm ‖w_{i−1}‖₂,
/// ‖x‖₂ ≤ √d): the printed value and the corrected one (docs/findings.md).
struct adaptive_gd_noise {
  /// As printed: 8(√d‖w‖ + B)² log(1.25/δ)/(m²ε²) — a variance (SWX+23 calls it σ).
  double printed = NAN;
  /// Its square root, the std the printed value stands for if read as a variance
  /// (= Lemma 1 with Δ = printed_sensitivity).
  double printed_std = NAN;
  /// The sensitivity the printed value implies: 2(√d‖w‖ + B)/m (proof: per-sample gradient
  /// norm √d‖w‖ + B, replace-one).
  double printed_sensitivity = NAN;
  /// The text's sensitivity 2(‖w‖ + B) (Sec 4.2, as printed, without 1/m).
  double text_sensitivity = NAN;
  /// The correct replace-one sensitivity of the chunk mean: 2√d(√d‖w‖ + B)/m (per-sample
  /// gradient norm |ReLU(⟨w, x⟩) − y|·‖x‖ ≤ (√d‖w‖ + B)√d).
  double corrected_sensitivity = NAN;
  /// Lemma 1 with the corrected sensitivity: corrected_sensitivity·√(2 log(1.25/δ))/ε.
  double corrected_std = NAN;
};
adaptive_gd_noise adaptive_gd_noise_scale(double iterate_norm,
                                          long long dimension,
                                          double B,
                                          long long chunk,
                                          double epsilon,
                                          double delta);

// ---- regime switches (explicit) -----------------------------------------------------------------

/// Alg 1: run Alg 2 iff ε > θ^{3/2}/n (where √θ/(nε) = (nε)^{−2/3}). Returns θ^{3/2}/n.
double nonconvex_glm_switch_epsilon(double theta, long long examples);
/// Alg 9: run Alg 2 iff ε > θ/n (where √θ/(nε) = 1/√(nε)). Returns θ/n.
double kernel_glm_switch_epsilon(double theta, long long examples);

// ---- Algorithm 2 phase schedule and the phase-sum inequality (explicit) ------------------------

/// One phase i of Algorithm 2 (or 3): n_i samples, step η_i = η/4^i, output noise τ_i.
struct glm_phase {
  long long index = 0;  ///< i = 1, …, k
  long long size = 0;   ///< n_i = ⌊n/2^i⌋
  double eta = NAN;     ///< η_i = η/4^i
  double tau = NAN;     ///< τ_i
};

/// The phase schedule of Alg 2 (SWX+23 Alg 2 step 2–3): n_i = ⌊n/2^i⌋, η_i = η/4^i,
/// τ_i = 8Bη_i√log(1/δ)/ε, for i = 1, …, k with k = ⌊log₂ n⌋. The paper's k = ⌈log₂ n⌉ leaves
/// the last phase empty unless n is a power of two (docs/findings.md); skipping empty phases
/// gives exactly k = ⌊log₂ n⌋ (n_i ≥ 1 ⟺ 2^i ≤ n), so the two simulator conventions agree.
/// Requires n ≥ 2 (k ≥ 1).
std::vector<glm_phase> phased_sgd_schedule(
    long long examples, double eta, double B, double epsilon, double delta);
/// The same schedule with Alg 3's τ_i = 16Bη_i√log(2/δ)/ε.
std::vector<glm_phase> jl_phased_sgd_schedule(
    long long examples, double eta, double B, double epsilon, double delta);

/// The phase-sum inequality of the proof of Thm 1 (App A), for any schedule:
///   E L^ℓ_P(w_k) − L^ℓ_P(w*) ≤ D0²/(2η_1n_1) + Σ_{i=2}^k rank·τ_{i−1}²/(2η_in_i)
///                             + 2B²Σ_{i=1}^k η_i + 2Bτ_k,
/// D0 = ‖w_0 − w*‖₂, rank = θ (Alg 2: E‖ζ‖²_V ≤ θτ²) or m (Alg 3 on the projected data,
/// E‖ζ‖² = mτ²). Explicit (Lemma 8 needs only convexity and the 2B-Lipschitz surrogate, ‖x‖ ≤ 1;
/// no step-size condition). SWX+23's 2B²R²η_1 has R = 1.
struct phase_sum_bound : risk_bound {
  double surrogate = NAN;    ///< the right-hand side (= value): bound on the surrogate excess
  double excess_risk = NAN;  ///< 2G × surrogate: bound on E L_P(w_k) − L_P(w*) (Lemma 3)
  std::vector<glm_phase> phases;
};
/// Terms: "initial D0^2/(2 eta_1 n_1)", "noise sum rank tau_{i-1}^2/(2 eta_i n_i)",
/// "step 2 B^2 sum eta_i", "output 2 B tau_k". Throws on an empty schedule, a phase with
/// n_i < 1, η_i ≤ 0 or τ_i < 0, or bad B, G, D0, rank.
phase_sum_bound phase_sum_inequality(
    const std::vector<glm_phase>& phases, double rank, double B, double G, double initial_distance);

/// Convenience: phase_sum_inequality(phased_sgd_schedule(n, η, B, ε, δ), θ, B, G, D0).
phase_sum_bound phased_sgd_phase_sum(const glm_problem& problem,
                                     double eta,
                                     double initial_distance);

/// The closed-form APPROXIMATION of the phase sum (derived here: η_i = η4^{−i},
/// n_i ≈ n2^{−i}, k → ∞ in the sums, 4^k ≈ n²), ℓ_δ = log(1/δ):
///   4D0²/(ηn) + B²η(2/3 + 256θℓ_δ/(nε²)) + 16B²η√ℓ_δ/(n²ε),
/// and the step size minimising its first two terms,
///   η* = (2D0/(B√n))(2/3 + 256θℓ_δ/(nε²))^{−1/2},
/// with the minimum 4D0B√(2/(3n) + 256θℓ_δ/(n²ε²)). NOT a bound (status up_to_constants,
/// label "approximation"); compare with phased_sgd_phase_sum.
struct phase_sum_approximation {
  double value = NAN;  ///< the three-term approximation at the given η
  std::vector<bound_term> terms;
  double eta_star = NAN;           ///< η*
  double value_at_eta_star = NAN;  ///< 4D0B√(2/(3n) + 256θℓ_δ/(n²ε²)) (first two terms)
  std::string label = "approximation (not a bound)";
  std::string source = "SWX+23 App A phase sum in closed form (derived by dpkit, not in the paper)";
};
phase_sum_approximation phased_sgd_phase_sum_approximation(const glm_problem& problem,
                                                           double eta,
                                                           double initial_distance);

// ---- Theorem rates (up to hidden constants) ---------------------------------------------------

/// Thm 1 (Alg 2): bound·(1/√n + √(θ log(1/δ))/(nε)). The proof's form (8) carries a factor
/// GBW, which the statement absorbs into O(·) (so does this function: bound is that constant).
/// Conditions: ε < 1 (Thm 1: 0 < ε, δ < 1); when eta > 0 is given (NaN: not checked),
/// η ≤ 2/G (privacy, FKT Thm 4.4).
risk_bound phased_sgd_rate(const glm_problem& problem,
                           double eta = NAN,
                           const nonconvex_hidden_constants& c = {});

/// Thm 1's step size η = step_size·min{ε/√(θ log(1/δ)), 1/√n} (not capped at 2/G).
double phased_sgd_step_size(const glm_problem& problem, const nonconvex_hidden_constants& c = {});

/// Thm 2 (Alg 3) / Thm 5 (Alg 6): bound·(polylog·√log(1/δ)/(nε)^{2/3} + 1/√n). Conditions:
/// ε < 1; when eta is given, η ≤ 1/(2G) (the privacy proof's η ≤ 2/(4G); docs/findings.md).
risk_bound jl_phased_sgd_rate(const glm_problem& problem,
                              double eta = NAN,
                              const nonconvex_hidden_constants& c = {});

/// Thm 2's JL dimension m = jl_dimension·log(n/δ)(nε)^{2/3} (a real number; round as needed).
double jl_dimension(const glm_problem& problem, const nonconvex_hidden_constants& c = {});

/// Thm 2's proof-level trade-off in the JL dimension m (the proof of Thm 2;
/// logs dropped): bias GW/m + privacy BW√(m log(1/δ))/(nε) + sampling BW/√n, all times
/// `bound`. The optimum m* = (2G nε/(B√log(1/δ)))^{2/3} ∝ (nε)^{2/3} (from d/dm = 0).
struct jl_tradeoff {
  risk_bound at_m;      ///< the three terms at the given m (status up_to_constants)
  double m_star = NAN;  ///< the minimiser m*
  double value_at_m_star = NAN;
};
jl_tradeoff jl_dimension_tradeoff(const glm_problem& problem,
                                  double m,
                                  const nonconvex_hidden_constants& c = {});

/// Alg 1 / Remark 3: bound·(1/√n + min{polylog·√θ·√log(1/δ)/(nε),
/// polylog·√log(1/δ)/(nε)^{2/3}}), with a term naming the branch Alg 1 takes
/// (ε > θ^{3/2}/n: Alg 2). Remark 3 prints √θ/(nε) and (nε)^{−2/3} without √log(1/δ); this
/// function follows Thms 1–2, which carry it in both.
risk_bound nonconvex_glm_rate(const glm_problem& problem, const nonconvex_hidden_constants& c = {});

/// Thm 4 (Alg 5): bound·(√(θ log(1/δ))/(nε) + 1/√n) (statement (3)). Conditions: ε ≤ 1.
risk_bound moreau_phased_sgd_rate(const glm_problem& problem,
                                  const nonconvex_hidden_constants& c = {});

/// Thm 4's proof-level form with the Moreau bias separated:
///   bound·G W² B (√(θ log(1/δ))/(nε) + 1/√n) + G B²/β,
/// β = the given beta (> 0), or NaN for the proof's β = smoothing·√n B/W².
risk_bound moreau_phased_sgd_proof_bound(const glm_problem& problem,
                                         double beta = NAN,
                                         const nonconvex_hidden_constants& c = {});

/// Thm 4's parameters: β = smoothing·√n B/W², γ = oracle·B/(n log n), η as Thm 1 (capped by
/// nothing: check η ≤ 2/β yourself; the result's `eta_le_2_over_beta` says whether it holds).
struct moreau_parameters {
  double beta = NAN, gamma = NAN, eta = NAN;
  long long oracle_steps = 0;  ///< T_o = ⌈144B²/γ²⌉
  bool eta_le_2_over_beta = false;
};
moreau_parameters moreau_phased_sgd_parameters(const glm_problem& problem,
                                               const nonconvex_hidden_constants& c = {});

/// Thm 5 (Alg 6): the same rate as Thm 2 (bound·(polylog·√log(1/δ)/(nε)^{2/3} + 1/√n)),
/// condition ε ≤ 1.
risk_bound jl_moreau_phased_sgd_rate(const glm_problem& problem,
                                     const nonconvex_hidden_constants& c = {});

/// Thm 6 (Alg 7, ReLU): bound·(1/√n + polylog·√log(1/δ)/(nε)^{2/3}). Condition ε ≤ 1.
risk_bound relu_projected_gd_rate(const glm_problem& problem,
                                  const nonconvex_hidden_constants& c = {});

/// Thm 6's proof-level bound as a function of the number of steps T (terms separated; logs
/// dropped; all times `bound`):
///   optimisation W²/(ηT), privacy η(W+B)²T m log(1/δ)/(n²ε²), stability (W+B)²ηT/n,
///   JL bias W log(n/δ)/m, step variance η(W+B)².
/// eta: a given η (> 0) or NaN for the proof's η = W/(√T max{W+B, (W+B)√(mT log(1/δ))/(nε)}).
risk_bound relu_gd_proof_bound(const glm_problem& problem,
                               long long steps,
                               double jl_dim,
                               double eta = NAN,
                               const nonconvex_hidden_constants& c = {});

/// Thm 6's choices of T: the theorem's T = steps·min{n, n²ε²/(m log(1/δ))}, and for a fixed η the
/// minimiser of the T-dependent terms a/T + bT of relu_gd_proof_bound,
/// T* = W/(η(W+B)√(m log(1/δ)/(n²ε²) + 1/n)).
struct relu_gd_horizon {
  double theorem_steps = NAN;
  double optimal_steps = NAN;  ///< T* at the given η (NaN when eta is NaN)
};
relu_gd_horizon relu_gd_steps(const glm_problem& problem,
                              double jl_dim,
                              double eta = NAN,
                              const nonconvex_hidden_constants& c = {});

/// Thm 7 (Alg 8, agnostic ReLU): L_P(w_T) ≤ 2(1 + 2μ)·opt + α (with probability 1 − ζ). Explicit
/// in form once μ (Lemma 12's constant of the law of x) is known: returns the right-hand side
/// with terms "2(1+2mu) opt" and "alpha", status explicit_bound (the conditions on n, T, η are
/// in agnostic_relu_sample_size / agnostic_relu_contraction).
risk_bound agnostic_relu_guarantee(double opt, double mu, double alpha);

/// Thm 7's sample-complexity shape: n ≥ sample_size·max{d‖w*_ℓ‖√(log(1/δ)log(1/ζ))/(εα),
/// ‖w*_ℓ‖²d log⁴(1/ζ)/α²} (terms "privacy" and "statistical"; up to constants, logs kept as
/// printed).
risk_bound agnostic_relu_sample_size(long long dimension,
                                     double w_star_norm,
                                     double epsilon,
                                     double delta,
                                     double alpha,
                                     double zeta,
                                     const nonconvex_hidden_constants& c = {});

/// Thm 7's proof (eqs. (12)–(13), Lemma 14 with τ = μ/3, β = 1/8):
///   ‖w_i − w*_ℓ‖² ≤ (1 − τη/2)‖w_{i−1} − w*_ℓ‖² + η(4η + 1/τ)(‖∇L^ℓ(w*_ℓ; D_i)‖² + ‖ζ_{i−1}‖²).
struct agnostic_relu_contraction_bound {
  double tau = NAN;                ///< μ/3
  double factor = NAN;             ///< 1 − τη/2
  double noise_coefficient = NAN;  ///< η(4η + 1/τ)
  bool eta_le_1_over_16 = false;   ///< Thm 7's η ≤ 1/16
};
agnostic_relu_contraction_bound agnostic_relu_contraction(double mu, double eta);

/// Thm 8 / Cor 1 (Alg 9): bound·polylog·min{√(θ log(1/δ))/(nε), √log(1/δ)/√(nε)} + 1/√n
/// + M² + M (the floor M² + M is printed without constants; Lemma 7's explicit floor is
/// kernel_surrogate_lemma). Condition ε ≤ 1. A term names the branch (ε > θ/n: Alg 2).
risk_bound kernel_glm_rate(const glm_problem& problem, const nonconvex_hidden_constants& c = {});

/// Thms 10–11: the sample-complexity shapes for error α with k hidden units,
///   sigmoid: sample_size·((kG/α)^{2C} log(1/δ)/ε + (Gk/α)^C √(θ log(1/δ))/ε),
///   ReLU:    sample_size·(4^{C Gk/α} log(1/δ)/ε + 2^{C Gk/α} √(θ log(1/δ))/ε),
/// C = exponent (unknown; Lemmas 16–17). Status up_to_constants.
enum class hidden_activation { sigmoid, relu };
risk_bound two_layer_sample_size(hidden_activation activation,
                                 long long hidden_units,
                                 double alpha,
                                 double G,
                                 double theta,
                                 double epsilon,
                                 double delta,
                                 const nonconvex_hidden_constants& c = {});

}  // namespace dpkit::risk
