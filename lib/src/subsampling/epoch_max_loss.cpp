#include "dpkit/subsampling/epoch_max_loss.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "dpkit/core/check.hpp"
#include "dpkit/core/log_space.hpp"
#include "dpkit/core/normal.hpp"

namespace dpkit::subsampling {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
const double kLogHalf = std::log(0.5);

// log F and log(1 − F) of one law of M at a point (both kept, so that a slice's mass is
// differenced in the tail where both ends are small, as detail::normal_cells does for Φ).
struct tails {
  double log_cdf = 0;   // log P(M ≤ m)
  double log_ccdf = 0;  // log P(M > m)
};

// M = max_j Z_j with Z ~ N(c e_J, I_t), J uniform: F(m) = Φ(m − c) Φ(m)^{t−1} (the maximum is
// symmetric in the coordinates, so J's law does not matter). 1 − F = −expm1(log F) is
// accurate for F near 1, log F being a sum of log Φ's computed as log1p(−Φc).
// With k shifted coordinates (random allocation of k of t steps): Φ(m − c)^k Φ(m)^{t−k}.
tails max_tails(double c, double t, double m, double k = 1) {
  if (m == -kInf) return {-kInf, 0.0};
  if (m == kInf) return {0.0, -kInf};
  const double log_cdf = k * normal_lcdf(m - c) + (t - k) * normal_lcdf(m);
  return {log_cdf, log_cdf == 0 ? -kInf : log1mexp(log_cdf)};
}

// The law of M when the example is in the epoch only with probability u (a loader that drops
// the last, incomplete batch): with probability 1 − u every coordinate is N(0, 1) (no shift), so
// F = u·F_c + (1 − u)·Φ(m)^t. F and 1 − F are both mixtures of positive terms, each summed in log
// space (no cancellation: 1 − F is not formed from F).
tails mixed_tails(double c, double t, double m, double u, double k = 1) {
  const tails in = max_tails(c, t, m, k);
  if (u == 1) return in;
  const tails out = max_tails(0, t, m);
  const double log_u = std::log(u), log_not_u = std::log1p(-u);
  return {log_sum_exp(log_u + in.log_cdf, log_not_u + out.log_cdf),
          log_sum_exp(log_u + in.log_ccdf, log_not_u + out.log_ccdf)};
}

// P(a < M ≤ b) from the tails at a ≤ b.
double slice(const tails& a, const tails& b) {
  if (b.log_cdf <= kLogHalf)  // both CDFs small: F(b)(1 − F(a)/F(b))
    return b.log_cdf == -kInf ? 0.0 : std::exp(b.log_cdf) * -std::expm1(a.log_cdf - b.log_cdf);
  if (a.log_cdf >= kLogHalf)  // both survival functions small
    return a.log_ccdf == -kInf ? 0.0 : std::exp(a.log_ccdf) * -std::expm1(b.log_ccdf - a.log_ccdf);
  return std::exp(a.log_ccdf) - std::exp(b.log_ccdf);  // straddles the median: no cancellation
}

// An atom of the sliced statistic's privacy loss.
struct atom {
  double loss;
  double p;
  double q;
};

class epoch_max_privacy_loss final : public privacy_loss {
 public:
  epoch_max_privacy_loss(double mu,
                         long long steps,
                         adjacency_direction d,
                         epoch_pair pair,
                         double used,
                         long long selected)
      : mu_(mu),
        t_(static_cast<double>(steps)),
        k_(static_cast<double>(selected)),
        used_(used),
        d_(d),
        pair_(pair) {
    build();
  }

  loss_mass mass(double a, double b) const override {
    if (!(a < b)) return {0, 0};
    const std::size_t i = first_above(a), j = first_above(b);  // atoms i … j−1 lie in (a, b]
    return {between(cum_p_, tail_p_, i, j), between(cum_q_, tail_q_, i, j)};
  }
  double support_lower() const override { return atoms_.front().loss; }
  double support_upper() const override { return atoms_.back().loss; }
  std::string describe() const override {
    return std::string("largest coordinate of one ") +
           (pair_ == epoch_pair::shuffled ? "shuffled" : "randomly allocated") +
           " epoch, sliced (mu = " + format_value(mu_) + ", steps per epoch = " + format_value(t_) +
           (k_ > 1 ? ", " + format_value(k_) + " of them selected" : "") +
           (used_ < 1 ? ", in the epoch with probability " + format_value(used_) : "") + ", " +
           std::to_string(atoms_.size()) + " slices" +
           (d_ == adjacency_direction::remove ? ", remove)" : ", add)");
  }

 private:
  // Slices of the m axis: (−∞, lo], then width w up to hi, then (hi, ∞). Below lo both laws
  // carry ≤ Φ(lo − 2μ)… ≤ 1e-16 and above hi ≤ t·Φc(hi − 2μ) ≤ 1e-25 relative: those two
  // slices stay atoms of their own, so no mass is lost. The width keeps the loss resolution
  // near 1e-3 (the loss moves with m at rate ≤ 2μ): any slicing is a post-processing, so the
  // width only decides how close the bound gets to the maximum's own profile.
  void build() {
    const double lo = -8.5;
    const double hi = 2 * mu_ + 11 + std::sqrt(2 * std::log(t_));
    const double w = std::clamp(1e-3 / mu_, 2e-4, 1e-2);
    const auto n = static_cast<std::size_t>(std::ceil((hi - lo) / w));
    std::vector<double> cuts(n + 3);
    cuts.front() = -kInf;
    for (std::size_t k = 0; k <= n; ++k) cuts[k + 1] = lo + static_cast<double>(k) * w;
    cuts.back() = kInf;
    // Shuffled: P = MoG(2μ), Q = MoG(μ); allocated: P = MoG(μ), Q = N(0) (remove); add swaps.
    const double shift_p = pair_ == epoch_pair::shuffled ? 2 * mu_ : mu_;
    const double shift_q = pair_ == epoch_pair::shuffled ? mu_ : 0.0;
    std::vector<tails> tp(cuts.size()), tq(cuts.size());
    for (std::size_t k = 0; k < cuts.size(); ++k) {
      tp[k] = mixed_tails(shift_p, t_, cuts[k], used_, k_);
      tq[k] = mixed_tails(shift_q, t_, cuts[k], used_);
    }
    for (std::size_t k = 0; k + 1 < cuts.size(); ++k) {
      double p = slice(tp[k], tp[k + 1]), q = slice(tq[k], tq[k + 1]);
      if (d_ == adjacency_direction::add) std::swap(p, q);
      if (p == 0) continue;  // no P-mass: invisible to δ(ε) ≥ 0 and to the composition's P side
      // q == 0 with p > 0 would be an infinite loss; both laws have positive densities
      // everywhere, so it only happens by underflow far out, where p underflows as well.
      if (q == 0) continue;
      atoms_.push_back({std::log(p) - std::log(q), p, q});
    }
    std::sort(atoms_.begin(), atoms_.end(),
              [](const atom& x, const atom& y) { return x.loss < y.loss; });
    // Sums from both ends in order of loss: a run of atoms is differenced from the end where
    // its sums are small (the upper tail, which decides δ, from the top), so its error is a
    // few ulp of the mass beyond it, not of 1.
    const std::size_t n_atoms = atoms_.size();
    cum_p_.assign(n_atoms + 1, 0.0);
    cum_q_.assign(n_atoms + 1, 0.0);
    tail_p_.assign(n_atoms + 1, 0.0);
    tail_q_.assign(n_atoms + 1, 0.0);
    for (std::size_t k = 0; k < n_atoms; ++k) {
      cum_p_[k + 1] = cum_p_[k] + atoms_[k].p;
      cum_q_[k + 1] = cum_q_[k] + atoms_[k].q;
      tail_p_[n_atoms - 1 - k] = tail_p_[n_atoms - k] + atoms_[n_atoms - 1 - k].p;
      tail_q_[n_atoms - 1 - k] = tail_q_[n_atoms - k] + atoms_[n_atoms - 1 - k].q;
    }
  }
  // Σ of atoms i … j−1 (i ≤ j) from the prefix sums `cum` or the suffix sums `tail`.
  static double between(const std::vector<double>& cum,
                        const std::vector<double>& tail,
                        std::size_t i,
                        std::size_t j) {
    return tail[i] < cum[j] ? tail[i] - tail[j] : cum[j] - cum[i];
  }
  // The first atom with loss > y.
  std::size_t first_above(double y) const {
    return static_cast<std::size_t>(
        std::upper_bound(atoms_.begin(), atoms_.end(), y,
                         [](double v, const atom& x) { return v < x.loss; }) -
        atoms_.begin());
  }

  double mu_, t_, k_, used_;
  adjacency_direction d_;
  epoch_pair pair_;
  std::vector<atom> atoms_;
  std::vector<double> cum_p_, cum_q_, tail_p_, tail_q_;
};

}  // namespace

std::unique_ptr<privacy_loss> epoch_max_loss(double mu,
                                             long long steps_per_epoch,
                                             adjacency_direction direction,
                                             epoch_pair pair,
                                             double used,
                                             long long selected) {
  check_positive("epoch_max_loss", "mu", mu);
  check_at_least("epoch_max_loss", "steps_per_epoch", steps_per_epoch, 1);
  check_at_least("epoch_max_loss", "selected", selected, 1);
  if (selected > steps_per_epoch)
    throw_domain_error("epoch_max_loss", "selected", format_value(selected),
                       "<= steps_per_epoch (" + format_value(steps_per_epoch) + ")");
  if (selected > 1 && pair != epoch_pair::allocated)
    throw_domain_error("epoch_max_loss", "selected", format_value(selected),
                       "1 for shuffled batches (an example is in one batch of an epoch)");
  if (mu > 40) throw_domain_error("epoch_max_loss", "mu", mu, "<= 40 (noise multiplier >= 0.025)");
  if (!(used > 0 && used <= 1))
    throw_domain_error("epoch_max_loss", "used", used, "in (0, 1]");
  if (used < 1 && pair != epoch_pair::shuffled)
    throw_domain_error("epoch_max_loss", "used", used,
                       "1 for random allocation (every example is in every epoch)");
  return std::make_unique<epoch_max_privacy_loss>(mu, steps_per_epoch, direction, pair, used,
                                                  selected);
}

}  // namespace dpkit::subsampling
