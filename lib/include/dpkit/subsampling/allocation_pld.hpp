// dpkit/subsampling/allocation_pld.hpp — the privacy loss of one epoch of random allocation,
// bounded from both sides in convex order.
//
// One epoch of random allocation (each example in one uniformly chosen step of t; add/remove
// neighbours, clipping norm 1, noise multiplier σ, μ = 1/σ) compares P = (1/t) Σ_j N(μe_j, I_t)
// with Q = N(0, I_t). Its likelihood ratio is W = S/t, S = Σ_j Y_j, Y_j = e^{μx_j − μ²/2}
// i.i.d. log-normal under Q (E_Q[Y] = 1). When only the first r ≤ t steps of the epoch are
// released (a partial last epoch), the ratio of those coordinates is
//
//     W_r = (S_r + (t − r)) / t,    S_r = Y_1 + … + Y_r.
//
// Both directions' privacy profiles are expectations under Q of *convex* functions of W:
//
//     remove  δ(ε) = E_Q[(W − e^ε)₊],        add  δ(ε) = E_Q[(1 − e^ε W)₊],
//
// and so are those of any number of independent epochs composed (the function of each factor
// W_i, the others fixed, stays convex). A law that dominates the law of W in the convex order
// (a mean-preserving spread) therefore bounds both directions, composed, from above; a law
// dominated by it (a contraction: groups replaced by their means, Jensen) bounds them from
// below. This is the idea of Feldman & Shenfeld 2026 (arXiv:2602.17284, [FS26]) — compute the
// law of the sum of the t log-normal terms on a geometric grid — with dpkit's own rounding:
// FS26 round each sum up or down (first order in the spacing h); dpkit splits it between the two
// neighbouring grid points keeping its mean (upper side) or merges groups into their mean
// (lower side), so the error is second order in h.
//
// The sums are formed by doubling (S_{2m} = S_m + S_m', binary digits of r), each sum on the
// lattice {e^{kh}}: a pair e^{ah} + e^{bh}, b = a + d, equals e^{bh}(1 + e^{−dh}), whose place
// on the lattice depends on d alone (one table of d). Tails: on the upper side, mass above the
// point where its P-mass (E_Q[S; ·]) is below 1e-16 of the total is spread between that point
// and +∞ (a P-mass at infinite loss; the limit of spreads), and mass below the point where its
// Q-mass is below 1e-16 between 0 and that point; on the lower side both tails are merged into
// their means. Cost O(n²) per sum for n lattice points (n ≈ the log-range of Y over h).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "dpkit/subsampling/privacy_loss.hpp"

namespace dpkit::subsampling {

/// Which side of the convex order: `dominating` (a spread: upper bounds on every profile),
/// `dominated` (a contraction: lower bounds).
enum class convex_side { dominating, dominated };

/// A finite law of the epoch's likelihood ratio W under Q, bounding the exact law in the convex
/// order on `side`. Atoms are ascending in W.
struct allocation_ratio_law {
  convex_side side = convex_side::dominating;
  double grid = 0;           ///< the spacing h of log S the sums were formed on
  std::vector<double> loss;  ///< log W of each atom (ascending)
  std::vector<double> q;     ///< Q-probability of each atom
  std::vector<double> p;     ///< P-probability of each atom, E_Q[W; atom]
  double zero_mass = 0;      ///< Q(W = 0) (dominating side only)
  double infinite_mass = 0;  ///< P-mass at W = +∞ (dominating side only)
  /// Every p and q (and the two special masses) is within this relative error of the masses
  /// of a law that bounds W exactly (floating-point sums, proven worst case).
  double mass_error = 0;
  /// The mean-preserving splits are computed in long double (and a few first moments that the
  /// normal CDF's rounding puts just outside their cell are clamped); what that moves is at
  /// most mean_error = Σ mass·|ΔW| and ratio_error = Σ mass·|ΔW|/W. The remove profile
  /// E_Q[(W − e^ε)₊] is 1-Lipschitz in W and moves by at most mean_error; the add profile
  /// E_Q[(1 − e^ε W)₊] changes only where e^ε W < 1, by at most ratio_error (each per epoch
  /// composed: the other factors have mean 1).
  double mean_error = 0;
  double ratio_error = 0;
  /// Each loss is within 16 ulp of (|loss| + loss_scale) of its exact value (log t and the
  /// lattice products).
  double loss_scale = 0;
  std::size_t largest_lattice = 0;  ///< the largest lattice of a sum (the O(n²) cost's n)
};

/// The law above for μ ∈ (0, 40], t = `steps_per_epoch` ≥ 1, r = `released` ∈ [1, t] steps
/// released, on the log-spacing h ∈ [1e-5, 1]. Throws std::domain_error otherwise.
allocation_ratio_law allocation_epoch_ratio(
    double mu, long long steps_per_epoch, long long released, double h, convex_side side);

/// The privacy loss of a law of W in one direction: remove, Y = log W under P (P-masses p,
/// Q-masses q; W = ∞ is an infinite loss); add, Y = −log W under Q (P-masses q, Q-masses p;
/// W = 0 is an infinite loss). The atoms' losses on the dominating side are raised by a few ulp
/// so that floating-point rounding never puts one below its true place.
std::unique_ptr<privacy_loss> allocation_ratio_loss(std::shared_ptr<const allocation_ratio_law> law,
                                                    adjacency_direction direction);

}  // namespace dpkit::subsampling
