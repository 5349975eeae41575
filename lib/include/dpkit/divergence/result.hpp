// dpkit/divergence/result.hpp — results of (ε, δ) conversions.
//
// Every privacy number carries its bound_kind (docs/architecture.md, "Labelled bounds").
// One naming across the public API (as accounting::privacy_estimate, calibration_result and the
// Python results): `value` is the reported number, `lower`/`upper` the ends of its bracket.
// Where a computation yields a bracket, both ends are returned; `value` is always the end on
// the certified side for the stated kind (for an upper bound on ε: the end at which
// δ(ε) ≤ δ target holds).
#pragma once

#include <cmath>

#include "dpkit/core/result.hpp"

namespace dpkit::divergence {

/// ε at a δ target.
struct epsilon_result : solver_status {
  double value = NAN;  ///< the certified ε (see `kind`)
  double lower = NAN;  ///< lower end of the final bracket on ε (== value when exact)
  double upper = NAN;  ///< upper end of the final bracket on ε
  bound_kind kind = bound_kind::upper_bound;
  /// true when the conversion is tight for the mechanism (e.g. the exact GDP profile),
  /// false when it is a valid but loose bound (e.g. RDP conversions).
  bool tight = false;
};

/// δ at an ε target.
struct delta_result : solver_status {
  double value = NAN;      ///< δ (see `kind`)
  double log_value = NAN;  ///< log δ, finite even where δ underflows
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
