// dpkit plot (plot.cpp): one input file — a CSV, a JSON output with its results list and
// context, or a dpkit validate result — read as a table of cells, and the kind of dpkit output
// it is, recognised by its columns (CSV) or by context.tool (JSON).
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iomanip>
#include <sstream>

#include "dpkit/core/csv.hpp"
#include "plot_detail.hpp"

namespace dpkit::cli::detail::plot {

std::string json_cell(const json& v) {
  if (v.is_null()) return "";
  if (v.is_number()) {
    std::ostringstream o;
    o << std::setprecision(17) << v.get<double>();
    return o.str();
  }
  if (v.is_string()) return v.get<std::string>();
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  return "";
}

table read_table(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw usage_error(path + ": cannot read it");
  std::ostringstream buffer;
  buffer << in.rdbuf();
  const std::string text = buffer.str();
  if (text.find('\0') != std::string::npos)
    throw usage_error(path + " is not a text file, but must be " + std::string(kExpected));
  table t;
  t.path = path;
  t.label = enhanced_escape(std::filesystem::path(path).stem().string());
  const auto first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    throw usage_error(path + " is empty, but must be " + std::string(kExpected));
  if (text[first] == '{' || text[first] == '[') {
    json doc;
    try {
      doc = json::parse(text);
    } catch (const json::exception&) {
      throw usage_error(path + " is not valid JSON, but must be " + std::string(kExpected));
    }
    if (doc.is_object() && doc.contains("figure") && doc.contains("id")) {
      t.validation_result = doc;
      return t;
    }
    if (!doc.is_object() || !doc.contains("results") || !doc["results"].is_array())
      throw usage_error(path + " is JSON without a results list, but must be " +
                        std::string(kExpected));
    if (doc.contains("context") && doc["context"].is_object()) {
      t.tool = doc["context"].value("tool", "");
      if (doc["context"].contains("parameters") && doc["context"]["parameters"].is_object())
        t.parameters = doc["context"]["parameters"];
    }
    for (const json& row : doc["results"]) {
      if (!row.is_object()) continue;
      for (auto it = row.begin(); it != row.end(); ++it)
        if (!it.value().is_structured() &&
            std::find(t.columns.begin(), t.columns.end(), it.key()) == t.columns.end())
          t.columns.push_back(it.key());
    }
    for (const json& row : doc["results"]) {
      if (!row.is_object()) continue;
      std::vector<std::string> cells;
      for (const std::string& c : t.columns)
        cells.push_back(row.contains(c) ? json_cell(row[c]) : "");
      t.text.push_back(std::move(cells));
    }
    return t;
  }
  std::vector<csv_record> records;
  try {
    records = parse_csv(text);
  } catch (const std::runtime_error& e) {
    throw usage_error(path + ":" + e.what());
  }
  if (records.empty())
    throw usage_error(path + " has no header row, but must be " + std::string(kExpected));
  t.columns = records.front().cells;
  for (std::size_t k = 1; k < records.size(); ++k) {
    std::vector<std::string> cells = records[k].cells;
    if (cells.size() > t.columns.size())
      throw usage_error(path + ":" + std::to_string(records[k].line) + ": " +
                        std::to_string(cells.size()) + " cells, but the header has " +
                        std::to_string(t.columns.size()));
    cells.resize(t.columns.size());
    t.text.push_back(std::move(cells));
  }
  // The run's parameters, which dpkit epsilon and delta write into their CSVs as constant
  // columns (no context there): read as a JSON output's context parameters. The at-value (δ of
  // an ε CSV, ε of a δ CSV) is a parameter only where it is not the CSV's own quantity.
  for (const char* key : {"delta", "epsilon", "mu", "noise_multiplier", "noise_relative_to",
                          "sampling_rate", "sampling"}) {
    const auto c = t.column(key);
    if (!c || t.text.empty() || t.has(std::string(key) + "_lower")) continue;
    const std::string& cell = t.text.front()[*c];
    if (cell.empty() || !std::all_of(t.text.begin(), t.text.end(),
                                     [&](const auto& row) { return row[*c] == cell; }))
      continue;
    char* end = nullptr;
    const double v = std::strtod(cell.c_str(), &end);
    if (end != cell.c_str() && *end == '\0')
      t.parameters[key] = v;
    else
      t.parameters[key] = cell;
  }
  return t;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

kind recognise(const table& t) {
  if (t.validation_result) return kind::validation_result;
  const std::string& tool = t.tool;
  if (tool == "dpkit epsilon") return kind::epsilon;
  if (tool == "dpkit delta") return kind::delta;
  if (tool == "dpkit tradeoff") return kind::tradeoff;
  if (tool == "dpkit hsgd risk") return kind::hsgd_risk;
  if (tool == "dpkit hsgd privacy") return kind::hsgd_privacy;
  if (starts_with(tool, "dpkit shifted")) return kind::shifted;
  if (tool == "dpkit simulate") return kind::simulate;
  if (tool == "dpkit correlated") return kind::correlated;
  if (!tool.empty()) return kind::other;
  // A CSV: by its columns.
  const auto& c = t.columns;
  if (c.size() >= 3 && c[0] == "series" && c[1] == "x" && c[2] == "y") return kind::validation_csv;
  // Both quantities may be columns (the other one as the run's parameter): the bracket's
  // columns, or the older CSVs' single quantity, tell which.
  if (t.has("accountant") && t.has("kind")) {
    if (t.has("epsilon_lower")) return kind::epsilon;
    if (t.has("delta_lower")) return kind::delta;
  }
  if (t.has("accountant") && t.has("epsilon") && t.has("kind")) return kind::epsilon;
  if (t.has("accountant") && t.has("delta") && t.has("kind")) return kind::delta;
  if (t.has("alpha") && t.has("beta")) return kind::tradeoff;
  if (t.has("t") && t.has("P") && t.has("R")) return kind::hsgd_risk;
  const bool renyi = std::any_of(c.begin(), c.end(),
                                 [](const std::string& s) { return starts_with(s, "eps_alpha="); });
  if (renyi && (t.has("t") || t.has("t_J"))) return kind::hsgd_privacy;
  if (t.has("bound") && t.has("epsilon") && t.has("kind")) return kind::shifted;
  if (t.has("observable") && t.has("dataset") && t.has("step") && t.has("mean"))
    return kind::simulate;
  if (t.has("method") && t.has("noise_multiplier") && t.has("validity")) return kind::correlated;
  return kind::other;
}

const char* kind_name(kind k) {
  switch (k) {
    case kind::validation_result:
    case kind::validation_csv:
      return "dpkit validate";
    case kind::epsilon:
      return "dpkit epsilon";
    case kind::delta:
      return "dpkit delta";
    case kind::tradeoff:
      return "dpkit tradeoff";
    case kind::hsgd_risk:
      return "dpkit hsgd risk";
    case kind::hsgd_privacy:
      return "dpkit hsgd privacy";
    case kind::shifted:
      return "dpkit shifted";
    case kind::simulate:
      return "dpkit simulate";
    case kind::correlated:
      return "dpkit correlated";
    case kind::other:
      break;
  }
  return "other";
}

}  // namespace dpkit::cli::detail::plot
