#pragma once
// Noisy first-order algorithms of the reference simulator, all on one template
// (BSA24 eq. (2.1), WSK+26 Algorithm 1, LKSP25 Algorithm 1):
//
//   X_{k+1} = Π_K[ X_k − η_k ( ḡ_k + ω X_k + σ (Z_{k+1} − λ Z_k) ) ],   Z_k ~ N(0, I_p) i.i.d.,
//   ḡ_k = (1/b) Σ_{i ∈ B_k} clip_C(∇f_i(X_k)),   clip_C(g) = g · min(1, C/‖g‖),   Z_0 = 0,
//
// k = 0, …, T−1. The batch rule picks B_k and the normaliser b:
//   full        NoisyGD: B_k = [n], b = n;
//   cyclic      NoisyCGD: a fixed partition of [n] (in `order`, default 0..n−1) into l = n/b
//               consecutive batches of size b, used in turn (batch k mod l);
//   shuffled    NoisySGD: a uniformly random size-b subset, independent over k;
//   poisson     DP-SGD: each example independently with probability q, b = q·n (the expected
//               batch size, as DP-SGD implementations normalise);
//   one_pass    LKSP25 Algorithm 1: step k uses example order[k] alone (b = 1), T ≤ n.
// λ = 0 is independent noise; λ ∈ (0, 1) the correlated noise ξ_t = σ(Z_t − λZ_{t−1}) of
// DP-λCGD (WSK+26 §3.2, with σ = C_clip·κ/B there). Langevin Monte Carlo is NoisyGD with n = 1
// and σ = √(2/η) (lmc_options). ω ≥ 0 is weight decay: the gradient of (ω/2)‖x‖² added after
// the clipping, so X_k is multiplied by 1 − η_k ω before the step, as in BSA24 §D.2's MNIST runs
// (θ ← (1 − ηλ)θ − η(ḡ + σξ)); a ridge term in the model is clipped with the loss instead.
// Only the iterates are produced; nothing here knows any bound.
//
// Randomness: stream key (seed, replicate) with stream numbers stream_base + 2 (batches) and
// stream_base + 3 (noise) — random.hpp's convention. Two runs that must be independent (the
// pair on D and D′) use different stream_base values.
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "dpkit/sim/model.hpp"

namespace dpkit::sim {

/// Projection onto a closed convex set K: none (K = R^p), a Euclidean ball, a box, or a product
/// of balls on disjoint coordinate blocks.
struct projection {
  enum class kind { none, ball, box, block_balls };
  kind type = kind::none;
  vector center;        // ball; block_balls (size p: the centre of block k is its slice)
  double radius = 0;    // ball
  vector lower, upper;  // box
  // block_balls: block k is the slice [block_offsets[k], block_offsets[k] + block_sizes[k]),
  // with radius block_radii[k]; coordinates outside every block are unconstrained.
  std::vector<std::size_t> block_offsets, block_sizes;
  std::vector<double> block_radii;

  static projection none() { return {}; }
  static projection ball(vector center, double radius);
  static projection box(vector lower, vector upper);
  /// K = {x : ‖x_k − c_k‖ ≤ r_k for every block k} (x_k the slice of block k). K is a product of
  /// sets over disjoint coordinate blocks, so the Euclidean projection acts block by block:
  /// x_k ← c_k + (x_k − c_k)·min(1, r_k/‖x_k − c_k‖), other coordinates unchanged. This is the
  /// per-layer constraint of SWX+23 Algorithm 10 (docs/nonconvex.md). Throws
  /// std::domain_error if the three lists differ in length, a block is empty, blocks overlap
  /// or leave [0, center.size()), or a radius or a centre entry is negative/not finite.
  static projection block_balls(vector center,
                                std::vector<std::size_t> offsets,
                                std::vector<std::size_t> sizes,
                                std::vector<double> radii);
  /// x ← Π_K(x).
  void apply(vector_ref x) const;
  /// The diameter of K (∞ for none, and for block_balls whose blocks do not cover every
  /// coordinate; otherwise 2√(Σ_k r_k²)).
  double diameter() const;
};

enum class batch_rule { full, cyclic, shuffled, poisson, one_pass };
const char* to_string(batch_rule b);

/// The learning rate η_k of step k = 0, 1, …; empty → the constant learning_rate.
using learning_rate_schedule = std::function<double(long step)>;

struct noisy_gradient_options {
  batch_rule batches = batch_rule::full;
  std::size_t batch_size = 0;       // b for cyclic and shuffled
  double sampling_rate = 0;         // q for poisson
  /// poisson: divide the clipped sum by the realised batch size |B_k| (an empty batch: by 1, so
  /// the step is noise only) instead of the expected qn — SWX+23 Algorithm 10 as printed.
  bool realised_batch_mean = false;
  std::vector<std::size_t> order;   // cyclic partition / one-pass order (default 0..n−1)
  long steps = 1;                   // T
  double learning_rate = 0.1;       // η (constant)
  learning_rate_schedule schedule;  // η_k (overrides learning_rate when set)
  double noise = 0;                 // σ: standard deviation per coordinate of Z
  double correlation = 0;           // λ ∈ [0, 1)
  double clip = 0;                  // C > 0 clips per-example gradients; 0: no clipping
  double weight_decay = 0;          // ω ≥ 0, added after the clipping
  projection constraint;            // K
};

/// Checks the options against a model (sizes, ranges); throws std::domain_error.
void check_options(const noisy_gradient_options& o, const model& f);

/// Langevin Monte Carlo X_{k+1} = Π_K(X_k − η∇F(X_k) + √(2η) Z) (BSA24 Prop 5.1, §8 A4):
/// NoisyGD on a one-example model with σ = √(2/η).
noisy_gradient_options lmc_options(double eta, long steps, projection constraint = {});

/// Where a run draws its randomness.
struct random_key {
  std::uint64_t seed = 0;
  std::uint64_t replicate = 0;
  std::uint64_t stream_base = 0;
};

/// Called after every step with (k + 1, X_{k+1}); also once with (0, X_0) before the first step.
using step_observer = std::function<void(long step, const vector& x)>;

/// Runs the template from x0 and returns X_T. `observe` (optional) sees the trajectory, so
/// risks along it are streamed without storing iterates.
vector run_noisy_gradient(const model& f,
                          const noisy_gradient_options& o,
                          const_vector_ref x0,
                          const random_key& key,
                          const step_observer& observe = {});

/// Noisy homogenized SGD (LKSP25 eq. (1)) by Euler–Maruyama, in the eigenbasis of Σ (all
/// vectors are coordinates in that basis, so every step is O(d)):
///   dX = −γ(t)(A X − Σ x̃) dt + γ(t) √((2 P(X) Σ + σ² I)/d) dB,   A = Σ + δI,
///   P(x) = ½((x − x̃)ᵀ Σ (x − x̃) + E w²)  (population risk; R = P + (δ/2)‖x‖²).
struct hsgd_sde {
  vector eigenvalues;                     // λ_i of Σ (≥ 0)
  vector target;                          // x̃ in the eigenbasis
  double ridge = 0;                       // δ
  double label_noise = 0;                 // E w²
  double noise = 0;                       // σ (DP noise)
  std::function<double(double t)> gamma;  // γ(t); empty → constant 1
  double population_risk(const_vector_ref x) const;
};

/// Integrates from x0 on [0, horizon] with step dt (the last step is shortened to land on the
/// horizon); `observe(k, t, X)` after each step and at t = 0. Returns X at the horizon.
vector run_hsgd_euler_maruyama(
    const hsgd_sde& sde,
    const_vector_ref x0,
    double horizon,
    double dt,
    const random_key& key,
    const std::function<void(long k, double t, const vector& x)>& observe = {});

}  // namespace dpkit::sim
