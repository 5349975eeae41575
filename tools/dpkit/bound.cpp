// dpkit bound — the risk (utility) bounds of dpkit::risk evaluated from the command line: each
// term, the total with its label (explicit bound, up to hidden constants, or condition violated)
// and every hypothesis the library checks, with its value, limit and source.
//
// Design: one CLI11 sub-subcommand per bound (`dpkit bound mlp-thm13 --width 256 ...`) rather
// than `dpkit bound NAME --set key=value`: each bound then has its own --help (its formula, its
// parameters with their defaults and constraints, an example), CLI11 checks each value as it is
// parsed, and the error messages name the flag. The sub-subcommands are generated from one
// table (`catalogue()`): a parameter is declared once (flag, help, default, validator) and read
// back by key, so a bound costs a table entry and an evaluation function. Flags carry the
// library's field names ('batch_size' -> --batch-size), so a library message about a field
// reaches the user as a message about the flag (main.cpp's user_message). Unknown bound names
// and misspelt flags get a "did you mean" suggestion (edit distance), which CLI11 2.1 lacks.
//
// The library's `source` strings name the papers by their internal numbers; user-facing text
// names them by authors and topic instead (paper_text()).
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/risk/kan_bounds.hpp"
#include "dpkit/risk/longtail_bounds.hpp"
#include "dpkit/risk/mlp_bounds.hpp"
#include "dpkit/risk/nonconvex_bounds.hpp"
#include "dpkit/sim/longtail.hpp"

namespace dpkit::cli {
namespace {

// ---- the papers ---------------------------------------------------------------------------------

struct paper_info {
  std::string_view id;          ///< the internal number the library's sources use
  std::string_view short_name;  ///< authors + topic, for sources and titles
  std::string_view citation;    ///< authors and title, for notes
};

constexpr paper_info kPapers[] = {
    {"000", "Wang et al. (KANs, correlated-noise DP-SGD)",
     "Wang, Schuchardt, Kalinin, Zhou, Fellenz, Lampert & Kloft, \"Population Risk Bounds for "
     "Kolmogorov-Arnold Networks Trained by DP-SGD with Correlated Noise\""},
    {"001", "Anonymous (DP non-convex learning)",
     "anonymous authors (under double-blind review), \"Differentially Private Non-convex "
     "Learning for Multi-layer Neural Networks\""},
    {"002", "Bok, Su & Altschuler (shifted interpolation)",
     "Bok, Su & Altschuler, \"Shifted Interpolation for Differential Privacy\""},
    {"003", "Zhang et al. (long-tailed memorisation)",
     "Zhang, Xie, Ding, Fu, Liu & Wang, \"Understanding the Impact of Differentially Private "
     "Training on Memorization of Long-Tailed Data\""},
    {"004", "Lin, Kolaczyk, Smith & Paquette (noisy SGD on least squares)",
     "Lin, Kolaczyk, Smith & Paquette, \"High-Dimensional Privacy-Utility Dynamics of Noisy "
     "Stochastic Gradient Descent on Least Squares\""},
};

const paper_info& paper(std::string_view id) {
  for (const paper_info& p : kPapers)
    if (p.id == id) return p;
  return kPapers[0];
}

void replace_all(std::string& s, const std::string& from, std::string_view to) {
  for (std::size_t at = s.find(from); at != std::string::npos; at = s.find(from, at + to.size()))
    s.replace(at, from.size(), to);
}

// The library's provenance strings in the user's terms: the papers' internal filing numbers
// (kPapers' ids) become the short names above, e.g. "Wang et al. (KANs, correlated-noise
// DP-SGD), Thm C.13"; references to the toolkit's internal implementation notes (section
// numbers of those notes) are dropped.
std::string paper_text(std::string s) {
  static const std::regex in_parens(R"(\s*\([Ss]pec 00[0-9][^)]*\))");
  static const std::regex after_comma(R"(,\s*[Ss]pec 00[0-9][^),;]*)");
  static const std::regex bare(R"([Ss]pec 00[0-9](\s*§\s*[0-9.]+(\s*item\s*[0-9]+)?)?)");
  s = std::regex_replace(s, in_parens, "");
  s = std::regex_replace(s, after_comma, "");
  s = std::regex_replace(s, bare, "dpkit's derivation");
  for (const paper_info& p : kPapers) {
    replace_all(s, "seed " + std::string(p.id), p.short_name);
    replace_all(s, "Seed " + std::string(p.id), p.short_name);
  }
  return s;
}

// ---- parameters -----------------------------------------------------------------------------------

enum class param_type { integer, real, choice, flag, list };

/// One parameter of a bound: the flag --key, its help, its default (as the user would type it)
/// and its check.
struct param {
  std::string key;
  param_type type = param_type::real;
  std::string help;
  std::string def;  ///< default value text ("auto", "inf" and "none" where the help says so)
  CLI::Validator check;
  std::vector<std::string> choices;
  std::string group;
};

std::optional<double> parse_number(const std::string& s) {
  if (s.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(s.c_str(), &end);
  if (end != s.c_str() + s.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

/// A finite number satisfying `ok` ("must be <constraint>"), or one of `words`.
CLI::Validator number(std::function<bool(double)> ok,
                      const std::string& constraint,
                      const std::vector<std::string>& words = {}) {
  std::string also;
  for (const std::string& w : words) also += (also.empty() ? ", or " : " or ") + w;
  const std::string full = constraint + also;
  // The help shows the relation only ("> 0, or auto or inf"), as the other subcommands do.
  std::string relation = constraint;
  for (const std::string prefix : {"a finite number ", "a number "})
    if (relation.rfind(prefix, 0) == 0) relation.erase(0, prefix.size());
  return CLI::Validator(
      [ok, words, full](std::string& s) -> std::string {
        for (const std::string& w : words)
          if (s == w) return {};
        const auto v = parse_number(s);
        return v && ok(*v) ? std::string() : "is " + s + ", but must be " + full;
      },
      relation + also, "number");
}

CLI::Validator positive(const std::vector<std::string>& words = {}) {
  return number([](double v) { return v > 0; }, "a finite number > 0", words);
}
CLI::Validator nonnegative(const std::vector<std::string>& words = {}) {
  return number([](double v) { return v >= 0; }, "a finite number >= 0", words);
}
CLI::Validator open_unit(const std::vector<std::string>& words = {}) {
  return number([](double v) { return v > 0 && v < 1; }, "a number in (0, 1)", words);
}
CLI::Validator left_open_unit() {
  return number([](double v) { return v > 0 && v <= 1; }, "a number in (0, 1]");
}
CLI::Validator right_open_unit() {
  return number([](double v) { return v >= 0 && v < 1; }, "a number in [0, 1)");
}
CLI::Validator any_finite() {
  return number([](double) { return true; }, "a finite number");
}

/// --class-counts: two or more positive integers separated by commas.
CLI::Validator count_list() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        const std::string bad =
            "is " + s + ", but must be two or more integers >= 1 separated by commas (e.g. 50,50,5)";
        std::size_t n = 0, start = 0;
        while (start <= s.size()) {
          const std::size_t comma = std::min(s.find(',', start), s.size());
          const auto v = parse_number(s.substr(start, comma - start));
          if (!v || *v < 1 || *v != std::floor(*v) || *v > 1e9) return bad;
          ++n;
          start = comma + 1;
        }
        return n >= 2 ? std::string() : bad;
      },
      "two or more integers >= 1, comma-separated", "count_list");
}

std::vector<double> parse_list(const std::string& s) {
  std::vector<double> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = std::min(s.find(',', start), s.size());
    out.push_back(std::strtod(s.substr(start, comma - start).c_str(), nullptr));
    start = comma + 1;
  }
  return out;
}

param integer(std::string key, std::string help, long long def, long long lo,
              long long hi = kMaxExactInteger) {
  return {std::move(key), param_type::integer, std::move(help), std::to_string(def),
          integer_at_least(lo, hi), {}, ""};
}
param real(std::string key, std::string help, std::string def, CLI::Validator check) {
  return {std::move(key), param_type::real, std::move(help), std::move(def), std::move(check), {},
          ""};
}
param choice(std::string key, std::string help, std::string def, std::vector<std::string> values) {
  return {std::move(key), param_type::choice, std::move(help), std::move(def), CLI::Validator(),
          std::move(values), ""};
}
param flag(std::string key, std::string help) {
  return {std::move(key), param_type::flag, std::move(help), "false", CLI::Validator(), {}, ""};
}

std::vector<param> in_group(std::vector<param> ps, const std::string& group) {
  for (param& p : ps) p.group = group;
  return ps;
}

std::vector<param> join(std::initializer_list<std::vector<param>> parts) {
  std::vector<param> out;
  for (const auto& part : parts) out.insert(out.end(), part.begin(), part.end());
  return out;
}

/// The values of one invocation, read back by key (every value has passed its validator).
class args {
 public:
  args(const std::map<std::string, std::string>& values, const std::map<std::string, bool>& flags)
      : values_(values), flags_(flags) {}
  bool has(const std::string& key) const { return values_.count(key) + flags_.count(key) > 0; }
  const std::string& text(const std::string& key) const { return values_.at(key); }
  bool is(const std::string& key, const std::string& word) const { return text(key) == word; }
  /// "inf" is +infinity; "auto" and "none" are NaN (the caller resolves them).
  double real(const std::string& key) const {
    const std::string& s = text(key);
    if (s == "inf") return INFINITY;
    if (s == "auto" || s == "none") return NAN;
    return std::strtod(s.c_str(), nullptr);
  }
  long long integer(const std::string& key) const { return std::strtoll(text(key).c_str(), nullptr, 10); }
  bool flag(const std::string& key) const { return flags_.at(key); }
  /// Sets `field` from the parameter when the bound has it.
  void maybe(const std::string& key, double& field) const {
    if (values_.count(key) > 0) field = real(key);
  }

 private:
  const std::map<std::string, std::string>& values_;
  const std::map<std::string, bool>& flags_;
};

// ---- evaluations and the catalogue ---------------------------------------------------------------

/// What a bound's evaluation hands to the report: the totals (one, or two for the corollaries
/// with an optimisation and a population rate), every condition checked (the library's and the
/// ones the command adds), and derived quantities worth seeing.
struct evaluation {
  std::vector<std::pair<std::string, risk::risk_bound>> totals;
  std::vector<risk::condition> conditions;
  std::vector<std::pair<std::string, double>> derived;
  std::vector<std::string> notes;
};

evaluation single(const risk::risk_bound& r) {
  evaluation e;
  e.totals = {{"", r}};
  e.conditions = r.conditions;
  return e;
}

struct bound_spec {
  std::string name;
  std::string paper_id;
  std::string theorem;   ///< e.g. "Thm 4.1 / C.13"
  std::string quantity;  ///< what the value bounds
  risk::bound_status kind = risk::bound_status::up_to_constants;
  std::string summary;  ///< one line (the subcommand's description)
  std::string formula;  ///< lines for --help
  std::string example;  ///< flags for the --help example
  std::vector<param> params;
  std::function<evaluation(const args&)> evaluate;
};

const std::string kStatusHelp =
    "Status of a result: 'explicit bound' (every constant explicit, every checked hypothesis\n"
    "holds: a bound, with the stated probability); 'up to hidden constants' (every checked\n"
    "hypothesis holds, but the paper states the bound with unspecified constants: the --c-*\n"
    "flags, default 1, which is NOT a proven value; read slopes and ratios, not absolute\n"
    "values); 'condition violated' (HYPOTHESIS FAILS: a checked hypothesis does not hold; the\n"
    "value is the formula evaluated at the inputs, NOT a bound).\n"
    "Exit codes: 0 evaluated (also when a hypothesis fails: the output says so), 1 the value\n"
    "overflows double precision (never reported as a bound), 2 bad input or usage.";

// ---- Wang et al.: KANs trained by DP-SGD with correlated noise ------------------------------------

const char* kKanRun = "Training run (Algorithm 1, DP-lambdaCGD)";
const char* kHidden = "Hidden constants (unknown; default 1 is not a proven value)";

std::vector<param> kan_run_params(const std::string& kappa, const std::string& lambda,
                                  bool with_radius) {
  std::vector<param> ps = {
      integer("examples", "n, training examples", 1000, 1),
      integer("input-dimension", "d, input dimension", 2, 1),
      integer("width", "m, width of the KAN (hidden units)", 1024, 1),
      integer("basis-size", "p, B-spline basis functions per input (cubic, G + 3 for G knot "
                            "intervals)",
              8, 1),
      integer("batch-size", "B, mini-batch size (drawn without replacement; B = n: full batch)", 20,
              1),
      integer("steps", "T, number of steps", 500, 1),
      real("eta", "eta, step size", "0.5", positive()),
      real("kappa", "kappa, noise multiplier (0: non-private)", kappa, nonnegative()),
      real("lambda", "lambda, noise correlation: xi_t = kappa (Z_t - lambda Z_{t-1}) (0: independent)",
           lambda, right_open_unit()),
      real("gamma", "gamma, the NTK margin of Assumption 3.3 (the theorems need gamma <= 1)", "0.1",
           positive()),
      real("delta", "delta, confidence level (and the DP delta of the corollaries)", "0.01",
           open_unit()),
      real("clip", "C_clip, clipping norm; auto: G_delta of eq. (5), the smallest C_clip at which "
                   "clipping is inactive; inf: no clipping",
           "auto", positive({"auto", "inf"})),
      choice("activation", "sigma of Assumption 3.2 (with cubic B-splines: its constants in closed "
                           "form)",
             "tanh", {"tanh", "sigmoid"}),
      real("spacing", "h, knot spacing of the cubic B-splines (2/G on [-1, 1])", "0.4", positive())};
  if (with_radius)
    ps.push_back(real("radius",
                      "R*, radius of the projection ball B(W_0, R*); auto: the theorems' choice "
                      "c-radius (log T + sqrt(log(n/delta)))/gamma; inf: no projection",
                      "auto", positive({"auto", "inf"})));
  return in_group(std::move(ps), kKanRun);
}

std::vector<param> kan_hidden_params(const std::vector<std::string>& keys) {
  static const std::map<std::string, std::string> help = {
      {"c-sigma-b", "C_{sigma,b} of the step-size condition eta <= 1/(12 C_{sigma,b} p^3)"},
      {"c-bound", "the absolute constant of the bound's <~"},
      {"c-polylog", "the polylog factor (the paper leaves its power open)"},
      {"c-step-size-condition", "the '<~ 1' of Thm 4.1's step-size/horizon condition"},
      {"c-width-lower", "m >= c-width-lower x (the width's lower bound without its polylog)"},
      {"c-width-upper", "m <= c-width-upper x (Thm 4.1's upper width bound)"},
      {"c-width-generalization", "m >= c-width-generalization x (the population theorems' width "
                                 "condition)"},
      {"c-radius", "R* = c-radius (log T + sqrt(log(n/delta)))/gamma when --radius is auto"},
      {"c-batch", "the corollary's batch size: B = c-batch gamma sqrt(n)"},
      {"c-steps", "T = c-steps x (the corollary's T)"},
      {"c-step-size", "eta = c-step-size x (the corollary's eta)"},
      {"c-width", "m = c-width polylog/gamma^k"},
      {"c-noise", "kappa^2 = c-noise x (Thm 5.1 / Thm 5.4 expression)"}};
  std::vector<param> ps;
  for (const std::string& k : keys) ps.push_back(real(k, help.at(k), "1", positive()));
  return in_group(std::move(ps), kHidden);
}

risk::hidden_constants kan_hidden(const args& a) {
  risk::hidden_constants c;
  a.maybe("c-sigma-b", c.C_sigma_b);
  a.maybe("c-bound", c.bound);
  a.maybe("c-polylog", c.polylog);
  a.maybe("c-step-size-condition", c.step_size_condition);
  a.maybe("c-width-lower", c.width_lower);
  a.maybe("c-width-upper", c.width_upper);
  a.maybe("c-width-generalization", c.width_generalization);
  a.maybe("c-radius", c.radius);
  a.maybe("c-batch", c.batch);
  a.maybe("c-steps", c.steps);
  a.maybe("c-step-size", c.step_size);
  a.maybe("c-width", c.width);
  a.maybe("c-noise", c.noise);
  return c;
}

risk::kan_constants kan_consts(const args& a) {
  return risk::cubic_bspline_constants(
      a.is("activation", "tanh") ? risk::kan_activation::tanh : risk::kan_activation::sigmoid,
      a.real("spacing"));
}

/// The run of the flags. `clip_delta`: the delta at which an auto clip takes G_delta.
risk::kan_training kan_run(const args& a, const risk::kan_constants& k, evaluation& e,
                           double clip_delta = NAN) {
  risk::kan_training s;
  s.examples = a.integer("examples");
  s.input_dimension = a.integer("input-dimension");
  s.width = a.integer("width");
  s.basis_size = a.integer("basis-size");
  s.batch_size = a.integer("batch-size");
  if (s.batch_size > s.examples)
    throw usage_error("--batch-size is " + std::to_string(s.batch_size) +
                      ", but must be <= --examples = " + std::to_string(s.examples));
  s.steps = a.integer("steps");
  s.eta = a.real("eta");
  s.kappa = a.real("kappa");
  s.lambda = a.real("lambda");
  s.gamma = a.real("gamma");
  s.delta = a.real("delta");
  const double G =
      risk::kan_curvature_bounds(k, s.width, s.basis_size,
                                 std::isnan(clip_delta) ? s.delta : clip_delta)
          .gradient;
  e.derived.push_back({"G_delta, gradient bound of eq. (5)", G});
  s.clip = a.is("clip", "auto") ? G : a.real("clip");
  if (a.is("clip", "auto")) e.derived.push_back({"C_clip = G_delta (--clip auto)", s.clip});
  if (a.has("radius")) s.radius = a.real("radius");
  return s;
}

const std::string kKanFormulaNote =
    "Assumption 3.2's constants are those of cubic B-splines of spacing h with tanh or sigmoid\n"
    "(B_b = 2/3, B'_b = 2/(3h), B''_b = 2/h^2). 'md' is printed by the paper as md (p absorbed).";

std::vector<bound_spec> kan_bounds() {
  using risk::bound_status;
  std::vector<bound_spec> out;
  auto theorem = [](risk::risk_bound (*fn)(const risk::kan_training&, const risk::kan_constants&,
                                           const risk::hidden_constants&)) {
    return [fn](const args& a) {
      evaluation e;
      const risk::kan_constants k = kan_consts(a);
      const risk::kan_training s = kan_run(a, k, e);
      const risk::risk_bound r = fn(s, k, kan_hidden(a));
      evaluation result = single(r);
      result.derived = e.derived;
      return result;
    };
  };
  out.push_back(
      {"kan-thm4.1", "000", "Thm 4.1 / C.13",
       "optimisation risk (1/T) sum_t L_S(W_t) of DP-lambdaCGD (correlated noise)",
       bound_status::up_to_constants,
       "Thm 4.1 / C.13: optimisation risk of a KAN trained by DP-SGD with correlated noise",
       "value = c-bound c-polylog A_corr,\n"
       "A_corr = 1/(gamma^2 eta T) + 1/(gamma sqrt(B T)) + eta (1/B + 1/T)\n"
       "       + ((1 - lambda) kappa/(B sqrt T)) (1/gamma + eta sqrt(md)/sqrt(B))\n"
       "       + ((1 - lambda)^2 + lambda^2 eta) eta kappa^2 md/B^2.\n"
       "Hypotheses checked: 0 < lambda < 1, kappa > 0, gamma <= 1, eta <= 1/(12 C_{sigma,b} p^3),\n"
       "C_clip >= G_delta, the step-size/horizon condition and the width window\n"
       "c-width-lower gamma^-4 <= m <= c-width-upper B^2/(eta^2 kappa^2 gamma^2 d) min{1, ...}.\n" +
           kKanFormulaNote,
       "--kappa 2 --lambda 0.9",
       join({kan_run_params("1", "0.5", false),
             kan_hidden_params({"c-sigma-b", "c-bound", "c-polylog", "c-step-size-condition",
                                "c-width-lower", "c-width-upper"})}),
       theorem(&risk::kan_correlated_optimization)});
  out.push_back(
      {"kan-thm5.2", "000", "Thm 5.2 / C.23",
       "population risk of DP-lambdaCGD (correlated noise)", bound_status::up_to_constants,
       "Thm 5.2 / C.23: population risk of a KAN trained by DP-SGD with correlated noise",
       "appendix (Thm C.23, default): c-bound (1 + eta T log(1/delta)/n)(A + log(n/delta)(sqrt(m) + "
       "R*) delta),\n"
       "main-text (Thm 5.2):          c-bound (1 + eta T/n)(A + (sqrt(m) + R*) delta),\n"
       "A = c-polylog A_corr (see kan-thm4.1). Hypotheses: those of Thm 4.1 and the width\n"
       "condition m >= c-width-generalization R*^2 log(m/delta) eta^2 (T A + ...)^2.\n" +
           kKanFormulaNote,
       "--statement main-text --examples 60000",
       join({kan_run_params("1", "0.5", true),
             in_group({choice("statement",
                              "appendix: Thm C.23 (the full statement, with its log factors); "
                              "main-text: Thm 5.2's display",
                              "appendix", {"appendix", "main-text"})},
                      kKanRun),
             kan_hidden_params({"c-sigma-b", "c-bound", "c-polylog", "c-step-size-condition",
                                "c-width-lower", "c-width-upper", "c-width-generalization",
                                "c-radius"})}),
       [](const args& a) {
         evaluation e;
         const risk::kan_constants k = kan_consts(a);
         const risk::kan_training s = kan_run(a, k, e);
         const risk::hidden_constants c = kan_hidden(a);
         const risk::risk_bound r = risk::kan_correlated_population(
             s, k, c,
             a.is("statement", "appendix") ? risk::statement::appendix
                                           : risk::statement::main_text);
         evaluation result = single(r);
         result.derived = e.derived;
         if (std::isnan(s.radius))
           result.derived.push_back(
               {"R* = c-radius (log T + sqrt(log(n/delta)))/gamma (--radius auto)",
                c.radius *
                    (std::log(double(s.steps)) + std::sqrt(std::log(double(s.examples) / s.delta))) /
                    s.gamma});
         return result;
       }});
  out.push_back(
      {"kan-thmD.14", "000", "Thm D.14",
       "optimisation risk of DP-SGD with independent noise (lambda = 0)",
       bound_status::up_to_constants,
       "Thm D.14: optimisation risk of a KAN trained by DP-SGD with independent noise",
       "value = c-bound A_van, with L = log(1/delta), rho_T = log T + sqrt(log(n/delta)):\n"
       "A_van = (log^2 T + log(n/delta))/(gamma^2 eta T) + L rho_T/(gamma sqrt(B T))\n"
       "      + L rho_T kappa/(gamma B sqrt T) + eta L (1/B + L/T) + eta md L^2 kappa^2/B^2.\n"
       "Hypotheses: lambda = 0, gamma <= 1, eta <= 1/(12 C_{sigma,b} p^3), C_clip >= G_delta,\n"
       "m >= c-width-lower max{log(m/delta)(log^4 T + log^2(n/delta))/gamma^4, log(nT/delta)/(Td)}.",
       "--kappa 0.5 --eta 1e-4",
       join({kan_run_params("1", "0", false),
             kan_hidden_params({"c-sigma-b", "c-bound", "c-width-lower"})}),
       theorem(&risk::kan_independent_optimization)});
  out.push_back(
      {"kan-thmD.16", "000", "Thm D.16",
       "population risk of DP-SGD with independent noise (lambda = 0)",
       bound_status::up_to_constants,
       "Thm D.16: population risk of a KAN trained by DP-SGD with independent noise",
       "value = c-bound [(1 + eta T log(1/delta)/n)(A_van + delta sqrt(log(n/delta)))\n"
       "        + sqrt(log(1/delta)) rho_T delta/gamma], A_van as in kan-thmD.14.\n"
       "Hypotheses: those of Thm D.14 and m >= c-width-generalization log(m/delta) eta^2\n"
       "(T^2 A_van^2 + log(n/delta) log^2(1/delta)(T/B + 1)).",
       "--examples 60000 --steps 2000",
       join({kan_run_params("1", "0", false),
             kan_hidden_params({"c-sigma-b", "c-bound", "c-width-lower", "c-width-generalization"})}),
       theorem(&risk::kan_independent_population)});
  out.push_back(
      {"kan-thmE.1-opt", "000", "Thm E.1 (optimisation)",
       "optimisation risk of non-private mini-batch SGD (kappa = 0)",
       bound_status::up_to_constants,
       "Thm E.1: optimisation risk of a KAN trained by non-private mini-batch SGD",
       "value = c-bound A_non, A_non = 1/(gamma^2 eta T) + 1/(gamma sqrt(B T)) + eta/B.\n"
       "Hypotheses: kappa = 0, gamma <= 1, eta <= 1/(12 C_{sigma,b} p^3), C_clip >= G_delta,\n"
       "m >= c-width-lower log(m/delta)(log^4 T + log^2(n/delta))/gamma^4.",
       "--eta 1e-4 --steps 100000",
       join({kan_run_params("0", "0", false),
             kan_hidden_params({"c-sigma-b", "c-bound", "c-width-lower"})}),
       theorem(&risk::kan_sgd_optimization)});
  out.push_back(
      {"kan-thmE.1-pop", "000", "Thm E.1 (population)",
       "population risk of non-private mini-batch SGD (kappa = 0)", bound_status::up_to_constants,
       "Thm E.1: population risk of a KAN trained by non-private mini-batch SGD",
       "value = c-bound [(1 + eta T/n)(A_non + delta) + delta/gamma], A_non as in kan-thmE.1-opt.\n"
       "Hypotheses: those of the optimisation bound and m >= c-width-generalization log(m/delta)\n"
       "eta^2 (T^2 A_non^2 + log(n/delta) log^2(1/delta)(T/B + 1)).",
       "--examples 60000",
       join({kan_run_params("0", "0", false),
             kan_hidden_params({"c-sigma-b", "c-bound", "c-width-lower", "c-width-generalization"})}),
       theorem(&risk::kan_sgd_population)});

  // The explicit certificate (Lemmas C.3-C.11 assembled) with Lemma C.12's comparator.
  out.push_back(
      {"kan-certificate", "000", "Lemmas C.3, C.5, C.6, C.10, C.11 with Lemma C.12",
       "optimisation risk (1/T) sum_t L_S(W_t) of DP-lambdaCGD, every constant explicit",
       bound_status::explicit_bound,
       "Explicit certificate (Lemmas C.3-C.12): optimisation risk of DP-lambdaCGD, no hidden "
       "constant",
       "value = 8 L_S(W*) + 3 tau^2/(eta T) + 3(a R_bar + b)/(eta T) + 6 eta V_Delta/T\n"
       "      + 3((1 - lambda)^2 eta + 12 beta lambda^2 eta^2) c^2 V_Z/T,  c = C_clip kappa/B,\n"
       "with beta = G^2/4 + H and G, H the explicit Lemma B.6-B.7 constants at delta-init,\n"
       "holding with probability >= 1 - (delta-init + delta-z + delta-minibatch + delta-pot)\n"
       "(and - delta for the comparator when --tau and --comparator-loss are auto).\n"
       "Hypotheses: eta <= 1/(12 beta), nu (R_bar + eta c z)^2 <= 1/2, R* >= R_bar + tau + eta c z,\n"
       "C_clip >= G_delta, 0 < lambda; with the auto comparator also Lemma C.12's gamma <= 1 and\n"
       "tau H_{delta/2} <= gamma/2. " + kKanFormulaNote,
       "--eta 1e-5 --width 100000000",
       join({kan_run_params("1", "0.5", true),
             in_group({real("tau",
                            "||W* - W_0||, the comparator's distance; auto: Lemma C.12's radius "
                            "max{2 B_b sqrt(2p log(2n/delta)), 4 log T}/gamma",
                            "auto", nonnegative({"auto"})),
                       real("comparator-loss",
                            "L_S(W*), the comparator's training loss; auto: 1/T (what Lemma "
                            "C.12 guarantees when its conditions hold)",
                            "auto", nonnegative({"auto"})),
                       real("delta-init", "delta of the second-layer event E_delta (Lemma B.5); "
                                          "auto: delta/4",
                            "auto", open_unit({"auto"})),
                       real("delta-z", "delta_Z of the Gaussian event (Lemma C.5); auto: delta/4",
                            "auto", open_unit({"auto"})),
                       real("delta-minibatch",
                            "delta_Delta of the mini-batch event (Lemma C.6); auto: delta/4", "auto",
                            open_unit({"auto"})),
                       real("delta-pot", "delta_pot of the potential event (Lemma C.10); auto: "
                                         "delta/4",
                            "auto", open_unit({"auto"}))},
                      "Certificate")}),
       [](const args& a) {
         evaluation e;
         const risk::kan_constants k = kan_consts(a);
         const double delta = a.real("delta");
         auto or_quarter = [&](const char* key) {
           return a.is(key, "auto") ? delta / 4 : a.real(key);
         };
         risk::certificate_inputs in;
         in.delta_init = or_quarter("delta-init");
         in.delta_Z = or_quarter("delta-z");
         in.delta_Delta = or_quarter("delta-minibatch");
         in.delta_pot = or_quarter("delta-pot");
         risk::kan_training s = kan_run(a, k, e, in.delta_init);
         if (std::isnan(s.radius)) {
           s.radius = (std::log(double(s.steps)) +
                       std::sqrt(std::log(double(s.examples) / s.delta))) /
                      s.gamma;
           e.derived.push_back(
               {"R* = (log T + sqrt(log(n/delta)))/gamma (--radius auto)", s.radius});
         }
         std::vector<risk::condition> comparator;
         const bool auto_tau = a.is("tau", "auto"), auto_loss = a.is("comparator-loss", "auto");
         if (auto_tau) {
           const double H =
               risk::kan_curvature_bounds(k, s.width, s.basis_size, delta / 2).hessian;
           const risk::risk_bound t = risk::kan_comparator_radius(
               s.gamma, s.basis_size, s.examples, s.steps, delta, k.B_b, H);
           in.tau = t.value;
           comparator = t.conditions;
           e.derived.push_back({"tau, Lemma C.12's comparator radius (--tau auto)", in.tau});
         } else {
           in.tau = a.real("tau");
         }
         in.comparator_loss = auto_loss ? 1 / double(s.steps) : a.real("comparator-loss");
         const risk::kan_certificate r = risk::kan_correlated_certificate(s, k, in);
         evaluation result = single(r);
         result.derived = e.derived;
         if (auto_loss) {
           // L_S(W*) <= 1/T is what Lemma C.12 proves for its W* (= W_0 + tau u): its
           // conditions are hypotheses of this bound too.
           result.conditions.insert(result.conditions.end(), comparator.begin(),
                                    comparator.end());
           if (!auto_tau)
             result.notes.push_back(
                 "--comparator-loss auto (1/T) is Lemma C.12's guarantee for its own tau; with "
                 "your --tau, give the loss of your comparator instead.");
         }
         const double probability = r.probability - (auto_loss && auto_tau ? delta : 0.0);
         result.derived.push_back({"comparator loss L_S(W*) used", in.comparator_loss});
         result.derived.push_back({"R_bar (eq. (10) with equality)", r.R_bar});
         result.derived.push_back({"z_{delta_Z} (Lemma C.5)", r.z});
         result.derived.push_back({"V_Z (Lemma C.5)", r.V_Z});
         result.derived.push_back({"V_Delta (Lemma C.6)", r.V_Delta});
         result.derived.push_back({"noise scale c = C_clip kappa/B", r.noise_scale});
         result.derived.push_back({"beta = G^2/4 + H (smoothness)", r.curvature.smoothness});
         result.derived.push_back({"probability the bound holds, at least", probability});
         return result;
       }});

  // Corollaries: the parameters they prescribe and the rates that follow.
  auto rate_params = [](bool epsilon, bool correlated, bool free_batch) {
    std::vector<param> ps = {
        integer("examples", "n, training examples", 60000, 1),
        integer("input-dimension", "d, input dimension", 784, 1),
        integer("basis-size", "p, B-spline basis functions (for the step-size condition)", 8, 1),
        real("gamma", "gamma, the NTK margin (<= 1)", "0.1", positive()),
        real("delta", "delta, confidence = DP delta", "1e-6", open_unit())};
    if (epsilon) ps.push_back(real("epsilon", "epsilon of (epsilon, delta)-DP", "1", positive()));
    if (correlated) {
      ps.push_back(real("lambda", "lambda, the fixed noise correlation in (0, 1)", "0.5",
                        right_open_unit()));
      ps.push_back(real("rho", "rho, the batch fraction B = rho n, in (0, 1)", "0.5",
                        left_open_unit()));
    }
    if (free_batch)
      ps.push_back(integer("batch-size", "B (0: the largest allowed, c-batch gamma sqrt(n))", 0, 0));
    if (free_batch || !epsilon)
      ps.push_back(integer("width", "m (0: c-width c-polylog/gamma^4)", 0, 0));
    return in_group(std::move(ps), "Problem");
  };
  auto rate = [](risk::kan_rate (*fn)(const risk::rate_problem&, const risk::hidden_constants&)) {
    return [fn](const args& a) {
      risk::rate_problem p;
      p.examples = a.integer("examples");
      p.input_dimension = a.integer("input-dimension");
      p.basis_size = a.integer("basis-size");
      p.gamma = a.real("gamma");
      p.delta = a.real("delta");
      if (a.has("epsilon")) p.epsilon = a.real("epsilon");
      if (a.has("lambda")) p.lambda = a.real("lambda");
      if (a.has("rho")) p.rho = a.real("rho");
      if (a.has("batch-size")) p.batch_size = a.integer("batch-size");
      if (a.has("width")) p.width = a.integer("width");
      if (p.batch_size > p.examples)
        throw usage_error("--batch-size is " + std::to_string(p.batch_size) +
                          ", but must be <= --examples = " + std::to_string(p.examples));
      const risk::kan_rate r = fn(p, kan_hidden(a));
      evaluation e;
      e.totals = {{"optimisation", r.optimization}, {"population", r.population}};
      e.conditions = r.optimization.conditions;  // the same list for both rates
      const risk::kan_training& s = r.setting;
      e.derived = {{"prescribed batch size B", double(s.batch_size)},
                   {"prescribed step size eta", s.eta},
                   {"prescribed steps T", double(s.steps)},
                   {"prescribed width m", double(s.width)},
                   {"prescribed noise multiplier kappa", s.kappa}};
      e.notes.push_back(
          "The prescribed run can be checked against the theorem it comes from: pass the "
          "prescribed B, eta, T, m, kappa to the theorem's own bound (kan-thm4.1, kan-thmD.14 "
          "or kan-thmE.1-opt).");
      return e;
    };
  };
  const std::vector<std::string> rate_hidden = {"c-sigma-b", "c-bound", "c-polylog", "c-batch",
                                                "c-steps",   "c-step-size", "c-width", "c-noise"};
  out.push_back(
      {"kan-cor5.3", "000", "Cor 5.3 / C.24",
       "optimisation and population risk rates of DP-lambdaCGD at the prescribed parameters",
       bound_status::up_to_constants,
       "Cor 5.3 / C.24: risk rates of DP-SGD with correlated noise (prescribed B, eta, T, m, "
       "kappa)",
       "B = rho n, eta = c-step-size, T = c-steps min{sqrt(n)/gamma, n eps gamma^2/sqrt(d)},\n"
       "m = c-width c-polylog/gamma^6, kappa^2 from Thm 5.1; both rates\n"
       "c-bound c-polylog (1/(gamma sqrt n) + sqrt(d)/(gamma^4 n eps)).\n"
       "Hypotheses: 0 < lambda < 1, rho < 1, gamma <= 1, delta <= min{1/(n sqrt m), gamma/n},\n"
       "eta <= 1/(12 C_{sigma,b} p^3) (which eta ~ 1 violates unless the constants absorb p^3).",
       "--epsilon 2 --lambda 0.9",
       join({rate_params(true, true, false), kan_hidden_params(rate_hidden)}),
       rate(&risk::kan_correlated_rate)});
  out.push_back(
      {"kan-cor5.5", "000", "Cor 5.5",
       "optimisation and population risk rates of DP-SGD with independent noise",
       bound_status::up_to_constants,
       "Cor 5.5: risk rates of DP-SGD with independent noise (prescribed B, eta, T, m, kappa)",
       "B = c-batch gamma sqrt(n), eta = c-step-size min{1, gamma^2 sqrt(n) eps/sqrt(d)},\n"
       "T = c-steps sqrt(n)/gamma, m = c-width c-polylog/gamma^4, kappa^2 from Thm 5.4; both rates\n"
       "c-bound (1/(gamma sqrt n) + sqrt(d)/(gamma^3 n eps)).\n"
       "Hypotheses: gamma <= 1, delta <= gamma/n, eta <= 1/(12 C_{sigma,b} p^3), 1 <= B <= n.",
       "--epsilon 2", join({rate_params(true, false, false), kan_hidden_params(rate_hidden)}),
       rate(&risk::kan_independent_rate)});
  out.push_back(
      {"kan-cor5.6", "000", "Cor 5.6",
       "optimisation and population risk rates of non-private mini-batch SGD",
       bound_status::up_to_constants,
       "Cor 5.6: risk rates of non-private mini-batch SGD (prescribed eta, T, m)",
       "B <= c-batch gamma sqrt(n), eta = c-step-size B/n, T = c-steps n^2/(gamma^2 B),\n"
       "m >= c-width c-polylog/gamma^4; rates c-bound/n (optimisation), c-bound/(gamma^2 n)\n"
       "(population). Hypotheses: gamma <= 1, delta <= 1/(gamma n), B <= c-batch gamma sqrt(n),\n"
       "eta <= 1/(12 C_{sigma,b} p^3), m >= c-width c-polylog/gamma^4.",
       "--batch-size 10", join({rate_params(false, false, true), kan_hidden_params(rate_hidden)}),
       rate(&risk::kan_sgd_rate)});
  out.push_back(
      {"kan-gd", "000", "App. E (full-batch GD after Cor 5.6)",
       "optimisation and population risk rates of full-batch gradient descent",
       bound_status::up_to_constants,
       "App. E: risk rates of full-batch gradient descent (prescribed eta, T, m)",
       "B = n, eta = c-step-size, T = c-steps n/gamma^2; rates c-bound/(gamma^2 T)\n"
       "(optimisation) and c-bound/(gamma^2 n) (population). Hypotheses: gamma <= 1,\n"
       "delta <= 1/(gamma n), eta <= 1/(12 C_{sigma,b} p^3), m >= c-width c-polylog/gamma^4.",
       "--gamma 0.5", join({rate_params(false, false, false), kan_hidden_params(rate_hidden)}),
       rate(&risk::kan_gd_rate)});
  return out;
}

// ---- Zhang et al.: long-tailed memorisation ------------------------------------------------------

const char* kLongtailProblem = "Data (Definition 1, the spiked construction)";
const char* kLongtailRun = "Training run (DP-SGD of eq. (4))";

std::vector<param> longtail_params(bool noise) {
  std::vector<param> data = in_group(
      {param{"class-counts", param_type::list,
             "|S_1|,...,|S_K|: training examples per class (K = how many are given; n = their sum)",
             "50,50,50", count_list(), {}, ""},
       integer("class", "k, the class the bound is about (0-based)", 0, 0, 1000000000),
       integer("dimension", "d, the data dimension (>= 2K)", 150, 4),
       real("signal-norm", "||u_k||, the norm of every class signal", "5", nonnegative()),
       real("noise-scale", "s: the noise patches' A_k have entries s off the spike", "0.5",
            positive()),
       real("ncr", "NCR >= 1, the noise correlation ratio of balanced classes: it sets the spike "
                   "lambda of A_k at coordinate K + k (as in dpkit simulate)",
            "10", number([](double v) { return v >= 1; }, "a finite number >= 1"))},
      kLongtailProblem);
  std::vector<param> run = {
      integer("width", "m, filters of the two-layer ReLU CNN", 20, 1),
      real("eta", "eta, step size", "0.002", positive()),
      integer("batch-size", "B, batch size (Condition 1(c): B >= c2 n)", 64, 1),
      integer("steps", "T, number of steps", 50, 1),
      real("clip", "C, clipping threshold; inf: no clipping (clean training, Lambda_k = 1)", "1",
           positive({"inf"}))};
  if (noise)
    run.push_back(real("noise-std", "sigma_n, std of the DP noise n_t of eq. (4) (z C/B for a "
                                    "noise multiplier z)",
                       "0.02", nonnegative()));
  run.push_back(real("sigma0", "sigma_0, the initialisation scale (Condition 1(b), (c); Thm 1's T "
                               "condition)",
                     "0.001", positive()));
  run.push_back(real("fail-delta", "delta, failure probability", "0.05", open_unit()));
  std::vector<param> cond1 = in_group(
      {flag("no-condition1", "do not check Condition 1 (the hypothesis of every theorem of the "
                             "paper); then only the theorem's own conditions are checked"),
       real("condition1-c1", "c1 of Condition 1 ('sufficiently large'; also the Omega of (b))",
            "1", positive()),
       real("condition1-c2", "c2 of Condition 1(c), B >= c2 n, in (0, 1)", "0.5", open_unit()),
       real("condition1-c-abs", "the absolute C of Condition 1(b)", "1", positive()),
       flag("literal-condition1a",
            "read Condition 1(a)'s third line literally for all i != j (self-contradictory) "
            "instead of as self-dominance (the proofs' reading)")},
      "Condition 1");
  return join({data, in_group(std::move(run), kLongtailRun), cond1});
}

std::vector<param> longtail_hidden(const std::vector<std::pair<std::string, std::string>>& keys) {
  std::vector<param> ps;
  for (const auto& [k, h] : keys) ps.push_back(real(k, h, "1", positive()));
  return in_group(std::move(ps), kHidden);
}

struct longtail_inputs {
  risk::longtail_problem problem;
  risk::longtail_setting setting;
  std::size_t k = 0;
};

longtail_inputs longtail_of(const args& a, evaluation& e) {
  longtail_inputs in;
  const std::vector<double> counts = parse_list(a.text("class-counts"));
  const std::size_t K = counts.size();
  const long long k = a.integer("class");
  if (k >= static_cast<long long>(K))
    throw usage_error("--class is " + std::to_string(k) + ", but must be < K = " +
                      std::to_string(K) + " (the number of --class-counts)");
  in.k = static_cast<std::size_t>(k);
  const auto d = static_cast<std::size_t>(a.integer("dimension"));
  if (d < 2 * K)
    throw usage_error("--dimension is " + a.text("dimension") + ", but must be >= 2K = " +
                      std::to_string(2 * K) + " (K = the number of --class-counts)");
  const double spike = sim::spike_for_ncr(K, d, a.real("noise-scale"), a.real("ncr"));
  in.problem = risk::spiked_problem(K, d, a.real("signal-norm"), a.real("noise-scale"), spike,
                                    counts);
  risk::longtail_setting& s = in.setting;
  s.width = double(a.integer("width"));
  s.eta = a.real("eta");
  s.batch_size = double(a.integer("batch-size"));
  s.steps = double(a.integer("steps"));
  s.clip = a.real("clip");
  if (a.has("noise-std")) s.noise_std = a.real("noise-std");
  s.sigma0 = a.real("sigma0");
  s.fail_delta = a.real("fail-delta");
  if (s.batch_size > in.problem.examples())
    throw usage_error("--batch-size is " + a.text("batch-size") +
                      ", but must be <= n = " + format_number(in.problem.examples()) +
                      " (the sum of --class-counts)");
  e.derived.push_back({"spike lambda of A_k (from --ncr)", spike});
  e.derived.push_back({"n = sum of class counts", in.problem.examples()});
  e.derived.push_back({"Lambda_k = C/(||u_k|| + ||A_k||_F), clipping factor",
                       risk::setting_clipping_factor(in.problem, s, in.k)});
  for (std::size_t j = 0; j < K; ++j)
    if (j != in.k) {
      e.derived.push_back({"SNR_{k," + std::to_string(j) + "}", risk::snr(in.problem, in.k, j)});
      e.derived.push_back({"NCR_{k," + std::to_string(j) + "}", risk::ncr(in.problem, in.k, j)});
    }
  return in;
}

/// The theorem's result with Condition 1 appended (unless --no-condition1).
evaluation with_condition1(const args& a, const longtail_inputs& in, const risk::risk_bound& r,
                           evaluation e) {
  evaluation out = single(r);
  out.derived = std::move(e.derived);
  out.notes = std::move(e.notes);
  if (a.flag("no-condition1")) {
    out.notes.push_back(
        "Condition 1 not checked (--no-condition1): the theorems of this paper assume it.");
    return out;
  }
  if (in.setting.steps < 2)
    throw usage_error("--steps is " + a.text("steps") +
                      ", but Condition 1 needs T >= 2 (log T > 0); give --no-condition1 to skip it");
  risk::condition1_constants c;
  c.c1 = a.real("condition1-c1");
  c.c2 = a.real("condition1-c2");
  c.c_abs = a.real("condition1-c-abs");
  c.self_dominance_reading = !a.flag("literal-condition1a");
  const std::vector<risk::condition> c1 = risk::condition1(in.problem, in.setting, c);
  out.conditions.insert(out.conditions.end(), c1.begin(), c1.end());
  out.notes.push_back(
      "Condition 1 (every inequality of (a)-(c), with c1, c2, C as given) is checked as a "
      "hypothesis; its 'P[zeta > c'] >= 0.4' requirement is a property of the data law and is "
      "not evaluated.");
  return out;
}

risk::longtail_constants longtail_constants_of(const args& a, bool statement2) {
  risk::longtail_constants c;
  a.maybe("c-drift", c.drift);
  a.maybe("c-drift-noise", c.drift_noise);
  a.maybe("c-iterations", c.iterations);
  a.maybe("c-rate", c.rate);
  a.maybe("c-floor", c.floor);
  if (statement2) {
    a.maybe("c-exponent", c.c2);
    a.maybe("c-threshold", c.C2);
  } else {
    a.maybe("c-exponent", c.c1);
    a.maybe("c-threshold", c.C1);
  }
  return c;
}

const std::string kLongtailNote =
    "The data are the spiked construction of Definition 1 (closed forms): A_k has entries s off\n"
    "the first K coordinates and a spike lambda at K + k, set by --ncr; every class signal has\n"
    "norm ||u_k||; --class-counts sets K and |S_k| (a small count makes a long-tailed class).\n"
    "Condition 1 is checked too unless --no-condition1.";

std::vector<bound_spec> longtail_bounds() {
  using risk::bound_status;
  std::vector<bound_spec> out;
  out.push_back(
      {"longtail-thm1", "003", "Thm 1",
       "memorisation: a LOWER bound on <w_{y,r}^(T), xi> (how far training moves a filter toward "
       "an example's noise patch xi)",
       bound_status::up_to_constants,
       "Thm 1: memorisation of an example's noise patch under DP-SGD (a lower bound)",
       "value = c-drift (eta Lambda_y/(n sqrt m)) ||xi||^2 sum_t (1 - logit_y)\n"
       "      - c-drift-noise (noise term),  noise term: statement eta sigma_n ||A_y||_F,\n"
       "      proof eta T sigma_n ||A_y||_F, exact-std eta sigma_n ||xi|| sqrt(T) (no constant).\n"
       "sum_t (1 - logit_y) = T x --one-minus-logit. Hypothesis: T >= c-iterations n sqrt(m)\n"
       "sigma_0/(eta Lambda_y ||A_y||_F). " +
           kLongtailNote,
       "--noise-form proof --steps 200",
       join({longtail_params(true),
             in_group({real("xi-norm-sq", "||xi||^2 of the example's noise patch; auto: "
                                          "||A_k||_F^2 (its mean for xi = A_k zeta, zeta standard "
                                          "Gaussian)",
                            "auto", nonnegative({"auto"})),
                       real("one-minus-logit",
                            "mean of 1 - logit_y(W^(t), x) over the T steps, in [0, 1]; auto: "
                            "1 - 1/K (uniform logits, as at initialisation)",
                            "auto",
                            number([](double v) { return v >= 0 && v <= 1; }, "a number in [0, 1]",
                                   {"auto"})),
                       choice("noise-form",
                              "the DP-noise term: statement (as Thm 1 states it), proof (what the "
                              "proof's sum gives, T times larger) or exact-std (the exact std)",
                              "statement", {"statement", "proof", "exact-std"})},
                      "Theorem 1"),
             longtail_hidden({{"c-drift", "the Omega in front of the memorisation drift"},
                              {"c-drift-noise", "the O of the DP-noise term"},
                              {"c-iterations", "T >= c-iterations n sqrt(m) sigma_0/(...)"}})}),
       [](const args& a) {
         evaluation e;
         const longtail_inputs in = longtail_of(a, e);
         const double F = in.problem.frobenius[in.k];
         const double xi = a.is("xi-norm-sq", "auto") ? F * F : a.real("xi-norm-sq");
         const double K = double(in.problem.classes());
         const double oml = a.is("one-minus-logit", "auto") ? 1 - 1 / K : a.real("one-minus-logit");
         const std::string& form = a.text("noise-form");
         const risk::risk_bound r = risk::thm1_memorisation(
             in.problem, in.setting, in.k, xi, in.setting.steps * oml,
             form == "statement" ? risk::thm1_noise_form::statement
             : form == "proof"   ? risk::thm1_noise_form::proof
                                 : risk::thm1_noise_form::exact_std,
             longtail_constants_of(a, false));
         e.derived.push_back({"||xi||^2 used", xi});
         e.derived.push_back({"sum_t (1 - logit_y) used", in.setting.steps * oml});
         e.notes.push_back(
             "Thm 1 is a LOWER bound: memorisation is at least the value (a value <= 0 says "
             "nothing).");
         return with_condition1(a, in, r, std::move(e));
       }});
  out.push_back(
      {"longtail-thm2", "003", "Thm 2", "training loss L(W^(T), x, y) of an example of class k",
       bound_status::up_to_constants, "Thm 2: training loss of DP-SGD on an example of class k",
       "value = exp(-c-rate eta T Lambda_y |S_y| ||u_y||^2/(n sqrt m)) L(W^(0), x, y)\n"
       "      + c-floor n sqrt(m) sigma_n sqrt(d) (||u_y|| + ||A_y||_F)/(Lambda_y |S_y| ||u_y||^2)\n"
       "(vanishing error + privacy protection error; the second is a floor, linear in sigma_n).\n" +
           kLongtailNote,
       "--class-counts 50,50,5 --class 2",
       join({longtail_params(true),
             in_group({real("initial-loss", "L(W^(0), x, y) at initialisation; auto: log K "
                                            "(cross-entropy at uniform logits)",
                            "auto", nonnegative({"auto"}))},
                      "Theorem 2"),
             longtail_hidden({{"c-rate", "the Omega in the exponent of the vanishing error"},
                              {"c-floor", "the O of the privacy-protection error"}})}),
       [](const args& a) {
         evaluation e;
         const longtail_inputs in = longtail_of(a, e);
         const double L0 = a.is("initial-loss", "auto") ? std::log(double(in.problem.classes()))
                                                       : a.real("initial-loss");
         const risk::risk_bound r = risk::thm2_training_loss(in.problem, in.setting, in.k, L0,
                                                             longtail_constants_of(a, false));
         e.derived.push_back({"L(W^(0)) used", L0});
         return with_condition1(a, in, r, std::move(e));
       }});
  out.push_back(
      {"longtail-thm3-all", "003", "Thm 3 Statement 1",
       "test error on all data of class k", bound_status::up_to_constants,
       "Thm 3 (Statement 1): test error of DP-SGD on all data of class k",
       "value = sum_{j != k} exp(-c-exponent (N_D/D_j)^2),\n"
       "N_D = |S_k| Lambda_k ||u_k||^2 - n sigma_n ||u_k|| sqrt(2 log(2/delta)),\n"
       "D_j = sqrt|S_j| ||A_k'A_j||_F + n sigma_n ||A_k||_F.\n"
       "Hypotheses: |S_k| Lambda_k ||u_k||^2 >= c-threshold (max_j sqrt|S_j| ||A_k'A_j||_F\n"
       "+ n sigma_n (||u_k|| + ||A_k||_F)) and N_D > 0. " +
           kLongtailNote,
       "--noise-std 0.001 --no-condition1",
       join({longtail_params(true),
             longtail_hidden({{"c-exponent", "c1 of Thm 3 Statement 1 (the exponent)"},
                              {"c-threshold", "C1 of Thm 3 Statement 1 (the threshold)"}})}),
       [](const args& a) {
         evaluation e;
         const longtail_inputs in = longtail_of(a, e);
         const risk::risk_bound r =
             risk::thm3_all_data(in.problem, in.setting, in.k, longtail_constants_of(a, false));
         return with_condition1(a, in, r, std::move(e));
       }});
  out.push_back(
      {"longtail-thm3-tail", "003", "Thm 3 Statement 2",
       "test error on the L-long-tailed data of class k", bound_status::up_to_constants,
       "Thm 3 (Statement 2): test error of DP-SGD on the long-tailed data of class k",
       "value = sum_{j != k} exp(-c-exponent (N_T(L)/D_j)^2),\n"
       "N_T(L) = a L - b sqrt(d + L^2), a = sqrt|S_k| Lambda_k ||A_k'A_k||_F,\n"
       "b = n sigma_n ||A_k||_op, D_j as in longtail-thm3-all.\n"
       "Hypotheses: a >= c-threshold (max_j sqrt|S_j| ||A_k'A_j||_F + b sqrt(d + L^2)\n"
       "+ n sigma_n ||A_k||_F) and N_T(L) > 0 (which needs a > b and L > L* = b sqrt(d)/sqrt(a^2 - "
       "b^2)). " +
           kLongtailNote,
       "--tail-threshold 3 --noise-std 0",
       join({longtail_params(true),
             in_group({real("tail-threshold", "L, the long-tail threshold (Definition 3)", "1.5", any_finite())},
                      "Theorem 3"),
             longtail_hidden({{"c-exponent", "c2 of Thm 3 Statement 2 (the exponent)"},
                              {"c-threshold", "C2 of Thm 3 Statement 2 (the threshold)"}})}),
       [](const args& a) {
         evaluation e;
         const longtail_inputs in = longtail_of(a, e);
         const double L = a.real("tail-threshold");
         const risk::risk_bound r =
             risk::thm3_tail(in.problem, in.setting, in.k, L, longtail_constants_of(a, true));
         const risk::tail_regime t = risk::remark3_tail_regime(in.problem, in.setting, in.k);
         e.derived.push_back({"a = sqrt|S_k| Lambda_k ||A_k'A_k||_F", t.a});
         e.derived.push_back({"b = n sigma_n ||A_k||_op", t.b});
         e.derived.push_back({"L* (N_T(L) > 0 iff a > b and L > L*; Remark 3)", t.threshold_L});
         return with_condition1(a, in, r, std::move(e));
       }});
  out.push_back(
      {"longtail-remark4", "003", "Remark 4",
       "test error on all data of class k at the noise an (epsilon, delta) budget needs",
       bound_status::up_to_constants,
       "Remark 4: Thm 3 Statement 1 at the noise calibrated to epsilon (logs absorbed)",
       "value = sum_{j != k} exp(-c-exponent ((eps |S_k| Lambda_k ||u_k||^2 - C sqrt(T) ||u_k||)\n"
       "        / (eps sqrt|S_j| ||A_k'A_j||_F + C sqrt(T) ||A_k||_F))^2),\n"
       "i.e. Statement 1 with sigma_n = C sqrt(T)/(n eps) (the log(1/delta) factor absorbed).\n"
       "Uses a finite --clip and --steps. Hypothesis: the numerator is > 0. " +
           kLongtailNote,
       "--epsilon 1 --steps 200",
       join({longtail_params(false),
             in_group({real("epsilon", "epsilon of the privacy budget", "8", positive())},
                      "Remark 4"),
             longtail_hidden({{"c-exponent", "c1 of Thm 3 Statement 1 (the exponent)"}})}),
       [](const args& a) {
         evaluation e;
         longtail_inputs in = longtail_of(a, e);
         if (std::isinf(in.setting.clip))
           throw usage_error("--clip is inf, but Remark 4 calibrates the noise to a finite clip");
         const double epsilon = a.real("epsilon");
         const risk::risk_bound r = risk::remark4_all_data(in.problem, in.setting, in.k, epsilon,
                                                           longtail_constants_of(a, false));
         // The noise Remark 4's form stands for, sigma_n = C sqrt(T)/(n eps) (its log(1/delta)
         // absorbed, as in the bound): Condition 1(c) depends on it.
         in.setting.noise_std = risk::remark4_noise(in.setting.clip, in.setting.steps,
                                                    std::exp(-1.0), in.problem.examples(), epsilon);
         e.derived.push_back({"sigma_n = C sqrt(T)/(n eps), Remark 4's noise (logs absorbed)",
                              in.setting.noise_std});
         return with_condition1(a, in, r, std::move(e));
       }});
  return out;
}

// ---- Anonymous: DP non-convex learning, Part III (multi-layer ReLU networks) ---------------------

std::vector<bound_spec> mlp_bounds() {
  std::vector<param> run = in_group(
      {integer("examples", "n, training examples", 10000, 1),
       integer("input-dimension", "d, input dimension", 10, 1),
       integer("width", "m, width of every hidden layer", 16, 1),
       integer("depth", "L >= 2, number of layers", 3, 2),
       integer("steps", "T, number of steps", 100, 1),
       real("lipschitz", "S, Lipschitz constant of the convex loss (logistic: 1)", "1", positive()),
       real("radius", "R, radius of the projection (per layer omega = R/sqrt(m) around W_0)", "10",
            positive()),
       real("clip", "C, clipping threshold", "1", positive()),
       real("epsilon", "epsilon of (epsilon, delta)-DP (Algorithm 10 takes epsilon <= 1)", "0.5",
            positive()),
       real("delta", "delta of (epsilon, delta)-DP (Algorithm 10 takes delta <= 1/n^2)", "1e-9",
            open_unit()),
       real("sampling-rate", "q = M/n, the Poisson sampling rate (M the expected batch)", "0.1",
            left_open_unit()),
       real("xi", "xi, failure probability of the convergence event (Thm 13: xi <= 1/e)",
            "0.36787944117144233", open_unit()),
       real("gamma", "gamma, failure probability of the noise-norm event", "0.05", open_unit()),
       real("gamma-batch", "gamma_1, failure probability of Lemma 23's batch event", "0.05",
            open_unit()),
       real("approximation",
            "the NTRF approximation term inf_{f in F(W_0, R/sqrt(m))} (1/T) sum_i loss(f(x_i), y_i) "
            "of eq. (7): YOU must supply it (e.g. by training the NTK model; dpkit::sim's "
            "mlp_ntk_model); default 0 leaves it out",
            "0", nonnegative()),
       choice("width-factor",
              "max: max(L, d/m) as eq. (7) prints it; sum: L + d/m as the proof writes it",
              "max", {"max", "sum"})},
      "Training run (Algorithm 10: projected, Poisson-subsampled, clipped DP-SGD)");
  std::vector<param> hidden;
  for (const auto& [k, h] : std::vector<std::pair<std::string, std::string>>{
           {"c-convergence", "the constant of sqrt(log(1/xi)/T)"},
           {"c-optimisation", "the constant of S L^{3/2} R/sqrt(T)"},
           {"c-privacy", "the O~ of the privacy term (its polylogs absorbed)"},
           {"c-clip", "C <= c-clip min{S L sqrt(m), R}"},
           {"c-batch", "M >= c-batch log(T/gamma_1)"},
           {"c-sample-size", "n >= c-sample-size C(...)/(R eps)"},
           {"c-privacy-regime", "c_1 of the privacy hypothesis eps < c_1 q^2 T"},
           {"c-width", "m >= c-width x (the printed m*)"},
           {"c-step-size", "eta = c-step-size sqrt(L) R/(C sqrt(mT)) (reported, not in the bound)"},
           {"c-noise", "c_2 of the paper's noise sigma (reported, not in the bound)"}})
    hidden.push_back(real(k, h, "1", positive()));
  return {
      {"mlp-thm13", "001", "Thm 13, eq. (7)",
       "excess population risk of DP-SGD (Algorithm 10) on an L-layer ReLU network",
       risk::bound_status::up_to_constants,
       "Thm 13: excess population risk of DP-SGD on a multi-layer ReLU network (NTK regime)",
       "value = c-convergence sqrt(log(1/xi)/T) + c-optimisation S L^{3/2} R/sqrt(T)\n"
       "      + (NTRF approximation, given by --approximation)\n"
       "      + c-privacy S L^{3/2} R max(L, d/m) log(1/gamma) log(1/delta) m^2 sqrt(T)/(n eps)^2.\n"
       "Hypotheses: C <= c-clip min{S L sqrt(m), R}; M = q n >= c-batch log(T/gamma_1);\n"
       "n >= c-sample-size C (sqrt(Lm) + sqrt(md)) sqrt(T log(1/gamma) log(1/delta))/(R eps);\n"
       "eps < c_1 q^2 T; m >= m* (the statement's version, Poly(S, L, R) := 1); xi <= 1/e;\n"
       "Algorithm 10's eps <= 1 and delta <= 1/n^2. The NTRF approximation term is yours to\n"
       "supply (--approximation, default 0: then the value leaves it out).",
       "--examples 60000 --width 256 --steps 400 --delta 1e-10 --approximation 0.05",
       join({run, in_group(std::move(hidden), kHidden)}),
       [](const args& a) {
         risk::mlp_training s;
         s.examples = a.integer("examples");
         s.input_dimension = a.integer("input-dimension");
         s.width = a.integer("width");
         s.depth = a.integer("depth");
         s.steps = a.integer("steps");
         s.lipschitz = a.real("lipschitz");
         s.radius = a.real("radius");
         s.clip = a.real("clip");
         s.epsilon = a.real("epsilon");
         s.delta = a.real("delta");
         s.sampling_rate = a.real("sampling-rate");
         s.xi = a.real("xi");
         s.gamma = a.real("gamma");
         s.gamma_batch = a.real("gamma-batch");
         risk::mlp_hidden_constants c;
         a.maybe("c-convergence", c.convergence);
         a.maybe("c-optimisation", c.optimisation);
         a.maybe("c-privacy", c.privacy);
         a.maybe("c-clip", c.clip);
         a.maybe("c-batch", c.batch);
         a.maybe("c-sample-size", c.sample_size);
         a.maybe("c-privacy-regime", c.privacy_regime);
         a.maybe("c-width", c.width);
         a.maybe("c-step-size", c.step_size);
         a.maybe("c-noise", c.noise);
         const risk::width_factor form = a.is("width-factor", "max")
                                             ? risk::width_factor::max_form
                                             : risk::width_factor::sum_form;
         evaluation e = single(risk::mlp_thm13(s, a.real("approximation"), c, form));
         const double M = s.sampling_rate * double(s.examples);
         e.derived.push_back({"step size eta = c-step-size sqrt(L) R/(C sqrt(mT))",
                              risk::mlp_step_size(s, c)});
         e.derived.push_back({"paper's noise std sigma = c_2 q C sqrt(T log(1/delta))/(q n eps)",
                              risk::mlp_paper_noise_std(s.sampling_rate, s.clip, s.steps, s.delta,
                                                        M, s.epsilon, c)});
         e.derived.push_back({"Lemma 23: every batch >= this w.p. 1 - gamma_1 (explicit)",
                              risk::lemma23_batch_floor(M, s.steps, s.gamma_batch)});
         const risk::mlp_steps_tradeoff t = risk::mlp_optimal_steps(s, c, form);
         e.derived.push_back({"T* minimising a/sqrt(T) + b sqrt(T) (NTRF term aside)", t.steps});
         e.derived.push_back({"value at T* (NTRF term aside)", t.value});
         const std::vector<risk::condition> widths = risk::mlp_width_conditions(s, c);
         const char* versions[] = {"", "Lemma 25", "proof of Thm 13", "proof of Thm 13, O(SLR/sqrt T)",
                                   "Lemma 22 eq. (19)"};
         for (std::size_t i = 1; i < widths.size() && i < 5; ++i)
           e.derived.push_back({std::string("m* as printed in ") + versions[i] + " (not checked)",
                                widths[i].limit});
         e.notes.push_back(
             "NTRF approximation = " + format_number(a.real("approximation")) +
             " (--approximation): the best training loss within the NTK random-feature class, "
             "which only you can supply; with the default 0 the value is a lower estimate of the "
             "bound's right-hand side.");
         e.notes.push_back(
             "The paper prints four width conditions m >= m* that disagree; the statement's is "
             "checked, the others are listed as derived rows.");
         return e;
       }}};
}

// ---- Anonymous: DP non-convex learning, Parts I-II (GLMs, ReLU regression, kernels) -------------

std::vector<param> glm_params(bool misspecification) {
  std::vector<param> ps = {
      integer("examples", "n, training examples", 10000, 1),
      real("theta", "theta >= 1, bound on the expected rank of sum x_i x_i'", "10",
           number([](double v) { return v >= 1; }, "a finite number >= 1")),
      real("epsilon", "epsilon of (epsilon, delta)-DP (the theorems assume epsilon < 1 or <= 1)",
           "0.5", positive()),
      real("delta", "delta of (epsilon, delta)-DP", "1e-5", open_unit()),
      real("w-norm", "W >= ||w*||_2", "1", positive()),
      real("link-lipschitz", "G, Lipschitz constant of the link sigma (sigmoid: 1/4)", "1",
           positive()),
      real("label-bound", "B >= |y|, |sigma|", "1", positive())};
  if (misspecification)
    ps.push_back(real("misspecification", "M >= |phi(x)|, misspecification of the kernel model",
                      "0", nonnegative()));
  return in_group(std::move(ps), "Problem (Assumptions 1 and 3)");
}

std::vector<param> glm_hidden(const std::vector<std::string>& keys) {
  static const std::map<std::string, std::string> help = {
      {"c-bound", "the absolute constant of the O(.) of the bound"},
      {"c-polylog", "the log factors the O~ hides (multiplies the privacy term)"},
      {"c-step-size", "eta = c-step-size x (the theorem's step size)"},
      {"c-jl-dimension", "m = c-jl-dimension x (the theorem's JL dimension)"},
      {"c-smoothing", "beta = c-smoothing sqrt(n) B/W^2 (Thm 4's proof)"},
      {"c-oracle", "gamma = c-oracle B/(n log n) (Thm 4's proof)"},
      {"c-steps", "T = c-steps x (the theorem's T)"},
      {"c-sample-size", "the constant of the sample complexity"},
      {"c-exponent", "C of Lemmas 16-17 (the exponent constant)"}};
  std::vector<param> ps;
  for (const std::string& k : keys) ps.push_back(real(k, help.at(k), "1", positive()));
  return in_group(std::move(ps), kHidden);
}

risk::glm_problem glm_of(const args& a) {
  risk::glm_problem p;
  p.examples = a.integer("examples");
  p.theta = a.real("theta");
  p.epsilon = a.real("epsilon");
  p.delta = a.real("delta");
  p.W = a.real("w-norm");
  p.G = a.real("link-lipschitz");
  p.B = a.real("label-bound");
  if (a.has("misspecification")) p.M = a.real("misspecification");
  return p;
}

risk::nonconvex_hidden_constants glm_hidden_of(const args& a) {
  risk::nonconvex_hidden_constants c;
  a.maybe("c-bound", c.bound);
  a.maybe("c-polylog", c.polylog);
  a.maybe("c-step-size", c.step_size);
  a.maybe("c-jl-dimension", c.jl_dimension);
  a.maybe("c-smoothing", c.smoothing);
  a.maybe("c-oracle", c.oracle);
  a.maybe("c-steps", c.steps);
  a.maybe("c-sample-size", c.sample_size);
  a.maybe("c-exponent", c.exponent);
  return c;
}

/// Thm 4's parameters (beta, oracle gamma, eta) and its step-size hypothesis eta <= 2/beta.
void add_moreau_parameters(const risk::glm_problem& p, const risk::nonconvex_hidden_constants& c,
                           evaluation& e) {
  if (p.examples < 2)
    throw usage_error("--examples is 1, but Thm 4's oracle accuracy B/(n log n) needs n >= 2");
  const risk::moreau_parameters m = risk::moreau_phased_sgd_parameters(p, c);
  e.derived.push_back({"beta = c-smoothing sqrt(n) B/W^2 (smoothing)", m.beta});
  e.derived.push_back({"oracle accuracy gamma = c-oracle B/(n log n)", m.gamma});
  e.derived.push_back({"oracle steps T_o = ceil(144 B^2/gamma^2)", double(m.oracle_steps)});
  e.derived.push_back({"step size eta (as Thm 1)", m.eta});
  e.conditions.push_back({"eta <= 2/beta (phased SGD on the beta-smooth envelope)", m.eta,
                          2 / m.beta, m.eta_le_2_over_beta,
                          std::string(paper("001").short_name) + ", Thm 4 (its parameters)"});
}

std::vector<bound_spec> nonconvex_bounds() {
  using risk::bound_status;
  std::vector<bound_spec> out;
  const std::string kGlm =
      "GLM y = sigma(<w*, x>) + zeta with a monotone G-Lipschitz link bounded by B, learned\n"
      "through the convex surrogate (||x|| <= 1).";
  auto with_eta = [](const std::string& def, const std::string& help) {
    return in_group({real("eta", help, def, positive({"auto", "none"}))}, "Step size");
  };
  out.push_back(
      {"nonconvex-thm1", "001", "Thm 1 (Algorithm 2)",
       "excess population risk of phased DP-SGD (Algorithm 2) on a GLM",
       bound_status::up_to_constants,
       "Thm 1: excess risk of phased DP-SGD on a GLM (dimension-free)",
       "value = c-bound (1/sqrt(n) + sqrt(theta log(1/delta))/(n eps)).\n"
       "Hypotheses: eps < 1; eta <= 2/G (privacy; checked at the theorem's eta =\n"
       "c-step-size min{eps/sqrt(theta log(1/delta)), 1/sqrt(n)} unless --eta is given). " +
           kGlm,
       "--examples 100000 --epsilon 0.1",
       join({glm_params(false),
             with_eta("auto", "eta of Algorithm 2; auto: the theorem's choice; none: not checked"),
             glm_hidden({"c-bound", "c-step-size"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         const risk::nonconvex_hidden_constants c = glm_hidden_of(a);
         const double theorem_eta = risk::phased_sgd_step_size(p, c);
         const double eta = a.is("eta", "auto") ? theorem_eta : a.real("eta");
         evaluation e = single(risk::phased_sgd_rate(p, eta, c));
         e.derived.push_back({"the theorem's step size eta", theorem_eta});
         e.derived.push_back({"Algorithm 1 runs Algorithm 2 iff eps > theta^{3/2}/n",
                              risk::nonconvex_glm_switch_epsilon(p.theta, p.examples)});
         return e;
       }});
  out.push_back(
      {"nonconvex-thm1-phase-sum", "001", "App A (proof of Thm 1): Lemma 8 summed over the phases",
       "surrogate excess risk E L^l_P(w_k) - L^l_P(w*) of Algorithm 2, every constant explicit",
       bound_status::explicit_bound,
       "Proof of Thm 1: the explicit phase-sum bound on Algorithm 2's surrogate excess risk",
       "value = D0^2/(2 eta_1 n_1) + sum_{i>=2} theta tau_{i-1}^2/(2 eta_i n_i) + 2 B^2 sum_i eta_i\n"
       "      + 2 B tau_k, with n_i = floor(n/2^i), eta_i = eta/4^i, tau_i = 8 B eta_i\n"
       "sqrt(log(1/delta))/eps, k = floor(log2 n). The excess risk is at most 2G times it (Lemma 3,\n"
       "a derived row). " +
           kGlm,
       "--eta 0.01 --initial-distance 0.5",
       join({glm_params(false),
             with_eta("auto", "eta of Algorithm 2; auto: Thm 1's choice"),
             in_group({real("initial-distance", "D0 = ||w_0 - w*||; auto: W (w_0 = 0)", "auto",
                            nonnegative({"auto"}))},
                      "Step size"),
             glm_hidden({"c-step-size"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         if (p.examples < 2)
           throw usage_error("--examples is 1, but Algorithm 2 needs n >= 2 (one phase)");
         const risk::nonconvex_hidden_constants c = glm_hidden_of(a);
         const double eta = a.is("eta", "auto") ? risk::phased_sgd_step_size(p, c) : a.real("eta");
         const double D0 = a.is("initial-distance", "auto") ? p.W : a.real("initial-distance");
         const risk::phase_sum_bound r = risk::phased_sgd_phase_sum(p, eta, D0);
         evaluation e = single(r);
         e.derived.push_back({"excess risk bound 2G x surrogate (Lemma 3)", r.excess_risk});
         e.derived.push_back({"eta used", eta});
         e.derived.push_back({"D0 used", D0});
         e.derived.push_back({"phases k", double(r.phases.size())});
         const risk::phase_sum_approximation ap =
             risk::phased_sgd_phase_sum_approximation(p, eta, D0);
         e.derived.push_back({"closed-form approximation (NOT a bound)", ap.value});
         e.derived.push_back({"eta* minimising the approximation", ap.eta_star});
         return e;
       }});
  out.push_back(
      {"nonconvex-thm2", "001", "Thm 2 (Algorithm 3)",
       "excess population risk of phased DP-SGD on JL-projected data (Algorithm 3)",
       bound_status::up_to_constants,
       "Thm 2: excess risk of phased DP-SGD on JL-projected data (Algorithm 3)",
       "value = c-bound (c-polylog sqrt(log(1/delta))/(n eps)^{2/3} + 1/sqrt(n)).\n"
       "Hypotheses: eps < 1; eta <= 1/(2G) (the privacy proof) when --eta is given. " + kGlm,
       "--examples 100000 --eta 0.1",
       join({glm_params(false), with_eta("none", "eta of Algorithm 3 (none: not checked)"),
             glm_hidden({"c-bound", "c-polylog", "c-jl-dimension"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         const risk::nonconvex_hidden_constants c = glm_hidden_of(a);
         evaluation e = single(risk::jl_phased_sgd_rate(p, a.real("eta"), c));
         e.derived.push_back({"JL dimension m = c-jl-dimension log(n/delta)(n eps)^{2/3}",
                              risk::jl_dimension(p, c)});
         return e;
       }});
  out.push_back(
      {"nonconvex-alg1", "001", "Algorithm 1 / Remark 3",
       "excess population risk of Algorithm 1 (the better of Algorithms 2 and 3)",
       bound_status::up_to_constants,
       "Algorithm 1 / Remark 3: excess risk of the better of Algorithms 2 and 3 on a GLM",
       "value = c-bound (1/sqrt(n) + min{c-polylog sqrt(theta) sqrt(log(1/delta))/(n eps),\n"
       "        c-polylog sqrt(log(1/delta))/(n eps)^{2/3}}); Algorithm 1 takes Algorithm 2 iff\n"
       "eps > theta^{3/2}/n. Hypothesis: eps < 1. " +
           kGlm,
       "--theta 1000", join({glm_params(false), glm_hidden({"c-bound", "c-polylog"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         evaluation e = single(risk::nonconvex_glm_rate(p, glm_hidden_of(a)));
         e.derived.push_back({"switch: Algorithm 2 iff eps > theta^{3/2}/n",
                              risk::nonconvex_glm_switch_epsilon(p.theta, p.examples)});
         return e;
       }});
  out.push_back(
      {"nonconvex-thm4", "001", "Thm 4 (Algorithm 5), eq. (3)",
       "excess population risk of phased DP-SGD on the Moreau envelope (Algorithm 5)",
       bound_status::up_to_constants,
       "Thm 4: excess risk of phased DP-SGD on the Moreau envelope (non-smooth link)",
       "value = c-bound (sqrt(theta log(1/delta))/(n eps) + 1/sqrt(n)).\n"
       "Hypotheses: eps <= 1; eta <= 2/beta at the proof's beta = c-smoothing sqrt(n) B/W^2 and\n"
       "eta as Thm 1. " +
           kGlm,
       "--epsilon 1",
       join({glm_params(false), glm_hidden({"c-bound", "c-step-size", "c-smoothing", "c-oracle"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         const risk::nonconvex_hidden_constants c = glm_hidden_of(a);
         evaluation e = single(risk::moreau_phased_sgd_rate(p, c));
         add_moreau_parameters(p, c, e);
         return e;
       }});
  out.push_back(
      {"nonconvex-thm4-proof", "001", "proof of Thm 4",
       "excess population risk of Algorithm 5 with the Moreau bias separated",
       bound_status::up_to_constants,
       "Proof of Thm 4: excess risk of Algorithm 5 with the Moreau smoothing bias separated",
       "value = c-bound G W^2 B (sqrt(theta log(1/delta))/(n eps) + 1/sqrt(n)) + G B^2/beta,\n"
       "beta = --moreau-beta or the proof's c-smoothing sqrt(n) B/W^2.\n"
       "Hypotheses: eps <= 1; eta <= 2/beta (eta as Thm 1, beta the proof's). " +
           kGlm,
       "--moreau-beta 1000",
       join({glm_params(false),
             in_group({real("moreau-beta", "beta, the Moreau smoothing; auto: c-smoothing sqrt(n) B/W^2",
                            "auto", positive({"auto"}))},
                      "Smoothing"),
             glm_hidden({"c-bound", "c-step-size", "c-smoothing", "c-oracle"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         const risk::nonconvex_hidden_constants c = glm_hidden_of(a);
         evaluation e = single(risk::moreau_phased_sgd_proof_bound(p, a.real("moreau-beta"), c));
         add_moreau_parameters(p, c, e);
         return e;
       }});
  out.push_back(
      {"nonconvex-thm5", "001", "Thm 5 (Algorithm 6)",
       "excess population risk of Algorithm 6 (Moreau envelope on JL-projected data)",
       bound_status::up_to_constants,
       "Thm 5: excess risk of phased DP-SGD on the Moreau envelope of JL-projected data",
       "value = c-bound (1/sqrt(n) + c-polylog sqrt(log(1/delta))/(n eps)^{2/3}).\n"
       "Hypothesis: eps <= 1. " +
           kGlm,
       "--examples 1000000", join({glm_params(false), glm_hidden({"c-bound", "c-polylog"})}),
       [](const args& a) { return single(risk::jl_moreau_phased_sgd_rate(glm_of(a), glm_hidden_of(a))); }});
  out.push_back(
      {"nonconvex-thm6", "001", "Thm 6 (Algorithm 7)",
       "excess population risk of projected DP-GD for ReLU regression (Algorithm 7)",
       bound_status::up_to_constants,
       "Thm 6: excess risk of projected DP gradient descent for ReLU regression",
       "value = c-bound (1/sqrt(n) + c-polylog sqrt(log(1/delta))/(n eps)^{2/3}).\n"
       "Hypothesis: eps <= 1. Link: ReLU (G = 1).",
       "--epsilon 0.2", join({glm_params(false), glm_hidden({"c-bound", "c-polylog"})}),
       [](const args& a) { return single(risk::relu_projected_gd_rate(glm_of(a), glm_hidden_of(a))); }});
  out.push_back(
      {"nonconvex-thm6-proof", "001", "proof of Thm 6 (logs dropped)",
       "excess population risk of Algorithm 7 as a function of T, terms separated",
       bound_status::up_to_constants,
       "Proof of Thm 6: the five terms of Algorithm 7's excess risk at a given T, m and eta",
       "value = c-bound [W^2/(eta T) + eta (W+B)^2 T m log(1/delta)/(n eps)^2 + (W+B)^2 eta T/n\n"
       "        + W log(n/delta)/m + eta (W+B)^2]\n"
       "(optimisation, privacy, stability, JL bias, step variance). eta auto: the proof's\n"
       "W/(sqrt(T) max{W+B, (W+B) sqrt(mT log(1/delta))/(n eps)}). Hypotheses: eps <= 1, eta <= 1/2.",
       "--steps 1000 --jl-dim 200",
       join({glm_params(false),
             in_group({real("steps", "T; auto: the theorem's c-steps min{n, n^2 eps^2/(m "
                                     "log(1/delta))}",
                            "auto", positive({"auto"})),
                       real("jl-dim", "m, the JL dimension; auto: c-jl-dimension "
                                            "log(n/delta)(n eps)^{2/3}",
                            "auto", positive({"auto"})),
                       real("eta", "eta; auto: the proof's choice", "auto", positive({"auto"}))},
                      "Algorithm 7"),
             glm_hidden({"c-bound", "c-jl-dimension", "c-steps"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         const risk::nonconvex_hidden_constants c = glm_hidden_of(a);
         const double m = a.is("jl-dim", "auto") ? risk::jl_dimension(p, c)
                                                       : a.real("jl-dim");
         const risk::relu_gd_horizon h = risk::relu_gd_steps(p, m, a.real("eta"), c);
         const double T_real = a.is("steps", "auto") ? h.theorem_steps : a.real("steps");
         if (!(T_real < 9.0e15))
           throw usage_error("--steps is " + format_number(T_real) + ", but must be < 9e15");
         const long long T = std::max(1LL, static_cast<long long>(std::ceil(T_real)));
         evaluation e = single(risk::relu_gd_proof_bound(p, T, m, a.real("eta"), c));
         e.derived.push_back({"steps T used", double(T)});
         e.derived.push_back({"JL dimension m used", m});
         e.derived.push_back({"the theorem's T = c-steps min{n, n^2 eps^2/(m log(1/delta))}",
                              h.theorem_steps});
         if (!a.is("eta", "auto"))
           e.derived.push_back({"T* minimising the T-dependent terms at this eta", h.optimal_steps});
         return e;
       }});
  out.push_back(
      {"nonconvex-thm7", "001", "Thm 7 (Algorithm 8)",
       "population risk L_P(w_T) of DP-GD for agnostic ReLU regression (Algorithm 8)",
       bound_status::explicit_bound,
       "Thm 7: population risk of Algorithm 8 for agnostic ReLU regression, 2(1 + 2mu) opt + alpha",
       "value = 2(1 + 2 mu) opt + alpha, with probability 1 - zeta, explicit once mu (Lemma 12's\n"
       "constant of the law of x) is known; the sample size it needs is nonconvex-thm7-sample-size.",
       "--opt 0.05 --mu 0.5 --alpha 0.01",
       in_group({real("opt", "opt = L_P(w*), the best population risk of a ReLU", "0.1",
                      nonnegative()),
                 real("mu", "mu, Lemma 12's constant of the isotropic log-concave law of x", "1",
                      positive()),
                 real("alpha", "alpha, the additive accuracy", "0.1", nonnegative())},
                "Problem"),
       [](const args& a) {
         return single(
             risk::agnostic_relu_guarantee(a.real("opt"), a.real("mu"), a.real("alpha")));
       }});
  out.push_back(
      {"nonconvex-thm7-sample-size", "001", "Thm 7",
       "sample size n that Thm 7 needs for accuracy alpha", bound_status::up_to_constants,
       "Thm 7: the sample size agnostic ReLU regression needs (a sample complexity)",
       "value = max{privacy, statistical}, privacy = c-sample-size d ||w*|| sqrt(log(1/delta)\n"
       "log(1/zeta))/(eps alpha), statistical = c-sample-size ||w*||^2 d log^4(1/zeta)/alpha^2\n"
       "(a max: the terms do not sum to the value). Hypotheses: alpha < ||w*||, eps < 1.",
       "--dimension 100 --alpha 0.05",
       join({in_group({integer("dimension", "d, input dimension", 10, 1),
                       real("w-star-norm", "||w*_l||, norm of the best ReLU", "1", positive()),
                       real("epsilon", "epsilon of (epsilon, delta)-DP", "0.5", positive()),
                       real("delta", "delta of (epsilon, delta)-DP", "1e-5", open_unit()),
                       real("alpha", "alpha, the additive accuracy", "0.1", positive()),
                       real("zeta", "zeta, failure probability", "0.05", open_unit())},
                      "Problem"),
             glm_hidden({"c-sample-size"})}),
       [](const args& a) {
         return single(risk::agnostic_relu_sample_size(
             a.integer("dimension"), a.real("w-star-norm"), a.real("epsilon"), a.real("delta"),
             a.real("alpha"), a.real("zeta"), glm_hidden_of(a)));
       }});
  out.push_back(
      {"nonconvex-thm8", "001", "Thm 8 / Cor 1 (Algorithm 9)",
       "excess population risk of the kernelised GLM learner for two-layer networks (Algorithm 9)",
       bound_status::up_to_constants,
       "Thm 8 / Cor 1: excess risk of the kernelised learner for two-layer networks (Algorithm 9)",
       "value = c-bound c-polylog min{sqrt(theta log(1/delta))/(n eps), sqrt(log(1/delta))/sqrt(n "
       "eps)}\n"
       "      + 1/sqrt(n) + M^2 + M (the misspecification floor, printed without constants).\n"
       "Algorithm 9 takes Algorithm 2 iff eps > theta/n. Hypothesis: eps <= 1.",
       "--misspecification 0.01",
       join({glm_params(true), glm_hidden({"c-bound", "c-polylog"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         evaluation e = single(risk::kernel_glm_rate(p, glm_hidden_of(a)));
         e.derived.push_back({"switch: Algorithm 2 iff eps > theta/n",
                              risk::kernel_glm_switch_epsilon(p.theta, p.examples)});
         const risk::kernel_surrogate_constants k = risk::kernel_surrogate_lemma(p.G, p.M);
         e.derived.push_back({"Lemma 7's explicit floor 2 G^2 M^2 + 4 G M", k.floor});
         return e;
       }});
  auto two_layer = [](risk::hidden_activation act) {
    return [act](const args& a) {
      return single(risk::two_layer_sample_size(act, a.integer("hidden-units"), a.real("alpha"),
                                                a.real("link-lipschitz"), a.real("theta"),
                                                a.real("epsilon"), a.real("delta"),
                                                glm_hidden_of(a)));
    };
  };
  auto two_layer_params = [] {
    return join({in_group({integer("hidden-units", "k, hidden units of the two-layer network", 4, 1),
                           real("alpha", "alpha, the target error", "0.5", positive()),
                           real("link-lipschitz", "G, Lipschitz constant of the activation", "1",
                                positive()),
                           real("theta", "theta, the rank bound", "10", positive()),
                           real("epsilon", "epsilon of (epsilon, delta)-DP", "0.5", positive()),
                           real("delta", "delta of (epsilon, delta)-DP", "1e-5", open_unit())},
                          "Problem"),
                 glm_hidden({"c-sample-size", "c-exponent"})});
  };
  out.push_back(
      {"nonconvex-thm10", "001", "Thm 10",
       "sample size for error alpha with a two-layer sigmoid network", bound_status::up_to_constants,
       "Thm 10: the sample complexity of DP learning a two-layer sigmoid network",
       "value = c-sample-size ((kG/alpha)^{2C} log(1/delta)/eps + (Gk/alpha)^C sqrt(theta "
       "log(1/delta))/eps),\n"
       "C = c-exponent (Lemmas 16-17; unknown). No hypothesis is checked.",
       "--hidden-units 8 --alpha 0.1", two_layer_params(),
       two_layer(risk::hidden_activation::sigmoid)});
  out.push_back(
      {"nonconvex-thm11", "001", "Thm 11",
       "sample size for error alpha with a two-layer ReLU network", bound_status::up_to_constants,
       "Thm 11: the sample complexity of DP learning a two-layer ReLU network",
       "value = c-sample-size (4^{C Gk/alpha} log(1/delta)/eps + 2^{C Gk/alpha} sqrt(theta "
       "log(1/delta))/eps),\n"
       "C = c-exponent (Lemmas 16-17; unknown). No hypothesis is checked.",
       "--hidden-units 8 --alpha 0.1", two_layer_params(),
       two_layer(risk::hidden_activation::relu)});
  return out;
}

const std::vector<bound_spec>& catalogue() {
  static const std::vector<bound_spec> all = [] {
    std::vector<bound_spec> v;
    for (auto&& part : {kan_bounds(), longtail_bounds(), mlp_bounds(), nonconvex_bounds()})
      v.insert(v.end(), part.begin(), part.end());
    return v;
  }();
  return all;
}

// ---- output --------------------------------------------------------------------------------------

json number_or_null(double x) {
  return std::isfinite(x) ? json(x) : json(nullptr);
}

std::string kind_text(risk::bound_status s) {
  return std::string(risk::to_string(s));
}

json parameter_values(const bound_spec& spec, const args& a) {
  json out = json::object();
  for (const param& p : spec.params) {
    if (p.type == param_type::flag) {
      out[p.key] = a.flag(p.key);
    } else if (p.type == param_type::integer) {
      out[p.key] = a.integer(p.key);
    } else if (const auto v = parse_number(a.text(p.key)); v && p.type == param_type::real) {
      out[p.key] = *v;
    } else {
      out[p.key] = a.text(p.key);
    }
  }
  return out;
}

report evaluate_report(const bound_spec& spec, const args& a, evaluation e) {
  const paper_info& pp = paper(spec.paper_id);
  std::string failed;
  std::size_t n_failed = 0;
  for (const risk::condition& c : e.conditions)
    if (!c.holds) {
      failed += (failed.empty() ? "" : "; ") + paper_text(c.name);
      ++n_failed;
    }
  // A value that is not a finite double is never labelled a bound (an overflow: the inputs are
  // far outside any regime the theorem is about).
  for (const auto& [part, r] : e.totals)
    if (!std::isfinite(r.value))
      throw numerical_failure("the value of " + spec.name + " is " + format_number(r.value) +
                              " at these inputs (it overflows double precision): nothing to "
                              "report");
  // The kind of a result whose hypotheses hold: the library's status where it says so.
  risk::bound_status ok = spec.kind;
  for (const auto& [part, r] : e.totals)
    if (r.status != risk::bound_status::condition_violated) ok = r.status;
  const risk::bound_status status = failed.empty() ? ok : risk::bound_status::condition_violated;
  const std::string label = failed.empty() ? kind_text(ok) : kind_text(status) + ": " + failed;

  report rep;
  rep.tool = "dpkit bound " + spec.name;
  rep.columns = {"row", "name", "value", "limit", "status", "source"};
  json values = json::object();
  for (const auto& [part, r] : e.totals) {
    const std::string source = paper_text(r.source);
    for (const risk::bound_term& t : r.terms)
      rep.results.push_back({{"row", "term"},
                             {"name", paper_text(t.name)},
                             {"value", number_or_null(t.value)},
                             {"limit", nullptr},
                             {"status", ""},
                             {"source", source}});
    const std::string name = spec.name + (part.empty() ? "" : " (" + part + ")");
    rep.results.push_back({{"row", "total"},
                           {"name", name},
                           {"value", number_or_null(r.value)},
                           {"limit", nullptr},
                           {"status", kind_text(status)},
                           {"source", source},
                           {"label", label},
                           {"hypotheses_hold", failed.empty()}});
    values[part.empty() ? "value" : part] = number_or_null(r.value);
  }
  for (const risk::condition& c : e.conditions)
    rep.results.push_back({{"row", "condition"},
                           {"name", paper_text(c.name)},
                           {"value", number_or_null(c.value)},
                           {"limit", number_or_null(c.limit)},
                           {"status", c.holds ? "holds" : "FAILS"},
                           {"source", paper_text(c.source)},
                           {"holds", c.holds}});
  for (const auto& [name, v] : e.derived)
    rep.results.push_back({{"row", "derived"},
                           {"name", paper_text(name)},
                           {"value", number_or_null(v)},
                           {"limit", nullptr},
                           {"status", ""},
                           {"source", ""}});

  rep.parameters = {{"bound", spec.name},
                    {"paper", std::string(pp.citation)},
                    {"theorem", spec.theorem},
                    {"quantity", spec.quantity},
                    {"status", kind_text(status)},
                    {"label", label},
                    {"hypotheses_hold", failed.empty()},
                    {"conditions_checked", e.conditions.size()},
                    {"conditions_failed", n_failed}};
  for (const auto& item : values.items()) rep.parameters[item.key()] = item.value();
  rep.parameters["inputs"] = parameter_values(spec, a);

  rep.title = spec.name + ": " + spec.quantity + "\n" + std::string(pp.short_name) + ", " +
              spec.theorem;
  auto conditions = [](std::size_t k) {
    return std::to_string(k) + (k == 1 ? " condition" : " conditions");
  };
  if (failed.empty()) {
    rep.notes.push_back(
        "STATUS: " + label + ". " +
        (e.conditions.empty()
             ? std::string("No hypothesis of this bound can be evaluated from its inputs. ")
             : "Every checked hypothesis holds (" + conditions(e.conditions.size()) + "). ") +
        (ok == risk::bound_status::explicit_bound
             ? std::string("Every constant is explicit: the value is a bound (with the stated "
                           "probability).")
             : std::string("The paper states this bound with unspecified constants (the --c-* "
                           "flags, default 1, which is NOT a proven value): read slopes and "
                           "ratios, not absolute values.")));
  } else {
    rep.notes.push_back("HYPOTHESIS FAILS: " + std::to_string(n_failed) + " of " +
                        conditions(e.conditions.size()) +
                        (n_failed == 1 ? " does" : " do") +
                        " not hold (the rows marked FAILS). The value is the formula evaluated "
                        "at the inputs, NOT a bound.");
    rep.notes.push_back("label: " + label);
  }
  rep.notes.push_back(
      "rows: term = an additive term; total = the bound; condition = a hypothesis, value vs "
      "limit; derived = a quantity computed on the way (not a bound).");
  for (const auto& [part, r] : e.totals) {
    double sum = 0;
    for (const risk::bound_term& t : r.terms) sum += t.value;
    if (!r.terms.empty() && std::abs(sum - r.value) > 1e-12 * std::abs(r.value))
      rep.notes.push_back("The terms" + (part.empty() ? "" : " of the " + part + " rate") +
                          " add up to " + format_number(sum) + ", not to the total " +
                          format_number(r.value) +
                          ": the total applies a constant factor to them or takes their maximum "
                          "(see --help).");
  }
  for (const std::string& n : e.notes) rep.notes.push_back(paper_text(n));
  rep.notes.push_back("Paper: " + std::string(pp.citation) + ", " + spec.theorem + ".");
  return rep;
}

// ---- --list and suggestions ----------------------------------------------------------------------

std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

/// " (did you mean X?)" for the closest candidate within a third of the word's length, or "".
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t distance = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const std::string& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < distance) {
      distance = d;
      best = c;
    }
  }
  return best.empty() ? "" : " (did you mean " + best + "?)";
}

std::vector<std::string> bound_names() {
  std::vector<std::string> names;
  for (const bound_spec& s : catalogue()) names.push_back(s.name);
  return names;
}

/// A usage error for arguments CLI11 left over (allow_extras): misspelt flags get a suggestion.
void check_extras(const CLI::App& app, const std::string& where) {
  const std::vector<std::string> rest = app.remaining();
  if (rest.empty()) return;
  const std::string& first = rest.front();
  if (first.size() > 1 && first[0] == '-') {
    const std::string flag = first.substr(0, first.find('='));
    std::vector<std::string> known;
    for (const CLI::Option* o : app.get_options())
      for (const std::string& n : o->get_lnames()) known.push_back("--" + n);
    throw usage_error(flag + " is not an option of " + where + suggestion(flag, known) + "; '" +
                      where + " --help' lists them");
  }
  throw usage_error("unexpected argument '" + first + "' (every value follows its --flag; '" +
                    where + " --help' lists them)");
}

/// The table (for people) has the short columns and the parameters as notes under it; JSON and
/// CSV carry every column.
report list_report(bool table) {
  report rep;
  rep.tool = "dpkit bound --list";
  rep.title = "risk bounds available to 'dpkit bound NAME'";
  rep.columns = {"bound", "paper", "theorem", "kind", "bounds", "parameters"};
  if (table) rep.columns = {"bound", "paper", "theorem", "kind"};
  for (const bound_spec& s : catalogue()) {
    std::string text;
    json defaults = json::object();
    for (const param& p : s.params) {
      if (p.type == param_type::flag) {
        text += (text.empty() ? "" : " ") + ("[--" + p.key + "]");
        defaults[p.key] = false;
        continue;
      }
      text += (text.empty() ? "" : " ") + ("--" + p.key + " " + p.def);
      const auto number_default = parse_number(p.def);
      if (p.type == param_type::integer)
        defaults[p.key] = std::stoll(p.def);
      else if (p.type == param_type::real && number_default)
        defaults[p.key] = *number_default;
      else
        defaults[p.key] = p.def;
    }
    rep.results.push_back({{"bound", s.name},
                           {"paper", std::string(paper(s.paper_id).short_name)},
                           {"theorem", s.theorem},
                           {"kind", kind_text(s.kind)},
                           {"bounds", s.quantity},
                           {"parameters", text},
                           {"defaults", defaults},
                           {"summary", s.summary}});
  }
  rep.notes = {
      "kind: 'explicit bound' (every constant explicit) or 'up to hidden constants' (the "
      "paper's O/<~ constants are the --c-* flags, default 1, not proven values) when every "
      "hypothesis holds; each evaluation checks them and says 'condition violated' "
      "(HYPOTHESIS FAILS) otherwise.",
      "'dpkit bound NAME --help' gives a bound's formula, hypotheses and parameters.",
      "Papers:"};
  for (const char* id : {"000", "001", "003"})
    rep.notes.push_back("  " + std::string(paper(id).short_name) + ": " +
                        std::string(paper(id).citation));
  if (table) {
    rep.notes.push_back("Parameters and defaults (--flag DEFAULT):");
    for (const json& row : rep.results)
      rep.notes.push_back("  " + row.at("bound").get<std::string>() + ": " +
                          row.at("parameters").get<std::string>());
  }
  return rep;
}

struct bound_state {
  std::map<std::string, std::string> values;
  std::map<std::string, bool> flags;
  output_options output;
};

}  // namespace

void register_bound(CLI::App& app, int& exit_code) {
  CLI::App* top = app.add_subcommand(
      "bound",
      "Risk (utility) bounds of the papers' theorems evaluated at your parameters: every term, "
      "the total with its label (explicit bound / up to hidden constants / condition violated) "
      "and every hypothesis checked");
  auto list = std::make_shared<bool>(false);
  auto list_output = std::make_shared<output_options>();
  top->add_flag("--list", *list,
                "List every bound: its paper and theorem, kind, what it bounds and its "
                "parameters with their defaults");
  add_output_options(top, *list_output);
  for (const char* o : {"--format", "--output"}) top->get_option(o)->group("Output of --list");
  top->allow_extras();
  std::string names;
  for (const bound_spec& s : catalogue()) names += (names.empty() ? "" : ", ") + s.name;
  top->footer(
      "Usage: dpkit bound NAME [--parameter VALUE ...] [--format table|json|csv]\n"
      "Bounds: " + names + ".\n"
      "Examples:\n"
      "  dpkit bound --list\n"
      "  dpkit bound mlp-thm13 --examples 60000 --width 256 --delta 1e-10 --approximation 0.05\n"
      "  dpkit bound kan-thm4.1 --kappa 2 --lambda 0.9 --format json\n"
      "  dpkit bound longtail-thm3-tail --class-counts 50,50,5 --class 2 --tail-threshold 3\n"
      "  dpkit bound nonconvex-thm1 --examples 100000 --epsilon 0.1\n"
      "  dpkit bound mlp-thm13 --help        # the formula, hypotheses and parameters\n" +
      kStatusHelp + "\ndocs/cli.md ('dpkit bound') has more.");

  for (const bound_spec& spec : catalogue()) {
    auto state = std::make_shared<bound_state>();
    CLI::App* sub = top->add_subcommand(spec.name, spec.summary);
    for (const param& p : spec.params) {
      if (p.type == param_type::flag) {
        state->flags[p.key] = false;
      } else {
        state->values[p.key] = p.def;
      }
    }
    for (const param& p : spec.params) {
      CLI::Option* o = nullptr;
      if (p.type == param_type::flag) {
        o = sub->add_flag("--" + p.key, state->flags[p.key], p.help);
      } else {
        o = sub->add_option("--" + p.key, state->values[p.key], p.help)->capture_default_str();
        if (p.type == param_type::choice) {
          o->check(CLI::IsMember(p.choices));
        } else {
          o->check(p.check);
          o->type_name(p.type == param_type::integer ? "N" : p.type == param_type::list ? "LIST" : "X");
        }
      }
      if (!p.group.empty()) o->group(p.group);
    }
    add_output_options(sub, state->output);
    sub->allow_extras();
    const std::string where = "dpkit bound " + spec.name;
    sub->footer(std::string(paper(spec.paper_id).short_name) + ", " + spec.theorem + ". Bounds: " +
                spec.quantity + ".\n" + spec.formula + "\nExample:\n  " + where + " " +
                spec.example + "\n" + kStatusHelp);
    const bound_spec* sp = &spec;
    sub->callback([state, sp, sub, top, list, where, &exit_code] {
      check_extras(*top, "dpkit bound");
      check_extras(*sub, where);
      if (*list) throw usage_error("--list takes no bound name (dpkit bound --list)");
      if (top->get_option("--format")->count() + top->get_option("--output")->count() > 0)
        throw usage_error("--format and --output follow the bound name (" + where +
                          " ... --format json)");
      const args a(state->values, state->flags);
      report rep = evaluate_report(*sp, a, sp->evaluate(a));
      const bool hold = rep.parameters.at("hypotheses_hold").get<bool>();
      emit(rep, state->output);
      if (!hold && state->output.format != "table")
        std::cerr << where << ": HYPOTHESIS FAILS ("
                  << rep.parameters.at("conditions_failed").get<std::size_t>() << " of "
                  << rep.parameters.at("conditions_checked").get<std::size_t>()
                  << " conditions): the value is not a bound\n";
      exit_code = kExitSuccess;
    });
  }
  top->callback([top, list, list_output, &exit_code] {
    if (!top->get_subcommands().empty()) return;  // a bound ran
    // A word that is not a bound name is left over (allow_extras): suggest the closest name.
    const std::vector<std::string> rest = top->remaining();
    if (!rest.empty() && rest.front().rfind("-", 0) != 0)
      throw usage_error("unknown bound '" + rest.front() + "'" +
                        suggestion(rest.front(), bound_names()) +
                        "; 'dpkit bound --list' lists them");
    check_extras(*top, "dpkit bound");
    if (!*list)
      throw usage_error("give a bound name or --list (run 'dpkit bound --help' for the names)");
    emit(list_report(list_output->format == "table"), *list_output);
    exit_code = kExitSuccess;
  });
}

}  // namespace dpkit::cli
