#include "dpkit/accounting/pld.hpp"

#include <fftw3.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "dpkit/core/check.hpp"
#include "dpkit/core/log_space.hpp"
#include "dpkit/core/tolerance.hpp"

namespace dpkit::accounting {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.14159265358979323846;

// ---------------------------------------------------------------------------------------
// Half-cell masses: the loss axis from ℓ_lo − h/2 to ℓ_hi + h/2 cut at every multiple of h/2.
// Pessimistic cells (ℓ_i, ℓ_i + h] and optimistic cells (ℓ_i − h/2, ℓ_i + h/2] are both unions
// of two adjacent half-cells, so one pass of CDF evaluations serves both sides.
struct half_cells {
  double h = 0;
  long long i_lo = 0, i_hi = 0;  // lattice range ℓ_i = i·h
  std::vector<double> p, q;      // 2(i_hi − i_lo) + 2 half-cells
  subsampling::loss_mass below;  // mass at or below ℓ_lo − h/2
  subsampling::loss_mass above;  // mass above ℓ_hi + h/2
};

half_cells compute_half_cells(const subsampling::privacy_loss& loss, double h, double tail_mass) {
  half_cells c;
  c.h = h;
  const double y_lo = loss.lower_tail_point(tail_mass);
  const double y_hi = std::max(loss.upper_tail_point(tail_mass), y_lo);
  c.i_lo = static_cast<long long>(std::floor(y_lo / h)) - 1;
  c.i_hi = static_cast<long long>(std::ceil(y_hi / h)) + 1;
  const long long count = 2 * (c.i_hi - c.i_lo) + 2;
  c.p.resize(static_cast<std::size_t>(count));
  c.q.resize(static_cast<std::size_t>(count));
  // Cut points b_k = (2 i_lo − 1 + k)·h/2, k = 0..count.
  std::vector<double> cuts(static_cast<std::size_t>(count) + 1);
  for (long long k = 0; k <= count; ++k)
    cuts[static_cast<std::size_t>(k)] = static_cast<double>(2 * c.i_lo - 1 + k) * h / 2;
  std::vector<subsampling::loss_mass> cells;
  loss.interval_masses(cuts, cells, c.below, c.above);
  for (long long k = 0; k < count; ++k) {
    c.p[static_cast<std::size_t>(k)] = cells[static_cast<std::size_t>(k)].p;
    c.q[static_cast<std::size_t>(k)] = cells[static_cast<std::size_t>(k)].q;
  }
  return c;
}

// e^{ℓ}·s without overflow for s > 0 (s = 0 gives 0).
double scale_by_exp(double s, double l) {
  if (l < 700) return s * std::exp(l);
  return s > 0 ? std::exp(std::log(s) + l) : 0.0;
}

discrete_pld build_pessimistic(const half_cells& c) {
  discrete_pld d;
  d.side = pld_side::pessimistic;
  d.h = c.h;
  d.first = c.i_lo;
  d.mass.assign(static_cast<std::size_t>(c.i_hi - c.i_lo + 1), 0.0);
  // Below ℓ_lo (plus the half-cell (ℓ_lo − h/2, ℓ_lo]): rounded up onto ℓ_lo.
  d.mass[0] = c.below.p + c.p[0];
  const double one_minus_e = -std::expm1(-c.h);  // 1 − e^{−h}
  for (long long i = c.i_lo; i < c.i_hi; ++i) {
    const std::size_t j = static_cast<std::size_t>(i - c.i_lo);
    const double m = c.p[2 * j + 1] + c.p[2 * j + 2];
    const double s = c.q[2 * j + 1] + c.q[2 * j + 2];
    if (m == 0) continue;
    // Split m between ℓ_i and ℓ_{i+1} keeping E[e^{−Y}] = s: top·e^{−ℓ_{i+1}} + (m − top)e^{−ℓ_i} =
    // s.
    const double li = static_cast<double>(i) * c.h;
    const double top = std::clamp((m - scale_by_exp(s, li)) / one_minus_e, 0.0, m);
    d.mass[j] += m - top;
    d.mass[j + 1] += top;
  }
  // Above ℓ_hi (the last half-cell and the tail): to +∞.
  d.infinity_mass = c.p.back() + c.above.p;
  return d;
}

// The optimistic side (see pld.hpp): a contraction of X = e^{−Y} (each group of mass replaced
// by its conditional X-mean: E φ(X) can only decrease, φ convex), then Y rounded down onto the
// lattice ℓ_i = i·h + θ (φ decreasing: δ decreases again). Three groupings are built and the
// one that rounds least is kept (each is a valid lower bound; their contraction losses are all
// second order, the rounding is what can be first order):
//
//   cells      the cells (ℓ_i − h/2, ℓ_i + h/2], each to its mean and rounded down onto the
//              lattice, θ chosen to minimise the rounding. Exact for a mass narrower than a
//              cell (σ = 0.1, q = 1e-5: all but 1e-5 of the mass within 1e-5 of −q, h = 0.03);
//              but where the density varies within a few cells the means' offsets spread over
//              the cell and the rounding is O(h²·|(log density)'|) per step — first order for
//              the bulk of a subsampled Gaussian at small q, ~q wide (q = 0.001, σ = 0.5,
//              T = 1e5: the lower ε bound 9 % low at h = 1e-4, the upper one within 1e-5).
//   sweeps     groups built along the loss axis (downwards, or upwards): a group collects
//              half-cells until its X-mean reaches e^{−ℓ_j} for its target lattice point,
//              taking just the fraction of the last half-cell that lands it exactly there (a
//              half-cell split between two groups in fixed proportions, each part with the
//              half-cell's conditional law, is still a contraction: G refined by an independent
//              coin); the rest of that half-cell opens the next group. Groups stay within about
//              one cell of their target (else they close, rounded down), so the contraction
//              stays local. Smooth densities: no rounding at all, whatever θ.
struct grouping {
  std::vector<double> mass;  // at lattice indices first .. first + size − 1
  double rounding = 0;       // Σ (group mass)·(mean loss − placed loss) ≥ 0
  double dropped = 0;        // mass whose rounding would leave the lattice: to −∞
};

// The margin by which a placement stays below the computed mean, so that the rounding of the
// sums and logarithms (~1e-16 relative in X, absolute in Y) cannot put it above the true mean.
double placement_margin(double l) {
  return 64 * tol::kMachineEps * (std::abs(l) + 1);
}

grouping cell_grouping(const half_cells& c, double& theta) {
  const std::size_t cells = static_cast<std::size_t>(c.i_hi - c.i_lo + 1);
  std::vector<double> m(cells), offset(cells, kInf);
  double scale = 1;  // size of the losses, for the round-off margin
  for (std::size_t j = 0; j < cells; ++j) {
    m[j] = c.p[2 * j] + c.p[2 * j + 1];
    const double s = c.q[2 * j] + c.q[2 * j + 1];
    const double li = static_cast<double>(c.i_lo + static_cast<long long>(j)) * c.h;
    scale = std::max(scale, std::abs(li));
    // Conditional X-mean e^{−y*} = s/m: y* = log m − log s (the contraction point).
    if (m[j] > 0) offset[j] = s > 0 ? std::log(m[j] / s) - li : kInf;
  }
  // The mass above the window is rounded down onto the top cell (Y only decreases).
  m.back() += c.above.p;
  // Lattice shift θ: every cell whose contraction offset d_j = y*_j − ℓ_j is ≥ θ goes to ℓ_j + θ
  // (rounded down by d_j − θ); the others go one cell lower (rounded down by d_j − θ + h).
  // θ minimises the mean downward shift Σ m_j(d_j − θ) + h·Σ_{d_j < θ} m_j, i.e. maximises
  // θ·M − h·(mass below θ) over the candidates θ = d_j — so a few steep, light tail cells do
  // not drag the whole lattice down.
  std::vector<std::size_t> order;
  double total = 0;
  for (std::size_t j = 0; j < cells; ++j)
    if (m[j] > 0 && std::isfinite(offset[j])) order.push_back(j), total += m[j];
  std::sort(order.begin(), order.end(),
            [&](std::size_t a, std::size_t b) { return offset[a] < offset[b]; });
  double best = -kInf, below = 0;
  theta = 0;
  for (std::size_t k = 0; k < order.size(); ++k) {
    const double candidate = offset[order[k]];
    const double score = candidate * total - c.h * below;
    if (score > best) best = score, theta = candidate;
    below += m[order[k]];
  }
  theta -= placement_margin(scale);
  theta = std::clamp(theta, -0.5 * c.h, 0.5 * c.h);
  grouping g;
  g.mass.assign(cells + 1, 0.0);  // lattice indices i_lo − 1 .. i_hi
  for (std::size_t j = 0; j < cells; ++j) {
    if (m[j] == 0) continue;
    const bool up = offset[j] >= theta;
    g.mass[up ? j + 1 : j] += m[j];
    if (std::isfinite(offset[j])) g.rounding += m[j] * (offset[j] - theta + (up ? 0.0 : c.h));
  }
  return g;
}

// The lattice ℓ_i = i·h + θ of the optimistic side, indices first .. top, with the groups
// placed on it so far.
class lattice_groups {
 public:
  lattice_groups(const half_cells& c, double theta)
      : h_(c.h), theta_(theta), first_(c.i_lo - 1), top_(c.i_hi + 1) {
    g_.mass.assign(static_cast<std::size_t>(top_ - first_ + 1), 0.0);
    for (std::size_t m = 0; m < factors_.size(); ++m)
      factors_[m] = std::exp(theta_ - h_ / 4 + relative_half_steps(m) * h_ / 2);
  }
  [[nodiscard]] double at(long long i) const { return static_cast<double>(i) * h_ + theta_; }
  /// e^{ℓ_i − c}, c the midpoint of the half-cell whose lower edge is s·h/2: the scaling of that
  /// half-cell's X-mass to the target ℓ_i, from a table for the nearby ones.
  [[nodiscard]] double scale_to(long long i, long long s) const {
    const long long m = 2 * i - s + kReach;
    if (m >= 0 && m < static_cast<long long>(factors_.size()))
      return factors_[static_cast<std::size_t>(m)];
    return std::exp(at(i) - (static_cast<double>(s) + 0.5) * h_ / 2);
  }
  /// The index at or below a mean loss y, kept below it by the placement margin (+∞: the top).
  [[nodiscard]] long long floor_of(double y) const {
    if (!(y < at(top_))) return top_;
    return static_cast<long long>(std::floor((y - placement_margin(y) - theta_) / h_));
  }
  [[nodiscard]] long long top() const { return top_; }
  [[nodiscard]] double h() const { return h_; }
  [[nodiscard]] long long first() const { return first_; }
  /// Mass p with mean loss y ≥ ℓ_i placed at ℓ_i (below the lattice: dropped, to −∞).
  void place(long long i, double p, double y) {
    i = std::min(i, top_);  // further down: still at or below the mean
    if (i < first_) {
      g_.dropped += p;
      return;
    }
    g_.mass[static_cast<std::size_t>(i - first_)] += p;
    if (std::isfinite(y)) g_.rounding += p * (y - at(i));
  }
  grouping& result() { return g_; }

 private:
  static constexpr long long kReach = 16;  // half-steps either way held in the table
  static double relative_half_steps(std::size_t m) {
    return static_cast<double>(static_cast<long long>(m) - kReach);
  }
  double h_, theta_;
  long long first_, top_;
  std::array<double, 2 * kReach + 1> factors_{};
  grouping g_;
};

double mean_loss(double p, double q) {
  return q > 0 ? std::log(p / q) : kInf;
}

// One direction of the grouping sweep. Downwards, the open group's mean loss stays at or above
// its target and the half-cells below pull it down onto it; upwards, at or below, pulled up.
class group_sweep {
 public:
  group_sweep(lattice_groups& lattice, bool downwards) : l_(lattice), down_(downwards) {}

  /// Adds a half-cell's masses: P-mass p, E_P[X; half-cell] q, and qm = q·e^{c} (c its midpoint,
  /// computed once for every sweep), its lower edge at s·h/2. s = kAbove: the mass above the
  /// window (its q scaled directly).
  void add(double p, double q, double qm, long long s) {
    if (!(p > 0)) return;
    // A group stays within about one cell of its target: past the next lattice point it is
    // closed, rounded down (the contraction stays local).
    if (P_ > 0 && s != kAbove) {
      const double half = l_.h() / 2;
      const bool past = down_ ? static_cast<double>(s + 1) * half <= l_.at(j_ - 1)
                              : static_cast<double>(s) * half >= l_.at(j_ + 1);
      if (past) close_rounded();
    }
    if (P_ == 0) return open(p, q, qm, s);
    // (Q + q)e^{ℓ + margin} against P + p: the group's mean loss after adding all of it,
    // against ℓ; Qs_ holds Q·e^{ℓ + margin} for the open group's target.
    const double qs = scaled(q, qm, s, j_);
    const bool stays = down_ ? Qs_ + qs <= P_ + p : Qs_ + qs >= P_ + p;
    const bool crosses = down_ ? qs > p : qs < p;  // this half-cell's mean is past ℓ
    if (stays || !crosses) {
      P_ += p, Q_ += q, Qs_ += qs;
      return;
    }
    // The fraction a of this half-cell that puts the group's mean on the target:
    // (Q + a q) e^{ℓ} = P + a p. The rest opens the next group.
    const double a = std::clamp((P_ - Qs_) / (qs - p), 0.0, 1.0);
    l_.place(j_, P_ + a * p, l_.at(j_));
    P_ = 0, Q_ = 0, Qs_ = 0;
    if (a < 1) open((1 - a) * p, (1 - a) * q, (1 - a) * qm, s);
  }
  /// The open group's masses (not placed).
  [[nodiscard]] std::pair<double, double> open_group() const { return {P_, Q_}; }
  static constexpr long long kAbove = std::numeric_limits<long long>::max();

 private:
  // q·e^{ℓ_i + margin}: through the table (q·e^{c}·e^{ℓ_i − c}), or directly for the mass above.
  [[nodiscard]] double scaled(double q, double qm, long long s, long long i) const {
    const double l = l_.at(i);
    if (s == kAbove) return scale_by_exp(q, l + placement_margin(l));
    return qm * l_.scale_to(i, s) * (1 + placement_margin(l));
  }
  void open(double p, double q, double qm, long long s) {
    if (s == kAbove) {
      j_ = l_.floor_of(mean_loss(p, q));
    } else {
      // The lattice point at or below the half-cell's mean, which lies inside the half-cell
      // (width h/2: one lattice point at most inside): decided by the scaled X-mass, no log.
      j_ = static_cast<long long>(
          std::floor((static_cast<double>(s) * l_.h() / 2 - l_.at(0)) / l_.h()));
      if (scaled(q, qm, s, j_ + 1) <= p) ++j_;                   // mean ≥ ℓ_{j+1} + margin
      while (j_ > l_.first() && scaled(q, qm, s, j_) > p) --j_;  // mean < ℓ_j + margin
      j_ = std::min(j_, l_.top());
    }
    if (!down_ && j_ < l_.top()) ++j_;
    P_ = p, Q_ = q, Qs_ = scaled(q, qm, s, j_);
  }
  void close_rounded() {  // the open group at the lattice point at or below its mean
    const double y = mean_loss(P_, Q_);
    l_.place(std::min(j_, l_.floor_of(y)), P_, y);
    P_ = 0, Q_ = 0, Qs_ = 0;
  }
  lattice_groups& l_;
  bool down_;
  long long j_ = 0;                // the open group's target
  double P_ = 0, Q_ = 0, Qs_ = 0;  // its P-mass, E_P[X; group], and that times e^{ℓ_j + margin}
};

// q_k·e^{c_k} of every half-cell (c_k its midpoint): the sweeps scale X-masses to their
// targets through it and a table of e^{ℓ − c} (lattice_groups::scale_to), one exp per
// half-cell for all sweeps.
std::vector<double> midpoint_scaled(const half_cells& c) {
  std::vector<double> qm(c.q.size());
  for (std::size_t k = 0; k < qm.size(); ++k) {
    const double mid =
        (static_cast<double>(2 * c.i_lo - 1 + static_cast<long long>(k)) + 0.5) * c.h / 2;
    qm[k] = scale_by_exp(c.q[k], mid);
  }
  return qm;
}

// The two-sided grouping at lattice shift θ: downwards from the top and upwards from the
// bottom, each towards the heaviest half-cell (so each sweeps where the density grows in its
// direction and its groups close on their targets), the two open groups and that half-cell
// merged into one, placed at or below its mean. `excess` gets that group's rounding per unit
// mass: moving θ up by it puts a lattice point on the merged group's mean.
grouping two_sided_grouping(const half_cells& c,
                            const std::vector<double>& qm,
                            double theta,
                            double& excess) {
  lattice_groups lattice(c, theta);
  const std::size_t n = c.p.size();
  const std::size_t mode =
      static_cast<std::size_t>(std::max_element(c.p.begin(), c.p.end()) - c.p.begin());
  const long long s0 = 2 * c.i_lo - 1;  // the first half-cell's lower edge, in half-steps
  auto at = [&](std::size_t k) { return s0 + static_cast<long long>(k); };
  group_sweep down(lattice, true), up(lattice, false);
  down.add(c.above.p, c.above.q, 0.0, group_sweep::kAbove);
  for (std::size_t k = n; k-- > mode + 1;) down.add(c.p[k], c.q[k], qm[k], at(k));
  for (std::size_t k = 0; k < mode; ++k) up.add(c.p[k], c.q[k], qm[k], at(k));
  const auto [p1, q1] = down.open_group();
  const auto [p2, q2] = up.open_group();
  const double P = p1 + p2 + c.p[mode], Q = q1 + q2 + c.q[mode];
  excess = 0;
  if (P > 0) {
    const double y = mean_loss(P, Q);
    const long long i = lattice.floor_of(y);
    lattice.place(i, P, y);
    if (std::isfinite(y)) excess = y - lattice.at(i);
  }
  return std::move(lattice.result());
}

// A one-sided sweep over every half-cell (downwards from the top or upwards from the bottom),
// its last group placed at or below its mean.
grouping one_sided_grouping(const half_cells& c,
                            const std::vector<double>& qm,
                            double theta,
                            bool downwards) {
  lattice_groups lattice(c, theta);
  const std::size_t n = c.p.size();
  const long long s0 = 2 * c.i_lo - 1;
  auto at = [&](std::size_t k) { return s0 + static_cast<long long>(k); };
  group_sweep s(lattice, downwards);
  if (downwards) {
    s.add(c.above.p, c.above.q, 0.0, group_sweep::kAbove);
    for (std::size_t k = n; k-- > 0;) s.add(c.p[k], c.q[k], qm[k], at(k));
  } else {
    for (std::size_t k = 0; k < n; ++k) s.add(c.p[k], c.q[k], qm[k], at(k));
    s.add(c.above.p, c.above.q, 0.0, group_sweep::kAbove);
  }
  const auto [P, Q] = s.open_group();
  if (P > 0) {
    const double y = mean_loss(P, Q);
    lattice.place(lattice.floor_of(y), P, y);
  }
  return std::move(lattice.result());
}

discrete_pld build_optimistic(const half_cells& c) {
  discrete_pld d;
  d.side = pld_side::optimistic;
  d.h = c.h;
  double theta = 0;
  grouping best = cell_grouping(c, theta);
  // The two-sided grouping rounds only its merged group (where the sweeps meet), by an amount
  // that depends on where the lattice falls: θ is moved until a lattice point sits just below
  // that group's mean. The groups shift with θ, so this is a root search for
  // g(θ) = (mean − lattice point) ∈ [0, h), read as g − h once it passes h/2 (the point went
  // past the mean), aiming at g = 1e-4·h (a root approached from below would leave the point
  // just above the mean, and the group a whole cell lower): secant steps, kept inside the
  // bracket once both signs are seen (regula falsi), from the cells' θ and from 0, at most 8
  // sweeps each. The grouping that rounds least is kept.
  const double cells_theta = theta;
  const double aim = 1e-4 * c.h;
  const std::vector<double> qm = midpoint_scaled(c);
  // Rounding below 1e-6·h per step costs at most 1e-6·h·T in ε after T steps: further
  // candidates are not tried.
  const double negligible = 1e-6 * c.h;
  for (const double start : {cells_theta, 0.0}) {
    if (best.rounding <= negligible) break;
    double shift = start;
    double a = NAN, ga = NAN, b = NAN, gb = NAN;  // bracket: g(a) ≥ aim > g(b)
    double prev = NAN, gprev = NAN;
    for (int k = 0; k < 8; ++k) {
      double excess = 0;
      const double wrapped = shift - c.h * std::round(shift / c.h);  // θ in [−h/2, h/2]: the
      grouping g = two_sided_grouping(c, qm, wrapped, excess);       // same lattice
      if (g.rounding < best.rounding) best = std::move(g), theta = wrapped;
      const double gk = (excess < 0.5 * c.h ? excess : excess - c.h) - aim;
      if (gk >= 0 && gk <= 10 * aim) break;  // within 1e-3·h of the mean
      if (gk >= 0) {
        a = shift, ga = gk;
      } else {
        b = shift, gb = gk;
      }
      double next = shift + gk;  // the fixed-point step: the lattice point onto the mean
      if (!std::isnan(prev) && gk != gprev) next = shift - gk * (shift - prev) / (gk - gprev);
      if (!std::isnan(a) && !std::isnan(b)) {
        const double lo = std::min(a, b), hi = std::max(a, b);
        if (!(next > lo && next < hi)) next = a - ga * (b - a) / (gb - ga);  // regula falsi
      }
      prev = shift, gprev = gk;
      shift = next;
    }
  }
  // The one-sided sweeps at the best shift so far (where the density is steep on one side
  // only, a sweep from the other side may round less).
  const double best_theta = theta;
  for (const bool downwards : {true, false}) {
    if (best.rounding <= negligible) break;
    grouping g = one_sided_grouping(c, qm, best_theta, downwards);
    if (g.rounding < best.rounding) best = std::move(g), theta = best_theta;
  }
  d.offset = theta;
  d.first = c.i_lo - 1;
  d.mass = std::move(best.mass);
  d.dropped_mass = c.below.p + best.dropped;  // below ℓ_lo − h/2: to −∞
  return d;
}

void trim(discrete_pld& d) {
  std::size_t lo = 0, hi = d.mass.size();
  while (lo < hi && d.mass[lo] == 0) ++lo;
  while (hi > lo && d.mass[hi - 1] == 0) --hi;
  if (lo == hi) {  // all mass at ±∞
    d.mass.assign(1, 0.0);
    return;
  }
  d.mass = std::vector<double>(d.mass.begin() + static_cast<std::ptrdiff_t>(lo),
                               d.mass.begin() + static_cast<std::ptrdiff_t>(hi));
  d.first += static_cast<long long>(lo);
}

// ---------------------------------------------------------------------------------------
// log E[e^{λY}] of a discretised step (finite part), exactly: with ℓ_k = ℓ_0 + k·h and
// r = e^{λh}, Σ m_k e^{λℓ_k} is a polynomial in r, evaluated by Horner's rule in the direction
// where powers of r shrink (no overflow for any λ). One multiply-add per point.
double log_mgf(const discrete_pld& d, double lambda) {
  const std::size_t n = d.mass.size();
  double s = 0;
  if (lambda > 0) {
    const double inv_r = std::exp(-lambda * d.h);  // Σ m_k r^k = r^{n−1} Σ m_k r^{−(n−1−k)}
    for (std::size_t k = 0; k < n; ++k) s = s * inv_r + std::max(d.mass[k], 0.0);
    return std::log(s) + lambda * d.loss(n - 1);
  }
  const double r = std::exp(lambda * d.h);
  for (std::size_t k = n; k-- > 0;) s = s * r + std::max(d.mass[k], 0.0);
  return std::log(s) + lambda * d.loss(0);
}

// FFT sizes are powers of two: FFTW plans them fastest (planning a size like 2⁸·3⁴·5 costs
// ~11 ms even with FFTW_ESTIMATE — measured — more than the transform itself), and the few
// sizes recur, so plans are cached. The padding costs at most a factor 2 in a ~1 ms FFT.
std::size_t fft_size_for(std::size_t n) {
  std::size_t m = 64;
  while (m < n) m *= 2;
  return m;
}

struct fftw_deleter {
  void operator()(void* p) const { fftw_free(p); }
};

// Per-thread FFT buffers and plans, cached by size (FFTW's new-array execute interface accepts
// any buffers with fftw_malloc's alignment). FFTW's planner is not thread-safe, so planning
// and destruction are serialised; executing plans is thread-safe.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

struct fft_workspace {
  std::size_t n = 0;
  std::unique_ptr<double, fftw_deleter> real;
  std::unique_ptr<fftw_complex, fftw_deleter> spectrum;
  std::vector<std::complex<double>> product;
  std::vector<double> spectrum_error;  // round-off bound per coefficient
  fftw_plan forward = nullptr, backward = nullptr;
  fft_workspace() = default;
  fft_workspace(const fft_workspace&) = delete;
  fft_workspace& operator=(const fft_workspace&) = delete;
  ~fft_workspace() {
    if (forward == nullptr) return;
    std::lock_guard<std::mutex> lock(planner_mutex());
    fftw_destroy_plan(forward);
    fftw_destroy_plan(backward);
  }
};

fft_workspace& workspace(std::size_t n) {
  // A few sizes per thread (each pass uses one or two); the largest are evicted first.
  thread_local std::vector<std::unique_ptr<fft_workspace>> cache;
  for (auto& w : cache)
    if (w->n == n) return *w;
  if (cache.size() >= 4) {
    auto largest = std::max_element(cache.begin(), cache.end(),
                                    [](const auto& a, const auto& b) { return a->n < b->n; });
    cache.erase(largest);
  }
  auto w = std::make_unique<fft_workspace>();
  w->real.reset(static_cast<double*>(fftw_malloc(sizeof(double) * n)));
  w->spectrum.reset(static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * (n / 2 + 1))));
  if (!w->real || !w->spectrum) throw std::bad_alloc();
  {
    std::lock_guard<std::mutex> lock(planner_mutex());
    w->forward =
        fftw_plan_dft_r2c_1d(static_cast<int>(n), w->real.get(), w->spectrum.get(), FFTW_ESTIMATE);
    w->backward =
        fftw_plan_dft_c2r_1d(static_cast<int>(n), w->spectrum.get(), w->real.get(), FFTW_ESTIMATE);
  }
  w->n = n;
  cache.push_back(std::move(w));
  return *cache.back();
}

}  // namespace

discrete_pld discretize(const subsampling::privacy_loss& loss,
                        double h,
                        pld_side side,
                        double tail_mass) {
  auto both = discretize_both(loss, h, tail_mass);
  return side == pld_side::pessimistic ? std::move(both.first) : std::move(both.second);
}

std::pair<discrete_pld, discrete_pld> discretize_both(const subsampling::privacy_loss& loss,
                                                      double h,
                                                      double tail_mass) {
  // Below 1e-10 the rounding of the cells' conditional means (~1e-16 absolute) is no longer
  // small against h, and the two sides stop being bounds (pld_accountant.cpp).
  if (!(h >= 1e-10 && std::isfinite(h)))
    throw_domain_error("discretize", "h", h, ">= 1e-10 and finite");
  if (!(tail_mass > 0 && tail_mass <= 1e-3))
    throw_domain_error("discretize", "tail_mass", tail_mass, "in (0, 1e-3]");
  const half_cells c = compute_half_cells(loss, h, tail_mass);
  std::pair<discrete_pld, discrete_pld> out(build_pessimistic(c), build_optimistic(c));
  trim(out.first);
  trim(out.second);
  return out;
}

namespace {

// Golden-section search for the minimiser of f over [lo, hi] (unimodal f). 24 steps: the
// abscissa to ±0.002 of a unit interval — ample where any abscissa gives a valid bound and
// the search only tightens it.
template <class F>
double golden_min(F&& f, double lo, double hi) {
  const double g = 0.6180339887498949;
  double a = lo, b = hi, c = b - g * (b - a), d = a + g * (b - a);
  double fc = f(c), fd = f(d);
  for (int i = 0; i < 24; ++i) {
    if (fc < fd) {
      b = d, d = c, fd = fc, c = b - g * (b - a), fc = f(c);
    } else {
      a = c, c = d, fc = fd, d = a + g * (b - a), fd = f(d);
    }
  }
  return fc < fd ? c : d;
}

// Floating-point slack, relative, on both sides of every bound. The constructions are exact in
// exact arithmetic; the FFT's round-off is bounded separately (compose). What remains is the
// rounding of the discretisation itself — cell masses as differences of CDFs, the
// mean-preserving split, the tilt's logarithms — and of the final sums. That part is measured,
// not proven: at most 2e-13 relative against the 24-digit references of one to three steps
// (data/reference/pld_*). A relative error ρ per step becomes at most (1 + ρ)^T − 1 ≈ Tρ after
// T steps (every composed mass is a sum of products of T step masses), so the slack is
// max(1e-9, T·1e-12): 5× the measured per-step error, with a floor that leaves a wide margin.
constexpr double kFloatingSlack = 1e-9;
constexpr double kFloatingSlackPerStep = 1e-12;

// Error of one level of an FFT's butterflies, in ulp of the ℓ₁ norm of its input (see compose).
constexpr double kFftLevelUlps = 8;

// Tail level (target δ, or the Chernoff bound at the queried ε) below which compositions are
// tilted.
constexpr double kTiltBelow = 1e-9;

constexpr double kLogLambdaMin = -9.210340371976182;  // log 1e-4
constexpr double kLogLambdaMax = 9.210340371976182;   // log 1e4

}  // namespace

composed_pld compose(std::span<const pld_factor> factors,
                     double tail_bound,
                     std::size_t max_fft_size,
                     const compose_focus& focus) {
  if (factors.empty()) throw_domain_error("compose", "factors.size()", "0", ">= 1");
  if (!(tail_bound > 0 && tail_bound <= 1e-3))
    throw_domain_error("compose", "tail_bound", tail_bound, "in (0, 1e-3]");
  if (!std::isnan(focus.epsilon)) check_finite("compose", "focus.epsilon", focus.epsilon);
  if (!std::isnan(focus.delta)) check_open_probability("compose", "focus.delta", focus.delta);
  if (!std::isnan(focus.tolerance) && !(focus.tolerance > 0 && focus.tolerance < 1))
    throw_domain_error("compose", "focus.tolerance", focus.tolerance, "in (0, 1) or NaN");
  const pld_side side = factors[0].pld->side;
  const double h = factors[0].pld->h;
  composed_pld out;
  out.side = side;
  out.h = h;
  double log_no_infinity = 0;  // log P(no factor at +∞)
  long long base = 0;
  double smallest = 0, largest = 0, mean = 0;
  std::size_t longest = 1;
  for (const pld_factor& f : factors) {
    if (f.pld == nullptr || f.pld->side != side || f.pld->h != h)
      throw_domain_error("compose", "factors", "inconsistent", "one side and one grid spacing");
    check_at_least("compose", "count", f.count, 1);
    const double c = static_cast<double>(f.count);
    out.offset += c * f.pld->offset;
    base += f.count * f.pld->first;
    smallest += c * f.pld->loss(0);
    largest += c * f.pld->loss(f.pld->mass.size() - 1);
    longest = std::max(longest, f.pld->mass.size());
    log_no_infinity += c * std::log1p(-f.pld->infinity_mass);
    double m = 0, total = 0;
    for (std::size_t k = 0; k < f.pld->mass.size(); ++k) {
      m += std::max(f.pld->mass[k], 0.0) * f.pld->loss(k);
      total += std::max(f.pld->mass[k], 0.0);
    }
    mean += total > 0 ? c * m / total : 0.0;
  }
  out.infinity_mass = -std::expm1(log_no_infinity);
  double steps = 0;
  for (const pld_factor& f : factors) steps += static_cast<double>(f.count);
  out.floating_slack = std::max(kFloatingSlack, kFloatingSlackPerStep * steps);

  // K(λ): the exact cumulant generating function of the discretised composition (finite part).
  auto cumulant = [&](double lambda) {
    double k = 0;
    for (std::size_t i = 0; i < factors.size(); ++i)
      k += static_cast<double>(factors[i].count) * log_mgf(*factors[i].pld, lambda);
    return k;
  };

  // Exponential tilt λ_t ≥ 0 (see pld.hpp): the FFT then works on a distribution centred where
  // the query needs accuracy, so round-off and aliasing errors, relative to the tilted peak,
  // become e^{K(λ_t) − λ_t ℓ} times smaller in original units at losses ℓ above the focus.
  // log C_λ: (1 − e^{−x})₊ ≤ C_λ e^{λx} for all x, C_λ = (λ/(1+λ))^λ/(1+λ), so that
  // δ(ε) = E[(1 − e^{ε−S})₊] ≤ C_λ e^{K(λ) − λε}: a Chernoff bound on δ itself.
  auto log_c = [](double lambda) {
    return lambda * std::log(lambda / (1 + lambda)) - std::log1p(lambda);
  };
  // Tilt only where it is needed: the tilted law is wider than the plain one (the subsampled
  // losses' higher cumulants grow with λ), which costs up to a doubling of the FFT, and finding
  // λ costs ~50 evaluations of K. ε queries: below δ = 1e-9 only (measured on G(2): relative
  // gap 5e-6 with or without tilt at δ = 1e-8, 1.6e-5 vs 5e-6 at 1e-10, 9e-4 vs 5e-6 at
  // 1e-12). δ queries: the plain composition is tried first and kept unless its corrections
  // at ε exceed 1e-4 of its δ (the Chernoff level below can exceed δ(ε) by orders of magnitude:
  // 1e-9 for δ = 9e-12 at q = 0.001, σ = 0.8, so it cannot decide).
  auto delta_focus_tilt = [&] {
    // ε(δ) ≤ a = min_λ (K(λ) + log C_λ − log δ)/λ; the minimiser centres the tilted law near
    // the crossing — closer than the plain tail bound P(S ≥ a) ≤ δ, which overshoots where
    // S − ε is small (losses with a hard upper edge, e.g. the add direction), and would
    // amplify errors there by e^{λ(a − ε)}.
    const double log_delta = std::log(focus.delta);
    return std::exp(golden_min(
        [&](double t) {
          const double lambda = std::exp(t), k = cumulant(lambda);
          return std::isfinite(k) ? (k + log_c(lambda) - log_delta) / lambda : kInf;
        },
        kLogLambdaMin, kLogLambdaMax));
  };
  auto epsilon_focus_tilt = [&] {
    // δ(ε) ≤ min_λ C_λ e^{K(λ) − λε}; the minimiser tilts the law onto the losses above ε
    // that make up δ(ε).
    return std::exp(golden_min(
        [&](double t) {
          const double lambda = std::exp(t), k = cumulant(lambda);
          return std::isfinite(k) ? k + log_c(lambda) - lambda * focus.epsilon : kInf;
        },
        kLogLambdaMin, kLogLambdaMax));
  };
  auto build = [&](double tilt, composed_pld result) {
    const double k_tilt = tilt > 0 ? cumulant(tilt) : 0.0;
    result.tilt = tilt;
    result.log_scale = k_tilt;
    auto tilted_cumulant = [&](double lambda) { return cumulant(lambda + tilt) - k_tilt; };

    // Window [a_lo, a_hi] of the tilted composition from Chernoff: P̃(S ≥ a) ≤ e^{K̃(λ) − λa},
    // P̃(S ≤ a) ≤ e^{K̃(−λ) + λa}; a_hi = min_λ (K̃(λ) − log τ)/λ, a_lo = max_λ (log τ − K̃(−λ))/λ.
    const double log_tau = std::log(tail_bound);
    const double lambda_hi = std::exp(golden_min(
        [&](double t) {
          const double lambda = std::exp(t), k = tilted_cumulant(lambda);
          return std::isfinite(k) ? (k - log_tau) / lambda : kInf;
        },
        kLogLambdaMin, kLogLambdaMax));
    const double lambda_lo = std::exp(golden_min(
        [&](double t) {  // negated, so that golden_min minimises
          const double lambda = std::exp(t), k = tilted_cumulant(-lambda);
          return std::isfinite(k) ? -(log_tau - k) / lambda : kInf;
        },
        kLogLambdaMin, kLogLambdaMax));
    const double k_plus = tilted_cumulant(lambda_hi), k_minus = tilted_cumulant(-lambda_lo);
    double a_hi = largest, a_lo = smallest;
    if (std::isfinite(k_plus)) a_hi = std::min(a_hi, (k_plus - log_tau) / lambda_hi);
    if (std::isfinite(k_minus)) a_lo = std::max(a_lo, (log_tau - k_minus) / lambda_lo);
    // δ queries: the window must reach below the queried ε (the mass below it is certified but
    // counted whole).
    if (!std::isnan(focus.epsilon)) a_lo = std::min(a_lo, std::max(focus.epsilon - h, smallest));
    if (a_lo > a_hi) a_lo = a_hi = 0.5 * (a_lo + a_hi);
    long long j_lo = static_cast<long long>(std::floor((a_lo - result.offset) / h));
    const long long j_hi = static_cast<long long>(std::ceil((a_hi - result.offset) / h));
    const std::size_t needed = static_cast<std::size_t>(std::max<long long>(j_hi - j_lo + 1, 1));
    const std::size_t n = fft_size_for(std::max(needed, longest));
    if (n > max_fft_size)
      throw std::length_error("compose: the composed distribution needs an FFT of " +
                              std::to_string(n) + " points, more than the limit " +
                              std::to_string(max_fft_size) +
                              " (coarser accuracy or a larger limit)");
    result.first = j_lo;
    result.fft_size = n;
    // Certified bounds on the mass outside the final window [first, first + n − 1].
    const double top =
        (static_cast<double>(j_lo + static_cast<long long>(n) - 1) + 0.5) * h + result.offset;
    const double bottom = (static_cast<double>(j_lo) - 0.5) * h + result.offset;
    // Tilted mass outside (it may wrap around in the circular convolution): the optimal λ's
    // certify the edges too (each is a valid Chernoff exponent).
    const double tilted_above = top >= largest || !std::isfinite(k_plus)
                                    ? (top >= largest ? 0.0 : 1.0)
                                    : std::exp(std::min(0.0, k_plus - lambda_hi * top));
    const double tilted_below = bottom <= smallest || !std::isfinite(k_minus)
                                    ? (bottom <= smallest ? 0.0 : 1.0)
                                    : std::exp(std::min(0.0, k_minus + lambda_lo * bottom));
    result.wrap_bound = tilted_above + tilted_below;
    // Original mass above the top: λ = λ_hi + λ_t in P(S ≥ a) ≤ e^{K(λ) − λa}.
    if (top < largest) {
      const double k = cumulant(lambda_hi + tilt);
      result.above_bound =
          std::isfinite(k) ? std::exp(std::min(0.0, k - (lambda_hi + tilt) * top)) : 1.0;
    }
    // Original mass below the bottom (it matters to upper bounds at ε below the window);
    // without a tilt it is the tilted bound already.
    if (tilt == 0) {
      result.below_bound = tilted_below;
    } else if (bottom > smallest) {
      const double mu = std::exp(golden_min(
          [&](double t) {
            const double lambda = std::exp(t), k = cumulant(-lambda);
            return std::isfinite(k) ? k + lambda * bottom : kInf;
          },
          kLogLambdaMin, kLogLambdaMax));
      const double k = cumulant(-mu);
      result.below_bound = std::isfinite(k) ? std::exp(std::min(0.0, k + mu * bottom)) : 1.0;
    }

    // FFT: product of the (tilted) factors' transforms, each raised to its count.
    //
    // Round-off is bounded a priori, component by component (docs/guarantees.md). A transform
    // of n = 2^L points is L levels of butterflies; each level adds an error of at most η times
    // the ℓ₁ norm of its inputs and never amplifies earlier errors (|twiddle| = 1), so every
    // computed coefficient is within E = L·η·‖x‖₁ of the exact one (Higham 2002, Accuracy and
    // Stability of Numerical Algorithms, §24.1, for radix 2: η ≈ 2.2 ulp with exact twiddles).
    // FFTW's codelets are other Cooley–Tukey factorisations with per-level errors of the same
    // order; dpkit assumes η = kFftLevelUlps = 8 ulp. A coefficient X raised to the count c then
    // errs by at most c·E·(|X̂| + E)^{c−1} (|X| ≤ ‖x‖₁ ≤ 1), plus the rounding of log, exp and
    // the trigonometry of the power (relative c·(|log|X̂|| + 6) ulp) and of the products; the
    // inverse transform adds its own L·η·‖P̂‖₁ and passes the spectrum's errors on with weight
    // 1/n each. The result bounds every output point; the negative outputs the exact result
    // would not have give an independent (smaller) estimate, and the larger of the two is used.
    const std::size_t nc = n / 2 + 1;
    fft_workspace& w = workspace(n);
    double* real = w.real.get();
    fftw_complex* spectrum = w.spectrum.get();
    std::vector<std::complex<double>>& product = w.product;
    product.assign(nc, 1.0);
    std::vector<double>& spectrum_error = w.spectrum_error;  // absolute, per coefficient
    spectrum_error.assign(nc, 0.0);
    const double levels = std::log2(static_cast<double>(n));
    for (const pld_factor& f : factors) {
      std::fill(real, real + n, 0.0);
      double input_ulps = 0;  // rounding of the inputs themselves, relative
      if (tilt > 0) {
        // m̃_k = m_k e^{λ_t ℓ_k − κ}, κ = log Σ m_k e^{λ_t ℓ_k}: a probability vector again.
        const double kappa = log_mgf(*f.pld, tilt);
        for (std::size_t k = 0; k < f.pld->mass.size(); ++k) {
          const double m = f.pld->mass[k];
          real[k] = m > 0 ? std::exp(std::log(m) + tilt * f.pld->loss(k) - kappa) : 0.0;
        }
        input_ulps = 4;  // log, the sum, exp: relative to each entry
      } else {
        std::copy(f.pld->mass.begin(), f.pld->mass.end(), real);
      }
      double l1 = 0;
      for (std::size_t k = 0; k < n; ++k) l1 += std::abs(real[k]);
      const double coefficient_error =
          (kFftLevelUlps * levels + input_ulps + 2) * tol::kMachineEps * l1;
      fftw_execute_dft_r2c(w.forward, real, spectrum);
      const double c = static_cast<double>(f.count);
      // |x|^c underflows below e^{−745} when |x|² < e^{−1490/c}: skip log and trigonometry there
      // (most coefficients at large c, since |x| < 1 away from frequency 0).
      const double r2_min = std::exp(-1490.0 / c);
      // The error bound c·E·(|X̂| + E)^{c−1} of a coefficient (the other factors' moduli are
      // bounded by 1 here, |X_g| ≤ ‖x_g‖₁ ≤ 1); for the coefficients below r2_min, one bound
      // for all: |X̂| < e^{−745/c}.
      auto power_error = [&](double log_reach) {
        return c * coefficient_error * (c == 1 ? 1.0 : std::exp((c - 1) * log_reach));
      };
      const double skipped_error =
          power_error(std::min(0.0, std::log(std::exp(-745.0 / c) + coefficient_error)));
      for (std::size_t k = 0; k < nc; ++k) {
        const std::complex<double> x(spectrum[k][0], spectrum[k][1]);
        const double r2 = std::norm(x);
        if (r2 < r2_min) {  // r2 = 0 included
          spectrum_error[k] += skipped_error;
          product[k] = 0.0;
          continue;
        }
        const double log_r2 = std::log(r2), modulus = std::sqrt(r2);
        // log(|X̂| + E) ≤ log|X̂| + E/|X̂| (log(1 + t) ≤ t), capped at 0 (|X| ≤ 1).
        spectrum_error[k] += power_error(std::min(0.0, 0.5 * log_r2 + coefficient_error / modulus));
        if (product[k] == 0.0) continue;
        product[k] *= std::polar(std::exp(0.5 * c * log_r2), c * std::arg(x));
        // The rounding of this power and product, relative to the partial product; later
        // factors (|X_g|^c ≤ 1) do not amplify it.
        spectrum_error[k] +=
            std::abs(product[k]) * (c * (0.5 * std::abs(log_r2) + 6) + 4) * tol::kMachineEps;
      }
    }
    // The full spectrum has the n/2 − 1 inner coefficients twice (Hermitian symmetry). Each
    // coefficient's error e_k reaches a sum of output points through the inverse transform;
    // roundoff_bound weighs it by min(Σa, max a / sin(πk/n)) (prefix and tail sums here).
    double product_l1 = 0;
    const double inv_n = 1.0 / static_cast<double>(n);
    result.spectral_prefix.assign(nc + 1, 0.0);
    result.spectral_tail.assign(nc + 1, 0.0);
    for (std::size_t k = 0; k < nc; ++k) {
      spectrum[k][0] = product[k].real();
      spectrum[k][1] = product[k].imag();
      const double weight = k == 0 || k == nc - 1 ? 1.0 : 2.0;
      const double modulus = std::abs(product[k]);
      product_l1 += weight * modulus;
      // 1.01: second-order terms (products of two error bounds, each ≲ 1e-6 relative).
      const double e = 1.01 * weight * spectrum_error[k] * inv_n;
      result.spectral_prefix[k + 1] = result.spectral_prefix[k] + e;
      // 1/sin x ≤ 1/(x − x³/6) on (0, π/2] (exact to 8 % at π/2, to x²/6 near 0).
      const double x = kPi * static_cast<double>(k) * inv_n;
      result.spectral_tail[k] = k == 0 ? 0.0 : e / (x - x * x * x / 6);
    }
    for (std::size_t k = nc; k-- > 1;) result.spectral_tail[k] += result.spectral_tail[k + 1];
    // The prefix and tail sums round by at most nc ulp relative (≤ 2e-9 for n = 2^24): within
    // the factor 1.01 above.
    fftw_execute_dft_c2r(w.backward, spectrum, real);
    // Unwrap: array position k holds lattice index base + k (mod n); the window starts at j_lo.
    result.mass.resize(n);
    const long long shift =
        ((j_lo - base) % static_cast<long long>(n) + static_cast<long long>(n)) %
        static_cast<long long>(n);
    double most_negative = 0, largest_output = 0;
    for (std::size_t i = 0, k = static_cast<std::size_t>(shift); i < n;
         ++i, k = k + 1 == n ? 0 : k + 1) {
      const double v = real[k] * inv_n;
      result.mass[i] = v;
      most_negative = std::min(most_negative, v);
      largest_output = std::max(largest_output, std::abs(v));
    }
    // Round-off per point (tilted units) besides the spectrum's: the inverse transform's own
    // (L·η·‖P̂‖₁/n) and the scaling's — or, if larger, the largest negative value, which the
    // exact result cannot contain (an independent floor in case the assumptions fail).
    const double pointwise = (kFftLevelUlps * levels + 2) * tol::kMachineEps * product_l1 * inv_n +
                             2 * tol::kMachineEps * largest_output;
    result.roundoff = std::max(pointwise, -most_negative);
    return result;
  };
  if (factors.size() == 1 && factors[0].count == 1) {
    // One step: the discretised step itself, exactly — no window, no FFT, no round-off.
    const discrete_pld& d = *factors[0].pld;
    out.first = d.first;
    out.mass = d.mass;
    out.fft_size = 0;
    return out;
  }
  const double tolerance = std::isnan(focus.tolerance) ? 1e-4 : focus.tolerance;
  if (!std::isnan(focus.delta)) {
    if (focus.delta < kTiltBelow) return build(delta_focus_tilt(), out);
    // Above 1e-9 the plain composition usually suffices; but its round-off bound, summed over
    // every point above the crossing, can exceed δ itself for long runs (T = 1e5: ~2e-13 per
    // point over 1e6 points): tilt then, as for ε queries.
    composed_pld plain = build(0, out);
    const double points = static_cast<double>(plain.mass.size());
    const double fixed = plain.wrap_bound + plain.above_bound;
    if (plain.roundoff_bound(points, 1.0) + fixed <= tolerance * focus.delta) return plain;
    const double crossing = plain.epsilon(focus.delta);
    plain.focus_delta = focus.delta;  // the query will ask again: keep the answer
    plain.focus_epsilon = crossing;
    if (!std::isfinite(crossing)) return build(delta_focus_tilt(), out);
    const double above =
        std::clamp(points - std::ceil((crossing - plain.loss(0)) / h), 0.0, points);
    const double correction = plain.roundoff_bound(above, 1.0) + fixed;
    // What the correction costs in ε: Δε ≈ correction / |δ'(ε)|, with the slope read off the
    // plain composition one cell above the crossing. Keep the plain composition while that is
    // within the tolerance (relative to ε, or absolute below ε = 1).
    const std::array<double, 2> at = {crossing, crossing + h};
    const std::vector<double> d = plain.delta(at);
    const double slope = (d[0] - d[1]) / h;
    if (correction <= tolerance * focus.delta ||
        (slope > 0 && correction / slope <= tolerance * std::max(crossing, 1.0)))
      return plain;
    return build(delta_focus_tilt(), out);
  }
  if (!std::isnan(focus.epsilon) && focus.epsilon > mean) {
    composed_pld plain = build(0, out);
    // Corrections the plain composition applies at ε: round-off per point above ε, and the
    // masses beyond the window.
    std::size_t above = 0;
    for (std::size_t k = 0; k < plain.mass.size(); ++k) above += plain.loss(k) > focus.epsilon;
    const double correction = plain.roundoff_bound(static_cast<double>(above), 1.0) +
                              plain.wrap_bound + plain.above_bound;
    if (correction <= tolerance * plain.delta(focus.epsilon)) return plain;
    return build(epsilon_focus_tilt(), out);
  }
  return build(0, out);
}

// ---------------------------------------------------------------------------------------
double composed_pld::delta(double epsilon) const {
  check_finite("composed_pld::delta", "epsilon", epsilon);
  const std::vector<double> v = delta(std::span<const double>(&epsilon, 1));
  return v[0];
}

std::vector<double> composed_pld::delta(std::span<const double> eps) const {
  constexpr const char* kFn = "composed_pld::delta";
  for (std::size_t j = 0; j < eps.size(); ++j) {
    check_finite(kFn, "epsilon", eps[j]);
    if (j > 0 && eps[j] < eps[j - 1])
      throw_domain_error(kFn, "epsilons", format_value(eps[j]), "in ascending order");
  }
  const bool pessimistic = side == pld_side::pessimistic;
  std::vector<double> out(eps.size());
  // Sweep the lattice downwards and the ε list downwards together. After adding point k,
  // s1 = Σ_{i≥k} p_i and s2 = Σ_{i≥k} p_i e^{ℓ_k − ℓ_i} (p: probabilities, untilted); for
  // ℓ_{k−1} ≤ ε < ℓ_k, δ(ε) = s1 − e^{ε−ℓ_k}·s2 (every exponent ≤ 0). Corrections: round-off
  // r·Σ w_i over the points used; aliasing wrap·max w_i (optimistic); the certified masses
  // beyond the window (pessimistic).
  const double e_minus_h = std::exp(-h);
  const double bottom = loss(0) - h / 2;
  double s1 = 0, s2 = 0, sum_w = 0, last_w = 0;
  double top = kInf;  // ℓ_k of the last point added (+∞: none yet)
  std::size_t j = eps.size();
  auto emit = [&](std::size_t idx) {
    const double sum = top == kInf ? 0.0 : s1 - std::exp(eps[idx] - top) * s2;
    double value = std::max(sum, 0.0);
    if (pessimistic) {
      value += infinity_mass + above_bound + roundoff_bound(sum_w, last_w) +
               (eps[idx] < bottom ? below_bound : 0.0);
    } else {
      value -= roundoff_bound(sum_w, last_w) +
               wrap_bound * (top == kInf ? weight(mass.size() - 1) : last_w);
    }
    value *= pessimistic ? 1 + floating_slack : 1 - floating_slack;
    out[idx] = std::clamp(value, 0.0, 1.0);
  };
  for (std::size_t i = mass.size(); i-- > 0;) {
    const double l = loss(i);
    while (j > 0 && eps[j - 1] >= l) emit(--j);  // these ε see only the points above l
    if (j == 0) break;
    const double w = weight(i);
    const double p = probability(i);
    s2 = top == kInf ? p : p + e_minus_h * s2;
    s1 += p;
    sum_w += w;
    last_w = w;
    top = l;
  }
  while (j > 0) emit(--j);
  return out;
}

double composed_pld::epsilon(double requested) const {
  check_open_probability("composed_pld::epsilon", "delta", requested);
  if (requested == focus_delta) return focus_epsilon;
  const bool pessimistic = side == pld_side::pessimistic;
  // The floating-point slack of delta(): δ_up·(1 + s) ≤ δ ⇔ δ_up ≤ δ/(1 + s), and so on.
  const double target = requested / (pessimistic ? 1 + floating_slack : 1 - floating_slack);
  // On ε ∈ [ℓ_{k−1}, ℓ_k): δ(ε) = c + S1 − e^{ε−ℓ_{k−1}}·S2 ± corrections, with suffix sums over
  // i ≥ k of the (untilted) probabilities, S1 = Σ p_i and the scaled S2 = Σ p_i e^{ℓ_{k−1} − ℓ_i}
  // (every exponent ≤ 0: no overflow for ε beyond 709, where e^ε itself is not a double).
  // Moving down one lattice point: S2(k) = e^{−h}(p_k + S2(k+1)). Corrections as in delta().
  const double constant = pessimistic ? infinity_mass + above_bound : 0.0;
  if (pessimistic && constant >= target) return kInf;  // the corrections alone exceed δ
  const double e_minus_h = std::exp(-h);
  double s1 = 0, s2 = 0, sum_w = 0;
  for (std::size_t i = mass.size(); i-- > 0;) {
    const double l = loss(i);
    if (l <= 0) return 0.0;  // δ(0) is already ≤ target
    const double w = weight(i);
    const double p = probability(i);
    s1 += p;
    s2 = e_minus_h * (p + s2);
    sum_w += w;
    const double below = l - h;  // ℓ_{k−1}
    // Corrections on [ℓ_{k−1}, ℓ_k): the points ≥ ℓ_k are used; below the window (i = 0), the
    // pessimistic side adds the certified mass there.
    const double correction = pessimistic ? roundoff_bound(sum_w, w) + (i == 0 ? below_bound : 0.0)
                                          : -(roundoff_bound(sum_w, w) + wrap_bound * w);
    const double at_below = constant + s1 - s2 + correction;
    if (at_below > target || below <= 0) {
      // The crossing lies in [max(ℓ_{k−1}, 0), ℓ_k): solve c + S1 + corr − e^t S2 = δ,
      // t = ε − ℓ_{k−1}.
      const double rest = constant + s1 + correction - target;
      // rest ≤ 0 (possible only when below ≤ 0): the bound of δ is ≤ target on all of
      // [max(ℓ_{k−1}, 0), ℓ_k). Pessimistic: every ε there is certified, the smallest is
      // max(ℓ_{k−1}, 0). Optimistic: no ε ≥ 0 has a lower δ bound above the target, so the
      // lower bound on ε is 0 (returning ℓ_k here once claimed ε ≥ h where the exact ε was 0).
      if (!(rest > 0)) return pessimistic ? std::max(below, 0.0) : 0.0;
      const double t = s2 > 0 ? std::log(rest / s2) : kInf;
      const double eps = std::clamp(below + t, std::max(below, 0.0), l);
      if (at_below > target || eps > 0) return eps;
      return 0.0;
    }
  }
  // No crossing above 0 inside the window: δ(ε) ≤ target down to the window's bottom (or 0).
  // Upper bound: the bottom is valid (its correction included above); lower bound: 0 is.
  if (pessimistic && !mass.empty()) return std::max(0.0, loss(0) - h);
  return 0.0;
}

}  // namespace dpkit::accounting
