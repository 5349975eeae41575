// dpkit/hsgd/privacy.hpp — Rényi DP of noisy HSGD: neighbouring processes and RDP trajectories
// for the last iterate, for J released iterates and for their average (LKSP25 §4.2, Thms
// 4.3–4.5, App. C; the efficient evaluation is derived in docs/hsgd.md).
//
// NEIGHBOURING PROCESSES (LKSP25 eqs. (11)–(13)). Two datasets differ in one record; the pair
// θ = ((a₁, b₁), (a₂, b₂)) is used at SGD time s (step h = γ(s)/d). Process i jumps at s by
//   X_{s⁺} = C_i X_{s⁻} + h b_i a_i + e,  C_i = I − h(a_i a_iᵀ + δI),  e ~ N(0, h²σ² I),
// and otherwise follows the common linear SDE (9). In eigen-coordinates, with β = 1 − hδ,
// ψ_k = e^{−κ_k(Γ(t)−Γ(s))}, W = diag w(s), q_i = a_iᵀWa_i, r_i = b_i − a_iᵀm(s)
// (docs/hsgd.md), for s ≤ t exactly
//   V_i(t; s) = D + [v_i, u_i] [[0, 1], [1, q_i]] [v_i, u_i]ᵀ,  v_i = βψ∘W a_i,  u_i = −hψ∘a_i,
//   D = diag(w(t) − (1 − β²)ψ²w(s) + h²σ²ψ²)   (common to both processes),
//   m_i(t; s) = m(t) + ψ∘(−hδ m(s) + h r_i a_i),  Δ = m₁ − m₂ = hψ∘(r₁a₁ − r₂a₂);
// for s > t both processes coincide.
//
// RÉNYI DIVERGENCE. D_α(N(m₁,V₁) ‖ N(m₂,V₂)) = (α/2)ΔᵀM⁻¹Δ − ln(det M/(det V₁^{1−α}det
// V₂^α))/(2(α−1)) with M = αV₂ + (1 − α)V₁ (Gil et al. 2013). LKSP25 PRINTS THE ARGUMENT ORDER
// SWAPPED: Lemma C.2 and eqs. (14), (20), (23) use M = αV₁ + (1 − α)V₂, which is D_α(process 2 ‖
// process 1) (docs/findings.md; checked in privacy_test against the dense formula).
// `renyi_order` selects forward (the correct D_α(P₁ ‖ P₂)), paper (the printed formula, i.e.
// D_α(P₂ ‖ P₁)), or symmetric (the larger of the two, the RDP quantity for an unordered pair).
// M and the V_i are D + rank ≤ 4, so Woodbury and the matrix-determinant lemma give D_α in
// O(#groups) after O(d) per record (docs/hsgd.md); the ln det D terms cancel analytically.
// M not positive definite (large α, s ≈ t) means D_α = +∞, which is returned as +inf.
//
// J ITERATES AND THE AVERAGE (LKSP25 Thms 4.4, 4.5), corrected (docs/hsgd.md,
// docs/findings.md): the paper keeps only the post-s blocks, which is a lower bound; exact is to
// keep the last pre-s block as well (by the Markov property nothing earlier matters), and for the
// average every block including the pre-s ones with their process-dependent cross-covariances.
// Implemented as a per-coordinate Gauss–Markov base chain plus the same rank-2 correction,
// O(J·#groups) per (s, θ). (Since both processes follow the same dynamics after the jump, the
// J-iterate divergence equals that of the two blocks around s: (X_{t_{ℓ−1}}, X_{t_ℓ}).)
//
// RDP TRAJECTORIES. With the record position uniform, s ~ U(0, T), T = law.horizon() (LKSP25
// Thm 4.3, eq. (15), and (21), (24)), for a candidate set 𝒞 of pairs:
//   ε_α(t) ≤ 1/(α−1) · log1p( (1/T) ∫_0^t expm1((α−1) sup_{θ∈𝒞} D_α(t; s, θ)) ds )
// (the log1p/expm1 form of eq. (15); when (α−1)D would overflow exp, the integral
// is rescaled by e^{−max} in log-sum-exp fashion). The s-integral is computed by a global
// adaptive Gauss–Kronrod (7, 15) rule (nodes and weights from Boost.Math, QUADPACK's error
// estimate); every node evaluates all pairs at once, so the per-node work (w(s), m(s),
// residuals, per-record sums) is shared across pairs, and the per-pair integrals ride on the
// same nodes. The initial partition cuts at the jumps of γ, at the release times and on the
// fastest relaxation scale 1/(2γκ_max) near s = 0; an interval where the maximising (pair,
// order) changes is split at the crossing (root-found), so the kinks of the sup do not fool the
// error estimate. Measured on the LKSP25 §5 setup (d = 1000, the 900 extreme-label pairs of
// n = 1500 records, 30 release times, α = 2, symmetric order): ≈ 90 nodes per release time,
// relative error ≤ 1e-11 against a 1e-11-tolerance run already at the default tolerance 1e-6;
// 0.2 s (Σ = I/(12d), one eigen-group) and 0.6 s (the exact two-level Σ) single-threaded CPU
// on a shared machine; 2.3 s for d = 1000 distinct eigenvalues (no grouping).
//
// WHAT THE NUMBERS ARE. For the linearised HSGD surrogate and the candidate set given, ε_α is
// an upper bound up to the reported quadrature error (and the law's own solver and
// interpolation errors). It is conditional on the realised dataset (the law absorbs every
// shared record), the sup is over the candidates only, and the transfer to noisy SGD rests on
// the unproven Conjecture 3.1 of LKSP25 (docs/hsgd.md, docs/findings.md). Results are
// therefore labelled bound_kind::approximation.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <span>
#include <string_view>
#include <vector>

#include "dpkit/core/result.hpp"
#include "dpkit/divergence/rdp.hpp"
#include "dpkit/hsgd/law.hpp"

namespace dpkit::hsgd {

/// What every privacy number of this module is and is not, in the words the CLI and Python show
/// beside it (one text: `dpkit hsgd privacy`'s note, `dpkit.hsgd`'s results' `caveat`). The
/// fixed-pair figures are measured by the validation scenarios lksp25-privacy-fixed-pair(-exact)
/// (docs/hsgd.md, "A fixed pair of datasets").
inline constexpr std::string_view kPrivacyCaveat =
    "kind: APPROXIMATION. The numbers bound the linearised HSGD surrogate for this dataset and "
    "these candidate pairs only; the transfer to noisy SGD rests on LKSP25's unproven "
    "Conjecture 3.1 (docs/hsgd.md). Not a worst-case DP guarantee, nor a fixed pair's privacy: "
    "HSGD counts the other records' fluctuation as noise; for a fixed pair noisy SGD's exact "
    "mu was about twice the HSGD mu in dpkit's validation (3.2 to 4.1 against 1.4 to 2.0 at "
    "d = 64, 3.75 against 1.78 at d = 128: docs/hsgd.md, \"A fixed pair of datasets\"). Do "
    "not report these numbers as a DP guarantee.";

/// The smallest HSGD rate γ the command line takes for the privacy trajectories: the DP noise
/// enters each step as (γσ/d)², and below γ = 1e-150 that variance leaves the normal range of
/// double at any ordinary σ and d (γ = 1e-160 already moved ε_α in the third digit, γ = 1e-200
/// made every Rényi divergence NaN). The privacy functions check (γσ/d)² ≥ 1e-300 itself.
inline constexpr double kSmallestPrivacyRate = 1e-150;
/// The largest DP noise std σ they take: the divergences' moments carry σ⁴, which leaves double
/// beyond σ ≈ 1e77 (σ = 1e80 made every Rényi divergence NaN, σ = 1e200 the law's state inf).
/// ε_α has long stopped changing by then (the same to 13 digits from σ = 1e10 to 1e75 in a
/// probe): the noise no longer moves it, the data's fluctuation sets it.
inline constexpr double kLargestPrivacyNoise = 1e50;

/// One data record (a, b), a in ORIGINAL coordinates (length d).
struct record {
  Eigen::VectorXd a;
  double b = NAN;
};

/// A dataset: row i of `features` is a_iᵀ (n×d, original coordinates), labels[i] = b_i.
struct dataset {
  Eigen::MatrixXd features;
  Eigen::VectorXd labels;
};

/// An ordered neighbouring pair: process 1 uses record `first`, process 2 record `second`
/// (indices into a dataset).
struct record_pair {
  long long first = -1;
  long long second = -1;
};

/// Which Rényi divergence of a pair (see the file comment).
enum class renyi_order {
  forward,    ///< D_α(P₁ ‖ P₂): the correct reading of LKSP25 (14) (docs/findings.md)
  paper,      ///< the printed formula of LKSP25 (14)/(20)/(23), = D_α(P₂ ‖ P₁)
  symmetric,  ///< max of both: an unordered pair {θ, θ'} (docs/hsgd.md)
};

/// "forward", "paper" or "symmetric".
std::string_view to_string(renyi_order o) noexcept;

/// How the position of the differing record in the one-pass order is mixed over.
enum class position_mixture {
  /// s ~ U(0, T), the integral of LKSP25 (15)/(21)/(24), by adaptive quadrature.
  continuous,
  /// The record's SGD step ℓ ~ U{1, …, n} (n = T·d), its difference entering at s_ℓ = (ℓ − 1)/d:
  /// (1/T)∫₀ᵗ → (1/n)Σ_{ℓ: s_ℓ < t} (docs/hsgd.md), the discrete analogue for the shuffled
  /// one-pass SGD the paper models. An exact finite sum (no quadrature error); it is the
  /// left-point Riemann sum of the continuous integral with step 1/d, so the two differ by
  /// O(1/d). Costs one node per step ℓ < t·d. Requires T·d to be an integer.
  discrete,
};

/// "continuous" or "discrete".
std::string_view to_string(position_mixture m) noexcept;

/// The two neighbouring processes at one release time t ≥ s (LKSP25 (11)–(13);
/// docs/hsgd.md), in eigen-coordinates: V_i = diag(base) + L_i S_i L_iᵀ with L_i = [v_i, u_i] (d×2)
/// and S_i = [[0, 1], [1, q_i]].
struct neighbouring_law {
  double t = NAN, s = NAN;
  Eigen::VectorXd mean1, mean2;      ///< m_i(t; s)
  Eigen::VectorXd base;              ///< D (length d, > 0)
  Eigen::MatrixXd factor1, factor2;  ///< L_i (d×2)
  Eigen::Matrix2d core1, core2;      ///< S_i
  /// V_i (dense d×d; process 1 or 2).
  [[nodiscard]] Eigen::MatrixXd covariance(int process) const;
};

/// The law of both processes for s ≤ t ≤ horizon (s > t: the processes coincide and this
/// throws). Requires σ > 0.
neighbouring_law neighbouring_processes(
    const gaussian_law& law, const record& first, const record& second, double t, double s);

/// D_α(t; s, θ) of the last iterate X_t (LKSP25 eq. (14) with the argument order of
/// `order`; docs/hsgd.md). 0 for s > t; +inf when M_α is not positive definite. α > 1;
/// t, s ∈ [0, horizon]; σ > 0.
double renyi_divergence(const gaussian_law& law,
                        const record& first,
                        const record& second,
                        double t,
                        double s,
                        double alpha,
                        renyi_order order = renyi_order::forward);

/// D_α of the joint release (X_{t_1}, …, X_{t_J}) (LKSP25 eq. (20), corrected as
/// docs/hsgd.md explains). `times` strictly increasing in (0, horizon]. 0 for s > t_J.
double renyi_divergence_iterates(const gaussian_law& law,
                                 const record& first,
                                 const record& second,
                                 std::span<const double> times,
                                 double s,
                                 double alpha,
                                 renyi_order order = renyi_order::forward);

/// D_α of the average (1/J)Σ_j X_{t_j} (LKSP25 eq. (23), with the pre-s cross-covariances
/// that eq. (43) does not give; docs/hsgd.md). 0 for s > t_J.
double renyi_divergence_average(const gaussian_law& law,
                                const record& first,
                                const record& second,
                                std::span<const double> times,
                                double s,
                                double alpha,
                                renyi_order order = renyi_order::forward);

/// The s-integral of the RDP bounds.
struct mixture_options {
  /// Default: symmetric (both orders of every pair; the sup over a swap-closed set).
  renyi_order order = renyi_order::symmetric;
  /// The mixture over the differing record's position. Default continuous (the paper's).
  position_mixture positions = position_mixture::continuous;
  /// Stop when the estimated error of (1/T)∫expm1(...) is ≤ max(absolute, relative·value) —
  /// for the sup integrand and, with per_pair, for every pair's integrand (measured against
  /// the sup's value, so small pairs are resolved in absolute terms). Defaults 1e-6 and 0.
  double relative_tolerance = 1e-6;
  double absolute_tolerance = 0;
  /// Budget of Gauss–Kronrod intervals per integral (15 evaluations each); termination
  /// max_iterations when it runs out. Default 2000.
  long long max_intervals = 2000;
  /// Also integrate each pair's own curve (ε_α of the pair alone; the released code's
  /// ranking; docs/hsgd.md). Default false.
  bool per_pair = false;
};

/// ε_α at one release (time t, or the times t_1..t_J).
struct rdp_value : solver_status {
  double time = NAN;       ///< t (last iterate) or t_J
  double epsilon = NAN;    ///< ε_α with the sup over the candidate pairs inside the integral
  double abs_error = NAN;  ///< estimated absolute error of epsilon (quadrature only)
  /// Estimated absolute error of epsilon from the law's interpolation of the eigen-variances:
  /// epsilon·gaussian_law::interpolation_error(), the first-order effect of a relative error ρ
  /// in every variance (D_α is invariant under a common rescaling of the covariances and of Δ²,
  /// so ρ moves ε by O(ρ)·ε). An estimate, not a bound; measured on LKSP25 §5 (d = 1000):
  /// the actual change is ≤ 3e-3 of it (grids of 64 to 4096 intervals; docs/hsgd.md).
  double law_error = NAN;
  /// per_pair: ε_α of each candidate pair alone (with renyi_order::symmetric, the larger of
  /// the ε of its two orders, each integrated on its own).
  std::vector<double> pair_epsilons;
  long long worst_pair = -1;  ///< per_pair: index (into the pairs) of the largest pair ε
  bound_kind kind = bound_kind::approximation;
};

/// ε_α(t) of the last iterate at several times.
struct rdp_trajectory : solver_status {
  double alpha = NAN;
  renyi_order order = renyi_order::symmetric;
  std::vector<double> times;
  std::vector<rdp_value> values;  ///< one per time
  bound_kind kind = bound_kind::approximation;
};

/// ε_α(t) for the last iterate, LKSP25 Thm 4.3 eq. (15), at each t in `times` (each in
/// [0, horizon]). `pairs` index `data` (records in original coordinates); at least one pair.
/// termination: converged; max_iterations (some time ran out of intervals); failure (the law
/// failed, or a non-finite divergence other than +inf). ε = +inf when M_α is not positive
/// definite somewhere (α too large): a vacuous bound, not a failure.
rdp_trajectory last_iterate_rdp(const gaussian_law& law,
                                const dataset& data,
                                std::span<const record_pair> pairs,
                                std::span<const double> times,
                                double alpha,
                                const mixture_options& options = {});

/// ε_α of the release of X_{t_1..t_J}, LKSP25 Thm 4.4 eq. (21) (with the missing "+"
/// restored) and the corrected pre-s block.
rdp_value iterates_rdp(const gaussian_law& law,
                       const dataset& data,
                       std::span<const record_pair> pairs,
                       std::span<const double> times,
                       double alpha,
                       const mixture_options& options = {});

/// ε_α of the release of (1/J)Σ_j X_{t_j}, LKSP25 Thm 4.5 eq. (24), corrected.
rdp_value average_rdp(const gaussian_law& law,
                      const dataset& data,
                      std::span<const record_pair> pairs,
                      std::span<const double> times,
                      double alpha,
                      const mixture_options& options = {});

// ---- candidate pairs ---------------------------------------------------------------------------

/// All unordered pairs {i, j}, i < j < n (n(n−1)/2 of them; with renyi_order::symmetric they
/// cover every ordered pair). n ≥ 2.
std::vector<record_pair> all_pairs(long long n);

/// The released code's screen (LKSP25 Fig. 1(b)): the `count` largest-label records × the `count`
/// smallest-label records, count² pairs (largest first). 1 ≤ count ≤ n/2.
std::vector<record_pair> extreme_label_pairs(const dataset& data, long long count);

/// The exact mean-gap proxy h‖r₁a₁ − r₂a₂‖, h = γ(s)/d, r_i = b_i − a_iᵀm(s): the norm of
/// m₁(s⁺) − m₂(s⁺) (replacing LKSP25's g(θ) of Fig. 1(b), which puts 𝟏_d for m(s) and keeps
/// a spurious δI). One value per pair.
std::vector<double> mean_gap_proxy(const gaussian_law& law,
                                   const dataset& data,
                                   std::span<const record_pair> pairs,
                                   double s);

/// The `count` pairs with the largest mean_gap_proxy at s (largest first; ties by index).
std::vector<record_pair> top_pairs_by_proxy(const gaussian_law& law,
                                            const dataset& data,
                                            std::span<const record_pair> pairs,
                                            double s,
                                            long long count);

// ---- (ε, δ) ----------------------------------------------------------------------------------

/// (ε, δ) from ε_α at several orders by the best of dpkit::divergence's RDP conversions
/// (rdp_curve::at_orders + rdp_epsilon). Orders with ε_α = +inf are skipped (+inf ε if all
/// are). kind = approximation (see the file comment); δ ∈ (0, 1).
divergence::rdp_epsilon_result epsilon_delta(std::span<const double> alphas,
                                             std::span<const double> rdp_epsilons,
                                             double delta);

/// last_iterate_rdp at every order of `alphas`, then epsilon_delta at each time.
std::vector<divergence::rdp_epsilon_result> last_iterate_epsilon_delta(
    const gaussian_law& law,
    const dataset& data,
    std::span<const record_pair> pairs,
    std::span<const double> times,
    std::span<const double> alphas,
    double delta,
    const mixture_options& options = {});

}  // namespace dpkit::hsgd
