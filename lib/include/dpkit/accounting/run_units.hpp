// dpkit/accounting/run_units.hpp — a training phase from a training loop's units.
//
// Users describe a phase the way their training loop is written: a noise multiplier σ; a sampling
// rate q, or a batch size B of a dataset of N examples, or the full batch; a number of steps T, or
// of epochs E; a sampling scheme and neighbouring relation. This is the one place those units
// become a training_phase — the CLI and the Python package both call derive_phase, and only word
// its errors and its derivation for their users:
//
//   q = B/N  (B ≤ N)         a batch size of a dataset
//   q = 1                    the full batch
//   T = ⌈E · N/B⌉            Poisson epochs with a batch size (TensorFlow Privacy's rule: an
//                            epoch is N/B expected batches)
//   T = ⌈E / q⌉              Poisson epochs with a sampling rate (⌈E⌉ for the full batch)
//   T = ⌈E · k⌉, k = ⌈N/B⌉   epochs of fixed-size batches that pass over the data (shuffling,
//       or k = ⌈1/q⌉         random allocation, without replacement): what a data loader does,
//                            k batches per pass, the last one smaller (PyTorch's DataLoader
//                            without drop_last; the epoch the shuffling and random-allocation
//                            accountants count). A whole E gives E·k steps: whole epochs.
//   t = ⌈k·N/B⌉ or ⌈k/q⌉     random allocation of k steps per example per epoch (selected = k;
//                            q = k/t): an epoch is t steps, T = ⌈E·t⌉
//   T = ⌈E · k⌉, k = ⌊N/B⌋   drop_last (shuffling and without replacement, with B and N): the
//                            loader drops the last, incomplete batch; a shuffled phase then
//                            has epochs of k steps that use an example with probability kB/N
//                            (training_phase::steps_per_epoch).
//
// The ceilings are exact on the numbers as written: E and q are read as the shortest decimals
// that print as those doubles (2.2 is 22/10, not the binary 2.2000000000000001776…), so 2.2 epochs
// of 1 000 examples in batches of 100 are 22 steps and 3 epochs at q = 0.3 are 10. Evaluating
// E·N/B in floating point, as TF Privacy's compute_dp_sgd_privacy does, gives 23 and 11: a step
// the user did not take, from the binary representation of what they typed.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "dpkit/accounting/training_run.hpp"
#include "dpkit/core/check.hpp"

namespace dpkit::accounting {

/// What a noise multiplier σ (noise standard deviation over a scale) is relative to: the
/// clipping norm C — dpkit's σ, as Opacus and TensorFlow Privacy count it, the σ of
/// training_phase — or the sensitivity of the clipped sum between the phase's neighbours, as
/// dp_accounting and jax_privacy count it (C for add/remove and zero-out, 2C for replace-one).
/// The two are one number except for replace-one phases, where σ_C = 2·σ_sensitivity.
enum class noise_scale { clip_norm, sensitivity };
/// "clip-norm" or "sensitivity" (the CLI spelling).
std::string_view to_string(noise_scale s) noexcept;
/// The scale to_string names (`_` read as `-`); std::nullopt for other text.
std::optional<noise_scale> parse_noise_scale(std::string_view name) noexcept;
/// σ relative to C of a `sigma` given relative to `scale`, for phase `p` (its relation decides
/// the sensitivity: sensitivity(p)·sigma for noise_scale::sensitivity).
double noise_relative_to_clip_norm(double sigma, noise_scale scale, const training_phase& p);
/// The reverse: a `sigma` relative to C, for phase `p`, as relative to `scale`.
double noise_relative_to(double sigma, noise_scale scale, const training_phase& p);

/// One phase in the user's units. The names of the fields are the names units_error uses.
struct phase_units {
  std::optional<double> noise_multiplier;  ///< absent: σ = 1, for a calibration to solve for
  noise_scale noise_relative_to = noise_scale::clip_norm;  ///< what noise_multiplier is of
  std::optional<double> sampling_rate;     ///< q; or batch_size with dataset_size; or full_batch
  std::optional<long long> batch_size;     ///< B, with dataset_size: q = B/N
  std::optional<long long> dataset_size;   ///< N: with batch_size, and truncated Poisson's n
  bool full_batch = false;                 ///< q = 1
  std::optional<long long> steps;          ///< T; or epochs
  std::optional<double> epochs;            ///< E: T = ⌈E·N/B⌉ or ⌈E/q⌉
  sampling_scheme sampling = sampling_scheme::poisson;
  neighbouring neighbours = neighbouring::standard;  ///< standard: the scheme's own
  std::optional<long long> max_batch_size;           ///< truncated Poisson's largest batch
  bool drop_last = false;  ///< ⌊N/B⌋ batches per epoch: shuffling or without replacement, B and N
  /// Random allocation: k, the steps of every epoch an example is used in (k of t; q = k/t, so
  /// an epoch is t = ⌈k/q⌉ steps, or ⌈k·N/B⌉ from a batch size). 1 for every other scheme.
  long long selected = 1;
};

/// How a scheme's epochs become steps (header comment).
enum class epoch_rule {
  expected_batches,  ///< Poisson-like: T = ⌈E·N/B⌉ or ⌈E/q⌉
  data_passes,       ///< fixed-size batches over the data: T = ⌈E·k⌉, k batches per pass
};
const char* to_string(epoch_rule r);

/// The epoch rule of a sampling scheme: data_passes for shuffling, random allocation and
/// without replacement; expected_batches for Poisson and truncated Poisson.
epoch_rule epoch_rule_of(sampling_scheme s);

/// A phase and the numbers it was derived from, for a front end to show the derivation.
struct phase_derivation {
  training_phase phase;       ///< steps = 1 when no length was given
  bool noise_given = true;    ///< false: σ = 1 stands for the noise multiplier to solve for
  bool length_given = true;   ///< false: neither steps nor epochs was given
  bool in_batches = false;    ///< q came from batch_size / dataset_size (B and N below)
  long long batch_size = 0;   ///< B where in_batches
  long long dataset_size = 0; ///< N where in_batches
  epoch_rule rule = epoch_rule::expected_batches;  ///< the scheme's (epoch_rule_of)
  /// data_passes: k, the batches of one pass, ⌈N/B⌉ (⌊N/B⌋ with drop_last) or the
  /// accountants' ⌈1/q⌉ (0 at q = 0).
  long long batches_per_epoch = 0;
  bool drop_last = false;  ///< the units' drop_last
  /// Steps per epoch: k for data_passes; else N/B with a batch size, else 1/q (+inf at q = 0).
  double steps_per_epoch = 1;
};

/// The units rule a units_error names.
enum class units_rule {
  out_of_range,        ///< a value outside its domain (argument_error's constraint says which)
  sampling_missing,    ///< none of sampling_rate, batch_size, full_batch
  sampling_twice,      ///< more than one of them (name and other: two of them)
  dataset_missing,     ///< batch_size without dataset_size
  batch_too_large,     ///< batch_size > dataset_size
  length_twice,        ///< steps and epochs
  epochs_never_end,    ///< epochs at sampling rate 0
  too_many_steps,      ///< the epochs give more than 2^53 steps
  truncation_missing,  ///< truncated Poisson without max_batch_size or dataset_size (name: which)
  max_batch_unused,    ///< max_batch_size without truncated Poisson
  dataset_unused,      ///< dataset_size with neither batch_size nor truncated Poisson
  neighbours_fixed,    ///< neighbours other than the scheme's own where the scheme fixes them
  drop_last_unused,    ///< drop_last without B and N (other: batch_size), or with a scheme
                       ///< whose batches have no last one to drop (other: sampling)
  selected_unused,     ///< selected other than 1 without random allocation (other: sampling)
};

/// A run given in units that break a rule of this header. name() is the phase_units field at
/// fault; other() the second field of a combination rule ("" otherwise).
class units_error : public argument_error {
 public:
  units_error(units_rule rule,
              std::string_view function,
              std::string_view name,
              std::string_view value,
              std::string_view constraint,
              std::string_view other = {});
  units_rule rule() const noexcept { return rule_; }
  const std::string& other() const noexcept { return other_; }

 private:
  units_rule rule_;
  std::string other_;
};

/// The largest step count a run may have: 2^53, the last integer every double holds.
inline constexpr long long kMaxSteps = 9007199254740992LL;

/// T = ⌈E·N/B⌉, exact on E as written (header comment). Throws units_error (too_many_steps)
/// beyond kMaxSteps, argument_error unless E is finite and > 0 and 1 ≤ B ≤ N.
long long steps_for_epochs(double epochs, long long batch_size, long long dataset_size);

/// T = ⌈E/q⌉ (⌈E⌉ at q = 1), exact on E and q as written. Throws as above; q ∈ (0, 1].
long long steps_for_epochs(double epochs, double sampling_rate);

/// T = ⌈E·k⌉ for k ≥ 1 batches per pass over the data, exact on E as written. Throws as above.
long long steps_for_passes(double epochs, long long batches_per_epoch);

/// The steps `epochs` epochs of the derived phase take, by its rule: ⌈E·k⌉ for data_passes;
/// else ⌈E·N/B⌉ where its q came from a batch size, else ⌈E/q⌉ (units_error epochs_never_end at
/// q = 0).
long long steps_for_epochs(double epochs, const phase_derivation& phase);

/// The phase the units describe. Throws units_error naming the field and the rule it breaks,
/// checking the combination of fields first, then the ranges of training_run::validate (with
/// edge_values: σ = 0 or inf and q = 0 accepted, as validate's).
phase_derivation derive_phase(const phase_units& units, bool edge_values = false);

}  // namespace dpkit::accounting
