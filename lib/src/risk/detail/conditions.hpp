// Internal to dpkit::risk: the condition vocabulary shared by the bound modules (kan_bounds,
// nonconvex_bounds, mlp_bounds, longtail_bounds) — a named inequality with its source, and the
// status/label of a bound from its conditions.
#pragma once

#include <cmath>
#include <string>
#include <utility>

#include "dpkit/risk/kan_bounds.hpp"

namespace dpkit::risk::detail {

/// The condition "name: value ≤ limit" (source: where the paper states it).
inline condition at_most(std::string name, double value, double limit, std::string source) {
  return {std::move(name), value, limit, value <= limit, std::move(source)};
}
/// The condition "name: value ≥ limit".
inline condition at_least(std::string name, double value, double limit, std::string source) {
  return {std::move(name), value, limit, value >= limit, std::move(source)};
}
/// The strict condition "name: value > 0", shown with its limit 0 (as value ≥ the smallest
/// positive double it printed the limit as 4.940656458e-324).
inline condition positive(std::string name, double value, std::string source) {
  return {std::move(name), value, 0.0, value > 0, std::move(source)};
}

/// log(a/δ), also where a/δ itself overflows (a/δ = 2m/δ is inf at δ = 1e-305: a probe's
/// --delta 1e-305 gave "c_block_norm is inf"); the plain quotient where it is finite, so that
/// values printed before are unchanged.
inline double log_over(double a, double delta) {
  const double r = a / delta;
  return std::isfinite(r) ? std::log(r) : std::log(a) - std::log(delta);
}

/// Sets status and label from the conditions: `ok` when every condition holds,
/// condition_violated (naming the failed ones) otherwise.
inline void set_status(risk_bound& r, bound_status ok) {
  std::string failed;
  for (const condition& c : r.conditions)
    if (!c.holds) failed += (failed.empty() ? "" : "; ") + c.name;
  r.status = failed.empty() ? ok : bound_status::condition_violated;
  r.label = failed.empty()
                ? std::string(to_string(ok))
                : std::string(to_string(bound_status::condition_violated)) + ": " + failed;
}

}  // namespace dpkit::risk::detail
