// Accuracy cases: one dpkit function checked against one 50-digit reference table.
//
// The same list drives the unit tests (which assert `tolerance`) and the documentation's
// accuracy tables (validation/accuracy/accuracy_report.cpp writes the measured errors into
// docs/<module>.md), so the published numbers are measured, never typed (STYLE.md rule 21).
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "dpkit/core/csv.hpp"

namespace dpkit::test {

enum class error_measure { relative, mollified };

struct accuracy_case {
  std::string id;         ///< unique, e.g. "normal_cdf"
  std::string module;     ///< "core", "divergence", ...
  std::string function;   ///< what is evaluated, as shown in the docs
  std::string file;       ///< data/reference/<file>
  std::string reference;  ///< name of the reference column
  /// Computes the value for row i of the table.
  std::function<double(const csv_table&, std::size_t)> evaluate;
  /// Rows to include (e.g. only those whose reference is a normal double); null = all.
  std::function<bool(const csv_table&, std::size_t)> include;
  double tolerance = 0;  ///< largest error the unit tests accept
  error_measure measure = error_measure::relative;
  std::string note;  ///< shown in the docs (which rows, why this tolerance)
};

struct accuracy_stats {
  std::size_t rows = 0;
  double max_error = 0;
  double rms_error = 0;
  std::size_t worst_row = 0;  ///< index into the table (valid when rows > 0)
  double worst_computed = 0;
  double worst_expected = 0;
  std::string worst_where;  ///< "file:line" of the worst row
};

/// All accuracy cases, in documentation order.
const std::vector<accuracy_case>& accuracy_cases();

/// Evaluates a case on its reference table (exceptions from the function propagate).
accuracy_stats measure(const accuracy_case& c);

/// A certified bracket checked against a reference: every reference value must lie in
/// [lower, upper] (the test), and the relative width (upper − lower)/upper is reported.
struct bracket_case {
  std::string id, module, function, file, reference, note;
  /// (lower, upper) for row i.
  std::function<std::pair<double, double>(const csv_table&, std::size_t)> evaluate;
  std::function<bool(const csv_table&, std::size_t)> include;
};

struct bracket_stats {
  std::size_t rows = 0, contained = 0;
  double max_width = 0;         ///< max (upper − lower)/upper
  double max_distance = 0;      ///< max (upper − reference)/reference: how far above the truth
  std::string first_violation;  ///< "file:line: lower ≤ ref ≤ upper fails" (empty if none)
};

const std::vector<bracket_case>& bracket_cases();
bracket_stats measure(const bracket_case& c);

}  // namespace dpkit::test
