// Internal: what the two epoch schemes (shuffling.cpp, random_allocation.cpp) share — the
// layout of a phase into epochs of t = ⌈1/q⌉ steps, and the certified lower bound from the
// sliced epoch maximum composed over the complete epochs.
#pragma once

#include <algorithm>
#include <span>
#include <string>
#include <vector>

#include "dpkit/accounting/random_allocation.hpp"
#include "dpkit/accounting/shuffling.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/subsampling/epoch_max_loss.hpp"

namespace dpkit::accounting::detail {

/// The smallest noise multiplier the epoch schemes take: the sliced epoch maximum needs
/// μ = 1/σ ≤ 40 (epoch_max_loss); at such σ even one epoch without amplification, G(40), has ε in
/// the hundreds at any useful δ.
inline constexpr double kSmallestEpochNoise = 0.025;

/// Validates one epoch-sampled phase (`what`: "shuffled batches" or "random allocation", for
/// messages) and fills steps_per_epoch (the phase's, or ⌈1/q⌉), used, complete_epochs and
/// epochs_begun.
inline shuffling_bracket epoch_layout(const char* fn, const training_phase& p, const char* what) {
  training_run run;
  run.phases.push_back(p);
  run.validate(fn);
  if (p.noise_multiplier < kSmallestEpochNoise)
    throw_domain_error(fn, "noise_multiplier", p.noise_multiplier,
                       std::string(">= 0.025 for ") + what);
  shuffling_bracket b;
  b.selected = p.selected;
  b.steps_per_epoch = p.steps_per_epoch > 0 ? p.steps_per_epoch
                      : p.sampling == sampling_scheme::random_allocation
                          ? allocation_steps_per_epoch(p.sampling_rate, p.selected)
                          : shuffling_steps_per_epoch(p.sampling_rate);
  // The chance an example is in an epoch: below 1 only for shuffled batches that drop the last,
  // incomplete one (t·q < 1; a t·q within 2^-50 of 1 is a loader that uses every example, t·B
  // = N, up to the rounding of q = B/N and of the product). Rounded down by 1e-15 relative: a
  // smaller chance keeps the lower bound one.
  const double used = static_cast<double>(b.steps_per_epoch) * p.sampling_rate;
  if (p.sampling == sampling_scheme::shuffling && used < 1 - 0x1p-50)
    b.used = used * (1 - 1e-15);
  b.complete_epochs = p.steps / b.steps_per_epoch;
  b.epochs_begun = (p.steps + b.steps_per_epoch - 1) / b.steps_per_epoch;
  // The PLD engine composes at most 1e8 factors (its rounding allowance grows with the count).
  if (b.complete_epochs > 100000000)
    throw_domain_error(fn, "steps", format_value(p.steps),
                       std::string("at most 1e8 epochs of ") + what + " (steps / ceil(1/q))");
  return b;
}

/// b.lower: the epoch maximum of `pair`, composed over b.complete_epochs by `composed` (one
/// direction's PLD answer), the lower side of both directions, the larger kept, and capped at
/// b.upper (both certified). 0 without a complete epoch. The status of a composition that
/// stopped short is kept in b.
template <class Composed>
void epoch_max_lower_bound(shuffling_bracket& b,
                           const training_phase& p,
                           subsampling::epoch_pair pair,
                           Composed&& composed) {
  b.lower = 0;  // without a complete epoch nothing is certified from below
  if (b.complete_epochs == 0) return;
  for (const auto d :
       {subsampling::adjacency_direction::remove, subsampling::adjacency_direction::add}) {
    const std::vector<loss_factor> f = {
        {subsampling::epoch_max_loss(1 / p.noise_multiplier, b.steps_per_epoch, d, pair, b.used,
                                     pair == subsampling::epoch_pair::allocated ? b.selected : 1),
         b.complete_epochs}};
    const auto r = composed(std::span<const loss_factor>(f));
    if (!r.converged()) {
      b.termination = r.termination;
      b.message = r.message;
    }
    // The diagnostics (grid spacing, FFT size) of the direction that gave the lower bound, or
    // of the first one where neither is above 0 (at σ = 1e6 both are, and the method said
    // "h = nan").
    if (r.lower > b.lower || !(b.pld.grid_spacing > 0)) b.pld = r;
    if (r.lower > b.lower) b.lower = r.lower;
  }
  b.lower = std::min(b.lower, b.upper);
}

}  // namespace dpkit::accounting::detail
