// Shuffled epochs (shuffling.hpp) and allocated epochs (random_allocation.hpp) in the facade
// (accountant.hpp): accounted alone; PLD gives the certified bracket, RDP the upper side alone,
// CLT nothing.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "detail/facade.hpp"
#include "dpkit/accounting/random_allocation.hpp"
#include "dpkit/accounting/rdp_accountant.hpp"
#include "dpkit/accounting/shuffling.hpp"
#include "dpkit/core/check.hpp"

namespace dpkit::accounting::detail {
namespace {

// A grid spacing for a method string: three significant digits.
std::string short_spacing(double h) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", h);
  return buf;
}

// Shuffled epochs (shuffling.hpp) and allocated epochs (random_allocation.hpp) are accounted
// alone: PLD gives the certified bracket (lower: epoch maximum; upper: no amplification for
// shuffling, RDP for allocation), RDP the upper bound alone, CLT nothing.
const training_phase& epoch_phase(const training_run& run, const char* fn) {
  run.validate(fn);
  if (run.phases.size() != 1 || run.gaussian_mu > 0)
    throw_domain_error(fn, "the run", "a shuffled or allocated phase with other phases or factors",
                       "a single shuffled or allocated phase (shuffled epochs are accounted "
                       "alone; so are allocated epochs)");
  return run.phases.front();
}

bool allocated(const training_phase& p) {
  return p.sampling == sampling_scheme::random_allocation;
}

std::string allocated_method(const allocation_bracket& b) {
  const std::string head =
      "random allocation, t = " + format_value(b.steps_per_epoch) + " steps per epoch: ";
  const std::string upper = "upper bound from the epoch's RDP at orders 2..40 over " +
                            format_value(b.epochs_begun) + " epoch" +
                            (b.epochs_begun == 1 ? "" : "s") + " begun";
  if (b.complete_epochs == 0) return head + "no complete epoch, no lower bound; " + upper;
  return head + "lower bound from the largest coordinate of " + format_value(b.complete_epochs) +
         " complete epoch" + (b.complete_epochs == 1 ? "" : "s") +
         " (PLD/FFT, h = " + short_spacing(b.pld.grid_spacing) + "), " + upper;
}

std::string shuffled_method(const shuffling_bracket& b) {
  const std::string upper = "upper bound without amplification ((sqrt(E)/sigma)-GDP, E = " +
                            format_value(b.epochs_begun) + ")";
  if (b.steps_per_epoch == 1) return "shuffling with the full batch: the Gaussian, exact";
  const std::string head =
      "shuffling, t = " + format_value(b.steps_per_epoch) + " steps per epoch: ";
  if (b.complete_epochs == 0) return head + "no complete epoch, no lower bound; " + upper;
  return head + "lower bound from the largest coordinate of " + format_value(b.complete_epochs) +
         " complete epoch" + (b.complete_epochs == 1 ? "" : "s") +
         " (Chua et al. 2024; PLD/FFT, h = " + short_spacing(b.pld.grid_spacing) + "), " + upper;
}

privacy_estimate from_shuffled(const shuffling_bracket& b, bool allocation = false) {
  privacy_estimate e;
  e.accountant = accountant_type::pld;
  e.termination = b.termination;
  e.message = b.message;
  e.value = e.upper = b.upper;
  e.lower = b.lower;
  e.kind = bound_kind::upper_bound;
  e.tight = !allocation && b.steps_per_epoch == 1;
  e.pld = b.pld;
  e.method = allocation ? allocated_method(b) : shuffled_method(b);
  return e;
}

[[noreturn]] void no_clt_for_epoch_schemes(const char* fn) {
  throw_domain_error(fn, "accountant", "clt",
                     "pld or rdp for shuffled batches and random allocation (no CLT "
                     "approximation is known for them)");
}

}  // namespace

privacy_estimate epoch_scheme_epsilon(const training_run& run,
                                      double delta,
                                      accountant_type accountant,
                                      const pld_options& options) {
  constexpr const char* kFn = "estimate_epsilon";
  const training_phase& p = epoch_phase(run, kFn);
  if (allocated(p)) {
    if (accountant == accountant_type::clt) no_clt_for_epoch_schemes(kFn);
    if (accountant == accountant_type::pld)
      return from_shuffled(allocation_epsilon(p, delta, options), true);
    privacy_estimate e = from_rdp(divergence::rdp_epsilon(allocation_rdp_curve(p), delta));
    e.method += " (random allocation, orders 2..40)";
    return e;
  }
  switch (accountant) {
    case accountant_type::pld:
      return from_shuffled(shuffling_epsilon(p, delta, options));
    case accountant_type::rdp: {
      privacy_estimate e = from_rdp(rdp_epsilon(shuffling_upper_run(p), delta));
      e.method += " (shuffling: no amplification)";
      return e;
    }
    case accountant_type::clt:
      no_clt_for_epoch_schemes(kFn);
  }
  return {};
}

privacy_estimate epoch_scheme_delta(const training_run& run,
                                    double epsilon,
                                    accountant_type accountant,
                                    const pld_options& options) {
  constexpr const char* kFn = "estimate_delta";
  const training_phase& p = epoch_phase(run, kFn);
  if (allocated(p)) {
    if (accountant == accountant_type::clt) no_clt_for_epoch_schemes(kFn);
    if (accountant == accountant_type::pld) {
      privacy_estimate e = from_shuffled(allocation_delta(p, epsilon, options), true);
      e.log_value = std::log(e.value);
      return e;
    }
    privacy_estimate e = from_rdp(divergence::rdp_delta(allocation_rdp_curve(p), epsilon));
    e.method += " (random allocation, orders 2..40)";
    return e;
  }
  switch (accountant) {
    case accountant_type::pld: {
      privacy_estimate e = from_shuffled(shuffling_delta(p, epsilon, options));
      e.log_value = std::log(e.value);
      return e;
    }
    case accountant_type::rdp: {
      privacy_estimate e = from_rdp(rdp_delta(shuffling_upper_run(p), epsilon));
      e.method += " (shuffling: no amplification)";
      return e;
    }
    case accountant_type::clt:
      no_clt_for_epoch_schemes(kFn);
  }
  return {};
}

noise_calibration calibrate_epoch_scheme(training_run run,
                                         double target_epsilon,
                                         double delta,
                                         const calibration_options& options) {
  constexpr const char* kFn = "calibrate_noise_multiplier";
  if (options.accountant == accountant_type::clt) no_clt_for_epoch_schemes(kFn);
  if (allocated(epoch_phase(run, kFn))) {
    // The certified side of an allocated run is its RDP bound, decreasing in σ: bisect log σ
    // on it, then report the run's answer (bracket for PLD) at the safe end.
    auto eps_at = [&](double sigma) {
      training_phase p = run.phases.front();
      p.noise_multiplier = sigma;
      return divergence::rdp_epsilon(allocation_rdp_curve(p), delta).value;
    };
    // Bracket from σ = 1 outward by factors of 2 (small σ is the slow end: the add direction's
    // quadrature step shrinks like σ), down to the scheme's limit 0.025.
    double lo = 1.0, hi = 1.0;
    if (eps_at(1.0) > target_epsilon) {
      for (int k = 0; eps_at(hi) > target_epsilon; ++k) {
        lo = hi;
        hi *= 2;
        if (k > 80)
          throw_domain_error(kFn, "target_epsilon", target_epsilon,
                             "reachable with a noise multiplier below 1e24");
      }
    } else {
      while (lo > 0.025 && eps_at(std::max(0.025, lo / 2)) <= target_epsilon)
        lo = std::max(0.025, lo / 2);
      hi = lo;
      lo = std::max(0.025, lo / 2);
      if (hi == 0.025) lo = hi;  // the budget holds at the smallest σ the scheme accepts
    }
    // Until the σ bracket closes or the safe end uses the budget to within budget_tolerance.
    const double enough = (1 - options.budget_tolerance) * target_epsilon;
    double eps_hi = eps_at(hi);
    while (hi / lo - 1 > options.relative_tolerance && eps_hi < enough) {
      const double mid = std::sqrt(lo * hi);
      const double e = eps_at(mid);
      if (e > target_epsilon) {
        lo = mid;
      } else {
        hi = mid;
        eps_hi = e;
      }
    }
    noise_calibration c;
    c.noise_multiplier = hi;
    c.noise_multiplier_lower = lo;
    run.phases.front().noise_multiplier = hi;
    c.estimate = estimate_epsilon(run, delta, options.accountant, options.pld);
    return c;
  }
  // The certified side of a shuffled run is its no-amplification Gaussian (the same σ): solve
  // for that run, then report the shuffled run's bracket at the answer.
  noise_calibration c = calibrate_noise_multiplier(shuffling_upper_run(epoch_phase(run, kFn)),
                                                   target_epsilon, delta, options);
  run.phases.front().noise_multiplier = c.noise_multiplier;
  c.estimate = estimate_epsilon(run, delta, options.accountant, options.pld);
  return c;
}

}  // namespace dpkit::accounting::detail
