// dpkit/risk/mlp_bounds.hpp — Theorem 13 of SWX+23 ("Differentially Private Non-convex
// Learning for Multi-layer Neural Networks", Shen et al. 2023) for Algorithm 10 (projected,
// Poisson-subsampled, clipped DP-SGD with iterate averaging) on the L-layer ReLU network of
// width m with a convex S-Lipschitz loss, and the lemmas of its App C that carry a number.
//
// What kind of number each function returns (docs/architecture.md, "Labelled bounds"):
//
// * explicit — Lemma 23's batch-size floor (a Chernoff bound with every constant given) and the
//   exact algebra of the step size, the noise and the C-cancellation.
// * up to hidden constants — everything of Thm 13 itself: eq. (7) is stated with √·, Õ(·),
//   Ω̃(·) and Poly(S, L, R); Lemma 18 with O(·). Each hidden constant is a NAMED field of
//   `mlp_hidden_constants`; the default 1 is not a proven constant. These numbers are good for
//   slopes, ratios and the location of trade-offs (T*, the width U-shape), not absolute values.
//
// Printed versions that disagree (docs/findings.md) are all available and labelled:
// the step size √(LR)/(C√(mT)) as printed vs √L·R/(C√(mT)) (what App C's ηT gives); the width
// factor max(L, d/m) of eq. (7) vs L + d/m of the proof; four different width conditions m ≥ m*.
//
// Bad input (NaN, counts < 1, δ ∉ (0, 1), ε ≤ 0, …) throws std::domain_error through
// core/check.hpp. Legal values outside a theorem's hypotheses are conditions, not errors.
//
// Symbols (as in SWX+23): n examples, d input dimension, m width, L depth, T steps, S the loss's
// Lipschitz constant, R the radius (per-layer ω = R/√m around W0 in the analysis), C the
// clipping threshold, q = M/n the Poisson rate (M the expected batch), ξ, γ, γ₁ the failure
// probabilities of the convergence, noise-norm and batch-size events.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "dpkit/risk/kan_bounds.hpp"  // the result vocabulary: risk_bound, condition, bound_term

namespace dpkit::risk {

/// The hidden constants of Thm 13 and its lemmas (SWX+23 §6, App C). Every bound computed with
/// them holds up to these constants; the default 1 is not a proven constant.
struct mlp_hidden_constants {
  double convergence = 1;   ///< c·√(log(1/ξ)/T), the convergence term of eq. (7)
  double optimisation = 1;  ///< c·S L^{3/2} R/√T, the proof's optimisation term (App C)
  double privacy = 1;       ///< the Õ(·) of eq. (7)'s privacy term (polylogs absorbed)
  double step_size = 1;     ///< η = c·√L R/(C√(mT)) (Θ(·) of Thm 13)
  double noise = 1;  ///< c₂ of σ ≥ c₂ q C √(T log(1/δ))/(|B_t| ε) (Thm 13 privacy)
  double privacy_regime = 1;  ///< c₁ of the privacy hypothesis ε < c₁ q² T
  double clip = 1;            ///< C ≤ c·min{S L √m, R}
  double batch = 1;           ///< M ≥ c·log(T/γ₁)
  double sample_size = 1;     ///< n ≥ c·C(√(Lm) + √(md))√(T log(1/γ) log(1/δ))/(Rε)
  double width = 1;           ///< every m* version: m ≥ c·(the printed expression)
  double linearisation = 1;   ///< Lemma 18: c·ω^{4/3} L³ √(m log m)
  double linearisation_radius = 1;  ///< κ of Lemma 18's ω ≤ κ L^{−6} (log m)^{−3/2}
};

/// One run of Algorithm 10 with the paper's symbols.
struct mlp_training {
  long long examples = 0;           ///< n
  long long input_dimension = 0;    ///< d
  long long width = 0;              ///< m
  long long depth = 0;              ///< L ≥ 2
  long long steps = 0;              ///< T
  double lipschitz = 1;             ///< S (logistic loss: 1)
  double radius = NAN;              ///< R > 0
  double clip = NAN;                ///< C > 0
  double epsilon = NAN;             ///< ε > 0 (Alg 10 takes ε ≤ 1)
  double delta = NAN;               ///< δ ∈ (0, 1) (Alg 10 takes δ ≤ 1/n²)
  double sampling_rate = NAN;       ///< q ∈ (0, 1]; M = qn
  double xi = 0.36787944117144233;  ///< ξ ∈ (0, e^{−1}] (convergence event; default e^{−1})
  double gamma = 0.05;              ///< γ ∈ (0, 1) (noise-norm event)
  double gamma_batch = 0.05;        ///< γ₁ ∈ (0, 1) (Lemma 23's batch event)
};

/// The width factor of the privacy term: max(L, d/m) as eq. (7) prints it, or L + d/m as the
/// proof of Thm 13 writes it (they differ by ≤ a factor 2).
enum class width_factor { max_form, sum_form };

/// Which printed step size (docs/findings.md).
enum class step_size_form {
  corrected,  ///< √L·R/(C√(mT)): App C's ηT = Θ(SL²R²/(κC√mΔ)) with Δ = SL^{3/2}R/√T
  printed,    ///< √(LR)/(C√(mT)), Thm 13's display as printed
};

// ---- the terms of eq. (7)
// ------------------------------------------------------------------------

/// c·√(log(1/ξ)/T) (eq. (7), convergence; up to constants). Throws on T < 1 or ξ ∉ (0, 1).
double mlp_convergence_term(long long steps, double xi, const mlp_hidden_constants& c = {});

/// c·S L^{3/2} R/√T: the optimisation term Δ of the proof of Thm 13 (App C: Lemma 25's 3TΔ
/// divided by T with Δ = Θ(SL^{3/2}R/√T); eq. (7) reports it only as part of "1/√T").
double mlp_optimisation_term(const mlp_training& s, const mlp_hidden_constants& c = {});

/// c·S L^{3/2} R·max(L, d/m)·log(1/γ) log(1/δ)·m²√T/(n²ε²) (eq. (7), privacy; up to constants),
/// or with L + d/m (width_factor::sum_form).
double mlp_privacy_term(const mlp_training& s,
                        const mlp_hidden_constants& c = {},
                        width_factor form = width_factor::max_form);

/// Thm 13 eq. (7): convergence + NTRF approximation + privacy, plus the proof's optimisation
/// term Δ = S L^{3/2} R/√T (reported as its own term; eq. (7) prints it as "1/√T"). `approximation`
/// is the NTRF term inf_{f ∈ F(W0, R/√m)} (1/T) Σ_{i≤T} ℓ(f(x_i), y_i), evaluated by the caller
/// (e.g. by training learners::mlp_ntk_model); it must be ≥ 0. Status up_to_constants when the
/// conditions hold, condition_violated otherwise; value = the sum of the terms. Conditions
/// (each with its source): C ≤ c_clip·min{S L √m, R}; M = qn ≥ c_batch·log(T/γ₁); the sample
/// size n ≥ c_n·C(√(Lm) + √(md))√(T log(1/γ) log(1/δ))/(Rε); ε < c₁q²T (privacy regime);
/// m ≥ m* in the statement's version (mlp_width_conditions, first entry); ξ ≤ e^{−1};
/// and Algorithm 10's inputs ε ≤ 1 and δ ≤ 1/n².
risk_bound mlp_thm13(const mlp_training& s,
                     double approximation,
                     const mlp_hidden_constants& c = {},
                     width_factor form = width_factor::max_form);

// ---- step size, noise and the C-cancellation
// -----------------------------------------------------

/// η of Thm 13: c·√L R/(C√(mT)) (corrected, the default) or c·√(LR)/(C√(mT)) (as printed).
double mlp_step_size(const mlp_training& s,
                     const mlp_hidden_constants& c = {},
                     step_size_form form = step_size_form::corrected);

/// The paper's noise calibration (Thm 13, from Abadi et al.'s moments accountant; the constant
/// c₂ is unknown): σ = c₂ q C √(T log(1/δ))/(|B_t| ε), the std of G_t on the averaged clipped
/// gradient. `batch` is |B_t| (use the expected qn for the fixed-normaliser variant). Up to the
/// hidden c₂: for a certified ε use an accountant (accounting/accountant.hpp) with noise
/// multiplier z = σ·qn/C instead. Throws on bad input.
double mlp_paper_noise_std(double sampling_rate,
                           double clip,
                           long long steps,
                           double delta,
                           double batch,
                           double epsilon,
                           const mlp_hidden_constants& c = {});

/// The hypothesis ε < c₁ q² T of Thm 13's privacy statement, as a condition.
condition mlp_privacy_regime(double sampling_rate,
                             long long steps,
                             double epsilon,
                             const mlp_hidden_constants& c = {});

/// The number of parameters p = md + (L − 2)m² + m (the dimension of G_t).
double mlp_parameter_count(long long input_dimension, long long width, long long depth);

/// Lemma 25's privacy error with C written out (App C, with κ = 1 and E‖G_t‖² = pσ²):
///   (S L η √m/(2C))·p σ²,   η = mlp_step_size(s) ∝ 1/C,   σ = mlp_paper_noise_std(q, C, T, δ,
///   qn, ε) ∝ C,
/// = c_η c₂² S L^{3/2} R p √T log(1/δ)/(2n²ε²): INDEPENDENT of C (η ∝ 1/C and σ² ∝ C² cancel;
/// Remark 15). Up to constants; p = mlp_parameter_count, which is m²(L + d/m) up to lower-order
/// terms — compare mlp_privacy_term(…, sum_form) without log(1/γ).
double mlp_lemma25_privacy_error(const mlp_training& s, const mlp_hidden_constants& c = {});

// ---- the trade-off in T ------------------------------------------------------------------------

/// The two-term bound a/√T + b√T of Thm 13 in T (derived by dpkit), with
/// a = c_conv √log(1/ξ) + c_opt S L^{3/2} R (every 1/√T term) and b = privacy term/√T.
struct mlp_steps_tradeoff {
  double a = NAN, b = NAN;
  double steps = NAN;  ///< T* = a/b ∝ n²ε²/(m²·max(L, d/m)·log(1/δ) log(1/γ)) (real, not rounded)
  double value = NAN;  ///< 2√(ab), the bound's value at T*
  std::string label;   ///< "up to hidden constants"
};
/// Uses s.steps only for validation (any T ≥ 1); everything else from s.
mlp_steps_tradeoff mlp_optimal_steps(const mlp_training& s,
                                     const mlp_hidden_constants& c = {},
                                     width_factor form = width_factor::max_form);

// ---- the width conditions m ≥ m* (as printed; they disagree)
// -------------------------------------

/// Δ = S L^{3/2} R/√T, the almost-convexity slack of App C (Lemma 25: Δ = O(SL^{3/2}R/√T)).
double mlp_delta_slack(const mlp_training& s);

/// Every printed width condition evaluated at s.width (value = m, limit = the right-hand side,
/// times c.width; those with log m on the right are evaluated at the given m). In order:
///  0. Thm 13 statement: m* = Poly(S, L, R)·T⁷ C^{−8} [log(1/ξ)]³ with Poly := 1 (unspecified);
///  1. Lemma 25: L^{56} R^{24} Δ^{−14} S^{−8} C^{−8} [log m]^{12};
///  2. proof of Thm 13: L^{56} R^{16} Δ^{−14} S^{−2} C^{−8} [log(nL + 1/ξ)]³;
///  3. proof of Thm 13 (linearisation error O(SLR/√T)): log(m)³ L^{12} R² T³;
///  4. Lemma 22, eq. (19): m^{1/8} ≥ R S^{3/4} L^{9/4} Δ^{3/4}, i.e. m ≥ (R S^{3/4} L^{9/4}
///     Δ^{3/4})⁸.
/// With Δ = SL^{3/2}R/√T, versions 1 and 2 are ∝ T⁷C^{−8} like the statement but carry different
/// powers of R, S and log (docs/findings.md); the statement's Poly(S, L, R) is not derivable.
std::vector<condition> mlp_width_conditions(const mlp_training& s,
                                            const mlp_hidden_constants& c = {});

// ---- Lemma 23 and Lemma 18
// -----------------------------------------------------------------------

/// Lemma 23 (SWX+23 App C): with Poisson sampling at rate q = M/n, w.p. ≥ 1 − γ every batch
/// of T steps has |B_t| ≥ (1 − √(3 log(T/γ)/M))·M. EXPLICIT: the multiplicative Chernoff
/// bound P(|B| ≤ (1 − a)M) ≤ exp(−a²M/2) ≤ exp(−a²M/3) and a union bound over T steps.
/// Returns the floor (may be ≤ 0, then vacuous). Throws unless M > 0, T ≥ 1, γ ∈ (0, 1).
double lemma23_batch_floor(double expected_batch, long long steps, double gamma);

/// Lemma 18 (Cao–Gu 2019a Lemma 4.1) at ω = R/√m: |f(W, x) − f_ntk(W, x)| ≤
/// c·R^{4/3} L³ √(log m) m^{−1/6} on B(W0, R/√m) (up to constants; log-log slope in m:
/// −1/6 + 1/(2 log m)). Throws unless R > 0, L ≥ 2, m ≥ 2.
double mlp_linearisation_gap(double radius,
                             long long depth,
                             long long width,
                             const mlp_hidden_constants& c = {});
/// The same at a general per-layer radius ω: c·ω^{4/3} L³ √(m log m).
double mlp_linearisation_gap_omega(double omega,
                                   long long depth,
                                   long long width,
                                   const mlp_hidden_constants& c = {});
/// Lemma 18's hypothesis ω = R/√m ≤ κ L^{−6} (log m)^{−3/2}, as a condition.
condition mlp_linearisation_radius_condition(double radius,
                                             long long depth,
                                             long long width,
                                             const mlp_hidden_constants& c = {});

}  // namespace dpkit::risk
