// dpkit/accounting/random_allocation.hpp — DP-SGD with random allocation ("balls in bins"):
// each example is used in exactly one step of each epoch, the step chosen uniformly at random
// and independently across epochs (Chua et al. 2025, arXiv:2412.16802 [CGH+25]; random
// 1-out-of-t allocation, Feldman & Shenfeld 2025, arXiv:2502.08202 [FS25]). Add/remove
// neighbours, clipping norm 1, noise multiplier σ, t = ⌈1/q⌉ steps per epoch (q = expected
// batch size / dataset size: batches have random sizes averaging qN).
//
// One epoch compares P = (1/t) Σ_j N(μe_j, I_t) with Q = N(0, I_t), μ = 1/σ
// (subsampling/allocation_rdp.hpp). A partial last epoch of r < t steps releases the first r
// coordinates of that epoch: a post-processing of a whole epoch.
//
// * **Upper bound (RDP).** The epoch's Rényi divergence in both directions — the remove
//   direction exact at integer orders, the add direction by quadrature — composed over the
//   E = ⌈T/t⌉ epochs begun, at α = 2 … 40, converted to (ε, δ) with the best of the RDP
//   conversions (the same as for the other schemes). Certified up to the quadrature's
//   tolerance (a relative allowance of 1e-9 is added).
// * **Lower bound (epoch maximum).** The sliced largest coordinate of each epoch is a
//   post-processing (subsampling/epoch_max_loss.hpp, pair `allocated`); composed over the
//   ⌊T/t⌋ complete epochs with the certified PLD engine, its lower side, both directions, the
//   larger kept.
//
// The upper bound is not tight: RDP conversion loses some, and the orders stop at 40 (the
// partitions of α grow fast). Feldman & Shenfeld 2026 (arXiv:2602.17284) compute the PLD of
// random allocation itself; dpkit does not yet.
#pragma once

#include "dpkit/accounting/pld_accountant.hpp"
#include "dpkit/accounting/shuffling.hpp"
#include "dpkit/accounting/training_run.hpp"
#include "dpkit/divergence/rdp.hpp"

namespace dpkit::accounting {

/// The bracket of an allocated phase: the same fields as a shuffled phase's (`upper` from RDP).
using allocation_bracket = shuffling_bracket;

/// The RDP curve of one allocated phase (σ ≥ 0.025, q ∈ (0, 1), T ≥ 1) at the orders 2 … 40:
/// ⌈T/t⌉ times the epoch's RDP (subsampling::allocation_epoch_rdp).
divergence::rdp_curve allocation_rdp_curve(const training_phase& phase);

/// ε bracket at δ ∈ (0, 1) of one allocated phase; `rdp` the upper bound's RDP answer.
allocation_bracket allocation_epsilon(const training_phase& phase,
                                      double delta,
                                      const pld_options& options = {});

/// δ bracket at ε ≥ 0 of one allocated phase.
allocation_bracket allocation_delta(const training_phase& phase,
                                    double epsilon,
                                    const pld_options& options = {});

}  // namespace dpkit::accounting
