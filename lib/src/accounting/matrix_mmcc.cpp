// Matrix mechanisms with sampled participation: the upper bound by conditional composition
// (MMCC, Choquette-Choo, Ganesh, Steinke & Thakurta 2024, [CGST24]), for any lower-triangular
// strategy (accounting/matrix_mechanism.hpp, docs/matrix-mechanisms.md, "Conditional
// composition").
//
// The argument, as implemented (the derivation is in the docs; the names below follow it).
// The differing example belongs to group S (steps g, g + b, …) and takes part in step j ∈ S with
// b_j ~ Bern(q), independently; its clipped gradient g_j (‖g_j‖ ≤ 1) may depend on the release
// so far. Row i of the release is x_i = Σ_{j≤i} C_ij b_j g_j + σ z_i (the other examples'
// contributions subtracted), and given the rows before it, h = x_{<i}:
//
//  1. Posterior bound. For j < i, the odds of b_j = 1 given h and every other b_k are
//     q/(1−q)·exp(Λ_j), Λ_j σ² = ⟨h − Σ_{k≠j} b_k m_k, m_j⟩ − ‖m_j‖²/2 with m_k = C_{<i,k} g_kᵀ.
//     Under either dataset, Λ_j σ² ≤ n_j/2 + D_j + σ√n_j·Z with Z standard normal, where
//     n_j = Σ_{r<i} C_rj² and D_j = Σ_{k∈S, k≠j} Σ_{r<i} |C_rk||C_rj| (every |⟨m_k, m_j⟩| ≤ that
//     inner sum, whatever the gradients). So with z = Φ̄⁻¹(δ_E/N), N the number of pairs
//     (i, j) with C_ij ≠ 0, outside an event of probability ≤ δ_E (both datasets), every
//     posterior probability of b_j = 1 — given h and any values of the others — is at most
//     p̃_ij = q e^τ/(q e^τ + 1 − q), τ = (n_j/2 + D_j + σz√n_j)/σ².
//  2. Row domination. Conditionally the b's are then stochastically below independent
//     Bern(p̃_ij) (sequential coupling), and row i is a mixture of N(m, σ²I) against N(0, σ²I)
//     with ‖m‖ ≤ R = Σ_j |C_ij| b_j. Its likelihood ratio is a comonotone sum's convex-order
//     inferior once every mean is put on one line (the terms' laws depend only on ‖m‖), and
//     convex order only grows with the means and with the weights moved up: the row is
//     dominated, in both orders, by the pair (E N(R̃, σ²), N(0, σ²)), R̃ = Σ_j |C_ij| Bern(p̃_ij)
//     (p̃_ii = q: b_i does not touch h).
//  3. Conditional composition ([CGST24] Thm 3.1): δ(ε) ≤ δ_PLD(ε) + δ_E, δ_PLD of the rows'
//     dominating pairs composed (the PLD accountant's certified upper side).
//
// Cost control, all in the dominating direction: rows are grouped into 16 blocks that share one
// pair whose lag-d term takes the block's largest |C_{i,i−d}| and p̃_{i,i−d}; each term's mean
// is rounded up to a grid of a 512th of the largest; the law of R̃ is built on that grid and
// its atoms are merged upwards until at most 64 remain. (Measured on DP-λCGD λ = 0.5, BLT and
// the square root at T = 1000: 256 atoms and 64 blocks lower ε by 3–6 % at 10× the time.)
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "dpkit/accounting/matrix_mechanism.hpp"
#include "dpkit/accounting/pld_accountant.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/normal.hpp"
#include "detail/strategy_entries.hpp"

namespace dpkit::accounting {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kFineSteps = 512;     // grid of the means: the largest term over 512
constexpr std::size_t kMaxAtoms = 64;    // atoms of a row's mixture after merging
constexpr long long kUniformBlocks = 16;  // row blocks, each sharing one dominating pair

using entries = detail::strategy_entries;

// The group's steps: g, g + b, … below T.
struct group {
  long long first, separation;
  [[nodiscard]] bool has(long long j) const {
    return j >= first && (j - first) % separation == 0;
  }
  // The smallest step of the group at or above j.
  [[nodiscard]] long long at_or_after(long long j) const {
    if (j <= first) return first;
    return first + (j - first + separation - 1) / separation * separation;
  }
};

// Rows [first, last) sharing one dominating pair.
struct block {
  long long first, last;
};
std::vector<block> blocks_for(long long begin, long long steps) {
  std::vector<block> out;
  const long long rows = steps - begin;
  const long long uniform = std::max<long long>(1, (rows + kUniformBlocks - 1) / kUniformBlocks);
  for (long long r = 0; r < rows; r += uniform)
    out.push_back({begin + r, begin + std::min(rows, r + uniform)});
  return out;
}

struct mixture {
  std::vector<double> means, weights;  // σ units
  long long count = 0;
};

// The law of Σ_d a_d Bern(p_d), each a_d rounded up to the grid, atoms merged upwards.
mixture block_mixture(const std::vector<double>& a, const std::vector<double>& p, double sigma) {
  double a_max = 0;
  for (double x : a) a_max = std::max(a_max, x);
  mixture out;
  if (!(a_max > 0)) return out;
  const double eta = a_max / kFineSteps;
  std::vector<long long> s(a.size(), 0);
  double mean = 0, var = 0;
  long long total = 0;
  for (std::size_t d = 0; d < a.size(); ++d) {
    if (!(a[d] > 0) || !(p[d] > 0)) continue;
    auto k = static_cast<long long>(std::ceil(a[d] / eta));
    while (static_cast<double>(k) * eta < a[d]) ++k;
    s[d] = k;
    total += k;
    mean += static_cast<double>(k) * p[d];
    var += static_cast<double>(k) * static_cast<double>(k) * p[d] * (1 - p[d]);
  }
  const auto cap = static_cast<long long>(std::min<double>(
      static_cast<double>(total), std::ceil(mean + 12 * std::sqrt(var) + 4 * kFineSteps)));
  std::vector<double> dist(static_cast<std::size_t>(cap) + 1, 0.0);
  dist[0] = 1;
  double top = 0;  // mass at `total`, the largest value the sum can take
  for (std::size_t d = 0; d < a.size(); ++d) {
    if (s[d] == 0) continue;
    const double pd = std::min(p[d], 1.0);
    const long long sd = s[d];
    for (long long k = cap; k >= 0; --k) {
      const double v = dist[static_cast<std::size_t>(k)];
      if (k + sd > cap) top += pd * v;
      dist[static_cast<std::size_t>(k)] =
          (1 - pd) * v + (k >= sd ? pd * dist[static_cast<std::size_t>(k - sd)] : 0.0);
    }
  }
  std::vector<std::pair<double, double>> atoms;  // (position, mass), ascending
  for (long long k = 0; k <= cap; ++k)
    if (dist[static_cast<std::size_t>(k)] > 0)
      atoms.emplace_back(static_cast<double>(k) * eta, dist[static_cast<std::size_t>(k)]);
  if (top > 0) {
    const double pos = static_cast<double>(total) * eta;
    if (!atoms.empty() && atoms.back().first == pos)
      atoms.back().second += top;
    else
      atoms.emplace_back(pos, top);
  }
  // Merge upwards (mass moves to the top of its group: dominance is kept) until at most
  // kMaxAtoms remain: an atom joins the group above it when the mass it moves times the
  // distance is at most θ, θ the smallest power of 2 (in units of η) that leaves few enough —
  // light atoms travel far, heavy ones stay.
  std::vector<std::pair<double, double>> merged;
  auto merge = [&](double theta) {
    merged.clear();
    for (std::size_t i = atoms.size(); i-- > 0;) {
      const auto [x, m] = atoms[i];
      if (!merged.empty() && x > 0 && (merged.back().first - x) * m <= theta)
        merged.back().second += m;
      else
        merged.emplace_back(x, m);
    }
  };
  merge(0);
  for (double t = eta * 1e-30; merged.size() > kMaxAtoms; t *= 2) merge(t);
  double sum = 0;
  for (const auto& [x, m] : merged) sum += m;
  for (auto it = merged.rbegin(); it != merged.rend(); ++it) {
    out.means.push_back(it->first / sigma);
    out.weights.push_back(it->second / sum);
  }
  return out;
}

// The rows' dominating mixtures for one group, and what they took.
struct group_rows {
  std::vector<mixture> rows;
  double largest_inclusion = 0;
  std::size_t largest_mixture = 0;
};

long long count_pairs(const entries& e, const group& s) {
  long long n = 0;
  for (long long i = s.first; i < e.steps; ++i)
    for (long long j = s.at_or_after(e.first_column(i)); j < i; j += s.separation)
      if (e.at(i, j) != 0) ++n;
  return n;
}

group_rows rows_for(const entries& e, const group& s, double q, double sigma, double z) {
  const long long t = e.steps;
  group_rows out;
  std::vector<double> n(static_cast<std::size_t>(t), 0.0), w(static_cast<std::size_t>(t), 0.0);
  std::vector<double> a_hat(static_cast<std::size_t>(t), 0.0), p_hat(static_cast<std::size_t>(t), 0.0);
  const double odds = (1 - q) / q;
  const auto sigma2 = sigma * sigma;
  for (const block& blk : blocks_for(s.first, t)) {
    std::fill(a_hat.begin(), a_hat.end(), 0.0);
    std::fill(p_hat.begin(), p_hat.end(), 0.0);
    for (long long i = blk.first; i < blk.last; ++i) {
      const long long j0 = s.at_or_after(e.first_column(i));
      double row_abs = 0;
      for (long long j = j0; j <= i; j += s.separation) {
        const double c = e.at(i, j);
        if (c == 0) continue;
        row_abs += std::abs(c);
        double p = q;
        if (j < i) {
          const auto uj = static_cast<std::size_t>(j);
          const double nj = n[uj];
          const double dj = std::max(0.0, w[uj] - nj);
          // τ rounded up: a relative allowance far above the rounding of these O(T)-term sums.
          // The noise term is σ√n_j·Z: z·√n_j alone understated τ by the factor σ on it, so
          // that for σ > 1 the posterior bounds were too small and the bound false (sqrt:3,
          // T = 2, q = 0.092, σ = 13.05, δ = 1e-10: 0.0785, where the projected pair, a
          // lower bound, has δ(0.0785) = 1.9e-10; matrix_mmcc_test.cpp).
          const double tau =
              (0.5 * nj + dj + sigma * z * std::sqrt(nj)) / sigma2 * (1 + 1e-10) + 1e-300;
          p = tau > 700 ? 1.0 : 1.0 / (1.0 + odds * std::exp(-tau));
          p = std::min(1.0, p * (1 + 1e-12));
        }
        const auto d = static_cast<std::size_t>(i - j);
        a_hat[d] = std::max(a_hat[d], std::abs(c));
        p_hat[d] = std::max(p_hat[d], p);
        out.largest_inclusion = std::max(out.largest_inclusion, p);
      }
      // The row's contribution to the sums of the rows after it.
      for (long long j = j0; j <= i; j += s.separation) {
        const double c = e.at(i, j);
        if (c == 0) continue;
        n[static_cast<std::size_t>(j)] += c * c;
        w[static_cast<std::size_t>(j)] += std::abs(c) * row_abs;
      }
    }
    mixture m = block_mixture(a_hat, p_hat, sigma);
    if (m.means.empty()) continue;
    m.count = blk.last - blk.first;
    out.largest_mixture = std::max(out.largest_mixture, m.means.size());
    out.rows.push_back(std::move(m));
  }
  return out;
}

// The groups to bound: group 0 for Toeplitz strategies (every other group's rows are a prefix
// of group 0's, shifted — its bound is at least theirs), every group for dense ones.
std::vector<group> groups_for(const strategy& c, long long steps, long long b) {
  std::vector<group> out;
  const long long groups = c.is_toeplitz() ? 1 : std::min(b, steps);
  for (long long g = 0; g < groups; ++g) out.push_back({g, b});
  return out;
}

std::vector<loss_factor> factors(const group_rows& rows, subsampling::adjacency_direction d) {
  std::vector<loss_factor> out;
  for (const mixture& m : rows.rows)
    out.push_back({std::shared_ptr<const subsampling::privacy_loss>(
                       subsampling::gaussian_mixture_loss(m.means, m.weights, d)),
                   m.count});
  return out;
}

// z with Φ̄(z) ≤ share (rounded up until the computed tail is at most share).
double tail_quantile(double share) {
  double z = normal_quantile_complement(share);
  while (normal_ccdf(z) > share) z = std::nextafter(z, kInf) + 1e-12 * std::abs(z);
  return z;
}

std::string grid_words(const pld_diagnostics& d) {
  char h[32];
  std::snprintf(h, sizeof h, "%.3g", d.grid_spacing);
  return std::string("h = ") + h + ", FFT " + std::to_string(d.fft_size) + ", " +
         std::to_string(d.passes) + (d.passes == 1 ? " pass" : " passes");
}

// The PLD options for the rows' composition: a relative accuracy of at least 1 % and FFTs of at
// most 2^20 points. The bound's own slack (posterior bounds, blocks, atoms) is far above 1 %, and
// each discretised row costs (its 64 atoms) × (grid points) normal tails, so the engine's finer
// defaults would spend minutes for nothing (a δ query of DP-λCGD, λ = 0.9, σ = 20, at ε = 0.5).
// The upper side stays certified at any grid.
pld_options row_options(const pld_options& options) {
  pld_options o = options;
  o.relative_accuracy = std::max(o.relative_accuracy, 1e-2);
  o.max_fft_size = std::min<std::size_t>(o.max_fft_size, std::size_t{1} << 20);
  // δ_E ≥ 1e-12 is added to every δ here: a PLD δ below 1e-14 need not be resolved (its later
  // truncation rounds cost 275 s in one test, for nothing).
  o.delta_floor = std::max(o.delta_floor, 1e-14);
  return o;
}

// The larger upper end of `compose` over both adjacency directions (NaN counts as `failed`),
// with the grid of the one kept.
template <class Compose>
std::pair<double, std::string> both_directions(const group_rows& rows, double failed,
                                               Compose compose) {
  double worst = 0;
  std::string grid;
  for (auto d : {subsampling::adjacency_direction::remove, subsampling::adjacency_direction::add}) {
    const std::vector<loss_factor> f = factors(rows, d);
    const auto r = compose(std::span<const loss_factor>(f));
    const double v = std::isnan(r.upper) ? failed : r.upper;
    if (v >= worst) worst = v, grid = grid_words(r);
  }
  return {worst, grid};
}

void check_arguments(const char* fn, const strategy& c, long long steps, const participation& p,
                     double sigma) {
  c.check_steps(fn, steps);
  p.validate(fn);
  check_positive(fn, "noise_multiplier", sigma);
  check_finite(fn, "noise_multiplier", sigma);
}

// Evaluates `query(group_rows, bad-event probability)` for each group and keeps the largest.
template <class Query>
conditional_composition evaluate(const strategy& c, long long steps, const participation& p,
                                 double sigma, double bad_event, Query query) {
  conditional_composition out;
  out.bad_event_probability = bad_event;
  out.value = 0;
  if (!(p.sampling_rate < 1) || p.max_participations > 0) {
    out.value = NAN;
    out.reason = "conditional composition bounds sampled participation (sampling rate < 1)";
    return out;
  }
  const entries e(c, steps);
  for (const group& s : groups_for(c, steps, p.min_separation)) {
    const long long pairs = count_pairs(e, s);
    const double z = pairs > 0 ? tail_quantile(bad_event / static_cast<double>(pairs)) : 0.0;
    const group_rows rows = rows_for(e, s, p.sampling_rate, sigma, z);
    out.pairs = std::max(out.pairs, pairs);
    out.tail_quantile = std::max(out.tail_quantile, z);
    out.largest_inclusion = std::max(out.largest_inclusion, rows.largest_inclusion);
    out.largest_mixture = std::max(out.largest_mixture, rows.largest_mixture);
    out.row_types = std::max(out.row_types, static_cast<long long>(rows.rows.size()));
    if (rows.rows.empty()) continue;
    const auto [value, grid] = query(rows, pairs > 0 ? bad_event : 0.0);
    if (value >= out.value) {
      out.value = value;
      out.method = "conditional composition: " + std::to_string(rows.rows.size()) +
                   " row pairs composed by PLD, certified upper side (" + grid + ")";
    }
    if (!(out.value < kInf)) break;
  }
  out.evaluated = true;
  return out;
}

}  // namespace

conditional_composition conditional_composition_epsilon(const strategy& c,
                                                        long long steps,
                                                        const participation& p,
                                                        double noise_multiplier,
                                                        double delta,
                                                        const pld_options& options) {
  constexpr const char* kFn = "conditional_composition_epsilon";
  check_arguments(kFn, c, steps, p, noise_multiplier);
  check_open_probability(kFn, "delta", delta);
  options.validate(kFn);
  const pld_options o = row_options(options);
  // δ_E = δ/10: z grows only like √(2 log(N/δ_E)), so a smaller share of δ costs little.
  const double bad_event = 0.1 * delta;
  return evaluate(c, steps, p, noise_multiplier, bad_event,
                  [&](const group_rows& rows, double spent) {
                    return both_directions(rows, kInf, [&](std::span<const loss_factor> f) {
                      return pld_epsilon(f, delta - spent, o);
                    });
                  });
}

conditional_composition conditional_composition_delta(const strategy& c,
                                                      long long steps,
                                                      const participation& p,
                                                      double noise_multiplier,
                                                      double epsilon,
                                                      const pld_options& options) {
  constexpr const char* kFn = "conditional_composition_delta";
  check_arguments(kFn, c, steps, p, noise_multiplier);
  check_nonnegative(kFn, "epsilon", epsilon);
  check_finite(kFn, "epsilon", epsilon);
  options.validate(kFn);
  const pld_options o = row_options(options);
  // δ is not known in advance: δ_E = 1e-8 first; where δ_E is a small part of the answer, a
  // tenth of the answer is tried as well, and where it is a large part, 1e-10 and 1e-12 — the
  // smallest δ_PLD + δ_E is kept (each is certified).
  auto at = [&](double bad_event) {
    return evaluate(
        c, steps, p, noise_multiplier, bad_event, [&](const group_rows& rows, double spent) {
          auto [delta, grid] = both_directions(rows, 1.0, [&](std::span<const loss_factor> f) {
            return pld_delta(f, epsilon, o);
          });
          return std::pair{std::min(1.0, delta + spent), grid};
        });
  };
  conditional_composition best = at(1e-8);
  if (!best.evaluated) return best;
  if (best.value > 1e-6) {
    conditional_composition r = at(std::min(0.1 * best.value, 0.1));
    if (r.value < best.value) best = std::move(r);
  } else {
    for (double bad_event : {1e-10, 1e-12}) {
      conditional_composition r = at(bad_event);
      if (!(r.value < best.value)) break;
      best = std::move(r);
    }
  }
  return best;
}

}  // namespace dpkit::accounting
