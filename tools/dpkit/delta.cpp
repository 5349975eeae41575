// dpkit delta — the δ for which the training run is (ε, δ)-DP at a given ε (privacy profile).
#include <iostream>
#include <memory>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"

namespace dpkit::cli {
namespace {

struct delta_options {
  mechanism_options mechanism;
  double epsilon = 0;
  accountant_options accountant;
  output_options output;
  const CLI::App* app = nullptr;  ///< this subcommand (flag names for messages)
};

int run(const delta_options& o) {
  const resolved_mechanism m = resolve_mechanism(o.mechanism);
  report r;
  r.tool = "dpkit delta";
  r.parameters = m.parameters;
  r.parameters["epsilon"] = o.epsilon;
  r.parameters["accountant"] = o.accountant.accountant;
  r.parameters["accuracy"] = o.accountant.accuracy;
  r.columns = {"accountant", "delta", "kind", "delta_lower", "delta_upper", "log_delta", "method"};
  r.title = "delta at epsilon = " + format_number(o.epsilon) + " for " + m.description;
  const std::vector<accounting::accountant_type> accountants = selected_accountants(o.accountant);
  std::size_t answered = 0;
  std::vector<std::string> notes;  // printed after the output is written (one line on failure)
  std::string failure;
  for (accounting::accountant_type a : accountants) {
    accounting::privacy_estimate e;
    try {
      e = accounting::estimate_delta(m.run, o.epsilon, a, pld_options_of(o.accountant));
    } catch (const std::exception& error) {
      if (accountants.size() == 1) throw;  // as dpkit epsilon: a row that says so, with all
      json row = unavailable_row(a, "delta", user_message(error.what(), o.app));
      row["epsilon"] = o.epsilon;
      r.results.push_back(row);
      continue;
    }
    json row = estimate_row(e, "delta");
    row["epsilon"] = o.epsilon;
    r.results.push_back(row);
    if (row.at("kind") != "unavailable") ++answered;
    if (e.termination == termination_type::failure) failure = e.message;
    if (e.termination != termination_type::converged && !e.message.empty())
      notes.push_back(e.message);
  }
  if (answered == 0 && failure.empty()) failure = "no accountant could answer for this run";
  r.notes = {"upper-bound: the run is (epsilon, delta)-DP with this delta; delta_lower (pld): no",
             "smaller delta holds. log_delta stays finite where delta underflows."};
  // A CSV has no notes: an accountant that could not answer says why in a message column.
  bool unavailable = false;
  for (const json& row : r.results) unavailable = unavailable || row.at("kind") == "unavailable";
  if (unavailable && o.output.format == "csv") r.columns.push_back("message");
  emit(r, o.output);
  for (const std::string& n : notes)
    std::cerr << "dpkit delta: note: " << user_message(n, o.app) << "\n";
  if (answered == 0) {
    std::cerr << "dpkit delta: " << user_message(failure, o.app) << "\n";
    return kExitNumericalFailure;
  }
  return kExitSuccess;
}

}  // namespace

void register_delta(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<delta_options>();
  CLI::App* sub = app.add_subcommand(
      "delta", "The delta such that the training run is (epsilon, delta)-DP (its privacy profile)");
  add_mechanism_options(sub, o->mechanism);
  add_epsilon_option(sub, o->epsilon);
  add_accountant_options(sub, o->accountant, /*with_all=*/true);
  add_output_options(sub, o->output);
  o->app = sub;
  sub->footer(
      "Examples:\n"
      "  dpkit delta --noise-multiplier 1 --sampling-rate 0.01 --steps 10000 --epsilon 4\n"
      "  dpkit delta --mu 1 --epsilon 2\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
