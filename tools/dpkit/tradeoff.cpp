// dpkit tradeoff — the (α, β) tradeoff curve of the mechanism (its f-DP guarantee): at each
// false-positive rate α of a membership test, the smallest false-negative rate β any test can
// have, and so the largest true-positive rate 1 − β.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <memory>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/accounting/run_tradeoff.hpp"
#include "dpkit/core/grid.hpp"
#include "dpkit/core/progress.hpp"
#include "privacy_rows.hpp"
#include "run_options.hpp"

namespace dpkit::cli {
namespace {

struct tradeoff_options {
  run_options run;
  std::vector<std::string> alpha;
  long long points = 101;
  double accuracy = 1e-3;
  long long max_fft_size = 1LL << 24;
  bool gdp_mu = false;
  double fpr_min = 1e-12;
  output_options output;
  CLI::App* app = nullptr;
};

const run_requirements kTradeoffNeeds{true, true, true, false, "dpkit tradeoff"};

// --gdp-mu: one row, the certified bracket on the GDP μ the run is closest to.
int run_gdp_mu(const tradeoff_options& o,
               const resolved_run& m,
               const accounting::pld_options& pld) {
  if (!o.alpha.empty()) throw usage_error("--gdp-mu takes --fpr-min, not --alpha");
  const std::size_t points =
      o.app->count("--points") > 0 ? static_cast<std::size_t>(o.points) : 4000;
  const accounting::gdp_mu_result g = [&] {
    announce_pld_cost("dpkit tradeoff", m.run,
                      {"pld", pld.relative_accuracy, static_cast<long long>(pld.max_fft_size)});
    const elapsed_ticker ticker("dpkit tradeoff");
    return accounting::run_gdp_mu(m.run, o.fpr_min, points, pld);
  }();
  report r;
  r.tool = "dpkit tradeoff";
  r.parameters = m.parameters;
  r.parameters["gdp_mu"] = true;
  r.parameters["fpr_min"] = o.fpr_min;
  r.parameters["points"] = points;
  r.title = "Gaussian-DP mu closest to " + m.description +
            ": the smallest mu with G(mu) below the run's tradeoff curve at false-positive "
            "rates in [" +
            format_number(o.fpr_min) + ", 0.5]";
  for (const std::string& line : m.derivation) r.title += "\n" + line;
  r.columns = {"mu", "mu_lower", "mu_upper", "kind", "fpr_min", "fpr_at_max"};
  r.results.push_back({{"mu", g.mu_upper},
                       {"mu_lower", g.mu_lower},
                       {"mu_upper", g.mu_upper},
                       {"kind", g.exact ? "exact" : "certified bracket"},
                       {"fpr_min", g.alpha_min},
                       {"fpr_at_max", g.alpha_at_max},
                       {"method", g.method}});
  r.notes = {
      g.method,
      "mu_upper: the run's tradeoff curve is above G(mu_upper) at every false-positive rate in",
      "the range (it is mu_upper-GDP there); mu_lower: at fpr_at_max no G(mu) with smaller mu",
      "is below it. dp_accounting's get_gdp_parameter_estimate is a grid estimate of the same",
      "quantity (range [1e-12, 0.5]). Below fpr_min a subsampled run's curve departs from any",
      "G(mu), so the range is part of the answer."};
  // A failed search prints no table, as the curve below: its mu bracket is not certified.
  if (g.termination == termination_type::failure) {
    std::cerr << "dpkit tradeoff: " << g.message << "\n";
    return kExitNumericalFailure;
  }
  emit(r, o.output);
  if (g.termination == termination_type::max_iterations)
    std::cerr << "dpkit tradeoff: note: " << g.message << "\n";
  return kExitSuccess;
}

int run(const tradeoff_options& o) {
  const resolved_run m = resolve_run(o.run, kTradeoffNeeds);
  accounting::pld_options pld;
  pld.relative_accuracy = o.accuracy;
  pld.max_fft_size = static_cast<std::size_t>(o.max_fft_size);
  if (o.gdp_mu) return run_gdp_mu(o, m, pld);
  if (o.app->count("--fpr-min") > 0) throw usage_error("--fpr-min goes with --gdp-mu");
  if (!o.alpha.empty() && o.app->count("--points") > 0)
    throw usage_error("--points and --alpha both give the alpha grid: use one");
  std::vector<double> alphas =
      o.alpha.empty() ? linspace(0.0, 1.0, static_cast<std::size_t>(o.points))
                      : parse_number_list("--alpha", o.alpha, number_kind::probability, 10000000);
  const accounting::run_tradeoff_result t = [&] {
    announce_pld_cost("dpkit tradeoff", m.run,
                      {"pld", pld.relative_accuracy, static_cast<long long>(pld.max_fft_size)});
    const elapsed_ticker ticker("dpkit tradeoff");
    return accounting::run_tradeoff(m.run, alphas, pld);
  }();
  report r;
  r.tool = "dpkit tradeoff";
  r.parameters = m.parameters;
  if (o.alpha.empty()) r.parameters["points"] = o.points;
  r.title = "tradeoff curve of " + m.description +
            ": the smallest false-negative rate beta of any membership test with false-positive "
            "rate alpha";
  for (const std::string& line : m.derivation) r.title += "\n" + line;
  if (t.exact) {
    r.columns = {"alpha", "beta", "tpr_upper"};
    for (std::size_t i = 0; i < alphas.size(); ++i)
      r.results.push_back(
          {{"alpha", alphas[i]}, {"beta", t.beta_lower[i]}, {"tpr_upper", t.power_upper[i]}});
    r.notes = {
        t.method, "No membership test distinguishes neighbouring datasets better than this curve:",
        "at false-positive rate alpha its true-positive rate is at most tpr_upper = 1 - beta",
        "(formed without cancellation: not 0 where beta rounds to 1)."};
  } else {
    r.parameters["accuracy"] = o.accuracy;
    r.columns = {"alpha", "beta", "beta_upper", "tpr_upper", "tpr_lower"};
    double width = 0;
    for (std::size_t i = 0; i < alphas.size(); ++i) {
      r.results.push_back({{"alpha", alphas[i]},
                           {"beta", t.beta_lower[i]},
                           {"beta_upper", t.beta_upper[i]},
                           {"tpr_upper", t.power_upper[i]},
                           {"tpr_lower", t.power_lower[i]}});
      width = std::max(width, t.beta_upper[i] - t.beta_lower[i]);
    }
    r.notes = {
        t.method,
        "beta is a certified lower bound on the curve (the f-DP guarantee: no test does "
        "better), so",
        "tpr_upper = 1 - beta bounds the true-positive rate of every test at false-positive "
        "rate alpha",
        "(formed without cancellation: not 0 where beta rounds to 1);",
        "beta_upper is a certified upper bound (the true curve lies between; tpr_lower = 1 - "
        "beta_upper).",
        "Largest gap: " + format_number(width) +
            ". Poisson sampling: the symmetrised curve of both neighbouring directions."};
  }
  // A failed computation prints no table: its bounds are not certified (a probe's -s 1e200
  // printed 101 rows before the failure).
  if (t.termination == termination_type::failure) {
    std::cerr << "dpkit tradeoff: " << t.message << "\n";
    return kExitNumericalFailure;
  }
  emit(r, o.output);
  if (t.termination == termination_type::max_iterations)
    std::cerr << "dpkit tradeoff: note: " << t.message << "\n";
  return kExitSuccess;
}

}  // namespace

void register_tradeoff(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<tradeoff_options>();
  CLI::App* sub = app.add_subcommand(
      "tradeoff",
      "The tradeoff curve (alpha, beta) of the mechanism: its f-DP guarantee, and the largest "
      "true-positive rate of any membership test at each false-positive rate");
  o->app = sub;
  add_run_options(sub, o->run, kTradeoffNeeds);
  sub->add_option("--alpha", o->alpha,
                  "The false-positive rates alpha in [0, 1]: values, a list, or a range, e.g. "
                  "1e-10:1:log201 (log-spaced, for the low-FPR regime) or 0:1:0.01")
      ->type_name("LIST");
  sub->add_option("--points", o->points,
                  "Without --alpha: this many equally spaced alpha in [0, 1], at most 1e7")
      ->check(integer_at_least(2, 10000000))
      ->type_name("N")
      ->capture_default_str();
  sub->add_option("--accuracy", o->accuracy,
                  "Composed subsampled runs: target width of the bracket relative to the largest "
                  "delta (PLD/FFT)")
      ->check(pld_accuracy_validator())
      ->type_name("A")
      ->capture_default_str();
  sub->add_flag("--gdp-mu", o->gdp_mu,
                "Instead of the curve: the Gaussian-DP mu the run is closest to (the smallest mu "
                "with G(mu) below the curve at every false-positive rate in [--fpr-min, 0.5]), "
                "certified from both sides; --points sets its grid (default 4000)");
  sub->add_option("--fpr-min", o->fpr_min,
                  "With --gdp-mu: the smallest false-positive rate of the range")
      ->check(real_in_open_interval(0, 0.5))
      ->type_name("A")
      ->capture_default_str();
  add_max_fft_size_option(sub, o->max_fft_size);
  add_output_options(sub, o->output);
  sub->footer(
      "Examples:\n"
      "  dpkit tradeoff --mu 1 --points 201 --format csv --output g1.csv\n"
      "  dpkit tradeoff --noise-multiplier 1 --sampling-rate 0.01 --steps 10000 "
      "--alpha 1e-10:1:log101\n"
      "  dpkit tradeoff --noise-multiplier 1 --sampling-rate 0.01 --steps 10000 --gdp-mu\n"
      "  dpkit tradeoff --noise-multiplier 0.8 --sampling-rate 0.1 --sampling "
      "without-replacement --steps 1\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
