#include "baseline.hpp"

#include <cmath>
#include <fstream>
#include <string>

namespace dpkit::cli {

json read_json_output(const std::string& flag, const std::string& path, const std::string& tool) {
  std::ifstream in(path);
  if (!in) throw usage_error(flag + ": cannot read " + path);
  json doc;
  try {
    doc = json::parse(in);
  } catch (const std::exception& e) {
    throw usage_error(flag + ": " + path + ": not JSON (" + std::string(e.what()) + ")");
  }
  const bool ok = doc.is_object() && doc.contains("context") && doc["context"].is_object() &&
                  doc["context"].value("tool", "") == tool && doc.contains("results") &&
                  doc["results"].is_array();
  if (!ok)
    throw usage_error(flag + ": " + path + ": not the JSON output of " + tool +
                      " (write it with --format json --output FILE)");
  return doc;
}

bool drift_check::compare(
    const std::string& quantity, double now, double now_half, double then, double then_half) {
  const auto finite_or_zero = [](double x) { return std::isfinite(x) ? std::abs(x) : 0.0; };
  const double allowed = std::max(std::hypot(finite_or_zero(now_half), finite_or_zero(then_half)),
                                  1e-12 * std::max(std::abs(now), std::abs(then)));
  const bool moved = !(std::abs(now - then) <= allowed);
  drift = drift || moved;
  rows.push_back({{"quantity", quantity},
                  {"current", now},
                  {"baseline", then},
                  {"difference", now - then},
                  {"allowed", allowed},
                  {"drift", moved}});
  if (moved && summary.empty())
    summary = quantity + " moved from " + format_number(then) + " to " + format_number(now) +
              " (more than the " + format_number(allowed) + " the two runs' noise allows)";
  return moved;
}

}  // namespace dpkit::cli
