#pragma once
// ZXD+26 ("Understanding the Impact of Differentially Private Training on Memorization of
// Long-Tailed Data", Zhang et al. 2026): the data model of Definition 1, the two-layer ReLU "CNN"
// of eq. (1) with cross-entropy loss, DP-SGD of eq. (4) with the training-dynamics metrics of
// §5.2, and the long-tail protocol of Definition 3 (with Remark 6).
//
// ---- Data model (Definition 1; the synthetic instance of §5.1) ----------------------------------
// K orthogonal class signals u_k = U‖u_k‖e_k ∈ R^d (U a random orthogonal matrix) and
// class-dependent noise ξ = A_y ζ, A_k = U diag(a_k) Uᵀ with a_k[i] = 0 for i < K (0-based), so
// u_jᵀA_k = 0 for all j, k. ζ has i.i.d. unit-variance coordinates: N(0, 1) or
// Uniform(−√3, √3). One patch of x is u_y, the other ξ.
//
// THE U BASIS. Everything here is stored in the coordinates of U's columns: u_k = ‖u_k‖e_k and
// ξ = a_y ∘ ζ (a_y the spectrum, ∘ the entrywise product). This is exact, not an approximation:
// the network sees x only through inner products ⟨w, x^{(j)}⟩ = ⟨Uᵀw, Uᵀx^{(j)}⟩, the DP noise
// N(0, σ²I) and the Gaussian initialisation N(0, σ₀²I) are rotation invariant, and gradients
// are rotation equivariant, so training in the U basis from Uᵀw⁽⁰⁾ produces exactly Uᵀ of the
// trajectory in the original coordinates; with a Gaussian w⁽⁰⁾, Uᵀw⁽⁰⁾ has the same law as
// w⁽⁰⁾ and U never needs to be drawn. PyTorch's uniform initialisation is not rotation
// invariant: for it, `longtail_initial_weights` draws a Haar U and rotates the uniform draw
// (initialisation::rotate), reproducing the paper's construction exactly (O(d³) once).
// Consequences used throughout: ⟨w, u_k⟩ = ‖u_k‖ w[k] (O(1)), and ξ vanishes on coordinates
// 0..K−1 exactly (so u_k ⟂ ξ holds in floating point, not only in exact arithmetic).
//
// Patch position. F_k sums σ(⟨w_{k,r}, x^{(j)}⟩) over both patches with the same filters, so
// the position of the signal patch does not change any output, loss or gradient; it is
// not stored (conceptually the signal is patch 1).
//
// ---- Network (eq. 1) ----------------------------------------------------------------------------
// F_k(W, x) = (1/m) Σ_r [σ(⟨w_{k,r}, u_y⟩) + σ(⟨w_{k,r}, ξ⟩)], σ = ReLU with σ′(0) = 0,
// second layer fixed to 1/m; loss −log softmax_y(F) (log-sum-exp, stable for any F).
// Parameter layout: W ∈ R^{K·m·d}, filter w_{k,r} (class k, neuron r, both 0-based) is the
// contiguous block [(k·m + r)·d, (k·m + r + 1)·d) — i.e. the d × (K·m) column-major matrix
// whose column k·m + r is w_{k,r}.
//
// Gradient (exact, in closed form): ∇_{w_{k,r}} L = (1/m)(p_k − 1[y=k])(1[⟨w_{k,r},u_y⟩>0] u_y
// + 1[⟨w_{k,r},ξ⟩>0] ξ), and, because u_y ⟂ ξ,
// ‖∇L‖² = (1/m²) Σ_k (p_k − 1[y=k])² (N^u_k ‖u_y‖² + N^ξ_k ‖ξ‖²) ≤ 2(1 − p_y)²(‖u_y‖² + ‖ξ‖²)/m
// (N^u_k, N^ξ_k the numbers of neurons of class k activated by u_y, ξ).
//
// ---- DP-SGD (eq. 4) -----------------------------------------------------------------------------
// W ← W − (η/B) Σ_{i∈S_t} clip_C(∇L_i) + η n_t, n_t ~ N(0, σ_n² I_{Kmd}), run through
// run_noisy_gradient (algorithm.hpp) with noise = σ_n: that template performs
// x ← x − η(ḡ + σ Z), ḡ = (1/b)Σ clip_C(∇f_i), which is eq. (4) exactly (−ησ_n Z and +ηn_t have
// the same law; the noise is added to the averaged gradient, not divided by B). Batch rules:
// shuffled (uniform size-B subsets without replacement, b = B), poisson (rate q = B/n,
// normaliser qn = B, as DP-SGD implementations do) and full (b = n). Clean training: clip 0
// (no clipping) and σ_n = 0. clip_C(g) = g·min(1, C/‖g‖) over all Kmd parameters.
//
// Randomness (random.hpp streams): the caller passes streams. Convention used by the scenarios:
// stream 0 training data, 1 initial weights, 2/3 batches/noise (run_noisy_gradient, through a
// random_key), 5 test data, 6 tail samples.
//
// Nothing here knows a bound (docs/architecture.md, "Modules"): no Λ_k, no SNR/NCR thresholds, no
// constants.
#include <Eigen/Dense>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "dpkit/accounting/training_run.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/learners/engine.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/model.hpp"

namespace dpkit::learners {

// ---- noise spectra (A_k = U diag(a_k) Uᵀ)
// ----------------------------------------------------------

/// The coordinate law of ζ (unit variance, symmetric, sub-Gaussian; Def 1).
enum class zeta_law { gaussian, uniform };
/// "gaussian" or "uniform".
const char* to_string(zeta_law z);

/// Per-class spectra a_k ∈ R^d of A_k = U diag(a_k) Uᵀ: a K × d matrix, row k = a_k.
using noise_spectra = Eigen::MatrixXd;

/// The spiked construction (one consistent reading of ZXD+26 §5.1's recipe):
/// a_k[i] = 0 for i < K, a_k[i] = s for i ≥ K except the class spike a_k[K + k] = λ.
/// Requires d ≥ 2K (so every class has its own spike coordinate and one shared coordinate is
/// left), s > 0 and λ ≥ 0 finite; throws std::domain_error otherwise.
noise_spectra spiked_spectra(std::size_t classes, std::size_t dimension, double s, double lambda);

/// Norms of the noise matrices, computed from diagonal spectra (exact for A_k = U diag(a_k)Uᵀ):
/// ‖A_k‖_F² = Σ_i a_k[i]², ‖A_kᵀA_j‖_F² = Σ_i a_k[i]² a_j[i]², ‖A_k‖_op = max_i |a_k[i]|.
struct noise_norms {
  Eigen::VectorXd frobenius;         ///< ‖A_k‖_F = √Tr(A_kᵀA_k)
  Eigen::MatrixXd cross;             ///< (k, j) ↦ ‖A_kᵀA_j‖_F (diagonal: ‖A_kᵀA_k‖_F)
  Eigen::VectorXd operator_norm;     ///< ‖A_k‖_op
  Eigen::VectorXd smallest_nonzero;  ///< λ⁺_min(A_k), smallest non-zero |a_k[i]|
  Eigen::VectorXi rank;              ///< rank(A_k) = #{i : a_k[i] ≠ 0}
};
/// Throws std::domain_error if spectra is empty, has a non-finite entry, or is non-zero on
/// coordinates 0..K−1 (u_k would not be orthogonal to ξ).
noise_norms spectra_norms(const noise_spectra& spectra);

/// Closed forms of the spiked construction, with D = d − K:
/// ‖A_k‖_F² = s²(D − 1) + λ², ‖A_kᵀA_k‖_F² = s⁴(D − 1) + λ⁴,
/// ‖A_kᵀA_j‖_F² = s⁴(D − 2) + 2s²λ² (k ≠ j), ‖A_k‖_op = max(s, λ).
struct spiked_norms {
  double frobenius = 0;      ///< ‖A_k‖_F
  double self_cross = 0;     ///< ‖A_kᵀA_k‖_F
  double cross = 0;          ///< ‖A_kᵀA_j‖_F, k ≠ j
  double operator_norm = 0;  ///< ‖A_k‖_op
};
spiked_norms spiked_closed_form(std::size_t classes,
                                std::size_t dimension,
                                double s,
                                double lambda);

/// NCR_{k,j} = √|S_k| ‖A_kᵀA_k‖_F / (√|S_j| ‖A_kᵀA_j‖_F) (ZXD+26 §4) for the spiked
/// construction with balanced classes: √((s⁴(D−1) + λ⁴)/(s⁴(D−2) + 2s²λ²)), D = d − K.
double spiked_ncr(std::size_t classes, std::size_t dimension, double s, double lambda);

/// The spike λ ≥ s giving a target balanced NCR ≥ 1 in the spiked construction. With
/// x = λ²/s², NCR² = (D − 1 + x²)/(D − 2 + 2x) is increasing for x ≥ 1 (its derivative has the
/// sign of (x − 1)(x + D − 1)) with value 1 at x = 1, so λ = s√x with x the larger root of
/// x² − 2N²x + (D − 1) − N²(D − 2) = 0: x = N² + √(N⁴ + N²(D − 2) − (D − 1)) (closed form). NCR < 1
/// is unattainable in this construction (its minimum over λ ≥ 0 is 1 at λ = s: the
/// paper's NCR axis "from 0" cannot be reproduced; docs/longtail.md). Throws std::domain_error if
/// ncr < 1 or is not finite.
double spike_for_ncr(std::size_t classes, std::size_t dimension, double s, double ncr);

// ---- class counts -----------------------------------------------------------------------------

/// Counts |S_k| summing to n: balanced (n/K each, the remainder to the first classes).
std::vector<std::size_t> balanced_counts(std::size_t n, std::size_t classes);
/// Counts proportional to `frequencies` (non-negative, positive sum; normalised here) by the
/// largest-remainder rule (ties to the lower class index); they sum to n exactly.
std::vector<std::size_t> counts_from_frequencies(std::size_t n,
                                                 const std::vector<double>& frequencies);

// ---- data sets --------------------------------------------------------------------------------

/// A sample of Definition 1 in the U basis. Examples are stored class by class (all of class 0,
/// then class 1, …); labels[i] ∈ [0, K).
struct longtail_data {
  std::size_t classes = 0;       ///< K
  std::size_t dimension = 0;     ///< d
  Eigen::VectorXd signal_norms;  ///< ‖u_k‖, k = 0..K−1
  noise_spectra spectra;         ///< a_k (K × d)
  zeta_law law = zeta_law::gaussian;
  std::vector<int> labels;  ///< y_i
  Eigen::MatrixXd noise;    ///< d × n, column i = ξ_i = a_{y_i} ∘ ζ_i
  std::size_t size() const { return labels.size(); }
  /// Indices of the examples of class k.
  std::vector<std::size_t> class_indices(int k) const;
  /// |S_k| for every class.
  std::vector<std::size_t> class_counts() const;
};

/// What to generate.
struct longtail_data_options {
  std::size_t classes = 5;       ///< K
  std::size_t dimension = 1000;  ///< d
  Eigen::VectorXd signal_norms;  ///< ‖u_k‖ per class; empty → signal_norm for every class
  double signal_norm = 0.5;      ///< ‖u‖ when signal_norms is empty (Sec 5.1: equal norms)
  noise_spectra spectra;         ///< empty → spiked_spectra(K, d, 0.5, spike)
  double spike = 0.5;            ///< λ of the default spiked spectra
  zeta_law law = zeta_law::gaussian;
};

/// Draws |S_k| = counts[k] examples of each class k (class-by-class, ζ coordinates i.i.d. from
/// the law, consumed in storage order). Throws std::domain_error if the options are invalid
/// (K < 2, d < 2K for the default spectra, spectra of the wrong shape or non-zero on the first
/// K coordinates, a negative or non-finite signal norm, counts.size() ≠ K, all counts 0).
longtail_data generate_longtail_data(const longtail_data_options& options,
                                     const std::vector<std::size_t>& counts,
                                     random_stream& stream);

// ---- the network ----------------------------------------------------------------------------

/// Initialisation of the first layer.
struct initialisation {
  enum class kind {
    gaussian,        ///< w_{k,r} ~ N(0, σ₀² I_d) (ZXD+26 §3)
    pytorch_uniform  ///< U(−1/√d, 1/√d) per coordinate: PyTorch's nn.Linear default, fan_in = d
  };
  kind type = kind::gaussian;
  double sigma0 = 0.01;  ///< σ₀ for gaussian, in (0, 1e150]
  /// pytorch_uniform only: draw a Haar-random U (QR of a Gaussian matrix with the sign fix of
  /// Mezzadri 2007) and store Uᵀw, so the run equals the paper's construction in the original
  /// coordinates exactly (header comment). false: the uniform draw is used in the U basis
  /// directly (same mean and covariance, different higher moments).
  bool rotate = true;
};

/// W⁽⁰⁾ ∈ R^{K·m·d} in the layout above. Throws std::domain_error on zero sizes or σ₀ ≤ 0.
vector longtail_initial_weights(std::size_t classes,
                                std::size_t width,
                                std::size_t dimension,
                                const initialisation& init,
                                random_stream& stream);

/// A test point (or any point) of Definition 1 in the U basis: its label and its noise patch.
struct longtail_point {
  int label = 0;
  const_vector_ref noise;  ///< ξ ∈ R^d (zero on coordinates 0..K−1)
};

/// Per-example quantities of one forward pass (see `forward`).
struct longtail_forward {
  Eigen::VectorXd outputs;        ///< F_k(W, x), k = 0..K−1
  Eigen::VectorXd probabilities;  ///< softmax(F) ("logit" in the paper)
  double loss = 0;                ///< −log p_y
  int prediction = 0;             ///< argmax_k F_k (lowest index on ties)
  bool error = false;             ///< F_y < max_k F_k (ZXD+26 §4: ties are not errors)
  Eigen::VectorXi signal_active;  ///< N^u_k = #{r : ⟨w_{k,r}, u_y⟩ > 0}
  Eigen::VectorXi noise_active;   ///< N^ξ_k = #{r : ⟨w_{k,r}, ξ⟩ > 0}
  double gradient_norm = 0;       ///< ‖∇_W L‖₂ by the closed form (header comment)
};

/// The two-layer network of eq. (1) with cross-entropy loss on a training set, as a model of
/// the simulator (dimension K·m·d, examples n). `gradient` does not allocate (it keeps the two
/// inner products of filter (k, r) in g's own block as scratch before overwriting it).
class longtail_network final : public model {
 public:
  /// Throws std::domain_error if data is null or empty, width is 0, or the data are
  /// inconsistent (noise not d × n, labels out of range, spectra/norms of the wrong size).
  longtail_network(std::shared_ptr<const longtail_data> data, std::size_t width);

  std::size_t dimension() const override { return classes_ * width_ * dimension_; }
  std::size_t examples() const override { return data_->size(); }
  double loss(std::size_t i, const_vector_ref w) const override;
  void gradient(std::size_t i, const_vector_ref w, vector_ref g) const override;
  /// The batch's clipped gradient sum from the gradient's block structure (K·m filters, each
  /// active on ξ_i and on u_y's one coordinate): bit-identical to the per-example default where
  /// it reproduces Eigen's reductions (SSE2 builds without AVX or FMA), the default elsewhere.
  void clipped_gradient_sum(std::span<const std::size_t> batch,
                            const_vector_ref w,
                            double clip,
                            vector& sum,
                            vector& work) const override;
  /// "two-layer ReLU CNN (ZXD+26): K = 5, m = 100, d = 1000, n = 500 (gaussian zeta)".
  std::string describe() const override;
  /// (1/n) Σ loss, through one matrix product for all examples.
  double empirical_risk(const_vector_ref w) const override;

  const longtail_data& data() const { return *data_; }
  std::shared_ptr<const longtail_data> data_ptr() const { return data_; }
  std::size_t classes() const { return classes_; }            ///< K
  std::size_t width() const { return width_; }                ///< m
  std::size_t input_dimension() const { return dimension_; }  ///< d

  /// The filter w_{k,r} as a view into w.
  static const_vector_ref filter(
      const_vector_ref w, std::size_t k, std::size_t r, std::size_t width, std::size_t dimension);

  /// Outputs, probabilities, loss, prediction, activation counts and the closed-form gradient
  /// norm at a point (any label in [0, K), ξ of size d). Throws std::domain_error on a bad point.
  longtail_forward forward(const_vector_ref w, const longtail_point& x) const;
  /// The same for training example i.
  longtail_forward forward(const_vector_ref w, std::size_t i) const;

  /// F_k(W, x) for every k.
  Eigen::VectorXd outputs(const_vector_ref w, const longtail_point& x) const;
  /// softmax(F(W, x)).
  Eigen::VectorXd probabilities(const_vector_ref w, const longtail_point& x) const;

  /// Predictions argmax_k F_k for every example of `set` (which must have the same K, d).
  std::vector<int> predict(const_vector_ref w, const longtail_data& set) const;

  /// ‖∇_W L_i‖₂ by the closed form, and the bound (1 − p_y)√(2(‖u_y‖² +
  /// ‖ξ‖²)/m) it never exceeds.
  double gradient_norm(const_vector_ref w, std::size_t i) const;
  double gradient_norm_bound(const_vector_ref w, std::size_t i) const;
  /// h_i = 1/max(1, ‖∇L_i‖/C) (eq. 66); C = 0 means no clipping (h = 1).
  double clipping_multiplier(const_vector_ref w, std::size_t i, double clip) const;

  /// The K × n matrix of outputs F_k(W, x_i) for every example of `set` (one GEMM).
  Eigen::MatrixXd output_matrix(const_vector_ref w, const longtail_data& set) const;
  /// The (K·m) × n matrix of ⟨w_{k,r}, ξ_i⟩ (row k·m + r) for every example of `set`.
  Eigen::MatrixXd noise_alignments(const_vector_ref w, const longtail_data& set) const;

 private:
  std::shared_ptr<const longtail_data> data_;
  std::size_t classes_, width_, dimension_;
  Eigen::VectorXd noise_norms_sq_;  // ‖ξ_i‖²
};

/// Test error per class of a data set: errors[k] / counts[k] = P̂[F_y < max_j F_j | y = k]
/// (ZXD+26 §4), and over all examples.
struct class_errors {
  std::vector<std::size_t> errors, counts;
  std::size_t total_errors = 0, total = 0;
  double rate(int k) const;  ///< errors[k]/counts[k] (NaN for an empty class)
  double overall() const;    ///< total_errors/total
};
/// Errors of the network with weights w on `set` (optionally restricted to `subset`, indices
/// into set). `network` supplies K, m, d; `set` must have the same K and d.
class_errors test_errors(const longtail_network& network,
                         const_vector_ref w,
                         const longtail_data& set,
                         const std::vector<std::size_t>* subset = nullptr);

// ---- training (eq. 4) ------------------------------------------------------------------------

/// The DP-SGD run of eq. (4). Clean (non-DP) training: clip = 0, noise_std = 0.
struct longtail_training {
  double eta = 0.002;                         ///< η (Sec 5: 0.002)
  batch_rule batches = batch_rule::shuffled;  ///< shuffled, poisson or full
  std::size_t batch_size = 256;               ///< B (shuffled; poisson uses q = B/n)
  long steps = 0;                             ///< T; 0 → ⌈epochs·n/B⌉
  double epochs = 20;                         ///< used when steps = 0
  double clip = 1;                            ///< C (0: no clipping)
  double noise_std = 0;                       ///< σ_n, std of n_t per coordinate
  long record_every = 1;                      ///< record every this many steps (and at T)
  /// Also record the DP-noise part of memorisation for each training example at neuron
  /// `noise_track_neuron`: Σ_{s<t} ⟨−ησ_n Z_s(y_i, r), ξ_i⟩, replayed exactly from the noise
  /// stream (costs one extra Gaussian vector per step).
  bool track_noise_contribution = false;
  std::size_t noise_track_neuron = 0;
};

/// T = ⌈epochs·n/B⌉ (full batch: ⌈epochs⌉), or `steps` when positive.
long training_steps(const longtail_training& t, std::size_t n);
/// The options passed to run_noisy_gradient for this run (noise = σ_n, sampling_rate = B/n).
noisy_gradient_options to_noisy_gradient_options(const longtail_training& t, std::size_t n);

/// What the CLI must account for this run (the simulator does not call an accountant):
/// sampling rate q = B/n (1 for full batch), T steps, the sampling scheme, and C. The noise
/// multiplier z from the accountant gives σ_n = zC/B (docs/longtail.md): noise_std_for.
struct privacy_request {
  double sampling_rate = 1;  ///< q = B/n
  long long steps = 0;       ///< T
  /// without replacement (shuffled and full batches) or Poisson
  accounting::sampling_scheme scheme = accounting::sampling_scheme::without_replacement;
  double clip = 0;             ///< C
  std::size_t batch_size = 0;  ///< B (n for full batch)
  /// The run as the accountant takes it, at noise multiplier z = σ_n B / C: one phase of T steps
  /// at rate q with the scheme above.
  accounting::training_run run(double noise_multiplier) const;
};
privacy_request accounting_request(const longtail_training& t, std::size_t n);
/// σ_n = z·C/B: the std of the noise on the averaged clipped gradient for noise multiplier z
/// (docs/longtail.md).
double noise_std_for(double noise_multiplier, double clip, std::size_t batch_size);
/// z = σ_n·B/C, the inverse of noise_std_for, formed so that it does not overflow where z itself
/// is finite (σ_n·B overflowed at --clip 1e308, and z = inf certified ε = 0).
double noise_multiplier_for(double noise_std, double clip, std::size_t batch_size);
/// C√(T ln(1/δ))/(nε): Remark 4's calibration σ_n = O(·) WITHOUT its unknown constant (it is a
/// scale, not a calibrated noise; docs/longtail.md).
double remark4_noise_scale(
    double clip, long long steps, double dp_delta, std::size_t n, double epsilon);

/// One recorded point of the training dynamics (ZXD+26 §5.2's footnote, with the reading
/// w_{y_i,r}).
struct longtail_record {
  long step = 0;
  double training_loss = 0;   ///< L_S(W⁽ᵗ⁾)
  double training_error = 0;  ///< fraction of training examples misclassified
  /// ⟨w, u⟩ := (1/n) max_r Σ_i ⟨w_{y_i,r}, u_{y_i}⟩ (signal learning).
  double signal_learning = 0;
  /// ⟨w, ξ⟩ := (1/n) max_r Σ_i ⟨w_{y_i,r}, ξ_i⟩ (noise memorisation).
  double memorisation = 0;
  /// Mean over the training set of h_i = 1/max(1, ‖∇L_i‖/C) at W⁽ᵗ⁾ (1 without clipping).
  double mean_clip_multiplier = 1;
  double min_clip_multiplier = 1;
  /// Memorisation at the tracked neuron r₀: (1/n) Σ_i ⟨w_{y_i,r₀}, ξ_i⟩.
  double memorisation_tracked = 0;
};

struct longtail_run {
  vector weights;  ///< W⁽ᵀ⁾
  long steps = 0;  ///< T
  std::vector<longtail_record> records;
  /// With track_noise_contribution: per training example i, Σ_{t<T} ⟨−ησ_n Z_t(y_i, r₀), ξ_i⟩
  /// (the exact noise part of ⟨w⁽ᵀ⁾_{y_i,r₀}, ξ_i⟩; law N(0, η²σ_n²‖ξ_i‖²T)).
  Eigen::VectorXd noise_memorisation;
};

/// The training metrics at W (one record, step 0).
longtail_record measure(const longtail_network& network,
                        const_vector_ref w,
                        double clip,
                        std::size_t tracked_neuron = 0);

/// Runs eq. (4) from w0 with randomness `key` (batches stream_base + 2, noise stream_base + 3).
/// The result is run_noisy_gradient's on this network with to_noisy_gradient_options(options,
/// n). In SSE2 builds (x86-64 without AVX/FMA, the default) a structured loop that never forms a
/// dense per-example gradient computes it bit for bit, about 2× faster (longtail_training.cpp,
/// docs/performance.md); elsewhere run_noisy_gradient itself runs.
/// Throws std::domain_error on invalid options (η ≤ 0, B outside [1, n], record_every < 1,
/// negative clip or noise, a batch rule other than shuffled/poisson/full, w0 of wrong size).
longtail_run train_longtail(const longtail_network& network,
                            const longtail_training& options,
                            const_vector_ref w0,
                            const random_key& key);

// ---- long-tail protocol (Definition 3, Remark 6)
// --------------------------------------

/// Which first-layer weights define the memorised direction v_k = A_kᵀw (Def 3 leaves r open).
enum class tail_neuron {
  aggregate,       ///< w = Σ_r w_{k,r} (default; Lemma 25's aggregate over all m neurons)
  single,          ///< w = w_{k,r} for a given r
  most_memorising  ///< r = argmax_r Σ_{i∈S_k} ⟨w_{k,r}, ξ_i⟩ on the training set
};

/// The unit direction v̂_k = A_kᵀw/‖A_kᵀw‖ ∈ R^d (U basis; A_kᵀw = a_k ∘ w) for the clean model
/// w_clean. Throws std::domain_error if A_kᵀw = 0, k or r is out of range.
vector tail_direction(const longtail_network& network,
                      const_vector_ref w_clean,
                      int k,
                      tail_neuron choice = tail_neuron::aggregate,
                      std::size_t neuron = 0);

/// ζ′ = ⟨v̂_k, ζ⟩ of each example of class k in `set` (computed as ⟨a_k ∘ w, ζ⟩/‖a_k ∘ w‖ =
/// ⟨w, ξ⟩/‖A_kᵀw‖, exact), returned with the example indices.
struct tail_scores {
  std::vector<std::size_t> indices;  ///< examples of class k in set
  std::vector<double> scores;        ///< ζ′ for each
};
tail_scores tail_projections(const longtail_data& set, int k, const_vector_ref direction);

/// Indices of the examples of class k in `set` in the L-tail: ⟨v̂_k, ζ⟩ ≥ L (Def 3).
std::vector<std::size_t> tail_subset(const longtail_data& set,
                                     int k,
                                     const_vector_ref direction,
                                     double tail_L);

/// 1 − Φ(L): the exact tail frequency for Gaussian ζ (ζ′ ~ N(0, 1)); ≈ for other laws.
double tail_frequency(double tail_L);
/// E[z | z ≥ L] = φ(L)/(1 − Φ(L)) for z ~ N(0, 1) (the truncated-normal mean).
double truncated_normal_mean(double tail_L);
/// One draw of N(0, 1) truncated to [L, ∞), by inversion z = Φ̄⁻¹(U·Φ̄(L)) in log space (exact
/// up to rounding for any finite L, including deep tails).
double sample_truncated_normal(double tail_L, random_stream& stream);

/// Exact samples from the tail law T_k (Gaussian ζ only): ζ = z v̂ + (I − v̂v̂ᵀ)g,
/// g ~ N(0, I_d), z ~ N(0, 1) truncated to [L, ∞), ξ = a_k ∘ ζ (Definition 3). Returns a data
/// set of `count` examples of class k (same K, d, norms, spectra as `like`). Throws
/// std::domain_error if the law is not Gaussian or the direction has the wrong size / norm ≠ 1.
longtail_data sample_tail(const longtail_data& like,
                          int k,
                          const_vector_ref direction,
                          double tail_L,
                          std::size_t count,
                          random_stream& stream);

}  // namespace dpkit::learners
