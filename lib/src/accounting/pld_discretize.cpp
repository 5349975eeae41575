// The discretisation of one step's privacy loss onto the grid (pld.hpp: discretize,
// discretize_both): the pessimistic side by connect-the-dots, the optimistic side by a
// contraction onto the lattice. Composition is in pld.cpp.
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "dpkit/accounting/pld.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/tolerance.hpp"

namespace dpkit::accounting {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

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
  // The lattice indices must be exact as doubles (below 2^53: the losses (first + k)·h are
  // computed from them). The accountant keeps h above the run's losses/2^50 (lattice_floor), so
  // this refuses only a caller's own too fine grid — before the casts, which are undefined
  // behaviour out of range.
  if (!(std::abs(y_lo / h) < 0x1p52 && std::abs(y_hi / h) < 0x1p52))
    throw std::length_error(
        "discretize: the losses' lattice indices at this grid spacing are "
        "beyond 2^52 (a coarser grid)");
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

// Below this, a mass computed from normal tails has lost its relative accuracy: erfc returns
// subnormal numbers (or 0) once the tail passes 2.2e-308. A half-cell's X-mass E_P[e^{−Y}; cell]
// = P(cell)·e^{−mean loss} underflows far in the upper tail whatever P(cell) is — at σ = 0.03
// the loss reaches 700 at δ = 1e-10, and the Gaussian tail behind the X-mass is ~e^{−780} — so
// there the cell's mean loss, log(p/q), is not known. It is known to lie in the half-cell
// (b_k, b_{k+1}] (every loss in it does): each side then takes the end that is safe for it —
// the optimistic side the lower edge, the pessimistic side the upper edge. (Read as 0, such an
// X-mass once put the mean at +∞, and the optimistic side placed the mass above its true mean:
// lower bounds up to 2.7e-4 above the exact ε at one step, σ ≤ 0.03.)
constexpr double kKnownMass = 1e-290;

// The relative error of a cell's P- and X-masses (differences of normal CDFs, in the tails
// ~1e-13: subsampling/detail/normal_cells.hpp), with a factor 10 of room.
constexpr double kSplitRounding = 1e-12;

bool x_mass_known(double q) {
  return q >= kKnownMass;
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
  // e^{ℓ_i}·(X-mass) of the half-cells (ℓ_i, ℓ_i + h/2] and (ℓ_i + h/2, ℓ_i + h]; where the
  // X-mass is not known (x_mass_known), its smallest value p·e^{−(upper edge)}: less X-mass
  // moves more of m to ℓ_{i+1}, so the split still dominates the cell's law.
  const double half_down = std::exp(-0.5 * c.h), full_down = std::exp(-c.h);
  auto scaled_x_mass = [&](std::size_t k, double li, double down) {
    return x_mass_known(c.q[k]) ? scale_by_exp(c.q[k], li) : c.p[k] * down;
  };
  for (long long i = c.i_lo; i < c.i_hi; ++i) {
    const std::size_t j = static_cast<std::size_t>(i - c.i_lo);
    const double m = c.p[2 * j + 1] + c.p[2 * j + 2];
    if (m == 0) continue;
    // Split m between ℓ_i and ℓ_{i+1} keeping E[e^{−Y}] = s: top·e^{−ℓ_{i+1}} + (m − top)e^{−ℓ_i} =
    // s.
    const double li = static_cast<double>(i) * c.h;
    const double s_scaled =
        scaled_x_mass(2 * j + 1, li, half_down) + scaled_x_mass(2 * j + 2, li, full_down);
    // m − s_scaled = E_P[1 − e^{ℓ_i − Y}; cell] is a difference of two nearly equal masses
    // where the losses are far below the cell (|Y| ≲ 1e-13: sampling rates near 1e-80, whose
    // δ(0) ~ q is far below the cell's mass): it is computed with the masses' relative error,
    // ≤ kSplitRounding of each, and rounded up by that much, so that the split still dominates
    // (the tiny losses' δ once vanished: upper bound 0 for an exact ε of 1.2e-81). Elsewhere the
    // shift is ≤ 1e-12 of each cell's mass, moved one cell up: ~1e-12 of δ, within the slack.
    const double top =
        std::clamp((m - s_scaled + kSplitRounding * (m + s_scaled)) / one_minus_e, 0.0, m);
    d.mass[j] += m - top;
    d.mass[j + 1] += top;
  }
  // Above ℓ_hi (the last half-cell and the tail): to +∞.
  d.infinity_mass = c.p.back() + c.above.p;
  return d;
}

// The optimistic side (see pld.hpp): a contraction of X = e^{−Y} (each group of mass replaced
// by its conditional X-mean: E φ(X) can only decrease, φ convex), then Y rounded down onto the
// lattice ℓ_i = i·h + θ (φ decreasing: δ decreases again). Several groupings are built and the
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
//              stays local. Smooth densities: no rounding at all, whatever θ. One sweep over the
//              whole axis is tried in each direction at four shifts θ (build_optimistic); where
//              none is exact, two sweeps meet at the heaviest half-cell and θ is searched for.
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

// The mean loss of a group of P-mass p and X-mass q: −log of its conditional X-mean.
double mean_loss(double p, double q) {
  return q > 0 ? std::log(p / q) : kInf;
}

// The lower edge of half-cell k, in half-steps h/2 (what group_sweep::add takes).
long long half_step(const half_cells& c, std::size_t k) {
  return 2 * c.i_lo - 1 + static_cast<long long>(k);
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
  /// A group of P-mass p and X-mass q at the lattice point at or below its mean loss; returns
  /// the rounding per unit mass (mean − placed loss; 0 for a mean at +∞).
  double place_below(double p, double q) {
    const double y = mean_loss(p, q);
    const long long i = std::min(floor_of(y), top_);
    place(i, p, y);
    return std::isfinite(y) ? y - at(i) : 0.0;
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
    const double mid = (static_cast<double>(half_step(c, k)) + 0.5) * c.h / 2;
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
  group_sweep down(lattice, true), up(lattice, false);
  down.add(c.above.p, c.above.q, 0.0, group_sweep::kAbove);
  for (std::size_t k = n; k-- > mode + 1;) down.add(c.p[k], c.q[k], qm[k], half_step(c, k));
  for (std::size_t k = 0; k < mode; ++k) up.add(c.p[k], c.q[k], qm[k], half_step(c, k));
  const auto [p1, q1] = down.open_group();
  const auto [p2, q2] = up.open_group();
  const double P = p1 + p2 + c.p[mode], Q = q1 + q2 + c.q[mode];
  excess = P > 0 ? lattice.place_below(P, Q) : 0.0;
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
  group_sweep s(lattice, downwards);
  if (downwards) {
    s.add(c.above.p, c.above.q, 0.0, group_sweep::kAbove);
    for (std::size_t k = n; k-- > 0;) s.add(c.p[k], c.q[k], qm[k], half_step(c, k));
  } else {
    for (std::size_t k = 0; k < n; ++k) s.add(c.p[k], c.q[k], qm[k], half_step(c, k));
    s.add(c.above.p, c.above.q, 0.0, group_sweep::kAbove);
  }
  const auto [P, Q] = s.open_group();
  if (P > 0) lattice.place_below(P, Q);
  return std::move(lattice.result());
}

// A half-cell (or the mass above the window) whose X-mass is not known (x_mass_known): its
// P-mass and the lower edge of its losses.
struct unknown_mean {
  double p = 0;
  double edge = 0;
};

// The half-cells whose means are not known, taken out of c (their masses set to 0): the
// groupings cannot use them. So are half-cells whose P-mass has lost its relative accuracy
// (below kKnownMass): they are left out, i.e. sent to −∞ (`dropped`), which only lowers δ.
std::vector<unknown_mean> take_unknown_means(half_cells& c, double& dropped) {
  std::vector<unknown_mean> out;
  for (std::size_t k = 0; k < c.p.size(); ++k) {
    if (c.p[k] == 0 || (x_mass_known(c.q[k]) && c.p[k] >= kKnownMass)) continue;
    if (c.p[k] < kKnownMass) {
      dropped += c.p[k];
    } else {
      out.push_back({c.p[k], static_cast<double>(half_step(c, k)) * c.h / 2});
    }
    c.p[k] = 0, c.q[k] = 0;
  }
  if (c.above.p > 0 && !x_mass_known(c.above.q)) {
    // Above the window: every loss is above its upper edge.
    out.push_back({c.above.p, static_cast<double>(half_step(c, c.p.size())) * c.h / 2});
    c.above = {};
  }
  return out;
}

discrete_pld build_optimistic_known(const half_cells& c);

// The optimistic side: the half-cells whose means are known are grouped (build_optimistic_known);
// each of the others is a group on its own, placed at the lattice point at or below the lower
// edge of its losses — at or below its mean, as every group must be.
discrete_pld build_optimistic(const half_cells& cells) {
  half_cells c = cells;
  double dropped = 0;
  const std::vector<unknown_mean> unknown = take_unknown_means(c, dropped);
  discrete_pld d = build_optimistic_known(c);
  d.dropped_mass += dropped;
  for (const unknown_mean& u : unknown) {
    const double index = std::floor((u.edge - placement_margin(u.edge) - d.offset) / d.h);
    const double v = index - static_cast<double>(d.first);
    if (v < 0) {
      d.dropped_mass += u.p;
      continue;
    }
    const auto slot = static_cast<std::size_t>(v);
    if (slot >= d.mass.size()) d.mass.resize(slot + 1, 0.0);
    d.mass[slot] += u.p;
  }
  return d;
}

discrete_pld build_optimistic_known(const half_cells& c) {
  discrete_pld d;
  d.side = pld_side::optimistic;
  d.h = c.h;
  double theta = 0;
  grouping best = cell_grouping(c, theta);
  const double cells_theta = theta;
  const std::vector<double> qm = midpoint_scaled(c);
  // One-sided sweeps first, upwards and downwards, each at four lattice shifts: a sweep rounds
  // only where a group cannot reach its target within about a cell (where the density falls
  // steeply in the sweep's direction), and whether it must depends on where the lattice falls —
  // at q = 0.001, σ = 0.8 the upward sweep is exact (rounding ~1e-17) for 3 shifts in 4 and
  // rounds 0.2 h for the others. The scan stops at the first exact one.
  const double exact = 1e-9 * c.h;
  for (const bool downwards : {false, true}) {
    for (const double k : {-0.375, -0.125, 0.125, 0.375}) {
      if (best.rounding <= exact) break;
      grouping g = one_sided_grouping(c, qm, k * c.h, downwards);
      if (g.rounding < best.rounding) best = std::move(g), theta = k * c.h;
    }
  }
  // Where no one-sided sweep is exact (a mass piled against an edge of the support, with the
  // lattice falling badly on it), the two-sided grouping: it rounds only its merged group
  // (where the sweeps meet), by an amount that depends on where the lattice falls, and θ is
  // moved until a lattice point sits just below that group's mean. The groups shift with θ, so
  // this is a root search for g(θ) = (mean − lattice point) ∈ [0, h), read as g − h once it
  // passes h/2 (the point went past the mean), aiming at g = 1e-6·h (a root approached from
  // below would leave the point just above the mean, and the group a whole cell lower): secant
  // steps, kept inside the bracket once both signs are seen (regula falsi), from the cells' θ
  // and from 0, at most 8 sweeps each. The grouping that rounds least is kept.
  const double aim = 1e-6 * c.h;
  // Rounding below 1e-4·h per step is left as it is (each sweep costs about what the cells'
  // CDFs cost).
  const double good_enough = 1e-4 * c.h;
  for (const double start : {cells_theta, 0.0}) {
    if (best.rounding <= good_enough) break;
    double shift = start;
    double a = NAN, ga = NAN, b = NAN, gb = NAN;  // bracket: g(a) ≥ aim > g(b)
    double prev = NAN, gprev = NAN;
    for (int k = 0; k < 8; ++k) {
      double excess = 0;
      const double wrapped = shift - c.h * std::round(shift / c.h);  // θ in [−h/2, h/2]: the
      grouping g = two_sided_grouping(c, qm, wrapped, excess);       // same lattice
      if (g.rounding < best.rounding) best = std::move(g), theta = wrapped;
      const double gk = (excess < 0.5 * c.h ? excess : excess - c.h) - aim;
      if (gk >= 0 && gk <= 10 * aim) break;  // within 1.1e-5·h of the mean
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

}  // namespace

namespace {

half_cells checked_half_cells(const subsampling::privacy_loss& loss, double h, double tail_mass) {
  // Below 1e-10 the rounding of the cells' conditional means (~1e-16 absolute) is no longer
  // small against h, and the two sides stop being bounds (pld_accountant.cpp).
  if (!(h >= 1e-10 && std::isfinite(h)))
    throw_domain_error("discretize", "h", h, ">= 1e-10 and finite");
  if (!(tail_mass > 0 && tail_mass <= 1e-3))
    throw_domain_error("discretize", "tail_mass", tail_mass, "in (0, 1e-3]");
  return compute_half_cells(loss, h, tail_mass);
}

}  // namespace

discrete_pld discretize(const subsampling::privacy_loss& loss,
                        double h,
                        pld_side side,
                        double tail_mass) {
  const half_cells c = checked_half_cells(loss, h, tail_mass);
  discrete_pld d = side == pld_side::pessimistic ? build_pessimistic(c) : build_optimistic(c);
  trim(d);
  return d;
}

std::pair<discrete_pld, discrete_pld> discretize_both(const subsampling::privacy_loss& loss,
                                                      double h,
                                                      double tail_mass) {
  const half_cells c = checked_half_cells(loss, h, tail_mass);
  std::pair<discrete_pld, discrete_pld> out(build_pessimistic(c), build_optimistic(c));
  trim(out.first);
  trim(out.second);
  return out;
}

}  // namespace dpkit::accounting
