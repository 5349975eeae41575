#pragma once
// The L-layer fully connected ReLU network of SWX+23 §6 as a model of the
// reference simulator (model.hpp), its He initialisation, the NTK linearisation (Cao–Gu NTRF,
// Def 8), the synthetic teacher task of the validation scenarios, and Algorithm 10 (projected,
// Poisson-subsampled, clipped DP-SGD with iterate averaging) on top of run_noisy_gradient.
//
// The network. Depth L ≥ 2, width m, input dimension d:
//
//   f(W, x) = √m · W_L σ(W_{L−1} σ(⋯ σ(W_1 x))),   σ(s) = max{0, s},
//
// W_1 ∈ R^{m×d}, W_l ∈ R^{m×m} (l = 2, …, L−1), W_L ∈ R^{1×m}. Hidden features
// h_0 = x, h_l = σ(W_l h_{l−1}) (l = 1, …, L−1), so f = √m W_L h_{L−1}.
//
// Parameter layout. The parameter vector is the concatenation of vec(W_1), …, vec(W_L), each
// block stored ROW-MAJOR: entry (j, k) of W_l (0-based row j, column k) sits at
//   layer_offset(l) + j·columns(l) + k,
// so row j of W_l (the incoming weights of unit j) is contiguous. p = md + (L − 2)m² + m.
//
// Gradient (SWX+23 eq. (16), back-propagation): with D_l = diag(1{(W_l h_{l−1})_j > 0}) =
// diag(1{(h_l)_j > 0}),
//   ∇_{W_L} f = √m h_{L−1}ᵀ,   ∇_{W_l} f = √m [W_L (Π_{r=l+1}^{L−1} D_r W_r) D_l]ᵀ h_{l−1}ᵀ,
// computed as δ_{L−1} = √m D_{L−1} W_Lᵀ, δ_{l−1} = D_{l−1} W_lᵀ δ_l, ∇_{W_l} f = δ_l h_{l−1}ᵀ.
// At a kink ((W_l h_{l−1})_j = 0 exactly) the derivative of σ is taken as 0 (a measure-zero set
// under Gaussian initialisation). f is positively homogeneous of degree 1 in each W_l, so
// Euler's identity ⟨∇_{W_l} f, W_l⟩ = f holds for every layer and ⟨∇f(W), W⟩ = L·f(W).
//
// Loss. The convex S-Lipschitz loss of Thm 13 is the logistic loss ℓ(f, y) = log(1 + e^{−yf}),
// y = ±1 (S = 1): example i contributes f_i(W) = ℓ(f(W, x_i), y_i) and
// ∇f_i = ℓ′(y_i f) y_i ∇f, ℓ′(z) = −1/(1 + e^{z}).
//
// Threads. Models are shared by the Monte Carlo threads. The forward/backward pass needs
// (L + 1)·m doubles of scratch; they live in a thread_local buffer that grows to the largest
// network a thread has seen and is reused afterwards, so `loss` and `gradient` do not allocate
// in steady state (the first call on a thread may).
//
// Nothing here knows a bound (docs/architecture.md, "Modules"): Thm 13's step size, noise
// calibration and error terms are in dpkit/risk/mlp_bounds.hpp.
#include <Eigen/Dense>
#include <cstddef>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "dpkit/core/random.hpp"
#include "dpkit/learners/engine.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/dataset.hpp"
#include "dpkit/sim/model.hpp"

namespace dpkit::learners {

// ---- architecture ------------------------------------------------------------------------------

/// Sizes and the parameter layout of the network (header comment). Layers are numbered
/// 1, …, L as in the paper.
struct mlp_architecture {
  std::size_t input_dimension = 0;  ///< d
  std::size_t width = 16;           ///< m
  std::size_t depth = 3;            ///< L ≥ 2

  /// Throws std::domain_error unless d ≥ 1, m ≥ 1, L ≥ 2 (naming `function`).
  void validate(const char* function) const;
  /// p = md + (L − 2)m² + m.
  std::size_t dimension() const;
  /// Rows of W_l: m for l < L, 1 for l = L.
  std::size_t rows(std::size_t layer) const;
  /// Columns of W_l: d for l = 1, m otherwise.
  std::size_t columns(std::size_t layer) const;
  /// rows·columns of W_l.
  std::size_t layer_size(std::size_t layer) const { return rows(layer) * columns(layer); }
  /// Offset of W_l's block in the parameter vector (layer ∈ [1, L]; not range-checked).
  std::size_t layer_offset(std::size_t layer) const;
};

// ---- the network
// ---------------------------------------------------------------------------------

/// The network function of the header comment at arbitrary inputs (no data attached). All
/// functions check sizes and throw std::domain_error on a parameter vector of the wrong size or
/// an input of the wrong size or with a non-finite entry.
class mlp_network {
 public:
  /// Throws std::domain_error if the architecture is invalid.
  explicit mlp_network(const mlp_architecture& architecture);

  const mlp_architecture& architecture() const { return arch_; }
  std::size_t dimension() const { return arch_.dimension(); }  ///< p

  /// f(W, x).
  double output(const_vector_ref w, const_vector_ref x) const;
  /// g ← ∇_W f(W, x) (size p); returns f(W, x).
  double output_gradient(const_vector_ref w, const_vector_ref x, vector_ref g) const;
  /// norms ← (‖h_0‖, ‖h_1‖, …, ‖h_{L−1}‖) (size L; ‖h_0‖ = ‖x‖): the hidden-feature norms of
  /// SWX+23 Lemma 20 (Allen-Zhu et al. Lemma 7.1: ‖h_l‖ ∈ [1 − ε, 1 + ε] for ‖x‖ = 1 w.h.p.
  /// at He initialisation).
  void hidden_norms(const_vector_ref w, const_vector_ref x, vector_ref norms) const;
  /// The NTK linearisation around W0 in the Cao–Gu form (SWX+23 Def 8 corrected;
  /// docs/findings.md): f_ntk(W, x) = f(W0, x) + ⟨∇_W f(W0, x), W − W0⟩. The printed form,
  /// f(W0, x) + ⟨∇f(W0, x), W⟩, equals this plus ⟨∇f(W0, x), W0⟩ = L·f(W0, x) (Euler's identity).
  double ntk_output(const_vector_ref w0, const_vector_ref w, const_vector_ref x) const;

  /// The low-level kernel behind every function above (no checks; thread-local scratch, no
  /// allocation in steady state): returns f(W, x) for the parameters at w and the input at x
  /// (contiguous arrays of sizes p and d); if g is non-null, also writes g ← s·∇_W f(W, x) with
  /// s = scale(f, y) (scale = nullptr: s = 1), the scalar applied before the backward pass so
  /// that a loss derivative ℓ′(y f)·y costs nothing extra.
  double pass(const double* w,
              const double* x,
              double* g,
              double y = 0,
              double (*scale)(double f, double y) = nullptr) const;

 private:
  mlp_architecture arch_;
};

/// He initialisation of Algorithm 10 step 1 (SWX+23): entries of W_l i.i.d. N(0, 2/m) for
/// l = 1, …, L−1 (including W_1 ∈ R^{m×d}, as printed: with 2/m the first layer also keeps
/// E‖h_1‖² = ‖x‖²), entries of W_L i.i.d. N(0, 1/m). p normal draws in the parameter layout's
/// order. Use stream 1 ("initial point", random.hpp). Throws std::domain_error if the
/// architecture is invalid.
vector mlp_initial_weights(const mlp_architecture& architecture, random_stream& stream);

// ---- the model on a dataset
// ------------------------------------------------------------------------

/// The network with the logistic loss on a dataset with labels ±1 (header comment).
class mlp_model final : public model {
 public:
  /// Throws std::domain_error if data is null, check_dataset fails, a label is not ±1, d differs
  /// from architecture.input_dimension, or the architecture is invalid.
  mlp_model(std::shared_ptr<const dataset> data, const mlp_architecture& architecture);

  std::size_t dimension() const override { return network_.dimension(); }
  std::size_t examples() const override { return data_->size(); }
  /// ℓ(y_i f(W, x_i)) = log(1 + e^{−y_i f}), accurate for any finite margin.
  double loss(std::size_t i, const_vector_ref w) const override;
  /// ∇f_i(W) = ℓ′(y_i f) y_i ∇_W f(W, x_i). Does not allocate (thread-local scratch).
  void gradient(std::size_t i, const_vector_ref w, vector_ref g) const override;
  /// "ReLU MLP (n = 500, d = 8, m = 32, L = 3, p = 1312, logistic loss)".
  std::string describe() const override;

  const dataset& data() const { return *data_; }
  const mlp_network& network() const { return network_; }
  const mlp_architecture& architecture() const { return network_.architecture(); }
  /// f(W, x_i).
  double output(std::size_t i, const_vector_ref w) const;

 private:
  std::shared_ptr<const dataset> data_;
  mlp_network network_;
  Eigen::MatrixXd by_example_;  // d×n, column i = x_i (contiguous)
};

/// The linearised network f_ntk(W, x_i) = f(W0, x_i) + ⟨∇f(W0, x_i), W − W0⟩ (Cao–Gu NTRF,
/// SWX+23 Def 8 corrected) with the logistic loss: a CONVEX model in W whose minimum over the
/// per-layer balls B(W0_l, R/√m) is the NTRF approximation term of Thm 13 eq. (7). Precomputes
/// f(W0, x_i) and ∇f(W0, x_i) for every example (n·p doubles).
class mlp_ntk_model final : public model {
 public:
  /// Throws as mlp_model, and if w0 has the wrong size or a non-finite entry.
  mlp_ntk_model(std::shared_ptr<const dataset> data,
                const mlp_architecture& architecture,
                const vector& w0);

  std::size_t dimension() const override { return static_cast<std::size_t>(w0_.size()); }
  std::size_t examples() const override { return data_->size(); }
  double loss(std::size_t i, const_vector_ref w) const override;
  void gradient(std::size_t i, const_vector_ref w, vector_ref g) const override;
  std::string describe() const override;

  const dataset& data() const { return *data_; }
  const vector& w0() const { return w0_; }
  /// f_ntk(W, x_i).
  double output(std::size_t i, const_vector_ref w) const;

 private:
  std::shared_ptr<const dataset> data_;
  mlp_architecture arch_;
  vector w0_;
  vector f0_;                  // f(W0, x_i)
  Eigen::MatrixXd gradients_;  // p×n, column i = ∇f(W0, x_i)
};

/// Mean logistic loss and 0/1 error (sign f(W, x) ≠ y; f = 0 counts as an error) of the network
/// at W on a dataset with labels ±1.
struct mlp_evaluation {
  double loss = 0;
  double error = 0;
};
/// Throws std::domain_error if the sizes do not match or a label is not ±1.
mlp_evaluation evaluate(const mlp_network& network, const_vector_ref w, const dataset& data);

// ---- projections for Algorithm 10 ---------------------------------------------------------------

/// Where Algorithm 10 projects (SWX+23 prints W = B(0, R) with
/// ‖W_l‖_F ≤ R for every layer, the analysis works in B(W0, ω), ω = R/√m, per layer).
enum class mlp_constraint {
  none,         ///< no projection
  printed,      ///< ‖W_l‖_F ≤ R for every layer l (SWX+23 Assumption 4, Alg 10 as printed)
  around_init,  ///< ‖W_l − W0_l‖_F ≤ R/√m for every layer l (what App C's analysis uses)
};
/// "none", "printed" (B(0, R) per layer), "around-init" (B(W0_l, R/√m) per layer).
const char* to_string(mlp_constraint c);

/// The per-layer ball projection (projection::block_balls) of `constraint` for radius R:
/// blocks = the L layers, centres 0 (printed) or W0 (around_init), radii R or R/√m.
/// Throws std::domain_error if R is negative or not finite, or w0 has the wrong size.
projection mlp_projection(const mlp_architecture& architecture,
                          mlp_constraint constraint,
                          double radius,
                          const vector& w0);

// ---- Algorithm 10
// --------------------------------------------------------------------------------

/// How the sum of clipped per-example gradients is normalised.
enum class alg10_normaliser {
  /// Divide by q·n, the EXPECTED batch size (run_noisy_gradient's poisson rule, as DP-SGD
  /// implementations do). The averaged clipped gradient then has add/remove sensitivity
  /// exactly C/(qn), so noise std σ on it is the Poisson-subsampled Gaussian mechanism with
  /// noise multiplier z = σ·qn/C — the standard DP-SGD accounting (accounting/accountant.hpp).
  expected_batch,
  /// Divide by |B_t|, the REALISED batch size, as Algorithm 10 is printed (an empty batch
  /// contributes no gradient, only noise). The normaliser then depends on the data through
  /// |B_t|, so the mean has no fixed sensitivity C/(qn) and the accountant's ε for z = σqn/C is
  /// NOT a certified guarantee for this variant (it is a heuristic that is close when
  /// |B_t| ≈ qn; Lemma 23 bounds |B_t| below). Provided to reproduce the paper's update.
  realised_batch,
};
const char* to_string(alg10_normaliser n);

/// Algorithm 10 (SWX+23 §6):
///   W^{(t+1)} = Π(W^{(t)} − η((1/b_t) Σ_{j∈B_t} clip_C(∇ℓ(W^{(t)}; x_j, y_j)) + G_t)),
///   G_t ~ N(0, σ² I_p), B_t Poisson with rate q, b_t = qn or |B_t| (alg10_normaliser),
/// returning the average (1/T) Σ_{t=1}^T W^{(t)} and the last iterate.
struct alg10_options {
  double sampling_rate = 0.1;  ///< q ∈ (0, 1]
  long steps = 100;            ///< T ≥ 1
  double learning_rate = 0.1;  ///< η > 0
  double clip = 1;             ///< C > 0
  double noise = 0;            ///< σ ≥ 0, the std of G_t per coordinate
  alg10_normaliser normaliser = alg10_normaliser::expected_batch;
  mlp_constraint constraint = mlp_constraint::around_init;
  double radius = 1;  ///< R (≥ 0; unused when constraint = none)
};

/// σ = z·C/(q·n): the noise std on the averaged clipped gradient that gives noise multiplier z
/// with the expected-batch normaliser (sensitivity C/(qn)). Throws std::domain_error unless
/// z ≥ 0, C > 0, q ∈ (0, 1], n ≥ 1, or where σ overflows (named as the clip norm C).
double alg10_noise_std(double noise_multiplier, double clip, double sampling_rate, std::size_t n);
/// SWX+23 Algorithm 10's printed noise std σ = c₂·qC√(T log(1/δ))/(|B_t| ε) with |B_t| = qn and
/// the unknown constant c₂ set to 1. Throws std::domain_error unless C > 0, q ∈ (0, 1], T ≥ 1,
/// δ ∈ (0, 1), n ≥ 1, ε > 0, or where σ overflows (named as the clip norm C).
double alg10_paper_noise_std(
    double clip, double sampling_rate, long long steps, double delta, std::size_t n, double epsilon);
/// SWX+23 Theorem 13's step size η = √L·R/(C·√(m·T)) for depth L, radius R, clip C, width m
/// and T steps. Throws std::domain_error unless every argument is positive (and finite), or
/// where η underflows to 0 (named as the clip norm C, the one that can be that large).
double alg10_theorem13_learning_rate(
    std::size_t depth, double radius, double clip, std::size_t width, long long steps);
/// z = σ·q·n/C, the inverse of alg10_noise_std.
double alg10_noise_multiplier(double noise_std, double clip, double sampling_rate, std::size_t n);

/// The noisy_gradient_options of Algorithm 10 with the expected-batch normaliser (batch_rule
/// poisson, clip C, noise σ, the projection of mlp_projection around w0).
noisy_gradient_options alg10_noisy_gradient_options(const mlp_model& f,
                                                    const alg10_options& o,
                                                    const vector& w0);

struct alg10_result {
  vector average;                            ///< (1/T) Σ_{t=1}^T W^{(t)}, the returned W̃_priv
  vector last;                               ///< W^{(T)}
  mlp_evaluation train_average, train_last;  ///< on the training set
  mlp_evaluation test_average, test_last;    ///< on the test set (zeros when none is given)
  std::size_t min_batch = 0;                 ///< min_t |B_t| (realised batches)
  double mean_batch = 0;                     ///< (1/T) Σ_t |B_t|
  /// max_t max_l ‖W^{(t)}_l − W0_l‖_F·√m: the largest per-layer distance from W0 in units of
  /// 1/√m (compare with R for around_init).
  double max_layer_distance = 0;
};

/// Runs Algorithm 10 from w0 on the training model f with randomness `key` (streams
/// stream_base + 2 for the batches and + 3 for the noise, as run_noisy_gradient: the two
/// normalisers see the SAME batches and the same standard normal draws). With the expected-batch
/// normaliser the run is run_noisy_gradient itself (iterate averaging through the observer);
/// the realised-batch variant is a separate loop with the same draws. `test` (optional) is
/// evaluated at the end. Throws std::domain_error on bad options or sizes.
alg10_result run_alg10(const mlp_model& f,
                       const alg10_options& o,
                       const vector& w0,
                       const random_key& key,
                       const dataset* test = nullptr);

// ---- the synthetic task
// --------------------------------------------------------------------------

/// A teacher on R^d: g(x) = Σ_k a_k σ(⟨v_k, x⟩) − b (two-layer ReLU; k = 1, …, K) or
/// g(x) = ⟨v_1, x⟩ (linear, K = 0 hidden units), labels y = sign g(x) (+1 at 0) flipped with
/// probability label_noise.
struct sphere_teacher {
  Eigen::MatrixXd directions;  ///< K×d (linear: 1×d), unit rows v_k
  vector weights;              ///< a_k (empty for the linear teacher)
  double offset = 0;           ///< b
  bool linear = false;
  /// g(x).
  double value(const_vector_ref x) const;
};

/// A random two-layer ReLU teacher: v_k uniform on the unit sphere, a_k = ±1/√K with alternating
/// signs, and b = E_x[Σ a_k σ(⟨v_k, x⟩)] for x uniform on the sphere — which is 0 for
/// alternating signs when K is even (E σ(⟨v, x⟩) does not depend on v): so b = 0 for even K and
/// b = (1/√K)·E σ(x_1) for odd K, with E σ(x_1) = Γ(d/2)/(2√π Γ((d+1)/2)). hidden = 0 gives the
/// linear teacher with v_1 uniform on the sphere. Throws std::domain_error if d < 1.
sphere_teacher random_sphere_teacher(std::size_t input_dimension,
                                     std::size_t hidden,
                                     random_stream& stream);

/// n examples with x uniform on the unit sphere S^{d−1} (x = z/‖z‖, z ~ N(0, I_d); ‖x‖ = 1 as
/// Assumption 4 and Lemma 20 take) and y = sign g(x) flipped with probability label_noise ∈
/// [0, 1/2]. Draws, per example: d normals, then one uniform (the flip). Throws
/// std::domain_error if n = 0 or label_noise ∉ [0, 1/2].
dataset sphere_teacher_data(std::size_t n,
                            const sphere_teacher& teacher,
                            double label_noise,
                            random_stream& stream);

/// Splits `data` into its first n_train examples and the rest. Throws std::domain_error unless
/// 1 ≤ n_train < n.
std::pair<dataset, dataset> train_test_split(const dataset& data, std::size_t n_train);

}  // namespace dpkit::learners
