// Calibration (accountant.hpp): the smallest noise multiplier, or the largest number of steps,
// within a privacy budget, searched on the accountant's certified side.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "detail/facade.hpp"
#include "dpkit/accounting/clt.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/roots.hpp"
#include "dpkit/divergence/gdp.hpp"

namespace dpkit::accounting {
namespace {

// calibrate_noise_multiplier's targets: a normal double (the search runs on log ε) up to the ε
// of the largest Gaussian-DP μ (divergence::kLargestGdpMu = 1e6: ε ≈ μ²/2 ≈ 5e11; 1e11 keeps the
// root of gdp_mu inside it).
constexpr double kSmallestTargetEpsilon = std::numeric_limits<double>::min();
constexpr double kLargestTargetEpsilon = 1e11;
// A share as a percentage to 3 significant digits ("0.024", "1e-10").
std::string percent(double share) {
  std::array<char, 32> b{};
  std::snprintf(b.data(), b.size(), "%.3g", share * 100);
  return b.data();
}
// The message of an answer at the σ where ε first falls to 0 (δ(0) ≤ δ): certified by the PLD
// (its smallest σ, bisected), or the CLT's threshold (its root search's ends).
std::string zero_threshold_message(const noise_calibration& out,
                                   double target_epsilon,
                                   bool certified) {
  const std::string sigma = format_value(out.noise_multiplier),
                    target = format_value(target_epsilon),
                    below = format_value(out.noise_multiplier_lower);
  if (certified)
    return "epsilon = 0 is certified from noise multiplier " + sigma +
           " on (delta(0) <= delta): the target " + target +
           " is below what the accountant resolves there, and this is the smallest noise "
           "multiplier at which it certifies epsilon = 0 (below " +
           below + " it is not certified)";
  return "the CLT gives epsilon = 0 from noise multiplier " + sigma +
         " on (delta(0) <= delta): the target " + target +
         " is below what it resolves there, and this is the smallest noise multiplier at which "
         "it gives epsilon = 0 (at " +
         below + " it does not)";
}

// Whether round-off, not the grid, set an evaluation's bracket width: a finer grid leaves it
// as wide. A bracket [0, ε] is the lattice's, whatever the flag (its lower end says nothing of
// round-off's share: case 3959 of accountant_test.cpp).
bool roundoff_sets_width(const privacy_estimate& e) {
  return e.pld.roundoff_limited && e.lower > 0;
}

}  // namespace

noise_calibration calibrate_noise_multiplier(training_run run,
                                             double target_epsilon,
                                             double delta,
                                             const calibration_options& options) {
  constexpr const char* kFn = "calibrate_noise_multiplier";
  check_positive(kFn, "target_epsilon", target_epsilon);
  // The search starts from the Gaussian-DP μ of the target (divergence::gdp_mu, ε ≤ 1e11); a
  // subnormal target has no logarithm to search on. Both refused here, named as the caller's.
  if (!(target_epsilon >= kSmallestTargetEpsilon && target_epsilon <= kLargestTargetEpsilon))
    throw_domain_error(kFn, "target_epsilon", target_epsilon,
                       std::string("in [") + kSmallestNormalText +
                           ", 1e11] (the smallest normal double to the epsilon of mu = 1e6, the "
                           "largest Gaussian-DP mu supported)");
  check_open_probability(kFn, "delta", delta);
  if (!(options.relative_tolerance > 0 && options.relative_tolerance < 1))
    throw_domain_error(kFn, "relative_tolerance", options.relative_tolerance, "in (0, 1)");
  if (!(options.budget_tolerance >= 1e-12 && options.budget_tolerance < 0.5))
    throw_domain_error(kFn, "budget_tolerance", options.budget_tolerance, "in [1e-12, 0.5)");
  if (run.phases.empty()) throw_domain_error(kFn, "the number of phases", "0", ">= 1");
  run.validate(kFn);
  options.pld.validate(kFn);
  if (run.has_epoch_sampling())
    return detail::calibrate_epoch_scheme(std::move(run), target_epsilon, delta, options);
  noise_calibration out;
  // Until a σ is certified, the estimate is this accountant's, and says it failed.
  out.estimate.accountant = options.accountant;
  out.estimate.termination = termination_type::failure;
  int evaluations = 0;
  auto with_sigma = [&](double sigma) {
    training_run r = run;
    for (training_phase& p : r.phases) p.noise_multiplier = sigma;
    return r;
  };
  // A run whose example enters a batch with probability at most δ is (0, δ)-DP at every σ:
  // its output's law depends on the example only on that event. Each step of these schemes
  // holds it with probability at most q (truncated Poisson keeps it with at most q), so the
  // chance is at most 1 − Π(1 − q)^T, and the smallest σ the accountants take is the answer
  // where the accountant certifies it. (The search cannot find it: ε = 0 below every σ it
  // tries, and it stopped after 42 steps at σ = 8e-5; `calibrate --epsilon 1 --delta 1e-5
  // --sampling-rate 1e-6 --steps 1` said "could not bracket" before.) Not with a G(μ₀) factor,
  // whose δ(0) does not depend on σ.
  // Every accountant certifies ε = 0 there (estimate_epsilon's rare-participation edge value,
  // edge_values.cpp); where one refuses the run at that σ, the search below goes on as before.
  // The smallest σ the accountants take as the answer, where the PLD accountant certifies the
  // budget there (ε is nonincreasing in σ, so every larger σ holds it too); false where it does
  // not, or refuses the run at that σ (a limit of the accountant: the search goes on). `why`
  // words the message from ε there.
  auto answer_at_smallest = [&](auto&& why) {
    ++evaluations;
    privacy_estimate e;
    e.termination = termination_type::failure;
    try {
      e = estimate_epsilon(with_sigma(kSmallestNoiseMultiplier), delta, options.accountant,
                           options.pld);
    } catch (const std::exception&) {
    }
    if (e.termination == termination_type::failure || !(e.value <= target_epsilon)) return false;
    out.noise_multiplier = kSmallestNoiseMultiplier;
    out.estimate = e;
    // Converged where the certified ε is 0; otherwise (a tail correction above 0) the budget is
    // not used, as the epoch schemes report their smallest σ (epoch_schemes.cpp).
    out.termination = e.value == 0 ? termination_type::converged : termination_type::max_iterations;
    out.evaluations = evaluations;
    out.message = why(e.value);
    return true;
  };
  if (run.gaussian_mu == 0) {
    const double used = detail::participation_probability(run);
    if (used <= delta && answer_at_smallest([&](double eps) {
          return "the budget holds at every noise multiplier: the example enters a batch with "
                 "probability at most " +
                 format_value(used) + " <= delta, so " + format_value(kSmallestNoiseMultiplier) +
                 ", the smallest the accountants take, is the answer (epsilon there: " +
                 format_value(eps) + ")";
        }))
      return out;
  }
  // Evaluations are cached by log σ; each PLD evaluation starts from the previous one's grid
  // spacing (skipping the coarse first pass). Far from the root a sign suffices: a coarse PLD
  // evaluation settles it when the target lies outside its [ε_lower, ε_upper] — ε_lower >
  // target proves the budget exceeded, ε_upper ≤ target certifies it — and only ambiguous
  // points are evaluated again, more accurately.
  // A 2 % evaluation is tried first and the requested accuracy only when it leaves the sign
  // open (measured: median 52 ms over the benchmark grid, against 72 ms with the requested
  // accuracy throughout and 64–76 ms with other level schedules).
  std::vector<pld_options> levels;
  if (options.accountant == accountant_type::pld && options.pld.relative_accuracy < 2e-2)
    levels.push_back(options.pld), levels.back().relative_accuracy = 2e-2;
  levels.push_back(options.pld);
  const bool truncated = run.has_truncation();
  std::map<double, privacy_estimate> cache;
  // Evaluations at the requested accuracy (the last level), by log σ: only these may end the
  // search, so the answer's bracket is as narrow as asked.
  std::map<double, bool> final_level;
  // The search ends at the first evaluation whose certified ε uses the budget to within
  // budget_tolerance: thrown out of find_root (exceptions from f propagate) and caught below.
  struct budget_met {
    double log_sigma;
  };
  // On the fixed grid (below), an evaluation near the target whose bracket is wider than asked
  // says the grid is too coarse there: the search restarts on a finer one.
  struct regrid {
    double h;
  };
  // A target below what any grid resolves near it: no grid meets the accuracy there because the
  // certified lower end is 0 (ε(σ) falls to exactly 0 at the σ where δ(0) = δ, and a target such
  // as 1e-9 lies within the last cell of that fall). Finer grids there cost minutes each (once
  // > 5 min for one calibration); the answer is then the smallest σ with ε = 0 (below).
  bool unresolved_zero = false;
  struct tiny_target {};
  bool fixed_grid = false;
  // The relative gap near the target that made the search regrid last (NaN: none yet), and
  // whether a finer fixed grid left it as wide: then round-off, not the grid, sets the width,
  // and the search stays on that grid with its wider brackets. (Full domain-sweep case 52 224:
  // 1 892 Poisson steps at q = 4.4e-5, δ = 9.2e-11: about 1 % at h = 2.3e-5, 1.2e-5 and 5.8e-6
  // alike; each finer grid, then each adaptive evaluation at the FFT limit, cost more than
  // 15 min in all.)
  double regrid_gap = NAN;
  bool grid_stalled = false;
  const double enough = (1 - options.budget_tolerance) * target_epsilon;
  double last_sigma = NAN;  // the noise multiplier evaluated last (named when one cannot be)
  // Every evaluation's certified ε, by log σ, whatever its grid (each is certified on its own):
  // where the search gives up on a grid, the ε = 0 answer below starts from these, and where it
  // certifies no σ at all, the answer of last resort comes from them.
  std::map<double, privacy_estimate> seen;
  auto evaluate = [&](double log_sigma, pld_options& o) {
    ++evaluations;
    // Never below the smallest noise multiplier the accountants take (a large budget's search
    // may step past it): there ε exceeds 1e200 per step, above any budget.
    last_sigma = std::max(std::exp(log_sigma), kSmallestNoiseMultiplier);
    privacy_estimate e = estimate_epsilon(with_sigma(last_sigma), delta, options.accountant, o);
    seen[log_sigma] = e;
    // A certified ε of 0 says nothing of the spacing the next σ needs: that evaluation picks its
    // own. Kept, the spacing stayed fixed where truncated batches keep it (below) while the
    // search stepped down in σ through ε = 0 and each step's losses spread as 1/σ²: 42
    // evaluations of one truncated step at δ = 0.047, each ε = 0, took 4 minutes, the last ones
    // 2^21 cells at σ = 1e-4 (full domain-sweep case 46 034), where a fresh grid takes 0.01 s.
    if (e.value == 0) {
      o.initial_grid_spacing = 0;
    } else if (e.pld.grid_spacing > 0) {
      // Next start: the spacing that would just meet the target here (gap ∝ h²), within a
      // factor 4 of this one — coarser when this grid was finer than needed. With truncated
      // batches the bracket's lower side comes from another pair and does not shrink with h
      // (pld_accountant.hpp): the grid met its accuracy, so it is kept.
      const double gap =
          e.value > 0 && std::isfinite(e.lower) && !truncated ? (e.value - e.lower) / e.value : 0;
      // Where round-off, not h, set this bracket's width, a finer grid would not narrow it
      // either: the spacing is kept (full domain-sweep case 52 224 below; a bracket [0, ε]
      // is the lattice's, not round-off's).
      const double factor = truncated || roundoff_sets_width(e) ? 1.0
                            : gap > 0
                                ? std::clamp(0.8 * std::sqrt(o.relative_accuracy / gap), 0.25, 4.0)
                                : 4.0;
      o.initial_grid_spacing = e.pld.grid_spacing * factor;
    }
    return e;
  };
  auto certified = [&](double log_sigma) -> const privacy_estimate& {
    auto it = cache.find(log_sigma);
    if (it != cache.end()) return it->second;
    privacy_estimate e;
    for (std::size_t i = 0; i < levels.size(); ++i) {
      // Grid spacings carry over between levels (scaled by the accuracy ratio, gap ∝ h²).
      if (i + 1 == levels.size() && levels.size() > 1 && levels[0].initial_grid_spacing > 0 &&
          levels[i].initial_grid_spacing == 0)
        levels[i].initial_grid_spacing =
            levels[0].initial_grid_spacing *
            std::sqrt(levels[i].relative_accuracy / levels[0].relative_accuracy);
      e = evaluate(log_sigma, levels[i]);
      final_level[log_sigma] = i + 1 == levels.size();
      if (fixed_grid && e.value > 0 && std::isfinite(e.lower) &&
          std::abs(std::log(e.value / target_epsilon)) < 0.05) {
        const double gap = (e.value - e.lower) / e.value;
        // At most halved: a wide bracket on one grid is often the optimistic side's lattice
        // falling badly for that σ (not the h² trend), which a slightly finer grid avoids.
        // A gap ∝ h² falls at least 1.56-fold on the regridded grid (h at most 0.8 of the
        // last); one at least twice the accuracy that fell less than 1.2-fold is round-off's.
        if (gap > 2 * options.pld.relative_accuracy && !grid_stalled && e.lower > 0 &&
            gap > regrid_gap / 1.2)
          grid_stalled = true;
        if (gap > options.pld.relative_accuracy && !grid_stalled) {
          unresolved_zero = e.lower == 0;
          regrid_gap = gap;
          throw regrid{levels[i].grid_spacing *
                       std::max(0.5, 0.8 * std::sqrt(options.pld.relative_accuracy / gap))};
        }
      }
      // The sign is settled when ε_lower exceeds the target, or ε_upper is below the window
      // of accepted answers; an ε_upper inside the window is re-evaluated at the requested
      // accuracy, since that point may be the answer.
      if (e.value < enough || e.lower > target_epsilon) break;
    }
    return cache.emplace(log_sigma, std::move(e)).first->second;
  };
  // The sign of excess is certified: the value is ε_upper, or ε_lower when that already
  // exceeds the target (a coarse evaluation far above the root).
  auto excess = [&](double log_sigma) {
    const privacy_estimate& e = certified(log_sigma);
    if (e.value <= target_epsilon && e.value >= enough && final_level[log_sigma])
      throw budget_met{log_sigma};
    return (std::isfinite(e.lower) && e.lower > target_epsilon ? e.lower : e.value) -
           target_epsilon;
  };
  // ε(σ) is smooth and locally close to a power law, so search in (log σ, log ε). Start from
  // the CLT's σ and one Newton step with the CLT's own slope; then secant steps until the
  // root is bracketed; then, on one fixed PLD grid, TOMS 748 until an evaluation uses the
  // budget to within budget_tolerance (median 6 evaluations in all on the benchmark grid,
  // max 10).
  // Phases without a CLT (truncated Poisson, replace-one Poisson) start from a stand-in: Poisson
  // add/remove batches with the same q and the noise scaled by 1/sensitivity — only the start
  // and the first slope come from it.
  auto clt_run = [&](double sigma) {
    training_run r = with_sigma(sigma);
    for (training_phase& p : r.phases)
      if (p.sampling != sampling_scheme::without_replacement) {
        p.noise_multiplier /= sensitivity(p);
        p.sampling = sampling_scheme::poisson;
        p.neighbours = neighbouring::standard;
        p.steps_per_epoch = 0;
        p.selected = 1;
      }
    return r;
  };
  const double mu_target = divergence::gdp_mu(target_epsilon, delta).value;
  auto clt_log_epsilon = [&](double log_sigma) {
    return std::log(std::max(clt_epsilon(clt_run(std::exp(log_sigma)), delta).value, 1e-300));
  };
  double x0 = 0.0;
  if (const root_result r =
          find_root([&](double t) { return clt_mu(clt_run(std::exp(t))) - mu_target; },
                    std::log(1e-3), std::log(1e6));
      r.converged())
    x0 = r.root;
  const double log_target = std::log(target_epsilon);
  // log(ε/target), formed as log1p((ε − target)/target) so that its sign is always excess's: as
  // log ε − log target it rounded to 0 at ε = target·(1 + 2e-16), and the search took that σ for
  // a root whose ε was above the target ("no noise multiplier within the budget was certified"
  // for one full-batch step at ε = 1e4, δ = 8.8e-8, where the CLT start is the exact root).
  // A certified ε of 0 (r = −1) stands for log 0 = −∞ as a finite value below the log ratio of
  // every positive ε (≥ the smallest subnormal): as log(1e-300) − log target it was 0 at a target
  // of 1e-300, so ε = 0 read as a root, and `calibrate --epsilon 1e-300` answered σ = 5.9e151
  // where σ = 12 617 certifies ε = 0.
  const double log_zero = std::log(std::numeric_limits<double>::denorm_min()) - 1 - log_target;
  auto log_excess = [&](double x) {
    const double r = excess(x) / target_epsilon;
    return r > -1 ? std::log1p(r) : log_zero;
  };
  // Widens [lo, hi] outward (×2 each time, at most 20 times a side) until the signs of excess
  // differ on the current level's grid.
  auto widen = [&](double& lo, double& hi) {
    double w = std::max(hi - lo, 1e-6);
    for (int i = 0; i < 20 && excess(lo) <= 0; ++i) lo -= (w *= 2);
    w = std::max(hi - lo, 1e-6);
    for (int i = 0; i < 20 && excess(hi) > 0; ++i) hi += (w *= 2);
  };
  // Bracketing: secant steps in log–log from the CLT start until the sign changes. Returns
  // false (with out filled) when no bracket is found.
  double x1 = x0;
  auto bracket = [&] {
    double y0 = log_excess(x0);
    // Slope d log ε / d log σ from the CLT model (negative); a safe default if degenerate.
    double slope = (clt_log_epsilon(x0 + 0.01) - clt_log_epsilon(x0 - 0.01)) / 0.02;
    if (!(slope < -1e-3)) slope = -1.0;
    // Where the certified ε at the start is 0 (δ(0) ≤ δ there) or +∞, its log is no distance
    // to the root: the step is the secant's largest, a factor of 4 towards it (a Newton step
    // from log 1e-300 once went to the smallest σ accepted, 1e-100, whose PLD needs 1e189
    // grid cells: a target of 1e-6 at δ = 0.5 was refused).
    const double e0 = certified(x0).value;
    x1 = x0 - y0 / slope;
    if (!(e0 > 0 && std::isfinite(e0)))
      x1 = std::clamp(x1, x0 - std::log(4.0), x0 + std::log(4.0));
    double y1 = log_excess(x1);
    for (int i = 0; i < 40 && (y0 > 0) == (y1 > 0); ++i) {
      // Secant in log–log, limited to a factor of 4 per step, moving away from the worse point.
      double step = (y1 != y0) ? -y1 * (x1 - x0) / (y1 - y0) : (y1 > 0 ? 0.2 : -0.2);
      if (!std::isfinite(step) || (y1 > 0) != (step > 0)) step = y1 > 0 ? 0.2 : -0.2;
      step = std::clamp(step, -std::log(4.0), std::log(4.0));
      x0 = x1, y0 = y1;
      x1 = x1 + step;
      y1 = log_excess(x1);
    }
    return (y0 > 0) != (y1 > 0);
  };
  // Where the PLD search certifies no σ at all — at tiny δ its brackets can stay wide at every
  // σ tried (q = 7.7e-9, T = 510, δ = 5.9e-142: [0, 4.35] at σ = 1.1, where the target is 2.69)
  // — the accountant that answers such runs is named, as for a search beyond the FFT limit.
  auto rdp_hint = [&] {
    return options.accountant == accountant_type::pld
               ? std::string("; the RDP accountant may calibrate it")
               : std::string();
  };
  // Where the search ends without a certified σ but some evaluation on the way was certified
  // within the budget (the PLD brackets wide at every σ near the target, their lower ends 0, so
  // that the search took the target for one below what the accountant resolves), the smallest
  // such σ is a certified answer, though maybe not the smallest: returned as such, not refused
  // (the case above: σ = 2 certifies ε ≤ 0.031 against the target 2.69).
  auto last_resort = [&](noise_calibration& o) {
    // (An evaluation below the smallest σ the accountants take ran at that σ, not at exp(x).)
    const auto it = std::find_if(seen.begin(), seen.end(), [&](const auto& xe) {
      return xe.second.value <= target_epsilon && std::exp(xe.first) >= kSmallestNoiseMultiplier;
    });
    if (it == seen.end()) return false;
    const auto& [x, e] = *it;
    o.noise_multiplier = std::exp(x);
    o.noise_multiplier_lower = NAN;
    o.estimate = e;
    o.termination = termination_type::max_iterations;
    o.message =
        "the smallest noise multiplier evaluated whose certified epsilon is within the budget; "
        "near the target the accountant's brackets stayed wider than asked, so a smaller one "
        "may also hold" +
        rdp_hint();
    o.evaluations = evaluations;
    return true;
  };
  // The ε = 0 answer, where the target lies below what the accountant resolves: ε(σ) falls to
  // exactly 0 at the σ where δ(0) = δ, and a target such as 1e-9 sits inside the last grid cell
  // of that fall (the grid cannot go below 1e-10). The search may then stop anywhere on the flat
  // part beyond (once at 15 times the smallest σ with ε = 0), or find no grid that meets the
  // accuracy near the target (tiny_target). The answer is the smallest σ at which ε = 0 is
  // certified, by bisection in log σ from `hi` (ε = 0 there, or found above by doubling) down
  // towards `lo`, to the relative tolerance or 1e-4, whichever is wider. Near the threshold
  // ε(σ) is linear in σ* − σ, so σ for any positive target lies within a few of the ε scale's
  // relative units of σ*; the message says which σ it is.
  auto zero_answer = [&](double hi, double lo) {
    // Whether ε = 0 is certified needs no narrow bracket, and just below the threshold a narrow
    // one is what costs (its width must shrink with ε → 0: grids down to the floor, FFTs at the
    // limit — a single evaluation once took minutes): at most 3 grid passes and 2^20 points
    // each, and an evaluation that cannot fit counts as "not certified" (the answer can only
    // move up, where ε = 0 is certified).
    pld_options zero_options = options.pld;
    zero_options.grid_spacing = 0;
    zero_options.max_refinements = std::min(zero_options.max_refinements, 2);
    zero_options.max_fft_size = std::min(zero_options.max_fft_size, std::size_t{1} << 20);
    auto zero_at = [&](double x) {
      ++evaluations;
      try {
        privacy_estimate e =
            estimate_epsilon(with_sigma(std::exp(x)), delta, options.accountant, zero_options);
        return std::pair{e.value == 0, std::move(e)};
      } catch (const std::length_error&) {
        return std::pair{false, privacy_estimate{}};
      }
    };
    auto at_hi = zero_at(hi);
    for (int i = 0; i < 60 && !at_hi.first; ++i) lo = hi, hi += std::log(2.0), at_hi = zero_at(hi);
    if (!at_hi.first) {
      if (last_resort(out)) return out;
      out.termination = termination_type::failure;
      out.message = std::string("no noise multiplier within the budget was certified") + rdp_hint();
      out.evaluations = evaluations;
      return out;
    }
    for (int i = 0; i < 60; ++i) {
      auto at_lo = zero_at(lo);
      if (!at_lo.first) break;
      hi = lo, at_hi = std::move(at_lo), lo -= std::log(2.0);
    }
    while (hi - lo > std::log1p(std::max(options.relative_tolerance, 1e-4))) {
      const double mid = 0.5 * (lo + hi);
      auto at_mid = zero_at(mid);
      if (at_mid.first) {
        hi = mid, at_hi = std::move(at_mid);
      } else {
        lo = mid;
      }
    }
    out.noise_multiplier = std::exp(hi);
    out.noise_multiplier_lower = std::exp(lo);
    out.estimate = std::move(at_hi.second);
    out.termination = termination_type::converged;
    out.message = zero_threshold_message(out, target_epsilon, true);
    out.evaluations = evaluations;
    return out;
  };
  root_options ro;
  ro.absolute_tolerance = std::log1p(options.relative_tolerance);
  ro.relative_tolerance = 0;
  ro.max_evaluations = 60;
  root_result r;
  bool met = false;
  try {
    if (!bracket()) {
      out.termination = termination_type::failure;
      // Say how far the search went: the last noise multiplier tried and what it certifies.
      const privacy_estimate& last = certified(x1);
      // The search went down and the budget still held: ε is nonincreasing in σ, so where the
      // smallest σ the accountants take holds it too, that σ is the answer (a tiny G(μ₀) factor
      // beside a rarely used example: sweep cases 5973, 8943, 9430 said "could not bracket"
      // with ε = 0 at σ = 8e-5; without a G factor the rule above answers them first).
      if (last.value <= target_epsilon && options.accountant == accountant_type::pld &&
          answer_at_smallest([](double eps) {
            return "the budget holds at every noise multiplier down to " +
                   format_value(kSmallestNoiseMultiplier) +
                   ", the smallest the accountants take, which is the answer (epsilon there: " +
                   format_value(eps) + ")";
          }))
        return out;
      out.message = "could not bracket the noise multiplier: at noise multiplier " +
                    format_value(std::exp(x1)) + " the certified epsilon is " +
                    format_value(last.value) + " (target " + format_value(target_epsilon) +
                    "; the search moves at most 4x per step and stopped after " +
                    std::to_string(evaluations) + " evaluations)";
      // Where 4 times more noise hardly lowers the certified ε, the accountant has reached the
      // smallest ε it resolves at this δ (the PLD's grid floor, RDP's largest order), far above
      // the exact ε. Say so, and which ε can be asked for (sweep case 28068: T = 12,
      // δ = 1.1e-263, target 1.1e-10; the PLD stalls at 6.3e-9 from σ ~ 1e10, RDP at 4.6e-4;
      // the exact ε falls like 1/σ). `seen` holds each σ tried: the nearest at least 4x below
      // the last one is compared (the secant's own steps may be a factor 1.2 where ε is flat).
      const auto below = seen.upper_bound(x1 - std::log(4.0));
      if (last.value > target_epsilon && std::isfinite(last.value) && below != seen.begin()) {
        const double x_before = std::prev(below)->first, before = std::prev(below)->second.value;
        if (before > 0 && std::isfinite(before) && last.value >= before / 1.5)
          out.message = "the certified epsilon stops falling at about " +
                        format_value(last.value) + " at this delta (noise multiplier " +
                        format_value(std::exp(x_before)) + " gives " + format_value(before) +
                        ", " + format_value(std::exp(x1)) + " gives " + format_value(last.value) +
                        "): the accountant cannot certify an epsilon as small as the target " +
                        format_value(target_epsilon) +
                        " here; ask for an epsilon above the one it stops at, or a "
                        "larger delta";
      }
      // A G(μ₀) factor's ε is a floor no noise multiplier goes below: say so where it is the
      // reason (sweep case 9228: G(4.43) against a target of 0.24).
      if (run.gaussian_mu > 0) {
        const double floor = divergence::gdp_epsilon(run.gaussian_mu, delta).lower;
        if (floor > target_epsilon)
          out.message = "no noise multiplier holds the budget: the run's G(mu) factor alone (mu "
                        "= " + format_value(run.gaussian_mu) + ") has epsilon >= " +
                        format_value(floor) + " at this delta, above the target " +
                        format_value(target_epsilon);
      }
      out.estimate.message = out.message;
      out.evaluations = evaluations;
      return out;
    }
    double left = std::min(x0, x1), right = std::max(x0, x1);
    // Once bracketed, the search continues on one fixed grid: each PLD evaluation otherwise
    // picks its own, and ε_upper(σ) jumps by up to the bracket's width (0.1 %) between nearby
    // σ — five times the budget tolerance — so the root search chased a noisy function (24
    // evaluations at q = 0.001, T = 1e4). On a fixed grid ε_upper is continuous in σ.
    if (options.accountant == accountant_type::pld && options.pld.grid_spacing == 0 && !truncated) {
      // Each end says which spacing would just meet the accuracy there (gap ∝ h², a 0.8
      // margin); the relative gap at a fixed h varies with σ, so the spacing for the root is
      // interpolated between the ends in (log ε, log h).
      // An end whose evaluation stopped refining at round-off keeps its own spacing (a finer
      // one has the same gap), and the search starts as if a regrid had stalled: at q = 1e-4,
      // T = 300, δ = 1e-12 the gap is 1.4 % from h = 1.7e-4 to 6.6e-7, and the spacing the gap
      // asked for took FFTs of 2^24 points for each evaluation.
      std::vector<std::pair<double, double>> ends;  // (log ε, log h) per end
      bool ends_roundoff = false;
      for (const double x : {left, right}) {
        const privacy_estimate& e = certified(x);
        const double gap =
            e.value > 0 && std::isfinite(e.lower) ? (e.value - e.lower) / e.value : 0.0;
        const bool stalled = roundoff_sets_width(e);
        ends_roundoff = ends_roundoff || stalled;
        if (e.pld.grid_spacing > 0 && gap > 0 && e.value > 0 && std::isfinite(e.value))
          ends.emplace_back(
              std::log(e.value),
              std::log(
                  e.pld.grid_spacing *
                  (stalled ? 1.0
                           : std::min(4.0, 0.8 * std::sqrt(options.pld.relative_accuracy / gap)))));
      }
      double h = INFINITY;
      if (ends.size() == 1) h = std::exp(ends[0].second);
      if (ends.size() == 2) {
        const double span = ends[1].first - ends[0].first;
        const double t =
            span != 0 ? std::clamp((log_target - ends[0].first) / span, 0.0, 1.0) : 0.5;
        h = std::exp(ends[0].second + t * (ends[1].second - ends[0].second));
      }
      // The ends keep their evaluations where their side is not in doubt on any grid: a lower
      // bound above the target, or an upper bound 1 % below it (the fixed grid's upper bound
      // is within its 0.1 % bracket of the truth); the others are evaluated on the fixed grid.
      std::map<double, privacy_estimate> kept;
      if (std::isfinite(h))
        for (const double x : {left, right}) {
          const privacy_estimate& e = certified(x);
          if ((std::isfinite(e.lower) && e.lower > target_epsilon) ||
              e.value < (1 - 10 * options.pld.relative_accuracy) * target_epsilon)
            kept.emplace(x, e);
        }
      const double left0 = left, right0 = right;
      const std::vector<pld_options> adaptive = levels;
      grid_stalled = ends_roundoff;
      bool searched = false;
      for (int attempt = 0; attempt < 3 && std::isfinite(h) && !searched; ++attempt) {
        pld_options fixed = options.pld;
        fixed.grid_spacing = std::max(h, kSmallestGridSpacing);
        fixed.raise_to_lattice_floor = true;  // h came from another σ
        levels.assign(1, fixed);
        fixed_grid = true;
        cache = kept;
        final_level.clear();
        left = left0, right = right0;
        try {
          widen(left, right);
          r = find_root(log_excess, left, right, ro);
          searched = true;
        } catch (const regrid& g) {
          h = g.h;
        }
      }
      fixed_grid = false;  // later evaluations (the polish below) may not restart the search
      if (!searched && unresolved_zero) throw tiny_target{};
      if (!searched) {  // no fixed grid met the accuracy: each evaluation picks its own
        levels = adaptive;
        cache = kept;
        final_level.clear();
        left = left0, right = right0;
        r = find_root(log_excess, left, right, ro);
      }
    } else {
      r = find_root(log_excess, left, right, ro);
    }
    // The σ bracket closed with budget unused: ε_upper jumped across the target between two
    // grids (each evaluation picks its own). On one fixed grid — the finer of the two ends' —
    // the certified ε is continuous in σ (the cell masses are), so a second search on it can
    // land within the budget tolerance.
    if (r.converged() && options.accountant == accountant_type::pld) {
      const privacy_estimate& a = certified(r.lower);
      const privacy_estimate& b = certified(r.upper);
      const double h = std::min(a.pld.grid_spacing, b.pld.grid_spacing);
      if (h > 0) {
        pld_options fixed = options.pld;
        fixed.grid_spacing = std::max(h, kSmallestGridSpacing);
        fixed.raise_to_lattice_floor = true;  // h came from another σ
        levels.assign(1, fixed);
        cache.clear();
        final_level.clear();
        double lo = r.lower, hi = r.upper;
        widen(lo, hi);
        if (excess(lo) > 0 && excess(hi) <= 0) r = find_root(excess, lo, hi, ro);
      }
    }
  } catch (const budget_met&) {
    met = true;
  } catch (const tiny_target&) {
    // From the evaluations so far: the smallest σ certified at ε = 0 and the largest below it
    // certified above 0 (each, if none, found by the answer's own search).
    double hi = NAN, lo = NAN;
    for (const auto& [x, e] : seen)
      if (e.value == 0) {
        hi = x;
        break;
      }
    if (std::isnan(hi)) hi = seen.rbegin()->first;
    for (const auto& [x, e] : seen)
      if (x < hi && e.value > 0) lo = x;
    return zero_answer(hi, std::isnan(lo) ? hi - std::log(2.0) : lo);
  } catch (const std::length_error& e) {
    // The PLD accountant cannot evaluate the run at a noise multiplier the search needs (large
    // budgets ask for small σ, whose losses need FFTs beyond the limit): say where, and which
    // accountant answers instead.
    throw std::length_error("calibration needs the accountant at noise multiplier " +
                            format_value(last_sigma) + ", where " + e.what() +
                            "; the RDP accountant calibrates such budgets");
  }
  // The answer: the smallest σ evaluated whose certified ε is within the budget (preferring
  // evaluations at the requested accuracy); the other end, the largest σ below it that was
  // not certified. Every cached value is certified on its own, whatever the search's state.
  double safe = NAN, other = NAN;
  for (const bool want_final : {true, false}) {
    for (const auto& [x, e] : cache)
      if (e.value <= target_epsilon && (!want_final || final_level[x])) {
        safe = x;
        break;
      }
    if (!std::isnan(safe)) break;
  }
  if (std::isnan(safe)) {
    // The safe end must be certified within the budget; if the search ended anywhere else (a
    // failed or exhausted root search), say so instead of returning an uncertified σ.
    if (last_resort(out)) return out;
    out.termination = termination_type::failure;
    out.message = std::string("no noise multiplier within the budget was certified") +
                  (r.message.empty() ? std::string() : " (" + r.message + ")") + rdp_hint();
    out.evaluations = evaluations;
    return out;
  }
  for (const auto& [x, e] : cache)
    if (x < safe && e.value > target_epsilon) other = x;
  out.noise_multiplier = std::exp(safe);
  out.noise_multiplier_lower = std::isnan(other) ? NAN : std::exp(other);
  out.estimate = certified(safe);
  if (out.estimate.value == 0 && options.accountant != accountant_type::clt)
    return zero_answer(safe, std::isnan(other) ? safe - std::log(2.0) : other);
  // The CLT's ε falls to exactly 0 where its δ(0) ≤ δ too; the root search has closed on that
  // threshold (to its tolerance): say so, as zero_answer does for the PLD, instead of "100 % of
  // the budget unused" and the root finder's own words.
  if (out.estimate.value == 0 && !std::isnan(other)) {
    out.termination = termination_type::converged;
    out.message = zero_threshold_message(out, target_epsilon, false);
    out.evaluations = evaluations;
    return out;
  }
  const double unused = (target_epsilon - out.estimate.value) / target_epsilon;
  // Whether the accountant resolves the returned σ at all: on its own grid, does it reach the
  // accuracy asked within the FFT limit? Where it does not, its upper ends need not fall with σ
  // and a smaller σ may be certified too (full domain sweep, case 8188: 14.9e6 truncated-Poisson
  // steps at FFTs of 2^16, accuracy 1e-2 — the budget 4658.6 held at σ = 1.498 with ε in
  // [84.8, 4657.7], and at 0.95 of it with ε ≤ 3435). (The search's last evaluations ran on one
  // fixed grid, which counts as converged whatever its width; and the width itself is no test:
  // truncated Poisson and shuffling bracket between two different pairs.) Where it stops
  // short, its diagnostics say whether round-off or the FFT limit stopped it.
  bool roundoff_limited = false;
  double fresh_upper = NAN;  // the fresh evaluation's upper end (PLD only)
  auto resolved = [&] {
    if (options.accountant != accountant_type::pld) return true;
    try {
      ++evaluations;
      const privacy_estimate e = estimate_epsilon(with_sigma(out.noise_multiplier), delta,
                                                  options.accountant, options.pld);
      roundoff_limited = e.pld.roundoff_limited;
      fresh_upper = e.upper;
      return e.converged();
    } catch (const std::length_error&) {
      return false;
    }
  };
  const bool within = met || unused <= options.budget_tolerance;
  const bool fresh_converged = within && resolved();
  // The fresh evaluation converged, but far below the budget (calibration_leaves_room): the
  // search's bracket at the answer was wider than it claimed (full-tier case 74 227 before
  // f74a6e3: a false round-off stall left [0.0004, 0.254] at σ = 34.24, within the budget by the
  // search's rule; the fresh evaluation read 0.0719 against the target 0.128, and σ = 19.30
  // holds).
  if (fresh_converged && calibration_leaves_room(fresh_upper, target_epsilon, options)) {
    out.termination = termination_type::max_iterations;
    out.message =
        "the budget holds at the returned noise multiplier with room to spare: a "
        "fresh evaluation there certifies epsilon <= " +
        format_value(fresh_upper) + ", " +
        percent((target_epsilon - fresh_upper) / target_epsilon) +
        " % below the target, where the search's evaluation read " +
        format_value(out.estimate.value) +
        ", so a smaller noise multiplier may hold the budget too";
  } else if (within && !fresh_converged) {
    out.termination = termination_type::max_iterations;
    out.message =
        "the budget holds at the returned noise multiplier, but the accountant does "
        "not reach the accuracy " +
        format_value(options.pld.relative_accuracy) +
        (roundoff_limited
             ? " there: the FFT's certified round-off, not the grid, sets its bracket's width "
               "(finer grids do not narrow it), so a smaller noise multiplier may hold the "
               "budget too"
             : " there within the FFT limit (a larger limit or a coarser accuracy does), so a "
               "smaller noise multiplier may hold the budget too");
  } else if (within) {
    out.termination = termination_type::converged;
  } else {
    out.termination = termination_type::max_iterations;
    out.message = "the certified epsilon at the returned noise multiplier leaves " +
                  percent(unused) +
                  " % of the budget unused (asked: " + percent(options.budget_tolerance) + " %)" +
                  (r.message.empty() ? std::string() : "; " + r.message);
  }
  out.evaluations = evaluations;
  return out;
}

bool calibration_leaves_room(double fresh_upper,
                             double target_epsilon,
                             const calibration_options& options) {
  // ε ≥ lower ≥ (1 − a)·upper ≥ (1 − a)(1 − tolerance)·target for a search evaluation within the
  // tolerance at accuracy a, and ε ≤ fresh_upper: a fresh upper end below that contradicts the
  // search's claim. Twice the accuracy keeps the rule clear of the brackets' own rounding (the
  // quick tier's 28 converged PLD calibrations: fresh upper ends at most 0.49 accuracies below
  // the target, fresh/target ≥ 0.9957 at accuracy 1e-2, where the rule needs 2).
  return fresh_upper <
         (1 - options.budget_tolerance) * (1 - 2 * options.pld.relative_accuracy) * target_epsilon;
}

steps_calibration calibrate_steps(training_run run,
                                  double target_epsilon,
                                  double delta,
                                  long long max_steps,
                                  const calibration_options& options) {
  constexpr const char* kFn = "calibrate_steps";
  check_positive(kFn, "target_epsilon", target_epsilon);
  check_open_probability(kFn, "delta", delta);
  check_at_least(kFn, "max_steps", max_steps, 1);
  if (run.phases.empty()) throw_domain_error(kFn, "the number of phases", "0", ">= 1");
  run.validate(kFn);
  steps_calibration out;
  out.estimate.accountant = options.accountant;
  int evaluations = 0;
  auto at = [&](long long t) {
    run.phases.back().steps = t;
    ++evaluations;
    return estimate_epsilon(run, delta, options.accountant, options.pld);
  };
  // ε is non-decreasing in the number of steps: exponential search, then bisection.
  privacy_estimate best;
  best.accountant = options.accountant;
  long long good = 0, bad = 0;
  for (long long t = 1;; t = std::min(2 * t, max_steps)) {
    const privacy_estimate e = at(t);
    if (e.value <= target_epsilon) {
      good = t, best = e;
      if (t == max_steps) break;
    } else {
      bad = t;
      break;
    }
  }
  while (bad != 0 && bad - good > 1) {
    const long long mid = good + (bad - good) / 2;
    const privacy_estimate e = at(mid);
    (e.value <= target_epsilon ? good : bad) = mid;
    if (e.value <= target_epsilon) best = e;
  }
  out.steps = good;
  out.estimate = best;
  out.evaluations = evaluations;
  if (good == 0) out.message = "even one step exceeds the budget";
  // The search's end is not a step count at which the budget is exceeded: say so (the CLI read
  // it as "exceeded at one more" at 10^7 steps of noise multiplier 1e300).
  if (good == max_steps) {
    out.termination = termination_type::max_iterations;
    out.message = "the budget holds at the largest number of steps searched, " +
                  std::to_string(max_steps) + ": more steps may hold it too";
  }
  return out;
}

}  // namespace dpkit::accounting
