// dpkit calibrate — the smallest noise multiplier, or the largest number of steps, that keeps
// a training run within an (ε, δ) budget.
#include <cmath>
#include <iostream>
#include <memory>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/core/progress.hpp"
#include "privacy_rows.hpp"
#include "run_options.hpp"
#include "strategy_rows.hpp"

namespace dpkit::cli {
namespace {

struct calibrate_options {
  run_options run;
  strategy_options strategy;
  double epsilon = 0;
  double delta = 0;
  long long max_steps = 10000000;
  double tolerance = 1e-9;
  double budget_tolerance = 2e-4;
  accountant_options accountant;
  output_options output;
  CLI::App* app = nullptr;
};

const run_requirements kCalibrateNeeds{false, false, false, false, "dpkit calibrate"};

int run(const calibrate_options& o) {
  if (strategy_given(o.strategy))
    return strategy_calibrate(o.run, kCalibrateNeeds, o.strategy, o.epsilon, o.delta,
                              o.budget_tolerance, o.tolerance, o.accountant, o.output);
  accounting::calibration_options co;
  co.accountant = selected_accountants(o.accountant).front();
  co.pld = pld_options_of(o.accountant);
  co.relative_tolerance = o.tolerance;
  co.budget_tolerance = o.budget_tolerance;
  bool noise = o.run.noise_multiplier.has_value();
  for (const std::string& p : o.run.phases)
    noise = noise || p.find("noise-multiplier=") != std::string::npos ||
            p.find("sigma=") != std::string::npos;
  const bool length = !o.run.steps.empty() || !o.run.epochs.empty();
  if (noise && length)
    throw usage_error(
        "give one unknown to solve for: leave out --noise-multiplier to find the smallest "
        "noise multiplier for these steps, or leave out --steps/--epochs to find the largest "
        "number of steps for this noise multiplier (bounded by --max-steps)");
  const resolved_run m = resolve_run(o.run, kCalibrateNeeds);
  const bool solve_steps = m.noise_given;
  // One σ relative to C for every phase is one σ relative to the sensitivity only where every
  // phase has the same sensitivity.
  if (!solve_steps && m.noise_scale == accounting::noise_scale::sensitivity)
    for (const accounting::training_phase& p : m.run.phases)
      if (accounting::sensitivity(p) != accounting::sensitivity(m.run.phases.front()))
        throw usage_error(
            "--noise-relative-to sensitivity: the phases have different sensitivities (C and "
            "2C), so one noise multiplier relative to the sensitivity is a different noise in "
            "each; calibrate with --noise-relative-to clip-norm (one noise std / C for all)");
  // A calibrated σ (relative to C) as the user counts it.
  auto in_scale = [&](double sigma) {
    return accounting::noise_relative_to(sigma, m.noise_scale, m.run.phases.front());
  };
  if (!solve_steps && m.steps.empty())
    throw usage_error(
        "the length of the run is not given: use --steps T or --epochs E to find the noise "
        "multiplier, or give --noise-multiplier to find the number of steps");
  report r;
  r.tool = "dpkit calibrate";
  r.parameters = m.parameters;
  r.parameters["epsilon"] = o.epsilon;
  r.parameters["delta"] = o.delta;
  r.parameters["accountant"] = o.accountant.accountant;
  r.parameters["accuracy"] = o.accountant.accuracy;
  const std::string budget =
      "(epsilon, delta) = (" + format_number(o.epsilon) + ", " + format_number(o.delta) + ")";
  std::string failure, note;
  if (!solve_steps) {
    r.parameters["tolerance"] = o.tolerance;
    r.parameters["budget_tolerance"] = o.budget_tolerance;
    const accounting::noise_calibration c = [&] {
      const elapsed_ticker ticker("dpkit calibrate (noise multiplier)");
      return accounting::calibrate_noise_multiplier(m.run, o.epsilon, o.delta, co);
    }();
    json row = estimate_row(c.estimate, "epsilon");
    row["noise_multiplier"] =
        std::isfinite(c.noise_multiplier) ? json(in_scale(c.noise_multiplier)) : json();
    row["noise_multiplier_lower"] = std::isfinite(c.noise_multiplier_lower)
                                        ? json(in_scale(c.noise_multiplier_lower))
                                        : json();
    row["steps"] = m.total_steps.front();
    if (!m.epochs.empty()) row["epochs"] = m.epochs.front();
    row["evaluations"] = c.evaluations;
    r.results.push_back(row);
    r.columns = {"accountant", "noise_multiplier", "epsilon", "kind", "epsilon_lower", "method"};
    r.title = "smallest noise multiplier for " + budget + ": " + describe_run(m.run, false, true);
    for (const std::string& line : m.derivation) r.title += "\n" + line;
    if (!c.message.empty()) row["message"] = c.message;
    r.results.back() = row;
    // The smallest σ the accountants take, with ε = 0 there: no threshold lies below it.
    if (c.termination != termination_type::failure && c.estimate.value == 0 &&
        c.noise_multiplier == accounting::kSmallestNoiseMultiplier)
      r.notes = {"noise_multiplier: the smallest value the accountants take; the accountant gives",
                 "epsilon = 0 there (delta(0) <= delta), so the budget holds at every noise",
                 "multiplier (the note below says why)."};
    else if (c.termination != termination_type::failure && c.estimate.value == 0)
      r.notes = {"noise_multiplier: the smallest value at which the accountant gives epsilon = 0",
                 "(delta(0) <= delta): the target is below what it resolves there. At",
                 "noise_multiplier_lower it does not give epsilon = 0."};
    else if (c.termination != termination_type::failure && !c.converged())
      r.notes = {"noise_multiplier: the budget holds at this value (epsilon is what the accountant",
                 "certifies there: <= the target), but the calibration did not converge (the note",
                 "says why): a smaller value may hold too."};
    else if (c.termination != termination_type::failure)
      r.notes = {
          "noise_multiplier: the budget holds at this value (epsilon is what the accountant",
          "certifies there: <= the target, and within --budget-tolerance of it). At",
          "noise_multiplier_lower, the largest value tried below it, the accountant does not",
          "certify the budget (with PLD it is exceeded for certain only where epsilon_lower",
          "there is above the target)."};
    if (std::isfinite(c.noise_multiplier) && in_scale(c.noise_multiplier) != c.noise_multiplier)
      r.notes.push_back("noise_multiplier is relative to the sensitivity 2C; relative to the "
                        "clip norm C it is " +
                        format_number(c.noise_multiplier) + ".");
    // What the noise multiplier is relative to, for each scheme of the run.
    for (const std::string& line : wrap(scheme_sentences(m.run, "epsilon", m.noise_scale), 90))
      r.notes.push_back(line);
    if (c.termination == termination_type::failure) failure = c.message;
    // Certified, with more of the budget unused than asked, or ε = 0 at the answer: said. The
    // library's message counts noise multipliers relative to C: said where the table does not.
    if (c.termination != termination_type::failure) note = c.message;
    // The messages that quote noise multipliers (the ε = 0 thresholds, a failed search's last
    // tries) count them relative to C.
    if (in_scale(1.0) != 1.0) {
      const char* units = " (noise multipliers in this message are relative to the clip norm C)";
      if (!note.empty() && c.estimate.value == 0) note += units;
      if (!failure.empty()) failure += units;
    }
  } else {
    r.parameters["max_steps"] = o.max_steps;
    const accounting::steps_calibration c = [&] {
      const elapsed_ticker ticker("dpkit calibrate (steps)");
      return accounting::calibrate_steps(m.run, o.epsilon, o.delta, o.max_steps, co);
    }();
    json row = c.steps > 0 ? estimate_row(c.estimate, "epsilon")
                           : json{{"accountant", o.accountant.accountant}};
    long long earlier = 0;
    for (std::size_t j = 0; j + 1 < m.run.phases.size(); ++j) earlier += m.run.phases[j].steps;
    row["steps"] = earlier + c.steps;
    r.columns = {"accountant", "steps"};
    if (m.in_batches || !o.run.epochs.empty()) {
      // The same length in epochs of the last phase (the user's unit).
      row["epochs"] = static_cast<double>(c.steps) / m.steps_per_epoch;
      r.columns.push_back("epochs");
    }
    row["evaluations"] = c.evaluations;
    r.results.push_back(row);
    for (const char* c2 : {"epsilon", "kind", "epsilon_lower", "method"}) r.columns.push_back(c2);
    r.title = "largest number of steps within " + budget + ": " +
              describe_run(m.run, true, false, m.noise_scale);
    for (const std::string& line : m.derivation) r.title += "\n" + line;
    if (c.termination == termination_type::max_iterations)
      r.notes = {"steps: the budget holds for this many steps, the most searched (--max-steps);",
                 "more steps may hold it too."};
    else
      r.notes = {
          "steps: the budget holds for this many steps and is exceeded at one more (searched",
          "up to --max-steps)."};
    if (c.steps == 0) r.notes.push_back(c.message);
  }
  emit(r, o.output);
  if (!note.empty()) std::cerr << "dpkit calibrate: note: " << note << "\n";
  if (!failure.empty()) {
    std::cerr << "dpkit calibrate: " << failure << "\n";
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
  add_run_options(sub, o->run, kCalibrateNeeds);
  sub->add_option("--max-steps", o->max_steps,
                  "Upper limit of the steps search (with --noise-multiplier), at most 2^53")
      ->check(integer_at_least(1, kMaxExactInteger))
      ->type_name("T")
      ->capture_default_str();
  sub->add_option("--budget-tolerance", o->budget_tolerance,
                  "The noise search stops once the certified epsilon is within this fraction "
                  "below --epsilon (at most this share of the budget left unused)")
      ->check(real_in_half_open_interval(1e-12, 0.5))
      ->type_name("R")
      ->capture_default_str();
  sub->add_option("--tolerance", o->tolerance,
                  "It also stops when its bracket on the noise multiplier is this narrow "
                  "(relative); if the budget tolerance is not met by then, a note on stderr "
                  "says how much of the budget is unused")
      ->check(real_in_open_interval(0, 1))
      ->type_name("R")
      ->capture_default_str();
  add_strategy_options(sub, o->strategy);
  add_accountant_options(sub, o->accountant, /*with_all=*/false);
  add_output_options(sub, o->output);
  sub->footer(
      "Give the run without the unknown: no --noise-multiplier to solve for it, or no\n"
      "--steps/--epochs (with --noise-multiplier) to solve for the number of steps.\n"
      "Examples:\n"
      "  dpkit calibrate --epsilon 2 --delta 1e-5 --sampling-rate 0.01 --steps 10000\n"
      "  dpkit calibrate --epsilon 3 --delta 1e-5 --dataset-size 60000 --batch-size 256 "
      "--epochs 60\n"
      "  dpkit calibrate --epsilon 2 --delta 1e-5 --sampling-rate 0.01 --noise-multiplier 1\n"
      "  dpkit calibrate --epsilon 2 --delta 1e-5 --strategy toeplitz:1,0.5,0.25 "
      "--min-separation 3 --sampling-rate 0.01 --steps 999\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
