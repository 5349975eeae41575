// dpkit delta — the δ for which the training run is (ε, δ)-DP at a given ε (its privacy
// profile); with several step counts (or epochs), δ against the length of the run.
#include <iostream>
#include <memory>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "privacy_rows.hpp"
#include "run_options.hpp"
#include "strategy_rows.hpp"

namespace dpkit::cli {
namespace {

struct delta_options {
  run_options run;
  strategy_options strategy;
  double epsilon = 0;
  accountant_options accountant;
  output_options output;
  const CLI::App* app = nullptr;  ///< this subcommand (flag names for messages)
};

int run(const delta_options& o) {
  const run_requirements needs{true, true, true, true, "dpkit delta", true};
  if (strategy_given(o.strategy))
    return strategy_privacy("dpkit delta", o.run, needs, o.strategy, "delta", o.epsilon,
                            o.accountant, o.output);
  const resolved_run m = resolve_run(o.run, needs);
  report r;
  r.tool = "dpkit delta";
  r.parameters = m.parameters;
  r.parameters["epsilon"] = o.epsilon;
  r.parameters["accountant"] = o.accountant.accountant;
  r.parameters["accuracy"] = o.accountant.accuracy;
  r.title = "delta at epsilon = " + format_number(o.epsilon) + " for " + m.description;
  for (const std::string& line : m.derivation) r.title += "\n" + line;
  const privacy_query q{"delta", o.epsilon, "epsilon", m.noise_scale};
  const query_outcome out = privacy_rows(m, q, o.accountant, o.app, o.output.format, r);
  r.notes = privacy_legend(q, m.run, r.results);
  emit(r, o.output);
  return finish("dpkit delta", out);
}

}  // namespace

void register_delta(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<delta_options>();
  CLI::App* sub = app.add_subcommand(
      "delta", "The delta such that the training run is (epsilon, delta)-DP (its privacy profile)");
  add_run_options(sub, o->run, {true, true, true, true, "dpkit delta", true});
  add_epsilon_option(sub, o->epsilon);
  add_strategy_options(sub, o->strategy);
  add_accountant_options(sub, o->accountant, /*with_all=*/true);
  add_output_options(sub, o->output);
  o->app = sub;
  sub->footer(
      "The run is given as for dpkit epsilon (see its --help).\n"
      "Examples:\n"
      "  dpkit delta --noise-multiplier 1 --sampling-rate 0.01 --steps 10000 --epsilon 4\n"
      "  dpkit delta --dataset-size 60000 --batch-size 256 --epochs 1:60:1 --noise-multiplier 1.1 "
      "--epsilon 3\n"
      "  dpkit delta --mu 1 --epsilon 2\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
