// --strategy for dpkit epsilon, delta and calibrate (strategy_rows.hpp).
#include "strategy_rows.hpp"

#include <cmath>
#include <iostream>
#include <stdexcept>
#include <vector>

#include "dpkit/accounting/matrix_mechanism.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/progress.hpp"

namespace dpkit::cli {
namespace {

namespace acc = accounting;

void require_pld(const accountant_options& accountant) {
  if (accountant.accountant != "pld")
    throw usage_error("--strategy is accounted with the PLD accountant only (--accountant pld)");
}

acc::strategy parse_strategy(const std::string& spec) {
  try {
    return acc::strategy::parse(spec);
  } catch (const std::invalid_argument& e) {
    throw usage_error(e.what());
  } catch (const std::runtime_error& e) {
    throw usage_error("--strategy " + spec + ": " + e.what());
  }
}

// The one phase of the run the mechanism is run with, refused in the user's words where the run
// is not one a matrix mechanism is accounted for.
acc::participation participation_of(const resolved_run& m,
                                     const run_options& run,
                                     const strategy_options& s) {
  if (m.is_mu)
    throw usage_error("--strategy needs the run itself (--noise-multiplier, --sampling-rate or "
                      "--full-batch, --steps), not --mu");
  if (m.run.phases.size() != 1 || m.run.gaussian_mu != 0)
    throw usage_error("--strategy accounts one matrix mechanism: give --noise-multiplier, "
                      "--sampling-rate (or --full-batch) and --steps instead of --phase");
  const acc::training_phase& p = m.run.phases.front();
  if (p.sampling != acc::sampling_scheme::poisson)
    throw usage_error("--strategy accounts Poisson participation (each step of an example's group "
                      "taken with probability --sampling-rate): --sampling " +
                      std::string(acc::to_string(p.sampling)) + " is not supported with it");
  if (acc::relation(p) != acc::neighbouring::add_remove)
    throw usage_error("--strategy accounts add/remove (zero-out) neighbours: --neighbours " +
                      std::string(acc::to_string(acc::relation(p))) +
                      " is not supported with it");
  const long long b = s.min_separation.value_or(1);
  if (b > 1 && (m.in_batches || !run.epochs.empty()))
    throw usage_error(
        "with --min-separation, give --sampling-rate and --steps: the rate is an example's chance "
        "to take part in a step of its group (a batch of B from N examples in B' groups has "
        "rate B*B'/N), so batch sizes and epochs do not translate by the DP-SGD rule");
  if (s.max_participations && p.sampling_rate != 1)
    throw usage_error("--max-participations counts the steps an example takes part in without "
                      "sampling: give --sampling-rate 1 (or --full-batch), or leave it out for "
                      "sampled groups");
  return {b, p.sampling_rate, s.max_participations.value_or(0)};
}

std::string run_words(const acc::strategy& c, const acc::participation& p, double sigma,
                      bool with_noise) {
  std::string s = "C = " + c.describe();
  if (with_noise) s += ", noise multiplier " + format_number(sigma);
  if (p.sampling_rate == 1 && p.min_separation == 1) return s + ", every example in every step";
  if (p.max_participations > 0)
    return s + ", any " + std::to_string(p.max_participations) + " steps at least " +
           std::to_string(p.min_separation) + " apart";
  if (p.min_separation > 1) s += ", min-separation " + std::to_string(p.min_separation);
  return s + ", sampling rate " + format_number(p.sampling_rate);
}

// The row's columns shared by epsilon, delta and calibrate.
void describe_answer(json& row, const acc::matrix_mechanism_privacy& mm, const std::string& quantity,
                     const acc::strategy& c, long long steps, double sigma,
                     std::vector<std::string>& notes) {
  const acc::matrix_mechanism_reduction& red = mm.reduction;
  row["accountant"] = "pld";
  row[quantity] = number_or_null(mm.upper);
  row["kind"] = "upper-bound";
  row[quantity + "_lower"] = number_or_null(mm.lower);
  row[quantity + "_upper"] = number_or_null(mm.upper);
  row["route"] = red.route;
  row["sensitivity"] = red.route == "amplified" ? red.round_sensitivity : red.sensitivity.upper;
  row["sensitivity_exact"] = red.sensitivity.exact;
  if (red.route == "amplified") row["rounds"] = red.rounds;
  row["method"] = mm.upper_estimate.method;
  row["reduction"] = red.description;
  try {
    const acc::prefix_sum_error e = acc::strategy_error(c, steps, sigma);
    row["rmse"] = e.rmse;
    row["max_error"] = e.max_error;
  } catch (const argument_error& e) {
    row["rmse"] = json();
    row["max_error"] = json();
    notes.push_back("rmse, max_error: not computed (" + e.name() + " must be " + e.constraint() +
                    ")");
  }
}

std::vector<std::string> legend(const std::string& quantity, const std::string& route) {
  std::vector<std::string> notes;
  const std::string q = quantity;
  if (route == "conditional")
    notes.push_back("upper-bound: the mechanism is (epsilon, delta)-DP at this " + q +
                    ", by conditional composition (MMCC, CGST24): each row of the release, "
                    "given the rows before it, is bounded by a mixture of Gaussians whose "
                    "participation probabilities are the example's posterior ones, bounded "
                    "outside a rare event whose probability is part of delta. " + q +
                    "_lower: no smaller " + q +
                    " can hold - from the count of the example's sampled participations, a "
                    "projection of the release. The bracket can be wide.");
  else if (route == "unamplified")
    notes.push_back("upper-bound: the mechanism is (epsilon, delta)-DP at this " + q +
                    "; it ignores sampling (C has more bands than --min-separation, and "
                    "conditional composition, MMCC, gave no smaller bound or was not tried: "
                    "over " + std::to_string(acc::kConditionalMaxSteps) + " steps). " + q +
                    "_lower: no smaller " + q +
                    " can hold - from the count of the example's sampled participations, a "
                    "projection of the release. The bracket can be wide.");
  else
    notes.push_back("upper-bound: the mechanism is (epsilon, delta)-DP at this " + q + ". " + q +
                    "_lower: no smaller " + q +
                    " can hold (a pair of datasets attains it) - together a certified bracket.");
  notes.push_back(
      "The mechanism releases C*G + sigma*Z (G: each step's sum of clipped gradients, clip norm "
      "1; Z standard Gaussian); sigma is the noise multiplier as for DP-SGD, and the sensitivity "
      "of C for the participation is dpkit's (groups of steps --min-separation apart, each step "
      "of an example's group taken with probability --sampling-rate; add/remove neighbours).");
  notes.push_back(
      "rmse, max_error: the noise of the prefix sums of G estimated from the release (root mean "
      "square over the steps, and the largest), in clip norms per coordinate.");
  return wrap(notes, 90);
}

}  // namespace

void add_strategy_options(CLI::App* app, strategy_options& o) {
  const std::string group = "Matrix mechanism";
  app->add_option("--strategy", o.strategy,
                  "A matrix-factorization mechanism instead of independent noise: identity "
                  "(DP-SGD), toeplitz:c0,c1,... (banded Toeplitz), blt:DECAY:SCALE,... (BLT), "
                  "sqrt or sqrt:BANDS (square root of the prefix sums), lambda:L (DP-lambda-CGD) "
                  "or file:PATH (the T x T lower-triangular C as CSV)")
      ->type_name("SPEC")
      ->group(group);
  app->add_option("--min-separation", o.min_separation,
                  "With --strategy: examples fall in B groups, group i taking part in steps i, "
                  "i+B, i+2B, ... (each with probability --sampling-rate); 1 = every step")
      ->check(integer_at_least(1, kMaxExactInteger))
      ->type_name("B")
      ->group(group);
  app->add_option("--max-participations", o.max_participations,
                  "With --strategy and no sampling: an example may take part in any steps at "
                  "least --min-separation apart, at most K of them (jax_privacy's multi-epoch "
                  "schema), instead of its group's steps")
      ->check(integer_at_least(1, kMaxExactInteger))
      ->type_name("K")
      ->group(group);
}

bool strategy_given(const strategy_options& o) {
  if (o.strategy.empty() && (o.min_separation || o.max_participations))
    throw usage_error(std::string(o.min_separation ? "--min-separation" : "--max-participations") +
                      " needs --strategy (the matrix mechanism whose participation it sets; "
                      "--strategy identity for DP-SGD)");
  return !o.strategy.empty();
}

int strategy_privacy(const std::string& tool,
                     const run_options& run,
                     const run_requirements& needs,
                     const strategy_options& s,
                     const std::string& quantity,
                     double at,
                     const accountant_options& accountant,
                     const output_options& output) {
  require_pld(accountant);
  const acc::strategy c = parse_strategy(s.strategy);
  const resolved_run m = resolve_run(run, needs);
  const acc::participation p = participation_of(m, run, s);
  const double sigma = m.run.phases.front().noise_multiplier;
  const acc::pld_options pld = pld_options_of(accountant);
  report r;
  r.tool = tool;
  r.parameters = m.parameters;
  r.parameters["strategy"] = s.strategy;
  r.parameters["min_separation"] = p.min_separation;
  r.parameters["max_participations"] = p.max_participations;
  r.parameters[quantity == "epsilon" ? "delta" : "epsilon"] = at;
  r.parameters["accuracy"] = accountant.accuracy;
  std::vector<std::string> notes;
  std::string route;
  for (const long long steps : m.steps) {
    const elapsed_ticker ticker(tool + " (matrix mechanism, " + std::to_string(steps) + " steps)");
    const acc::matrix_mechanism_privacy mm =
        quantity == "epsilon" ? acc::matrix_mechanism_epsilon(c, steps, p, sigma, at, pld)
                              : acc::matrix_mechanism_delta(c, steps, p, sigma, at, pld);
    json row;
    describe_answer(row, mm, quantity, c, steps, sigma, notes);
    row["steps"] = steps;
    r.results.push_back(row);
    route = mm.reduction.route;
  }
  r.columns = {"accountant", quantity, "kind", quantity + "_lower", quantity + "_upper", "route",
               "sensitivity", "rmse", "max_error", "method"};
  if (m.steps.size() > 1) r.columns.insert(r.columns.begin(), "steps");
  const std::string at_name = quantity == "epsilon" ? "delta" : "epsilon";
  r.title = quantity + " at " + at_name + " = " + format_number(at) + " for " +
            (m.steps.size() == 1 ? std::to_string(m.steps.front()) + " steps" : "each length") +
            " of the matrix mechanism " + run_words(c, p, sigma, true);
  if (m.steps.size() == 1) r.title += "\n= " + r.results.front()["reduction"].get<std::string>();
  for (const std::string& line : m.derivation) r.title += "\n" + line;
  r.notes = legend(quantity, route);
  r.notes.insert(r.notes.end(), notes.begin(), notes.end());
  emit(r, output);
  return kExitSuccess;
}

int strategy_calibrate(const run_options& run,
                       const run_requirements& needs,
                       const strategy_options& s,
                       double epsilon,
                       double delta,
                       double budget_tolerance,
                       double tolerance,
                       const accountant_options& accountant,
                       const output_options& output) {
  require_pld(accountant);
  if (run.noise_multiplier)
    throw usage_error("with --strategy, dpkit calibrate solves for the noise multiplier: leave out "
                      "--noise-multiplier");
  if (run.steps.empty() || run.steps.size() != 1 || run.steps.front().find_first_of(",:") != std::string::npos)
    throw usage_error("with --strategy, give one --steps T (the matrix mechanism's length)");
  const acc::strategy c = parse_strategy(s.strategy);
  const resolved_run m = resolve_run(run, needs);
  const acc::participation p = participation_of(m, run, s);
  const long long steps = m.steps.front();
  acc::calibration_options co;
  co.pld = pld_options_of(accountant);
  co.budget_tolerance = budget_tolerance;
  co.relative_tolerance = tolerance;
  const acc::matrix_mechanism_noise cal = [&] {
    const elapsed_ticker ticker("dpkit calibrate (matrix mechanism)");
    return acc::matrix_mechanism_calibrate(c, steps, p, epsilon, delta, co);
  }();
  report r;
  r.tool = "dpkit calibrate";
  r.parameters = m.parameters;
  r.parameters["strategy"] = s.strategy;
  r.parameters["min_separation"] = p.min_separation;
  r.parameters["max_participations"] = p.max_participations;
  r.parameters["epsilon"] = epsilon;
  r.parameters["delta"] = delta;
  r.parameters["accuracy"] = accountant.accuracy;
  r.parameters["budget_tolerance"] = budget_tolerance;
  std::vector<std::string> notes;
  json row;
  if (std::isfinite(cal.noise_multiplier)) {
    describe_answer(row, cal.privacy, "epsilon", c, steps, cal.noise_multiplier, notes);
    row["noise_multiplier"] = cal.noise_multiplier;
  } else {
    row = {{"accountant", "pld"}, {"kind", "unavailable"}, {"message", cal.message}};
  }
  row["steps"] = steps;
  row["evaluations"] = cal.evaluations;
  if (!cal.message.empty()) row["message"] = cal.message;
  r.results.push_back(row);
  r.columns = {"accountant", "noise_multiplier", "epsilon", "kind", "epsilon_lower", "route",
               "sensitivity", "rmse", "max_error"};
  r.title = "smallest noise multiplier for (epsilon, delta) = (" + format_number(epsilon) + ", " +
            format_number(delta) + "): " + std::to_string(steps) + " steps of the matrix mechanism " +
            run_words(c, p, 1, false);
  if (std::isfinite(cal.noise_multiplier)) r.title += "\n= " + row["reduction"].get<std::string>();
  r.notes = {"noise_multiplier: the budget holds at this value (epsilon is the certified upper",
             "bound there: <= the target, and within --budget-tolerance of it)."};
  const std::vector<std::string> more = legend("epsilon", cal.privacy.reduction.route);
  r.notes.insert(r.notes.end(), more.begin(), more.end());
  r.notes.insert(r.notes.end(), notes.begin(), notes.end());
  emit(r, output);
  if (!std::isfinite(cal.noise_multiplier)) {
    std::cerr << "dpkit calibrate: " << cal.message << "\n";
    return kExitNumericalFailure;
  }
  if (!cal.message.empty()) std::cerr << "dpkit calibrate: note: " << cal.message << "\n";
  return kExitSuccess;
}

}  // namespace dpkit::cli
