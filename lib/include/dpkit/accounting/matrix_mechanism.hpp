// dpkit/accounting/matrix_mechanism.hpp — matrix-factorization mechanisms (DP-MF, BandMF, BLT,
// DP-λCGD): their sensitivity under a participation pattern, their certified (ε, δ) and noise,
// and their error on prefix sums (docs/accounting.md, "Matrix-factorization mechanisms").
//
// Convention (jax_privacy's encoder convention): over T steps the mechanism releases
//   C·G + σ·Z,
// C a lower-triangular T×T strategy matrix, G the T×d matrix whose row t is step t's sum of
// clipped gradients (clip norm 1), Z standard Gaussian. The differing example (add/remove or
// zero-out neighbours) adds g_t, ‖g_t‖ ≤ 1, to the rows of the steps it takes part in, so the
// release moves by Σ_t C[:, t]·g_tᵀ; its largest Frobenius norm is the sensitivity, computed by
// dpkit from C and the participation pattern — σ means what it means for DP-SGD, and the
// identity strategy is DP-SGD exactly. The model update uses C⁻¹ of the release (prefix sums of
// A·C⁻¹·(C·G + σZ), A the all-ones lower triangle), which is post-processing.
//
// Participation (`participation`): cyclic with min-separation b and rate q — the data are cut
// into b groups, group i may take part in steps i, i + b, i + 2b, … and does so at each of them
// independently with probability q (Choquette-Choo et al. 2023, [CGM+23], "b-min-separated
// Poisson"; q = 1: deterministic cyclic participation, every b-th step; b = 1, q = 1: every example
// in every step, the full batch; b = 1, q < 1: Poisson sampling as in DP-SGD).
//
// What is certified (each answer says which case it is, `route`):
//   amplified     q < 1 and C has at most b bands within T steps (C[r][c] = 0 for r − c ≥ b): the
//                 columns of one group's steps have disjoint row supports, so the release splits
//                 into ⌈T/b⌉ independent rounds, each a Poisson-subsampled Gaussian with the
//                 sensitivity of its column (CGM+23 Thm 4; jax_privacy's amplified_bandmf_event).
//                 Upper: ⌈T/b⌉ rounds at the largest column norm, as CGM+23 state it. Lower: the
//                 rounds of the group whose column norms have the largest sum of squares, each at
//                 its own column's norm — attained by a linear loss whose clipped gradient is the
//                 same unit vector at every step (all other examples' gradients 0), for which the
//                 rounds are exactly these Poisson-subsampled Gaussians. For a Toeplitz C with b | T
//                 the two runs are the same: the bracket is the PLD accountant's.
//   gaussian      q = 1: every participation happens, and the release is one Gaussian mechanism
//                 with μ = Δ/σ, Δ the sensitivity: exact where Δ is (see strategy_sensitivity).
//   unamplified   q < 1 and C has more than b bands: the upper bound of the q = 1 mechanism
//                 (every sampled pattern is a sub-pattern of the full one, and Δ's upper end
//                 bounds every sub-pattern; joint convexity of the hockey-stick divergence). Lower: a projection. With the same unit gradient at every step of
//                 the worst group S (others zero), the statistic ⟨v, x⟩ of the release with
//                 Cᵀv = 1_S is the count of the example's participations, Bin(|S|, q), plus
//                 N(0, σ²‖v‖²); by data processing the mechanism's δ(ε) is at least that pair's
//                 (the construction of correlated.hpp's projected_lower_bound, for any C).
//   conditional   the unamplified case up to kConditionalMaxSteps steps, where conditional
//                 composition (MMCC, Choquette-Choo, Ganesh, Steinke & Thakurta 2024) gives the
//                 smaller upper end (conditional_composition below); the lower end is the same.
#pragma once

#include <cmath>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/accounting/pld_accountant.hpp"
#include "dpkit/accounting/training_run.hpp"

namespace dpkit::accounting {

/// A strategy matrix C, independent of T where it can be (a Toeplitz strategy gives C for any
/// number of steps; a dense one has its own T).
class strategy {
 public:
  enum class kind { identity, toeplitz, blt, square_root, correlated, dense };

  /// C = I: DP-SGD.
  static strategy identity();
  /// Banded lower-triangular Toeplitz: C[r][c] = c_{r−c} for 0 ≤ r − c < b, b =
  /// coefficients.size(); c_0 ≠ 0, every c_k finite.
  static strategy toeplitz(std::vector<double> coefficients);
  /// Buffered linear Toeplitz (BLT; Dvijotham et al. 2024, McKenna 2024): c_0 = 1 and c_k =
  /// Σ_j ω_j θ_j^{k−1} for k ≥ 1 (jax_privacy's BufferedToeplitz: buf_decay θ, output_scale ω);
  /// θ_j ∈ (−1, 1), ω_j finite, one ω per θ, at least one buffer.
  static strategy blt(std::vector<double> decays, std::vector<double> scales);
  /// The square root of the prefix-sum matrix (Fichtenberger et al. 2023; banded to `bands` by
  /// Kalinin & Lampert 2024; 0 for all T bands): c_k = binom(2k, k)/4^k.
  static strategy square_root(long long bands = 0);
  /// DP-λCGD (WSK+26): C[r][c] = λ^{r−c}, λ ∈ [0, 1) — noise ξ_t = σ(Z_t − λZ_{t−1}).
  static strategy correlated(double correlation);
  /// Any lower-triangular T×T matrix, row-major (rows[r][c]); nonzero finite diagonal, zeros above
  /// it (within 0 exactly).
  static strategy dense(std::vector<std::vector<double>> rows);
  /// A dense strategy read from a CSV file: T lines of T numbers (core/csv.hpp's reader; '#'
  /// lines are comments). Throws std::runtime_error naming the file and line.
  static strategy from_file(const std::string& path);

  /// The strategy a spec names (the CLI's --strategy and Python's `strategy=`):
  ///   identity | toeplitz:c0,c1,… | blt:θ1:ω1,θ2:ω2,… | sqrt | sqrt:b | lambda:λ | file:PATH.
  /// Throws std::invalid_argument with a sentence that names the part of the spec at fault.
  static strategy parse(std::string_view spec);

  [[nodiscard]] kind type() const noexcept { return kind_; }
  /// E.g. "banded Toeplitz, 3 bands", "BLT, 2 buffers", "dense 100x100 from m.csv".
  [[nodiscard]] std::string describe() const;
  /// The dense strategy's T; std::nullopt for the others (any T).
  [[nodiscard]] std::optional<long long> size() const;
  /// The number of bands within T steps: 1 + the largest r − c with C[r][c] ≠ 0 (1 for a
  /// diagonal C).
  [[nodiscard]] long long bands(long long steps) const;
  /// True when C is Toeplitz (all kinds but dense).
  [[nodiscard]] bool is_toeplitz() const noexcept { return kind_ != kind::dense; }
  /// The Toeplitz coefficients c_0 … c_{m−1} with m = min(bands, T) (Toeplitz kinds only).
  [[nodiscard]] std::vector<double> coefficients(long long steps) const;
  /// C[r][c] for T steps (0 above the diagonal).
  [[nodiscard]] double entry(long long steps, long long row, long long column) const;
  /// Throws std::domain_error unless the strategy fits T steps (a dense one: T = its size).
  void check_steps(std::string_view function, long long steps) const;

 private:
  kind kind_ = kind::identity;
  std::vector<double> parameters_;  // Toeplitz coefficients; BLT θ then ω; λ; square-root bands
  std::vector<double> dense_;       // row-major T×T
  long long size_ = 0;
  std::string source_;              // the file of a dense strategy
};

/// Who takes part in which steps (header comment): groups of steps b apart, each step taken
/// with probability q.
struct participation {
  long long min_separation = 1;  ///< b ≥ 1
  double sampling_rate = 1.0;    ///< q ∈ (0, 1]
  /// 0: the cyclic groups above. k ≥ 1: instead, jax_privacy's schema — an example may take part
  /// in any steps at least b apart, at most k of them, with no sampling (q must be 1): the
  /// sensitivity is min_separation_sensitivity's, the route "gaussian".
  long long max_participations = 0;

  void validate(std::string_view function) const;
};

/// The sensitivity Δ = the largest ‖Σ_{t ∈ S} C[:, t]·g_tᵀ‖_F over the groups' step sets S and
/// ‖g_t‖ ≤ 1, bracketed. `lower` is ‖C·1_S‖ for the worst group (attained: the same unit vector at
/// each step); `upper` = `lower` (exact) when the columns of a group are orthogonal (at most b
/// bands) or CᵀC has no negative entry on S × S (then all-equal gradients are worst); otherwise
/// the smaller of Σ_{t∈S} ‖C[:, t]‖ and √(Σ_{s,t∈S} |(CᵀC)_{st}|).
struct sensitivity_bracket {
  double lower = 0;
  double upper = 0;
  bool exact = false;
  long long worst_group = 0;  ///< the group i (steps i, i + b, …) of `lower`
  long long participations = 0;  ///< |S| of that group
  std::string method;  ///< how upper was found, for people
};
sensitivity_bracket strategy_sensitivity(const strategy& c,
                                         long long steps,
                                         long long min_separation);

/// The sensitivity under jax_privacy's participation schema: any steps at least b apart, at most
/// k of them (k = 0: as many as fit, ⌈T/b⌉), gradients ‖g_t‖ ≤ 1. Exact where C has at most b
/// bands (the largest sum of squared column norms over the patterns, by dynamic programming —
/// Choquette-Choo et al. 2023's VecSens) or is Toeplitz with nonnegative nonincreasing
/// coefficients (the earliest pattern 0, b, …, (k − 1)b is worst; the argument is in the source).
/// Otherwise bracketed: `lower` = ‖C·1_S‖ for the best pattern found, `upper` = √(max over
/// patterns of Σ_s of row s's best pattern sum of |CᵀC|) for T ≤ 4096 (jax_privacy's bound), the
/// largest sum of column norms otherwise. worst_group is −1 (no groups).
sensitivity_bracket min_separation_sensitivity(const strategy& c,
                                               long long steps,
                                               long long min_separation,
                                               long long max_participations = 0);

/// The number of rounds an amplified BandMF run of T steps with b bands is accounted as: ⌈T/b⌉
/// (CGM+23 Thm 4; jax_privacy's amplified_bandmf_event).
long long amplified_rounds(long long steps, long long min_separation);

/// The reduction of a matrix mechanism at noise multiplier σ to training runs the accountants
/// compose (header comment): `upper` dominates the mechanism, `lower` is dominated by it (empty
/// where no lower bound is available).
struct matrix_mechanism_reduction {
  std::string route;  ///< "amplified", "gaussian" or "unamplified" ("conditional" in answers)
  training_run upper;
  std::optional<training_run> lower;
  sensitivity_bracket sensitivity;  ///< of the q = 1 pattern (gaussian, unamplified)
  long long rounds = 0;             ///< amplified: ⌈T/b⌉
  double round_sensitivity = 0;     ///< amplified: the largest column norm
  /// unamplified: the projected pair of the lower end — Bin(n, q) participations of the group
  /// `sensitivity.worst_group`, n = projected_participations, plus N(0, s²), s = projected_noise.
  long long projected_participations = 0;
  double projected_noise = 0;
  std::string description;          ///< one sentence for people
};
matrix_mechanism_reduction reduce_matrix_mechanism(const strategy& c,
                                                   long long steps,
                                                   const participation& p,
                                                   double noise_multiplier);

/// The upper bound by conditional composition (MMCC; Choquette-Choo, Ganesh, Steinke & Thakurta
/// 2024, [CGST24] Thm 3.1) for sampled participation (q < 1) and any strategy: each row of the
/// release, given the rows before it, is dominated — outside an event of probability δ_E — by
/// a mixture of Gaussians whose participation probabilities are the example's posterior ones,
/// bounded from the rows already released; the rows' pairs are composed by the PLD accountant
/// and δ_E is added to δ. Certified for any clipped gradients, chosen adaptively (the
/// derivation is in matrix_mmcc.cpp and docs/matrix-mechanisms.md). It amplifies where the
/// posterior bounds stay near q (σ large against the columns' overlap); elsewhere it can be
/// above the unamplified bound, and the mechanism's upper end is the smaller of the two.
struct conditional_composition {
  bool evaluated = false;  ///< false: not applicable (reason says why)
  std::string reason;
  double value = NAN;                 ///< the certified upper bound on ε (or on δ)
  double bad_event_probability = 0;   ///< δ_E, included in value
  long long pairs = 0;                ///< posterior bounds taken: rows × earlier columns
  double tail_quantile = 0;           ///< z = Φ̄⁻¹(δ_E / pairs)
  double largest_inclusion = 0;       ///< the largest posterior bound p̃ (q where none)
  std::size_t largest_mixture = 0;    ///< atoms of the largest row mixture
  long long row_types = 0;            ///< distinct row pairs composed
  std::string method;                 ///< the composition's grid, for people
};
/// ε at δ ∈ (0, 1) with δ_E = δ/10.
conditional_composition conditional_composition_epsilon(const strategy& c,
                                                        long long steps,
                                                        const participation& p,
                                                        double noise_multiplier,
                                                        double delta,
                                                        const pld_options& options = {});
/// δ at ε ≥ 0: the smallest δ_PLD + δ_E over δ_E = 1e-8 and, where that answer is above 1e-6, a
/// tenth of it, else 1e-10 and 1e-12.
conditional_composition conditional_composition_delta(const strategy& c,
                                                      long long steps,
                                                      const participation& p,
                                                      double noise_multiplier,
                                                      double epsilon,
                                                      const pld_options& options = {});

/// Conditional composition is tried for the unamplified route up to this many steps (its cost
/// grows like T² in the posterior bounds and T·atoms in the rows' laws).
inline constexpr long long kConditionalMaxSteps = 10000;

/// A certified bracket on ε at δ (or on δ at ε): `lower` ≤ the mechanism's value ≤ `upper`.
struct matrix_mechanism_privacy {
  double lower = 0;
  double upper = 0;
  matrix_mechanism_reduction reduction;
  /// The accountant's answer for reduction.upper (route "conditional": the conditional bound's
  /// value and method instead).
  privacy_estimate upper_estimate;
  std::optional<privacy_estimate> lower_estimate;  ///< for reduction.lower, when distinct
  /// Route "unamplified" up to kConditionalMaxSteps: the conditional-composition bound, tried;
  /// where it is below the unamplified upper end it becomes `upper` and the route "conditional".
  std::optional<conditional_composition> conditional;
};
matrix_mechanism_privacy matrix_mechanism_epsilon(const strategy& c,
                                                  long long steps,
                                                  const participation& p,
                                                  double noise_multiplier,
                                                  double delta,
                                                  const pld_options& options = {});
matrix_mechanism_privacy matrix_mechanism_delta(const strategy& c,
                                                long long steps,
                                                const participation& p,
                                                double noise_multiplier,
                                                double epsilon,
                                                const pld_options& options = {});

/// The smallest σ whose certified (upper) ε at δ is ≤ target_epsilon (calibrate_noise_multiplier
/// on the upper run at unit sensitivity, scaled by its sensitivity), with the bracket there.
/// Where the route at that σ is "conditional", σ is then bisected on the conditional bound to
/// 0.1 % (termination max_iterations, with a message, when that leaves more than
/// budget_tolerance of the budget unused).
struct matrix_mechanism_noise : solver_status {
  double noise_multiplier = NAN;
  matrix_mechanism_privacy privacy;  ///< at noise_multiplier
};
matrix_mechanism_noise matrix_mechanism_calibrate(const strategy& c,
                                                  long long steps,
                                                  const participation& p,
                                                  double target_epsilon,
                                                  double delta,
                                                  const calibration_options& options = {});

/// The error of the prefix sums estimated from the release, per unit noise multiplier: with
/// B = A·C⁻¹, the estimate of Σ_{s≤t} G_s has noise σ·B[t, :]·Z, so
///   rmse = σ·‖B‖_F/√T,   max_error = σ·max_t ‖B[t, :]‖
/// (in clipping norms, per coordinate of the gradient). Identity: rmse = σ√((T + 1)/2),
/// max_error = σ√T.
struct prefix_sum_error {
  double rmse = 0;
  double max_error = 0;
};
prefix_sum_error strategy_error(const strategy& c, long long steps, double noise_multiplier);

}  // namespace dpkit::accounting
