// dpkit/core/result.hpp — vocabulary shared by every result struct.
//
// Numerical non-convergence is not an exception (docs/architecture.md; Ceres TerminationType): a
// solver returns a result whose `termination` says what happened, with a human-readable `message`.
// Privacy numbers carry a `bound_kind` so that an approximation is never mistaken for a bound.
#pragma once

#include <string>
#include <string_view>

namespace dpkit {

/// How an iterative computation ended.
enum class termination_type {
  /// The requested tolerance was met; the value is trustworthy to the documented accuracy.
  converged,
  /// The iteration budget ran out before the tolerance was met; the value is the best so far
  /// and the message says how far from converged it is.
  max_iterations,
  /// The computation could not proceed (no bracket, NaN from the model, ...). The value must
  /// not be used.
  failure,
};

/// "converged", "max_iterations" or "failure".
std::string_view to_string(termination_type t) noexcept;

/// What a reported privacy number certifies (docs/architecture.md, "Labelled bounds").
enum class bound_kind {
  /// The true quantity is at most this value (e.g. ε such that the mechanism is (ε, δ)-DP).
  upper_bound,
  /// The true quantity is at least this value.
  lower_bound,
  /// A statistical estimate (e.g. Monte Carlo), with its own confidence statement.
  estimate,
  /// An approximation with no guarantee in either direction (e.g. a CLT limit).
  approximation,
};

/// "upper-bound", "lower-bound", "estimate" or "approximation" (the CLI/JSON spelling).
std::string_view to_string(bound_kind k) noexcept;

/// Diagnostics common to all iterative solvers.
struct solver_status {
  termination_type termination = termination_type::converged;
  std::string message;  ///< empty when converged without remarks
  int evaluations = 0;  ///< function evaluations (or iterations) spent

  [[nodiscard]] bool converged() const noexcept {
    return termination == termination_type::converged;
  }
};

}  // namespace dpkit
