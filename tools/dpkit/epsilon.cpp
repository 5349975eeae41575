// dpkit epsilon — the smallest ε such that the training run is (ε, δ)-DP.
#include <iostream>
#include <memory>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"

namespace dpkit::cli {
namespace {

struct epsilon_options {
  mechanism_options mechanism;
  double delta = 0;
  accountant_options accountant;
  output_options output;
  const CLI::App* app = nullptr;  ///< this subcommand (flag names for messages)
};

int run(const epsilon_options& o) {
  const resolved_mechanism m = resolve_mechanism(o.mechanism);
  report r;
  r.tool = "dpkit epsilon";
  r.parameters = m.parameters;
  r.parameters["delta"] = o.delta;
  r.parameters["accountant"] = o.accountant.accountant;
  r.parameters["accuracy"] = o.accountant.accuracy;
  r.columns = {"accountant", "epsilon", "kind", "epsilon_lower", "epsilon_upper", "method"};
  r.title = "epsilon at delta = " + format_number(o.delta) + " for " + m.description;
  std::string failure;
  const std::vector<accounting::accountant_type> accountants = selected_accountants(o.accountant);
  std::size_t answered = 0;
  std::vector<std::string> notes;  // printed after the output is written (one line on failure)
  for (accounting::accountant_type a : accountants) {
    accounting::privacy_estimate e;
    try {
      e = accounting::estimate_epsilon(m.run, o.delta, a, pld_options_of(o.accountant));
    } catch (const std::exception& error) {
      // One accountant out of its range (the CLT's μ beyond 1e6, an FFT beyond the memory
      // limit): with --accountant all it gets a row that says so, and the others still answer.
      if (accountants.size() == 1) throw;
      json row = unavailable_row(a, "epsilon", user_message(error.what(), o.app));
      row["delta"] = o.delta;
      r.results.push_back(row);
      continue;
    }
    json row = estimate_row(e, "epsilon");
    row["delta"] = o.delta;
    r.results.push_back(row);
    if (row.at("kind") != "unavailable") ++answered;
    if (e.termination == termination_type::failure) failure = e.message;
    if (e.termination == termination_type::max_iterations) notes.push_back(e.message);
  }
  if (answered == 0 && failure.empty()) failure = "no accountant could answer for this run";
  r.notes = {
      "upper-bound: the run is (epsilon, delta)-DP with this epsilon. epsilon_lower (pld): no",
      "smaller epsilon can hold — together a certified bracket. approximation (clt): no",
      "guarantee in either direction. Poisson sampling: add/remove neighbours (the worse",
      "direction is reported); without-replacement: replace-one neighbours (docs/accounting.md)."};
  // A CSV has no notes: an accountant that could not answer says why in a message column.
  bool unavailable = false;
  for (const json& row : r.results) unavailable = unavailable || row.at("kind") == "unavailable";
  if (unavailable && o.output.format == "csv") r.columns.push_back("message");
  emit(r, o.output);
  for (const std::string& n : notes)
    std::cerr << "dpkit epsilon: note: " << user_message(n, o.app) << "\n";
  if (!failure.empty()) {
    std::cerr << "dpkit epsilon: " << (answered > 0 ? "note: " : "") << user_message(failure, o.app)
              << "\n";
    // With --accountant all, one failed accountant leaves the others' answers valid.
    if (answered == 0) return kExitNumericalFailure;
  }
  return kExitSuccess;
}

}  // namespace

void register_epsilon(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<epsilon_options>();
  CLI::App* sub = app.add_subcommand(
      "epsilon", "The smallest epsilon such that the training run is (epsilon, delta)-DP");
  add_mechanism_options(sub, o->mechanism);
  add_delta_option(sub, o->delta, /*required=*/true);
  add_accountant_options(sub, o->accountant, /*with_all=*/true);
  add_output_options(sub, o->output);
  o->app = sub;
  sub->footer(
      "Examples:\n"
      "  dpkit epsilon --noise-multiplier 1 --sampling-rate 0.01 --steps 10000 --delta 1e-5\n"
      "  dpkit epsilon --noise-multiplier 1 --sampling-rate 0.01 --steps 10000 --delta 1e-5 "
      "--accountant all --format json\n"
      "  dpkit epsilon --mu 1 --delta 1e-5\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
