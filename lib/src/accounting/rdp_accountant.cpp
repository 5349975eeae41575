#include "dpkit/accounting/rdp_accountant.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

#include "dpkit/core/check.hpp"
#include "dpkit/subsampling/subsampled_rdp.hpp"

namespace dpkit::accounting {
namespace {

double phase_rdp(const training_phase& p, double alpha) {
  if (p.sampling == sampling_scheme::poisson)
    return subsampling::poisson_gaussian_rdp(p.sampling_rate, p.noise_multiplier, alpha);
  return subsampling::wor_gaussian_rdp(p.sampling_rate, p.noise_multiplier, alpha);
}

double unchecked_run_rdp(const training_run& run, double alpha) {
  double e = 0.5 * run.gaussian_mu * run.gaussian_mu * alpha;  // seed 002 Lemma A.4
  for (const training_phase& p : run.phases)
    e += static_cast<double>(p.steps) * phase_rdp(p, alpha);
  return e;
}

// The order ladder: fractional orders below 2, then integers growing roughly geometrically.
std::vector<double> base_orders() {
  std::vector<double> a = {1.1, 1.25, 1.5, 1.75};
  for (double x : {2,  3,  4,  5,  6,  7,   8,   10,  12,  14,  16,  20,  24,   28,   32,   40,
                   48, 56, 64, 80, 96, 128, 160, 192, 256, 384, 512, 768, 1024, 2048, 4096, 10000})
    a.push_back(x);
  return a;
}

// Evaluates ε_run on the ladder, finds the best order for the objective, then refines it by
// golden-section search over fractional α between the neighbouring orders. `objective(α, ε_α)`
// is the converted quantity to minimise; evaluations are cached and shared between calls.
class order_search {
 public:
  explicit order_search(const training_run& run) : run_(run) {}

  double rdp(double alpha) {
    auto it = cache_.find(alpha);
    if (it != cache_.end()) return it->second;
    return cache_[alpha] = unchecked_run_rdp(run_, alpha);
  }

  template <class Objective>
  std::pair<double, double> minimise(Objective&& objective) {  // (value, α)
    const std::vector<double> orders = base_orders();
    std::size_t best = 0;
    double best_value = INFINITY;
    // The converted ε is unimodal in α in practice: stop climbing the ladder after four orders
    // past the best without improvement (any subset of orders still gives a valid bound).
    for (std::size_t i = 0; i < orders.size() && i < best + 5; ++i) {
      const double v = objective(orders[i], rdp(orders[i]));
      if (v < best_value) best_value = v, best = i;
    }
    double lo = best == 0 ? 1.0 + 1e-3 : orders[best - 1];
    double hi = best + 1 == orders.size() ? orders[best] : orders[best + 1];
    double best_alpha = orders[best];
    // Golden section on log(α − 1); 12 steps narrow the bracket ~300-fold.
    auto f = [&](double t) {
      const double alpha = 1 + std::exp(t);
      const double v = objective(alpha, rdp(alpha));
      if (v < best_value) best_value = v, best_alpha = alpha;
      return v;
    };
    const double g = 0.6180339887498949;
    double a = std::log(lo - 1), b = std::log(hi - 1);
    double c = b - g * (b - a), d = a + g * (b - a), fc = f(c), fd = f(d);
    for (int i = 0; i < 12; ++i) {
      if (fc < fd) {
        b = d, d = c, fd = fc, c = b - g * (b - a), fc = f(c);
      } else {
        a = c, c = d, fc = fd, d = a + g * (b - a), fd = f(d);
      }
    }
    return {best_value, best_alpha};
  }

 private:
  const training_run& run_;
  std::map<double, double> cache_;
};

constexpr divergence::rdp_conversion kConversions[] = {divergence::rdp_conversion::mir17,
                                                       divergence::rdp_conversion::bbg20,
                                                       divergence::rdp_conversion::alc21};

}  // namespace

double run_rdp(const training_run& run, double alpha) {
  run.validate("run_rdp");
  if (!(alpha > 1 && alpha <= 1e6)) throw_domain_error("run_rdp", "alpha", alpha, "in (1, 1e6]");
  return unchecked_run_rdp(run, alpha);
}

divergence::rdp_epsilon_result rdp_epsilon(const training_run& run, double delta) {
  run.validate("rdp_epsilon");
  check_open_probability("rdp_epsilon", "delta", delta);
  divergence::rdp_epsilon_result r;
  r.kind = bound_kind::upper_bound;
  r.tight = false;
  order_search search(run);
  r.epsilon = INFINITY;
  // BS16 applies to linear curves only: a run of full-batch phases is (α, ρα)-RDP.
  r.candidates[0].conversion = divergence::rdp_conversion::bs16;
  if (run.is_gaussian())  // μ-GDP ⇒ (α, αμ²/2)-RDP: a linear curve (BS16 applies)
    return divergence::rdp_epsilon(divergence::gdp_rdp_curve(run.gdp_mu()), delta);
  for (std::size_t k = 0; k < 3; ++k) {
    const divergence::rdp_conversion c = kConversions[k];
    const auto [value, alpha] = search.minimise(
        [&](double a, double e) { return divergence::rdp_epsilon_at_order(c, a, e, delta); });
    divergence::rdp_candidate& cand = r.candidates[k + 1];
    cand.conversion = c;
    cand.applicable = true;
    cand.value = std::max(value, 0.0);
    cand.alpha = alpha;
    if (cand.value < r.epsilon) r.epsilon = cand.value, r.alpha = alpha, r.conversion = c;
  }
  r.epsilon_upper = r.epsilon;
  r.epsilon_lower = NAN;  // an RDP conversion gives no lower bound
  return r;
}

divergence::rdp_delta_result rdp_delta(const training_run& run, double epsilon) {
  run.validate("rdp_delta");
  check_nonnegative("rdp_delta", "epsilon", epsilon);
  if (run.is_gaussian())
    return divergence::rdp_delta(divergence::gdp_rdp_curve(run.gdp_mu()), epsilon);
  divergence::rdp_delta_result r;
  r.kind = bound_kind::upper_bound;
  r.tight = false;
  order_search search(run);
  r.log_delta = INFINITY;
  r.candidates[0].conversion = divergence::rdp_conversion::bs16;
  for (std::size_t k = 0; k < 3; ++k) {
    const divergence::rdp_conversion c = kConversions[k];
    const auto [value, alpha] = search.minimise(
        [&](double a, double e) { return divergence::rdp_log_delta_at_order(c, a, e, epsilon); });
    divergence::rdp_candidate& cand = r.candidates[k + 1];
    cand.conversion = c;
    cand.applicable = true;
    cand.value = std::exp(value);
    cand.alpha = alpha;
    if (value < r.log_delta) r.log_delta = value, r.alpha = alpha, r.conversion = c;
  }
  r.delta = std::exp(r.log_delta);
  return r;
}

}  // namespace dpkit::accounting
