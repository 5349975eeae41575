#include "dpkit/accounting/pld_accountant.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "dpkit/accounting/pld.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/tolerance.hpp"
#include "dpkit/divergence/gdp.hpp"

namespace dpkit::accounting {
namespace {

using subsampling::adjacency_direction;

// A composition to bound: one list of factors per ordered pair (adjacency direction). The
// privacy curve is the larger of the directions' curves.
using directions = std::vector<std::vector<loss_factor>>;

directions directions_of(const training_run& run) {
  directions d = {loss_factors(run, adjacency_direction::remove)};
  if (run.has_poisson_subsampling()) d.push_back(loss_factors(run, adjacency_direction::add));
  return d;  // without Poisson subsampling every factor is symmetric: one direction suffices
}

// A pass's answers, one per direction (optimistic: fewer), each the query's values on that
// direction's composition. The compositions themselves are freed as soon as they are queried:
// at 2^21 points each holds 32 MB (masses and the round-off sums), and a pass composes up to four.
struct pass_result {
  std::vector<std::vector<double>> pessimistic, optimistic;
  std::size_t fft_size = 0;
  double span = 0;     // the widest composition's span of losses (composed_pld::span)
  bool tilted = true;  // every composition of the pass was tilted
};

// The discretised steps of one grid, kept between the points of a curve (pld_epsilon_curve):
// the runs of a curve differ only in the count of their last factor, so a point on the same
// grid as the previous one composes the same discretised steps again instead of discretising
// them anew. `tail_steps` fixes the per-step truncation for every point (that of the longest
// run: a shorter run then truncates at most T·tail/tail_steps ≤ tail in total, still certified).
struct discretisation_cache {
  long long tail_steps = 0;
  long long builds = 0;  // how many times the steps were discretised (pld_growth_cache)
  double h = NAN, step_tail = NAN;
  std::vector<std::vector<std::pair<discrete_pld, discrete_pld>>> steps;  // [direction][factor]
};

// Per-step truncation: at most tail/T per step, so T steps lose at most `tail` in total (T: the
// steps the cache is kept for, where it grows with the run).
double step_tail_of(const directions& dirs, double tail, const discretisation_cache* cache) {
  long long total = 0;
  for (const loss_factor& f : dirs.front()) total += f.count;
  if (cache != nullptr && cache->tail_steps > 0) total = cache->tail_steps;
  return std::max(tail / static_cast<double>(std::max(total, 1LL)), 1e-300);
}

// One grid pass. `query(composed)` is the quantity asked (see bracket); `dominated(upper_d,
// lower_so_far)` says whether a direction's upper bound is already below the best lower
// bound: its optimistic side cannot raise the lower bound then (true value = max over
// directions) and is not composed.
template <class Query, class Dominated>
pass_result evaluate_pass(const directions& dirs,
                          double h,
                          double tail,
                          std::size_t max_fft,
                          const compose_focus& focus,
                          Query&& query,
                          Dominated&& dominated,
                          discretisation_cache* cache) {
  pass_result out;
  const double step_tail = step_tail_of(dirs, tail, cache);
  // Without a cache (one query), each direction's steps are discretised, composed and freed
  // before the next direction's.
  discretisation_cache local;
  discretisation_cache& steps = cache != nullptr ? *cache : local;
  if (!(steps.h == h) || !(steps.step_tail == step_tail) || steps.steps.size() != dirs.size()) {
    steps.h = h;
    steps.step_tail = step_tail;
    steps.steps.assign(dirs.size(), {});
    ++steps.builds;
  }
  for (std::size_t d = 0; d < dirs.size(); ++d) {
    const std::vector<loss_factor>& factors = dirs[d];
    std::vector<std::pair<discrete_pld, discrete_pld>>& both = steps.steps[d];
    if (both.size() != factors.size()) {
      both.clear();
      both.reserve(factors.size());
      for (const loss_factor& f : factors) {
        // The discretised step must fit the memory limit too (its cells outnumber the FFT's
        // points only for few steps, but then they are what grows as h shrinks).
        const double cells =
            (f.loss->upper_tail_point(step_tail) - f.loss->lower_tail_point(step_tail)) / h;
        if (cells > static_cast<double>(max_fft))
          throw fft_limit_error(
              "one step of this run needs " + format_value(std::ceil(cells)) +
                  " grid cells at grid spacing " + format_value(h) + ", more than the FFT limit " +
                  std::to_string(max_fft) +
                  " (a coarser accuracy, a larger FFT limit or the RDP accountant answers it)",
              cells);
        both.push_back(discretize_both(*f.loss, h, step_tail));
      }
    }
    std::vector<pld_factor> fp, fo;
    for (std::size_t i = 0; i < factors.size(); ++i) {
      fp.push_back({&both[i].first, factors[i].count});
      fo.push_back({&both[i].second, factors[i].count});
    }
    auto answer = [&](std::span<const pld_factor> side) {
      const composed_pld c = compose(side, tail, max_fft, focus);
      out.fft_size = std::max(out.fft_size, c.fft_size);
      out.span = std::max(out.span, c.span);
      out.tilted = out.tilted && c.tilt > 0;
      return query(c);
    };
    out.pessimistic.push_back(answer(fp));
    const bool skip = !out.optimistic.empty() && dominated(out.pessimistic.back(), out.optimistic);
    if (!skip) out.optimistic.push_back(answer(fo));
    if (cache == nullptr) both = {};  // one query: this direction's steps are not needed again
  }
  return out;
}

// Coarse first grid: 2000 cells across the widest per-step loss range (at `range_tail`) — or,
// for long runs, coarser: so that the composition's bulk (20 standard deviations of the summed
// losses, from each step's mean and variance on a 256-cell grid) spans 2^16 points. The first
// pass only measures the gap, from which the next spacing follows (gap ∝ h²); on the per-step
// grid it was a 2^21-point FFT at T = 1e6 whose bracket came out 60× narrower than asked.
double initial_spacing(const directions& dirs, double range_tail) {
  double widest = 0, bulk = 0;
  for (const auto& factors : dirs) {
    // The composed loss's standard deviation, accumulated by hypot: at σ ~ 1e-79 one step's
    // losses reach 1e156, whose squares overflow (the spacing came out inf).
    double sd = 0;
    for (const loss_factor& f : factors) {
      const double lo = f.loss->lower_tail_point(range_tail);
      const double hi = f.loss->upper_tail_point(range_tail);
      widest = std::max(widest, hi - lo);
      // Below the finest grid (1e-10), the step's variance is negligible anyway.
      if (!((hi - lo) / 256 >= 1e-10)) continue;
      // Not finer than 2^-50 of the losses' reach: a narrow loss far from 0 (a few ulps wide
      // at 5.4e154) would otherwise put its lattice indices out of range; its variance is
      // then below the double resolution of its mean anyway.
      const double reach = std::max(std::abs(lo), std::abs(hi));
      const discrete_pld d = discretize(*f.loss, std::max((hi - lo) / 256, std::ldexp(reach, -50)),
                                        pld_side::pessimistic, 1e-12);
      // Moments of the loss in units of the step's range (finite whatever the range).
      const double unit = hi - lo;
      double m0 = 0, m1 = 0, m2 = 0;
      for (std::size_t k = 0; k < d.mass.size(); ++k) {
        const double y = d.loss(k) / unit;
        m0 += d.mass[k], m1 += d.mass[k] * y, m2 += d.mass[k] * y * y;
      }
      if (m0 > 0)
        sd = std::hypot(sd, std::sqrt(static_cast<double>(f.count) *
                                      std::max(0.0, m2 / m0 - (m1 / m0) * (m1 / m0))) *
                                unit);
    }
    bulk = std::max(bulk, 20 * sd);
  }
  if (!(widest > 0)) return 1e-3;
  return std::max(widest / 2000, bulk / 65536);
}

// The finest spacing at which the lattice indices stay exact. A loss ℓ sits at index ℓ/h, a
// composition of T steps at the sum of theirs; the indices are `long long`, but the losses
// (first + k)·h + offset and the window's placement (ℓ − offset)/h go through doubles, exact
// only below 2^53. A narrow loss far from 0 — a full-batch phase at σ = 3e-78, every loss
// within 1e140 of 5.4e154 — makes the grid fine against its own width (h = 2.4e139) and its
// index ~2^51: 5 000 such steps overflowed the composed index (undefined behaviour; the run
// beside a Poisson phase read "unavailable"), and between 2^53 and 2^63 adjacent lattice
// points merged and the window was placed cells off its masses (a certified lower end 1e-12
// above the exact ε, sweep case 27 956). Each step's reach max(|lower|, |upper|) at the tail the
// steps are cut at, summed over the steps, over 2^50: the composed indices stay below 2^50
// (a window's few cells of room, and a coarser first grid's, stay below 2^53). The spacing
// that sets is 8.9e-16 of the composed loss's size, about the resolution of the double that
// holds it.
double lattice_floor(const directions& dirs, double step_tail) {
  double floor = 0;
  for (const auto& factors : dirs) {
    double reach = 0;
    for (const loss_factor& f : factors) {
      const double m = std::max(std::abs(f.loss->lower_tail_point(step_tail)),
                                std::abs(f.loss->upper_tail_point(step_tail)));
      if (std::isfinite(m)) reach += static_cast<double>(f.count) * m;
    }
    floor = std::max(floor, std::ldexp(reach, -50));
  }
  return floor;
}

// The finest grid the engine uses. The discretisation places each cell's mass by its
// conditional mean, log(m/s), and splits it by m − e^ℓ·s: both lose ~1e-16 absolute to the
// rounding of the cell masses, harmless against h = 1e-10 (a 1e-6 relative misplacement within
// a cell) but not against h ~ 1e-16, where the placement would be noise and the measured
// discretisation error behind the floating-point slack no longer applies. Runs whose losses are
// that small (sampling rates below ~1e-9) get a wide but valid bracket at h = 1e-10, and say
// that the accuracy was not reached.
constexpr double kMinGridSpacing = kSmallestGridSpacing;

// Next spacing from the measured relative gap: gap ∝ h², with a 0.8 safety factor, between
// 1/8 and 1/1.5 of the current spacing — then as fine as the FFT that spacing needs can hold:
// its size is the span of losses over h rounded up to a power of two, so the finest spacing
// that fits the same size costs no more and leaves room for a gap that shrinks slower than h²
// (measured: T = 1e7, q = 1e-3, σ = 0.8 took a fourth pass at 2^21 points after its third,
// at 2^20, missed 1e-3 by 13 %; filled, the third pass reaches it). 3 % and 4 cells of room for
// the span's own small change with h; composed without an FFT (span 0): unchanged.
double next_spacing(double h, double gap, double target, double span) {
  const double predicted = h * std::clamp(0.8 * std::sqrt(target / gap), 0.125, 1 / 1.5);
  if (!(span > 0)) return predicted;
  const double points = std::ceil(span / predicted) + 4;
  if (!(points < 0x1p60)) return predicted;
  const auto n = static_cast<double>(fft_size_for(static_cast<std::size_t>(points)));
  return std::min(predicted, 1.03 * span / (n - 4));
}

// The adaptive-grid loop shared by every query. `query(composed)` is the quantity on one
// direction and side, at one or several points (ε(δ), δ(ε), or δ at a list of ε); the bracket
// is [max over optimistic, max over pessimistic], point by point. The grid is refined until
// max(upper − lower) ≤ relative_accuracy · max(upper). Fills the diagnostics and termination.
template <class Result, class Query>
void bracket(const directions& dirs,
             const pld_options& options,
             double tail,
             const compose_focus& focus,
             Result& r,
             Query&& query,
             std::vector<double>& lower,
             std::vector<double>& upper,
             discretisation_cache* cache = nullptr) {
  // The first grid spans each step's losses down to tails of 1e-12 in 2000 cells — or, for ε
  // at a δ below 1e-6, down to the tail the window keeps (1e-6·δ): there ε lies beyond the
  // 1e-12 range, and a grid fitted to that range was needlessly fine. At one step, q = 1.2e-8,
  // σ = 1.06, δ = 4.8e-49 the first grid had h = 2.9e-9 where ε = 4.6e-3: a bracket 1e-7 wide
  // for the 1e-2 asked, built from 1e7 cells in 11 s.
  const double range_tail = std::isnan(focus.delta) ? 1e-12 : std::min(1e-12, tail);
  r.roundoff_limited = false;  // set below where the refinement stalls
  double h = options.grid_spacing > 0           ? options.grid_spacing
             : options.initial_grid_spacing > 0 ? options.initial_grid_spacing
                                                : initial_spacing(dirs, range_tail);
  const double index_floor = lattice_floor(dirs, step_tail_of(dirs, tail, cache));
  if (options.grid_spacing > 0 && options.grid_spacing < index_floor &&
      !options.raise_to_lattice_floor)
    throw_domain_error("pld_accountant", "grid_spacing", options.grid_spacing,
                       ">= " + format_value(index_floor) +
                           " for this run (a finer grid's lattice indices are not exact in "
                           "double precision), or 0");
  const double finest = std::max(kMinGridSpacing, index_floor);
  h = std::max(h, finest);
  // Point-by-point maximum over directions.
  auto max_of = [&](const std::vector<std::vector<double>>& vs) {
    std::vector<double> m;
    for (const std::vector<double>& v : vs) {
      if (m.empty()) {
        m = v;
      } else {
        for (std::size_t i = 0; i < m.size(); ++i) m[i] = std::max(m[i], v[i]);
      }
    }
    return m;
  };
  bool have = false;
  int coarsenings = 0;
  // Where every composition of a pass was tilted, the next (finer) pass composes tilted at
  // once: compose() tries the untilted composition first and keeps it only where its round-off
  // corrections are small, and they grow with the window's points as h shrinks (T = 1e7: each
  // untilted FFT was built and dropped, a third of the run's time). Either is certified.
  compose_focus at = focus;
  std::vector<double> last_lower;  // the last pass's own lower ends
  // Passes in a row whose finer grid narrowed the gap by less than a fifth (a gap ∝ h² narrows
  // ≥ 2.25× per refinement): two mean that round-off, not the grid, sets the bracket, and the
  // refinement stops there (see below). The gap in the queries' own units, not relative to the
  // upper end: on coarse grids a bracket can be [~0, u] with u falling ∝ h, its relative gap
  // ~1 on every grid though each pass halves it (full domain-sweep case 74 227: σ = 40.7,
  // q = 3.9e-4, T = 30 524, δ = 3.7e-291 from h = 0.03: [0, 6.4], [0, 2.9], [0, 1.3], ...,
  // [0.0604, 0.0605] at h = 1e-6), which was taken for round-off after three passes.
  double last_gap = NAN;
  int stalls = 0;
  for (int pass = 1; pass <= options.max_refinements + 1; ++pass) {
    pass_result p;
    try {
      p = evaluate_pass(
          dirs, h, tail, options.max_fft_size, at, query,
          [&](const std::vector<double>& v, const std::vector<std::vector<double>>& lowers) {
            const std::vector<double> best = max_of(lowers);
            for (std::size_t i = 0; i < v.size(); ++i)
              if (!(v[i] <= best[i])) return false;
            return true;
          },
          cache);
    } catch (const std::length_error& e) {
      // The first grid does not fit in max_fft_size: coarsen it until a bracket (however wide)
      // exists, so that a small memory cap gives a wide certified answer rather than none.
      if (!have && options.grid_spacing <= 0 && coarsenings < 40) {
        // The points (or a step's cells) needed scale as 1/h: skip the doublings that cannot
        // fit, to one short of the first that would, then double as before — the same spacing,
        // without discretising the steps at each spacing on the way (at q = 1.7e-14, T = 10 083
        // those took 37, 16 and 7 s, and the answer 103 s).
        int doublings = 1;
        if (const auto* f = dynamic_cast<const fft_limit_error*>(&e);
            f != nullptr && f->needed > static_cast<double>(options.max_fft_size))
          doublings = std::clamp(static_cast<int>(std::ceil(std::log2(
                                     f->needed / static_cast<double>(options.max_fft_size)))) -
                                     1,
                                 1, 40 - coarsenings);
        h = std::ldexp(h, doublings);
        coarsenings += doublings;
        --pass;
        continue;
      }
      if (!have) throw;
      r.termination = termination_type::max_iterations;
      r.message = "relative accuracy " + format_value(options.relative_accuracy) +
                  " not reached within max_fft_size; the tightest certified bracket is kept (" +
                  e.what() + ")";
      return;
    }
    std::vector<double> up = max_of(p.pessimistic), lo = max_of(p.optimistic);
    // A lower end below the last pass's own, on a finer grid: the optimistic side is limited
    // by its round-off allowance there (its floor is the most negative FFT output, which varies
    // from grid to grid: at q = 0.01, σ = 0.5, T = 1e7 the lower end was 14 324 at h = 0.00588
    // and 13 437 at h = 0.005884), not by h, and the gap says nothing of how h should shrink.
    bool erratic = false;
    for (std::size_t i = 0; i < lo.size() && i < last_lower.size(); ++i)
      erratic = erratic || lo[i] < last_lower[i];
    last_lower = lo;
    // Every pass certifies its bracket, so their intersection is certified too.
    if (have) {
      for (std::size_t i = 0; i < up.size(); ++i) {
        up[i] = std::min(up[i], upper[i]);
        lo[i] = std::max(lo[i], lower[i]);
      }
    }
    upper = std::move(up);
    lower = std::move(lo);
    double gap = 0, scale = 0;
    bool finite = true;
    for (std::size_t i = 0; i < upper.size(); ++i) {
      lower[i] = std::min(lower[i], upper[i]);
      finite = finite && std::isfinite(upper[i]);
      gap = std::max(gap, upper[i] - lower[i]);
      scale = std::max(scale, upper[i]);
    }
    r.grid_spacing = h;
    r.fft_size = p.fft_size;
    r.passes = pass;
    have = true;
    at.tilt_first = p.tilted;
    if (!finite) {
      r.termination = termination_type::failure;
      // +∞ is a certified answer (the corrections exceed the target); NaN is a fault, and
      // saying it was the corrections once hid one (an exact zero in the FFT's spectrum).
      const bool fault =
          std::any_of(upper.begin(), upper.end(), [](double v) { return std::isnan(v); });
      r.message =
          fault ? "internal fault: the upper bound is not a number (please report the command)"
                : "the truncation corrections alone exceed the target";
      return;
    }
    if (options.grid_spacing > 0 || scale == 0 || gap <= options.relative_accuracy * scale) {
      r.termination = termination_type::converged;
      r.message.clear();
      return;
    }
    r.termination = termination_type::max_iterations;
    r.message = "relative gap " + format_value(gap / scale) + " above the target " +
                format_value(options.relative_accuracy) + " after " + std::to_string(pass) +
                " grid passes";
    if (scale <= 100 * tail) {
      // The upper bound is the certified truncation mass itself (δ queries far in the tail,
      // where δ is below `tail`): no grid makes it smaller, so refining would only cost time
      // (at ε = 1e308 it once ran for minutes).
      r.message += " (delta is below the truncation level " + format_value(tail) +
                   " that the upper bound certifies; the bracket is kept)";
      return;
    }
    stalls = gap > last_gap / 1.2 ? stalls + 1 : 0;
    last_gap = gap;
    if (stalls >= 2) {
      // Two steps at q = 1e-6, σ = 1, ε at δ = 3e-25: [1.5e-4, 0.027] on every grid from
      // h = 1e-5 on, refined through seven passes to an FFT of 2^21 points (9 s); the gap is
      // round-off's (the tilted step is bimodal, accounting.md), and finer grids only cost time.
      r.message +=
          " (the bracket stopped narrowing as the grid was refined: round-off, not the "
          "grid, limits it; the tightest certified bracket is kept)";
      r.roundoff_limited = true;
      return;
    }
    if (h <= kMinGridSpacing) {
      r.message +=
          " (the grid spacing is at its floor 1e-10, below which rounding would "
          "dominate the discretisation; the tightest certified bracket is kept)";
      return;
    }
    if (h <= finest) {
      r.message += " (the grid spacing is at its floor " + format_value(finest) +
                   " for this run, below which its lattice indices are not exact in double "
                   "precision; the tightest certified bracket is kept)";
      return;
    }
    // After an erratic pass the spacing halves (a gap of 2.56 × the target: 0.8·√(1/2.56) = ½),
    // then fills the FFT it needs, instead of following a gap that jumped the FFT eightfold.
    h = std::max(next_spacing(h, erratic ? 2.56 * options.relative_accuracy : gap / scale,
                              options.relative_accuracy, p.span),
                 finest);
    // A finer grid whose composition needs at least twice the FFT limit, by the span of this
    // pass's (the window's span hardly changes with h): the attempt would fail, so stop here as
    // it would — without discretising the steps at that grid first (at q = 1.7e-14,
    // T = 10 083, 30 s for a grid that could not be used).
    const double points = p.span > 0 ? std::ceil(p.span / h) + 4 : 0;
    if (points > 0 && points < 0x1p60) {
      const std::size_t n = fft_size_for(static_cast<std::size_t>(points));
      if (static_cast<double>(n) >= 2 * static_cast<double>(options.max_fft_size)) {
        r.message = "relative accuracy " + format_value(options.relative_accuracy) +
                    " not reached within max_fft_size; the tightest certified bracket is kept "
                    "(the next grid's composition needs an FFT of " +
                    std::to_string(n) + " points, more than the FFT limit " +
                    std::to_string(options.max_fft_size) +
                    " (a coarser accuracy, a larger FFT limit or the RDP accountant answers it))";
        return;
      }
    }
  }
}

void check_factors(std::span<const loss_factor> factors, const char* function) {
  if (factors.empty()) throw_domain_error(function, "the number of factors", "0", ">= 1");
  for (const loss_factor& f : factors) {
    if (!f.loss) throw_domain_error(function, "a factor's loss", "null", "a privacy loss");
    check_at_least(function, "count", f.count, 1);
  }
}

pld_epsilon_result epsilon_of(const directions& dirs,
                              double delta,
                              const pld_options& options,
                              discretisation_cache* cache = nullptr) {
  pld_epsilon_result r;
  r.kind = bound_kind::upper_bound;
  // Truncation and aliasing may cost at most ~1e-6·δ: negligible next to the grid's gap, and
  // cheap (the window grows like √log(1/τ)).
  const double tail = std::clamp(1e-6 * delta, 1e-300, 1e-3);
  std::vector<double> lower{NAN}, upper{NAN};
  compose_focus focus;
  focus.delta = delta;
  focus.tolerance = 0.1 * options.relative_accuracy;
  bracket(
      dirs, options, tail, focus, r,
      [&](const composed_pld& c) { return std::vector<double>{c.epsilon(delta)}; }, lower, upper,
      cache);
  r.value = r.upper = upper[0];
  r.lower = lower[0];
  return r;
}

// The first truncation level of a δ(ε) query: 1e-20 — or, for one step with P(Y > ε) below
// 1e-14, 1e-6 of the step's profile δ(ε) = P(Y > ε) − e^ε Q(Y > ε), the level a last round
// would use (delta_of): the query starts where the ladder of levels would have ended (at
// σ = 0.32, q = 2.4e-10, ε = 70, δ = 4.6e-183, six rounds of ~3 s, five of them finding only
// that δ lay below their level). Only a guide — any level gives a certified bracket, and one
// step has no FFT whose round-off a deeper level raises: a cancelled profile is taken as at
// least 4u·P(Y > ε), and at most P(Y > ε) ≥ δ(ε). Several steps keep the ladder.
constexpr double kFirst = 1e-20;  // δ queries' usual first level (and δ profiles' only one)
double first_delta_level(const directions& dirs, double epsilon, double deepest) {
  for (const auto& factors : dirs)
    if (factors.size() != 1 || factors[0].count != 1) return kFirst;
  double beyond = 0, profile = 0;  // the largest P(Y > ε) and δ(ε) over the directions
  // A loss whose closed forms refuse this ε (G(μ) beyond μ = 1e6 throws std::domain_error)
  // starts the ladder instead.
  try {
    for (const auto& factors : dirs)
      beyond = std::max(beyond,
                        factors[0].loss->mass(epsilon, std::numeric_limits<double>::infinity()).p);
    if (!(beyond < 1e-14)) return kFirst;  // NaN too; the profile is not needed
    for (const auto& factors : dirs) {
      const double d = factors[0].loss->delta(epsilon);
      if (d > profile) profile = d;  // NaN is skipped
    }
  } catch (const std::logic_error&) {
    return kFirst;
  } catch (const std::runtime_error&) {
    return kFirst;
  }
  const double estimate =
      std::clamp(profile, 4 * std::numeric_limits<double>::epsilon() * beyond, beyond);
  return std::clamp(1e-6 * estimate, deepest, kFirst);
}

pld_delta_result delta_of(const directions& dirs,
                          double epsilon,
                          const pld_options& options,
                          discretisation_cache* cache = nullptr) {
  pld_delta_result r;
  r.kind = bound_kind::upper_bound;
  // Truncation: absolute, as δ itself is not known in advance — first 1e-20 (for one step far in
  // the tail, 1e-6 of the step's profile: first_delta_level). Where δ turns out to lie below
  // that level (the upper end is then within 100 times the level), the query runs again with a
  // lower level — 1e-10 times lower, then 1e-20, 1e-40, ... times for each further round that
  // finds δ below it (1e-20, 1e-30, 1e-50, 1e-90, 1e-170, 1e-300), down to 1e-300. (Ten rounds
  // of 1e-10 stopped at 1e-110: one Poisson step, q = 2.4e-10, σ = 0.32, ε = 70 kept
  // [0, 1e-110] where δ = 1.6e-182, and said round-off limited it.) A jump that went past the
  // level rounds of 1e-10 would have stopped at is followed by a round at that level. Once δ
  // stands above the level, a bracket still wider than asked gets one more round at 1e-6 of its
  // lower end, the level an ε query at that δ would use — never below 1e-6 ×
  // options.delta_floor. Not lower: a deeper truncation lets larger losses into the steps, the
  // tilt that centres the law at ε gets smaller and the round-off at ε larger (q = 1e-3, σ = 4,
  // two steps, δ(0.02) = 2.9e-38: [2.91526e-38, 2.93115e-38] at the level 1e-44, [0, 5.6e-38]
  // at 1e-52, on the same grid). Two steps at q = 1e-4, σ = 22.43, ε = 1.1e-4 gave [0, 1e-20]
  // where δ = 1.8e-50; now [1.84217e-50, 1.84351e-50].
  const double deepest = std::max(1e-300, 1e-6 * options.delta_floor);
  double tail = first_delta_level(dirs, epsilon, deepest);
  const double first_level = tail;
  std::vector<double> lower{NAN}, upper{NAN};
  compose_focus focus;
  focus.epsilon = epsilon;
  focus.tolerance = 0.1 * options.relative_accuracy;
  // The later rounds are kept cheap: two passes, FFTs up to 2^20 points, on the grid the last
  // round ended on. Where round-off, not the truncation, limits the bracket, they cannot help
  // (at q = 1e-6, σ = 1, two steps, ε = 0.01 they refined to the FFT limit for 39 s and kept
  // [0, 1e-20]); two rounds in a row that do not lower the upper end 10-fold stop them. A
  // round that fails or finds no grid within its limits leaves the bracket as it was.
  pld_options later = options;
  later.max_refinements = std::min(options.max_refinements, 1);
  later.max_fft_size = std::min<std::size_t>(options.max_fft_size, std::size_t{1} << 20);
  auto query = [&](const composed_pld& c) { return std::vector<double>{c.delta(epsilon)}; };
  // A first level below 1e-20 (first_delta_level: one step, ε far in the tail): the first grid
  // spans the losses down to that level, where ε lies, in 2000 cells — fitted to the 1e-12 range
  // it was 10^4 times finer than the bracket asked for needs (h = 6.4e-6 at σ = 0.32,
  // q = 2.4e-10, ε = 70: 1e7 cells, 46 s).
  pld_options first = options;
  if (tail < kFirst && options.grid_spacing <= 0 && options.initial_grid_spacing <= 0)
    first.initial_grid_spacing = initial_spacing(dirs, tail);
  bracket(dirs, first, tail, focus, r, query, lower, upper, cache);
  int rounds = 1, idle = 0;
  double resolved_tail = tail;  // the level of the last round that gave a bracket
  bool refit = false;
  double decades = 10;  // how far the next level below a truncated round goes, in decades
  double below = tail;  // the last level that a round found δ below
  bool truncated = upper[0] <= 100 * tail, back = false;
  // The next round's level; NaN: none.
  auto next_level = [&]() -> double {
    if (truncated && tail > deepest) {
      below = tail;
      const double next = std::max(deepest, tail * std::pow(10.0, -decades));
      decades *= 2;
      return next;
    }
    if (truncated) return NAN;
    // After a jump of 20 decades or more: the level where rounds of 1e-10 would have stopped —
    // the first below which δ (at most the upper end) stands 100-fold — if the jump went past
    // it (δ(0.02) = 2.9e-38 below: levels 1e-30, 1e-50, then 1.2e-44 ended at [2.9155e-38,
    // 2.9311e-38], wider than asked; with a round at 1e-40, [2.93063e-38, 2.93101e-38]).
    if (!back && decades > 20) {
      back = true;
      double ladder = below * 1e-10;
      while (ladder > tail && 100 * ladder >= upper[0]) ladder *= 1e-10;
      if (ladder > 10 * tail) return ladder;
    }
    if (!refit && lower[0] > 0 && std::max(deepest, 1e-6 * lower[0]) < 0.1 * tail) {
      refit = true;
      return std::max(deepest, 1e-6 * lower[0]);
    }
    return NAN;
  };
  while (!r.converged() && rounds < 10 && idle < 2) {
    const double level = next_level();
    if (std::isnan(level)) break;
    tail = level;
    const pld_delta_result kept = r;
    if (r.grid_spacing > 0) later.initial_grid_spacing = r.grid_spacing;
    std::vector<double> lo{NAN}, up{NAN};
    try {
      bracket(dirs, later, tail, focus, r, query, lo, up, cache);
    } catch (const std::length_error&) {
      r = kept;
      break;
    }
    if (r.termination == termination_type::failure) {
      r = kept;
      break;
    }
    ++rounds;
    resolved_tail = tail;
    truncated = up[0] <= 100 * tail;
    // A truncated round lowers the upper end with its level; idle rounds are the others.
    idle = up[0] > 0.1 * upper[0] && !truncated ? idle + 1 : 0;
    // Every round's bracket is certified: keep the intersection.
    lower[0] = std::max(lower[0], lo[0]);
    upper[0] = std::min(upper[0], up[0]);
    if (upper[0] - lower[0] <= options.relative_accuracy * upper[0]) {
      r.termination = termination_type::converged;
      r.message.clear();
    }
  }
  if (rounds > 1 && !r.converged()) {
    // The last round's note would speak of its own limits, not of the query's.
    r.termination = termination_type::max_iterations;
    r.message = "relative gap " + format_value(upper[0] > 0 ? 1 - lower[0] / upper[0] : 0.0) +
                " above the target " + format_value(options.relative_accuracy) + " after " +
                std::to_string(rounds) + " rounds of truncation levels (the first " +
                format_value(first_level) + ", the last " + format_value(resolved_tail) + "): " +
                (truncated ? "delta lies below the last level, which the upper end certifies"
                           : "round-off limits the bracket there") +
                "; the tightest certified bracket is kept";
    r.roundoff_limited = r.roundoff_limited || !truncated;
  }
  // Masses below the normal doubles: a cell's mass under the smallest positive double is 0 in
  // double, and one in the subnormal range is off by absolute ulps (denorm_min each), which the
  // engine's relative allowances do not cover. An absolute allowance of the smallest normal
  // double, 2.2e-308 = 2^52 denorm_min, covers 2^52 such roundings — 2^18 per cell at the largest
  // grid the CLI allows (2^34 cells), far more than a cell's few operations. Added to the upper
  // end, it stays an upper bound where δ is below the doubles — it read 0 there (σ = 2.4e42,
  // q = 0.056, one step, ε = 1e-10: true δ ~ e^(-9e66)) — and it is invisible wherever δ is
  // above ~1e-290. (A NaN — the engine's internal-fault path — stays NaN, never capped to a
  // valid-looking 1.)
  const double subnormal_allowance = std::numeric_limits<double>::min();
  r.value = r.upper =
      std::isnan(upper[0]) ? upper[0] : std::min(1.0, upper[0] + subnormal_allowance);
  r.lower = lower[0];
  r.log_value = std::log(r.upper);
  return r;
}

}  // namespace

namespace {

// The μ of a run of Gaussian mechanisms, widened by the rounding of training_run::gdp_mu():
// c/σ, its square, the product with T and each addition round by ≤ 1 ulp of a positive
// result, and the square root halves the relative error and adds one more ulp. Allowing one
// ulp per operation and per phase (and 4 more) covers it with room.
struct mu_interval {
  double lo = 0, hi = 0;
};
mu_interval gaussian_mu_interval(const training_run& run) {
  if (run.phases.empty()) return {run.gaussian_mu, run.gaussian_mu};  // given exactly
  const double mu = run.gdp_mu();
  // Named for what the user gave (noise multiplier and steps), not the library's μ.
  if (!(mu <= 1e6))
    throw_domain_error(
        "pld",
        "the run's Gaussian-DP parameter mu = c*sqrt(steps)/noise-multiplier (c = 1 for "
        "add/remove neighbours, 2 for replace-one)",
        mu,
        "<= 1e6 (beyond, delta(epsilon) is ill-conditioned in double "
        "precision: a larger noise multiplier or fewer steps)");
  const double e = tol::kMachineEps * (8 + 4 * static_cast<double>(run.phases.size()));
  return {mu * (1 - e), mu * (1 + e)};
}

}  // namespace

void pld_options::validate(std::string_view function) const {
  if (!(relative_accuracy > 0 && relative_accuracy < 1))
    throw_domain_error(function, "relative_accuracy", relative_accuracy, "in (0, 1)");
  check_nonnegative(function, "grid_spacing", grid_spacing);
  if (grid_spacing > 0 && grid_spacing < kMinGridSpacing)
    throw_domain_error(function, "grid_spacing", grid_spacing,
                       "0 (automatic) or >= 1e-10 (finer grids lose their bounds to rounding)");
  check_nonnegative(function, "initial_grid_spacing", initial_grid_spacing);
  check_at_least(function, "max_fft_size", static_cast<long long>(max_fft_size), 1024);
  check_at_least(function, "max_refinements", max_refinements, 0);
  if (!(delta_floor > 0 && delta_floor < 1))
    throw_domain_error(function, "delta_floor", delta_floor, "in (0, 1)");
}

namespace {

// The PLD engine's longest run: its rounding allowance for the discretisation is 1e-12 per step
// (pld.cpp), 1e-4 of δ at 1e8 steps; beyond, the certified bracket could not reach useful
// widths, and every pass costs minutes. Longer runs go to the RDP accountant.
constexpr double kMaxPldSteps = 1e8;

void check_pld_steps(const char* fn, const training_run& run) {
  if (run.is_gaussian()) return;  // closed form: any number of steps
  const long long steps = run.total_steps();
  if (static_cast<double>(steps) > kMaxPldSteps)
    throw_domain_error(fn, "steps", format_value(steps),
                       "<= 1e8 for the PLD accountant (beyond, its rounding allowance of 1e-12 "
                       "per step would swamp the bracket: use the RDP accountant)");
}

// Truncated Poisson batches (training_run::has_truncation): the mixture pair dominates the
// mechanism without being attained, so its optimistic side is no lower bound on the
// mechanism's curve. The lower side is the lower_bound_run()'s, whose pair is attained.
template <class Result, class Again>
Result with_attained_lower(const training_run& run, Result r, Again&& again) {
  if (!run.has_truncation()) return r;
  const Result low = again(run.lower_bound_run());
  r.lower = std::min(r.lower, low.lower);
  r.tight = false;
  return r;
}

}  // namespace

struct pld_growth_cache::impl {
  training_run shape;  // the run queried last, its last phase's steps set to 0
  bool have_shape = false;
  double h = 0;  // the last query's grid spacing
  discretisation_cache steps;
};

pld_growth_cache::pld_growth_cache() : impl_(std::make_unique<impl>()) {}
pld_growth_cache::~pld_growth_cache() = default;
pld_growth_cache::pld_growth_cache(pld_growth_cache&&) noexcept = default;
pld_growth_cache& pld_growth_cache::operator=(pld_growth_cache&&) noexcept = default;
long long pld_growth_cache::discretisations() const {
  return impl_->steps.builds;
}
long long pld_growth_cache::horizon() const {
  return impl_->steps.tail_steps;
}
pld_growth_cache::impl& growth_state(pld_growth_cache& c) {
  return *c.impl_;
}

namespace {

bool same_phase(const training_phase& a, const training_phase& b) {
  return a.noise_multiplier == b.noise_multiplier && a.sampling_rate == b.sampling_rate &&
         a.sampling == b.sampling && a.steps == b.steps && a.neighbours == b.neighbours &&
         a.dataset_size == b.dataset_size && a.max_batch_size == b.max_batch_size;
}

// The cache's state for a query of `run`: reset unless the run has the phases of the last query
// (the last one's steps aside); the horizon grows to the next power of two ≥ the run's steps.
discretisation_cache* prepare(pld_growth_cache* cache, const training_run& run, pld_options& o) {
  if (cache == nullptr) return nullptr;
  pld_growth_cache::impl& s = growth_state(*cache);
  training_run shape = run;
  if (!shape.phases.empty()) shape.phases.back().steps = 0;
  const bool same =
      s.have_shape && shape.gaussian_mu == s.shape.gaussian_mu &&
      shape.phases.size() == s.shape.phases.size() &&
      std::equal(shape.phases.begin(), shape.phases.end(), s.shape.phases.begin(), same_phase);
  if (!same) {
    const long long builds = s.steps.builds;
    s = pld_growth_cache::impl{};
    s.steps.builds = builds;
    s.shape = std::move(shape);
    s.have_shape = true;
  }
  const long long total = run.total_steps();
  if (total > s.steps.tail_steps) {
    long long horizon = 1;
    while (horizon < total) horizon *= 2;
    s.steps.tail_steps = horizon;  // a new per-step truncation: the steps are discretised anew
  }
  if (o.grid_spacing == 0 && s.h > 0) o.initial_grid_spacing = s.h;
  return &s.steps;
}

// One query through the cache: `query(options, steps)` runs on the cache's grid and discretised
// steps (none without a cache), and the grid it ends on is kept for the next query.
template <class Query>
auto through_cache(pld_growth_cache* cache,
                   const training_run& run,
                   const pld_options& options,
                   Query&& query) {
  pld_options o = options;
  auto r = query(o, prepare(cache, run, o));
  if (cache != nullptr && r.grid_spacing > 0) growth_state(*cache).h = r.grid_spacing;
  return r;
}

}  // namespace

pld_epsilon_result pld_epsilon(const training_run& run,
                               double delta,
                               const pld_options& options,
                               pld_growth_cache* cache) {
  constexpr const char* kFn = "pld_epsilon";
  run.validate(kFn);
  check_pld_steps(kFn, run);
  check_open_probability(kFn, "delta", delta);
  options.validate(kFn);
  if (run.is_gaussian()) {
    // All factors Gaussian: the composition is exactly G(μ) (Dong, Roth & Su 2022, Cor. 2),
    // bracketed for every μ the rounding of run.gdp_mu() may have moved.
    pld_epsilon_result r;
    const mu_interval mu = gaussian_mu_interval(run);
    static_cast<divergence::epsilon_result&>(r) =
        divergence::gdp_epsilon_bounds(mu.lo, mu.hi, delta);
    return r;
  }
  pld_epsilon_result r =
      through_cache(cache, run, options, [&](const pld_options& o, discretisation_cache* steps) {
        return epsilon_of(directions_of(run), delta, o, steps);
      });
  return with_attained_lower(
      run, std::move(r), [&](const training_run& low) { return pld_epsilon(low, delta, options); });
}

pld_delta_result pld_delta(const training_run& run,
                           double epsilon,
                           const pld_options& options,
                           pld_growth_cache* cache) {
  constexpr const char* kFn = "pld_delta";
  run.validate(kFn);
  check_pld_steps(kFn, run);
  check_nonnegative(kFn, "epsilon", epsilon);
  options.validate(kFn);
  if (run.is_gaussian()) {
    pld_delta_result r;
    r.kind = bound_kind::upper_bound;
    const mu_interval mu = gaussian_mu_interval(run);
    const divergence::delta_bounds d = divergence::gdp_delta_bounds(mu.lo, mu.hi, epsilon);
    r.log_value = d.log_upper;
    r.value = r.upper = d.upper;
    r.lower = d.lower;
    r.tight = true;
    return r;
  }
  pld_delta_result r =
      through_cache(cache, run, options, [&](const pld_options& o, discretisation_cache* steps) {
        return delta_of(directions_of(run), epsilon, o, steps);
      });
  return with_attained_lower(
      run, std::move(r), [&](const training_run& low) { return pld_delta(low, epsilon, options); });
}

pld_profile_result pld_delta_profile(const training_run& run,
                                     std::span<const double> eps,
                                     const pld_options& options) {
  constexpr const char* kFn = "pld_delta_profile";
  run.validate(kFn);
  check_pld_steps(kFn, run);
  options.validate(kFn);
  if (eps.empty()) throw_domain_error(kFn, "the number of epsilons", "0", ">= 1");
  for (std::size_t i = 0; i < eps.size(); ++i) {
    check_nonnegative(kFn, "epsilon", eps[i]);
    if (i > 0 && eps[i] < eps[i - 1])
      throw_domain_error(kFn, "epsilons", format_value(eps[i]), "in ascending order");
  }
  pld_profile_result r;
  r.epsilon.assign(eps.begin(), eps.end());
  if (run.is_gaussian()) {
    const mu_interval mu = gaussian_mu_interval(run);
    for (double e : eps) {
      const divergence::delta_bounds d = divergence::gdp_delta_bounds(mu.lo, mu.hi, e);
      r.lower.push_back(d.lower);
      r.upper.push_back(d.upper);
    }
    r.tight = true;
    return r;
  }
  const double tail = kFirst;  // absolute, as for single δ queries
  bracket(
      directions_of(run), options, tail, compose_focus{}, r,
      [&](const composed_pld& c) { return c.delta(eps); }, r.lower, r.upper);
  // The same absolute allowance for masses below the normal doubles as a single δ query's
  // (pld_delta above): without it an upper end reads 0 where the true δ is positive but
  // underflows. NaN (the engine's internal-fault path) stays NaN.
  for (double& u : r.upper)
    if (!std::isnan(u)) u = std::min(1.0, u + std::numeric_limits<double>::min());
  if (run.has_truncation()) {  // the attained lower side (with_attained_lower)
    const pld_profile_result low = pld_delta_profile(run.lower_bound_run(), eps, options);
    for (std::size_t i = 0; i < eps.size(); ++i) r.lower[i] = std::min(r.lower[i], low.lower[i]);
    r.tight = false;
  }
  return r;
}

namespace {

// The points of a curve over the last phase's steps, from the most steps down. Every point is
// the certified bracket `one(dirs, options, cache)` of its own run; each starts from the grid of
// the point before (the relative gap grows like T·h² while ε grows like √T or faster, so the
// longest run's grid is fine enough for the shorter ones, which then take a single pass on the
// steps already discretised — the grid is still refined for a point that needs it).
template <class Result, class One, class Closed>
std::vector<Result> steps_curve(const training_run& run,
                                std::span<const long long> steps,
                                const pld_options& options,
                                const char* fn,
                                const curve_progress& progress,
                                One&& one,
                                Closed&& closed) {
  run.validate(fn);
  if (run.phases.empty()) throw_domain_error(fn, "the number of phases", "0", ">= 1");
  if (steps.empty()) throw_domain_error(fn, "the number of step counts", "0", ">= 1");
  for (const long long t : steps) check_at_least(fn, "steps", t, 1);
  options.validate(fn);
  std::vector<std::size_t> order(steps.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return steps[a] > steps[b]; });
  training_run longest = run;
  longest.phases.back().steps = steps[order.front()];
  check_pld_steps(fn, longest);
  std::vector<Result> out(steps.size());
  std::size_t done = 0;
  if (longest.is_gaussian()) {
    for (const std::size_t i : order) {
      training_run r = run;
      r.phases.back().steps = steps[i];
      out[i] = closed(r);
      if (progress) progress(++done, steps.size());
    }
    return out;
  }
  directions dirs = directions_of(longest);
  discretisation_cache cache;
  cache.tail_steps = longest.total_steps();
  pld_options o = options;
  for (const std::size_t i : order) {
    for (std::vector<loss_factor>& factors : dirs) factors.back().count = steps[i];
    out[i] = one(dirs, o, &cache);
    if (options.grid_spacing == 0 && out[i].grid_spacing > 0)
      o.initial_grid_spacing = out[i].grid_spacing;
    if (progress) progress(++done, steps.size());
  }
  return out;
}

// A curve of a run with truncated batches: each point's upper side from its own bracket, the
// lower side from the attained run's curve (with_attained_lower).
template <class Result, class Point>
std::vector<Result> truncated_curve(const training_run& run,
                                    std::span<const long long> steps,
                                    const curve_progress& progress,
                                    std::vector<Result> lower,
                                    Point&& point) {
  training_run r = run;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    r.phases.back().steps = steps[i];
    const double attained = lower[i].lower;
    lower[i] = point(r);
    lower[i].lower = std::min(lower[i].lower, attained);
    if (progress) progress(i + 1, steps.size());
  }
  return lower;
}

}  // namespace

std::vector<pld_epsilon_result> pld_epsilon_curve(const training_run& run,
                                                  std::span<const long long> steps,
                                                  double delta,
                                                  const pld_options& options,
                                                  const curve_progress& progress) {
  constexpr const char* kFn = "pld_epsilon_curve";
  check_open_probability(kFn, "delta", delta);
  if (run.has_truncation())
    return truncated_curve(run, steps, progress,
                           pld_epsilon_curve(run.lower_bound_run(), steps, delta, options, {}),
                           [&](const training_run& r) { return pld_epsilon(r, delta, options); });
  return steps_curve<pld_epsilon_result>(
      run, steps, options, kFn, progress,
      [&](const directions& dirs, const pld_options& o, discretisation_cache* cache) {
        return epsilon_of(dirs, delta, o, cache);
      },
      [&](const training_run& r) { return pld_epsilon(r, delta, options); });
}

std::vector<pld_delta_result> pld_delta_curve(const training_run& run,
                                              std::span<const long long> steps,
                                              double epsilon,
                                              const pld_options& options,
                                              const curve_progress& progress) {
  constexpr const char* kFn = "pld_delta_curve";
  check_nonnegative(kFn, "epsilon", epsilon);
  if (run.has_truncation())
    return truncated_curve(run, steps, progress,
                           pld_delta_curve(run.lower_bound_run(), steps, epsilon, options, {}),
                           [&](const training_run& r) { return pld_delta(r, epsilon, options); });
  return steps_curve<pld_delta_result>(
      run, steps, options, kFn, progress,
      [&](const directions& dirs, const pld_options& o, discretisation_cache* cache) {
        return delta_of(dirs, epsilon, o, cache);
      },
      [&](const training_run& r) { return pld_delta(r, epsilon, options); });
}

pld_epsilon_result pld_epsilon(std::span<const loss_factor> factors,
                               double delta,
                               const pld_options& options) {
  constexpr const char* kFn = "pld_epsilon";
  check_factors(factors, kFn);
  check_open_probability(kFn, "delta", delta);
  options.validate(kFn);
  return epsilon_of({std::vector<loss_factor>(factors.begin(), factors.end())}, delta, options);
}

pld_delta_result pld_delta(std::span<const loss_factor> factors,
                           double epsilon,
                           const pld_options& options) {
  constexpr const char* kFn = "pld_delta";
  check_factors(factors, kFn);
  check_nonnegative(kFn, "epsilon", epsilon);
  options.validate(kFn);
  return delta_of({std::vector<loss_factor>(factors.begin(), factors.end())}, epsilon, options);
}

}  // namespace dpkit::accounting
