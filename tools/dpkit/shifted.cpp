// dpkit shifted — last-iterate privacy of noisy gradient methods by shifted interpolation
// (BSA24), beside the composition bound and the RDP bound the paper compares with. The rows
// come from the library's decision tree (shifted/report.hpp); this file reads the flags and
// renders the rows.
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/accounting/run_tradeoff.hpp"
#include "dpkit/core/grid.hpp"
#include "dpkit/core/parse.hpp"
#include "dpkit/shifted/bounds.hpp"
#include "dpkit/shifted/noisy_sgd.hpp"
#include "dpkit/shifted/report.hpp"

namespace dpkit::cli {
namespace {

struct shifted_options {
  std::string algorithm;
  std::string setting = "strongly-convex";
  std::optional<double> sensitivity;
  std::optional<long long> n;
  std::optional<long long> batch_size;
  std::optional<double> noise;
  std::optional<double> learning_rate;
  std::optional<double> strong_convexity;
  std::optional<double> smoothness;
  std::optional<double> contraction;
  std::optional<double> diameter;
  std::optional<long long> steps;
  std::optional<long long> epochs;
  std::optional<long long> batches_per_epoch;
  std::optional<double> lr_decay;
  double delta = 1e-5;
  long long tradeoff_points = 0;
  bool optimise_split = false;
  bool exhaustive_tau = false;
  std::string shifts;  // Thm C.13: a file or a comma-separated list of a_k/(eta L/b)
  double accuracy = 1e-3;
  output_options output;
};

// --shifts: a file or an inline list of numbers separated by commas, spaces or newlines.
std::vector<double> read_shifts(const std::string& arg) {
  std::string text = arg;
  if (std::filesystem::is_regular_file(arg)) {
    std::ifstream in(arg);
    std::stringstream all;
    all << in.rdbuf();
    text = all.str();
  }
  for (char& ch : text)
    if (ch == ',' || ch == '\n' || ch == '\r' || ch == '\t') ch = ' ';
  std::istringstream in(text);
  std::vector<double> out;
  std::string cell;
  while (in >> cell) {
    if (const std::string m = out_of_range(cell, "a number in [0, 1]"); !m.empty())
      throw usage_error("--shifts: a value " + m);  // 1e-320 was "not a number"
    const std::optional<double> v = parse_finite(cell);
    if (!v)
      throw usage_error("--shifts: '" + cell +
                        "' is not a number (give a file or a list like 0,0,1,1)");
    out.push_back(*v);
  }
  if (out.empty())  // --shifts '' was ignored, and Thm C.13's row silently dropped
    throw usage_error(
        "--shifts has no numbers, but must be a file or a list of t - 1 numbers "
        "a_k/(eta L/b) in [0, 1]");
  return out;
}

// The library's name for an input as this command's flag (report_error's placeholders).
std::string flag_of(std::string_view name, std::string_view value) {
  std::string flag = name == "noise" ? std::string("--noise-std") : "--" + std::string(name);
  for (char& ch : flag)
    if (ch == '_') ch = '-';
  return value.empty() ? flag : flag + " " + std::string(value);
}

int run_shifted(const shifted_options& o) {
  const auto algorithm = shifted::parse_algorithm(o.algorithm);
  const auto setting = shifted::parse_convexity(o.setting);
  if (!algorithm || !setting) throw usage_error("unknown algorithm or setting");  // CLI11 checks
  shifted::report_inputs in;
  in.sensitivity = o.sensitivity;
  in.noise = o.noise;
  in.dataset_size = o.n;
  in.batch_size = o.batch_size;
  in.steps = o.steps;
  in.epochs = o.epochs;
  in.batches_per_epoch = o.batches_per_epoch;
  in.learning_rate = o.learning_rate;
  in.contraction = o.contraction;
  in.strong_convexity = o.strong_convexity;
  in.smoothness = o.smoothness;
  in.diameter = o.diameter;
  in.lr_decay = o.lr_decay;
  if (!o.shifts.empty()) in.shifts = read_shifts(o.shifts);
  in.sgd.pld.relative_accuracy = o.accuracy;
  in.sgd.optimise_split = o.optimise_split;
  if (o.exhaustive_tau) {
    in.sgd.exhaustive_limit = std::numeric_limits<long long>::max();
    if (isatty(2))
      in.sgd.progress = [](long long done, long long total) {
        if (done % 16 == 0 || done == total)
          std::cerr << "\rdpkit shifted: tau candidate " << done << "/" << total
                    << (done == total ? "\n" : "") << std::flush;
      };
  }
  shifted::report_result result;
  try {
    result = shifted::report(*algorithm, *setting, in, o.delta);
  } catch (const shifted::report_error& e) {
    throw usage_error(e.render(flag_of));
  }

  report rep;
  rep.tool = "dpkit shifted";
  rep.parameters = {{"algorithm", o.algorithm}, {"setting", o.setting}, {"delta", o.delta}};
  const shifted::noisy_gradient_setting& s = result.setting;
  if (*algorithm != shifted::algorithm::lmc) {
    rep.parameters["n"] = s.examples;
    rep.parameters["steps"] = s.steps;
    rep.parameters["contraction"] = s.contraction;
    if (s.batch_size > 0) rep.parameters["batch_size"] = s.batch_size;
    if (o.lr_decay) rep.parameters["lr_decay"] = *o.lr_decay;
  }
  rep.notes = result.notes;
  const std::string title_alg = *algorithm == shifted::algorithm::lmc ? "LMC" : o.algorithm;
  rep.title = "privacy of the last iterate of " + title_alg + " (" + o.setting +
              "), epsilon at delta = " + format_number(o.delta);
  if (o.tradeoff_points >= 2) {
    const std::vector<double> alphas =
        linspace(0.0, 1.0, static_cast<std::size_t>(o.tradeoff_points));
    accounting::pld_options pld;
    pld.relative_accuracy = o.accuracy;
    rep.columns = {"bound", "alpha", "beta", "beta_upper"};
    for (const shifted::report_row& r : result.rows) {
      if (!r.run) continue;
      const auto t = accounting::run_tradeoff(*r.run, alphas, pld);
      for (std::size_t i = 0; i < alphas.size(); ++i)
        rep.results.push_back({{"bound", r.bound},
                               {"kind", std::string(to_string(r.kind))},
                               {"alpha", alphas[i]},
                               {"beta", t.beta_lower[i]},
                               {"beta_upper", t.beta_upper[i]}});
    }
    rep.notes.insert(rep.notes.begin(),
                     "beta: the bound's tradeoff curve (for upper bounds on privacy loss, no test "
                     "has a smaller type II error); beta_upper = beta for GDP curves, the "
                     "certified other side for PLD-composed ones");
  } else {
    rep.columns = {"bound", "mu", "epsilon", "kind", "tau", "source"};
    for (const shifted::report_row& r : result.rows) {
      json j = {{"bound", r.bound}, {"source", r.source}};
      j["mu"] = number_or_null(r.mu);
      j["epsilon"] = number_or_null(r.epsilon);
      // The PLD bracket's other end (NoisySGD rows); GDP rows are exact to rounding.
      if (!r.pld_method.empty() && std::isfinite(r.epsilon_lower))
        j["epsilon_lower"] = r.epsilon_lower;
      j["kind"] = std::string(to_string(r.kind));
      j["tau"] = r.tau >= 0 ? json(r.tau) : json(nullptr);
      if (!r.note.empty()) j["note"] = r.note;
      // Why a row has no (or no converged) epsilon, in the JSON too (the notes are text only).
      if (r.termination != termination_type::converged) j["message"] = r.message;
      rep.results.push_back(j);
    }
    rep.notes.insert(
        rep.notes.begin(),
        {"mu: the Gaussian-DP parameter (T(X_t, X'_t) >= G(mu)); epsilon from mu exactly, "
         "from RDP by the best of four conversions, or certified by PLD for NoisySGD",
         "kind: upper-bound = a guarantee; lower-bound = no better guarantee can hold; "
         "approximation = CLT, no guarantee",
         "tau: where the shifted interpolation starts (noisy-cgd Thm 4.6: in epochs)"});
    for (const shifted::report_row& r : result.rows) {
      if (!r.note.empty()) rep.notes.push_back(r.bound + ": " + r.note);
      if (r.termination != termination_type::converged)
        rep.notes.push_back(r.bound + ": " + r.message);
    }
  }
  emit(rep, o.output);
  return kExitSuccess;
}

}  // namespace

void register_shifted(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<shifted_options>();
  CLI::App* sub = app.add_subcommand(
      "shifted",
      "Last-iterate privacy of noisy gradient descent (full, cyclic or random batches) and "
      "Langevin Monte Carlo by shifted interpolation (BSA24), beside composition and RDP");
  sub->add_option("algorithm", o->algorithm, "noisy-gd, noisy-cgd, noisy-sgd or lmc")
      ->required()
      ->check(CLI::IsMember({"noisy-gd", "noisy-cgd", "noisy-sgd", "lmc"}));
  sub->add_option(
         "--setting", o->setting,
         "strongly-convex (needs --contraction, or --learning-rate, --strong-convexity and "
         "--smoothness), convex, or constrained-convex (needs --diameter)")
      ->check(CLI::IsMember({"strongly-convex", "convex", "constrained-convex"}))
      ->capture_default_str();
  sub->add_option("--sensitivity", o->sensitivity,
                  "Gradient sensitivity L = sup |grad f - grad f'| (an L-Lipschitz loss has 2L)")
      ->check(real_greater_than(0))
      ->type_name("L");
  sub->add_option("--dataset-size", o->n, "Number of examples n")->check(integer_at_least(1));
  sub->add_option("--batch-size", o->batch_size, "Batch size b (noisy-cgd, noisy-sgd)")
      ->check(integer_at_least(1))
      ->type_name("B");
  sub->add_option("--noise-std", o->noise,
                  "Noise rate sigma of BSA24 (2.1): X <- X - eta (grad + N(0, sigma^2 I))")
      ->check(real_greater_than(0))
      ->type_name("SIGMA");
  sub->add_option("--learning-rate", o->learning_rate, "Step size eta")
      ->check(real_greater_than(0))
      ->type_name("ETA");
  sub->add_option("--strong-convexity", o->strong_convexity, "m (strongly convex losses; LMC)")
      ->check(real_greater_than(0))
      ->type_name("M");
  sub->add_option("--smoothness", o->smoothness, "M, the smoothness constant")
      ->check(real_greater_than(0));
  sub->add_option("--contraction", o->contraction,
                  "c in (0, 1]: overrides c = max{|1 - eta m|, |1 - eta M|}")
      ->check(finite_real_in_half_open_unit())
      ->type_name("C");
  sub->add_option("--diameter", o->diameter, "Diameter D of the constraint set")
      ->check(real_greater_than(0))
      ->type_name("D");
  sub->add_option("--steps", o->steps, "Number of steps t")
      ->check(integer_at_least(1))
      ->type_name("T");
  sub->add_option("--epochs", o->epochs, "Epochs E (noisy-cgd; t = E n/b)")
      ->check(integer_at_least(1))
      ->type_name("E");
  sub->add_option("--batches-per-epoch", o->batches_per_epoch,
                  "l = n/b (noisy-cgd); --dataset-size defaults to l b")
      ->check(integer_at_least(1))
      ->type_name("L");
  sub->add_option("--lr-decay", o->lr_decay,
                  "noisy-gd: learning-rate schedule eta_k = eta/(1 + k/TAU), with per-step "
                  "contractions from --strong-convexity and --smoothness (not in the paper)")
      ->check(real_greater_than(0))
      ->type_name("TAU");
  add_delta_option(sub, o->delta, false);
  // At most 1e7, as tradeoff's --points: every point is a row of the output (1e9 ran uncapped).
  sub->add_option("--tradeoff-points", o->tradeoff_points,
                  "Emit each bound's tradeoff curve at N equally spaced alpha instead of the "
                  "table, at most 1e7")
      ->check(integer_at_least(2, 10000000))
      ->type_name("N");
  sub->add_flag("--optimise-split", o->optimise_split,
                "noisy-sgd: also optimise the split of the last step's noise (footnotes 10/11)");
  sub->add_flag("--exhaustive-tau", o->exhaustive_tau,
                "noisy-sgd: certify every tau in 1..t-1 (default: every tau up to t = 64, then a "
                "golden-section search on t - tau, which is a valid bound but may miss the best "
                "tau; one PLD evaluation per tau, ~20 ms each)");
  sub->add_option("--shifts", o->shifts,
                  "noisy-sgd, strongly convex: Thm C.13 with your own shifts — a file or a list of "
                  "t - 1 numbers a_k/(eta L/b) in [0, 1] (Thm 4.9 is 0 before tau, 1 after); the "
                  "running shift z_k = c z_{k-1} + eta L/b - a_k must stay >= 0")
      ->type_name("FILE|LIST")
      ->check(CLI::Validator(
          [](std::string& v) -> std::string {
            return v.empty() ? "is empty, but must be a file or a list of t - 1 numbers" : "";
          },
          "", "nonempty"));
  sub->add_option("--accuracy", o->accuracy, "PLD relative accuracy (noisy-sgd, curves)")
      ->check(pld_accuracy_validator())
      ->capture_default_str();
  add_output_options(sub, o->output);
  sub->footer(
      "Examples (BSA24's figures and tables):\n"
      "  dpkit shifted noisy-gd --sensitivity 1 --dataset-size 1 --noise-std 1 --contraction 0.95 "
      "--steps 100\n"
      "  dpkit shifted noisy-gd --setting constrained-convex --sensitivity 1 --dataset-size 100 "
      "--noise-std 0.1 "
      "--learning-rate 1 --diameter 1 --steps 1000\n"
      "  dpkit shifted noisy-cgd --sensitivity 1 --batch-size 10 --batches-per-epoch 20 "
      "--noise-std 1 "
      "--learning-rate 0.1 "
      "--contraction 0.99 --epochs 50\n"
      "  dpkit shifted noisy-sgd --sensitivity 1 --dataset-size 1000 --batch-size 100 --noise-std "
      "0.5 "
      "--learning-rate 0.5 --contraction 0.9 --steps 6400\n"
      "  dpkit shifted lmc --sensitivity 2 --strong-convexity 1 --learning-rate 0.1\n"
      "docs/shifted.md has the formulas and sources.");
  sub->callback([o, &exit_code] { exit_code = run_shifted(*o); });
}

}  // namespace dpkit::cli
