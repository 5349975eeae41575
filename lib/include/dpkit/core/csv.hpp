// dpkit/core/csv.hpp — numeric CSV tables with a provenance header.
//
// The format of data/reference/*.csv (and of every table dpkit reads):
//
//   # what: ...            ← any number of comment lines starting with '#': the provenance
//   # source: ...
//   x,Phi,log_Phi          ← exactly one header row of column names
//   -40,3.655893540915e-350,-804.608...
//
// Cells are parsed with strtod (so "inf", "nan" and numbers that underflow are accepted;
// correctly rounded for long decimal strings). Blank lines are ignored.
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace dpkit {

struct csv_table {
  std::filesystem::path path;             ///< where it was read from
  std::vector<std::string> comments;      ///< provenance lines, without the leading "# "
  std::vector<std::string> columns;       ///< header row
  std::vector<std::vector<double>> rows;  ///< one vector per data row, columns.size() wide
  std::vector<std::size_t> line_numbers;  ///< 1-based line of each row in the file

  /// Index of a named column; throws std::out_of_range naming the file and column if absent.
  [[nodiscard]] std::size_t column(std::string_view name) const;
  /// rows[row][column(name)].
  [[nodiscard]] double at(std::size_t row, std::string_view name) const;
  /// "path:line" of a data row, for diagnostics.
  [[nodiscard]] std::string where(std::size_t row) const;
  /// Value of a "# key: value" provenance line, or "" if absent.
  [[nodiscard]] std::string provenance(std::string_view key) const;
};

/// Reads a table; throws std::runtime_error naming the file and line on I/O or parse errors
/// (a cell that is not a number, a row with the wrong number of cells).
csv_table read_csv(const std::filesystem::path& path);

}  // namespace dpkit
