// dpkit tradeoff — the (α, β) tradeoff curve of the mechanism (its f-DP guarantee).
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/accounting/run_tradeoff.hpp"
#include "dpkit/core/grid.hpp"

namespace dpkit::cli {
namespace {

struct tradeoff_options {
  mechanism_options mechanism;
  long long points = 101;
  double accuracy = 1e-3;
  long long max_fft_size = 1LL << 24;
  output_options output;
};

int run(const tradeoff_options& o) {
  const resolved_mechanism m = resolve_mechanism(o.mechanism);
  accounting::pld_options pld;
  pld.relative_accuracy = o.accuracy;
  pld.max_fft_size = static_cast<std::size_t>(o.max_fft_size);
  const std::vector<double> alphas = linspace(0.0, 1.0, static_cast<std::size_t>(o.points));
  const accounting::run_tradeoff_result t = accounting::run_tradeoff(m.run, alphas, pld);
  report r;
  r.tool = "dpkit tradeoff";
  r.parameters = m.parameters;
  r.parameters["points"] = o.points;
  r.title = "tradeoff curve of " + m.description +
            ": the smallest type II error beta of any test with type I error alpha";
  if (t.exact) {
    r.columns = {"alpha", "beta"};
    for (std::size_t i = 0; i < alphas.size(); ++i)
      r.results.push_back({{"alpha", alphas[i]}, {"beta", t.beta_lower[i]}});
    r.notes = {t.method,
               "No membership test distinguishes neighbouring datasets better than this curve."};
  } else {
    r.parameters["accuracy"] = o.accuracy;
    r.columns = {"alpha", "beta", "beta_upper"};
    double width = 0;
    for (std::size_t i = 0; i < alphas.size(); ++i) {
      r.results.push_back(
          {{"alpha", alphas[i]}, {"beta", t.beta_lower[i]}, {"beta_upper", t.beta_upper[i]}});
      width = std::max(width, t.beta_upper[i] - t.beta_lower[i]);
    }
    r.notes = {t.method,
               "beta is a certified lower bound on the curve (the f-DP guarantee: no test does "
               "better);",
               "beta_upper a certified upper bound (the true curve lies between). Largest gap: " +
                   format_number(width) + ".",
               "Poisson sampling: the symmetrised curve of both neighbouring directions."};
  }
  emit(r, o.output);
  if (t.termination == termination_type::max_iterations)
    std::cerr << "dpkit tradeoff: note: " << user_message(t.message, nullptr) << "\n";
  if (t.termination == termination_type::failure) {
    std::cerr << "dpkit tradeoff: " << user_message(t.message, nullptr) << "\n";
    return kExitNumericalFailure;
  }
  return kExitSuccess;
}

}  // namespace

void register_tradeoff(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<tradeoff_options>();
  CLI::App* sub = app.add_subcommand(
      "tradeoff",
      "The tradeoff curve (alpha, beta) of the mechanism: its f-DP guarantee (exact, or "
      "certified bounds from both sides for composed subsampled runs)");
  add_mechanism_options(sub, o->mechanism);
  sub->add_option("--points", o->points, "Number of equally spaced alpha in [0, 1], at most 1e7")
      ->check(integer_at_least(2, 10000000))
      ->type_name("N")
      ->capture_default_str();
  sub->add_option("--accuracy", o->accuracy,
                  "Composed subsampled runs: target width of the bracket relative to the largest "
                  "delta (PLD/FFT)")
      ->check(pld_accuracy_validator())
      ->type_name("A")
      ->capture_default_str();
  add_max_fft_size_option(sub, o->max_fft_size);
  add_output_options(sub, o->output);
  sub->footer(
      "Examples (plot with gnuplot):\n"
      "  dpkit tradeoff --mu 1 --points 201 --format csv --output g1.csv\n"
      "  dpkit tradeoff --noise-multiplier 0.8 --sampling-rate 0.1 --sampling "
      "without-replacement\n"
      "  dpkit tradeoff --noise-multiplier 1 --sampling-rate 0.01 --steps 1000 --format csv\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
