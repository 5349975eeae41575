#include "dpkit/accounting/shuffling.hpp"

#include <algorithm>
#include <cmath>
#include <memory>
#include <span>
#include <vector>

#include "detail/epoch_bracket.hpp"
#include "dpkit/core/check.hpp"

namespace dpkit::accounting {
namespace {

training_run no_amplification_run(const training_phase& p, long long epochs_begun) {
  training_run run;
  run.phases.push_back({p.noise_multiplier, 1.0, sampling_scheme::poisson, epochs_begun});
  return run;
}

shuffling_bracket setup(const char* fn, const training_phase& p) {
  return detail::epoch_layout(fn, p, "shuffled batches");
}

// Both sides of one query (ε at δ or δ at ε): `gaussian` answers it for the upper bound's
// Gaussian run, `composed` for one direction of the epoch maximum's composition.
template <class Gaussian, class Composed>
shuffling_bracket bracket(const char* fn,
                          const training_phase& phase,
                          Gaussian&& gaussian,
                          Composed&& composed) {
  shuffling_bracket b = setup(fn, phase);
  const auto g = gaussian(no_amplification_run(phase, b.epochs_begun));
  b.upper = g.upper;
  if (b.steps_per_epoch == 1 && b.used == 1) {  // full batch: both sides are the Gaussian's
    b.lower = g.lower;
    return b;
  }
  detail::epoch_max_lower_bound(b, phase, subsampling::epoch_pair::shuffled, composed);
  return b;
}

}  // namespace

long long shuffling_steps_per_epoch(double sampling_rate) {
  if (!(sampling_rate > 0 && sampling_rate <= 1))
    throw_domain_error("shuffling_steps_per_epoch", "sampling_rate", sampling_rate, "in (0, 1]");
  const double t = std::ceil(1 / sampling_rate * (1 - 1e-9));
  if (!(t <= 9007199254740992.0))
    throw_domain_error("shuffling_steps_per_epoch", "sampling_rate", sampling_rate,
                       ">= 2^-53 (at most 2^53 steps per epoch)");
  return static_cast<long long>(t);
}

training_run shuffling_upper_run(const training_phase& phase) {
  const shuffling_bracket b = setup("shuffling_upper_run", phase);
  return no_amplification_run(phase, b.epochs_begun);
}

shuffling_bracket shuffling_epsilon(const training_phase& phase,
                                    double delta,
                                    const pld_options& options) {
  constexpr const char* kFn = "shuffling_epsilon";
  check_open_probability(kFn, "delta", delta);
  options.validate(kFn);
  return bracket(
      kFn, phase, [&](const training_run& run) { return pld_epsilon(run, delta, options); },
      [&](std::span<const loss_factor> f) { return pld_epsilon(f, delta, options); });
}

shuffling_bracket shuffling_delta(const training_phase& phase,
                                  double epsilon,
                                  const pld_options& options) {
  constexpr const char* kFn = "shuffling_delta";
  check_nonnegative(kFn, "epsilon", epsilon);
  options.validate(kFn);
  return bracket(
      kFn, phase, [&](const training_run& run) { return pld_delta(run, epsilon, options); },
      [&](std::span<const loss_factor> f) { return pld_delta(f, epsilon, options); });
}

}  // namespace dpkit::accounting
