#include "dpkit/accounting/accountant.hpp"

#include <algorithm>
#include <cmath>

#include "dpkit/accounting/clt.hpp"
#include "dpkit/accounting/rdp_accountant.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/roots.hpp"
#include "dpkit/divergence/gdp.hpp"

namespace dpkit::accounting {
namespace {

std::string pld_method(const pld_diagnostics& d, bool gaussian) {
  if (gaussian) return "exact: the run is a composition of Gaussian mechanisms";
  return "PLD/FFT, h = " + format_value(std::round(d.grid_spacing * 1e6) / 1e6) + ", FFT " +
         std::to_string(d.fft_size) + ", " + std::to_string(d.passes) + " pass" +
         (d.passes == 1 ? "" : "es");
}

void copy_status(privacy_estimate& e, const solver_status& s) {
  e.termination = s.termination;
  e.message = s.message;
  e.evaluations = s.evaluations;
}

}  // namespace

std::string_view to_string(accountant_type a) noexcept {
  switch (a) {
    case accountant_type::pld:
      return "pld";
    case accountant_type::rdp:
      return "rdp";
    case accountant_type::clt:
      return "clt";
  }
  return "?";
}

privacy_estimate estimate_epsilon(const training_run& run,
                                  double delta,
                                  accountant_type accountant,
                                  const pld_options& options) {
  privacy_estimate e;
  e.accountant = accountant;
  switch (accountant) {
    case accountant_type::pld: {
      const pld_epsilon_result r = pld_epsilon(run, delta, options);
      copy_status(e, r);
      e.value = e.upper = r.epsilon_upper;
      e.lower = r.epsilon_lower;
      e.kind = r.kind;
      e.tight = r.tight;
      e.pld = r;
      e.method = pld_method(r, run.is_gaussian());
      break;
    }
    case accountant_type::rdp: {
      const divergence::rdp_epsilon_result r = rdp_epsilon(run, delta);
      copy_status(e, r);
      e.value = e.upper = r.epsilon;
      e.kind = r.kind;
      e.method = std::string(divergence::to_string(r.conversion)) +
                 " conversion at alpha = " + format_value(std::round(r.alpha * 1e4) / 1e4);
      break;
    }
    case accountant_type::clt: {
      const divergence::epsilon_result r = clt_epsilon(run, delta);
      copy_status(e, r);
      e.value = r.epsilon;
      e.kind = r.kind;
      e.tight = r.tight;
      if (e.kind != bound_kind::approximation) e.lower = e.upper = e.value;
      e.method = "Gaussian CLT, mu = " + format_value(std::round(clt_mu(run) * 1e6) / 1e6);
      break;
    }
  }
  return e;
}

privacy_estimate estimate_delta(const training_run& run,
                                double epsilon,
                                accountant_type accountant,
                                const pld_options& options) {
  privacy_estimate e;
  e.accountant = accountant;
  switch (accountant) {
    case accountant_type::pld: {
      const pld_delta_result r = pld_delta(run, epsilon, options);
      copy_status(e, r);
      e.value = e.upper = r.delta_upper;
      e.lower = r.delta_lower;
      e.log_value = r.log_delta;
      e.kind = r.kind;
      e.tight = r.tight;
      e.pld = r;
      e.method = pld_method(r, run.is_gaussian());
      break;
    }
    case accountant_type::rdp: {
      const divergence::rdp_delta_result r = rdp_delta(run, epsilon);
      copy_status(e, r);
      e.value = e.upper = r.delta;
      e.log_value = r.log_delta;
      e.kind = r.kind;
      e.method = std::string(divergence::to_string(r.conversion)) +
                 " conversion at alpha = " + format_value(std::round(r.alpha * 1e4) / 1e4);
      break;
    }
    case accountant_type::clt: {
      const divergence::delta_result r = clt_delta(run, epsilon);
      e.value = r.delta;
      e.log_value = r.log_delta;
      e.kind = r.kind;
      e.tight = r.tight;
      if (e.kind != bound_kind::approximation) e.lower = e.upper = e.value;
      e.method = "Gaussian CLT, mu = " + format_value(std::round(clt_mu(run) * 1e6) / 1e6);
      break;
    }
  }
  return e;
}

noise_calibration calibrate_noise_multiplier(training_run run,
                                             double target_epsilon,
                                             double delta,
                                             const calibration_options& options) {
  constexpr const char* kFn = "calibrate_noise_multiplier";
  check_positive(kFn, "target_epsilon", target_epsilon);
  check_open_probability(kFn, "delta", delta);
  if (!(options.relative_tolerance > 0 && options.relative_tolerance < 1))
    throw_domain_error(kFn, "relative_tolerance", options.relative_tolerance, "in (0, 1)");
  if (run.phases.empty()) throw_domain_error(kFn, "the number of phases", "0", ">= 1");
  run.validate(kFn);
  noise_calibration out;
  int evaluations = 0;
  auto with_sigma = [&](double sigma) {
    training_run r = run;
    for (training_phase& p : r.phases) p.noise_multiplier = sigma;
    return r;
  };
  auto certified = [&](double sigma) {
    ++evaluations;
    return estimate_epsilon(with_sigma(sigma), delta, options.accountant, options.pld);
  };
  // Start from the CLT: it is cheap and usually within a few percent of the PLD answer.
  const double mu_target = divergence::gdp_mu(target_epsilon, delta).value;
  auto clt_gap = [&](double log_sigma) {
    return clt_mu(with_sigma(std::exp(log_sigma))) - mu_target;
  };
  double guess = 1.0;
  {
    const root_result r = find_root(clt_gap, std::log(1e-3), std::log(1e6));
    if (r.converged()) guess = std::exp(r.root);
  }
  // Bracket the root of ε(σ) − target (decreasing in σ), then solve in log σ.
  auto excess = [&](double log_sigma) {
    return certified(std::exp(log_sigma)).value - target_epsilon;
  };
  double lo = std::log(guess), hi = std::log(guess);
  double f_hi = excess(hi);
  for (int i = 0; i < 60 && f_hi > 0; ++i) lo = hi, hi += std::log(1.25), f_hi = excess(hi);
  double f_lo = lo == hi ? f_hi : excess(lo);
  for (int i = 0; i < 60 && f_lo <= 0; ++i)
    hi = lo, f_hi = f_lo, lo -= std::log(1.25), f_lo = excess(lo);
  if (f_hi > 0 || f_lo <= 0) {
    out.termination = termination_type::failure;
    out.message = std::string(kFn) + ": could not bracket the noise multiplier";
    out.evaluations = evaluations;
    return out;
  }
  root_options ro;
  ro.absolute_tolerance = std::log1p(options.relative_tolerance);
  ro.relative_tolerance = 0;
  ro.max_evaluations = 60;
  const root_result r = find_root(excess, lo, hi, ro);
  // Safe side: the end where ε ≤ target.
  const double safe = r.f_upper <= 0 ? r.upper : r.lower;
  const double other = r.f_upper <= 0 ? r.lower : r.upper;
  out.noise_multiplier = std::exp(safe);
  out.noise_multiplier_lower = std::exp(other);
  out.estimate = certified(out.noise_multiplier);
  out.termination = r.termination;
  out.message = r.message;
  out.evaluations = evaluations;
  return out;
}

steps_calibration calibrate_steps(training_run run,
                                  double target_epsilon,
                                  double delta,
                                  long long max_steps,
                                  const calibration_options& options) {
  constexpr const char* kFn = "calibrate_steps";
  check_positive(kFn, "target_epsilon", target_epsilon);
  check_open_probability(kFn, "delta", delta);
  check_at_least(kFn, "max_steps", max_steps, 1);
  if (run.phases.empty()) throw_domain_error(kFn, "the number of phases", "0", ">= 1");
  run.validate(kFn);
  steps_calibration out;
  int evaluations = 0;
  auto at = [&](long long t) {
    run.phases.back().steps = t;
    ++evaluations;
    return estimate_epsilon(run, delta, options.accountant, options.pld);
  };
  // ε is non-decreasing in the number of steps: exponential search, then bisection.
  privacy_estimate best;
  long long good = 0, bad = 0;
  for (long long t = 1;; t = std::min(2 * t, max_steps)) {
    const privacy_estimate e = at(t);
    if (e.value <= target_epsilon) {
      good = t, best = e;
      if (t == max_steps) break;
    } else {
      bad = t;
      break;
    }
  }
  while (bad != 0 && bad - good > 1) {
    const long long mid = good + (bad - good) / 2;
    const privacy_estimate e = at(mid);
    (e.value <= target_epsilon ? good : bad) = mid;
    if (e.value <= target_epsilon) best = e;
  }
  out.steps = good;
  out.estimate = best;
  out.evaluations = evaluations;
  if (good == 0) out.message = std::string(kFn) + ": even one step exceeds the budget";
  return out;
}

}  // namespace dpkit::accounting
