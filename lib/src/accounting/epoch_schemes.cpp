// Shuffled epochs (shuffling.hpp) and allocated epochs (random_allocation.hpp) in the facade
// (accountant.hpp): accounted alone; PLD gives the certified bracket, RDP the upper side alone,
// CLT nothing.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>

#include "detail/epoch_bracket.hpp"
#include "detail/facade.hpp"
#include "dpkit/accounting/random_allocation.hpp"
#include "dpkit/accounting/rdp_accountant.hpp"
#include "dpkit/accounting/shuffling.hpp"
#include "dpkit/core/check.hpp"

namespace dpkit::accounting::detail {
namespace {

// A grid spacing for a method string: three significant digits.
// " (random allocation, orders 2..K)": the integer orders the epoch's RDP reached (up to 40).
std::string orders_text(const divergence::rdp_curve& curve) {
  return " (random allocation, orders 2.." + std::to_string(curve.orders().size() + 1) + ")";
}

std::string short_spacing(double h, int digits = 3) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.*g", digits, h);
  return buf;
}

// Shuffled epochs (shuffling.hpp) and allocated epochs (random_allocation.hpp) are accounted
// alone: PLD gives the certified bracket (shuffling: epoch maximum below, no amplification
// above; allocation: the epoch's law in the convex order, both sides), RDP the upper bound
// alone, CLT nothing.
const training_phase& epoch_phase(const training_run& run, const char* fn) {
  run.validate(fn);
  if (run.phases.size() != 1 || run.gaussian_mu > 0)
    throw_domain_error(fn, "the run", "a shuffled or allocated phase with other phases or factors",
                       "a single shuffled or allocated phase (shuffled epochs are accounted "
                       "alone; so are allocated epochs)");
  return run.phases.front();
}

bool allocated(const training_phase& p) {
  return p.sampling == sampling_scheme::random_allocation;
}

std::string allocated_method(const allocation_bracket& b) {
  const long long partial = b.epochs_begun - b.complete_epochs;
  if (b.upper == 0 && !(b.pld.grid_spacing > 0) && b.complete_epochs == 0)
    return "random allocation, t = " + format_value(b.steps_per_epoch) +
           " steps per epoch, one partial epoch: an example is in one of its steps with "
           "probability steps/t <= delta, so delta(0) <= delta and epsilon = 0 exactly";
  std::string epochs =
      format_value(b.complete_epochs) + " complete epoch" + (b.complete_epochs == 1 ? "" : "s");
  if (partial > 0) epochs += " and a partial one";
  if (b.selected > 1) {
    const long long m = b.steps_per_epoch / b.selected;
    const bool uneven = b.steps_per_epoch % b.selected != 0;
    const std::string upper =
        b.route == "composition"
            ? "k allocations of 1 of " + format_value(m) + (uneven ? " or " + format_value(m + 1) : "") +
                  " steps composed per epoch (Feldman & Shenfeld 2026)"
            : "1 of " + format_value(m) +
                  " steps at sigma/sqrt(k) per epoch (a U-statistic below its block mean in the "
                  "convex order, Hoeffding 1963)";
    return "random allocation, k = " + format_value(b.selected) + " of t = " +
           format_value(b.steps_per_epoch) + " steps per epoch, " + epochs +
           (partial > 0 ? " (counted whole above, left out below)" : "") + ": upper bound " +
           upper + " on a log-grid (h = " + short_spacing(b.pld.grid_spacing) +
           ", PLD/FFT); lower bound " +
           (b.lower_route == "largest coordinates"
                ? std::string("from each complete epoch's largest coordinate, sliced (PLD/FFT)")
                : std::string("from the epoch sums, the Gaussian mechanism with mu = "
                              "k*sqrt(complete epochs)/(sigma*sqrt(t))"));
  }
  return "random allocation, t = " + format_value(b.steps_per_epoch) +
         " steps per epoch: the epoch's likelihood ratio bounded from both sides in the convex "
         "order on a log-grid (Feldman & Shenfeld 2026; h = " +
         short_spacing(b.pld.grid_spacing) + "), " + epochs + " composed (PLD/FFT)";
}

std::string shuffled_method(const shuffling_bracket& b) {
  const std::string upper = "upper bound without amplification ((sqrt(E)/sigma)-GDP, E = " +
                            format_value(b.epochs_begun) + ")";
  if (b.steps_per_epoch == 1 && b.used == 1)
    return "shuffling with the full batch: the Gaussian, exact";
  const std::string head =
      "shuffling, t = " + format_value(b.steps_per_epoch) + " steps per epoch" +
      (b.used < 1 ? " (the last, incomplete batch dropped: an example is in an epoch with "
                    "probability " + short_spacing(b.used, 6) + ")"
                  : std::string()) +
      ": ";
  if (b.complete_epochs == 0) return head + "no complete epoch, no lower bound; " + upper;
  return head + "lower bound from the largest coordinate of " + format_value(b.complete_epochs) +
         " complete epoch" + (b.complete_epochs == 1 ? "" : "s") +
         " (Chua et al. 2024; PLD/FFT, h = " + short_spacing(b.pld.grid_spacing) + "), " + upper;
}

privacy_estimate from_shuffled(const shuffling_bracket& b, bool allocation = false) {
  privacy_estimate e;
  e.accountant = accountant_type::pld;
  e.termination = b.termination;
  e.message = b.message;
  e.value = e.upper = b.upper;
  e.lower = b.lower;
  e.kind = bound_kind::upper_bound;
  e.tight = !allocation && b.steps_per_epoch == 1 && b.used == 1;
  e.pld = b.pld;
  e.method = allocation ? allocated_method(b) : shuffled_method(b);
  return e;
}

[[noreturn]] void no_clt_for_epoch_schemes(const char* fn) {
  throw_domain_error(fn, "accountant", "clt",
                     "pld or rdp for shuffled batches and random allocation (no CLT "
                     "approximation is known for them)");
}

}  // namespace

privacy_estimate epoch_scheme_epsilon(const training_run& run,
                                      double delta,
                                      accountant_type accountant,
                                      const pld_options& options) {
  constexpr const char* kFn = "estimate_epsilon";
  const training_phase& p = epoch_phase(run, kFn);
  if (allocated(p)) {
    if (accountant == accountant_type::clt) no_clt_for_epoch_schemes(kFn);
    if (accountant == accountant_type::pld)
      return from_shuffled(allocation_epsilon(p, delta, options), true);
    const divergence::rdp_curve curve = allocation_rdp_curve(p);
    privacy_estimate e = from_rdp(divergence::rdp_epsilon(curve, delta));
    e.method += orders_text(curve);
    return e;
  }
  switch (accountant) {
    case accountant_type::pld:
      return from_shuffled(shuffling_epsilon(p, delta, options));
    case accountant_type::rdp: {
      privacy_estimate e = from_rdp(rdp_epsilon(shuffling_upper_run(p), delta));
      e.method += " (shuffling: no amplification)";
      return e;
    }
    case accountant_type::clt:
      no_clt_for_epoch_schemes(kFn);
  }
  return {};
}

privacy_estimate epoch_scheme_delta(const training_run& run,
                                    double epsilon,
                                    accountant_type accountant,
                                    const pld_options& options) {
  constexpr const char* kFn = "estimate_delta";
  const training_phase& p = epoch_phase(run, kFn);
  if (allocated(p)) {
    if (accountant == accountant_type::clt) no_clt_for_epoch_schemes(kFn);
    if (accountant == accountant_type::pld) {
      privacy_estimate e = from_shuffled(allocation_delta(p, epsilon, options), true);
      e.log_value = std::log(e.value);
      return e;
    }
    const divergence::rdp_curve curve = allocation_rdp_curve(p);
    privacy_estimate e = from_rdp(divergence::rdp_delta(curve, epsilon));
    e.method += orders_text(curve);
    return e;
  }
  switch (accountant) {
    case accountant_type::pld: {
      privacy_estimate e = from_shuffled(shuffling_delta(p, epsilon, options));
      e.log_value = std::log(e.value);
      return e;
    }
    case accountant_type::rdp: {
      privacy_estimate e = from_rdp(rdp_delta(shuffling_upper_run(p), epsilon));
      e.method += " (shuffling: no amplification)";
      return e;
    }
    case accountant_type::clt:
      no_clt_for_epoch_schemes(kFn);
  }
  return {};
}

namespace {

// Calibration of an allocated run on its certified PLD upper bound (random_allocation.hpp),
// evaluated on one fixed log-lattice spacing h — the spacing allocation_epsilon would start from
// at the answer — so that ε_upper(σ) is one smooth decreasing function (per-σ spacings would make
// it jump by up to the bracket's width). Bracketed outward from a start by growing factors, then
// the Illinois variant of regula falsi on (log σ, log ε), until the safe end uses the budget to
// within budget_tolerance or the σ bracket closes. The bracket at the answer (both sides, on the
// same h) must be as narrow as asked: where it is wider (at small ε the starting spacing can
// leave it 24 % wide, and then a noise multiplier 5 % smaller is certified within the budget on
// a finer lattice: "smallest" was not true), h is refined by allocation_epsilon's rule and the
// search repeated from the answer, at most three times; a bracket still wider is said.
noise_calibration calibrate_allocation_pld(training_run run,
                                           double target_epsilon,
                                           double delta,
                                           const calibration_options& options) {
  constexpr const char* kFn = "calibrate_noise_multiplier";
  training_phase p = run.phases.front();
  const pld_options& o = options.pld;
  const double accuracy = o.relative_accuracy;
  // Start next to the Poisson answer at the same q and T (random allocation is within a few
  // per cent of it on every case measured; a cheap calibration, tens of milliseconds): the PLD
  // accountant's, else the RDP accountant's (beyond 1e8 steps, where the PLD accountant refuses
  // Poisson runs). Only a start: where neither answers, the search starts from σ = 1.
  double guess = 1.0;
  training_run poisson = run;
  poisson.phases.front().sampling = sampling_scheme::poisson;
  poisson.phases.front().steps_per_epoch = 0;
  poisson.phases.front().selected = 1;
  for (const accountant_type a : {accountant_type::pld, accountant_type::rdp}) {
    try {
      calibration_options po = options;
      po.accountant = a;
      const noise_calibration pc = calibrate_noise_multiplier(poisson, target_epsilon, delta, po);
      if (std::isfinite(pc.noise_multiplier) && pc.noise_multiplier > 0) {
        guess = pc.noise_multiplier;
        break;
      }
    } catch (const std::exception&) {  // NOLINT(bugprone-empty-catch): the next start, or σ = 1
    }
  }
  constexpr double kSmallest = kSmallestEpochNoise;  // the scheme's limit
  constexpr double kLargest = 1e24;    // the search's limit
  guess = std::clamp(guess, kSmallest, kLargest);
  p.noise_multiplier = guess;
  // The spacing allocation_epsilon starts from at a noise multiplier.
  auto spacing_at = [&](double sigma) {
    training_phase at = p;
    at.noise_multiplier = sigma;
    return allocation_spacing(at, accuracy);
  };
  double h = o.grid_spacing > 0 ? o.grid_spacing : spacing_at(guess);
  int evaluations = 0;
  double delta_floor = 0;  // the last evaluation's, where δ was below what the bracket takes
  // The evaluations in a row (the latest ones) whose δ was below their floor: the first one's
  // noise multiplier and the smallest floor among them.
  double floor_from = 0, floor_min = INFINITY;
  auto eps_at = [&](double sigma) {
    p.noise_multiplier = sigma;
    pld_options fixed = o;
    fixed.grid_spacing = h;
    ++evaluations;
    const allocation_bracket b = allocation_epsilon_upper(p, delta, fixed);
    delta_floor = b.delta_floor;
    if (delta_floor > 0) {
      if (floor_from == 0) floor_from = sigma;
      floor_min = std::min(floor_min, delta_floor);
    } else {
      floor_from = 0, floor_min = INFINITY;
    }
    return b.upper;  // +∞ where it failed: too small, or δ below its floor
  };
  auto refuse_delta = [&](double floor, double from, double to) {
    throw_domain_error(kFn, "delta", delta,
                       ">= " + format_value(floor) +
                           " for random allocation's PLD bracket at every noise multiplier "
                           "tried" +
                           (from > 0 ? " (" + format_value(from) + " to " + format_value(to) + ")"
                                     : std::string()) +
                           " (10^4 times the certified rounding allowance of its laws); the RDP "
                           "accountant answers smaller delta");
  };
  const double enough = (1 - options.budget_tolerance) * target_epsilon;
  const double log_target = std::log(target_epsilon);
  double lo = guess, hi = guess, e_lo = INFINITY, e_hi = INFINITY;
  // The search on the current h, from `start`. Bracketing upward, where the noise multiplier has
  // grown so far that the spacing allocation_epsilon would start from there is below half the
  // current one, the search starts again there on that spacing: a lattice chosen far below the
  // answer sets a rounding floor under epsilon that no noise removes (a start at σ = 1 for a run
  // of 1e8 epochs kept every upper end above the target up to 1e24, where σ = 2000 certifies
  // less on its own spacing).
  auto search = [&](double start) {
    // Bracket outward by factors 1.03, 1.06, 1.12, … (squared each time, at most 16; a start
    // again on a finer spacing keeps the factor reached).
    double step = 1.03;
    for (bool again = true; again;) {
      again = false;
      lo = hi = start;
      e_lo = e_hi = eps_at(start);
      if (e_hi > target_epsilon) {
        while (e_hi > target_epsilon && !again) {
          if (hi >= kLargest && delta_floor > 0)  // no σ answers: δ is what stops it
            refuse_delta(delta_floor, 0, 0);
          // δ far below the floor at every σ over four decades: the floor is the laws' rounding
          // (~1e-16 per epoch and law, relative to masses near 1), which more noise does not
          // remove; going on to σ = 1e24 on ever finer lattices took 228 s to the same refusal
          // (full sweep case 10 775: δ = 4.7e-263, floors near 5e-13).
          if (floor_from > 0 && hi >= 1e4 * floor_from && delta < 1e-3 * floor_min)
            refuse_delta(floor_min, floor_from, hi);
          if (hi >= kLargest)
            throw_domain_error(kFn, "target_epsilon", target_epsilon,
                               "certified by the PLD accountant for random allocation with a noise "
                               "multiplier below 1e24 (the allowance of its laws' rounding sets a "
                               "floor under epsilon)");
          lo = hi;
          e_lo = e_hi;
          hi = std::min(kLargest, hi * step);
          step = std::min(16.0, step * step);
          const double there = o.grid_spacing > 0 ? h : spacing_at(hi);
          if (there < h / 2) {  // from hi again, on its spacing
            h = there;
            start = hi;
            again = true;
          } else {
            e_hi = eps_at(hi);
          }
        }
      } else {
        while (lo > kSmallest) {
          const double next = std::max(kSmallest, lo / step);
          step = std::min(16.0, step * step);
          const double e = eps_at(next);
          if (e > target_epsilon) {
            lo = next;
            e_lo = e;
            break;
          }
          hi = lo = next;
          e_hi = e_lo = e;
        }
      }
    }
    // ε = 0 at an end (a noise multiplier at which δ(0) ≤ δ) or +∞ (no certified bound): its log
    // carries no slope, and the step is a bisection in log σ.
    double f_lo = std::log(e_lo) - log_target, f_hi = std::log(e_hi) - log_target;
    int side = 0;  // which end moved last (Illinois: halve the other end's value on a repeat)
    while (hi > lo && hi / lo - 1 > options.relative_tolerance && e_hi < enough) {
      const double x_lo = std::log(lo), x_hi = std::log(hi), w = x_hi - x_lo;
      double x = std::isfinite(f_lo) && std::isfinite(f_hi)
                     ? (x_lo * f_hi - x_hi * f_lo) / (f_hi - f_lo)
                     : x_lo + w / 2;
      x = std::clamp(x, x_lo + 0.02 * w, x_hi - 0.02 * w);
      const double sigma = std::exp(x), e = eps_at(sigma), f = std::log(e) - log_target;
      if (e > target_epsilon) {
        lo = sigma;
        e_lo = e;
        f_lo = f;
        if (side == -1) f_hi /= 2;
        side = -1;
      } else {
        hi = sigma;
        e_hi = e;
        f_hi = f;
        if (side == 1) f_lo /= 2;
        side = 1;
      }
      if (evaluations > 200) break;
    }
  };
  noise_calibration c;
  bool narrow = true;
  for (int tries = 0;; ++tries) {
    search(hi);
    c.noise_multiplier = hi;
    c.noise_multiplier_lower = lo;
    run.phases.front().noise_multiplier = hi;
    pld_options fixed = o;
    fixed.grid_spacing = h;
    c.estimate = estimate_epsilon(run, delta, accountant_type::pld, fixed);
    ++evaluations;
    const double width = c.estimate.upper - c.estimate.lower;
    narrow = !(width > accuracy * c.estimate.upper) || !std::isfinite(c.estimate.upper);
    // No refinement for a fixed spacing asked for, at the finest spacing the accountant uses, or
    // where the lower end is 0: the target then lies in ε(σ)'s fall to 0 (δ(0) ≤ δ on the
    // dominated side), which no lattice resolves to a relative accuracy.
    // k of t (k > 1): the bracket's lower end is a post-processing's (sums, maxima), not the route's
    // dominated side, so its width says nothing of h (the route's own gap, near a third of the
    // accuracy on the first spacing, is what h sets): no refinement.
    if (narrow || o.grid_spacing > 0 || tries == 3 || h <= 2e-5 || !(c.estimate.lower > 0) ||
        p.selected > 1)
      break;
    const double finer = allocation_refined_spacing(h, accuracy, c.estimate.upper, width);
    // A finer lattice that needs an FFT beyond the limit: the answer on this one stands.
    try {
      training_phase at = p;
      at.noise_multiplier = hi;
      pld_options trial = o;
      trial.grid_spacing = finer;
      (void)allocation_epsilon_upper(at, delta, trial);
    } catch (const std::length_error&) {
      break;
    }
    h = finer;
  }
  c.evaluations = evaluations;
  if (c.estimate.upper < enough && hi > kSmallest) {
    c.termination = termination_type::max_iterations;
    c.message = "the noise bracket closed with " +
                format_value(100 * (1 - c.estimate.upper / target_epsilon)) +
                " % of the budget unused";
  } else if (hi <= kSmallest && c.estimate.upper <= target_epsilon) {
    c.message = "the budget holds at " + format_value(kSmallest) +
                ", the smallest noise multiplier random allocation takes (epsilon there: " +
                format_value(c.estimate.upper) + ")";
  } else if (p.selected > 1) {
    c.message = "k of t steps: the smallest noise multiplier whose certified upper bound holds "
                "the budget; the lower bound there, " +
                format_value(c.estimate.lower) +
                " (the larger of the epochs' sums' and largest coordinates' bounds: a smaller noise "
                "multiplier may hold the budget too)";
  } else if (!narrow) {
    c.termination = termination_type::max_iterations;
    c.message = "the certified bracket at the answer is " +
                format_value(100 * (c.estimate.upper - c.estimate.lower) / c.estimate.upper) +
                " % wide (asked: " + format_value(100 * accuracy) + " %; h = " +
                format_value(h) + "): a smaller noise multiplier may be within the budget too";
  }
  return c;
}

}  // namespace

noise_calibration calibrate_epoch_scheme(training_run run,
                                         double target_epsilon,
                                         double delta,
                                         const calibration_options& options) {
  constexpr const char* kFn = "calibrate_noise_multiplier";
  if (options.accountant == accountant_type::clt) no_clt_for_epoch_schemes(kFn);
  if (allocated(epoch_phase(run, kFn)) && options.accountant == accountant_type::pld)
    return calibrate_allocation_pld(std::move(run), target_epsilon, delta, options);
  if (allocated(epoch_phase(run, kFn))) {
    // The rdp accountant's answer for an allocated run is its RDP bound, decreasing in σ:
    // bisect log σ on it, then report it at the safe end.
    auto eps_at = [&](double sigma) {
      training_phase p = run.phases.front();
      p.noise_multiplier = sigma;
      return divergence::rdp_epsilon(allocation_rdp_curve(p), delta).value;
    };
    // Bracket from σ = 1 outward by factors of 2 (small σ is the slow end: the add direction's
    // quadrature step shrinks like σ), down to the scheme's limit 0.025.
    double lo = 1.0, hi = 1.0;
    if (eps_at(1.0) > target_epsilon) {
      for (int k = 0; eps_at(hi) > target_epsilon; ++k) {
        lo = hi;
        hi *= 2;
        if (k > 80)
          throw_domain_error(kFn, "target_epsilon", target_epsilon,
                             "reachable with a noise multiplier below 1e24");
      }
    } else {
      while (lo > kSmallestEpochNoise &&
             eps_at(std::max(kSmallestEpochNoise, lo / 2)) <= target_epsilon)
        lo = std::max(kSmallestEpochNoise, lo / 2);
      hi = lo;
      lo = std::max(kSmallestEpochNoise, lo / 2);
      if (hi == kSmallestEpochNoise) lo = hi;  // the budget holds at the scheme's smallest σ
    }
    // Until the σ bracket closes or the safe end uses the budget to within budget_tolerance.
    const double enough = (1 - options.budget_tolerance) * target_epsilon;
    double eps_hi = eps_at(hi);
    while (hi / lo - 1 > options.relative_tolerance && eps_hi < enough) {
      const double mid = std::sqrt(lo * hi);
      const double e = eps_at(mid);
      if (e > target_epsilon) {
        lo = mid;
      } else {
        hi = mid;
        eps_hi = e;
      }
    }
    noise_calibration c;
    c.noise_multiplier = hi;
    c.noise_multiplier_lower = lo;
    run.phases.front().noise_multiplier = hi;
    c.estimate = estimate_epsilon(run, delta, options.accountant, options.pld);
    return c;
  }
  // The certified side of a shuffled run is its no-amplification Gaussian (the same σ): solve
  // for that run, then report the shuffled run's bracket at the answer.
  noise_calibration c = calibrate_noise_multiplier(shuffling_upper_run(epoch_phase(run, kFn)),
                                                   target_epsilon, delta, options);
  // No σ certified for that run: its answer (and message) is the shuffled run's. (Evaluating the
  // shuffled run at σ = NaN told the user "--noise-multiplier is nan", a flag they never gave.)
  if (std::isnan(c.noise_multiplier)) return c;
  // A budget that holds below the smallest σ shuffled batches take holds there too (ε falls
  // with σ): that σ is the answer, said. (Evaluating the shuffled run below it told the user
  // "--noise-multiplier is 0.00165, but must be >= 0.025", a flag they never gave.)
  const bool at_floor = c.noise_multiplier < kSmallestEpochNoise;
  if (at_floor) {
    c.noise_multiplier = kSmallestEpochNoise;
    c.noise_multiplier_lower = NAN;
  }
  run.phases.front().noise_multiplier = c.noise_multiplier;
  c.estimate = estimate_epsilon(run, delta, options.accountant, options.pld);
  if (at_floor) {
    // Not `converged`: that promises the budget used to within its tolerance (the noise
    // bracket closed with budget unused says the same, for random allocation).
    c.termination = termination_type::max_iterations;
    c.message = "the budget holds at " + format_value(kSmallestEpochNoise) +
                ", the smallest noise multiplier shuffled batches take (epsilon there: " +
                format_value(c.estimate.value) + ")";
  }
  return c;
}

}  // namespace dpkit::accounting::detail
