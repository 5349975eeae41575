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
// correctly rounded for long decimal strings). Blank lines are ignored. Cells may be quoted
// (RFC 4180); parse_csv, csv_quote and csv_row below are the reader and writer of every CSV
// file dpkit reads or writes.
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
/// (a cell that is not a number, a row with the wrong number of cells). Cells may be quoted as
/// RFC 4180 allows (a header written by R's write.csv, say).
csv_table read_csv(const std::filesystem::path& path);

// ---- RFC 4180 records: the one reader and writer every CSV of dpkit goes through ------------

/// One record of a CSV text: its cells (quotes removed, "" read as ") and the 1-based line on
/// which it starts.
struct csv_record {
  std::vector<std::string> cells;
  std::size_t line = 0;
};

/// Splits a CSV text into records (RFC 4180): fields separated by commas, records by LF or
/// CRLF; a field in double quotes may hold commas, line breaks and doubled quotes. Lines that
/// start with `comment` (after blanks, outside quotes; 0: none) and blank lines are skipped —
/// the comments' text (after the comment character) is appended to `comments` when given.
/// Throws std::runtime_error "N: ..." (N the line) on an unterminated quoted field or text after
/// a closing quote.
std::vector<csv_record> parse_csv(std::string_view text,
                                  char comment = '#',
                                  std::vector<std::string>* comments = nullptr);

/// The cell as RFC 4180 writes it: in double quotes, with quotes doubled, when it holds a
/// comma, a double quote, CR or LF (or starts or ends with a space); unchanged otherwise.
std::string csv_quote(std::string_view cell);

/// Cells joined by commas, each quoted as needed (no line end).
std::string csv_row(const std::vector<std::string>& cells);

/// A number as every CSV dpkit writes holds it: 17 significant digits (printf's "%.17g"), enough
/// for any double to read back exactly (max_digits10); "nan", "inf" and "-inf" for the others.
std::string csv_number(double x);

/// A numeric table as read_csv reads it: a "# " line for each comment (one line each), the
/// header row (csv_row), then each row's numbers (csv_number). Throws std::domain_error for a
/// comment that spans lines or a row not columns.size() wide, std::runtime_error when the
/// stream fails.
void write_csv(std::ostream& out,
               const std::vector<std::string>& columns,
               const std::vector<std::vector<double>>& rows,
               const std::vector<std::string>& comments = {});

/// write_csv's first lines alone — a "# " line per comment, then the header row — for a writer
/// that streams its rows (each cell csv_number, joined by commas) from its own storage. The
/// comments must be single lines (write_csv checks them; here the caller does).
void write_csv_header(std::ostream& out,
                      const std::vector<std::string>& columns,
                      const std::vector<std::string>& comments = {});

}  // namespace dpkit
