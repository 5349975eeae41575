#include "dpkit/accounting/random_allocation.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "dpkit/core/check.hpp"
#include "dpkit/subsampling/allocation_rdp.hpp"
#include "dpkit/subsampling/epoch_max_loss.hpp"

namespace dpkit::accounting {
namespace {

allocation_bracket setup(const char* fn, const training_phase& p) {
  training_run run;
  run.phases.push_back(p);
  run.validate(fn);
  if (p.sampling_rate >= 1)
    throw_domain_error(fn, "sampling_rate", p.sampling_rate,
                       "< 1 (the full batch is the Gaussian mechanism)");
  // μ = 1/σ ≤ 40 (allocation_rdp, epoch_max_loss).
  if (p.noise_multiplier < 0.025)
    throw_domain_error(fn, "noise_multiplier", p.noise_multiplier,
                       ">= 0.025 for random allocation");
  allocation_bracket b;
  b.steps_per_epoch = shuffling_steps_per_epoch(p.sampling_rate);
  b.complete_epochs = p.steps / b.steps_per_epoch;
  b.epochs_begun = (p.steps + b.steps_per_epoch - 1) / b.steps_per_epoch;
  if (b.complete_epochs > 100000000)
    throw_domain_error(fn, "steps", format_value(p.steps),
                       "at most 1e8 epochs of random allocation (steps / ceil(1/q))");
  return b;
}

divergence::rdp_curve curve_of(const training_phase& p, const allocation_bracket& b) {
  const std::vector<double> epoch =
      subsampling::allocation_epoch_rdp(1 / p.noise_multiplier, b.steps_per_epoch, 40);
  std::vector<double> orders, values;
  for (std::size_t i = 0; i < epoch.size(); ++i) {
    orders.push_back(static_cast<double>(i + 2));
    values.push_back(static_cast<double>(b.epochs_begun) * epoch[i]);
  }
  return divergence::rdp_curve::at_orders(std::move(orders), std::move(values));
}

// The lower side: the epoch maximum composed over the complete epochs, both directions.
template <class Composed>
void lower_bound(allocation_bracket& b, const training_phase& p, Composed&& composed) {
  b.lower = 0;  // without a complete epoch nothing is certified from below
  if (b.complete_epochs == 0) return;
  for (const auto d :
       {subsampling::adjacency_direction::remove, subsampling::adjacency_direction::add}) {
    const std::vector<loss_factor> f = {
        {subsampling::epoch_max_loss(1 / p.noise_multiplier, b.steps_per_epoch, d,
                                     subsampling::epoch_pair::allocated),
         b.complete_epochs}};
    const auto r = composed(std::span<const loss_factor>(f));
    if (!r.converged()) {
      b.termination = r.termination;
      b.message = r.message;
    }
    if (r.lower > b.lower) {
      b.lower = r.lower;
      b.pld = r;
    }
  }
  b.lower = std::min(b.lower, b.upper);  // both certified: the lower one cannot be above
}

}  // namespace

divergence::rdp_curve allocation_rdp_curve(const training_phase& phase) {
  const allocation_bracket b = setup("allocation_rdp_curve", phase);
  return curve_of(phase, b);
}

allocation_bracket allocation_epsilon(const training_phase& phase,
                                      double delta,
                                      const pld_options& options) {
  constexpr const char* kFn = "allocation_epsilon";
  check_open_probability(kFn, "delta", delta);
  options.validate(kFn);
  allocation_bracket b = setup(kFn, phase);
  b.upper = divergence::rdp_epsilon(curve_of(phase, b), delta).value;
  lower_bound(b, phase,
              [&](std::span<const loss_factor> f) { return pld_epsilon(f, delta, options); });
  return b;
}

allocation_bracket allocation_delta(const training_phase& phase,
                                    double epsilon,
                                    const pld_options& options) {
  constexpr const char* kFn = "allocation_delta";
  check_nonnegative(kFn, "epsilon", epsilon);
  options.validate(kFn);
  allocation_bracket b = setup(kFn, phase);
  b.upper = divergence::rdp_delta(curve_of(phase, b), epsilon).value;
  lower_bound(b, phase,
              [&](std::span<const loss_factor> f) { return pld_delta(f, epsilon, options); });
  return b;
}

}  // namespace dpkit::accounting
