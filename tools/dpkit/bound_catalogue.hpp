// The catalogue of `dpkit bound`: what a bound's table entry is made of (its parameters, their
// validators, the values of one invocation, the evaluation it hands to the report) and the
// families' tables, one file per paper (bound_kan.cpp, bound_longtail.cpp, bound_nonconvex.cpp);
// bound.cpp turns the catalogue into subcommands and reports. Internal to the dpkit program.
#pragma once

#include <CLI/CLI.hpp>
#include <cmath>
#include <cstdlib>
#include <functional>
#include <initializer_list>
#include <map>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "dpkit/core/parse.hpp"
#include "dpkit/risk/kan_bounds.hpp"  // risk::risk_bound, condition, bound_status

namespace dpkit::cli::bound_catalogue {

/// One of the five papers: how user-facing text names it.
struct paper_info {
  std::string_view id;          ///< the key of docs/references.md, as the library's sources use it
  std::string_view short_name;  ///< authors, year, key and topic, for titles
  std::string_view citation;    ///< key, authors, year, title and arXiv id, for notes
};
/// The paper with this key (the first paper if unknown).
const paper_info& paper(std::string_view id);

/// The help group of the hidden-constant flags (--c-*), shared by every family.
inline constexpr const char* kHidden = "Hidden constants (unknown; default 1 is not a proven value)";

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

/// Comma-separated numbers (already validated).
std::vector<double> parse_list(const std::string& s);

param integer(std::string key, std::string help, long long def, long long lo,
              long long hi = kMaxExactInteger);
param real(std::string key, std::string help, std::string def, CLI::Validator check);
param choice(std::string key, std::string help, std::string def, std::vector<std::string> values);
param flag(std::string key, std::string help);
std::vector<param> in_group(std::vector<param> ps, const std::string& group);
std::vector<param> join(std::initializer_list<std::vector<param>> parts);

/// A finite number satisfying `ok` ("must be <constraint>"), or one of `words`.
CLI::Validator number(std::function<bool(double)> ok,
                      const std::string& constraint,
                      const std::vector<std::string>& words = {});
CLI::Validator positive(const std::vector<std::string>& words = {});
CLI::Validator nonnegative(const std::vector<std::string>& words = {});
CLI::Validator open_unit(const std::vector<std::string>& words = {});
CLI::Validator left_open_unit();
CLI::Validator right_open_unit();
CLI::Validator any_finite();
/// --class-counts: two or more positive integers separated by commas.
CLI::Validator count_list();

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
    return parse_double(s).value();  // checked by the flag's validator
  }
  long long integer(const std::string& key) const { return parse_integer(text(key)).value(); }
  bool flag(const std::string& key) const { return flags_.at(key); }
  /// Sets `field` from the parameter when the bound has it.
  void maybe(const std::string& key, double& field) const {
    if (values_.count(key) > 0) field = real(key);
  }

 private:
  const std::map<std::string, std::string>& values_;
  const std::map<std::string, bool>& flags_;
};

/// What a bound's evaluation hands to the report: the totals (one, or two for the corollaries
/// with an optimisation and a population rate), every condition checked (the library's and the
/// ones the command adds), and derived quantities worth seeing.
struct evaluation {
  std::vector<std::pair<std::string, risk::risk_bound>> totals;
  std::vector<risk::condition> conditions;
  std::vector<std::pair<std::string, double>> derived;
  std::vector<std::string> notes;
};

/// One total and its conditions.
evaluation single(const risk::risk_bound& r);

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

/// The families' tables, in the order `dpkit bound --list` shows them.
std::vector<bound_spec> kan_bounds();        // bound_kan.cpp
std::vector<bound_spec> longtail_bounds();   // bound_longtail.cpp
std::vector<bound_spec> mlp_bounds();        // bound_nonconvex.cpp
std::vector<bound_spec> nonconvex_bounds();  // bound_nonconvex.cpp

}  // namespace dpkit::cli::bound_catalogue
