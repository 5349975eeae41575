// dpkit bound — the risk (utility) bounds of dpkit::risk evaluated from the command line: each
// term, the total with its label (explicit bound, up to hidden constants, or condition violated)
// and every hypothesis the library checks, with its value, limit and source.
//
// Design: one CLI11 sub-subcommand per bound (`dpkit bound mlp-thm13 --width 256 ...`) rather
// than `dpkit bound NAME --set key=value`: each bound then has its own --help (its formula, its
// parameters with their defaults and constraints, an example), CLI11 checks each value as it is
// parsed, and the error messages name the flag. The sub-subcommands are generated from one
// table (`catalogue()`, from the families' tables in bound_kan.cpp, bound_longtail.cpp and
// bound_nonconvex.cpp): a parameter is declared once (flag, help, default, validator) and read
// back by key, so a bound costs a table entry and an evaluation function. Flags carry the
// library's field names ('batch_size' -> --batch-size), so a library message about a field
// reaches the user as a message about the flag (main.cpp's library_reason). Unknown bound names
// and misspelt flags get a "did you mean" suggestion (vocabulary.hpp), which CLI11 2.1 lacks.
//
// Sources name the papers by the keys of docs/references.md (e.g. "WSK+26, Thm C.13"), as the
// library's `source` strings do; --list and each bound's notes give the full citation.
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "bound_catalogue.hpp"
#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/core/parse.hpp"
#include "dpkit/risk/kan_bounds.hpp"
#include "dpkit/risk/longtail_bounds.hpp"
#include "dpkit/risk/mlp_bounds.hpp"
#include "dpkit/risk/nonconvex_bounds.hpp"
#include "dpkit/learners/longtail.hpp"
#include "vocabulary.hpp"

namespace dpkit::cli {
namespace bound_catalogue {

// ---- the papers ---------------------------------------------------------------------------------

namespace {

constexpr paper_info kPapers[] = {
    {"WSK+26", "Wang et al. 2026 (WSK+26; KANs, correlated-noise DP-SGD)",
     "WSK+26: Wang, Schuchardt, Kalinin, Zhou, Fellenz, Lampert & Kloft (2026), \"Population "
     "Risk Bounds for Kolmogorov-Arnold Networks Trained by DP-SGD with Correlated Noise\", "
     "arXiv:2605.12648"},
    {"SWX+23", "Shen et al. 2023 (SWX+23; DP non-convex learning)",
     "SWX+23: Shen, Wang, Xiang, Ying & Wang (2023), \"Differentially Private Non-convex "
     "Learning for Multi-layer Neural Networks\", arXiv:2310.08425"},
    {"BSA24", "Bok, Su & Altschuler 2024 (BSA24; shifted interpolation)",
     "BSA24: Bok, Su & Altschuler (2024), \"Shifted Interpolation for Differential Privacy\", "
     "ICML 2024, arXiv:2403.00278"},
    {"ZXD+26", "Zhang et al. 2026 (ZXD+26; long-tailed memorisation)",
     "ZXD+26: Zhang, Xie, Ding, Fu, Liu & Wang (2026), \"Understanding the Impact of "
     "Differentially Private Training on Memorization of Long-Tailed Data\", arXiv:2602.03872"},
    {"LKSP25", "Lin et al. 2025 (LKSP25; noisy SGD on least squares)",
     "LKSP25: Lin, Kolaczyk, Smith & Paquette (2025), \"High-Dimensional Privacy-Utility "
     "Dynamics of Noisy Stochastic Gradient Descent on Least Squares\", arXiv:2510.16687"},
};

// ---- parameters
// -----------------------------------------------------------------------------------

}  // namespace

const paper_info& paper(std::string_view id) {
  for (const paper_info& p : kPapers)
    if (p.id == id) return p;
  return kPapers[0];
}

CLI::Validator number(std::function<bool(double)> ok,
                      const std::string& constraint,
                      const std::vector<std::string>& words) {
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
        // Text beyond double precision says so ("--eta 1e-308" once read "is 1e-308, but must
        // be a finite number > 0").
        if (std::string m = out_of_range(s, full); !m.empty()) return m;
        const auto v = parse_finite(s);
        return v && ok(*v) ? std::string() : "is " + s + ", but must be " + full;
      },
      relation + also, "number");
}

CLI::Validator positive(const std::vector<std::string>& words) {
  return number([](double v) { return v > 0; }, "a finite number > 0", words);
}
CLI::Validator nonnegative(const std::vector<std::string>& words) {
  return number([](double v) { return v >= 0; }, "a finite number >= 0", words);
}
CLI::Validator open_unit(const std::vector<std::string>& words) {
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

CLI::Validator count_list() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        const std::string bad = "is " + s + ", but must be 2 to " +
                                std::to_string(risk::kLargestLongtailClasses) +
                                " integers in [1, 1e9] separated by commas (e.g. 50,50,5)";
        std::size_t n = 0, start = 0;
        while (start <= s.size()) {
          const std::size_t comma = std::min(s.find(',', start), s.size());
          const auto v = parse_finite(s.substr(start, comma - start));
          if (!v || *v < 1 || *v != std::floor(*v) || *v > 1e9) return bad;
          ++n;
          start = comma + 1;
        }
        return n >= 2 && n <= risk::kLargestLongtailClasses ? std::string() : bad;
      },
      "2 to 100 integers in [1, 1e9], comma-separated", "count_list");
}

std::vector<double> parse_list(const std::string& s) {
  std::vector<double> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    const std::size_t comma = std::min(s.find(',', start), s.size());
    out.push_back(parse_double(s.substr(start, comma - start)).value());  // checked by count_list
    start = comma + 1;
  }
  return out;
}

param integer(std::string key, std::string help, long long def, long long lo, long long hi) {
  return {std::move(key),
          param_type::integer,
          std::move(help),
          std::to_string(def),
          integer_at_least(lo, hi),
          {},
          ""};
}
param real(std::string key, std::string help, std::string def, CLI::Validator check) {
  return {
      std::move(key), param_type::real, std::move(help), std::move(def), std::move(check), {}, ""};
}
param choice(std::string key, std::string help, std::string def, std::vector<std::string> values) {
  return {std::move(key),
          param_type::choice,
          std::move(help),
          std::move(def),
          CLI::Validator(),
          std::move(values),
          ""};
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

// ---- evaluations and the catalogue
// ---------------------------------------------------------------

evaluation single(const risk::risk_bound& r) {
  evaluation e;
  e.totals = {{"", r}};
  e.conditions = r.conditions;
  return e;
}

}  // namespace bound_catalogue

namespace {

using namespace bound_catalogue;

const std::string kStatusHelp =
    "Status of a result: 'explicit bound' (every constant explicit, every checked hypothesis\n"
    "holds: a bound, with the stated probability); 'up to hidden constants' (every checked\n"
    "hypothesis holds, but the paper states the bound with unspecified constants: the --c-*\n"
    "flags, default 1, which is NOT a proven value; read slopes and ratios, not absolute\n"
    "values); 'condition violated' (HYPOTHESIS FAILS: a checked hypothesis does not hold; the\n"
    "value is the formula evaluated at the inputs, NOT a bound).\n"
    "Exit codes: 0 evaluated (also when a hypothesis fails: the output says so), 1 the value\n"
    "overflows double precision (never reported as a bound), 2 bad input or usage.";

const std::vector<bound_spec>& catalogue() {
  static const std::vector<bound_spec> all = [] {
    std::vector<bound_spec> v;
    for (auto&& part : {kan_bounds(), longtail_bounds(), mlp_bounds(), nonconvex_bounds()})
      v.insert(v.end(), part.begin(), part.end());
    return v;
  }();
  return all;
}

// ---- output
// --------------------------------------------------------------------------------------

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
    } else if (const auto v = parse_finite(a.text(p.key)); v && p.type == param_type::real) {
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
      failed += (failed.empty() ? "" : "; ") + c.name;
      ++n_failed;
    }
  // A value that is not a finite double is never labelled a bound (an overflow: the inputs are
  // far outside any regime the theorem is about).
  for (const auto& [part, r] : e.totals) {
    if (std::isnan(r.value))  // was printed "-nan ... (it overflows)"
      throw numerical_failure("the value of " + spec.name +
                              " could not be computed at these inputs (an intermediate quantity "
                              "leaves double precision, e.g. inf/inf, 0/0 or inf - inf; the "
                              "value itself may be finite): nothing to report");
    if (!std::isfinite(r.value))
      throw numerical_failure("the value of " + spec.name + " is " + format_number(r.value) +
                              " at these inputs (it divides by a quantity that is 0 here, or it "
                              "or an intermediate quantity overflows double precision): nothing "
                              "to report");
  }
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
    const std::string source = r.source;
    for (const risk::bound_term& t : r.terms)
      rep.results.push_back({{"row", "term"},
                             {"name", t.name},
                             {"value", number_or_word(t.value)},
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
                           {"name", c.name},
                           {"value", number_or_word(c.value)},
                           {"limit", number_or_word(c.limit)},
                           {"status", c.holds ? "holds" : "FAILS"},
                           {"source", c.source},
                           {"holds", c.holds}});
  for (const auto& [name, v] : e.derived)
    rep.results.push_back({{"row", "derived"},
                           {"name", name},
                           {"value", number_or_word(v)},
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

  rep.title =
      spec.name + ": " + spec.quantity + "\n" + std::string(pp.short_name) + ", " + spec.theorem;
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
                        conditions(e.conditions.size()) + (n_failed == 1 ? " does" : " do") +
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
  for (const std::string& n : e.notes) rep.notes.push_back(n);
  rep.notes.push_back("Paper: " + std::string(pp.citation) + ", " + spec.theorem + ".");
  return rep;
}

// ---- --list and suggestions
// ----------------------------------------------------------------------

/// " (did you mean X?)" for the closest candidate (vocabulary.hpp), or "".
std::string suggestion(const std::string& word, const std::vector<std::string>& candidates) {
  const std::string best = closest(word, candidates);
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
      const auto number_default = parse_finite(p.def);
      if (p.type == param_type::integer)
        defaults[p.key] = parse_integer(p.def).value();
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
      "Papers (docs/references.md lists every work cited):"};
  for (const char* id : {"WSK+26", "SWX+23", "ZXD+26"})
    rep.notes.push_back("  " + std::string(paper(id).citation));
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
      "Bounds: " +
      names +
      ".\n"
      "Examples:\n"
      "  dpkit bound --list\n"
      "  dpkit bound mlp-thm13 --dataset-size 60000 --width 256 --delta 1e-10 --approximation "
      "0.05\n"
      "  dpkit bound kan-thm4.1 --kappa 2 --lambda 0.9 --format json\n"
      "  dpkit bound longtail-thm3-tail --class-counts 50,50,5 --class 2 --tail-threshold 3\n"
      "  dpkit bound nonconvex-thm1 --dataset-size 100000 --epsilon 0.1\n"
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
          o->type_name(p.type == param_type::integer ? "N"
                       : p.type == param_type::list  ? "LIST"
                                                     : "X");
        }
      }
      if (!p.group.empty()) o->group(p.group);
    }
    add_output_options(sub, state->output);
    sub->allow_extras();
    const std::string where = "dpkit bound " + spec.name;
    sub->footer(std::string(paper(spec.paper_id).short_name) + ", " + spec.theorem +
                ". Bounds: " + spec.quantity + ".\n" + spec.formula + "\nExample:\n  " + where +
                " " + spec.example + "\n" + kStatusHelp);
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
