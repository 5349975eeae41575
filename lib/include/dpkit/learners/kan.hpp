#pragma once
// The two-layer Kolmogorov–Arnold network (KAN) of WSK+26 (§3.1, App. B) as a model of the
// reference simulator (model.hpp), its uniform B-spline basis, and the NTK margin γ of
// Assumption 3.3 computed as a hard-margin problem.
//
// The network. Hidden width m, input dimension d, a basis h(v) = (b_1(v), …, b_p(v)) of p
// B-splines and an activation σ (the "base function"):
//
//   f_W(x) = (1/√m) Σ_j Σ_k c_{j,k} b_k(u_j),   u_j = σ(s_j),
//   s_j = (1/√d) Σ_i Σ_k w_{i,j,k} b_k(x_i) = (1/√d) w_jᵀ h(x),
//
// with h(x) = (h(x_1), …, h(x_d)) ∈ R^{dp}. Only the first-layer coefficients W are trained
// (D = m·d·p parameters); the second layer c ∈ R^{mp} is fixed (WSK+26 §3.1: drawn once,
// c ~ N(0, I_{mp}), never trained). The loss is logistic, ℓ(z) = log(1 + e^{−z}), and
// example i contributes f_i(W) = ℓ(y_i f_W(x_i)) with y_i ∈ {−1, +1}.
//
// Parameter layout. W is stored row by row, x = vec(Wᵀ): unit j's block w_j ∈ R^{dp} is the
// contiguous slice [j·dp, (j+1)·dp), and inside it coefficient (i, k) (input coordinate i,
// basis function k, both 0-based) sits at i·p + k — the ordering of h(x). The second layer
// c = (c_1, …, c_m) has c_j = c[j·p, (j+1)·p).
//
// Derivatives (the proof of WSK+26 Lemma B.6; exact, no approximation):
//   ∇_{w_j} f = a_j h(x),      a_j = σ′(s_j) ⟨c_j, h′(u_j)⟩ / √(md),
//   ∇²f = diag(β_1 h hᵀ, …, β_m h hᵀ),   β_j = ⟨c_j, σ″(s_j) h′(u_j) + σ′(s_j)² h″(u_j)⟩/(d√m),
// so the Hessian of f is block-diagonal over hidden units with rank-one blocks and, by WSK+26
// Lemma B.1, ‖∇²f‖₂ = max_j |β_j| ‖h(x)‖². The loss adds a rank-one coupling:
//   ∇f_i = ℓ′(y f) y ∇f,   ∇²f_i = ℓ″(y f) ∇f ∇fᵀ + ℓ′(y f) y ∇²f   (y² = 1).
//
// Nothing here knows a bound (docs/architecture.md, "Modules"): the constants of Assumption 3.2
// (sup norms of σ and of the basis) are properties of the model, reported for the bound modules to
// use.
#include <Eigen/Dense>
#include <array>
#include <cstddef>
#include <memory>
#include <string>

#include "dpkit/core/random.hpp"
#include "dpkit/core/result.hpp"
#include "dpkit/learners/engine.hpp"
#include "dpkit/sim/dataset.hpp"
#include "dpkit/sim/model.hpp"

namespace dpkit::learners {

/// A uniform B-spline basis of degree k on [lower, upper] with G intervals of width
/// h = (upper − lower)/G, on the extended knot vector t_i = lower + (i − k)h, i = 0, …, G + 2k
/// (k extra knots on each side, the construction of pykan's KAN layers). There are p = G + k
/// basis functions; b_q (q = 0, …, p − 1) is the degree-k B-spline on the knots t_q, …, t_{q+k+1},
/// i.e. the cardinal B-spline N_k translated and scaled: b_q(v) = N_k((v − t_q)/h). On
/// [lower, upper] the basis is a nonnegative partition of unity; outside [t_0, t_{G+2k}] every
/// b_q is 0. Values come from the Cox–de Boor recursion in the local coordinate of the knot span
/// (de Boor, A Practical Guide to Splines, 2001, ch. IX; Piegl & Tiller, The NURBS Book, 1997,
/// Alg. A2.2), derivatives from the uniform-knot identities
///   b′_{q,k} = (b_{q,k−1} − b_{q+1,k−1})/h,   b″_{q,k} = (b_{q,k−2} − 2b_{q+1,k−2} +
///   b_{q+2,k−2})/h²
/// (de Boor, ch. X, eq. (12)). The degree is at least 3 so that h″ is continuous (WSK+26 §3.3:
/// Assumption 3.2 holds for "cubic (or higher-degree) B-splines"); at a knot the right-hand
/// limit is returned (the spans are half-open, [t_μ, t_{μ+1})).
class uniform_bspline {
 public:
  /// The largest supported degree (the per-point work is O(k²) on a stack buffer).
  static constexpr int kMaxDegree = 7;

  /// Throws std::domain_error if grid_size < 1, degree is not in [3, kMaxDegree], or lower,
  /// upper are not finite with lower < upper.
  uniform_bspline(std::size_t grid_size, int degree, double lower, double upper);

  std::size_t size() const { return grid_size_ + static_cast<std::size_t>(degree_); }  ///< p
  std::size_t grid_size() const { return grid_size_; }                                 ///< G
  int degree() const { return degree_; }                                               ///< k
  double lower() const { return lower_; }
  double upper() const { return upper_; }
  double spacing() const { return h_; }  ///< h
  /// t_i = lower + (i − k)h for i = 0, …, G + 2k (not range-checked).
  double knot(long i) const { return lower_ + static_cast<double>(i - degree_) * h_; }

  /// out ← (b_0^{(r)}(v), …, b_{p−1}^{(r)}(v)) for the derivative order r ∈ {0, 1, 2}; out has
  /// size p. Any finite v (zero outside [t_0, t_{G+2k})). Does not allocate.
  void evaluate(double v, int derivative, vector_ref out) const;
  /// The same as a new vector.
  vector evaluate(double v, int derivative = 0) const;

  /// sup_v |b_q^{(r)}(v)| over all q and v ∈ R, r ∈ {0, 1, 2}: the constants B_b, B′_b, B″_b
  /// of Assumption 3.2. Every b_q is a translate of N_k(·/h), so this is
  /// h^{−r} sup |N_k^{(r)}|, found by sampling each polynomial piece at 65 points and refining
  /// the best sample with Brent's method (boost::math::tools::brent_find_minima): exact up to
  /// ~1e-15 relative (the maximum is either a sampled end point, where the value is exact, or a
  /// stationary point, where an error δ in the location changes the value by O(δ²)). For k = 3:
  /// 2/3, 2/(3h), 2/h² (checked in kan_test.cpp).
  double sup_norm(int derivative) const;

  /// The fast path: the at most k + 1 nonzero values of derivative order r at v, for the
  /// basis indices first, first + 1, …, first + k (some may lie outside [0, p) and must be
  /// skipped by the caller). Returns first; when v is outside [t_0, t_{G+2k}) the values are 0.
  long nonzero(double v, int derivative, std::array<double, kMaxDegree + 1>& values) const;
  /// The same for the derivative orders 0, 1 and 2 at once (one Cox–de Boor triangle); orders
  /// above max_derivative (0, 1 or 2) are not computed and come back 0.
  long nonzero(double v,
               std::array<double, kMaxDegree + 1>& values,
               std::array<double, kMaxDegree + 1>& first_derivatives,
               std::array<double, kMaxDegree + 1>& second_derivatives,
               int max_derivative = 2) const;

 private:
  std::size_t grid_size_;
  int degree_;
  double lower_, upper_, h_;
};

/// The base function σ of the KAN's hidden layer.
enum class kan_activation { tanh, sigmoid };
/// "tanh" or "sigmoid".
const char* to_string(kan_activation a);

/// sup|σ|, sup|σ′|, sup|σ″| over R: the constants B_σ, B′_σ, B″_σ of Assumption 3.2
/// (closed forms): tanh 1, 1, 4/(3√3); sigmoid 1, 1/4, 1/(6√3).
struct activation_sup_norms {
  double value = 0;   ///< B_σ
  double first = 0;   ///< B′_σ
  double second = 0;  ///< B″_σ
};
activation_sup_norms sup_norms(kan_activation a);

/// The architecture: width m, the basis (G intervals, degree k, on [grid_lower, grid_upper])
/// and σ. Defaults (WSK+26 fixes none; docs/kan.md): cubic B-splines, G = 5
/// (p = 8, pykan's default grid), on [−1, 1] ⊇ [−1, 1] ∪ range(σ) for tanh and sigmoid, tanh.
struct kan_options {
  std::size_t width = 16;  ///< m
  std::size_t grid_size = 5;
  int spline_degree = 3;
  double grid_lower = -1;
  double grid_upper = 1;
  kan_activation activation = kan_activation::tanh;
};

/// The two-layer KAN with the logistic loss on a dataset with labels ±1 (header comment).
/// `gradient` does not allocate; `hessian_vector` does not allocate either (its first pass over
/// the hidden units keeps three scalars per unit in `out` as scratch, the second overwrites them).
class kan_model final : public model {
 public:
  /// `second_layer` is c ∈ R^{mp} (c_j contiguous). Throws std::domain_error if data is null,
  /// check_dataset fails, a label is not ±1, a feature lies outside [grid_lower, grid_upper]
  /// (the basis is a partition of unity only there, and WSK+26 takes ‖x‖ ≤ 1), the options
  /// are invalid (width 0, or as uniform_bspline), the grid does not contain range(σ)
  /// (Assumption 3.2 evaluates h′, h″ at u = σ(s): tanh needs [−1, 1], sigmoid [0, 1]), or c has
  /// the wrong size or a non-finite entry.
  kan_model(std::shared_ptr<const dataset> data, const kan_options& options, vector second_layer);

  std::size_t dimension() const override { return width_ * input_dimension_ * basis_.size(); }
  std::size_t examples() const override { return data_->size(); }
  /// ℓ(y_i f_W(x_i)), accurate for any finite margin (log1p on the safe side).
  double loss(std::size_t i, const_vector_ref w) const override;
  void gradient(std::size_t i, const_vector_ref w, vector_ref g) const override;
  bool has_hessian_vector() const override { return true; }
  void hessian_vector(std::size_t i,
                      const_vector_ref w,
                      const_vector_ref v,
                      vector_ref out) const override;
  /// "KAN (n = 100, d = 2, m = 16, p = 8: cubic B-splines, G = 5 on [-1, 1], tanh)".
  std::string describe() const override;

  const dataset& data() const { return *data_; }
  const kan_options& options() const { return options_; }
  const uniform_bspline& basis() const { return basis_; }
  std::size_t width() const { return width_; }                      ///< m
  std::size_t input_dimension() const { return input_dimension_; }  ///< d
  std::size_t basis_size() const { return basis_.size(); }          ///< p
  const vector& second_layer() const { return c_; }                 ///< c

  // ---- the network at an arbitrary input x ∈ R^d (any x inside the grid) ------------------

  /// h(x) ∈ R^{dp}.
  void features(const_vector_ref x, vector_ref h) const;
  /// f_W(x).
  double output(const_vector_ref w, const_vector_ref x) const;
  /// g ← ∇_W f_W(x) ∈ R^D.
  void output_gradient(const_vector_ref w, const_vector_ref x, vector_ref g) const;
  /// scales ← (β_1, …, β_m): ∇²_W f_W(x) = diag(β_j h(x)h(x)ᵀ) (header comment).
  void output_hessian_scales(const_vector_ref w, const_vector_ref x, vector_ref scales) const;
  /// ‖∇²_W f_W(x)‖₂ = max_j |β_j| ‖h(x)‖² exactly (WSK+26 Lemma B.1; each block is rank one).
  double output_hessian_norm(const_vector_ref w, const_vector_ref x) const;

  /// The dense D×D Hessian ∇²f_i(W) of example i's loss, for tests and small models (D² doubles).
  Eigen::MatrixXd hessian(std::size_t i, const_vector_ref w) const;

  /// The NTK features of Assumption 3.3: the D×n matrix with column i = φ_i = y_i ∇f_W(x_i).
  Eigen::MatrixXd ntk_features(const_vector_ref w) const;

 private:
  // Per hidden unit j at input features h: ⟨c_j, h(u_j)⟩, and for order ≥ 1 the gradient
  // scale a_j, for order 2 the Hessian scale β_j (header comment).
  struct unit_scalars {
    double value = 0, a = 0, beta = 0;
  };
  unit_scalars unit(const_vector_ref w, std::size_t j, const_vector_ref h, int order) const;
  // f_W at features h; if g is non-null also writes a_j·h into block j of *g.
  double output_from_features(const_vector_ref w, const_vector_ref h, vector_ref* g) const;
  std::shared_ptr<const dataset> data_;
  kan_options options_;
  uniform_bspline basis_;
  std::size_t width_, input_dimension_;
  vector c_;
  Eigen::MatrixXd h_by_example_;  // dp×n, column i = h(x_i), precomputed
};

/// The second layer c ~ N(0, I_{mp}) (WSK+26 Alg. 1 step 1): mp standard normal draws in
/// storage order (c_1 first). Use stream 1 ("initial point", random.hpp) or a dedicated one.
/// Throws std::domain_error if width or basis_size is 0.
vector kan_second_layer(std::size_t width, std::size_t basis_size, random_stream& stream);

/// The initial first layer W_0 ~ N(0, I_{mdp}) (WSK+26 Alg. 1 step 1): mdp standard normal
/// draws in the parameter layout's order. Throws std::domain_error if a size is 0.
vector kan_initial_weights(std::size_t width,
                           std::size_t input_dimension,
                           std::size_t basis_size,
                           random_stream& stream);

// ---- the NTK margin (Assumption 3.3) ----------------------------------------------------------

struct margin_options {
  /// Stop when the certified bracket [gamma, gamma_upper] has relative width
  /// (gamma_upper − gamma)/gamma_upper ≤ tolerance, or when gamma_upper ≤ tolerance·max_i ‖φ_i‖
  /// (0 is, to that tolerance, in the convex hull: not separable).
  double tolerance = 1e-9;
  long max_iterations = 1000000;
};

/// The hard-margin (bias-free SVM) value γ* = max_{‖u‖≤1} min_i ⟨φ_i, u⟩ and a direction that
/// attains it, with a certified bracket.
struct margin_result : solver_status {
  /// min_i ⟨φ_i, u⟩ for the returned unit direction u: a margin that IS attained, hence a valid
  /// γ for Assumption 3.3 when positive, and a lower bound on γ*. May be ≤ 0 (not separable).
  double gamma = 0;
  /// ‖Φα‖ for the returned α: an upper bound on γ* (weak duality).
  double gamma_upper = 0;
  vector direction;  ///< u = Φα/‖Φα‖ (unit norm; empty if Φα = 0)
  vector weights;    ///< α on the simplex, the dual solution (support = the support vectors)
  bool separable() const { return gamma > 0; }
};

/// γ* for the points φ_i = columns of `points` (D×n). Minimax duality gives
///   γ* = max_{‖u‖≤1} min_i ⟨φ_i, u⟩ = dist(0, conv{φ_i}) = min_{α ∈ Δ_n} ‖Φα‖
/// when 0 ∉ conv{φ_i} (Gilbert 1966; Bennett & Bredensteiner 2000, "Duality and
/// geometry in SVM classifiers"), and the maximiser is u* = Φα*/‖Φα*‖. Solved by the pairwise
/// Frank–Wolfe method on the simplex (Mitchell–Dem'yanov–Malozemov 1974; linear convergence on
/// polytopes, Lacoste-Julien & Jaggi 2015) with exact line search on the Gram matrix K = ΦᵀΦ
/// (O(n²D) once, then O(n + D) per iteration). For any α on the simplex, with w = Φα,
///   min_i ⟨φ_i, w⟩/‖w‖ ≤ γ* ≤ ‖w‖,
/// so every iterate carries a certified bracket; that is the stopping rule. termination:
/// converged (bracket within tolerance), max_iterations (bracket still certified, wider).
/// Throws std::domain_error if points is empty or has a non-finite entry, or the options are
/// invalid (tolerance not in (0, 1), max_iterations < 1).
margin_result hard_margin(const Eigen::Ref<const Eigen::MatrixXd>& points,
                          const margin_options& options = {});

/// The NTK margin of Assumption 3.3 at the initialisation w0: hard_margin(f.ntk_features(w0)).
/// Throws std::domain_error if w0 has the wrong size or a non-finite entry.
margin_result ntk_margin(const kan_model& f,
                         const_vector_ref w0,
                         const margin_options& options = {});

}  // namespace dpkit::learners
