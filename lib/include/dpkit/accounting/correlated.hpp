// dpkit/accounting/correlated.hpp — noise calibration for DP-λCGD: DP-SGD with correlated
// Gaussian noise ξ_t = κ(Z_t − λZ_{t−1}) (WSK+26 Algorithm 1, §3.2).
//
// The question answered: the smallest noise multiplier κ (noise standard deviation / clipping
// norm) for which T steps at sampling rate r = B/n are (ε, δ)-DP. Several routes are offered,
// each labelled with what it certifies (docs/architecture.md, "Labelled bounds"):
//
//   f12                 Thm F.12 closed form as stated (constant 8).
//                       Valid upper bound if its conditions (ε ≤ 1, rT ≥ 3 ln(2/δ)) hold.
//   f12-proof-constant  The same with the constant 2 that the proof of F.12 gives.
//                       Valid upper bound if the same conditions hold.
//   f9-row-sum          Lemma F.9 with E_k = {‖y‖₀ ≤ k}, the exact binomial tail and the exact
//                       Gaussian hockey-stick, Δ_k = row sum·√k (Lemma F.11). Valid upper bound.
//   f9-exact            The same with Δ_k = ‖C‖₂·√k (docs/correlated.md). Valid upper bound.
//   f9-block            The same with Δ_k = ‖C·1_{1..k}‖₂, the leading-block maximiser
//                       (a conjecture; docs/correlated.md). Conjecture-dependent.
//   pld                 λ = 0 only: the F.8 pair is exactly the Poisson-subsampled Gaussian;
//                       certified PLD calibration. Valid upper bound (zero-out).
//   d9                  λ = 0 only: Thm D.9 / 5.4 closed form (replace-one). Heuristic: its
//                       constant c_sgm = 8 is an asymptotic (Remark D.8).
//   d9-eq19             λ = 0 only: eq. (19) RDP (Wang–Balle–Kasiviswanathan 2019 Thm 9)
//                       composed over T, Lemma D.2 conversion, κ solved. Valid upper bound
//                       (replace-one) — or none: eq. (19)'s ε has a floor (see attainable).
//   pld-replace-one     λ = 0 only: the certified PLD accountant for fixed-size batches and
//                       replace-one neighbours (one step C_r(G(2/κ)), docs/accounting.md): the
//                       tight reference for the d9 routes. Valid upper bound (replace-one).
//
// Conventions (docs/correlated.md): κ = noise std / sensitivity with clipping norm C_clip = 1,
// so the dominating pair of Thm F.8 is P = Σ_y s(y) N(Cy, κ²I), Q = N(0, κ²I) with
// s(y) = r^{‖y‖₀}(1 − r)^{T−‖y‖₀} and C_{t,u} = λ^{t−u} (u ≤ t), C^{−1} lower bidiagonal (WSK+26
// eqs. (24)–(25)); δ(ε) = max{H_{e^ε}(P‖Q), H_{e^ε}(Q‖P)}. The F.* routes and pld are for the
// zero-out relation (Def F.1); the D.9 routes for replace-one (§D.1), which is the stronger
// relation (a zero-out neighbour is a replace-one neighbour), so their κ are valid — but more
// conservative — for zero-out too. All routes use T noisy steps (WSK+26 Alg 1 loops T − 1 times).
//
// Lemma F.9 route (with exact ingredients, docs/correlated.md): for every k,
//   δ(κ) ≤ g_k(κ) = (1 − F̄_k)·h_ε(Δ_k/κ) + F̄_k,   F̄_k = P(Bin(T, r) > k),
//   h_ε(μ) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ)      (Balle & Wang 2018 Thm 8; gdp.hpp),
// so the smallest κ with min_k g_k(κ) ≤ δ is min_k κ_k, κ_k = Δ_k / μ_ε((δ − F̄_k)/(1 − F̄_k))
// (μ_ε the inverse of h_ε in μ; κ_k = ∞ when F̄_k ≥ δ). This is exactly what bisection on the
// monotone map κ ↦ min_k g_k(κ) would find; it is computed per k instead, with no outer
// iteration. Every k gives a valid bound, so restricting the search over k can only loosen it.
#pragma once

#include <array>
#include <cmath>
#include <optional>
#include <string>
#include <string_view>

#include "dpkit/accounting/pld_accountant.hpp"
#include "dpkit/core/result.hpp"

namespace dpkit::accounting {

/// What is calibrated: T steps of DP-λCGD at sampling rate r.
struct correlated_setting {
  double correlation = 0.0;    ///< λ ∈ [0, 1); 0 is independent-noise DP-SGD
  double sampling_rate = 1.0;  ///< r = B/n ∈ (0, 1]
  long long steps = 1;         ///< T ≥ 1

  /// Throws std::domain_error (check_* message) unless λ ∈ [0, 1), r ∈ (0, 1], T ≥ 1.
  void validate(std::string_view function) const;
};

enum class correlated_method {
  f12,
  f12_proof_constant,
  f9_row_sum,
  f9_exact,
  f9_block,
  pld,
  d9,
  d9_eq19,
  pld_replace_one
};

/// "f12", "f12-proof-constant", "f9-row-sum", "f9-exact", "f9-block", "pld", "d9", "d9-eq19",
/// "pld-replace-one".
std::string_view to_string(correlated_method m) noexcept;
/// The inverse of to_string; std::nullopt for any other text.
std::optional<correlated_method> parse_correlated_method(std::string_view name) noexcept;
/// Every method, in the order above (the order reports use).
inline constexpr std::array<correlated_method, 9> kAllCorrelatedMethods = {
    correlated_method::f12,
    correlated_method::f12_proof_constant,
    correlated_method::f9_row_sum,
    correlated_method::f9_exact,
    correlated_method::f9_block,
    correlated_method::pld,
    correlated_method::d9,
    correlated_method::d9_eq19,
    correlated_method::pld_replace_one};

/// What a calibrated κ certifies. κ is an upper bound on the smallest sufficient noise only
/// when the validity is valid_upper_bound.
enum class noise_validity {
  /// Proven (from WSK+26's lemmas and the cited theorems): the algorithm is (ε, δ)-DP at κ.
  valid_upper_bound,
  /// Valid if the leading-block maximiser conjecture (docs/correlated.md) holds.
  conjecture_dependent,
  /// A closed form resting on an unproven constant (Thm D.9: c_sgm = 8 is the leading
  /// asymptotic of eq. (19), Remark D.8): no guarantee by itself (see certified_epsilon).
  heuristic,
  /// A theorem used outside its stated conditions: no guarantee by itself.
  outside_conditions,
  /// The method does not apply to this setting (e.g. pld, d9 when λ ≠ 0): no κ.
  not_applicable,
};

/// "valid-upper-bound", "conjecture-dependent", "heuristic", "outside-conditions",
/// "not-applicable".
std::string_view to_string(noise_validity v) noexcept;

/// The neighbouring relation a method's guarantee is stated for.
enum class neighbouring_relation {
  zero_out,     ///< WSK+26 Def F.1 (F.* routes, pld)
  replace_one,  ///< WSK+26 §D.1 (d9 routes, pld-replace-one); implies zero-out
};

/// "zero-out" or "replace-one".
std::string_view to_string(neighbouring_relation r) noexcept;

/// The largest Rényi order d9-eq19 takes (max_order): the subsampled-Gaussian RDP of WBK19 is
/// evaluated up to α = 1e6 (subsampling/subsampled_rdp.cpp), and a larger order asked for
/// refused there under its internal name ("alpha is 1015376").
inline constexpr long long kLargestCorrelatedOrder = 1000000;

struct correlated_options {
  /// Accuracy of the PLD evaluations (pld, pld-replace-one).
  pld_options pld;
  /// Numerical routes that solve for κ stop when the bracket on κ is this narrow (relative); κ
  /// is its safe end. The pld and pld-replace-one routes stop earlier, once the certified ε is
  /// within calibration_options::budget_tolerance (0.02 %) below the target (accountant.hpp).
  /// Default: 1e-3.
  double relative_tolerance = 1e-3;
  /// d9-eq19: largest integer Rényi order tried, in [2, kLargestCorrelatedOrder]. Default: 10000.
  long long max_order = 10000;

  /// Throws std::domain_error naming the violated constraint.
  void validate(std::string_view function) const;
};

/// One method's answer (solver_status: termination, message, evaluations).
struct correlated_noise : solver_status {
  correlated_method method_id = correlated_method::f12;
  std::string method;             ///< to_string(method_id)
  double noise_multiplier = NAN;  ///< κ; NaN when not applicable or failed; +∞ when the route
                                  ///< certifies the budget at no finite κ (see attainable)
  double noise_multiplier_lower = NAN;  ///< pld routes, d9-eq19: other end of the final bracket
                                        ///< (the budget is not certified there)
  noise_validity validity = noise_validity::valid_upper_bound;
  bool closed_form = false;  ///< true for f12, f12-proof-constant, d9
  neighbouring_relation relation = neighbouring_relation::zero_out;
  std::string label;   ///< for people, e.g. "valid upper bound (closed form)"; no commas
  std::string source;  ///< e.g. "WSK+26 Thm F.12"
  bool conditions_met = true;
  /// false when no finite κ meets the budget by this route (noise_multiplier = +∞). This
  /// happens for d9-eq19: as κ → ∞ the j ≥ 3 terms of eq. (19) tend to 2q^j·C(α, j), not 0,
  /// so the ε it certifies has a positive floor (docs/correlated.md).
  bool attainable = true;
  std::string conditions;  ///< the method's conditions, each marked "holds" or "FAILS"
  std::string details;     ///< route details: split, sensitivity, grid spacing, order
  /// F.12: τ; F.9: the minimising k (the event is E = {‖y‖₀ ≤ split}). NaN otherwise.
  double split = NAN;
  /// The ℓ₂ sensitivity on E at the split (F.12: Δ₂ of Lemma F.11; F.9: Δ_k). NaN otherwise.
  double sensitivity = NAN;
  /// S(Ē) = P(Bin(T, r) > split), exact. NaN otherwise.
  double tail_probability = NAN;
  /// d9, d9-eq19: the Rényi order of certified_epsilon. NaN otherwise.
  double alpha = NAN;
  /// pld routes, d9-eq19, d9: the ε their accountant certifies at κ (d9: eq. (19) + Lemma D.2 at
  /// the closed-form κ — ≤ the target means the closed form is sufficient in this setting).
  double certified_epsilon = NAN;
  /// F.* routes: the δ Lemma F.9 certifies at κ (exact tails and hockey-stick, the route's Δ;
  /// f12 routes: WSK+26's row-sum Δ) — ≤ the target δ means κ is sufficient by Lemma F.9.
  double certified_delta = NAN;
};

/// The κ of one method at (ε, δ): ε > 0 finite, δ ∈ (0, 1). Never throws for "not applicable"
/// (the result says so); numerical failure is a termination, not an exception.
correlated_noise calibrate_correlated(const correlated_setting& setting,
                                      double epsilon,
                                      double delta,
                                      correlated_method method,
                                      const correlated_options& options = {});

// ---- the ingredients, exposed for tests and for custom routes ----

/// (1 − λ^T)/(1 − λ): the maximum row sum of C, WSK+26's bound on ‖C‖₂ (Lemma F.11); 1 at
/// λ = 0.
double correlation_row_sum(double correlation, long long steps);

/// ‖C‖₂ = 1/σ_min(C^{−1}), certified: σ_min of the bidiagonal C^{−1} is bracketed by Sturm-
/// sequence bisection on its Golub–Kahan matrix, O(T) per step; `value` is an upper bound (the
/// bracket end padded by the backward error, (6T + 16)ε relative, and never above the row sum),
/// `lower` a lower bound.
struct spectral_norm_result : solver_status {
  double value = NAN;  ///< certified ≥ ‖C‖₂
  double lower = NAN;  ///< ≤ ‖C‖₂
};
spectral_norm_result correlation_spectral_norm(double correlation, long long steps);

/// ‖C·y‖₂ for y = (1, …, 1, 0, …, 0) with k ones, 0 ≤ k ≤ T:
///   Δ_k² = Σ_{t=1}^{k} a_t² + a_k²·Σ_{j=1}^{T−k} λ^{2j},   a_t = (1 − λ^t)/(1 − λ).
/// That this is max_{‖y‖₀ ≤ k} ‖Cy‖₂ is a conjecture (docs/correlated.md), checked by brute force
/// in the tests; docs/correlated.md gives a termwise argument that would make it a theorem
/// (unreviewed, so routes using it stay labelled conjecture-dependent).
double leading_block_norm(double correlation, long long steps, long long k);

/// P(Bin(T, r) > k) for 0 ≤ k (0 for k ≥ T), r ∈ (0, 1]: the exact binomial tail (Boost.Math
/// incomplete beta), relatively accurate far into the tail.
double binomial_tail(long long steps, double sampling_rate, long long k);

/// The sensitivity Δ_k a Lemma F.9 route uses on E_k = {‖y‖₀ ≤ k}.
enum class f9_sensitivity {
  row_sum,        ///< (1 − λ^T)/(1 − λ)·√k (WSK+26 Lemma F.11)
  spectral,       ///< ‖C‖₂·√k (certified upper bound on ‖C‖₂)
  leading_block,  ///< leading_block_norm(k) (conjecture-dependent)
};

/// Lemma F.9 at a given κ ≥ 0: min_k g_k(κ) over k = 0..T, with the minimiser.
struct f9_bound {
  double delta = NAN;             ///< the certified δ (for leading_block: conjecture-dependent)
  long long split = -1;           ///< the minimising k
  double sensitivity = NAN;       ///< Δ_k there
  double tail_probability = NAN;  ///< F̄_k there
};
f9_bound f9_delta(const correlated_setting& setting,
                  double noise_multiplier,
                  double epsilon,
                  f9_sensitivity sensitivity);

/// A LOWER bound on the noise DP-λCGD needs (a deterministic counterpart of auditing the pair of
/// WSK+26 Thm F.8).
///
/// Thm F.8's pair is attained: a linear loss whose clipped gradient is the same unit vector at
/// every step (all other examples with zero gradient) makes the mechanism's output along that
/// vector exactly x = Cy + κZ against κZ (Poisson inclusions y, zero-out). Post-processing by
/// the statistic ⟨v, x⟩ with v = C^{−T}1 = (1 − λ, …, 1 − λ, 1) gives ⟨v, Cy⟩ = ‖y‖₀ and the
/// one-dimensional pair
///   P₁ = Σ_k Bin(T, r)(k)·N(k, s²),   Q₁ = N(0, s²),   s = κ‖v‖ = κ√((T − 1)(1 − λ)² + 1),
/// whose δ₁(ε) = max{H_{e^ε}(P₁‖Q₁), H_{e^ε}(Q₁‖P₁)} can only be smaller than the mechanism's
/// (data processing). So at any κ with δ₁(ε) > δ the mechanism is NOT (ε, δ)-DP, and every valid
/// calibration must return a larger κ. At λ = 0 this is the sum of the T Poisson-subsampled
/// Gaussian outputs, which carries the pair's whole Gaussian-limit signal (μ = r√T/κ), so the
/// bound is close to the PLD answer when rT is large (docs/correlated.md).
///
/// Computation: the privacy loss ln dP₁/dQ₁ is increasing in x, so each hockey-stick divergence
/// is a difference of two Gaussian tail sums at the root of ln dP₁/dQ₁ = ±ε (log-space tails,
/// core/normal.hpp). The binomial weights (Boost.Math) are summed over mean ± 40 sd; the mass
/// left out lowers H(P₁‖Q₁) (kept as is: it only makes the bound smaller) and is subtracted,
/// times e^ε, from H(Q₁‖P₁). δ₁ is non-increasing in κ (adding Gaussian noise is
/// post-processing), so κ is bracketed by bisection.
struct projected_lower_bound : solver_status {
  /// κ_LB: δ₁(ε) > δ here, so the mechanism is not (ε, δ)-DP at any κ ≤ κ_LB (for the
  /// worst-case loss). 0 when δ₁ ≤ δ already as κ → 0 (no lower bound by this statistic).
  double noise_multiplier = NAN;
  /// The other end of the final bracket: δ₁(ε) ≤ δ there (not a certificate of privacy).
  double noise_multiplier_upper = NAN;
  double projection_norm = NAN;  ///< ‖v‖ = √((T − 1)(1 − λ)² + 1)
  double projected_delta = NAN;  ///< δ₁(ε) at κ_LB (> δ)
};

/// δ₁(ε) of the projected pair at κ > 0 (see projected_lower_bound): a lower bound on the δ(ε)
/// of DP-λCGD with Poisson sampling and zero-out neighbours at noise multiplier κ.
double projected_delta(const correlated_setting& setting, double noise_multiplier, double epsilon);

/// κ_LB of projected_lower_bound at (ε, δ), bisection to relative_tolerance (default 1e-3).
projected_lower_bound correlated_noise_lower_bound(const correlated_setting& setting,
                                                   double epsilon,
                                                   double delta,
                                                   double relative_tolerance = 1e-3);

/// Thm F.12's κ = √(c·((1 − λ^T)/(1 − λ))²·(rT + √(3rT ln(2/δ)))·ln(2.5/δ))/ε with constant c
/// (8 as stated, 2 from its proof), without checking the theorem's conditions.
double f12_noise_multiplier(const correlated_setting& setting,
                            double epsilon,
                            double delta,
                            double constant);

/// Thm D.9's κ = √(16r²T/ε + 32r²T log(1/δ)/ε²) (q = r = B/n), without conditions.
double d9_noise_multiplier(const correlated_setting& setting, double epsilon, double delta);

/// eq. (19) composed over T steps and converted by Lemma D.2 (ε = T·ε₁₉(α) + log(1/δ)/(α − 1)),
/// minimised over integer orders α ∈ [2, max_order] (a geometric scan, then a local integer
/// search; every order gives a valid bound). Uses subsampling::wor_gaussian_rdp_wbk19. λ is ignored
/// (independent noise). As κ → ∞ the result tends to a positive floor (see attainable).
struct eq19_epsilon {
  double epsilon = NAN;
  double alpha = NAN;
};
eq19_epsilon d9_eq19_epsilon(const correlated_setting& setting,
                             double noise_multiplier,
                             double delta,
                             long long max_order = 10000);

}  // namespace dpkit::accounting
