#include "support/exact_curves.hpp"

#include <algorithm>
#include <boost/math/constants/constants.hpp>
#include <boost/math/special_functions/erf.hpp>
#include <boost/math/tools/roots.hpp>
#include <cmath>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace dpkit::test {
namespace {

using boost::multiprecision::abs;
using boost::multiprecision::exp;
using boost::multiprecision::expm1;
using boost::multiprecision::log;
using boost::multiprecision::log1p;
using boost::multiprecision::sqrt;

const real50 kHalf = real50(1) / 2;
const real50 kMinusInf = -std::numeric_limits<real50>::infinity();

// log Φ̄(x) = log P(Z > x): erfc at 50 digits while it is far from underflow, then the
// asymptotic series log Φ̄(x) = −x²/2 − log(x√(2π)) + log Σ_n (−1)^n (2n − 1)!!/x^{2n}, whose
// first 25 terms at x ≥ 1000 leave less than 1e-100.
real50 log_normal_sf(const real50& x) {
  if (x < 1000) {
    const real50 v = kHalf * boost::math::erfc(x / boost::math::constants::root_two<real50>());
    return v > 0 ? log(v) : kMinusInf;
  }
  const real50 x2 = x * x;
  real50 term = 1, sum = 1;
  for (int n = 1; n <= 25; ++n) {
    term *= -real50(2 * n - 1) / x2;
    sum += term;
  }
  return -x2 / 2 - log(x * boost::math::constants::root_two_pi<real50>()) + log(sum);
}
real50 log_normal_cdf(const real50& x) {
  return log_normal_sf(-x);
}

// log(e^a + e^b) and log(e^a − e^b) (−∞ where e^b ≥ e^a).
real50 log_add(const real50& a, const real50& b) {
  if (a == kMinusInf) return b;
  if (b == kMinusInf) return a;
  return a > b ? a + log1p(exp(b - a)) : b + log1p(exp(a - b));
}
real50 log_sub(const real50& a, const real50& b) {
  if (b == kMinusInf) return a;
  if (!(a > b)) return kMinusInf;
  return a + log(-expm1(b - a));
}

// log(e^ε − 1 + q) for ε ≥ 0, q ∈ (0, 1].
real50 log_expm1_plus(const real50& e, const real50& q) {
  if (e > 1) return e + log1p(-(1 - q) * exp(-e));
  return log(expm1(e) + q);
}

// log δ(ε) of an N(m, v) privacy loss (its law under P): log E_P[(1 − e^{ε − L})₊].
real50 log_gaussian_loss_delta(const real50& e, const real50& m, const real50& v) {
  const real50 sd = sqrt(v);
  const real50 a = (e - m) / sd;
  return log_sub(log_normal_sf(a), e - m + v / 2 + log_normal_sf(a + sd));
}

// log C(n, k) at 50 digits.
real50 log_binomial(long long n, long long k) {
  using boost::multiprecision::lgamma;
  return lgamma(real50(n + 1)) - lgamma(real50(k + 1)) - lgamma(real50(n - k + 1));
}

}  // namespace

delta_curve gaussian_curve(const real50& mu) {
  return [mu](const real50& e) {
    if (mu == 0) return kMinusInf;
    if (mu < real50(1e-20) && e < real50(1e-10)) {
      // Φ(a) and e^ε Φ(a − μ), a = μ/2 − ε/μ, agree to about −log10 μ digits, which 50 digits do
      // not hold for μ below 1e-40 (σ = 1e58 once gave "exact ε = 0" where it is 3.6e-56).
      // Cancellation-free: δ = [Φ(a) − Φ(a − μ)] − (e^ε − 1) Φ(a − μ), and with m = −ε/μ, the
      // interval's midpoint, Φ(a) − Φ(a − μ) = φ(m) ∫_{−μ/2}^{μ/2} cosh(mu) e^{−u²/2} du
      // = φ(m) μ (1 + (m² − 1) μ²/24) up to a relative O((mμ)⁴ + μ⁴) = O(ε⁴ + μ⁴) < 1e-40. The
      // two parts left differ by a relative ~1/m² (at most a few digits for δ ≥ 1e-300).
      const real50 m = -e / mu;
      const real50 log_interval = -m * m / 2 - log(boost::math::constants::root_two_pi<real50>()) +
                                  log(mu) + log1p((m * m - 1) * mu * mu / 24);
      const real50 tail = e == 0 ? kMinusInf : log(expm1(e)) + log_normal_cdf(m - mu / 2);
      return log_sub(log_interval, tail);
    }
    return log_sub(log_normal_cdf(-e / mu + mu / 2), e + log_normal_cdf(-e / mu - mu / 2));
  };
}

delta_curve poisson_one_step_curve(double sigma_d, double q_d) {
  const real50 s = sigma_d, q = q_d;
  return [s, q](const real50& e) {
    const real50 log_shift = log_expm1_plus(e, q);  // log(e^ε − 1 + q)
    const real50 xs = s * s * (log_shift - log(q)) + kHalf;
    const real50 remove =
        log_sub(log(q) + log_normal_sf((xs - 1) / s), log_shift + log_normal_sf(xs / s));
    real50 add = kMinusInf;
    const real50 a = exp(-e) - (1 - q);
    if (a > 0) {
      const real50 xa = s * s * log(a / q) + kHalf;
      add = log_sub(log(1 - exp(e) * (1 - q)) + log_normal_cdf(xa / s),
                    e + log(q) + log_normal_cdf((xa - 1) / s));
    }
    return remove > add ? remove : add;
  };
}

delta_curve poisson_replace_one_one_step_curve(double sigma_d, double q_d) {
  const real50 s = sigma_d, q = q_d;
  return [s, q](const real50& e) {
    const real50 c = 1 / (2 * s * s);
    const real50 log_1mq = q < 1 ? log1p(-q) : kMinusInf;
    // log P(x)/Q(x), increasing in x, 0 at x = 0, unbounded above (the N(1) component).
    auto log_ratio = [&](const real50& x) {
      return log_add(log_1mq, log(q) + (2 * x - 1) * c) -
             log_add(log_1mq, log(q) + (-2 * x - 1) * c);
    };
    real50 lo = 0, hi = 1;
    while (log_ratio(hi) < e) hi *= 2;
    for (int i = 0; i < 400 && hi - lo > real50("1e-48") * hi; ++i) {
      const real50 mid = (lo + hi) / 2;
      (log_ratio(mid) < e ? lo : hi) = mid;
    }
    const real50 x = (lo + hi) / 2;
    // δ = ∫_{x > x*} (P − e^ε Q) = q[Φ̄((x*−1)/σ) − e^ε Φ̄((x*+1)/σ)] − (1−q)(e^ε − 1)Φ̄(x*/σ),
    // each part of size q or e^ε − 1. (The difference of the two tails, each ≈ Φ̄(x*/σ) ≈ 1/2,
    // lost q below 1e-50 entirely: at q = 2.3e-104 it read δ(0) = 0 and ε = 0, where the
    // exact ε is 21 906 — domain sweep case 24689.)
    const real50 part_q =
        log(q) + log_sub(log_normal_sf((x - 1) / s), e + log_normal_sf((x + 1) / s));
    if (e == 0) return part_q;
    // log(e^ε − 1) without forming e^ε, which leaves even this type's range near ε = 1.5e9.
    const real50 log_expm1 = e > 1 ? e + log1p(-exp(-e)) : log(expm1(e));
    const real50 part_rest = log_1mq + log_expm1 + log_normal_sf(x / s);
    return log_sub(part_q, part_rest);
  };
}

delta_curve wor_one_step_curve(double sigma_d, double q_d) {
  const real50 q = q_d;
  const delta_curve g = gaussian_curve(2 / real50(sigma_d));
  return [q, g](const real50& e) { return log(q) + g(log_expm1_plus(e, q) - log(q)); };
}

std::optional<delta_curve> poisson_small_sigma_curve(double sigma_d, double q_d, long long steps) {
  if (!(sigma_d <= 0.005) || steps < 1) return std::nullopt;
  const real50 s = sigma_d, q = q_d;
  const real50 log_q = log(q), log_1mq = q_d < 1 ? real50(log1p(-q)) : kMinusInf;
  auto log_weight = [&](long long k) {
    real50 lw = log_binomial(steps, k) + real50(k) * log_q;
    if (k < steps) lw += real50(steps - k) * log_1mq;
    return lw;
  };
  // The binomial weights that matter: a term of weight w adds at most w to δ, and the curve is
  // asked for δ ≥ 1e-300 (e^{−690.8}) only, so weights below e^{−830} — less than e^{−139} of
  // any δ asked for — are left out (not weights far below the largest: at δ = 1e-238 the
  // crossing sits among weights of e^{−550}). The mode is ⌊(T + 1)q⌋; the weights fall off on
  // both sides of it.
  const long long mode =
      std::min(steps, static_cast<long long>(std::floor((static_cast<double>(steps) + 1) * q_d)));
  const real50 floor = -830;
  // The weights are log-concave in k, so those above the floor are one run about the mode:
  // scanned outward from it. (Scanned down from k = T they cost a 50-digit lgamma for every
  // k above the mode — 1e5 of them, ~15 s, at T = 1e5 and q = 1e-3.)
  std::vector<std::pair<long long, real50>> terms;  // (k, log weight), k ≥ 1 (k = 0: δ = 0)
  // From `from` in steps of ±1 while the weights stay above the floor; false past 4000 terms.
  auto scan = [&](long long from, long long step) {
    for (long long k = from; k >= 1 && k <= steps; k += step) {
      const real50 lw = log_weight(k);
      if (lw < floor) return true;
      terms.emplace_back(k, lw);
      if (terms.size() > 4000) return false;
    }
    return true;
  };
  const long long start = std::max(1LL, mode);
  if (!scan(start, 1) || !scan(start - 1, -1)) return std::nullopt;
  // Each term's loss law, N(m_k, v_k), which does not depend on ε.
  struct term {
    real50 log_weight, mean, variance, sd;
  };
  std::vector<term> laws;
  laws.reserve(terms.size());
  for (const auto& [k, lw] : terms) {
    const real50 kk = k;
    real50 m = kk * (log_q + 1 / (2 * s * s));
    if (k < steps) m += real50(steps - k) * log_1mq;
    laws.push_back({lw, m, kk / (s * s), sqrt(kk) / s});
  }
  const real50 t = steps, log_2 = log(real50(2));
  return [log_1mq, t, laws, log_2](const real50& e) {
    // Term k adds w_k·[Φ̄(a_k) − e^{…}Φ̄(a_k + sd_k)] ≤ w_k·Φ̄(a_k), a_k = (ε − m_k)/sd_k, and
    // Φ̄(a) ≤ e^{−a²/2}/2 for a ≥ 0: a bound without erfc. The terms are summed in the order of
    // their bounds, down to bounds e^{−140} below the sum so far — the rest, at most 4 000
    // terms, add less than 1e-57 of it. (Summing every term took 50-digit erfc's of up to 4 000
    // terms per evaluation of the curve: 20-45 s per domain-sweep case at σ ≤ 0.005, about a
    // quarter of the full tier's time.)
    std::vector<std::pair<real50, const term*>> order;
    order.reserve(laws.size());
    for (const term& x : laws) {
      const real50 a = (e - x.mean) / x.sd;
      order.emplace_back(a > 0 ? x.log_weight - a * a / 2 - log_2 : x.log_weight, &x);
    }
    std::sort(order.begin(), order.end(),
              [](const auto& x, const auto& y) { return x.first > y.first; });
    real50 remove = kMinusInf;
    for (const auto& [bound, x] : order) {
      if (remove != kMinusInf && bound < remove - 140) break;
      remove = log_add(remove, x->log_weight + log_gaussian_loss_delta(e, x->mean, x->variance));
    }
    // add: δ = 1 − (1 − q)^T e^ε where positive.
    const real50 x = t * log_1mq + e;
    const real50 add = x < 0 ? log(-expm1(x)) : kMinusInf;
    return remove > add ? remove : add;
  };
}

delta_curve binomial_gaussian_curve(long long n, double q_d, double s_d) {
  const real50 s = s_d, q = q_d, c = 1 / (s * s);
  std::vector<real50> log_w;
  for (long long k = 0; k <= n; ++k)
    log_w.push_back(log_binomial(n, k) + real50(k) * log(q) + real50(n - k) * log1p(-q));
  // L(u) and L′(u), increasing in u, L from log w_0 (u → −∞) to +∞.
  auto value_slope = [log_w, c](const real50& u) {
    std::vector<real50> t(log_w.size());
    real50 top = kMinusInf;
    for (std::size_t k = 0; k < t.size(); ++k) {
      const real50 kk = static_cast<long long>(k);
      t[k] = log_w[k] + (kk * u - kk * kk / 2) * c;
      if (t[k] > top) top = t[k];
    }
    real50 sum = 0, slope = 0;
    for (std::size_t k = 0; k < t.size(); ++k) {
      const real50 x = exp(t[k] - top);
      sum += x;
      slope += static_cast<long long>(k) * c * x;
    }
    return std::pair<real50, real50>{top + log(sum), slope / sum};
  };
  // The u with L(u) = level (level > log w_0): Newton's method kept inside a bisection bracket,
  // to ~1e-47 relative.
  auto root = [value_slope](const real50& level) {
    real50 lo = -1, hi = 1;
    while (value_slope(hi).first < level) hi *= 2;
    while (value_slope(lo).first > level) lo *= 2;
    real50 u = (lo + hi) / 2;
    for (int i = 0; i < 400; ++i) {
      const auto [v, d] = value_slope(u);
      (v < level ? lo : hi) = u;
      real50 next = d > 0 ? u - (v - level) / d : (lo + hi) / 2;
      if (!(next > lo && next < hi)) next = (lo + hi) / 2;
      if (abs(next - u) <= real50("1e-47") * (1 + abs(u)) ||
          hi - lo <= real50("1e-47") * (1 + abs(u)))
        return next;
      u = next;
    }
    return u;
  };
  return [log_w, s, root](const real50& e) {
    const real50 u = root(e);
    real50 p_tail = kMinusInf;
    for (std::size_t k = 0; k < log_w.size(); ++k)
      p_tail = log_add(p_tail, log_w[k] + log_normal_sf((u - static_cast<long long>(k)) / s));
    const real50 remove = log_sub(p_tail, e + log_normal_sf(u / s));
    real50 add = kMinusInf;
    if (log_w.front() < -e) {
      const real50 v = root(-e);
      real50 p_head = kMinusInf;
      for (std::size_t k = 0; k < log_w.size(); ++k)
        p_head = log_add(p_head, log_w[k] + log_normal_cdf((v - static_cast<long long>(k)) / s));
      add = log_sub(log_normal_cdf(v / s), e + p_head);
    }
    return remove > add ? remove : add;
  };
}

real50 exact_epsilon(const delta_curve& curve, double delta_d) {
  const real50 target = log(real50(delta_d));
  // −∞ (δ = 0) replaced by a finite floor, so that the root finder sees a sign.
  auto f = [&](const real50& e) {
    const real50 v = curve(e);
    return (v == kMinusInf ? real50(-1e40) : v) - target;
  };
  if (f(0) <= 0) return 0;
  // The bracket: hi squared while δ(hi) is above the target, then a geometric bisection down
  // to a factor 2. At tiny σ the root is astronomically large (ε ≈ 1e115 at σ = 1e-57), and
  // doubling from 1 took some 400 evaluations of the 50-digit curve there (11 s for one sweep
  // case); this takes O(log log ε).
  real50 lo = 0, hi = 1;
  while (f(hi) > 0) {
    lo = hi;
    hi = hi < 2 ? 2 * hi : hi * hi;
  }
  while (lo > 0 && hi > 2 * lo) {
    const real50 mid = sqrt(lo * hi);
    (f(mid) > 0 ? lo : hi) = mid;
  }
  // log δ(ε) is decreasing: TOMS 748 to ~150 bits.
  std::uintmax_t iterations = 300;
  const auto r = boost::math::tools::toms748_solve(
      f, lo, hi, boost::math::tools::eps_tolerance<real50>(150), iterations);
  return (r.first + r.second) / 2;
}

}  // namespace dpkit::test
