// Internal to dpkit plot: what its files share (plot.cpp: the command, the figure and the
// overlay of several files; plot_input.cpp: an input file read as a table of cells, and the
// kind of dpkit output it is; plot_plans.cpp: what each kind draws by default, the words for
// dpkit's codes, and a plan drawn as series).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <functional>
#include <initializer_list>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "dpkit/core/parse.hpp"
#include "figure.hpp"

namespace dpkit::cli::detail::plot {

using figures::enhanced_escape;
using figures::figure;
using figures::series;


// ---- one input file as a table of cells ------------------------------------------------

struct table {
  std::string path;
  std::string label;  // legend prefix when several files are drawn together
  std::string tool;   // JSON context.tool; "" for CSV
  json parameters = json::object();
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> text;  // [row][column]; "" for a missing cell
  std::optional<json> validation_result;       // a dpkit validate per-scenario JSON

  std::optional<std::size_t> column(const std::string& name) const {
    const auto it = std::find(columns.begin(), columns.end(), name);
    if (it == columns.end()) return std::nullopt;
    return static_cast<std::size_t>(it - columns.begin());
  }
  bool has(const std::string& name) const { return column(name).has_value(); }
  double number(std::size_t row, std::size_t c) const {
    const auto v = parse_double(text[row][c]);
    return v ? *v : std::nan("");
  }
  // Whether a column holds numbers (every non-empty cell parses, at least one does).
  bool numeric(std::size_t c) const {
    bool any = false;
    for (const auto& row : text) {
      if (row[c].empty()) continue;
      if (!parse_double(row[c])) return false;
      any = true;
    }
    return any;
  }
  std::string column_list() const {
    std::string s;
    for (const std::string& c : columns) s += (s.empty() ? "" : ", ") + c;
    return s;
  }
};

std::string json_cell(const json& v);

constexpr const char* kExpected =
    "a CSV or JSON output of dpkit validate, epsilon, delta, tradeoff, hsgd risk, hsgd privacy, "
    "shifted, simulate or correlated";

table read_table(const std::string& path);

// ---- the kinds of dpkit output -----------------------------------------------------------

enum class kind {
  validation_result,
  validation_csv,
  epsilon,
  delta,
  tradeoff,
  hsgd_risk,
  hsgd_privacy,
  shifted,
  simulate,
  correlated,
  other,
};

bool starts_with(const std::string& s, const std::string& prefix);
kind recognise(const table& t);
const char* kind_name(kind k);

// A column name as an axis label or legend word (enhanced text).
std::string pretty_column(const std::string& c);

// ---- a plan: what to draw from a table -------------------------------------------------------

struct y_spec {
  std::string column;
  std::string lower, upper;  // interval columns ("" none)
  std::string error;         // a ± column ("" none)
  std::string name;          // legend word ("" the column's)
  bool right_axis = false;
  bool complement = false;  // draw 1 − value (the ROC view of a tradeoff curve)
};

// A reference line y = curve(x) across the fitted x range (drawn in grey after the data; it does
// not widen the axes).
struct reference {
  series style;
  std::function<double(double)> curve;
};

struct plan {
  std::string x;                 // column ("" none: the groups are the categories)
  std::string x_lower, x_upper;  // x interval columns
  std::vector<y_spec> y;
  std::vector<std::string> group;  // columns whose values split the rows into series
  std::string style;               // "" automatic
  // Legend words of a group (its values in `group` order); empty: "column = value".
  std::function<std::string(const std::vector<std::string>&)> group_name;
  std::function<bool(const table&, std::size_t)> keep_row;  // empty: every row
  figure labels;                                            // title, axis labels, key, scales
  std::vector<reference> extra;                             // reference lines drawn after the data
};

// The column to draw against: the first of `candidates` that holds numbers, and more than one
// value (a single run's steps column draws nothing against).
std::string first_numeric(const table& t, std::initializer_list<const char*> candidates);

// The default plan of each kind (`sweep`: the run parameter several single-run files are
// pooled over, "" none).
plan epsilon_plan(const table& t, bool is_delta, const std::string& sweep);
plan tradeoff_plan(const table& t, bool roc);
plan hsgd_risk_plan(const table&);
plan hsgd_privacy_plan(const table& t);
plan shifted_plan(const table& t, const std::string& sweep);
plan simulate_plan(const table& t);
plan correlated_plan(const table& t, const std::string& sweep);

// Draws a plan: one series per (group value, y column). `categories` collects the values of a
// text x column (shared by every file drawn together).
std::vector<series> draw(const table& t, const plan& p, std::vector<std::string>& categories);

// A validation result's long CSV (series,x,y,x_lo,x_hi,y_lo,y_hi): one series per name; points
// where a series has intervals and at most 60 points, lines (with a band) otherwise.
std::vector<series> draw_validation_csv(const table& t);

}  // namespace dpkit::cli::detail::plot
