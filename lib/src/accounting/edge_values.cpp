// Edge values of the facade (accountant.hpp): phases with sampling rate 0 or noise multiplier
// 0 or +inf, answered in closed form or by leaving the phase out.
#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <utility>

#include "detail/facade.hpp"
#include "dpkit/core/check.hpp"

namespace dpkit::accounting::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// The participation cap as a method names it, capped bound or approximation alike.
constexpr const char* kParticipationChance =
    "the chance that the example enters a batch, 1 - prod (1 - q)^T";

// Edge values (docs/accounting.md, "Edge values"). A phase with sampling rate 0 or noise
// multiplier +inf releases nothing about the data: it is left out. A phase with noise
// multiplier 0 and q > 0 releases, at each step, the sampled examples' gradients exactly: with
// probability p = 1 − Π (1 − q)^T over such phases the differing example is in one of their
// batches, and then (worst-case gradients, either neighbouring relation) the output tells the
// two datasets apart. So δ(ε) ≥ p for every ε, and no finite ε holds below δ = p. The answers
// here are exact where they say so and otherwise the trivial bound, labelled as such.
struct edge_split {
  training_run rest;      // the phases with 0 < σ < ∞ and q > 0, and the Gaussian factor
  long long dropped = 0;  // phases with q = 0 or σ = +∞
  bool clear = false;     // some phase with σ = 0 and q > 0
  double log_keep = 0;    // Σ T log(1 − q) over those phases: log P(never in such a batch)
  [[nodiscard]] bool edge() const { return dropped > 0 || clear; }
  // p, the probability that the differing example is in a noiseless batch.
  [[nodiscard]] double p_clear() const { return -std::expm1(log_keep); }
};

edge_split split_edges(const training_run& run, const char* fn) {
  edge_split out;
  out.rest.gaussian_mu = run.gaussian_mu;
  for (const training_phase& ph : run.phases) {
    if (std::isnan(ph.noise_multiplier) || ph.noise_multiplier < 0)
      throw_domain_error(fn, "noise_multiplier", ph.noise_multiplier, "in [0, +inf]");
    if (!(ph.sampling_rate >= 0 && ph.sampling_rate <= 1))
      throw_domain_error(fn, "sampling_rate", ph.sampling_rate, "in [0, 1]");
    check_at_least(fn, "steps", ph.steps, 1);
    if (ph.sampling_rate == 0 || ph.noise_multiplier == kInf) {
      ++out.dropped;
    } else if (ph.noise_multiplier == 0) {
      // With truncation the differing record is in a noiseless batch with a probability below
      // 1 − (1 − q)^T that dpkit does not compute: refused rather than answered loosely.
      if (ph.sampling == sampling_scheme::truncated_poisson && ph.max_batch_size < ph.dataset_size)
        throw_domain_error(fn, "noise_multiplier", 0.0,
                           "> 0 for truncated Poisson batches (no edge value is computed for "
                           "them)");
      out.clear = true;
      if (ph.sampling_rate == 1)
        out.log_keep = -kInf;  // a full noiseless batch: p = 1
      else
        out.log_keep += static_cast<double>(ph.steps) * std::log1p(-ph.sampling_rate);
    } else {
      out.rest.phases.push_back(ph);
    }
  }
  return out;
}

bool rest_is_empty(const edge_split& e) {
  return e.rest.phases.empty() && !(e.rest.gaussian_mu > 0);
}

std::string dropped_note(const edge_split& e) {
  return std::to_string(e.dropped) + " phase" + (e.dropped == 1 ? "" : "s") +
         " with sampling rate 0 or noise multiplier inf " +
         (e.dropped == 1 ? "releases nothing and is" : "release nothing and are") + " left out";
}

privacy_estimate edge_estimate(accountant_type a,
                               double value,
                               double lower,
                               double upper,
                               bool tight,
                               std::string method,
                               std::string message) {
  privacy_estimate e;
  e.accountant = a;
  e.value = value;
  e.lower = lower;
  e.upper = upper;
  e.kind = bound_kind::upper_bound;
  e.tight = tight;
  e.method = std::move(method);
  e.message = std::move(message);
  e.edge_value = true;
  return e;
}

// A run whose differing example enters a batch with probability at most p: the output's law
// depends on the example only on that event, so with the law R of the output without it and the
// laws P′, Q′ given it, the two neighbours' laws are (1 − p)R + pP′ and (1 − p)R + pQ′ (add/remove:
// Q itself for R and Q′), and every event S has P(S) − e^ε Q(S) ≤ p(P′(S) − e^ε Q′(S)) ≤ p for
// ε ≥ 0: δ(ε) ≤ p, and ε = 0 exactly where p ≤ δ. Each step of these (per-step) schemes includes
// it with probability at most q (truncated Poisson keeps it with at most q), so p is at most
// 1 − Π(1 − q)^T. Not with a G(μ₀) factor, whose δ(0) does not depend on the example's
// sampling, nor for the epoch schemes. The PLD grid's floor (~1e-8) and the RDP conversion
// cannot show it (case 111 490 of the domain sweep: calibrate refused there; at q = 1.7e-14,
// T = 10 083, σ = 0.31 the PLD's δ(0) was [0, 9e-8] where p = 1.7e-10).
bool per_step_without_factor(const training_run& run) {
  return run.gaussian_mu == 0 && !run.has_epoch_sampling() && !run.phases.empty();
}

}  // namespace

double participation_probability(const training_run& run) {
  double log_unused = 0;  // log Π(1 − q)^T
  for (const training_phase& ph : run.phases)
    log_unused += static_cast<double>(ph.steps) * std::log1p(-ph.sampling_rate);
  return -std::expm1(log_unused);
}

std::optional<double> participation_cap(const training_run& run) {
  if (!per_step_without_factor(run)) return std::nullopt;
  return participation_probability(run);
}

std::optional<privacy_estimate> rare_participation_epsilon(const training_run& run,
                                                           double delta,
                                                           accountant_type a) {
  const std::optional<double> cap = participation_cap(run);
  if (!cap || !(delta > 0 && delta < 1)) return std::nullopt;
  const double used = *cap;
  if (!(used <= delta)) return std::nullopt;
  return edge_estimate(a, 0, 0, 0, true, "edge value: rare participation",
                       "the differing example enters a batch with probability at most " +
                           format_value(used) +
                           " <= delta, so the run is (0, delta)-DP at every noise "
                           "multiplier: epsilon = 0 (exact)");
}

void cap_by_participation(privacy_estimate& e,
                          const training_run& run,
                          const pld_options& options) {
  const std::optional<double> cap = participation_cap(run);
  if (e.edge_value || !cap) return;
  const double used = *cap;
  if (e.kind == bound_kind::approximation) {
    // An approximation (the CLT's) above p is known to be too large: δ ≤ p is a fact about the
    // run. At σ = 0.2, q = 1e-7, T = 99 the CLT said δ(1e-4) = 0.11 where p = 9.9e-6. It is
    // capped there and stays an approximation.
    if (!(used < e.value)) return;
    e.value = used;
    e.log_value = std::log(used);
    e.method += std::string("; capped at ") + kParticipationChance;
    const std::string note = "the approximation was above the probability " + format_value(used) +
                             " that the differing example enters a batch, which bounds delta "
                             "at every epsilon; capped there";
    e.message = e.message.empty() ? note : e.message + "; " + note;
    return;
  }
  if (e.kind != bound_kind::upper_bound || !(e.upper >= 0)) return;
  if (!(used < e.upper)) return;
  // The lower end stays as it is: both ends are certified, so a lower end above p would be a
  // fault, which the domain sweep's lower ≤ upper check is there to see.
  const bool bracket = !std::isnan(e.lower);
  e.value = e.upper = used;
  e.log_value = std::log(used);
  e.method += std::string("; upper end: ") + kParticipationChance;
  const std::string note = "the upper end is the probability " + format_value(used) +
                           " that the differing example enters a batch, which bounds delta at "
                           "every epsilon";
  // A bracket the cap closes to the accuracy asked is converged; its old note spoke of a wider
  // one.
  if (bracket && e.upper - e.lower <= options.relative_accuracy * e.upper) {
    e.termination = termination_type::converged;
    e.message = note;
  } else {
    e.message = e.message.empty() ? note : e.message + "; " + note;
  }
}

std::optional<privacy_estimate> edge_epsilon(const training_run& run,
                                             double delta,
                                             accountant_type a,
                                             const pld_options& options) {
  constexpr const char* kFn = "estimate_epsilon";
  const edge_split e = split_edges(run, kFn);
  if (!e.edge()) return rare_participation_epsilon(run, delta, a);
  check_open_probability(kFn, "delta", delta);
  if (e.clear) {
    const double p = e.p_clear();
    const std::string what =
        "noise multiplier 0: the differing example is in a noiseless batch "
        "with probability p = " +
        format_value(p);
    if (delta < p)
      return edge_estimate(a, kInf, kInf, kInf, true, "edge value: no noise",
                           what + " > delta, so no finite epsilon holds (exact)");
    if (rest_is_empty(e))
      return edge_estimate(a, 0, 0, 0, true, "edge value: no noise",
                           what + " <= delta, and nothing else is released: epsilon = 0 (exact)");
    return edge_estimate(a, kInf, 0, kInf, false, "edge value: no noise",
                         what +
                             " <= delta; with the other phases only the trivial bracket "
                             "[0, inf] is given");
  }
  if (rest_is_empty(e))
    return edge_estimate(a, 0, 0, 0, true, "edge value: nothing released",
                         dropped_note(e) + ": epsilon = 0 (exact)");
  privacy_estimate out = estimate_epsilon(e.rest, delta, a, options);
  out.message = dropped_note(e) + (out.message.empty() ? "" : "; " + out.message);
  return out;
}

// δ at ε for an edge run, or std::nullopt when the run has no edge phase.
std::optional<privacy_estimate> edge_delta(const training_run& run,
                                           double epsilon,
                                           accountant_type a,
                                           const pld_options& options) {
  constexpr const char* kFn = "estimate_delta";
  const edge_split e = split_edges(run, kFn);
  if (!e.edge()) return std::nullopt;
  check_nonnegative(kFn, "epsilon", epsilon);
  if (e.clear) {
    const double p = e.p_clear();
    const std::string what =
        "noise multiplier 0: the differing example is in a noiseless batch "
        "with probability p = " +
        format_value(p) + ", so delta >= p";
    if (rest_is_empty(e)) {
      privacy_estimate out = edge_estimate(a, p, p, p, true, "edge value: no noise",
                                           what + "; nothing else is released: delta = p (exact)");
      out.log_value = e.log_keep == -kInf ? 0.0 : std::log(p);
      return out;
    }
    privacy_estimate out = edge_estimate(a, 1, p, 1, false, "edge value: no noise",
                                         what +
                                             "; with the other phases only the trivial "
                                             "bracket [p, 1] is given");
    out.log_value = 0;
    return out;
  }
  if (rest_is_empty(e)) {
    privacy_estimate out = edge_estimate(a, 0, 0, 0, true, "edge value: nothing released",
                                         dropped_note(e) + ": delta = 0 (exact)");
    out.log_value = -kInf;
    return out;
  }
  privacy_estimate out = estimate_delta(e.rest, epsilon, a, options);
  out.message = dropped_note(e) + (out.message.empty() ? "" : "; " + out.message);
  return out;
}

bool has_edge_phase(const training_run& run, const char* fn) {
  return split_edges(run, fn).edge();
}

}  // namespace dpkit::accounting::detail
