// dpkit/accounting/shuffling.hpp — DP-SGD with shuffled fixed-size batches: a certified
// bracket where no tight accountant is known.
//
// Most DP-SGD code shuffles the data every epoch and cuts it into t batches, so every example
// is used exactly once per epoch (the last batch may be smaller), and then reports the Poisson
// accountant's ε. With zero-out neighbours (one example's gradient replaced by 0: the batch
// size stays public, and this is the relation the Poisson add/remove number is read under, as
// in Chua et al. 2024) and clipping norm 1:
//
// * **Upper bound (no amplification).** Within an epoch the example enters one step, so for
//   each fixed order of the data the epoch is at most one Gaussian mechanism of sensitivity 1;
//   the shuffle is a mixture over orders, common to both datasets, and mixing cannot increase
//   a hockey-stick divergence (joint convexity). After E epochs begun, E = ⌈T/t⌉, the run is
//   (√E/σ)-GDP: the upper bound is that Gaussian's exact ε (certified, closed form).
// * **Lower bound (Chua et al. 2024, ICML, "How private are DP-SGD implementations?").** If
//   every other example has gradient −1 and the differing one +1 (zeroed out on the other
//   side), each epoch's releases are, in units of σ and shifted, N(2μe_J, I_t) against
//   N(μe_J, I_t), μ = 1/σ, J the step holding the example. The sliced largest coordinate of
//   each epoch is a post-processing (subsampling/epoch_max_loss.hpp); composing its privacy
//   loss over the ⌊T/t⌋ complete epochs (a partial epoch is not used) with the certified PLD
//   engine gives a certified lower bound on the mechanism's ε (the lower side of that engine's
//   bracket), in either direction; the larger is reported.
//
// A loader that drops the last, incomplete batch (PyTorch's drop_last: t = ⌊N/B⌋ batches of B,
// training_phase::steps_per_epoch) uses an example in an epoch only with probability u = t·q.
// The upper bound above still holds (an epoch that may skip the example is a mixture with the
// epoch that does not, common to both sides); the lower bound's epochs are the mixture
// u·(the pair above) + (1 − u)·N(0, I_t) on both sides (subsampling/epoch_max_loss.hpp).
//
// The truth lies between. When the lower bound exceeds the Poisson accountant's certified
// upper bound at the same σ, q, T, the Poisson number is provably wrong for this run (at
// σ = 1, q = 0.001, T = 5000, δ = 1e-6: shuffled ε ≥ 4.70, Poisson ε ≤ 0.392).
#pragma once

#include "dpkit/accounting/pld_accountant.hpp"
#include "dpkit/accounting/training_run.hpp"

namespace dpkit::accounting {

/// Steps per epoch t = ⌈1/q⌉ of a shuffled phase (q = batch size / dataset size; the ⌈·⌉
/// ignores rounding in 1/q below 1e-9 relative, so q = 0.01 gives 100).
long long shuffling_steps_per_epoch(double sampling_rate);

struct shuffling_bracket {
  double lower = NAN;             ///< certified lower bound (epoch maximum, Chua et al. 2024)
  double upper = NAN;             ///< certified upper bound (no amplification: (√E/σ)-GDP)
  long long steps_per_epoch = 0;  ///< t
  double used = 1;                ///< the chance an example is in an epoch: min(1, t·q), shuffling
  long long complete_epochs = 0;  ///< ⌊T/t⌋, composed for the lower bound
  long long epochs_begun = 0;     ///< ⌈T/t⌉, in the upper bound
  long long selected = 1;         ///< random allocation: k, the steps of an epoch an example is in
  /// Random allocation with k > 1: the route of the upper bound kept ("composition": FS26's k
  /// allocations of 1 of ⌊t/k⌋ or ⌈t/k⌉ steps; "convex order": one allocation of 1 of ⌊t/k⌋
  /// steps at σ/√k, Hoeffding 1963), and its spacing h.
  std::string route;
  /// Random allocation with k > 1: the lower bound kept ("sums": the epoch sums' Gaussian;
  /// "largest coordinates": the sliced epoch maximum).
  std::string lower_route;
  /// Random allocation: where δ was below what its PLD bracket takes (10^4 × its laws' certified
  /// rounding allowance at this run and spacing), that smallest δ; 0 otherwise.
  double delta_floor = 0;
  /// Random allocation: the laws' rounding allowance could not be formed at this noise
  /// multiplier and epoch length (its terms overflow), so the PLD bracket has no upper end.
  bool allowance_overflows = false;
  pld_diagnostics pld;            ///< of the lower bound's composition (the larger direction)
  termination_type termination = termination_type::converged;
  std::string message;  ///< why the lower bound's bracket stopped short, if it did
};

/// The Gaussian run whose guarantee is the upper bound: ⌈T/t⌉ full-batch steps of sensitivity 1
/// at the phase's σ ((√E/σ)-GDP). The RDP accountant's answer for a shuffled phase is this run's.
training_run shuffling_upper_run(const training_phase& phase);

/// ε bracket at δ ∈ (0, 1) of one shuffled phase (σ > 0, q ∈ (0, 1], T ≥ 1).
shuffling_bracket shuffling_epsilon(const training_phase& phase,
                                    double delta,
                                    const pld_options& options = {});

/// δ bracket at ε ≥ 0 of one shuffled phase.
shuffling_bracket shuffling_delta(const training_phase& phase,
                                  double epsilon,
                                  const pld_options& options = {});

}  // namespace dpkit::accounting
