// The training run of the accounting subcommands (epsilon, delta, calibrate, tradeoff, rdp), in
// the user's units: a noise multiplier; a sampling rate, or a batch size and a dataset size, or
// the full batch; a number of steps, or of epochs; or several phases of such runs. Nothing has a
// default that could silently change the answer: a run that is not fully given is a usage error
// naming what is missing (docs/cli.md "The training run").
//
// Counts and lists: --steps and --epochs take one value, a comma-separated list, or a range
// START:STOP:STEP (arithmetic, STOP included when reached) or START:STOP:logK (K values spaced
// evenly in log, integers for steps); several values make a curve (one row per value).
#pragma once

#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "dpkit/accounting/run_units.hpp"
#include "dpkit/accounting/training_run.hpp"

namespace dpkit::cli {

struct run_options {
  std::optional<double> mu;
  std::optional<double> noise_multiplier;
  std::optional<double> sampling_rate;
  std::optional<long long> batch_size;
  std::optional<long long> dataset_size;
  bool full_batch = false;
  std::string sampling = "poisson";
  std::string neighbours;                   ///< --neighbours; empty: the scheme's own
  std::optional<long long> max_batch_size;  ///< --max-batch-size (truncated-poisson)
  std::vector<std::string> steps;           ///< --steps values as typed (lists, ranges)
  std::vector<std::string> epochs;          ///< --epochs values as typed
  bool per_epoch = false;                   ///< --per-epoch: a row after every whole epoch
  bool drop_last = false;                   ///< --drop-last: floor(N/B) batches per epoch
  long long selected = 1;                   ///< --selected: k of t steps (random allocation)
  std::string noise_relative_to = "clip-norm";  ///< --noise-relative-to
  std::vector<std::string> phases;          ///< --phase specifications
};

/// What a subcommand needs of the run.
struct run_requirements {
  bool mu = true;          ///< --mu M may replace the run (μ-GDP)
  bool noise = true;       ///< the noise multiplier is required (calibrate solves for it)
  bool length = true;      ///< steps or epochs are required (calibrate can solve for them)
  bool curve = true;       ///< several step counts allowed (one row each)
  std::string subcommand;  ///< "dpkit epsilon", for messages
  /// Noise multiplier 0 or inf and sampling rate 0 accepted (epsilon and delta answer them
  /// exactly: docs/accounting.md, "Edge values"); elsewhere they are refused.
  bool edge_values = false;
};

/// Adds the run's flags to `app` (group "Training run"): --noise-multiplier (-s),
/// --sampling-rate (-p), --batch-size, --dataset-size, --full-batch, --sampling, --neighbours,
/// --max-batch-size, --steps (-i),
/// --epochs, --per-epoch, --phase, and --mu where allowed.
void add_run_options(CLI::App* app, run_options& options, const run_requirements& needs);

/// The run the flags describe, and how its numbers were derived.
struct resolved_run {
  accounting::training_run run;  ///< with the last phase at steps.front()
  /// The last phase's step counts, one per row of a curve (one entry for a single run).
  std::vector<long long> steps;
  /// The epochs each row stands for (the run's total), where the length was given in epochs.
  std::vector<double> epochs;
  /// Total steps of the run at each entry of `steps` (earlier phases included).
  std::vector<long long> total_steps;
  bool is_mu = false;
  /// Whether every phase has its noise multiplier (calibrate solves for it otherwise).
  bool noise_given = true;
  /// What the user's noise multipliers are relative to (--noise-relative-to); the run's σ are
  /// relative to C, as the accountants take them.
  accounting::noise_scale noise_scale = accounting::noise_scale::clip_norm;
  /// Steps per epoch of the last phase: N/B (exact ratio) with a batch size, else 1/q.
  double steps_per_epoch = 1;
  /// The last phase's sampling was given as a batch size (epochs are then the user's unit).
  bool in_batches = false;
  std::string description;  ///< "14063 steps with noise multiplier 1.1, sampling rate ..."
  /// How q and T were obtained from the user's units, one line each ("q = B/N = 256/60000 =
  /// 0.004266666667"); empty when given directly.
  std::vector<std::string> derivation;
  json parameters;  ///< the run's inputs for the JSON context
};

/// Resolves the flags; usage_error naming the missing or conflicting flag otherwise. With
/// needs.noise false and no --noise-multiplier, the phases get σ = 1 (the caller solves for it);
/// with needs.length false and no length, steps is empty and the last phase has 1 step.
resolved_run resolve_run(const run_options& options, const run_requirements& needs);

/// The run in words, as training_run::describe() but leaving out what a calibration solves
/// for: the noise multiplier (with_noise false) and the last phase's number of steps
/// (with_last_steps false). σ is written relative to `scale`, and where that differs from σ
/// relative to C (replace-one, scale sensitivity) both are.
std::string describe_run(const accounting::training_run& run,
                         bool with_noise,
                         bool with_last_steps,
                         accounting::noise_scale scale = accounting::noise_scale::clip_norm);

/// A noise multiplier in words, relative to `scale` for phase p (σ relative to C in p):
/// "1.1", or "0.55 of the sensitivity 2C (1.1 of C)" where the two differ.
std::string noise_words(double sigma, accounting::noise_scale scale,
                        const accounting::training_phase& p);

/// What a list holds: counts (whole numbers in [1, 2^53]; log ranges rounded to distinct
/// integers), positive reals, or probabilities in [0, 1] (a log range must start above 0).
enum class number_kind { count, positive, probability };

/// Parses a list of numbers with ranges (see the header comment). At most `max_count` values.
/// usage_error "<flag> is <text>, but must be ..." on bad input.
std::vector<double> parse_number_list(const std::string& flag,
                                      const std::vector<std::string>& items,
                                      number_kind kind,
                                      std::size_t max_count);

}  // namespace dpkit::cli
