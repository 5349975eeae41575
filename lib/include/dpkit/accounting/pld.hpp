// dpkit/accounting/pld.hpp — privacy-loss distributions on a grid, composed by FFT, with
// certified upper (pessimistic) and lower (optimistic) bounds on δ(ε).
//
// The quantity bounded is δ(ε) = E[(1 − e^{ε − S})₊], S = Y₁ + … + Y_T the sum of independent
// per-step privacy losses (BSA24 §D.5; GLW21). With X = e^{−Y}, δ(ε) = E[φ(X₁⋯X_T)] for
// φ(x) = (1 − e^ε x)₊, which is convex and decreasing in x. Hence:
//
//   pessimistic  Each grid cell [ℓ_i, ℓ_i + h] sends its mass to its two ends so that E[X] is
//                kept (a mean-preserving spread of X: "connect the dots"). By Jensen, and
//                because the decreasing-convex order is preserved by products of independent
//                variables, δ can only increase: an UPPER bound after any number of steps.
//   optimistic   The mass is cut into groups, each replaced by its conditional X-mean (a
//                contraction: δ can only decrease), and placed on a lattice shifted by θ,
//                rounded down (Y smaller: δ decreases): a LOWER bound. The groups are built
//                so that their means land on lattice points (pld_discretize.cpp): rounding
//                cells one by one would cost O(h²·|(log density)'|) per step, first order
//                where the density varies within a cell (the bulk of a subsampled Gaussian's
//                losses at small q is ~q wide).
//
// Both are second-order: the composed error is O(T·h²), not the O(T·h) of rounding losses up
// or down (which is why rounding-based optimistic bounds collapse to 0 for large T). Tails:
// per-step mass beyond the grid goes to +∞ (pessimistic) or is rounded down / dropped
// (optimistic); the composed distribution is computed on a window chosen by Chernoff bounds
// from the discretised moment generating functions, and the mass the window may miss (≤ τ on
// each side, certified) is added to the upper bound and subtracted from the lower bound.
// FFT round-off is bounded a priori, coefficient by coefficient (the FFT's per-level error, the
// power's amplification by the step count, the inverse transform), and the bound on each sum
// of points the query reads is added or subtracted (composed_pld::roundoff_bound; proven for
// Cooley–Tukey FFTs with a stated per-level error, docs/guarantees.md). A relative slack of
// max(1e-9, 1e-12·T) covers the rounding of cell masses and sums (measured ≤ 2e-13 per step
// against 24-digit references: an allowance, not a proof).
//
// Small δ: FFT errors are absolute, ~1e-16 of the largest entry, so on the plain distribution
// they swamp δ below ~1e-10. A query's focus (the ε of a δ query, the δ of an ε query) tilts
// the factors exponentially first (m_k ↦ m_k e^{λℓ_k}/M(λ); composition commutes with tilting),
// centring the FFT on the region the query reads; there the errors shrink by e^{K(λ) − λℓ} in
// probability units, and δ = 1e-14 is bracketed as tightly as δ = 1e-5.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dpkit/subsampling/privacy_loss.hpp"

namespace dpkit::accounting {

enum class pld_side { pessimistic, optimistic };

/// One discretised privacy-loss distribution: mass[k] at loss (first + k)·h + offset.
struct discrete_pld {
  pld_side side = pld_side::pessimistic;
  double h = 0;
  double offset = 0;    ///< lattice shift in [−h, h): 0 for pessimistic, θ for optimistic
  long long first = 0;  ///< lattice index of mass[0]
  std::vector<double> mass;
  double infinity_mass = 0;  ///< P(Y = +∞) after truncation (pessimistic only)
  double dropped_mass = 0;   ///< mass sent to −∞ (optimistic only)

  [[nodiscard]] double loss(std::size_t k) const {
    return (static_cast<double>(first) + static_cast<double>(k)) * h + offset;
  }
};

/// Discretises one step on the grid of spacing h. Per-step truncation: mass above the point
/// where P(Y > y) = tail_mass goes to +∞ (pessimistic) or onto the top grid point (optimistic);
/// mass below the point where P(Y ≤ y) = tail_mass goes onto the bottom grid point
/// (pessimistic) or to −∞ (optimistic). h ≥ 1e-10 (finer grids lose their bounds to the
/// rounding of the cell masses), tail_mass ∈ (0, 1e-3].
discrete_pld discretize(const subsampling::privacy_loss& loss,
                        double h,
                        pld_side side,
                        double tail_mass);

/// Both sides at once, sharing the (dominant) cost of the CDF evaluations.
std::pair<discrete_pld, discrete_pld> discretize_both(const subsampling::privacy_loss& loss,
                                                      double h,
                                                      double tail_mass);

/// A factor of a composition: a discretised step taken `count` times.
struct pld_factor {
  const discrete_pld* pld = nullptr;
  long long count = 1;
};

/// Where a composition must be accurate: at most one of the two is set (neither: no tilt).
struct compose_focus {
  double epsilon = NAN;  ///< a δ(ε) query at this ε
  double delta = NAN;    ///< an ε(δ) query at this δ
  /// The relative error of the answer (ε for a δ focus, δ for an ε focus) that the certified
  /// round-off corrections may cost before the composition is tilted instead (a tilted FFT is
  /// up to 4× dearer). NaN: 1e-4. The PLD accountant passes 0.1 × its relative accuracy.
  double tolerance = NAN;
  /// Compose tilted without trying the untilted composition first (the query's composition at
  /// a coarser grid was tilted). Either is certified; this only saves the untilted FFT.
  bool tilt_first = false;
};

/// The FFT size compose() uses for a window of `points` lattice points: the next power of two,
/// at least 64.
std::size_t fft_size_for(std::size_t points);

/// The composed distribution on a window, with the certified corrections of its side.
///
/// Exponential tilting: `mass` holds the composition of the tilted factors m_k e^{λ ℓ_k}/M(λ),
/// λ = `tilt` ≥ 0, which is the tilted composition; the probability at ℓ_k is
/// mass[k]·e^{K(λ) − λ ℓ_k} (K = `log_scale`). The tilt centres the FFT's window on the focus,
/// so FFT round-off and wrap-around — absolute errors relative to the largest entry — shrink by
/// e^{K(λ) − λℓ} in original units where the query looks (ℓ above the focus), instead of
/// swamping δ below ~1e-10. Without a focus, λ = 0 and mass[] are probabilities.
struct composed_pld {
  pld_side side = pld_side::pessimistic;
  double h = 0;
  double offset = 0;         ///< Σ count·offset of the factors
  long long first = 0;       ///< lattice index of mass[0]
  std::vector<double> mass;  ///< tilted masses after the inverse FFT (tiny negative round-off)
  double tilt = 0;           ///< λ ≥ 0
  double log_scale = 0;      ///< K(λ), the composition's cumulant generating function at λ
  double infinity_mass = 0;  ///< composed mass at +∞ (pessimistic)
  double above_bound = 0;    ///< certified P(S > window top), probability units
  double below_bound = 0;    ///< certified P(S < window bottom), probability units
  double wrap_bound = 0;     ///< certified tilted mass outside the window (may wrap around)
  /// FFT round-off, tilted units: the part that may differ from point to point (the inverse
  /// transform's own rounding and the final scaling), bounded per point.
  double roundoff = 0;
  /// The spectrum's round-off, carried to sums over contiguous points (roundoff_bound).
  /// spectral_prefix[k] = Σ_{k'<k} e_{k'}/n, spectral_tail[k] = Σ_{k'≥k} e_{k'}/(n sin(πk'/n)),
  /// over the full spectrum's frequencies 0..n/2 (inner ones counted twice), e the bound on the
  /// error of each coefficient of the product of transforms. Empty: no FFT.
  std::vector<double> spectral_prefix, spectral_tail;
  std::size_t fft_size = 0;
  /// The span of losses the FFT had to hold (the Chernoff window, or one step's cells where
  /// wider), which fft_size rounds up to a power of two: fft_size·h ≥ span.
  double span = 0;
  /// Relative allowance for the rounding of the discretisation (cell masses, sums): measured,
  /// not proven; max(1e-9, 1e-12 × steps) (pld.cpp, kFloatingSlack).
  double floating_slack = 1e-9;
  /// epsilon(focus_delta), computed when compose() chose this composition (NaN: none).
  double focus_delta = NAN, focus_epsilon = NAN;

  /// A certified bound on |Σ_{j∈A} a_j·err_j| over a contiguous block A of points with weights
  /// 0 ≤ a_j, Σ a_j ≤ sum and max a_j ≤ peak, where the weights are unimodal along A (the δ
  /// weights are): err the FFT round-off in tilted units. By summation by parts,
  /// |Σ_A a_j ω^{jk}| ≤ min(sum, peak/sin(πk/n)) for each frequency k.
  [[nodiscard]] double roundoff_bound(double sum, double peak) const {
    if (!(sum > 0)) return 0.0;
    const double pointwise = roundoff * sum;  // at every point
    if (spectral_prefix.empty()) return pointwise;
    const std::size_t nc = spectral_prefix.size() - 1;
    // Frequencies k < split take Σa, the others max a / sin(πk/n): min(Σa, max a / sin) is at
    // most either, so every split gives a valid bound; the best is where the two cross,
    // k* = (n/π) asin(peak/sum), and sin x ≤ x puts this one a little above it.
    std::size_t split = nc;
    if (peak < sum) {
      const double k =
          std::floor(static_cast<double>(fft_size) * 0.3183098861837907 * (peak / sum));
      split = std::min(nc, static_cast<std::size_t>(k) + 1);
    }
    return pointwise + sum * spectral_prefix[split] + peak * spectral_tail[split];
  }

  [[nodiscard]] double loss(std::size_t k) const {
    return (static_cast<double>(first) + static_cast<double>(k)) * h + offset;
  }
  /// e^{K(λ) − λ ℓ_k}: tilted to probability units (1 without tilt; capped at e^{700}: beyond,
  /// a point's bound is useless anyway and is clamped).
  [[nodiscard]] double weight(std::size_t k) const {
    if (tilt == 0) return 1.0;
    return std::exp(std::min(700.0, log_scale - tilt * loss(k)));
  }
  /// The probability at ℓ_k (pessimistic: negative round-off clipped to 0), at most 1.
  [[nodiscard]] double probability(std::size_t k) const { return probability(k, weight(k)); }
  /// The same with weight(k) given (the sweeps below need both: one exponential, not two).
  [[nodiscard]] double probability(std::size_t k, double w) const {
    const double m = side == pld_side::pessimistic ? std::max(mass[k], 0.0) : mass[k];
    return std::min(1.0, m * w);
  }

  /// The certified bound of this side on δ(ε) (upper for pessimistic, lower for optimistic),
  /// never below 0 nor above 1.
  [[nodiscard]] double delta(double epsilon) const;
  /// The same bound at every ε of an ascending list, in one sweep: O(window + ε count).
  [[nodiscard]] std::vector<double> delta(std::span<const double> ascending_epsilons) const;
  /// Pessimistic: an ε ≥ 0 whose upper δ bound is ≤ delta — the smallest on the lattice
  /// segments (+∞ when even the corrections exceed delta). Optimistic: the largest ε ≥ 0 whose
  /// lower δ bound is > delta (a lower bound on ε; 0 when none).
  [[nodiscard]] double epsilon(double delta) const;
};

/// A grid that does not fit the FFT limit: `needed` is the points (or one step's cells) it would
/// take. Both scale as 1/h, so a caller coarsening the grid can tell how far it must go.
struct fft_limit_error : std::length_error {
  fft_limit_error(const std::string& what, double needed_points)
      : std::length_error(what), needed(needed_points) {}
  double needed;
};

/// Composes the factors (all of the same side and spacing h) by FFT: the product of their
/// transforms raised to their counts. tail_bound ∈ (0, 1e-3]: the window is chosen so that
/// the (tilted) discretised composition has at most this much mass beyond each of its ends.
/// With a focus, the factors are tilted first (see composed_pld). max_fft_size bounds memory
/// (16 bytes per point); beyond it, fft_limit_error (a std::length_error).
composed_pld compose(std::span<const pld_factor> factors,
                     double tail_bound,
                     std::size_t max_fft_size,
                     const compose_focus& focus = {});

}  // namespace dpkit::accounting
