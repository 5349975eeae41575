#include "dpkit/core/csv.hpp"

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

namespace dpkit {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> split(std::string_view line) {
  std::vector<std::string_view> cells;
  std::size_t start = 0;
  for (;;) {
    const std::size_t comma = line.find(',', start);
    cells.push_back(trim(line.substr(start, comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return cells;
}

}  // namespace

std::size_t csv_table::column(std::string_view name) const {
  for (std::size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return i;
  throw std::out_of_range(path.string() + ": no column named '" + std::string(name) + "'");
}

double csv_table::at(std::size_t row, std::string_view name) const {
  return rows.at(row).at(column(name));
}

std::string csv_table::where(std::size_t row) const {
  return path.string() + ":" + std::to_string(line_numbers.at(row));
}

std::string csv_table::provenance(std::string_view key) const {
  for (const std::string& c : comments) {
    std::string_view s = c;
    if (s.size() > key.size() && s.substr(0, key.size()) == key && s[key.size()] == ':')
      return std::string(trim(s.substr(key.size() + 1)));
  }
  return {};
}

csv_table read_csv(const std::filesystem::path& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path.string() + ": cannot open for reading");
  csv_table table;
  table.path = path;
  std::string line;
  std::size_t line_number = 0;
  while (std::getline(in, line)) {
    ++line_number;
    std::string_view s = trim(line);
    if (s.empty()) continue;
    if (s.front() == '#') {
      s.remove_prefix(1);
      table.comments.emplace_back(trim(s));
      continue;
    }
    const std::vector<std::string_view> cells = split(s);
    if (table.columns.empty()) {
      for (std::string_view c : cells) table.columns.emplace_back(c);
      continue;
    }
    if (cells.size() != table.columns.size()) {
      throw std::runtime_error(path.string() + ":" + std::to_string(line_number) + ": " +
                               std::to_string(cells.size()) + " cells, but the header has " +
                               std::to_string(table.columns.size()));
    }
    std::vector<double> row;
    row.reserve(cells.size());
    for (std::string_view c : cells) {
      const std::string cell(c);
      char* end = nullptr;
      errno = 0;
      const double v = std::strtod(cell.c_str(), &end);  // ERANGE on underflow is accepted
      if (cell.empty() || end != cell.c_str() + cell.size()) {
        throw std::runtime_error(path.string() + ":" + std::to_string(line_number) + ": '" + cell +
                                 "' is not a number");
      }
      row.push_back(v);
    }
    table.rows.push_back(std::move(row));
    table.line_numbers.push_back(line_number);
  }
  if (table.columns.empty()) throw std::runtime_error(path.string() + ": no header row");
  return table;
}

}  // namespace dpkit
