// dpkit tradeoff — the (α, β) tradeoff curve G(μ) of the mechanism (f-DP).
#include <memory>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/core/grid.hpp"
#include "dpkit/divergence/gaussian_tradeoff.hpp"

namespace dpkit::cli {
namespace {

namespace dv = dpkit::divergence;

struct tradeoff_options {
  mechanism_options mechanism;
  long long points = 101;
  output_options output;
};

int run(const tradeoff_options& o) {
  const resolved_mechanism m = resolve_mechanism(o.mechanism);
  const dv::gaussian_tradeoff g(m.mu);
  report r;
  r.tool = "dpkit tradeoff";
  r.parameters = m.parameters;
  r.parameters["points"] = o.points;
  r.columns = {"alpha", "beta"};
  r.title = "tradeoff curve " + g.describe() + " of " + m.description +
            ": the smallest type II error beta of any test with type I error alpha";
  for (double alpha : linspace(0.0, 1.0, static_cast<std::size_t>(o.points)))
    r.results.push_back({{"alpha", alpha}, {"beta", g.beta(alpha)}});
  r.notes = {"G(mu)(alpha) = Phi(Phi^-1(1 - alpha) - mu) (seed 002 Def 2.4). The mechanism is",
             "f-DP with f = G(mu): no membership test does better than this curve."};
  emit(r, o.output);
  return kExitSuccess;
}

}  // namespace

void register_tradeoff(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<tradeoff_options>();
  CLI::App* sub = app.add_subcommand(
      "tradeoff", "The tradeoff curve (alpha, beta) of the mechanism: its exact f-DP guarantee");
  add_mechanism_options(sub, o->mechanism);
  sub->add_option("--points", o->points, "Number of equally spaced alpha in [0, 1]")
      ->check(integer_at_least(2))
      ->type_name("N")
      ->capture_default_str();
  add_output_options(sub, o->output);
  sub->footer(
      "Example (plot with gnuplot):\n"
      "  dpkit tradeoff --mu 1 --points 201 --format csv --output g1.csv\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
