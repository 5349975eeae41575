// dpkit/subsampling/epoch_max_loss.hpp — the privacy loss of the largest coordinate of one
// epoch of a batch-allocated Gaussian mechanism.
//
// One epoch of t steps in which a given example is used in exactly one step, chosen uniformly
// at random (shuffled fixed-size batches). Chua et al. 2024 ("How private are DP-SGD
// implementations?", ICML), with zero-out neighbours (the example's gradient replaced by 0) and
// clipping norm 1, let every other example's gradient be −1 and the differing one's +1. Shifted
// by the batch size, the epoch's releases are then, in units of the noise σ (μ = 1/σ),
//
//     P:  Z ~ N(2μ e_J, I_t)    against    Q:  Z ~ N(μ e_J, I_t),    J uniform on {1, …, t}.
//
// The pair's likelihood ratio has no tractable law. Its largest coordinate M = max_j Z_j has,
//
//     F_P(m) = Φ(m − 2μ) Φ(m)^{t−1},    F_Q(m) = Φ(m − μ) Φ(m)^{t−1},
//
// and so has M cut into slices: the slice holding M is a post-processing of the epoch, so its
// privacy profile is a *lower bound* on the epoch's (and any slicing is; finer slices get closer
// to M's own profile). The privacy loss here is that of the sliced M: one atom per slice, loss
// log(P(slice)/Q(slice)), slices of width ≈ 1e-3/μ over the bulk and two tail slices holding
// the rest (no mass is dropped). The masses are differences of the CDFs above, in log space.
#pragma once

#include <memory>

#include "dpkit/subsampling/privacy_loss.hpp"

namespace dpkit::subsampling {

/// Which pair of epoch laws: `shuffled` as above (Chua et al.'s zero-out pair); `allocated`
/// is random allocation ("balls in bins": each example in one uniformly chosen step of each
/// epoch, add/remove neighbours), P: N(μe_J, I_t) against Q: N(0, I_t) — the same maximum with
/// F_P(m) = Φ(m − μ) Φ(m)^{t−1}, F_Q(m) = Φ(m)^t.
enum class epoch_pair { shuffled, allocated };

/// The privacy loss of the sliced M for the pair above: 0 < μ ≤ 40, t = `steps_per_epoch` ≥ 1
/// (t = 1 is a sliced Gaussian mechanism G(μ)). `remove` is (P, Q) as written, `add` the
/// reverse pair (Q, P).
///
/// `used` ∈ (0, 1] (shuffled pair only): the chance that the example is in the epoch at all. A
/// loader that shuffles N examples into t = ⌊N/B⌋ batches of B and drops the rest (PyTorch's
/// drop_last) uses it with probability u = tB/N; when it is dropped, every batch holds B other
/// examples on both sides, so both laws are N(0, I_t) then: P = u·N(2μe_J, I_t) + (1 − u)·N(0, I_t)
/// against Q = u·N(μe_J, I_t) + (1 − u)·N(0, I_t), and F_P(m) = u·Φ(m − 2μ)Φ(m)^{t−1} +
/// (1 − u)·Φ(m)^t (F_Q alike with μ). A smaller u is a post-processing of a larger one (drop the
/// example with some further chance), so rounding u down keeps the bound a lower bound.
///
/// `selected` = k ≥ 1 (allocated pair only): random allocation of k of the t steps, k of the
/// coordinates shifted, F_P(m) = Φ(m − μ)^k Φ(m)^{t−k} (still a post-processing of the epoch,
/// so still a lower bound).
std::unique_ptr<privacy_loss> epoch_max_loss(double mu,
                                             long long steps_per_epoch,
                                             adjacency_direction direction,
                                             epoch_pair pair = epoch_pair::shuffled,
                                             double used = 1.0,
                                             long long selected = 1);

}  // namespace dpkit::subsampling
