// dpkit plot (plot.cpp): what each kind of dpkit output draws by default — its plan (the x
// column, the y columns with their interval columns, the columns that split the rows into
// series) with its title, axis labels and the words for dpkit's codes in the legend — and a
// plan drawn from a table as the figure's series.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <iomanip>
#include <map>
#include <set>
#include <sstream>
#include <utility>

#include "plot_detail.hpp"

namespace dpkit::cli::detail::plot {
namespace {

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

}  // namespace

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

namespace {

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

}  // namespace

// ---- a plan: what to draw from a table -------------------------------------------------------

namespace {

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

}  // namespace

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
  p.labels.title =
      "HSGD surrogate's Rényi divergence against time (approximation, not a DP guarantee)";
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

namespace {

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
    const std::optional<double> v = parse_double(cell);
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
    (parse_double(row[c]) ? number : text) = true;
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
  if (!parse_double(value)) return category_words(column, value);
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

}  // namespace

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
      const auto x = parse_double(cell);
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

}  // namespace dpkit::cli::detail::plot
