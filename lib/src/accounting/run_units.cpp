#include "dpkit/accounting/run_units.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

#include "dpkit/accounting/random_allocation.hpp"
#include "dpkit/accounting/shuffling.hpp"
#include "dpkit/core/decimal.hpp"

namespace dpkit::accounting {

units_error::units_error(units_rule rule,
                         std::string_view function,
                         std::string_view name,
                         std::string_view value,
                         std::string_view constraint,
                         std::string_view other)
    : argument_error(function, name, value, constraint), rule_(rule), other_(other) {}

namespace {

// T from the exact ceiling, or the refusal beyond kMaxSteps.
long long checked_steps(std::optional<long long> t, const char* function, double epochs) {
  if (!t)
    throw units_error(units_rule::too_many_steps, function, "epochs", format_value(epochs),
                      "a length of at most 2^53 steps");
  return *t;
}

[[noreturn]] void throw_epochs_never_end(const char* function, double epochs) {
  throw units_error(units_rule::epochs_never_end, function, "epochs", format_value(epochs),
                    "left out at sampling rate 0 (no epoch ends): give steps");
}

void check_epochs(const char* function, double epochs) {
  if (!(std::isfinite(epochs) && epochs > 0))
    throw units_error(units_rule::out_of_range, function, "epochs", format_value(epochs),
                      "finite and > 0");
}

// Range checks of the library's vocabulary (core/check, training_run::validate) as units_error.
template <class Check>
void as_units_error(Check check) {
  try {
    check();
  } catch (const units_error&) {
    throw;
  } catch (const argument_error& e) {
    throw units_error(units_rule::out_of_range, e.function(), e.name(), e.value(), e.constraint());
  }
}

}  // namespace

long long steps_for_epochs(double epochs, long long batch_size, long long dataset_size) {
  constexpr const char* kFn = "steps_for_epochs";
  check_epochs(kFn, epochs);
  as_units_error([&] {
    check_at_least(kFn, "batch_size", batch_size, 1);
    check_at_least(kFn, "dataset_size", dataset_size, 1);
  });
  if (batch_size > dataset_size)
    throw units_error(units_rule::batch_too_large, kFn, "batch_size", format_value(batch_size),
                      "<= dataset_size (" + format_value(dataset_size) + ")", "dataset_size");
  return checked_steps(ceil_as_written(epochs, dataset_size, batch_size), kFn, epochs);
}

long long steps_for_epochs(double epochs, double sampling_rate) {
  constexpr const char* kFn = "steps_for_epochs";
  check_epochs(kFn, epochs);
  if (sampling_rate == 0) throw_epochs_never_end(kFn, epochs);
  if (!(sampling_rate > 0 && sampling_rate <= 1))
    throw units_error(units_rule::out_of_range, kFn, "sampling_rate", format_value(sampling_rate),
                      "in (0, 1]");
  return checked_steps(ceil_quotient_as_written(epochs, sampling_rate), kFn, epochs);
}

const char* to_string(epoch_rule r) {
  switch (r) {
    case epoch_rule::expected_batches: return "expected-batches";
    case epoch_rule::data_passes: return "data-passes";
  }
  return "?";
}

epoch_rule epoch_rule_of(sampling_scheme s) {
  switch (s) {
    case sampling_scheme::shuffling:
    case sampling_scheme::random_allocation:
    case sampling_scheme::without_replacement: return epoch_rule::data_passes;
    case sampling_scheme::poisson:
    case sampling_scheme::truncated_poisson: return epoch_rule::expected_batches;
  }
  return epoch_rule::expected_batches;
}

long long steps_for_passes(double epochs, long long batches_per_epoch) {
  constexpr const char* kFn = "steps_for_passes";
  check_epochs(kFn, epochs);
  as_units_error([&] { check_at_least(kFn, "batches_per_epoch", batches_per_epoch, 1); });
  return checked_steps(ceil_as_written(epochs, batches_per_epoch, 1), kFn, epochs);
}

long long steps_for_epochs(double epochs, const phase_derivation& phase) {
  if (phase.rule == epoch_rule::data_passes) {
    if (phase.phase.sampling_rate == 0) throw_epochs_never_end("steps_for_epochs", epochs);
    if (phase.batches_per_epoch == 0) {  // q < 2^-53: more than 2^53 steps per epoch
      check_epochs("steps_for_epochs", epochs);
      return checked_steps(std::nullopt, "steps_for_epochs", epochs);
    }
    return steps_for_passes(epochs, phase.batches_per_epoch);
  }
  return phase.in_batches ? steps_for_epochs(epochs, phase.batch_size, phase.dataset_size)
                          : steps_for_epochs(epochs, phase.phase.sampling_rate);
}

std::string_view to_string(noise_scale s) noexcept {
  return s == noise_scale::sensitivity ? "sensitivity" : "clip-norm";
}

std::optional<noise_scale> parse_noise_scale(std::string_view name) noexcept {
  std::string n(name);
  std::replace(n.begin(), n.end(), '_', '-');
  if (n == "clip-norm") return noise_scale::clip_norm;
  if (n == "sensitivity") return noise_scale::sensitivity;
  return std::nullopt;
}

double noise_relative_to_clip_norm(double sigma, noise_scale scale, const training_phase& p) {
  return scale == noise_scale::sensitivity ? sigma * sensitivity(p) : sigma;
}

double noise_relative_to(double sigma, noise_scale scale, const training_phase& p) {
  return scale == noise_scale::sensitivity ? sigma / sensitivity(p) : sigma;
}

phase_derivation derive_phase(const phase_units& u, bool edge_values) {
  constexpr const char* kFn = "derive_phase";
  phase_derivation d;
  training_phase& p = d.phase;
  p.sampling = u.sampling;
  p.neighbours = u.neighbours;
  if (u.selected != 1 && u.sampling != sampling_scheme::random_allocation)
    throw units_error(units_rule::selected_unused, kFn, "selected", format_value(u.selected),
                      "left out (or 1) unless the sampling is random-allocation (each example "
                      "in k of the t steps of every epoch)",
                      "sampling");
  as_units_error([&] { check_at_least(kFn, "selected", u.selected, 1); });
  p.selected = u.selected;

  // ---- the sampling rate: exactly one of q, B of N, the full batch
  const char* given[3];
  int count = 0;
  if (u.sampling_rate) given[count++] = "sampling_rate";
  if (u.batch_size) given[count++] = "batch_size";
  if (u.full_batch) given[count++] = "full_batch";
  if (count == 0)
    throw units_error(units_rule::sampling_missing, kFn, "sampling_rate", "not given",
                      "given, or batch_size with dataset_size, or full_batch");
  if (count > 1)
    throw units_error(units_rule::sampling_twice, kFn, given[1], "given",
                      std::string("left out when ") + given[0] + " is given", given[0]);
  const bool truncated = u.sampling == sampling_scheme::truncated_poisson;
  if (u.batch_size) {
    if (!u.dataset_size)
      throw units_error(units_rule::dataset_missing, kFn, "batch_size",
                        format_value(*u.batch_size),
                        "given with dataset_size (q = batch_size / dataset_size)",
                        "dataset_size");
    as_units_error([&] {
      check_at_least(kFn, "batch_size", *u.batch_size, 1);
      check_at_least(kFn, "dataset_size", *u.dataset_size, 1);
    });
    if (*u.batch_size > *u.dataset_size)
      throw units_error(units_rule::batch_too_large, kFn, "batch_size",
                        format_value(*u.batch_size),
                        "<= dataset_size (" + format_value(*u.dataset_size) + ")",
                        "dataset_size");
    d.in_batches = true;
    d.batch_size = *u.batch_size;
    d.dataset_size = *u.dataset_size;
    // The quotient of the two counts, correctly rounded (counts up to 2^53 are exact doubles).
    p.sampling_rate = static_cast<double>(d.batch_size) / static_cast<double>(d.dataset_size);
    d.steps_per_epoch = static_cast<double>(d.dataset_size) / static_cast<double>(d.batch_size);
  } else if (u.full_batch) {
    p.sampling_rate = 1;
    d.steps_per_epoch = 1;
  } else {
    p.sampling_rate = *u.sampling_rate;
    d.steps_per_epoch = p.sampling_rate > 0 ? 1 / p.sampling_rate
                                            : std::numeric_limits<double>::infinity();
  }
  d.rule = epoch_rule_of(u.sampling);
  if (d.rule == epoch_rule::data_passes && p.sampling_rate > 0) {
    // k batches per pass: ⌈N/B⌉ exactly from the counts; from a rate, the accountants' own
    // count of steps per epoch (shuffling_steps_per_epoch), so that E epochs here are E epochs
    // there. A rate below 2^-53 has more steps per epoch than a run may have: left at 0 (epochs
    // are refused as too many steps).
    const auto k = static_cast<double>(u.selected);
    if (d.in_batches && u.selected > 1) {
      // k of t: batches average B = kN/t, so t = ⌈kN/B⌉ (in 128 bits: kN may pass 2^63).
      __extension__ typedef __int128 int128;  // GCC/Clang; -Wpedantic-clean
      const auto kn = static_cast<int128>(u.selected) * d.dataset_size;
      const int128 t = (kn + d.batch_size - 1) / d.batch_size;
      if (t > kMaxSteps)
        throw units_error(units_rule::out_of_range, kFn, "selected", format_value(u.selected),
                          "at most 2^53 * batch_size / dataset_size (k*N/B steps per epoch)");
      d.batches_per_epoch = static_cast<long long>(t);
      d.steps_per_epoch = k * static_cast<double>(d.dataset_size) /
                          static_cast<double>(d.batch_size);
    } else if (d.in_batches) {
      d.batches_per_epoch = u.drop_last ? d.dataset_size / d.batch_size
                                        : (d.dataset_size + d.batch_size - 1) / d.batch_size;
    } else if (p.sampling_rate >= k * 0x1p-53) {
      d.batches_per_epoch = u.sampling == sampling_scheme::random_allocation
                                ? allocation_steps_per_epoch(p.sampling_rate, u.selected)
                                : shuffling_steps_per_epoch(p.sampling_rate);
    }
    if (d.batches_per_epoch > 0) d.steps_per_epoch = static_cast<double>(d.batches_per_epoch);
    // The epoch schemes' accountants count epochs of the loader's k steps, exact from the
    // counts (1/q in floating point can round ⌈N/B⌉ away for N beyond 1e9).
    if (d.in_batches && u.sampling != sampling_scheme::without_replacement)
      p.steps_per_epoch = d.batches_per_epoch;
  }
  if (u.drop_last) {
    if (d.rule != epoch_rule::data_passes || u.sampling == sampling_scheme::random_allocation)
      throw units_error(units_rule::drop_last_unused, kFn, "drop_last", "true",
                        "left out unless the sampling is shuffling or without-replacement "
                        "(Poisson and random-allocation batches have no last batch to drop)",
                        "sampling");
    if (!d.in_batches)
      throw units_error(units_rule::drop_last_unused, kFn, "drop_last", "true",
                        "given with batch_size and dataset_size (the loader's floor(N/B) full "
                        "batches per epoch)",
                        "batch_size");
    // The share dropped, at least 1/N, must stand out from the rounding of floor(N/B)·B/N
    // (training_phase::steps_per_epoch reads a t·q within 2^-50 of 1 as 1).
    if (d.dataset_size > (1LL << 48))
      throw units_error(units_rule::out_of_range, kFn, "dataset_size",
                        format_value(d.dataset_size), "at most 2^48 with drop_last");
    d.drop_last = true;
  }
  if (u.dataset_size && !u.batch_size && !truncated)
    throw units_error(units_rule::dataset_unused, kFn, "dataset_size",
                      format_value(*u.dataset_size),
                      "left out unless batch_size is given or the sampling is truncated-poisson",
                      "batch_size");

  // ---- the scheme's own numbers and neighbours
  if (truncated) {
    if (!u.max_batch_size)
      throw units_error(units_rule::truncation_missing, kFn, "max_batch_size", "not given",
                        "given with truncated-poisson sampling (the largest batch)", "sampling");
    if (!u.dataset_size)
      throw units_error(units_rule::truncation_missing, kFn, "dataset_size", "not given",
                        "given with truncated-poisson sampling (the number of records)",
                        "sampling");
    p.max_batch_size = *u.max_batch_size;
    p.dataset_size = *u.dataset_size;
  } else if (u.max_batch_size) {
    throw units_error(units_rule::max_batch_unused, kFn, "max_batch_size",
                      format_value(*u.max_batch_size),
                      "left out unless the sampling is truncated-poisson", "sampling");
  }
  const bool poisson_like = u.sampling == sampling_scheme::poisson || truncated;
  if (u.neighbours != neighbouring::standard && !poisson_like &&
      u.neighbours != standard_relation(u.sampling))
    throw units_error(units_rule::neighbours_fixed, kFn, "neighbours", to_string(u.neighbours),
                      std::string(to_string(standard_relation(u.sampling))) + " (" +
                          std::string(to_string(u.sampling)) + " sampling fixes them)",
                      "sampling");

  // ---- σ and the ranges, before a length is derived from q
  d.noise_given = u.noise_multiplier.has_value();
  p.noise_multiplier = u.noise_multiplier.value_or(1.0);
  p.steps = 1;
  // The ranges of σ as given; then σ relative to C (a calibration's σ = 1 stands for C's).
  as_units_error([&] { training_run{{p}, 0.0}.validate(kFn, edge_values); });
  if (u.noise_multiplier) {
    const double as_given = p.noise_multiplier;
    p.noise_multiplier = noise_relative_to_clip_norm(as_given, u.noise_relative_to, p);
    if (std::isfinite(as_given) && !std::isfinite(p.noise_multiplier))
      throw units_error(units_rule::out_of_range, kFn, "noise_multiplier", format_value(as_given),
                        "at most " + format_value(std::numeric_limits<double>::max() / 2) +
                            " relative to the sensitivity 2C (replace-one)");
  }

  // ---- the length: T, or E epochs
  if (u.steps && u.epochs)
    throw units_error(units_rule::length_twice, kFn, "epochs", format_value(*u.epochs),
                      "left out when steps is given", "steps");
  if (u.steps) {
    if (!(*u.steps >= 1 && *u.steps <= kMaxSteps))
      throw units_error(units_rule::out_of_range, kFn, "steps", format_value(*u.steps),
                        "an integer in [1, 2^53]");
    p.steps = *u.steps;
  } else if (u.epochs) {
    p.steps = steps_for_epochs(*u.epochs, d);
  } else {
    d.length_given = false;
  }
  return d;
}

}  // namespace dpkit::accounting
