// dpkit/risk/longtail_bounds.hpp — the bounds of ZXD+26 ("Understanding the Impact of
// Differentially Private Training on Memorization of Long-Tailed Data", Zhang et al. 2026) for the
// two-layer ReLU CNN of eq. (1) trained by DP-SGD (eq. 4) on the data of Definition 1.
//
// What comes out, and how it is labelled (docs/architecture.md, "Labelled bounds"):
//
// * up to hidden constants — Theorems 1–3 and Remarks 3–4 are stated with Ω, O and the
//   absolute constants c₁, c₂, C₁, C₂. Each hidden constant is a NAMED field of
//   `longtail_constants` (default 1, which is not a proven constant). These functions return
//   the bound's SHAPE (docs/longtail.md): good for
//   monotonicity, slopes and thresholds in σ_n, C, ε, T, L, |S_k|, SNR, NCR — not for absolute
//   values. Their status is up_to_constants, or condition_violated where the theorem's own
//   threshold (Thm 3's "If …") fails or the numerator is not positive (then the value is the
//   formula evaluated, not a bound).
// * explicit — Lemma 7 (an exact Gaussian tail bound), Lemma 9 (the printed claim, which is
//   FALSE, next to the exact binomial probability and the correct Hoeffding bound), and
//   Lemma 25's norm bound in the explicit form derived in the comment of lemma25_norm_bound.
//
// Condition 1 (ZXD+26 §4) is evaluated inequality by inequality with its constants c₁, c₂
// and the absolute C of (b) as named parameters: `condition1`. The paper's experimental
// configuration lies far outside it (docs/longtail.md); the unit tests show which lines fail.
//
// Symbols (ZXD+26 uses C for several constants): `clip` is the clipping threshold C; `c_abs` the
// absolute constant of Condition 1(b); `fail_delta` the failure probability δ; `dp_delta` the
// privacy δ_DP; `tail_L` the long-tail threshold L; `noise_std` σ_n, the std of the noise n_t of
// eq. (4).
//
// Bad input (NaN, negative counts or norms, δ ∉ (0, 1), a class index out of range, sizes
// that disagree) throws std::domain_error through core/check.hpp.
#pragma once

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

#include "dpkit/risk/kan_bounds.hpp"  // risk_bound, bound_status, condition, bound_term

namespace dpkit::risk {

// ---- the problem: signals, class sizes and noise geometry ----------------------------------

/// The most classes the long-tail bounds take: Condition 1 compares every pair of classes, so
/// a report has K² rows (K = 1000 printed two million lines in 51 s).
inline constexpr std::size_t kLargestLongtailClasses = 100;

/// The quantities of Definition 1 the bounds depend on, for K classes. Matrices are K × K,
/// row-major: cross[k·K + j] = ‖A_kᵀA_j‖_F.
struct longtail_problem {
  std::vector<double> signal_norms;      ///< ‖u_k‖₂
  std::vector<double> class_counts;      ///< |S_k| (n = Σ|S_k|)
  std::vector<double> frobenius;         ///< ‖A_k‖_F = √Tr(A_kᵀA_k)
  std::vector<double> cross;             ///< ‖A_kᵀA_j‖_F (K × K)
  std::vector<double> cross_operator;    ///< ‖A_kᵀA_j‖_op (K × K)
  std::vector<double> operator_norm;     ///< ‖A_k‖_op = λ⁺_max(A_k)
  std::vector<double> smallest_nonzero;  ///< λ⁺_min(A_k)
  std::vector<double> rank;              ///< rank(A_k)
  double dimension = 0;                  ///< d

  std::size_t classes() const { return signal_norms.size(); }  ///< K
  double examples() const;                                     ///< n = Σ|S_k|
  double cross_at(std::size_t k, std::size_t j) const { return cross[k * classes() + j]; }
  /// Throws std::domain_error if the sizes disagree or an entry is negative or not finite.
  void validate(const char* function) const;
};

/// The spiked construction of ZXD+26 §5.1 as dpkit reads it (a_k[i] = 0 for i < K, s elsewhere,
/// spike λ at K + k), closed forms with D = d − K: ‖A_k‖_F² = s²(D − 1) + λ², ‖A_kᵀA_k‖_F² = s⁴(D −
/// 1) + λ⁴, ‖A_kᵀA_j‖_F² = s⁴(D − 2) + 2s²λ² (k ≠ j), ‖A_k‖_op = max(s, λ),
/// ‖A_kᵀA_j‖_op = max(s², sλ) (k ≠ j), max(s², λ²) (k = j), λ⁺_min = min(s, λ) (s if λ = 0),
/// rank = D (D − 1 if λ = 0). Equal signal norms. Requires d ≥ 2K, s > 0, λ ≥ 0.
longtail_problem spiked_problem(std::size_t classes,
                                std::size_t dimension,
                                double signal_norm,
                                double s,
                                double lambda,
                                const std::vector<double>& class_counts);

/// Λ_k = C/(‖u_k‖ + ‖A_k‖_F), the clipping factor (ZXD+26 §4).
double clipping_factor(const longtail_problem& p, std::size_t k, double clip);
/// SNR_{k,j} = |S_k|‖u_k‖²/(√|S_j| ‖A_kᵀA_j‖_F) (ZXD+26 §4).
double snr(const longtail_problem& p, std::size_t k, std::size_t j);
/// NCR_{k,j} = √|S_k| ‖A_kᵀA_k‖_F/(√|S_j| ‖A_kᵀA_j‖_F) (ZXD+26 §4).
double ncr(const longtail_problem& p, std::size_t k, std::size_t j);
/// φ = min_{k₁,k₂} min{‖A_{k₁}ᵀA_{k₂}‖_F, ‖u_{k₁}‖²} (ZXD+26 §4).
double phi(const longtail_problem& p);

// ---- the training run and the hidden constants -------------------------------------------------

/// One DP-SGD run of eq. (4) (clean: clip = +inf, noise_std = 0).
struct longtail_setting {
  double width = 0;          ///< m
  double eta = NAN;          ///< η
  double batch_size = 0;     ///< B
  double steps = 0;          ///< T
  double clip = INFINITY;    ///< C (+inf: no clipping, Λ_k := 1)
  double noise_std = 0;      ///< σ_n
  double sigma0 = NAN;       ///< σ₀ (Condition 1(b), (c); Theorem 1's T condition)
  double fail_delta = 0.05;  ///< δ, the failure probability
};

/// The hidden constants of Theorems 1–3, each named. Defaults 1: NOT proven constants.
struct longtail_constants {
  double drift = 1;        ///< Thm 1: the Ω in front of the memorisation drift
  double drift_noise = 1;  ///< Thm 1: the O of the DP-noise term
  double iterations = 1;   ///< Thm 1: T ≥ iterations·n√m σ₀/(ηΛ_y‖A_y‖_F)
  double rate = 1;         ///< Thm 2: the Ω in the exponent of the vanishing error
  double floor = 1;        ///< Thm 2: the O of the privacy-protection error
  double c1 = 1;           ///< Thm 3 Stmt 1 exponent constant
  double c2 = 1;           ///< Thm 3 Stmt 2 exponent constant
  double C1 = 1;           ///< Thm 3 Stmt 1 threshold constant
  double C2 = 1;           ///< Thm 3 Stmt 2 threshold constant
};

/// Λ_y for a setting: min{1, clipping_factor} (the proofs bound the clipping multiplier, which is
/// at most 1, by Λ_y), or 1 for clip = +inf (Remark 5's clean limit).
double setting_clipping_factor(const longtail_problem& p, const longtail_setting& s, std::size_t k);

// ---- Theorem 1 (memorisation) ----------------------------------------------------------------

/// Which DP-noise term Theorem 1 subtracts (Thm 1 as stated, and the proof's version).
enum class thm1_noise_form {
  statement,  ///< O(ησ_n‖A_y‖_F), as stated
  proof,      ///< O(ηTσ_n‖A_y‖_F), what the proof's sum gives
  exact_std   ///< ησ_n‖ξ‖√T: the exact std of the noise part (derived by dpkit)
};

/// Thm 1's lower-bound shape for ⟨w⁽ᵀ⁾_{y,r}, ξ⟩:
///   drift·(ηΛ_y/(n√m))·‖ξ‖²·Σ_t(1 − logit_y⁽ᵗ⁾) − drift_noise·(noise term of `form`),
/// with `sum_one_minus_logit` = Σ_{t<T}(1 − logit_y(W⁽ᵗ⁾, x)) (T·(1 − e^{−s}) under
/// Assumption 1) and xi_norm_sq = ‖ξ‖². Terms "drift" and "DP noise" (negative). Condition:
/// T ≥ iterations·n√m σ₀/(ηΛ_y‖A_y‖_F) (skipped when σ₀ is NaN). Up to constants.
risk_bound thm1_memorisation(const longtail_problem& p,
                             const longtail_setting& s,
                             std::size_t k,
                             double xi_norm_sq,
                             double sum_one_minus_logit,
                             thm1_noise_form form = thm1_noise_form::statement,
                             const longtail_constants& c = {});

/// The drift slope per step, ηΛ_y(1 − logit_y)‖ξ‖²/(n√m) (Thm 1, proof of App C.4): the
/// quantity whose decrease with C (through Λ_y) Remark 1 describes. Up to constants.
double thm1_drift_slope(const longtail_problem& p,
                        const longtail_setting& s,
                        std::size_t k,
                        double xi_norm_sq,
                        double one_minus_logit);

// ---- Theorem 2 (training loss) ------------------------------------------------------------------

/// Thm 2: L(W⁽ᵀ⁾, x, y) ≤ exp(−rate·ηTΛ_y|S_y|‖u_y‖²/(n√m))·L(W⁽⁰⁾, x, y)
///                      + floor·n√m σ_n √d (‖u_y‖ + ‖A_y‖_F)/(Λ_y|S_y|‖u_y‖²).
/// Terms "vanishing error" and "privacy protection error". Up to constants.
risk_bound thm2_training_loss(const longtail_problem& p,
                              const longtail_setting& s,
                              std::size_t k,
                              double initial_loss,
                              const longtail_constants& c = {});
/// The privacy-protection error alone (the plateau; linear in σ_n, ∝ 1/C at fixed σ_n).
double thm2_loss_floor(const longtail_problem& p,
                       const longtail_setting& s,
                       std::size_t k,
                       const longtail_constants& c = {});

// ---- Theorem 3 (test error) and Remarks 3–4
// ------------------------------------------------------

/// Thm 3 Stmt 1 (all data of class k):
///   Σ_{j≠k} exp(−c1 (N_D/D_j)²),  N_D = |S_k|Λ_k‖u_k‖² − nσ_n‖u_k‖√(2 log(2/δ)),
///   D_j = √|S_j| ‖A_kᵀA_j‖_F + nσ_n‖A_k‖_F,
/// with condition |S_k|Λ_k‖u_k‖² ≥ C1(max_{j≠k} √|S_j|‖A_kᵀA_j‖_F + nσ_n(‖u_k‖ + ‖A_k‖_F))
/// and N_D > 0. One term per j ("j = …"). Up to constants.
risk_bound thm3_all_data(const longtail_problem& p,
                         const longtail_setting& s,
                         std::size_t k,
                         const longtail_constants& c = {});

/// Thm 3 Stmt 2 (the L-long-tailed data of class k):
///   Σ_{j≠k} exp(−c2 (N_T(L)/D_j)²),  N_T(L) = aL − b√(d + L²),
///   a = √|S_k| Λ_k ‖A_kᵀA_k‖_F,  b = nσ_n‖A_k‖_op,
/// with condition a ≥ C2(max_{j≠k} √|S_j|‖A_kᵀA_j‖_F + b√(d + L²) + nσ_n‖A_k‖_F) and N_T > 0.
risk_bound thm3_tail(const longtail_problem& p,
                     const longtail_setting& s,
                     std::size_t k,
                     double tail_L,
                     const longtail_constants& c = {});

/// Remark 3.3's regime of the Stmt-2 numerator N_T(L) = aL − b√(d + L²) (derived by dpkit):
/// N_T(L) > 0 ⇔ a > b and L > L* = b√d/√(a² − b²); ∂_L N_T ≥ a − b.
struct tail_regime {
  double a = NAN, b = NAN;
  /// L* (0 when b = 0, +inf when a ≤ b: no L gives a non-vacuous bound).
  double threshold_L = NAN;
  bool larger_L_helps = false;  ///< a > b (the clean-training behaviour survives)
};
tail_regime remark3_tail_regime(const longtail_problem& p,
                                const longtail_setting& s,
                                std::size_t k);

/// Remark 4's scale σ_n = constant·C√(T ln(1/δ_DP))/(nε) (advanced composition; the constant
/// is unknown: default 1 is NOT a calibration).
double remark4_noise(double clip,
                     double steps,
                     double dp_delta,
                     double examples,
                     double epsilon,
                     double constant = 1);

/// Remark 4's form of Stmt 1 (logs absorbed):
///   Σ_{j≠k} exp(−c1((ε|S_k|Λ_k‖u_k‖² − C√T‖u_k‖)/(ε√|S_j|‖A_kᵀA_j‖_F + C√T‖A_k‖_F))²).
/// Uses s.clip (finite) and s.steps; s.noise_std is ignored. Up to constants; condition: the
/// numerator is positive.
risk_bound remark4_all_data(const longtail_problem& p,
                            const longtail_setting& s,
                            std::size_t k,
                            double epsilon,
                            const longtail_constants& c = {});

/// The ratios N/D_j of both statements at Remark 4's calibrated noise σ_n = constant·C√(T
/// ln(1/δ_DP))/(nε), as functions of C (derived by dpkit): Λ_k ∝ C and nσ_n ∝ C, so
/// they depend on C only through √|S_j|‖A_kᵀA_j‖_F in D_j and grow (weakly) with C.
struct calibrated_ratios {
  std::vector<double> all_data;  ///< N_D/D_j, j ≠ k in order
  std::vector<double> tail;      ///< N_T(L)/D_j
  double noise_std = NAN;        ///< the σ_n used
};
calibrated_ratios calibrated_margin_ratios(const longtail_problem& p,
                                           const longtail_setting& s,
                                           std::size_t k,
                                           double tail_L,
                                           double epsilon,
                                           double dp_delta,
                                           double noise_constant = 1);

// ---- Condition 1 (ZXD+26 §4) -------------------------------------------------------------------

struct condition1_constants {
  double c1 = 1;     ///< "sufficiently large" c₁
  double c2 = 0.5;   ///< c₂ ∈ (0, 1) of B ≥ c₂n
  double c_abs = 1;  ///< the absolute C of (b)'s min{m, d, rank} − 0.9m ≥ Cn
  /// Whether to read (a)'s third line as self-dominance ‖A_iᵀA_i‖_F ≥ c₁ max_{k≠i}‖A_iᵀA_k‖_F
  /// (the proofs' reading, default) or literally for all i ≠ j (self-contradictory, §6 item 1).
  bool self_dominance_reading = true;
};

/// Every inequality of Condition 1 (a)–(c) at the inputs, one `condition` per line and class
/// (pair), named by the inequality with its part, e.g. "(a) Tr(A_0'A_0) >= c1 n ...". The
/// "P[ζ > c′] ≥ 0.4" requirement is a property of D_ζ and is not evaluated. The Ω in (b)'s
/// third inequality is taken with constant c₁. Requires finite η, σ₀, B, T ≥ 2, m ≥ 1.
std::vector<condition> condition1(const longtail_problem& p,
                                  const longtail_setting& s,
                                  const condition1_constants& c = {});

// ---- Appendix B lemmas with explicit constants --------------------------------------------------

/// Lemma 9 as printed: P[Bin(m, 1/2) < 0.4m] ≤ exp(−8m/25). FALSE (docs/findings.md).
double lemma9_claimed(long long m);
/// exp(−m/50): Hoeffding's bound exp(−2m(0.1)²) for the same event (correct).
double lemma9_hoeffding(long long m);
/// The exact P[Bin(m, 1/2) < 0.4m] = P[X ≤ ⌈2m/5⌉ − 1] (Boost.Math binomial CDF; the count
/// threshold in integer arithmetic). m ≥ 1.
double lemma9_exact(long long m);

/// Lemma 7: |⟨n, u⟩| ≤ σ_n‖u‖√(2 log(2/δ)) with probability ≥ 1 − δ for n ~ N(0, σ_n²I). Exact
/// (Chernoff bound on the Gaussian tail).
double lemma7_bound(double noise_std, double u_norm, double fail_delta);
/// The exact P[|⟨n, u⟩| ≥ t] = 2Φ̄(t/(σ_n‖u‖)).
double lemma7_exact_tail(double noise_std, double u_norm, double t);

/// Lemma 25 (Gaussian ζ, tail law T_k), explicit form derived here: with
/// ζ = z v̂ + (I − v̂v̂ᵀ)g, ‖ζ‖² = z² + χ²_{d−1}; Laurent–Massart gives χ²_{d−1} ≤ (d − 1) +
/// 2√((d − 1)x) + 2x with probability ≥ 1 − e^{−x}, and the truncated-normal tail
/// P(z > L + t | z > L) ≤ exp(−Lt − t²/2) ≤ e^{−Lt} gives z ≤ L + x/L with probability ≥ 1 −
/// e^{−x}; with x = ln(2/δ):
///   ‖ζ‖² ≤ (L + x/L)² + (d − 1) + 2√((d − 1)x) + 2x   with probability ≥ 1 − δ   (L > 0),
/// and ‖ξ‖ ≤ ‖A_k‖_op‖ζ‖. The proof's form d + L² + 2√(d x) + 4x (lemma25_proof_form) follows
/// from it only when x²/L² ≤ 1 (L ≥ ln(2/δ)).
double lemma25_norm_bound(double dimension, double tail_L, double fail_delta);
/// d + L² + 2√(d ln(2/δ)) + 4 ln(2/δ) (the proof of ZXD+26 Lemma 25, Gaussian case, as written).
double lemma25_proof_form(double dimension, double tail_L, double fail_delta);

}  // namespace dpkit::risk
