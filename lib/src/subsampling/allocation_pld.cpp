#include "dpkit/subsampling/allocation_pld.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dpkit/core/check.hpp"
#include "dpkit/core/normal.hpp"

namespace dpkit::subsampling {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kUnit = std::numeric_limits<double>::epsilon() / 2;  // unit roundoff, double
constexpr long double kUnitLd = std::numeric_limits<long double>::epsilon() / 2;
// Tail truncation per sum: the P-mass spread to +∞ (upper side) is at most this fraction of
// E_Q[S]; the Q-mass spread to 0 (or merged) at most this much.
constexpr double kTail = 1e-16;
// A split's mean moves by at most (5e^H + 3) u_ld ≤ 16 u_ld of the pair's value (split_table).
constexpr double kSplitResidual = 16 * static_cast<double>(kUnitLd);

// ---------------------------------------------------------------------------------------------
// The lattices. A law of a partial sum lives on {e^{kH}}, H = stride·h, a power-of-two multiple
// of the final spacing h: a rounding at a sum of m terms adds about m·H²/4 to the variance of
// the final S_t, i.e. m·H²/(4t) to W's, so sums of few terms can be rounded much more coarsely
// (H ≈ h·√(t/m)/4 keeps each such rounding 1/64 of the last one's) — and the O(n²) cost of the
// early sums, whose log-range is widest, falls by the square of their stride.
//
// Where a pair sum lands. For input indices a ≤ b = a + d on spacing H_in,
// e^{aH_in} + e^{bH_in} = e^{bH_in}(1 + e^{−dH_in}) = e^{(b·f + s_d)H_out} e^{r_d} with
// f = H_in/H_out and 0 ≤ r_d < H_out. The spread keeps the mean: w_d = (e^{r_d} − 1)/(e^{H_out} −
// 1) of the pair's mass at index b·f + s_d + 1, 1 − w_d at b·f + s_d. r_d = log(1 + e^{−dH_in}) −
// s_d H_out cancels digits, so the table is formed in long double (a 64-bit mantissa on x86-64;
// binary128 elsewhere): d·H_in carries ≤ 1 rounding, the logarithm ≤ 2, s_d·H_out is exact (s_d
// < 2^12, H_out a power-of-two multiple of a double), so |r̂_d − r_d| ≤ 5 u_ld and the mean of a
// split moves by at most |ŵ − w|(e^{H_out} − 1)e^{…} ≤ (5e^{H_out} + 3) u_ld ≤ 16 u_ld of the
// pair's value (the rounding of w and 1 − w to double is a relative mass error, counted
// separately).
//
// Far pairs. Where s_d = 0, r_d = log(1 + e^{−dH_in}) and w_d = (e^{r_d} − 1)/(e^{H_out} − 1) =
// e^{−dH_in}/(e^{H_out} − 1) exactly: a geometric sequence in d. From the first d where s_d = 0
// and w_d < 1/2 on (w_d falls with d, so every later d is alike, and the lower side's nearer
// point is the pair's lower one), the pairs (i, j = i + d) landing at j's point are summed over i
// by a recurrence — running sums Σ q_A[i] and Σ q_A[i] e^{−(j−i)H_in} — in O(n) instead of O(n²):
// these are most pairs (d·H_in ≳ log(1/H_out), a few hundred of the tens of thousands of
// lattice points of a fine grid). The formula is exact, so no residual moves the mean; the
// recurrence's rounding is a relative mass error (add_far).
struct split_table {
  long long in_stride = 0, out_stride = 0;
  std::vector<long long> shift;    // s_d
  std::vector<double> up, down;    // w_d and 1 − w_d
  std::vector<long long> nearest;  // s_d + (w_d ≥ 1/2): the nearer lattice point (lower side)
  long long far = 0;               // the first d from which every pair is a far one (size(): none)
  long double h_in = 0, h_out_m1 = 0;  // H_in and e^{H_out} − 1
};

split_table make_splits(double h, long long in_stride, long long out_stride, std::size_t count) {
  split_table t;
  t.in_stride = in_stride;
  t.out_stride = out_stride;
  t.shift.resize(count);
  t.up.resize(count);
  t.down.resize(count);
  t.nearest.resize(count);
  const long double h_in = static_cast<long double>(h) * static_cast<long double>(in_stride);
  const long double h_out = static_cast<long double>(h) * static_cast<long double>(out_stride);
  const long double em1 = std::expm1(h_out);
  for (std::size_t d = 0; d < count; ++d) {
    const long double g = std::log1p(std::exp(-static_cast<long double>(d) * h_in));
    auto s = static_cast<long long>(std::floor(g / h_out));
    long double r = g - static_cast<long double>(s) * h_out;
    if (r < 0) {
      --s;
      r += h_out;
    } else if (r >= h_out) {
      ++s;
      r -= h_out;
    }
    const long double w = std::expm1(r) / em1;
    t.shift[d] = s;
    t.up[d] = static_cast<double>(w);
    t.down[d] = static_cast<double>(std::exp(r) * std::expm1(h_out - r) / em1);  // 1 − w
    t.nearest[d] = s + (w >= 0.5L ? 1 : 0);
  }
  t.h_in = h_in;
  t.h_out_m1 = em1;
  t.far = static_cast<long long>(count);
  while (t.far > 0 && t.shift[static_cast<std::size_t>(t.far - 1)] == 0 &&
         t.up[static_cast<std::size_t>(t.far - 1)] < 0.5)
    --t.far;
  return t;
}

// ---------------------------------------------------------------------------------------------
// A law of a partial sum of the terms Y_j/t (so that W itself is the last one) on the lattice
// {e^{kH}}, H = stride·h: the final lattice {e^{kh}} makes the losses log W = kh exact multiples
// of h, so that the PLD engine, given the spacing h, discretises them without rounding. Upper side:
// masses at the lattice points, k = first … first + size − 1, plus Q-mass at 0 and a P-mass at +∞.
// Lower side: groups, nominally in the cells [e^{kH}, e^{(k+1)H}), each a Q-mass q and its first
// moment p = E_Q[S; group]; the group's atom is at p/q.
struct sum_law {
  long long stride = 1;
  long long first = 0;
  std::vector<double> q, p;  // p: lower side only
  double zero = 0;           // upper side only
  double p_inf = 0;          // upper side only
  double mean = 0;           // E_Q of the exact sum: (number of terms + constants)/t
  double err = 0;            // relative error bound on every mass
  // What the splits' long-double residual (and the clamps) move: Σ mass·|ΔV| (W units) and
  // Σ mass·|ΔV|/V (per unit mass). The remove profile is 1-Lipschitz in W, so it moves by at
  // most the first; the add profile (1 − e^ε W)₊ only where e^ε W < 1, by at most the second.
  double moved = 0, moved_relative = 0;
  [[nodiscard]] long long end() const { return first + static_cast<long long>(q.size()); }
};

// The spacing multiple for a sum of mean m (m·t terms): the largest power of two ≤ √(1/m)/4
// (at least 1).
long long stride_for(double m) {
  const double target = std::sqrt(1 / m) / 4;
  long long s = 1;
  while (static_cast<double>(2 * s) <= target) s *= 2;
  return s;
}

double lattice_value(long long k, double spacing) {
  return std::exp(static_cast<double>(k) * spacing);
}

// Adds the far pairs (i of A, j = i + d of B), d ≥ d0 ≥ t.far, into R (split_table): for each j,
// with C = Σ_{i ≤ j−d0} q_A[i] and G = Σ_{i ≤ j−d0} q_A[i] e^{−(j−i)H_in} (long double, both
// running over j), the upper side puts q_B[j](C − G/(e^{H_out} − 1)) at j's point and
// q_B[j]·G/(e^{H_out} − 1) one above; the lower side puts q_B[j]·C and the moment
// p_B[j]·C + q_B[j]·Σ p_A[i] at j's point. Rounding: G after k steps is within (4k + 4) u_ld of its
// value relative (a product and a sum per step, e^{−H_in}'s own rounding raised to the k-th
// power), C within k u_ld, and as G/(e^{H_out} − 1) ≤ C/2 the difference is within
// 2((4k + 4) + k + 4) u_ld; the products and the conversion to double add 4 u_ld and one u.
// Returns that relative bound.
double add_far(const sum_law& a,
               const sum_law& b,
               long long d0,
               double factor,
               const split_table& t,
               convex_side side,
               sum_law& r) {
  const long long f = t.in_stride / t.out_stride;
  const long double rho = std::exp(-t.h_in);
  const long double rho_d0 = std::exp(-static_cast<long double>(d0) * t.h_in);
  const long double scale = static_cast<long double>(factor);
  long double c = 0, g = 0, p = 0;
  long long steps = 0;
  for (long long j = a.first + d0; j < b.end(); ++j, ++steps) {
    const long long i = j - d0;  // the pair partner that joins at this j
    g *= rho;
    if (i < a.end()) {
      const auto ui = static_cast<std::size_t>(i - a.first);
      c += a.q[ui];
      g += static_cast<long double>(a.q[ui]) * rho_d0;
      if (side == convex_side::dominated) p += a.p[ui];
    }
    if (j < b.first) continue;
    const auto uj = static_cast<std::size_t>(j - b.first);
    const long double qb = static_cast<long double>(b.q[uj]) * scale;
    const auto at = static_cast<std::size_t>(j * f - r.first);
    if (side == convex_side::dominating) {
      const long double up = g / t.h_out_m1;
      r.q[at] += static_cast<double>(qb * (c - up));
      r.q[at + 1] += static_cast<double>(qb * up);
    } else {
      r.q[at] += static_cast<double>(qb * c);
      r.p[at] += static_cast<double>(scale * static_cast<long double>(b.p[uj]) * c + qb * p);
    }
  }
  const auto k = static_cast<double>(steps);
  return 2 * ((5 * k + 8) * static_cast<double>(kUnitLd)) + 4 * static_cast<double>(kUnitLd) +
         kUnit;
}

// The near pairs' products, gathered over blocks of consecutive d before they join R. Summed
// into R one d at a time, an entry of R was a naive sum of up to two terms per d, ~2n for n
// lattice points, so its proven relative rounding was ~2n·u; and a law's mass error doubles with
// each doubling of the sum (S_2m = S_m + S_m': the masses are products), so at n = 36 000 (t =
// 9 392, h = 8.75e-5) the epoch's laws carried a mass error of 1.5e-7 — which, shifting ε by
// 2.01Γ, widened a δ bracket by 5e-4 and grew as h shrank (∝ n), so that refinement stopped
// narrowing it ("wider than asked after 4 spacings" after 3 minutes, full-tier case 17 247).
// Gathered in blocks of b ≈ √n values of d, an entry sums at most 2b terms per block and then
// one term per block: ~(2b + n/b)·u ≈ 3√n·u.
//
// Stored by phase: with f = H_in/H_out, R's entry k = m·f + φ sits at φ·M + m (M = ⌈size/f⌉),
// so that the entries one d writes, k = base + i·f, are consecutive (entry φ·M + base/f + i):
// the loops below stream instead of scattering at stride f (the f ≥ 2 sums were the costliest
// loop of random allocation's epoch law: quick-tier sweep case 907 took 5.5-6.1 s, now
// 4.6-5.2 s, three runs each, alternated). For f = 1 the layout is R's own. Each entry receives
// the same terms in the same order either way, so the laws are bit-identical.
struct block_sums {
  std::vector<double> q, p;    // by phase; p on the lower side only
  long long f = 1;             // R's entries per input lattice step
  std::size_t phase_len = 0;   // M
  long long block = 1;         // d values per block
  long long in_block = 0;      // d values gathered since the last flush
  long long flushes = 0;       // blocks added into R: at most this many terms per entry of R
  std::size_t lo = 0, hi = 0;  // the entries of R written since the last flush

  block_sums(const sum_law& r, long long f_, long long d_count)
      : f(f_),
        phase_len((r.q.size() + static_cast<std::size_t>(f_) - 1) / static_cast<std::size_t>(f_)),
        block(std::max(1LL, std::llround(std::sqrt(static_cast<double>(d_count))))),
        lo(r.q.size()) {
    const std::size_t n = phase_len * static_cast<std::size_t>(f);
    q.assign(n, 0.0);
    if (!r.p.empty()) p.assign(n, 0.0);
  }

  // Where R's entry k sits (the entries k + i·f follow it).
  [[nodiscard]] std::size_t slot(std::size_t k) const {
    const auto uf = static_cast<std::size_t>(f);
    return (k % uf) * phase_len + k / uf;
  }
  void touched(std::size_t from, std::size_t to) {
    lo = std::min(lo, from);
    hi = std::max(hi, std::min(to, phase_len * static_cast<std::size_t>(f)));
  }
  // One more d gathered: a full block joins R.
  void next(sum_law& r) {
    if (++in_block == block) flush(r);
  }
  void flush(sum_law& r) {
    if (in_block == 0) return;
    hi = std::min(hi, r.q.size());
    // Phase by phase (each entry of R gets its one term of this block whatever the order).
    const auto uf = static_cast<std::size_t>(f);
    auto join = [&](std::vector<double>& from, std::vector<double>& into) {
      for (std::size_t phase = 0; phase < uf && phase < hi; ++phase) {
        std::size_t m = lo <= phase ? 0 : (lo - phase + uf - 1) / uf;
        double* v = from.data() + phase * phase_len;
        for (std::size_t k = m * uf + phase; k < hi; k += uf, ++m) {
          into[k] += v[m];
          v[m] = 0;
        }
      }
    };
    join(q, r.q);
    if (!p.empty()) join(p, r.p);
    ++flushes;
    in_block = 0;
    lo = q.size();
    hi = 0;
  }
};

// Adds the pairs (i of A, j = i + d of B) for d0 ≤ d ≤ d1 (A's index the smaller or equal) into
// R, each pair's product times `factor`. A and B on the table's input stride, R on its output
// stride. Upper side: split by the table; lower side: to the nearer point, mass and moment. The
// near pairs are gathered in `blocks` (flushed into R before the far pairs), the far pairs
// (split_table) added by add_far, whose rounding bound is returned (0 without far pairs).
//
// Compiled twice on x86-64 (GCC/Clang function multiversioning), for the baseline's SSE2 and for
// AVX2, the clone chosen at load time by the processor: the near-pair loops are most of random
// allocation's time (92 % of quick-tier sweep case 1001), and 4-wide vectors run them 1.5-1.7x
// faster than 2-wide (one epoch law at μ = 0.258, t = 64, h = 9.7e-5: 1.22 s against 1.87 s
// upper side, 1.68 s against 2.84 s lower side, medians of 5 alternated runs). Not FMA: every
// product and sum is rounded as in the baseline, so the laws are bit-identical on either path.
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define DPKIT_AVX2_CLONE __attribute__((target_clones("avx2", "default")))
#else
#define DPKIT_AVX2_CLONE
#endif
DPKIT_AVX2_CLONE double add_ordered(const sum_law& a,
                                    const sum_law& b,
                                    long long d0,
                                    long long d1,
                                    double factor,
                                    const split_table& t,
                                    convex_side side,
                                    block_sums& blocks,
                                    sum_law& r) {
  const long long f = t.in_stride / t.out_stride;
  const long long d_all = std::min(d1, b.end() - 1 - a.first);
  // Far pairs only where every d from t.far on is asked for (d1 = ∞): the recurrence runs to
  // the end of B.
  const bool far = d1 >= b.end() - 1 - a.first && d_all >= std::max(d0, t.far);
  const long long d_max = far ? std::max(d0, t.far) - 1 : d_all;
  for (long long d = d0; d <= d_max; ++d) {
    const long long lo = std::max(a.first, b.first - d);
    const long long hi = std::min(a.end(), b.end() - d);
    if (lo >= hi) continue;
    const auto ud = static_cast<std::size_t>(d);
    const auto len = static_cast<std::size_t>(hi - lo);
    const double* qa = a.q.data() + (lo - a.first);
    const double* qb = b.q.data() + (lo + d - b.first);
    const auto uf = static_cast<std::size_t>(f);
    if (side == convex_side::dominating) {
      const double up = t.up[ud] * factor, dn = t.down[ud] * factor;
      const auto base = static_cast<std::size_t>((lo + d) * f + t.shift[ud] - r.first);
      blocks.touched(base, base + len * uf + 1);
      if (f == 1) {
        double* out = blocks.q.data() + base;
        // out[k] gets the lower share of pair k and the upper share of pair k − 1 (written so
        // that iterations are independent and the loop vectorises).
        out[0] += dn * (qa[0] * qb[0]);
        for (std::size_t k = 1; k < len; ++k)
          out[k] += dn * (qa[k] * qb[k]) + up * (qa[k - 1] * qb[k - 1]);
        out[len] += up * (qa[len - 1] * qb[len - 1]);
      } else {  // entries base + k·f and base + 1 + k·f: two phases, each consecutive
        double* lower = blocks.q.data() + blocks.slot(base);
        double* upper = blocks.q.data() + blocks.slot(base + 1);
        for (std::size_t k = 0; k < len; ++k) {
          const double v = qa[k] * qb[k];
          lower[k] += dn * v;
          upper[k] += up * v;
        }
      }
    } else {
      const double* pa = a.p.data() + (lo - a.first);
      const double* pb = b.p.data() + (lo + d - b.first);
      const auto at = static_cast<std::size_t>((lo + d) * f + t.nearest[ud] - r.first);
      blocks.touched(at, at + (len - 1) * uf + 1);
      double* oq = blocks.q.data() + blocks.slot(at);  // entries at + k·f: one phase
      double* op = blocks.p.data() + blocks.slot(at);
      for (std::size_t k = 0; k < len; ++k) {
        oq[k] += factor * (qa[k] * qb[k]);
        op[k] += factor * (qa[k] * pb[k] + pa[k] * qb[k]);
      }
    }
    blocks.next(r);
  }
  blocks.flush(r);
  return far ? add_far(a, b, std::max(d0, t.far), factor, t, side, r) : 0.0;
}

// Merges the lower side's groups into the cells (of the law's spacing) their atoms p/q lie in:
// a coarser grouping, so still a contraction, and the atoms stay ordered about a cell apart.
void rebin(sum_law& s, double h) {
  if (s.q.empty()) return;
  const double spacing = h * static_cast<double>(s.stride);
  std::vector<long long> cell(s.q.size());
  long long lo = std::numeric_limits<long long>::max(), hi = std::numeric_limits<long long>::min();
  bool zero_ratio = false;
  for (std::size_t k = 0; k < s.q.size(); ++k) {
    if (!(s.q[k] > 0)) continue;
    // An atom whose P-mass underflowed to 0 (far in the lower tail: q ≈ 1e-300, p below the
    // smallest double) has ratio 0 and no cell of its own: it joins the lowest cell below —
    // merging atoms is a mean-preserving contraction, as within every cell, so the law stays
    // dominated. (Its cell was floor(-inf): undefined behaviour, and at r = 1 of t = 3730 a
    // write far outside the vector.)
    if (!(s.p[k] > 0)) {
      zero_ratio = true;
      continue;
    }
    cell[k] = static_cast<long long>(std::floor((std::log(s.p[k]) - std::log(s.q[k])) / spacing));
    lo = std::min(lo, cell[k]);
    hi = std::max(hi, cell[k]);
  }
  if (lo > hi) {
    if (zero_ratio)
      throw std::overflow_error("allocation_epoch_ratio: every atom's P-mass underflowed");
    return;
  }
  for (std::size_t k = 0; k < s.q.size(); ++k)
    if (s.q[k] > 0 && !(s.p[k] > 0)) cell[k] = lo;
  // Summed in long double (a cell may gather every group: n terms), rounded to double once.
  std::vector<long double> q(static_cast<std::size_t>(hi - lo + 1), 0.0L), p(q.size(), 0.0L);
  for (std::size_t k = 0; k < s.q.size(); ++k) {
    if (!(s.q[k] > 0)) continue;
    const auto j = static_cast<std::size_t>(cell[k] - lo);
    q[j] += s.q[k];
    p[j] += s.p[k];
  }
  const std::size_t n = s.q.size();
  s.first = lo;
  s.q.assign(q.begin(), q.end());
  s.p.assign(p.begin(), p.end());
  // At most all n groups in one cell: (n + 4)·u_ld, and one rounding to double.
  s.err += static_cast<double>(n + 4) * static_cast<double>(kUnitLd) + kUnit;
}

// Drops exact zeros at both ends.
void trim(sum_law& s) {
  std::size_t b = 0, e = s.q.size();
  while (b < e && s.q[b] == 0) ++b;
  while (e > b && s.q[e - 1] == 0) --e;
  if (b == 0 && e == s.q.size()) return;
  s.q = std::vector<double>(s.q.begin() + static_cast<std::ptrdiff_t>(b),
                            s.q.begin() + static_cast<std::ptrdiff_t>(e));
  if (!s.p.empty())
    s.p = std::vector<double>(s.p.begin() + static_cast<std::ptrdiff_t>(b),
                              s.p.begin() + static_cast<std::ptrdiff_t>(e));
  s.first += static_cast<long long>(b);
}

// Tails: above the point K where the P-mass beyond is at most kTail·E[S], and below the point K'
// where the Q-mass below is at most kTail. Upper side: the mass above K spread between e^{KH}
// and +∞ (all its Q-mass at e^{KH}, its excess first moment Σ q_k(e^{kH} − e^{KH}) to +∞), the
// mass below K' between 0 and e^{K'H} (Q-mass q_k e^{(k−K')H} at K', the rest at 0): both keep
// the mean exactly. Lower side: each tail merged into the group at its end.
void truncate_tails(sum_law& s, double h, convex_side side) {
  trim(s);
  const std::size_t n = s.q.size();
  if (n < 3) return;
  const double spacing = h * static_cast<double>(s.stride);
  const bool upper = side == convex_side::dominating;
  auto first_moment = [&](std::size_t k) {
    return upper ? s.q[k] * lattice_value(s.first + static_cast<long long>(k), spacing) : s.p[k];
  };
  std::size_t top = n - 1;
  for (double above = 0; top > 1; --top) {
    const double m = first_moment(top);
    if (above + m > kTail * s.mean) break;
    above += m;
  }
  std::size_t bottom = 0;
  for (double below = 0; bottom + 1 < top; ++bottom) {
    if (below + s.q[bottom] > kTail) break;
    below += s.q[bottom];
  }
  // The tails' sums (up to n terms into one mass) in long double, each rounded to double once;
  // the terms themselves are formed in double as before (a few roundings each).
  long double p_inf = s.p_inf, zero = s.zero, q_top = s.q[top], q_bottom = s.q[bottom];
  long double p_top = upper ? 0.0L : s.p[top], p_bottom = upper ? 0.0L : s.p[bottom];
  for (std::size_t k = top + 1; k < n; ++k) {
    if (upper) {
      const double e_top = lattice_value(s.first + static_cast<long long>(top), spacing);
      p_inf += s.q[k] * e_top * std::expm1(static_cast<double>(k - top) * spacing);
    } else {
      p_top += s.p[k];
    }
    q_top += s.q[k];
  }
  for (std::size_t k = 0; k < bottom; ++k) {
    const double gap = static_cast<double>(bottom - k) * spacing;
    if (upper) {
      zero += s.q[k] * -std::expm1(-gap);
      q_bottom += s.q[k] * std::exp(-gap);
    } else {
      q_bottom += s.q[k];
      p_bottom += s.p[k];
    }
  }
  s.p_inf = static_cast<double>(p_inf);
  s.zero = static_cast<double>(zero);
  s.q[top] = static_cast<double>(q_top);
  s.q[bottom] = static_cast<double>(q_bottom);
  if (!upper) {
    s.p[top] = static_cast<double>(p_top);
    s.p[bottom] = static_cast<double>(p_bottom);
  }
  s.q = std::vector<double>(s.q.begin() + static_cast<std::ptrdiff_t>(bottom),
                            s.q.begin() + static_cast<std::ptrdiff_t>(top) + 1);
  if (!upper)
    s.p = std::vector<double>(s.p.begin() + static_cast<std::ptrdiff_t>(bottom),
                              s.p.begin() + static_cast<std::ptrdiff_t>(top) + 1);
  s.first += static_cast<long long>(bottom);
  // Each term within 4u (its products, exp and expm1), the sums within (n + 4)·u_ld, one
  // rounding to double.
  s.err += 5 * kUnit + static_cast<double>(n + 4) * static_cast<double>(kUnitLd);
}

// A law on a finer lattice (stride divides s.stride): index k becomes k·f, exactly the same law
// (the lower side's groups keep their atoms and are rebinned to the finer cells).
void refine(sum_law& s, long long stride, double h) {
  if (stride == s.stride) return;
  const long long f = s.stride / stride;
  const auto uf = static_cast<std::size_t>(f);
  std::vector<double> q((s.q.size() - 1) * uf + 1, 0.0), p;
  for (std::size_t k = 0; k < s.q.size(); ++k) q[k * uf] = s.q[k];
  if (!s.p.empty()) {
    p.assign(q.size(), 0.0);
    for (std::size_t k = 0; k < s.p.size(); ++k) p[k * uf] = s.p[k];
  }
  s.q = std::move(q);
  s.p = std::move(p);
  s.first *= f;
  s.stride = stride;
  if (!s.p.empty()) rebin(s, h);
}

// The split tables, one per (input stride, output stride), grown to the widest pair of laws.
class split_cache {
 public:
  explicit split_cache(double h) : h_(h) {}
  const split_table& get(long long in_stride, long long out_stride, std::size_t count) {
    for (auto& t : tables_)
      if (t.in_stride == in_stride && t.out_stride == out_stride) {
        if (t.shift.size() < count) t = make_splits(h_, in_stride, out_stride, 2 * count);
        return t;
      }
    tables_.push_back(make_splits(h_, in_stride, out_stride, 2 * count));
    return tables_.back();
  }

 private:
  double h_;
  std::vector<split_table> tables_;
};

// The law of A + B for independent A and B on the same stride (A == B allowed: a law added to an
// independent copy of itself), on the lattice of stride `out_stride` (dividing theirs).
sum_law add(const sum_law& a,
            const sum_law& b,
            long long out_stride,
            split_cache& cache,
            double h,
            convex_side side) {
  const auto span =
      static_cast<std::size_t>(std::max(a.end(), b.end()) - std::min(a.first, b.first) + 1);
  const split_table& t = cache.get(a.stride, out_stride, span);
  const long long f = a.stride / out_stride;
  sum_law r;
  r.stride = out_stride;
  const long long s0 = t.shift[0];
  r.first = std::max(a.first, b.first) * f;
  const long long end = (std::max(a.end(), b.end()) - 1) * f + s0 + 2;
  // An atom at 0 (upper side) leaves the other law as it is: room for the lower of the two.
  if (side == convex_side::dominating && (a.zero > 0 || b.zero > 0))
    r.first = std::min(a.first, b.first) * f;
  r.q.assign(static_cast<std::size_t>(end - r.first), 0.0);
  if (side == convex_side::dominated) r.p.assign(r.q.size(), 0.0);
  constexpr long long kAll = std::numeric_limits<long long>::max();
  double far = 0;  // the far pairs' relative rounding (add_far)
  block_sums blocks(r, f, static_cast<long long>(a.q.size() + b.q.size()));
  if (&a == &b) {  // an independent copy: the pairs (i, j) and (j, i) are alike
    far = std::max(far, add_ordered(a, a, 0, 0, 1.0, t, side, blocks, r));
    far = std::max(far, add_ordered(a, a, 1, kAll, 2.0, t, side, blocks, r));
  } else {
    far = std::max(far, add_ordered(a, b, 0, kAll, 1.0, t, side, blocks, r));
    far = std::max(far, add_ordered(b, a, 1, kAll, 1.0, t, side, blocks, r));
  }
  if (side == convex_side::dominating) {
    auto copy_scaled = [&](const sum_law& x, double w) {
      if (w == 0) return;
      for (std::size_t k = 0; k < x.q.size(); ++k)
        r.q[static_cast<std::size_t>((x.first + static_cast<long long>(k)) * f - r.first)] +=
            w * x.q[k];
    };
    copy_scaled(a, b.zero);
    copy_scaled(b, a.zero);
    r.zero = a.zero * b.zero;
    double qa = a.zero, qb = b.zero;
    for (const double v : a.q) qa += v;
    for (const double v : b.q) qb += v;
    // The P-mass at +∞ is the limit of Q-mass ε at M with εM fixed: added to an independent
    // finite law of total Q-mass 1 it stays at +∞ with the same P-mass.
    r.p_inf = a.p_inf * qb + b.p_inf * qa;
  }
  r.mean = a.mean + b.mean;
  // Every entry is a naive sum of at most 2·block products of two masses and a weight per block
  // (two per d), then of the blocks' sums (block_sums), two far pairs' sums per add_ordered (each
  // standing for many terms and within `far` of its exact value besides, add_far) and two
  // copies of a law; + 8 for the products' own roundings, as before the blocks.
  const auto terms = static_cast<double>(2 * blocks.block + blocks.flushes + 4 + 2 + 8);
  r.err = a.err + b.err + (terms + 4) * kUnit + far;
  r.moved = a.moved + b.moved + kSplitResidual * r.mean;
  r.moved_relative = a.moved_relative + b.moved_relative + kSplitResidual;
  if (side == convex_side::dominated) rebin(r, h);
  truncate_tails(r, h, side);
  return r;
}

// One term Y/t = e^{Z − log t}, Z ~ N(−μ²/2, μ²) under Q; E_Q[Y; Z ∈ I] = P(Z' ∈ I),
// Z' ~ N(μ²/2, μ²). Cells [kH, (k+1)H) of Z − log t between the points where Q's lower and P's
// upper tail hold kTail.
sum_law one_term(double mu, double t, double h, long long stride, convex_side side) {
  const double half = mu * mu / 2;
  const double log_t = std::log(t);
  const double z = normal_quantile_complement(kTail);
  const double spacing = h * static_cast<double>(stride);
  const auto k_lo = static_cast<long long>(std::floor((-half - z * mu - log_t) / spacing));
  const auto k_hi = static_cast<long long>(std::ceil((half + z * mu - log_t) / spacing));
  sum_law s;
  s.stride = stride;
  s.mean = 1 / t;
  // normal_interval keeps its relative accuracy in both tails; 64 ulp taken for it.
  s.err = 64 * kUnit;
  const auto cells = static_cast<std::size_t>(k_hi - k_lo);
  // x a point of the log(Y/t) axis, standardised under Q and under P.
  auto q_cdf = [&](double x) { return (x + log_t + half) / mu; };
  auto p_cdf = [&](double x) { return (x + log_t - half) / mu; };
  const double lo = static_cast<double>(k_lo) * spacing, hi = static_cast<double>(k_hi) * spacing;
  const double q_below = normal_cdf(q_cdf(lo)), p_below = normal_cdf(p_cdf(lo));
  const double q_above = normal_ccdf(q_cdf(hi)), p_above = normal_ccdf(p_cdf(hi));
  double clamped = 0, clamped_relative = 0;  // moves by clamping (upper side)
  if (side == convex_side::dominating) {
    s.first = k_lo;
    s.q.assign(cells + 1, 0.0);
    const long double em1 = std::expm1(static_cast<long double>(spacing));
    for (std::size_t c = 0; c < cells; ++c) {
      const double a = static_cast<double>(k_lo + static_cast<long long>(c)) * spacing;
      const double b = static_cast<double>(k_lo + static_cast<long long>(c) + 1) * spacing;
      const double m = normal_interval(q_cdf(a), q_cdf(b));
      const double pm = normal_interval(p_cdf(a), p_cdf(b)) / t;
      // Split m between e^a and e^b keeping the first moment pm: up·(e^H − 1) = pm e^{−a} − m.
      long double up = (static_cast<long double>(pm) * std::exp(-static_cast<long double>(a)) -
                        static_cast<long double>(m)) /
                       em1;
      // A first moment just outside the cell (the normal CDF's rounding) is clamped: the
      // mean moves by the clamped share times the cell's width.
      const long double kept = std::clamp(up, 0.0L, static_cast<long double>(m));
      clamped += static_cast<double>(std::abs(up - kept) * em1) * std::exp(a);
      clamped_relative += static_cast<double>(std::abs(up - kept) * em1);
      s.q[c] += static_cast<double>(static_cast<long double>(m) - kept);
      s.q[c + 1] += static_cast<double>(kept);
    }
    // Below e^{lo}: between 0 and e^{lo} (first moment p_below); above e^{hi}: between e^{hi}
    // and +∞.
    const double at_lo_exact = p_below / t * std::exp(-lo);
    const double at_lo = std::min(q_below, at_lo_exact);
    clamped += (at_lo_exact - at_lo) * std::exp(lo);
    clamped_relative += at_lo_exact - at_lo;
    s.q[0] += at_lo;
    s.zero = q_below - at_lo;
    s.q[cells] += q_above;
    const double excess = p_above / t - q_above * std::exp(hi);
    s.p_inf = std::max(0.0, excess);
    clamped += s.p_inf - excess;
    clamped_relative += (s.p_inf - excess) * std::exp(-hi);
  } else {
    s.first = k_lo - 1;
    s.q.assign(cells + 2, 0.0);
    s.p.assign(cells + 2, 0.0);
    s.q[0] = q_below;
    s.p[0] = p_below / t;
    for (std::size_t c = 0; c < cells; ++c) {
      const double a = static_cast<double>(k_lo + static_cast<long long>(c)) * spacing;
      const double b = static_cast<double>(k_lo + static_cast<long long>(c) + 1) * spacing;
      s.q[c + 1] = normal_interval(q_cdf(a), q_cdf(b));
      s.p[c + 1] = normal_interval(p_cdf(a), p_cdf(b)) / t;
    }
    s.q[cells + 1] = q_above;
    s.p[cells + 1] = p_above / t;
    rebin(s, h);
  }
  // The long-double splits (the cells share their computed boundaries, so they partition the
  // axis exactly; only the clamps above move the mean).
  s.moved = kSplitResidual / t + clamped;
  s.moved_relative = kSplitResidual + clamped_relative;
  truncate_tails(s, h, side);
  return s;
}

// A constant c ∈ (0, 1) as a law on stride 1: the upper side splits it between its lattice
// neighbours keeping its value, the lower side keeps it as one atom.
sum_law constant_term(double c, double h, convex_side side) {
  sum_law s;
  s.mean = c;
  s.err = 4 * kUnit;
  const long double lc = std::log(static_cast<long double>(c));
  const auto k = static_cast<long long>(std::floor(lc / h));
  s.first = k;
  if (side == convex_side::dominating) {
    const long double r = lc - static_cast<long double>(k) * h;
    const long double em1 = std::expm1(static_cast<long double>(h));
    const long double up = std::clamp(std::expm1(r) / em1, 0.0L, 1.0L);
    s.q = {static_cast<double>(1 - up), static_cast<double>(up)};
    s.moved = kSplitResidual * c;
    s.moved_relative = kSplitResidual;
  } else {
    s.q = {1.0};
    s.p = {c};
  }
  return s;
}

// The lower side's last step: its atoms (ascending) contracted onto the lattice points e^{kh}
// themselves, so that the PLD engine's own contraction (which must round an atom that sits
// between its grid points) has nothing left to round. A sweep from the bottom: a group collects
// atoms until its mean would pass the lattice point T just above it, takes the fraction of the
// next atom that puts its mean exactly on T (an atom split between two groups in fixed
// proportions is still a contraction) and is placed there; the rest of that atom opens the next
// group. A last group that reaches no lattice point stays an atom at its mean. The placement's
// rounding (the emitted first moment is mass·e^{kh}) is added to the moves.
struct landed {
  long long first = 0;
  std::vector<double> q;        // at e^{(first + i)h}
  double top_q = 0, top_p = 0;  // the last group, if any, at its own mean
  double moved = 0, moved_relative = 0;
};

landed land_on_lattice(const sum_law& s, double h) {
  landed out;
  std::vector<std::pair<long long, double>> emitted;
  double gq = 0, gp = 0;  // the open group
  double target = 0;
  long long k_target = 0;
  auto open_target = [&](double v) {
    k_target = static_cast<long long>(std::ceil(std::log(v) / h));
    target = lattice_value(k_target, h);
    if (target < v) target = lattice_value(++k_target, h);  // the logarithm's rounding
  };
  for (std::size_t i = 0; i < s.q.size(); ++i) {
    double q = s.q[i], p = s.p[i];
    while (q > 0) {
      if (gq == 0) {
        gq = q;
        gp = p;
        q = 0;
        open_target(gp / gq);
        break;
      }
      if (p <= target * q) {  // the whole atom keeps the mean at or below T
        gq += q;
        gp += p;
        q = 0;
        break;
      }
      // (gp + a·p)/(gq + a·q) = T.
      const double a = (target * gq - gp) / (p - target * q);
      if (a >= 1) {
        gq += q;
        gp += p;
        q = 0;
        break;
      }
      const double mq = gq + a * q, mp = gp + a * p;
      emitted.emplace_back(k_target, mq);
      const double move = std::abs(mp - mq * target) + 8 * kUnit * mp;
      out.moved += move;
      out.moved_relative += move / target;
      q *= 1 - a;
      p *= 1 - a;
      gq = 0;
      gp = 0;
    }
  }
  if (gq > 0) {
    out.top_q = gq;
    out.top_p = gp;
  }
  if (!emitted.empty()) {
    out.first = emitted.front().first;
    out.q.assign(static_cast<std::size_t>(emitted.back().first - out.first + 1), 0.0);
    for (const auto& [k, m] : emitted) out.q[static_cast<std::size_t>(k - out.first)] += m;
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The privacy loss of a finite law of W in one direction.
class ratio_privacy_loss final : public privacy_loss {
 public:
  ratio_privacy_loss(std::shared_ptr<const allocation_ratio_law> law, adjacency_direction d)
      : law_(std::move(law)), d_(d) {
    const auto& l = *law_;
    const bool remove = d == adjacency_direction::remove;
    const std::size_t n = l.loss.size();
    loss_.resize(n);
    p_.resize(n);
    q_.resize(n);
    for (std::size_t k = 0; k < n; ++k) {
      const std::size_t j = remove ? k : n - 1 - k;
      // Dominating side: raised past the loss's own rounding (see allocation_ratio_law).
      const double margin = l.side == convex_side::dominating
                                ? 16 * kUnit * (std::abs(l.loss[j]) + l.loss_scale)
                                : 0.0;
      loss_[k] = (remove ? l.loss[j] : -l.loss[j]) + margin;
      p_[k] = remove ? l.p[j] : l.q[j];
      q_[k] = remove ? l.q[j] : l.p[j];
    }
    infinite_p_ = remove ? l.infinite_mass : l.zero_mass;
    minus_infinite_q_ = remove ? l.zero_mass : l.infinite_mass;
  }

  loss_mass mass(double a, double b) const override {
    if (!(a < b)) return {0, 0};
    loss_mass m;
    for (std::size_t k = first_above(a); k < loss_.size() && loss_[k] <= b; ++k) {
      m.p += p_[k];
      m.q += q_[k];
    }
    if (a == -kInf) m.q += minus_infinite_q_;
    if (b == kInf) m.p += infinite_p_;
    return m;
  }

  // One pass, every atom summed directly into its cell (no differences of cumulative sums:
  // each cell keeps the relative accuracy of its own atoms).
  void interval_masses(std::span<const double> cuts,
                       std::vector<loss_mass>& cells,
                       loss_mass& below,
                       loss_mass& above) const override {
    cells.assign(cuts.empty() ? 0 : cuts.size() - 1, loss_mass{});
    below = {0, minus_infinite_q_};
    above = {infinite_p_, 0};
    std::size_t k = 0;
    if (cuts.empty()) {
      for (; k < loss_.size(); ++k) {
        below.p += p_[k];
        below.q += q_[k];
      }
      return;
    }
    for (; k < loss_.size() && loss_[k] <= cuts[0]; ++k) {
      below.p += p_[k];
      below.q += q_[k];
    }
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c)
      for (; k < loss_.size() && loss_[k] <= cuts[c + 1]; ++k) {
        cells[c].p += p_[k];
        cells[c].q += q_[k];
      }
    for (; k < loss_.size(); ++k) {
      above.p += p_[k];
      above.q += q_[k];
    }
  }

  double support_lower() const override {
    if (minus_infinite_q_ > 0 || loss_.empty()) return -kInf;
    return loss_.front();
  }
  double support_upper() const override {
    if (infinite_p_ > 0 || loss_.empty()) return kInf;
    return loss_.back();
  }

  double delta(double epsilon) const override {
    double d = infinite_p_;
    for (std::size_t k = first_above(epsilon); k < loss_.size(); ++k)
      d += std::max(0.0, p_[k] - std::exp(epsilon) * q_[k]);
    return std::min(1.0, d);
  }

  // Scans of the atoms (the default root search assumes a continuous law).
  double upper_tail_point(double tau) const override {
    double tail = infinite_p_;
    for (std::size_t k = loss_.size(); k-- > 0;) {
      if (tail + p_[k] > tau) return loss_[k];
      tail += p_[k];
    }
    return loss_.empty() ? 0.0 : loss_.front();
  }
  double lower_tail_point(double tau) const override {
    double cum = 0;
    for (std::size_t k = 0; k < loss_.size(); ++k) {
      if (cum + p_[k] > tau) return std::nextafter(loss_[k], -kInf);
      cum += p_[k];
    }
    return loss_.empty() ? 0.0 : loss_.back();
  }

  std::string describe() const override {
    return std::string("one randomly allocated epoch, likelihood ratio on a log-grid (h = ") +
           format_value(law_->grid) + ", " + std::to_string(loss_.size()) + " atoms, " +
           (law_->side == convex_side::dominating ? "spread: upper" : "contraction: lower") +
           (d_ == adjacency_direction::remove ? " side, remove)" : " side, add)");
  }

 private:
  std::size_t first_above(double y) const {
    return static_cast<std::size_t>(std::upper_bound(loss_.begin(), loss_.end(), y) -
                                    loss_.begin());
  }

  std::shared_ptr<const allocation_ratio_law> law_;
  adjacency_direction d_;
  std::vector<double> loss_, p_, q_;
  double infinite_p_ = 0, minus_infinite_q_ = 0;
};

}  // namespace

allocation_ratio_law allocation_epoch_ratio(
    double mu, long long steps_per_epoch, long long released, double h, convex_side side) {
  constexpr const char* kFn = "allocation_epoch_ratio";
  check_positive(kFn, "mu", mu);
  if (mu > 40) throw_domain_error(kFn, "mu", mu, "<= 40 (noise multiplier >= 0.025)");
  check_at_least(kFn, "steps_per_epoch", steps_per_epoch, 1);
  check_at_least(kFn, "released", released, 1);
  if (released > steps_per_epoch)
    throw_domain_error(kFn, "released", format_value(released),
                       "<= steps_per_epoch (" + format_value(steps_per_epoch) + ")");
  if (!(h >= 1e-5 && h <= 1)) throw_domain_error(kFn, "h", h, "in [1e-5, 1]");

  const double t = static_cast<double>(steps_per_epoch);
  split_cache cache(h);
  // The strides: stride_for budgets the roundings of a whole epoch (the sums' means add up to 1).
  // A partial epoch's sums add up to M = r/t, and the rounding of a sum of mean m adds ~m·H²/4
  // per unit of the total, so the same budget allows strides √(1/M) times coarser: stride_for(m·M).
  // (At r = 32 of t = 7940 the stride-1 sums took 15-40 s for a δ to 1 %; the ends stay certified
  // at any stride — strides only move the gap, which the accountant's refinement watches.)
  const double whole = static_cast<double>(released) / t;
  auto stride_of = [whole](double m) { return stride_for(m * whole); };
  sum_law power = one_term(mu, t, h, stride_of(1 / t), side);
  std::size_t largest = power.q.size();
  // S_r from the binary digits of r: `power` runs through S_1, S_2, S_4, …, `acc` gathers the
  // digits; each sum on the stride its mean allows.
  sum_law acc;
  bool have = false;
  for (long long r = released; r > 0; r >>= 1) {
    if ((r & 1) != 0) {
      if (!have) {
        acc = power;
        have = true;
      } else {
        const long long s = std::min(acc.stride, power.stride);
        refine(acc, s, h);
        sum_law term = power;
        refine(term, s, h);
        acc = add(acc, term, std::min(s, stride_of(acc.mean + term.mean)), cache, h, side);
        largest = std::max(largest, acc.q.size());
      }
    }
    if (r > 1) {
      power = add(power, power, stride_of(2 * power.mean), cache, h, side);
      largest = std::max(largest, power.q.size());
    }
  }
  refine(acc, 1, h);
  if (released < steps_per_epoch) {
    const sum_law c = constant_term(static_cast<double>(steps_per_epoch - released) / t, h, side);
    acc = add(acc, c, 1, cache, h, side);
  }

  allocation_ratio_law law;
  law.side = side;
  law.grid = h;
  law.largest_lattice = largest;
  law.loss_scale = 1;
  auto push_lattice = [&](long long first, const std::vector<double>& q) {
    for (std::size_t k = 0; k < q.size(); ++k) {
      if (!(q[k] > 0)) continue;
      const double l = static_cast<double>(first + static_cast<long long>(k)) * h;
      law.loss.push_back(l);
      law.q.push_back(q[k]);
      law.p.push_back(q[k] * std::exp(l));
    }
  };
  if (side == convex_side::dominating) {
    push_lattice(acc.first, acc.q);
  } else {
    const landed l = land_on_lattice(acc, h);
    push_lattice(l.first, l.q);
    if (l.top_q > 0) {
      law.loss.push_back(std::log(l.top_p) - std::log(l.top_q));
      law.q.push_back(l.top_q);
      law.p.push_back(l.top_p);
    }
    acc.moved += l.moved;
    acc.moved_relative += l.moved_relative;
    acc.err += 8 * kUnit;
  }
  law.zero_mass = acc.zero;
  law.infinite_mass = acc.p_inf;
  law.mass_error = acc.err + 8 * kUnit;
  law.mean_error = acc.moved;
  law.ratio_error = acc.moved_relative;
  return law;
}

std::unique_ptr<privacy_loss> allocation_ratio_loss(std::shared_ptr<const allocation_ratio_law> law,
                                                    adjacency_direction direction) {
  if (!law || law->loss.empty())
    throw_domain_error("allocation_ratio_loss", "law", "empty",
                       "a law from allocation_epoch_ratio");
  return std::make_unique<ratio_privacy_loss>(std::move(law), direction);
}

}  // namespace dpkit::subsampling
