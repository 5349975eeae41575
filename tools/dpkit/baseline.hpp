// Regression baselines (`--baseline FILE` of dpkit audit and dpkit validate): a stored JSON
// output of the same command, and the drift check of an estimate against it. Two independent
// estimates, each with an interval of half-width h at the run's confidence, differ by more than
// their noise when |now − then| > √(h_now² + h_then²) — the half-width of the difference's own
// interval, to the normal approximation. Exact estimates (h = 0) drift on any change beyond
// 1e-12 relative.
#pragma once

#include <string>

#include "cli.hpp"

namespace dpkit::cli {

/// The JSON document `path` written by `tool` ("dpkit audit", "dpkit validate") with
/// --format json: usage_error "<flag>: PATH: ..." when it cannot be read, is not JSON, or was not
/// written by `tool`.
json read_json_output(const std::string& flag, const std::string& path, const std::string& tool);

struct drift_check {
  bool drift = false;
  json rows = json::array();  ///< one per comparison: quantity, current, baseline, allowed, drift
  std::string summary;        ///< the first drift, in words (empty without one)

  /// Compares one estimate; returns whether it drifted.
  bool compare(
      const std::string& quantity, double now, double now_half, double then, double then_half);
};

}  // namespace dpkit::cli
