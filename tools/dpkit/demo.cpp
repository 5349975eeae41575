// dpkit demo — the main job: privacy budgets of noisy gradient descent and DP-SGD, by every
// accountant, with their labels and timings. It grows as modules land.
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <memory>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/hsgd/law.hpp"
#include "dpkit/hsgd/privacy.hpp"
#include "dpkit/sim/data.hpp"
#include "dpkit/volterra/risk.hpp"
#include "dpkit/volterra/spectrum.hpp"

namespace dpkit::cli {
namespace {

struct demo_options {
  double delta = 1e-5;
  output_options output;
};

int run(const demo_options& o) {
  using accounting::sampling_scheme;
  struct scenario {
    const char* name;
    accounting::training_phase phase;
  };
  const scenario scenarios[] = {
      {"full-batch GD, sigma=30, T=1000", {30.0, 1.0, sampling_scheme::poisson, 1000}},
      {"DP-SGD, q=0.01, sigma=1, T=10000", {1.0, 0.01, sampling_scheme::poisson, 10000}},
      {"DP-SGD, q=0.01, sigma=2, T=10000", {2.0, 0.01, sampling_scheme::poisson, 10000}},
      {"fixed batch, q=0.01, sigma=2, T=10000",
       {2.0, 0.01, sampling_scheme::without_replacement, 10000}},
  };
  report r;
  r.tool = "dpkit demo";
  r.parameters = {{"delta", o.delta}};
  r.columns = {"run", "accountant", "epsilon", "kind", "epsilon_lower", "time_ms"};
  r.title = "Privacy budgets at delta = " + format_number(o.delta) +
            " (Poisson: add/remove neighbours; fixed batch: replace-one)";
  for (const scenario& s : scenarios) {
    accounting::training_run run;
    run.phases.push_back(s.phase);
    for (accounting::accountant_type a :
         {accounting::accountant_type::pld, accounting::accountant_type::rdp,
          accounting::accountant_type::clt}) {
      const auto start = std::chrono::steady_clock::now();
      const accounting::privacy_estimate e = accounting::estimate_epsilon(run, o.delta, a);
      const double ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      json row = estimate_row(e, "epsilon");
      row["run"] = s.name;
      row["time_ms"] = std::round(ms * 10) / 10;
      r.results.push_back(row);
    }
  }
  // LKSP25: the risk trajectory of one-pass noisy SGD (d = 1000, eta = 0.05, sigma = 1.5) on
  // the paper's design, by the Volterra equations of noisy HSGD.
  const auto start = std::chrono::steady_clock::now();
  const volterra::problem p =
      volterra::lksp25_experiment(1000, volterra::lksp25_sigma::design, 2, 2, {0.1, 1e-5, 1.5});
  const std::vector<double> ts = {0, 0.1, 0.3, 1.5};
  const volterra::risk_curve risk = volterra::solve_risk(p, volterra::schedule::constant(50), ts);
  const double risk_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  std::string trajectory;
  for (std::size_t i = 0; i < ts.size(); ++i)
    trajectory += (i ? ", " : "") + fmt::format("{:.4g} at k = {:.0f}", risk.P[i], ts[i] * 1000);
  // ... and its Renyi DP (order 2) at the end of the pass, sup over the first 10 largest x 10
  // smallest labels of a dataset like LKSP25 §5's, n = 1500 records (a labelled approximation).
  const auto pstart = std::chrono::steady_clock::now();
  const Eigen::VectorXd xt = Eigen::VectorXd::Constant(1000, 0.5 / std::sqrt(1000.0));
  random_stream feats(2, 0, 1), noise(2, 0, 2);
  hsgd::dataset data;
  data.features = sim::uniform_design(1500, 1000, feats);  // LKSP25's design
  data.labels = sim::linear_labels(data.features, xt, 1e-3, noise);
  const hsgd::gaussian_law law = hsgd::gaussian_law::lksp25_design(
      Eigen::VectorXd::Zero(1000), xt, {0.1, 1e-6, 1.5}, volterra::schedule::constant(50), 1.5);
  const std::vector<double> end = {1.5};
  const auto pairs = hsgd::extreme_label_pairs(data, 10);
  const double eps2 = hsgd::last_iterate_rdp(law, data, pairs, end, 2.0).values[0].epsilon;
  const double privacy_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - pstart).count();
  r.notes = {
      fmt::format("noisy SGD privacy (same setting, x0 = 0, last iterate; dpkit hsgd privacy): "
                  "Renyi eps_2 = "
                  "{:.3g} over 100 candidate pairs ({:.0f} ms; an approximation, docs/hsgd.md)",
                  eps2, privacy_ms),
      "noisy SGD risk (LKSP25 design, d = 1000, eta = 0.05, sigma = 1.5; dpkit hsgd risk): "
      "E population risk " +
          trajectory +
          fmt::format(" ({:.1f} ms; plateau {:.4g})", risk_ms, volterra::plateau(p, 50).P_inf),
      "pld: certified bracket [epsilon_lower, epsilon] (relative width <= 1e-3); exact for",
      "full-batch runs. rdp: an upper bound (best of four conversions). clt: an approximation",
      "(no guarantee either way; note it can fall below the certified lower bound).",
      "Try: dpkit epsilon --noise-multiplier 1 --sampling-rate 0.01 --steps 10000 --delta 1e-5 "
      "--accountant all"};
  emit(r, o.output);
  return kExitSuccess;
}

}  // namespace

void register_demo(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<demo_options>();
  CLI::App* sub = app.add_subcommand("demo", "Print a privacy-budget table (the main job)");
  add_delta_option(sub, o->delta, /*required=*/false);
  add_output_options(sub, o->output);
  sub->footer(
      "The table grows as dpkit grows. For one configuration:\n"
      "  dpkit epsilon --noise-multiplier 1 --sampling-rate 0.01 --steps 10000 --delta 1e-5 "
      "--accountant all\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
