// dpkit_domain_sweep — the accountants' promises checked at seeded random runs over the whole
// accepted domain (docs/guarantees.md, "The domain sweep").
//
// Each case (sweep_cases.cpp) is a training run with δ; the sweep asks every accountant through
// the facade the CLI and Python use (estimate_epsilon, estimate_delta, calibrate_noise_multiplier)
// and checks what must hold whatever the values:
//
//   labels      a bound is a number (no NaN), lower ≤ upper, ε ≥ 0, an upper end +∞ only where
//               said (never for these runs), a δ upper end 0 only for an edge value (δ > 0
//               wherever Gaussian noise is released); the CLT is an approximation, never a bound
//   exact       where the run has a closed form (support/exact_curves.hpp, 50 digits), every
//               certified lower end ≤ the exact ε ≤ every upper end
//   across      every certified lower end of the run ≤ every certified upper end (PLD, RDP)
//   monotone    the run's certified lower end ≤ the upper ends of a run whose exact ε is at least
//               as large (smaller σ, more steps, a larger rate for per-step schemes)
//   delta       δ(ε) and ε(δ) brackets agree: at the certified ε_upper, the certified δ lower
//               end is ≤ δ; at ε_lower > 0, every certified δ upper end is ≥ δ
//   calibrate   (one case in 20) the returned σ's certified ε is ≤ the target, and evaluated
//               afresh it is not certified above the target (its lower end is ≤ the target);
//               converged means the budget is used to within the tolerance, or ε = 0 exactly
//               where the message says so; at σ·0.99 (σ·0.95 at accuracy 1e-2) the certified
//               ε exceeds the target
//
// A refusal (an exception: the accountant cannot answer there) is counted, with its message,
// never a failure — unless its message does not start with a name the user gave.
//
// usage: dpkit_domain_sweep [--tier quick|full] [--cases N] [--seed S] [--first I]
//                           [--threads K] [--failures FILE] [--times FILE] [--refusals FILE]
//                           [--wide FILE] [--stop-after S] [--grace G] [--quiet] [--list]
// --stop-after starts no case after S seconds; cases still running G seconds later (default 120)
// are named as unfinished and the process ends, reporting the cases that finished (for a machine
// lent for a fixed time: the report is what was checked, never more).
// --list prints each case (its run, and a calibration's target) without running it.
// --times writes each case's wall time and description (a CSV), to see where the time goes.
// --refusals writes every refusal whole (case, where, message: a CSV), to read them one by one.
// --wide writes every answer wider than asked (certified, with a note) the same way: where the
// accountants stop short of the accuracy, and why.
// Exit 0: every property held; 3: a property failed (each printed with its case); 4: stopped by
// --stop-after before every case finished, and every property held in those that did.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/core/csv.hpp"
#include "sweep_cases.hpp"

namespace {

namespace acc = dpkit::accounting;
namespace sw = dpkit::sweep;
using dpkit::test::real50;

struct failure {
  std::uint64_t index;
  std::string property, detail, where;
};

// What one case produced: failures, refusals (messages with the numbers taken out), counts.
struct case_result {
  std::vector<failure> failures;
  std::vector<std::string> refusals;
  std::vector<std::pair<std::string, std::string>> refusal_texts;  // where, whole message
  std::vector<std::pair<std::string, std::string>> wide_texts;     // where, the answer's note
  int evaluations = 0, exact_checks = 0, calibrations = 0, unconverged = 0;
  double seconds = 0;
};

// The PLD accountant's failure where its truncation corrections alone exceed δ (an ε of +∞).
constexpr const char* kTruncationAlone = "the truncation corrections alone exceed the target";

// A refusal's message with its numbers replaced by #, so that the same refusal groups.
std::string shape(const std::string& message) {
  std::string out;
  bool in_number = false;
  for (std::size_t i = 0; i < message.size(); ++i) {
    const char c = message[i];
    const bool digit = std::isdigit(static_cast<unsigned char>(c)) != 0 ||
                       (in_number && (c == '.' || c == 'e' || c == '+' || c == '-'));
    if (digit) {
      if (!in_number) out += '#';
      in_number = true;
    } else {
      in_number = false;
      out += c;
    }
  }
  return out.substr(0, 160);
}

// The names a refusal may open with: the run's quantities, as the user gave them (the CLI turns
// them into flags, Python keeps them). Anything else is an internal name reaching the user.
bool names_an_input(const std::string& message) {
  static const char* const kNames[] = {"noise_multiplier",
                                       "sampling_rate",
                                       "steps",
                                       "delta",
                                       "epsilon",
                                       "target_epsilon",
                                       "the run",
                                       "the phase",
                                       "sampling",
                                       "--",
                                       "max_batch_size",
                                       "dataset_size",
                                       "accountant",
                                       "the number of",
                                       "gaussian_mu",
                                       "the CLT",
                                       "pld",
                                       "alpha",
                                       "one step of this run",
                                       "the composed distribution of this run",
                                       "calibration needs the accountant at noise"};
  std::string m = message;
  // The facade's messages start with the function's name: "estimate_epsilon: ...".
  const auto colon = m.find(": ");
  if (colon != std::string::npos && colon < 40 && m.find(' ') > colon) m = m.substr(colon + 2);
  for (const char* n : kNames)
    if (m.rfind(n, 0) == 0) return true;
  return false;
}

// A failed answer's message (termination failure: "could not bracket ...", "the truncation
// corrections alone exceed the target") is a sentence, not an argument check, so it opens with
// no input's name; what it must not do is carry an internal quantity or a NaN to the user. Returns
// the first such word ("" where none): a snake_case name other than the inputs' and the peers'
// (after the function name a message may open with), "nan", or the engine's "internal fault".
std::string internal_word(const std::string& message) {
  static const char* const kAllowed[] = {"noise_multiplier", "sampling_rate",      "max_batch_size",
                                         "dataset_size",     "target_epsilon",     "gaussian_mu",
                                         "dp_accounting",    "relative_accuracy",  "max_fft_size",
                                         "budget_tolerance", "relative_tolerance", "grid_spacing"};
  std::string m = message;
  const auto colon = m.find(": ");
  if (colon != std::string::npos && colon < 40 && m.find(' ') > colon) m = m.substr(colon + 2);
  if (m.find("internal fault") != std::string::npos) return "internal fault";
  std::string word;
  auto flush = [&]() -> std::string {
    std::string w;
    w.swap(word);
    if (w == "nan" || w == "NaN" || w == "-nan") return w;
    if (w.find('_') == std::string::npos || w.front() == '_' || w.back() == '_') return "";
    for (const char* a : kAllowed)
      if (w == a) return "";
    return w;
  };
  for (const char ch : m) {
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || (ch == '-' && word.empty())) {
      word += ch;
    } else if (const std::string w = flush(); !w.empty()) {
      return w;
    }
  }
  return flush();
}

// Whether a refusal opens with the noise multiplier (after the facade's function name).
bool names_the_noise_multiplier(const std::string& message) {
  std::string m = message;
  const auto colon = m.find(": ");
  if (colon != std::string::npos && colon < 40 && m.find(' ') > colon) m = m.substr(colon + 2);
  return m.rfind("noise_multiplier", 0) == 0;
}

std::string num(double x) {
  std::ostringstream s;
  s.precision(17);
  s << x;
  return s.str();
}
std::string num(const real50& x) {
  std::ostringstream s;
  s.precision(25);
  s << x;
  return s.str();
}

class checker {
 public:
  checker(const sw::sweep_case& c, case_result& out) : c_(c), out_(out) {
    pld_.relative_accuracy = c.accuracy;
    pld_.max_fft_size = c.max_fft_size;
  }

  void fail(const std::string& property, const std::string& detail, const std::string& where) {
    out_.failures.push_back({c_.index, property, detail, where});
  }

  // A refusal, grouped by its shape in the summary and kept whole for --refusals.
  void refused(const std::string& where, const std::string& message) {
    out_.refusals.push_back(where + ": " + shape(message));
    out_.refusal_texts.emplace_back(where, message);
  }

  // One facade call; nullopt where it refuses (counted), with the refusal's message checked.
  template <class Call>
  std::optional<acc::privacy_estimate> ask(const std::string& where, Call&& call) {
    ++out_.evaluations;
    try {
      acc::privacy_estimate e = call();
      if (e.termination == dpkit::termination_type::failure) {
        refused(where, e.message);
        // The PLD's truncation alone exceeds δ only near its floor: each step's losses are cut
        // at max(1e-6·δ/T, 1e-300), so the corrections reach δ only where T·1e-300 nears it.
        // Far above, the failure hid a fault and an answer existed (lattice indices beyond
        // 2^53: full-tier cases 5 701, 6 238, 27 956 and others, counted as refusals until
        // 2026-11-28). Every ε query of a case is at its δ; 1e6 of room.
        if (e.message == kTruncationAlone && where.find("delta/") != 0 &&
            c_.delta >
                1e6 * 1e-300 *
                    static_cast<double>(std::max(c_.run.total_steps(), c_.larger.total_steps())))
          fail("refusal",
               "the PLD accountant gave no epsilon at delta " + num(c_.delta) +
                   ", far above its truncation floor (T * 1e-300): " + e.message,
               where);
        // (The PLD engine now calls a NaN upper end an internal fault: δ(ε) with a G(μ₀) factor
        // once gave one, called "the truncation corrections alone exceed the target".)
        if (const std::string w = internal_word(e.message); !w.empty())
          fail("message", "a failure that shows an internal word (" + w + "): " + e.message, where);
        return std::nullopt;
      }
      if (e.termination != dpkit::termination_type::converged) {
        ++out_.unconverged;
        out_.wide_texts.emplace_back(where, e.message);
      }
      return e;
    } catch (const std::exception& e) {
      const std::string m = e.what();
      refused(where, m);
      if (!names_an_input(m)) fail("message", "a refusal that names no input: " + m, where);
      return std::nullopt;
    }
  }

  // The labels of an ε (or δ) answer.
  void labels(const acc::privacy_estimate& e, const std::string& where, bool is_delta) {
    // The CLT is an approximation — except for full-batch runs, where every accountant gives the
    // exact Gaussian curve, labelled as the bound it is.
    const bool bound = e.kind == dpkit::bound_kind::upper_bound;
    if (e.kind == dpkit::bound_kind::approximation) {
      if (e.accountant != acc::accountant_type::clt)
        fail("labels", "an approximation from a certified accountant", where);
      if (std::isnan(e.value)) fail("labels", "the CLT's value is NaN", where);
      return;
    }
    // An edge value (edge_values.cpp: no noise, nothing released, rare participation) is the
    // library's closed form for every accountant, not the CLT's approximation.
    if (e.accountant == acc::accountant_type::clt && !c_.run.is_gaussian() && !e.edge_value)
      fail("labels", "the CLT's answer is labelled " + std::string(dpkit::to_string(e.kind)),
           where);
    if (!bound) {
      fail("labels", "labelled " + std::string(dpkit::to_string(e.kind)), where);
      return;
    }
    if (std::isnan(e.value) || std::isnan(e.upper))
      fail("labels", "a bound is NaN: value " + num(e.value), where);
    if (!(e.value >= 0)) fail("labels", "a negative bound " + num(e.value), where);
    if (std::isinf(e.value) && e.method.rfind("edge value", 0) != 0)
      fail("labels", "an upper bound of +inf", where);
    if (is_delta && e.value > 1) fail("labels", "delta above 1: " + num(e.value), where);
    // A run that releases something with Gaussian noise has delta(eps) > 0 at every eps: an
    // upper bound of 0 (a delta below the doubles rounded down) would be false.
    if (is_delta && e.value == 0 && !e.edge_value)
      fail("labels", "a delta upper bound of 0 (delta is positive)", where);
    if (!std::isnan(e.lower)) {
      if (!(e.lower <= e.upper))
        fail("labels", "lower " + num(e.lower) + " above upper " + num(e.upper), where);
      if (!(e.lower >= 0)) fail("labels", "a negative lower end " + num(e.lower), where);
    }
  }

  void run() {
    const double delta = c_.delta;
    // ε(δ) of the run, by each accountant.
    std::map<acc::accountant_type, acc::privacy_estimate> eps;
    for (const acc::accountant_type a :
         {acc::accountant_type::pld, acc::accountant_type::rdp, acc::accountant_type::clt}) {
      const std::string where = "epsilon/" + std::string(acc::to_string(a));
      if (auto e = ask(where, [&] { return acc::estimate_epsilon(c_.run, delta, a, pld_); })) {
        labels(*e, where, false);
        eps.emplace(a, *e);
      }
    }
    const double lower = certified_lower(eps), upper = certified_upper(eps);
    // across: every certified lower end ≤ every certified upper end.
    if (!(lower <= upper))
      fail("across", "certified lower end " + num(lower) + " above an upper end " + num(upper),
           "epsilon");
    // exact: against the 50-digit closed form.
    if (const auto curve = sw::exact_curve(c_)) {
      ++out_.exact_checks;
      const real50 exact = dpkit::test::exact_epsilon(*curve, delta);
      for (const auto& [a, e] : eps) {
        if (e.kind != dpkit::bound_kind::upper_bound) continue;
        const std::string where = "exact/" + std::string(acc::to_string(a));
        if (!dpkit::test::at_least(e.upper, exact))
          fail("exact", "upper " + num(e.upper) + " below the exact epsilon " + num(exact), where);
        if (!std::isnan(e.lower) && !dpkit::test::at_most(e.lower, exact))
          fail("exact", "lower " + num(e.lower) + " above the exact epsilon " + num(exact), where);
      }
    }
    // monotone: this run's lower ends ≤ the upper ends of a run with a larger exact ε.
    if (std::isfinite(lower) && lower > 0) {
      std::map<acc::accountant_type, acc::privacy_estimate> larger;
      for (const acc::accountant_type a : {acc::accountant_type::pld, acc::accountant_type::rdp})
        if (auto e = ask("monotone/" + std::string(acc::to_string(a)),
                         [&] { return acc::estimate_epsilon(c_.larger, delta, a, pld_); }))
          larger.emplace(a, *e);
      const double up = certified_upper(larger);
      const char* moved = c_.moved == sw::perturbation::noise   ? "a smaller noise multiplier"
                          : c_.moved == sw::perturbation::steps ? "more steps"
                                                                : "a larger sampling rate";
      if (!(lower <= up))
        fail("monotone",
             "lower end " + num(lower) + " above the upper end " + num(up) + " of the run with " +
                 moved + " (" + describe_phase(c_.larger) + ")",
             "epsilon");
    }
    // delta: the δ(ε) brackets at the certified ε ends.
    const auto pld = eps.find(acc::accountant_type::pld);
    if (pld != eps.end() && std::isfinite(pld->second.upper)) {
      if (auto d = ask("delta/pld", [&] {
            return acc::estimate_delta(c_.run, pld->second.upper, acc::accountant_type::pld, pld_);
          })) {
        labels(*d, "delta/pld", true);
        if (!std::isnan(d->lower) && !(d->lower <= delta))
          fail("delta",
               "at epsilon_upper " + num(pld->second.upper) +
                   " the certified delta "
                   "lower end " +
                   num(d->lower) + " exceeds delta " + num(delta),
               "delta/pld");
      }
    }
    if (std::isfinite(lower) && lower > 0) {
      for (const acc::accountant_type a : {acc::accountant_type::pld, acc::accountant_type::rdp}) {
        const std::string where = "delta/" + std::string(acc::to_string(a));
        if (auto d = ask(where, [&] { return acc::estimate_delta(c_.run, lower, a, pld_); })) {
          labels(*d, where, true);
          if (!(d->value >= delta))
            fail("delta",
                 "at the certified epsilon_lower " + num(lower) + " the delta upper " + "bound " +
                     num(d->value) + " is below delta " + num(delta),
                 where);
        }
      }
    }
    if (c_.calibrate) calibrate();
  }

 private:
  static double certified_lower(const std::map<acc::accountant_type, acc::privacy_estimate>& m) {
    double lo = 0;
    for (const auto& [a, e] : m)
      if (e.kind == dpkit::bound_kind::upper_bound && !std::isnan(e.lower))
        lo = std::max(lo, e.lower);
    return lo;
  }
  static double certified_upper(const std::map<acc::accountant_type, acc::privacy_estimate>& m) {
    double up = INFINITY;
    for (const auto& [a, e] : m)
      if (e.kind == dpkit::bound_kind::upper_bound && !std::isnan(e.upper))
        up = std::min(up, e.upper);
    return up;
  }
  static std::string describe_phase(const acc::training_run& r) {
    const acc::training_phase& p = r.phases.front();
    return "sigma " + num(p.noise_multiplier) + ", q " + num(p.sampling_rate) + ", T " +
           std::to_string(p.steps);
  }

  void calibrate() {
    ++out_.calibrations;
    const double target = c_.target_epsilon, delta = c_.delta;
    acc::noise_calibration cal;
    try {
      acc::calibration_options co;
      co.pld = pld_;
      cal = acc::calibrate_noise_multiplier(c_.run, target, delta, co);
    } catch (const std::exception& e) {
      refused("calibrate", e.what());
      if (!names_an_input(e.what()))
        fail("message", std::string("a refusal that names no input: ") + e.what(), "calibrate");
      // A calibration is given no noise multiplier: a refusal of one names a value the search
      // made up ("noise_multiplier is nan", case 3791), which the CLI shows as the user's flag.
      else if (names_the_noise_multiplier(e.what()))
        fail("message",
             std::string("a calibration refused by a noise multiplier the user did not give: ") +
                 e.what(),
             "calibrate");
      return;
    }
    const std::string where = "calibrate (target " + num(target) + ")";
    if (std::isnan(cal.noise_multiplier)) {
      if (cal.converged()) fail("calibrate", "converged without a noise multiplier", where);
      // ε = 0 at every σ where the example enters a batch with probability ≤ δ (per-step
      // schemes, no G(μ) factor): such a calibration has an answer and must give it (cases
      // 6706, 7633, ... before 2026-11-27 said "could not bracket").
      if (!c_.run.has_epoch_sampling() && c_.run.gaussian_mu == 0) {
        double log_unused = 0;
        for (const acc::training_phase& p : c_.run.phases)
          log_unused += static_cast<double>(p.steps) * std::log1p(-p.sampling_rate);
        if (-std::expm1(log_unused) <= delta)
          fail("calibrate",
               "no answer, yet the example enters a batch with probability " +
                   num(-std::expm1(log_unused)) +
                   " <= delta: epsilon = 0 at every noise multiplier",
               where);
      }
      refused("calibrate", cal.message);
      if (const std::string w = internal_word(cal.message); !w.empty())
        fail("message",
             "a failed calibration that shows an internal word (" + w + "): " + cal.message, where);
      return;
    }
    if (!(cal.estimate.value <= target))
      fail("calibrate", "the returned epsilon " + num(cal.estimate.value) + " exceeds the target",
           where);
    acc::training_run at = c_.run;
    for (acc::training_phase& p : at.phases) p.noise_multiplier = cal.noise_multiplier;
    // Evaluated afresh (on its own grid, not the search's), the run at the returned σ must not
    // be certified to exceed the target: its lower end is ≤ the target. (Its upper end may be
    // above: two certified upper bounds of one ε may differ by their brackets' widths.)
    if (auto e = ask("calibrate/recheck", [&] {
          return acc::estimate_epsilon(at, delta, acc::accountant_type::pld, pld_);
        }))
      if (!std::isnan(e->lower) && !(e->lower <= target))
        fail("calibrate",
             "at the returned noise multiplier " + num(cal.noise_multiplier) +
                 " the certified lower end is " + num(e->lower) + ", above the target",
             where);
    // The epoch schemes take noise multipliers from 0.025 (the library's kSmallestEpochNoise, as
    // below); where the budget holds there already, 0.025 is the answer and the message says
    // so (case 35587: random allocation, target 3.2e6, epsilon 1855 at 0.025).
    const bool at_epoch_floor = c_.run.has_epoch_sampling() && cal.noise_multiplier <= 0.025;
    if (at_epoch_floor && cal.message.find("the smallest noise multiplier") == std::string::npos)
      fail("calibrate", "the smallest noise multiplier the scheme takes, and no word on it", where);
    if (cal.converged() && cal.estimate.value > 0 && cal.estimate.value < (1 - 2e-4) * target &&
        !at_epoch_floor)
      fail("calibrate",
           "converged, yet epsilon " + num(cal.estimate.value) +
               " leaves more than the budget tolerance unused",
           where);
    if (cal.converged() && cal.estimate.value == 0 && cal.message.empty())
      fail("calibrate", "epsilon = 0 at the returned noise multiplier, and no word on it", where);
    // The smallest: a little less noise (1 %, or 5 brackets' widths at a coarse accuracy)
    // exceeds the budget, unless ε = 0 there already is the answer the message announces.
    if (cal.converged() && cal.estimate.value > 0) {
      const double factor = 1 - std::max(0.01, 5 * c_.accuracy);
      acc::training_run less = at;
      for (acc::training_phase& p : less.phases) p.noise_multiplier *= factor;
      if (less.phases.front().noise_multiplier >= 0.025)
        if (auto e = ask("calibrate/smaller", [&] {
              return acc::estimate_epsilon(less, delta, acc::accountant_type::pld, pld_);
            }))
          if (!(e->value > target))
            fail("calibrate",
                 "at " + num(factor) +
                     " of the returned noise multiplier the "
                     "certified epsilon " +
                     num(e->value) + " is still within the target",
                 where);
    }
  }

  const sw::sweep_case& c_;
  case_result& out_;
  acc::pld_options pld_;
};

struct options {
  sw::tier tier = sw::tier::quick;
  std::uint64_t cases = 0, seed = 20261125, first = 0;
  unsigned threads = 0;
  std::string failures_file, times_file, refusals_file, wide_file;
  double stop_after = -1, grace = 120;  // seconds; stop_after < 0: run every case
  bool quiet = false, list = false;
};

int usage(const std::string& why) {
  std::cerr << "dpkit_domain_sweep: " << why
            << "\nusage: dpkit_domain_sweep [--tier quick|full] [--cases N] [--seed S] [--first I]"
               " [--threads K] [--failures FILE] [--times FILE] [--refusals FILE] [--wide FILE]"
               " [--stop-after S]"
               " [--grace G] [--quiet] [--list]\n";
  return 2;
}

// The summary over the cases that finished (state 2), and the files asked for; the exit code.
int report(const options& o,
           const std::vector<case_result>& results,
           const std::vector<char>& state,
           double seconds) {
  std::map<std::string, int> by_property, refusals;
  long long evaluations = 0, exact = 0, calibrations = 0, unconverged = 0, failed_cases = 0;
  std::uint64_t finished = 0;
  std::vector<std::uint64_t> running;
  std::vector<std::pair<double, std::uint64_t>> slowest;
  for (std::uint64_t k = 0; k < o.cases; ++k) {
    if (state[k] == 1) running.push_back(o.first + k);
    if (state[k] != 2) continue;
    const case_result& r = results[k];
    ++finished;
    evaluations += r.evaluations, exact += r.exact_checks, calibrations += r.calibrations;
    unconverged += r.unconverged;
    failed_cases += r.failures.empty() ? 0 : 1;
    for (const failure& f : r.failures) ++by_property[f.property];
    for (const std::string& m : r.refusals) ++refusals[m];
    slowest.emplace_back(r.seconds, o.first + k);
  }
  std::sort(slowest.rbegin(), slowest.rend());
  std::cout << "domain sweep: " << finished << " cases";
  if (finished < o.cases)
    std::cout << " of " << o.cases << " asked for (stopped after " << o.stop_after << " s; "
              << running.size() << " still running, " << o.cases - finished - running.size()
              << " not started)";
  std::cout << " (seed " << o.seed << ", first " << o.first << ", "
            << (o.tier == sw::tier::quick ? "quick" : "full") << " tier), " << evaluations
            << " accountant answers, " << exact << " against a 50-digit closed form, "
            << calibrations << " calibrations; " << unconverged
            << " answers wider than asked (certified, with a note); " << failed_cases
            << " cases failed; " << seconds << " s on " << o.threads << " threads\n";
  if (!running.empty()) {
    std::cout << "unfinished (running at the stop, not checked):";
    for (const std::uint64_t k : running) std::cout << " " << k;
    std::cout << "\n";
  }
  for (const auto& [p, n] : by_property) std::cout << "  failed " << p << ": " << n << "\n";
  std::cout << "refusals (the accountant cannot answer there; counted, not failures):\n";
  std::vector<std::pair<int, std::string>> ordered;
  for (const auto& [m, n] : refusals) ordered.emplace_back(n, m);
  std::sort(ordered.rbegin(), ordered.rend());
  for (const auto& [n, m] : ordered) std::cout << "  " << n << " x " << m << "\n";
  std::cout << "slowest cases:";
  for (std::size_t i = 0; i < std::min<std::size_t>(5, slowest.size()); ++i)
    std::cout << " " << slowest[i].second << " (" << slowest[i].first << " s)";
  std::cout << "\n";
  if (!o.failures_file.empty()) {
    std::ofstream f(o.failures_file);
    f << "case,property,where,detail\n";
    for (std::uint64_t k = 0; k < o.cases; ++k)
      if (state[k] == 2)
        for (const failure& x : results[k].failures)
          f << dpkit::csv_row({std::to_string(x.index), x.property, x.where, x.detail}) << "\n";
  }
  // Every refusal, or every answer wider than asked, whole, by case: to read them one by one.
  auto write_texts = [&](const std::string& file, auto texts_of) {
    if (file.empty()) return;
    std::ofstream f(file);
    f << "case,where,message\n";
    for (std::uint64_t k = 0; k < o.cases; ++k)
      if (state[k] == 2)
        for (const auto& [where, message] : texts_of(results[k]))
          f << dpkit::csv_row({std::to_string(o.first + k), where, message}) << "\n";
  };
  write_texts(
      o.refusals_file, [](const case_result& r) -> const auto& { return r.refusal_texts; });
  write_texts(
      o.wide_file, [](const case_result& r) -> const auto& { return r.wide_texts; });
  if (!o.times_file.empty()) {
    std::ofstream f(o.times_file);
    f << "case,seconds,calibrate,description\n";
    for (std::uint64_t k = 0; k < o.cases; ++k) {
      if (state[k] != 2) continue;
      const sw::sweep_case c = sw::make_case(o.seed, o.first + k, o.tier);
      f << dpkit::csv_row({std::to_string(c.index), num(results[k].seconds),
                           c.calibrate ? "1" : "0", c.describe()})
        << "\n";
    }
  }
  if (failed_cases > 0) return 3;
  return finished < o.cases ? 4 : 0;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw std::runtime_error(a + " needs a value");
      return argv[++i];
    };
    try {
      if (a == "--tier") {
        const std::string t = value();
        if (t != "quick" && t != "full")
          return usage("--tier is " + t + ", but must be quick or full");
        o.tier = t == "quick" ? sw::tier::quick : sw::tier::full;
      } else if (a == "--cases") {
        o.cases = std::stoull(value());
      } else if (a == "--seed") {
        o.seed = std::stoull(value());
      } else if (a == "--first") {
        o.first = std::stoull(value());
      } else if (a == "--threads") {
        o.threads = static_cast<unsigned>(std::stoul(value()));
      } else if (a == "--failures") {
        o.failures_file = value();
      } else if (a == "--times") {
        o.times_file = value();
      } else if (a == "--refusals") {
        o.refusals_file = value();
      } else if (a == "--wide") {
        o.wide_file = value();
      } else if (a == "--stop-after" || a == "--grace") {
        const double v = std::stod(value());
        if (!(v >= 0 && v <= 1e9))
          return usage(a + " is " + argv[i] + ", but must be a number of seconds in [0, 1e9]");
        (a == "--grace" ? o.grace : o.stop_after) = v;
      } else if (a == "--list") {
        o.list = true;
      } else if (a == "--quiet") {
        o.quiet = true;
      } else {
        return usage("unknown argument " + a);
      }
    } catch (const std::exception& e) {
      return usage(e.what());
    }
  }
  if (o.cases == 0) o.cases = o.tier == sw::tier::quick ? 600 : 1000000;
  if (o.list) {
    for (std::uint64_t k = 0; k < o.cases; ++k) {
      const sw::sweep_case c = sw::make_case(o.seed, o.first + k, o.tier);
      std::cout << c.describe()
                << (c.calibrate ? "; calibrated to epsilon " + num(c.target_epsilon) : "") << "\n";
    }
    return 0;
  }
  if (o.threads == 0) o.threads = std::max(1u, std::thread::hardware_concurrency());

  std::vector<case_result> results(o.cases);
  // 0: not started, 1: running, 2: finished; read and written under `print`.
  std::vector<char> state(o.cases, 0);
  std::atomic<std::uint64_t> next{0}, done{0};
  unsigned exited = 0;
  std::mutex print;
  std::condition_variable all_exited;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  auto worker = [&] {
    while (o.stop_after < 0 || elapsed() < o.stop_after) {
      const std::uint64_t k = next++;
      if (k >= o.cases) break;
      {
        std::lock_guard<std::mutex> lock(print);
        state[k] = 1;
      }
      const auto t0 = std::chrono::steady_clock::now();
      const sw::sweep_case c = sw::make_case(o.seed, o.first + k, o.tier);
      case_result& r = results[k];
      try {
        checker(c, r).run();
      } catch (const std::exception& e) {
        r.failures.push_back({c.index, "internal", e.what(), "sweep"});
      }
      r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const std::uint64_t n = ++done;
      std::lock_guard<std::mutex> lock(print);
      state[k] = 2;
      if (r.seconds > 10)
        std::cerr << "dpkit_domain_sweep: slow case (" << r.seconds << " s): " << c.describe()
                  << (c.calibrate ? " (calibrated to epsilon " + num(c.target_epsilon) + ")" : "")
                  << "\n";
      for (const failure& f : r.failures)
        std::cout << "FAIL " << f.property << " [" << f.where << "] " << c.describe() << ": "
                  << f.detail << std::endl;
      if (!o.quiet && (n % 1000 == 0 || n == o.cases))
        std::cerr << "dpkit_domain_sweep: " << n << " of " << o.cases << " cases, " << elapsed()
                  << " s\n";
    }
    std::lock_guard<std::mutex> lock(print);
    ++exited;
    all_exited.notify_all();
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < o.threads; ++t) pool.emplace_back(worker);
  std::unique_lock<std::mutex> lock(print);
  if (o.stop_after < 0) {
    all_exited.wait(lock, [&] { return exited == o.threads; });
  } else if (!all_exited.wait_for(lock, std::chrono::duration<double>(o.stop_after + o.grace),
                                  [&] { return exited == o.threads; })) {
    // Cases still running past the grace: report what finished and end the process without
    // waiting for them (their threads cannot be stopped from outside). The lock stays held, so
    // no worker marks a case finished or prints from here on (a running case may still write
    // its own result, which the report does not read).
    const int rc = report(o, results, state, elapsed());
    std::cout.flush();
    std::cerr.flush();
    std::_Exit(rc);
  }
  lock.unlock();
  for (std::thread& t : pool) t.join();
  return report(o, results, state, elapsed());
}
