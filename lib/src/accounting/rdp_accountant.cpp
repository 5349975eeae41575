#include "dpkit/accounting/rdp_accountant.hpp"

#include <cmath>
#include <map>
#include <tuple>
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
const std::vector<double>& ladder() {
  static const std::vector<double> orders = [] {
    std::vector<double> a = {1.1, 1.25, 1.5, 1.75};
    for (double x :
         {2,  3,  4,  5,  6,  7,   8,   10,  12,  14,  16,  20,  24,   28,   32,   40,
          48, 56, 64, 80, 96, 128, 160, 192, 256, 384, 512, 768, 1024, 2048, 4096, 10000})
      a.push_back(x);
    return a;
  }();
  return orders;
}

// ε_run at the ladder's orders and at fractional orders near the optimum, cached: the three
// conversions share the evaluations, and a fractional order costs a quadrature (50–150 µs).
class order_search {
 public:
  explicit order_search(const training_run& run) : run_(run) {}

  double rdp(double alpha) {
    auto it = cache_.find(alpha);
    if (it != cache_.end()) return it->second;
    return cache_[alpha] = unchecked_run_rdp(run_, alpha);
  }

  /// Minimum of objective(α, ε_α) over the ladder: (value, α, index). The converted ε is
  /// unimodal in α in practice, so the climb stops four orders past the best without
  /// improvement (any subset of orders still gives a valid bound).
  template <class Objective>
  std::tuple<double, double, std::size_t> ladder_minimum(Objective&& objective) {
    const std::vector<double>& orders = ladder();
    std::size_t best = 0;
    double best_value = INFINITY;
    for (std::size_t i = 0; i < orders.size() && i < best + 5; ++i) {
      const double v = objective(orders[i], rdp(orders[i]));
      if (v < best_value) best_value = v, best = i;
    }
    return {best_value, orders[best], best};
  }

  /// Golden-section refinement over fractional α between the neighbours of ladder index i.
  /// Only below α = 8: higher up the objective is flat between consecutive integers.
  template <class Objective>
  std::pair<double, double> refine(Objective&& objective,
                                   std::size_t i,
                                   double value,
                                   double alpha) {
    const std::vector<double>& orders = ladder();
    if (orders[i] > 8) return {value, alpha};
    const double lo = i == 0 ? 1.0 + 1e-3 : orders[i - 1];
    const double hi = i + 1 == orders.size() ? orders[i] : orders[i + 1];
    auto f = [&](double t) {
      const double a = 1 + std::exp(t);
      const double v = objective(a, rdp(a));
      if (v < value) value = v, alpha = a;
      return v;
    };
    const double g = 0.6180339887498949;
    double a = std::log(lo - 1), b = std::log(hi - 1);
    double c = b - g * (b - a), d = a + g * (b - a), fc = f(c), fd = f(d);
    for (int k = 0; k < 6; ++k) {  // 8 fractional orders in all
      if (fc < fd) {
        b = d, d = c, fd = fc, c = b - g * (b - a), fc = f(c);
      } else {
        a = c, c = d, fc = fd, d = a + g * (b - a), fd = f(d);
      }
    }
    return {value, alpha};
  }

 private:
  const training_run& run_;
  std::map<double, double> cache_;
};

constexpr divergence::rdp_conversion kConversions[] = {divergence::rdp_conversion::mir17,
                                                       divergence::rdp_conversion::bbg20,
                                                       divergence::rdp_conversion::alc21};

// Each conversion on the ladder, then the winner (only) refined over fractional α.
template <class Result, class Convert>
void optimise(order_search& search, Result& r, Convert&& convert) {
  std::size_t winner = 0, winner_index = 0;
  double winner_value = INFINITY;
  r.candidates[0].conversion = divergence::rdp_conversion::bs16;  // linear curves only
  for (std::size_t k = 0; k < 3; ++k) {
    const divergence::rdp_conversion c = kConversions[k];
    const auto [value, alpha, index] =
        search.ladder_minimum([&](double a, double e) { return convert(c, a, e); });
    divergence::rdp_candidate& cand = r.candidates[k + 1];
    cand.conversion = c;
    cand.applicable = true;
    cand.value = value;
    cand.alpha = alpha;
    if (value < winner_value) winner_value = value, winner = k, winner_index = index;
  }
  divergence::rdp_candidate& best = r.candidates[winner + 1];
  std::tie(best.value, best.alpha) =
      search.refine([&](double a, double e) { return convert(best.conversion, a, e); },
                    winner_index, best.value, best.alpha);
  r.conversion = best.conversion;
  r.alpha = best.alpha;
}

}  // namespace

double run_rdp(const training_run& run, double alpha) {
  run.validate("run_rdp");
  if (!(alpha > 1 && alpha <= 1e6)) throw_domain_error("run_rdp", "alpha", alpha, "in (1, 1e6]");
  return unchecked_run_rdp(run, alpha);
}

divergence::rdp_epsilon_result rdp_epsilon(const training_run& run, double delta) {
  run.validate("rdp_epsilon");
  check_open_probability("rdp_epsilon", "delta", delta);
  if (run.is_gaussian())  // μ-GDP ⇒ (α, αμ²/2)-RDP: a linear curve (BS16 applies)
    return divergence::rdp_epsilon(divergence::gdp_rdp_curve(run.gdp_mu()), delta);
  divergence::rdp_epsilon_result r;
  r.kind = bound_kind::upper_bound;
  r.tight = false;
  order_search search(run);
  optimise(search, r, [&](divergence::rdp_conversion c, double a, double e) {
    return divergence::rdp_epsilon_at_order(c, a, e, delta);
  });
  for (auto& cand : r.candidates)
    if (cand.applicable) cand.value = std::max(cand.value, 0.0);  // ε < 0 implies (0, δ)-DP
  r.epsilon = r.epsilon_upper = r.candidates[static_cast<std::size_t>(r.conversion)].value;
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
  optimise(search, r, [&](divergence::rdp_conversion c, double a, double e) {
    return divergence::rdp_log_delta_at_order(c, a, e, epsilon);
  });
  r.log_delta = r.candidates[static_cast<std::size_t>(r.conversion)].value;
  for (auto& cand : r.candidates)
    if (cand.applicable) cand.value = std::exp(cand.value);
  r.delta = std::exp(r.log_delta);
  return r;
}

}  // namespace dpkit::accounting
