#include "dpkit/accounting/accountant.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <limits>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "detail/facade.hpp"
#include "dpkit/accounting/clt.hpp"
#include "dpkit/accounting/rdp_accountant.hpp"
#include "dpkit/core/check.hpp"

namespace dpkit::accounting {
namespace {

std::string pld_method(const pld_diagnostics& d, const training_run& run) {
  if (run.is_gaussian()) return "exact: the run is a composition of Gaussian mechanisms";
  // 4 significant digits (h was once rounded to 6 decimals: the floor 1e-10 read "h = 0").
  char spacing[32];
  std::snprintf(spacing, sizeof spacing, "%.4g", d.grid_spacing);
  const std::string h = std::string("h = ") + spacing;
  const std::string passes = std::to_string(d.passes) + " pass" + (d.passes == 1 ? "" : "es");
  std::string m = d.fft_size == 0
                      ? "PLD (one step, no FFT), " + h + ", " + passes
                      : "PLD/FFT, " + h + ", FFT " + std::to_string(d.fft_size) + ", " + passes;
  // Truncated Poisson batches: say which side comes from which pair (pld_accountant.hpp).
  if (run.has_truncation())
    m += "; truncated batches: upper bound from the dominating mixture pair (Ganesh 2025), "
         "lower bound from the attained Poisson pair at the rate the record stays in the batch";
  return m;
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

std::optional<accountant_type> parse_accountant(std::string_view name) noexcept {
  for (accountant_type a : {accountant_type::pld, accountant_type::rdp, accountant_type::clt})
    if (name == to_string(a)) return a;
  return std::nullopt;
}

namespace {

privacy_estimate from_pld(const pld_epsilon_result& r, const training_run& run) {
  privacy_estimate e;
  e.accountant = accountant_type::pld;
  copy_status(e, r);
  e.value = e.upper = r.upper;
  e.lower = r.lower;
  e.kind = r.kind;
  e.tight = r.tight;
  e.pld = r;
  e.method = pld_method(r, run);
  return e;
}

privacy_estimate from_pld(const pld_delta_result& r, const training_run& run) {
  privacy_estimate e;
  e.accountant = accountant_type::pld;
  copy_status(e, r);
  e.value = e.upper = r.upper;
  e.lower = r.lower;
  e.log_value = r.log_value;
  e.kind = r.kind;
  e.tight = r.tight;
  e.pld = r;
  e.method = pld_method(r, run);
  return e;
}

// A number for a method string, rounded to `decimals` decimals where that keeps at least 3
// significant digits, else to 3 significant digits: as decimals alone a μ of 3e-7 read
// "mu = 0", and an order of 1 + 1e-9 "alpha = 1" (orders are > 1).
std::string method_number(double x, int decimals) {
  const double scale = std::pow(10.0, decimals);
  if (!(std::abs(x) < 100 / scale)) return format_value(std::round(x * scale) / scale);
  std::array<char, 32> b{};
  std::snprintf(b.data(), b.size(), "%.3g", x);
  return b.data();
}

std::string rdp_method(const divergence::rdp_conversion c, double alpha) {
  // An order that 4 decimals would show as 1 (orders are > 1) as 1 + (α − 1), which is exact in
  // double there (Sterbenz); every other order as before.
  const std::string order =
      alpha > 1 && alpha < 1.00005 ? "1 + " + method_number(alpha - 1, 4) : method_number(alpha, 4);
  return std::string(divergence::to_string(c)) + " conversion at alpha = " + order;
}

std::string clt_method(const training_run& run) {
  return "Gaussian CLT, mu = " + method_number(clt_mu(run), 6);
}

privacy_estimate clt_epsilon_estimate(const training_run& run, double delta) {
  privacy_estimate e;
  e.accountant = accountant_type::clt;
  const divergence::epsilon_result r = clt_epsilon(run, delta);
  copy_status(e, r);
  e.value = r.value;
  e.kind = r.kind;
  e.tight = r.tight;
  if (e.kind != bound_kind::approximation) {  // full batch: the certified closed form
    e.lower = r.lower;
    e.upper = r.upper;
  }
  e.method = clt_method(run);
  return e;
}

privacy_estimate clt_delta_estimate(const training_run& run,
                                    double epsilon,
                                    const pld_options& options) {
  privacy_estimate e;
  e.accountant = accountant_type::clt;
  const divergence::delta_result r = clt_delta(run, epsilon);
  e.value = r.value;
  e.log_value = r.log_value;
  e.kind = r.kind;
  e.tight = r.tight;
  if (e.kind != bound_kind::approximation) {  // full batch: the certified closed form
    const pld_delta_result exact = pld_delta(run, epsilon, options);
    e.lower = exact.lower;
    e.upper = exact.upper;
  }
  e.method = clt_method(run);
  return e;
}

template <class Each>
std::vector<privacy_estimate> each_steps(const training_run& run,
                                         std::span<const long long> steps,
                                         const char* fn,
                                         const curve_progress& progress,
                                         Each&& each) {
  if (run.phases.empty()) throw_domain_error(fn, "the number of phases", "0", ">= 1");
  std::vector<privacy_estimate> out;
  out.reserve(steps.size());
  training_run r = run;
  for (const long long t : steps) {
    check_at_least(fn, "steps", t, 1);
    r.phases.back().steps = t;
    out.push_back(each(r));
    if (progress) progress(out.size(), steps.size());
  }
  return out;
}

}  // namespace

privacy_estimate detail::from_rdp(const divergence::rdp_epsilon_result& r) {
  privacy_estimate e;
  e.accountant = accountant_type::rdp;
  copy_status(e, r);
  e.value = e.upper = r.value;
  e.kind = r.kind;
  e.method = rdp_method(r.conversion, r.alpha);
  return e;
}

privacy_estimate detail::from_rdp(const divergence::rdp_delta_result& r) {
  privacy_estimate e;
  e.accountant = accountant_type::rdp;
  copy_status(e, r);
  e.value = e.upper = r.value;
  e.log_value = r.log_value;
  e.kind = r.kind;
  e.method = rdp_method(r.conversion, r.alpha);
  return e;
}

privacy_estimate estimate_epsilon(const training_run& run,
                                  double delta,
                                  accountant_type accountant,
                                  const pld_options& options) {
  if (auto edge = detail::edge_epsilon(run, delta, accountant, options)) return *edge;
  if (run.has_epoch_sampling())
    return detail::epoch_scheme_epsilon(run, delta, accountant, options);
  switch (accountant) {
    case accountant_type::pld:
      return from_pld(pld_epsilon(run, delta, options), run);
    case accountant_type::rdp:
      return detail::from_rdp(rdp_epsilon(run, delta));
    case accountant_type::clt:
      return clt_epsilon_estimate(run, delta);
  }
  return {};
}

privacy_estimate estimate_epsilon_any_noise(const training_run& run,
                                            double delta,
                                            accountant_type accountant,
                                            const pld_options& options) {
  // ε does not grow with the noise (more noise is post-processing: an independent Gaussian
  // added to the output), so the answer at σ = 0 bounds it from above at every σ in between.
  training_run at_zero = run;
  bool replaced = false;
  for (training_phase& ph : at_zero.phases)
    if (ph.noise_multiplier > 0 && ph.noise_multiplier < kSmallestNoiseMultiplier) {
      ph.noise_multiplier = 0;
      replaced = true;
    }
  if (!replaced) return estimate_epsilon(run, delta, accountant, options);
  privacy_estimate e = estimate_epsilon(at_zero, delta, accountant, options);
  e.kind = bound_kind::upper_bound;
  e.tight = e.value == 0;  // ε = 0 at σ = 0 (δ covers every noiseless batch) holds exactly here
  e.edge_value = false;
  e.lower = 0;
  e.upper = e.value;
  e.method = "noise multiplier below " + format_value(kSmallestNoiseMultiplier) +
             " taken as 0, an upper bound (epsilon does not grow with the noise): " + e.method;
  return e;
}

privacy_estimate estimate_delta(const training_run& run,
                                double epsilon,
                                accountant_type accountant,
                                const pld_options& options) {
  if (auto edge = detail::edge_delta(run, epsilon, accountant, options)) return *edge;
  if (run.has_epoch_sampling())
    return detail::epoch_scheme_delta(run, epsilon, accountant, options);
  privacy_estimate e;
  switch (accountant) {
    case accountant_type::pld:
      e = from_pld(pld_delta(run, epsilon, options), run);
      break;
    case accountant_type::rdp:
      e = detail::from_rdp(rdp_delta(run, epsilon));
      break;
    case accountant_type::clt:
      e = clt_delta_estimate(run, epsilon, options);
      break;
  }
  detail::cap_by_participation(e, run, options);
  return e;
}

std::vector<privacy_estimate> estimate_epsilon_curve(const training_run& run,
                                                     std::span<const long long> steps,
                                                     double delta,
                                                     accountant_type accountant,
                                                     const pld_options& options,
                                                     const curve_progress& progress) {
  constexpr const char* kFn = "estimate_epsilon_curve";
  std::vector<privacy_estimate> out;
  // Edge values and shuffled runs point by point (each is a closed form or one composition).
  if (detail::has_edge_phase(run, kFn) || run.has_epoch_sampling())
    return each_steps(run, steps, kFn, progress, [&](const training_run& r) {
      return estimate_epsilon(r, delta, accountant, options);
    });
  switch (accountant) {
    case accountant_type::pld: {
      for (const pld_epsilon_result& r : pld_epsilon_curve(run, steps, delta, options, progress))
        out.push_back(from_pld(r, run));
      break;
    }
    case accountant_type::rdp:
      for (const divergence::rdp_epsilon_result& r : rdp_epsilon_curve(run, steps, delta, progress))
        out.push_back(detail::from_rdp(r));
      break;
    case accountant_type::clt:
      out = each_steps(run, steps, kFn, progress,
                       [&](const training_run& r) { return clt_epsilon_estimate(r, delta); });
      break;
  }
  // Points where the example enters a batch with probability ≤ δ: ε = 0 exactly, as
  // estimate_epsilon says there (the RDP curve said 0.002 at q = 1e-7, T = 99, δ = 1e-5).
  training_run r = run;
  for (std::size_t i = 0; i < out.size(); ++i) {
    r.phases.back().steps = steps[i];
    if (auto rare = detail::rare_participation_epsilon(r, delta, accountant)) out[i] = *rare;
  }
  return out;
}

std::vector<privacy_estimate> estimate_delta_curve(const training_run& run,
                                                   std::span<const long long> steps,
                                                   double epsilon,
                                                   accountant_type accountant,
                                                   const pld_options& options,
                                                   const curve_progress& progress) {
  constexpr const char* kFn = "estimate_delta_curve";
  std::vector<privacy_estimate> out;
  if (detail::has_edge_phase(run, kFn) || run.has_epoch_sampling())
    return each_steps(run, steps, kFn, progress, [&](const training_run& r) {
      return estimate_delta(r, epsilon, accountant, options);
    });
  switch (accountant) {
    case accountant_type::pld: {
      for (const pld_delta_result& r : pld_delta_curve(run, steps, epsilon, options, progress))
        out.push_back(from_pld(r, run));
      break;
    }
    case accountant_type::rdp:
      for (const divergence::rdp_delta_result& r : rdp_delta_curve(run, steps, epsilon, progress))
        out.push_back(detail::from_rdp(r));
      break;
    case accountant_type::clt:
      out = each_steps(run, steps, kFn, progress, [&](const training_run& r) {
        return clt_delta_estimate(r, epsilon, options);
      });
      break;
  }
  // δ ≤ the chance that the example enters a batch, at every point, as estimate_delta says.
  training_run r = run;
  for (std::size_t i = 0; i < out.size(); ++i) {
    r.phases.back().steps = steps[i];
    detail::cap_by_participation(out[i], r, options);
  }
  return out;
}

incremental_accountant::incremental_accountant(training_run run, pld_options options)
    : run_(std::move(run)), options_(options) {
  constexpr const char* kFn = "incremental_accountant";
  if (run_.phases.empty())
    throw_domain_error(kFn, "the number of phases", "0", ">= 1 (the last one grows)");
  steps_ = run_.phases.back().steps;
  check_at_least(kFn, "the last phase's steps", steps_, 0);
  training_run check = run_;
  check.phases.back().steps = 1;
  check.validate(kFn, /*edge_values=*/true);
  options_.validate(kFn);
}

void incremental_accountant::add_steps(long long count) {
  check_at_least("incremental_accountant::add_steps", "count", count, 0);
  if (count > std::numeric_limits<long long>::max() - steps_)
    throw_domain_error("incremental_accountant::add_steps", "the number of steps",
                       format_value(static_cast<double>(steps_) + static_cast<double>(count)),
                       "representable");
  steps_ += count;
}

long long incremental_accountant::steps() const {
  return steps_;
}

training_run incremental_accountant::run() const {
  training_run r = run_;
  if (steps_ == 0) {
    r.phases.pop_back();  // no step of the growing phase yet
  } else {
    r.phases.back().steps = steps_;
  }
  return r;
}

namespace {
// Runs the PLD engine composes itself (no edge values, no per-epoch sampling): the ones whose
// queries can reuse a pld_growth_cache.
bool engine_run(const training_run& r, const char* fn) {
  return !r.phases.empty() && !detail::has_edge_phase(r, fn) && !r.has_epoch_sampling() &&
         !r.is_gaussian();
}
}  // namespace

privacy_estimate incremental_accountant::epsilon(double delta) {
  const training_run r = run();
  if (!engine_run(r, "incremental_accountant::epsilon"))
    return estimate_epsilon(r, delta, accountant_type::pld, options_);
  if (auto rare = detail::rare_participation_epsilon(r, delta, accountant_type::pld)) return *rare;
  return from_pld(pld_epsilon(r, delta, options_, &cache_), r);
}

privacy_estimate incremental_accountant::delta(double epsilon) {
  const training_run r = run();
  if (!engine_run(r, "incremental_accountant::delta"))
    return estimate_delta(r, epsilon, accountant_type::pld, options_);
  privacy_estimate e = from_pld(pld_delta(r, epsilon, options_, &cache_), r);
  detail::cap_by_participation(e, r, options_);
  return e;
}

}  // namespace dpkit::accounting
