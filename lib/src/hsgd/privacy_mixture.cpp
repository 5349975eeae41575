// The mixture over the differing record's position in the HSGD privacy surrogate
// (hsgd/privacy.hpp; LKSP25 Thm 4.3, eq. (15), and (21), (24)): the global adaptive
// Gauss–Kronrod s-integral whose nodes every candidate pair shares (continuous positions), the
// exact sum over the n = T·d SGD steps (discrete positions), and their statuses.
#include <algorithm>
#include <array>
#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "detail/privacy.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/roots.hpp"

namespace dpkit::hsgd::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = std::numeric_limits<double>::epsilon();

// ---- the adaptive s-integral -------------------------------------------------------------------
//
// Global adaptive Gauss–Kronrod (7, 15) (the QUADPACK QAG strategy: bisect the interval with the
// largest error estimate |K₁₅ − G₇| until the total meets the tolerance). The nodes and weights
// are Boost.Math's; the driver is ours because Boost's integrators are scalar-valued, while here
// the sup-over-pairs integrand and every per-pair integrand must share the nodes (each node
// costs O(#pairs) kernels, shared by all components).
struct gk_rule {
  std::array<double, 15> x{}, wk{}, wg{};
  gk_rule() {
    using boost::math::quadrature::gauss;
    using boost::math::quadrature::gauss_kronrod;
    const auto& ax = gauss_kronrod<double, 15>::abscissa();  // 0, then x₁ > … (8 values)
    const auto& kw = gauss_kronrod<double, 15>::weights();
    const auto& gw = gauss<double, 7>::weights();  // at 0 and at the even Kronrod indices
    x[0] = ax[0];
    wk[0] = kw[0];
    wg[0] = gw[0];
    for (std::size_t i = 1; i < 8; ++i) {
      x[2 * i - 1] = ax[i];
      x[2 * i] = -ax[i];
      wk[2 * i - 1] = wk[2 * i] = kw[i];
      wg[2 * i - 1] = wg[2 * i] = i % 2 == 0 ? gw[i / 2] : 0.0;
    }
  }
};

const gk_rule& rule() {
  static const gk_rule r;
  return r;
}

struct mixture_integral : solver_status {
  std::vector<double> value, error;  // ∫ f_c ds over the pieces, per component
  bool infinite = false;             // the sup integrand is +inf somewhere
  double max_g = -kInf;              // largest finite (α−1)D seen
  double inf_at = NAN;
};

// ∫_{pieces} f_c(s) ds, f_c = e^{g_c − shift} − e^{−shift} (expm1(g_c) when shift = 0), with
// component 0 the sup over the candidates and components 1.. the candidates (when per_pair).
//
// Kinks: every candidate's integrand is smooth between the jumps of γ and the release times (the
// initial cuts), but the sup has a kink wherever the maximising candidate changes, and
// there the Gauss–Kronrod error estimate is unreliable (measured: an 8× under-estimate on the
// LKSP25 §5 setup). So an interval whose nodes do not all share (within 1e-12) the maximiser
// of its leftmost node is split at the crossing of the two candidates, found by TOMS 748
// (core/roots.hpp) between the adjacent nodes where the maximiser changes: each side is then
// smooth again and the rule converges at its usual rate.
mixture_integral integrate(evaluator& ev,
                           std::size_t cands,
                           const std::vector<double>& cuts,
                           double shift,
                           const mixture_options& o,
                           double T) {
  const gk_rule& R = rule();
  const std::size_t nc = 1 + (o.per_pair ? cands : 0);
  const double end = cuts.back();
  mixture_integral out;
  std::vector<double> g(cands), gnode(15 * cands), sups(15);
  std::vector<std::pair<double, double>> iv, pending;
  std::vector<double> est, err;  // per interval × component
  std::vector<double> K(nc), G(nc), A(nc), fv(15 * nc);
  const double e_shift = std::exp(-shift);
  auto f = [&](double gv) { return shift == 0 ? std::expm1(gv) : std::exp(gv - shift) - e_shift; };
  // The Kronrod nodes in increasing s (R.x: 0, then ±x₁ > ±x₂ > …).
  static constexpr std::array<std::size_t, 15> by_s = {2,  4,  6, 8, 10, 12, 14, 0,
                                                       13, 11, 9, 7, 5,  3,  1};
  enum class outcome { stored, split, stop };
  // Evaluates [a, b]: appends it to iv/est/err, or asks for a split at `split` (a kink of the
  // sup), or stops (NaN, or the sup is +inf).
  // Kink detection runs twice: first on 5 of the 15 nodes (spread over the interval), so that an
  // interval with a kink between them is split after 5 evaluations instead of 15 (measured on
  // the LKSP25 §5 setup: 24 % fewer evaluations); then on all 15, as before.
  static constexpr std::array<std::size_t, 5> probes = {0, 4, 7, 10, 14};  // positions in by_s
  auto eval = [&](double a, double b, bool may_split, double& split) {
    const double mid = 0.5 * (a + b), half = 0.5 * (b - a);
    // Evaluates Kronrod node i; false (and out says why) on NaN or +inf.
    auto node = [&](std::size_t i) {
      const double s = mid + half * R.x[i];
      const double sup = ev.evaluate(s, g);
      ++out.evaluations;
      if (std::isnan(sup)) {
        out.termination = termination_type::failure;
        out.message = "a Rényi divergence is NaN at s = " + format_value(s);
        return false;
      }
      if (sup == kInf) {
        out.infinite = true;
        out.inf_at = s;
        return false;
      }
      out.max_g = std::max(out.max_g, sup);
      sups[i] = sup;
      std::copy(g.begin(), g.end(), gnode.begin() + static_cast<std::ptrdiff_t>(i * cands));
      fv[i * nc] = f(sup);
      for (std::size_t c = 1; c < nc; ++c) fv[i * nc + c] = f(g[c - 1]);
      return true;
    };
    // A kink among the evaluated nodes `order` (increasing s): the first node whose sup is not
    // attained by the first node's maximiser, the crossing found between it and its predecessor.
    auto kink = [&](const std::size_t* order, std::size_t count) {
      auto leader = [&](std::size_t n) {
        const double* gn = gnode.data() + n * cands;
        return static_cast<std::size_t>(std::max_element(gn, gn + cands) - gn);
      };
      const std::size_t lead = leader(order[0]);
      for (std::size_t k = 1; k < count; ++k) {
        const std::size_t j = order[k];
        if (!(sups[j] - gnode[j * cands + lead] > 1e-12 * std::abs(sups[j]))) continue;
        const std::size_t other = leader(j);
        const double lo = mid + half * R.x[order[k - 1]], hi = mid + half * R.x[j];
        auto gap = [&](double s) { return ev.evaluate_one(s, lead) - ev.evaluate_one(s, other); };
        double at = lo;
        if (gap(lo) > 0) {
          root_options ro;
          ro.absolute_tolerance = 1e-10 * (b - a);
          ro.max_evaluations = 60;
          const root_result rr = find_root(gap, lo, hi, ro);
          at = rr.termination == termination_type::failure ? 0.5 * (lo + hi) : rr.root;
        }
        if (at - a > 1e-9 * (b - a) && b - at > 1e-9 * (b - a)) {
          split = at;
          return true;
        }
        return false;
      }
      return false;
    };
    std::array<bool, 15> done{};
    std::array<std::size_t, 5> probe_nodes{};
    for (std::size_t k = 0; k < probes.size(); ++k) {
      probe_nodes[k] = by_s[probes[k]];
      if (!node(probe_nodes[k])) return outcome::stop;
      done[probe_nodes[k]] = true;
    }
    const bool check = may_split && cands > 1;
    if (check && kink(probe_nodes.data(), probe_nodes.size())) return outcome::split;
    for (std::size_t i = 0; i < 15; ++i)
      if (!done[i] && !node(i)) return outcome::stop;
    if (check && kink(by_s.data(), by_s.size())) return outcome::split;
    std::fill(K.begin(), K.end(), 0.0);
    std::fill(G.begin(), G.end(), 0.0);
    for (std::size_t i = 0; i < 15; ++i)
      for (std::size_t c = 0; c < nc; ++c) {
        K[c] += R.wk[i] * fv[i * nc + c];
        G[c] += R.wg[i] * fv[i * nc + c];
      }
    // QUADPACK's error estimate (dqk15; Piessens et al. 1983, §2.2.1): with resasc = ∫|f − mean|
    // by the Kronrod rule, err = resasc·min(1, (200|K − G|/resasc)^{3/2}) — more cautious than
    // |K − G| until the rule is in its asymptotic regime.
    std::fill(A.begin(), A.end(), 0.0);
    for (std::size_t i = 0; i < 15; ++i)
      for (std::size_t c = 0; c < nc; ++c) A[c] += R.wk[i] * std::abs(fv[i * nc + c] - 0.5 * K[c]);
    iv.emplace_back(a, b);
    for (std::size_t c = 0; c < nc; ++c) {
      const double resasc = half * A[c];
      double e = std::abs(half * (K[c] - G[c]));
      if (resasc > 0 && e > 0) e = resasc * std::min(1.0, std::pow(200 * e / resasc, 1.5));
      est.push_back(half * K[c]);
      err.push_back(std::max(e, 50 * kEps * std::abs(half * K[c])));
    }
    return outcome::stored;
  };
  // Evaluates every pending interval (splitting at kinks while the budget lasts).
  auto drain = [&]() {
    while (!pending.empty()) {
      const auto [a, b] = pending.back();
      pending.pop_back();
      const bool may_split =
          static_cast<long long>(iv.size() + pending.size()) + 2 <= o.max_intervals &&
          b - a > 1e-10 * end;
      double split = NAN;
      switch (eval(a, b, may_split, split)) {
        case outcome::stored:
          break;
        case outcome::split:
          pending.emplace_back(split, b);
          pending.emplace_back(a, split);
          break;
        case outcome::stop:
          return false;
      }
    }
    return true;
  };
  for (std::size_t i = cuts.size() - 1; i > 0; --i) pending.emplace_back(cuts[i - 1], cuts[i]);
  if (!drain()) return out;
  out.value.assign(nc, 0);
  out.error.assign(nc, 0);
  while (true) {
    std::fill(out.value.begin(), out.value.end(), 0.0);
    std::fill(out.error.begin(), out.error.end(), 0.0);
    for (std::size_t i = 0; i < iv.size(); ++i)
      for (std::size_t c = 0; c < nc; ++c) {
        out.value[c] += est[i * nc + c];
        out.error[c] += err[i * nc + c];
      }
    // Tolerance on (1/T)∫: max(absolute, relative·value), the same for every component.
    const double tol =
        std::max(o.absolute_tolerance * T, o.relative_tolerance * std::abs(out.value[0]));
    const double worst_total = *std::max_element(out.error.begin(), out.error.end());
    if (worst_total <= tol) return out;
    if (static_cast<long long>(iv.size()) >= o.max_intervals) {
      out.termination = termination_type::max_iterations;
      out.message = "the s-integral used max_intervals = " + format_value(o.max_intervals) +
                    " Gauss-Kronrod intervals; estimated error " + format_value(worst_total / T) +
                    " > tolerance " + format_value(tol / T);
      return out;
    }
    std::size_t worst = 0;
    double worst_err = -1;
    for (std::size_t i = 0; i < iv.size(); ++i) {
      const double e = *std::max_element(err.begin() + static_cast<std::ptrdiff_t>(i * nc),
                                         err.begin() + static_cast<std::ptrdiff_t>((i + 1) * nc));
      if (e > worst_err) {
        worst_err = e;
        worst = i;
      }
    }
    const auto [a, b] = iv[worst];
    const double mid = 0.5 * (a + b);
    if (!(mid > a && mid < b)) {  // the interval cannot be split further in double precision
      out.termination = termination_type::max_iterations;
      out.message =
          "the s-integral cannot refine below the resolution of double at s = " + format_value(a);
      return out;
    }
    // Remove the worst interval (the last one moves into its slot), then evaluate its halves.
    const std::size_t last = iv.size() - 1;
    if (worst != last) {
      iv[worst] = iv[last];
      std::copy(est.begin() + static_cast<std::ptrdiff_t>(last * nc), est.end(),
                est.begin() + static_cast<std::ptrdiff_t>(worst * nc));
      std::copy(err.begin() + static_cast<std::ptrdiff_t>(last * nc), err.end(),
                err.begin() + static_cast<std::ptrdiff_t>(worst * nc));
    }
    iv.pop_back();
    est.resize(last * nc);
    err.resize(last * nc);
    pending.emplace_back(mid, b);
    pending.emplace_back(a, mid);
    if (!drain()) return out;
  }
}

// The initial partition of [0, end]: the schedule's jumps (the integrand jumps with h = γ(s)/d),
// the release times before end (blocks change sides there), points graded geometrically
// towards 0 (where w(s) rises from 0) and one point before end (the fresh-jump end), on the
// fastest relaxation scale 1/(2γκ_max) of the eigen-variances. (Measured on the LKSP25 §5
// setup: without the graded points the rule converged falsely at one release time, by 1e-6.)
std::vector<double> initial_cuts(const gaussian_law& law, const release& rel, double end) {
  std::vector<double> cuts{0.0, end};
  for (double b : law.schedule().breakpoints(end)) cuts.push_back(b);
  for (double t : rel.times)
    if (t < end) cuts.push_back(t);
  double kappa_max = 0;
  for (std::size_t g = 0; g < law.group_count(); ++g) kappa_max = std::max(kappa_max, law.kappa(g));
  const double rate = law.schedule().max_rate(end) * kappa_max;
  if (rate > 0) {
    for (double x = 1 / (2 * rate); x < end; x *= 4) cuts.push_back(x);
    if (1 / (2 * rate) < end) cuts.push_back(end - 1 / (2 * rate));
  }
  std::sort(cuts.begin(), cuts.end());
  std::vector<double> out;
  for (double c : cuts)
    if (out.empty() || c - out.back() > 1e-12 * end) out.push_back(c);
  out.back() = end;
  if (out.size() < 2) out = {0.0, end};
  return out;
}

void inherit_law_status(solver_status& s, const gaussian_law& law) {
  if (law.status().termination == termination_type::converged) return;
  s.termination = law.status().termination;
  s.message = "the Gaussian law: " + law.status().message;
}

}  // namespace

void merge_status(solver_status& into, const solver_status& from) {
  if (from.termination == termination_type::failure ||
      (from.termination == termination_type::max_iterations &&
       into.termination == termination_type::converged))
    into.termination = from.termination;
  if (!from.message.empty()) into.message += (into.message.empty() ? "" : "; ") + from.message;
  into.evaluations += from.evaluations;
}

namespace {

std::string vacuous_message(double s, double alpha) {
  std::string m = "alpha*V_2 + (1-alpha)*V_1 is not positive definite at s = ";
  m += format_value(s);
  m += " (D_alpha = +inf): the bound is vacuous at alpha = ";
  m += format_value(alpha);
  return m;
}

// Per-pair ε from the per-component values (component 1 + q·per, and with symmetric order also
// 2 + q·per, the pair's second order), and the worst pair.
template <class Eps>
void assign_pair_epsilons(rdp_value& out, std::size_t per, Eps eps_of) {
  double best = -kInf;
  for (std::size_t q = 0; q < out.pair_epsilons.size(); ++q) {
    out.pair_epsilons[q] = eps_of(1 + q * per);
    if (per == 2) out.pair_epsilons[q] = std::max(out.pair_epsilons[q], eps_of(2 + q * per));
    if (out.pair_epsilons[q] > best) {
      best = out.pair_epsilons[q];
      out.worst_pair = static_cast<long long>(q);
    }
  }
}

// Both mixtures start from `out` with time, pair_epsilons and the law's status set (mixture_rdp).
void continuous_mixture_rdp(rdp_value& out,
                            const gaussian_law& law,
                            const prepared& P,
                            const release& rel,
                            double alpha,
                            const mixture_options& o) {
  const double T = law.horizon();
  const double end = rel.times.back();
  if (end <= 0) {
    out.epsilon = 0;
    out.abs_error = 0;
    return;
  }
  evaluator ev(law, P, rel, alpha, o.order);
  const std::vector<double> cuts = initial_cuts(law, rel, end);
  // exp((α−1)D) overflows beyond ≈ 709: then integrate e^{g − shift} with shift = the largest g
  // seen (log-sum-exp scaling), ε = [shift + log(e^{−shift} + I/T)]/(α − 1).
  double shift = 0;
  mixture_integral I;
  for (int attempt = 0; attempt < 3; ++attempt) {
    I = integrate(ev, ev.candidates(), cuts, shift, o, T);
    if (I.infinite || I.termination == termination_type::failure || I.max_g <= 600) break;
    if (shift >= I.max_g - 100) break;
    shift = I.max_g;
  }
  merge_status(out, I);
  if (I.termination == termination_type::failure) {
    out.epsilon = NAN;
    return;
  }
  if (I.infinite) {
    out.epsilon = kInf;
    out.abs_error = 0;
    std::fill(out.pair_epsilons.begin(), out.pair_epsilons.end(), kInf);
    out.message += (out.message.empty() ? "" : "; ") + vacuous_message(I.inf_at, alpha);
    return;
  }
  auto eps = [&](double value) {
    // (T − t)/T + (1/T)∫e^{(α−1)D} = 1 + e^{shift}·I/T (LKSP25 eq. (15))
    const double total =
        shift == 0 ? std::log1p(value / T) : shift + std::log(std::exp(-shift) + value / T);
    return total / (alpha - 1);
  };
  out.epsilon = eps(I.value[0]);
  out.abs_error = std::abs(eps(I.value[0] + I.error[0]) - out.epsilon);
  if (o.per_pair)
    assign_pair_epsilons(out, ev.per_pair(), [&](std::size_t c) { return eps(I.value[c]); });
  return;
}

// The discrete mixture (position_mixture::discrete, docs/hsgd.md): with n = T·d steps and
// the differing record at step ℓ ~ U{1..n}, entering at s_ℓ = (ℓ − 1)/d, Lemma C.3 with the
// uniform law on the n positions gives
//   e^{(α−1)ε} ≤ (1/n)[#{ℓ : s_ℓ ≥ t} + Σ_{ℓ: s_ℓ < t} e^{(α−1)D(s_ℓ)}] = 1 + (1/n)Σ expm1(g_ℓ),
// summed exactly (expm1 for accuracy at small g; log-sum-exp form once some g exceeds 600).
void discrete_mixture_rdp(rdp_value& out,
                          const gaussian_law& law,
                          const prepared& P,
                          const release& rel,
                          double alpha,
                          const mixture_options& o) {
  const double d = static_cast<double>(law.dimension());
  const auto n = static_cast<long long>(std::llround(law.horizon() * d));
  // Steps with s_ℓ = (ℓ − 1)/d < t_J: ℓ − 1 < t_J·d (t_J·d is an integer up to rounding).
  const long long m =
      std::clamp<long long>(static_cast<long long>(std::ceil(out.time * d - 1e-9)), 0, n);
  evaluator ev(law, P, rel, alpha, o.order);
  const std::size_t cands = ev.candidates();
  const std::size_t nc = 1 + (o.per_pair ? cands : 0);
  std::vector<double> g(cands), small(nc, 0.0), big(nc, 0.0), top(nc, -kInf);
  auto add = [&](std::size_t c, double v) {
    small[c] += std::expm1(v);
    if (v > top[c]) {
      big[c] = big[c] * std::exp(top[c] - v) + 1;
      top[c] = v;
    } else {
      big[c] += std::exp(v - top[c]);
    }
  };
  for (long long l = 1; l <= m; ++l) {
    const double s = static_cast<double>(l - 1) / d;
    const double sup = ev.evaluate(s, g);
    ++out.evaluations;
    if (std::isnan(sup)) {
      out.termination = termination_type::failure;
      out.message = "a Rényi divergence is NaN at s = " + format_value(s);
      out.epsilon = NAN;
      return;
    }
    if (sup == kInf) {
      out.epsilon = kInf;
      out.abs_error = 0;
      std::fill(out.pair_epsilons.begin(), out.pair_epsilons.end(), kInf);
      out.message += (out.message.empty() ? "" : "; ") + vacuous_message(s, alpha);
      return;
    }
    add(0, sup);
    for (std::size_t c = 1; c < nc; ++c) add(c, g[c - 1]);
  }
  const auto nd = static_cast<double>(n);
  auto eps = [&](std::size_t c) {
    if (m == 0) return 0.0;
    const double total =
        top[c] <= 600
            ? std::log1p(small[c] / nd)
            : top[c] + std::log(static_cast<double>(n - m) * std::exp(-top[c]) / nd + big[c] / nd);
    return total / (alpha - 1);
  };
  out.epsilon = eps(0);
  out.abs_error = 0;  // an exact finite sum: no quadrature error
  if (o.per_pair) assign_pair_epsilons(out, ev.per_pair(), eps);
  return;
}

}  // namespace

rdp_value mixture_rdp(const gaussian_law& law,
                      const prepared& P,
                      const release& rel,
                      double alpha,
                      const mixture_options& o) {
  rdp_value out;
  out.time = rel.times.back();
  if (o.per_pair) out.pair_epsilons.assign(P.m, 0.0);
  inherit_law_status(out, law);
  if (out.termination == termination_type::failure) {
    out.epsilon = NAN;
    return out;
  }
  if (o.positions == position_mixture::discrete)
    discrete_mixture_rdp(out, law, P, rel, alpha, o);
  else
    continuous_mixture_rdp(out, law, P, rel, alpha, o);
  out.law_error =
      std::isfinite(out.epsilon) ? std::abs(out.epsilon) * law.interpolation_error() : 0.0;
  return out;
}

}  // namespace dpkit::hsgd::detail
