#include "dpkit/core/csv.hpp"

#include "dpkit/core/parse.hpp"

#include <array>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <ostream>
#include <sstream>
#include <stdexcept>

namespace dpkit {

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
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error(path.string() + ": cannot open for reading");
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::runtime_error(path.string() + ": cannot read");
  csv_table table;
  table.path = path;
  std::vector<csv_record> records;
  std::vector<std::string> comments;
  try {
    records = parse_csv(text.str(), '#', &comments);
  } catch (const std::runtime_error& e) {
    throw std::runtime_error(path.string() + ":" + e.what());
  }
  for (const std::string& c : comments) table.comments.emplace_back(trim(c));
  for (const csv_record& rec : records) {
    if (table.columns.empty()) {
      for (const std::string& c : rec.cells) table.columns.emplace_back(trim(c));
      continue;
    }
    if (rec.cells.size() != table.columns.size()) {
      throw std::runtime_error(path.string() + ":" + std::to_string(rec.line) + ": " +
                               std::to_string(rec.cells.size()) + " cells, but the header has " +
                               std::to_string(table.columns.size()));
    }
    std::vector<double> row;
    row.reserve(rec.cells.size());
    for (const std::string& raw : rec.cells) {
      const std::string cell(trim(raw));
      const std::optional<double> v = parse_double(cell);  // underflow is accepted
      if (!v) {
        throw std::runtime_error(path.string() + ":" + std::to_string(rec.line) + ": '" + cell +
                                 "' is not a number");
      }
      row.push_back(*v);
    }
    table.rows.push_back(std::move(row));
    table.line_numbers.push_back(rec.line);
  }
  if (table.columns.empty()) throw std::runtime_error(path.string() + ": no header row");
  return table;
}

std::vector<csv_record> parse_csv(std::string_view text,
                                  char comment,
                                  std::vector<std::string>* comments) {
  // A small state machine rather than a library: RFC 4180 is a dozen lines, and no CSV
  // library is among the project's dependencies.
  std::vector<csv_record> out;
  std::size_t line = 1, i = 0;
  const std::size_t n = text.size();
  while (i < n) {
    // Start of a record: skip blank lines and comments.
    if (text[i] == '\n' || (text[i] == '\r' && i + 1 < n && text[i + 1] == '\n')) {
      i += text[i] == '\r' ? 2 : 1;
      ++line;
      continue;
    }
    std::size_t first = i;  // comments may be indented
    while (first < n && (text[first] == ' ' || text[first] == '\t')) ++first;
    if (comment != '\0' && first < n && text[first] == comment) {
      std::size_t end = first;
      while (end < n && text[end] != '\n') ++end;
      if (comments != nullptr) {
        std::string_view c = text.substr(first + 1, end - first - 1);
        if (!c.empty() && c.back() == '\r') c.remove_suffix(1);
        comments->emplace_back(c);
      }
      i = end;
      continue;
    }
    csv_record rec;
    rec.line = line;
    std::string cell;
    bool end_of_record = false;
    while (!end_of_record) {
      cell.clear();
      if (i < n && text[i] == '"') {
        ++i;
        for (;;) {
          if (i >= n)
            throw std::runtime_error(std::to_string(rec.line) + ": unterminated quoted field");
          if (text[i] == '"') {
            if (i + 1 < n && text[i + 1] == '"') {
              cell += '"';
              i += 2;
              continue;
            }
            ++i;
            break;
          }
          if (text[i] == '\n') ++line;
          cell += text[i++];
        }
        if (i < n && text[i] != ',' && text[i] != '\n' && text[i] != '\r')
          throw std::runtime_error(std::to_string(line) + ": text after a closing quote");
      } else {
        while (i < n && text[i] != ',' && text[i] != '\n' &&
               !(text[i] == '\r' && (i + 1 >= n || text[i + 1] == '\n')))
          cell += text[i++];
      }
      rec.cells.push_back(cell);
      if (i < n && text[i] == ',') {
        ++i;
        continue;
      }
      if (i < n && text[i] == '\r') ++i;
      if (i < n && text[i] == '\n') {
        ++i;
        ++line;
      }
      end_of_record = true;
    }
    out.push_back(std::move(rec));
  }
  return out;
}

std::string csv_quote(std::string_view cell) {
  const bool needs = cell.find_first_of(",\"\r\n") != std::string_view::npos ||
                     (!cell.empty() && (cell.front() == ' ' || cell.back() == ' '));
  if (!needs) return std::string(cell);
  std::string out = "\"";
  for (char c : cell) {
    if (c == '"') out += '"';
    out += c;
  }
  out += '"';
  return out;
}

std::string csv_row(const std::vector<std::string>& cells) {
  std::string out;
  for (std::size_t i = 0; i < cells.size(); ++i) {
    if (i) out += ',';
    out += csv_quote(cells[i]);
  }
  return out;
}

std::string csv_number(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  // to_chars with precision 17 in general format is printf's %.17g without its locale.
  std::array<char, 32> buffer{};
  const auto r = std::to_chars(buffer.data(), buffer.data() + buffer.size(), x,
                               std::chars_format::general, 17);
  return std::string(buffer.data(), r.ptr);
}

void write_csv_header(std::ostream& out,
                      const std::vector<std::string>& columns,
                      const std::vector<std::string>& comments) {
  for (const std::string& c : comments) out << "# " << c << '\n';
  out << csv_row(columns) << '\n';
}

void write_csv(std::ostream& out,
               const std::vector<std::string>& columns,
               const std::vector<std::vector<double>>& rows,
               const std::vector<std::string>& comments) {
  for (const std::string& c : comments)
    if (c.find_first_of("\r\n") != std::string::npos)
      throw std::domain_error("write_csv: a comment must be a single line, not '" + c + "'");
  for (const std::vector<double>& row : rows)
    if (row.size() != columns.size())
      throw std::domain_error("write_csv: a row has " + std::to_string(row.size()) +
                              " numbers, but the table has " + std::to_string(columns.size()) +
                              " columns");
  write_csv_header(out, columns, comments);
  std::string line;
  for (const std::vector<double>& row : rows) {
    line.clear();
    for (std::size_t j = 0; j < row.size(); ++j) {
      if (j) line += ',';
      line += csv_number(row[j]);
    }
    line += '\n';
    out << line;
  }
  if (!out) throw std::runtime_error("write_csv: write failed");
}

}  // namespace dpkit
