#include "dpkit/subsampling/privacy_loss.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <utility>

#include "dpkit/core/check.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "subsampling/detail/normal_cells.hpp"

namespace dpkit::subsampling {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// P(Y > y) as a function of y is non-increasing; bisection on log-probability (robust where
// it underflows to −∞, unlike interpolating root finders).
template <class Tail>
double bisect_tail(Tail tail_log_probability, double log_tau, double lo, double hi) {
  for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, std::abs(hi)); ++i) {
    const double mid = 0.5 * (lo + hi);
    (tail_log_probability(mid) > log_tau ? lo : hi) = mid;
  }
  return hi;
}

// The inverse of y = log(1 − q + q·e^s) in s: s(y) = log(1 + (e^y − 1)/q), defined for
// y > log(1 − q). Used by both subsampled mechanisms (s is the Gaussian log-likelihood ratio).
double mixture_log_ratio_inverse(double y, double q) {
  if (y == kInf) return kInf;
  if (q == 1) return y;
  if (y <= std::log1p(-q)) return -kInf;
  // For y > 1, e^y − 1 + q = e^y(1 + (q − 1)e^{−y}) avoids overflow of expm1.
  if (y > 1) return y + std::log1p((q - 1) * std::exp(-y)) - std::log(q);
  return std::log1p(std::expm1(y) / q);
}

// ---------------------------------------------------------------------------------------
class gaussian_privacy_loss final : public privacy_loss {
 public:
  explicit gaussian_privacy_loss(double mu) : mu_(mu) {}

  loss_mass mass(double a, double b) const override {
    if (mu_ == 0) {
      const double m = (a < 0 && 0 <= b) ? 1.0 : 0.0;
      return {m, m};
    }
    // Y ~ N(μ²/2, μ²) under P and N(−μ²/2, μ²) under Q.
    const double m = 0.5 * mu_ * mu_;
    return {normal_interval((a - m) / mu_, (b - m) / mu_),
            normal_interval((a + m) / mu_, (b + m) / mu_)};
  }
  void interval_masses(std::span<const double> cuts,
                       std::vector<loss_mass>& cells,
                       loss_mass& below,
                       loss_mass& above) const override {
    if (mu_ == 0) return privacy_loss::interval_masses(cuts, cells, below, above);
    const double m = 0.5 * mu_ * mu_;
    std::vector<double> up(cuts.size()), uq(cuts.size());
    for (std::size_t k = 0; k < cuts.size(); ++k) {
      up[k] = (cuts[k] - m) / mu_;
      uq[k] = (cuts[k] + m) / mu_;
    }
    const detail::normal_cells p(up), q(uq);
    cells.resize(cuts.size() - 1);
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) cells[k] = {p.cell(k), q.cell(k)};
    below = {p.below(), q.below()};
    above = {p.above(), q.above()};
  }
  double support_lower() const override { return mu_ == 0 ? 0.0 : -kInf; }
  double support_upper() const override { return mu_ == 0 ? 0.0 : kInf; }
  double delta(double epsilon) const override { return divergence::gdp_delta(mu_, epsilon); }
  std::string describe() const override { return "Gaussian G(" + format_value(mu_) + ")"; }

 private:
  double mu_;
};

// ---------------------------------------------------------------------------------------
// Poisson subsampling, add/remove adjacency. With s(x) = (2x − 1)/(2σ²) the likelihood ratio
// of the remove pair is L(x) = log(1 − q + q e^{s(x)}), increasing in x, and
// x(y) = σ² s⁻¹(y) + 1/2.
class poisson_gaussian_privacy_loss final : public privacy_loss {
 public:
  poisson_gaussian_privacy_loss(double sigma, double q, adjacency_direction d)
      : sigma_(sigma), q_(q), direction_(d) {}

  loss_mass mass(double a, double b) const override {
    if (direction_ == adjacency_direction::remove) {
      // Y = L(x): P = (1−q)N(0,σ²) + qN(1,σ²), Q = N(0,σ²).
      const double base = normal_interval(standardized(a, 0), standardized(b, 0));
      const double shifted = normal_interval(standardized(a, 1), standardized(b, 1));
      return {(1 - q_) * base + q_ * shifted, base};
    }
    // add: Y = −L(x) with P = N(0,σ²), Q = the mixture; Y ∈ (a, b] ⟺ x ∈ [x(−b), x(−a)).
    const double base = normal_interval(standardized(-b, 0), standardized(-a, 0));
    const double shifted = normal_interval(standardized(-b, 1), standardized(-a, 1));
    return {base, (1 - q_) * base + q_ * shifted};
  }
  void interval_masses(std::span<const double> cuts,
                       std::vector<loss_mass>& cells,
                       loss_mass& below,
                       loss_mass& above) const override {
    const std::size_t n = cuts.size();
    // x-space cut points, increasing: remove maps y ↦ x(y); add maps y ↦ x(−y), decreasing,
    // so it is stored reversed (Y ∈ (b_k, b_{k+1}] ⟺ x ∈ [x(−b_{k+1}), x(−b_k))).
    const bool remove = direction_ == adjacency_direction::remove;
    std::vector<double> u(n), v(n);
    for (std::size_t k = 0; k < n; ++k) {
      const double y = remove ? cuts[k] : -cuts[n - 1 - k];
      u[k] = standardized(y, 0);
      v[k] = standardized(y, 1);
    }
    const detail::normal_cells base(u), shifted(v);
    cells.resize(n - 1);
    for (std::size_t k = 0; k + 1 < n; ++k) {
      const std::size_t j = remove ? k : n - 2 - k;
      const double b = base.cell(j), s = shifted.cell(j);
      const double mixture = (1 - q_) * b + q_ * s;
      cells[k] = remove ? loss_mass{mixture, b} : loss_mass{b, mixture};
    }
    const double b_lo = base.below(), s_lo = shifted.below(), b_hi = base.above(),
                 s_hi = shifted.above();
    const loss_mass x_low{(1 - q_) * b_lo + q_ * s_lo, b_lo},
        x_high{(1 - q_) * b_hi + q_ * s_hi, b_hi};
    if (remove) {
      below = x_low;
      above = x_high;
    } else {  // small x is large Y
      below = {x_high.q, x_high.p};
      above = {x_low.q, x_low.p};
    }
  }
  double support_lower() const override {
    return direction_ == adjacency_direction::remove ? std::log1p(-q_) : -kInf;
  }
  double support_upper() const override {
    return direction_ == adjacency_direction::remove ? kInf : -std::log1p(-q_);
  }
  std::string describe() const override {
    return std::string("Poisson-subsampled Gaussian (sigma = ") + format_value(sigma_) +
           ", q = " + format_value(q_) +
           (direction_ == adjacency_direction::remove ? ", remove)" : ", add)");
  }

 private:
  // (x(y) − shift)/σ, the point x(y) in the units of N(shift, σ²). Formed as (σ²s + 1/2 − shift)/σ
  // while σ² is finite; beyond σ ≈ 1.3e154 σ² overflows (σ = 1e155 gave "b is nan" from ∞·0),
  // so it is σs + (1/2 − shift)/σ there, the same value up to rounding.
  double standardized(double y, double shift) const {
    if (y == -kInf) return -kInf;
    const double s = mixture_log_ratio_inverse(y, q_);
    if (std::isinf(s)) return s;
    if (std::isfinite(sigma_ * sigma_)) return (sigma_ * sigma_ * s + 0.5 - shift) / sigma_;
    return sigma_ * s + (0.5 - shift) / sigma_;
  }
  double sigma_, q_;
  adjacency_direction direction_;
};

// ---------------------------------------------------------------------------------------
// C_p(G(μ)) (BSA24 Def 4.7). With A = N(0,1), B = (1−p)N(0,1) + pN(μ,1) and
// L(x) = log(1 − p + p e^{μx − μ²/2}), the privacy loss of Prop D.4 is
//   Y = L(x), x ~ B, on (0, ∞);  Y = −L(x), x ~ A, on (−∞, 0);  atom (1−p)(Φ(μ/2) − Φ(−μ/2)) at 0.
// (Check: F_Y matches Prop D.4 on both half-lines, and the three parts sum to 1.) The curve
// is symmetric, so Q(Y ∈ (a, b]) = P(Y ∈ [−b, −a)).
class symmetric_subsampled_gaussian_privacy_loss final : public privacy_loss {
 public:
  symmetric_subsampled_gaussian_privacy_loss(double mu, double p)
      : mu_(mu), p_(p), atom_((1 - p) * normal_interval(-0.5 * mu, 0.5 * mu)) {}

  loss_mass mass(double a, double b) const override {
    // Q((a, b]) = P([−b, −a)): the continuous parts do not care about the endpoints; the atom
    // at 0 belongs to (a, b] under both laws exactly when a < 0 ≤ b.
    const double atom = (a < 0 && 0 <= b) ? atom_ : 0.0;
    return {continuous_p_mass(a, b) + atom, continuous_p_mass(-b, -a) + atom};
  }
  void interval_masses(std::span<const double> cuts,
                       std::vector<loss_mass>& cells,
                       loss_mass& below,
                       loss_mass& above) const override {
    const std::size_t n = cuts.size();
    const std::vector<double> p = continuous_p_cells(cuts);
    std::vector<double> mirrored(n);  // Q((b_k, b_{k+1}]) = P([−b_{k+1}, −b_k)) by symmetry
    for (std::size_t k = 0; k < n; ++k) mirrored[k] = -cuts[n - 1 - k];
    const std::vector<double> q = continuous_p_cells(mirrored);
    cells.resize(n - 1);
    for (std::size_t k = 0; k + 1 < n; ++k) {
      const double atom = (cuts[k] < 0 && 0 <= cuts[k + 1]) ? atom_ : 0.0;  // same cell for P and Q
      cells[k] = {p[k] + atom, q[n - 2 - k] + atom};
    }
    below = mass(-kInf, cuts.front());
    above = mass(cuts.back(), kInf);
  }
  // Y = L(x) > 0 is unbounded above, and −L(x) < 0 unbounded below.
  double support_lower() const override { return p_ == 0 ? 0.0 : -kInf; }
  double support_upper() const override { return p_ == 0 ? 0.0 : kInf; }
  double delta(double epsilon) const override {
    // From the proof of BSA24 Prop D.4: for ε ≥ 0, δ(ε) = p·δ_G(μ)(log(1 + (e^ε − 1)/p)); symmetric
    // below 0.
    if (epsilon >= 0)
      return p_ * divergence::gdp_delta(mu_, mixture_log_ratio_inverse(epsilon, p_));
    return 1 - std::exp(epsilon) * (1 - delta(-epsilon));
  }
  std::string describe() const override {
    return "C_p(G(mu)) with mu = " + format_value(mu_) + ", p = " + format_value(p_);
  }

 private:
  double x_of(double y) const {  // L(x) = y ⟺ μx − μ²/2 = s⁻¹(y)
    const double s = mixture_log_ratio_inverse(y, p_);
    return std::isinf(s) ? s : (s + 0.5 * mu_ * mu_) / mu_;
  }
  // The continuous part of P(Y ∈ (b_k, b_{k+1}]) for increasing cuts: the positive branch on
  // x(max(b, 0)), the negative branch on x(−min(b, 0)) (non-increasing in b, hence reversed).
  std::vector<double> continuous_p_cells(std::span<const double> cuts) const {
    const std::size_t n = cuts.size();
    std::vector<double> u(n), v(n), w(n);
    for (std::size_t k = 0; k < n; ++k) {
      u[k] = x_of(std::max(cuts[k], 0.0));
      v[k] = u[k] - mu_;
      w[n - 1 - k] = x_of(-std::min(cuts[k], 0.0));
    }
    const detail::normal_cells positive_a(u), positive_b(v), negative(w);
    std::vector<double> out(n - 1);
    for (std::size_t k = 0; k + 1 < n; ++k) {
      double m = 0;
      if (cuts[k + 1] > 0) m += (1 - p_) * positive_a.cell(k) + p_ * positive_b.cell(k);
      if (cuts[k] < 0) m += negative.cell(n - 2 - k);
      out[k] = m;
    }
    return out;
  }
  // The continuous part of P(Y ∈ (a, b]) under the symmetric law (a ≤ b).
  double continuous_p_mass(double a, double b) const {
    double total = 0;
    // Positive part: L(x) ∈ (max(a,0), b], x ~ B.
    if (b > 0) {
      const double lo = x_of(std::max(a, 0.0)), hi = x_of(b);
      total += (1 - p_) * normal_interval(lo, hi) + p_ * normal_interval(lo - mu_, hi - mu_);
    }
    // Negative part: −L(x) ∈ (a, min(b,0)) ⟺ L(x) ∈ (−min(b,0), −a), x ~ A.
    if (a < 0) {
      const double lo = x_of(-std::min(b, 0.0)), hi = x_of(-a);
      total += normal_interval(lo, hi);
    }
    return total;
  }
  double mu_, p_, atom_;
};

// ---------------------------------------------------------------------------------------
// Poisson subsampling, replace-one adjacency: P = (1−q)N(0,σ²) + qN(−1,σ²), Q = (1−q)N(0,σ²) +
// qN(1,σ²). With u = x/σ² the loss is
//   L(x) = log(1 − q + q e^{−u − 1/(2σ²)}) − log(1 − q + q e^{u − 1/(2σ²)}),
// decreasing in x, and e^y = (1−q+qc e^{−u})/(1−q+qc e^{u}) (c = e^{−1/(2σ²)}) rearranges to
// sinh(u + y/2) = −α sinh(y/2), α = (1−q)/(qc): x(y) = σ²(asinh(−α sinh(y/2)) − y/2).
class poisson_replace_one_privacy_loss final : public privacy_loss {
 public:
  poisson_replace_one_privacy_loss(double sigma, double q)
      : sigma_(sigma), q_(q), log_alpha_(std::log1p(-q) - std::log(q) + 0.5 / (sigma * sigma)) {}

  loss_mass mass(double a, double b) const override {
    // Y ∈ (a, b] ⟺ x ∈ [x(b), x(a)).
    const double base = normal_interval(standardized(b, 0), standardized(a, 0));
    return {(1 - q_) * base + q_ * normal_interval(standardized(b, 1), standardized(a, 1)),
            (1 - q_) * base + q_ * normal_interval(standardized(b, -1), standardized(a, -1))};
  }
  void interval_masses(std::span<const double> cuts,
                       std::vector<loss_mass>& cells,
                       loss_mass& below,
                       loss_mass& above) const override {
    const std::size_t n = cuts.size();
    // x decreases in y: the x-cuts in increasing order are x(b_{n−1}), …, x(b_0).
    std::vector<double> u(n), up(n), down(n);
    for (std::size_t k = 0; k < n; ++k) {
      const double y = cuts[n - 1 - k];
      u[k] = standardized(y, 0);
      up[k] = standardized(y, 1);
      down[k] = standardized(y, -1);
    }
    const detail::normal_cells base(u), p_shift(up), q_shift(down);
    auto pair = [&](double b, double ps, double qs) {
      return loss_mass{(1 - q_) * b + q_ * ps, (1 - q_) * b + q_ * qs};
    };
    cells.resize(n - 1);
    for (std::size_t k = 0; k + 1 < n; ++k) {
      const std::size_t j = n - 2 - k;  // Y ∈ (b_k, b_{k+1}] ⟺ x in the x-cell j
      cells[k] = pair(base.cell(j), p_shift.cell(j), q_shift.cell(j));
    }
    below = pair(base.above(), p_shift.above(), q_shift.above());  // Y ≤ b_0: x ≥ x(b_0)
    above = pair(base.below(), p_shift.below(), q_shift.below());  // Y > b_{n−1}: x < x(b_{n−1})
  }
  double support_lower() const override { return -kInf; }
  double support_upper() const override { return kInf; }
  std::string describe() const override {
    return "Poisson-subsampled Gaussian (sigma = " + format_value(sigma_) +
           ", q = " + format_value(q_) + ", replace-one)";
  }

 private:
  // (x(y) + shift)/σ, formed as (σ²w + shift)/σ with w = x(y)/σ² while σ² is finite and as
  // σw + shift/σ beyond σ ≈ 1.3e154, where σ² overflows (the same value up to rounding).
  double standardized(double y, double shift) const {
    const double w = scaled_x(y);
    if (std::isinf(w)) return w;
    if (std::isfinite(sigma_ * sigma_)) return (sigma_ * sigma_ * w + shift) / sigma_;
    return sigma_ * w + shift / sigma_;
  }
  // x(y)/σ² in log space: α = e^{log α} may overflow (small σ) and sinh(y/2) does for large y.
  double scaled_x(double y) const {
    if (y == kInf) return -kInf;
    if (y == -kInf) return kInf;
    if (y == 0) return 0;
    const double h = 0.5 * std::abs(y);
    // log sinh(h), h > 0
    const double log_sinh =
        h < 1 ? std::log(std::sinh(h)) : h + std::log1p(-std::exp(-2 * h)) - std::log(2.0);
    const double log_z = log_alpha_ + log_sinh;  // log |α sinh(y/2)|
    double asinh_abs = 0;
    if (log_z > 20)
      asinh_abs = log_z + std::log(2.0);  // asinh(z) = log(2z) + O(z^-2), z > e^20
    else if (log_z < -20)
      asinh_abs = std::exp(log_z);  // asinh(z) = z + O(z^3)
    else
      asinh_abs = std::asinh(std::exp(log_z));
    // asinh(−α sinh(y/2)) has the sign of −y.
    return (y > 0 ? -asinh_abs : asinh_abs) - 0.5 * y;
  }
  double sigma_, q_, log_alpha_;
};

// ---------------------------------------------------------------------------------------
// The disjoint mixture w·A + (1 − w)·B of two pairs (the output says which one it came from).
class mixture_privacy_loss final : public privacy_loss {
 public:
  mixture_privacy_loss(double w,
                       std::shared_ptr<const privacy_loss> a,
                       std::shared_ptr<const privacy_loss> b)
      : w_(w), a_(std::move(a)), b_(std::move(b)) {}

  loss_mass mass(double lo, double hi) const override {
    const loss_mass x = a_->mass(lo, hi), y = b_->mass(lo, hi);
    return {w_ * x.p + (1 - w_) * y.p, w_ * x.q + (1 - w_) * y.q};
  }
  void interval_masses(std::span<const double> cuts,
                       std::vector<loss_mass>& cells,
                       loss_mass& below,
                       loss_mass& above) const override {
    std::vector<loss_mass> other;
    loss_mass other_below, other_above;
    a_->interval_masses(cuts, cells, below, above);
    b_->interval_masses(cuts, other, other_below, other_above);
    auto mix = [&](loss_mass& x, const loss_mass& y) {
      x.p = w_ * x.p + (1 - w_) * y.p;
      x.q = w_ * x.q + (1 - w_) * y.q;
    };
    for (std::size_t k = 0; k < cells.size(); ++k) mix(cells[k], other[k]);
    mix(below, other_below);
    mix(above, other_above);
  }
  double support_lower() const override {
    return std::min(a_->support_lower(), b_->support_lower());
  }
  double support_upper() const override {
    return std::max(a_->support_upper(), b_->support_upper());
  }
  double delta(double epsilon) const override {
    return w_ * a_->delta(epsilon) + (1 - w_) * b_->delta(epsilon);
  }
  std::string describe() const override {
    return "with probability " + format_value(w_) + ": " + a_->describe() + "; otherwise " +
           b_->describe();
  }

 private:
  double w_;
  std::shared_ptr<const privacy_loss> a_, b_;
};

}  // namespace

void privacy_loss::interval_masses(std::span<const double> cuts,
                                   std::vector<loss_mass>& cells,
                                   loss_mass& below,
                                   loss_mass& above) const {
  cells.resize(cuts.empty() ? 0 : cuts.size() - 1);
  for (std::size_t k = 0; k + 1 < cuts.size(); ++k) cells[k] = mass(cuts[k], cuts[k + 1]);
  below = mass(-kInf, cuts.front());
  above = mass(cuts.back(), kInf);
}

double privacy_loss::delta(double epsilon) const {
  check_finite("privacy_loss::delta", "epsilon", epsilon);
  const loss_mass above = mass(epsilon, kInf);
  return std::max(above.p - std::exp(epsilon) * above.q, 0.0);
}

// Both tail points: bisection on a monotone log-probability between a point where it is
// above log τ and one where it is not, after expanding outwards in steps that double.
double privacy_loss::upper_tail_point(double tau) const {
  check_open_probability("privacy_loss::upper_tail_point", "tau", tau);
  const double log_tau = std::log(tau), top = support_upper(), bottom = support_lower();
  auto above = [&](double y) { return std::log(mass(y, kInf).p) > log_tau; };  // P(Y > y) > τ
  double hi = std::clamp(1.0, bottom, top);
  while (above(hi) && hi < top) hi = std::min(2 * std::abs(hi) + 1, top);  // P(Y > top) = 0
  double lo = hi;
  while (!above(lo) && lo > bottom) lo = std::max(lo - (std::abs(lo) + 1), bottom);
  if (!above(lo)) return lo;  // even the whole support carries at most τ above lo
  return bisect_tail([&](double y) { return std::log(mass(y, kInf).p); }, log_tau, lo, hi);
}

double privacy_loss::lower_tail_point(double tau) const {
  check_open_probability("privacy_loss::lower_tail_point", "tau", tau);
  const double log_tau = std::log(tau), top = support_upper(), bottom = support_lower();
  auto below = [&](double y) { return std::log(mass(-kInf, y).p) > log_tau; };  // P(Y ≤ y) > τ
  double lo = std::clamp(-1.0, bottom, top);
  while (below(lo) && lo > bottom) lo = std::max(-2 * std::abs(lo) - 1, bottom);
  if (below(lo)) return lo;  // an atom at the support edge already carries more than τ
  double hi = lo;
  while (!below(hi) && hi < top) hi = std::min(hi + std::abs(hi) + 1, top);  // P(Y ≤ top) = 1
  for (int i = 0; i < 200 && hi - lo > 1e-12 * std::max(1.0, std::abs(hi)); ++i) {
    const double mid = 0.5 * (lo + hi);
    (below(mid) ? hi : lo) = mid;
  }
  return lo;
}

std::unique_ptr<privacy_loss> gaussian_loss(double mu) {
  check_nonnegative("gaussian_loss", "mu", mu);
  return std::make_unique<gaussian_privacy_loss>(mu);
}

std::unique_ptr<privacy_loss> poisson_gaussian_loss(double sigma, double q, adjacency_direction d) {
  check_positive("poisson_gaussian_loss", "sigma", sigma);
  if (!(q > 0 && q <= 1)) throw_domain_error("poisson_gaussian_loss", "q", q, "in (0, 1]");
  return std::make_unique<poisson_gaussian_privacy_loss>(sigma, q, d);
}

std::unique_ptr<privacy_loss> symmetric_subsampled_gaussian_loss(double mu, double p) {
  check_positive("symmetric_subsampled_gaussian_loss", "mu", mu);
  if (!(p > 0 && p <= 1))
    throw_domain_error("symmetric_subsampled_gaussian_loss", "p", p, "in (0, 1]");
  return std::make_unique<symmetric_subsampled_gaussian_privacy_loss>(mu, p);
}

std::unique_ptr<privacy_loss> poisson_replace_one_gaussian_loss(double sigma, double q) {
  check_positive("poisson_replace_one_gaussian_loss", "sigma", sigma);
  if (!(q > 0 && q <= 1))
    throw_domain_error("poisson_replace_one_gaussian_loss", "q", q, "in (0, 1]");
  if (q == 1) return gaussian_loss(2 / sigma);
  return std::make_unique<poisson_replace_one_privacy_loss>(sigma, q);
}

std::unique_ptr<privacy_loss> mixture_loss(double w,
                                           std::shared_ptr<const privacy_loss> a,
                                           std::shared_ptr<const privacy_loss> b) {
  if (!(w >= 0 && w <= 1)) throw_domain_error("mixture_loss", "w", w, "in [0, 1]");
  if (!a || !b) throw_domain_error("mixture_loss", "component", "null", "a privacy loss");
  return std::make_unique<mixture_privacy_loss>(w, std::move(a), std::move(b));
}

}  // namespace dpkit::subsampling
