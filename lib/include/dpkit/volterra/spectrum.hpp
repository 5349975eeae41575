// dpkit/volterra/spectrum.hpp — the problem the risk equations of LKSP25 are solved for.
//
// LKSP25 (Lin, Kolaczyk, Smith, Paquette) studies one-pass noisy SGD on ridge least squares,
// f(x; a, b) = ½((aᵀx − b)² + δ‖x‖²), b = aᵀx̃ + w, through its diffusion surrogate noisy HSGD
// (LKSP25 eq. (1)). Everything the expected risks P_t = E 𝒫(X_t) and R_t = E ℛ(X_t) depend on
// is, in the eigenbasis Σ = E[a aᵀ] = Σ_i λ_i u_i u_iᵀ (docs/volterra.md):
//
//   * the dimension d (time t = k/d, kernels carry a 1/d),
//   * the ridge δ, the label-noise variance E w² and the DP noise σ,
//   * for every *eigen-group* (a set of coordinates sharing one eigenvalue λ, multiplicity k):
//       e0_sq    = Σ_{i∈group} (x0,i − x̃_i)²          (start error energy)
//       xstar_sq = Σ_{i∈group} x̃_i²                    (target energy)
//       e0_xstar = Σ_{i∈group} (x0,i − x̃_i) x̃_i        (their cross term)
//     with x0,i = u_iᵀx0 and x̃_i = u_iᵀx̃.
//
// These three sums are sufficient: the gradient-flow mean of every coordinate in a group is
// e_i(t) = φ e_{0,i} − (1 − φ)(δ/κ) x̃_i, φ = e^{−κΓ(t)}, κ = λ + δ (LKSP25 eq. (5)), so every
// quadratic statistic of the group is a combination of them, and all eigen-variances in a group
// coincide (the ODE lift, docs/volterra.md). The risk solvers cost O(#groups), not O(d).
//
// NAMING HAZARD: "xstar" here (and in the CSV column names) is x̃, the label-generating target
// of LKSP25 Assumption 2 — NOT the population ridge minimiser x⋆ = (Σ + δI)⁻¹Σx̃ of
// LKSP25 §4.1. (The column names were fixed by the file format.)
//
// Multiplicities are integers for a finite-d Σ. The density discretisation of
// marchenko_pastur() produces non-integer multiplicities (quadrature weights d/G); every solver
// accepts them. The multiplicities must sum to d.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

namespace dpkit::volterra {

/// One eigenvalue of Σ with its multiplicity and the group's start/target statistics.
struct eigen_group {
  double eigenvalue = NAN;    ///< λ ≥ 0
  double multiplicity = NAN;  ///< k > 0
  double e0_sq = 0;           ///< Σ (x0,i − x̃_i)² ≥ 0
  double xstar_sq = 0;        ///< Σ x̃_i² ≥ 0 (x̃ the target, see the naming hazard above)
  double e0_xstar = 0;        ///< Σ (x0,i − x̃_i) x̃_i; |e0_xstar| ≤ √(e0_sq·xstar_sq)
};

/// The scalar parameters of the problem (LKSP25 §2, §3).
struct problem_parameters {
  double ridge = 0;        ///< δ ≥ 0
  double label_noise = 0;  ///< E w² ≥ 0, the variance of the label noise (b = aᵀx̃ + w)
  double sigma = 0;        ///< σ ≥ 0, the DP noise scale of Algorithm 1 (g_k = ∇f + σZ_k)
};

/// The full problem: spectrum as eigen-groups, dimension and parameters.
struct problem {
  std::vector<eigen_group> groups;
  long long d = 0;         ///< dimension; Σ_g multiplicity_g = d
  double ridge = 0;        ///< δ
  double label_noise = 0;  ///< E w²
  double sigma = 0;        ///< σ
};

/// Start and target energies for the family builders, as totals over all d coordinates:
/// ‖x0 − x̃‖², ‖x̃‖² and ⟨x0 − x̃, x̃⟩. A family builder spreads each total over the groups in
/// proportion to their multiplicity — the expectation of the group sums when (x0, x̃) is
/// rotated uniformly at random (a rotation-invariant start and target). For any other
/// allocation build the groups yourself and call from_groups().
struct energies {
  double e0_sq = 0;
  double xstar_sq = 0;
  double e0_xstar = 0;
};

/// Default relative tolerance for merging numerically equal eigenvalues into one group:
/// eigenvalues within kDefaultGroupTolerance·λ_max of a group's first member join it, and
/// the group's eigenvalue is the multiplicity-weighted mean of its members (so tr Σ is kept).
/// 1e-10 is far above the backward error of Eigen's SelfAdjointEigenSolver
/// (≈ d·ε·‖Σ‖ ≈ 2e-13‖Σ‖ at d = 1000) and far below any spectral gap that matters to P_t.
inline constexpr double kDefaultGroupTolerance = 1e-10;

/// Checks every field (throws std::domain_error in the check_* vocabulary, naming
/// `function` and the offending field, e.g. "groups[3].multiplicity"):
/// d ≥ 1; ridge, label_noise, sigma finite and ≥ 0; at least one group; per group λ finite
/// and ≥ 0, multiplicity finite and > 0, e0_sq and xstar_sq finite and ≥ 0, e0_xstar finite
/// with e0_xstar² ≤ e0_sq·xstar_sq (Cauchy–Schwarz, up to a relative 1e-12); Σ multiplicity = d
/// to a relative 1e-12.
void validate(const problem& p, std::string_view function = "volterra::validate");

/// A problem from explicit groups (kept in the given order); validated.
problem from_groups(std::vector<eigen_group> groups, long long d, const problem_parameters& params);

/// A problem from per-coordinate eigen-data: eigenvalues λ_i and the coordinates x0,i = u_iᵀx0,
/// x̃_i = u_iᵀx̃ in the eigenbasis (all three of length d). Equal eigenvalues (within
/// group_tolerance·λ_max) are merged; groups come out in decreasing eigenvalue order.
problem from_eigenvalues(std::span<const double> eigenvalues,
                         std::span<const double> x0,
                         std::span<const double> xtilde,
                         const problem_parameters& params,
                         double group_tolerance = kDefaultGroupTolerance);

/// A problem from the second-moment matrix Σ = E[a aᵀ] (symmetric positive semidefinite, d×d)
/// and x0, x̃ in the original basis: Eigen::SelfAdjointEigenSolver, projection of x0 − x̃ and x̃
/// onto the eigenvectors, then grouping as from_eigenvalues. Symmetry is checked to a relative
/// 1e-12 of max|Σ_ij|; eigenvalues in [−group_tolerance·λ_max, 0) are rounding and set to 0,
/// more negative ones are rejected. Within a degenerate eigenspace the eigenvectors are
/// arbitrary, but the group sums are invariant under rotations of it. Cost O(d³).
problem from_covariance(const Eigen::MatrixXd& sigma_matrix,
                        const Eigen::VectorXd& x0,
                        const Eigen::VectorXd& xtilde,
                        const problem_parameters& params,
                        double group_tolerance = kDefaultGroupTolerance);

/// Σ = λ I_d: one group of multiplicity d (derived in docs/volterra.md).
problem isotropic(long long d, double lambda, const energies& e, const problem_parameters& params);

/// Σ = λ_b I + Σ_j (θ_j − λ_b) v_j v_jᵀ with orthonormal v_j: one group per spike eigenvalue θ_j
/// (multiplicity 1; equal spikes are merged) and a bulk group λ_b of multiplicity d − #spikes
/// (omitted when empty). Needs #spikes ≤ d. Energies spread by multiplicity.
problem spiked(long long d,
               double lambda_bulk,
               std::span<const double> spikes,
               const energies& e,
               const problem_parameters& params);

/// Σ = λ_b I + (λ_1 − λ_b) u uᵀ with u = 𝟏/√d (docs/volterra.md): eigenvalue λ_1 along u
/// (multiplicity 1) and λ_b on 𝟏^⊥ (multiplicity d − 1), with x0, x̃ given in the original
/// basis (length d). The group sums are computed in O(d) without cancellation: the spike
/// group from uᵀ(x0 − x̃) and uᵀx̃, the bulk from the residuals v − (uᵀv)u.
problem two_level(long long d,
                  double lambda_bulk,
                  double lambda_spike,
                  std::span<const double> x0,
                  std::span<const double> xtilde,
                  const problem_parameters& params);

/// The design of LKSP25 §5: a_ij iid U(0, 1/√d) has E a_ij = 1/(2√d), E a_ij² = 1/(3d), so
/// Σ = E[a aᵀ] = I/(12d) + 𝟏𝟏ᵀ/(4d) — NOT the covariance I/(12d) that the
/// released code uses (docs/findings.md). Exact eigen-structure: λ_1 = 1/4 + 1/(12d) along
/// 𝟏/√d (multiplicity 1) and λ_b = 1/(12d) with multiplicity d − 1. two_level() with those.
problem lksp25_design(long long d,
                       std::span<const double> x0,
                       std::span<const double> xtilde,
                       const problem_parameters& params);

/// Which Σ lksp25_experiment uses: the design's E[a aᵀ] or the released code's I/(12d).
enum class lksp25_sigma { design, code };

/// The start and target of LKSP25 §5 (as its released code draws them), in the original basis: x̃
/// iid U(0, 1/√d), then x0 ~ N(0, s²I) (s = x0_scale), drawn in that order from the counter-based
/// stream (seed, 0, stream).
struct lksp25_vectors {
  Eigen::VectorXd x0, xtilde;
};
lksp25_vectors lksp25_start(long long d,
                              double x0_scale,
                              std::uint64_t seed,
                              std::uint64_t stream = 0);

/// LKSP25 §5's problem instance: x̃ iid U(0, 1/√d) and then x0 ~ N(0, s²I)
/// (s = x0_scale: 2 in the released code, 1 in the paper), drawn from the counter-based stream
/// (seed, 0, 0) in that order, with Σ = lksp25_design's (design) or I/(12d) (code;
/// docs/findings.md). The draws are dpkit's, not numpy's: the instance is the paper's in law, not
/// bit for bit.
problem lksp25_experiment(long long d,
                           lksp25_sigma which,
                           double x0_scale,
                           std::uint64_t seed,
                           const problem_parameters& params);

/// Power law λ_j = c·j^{−exponent}, j = 1..d, scaled so that tr Σ = trace (c = trace/Σ_j
/// j^{−exponent}); one group per j (multiplicity 1). Needs exponent ≥ 0 (0 is isotropic and
/// gives one group) and trace > 0. Energies spread by multiplicity. (The stiff benchmarks of
/// docs/performance.md use exponent 1/2 and 3/2 with trace 1.)
problem power_law(long long d,
                  double exponent,
                  double trace,
                  const energies& e,
                  const problem_parameters& params);

/// Marchenko–Pastur spectrum with ratio c = d/n > 0 and scale s² > 0 (the limit law of the
/// eigenvalues of (1/n) Σ_k a_k a_kᵀ, a_k ~ N(0, s² I_d)): density
/// √((b − x)(x − a))/(2π s² c x) on [a, b] = [s²(1 − √c)², s²(1 + √c)²], plus an atom of mass
/// 1 − 1/c at 0 when c > 1.
///
/// Quantile discretisation into `groups` groups: [0, 1] is cut into G equal probability bins
/// and group j gets multiplicity d/G (a quadrature weight, not an integer in general) and the
/// *mean* eigenvalue of its bin, G·∫_{bin} x dF(x). The conditional mean keeps the first
/// moment exactly (tr Σ = d·s²) and is a consistent discretisation of the spectral measure;
/// higher moments (and so the kernel sums (1/d)Σ k λ^p(…) of the risk equations) converge at
/// O(1/G²) for c ≤ 1 (measured relative error of the second moment: 7.2e-5, 1.9e-5, 4.7e-6 at
/// G = 100, 200, 400 for c = 0.5) and slower for c > 1, where one bin straddles the atom
/// (2.0e-4 at G = 200 for c = 3, ≈ G^{-1.5}). Bins come from the closed-form CDF
/// (marchenko_pastur_cdf) by TOMS 748, bin means from the closed-form first moment (see
/// spectrum.cpp). Groups of equal eigenvalue (bins inside the atom at 0) are merged.
/// Energies spread by multiplicity.
problem marchenko_pastur(long long d,
                         double ratio,
                         double scale,
                         long long groups,
                         const energies& e,
                         const problem_parameters& params);

/// F(x) = P(λ ≤ x) of the Marchenko–Pastur law above (including the atom at 0 for c > 1), in
/// closed form (spectrum.cpp derives it). Needs ratio > 0, scale > 0, x not NaN.
double marchenko_pastur_cdf(double x, double ratio, double scale);

/// tr Σ = Σ_g k_g λ_g.
double trace(const problem& p);

/// Writes the problem as CSV (core/csv.hpp format):
///
///   # what: dpkit volterra problem: spectrum of Sigma ... as eigen-groups   ← comment lines
///   # d: 1000
///   # ridge: 0.1
///   # label_noise: 1e-05
///   # sigma: 1.5
///   eigenvalue,multiplicity,e0_sq,xstar_sq,e0_xstar
///   0.25008333333333332,1,...
///
/// The table's numbers are written as every dpkit CSV writes them (core/csv.hpp csv_number:
/// 17 significant digits), the header values d, ridge, label_noise and sigma as the shortest
/// text that reads back exactly; either way a round trip is bit-identical. Validates first.
void write_problem_csv(const problem& p, std::ostream& out);
void write_problem_csv(const problem& p, const std::filesystem::path& path);

/// Reads what write_problem_csv writes. File-format errors (cannot open, a missing header key
/// or column, a cell that is not a number, d not an integer) throw std::runtime_error naming
/// the file; values outside their domain throw std::domain_error from validate().
problem read_problem_csv(const std::filesystem::path& path);

/// Values for the header lines a spectrum file may lack (a file written by hand, or by another
/// tool): d defaults to the sum of the multiplicities; ridge, label_noise and sigma to these,
/// when given (a missing key without a default is a file-format error).
struct problem_file_defaults {
  std::optional<double> ridge, label_noise, sigma;
};
problem read_problem_csv(const std::filesystem::path& path, const problem_file_defaults& defaults);

}  // namespace dpkit::volterra
