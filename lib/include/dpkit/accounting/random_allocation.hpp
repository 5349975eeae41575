// dpkit/accounting/random_allocation.hpp — DP-SGD with random allocation ("balls in bins"):
// each example is used in exactly one step of each epoch, the step chosen uniformly at random
// and independently across epochs (Chua et al. 2025, arXiv:2412.16802 [CGH+25]; random
// 1-out-of-t allocation, Feldman & Shenfeld 2025, arXiv:2502.08202 [FS25]). Add/remove
// neighbours, clipping norm 1, noise multiplier σ, t = ⌈1/q⌉ steps per epoch (q = expected
// batch size / dataset size: batches have random sizes averaging qN).
//
// One epoch compares P = (1/t) Σ_j N(μe_j, I_t) with Q = N(0, I_t), μ = 1/σ; its likelihood ratio
// is W = S/t, S a sum of t i.i.d. log-normal terms. A partial last epoch of r < t steps releases
// the first r coordinates, with ratio (S_r + t − r)/t.
//
// * **PLD (certified bracket, tight).** Both directions' profiles are expectations of convex
//   functions of W, composed over epochs. A law of W that dominates the exact one in the convex
//   order (sums formed on the lattice {e^{kh}}, each split between its two neighbouring points
//   keeping its mean) bounds every profile from above; one it dominates (groups merged into their
//   means) from below (subsampling/allocation_pld.hpp; the approach of Feldman & Shenfeld 2026,
//   arXiv:2602.17284 [FS26], with second-order rounding). The ⌊T/t⌋ complete epochs and the
//   partial one are composed with the PLD engine on the same lattice (its discretisation is
//   then exact), both directions, the larger kept. h is chosen from the relative accuracy and
//   refined (at most three times) until the bracket is as narrow as asked; the floating-point
//   error of the laws' masses is carried through as a proven allowance.
// * **k of t (selected = k > 1).** Each example is in k of the t = ⌈k/q⌉ steps of an epoch,
//   the k-set uniform; the epoch's ratio is the U-statistic e_k(Y)/C(t, k). Upper bound: one of
//   two routes, composed with the same engine as k = 1 on its own lattice —
//   *composition* (FS26): a uniform k-set is a uniformly permuted choice of one step in each of
//   k blocks of ⌊t/k⌋ or ⌈t/k⌉ steps, and revealing the permutation only adds loss, so an epoch
//   is dominated by k allocations of 1 of ⌊t/k⌋ (and ⌈t/k⌉) steps composed; *convex order*
//   (Hoeffding 1963): a U-statistic is the average, over permutations, of the mean of ⌊t/k⌋
//   disjoint blocks' kernels, so it lies below that block mean in the convex order, which is
//   the ratio of 1 of ⌊t/k⌋ steps at σ/√k. The composition is provably at least as tight (its
//   ratio averages the block mean over independent permutations within the blocks) and serves
//   wherever the engine composes it (k·epochs ≤ 1e8), the convex order beyond. A partial last
//   epoch counts as a whole one (post-processing). Lower bound: the larger of two post-processings of the complete epochs —
//   the sum of an epoch's t coordinates, N(k/σ, t) against N(0, t), the Gaussian mechanism
//   μ = k/(σ√t) per epoch composed exactly (close where the noise is large), and the sliced
//   largest coordinate, Φ(m − 1/σ)^k Φ(m)^{t−k} against Φ(m)^t (subsampling/epoch_max_loss.hpp),
//   composed with the PLD engine (the better one where the noise is small).
// * **RDP (upper bound).** The epoch's Rényi divergence in both directions — the remove
//   direction exact at integer orders, the add direction by quadrature — composed over the
//   E = ⌈T/t⌉ epochs begun, at α = 2 … 40, converted to (ε, δ) with the best of the RDP
//   conversions (the `rdp` accountant's answer; looser than the PLD bracket's upper end).
#pragma once

#include "dpkit/accounting/pld_accountant.hpp"
#include "dpkit/accounting/shuffling.hpp"
#include "dpkit/accounting/training_run.hpp"
#include "dpkit/divergence/rdp.hpp"

namespace dpkit::accounting {

/// The bracket of an allocated phase: the same fields as a shuffled phase's.
using allocation_bracket = shuffling_bracket;

/// t = ⌈k/q⌉ (with a 1e-9 relative allowance for the rounding of q = k/t), the steps of an
/// epoch of random allocation at rate q ∈ (0, 1] with k ≥ 1 selected steps per example.
long long allocation_steps_per_epoch(double sampling_rate, long long selected);

/// The RDP curve of one allocated phase (σ ≥ 0.025, q ∈ (0, 1), T ≥ 1) at the orders 2 … 40:
/// ⌈T/t⌉ times the epoch's RDP (subsampling::allocation_epoch_rdp); for k > 1 the composition
/// route's (k allocations of 1 of ⌊t/k⌋ or ⌈t/k⌉ steps).
divergence::rdp_curve allocation_rdp_curve(const training_phase& phase);

/// ε bracket at δ ∈ (0, 1) of one allocated phase (certified PLD bracket, both sides).
/// options.grid_spacing > 0 fixes the log-lattice spacing h (one pass, no refinement).
allocation_bracket allocation_epsilon(const training_phase& phase,
                                      double delta,
                                      const pld_options& options = {});

/// δ bracket at ε ≥ 0 of one allocated phase.
allocation_bracket allocation_delta(const training_phase& phase,
                                    double epsilon,
                                    const pld_options& options = {});

/// The upper end of allocation_epsilon alone (half the cost; lower = 0), on the spacing
/// options.grid_spacing or, if 0, the first spacing allocation_epsilon would try: calibration's
/// inner evaluation.
allocation_bracket allocation_epsilon_upper(const training_phase& phase,
                                            double delta,
                                            const pld_options& options = {});

/// The first log-lattice spacing allocation_epsilon tries for this phase and accuracy.
double allocation_spacing(const training_phase& phase, double relative_accuracy);

/// The next, finer spacing after a bracket of width `width` at upper end `upper` on spacing h:
/// the gap is second order in h, so h·√(accuracy·upper/width)·0.9, at least halved, never below
/// the finest spacing used, 2e-5.
double allocation_refined_spacing(double h, double relative_accuracy, double upper, double width);

}  // namespace dpkit::accounting
