#pragma once
// SWX+23 Part I / II (§§3–5, Algorithms 1–9): differentially private learning
// of generalized linear models (GLMs) y ≈ σ(⟨w*, x⟩) through the convex surrogate
//
//   ℓ(w; x, y) = ∫_0^{⟨w,x⟩} (σ(z) − y) dz,   ∇ℓ = (σ(⟨w,x⟩) − y) x     (SWX+23 eq. (2)),
//
// the population laws that the theorems are about, the Moreau-envelope machinery of §4.1.2, and
// the private algorithms (phased SGD with output perturbation, its Johnson–Lindenstrauss (JL)
// variant, the Moreau-smoothed versions, DP projected GD for ReLU, adaptive DP batched GD for
// agnostic ReLU regression, and the kernelised variant for two-layer networks).
//
// Every algorithm returns, besides its output, what a privacy report needs: the Gaussian noise
// std and the ℓ₂ sensitivity of each release as the paper's proofs compute them, the noise
// multiplier z = min over releases of std/sensitivity, and how many releases one person's
// record enters (gaussian_release_privacy). The caller turns that into (ε, δ) with an
// accountant (e.g. exact Gaussian DP, μ = √compositions / z); nothing here knows a bound
// (docs/architecture.md: sim never includes a bound module).
//
// Randomness (core/random.hpp): an algorithm given random_key{seed, replicate, stream_base}
// draws its output/gradient noise from stream stream_base + 3 and its JL matrix from stream
// stream_base + 5, each in a documented order, so a run is a pure function of its key.
// Noise-off runs (add_noise = false) draw nothing from the noise stream.
//
// Data layout: a dataset (dataset.hpp) with row i = x_iᵀ and labels y_i. The phased algorithms
// use the records in their stored order: phase 1 takes rows 0 … n_1−1, phase 2 the next n_2, …
// (the data are i.i.d., so this is the paper's "partition D into disjoint D_1, …, D_k").
#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "dpkit/core/random.hpp"
#include "dpkit/learners/engine.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/dataset.hpp"
#include "dpkit/sim/model.hpp"

namespace dpkit::learners {

// =============================================================================================
// Links (Assumption 1, §1.4) and the surrogate loss
// =============================================================================================

/// The link σ: sigmoid 1/(1 + e^{−a}) (range (0, 1)), tanh (range (−1, 1)), ReLU max{0, a}.
enum class glm_link { sigmoid, tanh, relu };
/// "sigmoid", "tanh" or "relu".
const char* to_string(glm_link link);

/// σ(a), accurate in both tails. Any finite a (NaN propagates).
double link_value(glm_link link, double a);
/// σ′(a): sigmoid σ(1 − σ) (through e^{−|a|}), tanh 1 − tanh², ReLU 1{a > 0} (the subgradient
/// 0 at a = 0).
double link_derivative(glm_link link, double a);
/// Λ(a) = ∫_0^a σ(z) dz in closed form, computed stably:
///   sigmoid log(1 + e^a) − log 2 = max(a, 0) + log1p(e^{−|a|}) − log 2,
///   tanh    log cosh a = |a| + log1p(e^{−2|a|}) − log 2,
///   ReLU    ½ max{0, a}².
double link_integral(glm_link link, double a);
/// B: the range bound sup|σ| of Assumption 1 (sigmoid 1, tanh 1); +∞ for ReLU (unbounded).
double link_range_bound(glm_link link);
/// G: the Lipschitz constant of σ (sigmoid 1/4, tanh 1, ReLU 1).
double link_lipschitz(glm_link link);

/// The scalar surrogate g^y(a) = ∫_0^a (σ(z) − y) dz = Λ(a) − y·a (SWX+23 eq. (2):
/// g^y(⟨x, w⟩) = ℓ(w; x, y)).
double surrogate_loss(glm_link link, double a, double y);
/// (g^y)′(a) = σ(a) − y.
double surrogate_derivative(glm_link link, double a, double y);
/// ℓ(w; x, y) = g^y(⟨w, x⟩). Throws std::domain_error if w.size() ≠ x.size().
double surrogate_loss(glm_link link, const_vector_ref w, const_vector_ref x, double y);
/// g ← ∇ℓ(w; x, y) = (σ(⟨w, x⟩) − y) x (SWX+23 eq. (2)). Sizes must agree (throws).
void surrogate_gradient(
    glm_link link, const_vector_ref w, const_vector_ref x, double y, vector_ref g);

/// The surrogate as a simulator model (model.hpp): f_i(w) = ℓ(w; x_i, y_i), Hessian-vector
/// product σ′(⟨w, x_i⟩) x_i x_iᵀ v (Lemma 2: rank one). Plugs the surrogate into
/// run_noisy_gradient. Throws std::domain_error if check_dataset fails.
class glm_surrogate final : public model {
 public:
  glm_surrogate(std::shared_ptr<const dataset> data, glm_link link);
  std::size_t dimension() const override { return data_->dimension(); }
  std::size_t examples() const override { return data_->size(); }
  double loss(std::size_t i, const_vector_ref w) const override;
  void gradient(std::size_t i, const_vector_ref w, vector_ref g) const override;
  bool has_hessian_vector() const override { return true; }
  void hessian_vector(std::size_t i,
                      const_vector_ref w,
                      const_vector_ref v,
                      vector_ref out) const override;
  /// "GLM surrogate (sigmoid link, n = 100, d = 10)".
  std::string describe() const override;
  glm_link link() const { return link_; }

 private:
  std::shared_ptr<const dataset> data_;
  glm_link link_;
};

// =============================================================================================
// Data: designs of rank θ, teachers (label laws), populations
// =============================================================================================

/// The law of z ∈ R^θ before embedding (x = P z):
///   unit_sphere     z uniform on the unit sphere S^{θ−1}         (‖x‖ = 1),
///   unit_ball       z uniform in the unit ball                    (‖x‖ ≤ 1),
///   gaussian        z ~ N(0, I_θ)   (isotropic log-concave, unbounded; Assumption 2 / §1.5),
///   isotropic_ball  z uniform in the ball of radius √(θ + 2)     (E zzᵀ = I_θ, bounded
///                   isotropic log-concave; dpkit's choice, docs/nonconvex.md).
enum class glm_design_law { unit_sphere, unit_ball, gaussian, isotropic_ball };
const char* to_string(glm_design_law law);

/// A design x = P z ∈ R^d of rank θ: P is d×θ with orthonormal columns, z has law `law`. The
/// data rank of §1.2 is then θ for every n ≥ θ (almost surely), whatever d is.
struct glm_design {
  std::size_t dimension = 1;  ///< d
  std::size_t rank = 1;       ///< θ ≤ d
  glm_design_law law = glm_design_law::unit_sphere;
  /// P (d×θ, orthonormal columns); empty means the first θ coordinate axes (x = (z, 0)).
  Eigen::MatrixXd basis;

  /// The first θ coordinate axes. Throws std::domain_error unless 1 ≤ θ ≤ d.
  static glm_design coordinate(std::size_t d, std::size_t theta, glm_design_law law);
  /// A uniformly random θ-dim subspace: P = the first θ columns of random_orthogonal(d, stream)
  /// (data.hpp). Throws std::domain_error unless 1 ≤ θ ≤ d.
  static glm_design random_subspace(std::size_t d,
                                    std::size_t theta,
                                    glm_design_law law,
                                    random_stream& stream);

  /// sup ‖x‖: 1 (sphere, ball), √(θ + 2) (isotropic ball), +∞ (gaussian).
  double max_norm() const;
  /// n×d matrix of i.i.d. rows. Draw order per row: θ normals g; then, for unit_ball and
  /// isotropic_ball, one uniform U; z = g/‖g‖ (sphere), U^{1/θ} g/‖g‖ (ball; times √(θ + 2)
  /// for the isotropic ball), g (gaussian). Rows of the sphere/ball laws are scaled back by a
  /// few ulp where rounding leaves ‖x‖ above its bound. Throws std::domain_error if n = 0 or
  /// the design is invalid (θ = 0, θ > d, basis not d×θ).
  Eigen::MatrixXd sample(std::size_t n, random_stream& stream) const;
};

/// How labels are drawn given b = ⟨w*, x⟩ (one uniform u per example, whatever the law, so
/// streams stay aligned across settings):
///   binary   sigmoid: y ∈ {0, 1}, P(y = 1) = σ(b) (y = 1 iff u < σ(b));
///            tanh: y ∈ {−1, +1}, P(y = 1) = (1 + tanh b)/2 (so E[y|x] = tanh b);
///            not defined for ReLU (throws);
///   uniform  y = σ(b) + h(2u − 1): additive noise uniform on [−h, h], h = noise_scale
///            (bounded, symmetric: E[ζ|x] = 0, |y| ≤ sup|σ(b)| + h);
///   none     y = σ(b) (u is still drawn).
/// Afterwards y ← clamp(y, −clamp, clamp) when clamp is finite. Clamping makes E[y|x] ≠ σ(b)
/// in general: that is the misspecified (agnostic) model of §1.5 (opt > 0); with clamp = +∞
/// the model is well specified, model (1): E[y|x] = σ(⟨w*, x⟩).
enum class glm_label_noise { binary, uniform, none };
const char* to_string(glm_label_noise noise);

/// The conditional law of y given x, through b = ⟨w*, x⟩ only.
/// The largest teacher norm ‖w*‖ (and label noise scale h) the GLM populations take: the
/// labels ⟨w*, x⟩ and their squares enter every risk and sensitivity, and beyond ~1e154 the
/// squares overflow (a probe's --w-norm 1e308 gave labels of inf).
inline constexpr double kLargestTeacherNorm = 1e150;  // messages spell it 1e150

struct glm_teacher {
  glm_link link = glm_link::sigmoid;  ///< the teacher's σ (may differ from the learner's link)
  vector w_star;                      ///< w* ∈ R^d
  glm_label_noise noise = glm_label_noise::binary;
  double noise_scale = 0;  ///< h for uniform noise
  double clamp = std::numeric_limits<double>::infinity();

  /// E[y | b] in closed form (binary: σ(b); uniform with clamp c: (F(σ+h) − F(σ−h))/(2h) with
  /// F(t) = ∫_0^t clamp_c(s) ds; none: clamp_c(σ(b))).
  double conditional_mean(double b) const;
  /// Var[y | b] in closed form (binary sigmoid σ(1 − σ), tanh 1 − tanh²; uniform h²/3 before
  /// clamping, with clamping from ∫ clamp_c(s)² ds; none 0).
  double conditional_variance(double b) const;
  /// One label (one uniform from `stream`, see glm_label_noise).
  double draw(double b, random_stream& stream) const;
  /// Whether E[y|x] = σ(⟨w*, x⟩) exactly (clamp infinite, or never active: clamp ≥ sup|y|).
  bool well_specified() const;
  /// Throws std::domain_error if the teacher is invalid: empty or non-finite w*, ‖w*‖ above
  /// kLargestTeacherNorm (argument "teacher.|w_star|"), h negative or above that norm, NaN or
  /// non-positive clamp, binary noise with a ReLU link.
  void validate(const char* function) const;
};

/// Labels y_i = teacher.draw(⟨w*, x_i⟩) for the rows of `features` (one uniform per row, in
/// row order). Throws std::domain_error if w*.size() ≠ features.cols() or teacher.validate
/// fails.
Eigen::VectorXd glm_labels(const Eigen::Ref<const Eigen::MatrixXd>& features,
                           const glm_teacher& teacher,
                           random_stream& stream);

/// A Monte Carlo (or exact) value: `value` ± `standard_error` from `samples` draws
/// (standard_error = 0 and exact = true for closed forms / quadrature).
struct mc_estimate {
  double value = 0;
  double standard_error = 0;
  std::size_t samples = 0;
  bool exact = false;
};

/// A population 𝒫: x ~ design, y | x ~ teacher. Its risks are computed from the exact law of
/// the pair (a, b) = (⟨w, x⟩, ⟨w*, x⟩), a two-dimensional projection of z that is drawn exactly
/// in O(1) per sample (sphere: polar radius r² ~ Beta(1, (θ − 2)/2) for θ ≥ 3, r = 1 for
/// θ = 2, z = ±1 for θ = 1; ball: r² ~ Beta(1, θ/2); gaussian: N(0, I₂); angle uniform), and
/// the expectation over y given x is taken in closed form (Rao–Blackwellised): only x is
/// sampled. So one sample costs O(1), independent of d.
struct glm_population {
  glm_design design;
  glm_teacher teacher;

  /// n i.i.d. pairs: features from `features_stream` (glm_design::sample), then labels from
  /// `labels_stream` (glm_labels). Throws std::domain_error if n = 0 or the sizes disagree.
  dataset sample(std::size_t n, random_stream& features_stream, random_stream& labels_stream) const;

  /// L_𝒫(w) = E(σ(⟨w, x⟩) − y)² for the learner's link (SWX+23 §4.1.1):
  /// E_x[(σ(a) − E[y|b])² + Var(y|b)].
  mc_estimate risk(glm_link link,
                   const_vector_ref w,
                   std::size_t samples,
                   random_stream& stream) const;
  /// E_x[(σ(⟨w, x⟩) − E[y|x])²] = L_𝒫(w) − L_𝒫(E[y|·]) (excess over the Bayes regressor). In the
  /// well-specified model with link = teacher.link this is L_𝒫(w) − L_𝒫(w*) (the excess-risk
  /// identity of SWX+23 §4.1.1).
  mc_estimate excess_risk(glm_link link,
                          const_vector_ref w,
                          std::size_t samples,
                          random_stream& stream) const;
  /// L^ℓ_𝒫(w) = E[ℓ(w; x, y)] = E_x[Λ(a) − E[y|b]·a] (E_y in closed form).
  mc_estimate surrogate_risk(glm_link link,
                             const_vector_ref w,
                             std::size_t samples,
                             random_stream& stream) const;
  /// L^ℓ_𝒫(w) − L^ℓ_𝒫(w*) = E_x[Λ(a) − Λ(b) − E[y|b](a − b)] on common draws (the w* of the
  /// teacher). For the well-specified model this is an expected Bregman divergence ≥ 0 and
  /// Lemma 3 reads excess_risk ≤ 2G · surrogate_excess_risk, pointwise in x.
  mc_estimate surrogate_excess_risk(glm_link link,
                                    const_vector_ref w,
                                    std::size_t samples,
                                    random_stream& stream) const;
  /// E[y x] by one-dimensional quadrature (exact to ~1e-10): E[y x] = E[m(b) z-part] =
  /// (E[m(b) b]/‖v‖²) P v with v = Pᵀw* and m = E[y|b] (the component of z orthogonal to v
  /// is independent of b for the rotation-invariant laws of z; mean zero). Supported for the
  /// four laws: z₁ = ⟨z, v/‖v‖⟩ is N(0, 1) (gaussian) or has density ∝ (1 − t²)^{(θ−3)/2}
  /// (sphere; ±1 for θ = 1) or ∝ (1 − t²)^{(θ−1)/2} (ball, scaled by √(θ + 2) for the
  /// isotropic ball) on [−1, 1], integrated by tanh-sinh. For x ~ N(0, I_d) and a ReLU
  /// learner, w*_ℓ = argmin L^ℓ_𝒫 = 2 E[y x] (SWX+23 §4.2, χ^{σw} = w/2).
  vector label_correlation() const;
};

// =============================================================================================
// Moreau envelope of g^y (SWX+23 §4.1.2) and the gradient oracle 𝒪_{β,γ} (Algorithm 4)
// =============================================================================================

/// prox^β_{g^y}(m) = argmin_u g^y(u) + (β/2)(u − m)² on 𝓜 = R: the root of
/// σ(u) − y + β(u − m) = 0 (strictly increasing in u: the prox objective is β-strongly convex),
/// bracketed in [m − |σ − y|_max/β, m + |σ − y|_max/β] and solved by TOMS 748 to full double
/// precision (sigmoid, tanh); closed form for ReLU (u = m + y/β if that is ≤ 0, else
/// (y + βm)/(1 + β)). Throws std::domain_error if β ≤ 0 or m, y are not finite.
double moreau_prox(glm_link link, double y, double beta, double m);
/// g^y_β(m) = g^y(p) + (β/2)(p − m)², p = moreau_prox (Lemma 4's ℓ_β).
double moreau_envelope(glm_link link, double y, double beta, double m);
/// (g^y_β)′(m) = β(m − prox(m)) (Lemma 4(b): ℓ_β′(x) = β[x − prox(x)]).
double moreau_derivative(glm_link link, double y, double beta, double m);

/// Algorithm 4 on the scalar m = ⟨w, x⟩ (SWX+23 Alg 4, its typos fixed as docs/findings.md lists
/// them): 𝒬 = [m − 4B/β, m + 4B/β], T_o = ⌈144B²/γ²⌉, u_1 = m, u_{t+1} = Π_𝒬(u_t − η_t(σ(u_t) − y +
/// β(u_t − m))), η_t = 2/(β(t + 1)), ū = Σ_t 2t/(T_o(T_o + 1)) u_t. The oracle gradient is
/// x·derivative.
struct moreau_oracle_result {
  double u_bar = 0;       ///< ū, the estimate of prox^β(m)
  double derivative = 0;  ///< β(m − ū), the estimate of (g^y_β)′(m)
  long long steps = 0;    ///< T_o
};
/// Throws std::domain_error if β, γ or B is not finite and > 0, or m, y are not finite, or
/// T_o would exceed max_steps (default 10⁸).
moreau_oracle_result moreau_oracle(glm_link link,
                                   double y,
                                   double beta,
                                   double m,
                                   double gamma,
                                   double B,
                                   long long max_steps = 100000000);
/// g ← 𝒪_{β,γ}(w; x, y) = x·β(m − ū) (Alg 4 step 5). Lemma 6: ‖g − ∇f_β‖ ≤ 12B‖x‖/√T_o.
void moreau_oracle_gradient(glm_link link,
                            const_vector_ref w,
                            const_vector_ref x,
                            double y,
                            double beta,
                            double gamma,
                            double B,
                            vector_ref g);

// =============================================================================================
// JL matrices and polynomial (multinomial-kernel) features
// =============================================================================================

/// Φ = R/√m ∈ R^{m×d} with R_ij ~ N(0, 1) i.i.d., drawn row by row (Def 6). Throws
/// std::domain_error if m = 0 or d = 0.
Eigen::MatrixXd jl_matrix(std::size_t m, std::size_t d, random_stream& stream);

/// Dimension of polynomial_feature_map / polynomial_features: Σ_{j=0}^q C(d + j − 1, j).
std::size_t polynomial_feature_dimension(std::size_t d, int degree);
/// The normalised truncated multinomial kernel of degree q (Goel–Klivans style, SWX+23 §5):
///   K(x, x′) = (1/(q + 1)) Σ_{j=0}^q ⟨x, x′⟩^j = ⟨ψ(x), ψ(x′)⟩,
/// with ψ(x) = (q + 1)^{−1/2} (ψ_0(x), …, ψ_q(x)), ψ_j(x)_α = √(j!/α!) x^α over the monomials
/// of degree j (multi-indices α with |α| = j, in lexicographic order), so that
/// ⟨ψ_j(x), ψ_j(x′)⟩ = ⟨x, x′⟩^j (multinomial theorem). ‖ψ(x)‖² = (1/(q+1)) Σ ‖x‖^{2j} ≤ 1
/// for ‖x‖ ≤ 1. Throws std::domain_error if x is empty or non-finite or degree ∉ [0, 8].
vector polynomial_feature_map(const_vector_ref x, int degree);
/// Row i of the result = ψ(row i of `features`) (polynomial_feature_map of each row).
Eigen::MatrixXd polynomial_features(const Eigen::Ref<const Eigen::MatrixXd>& features, int degree);

// =============================================================================================
// Privacy bookkeeping shared by the algorithms
// =============================================================================================

/// What a privacy report needs from a run made of Gaussian releases.
///   noise_multiplier  z = min over releases of (noise std)/(ℓ₂ sensitivity of the release),
///                     sensitivity under replace-one neighbours as in the paper's proofs
///                     (0 when the noise is off);
///   compositions      how many of those releases a single person's record enters (1 for the
///                     phased and chunked algorithms: disjoint data, adaptive parallel
///                     composition; T for Algorithm 7);
///   note              the neighbouring relation, the sensitivity formula and its conditions
///                     (e.g. η ≤ 2/G, the JL event), and any condition found violated.
/// Exact Gaussian DP of the whole run: μ = √compositions / z.
struct gaussian_release_privacy {
  double noise_multiplier = 0;
  long long compositions = 0;
  std::string note;
};

/// One Gaussian release (a phase of Algs 2/3/5/6, a step of Algs 7/8).
struct glm_release {
  double eta = 0;          ///< η_i (the step size of that phase / step)
  long long samples = 0;   ///< n_i (phase size), n (Alg 7) or the chunk size m (Alg 8)
  double sensitivity = 0;  ///< ℓ₂ sensitivity of the released quantity (header of each alg)
  double noise_std = 0;    ///< std per coordinate actually used (0 with add_noise = false)
  double paper_std = 0;    ///< the paper's std (τ_i, σ) at that release, whatever was used
};

/// Output of every algorithm.
struct glm_result {
  std::string algorithm;  ///< e.g. "SWX+23 Alg 2 (phased SGD, output perturbation)"
  vector w;          ///< the output in R^d (Φᵀ w_k for the JL algorithms; ∈ R^k for Alg 9)
  vector w_reduced;  ///< w_k ∈ R^m before Φᵀ (JL algorithms), empty otherwise
  /// Phased algorithms: w̄_i, the average of phase i before the noise (in the space the phase
  /// runs in: R^d, or R^m under JL). Empty for Algs 7/8.
  std::vector<vector> phase_averages;
  std::vector<glm_release> releases;
  gaussian_release_privacy privacy;
  Eigen::MatrixXd jl;      ///< Φ (m×d) for the JL algorithms, empty otherwise
  double jl_max_norm = 0;  ///< max_i ‖Φ x_i‖ (the JL event of Thm 2 needs ≤ 2), 0 without JL
  long long oracle_steps = 0;           ///< T_o per oracle call (Algs 5/6 with the Alg 4 oracle)
  std::size_t features_over_bound = 0;  ///< Alg 8: records with ‖x‖ > feature_norm_bound
  std::string branch;  ///< Algs 1/9: which algorithm the dispatcher ran ("Alg 2"/"Alg 3")
};

// =============================================================================================
// Algorithms 1, 2, 3, 5, 6, 9 — phased SGD family
// =============================================================================================

/// How Algs 5/6 compute ∇f_β: Algorithm 4 as printed (error ≤ γ, T_o = ⌈144B²/γ²⌉ inner steps
/// per call), or the exact prox (moreau_prox: the γ → 0 limit of Alg 4, error ~1e-16 relative).
enum class moreau_oracle_kind { algorithm4, exact };

/// Options of the phased algorithms. A 0 in a field marked "0 → …" selects the paper's value
/// with every hidden O(·) constant set to 1 (stated per field).
struct phased_sgd_options {
  glm_link link = glm_link::sigmoid;
  double epsilon = 1;   ///< ε > 0
  double delta = 1e-5;  ///< δ ∈ (0, 1)
  /// η > 0, the base step: η_i = η/4^i (Alg 2 step 3). 0 → min{ε/√(θ log(1/δ)), 1/√n} capped at
  /// the privacy condition (Alg 2: 2/G; Alg 3: 2/(4G) = 1/(2G) on the JL event; Alg 5: 2/β;
  /// Alg 6: 1/(2β)); θ = theta_rank, or m for the JL variants (Thm 1, 2, 4, 5).
  double eta = 0;
  /// B: bound on |σ| and |y| (Assumption 1). 0 → link_range_bound(link). Labels outside
  /// [−B, B] or B < sup|σ| throw.
  double B_bound = 0;
  /// θ, for the default η and the Alg 1 / Alg 9 switch. 0 → d (the worst case θ ≤ d).
  double theta_rank = 0;
  /// JL target dimension m (Algs 3, 6, and the Alg 3 branch of Algs 1, 9). 0 → the paper's
  /// ⌈log(n/δ)·(nε)^{2/3}⌉ (Thm 2, 5), or ⌈log(n/δ)·nε⌉ for Alg 9.
  std::size_t jl_dim = 0;
  /// Moreau smoothing β (Algs 5, 6). 0 → √n (Thm 4: β = O(√n)).
  double beta_smooth = 0;
  /// Oracle accuracy γ (Algs 5, 6 with the Alg 4 oracle). 0 → B/(n ln n) (proof of Thm 4),
  /// which needs T_o = 144 n² ln² n steps per call — only feasible for tiny n.
  double gamma_oracle = 0;
  moreau_oracle_kind oracle = moreau_oracle_kind::exact;
  long long max_oracle_steps = 100000000;  ///< guard on T_o (throws beyond)
  vector w0;              ///< initial point (empty → 0; Alg 2 step 2 default [I])
  bool add_noise = true;  ///< false: no noise at all (sensitivity experiments; not private)
  /// z > 0: every release uses std = z × its sensitivity (tight calibration by the caller);
  /// 0: the paper's τ_i.
  double noise_multiplier = 0;
};

/// The phase sizes n_i = ⌊n/2^i⌋, i = 1, …, k with k = ⌊log₂ n⌋ (SWX+23's
/// k = ⌈log₂ n⌉ gives an empty last phase unless n is a power of 2; skipping that empty phase
/// gives exactly this). Throws std::domain_error if n < 2 (n = 1 has no phase).
std::vector<std::size_t> phase_sizes(std::size_t n);

/// Algorithm 2 — phased SGD with output perturbation on the surrogate (SWX+23 Alg 2):
/// phase i runs one pass of SGD w ← w − η_i(σ(⟨w, x⟩) − y)x over its n_i records from
/// w_{i−1}, averages w_i^1 … w_i^{n_i} (start point included, last iterate excluded), and
/// releases w_i = w̄_i + ζ_i, ζ_i ~ N(0, τ_i² I_d), τ_i = 8Bη_i √log(1/δ)/ε. Output w_k.
/// Privacy (the proof of Thm 1, citing FKT20 Thm 4.4): replacing one record of phase i changes
/// one step by ≤ 2η_i·2B and later steps are non-expansive for η_i ≤ 2/G, so the sensitivity
/// of w̄_i is 4Bη_i; z = 2√log(1/δ)/ε with the paper's τ_i; compositions = 1.
/// Noise draws: d normals per phase, phase by phase (stream stream_base + 3).
/// Throws std::domain_error on bad options, a ReLU link, ‖x_i‖ > 1 (Assumption 1, to 1e-12),
/// |y_i| > B, n < 2, or w0 of the wrong size.
glm_result phased_sgd(const dataset& data,
                      const phased_sgd_options& options,
                      const random_key& key);

/// Algorithm 3 — JL + phased SGD: Φ = jl_matrix(m, d) (stream stream_base + 5), Alg 2 on
/// (Φx_i, y_i) in R^m with τ_i = 16Bη_i √log(2/δ)/ε, output Φᵀw_k. Privacy (proof of Thm 2):
/// on the JL event (‖Φx‖ ≤ 2 for every record, including a replacement) the per-sample
/// gradient norm is ≤ 4B, so the sensitivity is 8Bη_i (needs η_i ≤ 2/(4G)); z =
/// 2√log(2/δ)/ε with the paper's τ_i, and the paper adds δ/2 for the JL failure event
/// (not included in z; the note reports jl_max_norm over the dataset).
glm_result jl_phased_sgd(const dataset& data,
                         const phased_sgd_options& options,
                         const random_key& key);

/// Algorithm 5 — phased SGD on the Moreau envelope f_β(w) = g^y_β(⟨w, x⟩) with the oracle
/// (Alg 4 or exact), τ_i = 10Bη_i √log(1/δ)/ε (R = 1). Privacy (proof of Thm 4): sensitivity
/// 4Bη_i + γη_i(n_i + 1) (≤ 5Bη_i when γ ≤ B/(n_i + 1)); γ = 0 for the exact oracle; needs
/// η_i ≤ 2/β. Works for any differentiable bounded link (sigmoid, tanh).
glm_result moreau_phased_sgd(const dataset& data,
                             const phased_sgd_options& options,
                             const random_key& key);

/// Algorithm 6 — JL + Algorithm 5 with τ_i = 20Bη_i √log(2/δ)/ε and B → 2B inside Alg 4.
/// Privacy (proof of Thm 5, on the JL event ‖Φx‖ ≤ 2): sensitivity 8Bη_i + 2γη_i(n_i + 1)
/// (needs η_i ≤ 2/(4β)).
glm_result jl_moreau_phased_sgd(const dataset& data,
                                const phased_sgd_options& options,
                                const random_key& key);

/// Algorithm 1 — dispatcher: Alg 2 if ε > θ^{3/2}/n, else Alg 3 (θ = theta_rank, 0 → d).
/// result.branch says which ran.
glm_result dp_glm(const dataset& data, const phased_sgd_options& options, const random_key& key);

/// Algorithm 9 — Alg 2 (if ε > θ/n) or Alg 3 on (ψ(x_i), y_i) with ψ = polynomial_features of
/// the given degree (θ = theta_rank, 0 → the feature dimension k). result.w ∈ R^k; the
/// predictor is h(x) = σ(⟨w, ψ(x)⟩) (kernel_predict). Needs y ∈ [0, 1] and σ with range
/// [0, 1] for Assumption 3 (sigmoid); any bounded link is accepted.
glm_result dp_kernel_glm(const dataset& data,
                         int degree,
                         const phased_sgd_options& options,
                         const random_key& key);
/// h(x) = σ(⟨w, ψ(x)⟩) for each row of `features`.
Eigen::VectorXd kernel_predict(glm_link link,
                               const_vector_ref w,
                               const Eigen::Ref<const Eigen::MatrixXd>& features,
                               int degree);

// =============================================================================================
// Algorithm 7 — DP projected GD for ReLU regression (well specified)
// =============================================================================================

struct relu_pgd_options {
  double epsilon = 1;
  double delta = 1e-5;
  double W_norm = 1;       ///< W ≥ ‖w*‖; the constraint set is ‖w̃‖ ≤ 2W (in R^m)
  double B_bound = 1;      ///< B ≥ |y| (labels outside [−B, B] throw)
  bool use_jl = true;      ///< false: Φ = I_d (no projection; for tests and ablations)
  std::size_t jl_dim = 0;  ///< m; 0 → ⌈log(n/δ)(nε)^{2/3}⌉ (Thm 6)
  /// T; 0 → max{1, ⌊min{n, n²ε²/(m log(1/δ))}⌋} (Thm 6).
  long steps = 0;
  /// η; 0 → the proof's W/(√T max{W + B, (W + B)√(mT log(1/δ))/(nε)}), capped at 1/2 (Thm 6).
  double eta = 0;
  bool add_noise = true;
  double noise_multiplier = 0;  ///< > 0: std = z × sensitivity at every step
};

/// w̃_1 = 0; w̃_{t+1} = Π_{‖·‖≤2W}[w̃_t − η(ḡ_t + ζ_t)], ḡ_t = (1/n)Σ(ReLU(⟨w̃_t, Φx_i⟩) −
/// y_i)Φx_i, ζ_t ~ N(0, σ² I_m), σ² = 32(4W + B)²T log(2/δ)/(n²ε²); output (1/T)Σ_{t=1}^T Φᵀw̃_t
/// (the paper's w̃_T inside the sum is a typo). Privacy (proof of Thm 6): on the JL event
/// the sensitivity of ḡ_t is 4(4W + B)/n, z = √(2T log(2/δ))/ε, compositions = T.
/// Noise draws: m normals per step (stream stream_base + 3); Φ from stream_base + 5.
/// Throws std::domain_error on bad options, ‖x_i‖ > 1, |y_i| > B.
glm_result relu_dp_pgd(const dataset& data, const relu_pgd_options& options, const random_key& key);

// =============================================================================================
// Algorithm 8 — adaptive DP batched GD (misspecified ReLU regression)
// =============================================================================================

struct adaptive_gd_options {
  double epsilon = 1;
  double delta = 1e-5;
  double B_bound = 1;     ///< B ≥ |y| (Assumption 2; labels outside [−B, B] throw)
  long steps = 100;       ///< T: the data are split into T disjoint chunks of m = ⌊n/T⌋
  double eta = 1.0 / 16;  ///< η ≤ 1/16 (Thm 7)
  /// R_x, the bound on ‖x‖ used in the sensitivity; 0 → √d (Assumption 2). Records above it
  /// are counted in features_over_bound (the sensitivity bound does not cover them).
  double feature_norm_bound = 0;
  /// false (paper): σ²_{i−1} = 8(√d‖w_{i−1}‖ + B)² log(1.25/δ)/(m²ε²), i.e. the printed
  /// formula read as a variance, calibrated to the proof's sensitivity (√d‖w‖ + B)/m.
  /// true: the same Gaussian-mechanism factor on the corrected replace-one sensitivity
  /// Δ = 2R_x(R_x‖w‖ + B)/m (per-sample gradient norm ≤ R_x(R_x‖w‖ + B)), i.e.
  /// σ² = 8Δ² log(1.25/δ)/ε² (docs/findings.md; R_x = √d gives 2√d(√d‖w‖ + B)/m).
  bool corrected_sensitivity = false;
  bool add_noise = true;
  double noise_multiplier = 0;  ///< > 0: std = z × corrected sensitivity at every step
};

/// w_0 = 0; w_i = w_{i−1} − η((1/m)Σ_{D_i}(ReLU(⟨w_{i−1}, x⟩) − y)x + ζ_{i−1}) over disjoint
/// chunks D_i (rows (i−1)m … im − 1). Privacy: each record enters one step; the report's
/// sensitivity is always the corrected 2R_x(R_x‖w_{i−1}‖ + B)/m, so z is honest whichever
/// calibration was used (the note gives z against the printed sensitivity as well);
/// compositions = 1. Noise draws: d normals per step. Throws std::domain_error on bad
/// options, T > n, |y_i| > B.
glm_result adaptive_batched_gd(const dataset& data,
                               const adaptive_gd_options& options,
                               const random_key& key);

}  // namespace dpkit::learners
