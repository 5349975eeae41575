// dpkit correlated — noise calibration for DP-λCGD (WSK+26 Algorithm 1): the noise multiplier κ
// each method certifies (or only claims) for an (ε, δ) budget, side by side, with the factor to
// the tightest valid one (lib/include/dpkit/accounting/correlated.hpp; docs/correlated.md).
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/accounting/correlated.hpp"
#include "dpkit/core/parse.hpp"

namespace dpkit::cli {
namespace {

struct correlated_cli_options {
  double correlation = 0;
  double sampling_rate = 1;
  long long steps = 1;
  double epsilon = 0;
  double delta = 0;
  std::string method = "all";
  double accuracy = 1e-3;
  double tolerance = 1e-3;
  long long max_fft_size = 1LL << 24;
  long long max_order = 10000;
  output_options output;
};

// λ ∈ [0, 1): "--correlation is 1, but must be a number in [0, 1)".
CLI::Validator correlation_validator() {
  // The shared validator: it also refuses text that reads only as a subnormal or as 0 by
  // underflow ("1e-400" ran as correlation 0).
  return real_in_half_open_interval(0, 1);
}

std::string form_of(const accounting::correlated_noise& c) {
  if (c.validity == accounting::noise_validity::not_applicable) return "-";
  return c.closed_form ? "closed-form" : "numerical";
}

int run(const correlated_cli_options& o) {
  namespace acc = accounting;
  const acc::correlated_setting s{o.correlation, o.sampling_rate, o.steps};
  acc::correlated_options co;
  co.pld.relative_accuracy = o.accuracy;
  co.pld.max_fft_size = static_cast<std::size_t>(o.max_fft_size);
  co.relative_tolerance = o.tolerance;
  co.max_order = o.max_order;
  std::vector<acc::correlated_method> methods;
  const bool lower_bound = o.method == "all" || o.method == "lower-bound";
  if (o.method == "all") {
    methods.assign(acc::kAllCorrelatedMethods.begin(), acc::kAllCorrelatedMethods.end());
  } else if (o.method == "lower-bound") {
    // only the lower bound's row
  } else if (const auto m = acc::parse_correlated_method(o.method)) {
    methods.push_back(*m);
  } else {
    throw usage_error("--method is " + o.method + ", but must be a method name or all");
  }
  std::vector<acc::correlated_noise> results;
  for (acc::correlated_method m : methods)
    results.push_back(acc::calibrate_correlated(s, o.epsilon, o.delta, m, co));

  // The tightest valid upper bound: the reference of the factor column.
  double best = NAN;
  std::string best_method;
  for (const acc::correlated_noise& c : results)
    if (c.validity == acc::noise_validity::valid_upper_bound && std::isfinite(c.noise_multiplier) &&
        !(c.noise_multiplier >= best)) {
      best = c.noise_multiplier;
      best_method = c.method;
    }

  report r;
  r.tool = "dpkit correlated";
  r.parameters = {{"correlation", o.correlation},
                  {"sampling_rate", o.sampling_rate},
                  {"steps", o.steps},
                  {"epsilon", o.epsilon},
                  {"delta", o.delta},
                  {"method", o.method},
                  {"accuracy", o.accuracy},
                  {"tolerance", o.tolerance},
                  {"max_order", o.max_order}};
  r.columns = {"method", "noise_multiplier", "factor",         "validity",
               "form",   "relation",         "conditions_met", "label"};
  r.title = "noise multiplier kappa of DP-lambdaCGD for (epsilon, delta) = (" +
            format_number(o.epsilon) + ", " + format_number(o.delta) + "): correlation " +
            format_number(o.correlation) + ", sampling rate " + format_number(o.sampling_rate) +
            ", " + std::to_string(o.steps) + " steps";
  std::string failure;
  std::vector<std::string> remarks;
  for (const acc::correlated_noise& c : results) {
    const bool has_kappa = std::isfinite(c.noise_multiplier);
    const double factor = has_kappa && best > 0 ? c.noise_multiplier / best : NAN;
    json row = {{"method", c.method},
                {"noise_multiplier", number_or_null(c.noise_multiplier)},
                {"factor", number_or_null(factor)},
                {"validity", std::string(acc::to_string(c.validity))},
                {"form", form_of(c)},
                {"closed_form", c.closed_form},
                {"relation", std::string(acc::to_string(c.relation))},
                {"conditions_met", c.conditions_met},
                {"attainable", c.attainable},
                {"label", c.label},
                {"source", c.source},
                {"conditions", c.conditions},
                {"details", c.details},
                {"split", number_or_null(c.split)},
                {"sensitivity", number_or_null(c.sensitivity)},
                {"tail_probability", number_or_null(c.tail_probability)},
                {"alpha", number_or_null(c.alpha)},
                {"certified_epsilon", number_or_null(c.certified_epsilon)},
                {"certified_delta", number_or_null(c.certified_delta)},
                {"noise_multiplier_lower", number_or_null(c.noise_multiplier_lower)},
                {"termination", std::string(to_string(c.termination))}};
    if (!c.message.empty()) row["message"] = c.message;
    r.results.push_back(row);
    if (c.termination == termination_type::failure) failure = c.method + ": " + c.message;
    if (c.validity == acc::noise_validity::not_applicable)
      remarks.push_back(c.method + ": not applicable: " + c.conditions + ".");
    else if (!c.attainable)
      remarks.push_back(c.method + ": " + c.message + ".");
    else if (!c.conditions_met && !c.message.empty())
      remarks.push_back(c.method + ": " + c.message + ".");
    else if (!c.conditions_met)
      remarks.push_back(c.method + ": conditions: " + c.conditions + ".");
    if (c.method_id == acc::correlated_method::d9 && !c.details.empty())
      remarks.push_back("d9: " + c.details + ".");
  }
  // The lower bound (accounting::correlated_noise_lower_bound): not a calibration, the other
  // side of the truth — the mechanism is not (ε, δ)-DP at any κ up to it.
  if (lower_bound) {
    const acc::projected_lower_bound lb =
        acc::correlated_noise_lower_bound(s, o.epsilon, o.delta, o.tolerance);
    const double factor = best > 0 ? lb.noise_multiplier / best : NAN;
    json row = {
        {"method", "lower-bound"},
        {"noise_multiplier", number_or_null(lb.noise_multiplier)},
        {"factor", number_or_null(factor)},
        {"validity", "lower-bound"},
        {"form", "numerical"},
        {"closed_form", false},
        {"relation", "zero-out"},
        {"conditions_met", true},
        {"attainable", true},
        {"label", "lower bound: not (epsilon delta)-DP at any kappa at or below this"},
        {"source",
         "WSK+26 Thm F.8's pair (attained by a linear loss) projected on v = C^-T 1: "
         "sum_k Bin(T r)(k) N(k s^2) vs N(0 s^2) (docs/correlated.md)"},
        {"conditions", "Poisson sampling and zero-out neighbours (the relation of Thm F.8)"},
        {"details", "projected delta " + format_number(lb.projected_delta) +
                        " > delta at kappa; projection norm " + format_number(lb.projection_norm) +
                        "; bracket upper end " + format_number(lb.noise_multiplier_upper)},
        {"noise_multiplier_upper", number_or_null(lb.noise_multiplier_upper)},
        {"termination", std::string(to_string(lb.termination))}};
    if (!lb.message.empty()) row["message"] = lb.message;
    r.results.push_back(row);
    if (lb.termination == termination_type::failure) failure = "lower-bound: " + lb.message;
  }
  r.notes = {
      "noise_multiplier: kappa = noise std / clipping norm. factor: kappa / the smallest valid",
      "upper bound" + (best_method.empty()
                           ? std::string(" (none here).")
                           : " (" + best_method + " = " + format_number(best) + ")."),
      "valid-upper-bound: the algorithm is (epsilon, delta)-DP at this kappa (proven).",
      "conjecture-dependent: valid if the leading-block maximiser conjecture holds.",
      "heuristic / outside-conditions: a closed form with no guarantee here.",
      "relation: zero-out (WSK+26 Def F.1); replace-one (D.9) is stronger, so its kappa",
      "is valid for zero-out as well. See docs/correlated.md."};
  if (lower_bound)
    r.notes.push_back(
        "lower-bound: no kappa at or below it is (epsilon, delta)-DP: the true smallest kappa "
        "lies between it and the smallest valid upper bound.");
  for (const std::string& line : remarks) r.notes.push_back(line);
  emit(r, o.output);
  if (!failure.empty()) {
    std::cerr << "dpkit correlated: " << failure << "\n";
    return kExitNumericalFailure;
  }
  return kExitSuccess;
}

}  // namespace

void register_correlated(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<correlated_cli_options>();
  CLI::App* sub = app.add_subcommand(
      "correlated",
      "Noise calibration for DP-lambdaCGD (WSK+26): the noise multiplier kappa for an "
      "(epsilon, delta) budget by every method, labelled, with the factor between them");
  sub->add_option("--correlation", o->correlation,
                  "lambda in the noise xi_t = kappa (Z_t - lambda Z_{t-1}); 0 is independent "
                  "noise (DP-SGD)")
      ->required()
      ->check(correlation_validator())
      ->type_name("L");
  sub->add_option("--sampling-rate", o->sampling_rate,
                  "r = B/n: batch size / dataset size (fixed-size batches without replacement; "
                  "each record joins a step with probability r, independently across steps)")
      ->required()
      ->check(sampling_rate_validator())
      ->type_name("R");
  sub->add_option("--steps", o->steps, "Number of noisy steps T")
      ->required()
      ->check(integer_at_least(1))
      ->type_name("T");
  sub->add_option("--epsilon", o->epsilon, "Target epsilon")
      ->required()
      ->check(real_greater_than(0))
      ->type_name("E");
  add_delta_option(sub, o->delta, /*required=*/true);
  sub->add_option("--method", o->method,
                  "f12 | f12-proof-constant | f9-row-sum | f9-exact | f9-block | pld | d9 | "
                  "d9-eq19 | pld-replace-one | lower-bound | all (see below)")
      ->check(CLI::IsMember({"f12", "f12-proof-constant", "f9-row-sum", "f9-exact", "f9-block",
                             "pld", "d9", "d9-eq19", "pld-replace-one", "lower-bound", "all"}))
      ->capture_default_str();
  sub->add_option(
         "--accuracy", o->accuracy,
         "pld, pld-replace-one: target relative width of the PLD bracket, (upper - lower)/upper")
      ->check(pld_accuracy_validator())
      ->type_name("A")
      ->capture_default_str();
  sub->add_option(
         "--tolerance", o->tolerance,
         "pld, pld-replace-one, d9-eq19, lower-bound: relative width of the final kappa bracket "
         "(kappa is its safe end)")
      ->check(real_in_open_interval(0, 1))
      ->type_name("R")
      ->capture_default_str();
  add_max_fft_size_option(sub, o->max_fft_size);
  sub->add_option("--max-order", o->max_order, "d9, d9-eq19: largest integer Renyi order")
      ->check(integer_at_least(2, accounting::kLargestCorrelatedOrder))
      ->type_name("N")
      ->capture_default_str();
  add_output_options(sub, o->output);
  sub->footer(
      "Methods (kappa = noise std / clipping norm; the dominating pair is WSK+26 Thm F.8):\n"
      "  f12                 Thm F.12 (= Thm 5.1) closed form as stated, constant 8. A valid\n"
      "                      upper bound only when epsilon <= 1 and r T >= 3 ln(2/delta);\n"
      "                      otherwise reported as outside-conditions (no guarantee).\n"
      "  f12-proof-constant  the same formula with the constant 2 that F.12's proof gives\n"
      "                      (classical Gaussian mechanism at delta/2): half the kappa.\n"
      "  f9-row-sum          Lemma F.9 with E = {at most k participations}, the exact binomial\n"
      "                      tail and the exact Gaussian hockey-stick, minimised over k, with\n"
      "                      WSK+26's sensitivity (1 - lambda^T)/(1 - lambda) sqrt(k) (Lemma\n"
      "                      F.11). Valid for every epsilon; never above f12 where F.12 holds.\n"
      "  f9-exact            the same with ||C||_2 sqrt(k) (||C||_2 certified): valid, tighter.\n"
      "  f9-block            the same with ||C (1..1 0..0)||_2: valid if the leading block\n"
      "                      maximises ||C y|| (a conjecture): conjecture-dependent.\n"
      "  pld                 correlation 0 only: the F.8 pair is then exactly the Poisson-\n"
      "                      subsampled Gaussian; certified PLD calibration (tightest).\n"
      "  d9                  correlation 0 only: Thm D.9 (= Thm 5.4) closed form, replace-one.\n"
      "                      Its constant c_sgm = 8 is an asymptotic (Remark D.8): heuristic;\n"
      "                      the row reports what eq. (19) certifies at that kappa.\n"
      "  d9-eq19             correlation 0 only: eq. (19) RDP composed over T, Lemma D.2\n"
      "                      conversion, kappa solved: a valid upper bound (replace-one). Its\n"
      "                      epsilon has a floor as kappa grows: 'no finite kappa' when the\n"
      "                      budget is below it.\n"
      "  pld-replace-one     correlation 0 only: the certified PLD accountant for fixed-size\n"
      "                      batches and replace-one neighbours (the relation of D.9): the\n"
      "                      tight reference for d9 and d9-eq19.\n"
      "  lower-bound         NOT a calibration: the largest kappa at which the mechanism is\n"
      "                      provably NOT (epsilon, delta)-DP (Thm F.8's pair, attained by a\n"
      "                      linear loss, seen through the sum statistic). The true smallest\n"
      "                      kappa lies between it and the smallest valid upper bound.\n"
      "  all                 every method and the lower bound (default); inapplicable ones are\n"
      "                      listed as such.\n"
      "Columns: validity (valid-upper-bound, conjecture-dependent, heuristic,\n"
      "outside-conditions, not-applicable, lower-bound); factor = kappa / the smallest valid "
      "upper\n"
      "bound.\n"
      "Examples:\n"
      "  dpkit correlated --correlation 0.5 --sampling-rate 0.1 --steps 1000 --epsilon 1 "
      "--delta 1e-5\n"
      "  dpkit correlated --correlation 0 --sampling-rate 0.01 --steps 5000 --epsilon 1 "
      "--delta 1e-5 --format json\n"
      "  dpkit correlated --correlation 0.9 --sampling-rate 0.1 --steps 1000 --epsilon 1 "
      "--delta 1e-5 --method f9-exact\n");
  sub->callback([o, &exit_code] { exit_code = run(*o); });
}

}  // namespace dpkit::cli
