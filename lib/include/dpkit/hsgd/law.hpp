// dpkit/hsgd/law.hpp — the Gaussian law of linearised noisy HSGD (LKSP25 eqs. (9)–(10)).
//
// LKSP25 §4.2 replaces 𝒫(X_t) in the diffusion coefficient of noisy HSGD (LKSP25 eq. (1)) by
// its expectation P_t (Thm 4.2), which gives the linear SDE
//
//   dX_t = −γ(t)∇ℛ(X_t) dt + γ(t) Q(t)^{1/2} dB_t,   Q(t) = (2P_t Σ + σ² I_d)/d,    (LKSP25 (9))
//
// with Gaussian law X_t ~ N(m(t), V(t)), X_0 = x0 deterministic (LKSP25 eq. (10)). In the
// eigenbasis Σ = U diag(λ) Uᵀ everything is diagonal (docs/hsgd.md):
//
//   m_k(t) = x⋆_k + e^{−κ_k Γ(t)} (x0_k − x⋆_k),   x⋆ = (Σ + δI)⁻¹Σ x̃,  κ_k = λ_k + δ,
//   V(t)   = U diag(w(t)) Uᵀ,   ẇ_k = −2γκ_k w_k + (γ²/d)(2λ_k P_t + σ²),  w_k(0) = 0,
//
// Γ(t) = ∫_0^t γ. The eigen-variances w_k are the ODE lift of the Volterra risk equation
// (docs/volterra.md): one solve of dpkit::volterra serves both the risk and this law. Mean and
// covariance of (10) equal the first two moments of the *nonlinear* HSGD (1) exactly
// (docs/hsgd.md); only the higher moments differ.
//
// Construction solves the risk ODE once (volterra::solve_risk, storing the per-group variances)
// on a time grid over [0, horizon] and keeps w_g on that grid. Between grid nodes w_g(t) is the
// cubic Hermite interpolant whose end slopes are the ODE right-hand side evaluated from the
// solved (w, P) — fourth order in the step. The grid is the union of a uniform grid, a grid
// graded geometrically from t = 0 and from every jump of γ (where the fastest eigen-variances
// relax on the scale 1/(2γκ_max)), and the schedule's breakpoints; the nodes and the midpoints
// are solved, and the midpoints interpolated from the nodes alone give interpolation_error(),
// an honest (≈ 16× pessimistic) estimate of the interpolation error of the kept grid.
//
// Coordinates: `gaussian_law` works in eigen-coordinates (no hats).
// `eigenbasis` maps original coordinates to eigen-coordinates; Rényi divergences are invariant
// under this orthogonal map, so the privacy module only ever rotates the data records.
// Coordinates whose eigenvalues agree within a relative group_tolerance form one eigen-group
// (as in volterra::from_eigenvalues) and share the group's eigenvalue (the members' mean), so
// the law is exactly that of Σ with those eigenvalues snapped together.
//
// Failure model: construction throws std::domain_error on bad input (core/check.hpp). A risk
// solve that does not converge does not throw: status() carries its termination and message,
// and every privacy result computed from the law inherits it.
#pragma once

#include <Eigen/Core>
#include <cmath>
#include <span>
#include <vector>

#include "dpkit/core/result.hpp"
#include "dpkit/volterra/schedule.hpp"
#include "dpkit/volterra/spectrum.hpp"

namespace dpkit::hsgd {

/// An orthonormal eigenbasis U of Σ (Σ = U diag(λ) Uᵀ), applied without forming U where the
/// structure allows it.
class eigenbasis {
 public:
  enum class kind {
    identity,  ///< U = I: Σ is diagonal in the given coordinates. O(d) per vector.
    dense,     ///< U stored explicitly (d×d). O(d²) per vector.
    householder,  ///< U = H = I − 2vvᵀ/(vᵀv), a reflection with H e₁ = ±u/‖u‖ (docs/hsgd.md:
                  ///< Σ = λ_b I + (λ_1 − λ_b)ûûᵀ is diagonal in it). O(d) per vector.
  };

  /// U = I_d; d ≥ 1.
  static eigenbasis identity(long long d);
  /// U = `vectors` (columns = eigenvectors). Square, finite, orthonormal to 1e-10 (max
  /// |UᵀU − I|), else std::domain_error.
  static eigenbasis dense(Eigen::MatrixXd vectors);
  /// The Householder reflection whose first column is ±u/‖u‖ (u finite, nonzero); its other
  /// columns are an orthonormal basis of u^⊥. H is symmetric, so Uᵀx = Ux = Hx.
  static eigenbasis householder(const Eigen::VectorXd& u);

  [[nodiscard]] kind type() const { return kind_; }
  [[nodiscard]] long long dimension() const { return d_; }
  /// Uᵀx: original → eigen-coordinates. x.size() must be d.
  [[nodiscard]] Eigen::VectorXd to_eigen(const Eigen::Ref<const Eigen::VectorXd>& x) const;
  /// Uy: eigen → original coordinates. y.size() must be d.
  [[nodiscard]] Eigen::VectorXd from_eigen(const Eigen::Ref<const Eigen::VectorXd>& y) const;
  /// U as a dense d×d matrix (O(d²) memory; for tests and small d).
  [[nodiscard]] Eigen::MatrixXd matrix() const;

 private:
  eigenbasis() = default;
  kind kind_ = kind::identity;
  long long d_ = 0;
  Eigen::MatrixXd u_;  // dense: U
  Eigen::VectorXd v_;  // householder: v, with beta_ = 2/(vᵀv)
  double beta_ = 0;
};

/// How the law is computed (see the file comment).
struct law_options {
  /// Intervals of the uniform grid on [0, horizon]; the graded grids from t = 0 and from each
  /// jump of γ have half as many. All are then halved (midpoints). Default 1024.
  long long grid_intervals = 1024;
  /// Relative tolerance handed to volterra::solve_risk. Default 1e-10.
  double relative_tolerance = 1e-10;
  /// Relative tolerance for merging eigenvalues into groups (volterra::kDefaultGroupTolerance).
  double group_tolerance = volterra::kDefaultGroupTolerance;
};

/// N(m(t), V(t)) of the linearised HSGD (LKSP25 eq. (10)) for t ∈ [0, horizon].
class gaussian_law {
 public:
  /// Σ = U diag(eigenvalues) Uᵀ with U = `basis`; x0 and x̃ (`xtilde`, the label-generating
  /// target of LKSP25 Assumption 2) in ORIGINAL coordinates. params: δ = ridge, E w² =
  /// label_noise, σ (all ≥ 0); eigenvalues finite and ≥ 0; horizon T > 0 (the training horizon
  /// n/d; times outside [0, T] are rejected later). Throws std::domain_error on bad input.
  gaussian_law(eigenbasis basis,
               std::span<const double> eigenvalues,
               const Eigen::VectorXd& x0,
               const Eigen::VectorXd& xtilde,
               const volterra::problem_parameters& params,
               const volterra::schedule& gamma,
               double horizon,
               const law_options& options = {});

  /// Σ given as a dense symmetric PSD matrix (original coordinates): eigendecomposition by
  /// Eigen::SelfAdjointEigenSolver (O(d³)), dense basis. Symmetry to 1e-12 relative;
  /// eigenvalues in [−group_tolerance·λ_max, 0) are rounding and set to 0.
  static gaussian_law from_covariance(const Eigen::MatrixXd& sigma_matrix,
                                      const Eigen::VectorXd& x0,
                                      const Eigen::VectorXd& xtilde,
                                      const volterra::problem_parameters& params,
                                      const volterra::schedule& gamma,
                                      double horizon,
                                      const law_options& options = {});

  /// Σ = λ_b I + (λ_1 − λ_b) uuᵀ with u = 𝟏/√d (docs/hsgd.md): Householder basis,
  /// O(d) per rotation, no eigendecomposition. λ_b, λ_1 ≥ 0; d ≥ 2.
  static gaussian_law two_level(long long d,
                                double lambda_bulk,
                                double lambda_spike,
                                const Eigen::VectorXd& x0,
                                const Eigen::VectorXd& xtilde,
                                const volterra::problem_parameters& params,
                                const volterra::schedule& gamma,
                                double horizon,
                                const law_options& options = {});

  /// The LKSP25 §5 design a_ij ~ U(0, 1/√d): Σ = E[aaᵀ] = I/(12d) + 𝟏𝟏ᵀ/(4d),
  /// i.e. two_level(d, 1/(12d), 1/4 + 1/(12d), ...). (The released code uses the
  /// covariance I/(12d) instead, docs/findings.md: build that with the identity basis.)
  static gaussian_law lksp25_design(const Eigen::VectorXd& x0,
                                     const Eigen::VectorXd& xtilde,
                                     const volterra::problem_parameters& params,
                                     const volterra::schedule& gamma,
                                     double horizon,
                                     const law_options& options = {});

  // ---- the model ------------------------------------------------------------------------------
  [[nodiscard]] long long dimension() const { return d_; }
  [[nodiscard]] double horizon() const { return horizon_; }
  [[nodiscard]] const eigenbasis& basis() const { return basis_; }
  [[nodiscard]] const volterra::schedule& schedule() const { return gamma_; }
  /// The eigen-groups as dpkit::volterra sees them (groups in decreasing eigenvalue order).
  [[nodiscard]] const volterra::problem& problem() const { return problem_; }
  [[nodiscard]] std::size_t group_count() const { return problem_.groups.size(); }
  /// Group index of each eigen-coordinate (length d).
  [[nodiscard]] const std::vector<int>& group_of() const { return group_of_; }
  /// λ_g and κ_g = λ_g + δ of group g.
  [[nodiscard]] double eigenvalue(std::size_t g) const { return problem_.groups[g].eigenvalue; }
  [[nodiscard]] double kappa(std::size_t g) const { return kappa_[g]; }
  /// x0 and the ridge minimiser x⋆ = (Σ + δI)⁻¹Σx̃ in eigen-coordinates (x⋆_k = 0 where κ = 0).
  [[nodiscard]] const Eigen::VectorXd& x0() const { return x0_; }
  [[nodiscard]] const Eigen::VectorXd& xstar() const { return xstar_; }

  // ---- diagnostics -----------------------------------------------------------------------------
  /// The risk solve's termination and message (plus a note when the grid is coarse).
  [[nodiscard]] const solver_status& status() const { return status_; }
  /// max over groups and midpoints of |Hermite(w_g) − w_g| / max_t w_g on the grid before
  /// halving (see the file comment); the kept grid is ≈ 16× more accurate.
  [[nodiscard]] double interpolation_error() const { return interpolation_error_; }
  /// The time grid the variances are kept on.
  [[nodiscard]] const std::vector<double>& grid() const { return grid_; }

  // ---- the law at time t ∈ [0, horizon] --------------------------------------------------------
  /// Γ(t) = ∫_0^t γ.
  [[nodiscard]] double Gamma(double t) const;
  /// P_t = E 𝒫(X_t) (LKSP25 eq. (6)) = 𝒫(X^gf_Γ(t)) + ½Σ_g k_g λ_g w_g(t).
  [[nodiscard]] double P(double t) const;
  /// w_g(t) for every group into `out` (size group_count()); no allocation.
  void group_variances(double t, std::span<double> out) const;
  /// The diagonal of V(t) in eigen-coordinates: w_{g(k)}(t), length d.
  [[nodiscard]] Eigen::VectorXd variances(double t) const;
  /// m(t) in eigen-coordinates (LKSP25 eq. (10): the gradient-flow mean).
  [[nodiscard]] Eigen::VectorXd mean(double t) const;
  /// e^{−κ_g Γ(t)} for every group into `out`; no allocation.
  void group_decay(double t, std::span<double> out) const;

 private:
  void build(const law_options& options);
  [[nodiscard]] std::size_t locate(double t) const;  // grid interval [grid_[i], grid_[i+1]]
  void check_time(const char* fn, double t) const;

  eigenbasis basis_;
  volterra::schedule gamma_;
  volterra::problem problem_;
  double horizon_ = 0;
  long long d_ = 0;
  std::vector<int> group_of_;
  std::vector<double> kappa_;
  Eigen::VectorXd x0_, xstar_;
  std::vector<double> grid_;                    // time nodes
  std::vector<double> w_;                       // w_g(grid_[i]) at [i·r + g]
  std::vector<double> P_;                       // P at the nodes
  std::vector<double> rate_right_, rate_left_;  // γ(t_i), γ(t_i⁻)
  solver_status status_;
  double interpolation_error_ = NAN;
};

}  // namespace dpkit::hsgd
