#include "dpkit/accounting/random_allocation.hpp"

#include <algorithm>
#include <cmath>
#include <span>
#include <vector>

#include "detail/epoch_bracket.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/subsampling/allocation_rdp.hpp"

namespace dpkit::accounting {
namespace {

allocation_bracket setup(const char* fn, const training_phase& p) {
  const allocation_bracket b = detail::epoch_layout(fn, p, "random allocation");
  if (p.sampling_rate >= 1)
    throw_domain_error(fn, "sampling_rate", p.sampling_rate,
                       "< 1 (the full batch is the Gaussian mechanism)");
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
  detail::epoch_max_lower_bound(
      b, phase, subsampling::epoch_pair::allocated,
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
  detail::epoch_max_lower_bound(
      b, phase, subsampling::epoch_pair::allocated,
      [&](std::span<const loss_factor> f) { return pld_delta(f, epsilon, options); });
  return b;
}

}  // namespace dpkit::accounting
