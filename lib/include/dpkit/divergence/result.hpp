// dpkit/divergence/result.hpp — results of (ε, δ) conversions.
//
// Every privacy number carries its bound_kind (docs/architecture.md, "Labelled bounds").
// Where a computation yields a bracket, both ends are returned; `epsilon` is always the
// end on the certified side for the stated kind (for an upper bound: the end at which
// δ(ε) ≤ δ target holds).
#pragma once

#include <cmath>

#include "dpkit/core/result.hpp"

namespace dpkit::divergence {

struct epsilon_result : solver_status {
  double epsilon = NAN;        ///< the certified value (see `kind`)
  double epsilon_lower = NAN;  ///< lower end of the final bracket (== epsilon when exact)
  double epsilon_upper = NAN;  ///< upper end of the final bracket
  bound_kind kind = bound_kind::upper_bound;
  /// true when the conversion is tight for the mechanism (e.g. the exact GDP profile),
  /// false when it is a valid but loose bound (e.g. RDP conversions).
  bool tight = false;
};

struct delta_result : solver_status {
  double delta = NAN;
  double log_delta = NAN;  ///< log δ, finite even where δ underflows
  bound_kind kind = bound_kind::upper_bound;
  bool tight = false;
};

/// A parameter (μ, σ, ...) found by calibration, with its bracket. `value` is the end on
/// the safe side (smaller μ / larger σ).
struct calibration_result : solver_status {
  double value = NAN;
  double lower = NAN;
  double upper = NAN;
};

}  // namespace dpkit::divergence
