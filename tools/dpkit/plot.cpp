// dpkit plot — draws any CSV or JSON output of dpkit with gnuplot, through the figure library
// (validation/harness/figure.hpp): validation results, epsilon / delta (against steps or
// epochs, by accountant, with the PLD bracket), tradeoff curves with their bracket (or the ROC
// view), hsgd risk and privacy trajectories, shifted bounds, simulate observables with their
// intervals, correlated-noise calibrations, and any other CSV by --x / --y.
//
// The kind of a file is recognised by its columns (CSV) or by context.tool (JSON); what each
// kind draws by default is a `plan` (x column, y columns with their interval columns, a column
// that splits the rows into series) that --x, --y, --group and the interval flags override.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/core/csv.hpp"
#include "figure.hpp"

namespace dpkit::cli {
namespace {

using validation::enhanced_escape;
using validation::figure;
using validation::series;

struct plot_options {
  std::vector<std::string> inputs;
  std::string out;
  std::vector<std::string> labels;
  std::vector<std::string> names;
  std::string x, y, y_lower, y_upper, x_lower, x_upper, y_error, group, y2;
  bool log_x = false, log_y = false, linear_x = false, linear_y = false;
  bool roc = false;
  std::vector<std::string> styles;
  std::string title, x_label, y_label, y2_label;
  std::string key;
  std::string script;
};

std::vector<std::string> split_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ','))
    if (!item.empty()) out.push_back(item);
  return out;
}

std::optional<double> parse_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size()) return std::nullopt;
  return v;
}

// A number for labels: 1e-05 as 10^{-5}, others with up to 6 significant digits.
std::string pretty_number(double v) {
  if (v > 0) {
    const double e = std::round(std::log10(v));
    if (std::abs(e) >= 3 && std::abs(v / std::pow(10.0, e) - 1) < 1e-12)
      return "10^{" + std::to_string(static_cast<long>(e)) + "}";
  }
  std::ostringstream o;
  o << std::setprecision(6) << v;
  return o.str();
}

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
    const auto v = parse_number(text[row][c]);
    return v ? *v : std::nan("");
  }
  // Whether a column holds numbers (every non-empty cell parses, at least one does).
  bool numeric(std::size_t c) const {
    bool any = false;
    for (const auto& row : text) {
      if (row[c].empty()) continue;
      if (!parse_number(row[c])) return false;
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

constexpr const char* kExpected =
    "a CSV or JSON output of dpkit validate, epsilon, delta, tradeoff, hsgd risk, hsgd privacy, "
    "shifted, simulate or correlated";

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
  return t;
}

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

// ---- words for codes ----------------------------------------------------------------------

// A column name as an axis label or legend word (enhanced text).
std::string pretty_column(const std::string& c) {
  static const std::map<std::string, std::string> words = {
      {"epsilon", "ε"},
      {"delta", "δ"},
      {"alpha", "α"},
      {"beta", "β"},
      {"beta_upper", "β_{upper}"},
      {"mu", "μ"},
      {"sigma", "σ"},
      {"kappa", "κ"},
      {"lambda", "λ"},
      {"eta", "η"},
      {"tau", "τ"},
      {"epsilon_lower", "ε_{lower}"},
      {"epsilon_upper", "ε_{upper}"},
      {"delta_lower", "δ_{lower}"},
      {"delta_upper", "δ_{upper}"},
      {"log_delta", "ln δ"},
      {"noise_multiplier", "noise multiplier"},
      {"noise_multiplier_lower", "noise multiplier, lower end"},
      {"sampling_rate", "sampling rate q"},
      {"correlation", "correlation λ"},
      {"steps", "steps T"},
      {"step", "step"},
      {"epochs", "epochs"},
      {"epoch", "epoch"},
      {"t", "t"},
      {"t_J", "t_J"},
      {"P", "P_t"},
      {"R", "R_t"},
      {"mean", "mean"},
      {"test_accuracy", "test accuracy"},
      {"eps_lower", "ε_{lower}"},
      {"eps_upper", "ε_{upper}"},
      {"factor", "factor"},
  };
  if (const auto it = words.find(c); it != words.end()) return it->second;
  if (starts_with(c, "eps_alpha="))
    return "ε_α, α = " + enhanced_escape(c.substr(std::string("eps_alpha=").size()));
  std::string s = c;
  std::replace(s.begin(), s.end(), '_', ' ');
  return enhanced_escape(s);
}

std::string accountant_words(const std::string& a) {
  if (a == "pld") return "PLD";
  if (a == "rdp") return "RDP";
  if (a == "clt") return "CLT";
  if (a == "gdp") return "GDP (exact)";
  return enhanced_escape(a);
}

std::string kind_words(const std::string& k) {
  if (k == "upper-bound") return "upper bound";
  if (k == "lower-bound") return "lower bound";
  if (k == "approximation") return "approximation (no guarantee)";
  if (k == "estimate") return "estimate";
  return enhanced_escape(k);
}

std::string correlated_method_words(const std::string& m) {
  static const std::map<std::string, std::string> words = {
      {"f12", "Thm F.12 closed form"},
      {"f12-proof-constant", "Thm F.12 with its proof's constant"},
      {"f9-row-sum", "Lemma F.9, row-sum sensitivity"},
      {"f9-exact", "Lemma F.9, exact ‖C‖_2"},
      {"f9-block", "Lemma F.9, leading block (conjecture)"},
      {"pld", "PLD (λ = 0, certified)"},
      {"d9", "Thm D.9 closed form"},
      {"d9-eq19", "eq. (19) Rényi DP, composed"},
      {"pld-replace-one", "PLD, replace-one (λ = 0, certified)"},
      {"lower-bound", "lower bound"},
  };
  if (const auto it = words.find(m); it != words.end()) return it->second;
  return enhanced_escape(m);
}

std::string validity_words(const std::string& v) {
  if (v == "valid-upper-bound") return "valid upper bound";
  if (v == "outside-conditions") return "closed form outside its conditions (no guarantee)";
  if (v == "conjecture-dependent") return "depends on a conjecture";
  if (v == "lower-bound") return "lower bound: no smaller κ is private";
  if (v == "heuristic") return "heuristic";
  std::string s = v;
  std::replace(s.begin(), s.end(), '-', ' ');
  return enhanced_escape(s);
}

std::string shifted_bound_words(const std::string& b) {
  static const std::map<std::string, std::string> words = {
      {"shifted-interpolation", "shifted interpolation"},
      {"rdp-shifted", "shifted interpolation through Rényi DP"},
      {"composition", "composition"},
      {"exponential-mechanism", "exponential mechanism"},
      {"lower-bound", "lower bound"},
      {"rdp-ys22", "Rényi DP bound of YS22"},
      {"shifted-interpolation (CLT)", "shifted interpolation (CLT approximation)"},
  };
  if (const auto it = words.find(b); it != words.end()) return it->second;
  std::string s = b;
  // "shifted-interpolation (Thm 4.6 at best tau)" -> "shifted interpolation (Thm 4.6 at best τ)"
  for (std::size_t i = 0; i + 1 < s.size(); ++i)
    if (s[i] == '-' && std::isalpha(static_cast<unsigned char>(s[i + 1])) && i > 0 &&
        std::isalpha(static_cast<unsigned char>(s[i - 1])))
      s[i] = ' ';
  s = enhanced_escape(s);
  for (const auto& [word, greek] : std::vector<std::pair<std::string, std::string>>{
           {"tau", "τ"}, {"sigma", "σ"}, {"eta", "η"}, {"lambda", "λ"}}) {
    for (std::size_t at = s.find(word); at != std::string::npos; at = s.find(word, at + 1)) {
      const bool start = at == 0 || !std::isalpha(static_cast<unsigned char>(s[at - 1]));
      const bool end = at + word.size() == s.size() ||
                       !std::isalpha(static_cast<unsigned char>(s[at + word.size()]));
      if (start && end) s.replace(at, word.size(), greek);
    }
  }
  return s;
}

std::string simulate_group_words(const std::string& observable, const std::string& dataset) {
  std::string o = observable;
  std::replace(o.begin(), o.end(), '_', ' ');
  std::string d = dataset == "D'" ? "D′" : dataset;
  return enhanced_escape(o) + " on " + enhanced_escape(d);
}

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

std::string parameter_text(const json& p, const std::string& key) {
  if (!p.contains(key) || p[key].is_null()) return "";
  if (p[key].is_number()) return pretty_number(p[key].get<double>());
  if (p[key].is_string()) return enhanced_escape(p[key].get<std::string>());
  return "";
}

// The run a dpkit epsilon / delta / tradeoff JSON describes, in words ("" for a CSV).
std::string run_words(const json& p) {
  std::vector<std::string> parts;
  if (const std::string mu = parameter_text(p, "mu"); !mu.empty()) parts.push_back("μ = " + mu);
  if (const std::string s = parameter_text(p, "noise_multiplier"); !s.empty())
    parts.push_back("σ = " + s);
  if (const std::string q = parameter_text(p, "sampling_rate"); !q.empty())
    parts.push_back("q = " + q +
                    (p.contains("sampling") && p["sampling"].is_string()
                         ? " (" + p["sampling"].get<std::string>() + ")"
                         : ""));
  if (const std::string t = parameter_text(p, "steps"); !t.empty() && !p["steps"].is_array())
    parts.push_back("T = " + t);
  std::string s;
  for (const std::string& part : parts) s += (s.empty() ? "" : ", ") + part;
  return s;
}

// The first finite value of a column (or of a parameter), NaN if none.
double first_value(const table& t, const std::string& column, const std::string& parameter) {
  if (const auto c = t.column(column))
    for (std::size_t r = 0; r < t.text.size(); ++r)
      if (const double v = t.number(r, *c); std::isfinite(v)) return v;
  if (t.parameters.contains(parameter) && t.parameters[parameter].is_number())
    return t.parameters[parameter].get<double>();
  return std::nan("");
}

// The column to draw against: the first of `candidates` that holds numbers, and more than one
// value (a single run's steps column draws nothing against).
std::string first_numeric(const table& t, std::initializer_list<const char*> candidates) {
  for (const char* c : candidates)
    if (const auto i = t.column(c); i && t.numeric(*i)) {
      std::set<std::string> values;
      for (const auto& row : t.text)
        if (!row[*i].empty()) values.insert(row[*i]);
      if (values.size() > 1) return c;
    }
  return "";
}

plan epsilon_plan(const table& t, bool is_delta, const std::string& sweep) {
  plan p;
  const std::string q = is_delta ? "delta" : "epsilon";
  const std::string greek = is_delta ? "δ" : "ε";
  p.x = sweep.empty() ? first_numeric(t, {"epochs", "steps"}) : sweep;
  y_spec y{q, q + "_lower", q + "_upper", "", "", false, false};
  p.y.push_back(y);
  p.keep_row = [q](const table& tt, std::size_t r) {
    const auto k = tt.column("kind");
    return !(k && tt.text[r][*k] == "unavailable");
  };
  // The legend: the accountant, what its number is, and its bracket where it has one.
  const auto describe = [&t, greek, q](const std::string& accountant, bool with_name) {
    std::string kinds;
    bool bracket = false;
    const auto a = t.column("accountant"), k = t.column("kind"), lo = t.column(q + "_lower"),
               hi = t.column(q + "_upper");
    for (std::size_t r = 0; r < t.text.size(); ++r) {
      if (a && t.text[r][*a] != accountant) continue;
      if (k && kinds.empty() && t.text[r][*k] != "unavailable") kinds = t.text[r][*k];
      if (lo && hi && std::isfinite(t.number(r, *lo)) && std::isfinite(t.number(r, *hi)))
        bracket = true;
    }
    std::string s = with_name ? accountant_words(accountant) + ": " : "";
    s += kind_words(kinds.empty() ? "value" : kinds);
    if (bracket) s += ", certified bracket [" + greek + "_{lower}, " + greek + "_{upper}]";
    return s;
  };
  if (p.x.empty()) {
    // One run: the accountants side by side.
    p.x = "accountant";
    p.group = {"accountant"};
    p.group_name = [describe](const std::vector<std::string>& g) { return describe(g[0], false); };
    p.labels.x_label = "accountant";
    p.style = "points";
  } else {
    p.group = {"accountant"};
    p.group_name = [describe](const std::vector<std::string>& g) { return describe(g[0], true); };
    p.labels.x_label = pretty_column(p.x);
  }
  const double other =
      first_value(t, is_delta ? "epsilon" : "delta", is_delta ? "epsilon" : "delta");
  p.labels.y_label = greek + (std::isfinite(other) ? std::string(" at ") + (is_delta ? "ε" : "δ") +
                                                         " = " + pretty_number(other)
                                                   : std::string());
  p.labels.title = std::string(is_delta ? "δ" : "ε") + " of the run by accountant";
  p.labels.subtitle = run_words(t.parameters);
  return p;
}

plan tradeoff_plan(const table& t, bool roc) {
  plan p;
  p.x = "alpha";
  const bool bracket = t.has("beta_upper");
  const std::string mu = parameter_text(t.parameters, "mu");
  if (roc) {
    // TPR = 1 − β: the certified lower bound β gives the upper bound on the TPR. dpkit tradeoff
    // writes the TPR columns itself (accurate where β is within rounding of 1); older outputs
    // have β only.
    y_spec y{"beta", bracket ? "beta_upper" : "", bracket ? "beta" : "", "", "", false, true};
    const bool tpr = t.has("tpr_upper");
    if (tpr)
      y = {"tpr_upper",
           t.has("tpr_lower") ? "tpr_lower" : "",
           t.has("tpr_lower") ? "tpr_upper" : "",
           "",
           "",
           false,
           false};
    const bool tpr_bracket = tpr ? t.has("tpr_lower") : bracket;
    y.name = tpr_bracket ? "largest TPR, certified bracket [1 − β_{upper}, 1 − β]"
                         : (mu.empty() ? "largest TPR of any test, 1 − β(α)"
                                       : "largest TPR of any test under G(μ), μ = " + mu);
    p.y.push_back(y);
    p.labels.x_label = "false-positive rate α";
    p.labels.y_label = "true-positive rate 1 − β(α)";
    p.labels.title = "Membership inference: the best test's ROC curve";
    p.labels.log_x = p.labels.log_y = true;
    series chance;
    chance.name = "random guessing: TPR = FPR";
    chance.colour = 5;
    chance.dash = 2;
    p.extra.push_back({chance, [](double a) { return a; }});
  } else {
    y_spec y{"beta", bracket ? "beta" : "", bracket ? "beta_upper" : "", "", "", false, false};
    y.name = bracket ? "tradeoff curve, certified bracket [β, β_{upper}]"
                     : (mu.empty() ? "tradeoff curve β(α)" : "G(μ), μ = " + mu);
    p.y.push_back(y);
    p.labels.x_label = "type I error α";
    p.labels.y_label = "type II error β";
    p.labels.title = "Tradeoff curve: the smallest type II error of any test";
    series id;
    id.name = "perfect privacy: β = 1 − α (random guessing)";
    id.colour = 5;
    id.dash = 2;
    p.extra.push_back({id, [](double a) { return 1 - a; }});
  }
  p.labels.subtitle = run_words(t.parameters);
  return p;
}

plan hsgd_risk_plan(const table&) {
  plan p;
  p.x = "t";
  p.y.push_back({"P", "", "", "P_error", "population risk P_t ± numerical error", false, false});
  p.y.push_back({"R", "", "", "R_error", "regularised risk R_t ± numerical error", false, false});
  p.labels.x_label = "time t = k/d (SGD steps k, dimension d)";
  p.labels.y_label = "risk";
  p.labels.title = "Noisy HSGD risk (Volterra equations)";
  return p;
}

plan hsgd_privacy_plan(const table& t) {
  plan p;
  p.x = first_numeric(t, {"t", "t_J"});
  if (p.x.empty()) p.x = t.has("t") ? "t" : "t_J";  // one release time
  for (const std::string& c : t.columns)
    if (starts_with(c, "eps_alpha=")) {
      const std::string order = enhanced_escape(c.substr(std::string("eps_alpha=").size()));
      p.y.push_back({c, "", "", "", "Rényi DP ε_α(t), α = " + order, false, false});
    }
  if (t.has("epsilon")) {
    const std::string d = parameter_text(t.parameters, "delta");
    const std::string eps = d.empty() ? std::string("(ε, δ)-DP ε") : "ε at δ = " + d;
    p.y.push_back({"epsilon", "", "", "", eps + " (right axis)", true, false});
    p.labels.y2_label = eps;
  }
  p.labels.x_label = p.x == "t_J" ? "last release time t_J" : "time t = k/d";
  p.labels.y_label = "Rényi DP ε_α";
  p.labels.title = "Rényi DP of noisy HSGD against time (approximation)";
  return p;
}

plan shifted_plan(const table& t, const std::string& sweep) {
  plan p;
  p.x = sweep.empty() ? first_numeric(t, {"epochs", "steps"}) : sweep;
  p.y.push_back({"epsilon", "", "", "", "", false, false});
  p.keep_row = [](const table& tt, std::size_t r) {
    const auto e = tt.column("epsilon");
    return e && std::isfinite(tt.number(r, *e));
  };
  const std::string d = parameter_text(t.parameters, "delta");
  p.labels.y_label = d.empty() ? std::string("ε") : "ε at δ = " + d;
  p.labels.title = "Privacy of the last iterate by bound";
  if (p.x.empty()) {
    p.x = "bound";
    p.group = {"kind"};
    p.group_name = [](const std::vector<std::string>& g) { return kind_words(g[0]); };
    p.labels.x_label = "bound";
    p.style = "points";
  } else {
    p.group = {"bound"};
    p.group_name = [](const std::vector<std::string>& g) { return shifted_bound_words(g[0]); };
    p.labels.x_label = p.x == "epochs" ? "epochs E" : pretty_column(p.x);
  }
  return p;
}

plan simulate_plan(const table& t) {
  plan p;
  p.x = "step";
  p.y.push_back({"mean", "ci95_lo", "ci95_hi", "", "", false, false});
  p.group = {"observable", "dataset"};
  p.group_name = [](const std::vector<std::string>& g) { return simulate_group_words(g[0], g[1]); };
  // Trajectories (a group recorded at several steps) when there are any; the final
  // observables, side by side, otherwise.
  std::map<std::pair<std::string, std::string>, std::set<std::string>> steps;
  const auto o = t.column("observable"), d = t.column("dataset"), s = t.column("step");
  for (const auto& row : t.text) steps[{row[*o], row[*d]}].insert(row[*s]);
  std::set<std::pair<std::string, std::string>> trajectories;
  for (const auto& [key, at] : steps)
    if (at.size() > 1) trajectories.insert(key);
  if (!trajectories.empty()) {
    p.keep_row = [trajectories](const table& tt, std::size_t r) {
      return trajectories.count(
                 {tt.text[r][*tt.column("observable")], tt.text[r][*tt.column("dataset")]}) > 0;
    };
    p.labels.x_label = "step";
    std::set<std::string> observables;
    for (const auto& key : trajectories) observables.insert(key.first);
    p.labels.y_label =
        (observables.size() == 1 ? enhanced_escape(*observables.begin()) + ", " : std::string()) +
        "mean over the replicates (95 % interval)";
    p.style = "linespoints";
  } else {
    p.x = "observable";
    p.group = {"dataset"};
    p.group_name = [](const std::vector<std::string>& g) {
      return "on " + enhanced_escape(g[0] == "D'" ? "D′" : g[0]);
    };
    p.labels.x_label = "observable of the final iterate";
    p.labels.y_label = "mean over the replicates (95 % interval)";
    p.style = "points";
  }
  p.labels.title = "Reference simulator: observables with 95 % intervals";
  return p;
}

plan correlated_plan(const table& t, const std::string& sweep) {
  plan p;
  p.y.push_back({"noise_multiplier", "", "", "", "", false, false});
  p.keep_row = [](const table& tt, std::size_t r) {
    return std::isfinite(tt.number(r, *tt.column("noise_multiplier")));
  };
  p.labels.y_label = "noise multiplier κ";
  const std::string e = parameter_text(t.parameters, "epsilon"),
                    d = parameter_text(t.parameters, "delta");
  p.labels.title = "Noise calibration of DP-λCGD by method";
  if (!e.empty() && !d.empty()) p.labels.subtitle = "(ε, δ) = (" + e + ", " + d + ")";
  if (sweep.empty()) {
    p.x = "method";
    p.group = {"validity"};
    p.group_name = [](const std::vector<std::string>& g) { return validity_words(g[0]); };
    p.labels.x_label = "method";
    p.style = "points";
  } else {
    p.x = sweep;
    p.labels.x_label = pretty_column(sweep);
    p.group = {"method"};
    p.group_name = [](const std::vector<std::string>& g) { return correlated_method_words(g[0]); };
  }
  return p;
}

// ---- from a plan to series --------------------------------------------------------------

std::size_t need_column(const table& t, const std::string& name, const std::string& flag) {
  const auto c = t.column(name);
  if (!c)
    throw usage_error(flag + ": " + t.path + " has no column '" + name +
                      "' (its columns: " + t.column_list() + ")");
  return *c;
}

// A column drawn as numbers: every cell empty (no point) or a number. A cell that is neither
// would otherwise be dropped from the figure without a word (a malformed row drawn, exit 0).
void need_numbers(const table& t, std::size_t c, const std::string& flag) {
  for (std::size_t r = 0; r < t.text.size(); ++r) {
    const std::string& cell = t.text[r][c];
    const std::optional<double> v = parse_number(cell);
    if (!cell.empty() && (!v || std::isnan(*v)))
      throw usage_error(flag + ": " + t.path + ", data row " + std::to_string(r + 1) +
                        ": column '" + t.columns[c] + "' is '" + cell +
                        "', but must be a number (or empty for no point)");
  }
}

// The x column: numbers (checked as above), or text throughout (a category axis); a column that
// mixes the two is a malformed file, not a category axis.
void need_x(const table& t, std::size_t c) {
  bool number = false, text = false;
  for (const auto& row : t.text) {
    if (row[c].empty()) continue;
    (parse_number(row[c]) ? number : text) = true;
  }
  if (number && text) need_numbers(t, c, "--x");
}

// The legend word of a category value of the x column.
std::string category_words(const std::string& column, const std::string& value) {
  if (column == "accountant") return accountant_words(value);
  if (column == "method") return correlated_method_words(value);
  if (column == "bound") return shifted_bound_words(value);
  if (column == "observable") {
    std::string s = value;
    std::replace(s.begin(), s.end(), '_', ' ');
    return enhanced_escape(s);
  }
  return enhanced_escape(value);
}

// One value of a --group column in the legend: a number as "T = 100" (the column's symbol), a
// text as itself (a dpkit code in words).
std::string group_words(const std::string& column, const std::string& value) {
  if (!parse_number(value)) return category_words(column, value);
  static const std::map<std::string, std::string> symbols = {{"steps", "T"},
                                                             {"epochs", "E"},
                                                             {"sigma", "σ"},
                                                             {"noise", "σ"},
                                                             {"noise_multiplier", "σ"},
                                                             {"learning_rate", "η"},
                                                             {"correlation", "λ"},
                                                             {"epsilon", "ε"},
                                                             {"delta", "δ"},
                                                             {"mu", "μ"},
                                                             {"alpha", "α"},
                                                             {"order", "α"},
                                                             {"sampling_rate", "q"},
                                                             {"kappa", "κ"},
                                                             {"lambda", "λ"}};
  const auto it = symbols.find(column);
  return (it != symbols.end() ? it->second : pretty_column(column)) + " = " +
         enhanced_escape(value);
}

// Draws a plan: one series per (group value, y column). `categories` collects the values of a
// text x column (shared by every file drawn together).
std::vector<series> draw(const table& t, const plan& p, std::vector<std::string>& categories) {
  const std::size_t xc = need_column(t, p.x, "--x");
  need_x(t, xc);
  const bool categorical = !t.numeric(xc);
  const auto opt = [&](const std::string& name,
                       const std::string& flag) -> std::optional<std::size_t> {
    if (name.empty()) return std::nullopt;
    const std::size_t c = need_column(t, name, flag);
    need_numbers(t, c, flag);
    return c;
  };
  const auto xl = opt(p.x_lower, "--x-lower"), xh = opt(p.x_upper, "--x-upper");
  std::vector<std::size_t> gc;
  for (const std::string& g : p.group) gc.push_back(need_column(t, g, "--group"));

  // Group values in order of first appearance.
  std::vector<std::vector<std::string>> groups;
  std::vector<std::size_t> group_of(t.text.size(), 0);
  for (std::size_t r = 0; r < t.text.size(); ++r) {
    std::vector<std::string> key;
    for (std::size_t c : gc) key.push_back(t.text[r][c]);
    auto it = std::find(groups.begin(), groups.end(), key);
    if (it == groups.end()) {
      groups.push_back(key);
      it = groups.end() - 1;
    }
    group_of[r] = static_cast<std::size_t>(it - groups.begin());
  }
  std::vector<series> out;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    for (const y_spec& y : p.y) {
      const std::size_t yc = need_column(t, y.column, "--y");
      need_numbers(t, yc, "--y");
      const auto lo = opt(y.lower, "--y-lower"), hi = opt(y.upper, "--y-upper"),
                 err = opt(y.error, "--y-error");
      series s;
      s.right_axis = y.right_axis;
      const std::string y_name = y.name.empty() ? pretty_column(y.column) : y.name;
      if (gc.empty()) {
        s.name = y_name;
      } else {
        std::string g_name;
        if (p.group_name) {
          g_name = p.group_name(groups[g]);
        } else {
          for (std::size_t k = 0; k < gc.size(); ++k)
            g_name += (k ? ", " : "") + group_words(p.group[k], groups[g][k]);
        }
        s.name = p.y.size() > 1 ? g_name + ", " + y_name : g_name;
      }
      std::set<std::pair<double, double>> seen;  // a repeated point (simulate's last step)
      for (std::size_t r = 0; r < t.text.size(); ++r) {
        if (group_of[r] != g || (p.keep_row && !p.keep_row(t, r))) continue;
        double x;
        if (categorical) {
          const std::string value = category_words(p.x, t.text[r][xc]);
          auto it = std::find(categories.begin(), categories.end(), value);
          if (it == categories.end()) {
            categories.push_back(value);
            it = categories.end() - 1;
          }
          x = static_cast<double>(it - categories.begin()) + 1;
        } else {
          x = t.number(r, xc);
        }
        double v = t.number(r, yc);
        if (!std::isfinite(x) || !std::isfinite(v)) continue;
        if (!seen.insert({x, v}).second) continue;
        double l = lo ? t.number(r, *lo) : std::nan(""), h = hi ? t.number(r, *hi) : std::nan("");
        if (err) {
          const double e = t.number(r, *err);
          l = v - e;
          h = v + e;
        }
        if (y.complement) {
          v = 1 - v;
          const double nl = 1 - h, nh = 1 - l;
          l = nl;
          h = nh;
        }
        s.x.push_back(x);
        s.y.push_back(v);
        s.x_lo.push_back(xl ? t.number(r, *xl) : std::nan(""));
        s.x_hi.push_back(xh ? t.number(r, *xh) : std::nan(""));
        s.y_lo.push_back(l);
        s.y_hi.push_back(h);
      }
      if (s.x.empty()) continue;
      // Lines through numeric x in increasing order.
      if (!categorical) {
        std::vector<std::size_t> order(s.x.size());
        for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return s.x[a] < s.x[b]; });
        const auto permute = [&](std::vector<double>& v) {
          std::vector<double> w(v.size());
          for (std::size_t i = 0; i < order.size(); ++i) w[i] = v[order[i]];
          v = std::move(w);
        };
        for (auto* v : {&s.x, &s.y, &s.x_lo, &s.x_hi, &s.y_lo, &s.y_hi}) permute(*v);
      }
      if (!p.style.empty())
        s.style = p.style;
      else
        s.style = categorical ? "points" : (s.x.size() > 40 ? "lines" : "linespoints");
      out.push_back(std::move(s));
    }
  }
  return out;
}

// A validation result's long CSV (series,x,y,x_lo,x_hi,y_lo,y_hi): one series per name; points
// where a series has intervals and at most 60 points, lines (with a band) otherwise.
std::vector<series> draw_validation_csv(const table& t) {
  std::vector<series> out;
  const char* names[] = {"x", "y", "x_lo", "x_hi", "y_lo", "y_hi"};
  std::vector<std::optional<std::size_t>> cols;
  for (const char* n : names) cols.push_back(t.column(n));
  for (std::size_t r = 0; r < t.text.size(); ++r) {
    const std::string& name = t.text[r][0];
    if (out.empty() || out.back().name != name) {
      series s;
      s.name = name;
      out.push_back(s);
    }
    series& s = out.back();
    double v[6];
    for (std::size_t k = 0; k < 6; ++k) {
      v[k] = std::nan("");
      if (!cols[k]) continue;
      const std::string& cell = t.text[r][*cols[k]];
      if (cell.empty()) continue;
      const auto x = parse_number(cell);
      if (!x)
        throw usage_error(t.path + ": row " + std::to_string(r + 2) + ": the " + names[k] +
                          " cell '" + cell + "' is not a number");
      v[k] = *x;
    }
    s.x.push_back(v[0]);
    s.y.push_back(v[1]);
    s.x_lo.push_back(v[2]);
    s.x_hi.push_back(v[3]);
    s.y_lo.push_back(v[4]);
    s.y_hi.push_back(v[5]);
  }
  for (series& s : out) {
    bool interval = false;
    for (std::size_t i = 0; i < s.x.size(); ++i)
      interval = interval || (std::isfinite(s.x_lo[i]) && std::isfinite(s.x_hi[i])) ||
                 (std::isfinite(s.y_lo[i]) && std::isfinite(s.y_hi[i]));
    s.style = interval && s.x.size() <= 60 ? "points" : "lines";
  }
  return out;
}

// ---- several files: a sweep over one run parameter ------------------------------------------

bool single_run_kind(kind k) {
  return k == kind::epsilon || k == kind::delta || k == kind::shifted || k == kind::correlated;
}

// The numeric context parameter that differs between the files (--x may name it).
std::string sweep_parameter(const std::vector<table>& tables, const std::string& requested) {
  std::vector<std::string> differing;
  for (auto it = tables.front().parameters.begin(); it != tables.front().parameters.end(); ++it) {
    if (!it.value().is_number()) continue;
    for (const table& t : tables)
      if (!t.parameters.contains(it.key()) || !t.parameters[it.key()].is_number() ||
          t.parameters[it.key()] != it.value()) {
        differing.push_back(it.key());
        break;
      }
  }
  if (!requested.empty()) {
    if (std::find(differing.begin(), differing.end(), requested) != differing.end())
      return requested;
    return "";
  }
  if (differing.size() == 1) return differing.front();
  for (const char* preferred : {"epochs", "steps"})
    if (std::find(differing.begin(), differing.end(), preferred) != differing.end())
      return preferred;
  if (differing.empty())
    throw usage_error(tables.front().path +
                      " and the other files describe the same run: give "
                      "runs that differ in one parameter to draw against it");
  std::string list;
  for (const std::string& d : differing) list += (list.empty() ? "" : ", ") + d;
  throw usage_error("--x: the files differ in " + list + "; name the one to draw against");
}

// ---- the figure ----------------------------------------------------------------------------

figure build_figure(std::vector<table>& tables, const plot_options& o) {
  std::vector<kind> kinds;
  for (const table& t : tables) kinds.push_back(recognise(t));
  const bool generic_y = !o.y.empty();
  for (std::size_t i = 0; i < tables.size(); ++i) {
    if (kinds[i] == kind::other && !generic_y) {
      if (tables[i].tool == "dpkit validate")
        throw usage_error(tables[i].path +
                          " is the dpkit validate scoreboard, which has no "
                          "figure: draw a scenario's ID.json from its --output "
                          "folder, or give --x COL and --y COL");
      if (!tables[i].tool.empty())
        throw usage_error(tables[i].path + " is " + tables[i].tool +
                          " output, which has no default figure: give --x COL and --y COL");
      throw usage_error(tables[i].path + " is not a dpkit output dpkit plot knows (expected " +
                        std::string(kExpected) + "); give --y COL to plot its columns");
    }
  }

  // Single-run outputs (one row per accountant, bound or method) given several at a time are
  // pooled into one sweep over the run parameter that differs between them.
  const bool pooled =
      tables.size() > 1 && single_run_kind(kinds.front()) &&
      std::all_of(kinds.begin(), kinds.end(), [&](kind k) { return k == kinds.front(); }) &&
      std::all_of(tables.begin(), tables.end(), [](const table& t) {
        return first_numeric(t, {"epochs", "steps"}).empty();
      });
  std::string swept;
  if (pooled) {
    // The run parameter each file's rows are drawn at: a steps (epochs) column every file has,
    // else the parameter that differs between the JSON contexts.
    std::string parameter;
    for (const char* column : {"epochs", "steps"})
      if (parameter.empty() &&
          std::all_of(tables.begin(), tables.end(), [&](const table& t) { return t.has(column); }))
        parameter = column;
    if (parameter.empty() || !o.x.empty()) {
      for (const table& t : tables)
        if (t.tool.empty())
          throw usage_error(t.path + ": a " + std::string(kind_name(kinds.front())) +
                            " CSV holds one run without its parameters: give the JSON outputs "
                            "(their context names the run), or CSVs with a steps column");
      parameter = sweep_parameter(tables, o.x);
      if (parameter.empty())
        throw usage_error("--x is " + o.x +
                          ", but must be a run parameter that differs between the files");
    }
    swept = parameter;
    table all = tables.front();
    all.text.clear();
    if (!all.has(parameter)) all.columns.push_back(parameter);
    for (table& t : tables) {
      const bool from_context = !t.has(parameter);
      const auto value = from_context ? json_cell(t.parameters[parameter]) : std::string();
      for (auto row : t.text) {
        std::vector<std::string> cells;
        for (const std::string& c : all.columns) {
          if (c == parameter && from_context) {
            cells.push_back(value);
            continue;
          }
          const auto k = t.column(c);
          cells.push_back(k ? row[*k] : "");
        }
        all.text.push_back(std::move(cells));
      }
    }
    tables = {all};
    kinds = {kinds.front()};
  }

  figure f;
  std::vector<std::string> categories;
  std::vector<std::vector<series>> parts;
  std::vector<reference> extra;
  bool first = true;
  for (std::size_t i = 0; i < tables.size(); ++i) {
    const table& t = tables[i];
    std::vector<series> part;
    figure labels;
    if (kinds[i] == kind::validation_result) {
      const json& doc = *t.validation_result;
      try {
        labels = validation::figure_from_json(doc.at("figure"));
      } catch (const json::exception&) {
        throw usage_error(t.path + " is not a dpkit validate result (its figure does not read)");
      }
      labels.subtitle = validation::validation_subtitle(
          doc.value("id", std::string()), doc.value("verdict", std::string()),
          doc.contains("tightness") && doc["tightness"].is_number() ? doc["tightness"].get<double>()
                                                                    : std::nan(""));
      part = labels.data;
      labels.data.clear();
    } else if (kinds[i] == kind::validation_csv && !generic_y) {
      part = draw_validation_csv(t);
      labels.title = enhanced_escape(std::filesystem::path(t.path).stem().string());
      labels.x_label = "x";
      labels.y_label = "y";
    } else {
      plan p;
      switch (kinds[i]) {
        case kind::epsilon:
          p = epsilon_plan(t, false, swept);
          break;
        case kind::delta:
          p = epsilon_plan(t, true, swept);
          break;
        case kind::tradeoff:
          p = tradeoff_plan(t, o.roc);
          break;
        case kind::hsgd_risk:
          p = hsgd_risk_plan(t);
          break;
        case kind::hsgd_privacy:
          p = hsgd_privacy_plan(t);
          break;
        case kind::shifted:
          p = shifted_plan(t, swept);
          break;
        case kind::simulate:
          p = simulate_plan(t);
          break;
        case kind::correlated:
          p = correlated_plan(t, swept);
          break;
        case kind::validation_csv:
          p.x = "x";
          p.group = {"series"};
          p.group_name = [](const std::vector<std::string>& g) { return g[0]; };
          break;
        default:
          p.x = t.columns.front();
          break;
      }
      // The flags override the plan.
      if (!o.x.empty() && !pooled) {
        p.x = o.x;
        p.labels.x_label = pretty_column(o.x);
      }
      if (!o.group.empty()) {
        p.group = split_list(o.group);
        p.group_name = nullptr;
      }
      if (!o.y.empty() || !o.y2.empty()) {
        const auto lowers = split_list(o.y_lower), uppers = split_list(o.y_upper),
                   errors = split_list(o.y_error);
        std::vector<y_spec> chosen;
        const auto add = [&](const std::string& c, bool right, std::size_t k) {
          const auto known =
              std::find_if(p.y.begin(), p.y.end(), [&](const y_spec& s) { return s.column == c; });
          y_spec s = known != p.y.end() ? *known : y_spec{c, "", "", "", "", false, false};
          s.right_axis = right;
          if (k < lowers.size()) s.lower = lowers[k];
          if (k < uppers.size()) s.upper = uppers[k];
          if (k < errors.size()) s.error = errors[k];
          chosen.push_back(s);
        };
        const auto ys = split_list(o.y);
        for (std::size_t k = 0; k < ys.size(); ++k) add(ys[k], false, k);
        for (const std::string& c : split_list(o.y2)) add(c, true, ys.size() + 1000);
        p.y = chosen;
        if (kinds[i] == kind::other || kinds[i] == kind::validation_csv) {
          p.labels.y_label = ys.size() == 1 ? pretty_column(ys.front()) : "";
          p.labels.title.clear();
        }
        if (!o.y2.empty()) {
          const auto y2s = split_list(o.y2);
          p.labels.y2_label = y2s.size() == 1 ? pretty_column(y2s.front()) : "";
        }
      } else if (!o.y_lower.empty() || !o.y_upper.empty() || !o.y_error.empty()) {
        for (y_spec& s : p.y) {
          if (!o.y_lower.empty()) s.lower = o.y_lower;
          if (!o.y_upper.empty()) s.upper = o.y_upper;
          if (!o.y_error.empty()) s.error = o.y_error;
        }
      }
      for (std::size_t k = 0; k < o.names.size() && k < p.y.size(); ++k) p.y[k].name = o.names[k];
      if (!o.x_lower.empty()) p.x_lower = o.x_lower;
      if (!o.x_upper.empty()) p.x_upper = o.x_upper;
      if (p.x.empty()) p.x = t.columns.front();
      if (p.labels.x_label.empty()) p.labels.x_label = pretty_column(p.x);
      if (p.y.empty())
        throw usage_error("--y: nothing to draw from " + t.path +
                          " (its columns: " + t.column_list() + ")");
      part = draw(t, p, categories);
      labels = p.labels;
      if (first) extra = p.extra;
    }
    if (!o.styles.empty())
      for (series& s : part) s.style = o.styles[o.styles.size() == 1 ? 0 : i];
    if (first) {
      f = labels;
      first = false;
    } else if (labels.subtitle != f.subtitle) {
      f.subtitle.clear();  // the files describe different runs
    }
    parts.push_back(std::move(part));
  }

  // Overlay: several files share the figure. A file given a --label is named by it (alone when
  // the file gives one series); otherwise files are named by their file names only where their
  // series' names would be the same. Colours: one series per file, by file; the same series in
  // several files (the same curves of other runs), by series with a dash per file; otherwise
  // every series its own.
  const bool one_each = std::all_of(parts.begin(), parts.end(),
                                    [](const std::vector<series>& p) { return p.size() == 1; });
  std::set<std::string> names;
  bool collide = false;
  for (const auto& part : parts)
    for (const series& s : part) collide = !names.insert(s.name).second || collide;
  int running = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    for (std::size_t k = 0; k < parts[i].size(); ++k) {
      series s = parts[i][k];
      const std::string& label = tables[i].label;
      if (!o.labels.empty() && !pooled) {
        s.name = parts[i].size() == 1 || s.name.empty() ? label : label + ": " + s.name;
      } else if (parts.size() > 1 && collide) {
        s.name = s.name.empty() ? label : label + ": " + s.name;
      }
      if (parts.size() > 1) {
        if (one_each) {
          s.colour = static_cast<int>(i);
        } else if (collide) {
          if (s.colour < 0) s.colour = static_cast<int>(k);
          s.dash = static_cast<int>(i) + 1;
        } else {
          s.colour = running;
        }
      }
      ++running;
      f.data.push_back(std::move(s));
    }
  }
  if (pooled) f.subtitle.clear();  // the first file's run, not the sweep's
  if (!categories.empty()) {       // a text x column (a validation result brings its own)
    f.x_categories = categories;
    f.linear_x = true;
  }

  // Flags that set the look.
  if (!o.title.empty()) f.title = o.title;
  if (!o.x_label.empty()) f.x_label = o.x_label;
  if (!o.y_label.empty()) f.y_label = o.y_label;
  if (!o.y2_label.empty()) f.y2_label = o.y2_label;
  if (o.log_x) f.log_x = true, f.linear_x = false;
  if (o.log_y) f.log_y = true, f.linear_y = false;
  if (o.linear_x) f.linear_x = true, f.log_x = false;
  if (o.linear_y) f.linear_y = true, f.log_y = false;
  if (!o.key.empty()) {
    std::string key = o.key;
    std::replace(key.begin(), key.end(), '-', ' ');
    f.key = key;
  }

  // Reference lines across the fitted x range (drawn last, in grey).
  if (!extra.empty()) {
    const validation::figure_axes axes = validation::fit_axes(f);
    for (const reference& r : extra) {
      series s = r.style;
      const int n = 100;
      for (int k = 0; k <= n; ++k) {
        const double x = axes.x.log ? axes.x.lo * std::pow(axes.x.hi / axes.x.lo, k / double(n))
                                    : axes.x.lo + (axes.x.hi - axes.x.lo) * k / n;
        const double y = r.curve(x);
        if (x >= 0 && x <= 1 && (!axes.y.log || y > 0)) {
          s.x.push_back(x);
          s.y.push_back(y);
        }
      }
      f.data.push_back(s);
    }
    // The reference line must not widen the axes the data chose.
    f.x_min = axes.x.lo;
    f.x_max = axes.x.hi;
    f.y_min = axes.y.lo;
    f.y_max = axes.y.hi;
  }
  return f;
}

int run_plot(const plot_options& o) {
  for (const std::string& in : o.inputs) {
    check_not_an_input("--output", o.out, "the input", in);
    check_not_an_input("--script", o.script, "the input", in);
  }
  if (o.styles.size() > 1 && o.styles.size() != o.inputs.size())
    throw usage_error("--style is given " + std::to_string(o.styles.size()) +
                      " times, but must be given once, or once per input file (" +
                      std::to_string(o.inputs.size()) + ")");
  if (!o.labels.empty() && o.labels.size() != o.inputs.size())
    throw usage_error("--label is given " + std::to_string(o.labels.size()) +
                      " times, but must be "
                      "given once per input file (" +
                      std::to_string(o.inputs.size()) + ")");
  std::vector<table> tables;
  for (std::size_t i = 0; i < o.inputs.size(); ++i) {
    tables.push_back(read_table(o.inputs[i]));
    if (!o.labels.empty()) tables.back().label = o.labels[i];
  }
  const figure f = build_figure(tables, o);
  if (!o.script.empty()) write_file("--script", o.script, validation::gnuplot_script(f, o.out));
  std::string error;
  if (!validation::render(f, o.out, error)) {
    std::cerr << "dpkit plot: " << error << "\n";
    return kExitNumericalFailure;
  }
  std::cerr << "dpkit plot: wrote " << o.out << "\n";
  return kExitSuccess;
}

CLI::Validator figure_file_validator() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        const std::string ext = std::filesystem::path(path).extension().string();
        if (!validation::is_figure_extension(ext))
          return "is " + path + ", but must end in .svg, .png or .pdf";
        return {};
      },
      "FIG", "figure_file");
}

CLI::Validator column_list_validator() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (split_list(value).empty()) return "is '" + value + "', but must name a column";
        return {};
      },
      "COL", "column_list");
}

}  // namespace

void register_plot(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<plot_options>();
  CLI::App* sub = app.add_subcommand(
      "plot",
      "Draw any CSV or JSON output of dpkit with gnuplot (SVG, PNG or PDF): validation results, "
      "epsilon/delta against steps, tradeoff curves, hsgd trajectories, shifted bounds, "
      "simulate observables, correlated calibrations, or any CSV by its columns; intervals as "
      "error bars or bands");
  sub->add_option("files", o->inputs,
                  "Outputs of dpkit (--format csv or json), or any CSV with --y; several are drawn "
                  "together")
      ->required()
      ->check(CLI::ExistingFile);
  sub->add_option("--output", o->out,
                  "The figure: FIG.svg, FIG.png or FIG.pdf (the format by extension; checked "
                  "before the work)")
      ->required()
      ->check(figure_file_validator())
      ->check(writable_file_validator())
      ->type_name("FIG");
  auto* label = sub->add_option("--label", o->labels,
                                "Legend name of each file, once per file (default: the file name)");
  label->type_name("TEXT");
  sub->add_option("--name", o->names,
                  "Legend name of each drawn column, in the order of --y then --y2 (repeat the "
                  "flag; enhanced text)")
      ->type_name("TEXT");
  sub->add_option("--x", o->x,
                  "Column to draw against (a text column gives a category axis); with several "
                  "single-run outputs, the run parameter that differs between them")
      ->check(column_list_validator());
  sub->add_option("--y", o->y, "Column(s) to draw, comma-separated (plots any CSV)")
      ->check(column_list_validator());
  sub->add_option("--y-lower", o->y_lower, "Column(s) of the lower ends of the y intervals")
      ->check(column_list_validator());
  sub->add_option("--y-upper", o->y_upper, "Column(s) of the upper ends of the y intervals")
      ->check(column_list_validator());
  sub->add_option("--y-error", o->y_error, "Column(s) of ± half-widths of the y intervals")
      ->check(column_list_validator());
  sub->add_option("--x-lower", o->x_lower, "Column of the lower ends of the x intervals")
      ->check(column_list_validator());
  sub->add_option("--x-upper", o->x_upper, "Column of the upper ends of the x intervals")
      ->check(column_list_validator());
  sub->add_option("--y2", o->y2, "Column(s) drawn against a right-hand axis")
      ->check(column_list_validator());
  sub->add_option("--group", o->group,
                  "Column(s) whose values split the rows into series, comma-separated")
      ->check(column_list_validator());
  auto* log_x = sub->add_flag("--log-x", o->log_x, "Logarithmic x axis");
  auto* log_y = sub->add_flag("--log-y", o->log_y, "Logarithmic y axis");
  sub->add_flag("--linear-x", o->linear_x, "Linear x axis")->excludes(log_x);
  sub->add_flag("--linear-y", o->linear_y, "Linear y axis")->excludes(log_y);
  sub->add_flag("--roc", o->roc,
                "dpkit tradeoff: the ROC view of membership inference, true-positive rate "
                "1 − β against false-positive rate α, log-log");
  sub->add_option("--style", o->styles,
                  "Draw the series as lines, points or linespoints: once for every file, or once "
                  "per file")
      ->check(CLI::IsMember({"lines", "points", "linespoints"}));
  sub->add_option("--title", o->title, "Title (gnuplot enhanced text: ε_{lower}, 10^{-5})");
  sub->add_option("--x-label", o->x_label, "x axis label (enhanced text)");
  sub->add_option("--y-label", o->y_label, "y axis label (enhanced text)");
  sub->add_option("--y2-label", o->y2_label, "Right-hand axis label (enhanced text)");
  sub->add_option("--key", o->key, "Where the legend goes")
      ->check(CLI::IsMember({"below", "top-left", "top-right", "bottom-left", "bottom-right"}));
  sub->add_option("--script", o->script,
                  "Also write the gnuplot script to FILE (to adjust the figure by hand)")
      ->check(writable_file_validator())
      ->type_name("FILE");
  sub->footer(
      "What it reads (recognised by the CSV's columns or the JSON's context.tool):\n"
      "  dpkit validate     a scenario's RESULT.json (or RESULT.csv): bound and Monte Carlo\n"
      "  dpkit epsilon/delta  epsilon (delta) against epochs or steps, one series per accountant,\n"
      "                     the PLD's certified bracket as error bars; one run: by accountant\n"
      "  dpkit tradeoff     beta(alpha) with its certified bracket (band); --roc: TPR = 1 - beta\n"
      "                     against FPR = alpha, log-log (membership inference)\n"
      "  dpkit hsgd risk    P_t and R_t against t;  dpkit hsgd privacy: eps_alpha(t) and epsilon\n"
      "  dpkit shifted      epsilon by bound (against steps/epochs given a column or several "
      "runs)\n"
      "  dpkit simulate     observables' means with their 95 % intervals (against the step)\n"
      "  dpkit correlated   kappa by method; several runs: against the parameter that differs\n"
      "  any CSV            --x COL --y COL[,COL] [--y-lower COL --y-upper COL] [--group COL]\n"
      "Axes fit the data; an axis whose values are positive and span more than two decades is\n"
      "logarithmic (--log-x/--linear-x... override). Several files are drawn together, each\n"
      "named in the legend by its file name or --label.\n"
      "Examples:\n"
      "  dpkit validate 002-thm4.2-tight && dpkit plot validation-results/002-thm4.2-tight.json "
      "--output thm42.pdf\n"
      "  dpkit epsilon --noise-multiplier 1 --sampling-rate 0.01 --steps 100,1000,10000 --delta "
      "1e-5 --accountant all --format csv --output eps.csv && dpkit plot eps.csv --output eps.svg\n"
      "  dpkit tradeoff --noise-multiplier 1 --sampling-rate 0.01 --steps 1000 --format csv "
      "--output t.csv && dpkit plot t.csv --roc --output roc.png\n"
      "  for s in 1 2 4; do dpkit correlated --correlation 0.5 --sampling-rate 0.01 --steps 1000 "
      "--epsilon $s --delta 1e-5 --format json --output c$s.json; done; dpkit plot c1.json "
      "c2.json c4.json --output kappa.svg\n"
      "  dpkit plot run.csv --x epoch --y eps_upper --y-lower eps_lower --y-upper eps_upper "
      "--y2 test_accuracy --output run.svg\n"
      "Exit codes: 0 drawn, 2 bad input (a file that is not a dpkit output, a missing column, "
      "an --output that is not .svg/.png/.pdf or cannot be written), 1 gnuplot missing or failed "
      "(install gnuplot-nox).");
  sub->callback([o, &exit_code] { exit_code = run_plot(*o); });
}

}  // namespace dpkit::cli
