// Internal: GSL calls go through here so that GSL's default error handler, which calls
// abort(), is switched off before the first call (docs/architecture.md,
// "Bad input and non-convergence"); errors are then reported through status codes that we convert.
#pragma once

namespace dpkit::detail {

/// Switches GSL's abort-on-error handler off (once, thread-safe).
void ensure_gsl_error_handler_off() noexcept;

}  // namespace dpkit::detail
