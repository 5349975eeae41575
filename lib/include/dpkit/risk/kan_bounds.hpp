// dpkit/risk/kan_bounds.hpp — the risk bounds of WSK+26 ("Population risk bounds for KANs
// trained by DP-SGD with correlated noise", Wang et al. 2026) for the two-layer KAN with B-spline
// bases, fixed Gaussian second layer and logistic loss (WSK+26 §3.1, App. B), trained by Algorithm
// 1 (DP-λCGD: mini-batches without replacement, clipping, noise ξ_t = κ(Z_t − λZ_{t−1}) scaled by
// C_clip/B, projection onto the ball B(W_0, R*)).
//
// Two kinds of numbers come out, and every result says which (docs/architecture.md, "Labelled
// bounds"):
//
// * explicit bound — every constant is explicit: the Lemma B.5–B.7 constants taken from the
//   proofs (eqs. (3)–(5)), the Lemma C.12 comparator and the pathwise certificate of
//   docs/kan.md (the computable assembly of Lemmas C.3–C.11). These hold with the stated
//   probability whenever their checked conditions hold.
// * up to hidden constants — Theorems 4.1/C.13, 5.2/C.23, D.14, D.16, E.1 and Corollaries 5.3,
//   5.5, 5.6 are stated with ≲, ≍, Õ, Ω̃ and C_{σ,b}. Each hidden constant is a NAMED field of
//   `hidden_constants`. The bound holds up to constants; the default 1 is not a proven constant.
//   What such a number is good for: slopes and ratios (how the bound moves with n, T, κ, λ, m),
//   not absolute values.
//
// Conditions. Every theorem's hypotheses that can be evaluated (step-size, width, clipping,
// margin and δ conditions) are evaluated and returned in `conditions`; when one fails, the
// result's status is `condition_violated` and its label names the failed conditions. The value
// is still the formula evaluated at the inputs — but it is then NOT a bound.
//
// Bad input (NaN, a negative count, δ ∉ (0, 1), λ ∉ [0, 1), η ≤ 0, …) throws std::domain_error
// through core/check.hpp. Values that are legal but outside a theorem (λ = 0 in a correlated
// theorem, κ > 0 in the non-private one, γ > 1) are conditions, not errors.
//
// Symbol clashes of WSK+26: δ is both the confidence level and the DP δ
// (the corollaries identify them); κ is the noise multiplier, and Lemma B.4's curvature constant
// is called ν here; "md" in A_corr and A_van is really mdp with p absorbed (docs/kan.md) —
// the formulas below use md exactly as the paper prints them.
#pragma once

#include <cmath>
#include <string>
#include <string_view>
#include <vector>

namespace dpkit::risk {

// ---- result vocabulary ------------------------------------------------------------------------

enum class bound_status {
  /// Every constant explicit and every checked condition holds: the value is a bound with the
  /// stated probability.
  explicit_bound,
  /// Every checked condition holds, but the bound holds only up to hidden constants (the
  /// defaults of `hidden_constants` are 1, which is not a proven constant).
  up_to_constants,
  /// A checked condition fails: the value is the formula evaluated, not a bound.
  condition_violated,
};

/// "explicit bound", "up to hidden constants" or "condition violated".
std::string_view to_string(bound_status s) noexcept;

/// One checked hypothesis of a theorem, in the form value ≤ limit (or value ≥ limit; the name
/// says which).
struct condition {
  std::string name;    ///< the inequality, e.g. "eta <= 1/(12 C_{sigma,b} p^3)"
  double value = NAN;  ///< its left-hand side at the inputs
  double limit = NAN;  ///< its right-hand side
  bool holds = false;
  std::string source;  ///< e.g. "WSK+26, Thm C.13"
};

/// One additive term of a bound (what dominates is often the question).
struct bound_term {
  std::string name;
  double value = NAN;
};

/// A risk bound with its label, provenance, terms and checked conditions.
struct risk_bound {
  double value = NAN;
  bound_status status = bound_status::condition_violated;
  /// "explicit bound", "up to hidden constants", or "condition violated: <names>".
  std::string label;
  std::string source;  ///< e.g. "WSK+26, Thm C.13"
  std::vector<bound_term> terms;
  std::vector<condition> conditions;

  [[nodiscard]] bool conditions_hold() const noexcept;
};

// ---- inputs -------------------------------------------------------------------------------------

/// The constants of Assumption 3.2 (WSK+26 §3.3): sup|σ|, sup|σ′|, sup|σ″| on R and
/// sup|b_k|, sup|b′_k|, sup|b″_k| on I_b ⊇ [−1, 1] ∪ range(σ).
struct kan_constants {
  double B_sigma = NAN;    ///< B_σ
  double B_sigma_1 = NAN;  ///< B′_σ
  double B_sigma_2 = NAN;  ///< B″_σ
  double B_b = NAN;        ///< B_b
  double B_b_1 = NAN;      ///< B′_b
  double B_b_2 = NAN;      ///< B″_b
};

enum class kan_activation { tanh, sigmoid };

/// Assumption 3.2's constants for uniform cubic B-splines of knot spacing h and tanh or
/// sigmoid (closed forms, docs/kan.md): B_b = 2/3, B′_b = 2/(3h), B″_b = 2/h²; tanh 1, 1,
/// 4/(3√3); sigmoid 1, 1/4, 1/(6√3). Throws std::domain_error unless h ∈ [1e-100, 2] (h = 2/G
/// on [−1, 1] with G ≥ 1 grid intervals, at most 1e100 of them).
kan_constants cubic_bspline_constants(kan_activation activation, double spacing);

/// The hidden constants of the "up to constants" statements, each a named input. Every bound
/// computed with them holds up to constants; the default 1 is not a proven constant.
struct hidden_constants {
  /// C_{σ,b} ("a constant depending only on σ, b", WSK+26 Lemmas B.6–B.7): the step-size
  /// condition η ≤ 1/(12 C_{σ,b} p³) of Thms 4.1, 5.2, D.14, E.1 and the corollaries.
  double C_sigma_b = 1;
  /// The absolute constant of the ≲ in the bound itself.
  double bound = 1;
  /// polylog(nT/δ) of Thm C.13 / polylog(n/δ) of Cor C.24 and the width choices m ≍
  /// polylog/γ^k. WSK+26 never specifies the power; 1 reproduces the main-text displays.
  double polylog = 1;
  /// The "≲ 1" of Thm 4.1's step-size/horizon condition.
  double step_size_condition = 1;
  /// The lower width bounds: m ≥ width_lower × (the Ω̃/≳ expression without its polylog).
  double width_lower = 1;
  /// The upper width bound of Thm 4.1: m ≤ width_upper × (the Õ expression).
  double width_upper = 1;
  /// The width conditions of the population theorems (5.2/C.23, D.16, E.1):
  /// m ≥ width_generalization × (the ≳ expression).
  double width_generalization = 1;
  /// R* = radius·(log T + √log(n/δ))/γ when a setting leaves R* unset (Thm 4.1: R* ≍ …).
  double radius = 1;
  // Corollaries' parameter choices (≍):
  double batch = 1;      ///< B = batch·γ√n (Cor 5.5), the bound B ≤ batch·γ√n (Cor 5.6)
  double steps = 1;      ///< T = steps·(the corollary's T)
  double step_size = 1;  ///< η = step_size·(the corollary's η)
  double width = 1;      ///< m = width·polylog/γ^k
  double noise = 1;      ///< κ² = noise·(Thm 5.1 / Thm 5.4 expression)
};

/// One training run of Algorithm 1 (WSK+26 §3.2), with the paper's symbols.
struct kan_training {
  long long examples = 0;         ///< n
  long long input_dimension = 0;  ///< d
  long long width = 0;            ///< m
  long long basis_size = 0;       ///< p
  long long batch_size = 0;       ///< B (B = n: full batch)
  long long steps = 0;            ///< T
  double eta = NAN;               ///< η, step size
  double kappa = 0;               ///< κ, noise multiplier (0: non-private)
  double lambda = 0;              ///< λ ∈ [0, 1), noise correlation (0: independent noise)
  double gamma = NAN;             ///< γ, the NTK margin of Assumption 3.3
  double delta = NAN;             ///< δ ∈ (0, 1), confidence (and the DP δ in the corollaries)
  double clip = INFINITY;         ///< C_clip (+inf: no clipping)
  /// R*, the projection radius. NaN: the theorems' choice R* = radius·(log T + √log(n/δ))/γ;
  /// +inf: no projection.
  double radius = NAN;
};

// ---- Lemmas B.5–B.7: explicit constants -------------------------------------------------------

/// The explicit constants of Lemmas B.6–B.7 (from the proofs, WSK+26 App. B).
struct kan_curvature {
  double gradient = NAN;        ///< G: sup_{W,x} ‖∇f_W(x)‖ (Lemma B.6, eq. (3); eq. (5) G_δ)
  double hessian = NAN;         ///< H: sup_{W,x} ‖∇²f_W(x)‖₂ (Lemma B.6, eq. (4); H_δ)
  double weak_convexity = NAN;  ///< ν = H: λ_min(∇²ℓ(y f)) ≥ −ν ℓ(y f) (Lemma B.7)
  double smoothness = NAN;  ///< β = G²/4 + H: λ_max(∇²ℓ(y f)) ≤ β (Lemma B.7's proof)
  double self_bounding = NAN;  ///< G²: ‖∇L_S(W)‖² ≤ G² L_S(W) (Lemma B.7's proof)
  bound_status status = bound_status::explicit_bound;
  std::string label;   ///< "explicit bound"
  std::string source;  ///< "WSK+26, Lemmas B.6-B.7 (proof, eqs. (3)-(4))"
};

/// The radii of Lemma B.5's event E_δ (from Wainwright): ‖c‖ ≤ 4√(pm) + 2√log(2/δ) and
/// max_j ‖c_j‖ ≤ 4√p + 2√log(2m/δ), together with probability ≥ 1 − δ.
struct second_layer_radii {
  double norm = NAN;        ///< 4√(pm) + 2√log(2/δ)
  double block_norm = NAN;  ///< 4√p + 2√log(2m/δ)
};
second_layer_radii lemma_b5(long long width, long long basis_size, double delta);

/// Lemmas B.6–B.7 for a given second layer, as the proof of B.6 bounds it before Lemma B.5
/// enters: with ‖c‖ ≤ c_norm and max_j ‖c_j‖ ≤ c_block_norm,
///   G = B′_σ B_b B′_b · p · c_norm/√m,
///   H = B_b² (B″_σ B′_b + B′_σ² B″_b) · p^{3/2} · c_block_norm/√m.
/// (The proof uses ‖h(x)‖² ≤ dpB_b² and |⟨c_j, h′⟩| ≤ ‖c_j‖√p B′_b; d cancels.) Deterministic:
/// holds for every W and every x with coordinates in I_b. Throws std::domain_error on bad input.
kan_curvature kan_curvature_given_c(const kan_constants& k,
                                    long long width,
                                    long long basis_size,
                                    double c_norm,
                                    double c_block_norm);

/// Lemmas B.6–B.7 on E_δ (the forms of eqs. (3)–(5)):
///   G_δ = B′_σ B_b B′_b p (4√p + 2√(log(2/δ)/m)),
///   H_δ = B_b² (B″_σ B′_b + B′_σ² B″_b) (p^{3/2}/√m)(4√p + 2√log(2m/δ)),
/// holding for all W, x with probability ≥ 1 − δ over c.
kan_curvature kan_curvature_bounds(const kan_constants& k,
                                   long long width,
                                   long long basis_size,
                                   double delta);

/// Lemma B.6–B.7 as STATED (with the hidden C_{σ,b}): gradient b_{δ,m} = C p(√p +
/// √(log(1/δ)/m)), Hessian C p^{3/2}(√p + √log(m/δ))/√m, weak convexity = the Hessian bound,
/// smoothness and self-bounding β = C p³ (self_bounding = 4C p³); status up_to_constants.
kan_curvature kan_curvature_stated(long long width,
                                   long long basis_size,
                                   double delta,
                                   const hidden_constants& c = {});

// ---- correlated noise, explicit: Lemma C.12 and the certificate of docs/kan.md ----------------

/// The explicit comparator radius of Lemma C.12 (its proof with explicit constants):
/// W* = W_0 + τu has L_S(W*) ≤ 1/T (with probability ≥ 1 − δ over c, W_0) when
///   τ ≥ max{2B_b√(2p log(2n/δ)), 4 log T}/γ   and   τ·H_{δ/2} ≤ γ/2.
/// Returns the smallest such τ as `value` (status explicit_bound when τH ≤ γ/2 holds).
/// `hessian` is H_{δ/2} (kan_curvature_bounds(…, δ/2).hessian).
risk_bound kan_comparator_radius(double gamma,
                                 long long basis_size,
                                 long long examples,
                                 long long steps,
                                 double delta,
                                 double B_b,
                                 double hessian);

/// Inputs of the explicit certificate beyond the training run.
struct certificate_inputs {
  double tau = NAN;              ///< ‖W* − W_0‖ of the comparator
  double comparator_loss = NAN;  ///< L_S(W*), evaluated exactly by the caller
  double delta_init = NAN;       ///< δ of E_δ (Lemma B.5), used for G_δ, H_δ
  double delta_Z = NAN;          ///< Gaussian event (Lemma C.5)
  double delta_Delta = NAN;      ///< mini-batch event (Lemma C.6)
  double delta_pot = NAN;        ///< potential event (Lemma C.10)
};

/// The certificate with its intermediate quantities.
struct kan_certificate : risk_bound {
  double R_bar = NAN;        ///< R̄ solving (10) with equality
  double z = NAN;            ///< z_{δ_Z} (Lemma C.5)
  double V_Z = NAN;          ///< V_{Z,δ_Z} (Lemma C.5)
  double V_Delta = NAN;      ///< V_{Δ,δ_Δ} (Lemma C.6)
  double a = NAN, b = NAN;   ///< M_pot(R̄) = aR̄ + b (Lemma C.10, eq. (13))
  double noise_scale = NAN;  ///< c = C_clip κ/B
  double probability = NAN;  ///< 1 − (δ_init + δ_Z + δ_Δ + δ_pot)
  kan_curvature curvature;   ///< G_δ, H_δ, β, ν at δ_init
};

/// The fully explicit optimisation certificate (docs/kan.md; the computable form of Lemmas
/// C.3 and C.11, WSK+26): with β = G²/4 + H, ν = H, c = C_clip κ/B,
///   (1/T) Σ_{t<T} L_S(W_t) ≤ 8 L_S(W*) + 3τ²/(ηT) + 3(aR̄ + b)/(ηT) + 6ηV_Δ/T
///                            + 3((1 − λ)²η + 12βλ²η²) c² V_Z/T
/// with probability ≥ 1 − (δ_init + δ_Z + δ_Δ + δ_pot), provided η ≤ 1/(12β),
/// ν(R̄ + ηcz)² ≤ 1/2, R* ≥ R̄ + τ + ηcz and C_clip ≥ G_δ (checked), and 0 < λ < 1 (the stated
/// hypothesis of Lemma C.11; checked). Eq. (10) is used with 12βλ²η³c² (the proof of C.13 writes
/// 2β, a typo; docs/kan.md). setting.radius must not be NaN (+inf: no projection);
/// setting.clip must be finite when κ > 0.
kan_certificate kan_correlated_certificate(const kan_training& setting,
                                           const kan_constants& k,
                                           const certificate_inputs& in);

// ---- correlated noise, up to constants: Thm 4.1/C.13, Thm 5.2/C.23 ------------------------------

/// A_corr of Thm 4.1 (WSK+26), the bracket of Thm C.13:
///   1/(γ²ηT) + 1/(γ√(BT)) + η(1/B + 1/T) + ((1 − λ)κ/(B√T))(1/γ + η√(md)/√B)
///   + ((1 − λ)² + λ²η) ηκ²md/B²,
/// value = bound·polylog·A_corr. Conditions (Thm C.13): 0 < λ < 1, κ > 0, γ ∈ (0, 1],
/// η ≤ 1/(12 C_{σ,b} p³), C_clip ≥ G_δ (explicit, eq. (5)), the step-size/horizon condition
/// ηγ√T(1/√B + κ(1 − λ)/B) + η²γ²(T/B + 1) ≤ step_size_condition, and the width window
/// width_lower·γ^{−4} ≤ m ≤ width_upper·B²/(η²κ²γ²d)·min{1, 1/(T((1 − λ)² + λ²η))}.
risk_bound kan_correlated_optimization(const kan_training& setting,
                                       const kan_constants& k,
                                       const hidden_constants& c = {});

/// Which display of a theorem with two versions.
enum class statement { main_text, appendix };

/// Thm 5.2 (main text) / Thm C.23 (appendix, the default):
///   C.23:  bound·(1 + ηT log(1/δ)/n)(A + log(n/δ)(√m + R*)δ),
///   5.2:   bound·(1 + ηT/n)(A + (√m + R*)δ),
/// A = polylog·A_corr, R* = setting.radius or the theorems' choice. Conditions: those of
/// kan_correlated_optimization plus the width condition
/// m ≥ width_generalization·R*² log(m/δ) η² (T·A + (log(n/δ) + R*)(√(T log(1/δ)/B) + log(1/δ)))².
risk_bound kan_correlated_population(const kan_training& setting,
                                     const kan_constants& k,
                                     const hidden_constants& c = {},
                                     statement form = statement::appendix);

// ---- independent noise (λ = 0), up to constants: Thm D.14, Thm D.16 -----------------------------

/// A_van of Thm D.14, with L = log(1/δ), ρ_T = log T + √log(n/δ):
///   (log²T + log(n/δ))/(γ²ηT) + Lρ_T/(γ√(BT)) + Lρ_Tκ/(γB√T) + ηL(1/B + L/T) + ηmdL²κ²/B²,
/// value = bound·A_van. Conditions: λ = 0, γ ∈ (0, 1], η ≤ 1/(12C_{σ,b}p³), C_clip ≥ G_δ,
/// m ≥ width_lower·max{log(m/δ)(log⁴T + log²(n/δ))/γ⁴, log(nT/δ)/(Td)}.
risk_bound kan_independent_optimization(const kan_training& setting,
                                        const kan_constants& k,
                                        const hidden_constants& c = {});

/// Thm D.16: bound·[(1 + ηT log(1/δ)/n)(A_van + δ√log(n/δ)) + √log(1/δ) ρ_T δ/γ], conditions
/// of D.14 plus m ≥ width_generalization·log(m/δ)η²(T²A_van² + log(n/δ)log²(1/δ)(T/B + 1)).
risk_bound kan_independent_population(const kan_training& setting,
                                      const kan_constants& k,
                                      const hidden_constants& c = {});

// ---- non-private mini-batch SGD (κ = 0), up to constants: Thm E.1 -------------------------------

/// A_non of Thm E.1: bound·(1/(γ²ηT) + 1/(γ√(BT)) + η/B). Conditions: κ = 0, γ ∈ (0, 1],
/// η ≤ 1/(12C_{σ,b}p³), C_clip ≥ G_δ (trivial without clipping),
/// m ≥ width_lower·log(m/δ)(log⁴T + log²(n/δ))/γ⁴.
/// (Setting κ = 0 in Thm 4.1's A_corr gives A_non + η/T: the two agree up to the η/T term,
/// i.e. within a factor 2 when T ≥ B.)
risk_bound kan_sgd_optimization(const kan_training& setting,
                                const kan_constants& k,
                                const hidden_constants& c = {});

/// Thm E.1's population bound: bound·[(1 + ηT/n)(A_non + δ) + δ/γ], with A_non as above
/// (the generalization part (ηT/n)(A_non + δ) + δ/γ is reported as a term). Conditions of the
/// optimisation bound plus m ≥ width_generalization·log(m/δ)η²(T²A_non² + log(n/δ)log²(1/δ)
/// (T/B + 1)).
risk_bound kan_sgd_population(const kan_training& setting,
                              const kan_constants& k,
                              const hidden_constants& c = {});

// ---- corollaries: representative parameter regimes (rates, up to constants) ---------------------

/// The problem a corollary chooses parameters for.
struct rate_problem {
  long long examples = 0;         ///< n
  long long input_dimension = 0;  ///< d
  long long basis_size = 8;       ///< p (for the step-size condition)
  double epsilon = NAN;           ///< ε of (ε, δ)-DP (Cors 5.3, 5.5; unused by 5.6)
  double gamma = NAN;             ///< γ ∈ (0, 1]
  double delta = NAN;             ///< δ, confidence = DP δ
  double lambda = 0.5;            ///< Cor 5.3: the fixed λ ∈ (0, 1)
  double rho = 0.5;               ///< Cor 5.3: B = ρn, ρ ∈ (0, 1)
  long long batch_size = 0;       ///< Cor 5.6: B (0: the largest allowed, batch·γ√n)
  long long width = 0;            ///< Cor 5.6: m (0: width·polylog/γ⁴)
};

/// A corollary's rates with the parameters it prescribes.
struct kan_rate {
  risk_bound optimization;  ///< the optimisation-risk rate
  risk_bound population;    ///< the population-risk rate
  /// The prescribed parameters as a run (clip = +inf, radius NaN): feed it to the theorem
  /// (kan_correlated_optimization, kan_independent_optimization, kan_sgd_optimization) to
  /// compare the rate with the bound it is derived from.
  kan_training setting;
};

/// Cor 5.3 / C.24 (correlated noise): B = ρn, η = step_size (η ≍ 1),
/// T = steps·min{√n/γ, nεγ²/√d}, m = width·polylog/γ⁶, κ² = noise·((1 − λ^T)/(1 − λ))²
/// (rT + √(rT log(1/δ))) log(1/δ)/ε² with r = B/n (Thm 5.1). Both rates
/// bound·polylog·(1/(γ√n) + √d/(γ⁴nε)). Conditions: 0 < λ < 1, 0 < ρ < 1, γ ∈ (0, 1],
/// δ ≤ min{1/(n√m), γ/n}, and Thm 4.1's η ≤ 1/(12C_{σ,b}p³) (which η ≍ 1 violates unless the
/// hidden constants absorb p³; docs/kan.md).
kan_rate kan_correlated_rate(const rate_problem& problem, const hidden_constants& c = {});

/// Cor 5.5 (independent noise): B = batch·γ√n, η = step_size·min{1, γ²√nε/√d}, T = steps·√n/γ,
/// m = width·polylog/γ⁴, κ² = noise·B²T log(1/δ)/(n²ε²) (Thm 5.4). Both rates
/// bound·(1/(γ√n) + √d/(γ³nε)). Conditions: γ ∈ (0, 1], δ ≤ γ/n, η ≤ 1/(12C_{σ,b}p³),
/// 1 ≤ B ≤ n.
kan_rate kan_independent_rate(const rate_problem& problem, const hidden_constants& c = {});

/// Cor 5.6 (non-private mini-batch SGD): B ≤ batch·γ√n, η = step_size·B/n,
/// T = steps·n²/(γ²B), m ≥ width·polylog/γ⁴. Rates bound/n (optimisation) and bound/(γ²n)
/// (population). Conditions: γ ∈ (0, 1], δ ≤ 1/(γn), B ≤ batch·γ√n, η ≤ 1/(12C_{σ,b}p³),
/// m ≥ width·polylog/γ⁴.
kan_rate kan_sgd_rate(const rate_problem& problem, const hidden_constants& c = {});

/// The full-batch GD recovery after Cor 5.6 (WSK+26 App. E): B = n, η = step_size (≍ 1),
/// T = steps·n/γ²; rates bound/(γ²T) (optimisation) and bound/(γ²n) (population).
/// Conditions: γ ∈ (0, 1], δ ≤ 1/(γn), η ≤ 1/(12C_{σ,b}p³), m ≥ width·polylog/γ⁴.
kan_rate kan_gd_rate(const rate_problem& problem, const hidden_constants& c = {});

}  // namespace dpkit::risk
