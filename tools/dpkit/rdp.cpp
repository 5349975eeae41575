// dpkit rdp — the Rényi DP of a training run at given orders, ε_run(α), and with --delta the
// (ε, δ) those orders give: what accountants with a fixed order list report.
#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/accounting/rdp_accountant.hpp"
#include "run_options.hpp"

namespace dpkit::cli {
namespace {

struct rdp_options {
  run_options run;
  std::vector<std::string> orders;
  std::optional<double> delta;
  output_options output;
  CLI::App* app = nullptr;
};

const run_requirements kRdpNeeds{true, true, true, false, "dpkit rdp"};

int run(const rdp_options& o) {
  const resolved_run m = resolve_run(o.run, kRdpNeeds);
  std::vector<double> orders =
      parse_number_list("--orders", o.orders, number_kind::positive, 100000);
  for (double a : orders)
    if (!(a > 1 && a <= 1e6))
      throw usage_error("--orders has " + format_number(a) +
                        ", but every order must be in (1, 1e6]");
  report r;
  r.tool = "dpkit rdp";
  r.parameters = m.parameters;
  r.parameters["orders"] = orders;
  r.title = "Renyi DP of " + m.description + " at " + std::to_string(orders.size()) + " order" +
            (orders.size() == 1 ? "" : "s");
  for (const std::string& line : m.derivation) r.title += "\n" + line;
  r.columns = {"order", "rdp"};
  for (double a : orders)
    r.results.push_back({{"order", a}, {"rdp", accounting::run_rdp_upper(m.run, a)}});
  r.notes = {"rdp: the run is (order, rdp)-RDP (an upper bound: the exact value raised by 1e-10",
             "relative for rounding). RDP composes by adding: a later run's values add to these."};
  if (o.delta) {
    r.parameters["delta"] = *o.delta;
    const divergence::rdp_epsilon_result e =
        accounting::rdp_epsilon_at_orders(m.run, *o.delta, orders);
    r.columns.push_back("epsilon");
    r.columns.push_back("conversion");
    for (json& row : r.results) {
      // Each order on its own: the best of the three conversions there.
      const std::vector<double> one = {row.at("order").get<double>()};
      const divergence::rdp_epsilon_result x =
          accounting::rdp_epsilon_at_orders(m.run, *o.delta, one);
      row["epsilon"] = x.value;
      row["conversion"] = std::string(divergence::to_string(x.conversion));
      row["delta"] = *o.delta;
    }
    r.notes.push_back("epsilon: the (epsilon, delta = " + format_number(*o.delta) +
                      ") upper bound each order gives (best of three conversions).");
    r.notes.push_back("Best over these orders: epsilon = " + format_number(e.value) +
                      " at order " + format_number(e.alpha) + " (" +
                      std::string(divergence::to_string(e.conversion)) +
                      "); dpkit epsilon --accountant rdp searches all orders.");
  }
  emit(r, o.output);
  return kExitSuccess;
}

}  // namespace

void register_rdp(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<rdp_options>();
  CLI::App* sub = app.add_subcommand(
      "rdp",
      "The Renyi DP of the training run at given orders, and the (epsilon, delta) they give");
  o->app = sub;
  add_run_options(sub, o->run, kRdpNeeds);
  sub->add_option("--orders", o->orders,
                  "Renyi orders alpha in (1, 1e6]: values, a list, or a range (2:64:1, "
                  "1.1:10000:log50)")
      ->required()
      ->type_name("LIST");
  sub->add_option("-d,--delta", o->delta, "Also convert to (epsilon, delta) at this delta")
      ->check(delta_validator())
      ->type_name("D");
  add_output_options(sub, o->output);
  sub->footer(
      "Examples:\n"
      "  dpkit rdp --noise-multiplier 1.1 --sampling-rate 0.004 --steps 10000 --orders 2:64:1\n"
      "  dpkit rdp --noise-multiplier 1.3 --sampling-rate 0.0025 --steps 6000 "
      "--orders 1.5,2,4,8,16,19,32,64 --delta 1e-5\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
