// dpkit audit --scores: the privacy a real training run's canary scores prove
// (audit/canary_scores.hpp), beside the accountant's certified upper bound. The flags are
// added to `dpkit audit`; with --scores the simulated-run flags do not apply.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"

namespace dpkit::cli {

struct score_audit_options {
  std::vector<std::string> scores;  ///< IN.csv OUT.csv, or one FILE.csv with a member column
  bool one_run = false;
  std::optional<long long> guesses;
  std::string strategy = "bonferroni";
  double split_fraction = 0.5;
  bool two_sided = false;
  double fpr = 0.01;
  std::string accountant_run;  ///< the epsilon command's run flags, as one string
};

/// Adds --scores, --one-run, --guesses, --threshold-strategy, --split-fraction, --two-sided,
/// --fpr and --accountant-run (group "Canary scores").
void add_score_audit_options(CLI::App* app, score_audit_options& options);

/// The score audit. `claim_epsilon` (--epsilon / --claim-epsilon) and `delta` as typed; `app`
/// is the audit subcommand (to refuse the simulated-run flags and to name flags in messages).
/// Returns the exit status: 3 when the claim (or the accountant's upper bound) is violated.
int run_score_audit(const score_audit_options& options,
                    std::optional<double> claim_epsilon,
                    std::optional<double> delta,
                    double confidence,
                    std::uint64_t seed,
                    const std::string& figure_file,
                    const output_options& output,
                    const CLI::App* app);

}  // namespace dpkit::cli
