// dpkit epsilon — the smallest ε such that the training run is (ε, δ)-DP; with several step
// counts (or epochs), ε against the length of the run.
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

struct epsilon_options {
  run_options run;
  strategy_options strategy;
  double delta = 0;
  accountant_options accountant;
  output_options output;
  const CLI::App* app = nullptr;  ///< this subcommand (flag names for messages)
};

int run(const epsilon_options& o) {
  const run_requirements needs{true, true, true, true, "dpkit epsilon", true};
  if (strategy_given(o.strategy))
    return strategy_privacy("dpkit epsilon", o.run, needs, o.strategy, "epsilon", o.delta,
                            o.accountant, o.output);
  const resolved_run m = resolve_run(o.run, needs);
  report r;
  r.tool = "dpkit epsilon";
  r.parameters = m.parameters;
  r.parameters["delta"] = o.delta;
  r.parameters["accountant"] = o.accountant.accountant;
  r.parameters["accuracy"] = o.accountant.accuracy;
  r.title = "epsilon at delta = " + format_number(o.delta) + " for " + m.description;
  for (const std::string& line : m.derivation) r.title += "\n" + line;
  const privacy_query q{"epsilon", o.delta, "delta", m.noise_scale};
  const query_outcome out = privacy_rows(m, q, o.accountant, o.app, o.output.format, r);
  r.notes = privacy_legend(q, m.run, r.results);
  emit(r, o.output);
  return finish("dpkit epsilon", out);
}

}  // namespace

void register_epsilon(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<epsilon_options>();
  CLI::App* sub = app.add_subcommand(
      "epsilon", "The smallest epsilon such that the training run is (epsilon, delta)-DP");
  add_run_options(sub, o->run, {true, true, true, true, "dpkit epsilon", true});
  add_delta_option(sub, o->delta, /*required=*/true);
  add_strategy_options(sub, o->strategy);
  add_accountant_options(sub, o->accountant, /*with_all=*/true);
  add_output_options(sub, o->output);
  o->app = sub;
  sub->footer(
      "The run: a noise multiplier; a sampling rate, or batch and dataset size, or the full\n"
      "batch; a number of steps, or of epochs (several give a curve). Nothing is assumed.\n"
      "Examples:\n"
      "  dpkit epsilon --dataset-size 60000 --batch-size 256 --epochs 60 --noise-multiplier 1.1 "
      "--delta 1e-5\n"
      "  dpkit epsilon --dataset-size 60000 --batch-size 256 --epochs 60 --noise-multiplier 1.1 "
      "--delta 1e-5 --per-epoch\n"
      "  dpkit epsilon -s 1 -p 0.01 -i 1000:20000:1000 -d 1e-5 --accountant all --format csv\n"
      "  dpkit epsilon --phase noise-multiplier=2,sampling-rate=0.01,steps=5000 "
      "--phase noise-multiplier=1,sampling-rate=0.02,steps=2000 --delta 1e-5\n"
      "  dpkit epsilon --noise-multiplier 20 --full-batch --steps 400 --delta 1e-5\n"
      "  dpkit epsilon --mu 1 --delta 1e-5\n"
      "  dpkit epsilon --strategy toeplitz:1,0.5,0.25 --min-separation 3 --sampling-rate 0.01 "
      "--steps 999 --noise-multiplier 1 --delta 1e-5\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
