// --strategy for dpkit epsilon, delta and calibrate: a matrix-factorization mechanism (DP-MF,
// BandMF, BLT, DP-λCGD) in place of DP-SGD's independent noise
// (lib/include/dpkit/accounting/matrix_mechanism.hpp; docs/accounting.md, "Matrix-factorization
// mechanisms"). The run's flags give σ, the sampling rate (per group) and the steps; this file
// renders the library's bracket.
#pragma once

#include <optional>
#include <string>

#include "cli.hpp"
#include "run_options.hpp"

namespace dpkit::cli {

struct strategy_options {
  std::string strategy;                   ///< --strategy SPEC; empty: DP-SGD as usual
  std::optional<long long> min_separation;  ///< --min-separation B
  /// --max-participations K: any steps B apart, at most K of them, no sampling (jax_privacy's
  /// schema) instead of the cyclic groups.
  std::optional<long long> max_participations;
};

/// --strategy and --min-separation (group "Matrix mechanism").
void add_strategy_options(CLI::App* app, strategy_options& options);

/// Throws usage_error for --min-separation without --strategy.
bool strategy_given(const strategy_options& options);

/// dpkit epsilon / dpkit delta with --strategy: one row per step count. `quantity` is "epsilon"
/// (at δ = `at`) or "delta" (at ε = `at`). Returns the exit code.
int strategy_privacy(const std::string& tool,
                     const run_options& run,
                     const run_requirements& needs,
                     const strategy_options& s,
                     const std::string& quantity,
                     double at,
                     const accountant_options& accountant,
                     const output_options& output);

/// dpkit calibrate with --strategy: the smallest noise multiplier within (ε, δ).
int strategy_calibrate(const run_options& run,
                       const run_requirements& needs,
                       const strategy_options& s,
                       double epsilon,
                       double delta,
                       double budget_tolerance,
                       double tolerance,
                       const accountant_options& accountant,
                       const output_options& output);

}  // namespace dpkit::cli
