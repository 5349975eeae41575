#include "run_options.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <map>

#include "dpkit/core/parse.hpp"

namespace dpkit::cli {
namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  for (char c : s) {
    if (c == sep) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  out.push_back(cur);
  return out;
}

std::string trimmed(const std::string& s) {
  return std::string(dpkit::trim(s));
}

// One item: a number, START:STOP:STEP or START:STOP:logK.
void parse_item(const std::string& flag,
                const std::string& item,
                number_kind kind,
                std::size_t max_count,
                std::vector<double>& out) {
  const bool integers = kind == number_kind::count;
  const std::string one = integers                        ? "an integer in [1, 2^53]"
                          : kind == number_kind::positive ? "a number > 0"
                                                          : "a number in [0, 1]";
  const std::string what =
      one + ", a comma-separated list, or a range START:STOP:STEP or START:STOP:logK";
  auto bad = [&](const std::string& why = "") {
    return usage_error(flag + " is " + item + ", but must be " + what + why);
  };
  auto valid = [&](double v) {
    if (integers) return v >= 1 && v <= static_cast<double>(kMaxExactInteger) && v == std::floor(v);
    if (kind == number_kind::probability) return v >= 0 && v <= 1;
    return v > 0;
  };
  // Counts written out in digits are read exactly (2^53 + 1 must not round to 2^53).
  auto number = [&](const std::string& text) -> std::optional<double> {
    if (integers && !text.empty() && text.find_first_not_of("0123456789") == std::string::npos) {
      const std::optional<long long> v = parse_integer(text);
      if (!v || *v > kMaxExactInteger) return std::nullopt;
      return static_cast<double>(*v);
    }
    return parse_finite(text);
  };
  const std::vector<std::string> parts = split(item, ':');
  if (parts.size() == 1) {
    const auto v = number(trimmed(parts[0]));
    if (!v || !valid(*v)) throw bad();
    out.push_back(*v);
    return;
  }
  if (parts.size() != 3) throw bad();
  const auto a = number(trimmed(parts[0]));
  const auto b = number(trimmed(parts[1]));
  // Each failure its own reason ("-i 1:1e20:1" was told "START <= STOP").
  if (!a || !valid(*a)) throw bad(" (START " + trimmed(parts[0]) + " is not " + one + ")");
  if (!b || !valid(*b)) throw bad(" (STOP " + trimmed(parts[1]) + " is not " + one + ")");
  if (*b < *a) throw bad(" (START <= STOP)");
  const std::string step = trimmed(parts[2]);
  if (step.rfind("log", 0) == 0) {
    if (!(*a > 0)) throw bad(" (a log range starts above 0)");
    const auto k = parse_finite(step.substr(3));
    if (!k || *k < 2 || *k != std::floor(*k) || *k > static_cast<double>(max_count))
      throw bad(" (logK: K an integer in [2, " + std::to_string(max_count) + "])");
    const auto n = static_cast<std::size_t>(*k);
    const double la = std::log(*a), lb = std::log(*b);
    for (std::size_t i = 0; i < n; ++i) {
      double v =
          i + 1 == n
              ? *b
              : std::exp(la + (lb - la) * static_cast<double>(i) / static_cast<double>(n - 1));
      if (i == 0) v = *a;
      if (integers) v = std::round(v);
      if (out.empty() || !integers || out.back() != v) out.push_back(v);
    }
    return;
  }
  const auto s = parse_finite(step);
  if (!s || !(*s > 0) || (integers && *s != std::floor(*s))) throw bad(" (STEP > 0)");
  const double count = std::floor((*b - *a) / *s * (1 + 1e-12)) + 1;
  if (count > static_cast<double>(max_count))
    throw usage_error(flag + " is " + item + ", which gives " + format_number(count) +
                      " values, but at most " + std::to_string(max_count) + " are allowed");
  for (double i = 0; i < count; ++i) out.push_back(std::min(*a + i * *s, *b));
}

// "a/b = c" for the derivation lines.
std::string ratio_text(long long num, long long den) {
  return std::to_string(num) + "/" + std::to_string(den);
}

struct phase_spec {
  std::optional<double> noise_multiplier, sampling_rate;
  std::optional<long long> batch_size;
  std::optional<long long> max_batch_size;
  bool full_batch = false;
  std::string sampling, neighbours;
  std::vector<std::string> steps, epochs;
};

// --phase noise-multiplier=1.1,batch-size=256,epochs=10 (keys as the flags, without --).
phase_spec parse_phase(const std::string& text) {
  static const std::map<std::string, std::string> keys = {{"noise-multiplier", "noise-multiplier"},
                                                          {"sigma", "noise-multiplier"},
                                                          {"s", "noise-multiplier"},
                                                          {"sampling-rate", "sampling-rate"},
                                                          {"q", "sampling-rate"},
                                                          {"p", "sampling-rate"},
                                                          {"batch-size", "batch-size"},
                                                          {"full-batch", "full-batch"},
                                                          {"steps", "steps"},
                                                          {"i", "steps"},
                                                          {"epochs", "epochs"},
                                                          {"sampling", "sampling"},
                                                          {"neighbours", "neighbours"},
                                                          {"neighbors", "neighbours"},
                                                          {"max-batch-size", "max-batch-size"}};
  auto bad = [&](const std::string& why) {
    return usage_error("--phase is " + text + ", but " + why +
                       " (example: --phase noise-multiplier=1.1,batch-size=256,epochs=10)");
  };
  phase_spec p;
  for (const std::string& raw : split(text, ',')) {
    const std::string kv = trimmed(raw);
    if (kv.empty()) throw bad("has an empty entry");
    const auto eq = kv.find('=');
    const std::string key = trimmed(kv.substr(0, eq));
    const std::string value = eq == std::string::npos ? "" : trimmed(kv.substr(eq + 1));
    const auto it = keys.find(key);
    if (it == keys.end())
      throw bad("'" + key +
                "' is not one of noise-multiplier, sampling-rate, batch-size, full-batch, steps, "
                "epochs, sampling, neighbours, max-batch-size");
    const std::string& k = it->second;
    if (k == "full-batch") {
      if (!value.empty() && value != "yes" && value != "true")
        throw bad("full-batch takes no value");
      p.full_batch = true;
      continue;
    }
    if (value.empty()) throw bad(k + " needs a value (" + k + "=...)");
    if (k == "noise-multiplier" || k == "sampling-rate") {
      // Zero and inf are edge values, accepted here and checked with the run (resolve_run):
      // only epsilon and delta answer them.
      const parsed_number typed = parse_number(value);
      const bool read = typed.read();
      const double v = typed.value;
      const bool sigma = k == "noise-multiplier";
      const std::string range = sigma ? std::string("0, inf or a number >= 1e-100")
                                      : std::string("0 or in [") + kSmallestNormalText + ", 1]";
      if (read && typed.status != number_status::ok)
        throw bad(k + " must be " + range + " (" + value + " leaves double precision)");
      if (!read || !(sigma ? v == 0 || v >= accounting::kSmallestNoiseMultiplier
                           : v == 0 || (v >= accounting::kSmallestSamplingRate && v <= 1)))
        throw bad(k + " must be " + range + " (it is " + value + ")");
      (sigma ? p.noise_multiplier : p.sampling_rate) = v;
    } else if (k == "batch-size" || k == "max-batch-size") {
      const auto v = parse_finite(value);
      if (!v || *v < 1 || *v != std::floor(*v) || *v > 1e15)
        throw bad(k + " must be an integer >= 1");
      (k == "batch-size" ? p.batch_size : p.max_batch_size) = static_cast<long long>(*v);
    } else if (k == "sampling") {
      if (value != "poisson" && value != "without-replacement" && value != "shuffling" &&
          value != "random-allocation" && value != "truncated-poisson")
        throw bad(
            "sampling must be poisson, truncated-poisson, without-replacement, shuffling or "
            "random-allocation");
      p.sampling = value;
    } else if (k == "neighbours") {
      if (value != "add-remove" && value != "replace-one")
        throw bad("neighbours must be add-remove or replace-one");
      p.neighbours = value;
    } else {
      (k == "steps" ? p.steps : p.epochs).push_back(value);
    }
  }
  return p;
}

std::string steps_line(double epochs, const accounting::phase_derivation& d, long long steps) {
  if (d.rule == accounting::epoch_rule::data_passes) {
    // A data loader's epochs: k batches per pass over the data, the last one smaller.
    const std::string k = std::to_string(d.batches_per_epoch);
    const std::string round = d.drop_last ? "floor" : "ceil";
    // k of t steps (random allocation, --selected k > 1): an epoch is t = ceil(k/q) steps.
    const long long sel = d.phase.selected;
    const std::string ks = sel > 1 ? std::to_string(sel) : std::string("1");
    const std::string kx = sel > 1 ? ks + " * " : std::string();
    const std::string per_pass =
        d.in_batches ? round + "(" + (sel > 1 ? "selected * " : "") + "dataset size / batch size)"
                     : "ceil(" + std::string(sel > 1 ? "selected" : "1") + " / sampling rate)";
    const std::string per_pass_numbers =
        d.in_batches ? round + "(" + kx + std::to_string(d.dataset_size) + "/" +
                           std::to_string(d.batch_size) + ")"
                     : "ceil(" + ks + "/" + format_number(d.phase.sampling_rate) + ")";
    const std::string loader =
        d.drop_last ? " (a data loader's epochs, the last, incomplete batch dropped)"
                    : " (a data loader's epochs)";
    const bool whole =
        static_cast<double>(steps) == epochs * static_cast<double>(d.batches_per_epoch);
    const std::string e = format_number(epochs);
    return whole ? "steps T = epochs * " + per_pass + " = " + e + " * " + per_pass_numbers +
                       " = " + e + " * " + k + " = " + std::to_string(steps) + loader
                 : "steps T = ceil(epochs * " + per_pass + ") = ceil(" + e + " * " + k +
                       ") = " + std::to_string(steps) + loader;
  }
  if (d.phase.sampling_rate == 1 && !d.in_batches)
    return "steps T = ceil(epochs) = ceil(" + format_number(epochs) +
           ") = " + std::to_string(steps) + " (full batch: one step per epoch)";
  if (d.in_batches)
    return "steps T = ceil(epochs * dataset size / batch size) = ceil(" + format_number(epochs) +
           " * " + std::to_string(d.dataset_size) + "/" + std::to_string(d.batch_size) +
           ") = " + std::to_string(steps);
  return "steps T = ceil(epochs / sampling rate) = ceil(" + format_number(epochs) + " / " +
         format_number(d.phase.sampling_rate) + ") = " + std::to_string(steps);
}

// A units rule the library refused, in the flags' words (`at` names the --phase).
usage_error units_usage_error(const accounting::units_error& e,
                              const std::string& at,
                              const accounting::phase_units& u,
                              const std::string& scheme,
                              const std::string& neighbours) {
  using accounting::units_rule;
  auto flag = [](std::string name) {
    for (char& c : name)
      if (c == '_') c = '-';
    return "--" + name;
  };
  switch (e.rule()) {
    case units_rule::sampling_missing:
      return usage_error(at +
                         "the sampling is not given: use --sampling-rate Q, or --batch-size B "
                         "with --dataset-size N, or --full-batch (every example in every step)");
    case units_rule::sampling_twice:
      return usage_error(at +
                         "the sampling is given twice: use one of --sampling-rate, --batch-size "
                         "(with --dataset-size) and --full-batch");
    case units_rule::dataset_missing:
      return usage_error(at +
                         "--batch-size needs --dataset-size (the sampling rate is batch size / "
                         "dataset size)");
    case units_rule::length_twice:
      return usage_error(at + "give the length once: --steps or --epochs, not both");
    case units_rule::epochs_never_end:
      return usage_error(at + "with sampling rate 0 no epoch ends: give the length in steps");
    case units_rule::truncation_missing:
      return usage_error(
          at + (e.name() == "max_batch_size"
                    ? "--sampling truncated-poisson needs --max-batch-size B (the largest batch; "
                      "larger Poisson batches keep a random B of their records)"
                    : "--sampling truncated-poisson needs --dataset-size N (the number of "
                      "records, which sets how often a batch is truncated)"));
    case units_rule::max_batch_unused:
      return usage_error(at + "--max-batch-size is only used with --sampling truncated-poisson");
    case units_rule::neighbours_fixed: {
      const auto own = accounting::standard_relation(*accounting::parse_sampling_scheme(scheme));
      return usage_error(at + "--sampling " + scheme + " takes its own neighbours only (" +
                         std::string(accounting::to_string(own)) + "), not " + neighbours +
                         "; --neighbours applies to poisson and truncated-poisson");
    }
    case units_rule::drop_last_unused:
      return usage_error(
          at + (e.other() == "sampling"
                    ? "--drop-last is only used with --sampling shuffling or without-replacement "
                      "(" + scheme + " batches have no last, incomplete batch to drop)"
                    : "--drop-last needs --batch-size B and --dataset-size N (the loader takes "
                      "floor(N/B) full batches per epoch)"));
    case units_rule::selected_unused:
      return usage_error(at + "--selected is only used with --sampling random-allocation (each "
                              "example in k of the t steps of every epoch); " +
                         scheme + " batches have no such k");
    case units_rule::batch_too_large:
      return usage_error("--batch-size is " + std::to_string(*u.batch_size) +
                         ", but must be <= --dataset-size (" + std::to_string(*u.dataset_size) +
                         ")");
    case units_rule::dataset_unused:  // resolve_run passes --dataset-size only where it is used
    case units_rule::too_many_steps:
    case units_rule::out_of_range:
      break;
  }
  return usage_error(at + flag(e.name()) + " is " + e.value() + ", but must be " + e.constraint());
}

constexpr std::size_t kMaxCurvePoints = 10000;

}  // namespace

std::string noise_words(double sigma,
                        accounting::noise_scale scale,
                        const accounting::training_phase& p) {
  const double given = accounting::noise_relative_to(sigma, scale, p);
  if (given == sigma) return format_number(sigma);
  return format_number(given) + " of the sensitivity 2C (" + format_number(sigma) + " of C)";
}

std::string describe_run(const accounting::training_run& run,
                         bool with_noise,
                         bool with_last_steps,
                         accounting::noise_scale scale) {
  std::string out;
  for (std::size_t k = 0; k < run.phases.size(); ++k) {
    const accounting::training_phase& p = run.phases[k];
    std::string phase;
    if (with_last_steps || k + 1 < run.phases.size())
      phase = std::to_string(p.steps) + " step" + (p.steps == 1 ? "" : "s") + " with ";
    if (with_noise) phase += "noise multiplier " + noise_words(p.noise_multiplier, scale, p) + ", ";
    // The scheme and the neighbouring relation are always named (a replace-one full batch too).
    const std::string relation(accounting::to_string(accounting::relation(p)));
    if (p.sampling_rate < 1) {
      phase += "sampling rate " + format_number(p.sampling_rate) + " (" +
               std::string(accounting::to_string(p.sampling));
      if (p.sampling == accounting::sampling_scheme::truncated_poisson)
        phase += " to at most " + std::to_string(p.max_batch_size) + " of " +
                 std::to_string(p.dataset_size);
      phase += ", " + relation + ")";
    } else {
      phase += "full batch";
      if (accounting::relation(p) == accounting::neighbouring::replace_one)
        phase += " (replace-one)";
    }
    out += (k == 0 ? "" : "; then ") + phase;
  }
  if (run.gaussian_mu > 0)
    out += (out.empty() ? "" : "; plus ") + std::string("a G(") + format_number(run.gaussian_mu) +
           ") factor";
  return out;
}

std::vector<double> parse_number_list(const std::string& flag,
                                      const std::vector<std::string>& items,
                                      number_kind kind,
                                      std::size_t max_count) {
  std::vector<double> out;
  for (const std::string& raw : items)
    for (const std::string& item : split(raw, ',')) {
      if (trimmed(item).empty())
        throw usage_error(flag + " is " + raw + ", but must not have an empty entry");
      parse_item(flag, trimmed(item), kind, max_count, out);
      if (out.size() > max_count)
        throw usage_error(flag + " gives " + std::to_string(out.size()) + " values, but at most " +
                          std::to_string(max_count) + " are allowed");
    }
  return out;
}

void add_run_options(CLI::App* app, run_options& o, const run_requirements& needs) {
  const char* group = "Training run";
  CLI::Option* mu = nullptr;
  if (needs.mu)
    mu = app->add_option("--mu", o.mu,
                         "The mechanism is mu-GDP (Gaussian differential privacy, Dong, Roth & "
                         "Su 2022) instead of a training run")
             ->check(real_at_least(0))
             ->type_name("M")
             ->group(group);
  auto* sigma = app->add_option("-s,--noise-multiplier", o.noise_multiplier,
                                needs.noise ? "Noise multiplier sigma: noise standard deviation / "
                                              "clipping norm (required)"
                                            : "Noise multiplier sigma: given, calibrate solves "
                                              "for the number of steps instead")
                    ->check(needs.edge_values ? noise_multiplier_edge_validator()
                                              : noise_multiplier_validator())
                    ->type_name("S")
                    ->group(group);
  auto* q =
      app->add_option("-p,--sampling-rate", o.sampling_rate,
                      "Probability q that an example is in a batch (Poisson), or batch "
                      "size / dataset size (fixed-size batches); 1 = full batch")
          ->check(needs.edge_values ? sampling_rate_edge_validator() : sampling_rate_validator())
          ->type_name("Q")
          ->group(group);
  auto* b = app->add_option("--batch-size", o.batch_size,
                            "Batch size B (Poisson: the expected batch size); with --dataset-size "
                            "it gives q = B/N")
                ->check(integer_at_least(1, kMaxExactInteger))
                ->type_name("B")
                ->group(group);
  auto* n = app->add_option("--dataset-size", o.dataset_size,
                            "Number of training examples N (with --batch-size)")
                ->check(integer_at_least(1, kMaxExactInteger))
                ->type_name("N")
                ->group(group);
  auto* full = app->add_flag("--full-batch", o.full_batch,
                             "Every example in every step (q = 1: noisy gradient descent)")
                   ->group(group);
  auto* scheme =
      app->add_option("--sampling", o.sampling,
                      "poisson: add/remove neighbours; without-replacement: fixed "
                      "batch size, replace-one neighbours (sensitivity 2); shuffling: "
                      "the data shuffled every epoch into ceil(1/q) fixed-size "
                      "batches, zero-out neighbours (epsilon/delta: a certified bracket, "
                      "lower bound of Chua et al. 2024, upper bound without "
                      "amplification; no tight accountant is known); random-allocation: each "
                      "example in one uniformly chosen step of each epoch of ceil(1/q) steps "
                      "(balls in bins), add/remove neighbours (epsilon/delta: a tight "
                      "certified bracket from the epoch's likelihood ratio bounded from both "
                      "sides, Feldman & Shenfeld 2026; rdp: the epoch's RDP); truncated-poisson: "
                      "Poisson batches cut to at most "
                      "--max-batch-size records (PLD only: upper bound from Ganesh 2025's "
                      "dominating pair, lower bound from the rate at which a record stays in "
                      "the batch)")
          ->check(CLI::IsMember({"poisson", "truncated-poisson", "without-replacement", "shuffling",
                                 "random-allocation"}))
          ->capture_default_str()
          ->group(group);
  auto* neighbours =
      app->add_option("--neighbours,--neighbors", o.neighbours,
                      "The neighbouring datasets: add-remove (one record added or removed) or "
                      "replace-one (one record replaced: the clipped sum moves by up to 2C). "
                      "Default: the scheme's own (add-remove for poisson, truncated-poisson and "
                      "random-allocation; replace-one for without-replacement; zero-out for "
                      "shuffling). poisson and truncated-poisson take either")
          ->check(CLI::IsMember({"add-remove", "replace-one"}))
          ->type_name("REL")
          ->group(group);
  auto* max_batch =
      app->add_option("--max-batch-size", o.max_batch_size,
                      "truncated-poisson: the largest batch B (a Poisson batch with more records "
                      "keeps a uniformly random B of them); needs --dataset-size N")
          ->check(integer_at_least(1, kMaxExactInteger))
          ->type_name("B")
          ->group(group);
  std::string steps_help =
      "Number of steps T (noisy gradient updates), at most 2^53; the PLD accountant composes at "
      "most 1e8 (use rdp beyond)";
  std::string epochs_help =
      "Number of epochs E: T = ceil(E N / B) steps (ceil(E / q) with --sampling-rate)";
  if (needs.curve) {
    steps_help +=
        ". Several values give a curve: 1000,5000,20000 or a range 1000:20000:1000 "
        "or 100:100000:log20";
    epochs_help += ". Several values give a curve, as for --steps";
  }
  if (!needs.length) {
    steps_help += ". Without it (and with --noise-multiplier), calibrate solves for the steps";
  }
  auto* steps = app->add_option("-i,--steps", o.steps, steps_help)->type_name("T")->group(group);
  auto* epochs = app->add_option("--epochs", o.epochs, epochs_help)->type_name("E")->group(group);
  if (!needs.curve) {
    steps->expected(1);
    epochs->expected(1);
  }
  auto* scale = app->add_option("--noise-relative-to", o.noise_relative_to,
                  "What --noise-multiplier is relative to: clip-norm (noise std / clipping norm "
                  "C: dpkit's, Opacus's and TF Privacy's sigma) or sensitivity (noise std / the "
                  "clipped sum's sensitivity: dp_accounting's and jax_privacy's sigma). They "
                  "differ for replace-one neighbours, whose sensitivity is 2C: sensitivity "
                  "0.55 is clip-norm 1.1")
      ->check(CLI::IsMember({"clip-norm", "sensitivity"}))
      ->capture_default_str()
      ->type_name("SCALE")
      ->group(group);
  auto* drop = app->add_flag("--drop-last", o.drop_last,
                "shuffling and without-replacement with --batch-size and --dataset-size: the "
                "loader drops the last, incomplete batch of every epoch (PyTorch's "
                "DataLoader(drop_last=True)), so an epoch is floor(N/B) steps and a shuffled "
                "epoch uses an example with probability floor(N/B) B/N")
      ->group(group);
  auto* selected = app->add_option("--selected", o.selected,
                "random-allocation: each example is used in K of the t steps of every epoch, "
                "the K steps chosen uniformly (k-of-t allocation); the sampling rate is then "
                "K/t, so an epoch is t = ceil(K / --sampling-rate) steps, or ceil(K N/B) with "
                "--batch-size B (the average batch) and --dataset-size N. The upper bound is "
                "k allocations of 1 of t/k steps composed, the lower bound from the epochs' sums or "
                "largest coordinates (docs/accounting.md)")
      ->check(integer_at_least(1, kMaxExactInteger))
      ->capture_default_str()
      ->type_name("K")
      ->group(group);
  CLI::Option* per_epoch = nullptr;
  if (needs.curve)
    per_epoch = app->add_flag("--per-epoch", o.per_epoch,
                              "A row after every whole epoch up to --epochs (or --steps)")
                    ->group(group);
  auto* phase =
      app->add_option("--phase", o.phases,
                      "One phase of a heterogeneous run, repeated in order: "
                      "noise-multiplier=S,sampling-rate=Q|batch-size=B|full-batch,steps=T|"
                      "epochs=E[,sampling=poisson|truncated-poisson|without-replacement|shuffling|"
                      "random-allocation][,neighbours=add-remove|replace-one][,max-batch-size=B] "
                      "(--dataset-size applies to every phase)")
          ->type_name("SPEC")
          ->group(group);
  steps->excludes(epochs);
  for (CLI::Option* x : {sigma, q, b, full, steps, epochs}) phase->excludes(x);
  (void)neighbours;
  (void)max_batch;
  if (per_epoch != nullptr) phase->excludes(per_epoch);
  if (mu != nullptr)
    for (CLI::Option* x :
         {sigma, q, b, n, full, scheme, neighbours, max_batch, steps, epochs, phase})
      mu->excludes(x);
  if (mu != nullptr) mu->excludes(drop)->excludes(scale)->excludes(selected);
  if (mu != nullptr && per_epoch != nullptr) mu->excludes(per_epoch);
}

resolved_run resolve_run(const run_options& o, const run_requirements& needs) {
  resolved_run r;
  // The name was checked when parsed (CLI::IsMember).
  r.noise_scale = accounting::parse_noise_scale(o.noise_relative_to).value();
  if (o.mu) {
    r.is_mu = true;
    r.run.gaussian_mu = *o.mu;
    r.description = "mu-GDP with mu = " + format_number(*o.mu);
    r.parameters = {{"mu", *o.mu}};
    r.steps = {1};
    r.total_steps = {1};
    return r;
  }
  // ---- the phases: --phase specs, or the single phase of the plain flags
  std::vector<phase_spec> specs;
  if (!o.phases.empty()) {
    for (const std::string& text : o.phases) specs.push_back(parse_phase(text));
  } else {
    phase_spec p;
    p.noise_multiplier = o.noise_multiplier;
    p.sampling_rate = o.sampling_rate;
    p.batch_size = o.batch_size;
    p.full_batch = o.full_batch;
    p.max_batch_size = o.max_batch_size;
    p.steps = o.steps;
    p.epochs = o.epochs;
    specs.push_back(p);
  }
  if (o.dataset_size && !o.batch_size) {
    bool used = false;
    for (const phase_spec& p : specs)
      used = used || p.batch_size.has_value() ||
             (p.sampling.empty() ? o.sampling : p.sampling) == "truncated-poisson";
    if (!used)
      throw usage_error(
          "--dataset-size is only used with --batch-size (q = B/N) or --sampling "
          "truncated-poisson; with --sampling-rate or --full-batch leave it out");
  }
  json phases_json = json::array();
  std::vector<accounting::phase_derivation> derivations;
  for (std::size_t k = 0; k < specs.size(); ++k) {
    const phase_spec& p = specs[k];
    const bool last = k + 1 == specs.size();
    const std::string at =
        specs.size() > 1 ? "--phase " + std::to_string(k + 1) + ": " : std::string();
    accounting::training_phase ph;
    if (p.noise_multiplier) {
      ph.noise_multiplier = *p.noise_multiplier;
      if (!r.noise_given)
        throw usage_error(at +
                          "give the noise multiplier in every phase or in none (calibrate "
                          "then solves for one common to all)");
    } else if (needs.noise) {
      throw usage_error(
          at +
          "the noise multiplier is not given: use --noise-multiplier S (the "
          "noise standard deviation divided by the clipping norm)" +
          (needs.mu && specs.size() == 1 ? ", or --mu M for a mu-GDP mechanism" : ""));
    } else {
      if (k > 0 && r.noise_given)
        throw usage_error(at +
                          "give the noise multiplier in every phase or in none (calibrate "
                          "then solves for one common to all)");
      r.noise_given = false;
      ph.noise_multiplier = 1.0;  // calibrate solves for it
    }
    // ---- the length: one count for every phase but the last, which may be a curve
    const bool range_ok = last && needs.curve;
    std::vector<double> epochs_list, steps_list;
    // The key as the user typed it: a flag, or a key of a --phase ("--phase 2 steps is -1").
    const std::string phase_key =
        o.phases.empty() ? std::string("--")
                         : "--phase " + (specs.size() > 1 ? std::to_string(k + 1) + " " : "");
    if (!p.epochs.empty())
      epochs_list =
          parse_number_list(phase_key + "epochs", p.epochs, number_kind::positive, kMaxCurvePoints);
    if (!p.steps.empty())
      steps_list =
          parse_number_list(phase_key + "steps", p.steps, number_kind::count, kMaxCurvePoints);
    // ---- the units: the library derives q and T (accounting/run_units.hpp)
    const std::string scheme = p.sampling.empty() ? o.sampling : p.sampling;
    const std::string neighbours = p.neighbours.empty() ? o.neighbours : p.neighbours;
    accounting::phase_units u;
    if (p.noise_multiplier) u.noise_multiplier = ph.noise_multiplier;
    u.sampling_rate = p.sampling_rate;
    u.batch_size = p.batch_size;
    u.full_batch = p.full_batch;
    // The flags' names were checked when parsed (CLI::IsMember, parse_phase).
    u.sampling = accounting::parse_sampling_scheme(scheme).value();
    if (!neighbours.empty()) u.neighbours = accounting::parse_neighbouring(neighbours).value();
    u.max_batch_size = p.max_batch_size ? p.max_batch_size : o.max_batch_size;
    u.drop_last = o.drop_last;
    u.selected = o.selected;
    u.noise_relative_to = r.noise_scale;
    // --dataset-size is shared by the phases; a phase uses it for q = B/N or a truncation.
    if (p.batch_size || u.sampling == accounting::sampling_scheme::truncated_poisson)
      u.dataset_size = o.dataset_size;
    if (!steps_list.empty()) u.steps = static_cast<long long>(steps_list.front());
    if (!epochs_list.empty()) u.epochs = epochs_list.front();
    accounting::phase_derivation d;
    try {
      d = accounting::derive_phase(u, needs.edge_values);
    } catch (const accounting::units_error& e) {
      throw units_usage_error(e, at, u, scheme, neighbours);
    }
    // The first length is the library's; the others of a curve (and --per-epoch's) alike.
    auto steps_of = [&](double epochs) {
      try {
        return accounting::steps_for_epochs(epochs, d);
      } catch (const accounting::units_error& e) {
        throw units_usage_error(e, at, u, scheme, neighbours);
      }
    };
    if (d.in_batches)
      r.derivation.push_back(at + "sampling rate q = batch size / dataset size = " +
                             ratio_text(d.batch_size, d.dataset_size) + " = " +
                             format_number(d.phase.sampling_rate));
    // The library's phase, whole; without a noise multiplier the σ set above (1, which
    // calibration solves for) stays. (Its steps: the first length's, or 1; set from the counts
    // below.)
    const double sigma = ph.noise_multiplier;
    ph = d.phase;
    if (!p.noise_multiplier) ph.noise_multiplier = sigma;
    const std::size_t values = epochs_list.size() + steps_list.size();
    if (values > 1 && !range_ok)
      throw usage_error(at + (last ? std::string("this subcommand takes one length, not a list")
                                   : std::string("only the last phase may have several "
                                                 "lengths")));
    if (values == 0 && (needs.length || !last))
      // With --phase the length is a key of the phase (--steps would be refused beside it).
      throw usage_error(at + (o.phases.empty()
                                  ? std::string("the length of the run is not given: use "
                                                "--steps T or --epochs E")
                                  : std::string("the length of the phase is not given: add "
                                                "steps=T or epochs=E to its --phase")));
    const double per_epoch = d.steps_per_epoch;
    std::vector<long long> counts;
    std::vector<double> epochs_of;
    if (!epochs_list.empty()) {
      std::vector<double> e = epochs_list;
      if (o.per_epoch && last) {
        if (e.size() != 1)
          throw usage_error("--per-epoch takes one --epochs value (the last epoch)");
        const double end = e[0];
        e.clear();
        for (double k2 = 1; k2 <= end * (1 + 1e-12); ++k2) e.push_back(k2);
        if (e.empty() || e.back() < end * (1 - 1e-12)) e.push_back(end);
      }
      for (double x : e) {
        counts.push_back(steps_of(x));
        epochs_of.push_back(x);
      }
      if (e.size() == 1) r.derivation.push_back(at + steps_line(e[0], d, counts[0]));
    } else if (!steps_list.empty()) {
      for (double x : steps_list) counts.push_back(static_cast<long long>(x));
      if (o.per_epoch && last) {
        if (counts.size() != 1)
          throw usage_error("--per-epoch takes one --steps value (the last step)");
        if (d.phase.sampling_rate == 1 && !d.in_batches)
          throw usage_error(
              "--per-epoch with --full-batch: every step is an epoch (use a range "
              "of --steps instead)");
        const long long end = counts[0];
        counts.clear();
        for (double k2 = 1;; ++k2) {
          const long long t = steps_of(k2);
          if (t >= end) break;
          counts.push_back(t);
          epochs_of.push_back(k2);
        }
        counts.push_back(end);
        epochs_of.push_back(static_cast<double>(end) / per_epoch);
      }
    } else {
      counts.push_back(1);  // calibrate solves for it
    }
    ph.steps = counts.front();
    r.run.phases.push_back(ph);
    derivations.push_back(d);
    json pj = {{"noise_multiplier", p.noise_multiplier ? json(*p.noise_multiplier) : json()},
               {"sampling_rate", ph.sampling_rate},
               {"sampling", scheme},
               {"neighbours", std::string(accounting::to_string(accounting::relation(ph)))}};
    if (ph.sampling == accounting::sampling_scheme::truncated_poisson)
      pj["max_batch_size"] = ph.max_batch_size;
    if (d.in_batches) pj["batch_size"] = d.batch_size;
    if (p.full_batch) pj["full_batch"] = true;
    if (d.drop_last) pj["drop_last"] = true;
    if (ph.selected > 1) pj["selected"] = ph.selected;
    if (r.noise_scale != accounting::noise_scale::clip_norm)
      pj["noise_relative_to"] = std::string(accounting::to_string(r.noise_scale));
    if (values > 0) {
      pj["steps"] = counts.size() == 1 ? json(counts[0]) : json(counts);
      if (!epochs_of.empty())
        pj["epochs"] = epochs_of.size() == 1 ? json(epochs_of[0]) : json(epochs_of);
    }
    phases_json.push_back(pj);
    if (last) {
      r.steps_per_epoch = per_epoch;
      r.in_batches = d.in_batches;
      if (values > 0) r.steps = counts;
      if (!epochs_of.empty()) {
        // The run's epochs: the last phase's plus the earlier phases' (each T/(steps per epoch)).
        double before = 0;
        for (std::size_t j = 0; j + 1 < specs.size(); ++j)
          before += static_cast<double>(r.run.phases[j].steps) / derivations[j].steps_per_epoch;
        for (double e : epochs_of) r.epochs.push_back(before + e);
      }
    }
  }
  long long earlier = 0;
  for (std::size_t j = 0; j + 1 < r.run.phases.size(); ++j) earlier += r.run.phases[j].steps;
  for (long long t : r.steps) r.total_steps.push_back(earlier + t);
  r.run.validate("dpkit", needs.edge_values);
  r.description = describe_run(r.run, true, true, r.noise_scale);
  if (r.steps.size() > 1) {
    // A curve: the run without its last phase's (varying) length, then the lengths.
    const auto [lo, hi] = std::minmax_element(r.steps.begin(), r.steps.end());
    r.description = describe_run(r.run, true, false, r.noise_scale) + ", " +
                    std::to_string(r.steps.size()) +
                    " step counts from " + std::to_string(*lo) + " to " + std::to_string(*hi);
  }
  if (o.dataset_size) {
    for (json& pj : phases_json) pj["dataset_size"] = *o.dataset_size;
  }
  if (phases_json.size() == 1) {
    r.parameters = phases_json[0];
  } else {
    r.parameters = {{"phases", phases_json}};
  }
  return r;
}

}  // namespace dpkit::cli
