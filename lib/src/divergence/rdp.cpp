#include "dpkit/divergence/rdp.hpp"

#include <algorithm>
#include <boost/math/tools/minima.hpp>
#include <cmath>
#include <limits>

#include "dpkit/core/check.hpp"
#include "dpkit/core/grid.hpp"
#include "dpkit/core/log_space.hpp"

namespace dpkit::divergence {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr rdp_conversion kAll[] = {rdp_conversion::bs16, rdp_conversion::mir17,
                                   rdp_conversion::bbg20, rdp_conversion::alc21};
// Search range for linear curves: α ∈ (1, 1e8]. The Mir17 optimum 1 + √(log(1/δ)/ρ) stays
// inside for ρ ≥ 1e-14 at δ = 1e-300.
constexpr double kLinearAlphaMin = 1.0 + 1e-9;
constexpr double kLinearAlphaMax = 1e8;
constexpr int kScanPoints = 161;

struct optimum {
  double value = kInf;
  double alpha = NAN;
};

// Minimises objective(α) over the curve's orders: exhaustively for discrete curves; for
// continuous ones by a scan in t = log(α − 1) and Brent's method in the best cell (the
// objectives are unimodal for the convex-in-α curves RDP produces; the scan guards the rest).
template <class Objective>
optimum minimise_over_orders(const rdp_curve& curve, Objective&& objective) {
  auto safe = [&](double alpha) {
    // exp/log round trips can step an ulp outside the domain.
    alpha = std::clamp(alpha, curve.alpha_min(), curve.alpha_max());
    const double v = objective(alpha);
    return std::isnan(v) ? kInf : v;
  };
  optimum best;
  if (curve.is_discrete()) {
    for (double alpha : curve.orders()) {
      const double v = safe(alpha);
      if (v < best.value) best = {v, alpha};
    }
    return best;
  }
  const std::vector<double> t =
      linspace(std::log(curve.alpha_min() - 1), std::log(curve.alpha_max() - 1), kScanPoints);
  std::size_t arg = 0;
  for (std::size_t i = 0; i < t.size(); ++i) {
    const double v = safe(1 + std::exp(t[i]));
    if (v < best.value) best = {v, 1 + std::exp(t[i])}, arg = i;
  }
  const double lo = t[arg == 0 ? 0 : arg - 1], hi = t[std::min(arg + 1, t.size() - 1)];
  std::uintmax_t max_iter = 200;
  const auto refined =
      boost::math::tools::brent_find_minima([&](double ti) { return safe(1 + std::exp(ti)); }, lo,
                                            hi, std::numeric_limits<double>::digits / 2, max_iter);
  if (refined.second < best.value) best = {refined.second, 1 + std::exp(refined.first)};
  best.alpha = std::clamp(best.alpha, curve.alpha_min(), curve.alpha_max());
  return best;
}

}  // namespace

double gdp_rdp(double mu, double alpha) {
  check_nonnegative("gdp_rdp", "mu", mu);
  check_greater("gdp_rdp", "alpha", alpha, 1.0);
  return 0.5 * mu * mu * alpha;  // BSA24 Lemma A.4
}

std::string_view to_string(rdp_conversion c) noexcept {
  switch (c) {
    case rdp_conversion::bs16:
      return "BS16";
    case rdp_conversion::mir17:
      return "Mir17";
    case rdp_conversion::bbg20:
      return "BBG20";
    case rdp_conversion::alc21:
      return "ALC21";
  }
  return "?";
}

rdp_curve rdp_curve::linear(double rho) {
  check_nonnegative("rdp_curve::linear", "rho", rho);
  rdp_curve c;
  c.rho_ = rho;
  c.epsilon_ = [rho](double alpha) { return rho * alpha; };
  c.alpha_min_ = kLinearAlphaMin;
  c.alpha_max_ = kLinearAlphaMax;
  return c;
}

rdp_curve rdp_curve::continuous(std::function<double(double)> epsilon,
                                double alpha_min,
                                double alpha_max) {
  check_greater("rdp_curve::continuous", "alpha_min", alpha_min, 1.0);
  check_greater("rdp_curve::continuous", "alpha_max", alpha_max, alpha_min);
  if (!epsilon)
    throw_domain_error("rdp_curve::continuous", "epsilon", "empty", "a callable function");
  rdp_curve c;
  c.epsilon_ = std::move(epsilon);
  c.alpha_min_ = alpha_min;
  c.alpha_max_ = alpha_max;
  return c;
}

rdp_curve rdp_curve::at_orders(std::vector<double> alphas, std::vector<double> epsilons) {
  constexpr const char* kFn = "rdp_curve::at_orders";
  check_at_least(kFn, "alphas.size()", static_cast<long long>(alphas.size()), 1);
  if (epsilons.size() != alphas.size())
    throw_domain_error(kFn, "epsilons.size()",
                       format_value(static_cast<long long>(epsilons.size())),
                       "equal to alphas.size()");
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    check_greater(kFn, "alphas[i]", alphas[i], 1.0);
    check_nonnegative(kFn, "epsilons[i]", epsilons[i]);
  }
  rdp_curve c;
  c.orders_ = std::move(alphas);
  c.order_epsilons_ = std::move(epsilons);
  c.alpha_min_ = *std::min_element(c.orders_.begin(), c.orders_.end());
  c.alpha_max_ = *std::max_element(c.orders_.begin(), c.orders_.end());
  return c;
}

double rdp_curve::operator()(double alpha) const {
  if (is_discrete()) {
    const auto it = std::find(orders_.begin(), orders_.end(), alpha);
    if (it == orders_.end())
      throw_domain_error("rdp_curve", "alpha", alpha, "one of the curve's orders");
    return order_epsilons_[static_cast<std::size_t>(it - orders_.begin())];
  }
  check_bounded("rdp_curve", "alpha", alpha, alpha_min_, alpha_max_);
  return epsilon_(alpha);
}

rdp_curve gdp_rdp_curve(double mu) {
  check_nonnegative("gdp_rdp_curve", "mu", mu);
  // BSA24 Lemma A.4: ρ = μ²/2. Below μ ≈ 2e-154 the square underflows (to 0 below 2.2e-162,
  // which claimed ε = 0 at every δ: σ = 1.3e240 gave δ = 0 where it is 1.2e-263). A larger ρ is
  // a weaker RDP guarantee, so there ρ is raised to the smallest normal double, above the exact
  // μ²/2: the bound stays an upper bound, only looser than the exact one (ε ~ 1e-152 at most).
  const double rho = 0.5 * mu * mu;
  return rdp_curve::linear(mu > 0 && rho < std::numeric_limits<double>::min()
                               ? std::numeric_limits<double>::min()
                               : rho);
}

double rdp_epsilon_at_order(rdp_conversion c, double alpha, double epsilon_alpha, double delta) {
  check_greater("rdp_epsilon_at_order", "alpha", alpha, 1.0);
  check_nonnegative("rdp_epsilon_at_order", "epsilon_alpha", epsilon_alpha);
  check_open_probability("rdp_epsilon_at_order", "delta", delta);
  const double log_delta = std::log(delta);
  const double am1 = alpha - 1;
  switch (c) {
    case rdp_conversion::bs16: {
      // Bun & Steinke (2016) Prop 1.3 with ρ = ε_α/α.
      const double rho = epsilon_alpha / alpha;
      return rho + 2 * std::sqrt(rho * -log_delta);
    }
    case rdp_conversion::mir17:  // Mironov (2017) Prop 3
      return epsilon_alpha - log_delta / am1;
    case rdp_conversion::bbg20:  // Balle et al. (2020) Thm 21
      return epsilon_alpha + std::log1p(-1 / alpha) - (log_delta + std::log(alpha)) / am1;
    case rdp_conversion::alc21: {
      // Asoodeh et al. (2021) Lemma 1, in log space:
      // log((e^x − 1)/(αδ) + 1) = logsumexp(log(e^x − 1), log αδ) − log αδ, x = (α−1)ε_α.
      const double log_alpha_delta = std::log(alpha) + log_delta;
      return (log_sum_exp(log_expm1(am1 * epsilon_alpha), log_alpha_delta) - log_alpha_delta) / am1;
    }
  }
  return kInf;
}

double rdp_log_delta_at_order(rdp_conversion c,
                              double alpha,
                              double epsilon_alpha,
                              double epsilon) {
  check_greater("rdp_log_delta_at_order", "alpha", alpha, 1.0);
  check_nonnegative("rdp_log_delta_at_order", "epsilon_alpha", epsilon_alpha);
  check_nonnegative("rdp_log_delta_at_order", "epsilon", epsilon);
  const double am1 = alpha - 1;
  double log_delta = 0;
  switch (c) {
    case rdp_conversion::bs16: {
      const double rho = epsilon_alpha / alpha;
      if (epsilon <= rho) return 0.0;
      log_delta = rho == 0 ? -kInf : -(epsilon - rho) * (epsilon - rho) / (4 * rho);
      break;
    }
    case rdp_conversion::mir17:
      log_delta = am1 * (epsilon_alpha - epsilon);
      break;
    case rdp_conversion::bbg20:
      log_delta = am1 * (epsilon_alpha - epsilon + std::log1p(-1 / alpha)) - std::log(alpha);
      break;
    case rdp_conversion::alc21:
      // δ = (e^{(α−1)ε_α} − 1) / (α (e^{(α−1)ε} − 1)).
      if (epsilon == 0) return 0.0;
      log_delta = log_expm1(am1 * epsilon_alpha) - std::log(alpha) - log_expm1(am1 * epsilon);
      break;
  }
  return std::min(log_delta, 0.0);
}

rdp_epsilon_result rdp_epsilon(const rdp_curve& curve, double delta) {
  check_open_probability("rdp_epsilon", "delta", delta);
  rdp_epsilon_result r;
  r.kind = bound_kind::upper_bound;
  r.tight = false;
  double best = kInf;
  for (std::size_t k = 0; k < 4; ++k) {
    const rdp_conversion c = kAll[k];
    rdp_candidate& cand = r.candidates[k];
    cand.conversion = c;
    if (c == rdp_conversion::bs16) {
      if (!curve.rho()) continue;
      const double rho = *curve.rho();
      cand.applicable = true;
      cand.value = rdp_epsilon_at_order(c, 2.0, 2 * rho, delta);
      cand.alpha = rho > 0 ? 1 + std::sqrt(-std::log(delta) / rho) : kInf;
    } else {
      cand.applicable = true;
      const optimum o = minimise_over_orders(
          curve, [&](double alpha) { return rdp_epsilon_at_order(c, alpha, curve(alpha), delta); });
      cand.value = o.value;
      cand.alpha = o.alpha;
    }
    cand.value = std::max(cand.value, 0.0);  // (ε, δ)-DP with ε < 0 implies (0, δ)-DP
    if (cand.value < best) {
      best = cand.value;
      r.conversion = c;
      r.alpha = cand.alpha;
    }
  }
  r.value = r.upper = best;
  r.lower = best;
  if (!std::isfinite(best)) {
    r.termination = termination_type::failure;
    r.message = "no conversion gave a finite epsilon";
  }
  return r;
}

rdp_delta_result rdp_delta(const rdp_curve& curve, double epsilon) {
  check_nonnegative("rdp_delta", "epsilon", epsilon);
  rdp_delta_result r;
  r.kind = bound_kind::upper_bound;
  r.tight = false;
  double best = kInf;
  for (std::size_t k = 0; k < 4; ++k) {
    const rdp_conversion c = kAll[k];
    rdp_candidate& cand = r.candidates[k];
    cand.conversion = c;
    double log_delta = kInf;
    if (c == rdp_conversion::bs16) {
      if (!curve.rho()) continue;
      cand.applicable = true;
      log_delta = rdp_log_delta_at_order(c, 2.0, 2 * *curve.rho(), epsilon);
      cand.alpha = *curve.rho() > 0 ? epsilon / (2 * *curve.rho()) + 0.5 : kInf;
    } else {
      cand.applicable = true;
      const optimum o = minimise_over_orders(curve, [&](double alpha) {
        return rdp_log_delta_at_order(c, alpha, curve(alpha), epsilon);
      });
      log_delta = o.value;
      cand.alpha = o.alpha;
    }
    cand.value = std::min(exp_upper(log_delta), 1.0);
    if (log_delta < best) {
      best = log_delta;
      r.conversion = c;
      r.alpha = cand.alpha;
    }
  }
  r.log_value = best;
  r.value = std::min(exp_upper(best), 1.0);
  return r;
}

}  // namespace dpkit::divergence
