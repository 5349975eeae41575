// The privacy loss of a mixture of unit-variance Gaussians against N(0, 1):
// P = Σ_m w_m N(μ_m, 1), Q = N(0, 1), μ_m ≥ 0 (subsampling/privacy_loss.hpp,
// gaussian_mixture_loss). The conditional-composition bound for matrix mechanisms composes one
// such pair per row of the release (accounting/matrix_mmcc.cpp).
//
// With t_m(u) = log w_m + μ_m u − μ_m²/2, the log-likelihood ratio is L(u) = log Σ_m e^{t_m(u)},
// a log-sum-exp of affine functions of u: convex, and increasing (every slope μ_m ≥ 0, one > 0).
// The remove pair's loss is Y = L(u), u ~ P or Q; the add pair's is Y = −L(u) with P and Q
// swapped. Loss intervals map to u-intervals through L⁻¹, found by Newton's method from above:
// for a convex increasing function every Newton iterate started above the root stays above it,
// so the iterates decrease monotonically to it (no overshoot, no bracketing needed).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "dpkit/core/check.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/subsampling/privacy_loss.hpp"
#include "subsampling/detail/normal_cells.hpp"

namespace dpkit::subsampling {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

class gaussian_mixture_privacy_loss final : public privacy_loss {
 public:
  gaussian_mixture_privacy_loss(std::vector<double> means,
                                std::vector<double> weights,
                                adjacency_direction d)
      : mu_(std::move(means)), w_(std::move(weights)), direction_(d) {
    log_w_.resize(w_.size());
    for (std::size_t m = 0; m < w_.size(); ++m) log_w_[m] = std::log(w_[m]);
    // The lowest loss: L(u) → log w_0 as u → −∞ where μ_0 = 0 (the means are sorted), else −∞.
    floor_ = mu_.front() == 0 ? log_w_.front() : -kInf;
  }

  loss_mass mass(double a, double b) const override {
    const bool remove = direction_ == adjacency_direction::remove;
    // remove: Y ∈ (a, b] ⟺ u ∈ (L⁻¹(a), L⁻¹(b)]; add: Y = −L(u) ∈ (a, b] ⟺ u ∈ [L⁻¹(−b), L⁻¹(−a)).
    const double ub = inverse(remove ? b : -a, kInf);
    const double ua = inverse(remove ? a : -b, ub);
    double mixture = 0;
    for (std::size_t m = 0; m < mu_.size(); ++m)
      mixture += w_[m] * normal_interval(ua - mu_[m], ub - mu_[m]);
    const double base = normal_interval(ua, ub);
    return remove ? loss_mass{mixture, base} : loss_mass{base, mixture};
  }

  void interval_masses(std::span<const double> cuts,
                       std::vector<loss_mass>& cells,
                       loss_mass& below,
                       loss_mass& above) const override {
    const std::size_t n = cuts.size();
    const bool remove = direction_ == adjacency_direction::remove;
    // u-space cut points, non-decreasing: remove maps y ↦ L⁻¹(y); add maps y ↦ L⁻¹(−y), which
    // decreases in y, so it is stored reversed (Y ∈ (b_k, b_{k+1}] ⟺ u ∈ [L⁻¹(−b_{k+1}),
    // L⁻¹(−b_k))). Each inversion starts from the previous one's root where that lies above.
    std::vector<double> u(n);
    double start = kInf;
    evaluation last;  // the previous inversion's last point: the next one starts there
    for (std::size_t i = n; i-- > 0;) {  // from the largest u down: Newton's start from above
      const double y = remove ? cuts[i] : -cuts[n - 1 - i];
      u[i] = inverse(y, start, &last);
      if (std::isfinite(u[i])) start = u[i];
    }
    std::vector<double> qcell(n > 0 ? n - 1 : 0, 0.0), pcell(qcell.size(), 0.0);
    double q_lo = 0, q_hi = 0, p_lo = 0, p_hi = 0;
    std::vector<double> shifted(n);
    for (std::size_t m = 0; m < mu_.size(); ++m) {
      for (std::size_t k = 0; k < n; ++k) shifted[k] = u[k] - mu_[m];
      const detail::normal_cells cells_m(shifted);
      for (std::size_t k = 0; k + 1 < n; ++k) pcell[k] += w_[m] * cells_m.cell(k);
      p_lo += w_[m] * cells_m.below();
      p_hi += w_[m] * cells_m.above();
      if (mu_[m] == 0) {
        for (std::size_t k = 0; k + 1 < n; ++k) qcell[k] = cells_m.cell(k);
        q_lo = cells_m.below();
        q_hi = cells_m.above();
      }
    }
    if (mu_.front() != 0) {
      const detail::normal_cells base(u);
      for (std::size_t k = 0; k + 1 < n; ++k) qcell[k] = base.cell(k);
      q_lo = base.below();
      q_hi = base.above();
    }
    cells.resize(qcell.size());
    for (std::size_t k = 0; k + 1 < n; ++k) {
      const std::size_t j = remove ? k : n - 2 - k;
      cells[k] = remove ? loss_mass{pcell[j], qcell[j]} : loss_mass{qcell[j], pcell[j]};
    }
    if (remove) {
      below = {p_lo, q_lo};
      above = {p_hi, q_hi};
    } else {  // small u is large Y
      below = {q_hi, p_hi};
      above = {q_lo, p_lo};
    }
  }

  double support_lower() const override {
    return direction_ == adjacency_direction::remove ? floor_ : -kInf;
  }
  double support_upper() const override {
    return direction_ == adjacency_direction::remove ? kInf : -floor_;
  }
  std::string describe() const override {
    return "mixture of " + std::to_string(mu_.size()) + " Gaussians (largest mean " +
           format_value(mu_.back()) +
           (direction_ == adjacency_direction::remove ? ", remove)" : ", add)");
  }

 private:
  // L(u) and L′(u) (the posterior mean of μ), by log-sum-exp.
  std::pair<double, double> value_and_slope(double u) const {
    double top = -kInf;
    for (std::size_t m = 0; m < mu_.size(); ++m)
      top = std::max(top, log_w_[m] + mu_[m] * u - 0.5 * mu_[m] * mu_[m]);
    double sum = 0, slope = 0;
    for (std::size_t m = 0; m < mu_.size(); ++m) {
      const double e = std::exp(log_w_[m] + mu_[m] * u - 0.5 * mu_[m] * mu_[m] - top);
      sum += e;
      slope += e * mu_[m];
    }
    return {top + std::log(sum), slope / sum};
  }

  // L(u) and L′(u) at one point, kept from one inversion to the next.
  struct evaluation {
    double u = NAN, value = NAN, slope = NAN;
  };

  // L⁻¹(y): −∞ at or below the floor, +∞ for y = +∞. `hint` is a point known to lie at or
  // above the root when finite (the previous, larger cut's root). `last` (optional) holds the
  // last point evaluated, in and out: interval_masses inverts the cuts from the top down, each
  // from the previous root, where the previous inversion evaluated L last — that evaluation is
  // reused instead of repeated (the same numbers: one evaluation fewer per cut).
  double inverse(double y, double hint, evaluation* last = nullptr) const {
    if (y == kInf) return kInf;
    if (y <= floor_) return -kInf;
    const std::size_t top = mu_.size() - 1;  // the largest mean, > 0
    // One term alone reaches y at u₀ = (y − log w + μ²/2)/μ, so L(u₀) ≥ y: u₀ is above the root.
    double u = (y - log_w_[top] + 0.5 * mu_[top] * mu_[top]) / mu_[top];
    if (std::isfinite(hint)) u = std::min(u, hint);
    for (int it = 0; it < 400; ++it) {
      evaluation e;
      if (last != nullptr && last->u == u) {
        e = *last;
      } else {
        const auto [v, s] = value_and_slope(u);
        e = {u, v, s};
        if (last != nullptr) *last = e;
      }
      const double value = e.value, slope = e.slope;
      const double excess = value - y;
      if (!(excess > 0) || !(slope > 0)) break;  // at the root (to rounding)
      const double next = u - excess / slope;
      if (!(next < u)) break;
      u = next;
    }
    return u;
  }

  std::vector<double> mu_, w_, log_w_;
  double floor_ = -kInf;
  adjacency_direction direction_;
};

}  // namespace

std::unique_ptr<privacy_loss> gaussian_mixture_loss(std::vector<double> means,
                                                    std::vector<double> weights,
                                                    adjacency_direction direction) {
  constexpr const char* kFn = "gaussian_mixture_loss";
  if (means.empty() || means.size() != weights.size())
    throw std::invalid_argument(std::string(kFn) +
                                ": means and weights must be nonempty and of equal length");
  std::vector<std::size_t> order(means.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return means[a] < means[b]; });
  std::vector<double> mu, w;
  double total = 0;
  for (std::size_t i : order) {
    check_finite(kFn, "means", means[i]);
    check_nonnegative(kFn, "means", means[i]);
    check_nonnegative(kFn, "weights", weights[i]);
    check_finite(kFn, "weights", weights[i]);
    if (weights[i] == 0) continue;
    if (!mu.empty() && mu.back() == means[i]) {
      w.back() += weights[i];
    } else {
      mu.push_back(means[i]);
      w.push_back(weights[i]);
    }
    total += weights[i];
  }
  if (!(std::abs(total - 1) <= 1e-12))
    throw std::invalid_argument(std::string(kFn) + ": the weights must sum to 1");
  if (mu.back() == 0)
    throw std::invalid_argument(std::string(kFn) + ": at least one mean must be positive");
  for (double& x : w) x /= total;
  return std::make_unique<gaussian_mixture_privacy_loss>(std::move(mu), std::move(w), direction);
}

}  // namespace dpkit::subsampling
