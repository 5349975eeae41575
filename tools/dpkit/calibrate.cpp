// dpkit calibrate — the smallest noise multiplier, or the largest number of steps, that keeps
// a training run within an (ε, δ) budget.
#include <cmath>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "commands.hpp"

namespace dpkit::cli {
namespace {

struct calibrate_options {
  mechanism_options mechanism;
  double epsilon = 0;
  double delta = 0;
  long long max_steps = 10000000;
  double tolerance = 1e-3;
  accountant_options accountant;
  output_options output;
  CLI::App* app = nullptr;
};

int run(const calibrate_options& o) {
  accounting::calibration_options co;
  co.accountant = selected_accountants(o.accountant).front();
  co.pld = pld_options_of(o.accountant);
  co.relative_tolerance = o.tolerance;
  report r;
  r.tool = "dpkit calibrate";
  const bool solve_steps = o.mechanism.noise_multiplier.has_value();
  if (solve_steps && o.app->count("--steps") > 0)
    throw usage_error(
        "--steps cannot be given with --noise-multiplier: calibrate then solves for the "
        "number of steps (bound it with --max-steps)");
  mechanism_options m = o.mechanism;
  if (!solve_steps)
    m.noise_multiplier = 1.0;  // any σ: only the run's shape is used; the calibration solves for σ
  resolved_mechanism rm = resolve_mechanism(m);
  r.parameters = {{"epsilon", o.epsilon},
                  {"delta", o.delta},
                  {"accountant", o.accountant.accountant},
                  {"accuracy", o.accountant.accuracy},
                  {"sampling_rate", rm.run.phases[0].sampling_rate},
                  {"sampling", o.mechanism.sampling}};
  std::string failure;
  if (!solve_steps) {
    r.parameters["steps"] = o.mechanism.steps;
    r.parameters["tolerance"] = o.tolerance;
    const accounting::noise_calibration c =
        accounting::calibrate_noise_multiplier(rm.run, o.epsilon, o.delta, co);
    json row = estimate_row(c.estimate, "epsilon");
    row["noise_multiplier"] = std::isfinite(c.noise_multiplier) ? json(c.noise_multiplier) : json();
    row["noise_multiplier_lower"] =
        std::isfinite(c.noise_multiplier_lower) ? json(c.noise_multiplier_lower) : json();
    row["evaluations"] = c.evaluations;
    r.results.push_back(row);
    r.columns = {"accountant", "noise_multiplier", "epsilon", "kind", "epsilon_lower", "method"};
    r.title = "smallest noise multiplier for (epsilon, delta) = (" + format_number(o.epsilon) +
              ", " + format_number(o.delta) + "): " + std::to_string(o.mechanism.steps) +
              " steps, sampling rate " + format_number(rm.run.phases[0].sampling_rate) + " (" +
              o.mechanism.sampling + ")";
    if (c.termination != termination_type::failure)
      r.notes = {"noise_multiplier: the budget holds at this value (epsilon is what the accountant",
               "certifies there, <= the target). At noise_multiplier_lower, the other end of the",
               "search, the accountant does not certify the budget (with PLD it is exceeded",
               "for certain only where epsilon_lower there is above the target)."};
    if (c.termination == termination_type::failure) failure = c.message;
  } else {
    r.parameters["noise_multiplier"] = *o.mechanism.noise_multiplier;
    r.parameters["max_steps"] = o.max_steps;
    const accounting::steps_calibration c =
        accounting::calibrate_steps(rm.run, o.epsilon, o.delta, o.max_steps, co);
    json row = c.steps > 0 ? estimate_row(c.estimate, "epsilon")
                           : json{{"accountant", o.accountant.accountant}};
    row["steps"] = c.steps;
    row["evaluations"] = c.evaluations;
    r.results.push_back(row);
    r.columns = {"accountant", "steps", "epsilon", "kind", "epsilon_lower", "method"};
    r.title = "largest number of steps within (epsilon, delta) = (" + format_number(o.epsilon) +
              ", " + format_number(o.delta) + "): noise multiplier " +
              format_number(*o.mechanism.noise_multiplier) + ", sampling rate " +
              format_number(rm.run.phases[0].sampling_rate) + " (" + o.mechanism.sampling + ")";
    r.notes = {"steps: the budget holds for this many steps and is exceeded at one more (searched",
               "up to --max-steps)."};
    if (c.steps == 0) r.notes.push_back(c.message);
  }
  emit(r, o.output);
  if (!failure.empty()) {
    std::cerr << "dpkit calibrate: " << user_message(failure, nullptr) << "\n";
    return kExitNumericalFailure;
  }
  return kExitSuccess;
}

}  // namespace

void register_calibrate(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<calibrate_options>();
  CLI::App* sub = app.add_subcommand(
      "calibrate",
      "The smallest noise multiplier (or, given one, the largest number of steps) within an "
      "(epsilon, delta) budget");
  o->app = sub;
  sub->add_option("--epsilon", o->epsilon, "Target epsilon")
      ->required()
      ->check(real_greater_than(0))
      ->type_name("E");
  add_delta_option(sub, o->delta, /*required=*/true);
  add_mechanism_options(sub, o->mechanism, /*with_mu=*/false);
  sub->add_option("--max-steps", o->max_steps,
                  "Upper limit of the steps search (with --noise-multiplier), at most 2^53")
      ->check(integer_at_least(1, kMaxExactInteger))
      ->type_name("T")
      ->capture_default_str();
  sub->add_option("--tolerance", o->tolerance,
                  "Relative width of the final noise-multiplier bracket")
      ->check(real_in_open_interval(0, 1))
      ->type_name("R")
      ->capture_default_str();
  add_accountant_options(sub, o->accountant, /*with_all=*/false);
  add_output_options(sub, o->output);
  sub->footer(
      "Examples:\n"
      "  dpkit calibrate --epsilon 2 --delta 1e-5 --sampling-rate 0.01 --steps 10000\n"
      "  dpkit calibrate --epsilon 2 --delta 1e-5 --sampling-rate 0.01 --noise-multiplier 1\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
