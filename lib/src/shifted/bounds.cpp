#include "dpkit/shifted/bounds.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <vector>

#include "dpkit/core/check.hpp"
#include "dpkit/core/normal.hpp"
#include "dpkit/core/roots.hpp"
#include "dpkit/shifted/interpolation.hpp"

namespace dpkit::shifted {
namespace {

// ---- argument checks: each names the field as the CLI flag's library spelling -------------

double sensitivity(const char* fn, const noisy_gradient_setting& s) {
  check_positive(fn, "sensitivity", s.sensitivity);
  return s.sensitivity;
}
double noise(const char* fn, const noisy_gradient_setting& s) {
  check_positive(fn, "noise", s.noise);
  return s.noise;
}
double learning_rate(const char* fn, const noisy_gradient_setting& s) {
  check_positive(fn, "learning_rate", s.learning_rate);
  return s.learning_rate;
}
double examples(const char* fn, const noisy_gradient_setting& s) {
  check_at_least(fn, "examples", s.examples, 1);
  return static_cast<double>(s.examples);
}
double steps(const char* fn, const noisy_gradient_setting& s) {
  check_at_least(fn, "steps", s.steps, 1);
  return static_cast<double>(s.steps);
}
double diameter(const char* fn, const noisy_gradient_setting& s) {
  check_positive(fn, "diameter", s.diameter);
  return s.diameter;
}
// c ∈ (0, 1) for the strongly convex closed forms, (0, 1] for the optimisation problem.
double strict_contraction(const char* fn, const noisy_gradient_setting& s) {
  if (!(s.contraction > 0 && s.contraction < 1))
    throw_domain_error(fn, "contraction", s.contraction, "in (0, 1) (strongly convex)");
  return s.contraction;
}
double any_contraction(const char* fn, const noisy_gradient_setting& s) {
  if (!(s.contraction > 0 && s.contraction <= 1))
    throw_domain_error(fn, "contraction", s.contraction, "in (0, 1]");
  return s.contraction;
}

// The cyclic layout: b | n, l = n/b batches per epoch, l | t, E = t/l epochs.
struct cyclic {
  double b, l, E;
  long long batches, epochs;
};
cyclic cyclic_layout(const char* fn, const noisy_gradient_setting& s) {
  check_at_least(fn, "batch_size", s.batch_size, 1);
  check_at_least(fn, "examples", s.examples, s.batch_size);
  if (s.examples % s.batch_size != 0)
    throw_domain_error(fn, "examples", format_value(s.examples),
                       "a multiple of batch_size = " + format_value(s.batch_size) +
                           " (l = n/b batches per epoch, BSA24 §4.2)");
  const long long l = s.examples / s.batch_size;
  check_at_least(fn, "steps", s.steps, l);
  if (s.steps % l != 0)
    throw_domain_error(fn, "steps", format_value(s.steps),
                       "a multiple of l = n/b = " + format_value(l) + " (whole epochs)");
  return {static_cast<double>(s.batch_size), static_cast<double>(l),
          static_cast<double>(s.steps / l), l, s.steps / l};
}

// 1 − c^k and 1 + c^k without cancellation for c near 1.
double one_minus_power(double c, double k) {
  return -std::expm1(k * std::log(c));
}
double power(double c, double k) {
  return std::exp(k * std::log(c));
}

gdp_bound make(double mu, std::string source, bound_kind kind = bound_kind::upper_bound) {
  gdp_bound g;
  g.mu = mu;
  g.kind = kind;
  g.source = std::move(source);
  return g;
}

// min over integers k ∈ [1, k_max] of a function convex in k with real minimiser near k_star.
template <class F>
std::pair<long long, double> best_integer(F f, double k_star, long long k_max) {
  long long best_k = 1;
  double best = f(1);
  const double lo = std::clamp(std::floor(k_star), 1.0, static_cast<double>(k_max));
  for (double k : {lo, lo + 1, static_cast<double>(k_max)}) {
    if (k < 1 || k > static_cast<double>(k_max)) continue;
    const double v = f(static_cast<long long>(k));
    if (v < best) {
      best = v;
      best_k = static_cast<long long>(k);
    }
  }
  return {best_k, best};
}

}  // namespace

double contraction(double eta, double m, double M) {
  constexpr const char* fn = "contraction";
  check_positive(fn, "learning_rate", eta);
  check_nonnegative(fn, "strong_convexity", m);
  check_positive(fn, "smoothness", M);
  if (m > M) throw_domain_error(fn, "strong_convexity", m, "<= smoothness = " + format_value(M));
  if (eta * M > 2)
    throw_domain_error(fn, "learning_rate", eta,
                       "<= 2/M = " + format_value(2 / M) + " (BSA24 Lemma 2.8)");
  return std::max(std::abs(1 - eta * m), std::abs(1 - eta * M));  // BSA24 Lemma 2.8
}

// ---- NoisyGD -------------------------------------------------------------------------------

gdp_bound noisy_gd_composition(const noisy_gradient_setting& s) {
  constexpr const char* fn = "noisy_gd_composition";
  const double L = sensitivity(fn, s), n = examples(fn, s), sigma = noise(fn, s), t = steps(fn, s);
  return make(L / (n * sigma) * std::sqrt(t), "BSA24 Thm 4.1 (composition)");  // Thm 4.1
}

gdp_bound noisy_gd_strongly_convex(const noisy_gradient_setting& s) {
  constexpr const char* fn = "noisy_gd_strongly_convex";
  const double L = sensitivity(fn, s), n = examples(fn, s), sigma = noise(fn, s), t = steps(fn, s),
               c = strict_contraction(fn, s);
  // BSA24 Thm 4.2: √((1 − c^t)/(1 + c^t)·(1 + c)/(1 − c))·L/(nσ)
  const double ratio = one_minus_power(c, t) / (1 + power(c, t)) * (1 + c) / (1 - c);
  gdp_bound g = make(std::sqrt(ratio) * L / (n * sigma), "BSA24 Thm 4.2");
  g.tau = 0;
  return g;
}

gdp_bound noisy_gd_constrained_convex(const noisy_gradient_setting& s) {
  constexpr const char* fn = "noisy_gd_constrained_convex";
  const double L = sensitivity(fn, s), n = examples(fn, s), sigma = noise(fn, s), t = steps(fn, s),
               eta = learning_rate(fn, s), D = diameter(fn, s);
  const double k = D * n / (eta * L);
  if (t < k)
    throw_domain_error(fn, "steps", format_value(s.steps),
                       ">= Dn/(eta L) = " + format_value(k) +
                           " (Thm 4.3's hypothesis; noisy_gd_constrained_convex_best_tau has "
                           "no such condition)");
  // BSA24 Thm 4.3: (1/σ)√(3LD/(ηn) + (L/n)²⌈Dn/(ηL)⌉)
  const double mu = std::sqrt(3 * L * D / (eta * n) + (L / n) * (L / n) * std::ceil(k)) / sigma;
  gdp_bound g = make(mu, "BSA24 Thm 4.3");
  g.tau = s.steps - static_cast<long long>(std::ceil(k));
  return g;
}

namespace {
// BSA24 Thm C.7 with s = ηL/n, σ ← ησ: μ(τ) = (1/σ)(L√k/n + D/(η√k)), k = t − τ.
double gd_constrained_mu(const char* fn, const noisy_gradient_setting& s, long long k) {
  const double L = sensitivity(fn, s), n = examples(fn, s), sigma = noise(fn, s),
               eta = learning_rate(fn, s), D = diameter(fn, s);
  const double kk = static_cast<double>(k);
  return (L * std::sqrt(kk) / n + D / (eta * std::sqrt(kk))) / sigma;
}
}  // namespace

gdp_bound noisy_gd_constrained_convex_at(const noisy_gradient_setting& s, long long tau) {
  constexpr const char* fn = "noisy_gd_constrained_convex_at";
  steps(fn, s);
  if (tau < 0 || tau >= s.steps)
    throw_domain_error(fn, "tau", format_value(tau), "in {0, ..., t - 1}");
  gdp_bound g = make(gd_constrained_mu(fn, s, s.steps - tau), "BSA24 Thm C.7 / 4.3 (general tau)");
  g.tau = tau;
  return g;
}

gdp_bound noisy_gd_constrained_convex_best_tau(const noisy_gradient_setting& s) {
  constexpr const char* fn = "noisy_gd_constrained_convex_best_tau";
  steps(fn, s);
  const double k_star =
      diameter(fn, s) * examples(fn, s) / (learning_rate(fn, s) * sensitivity(fn, s));
  auto mu = [&](long long k) { return gd_constrained_mu(fn, s, k); };
  const auto [k, value] = best_integer(mu, k_star, s.steps);
  gdp_bound g = make(value, "BSA24 Thm C.7 / 4.3 (general tau, optimised)");
  g.tau = s.steps - k;
  return g;
}

gdp_bound noisy_gd_shifted(const noisy_gradient_setting& s) {
  constexpr const char* fn = "noisy_gd_shifted";
  const double L = sensitivity(fn, s), n = examples(fn, s), sigma = noise(fn, s),
               eta = learning_rate(fn, s), c = any_contraction(fn, s);
  steps(fn, s);
  if (!(s.diameter > 0)) throw_domain_error(fn, "diameter", s.diameter, "> 0 (inf: none)");
  const std::vector<double> sens(static_cast<std::size_t>(s.steps), eta * L / n);
  const interpolation_scan opt = best_interpolation(c, sens, s.diameter);
  gdp_bound g = make(std::sqrt(opt.value) / (eta * sigma),
                     "BSA24 Thm C.3, optimisation problem solved exactly");
  g.tau = opt.tau;
  if (std::isfinite(s.diameter) && c < 1)
    g.note = "constrained strongly convex: not in the paper (docs/shifted.md)";
  if (!opt.exhaustive)
    g.note += std::string(g.note.empty() ? "" : "; ") +
              "tau found by golden-section search (valid bound, possibly not the best tau)";
  return g;
}

gdp_bound noisy_gd_shifted_schedule(const noisy_gradient_setting& s,
                                    std::span<const double> learning_rates,
                                    double m,
                                    double M) {
  constexpr const char* fn = "noisy_gd_shifted_schedule";
  const double L = sensitivity(fn, s), n = examples(fn, s), sigma = noise(fn, s);
  steps(fn, s);
  if (learning_rates.size() != static_cast<std::size_t>(s.steps))
    throw_domain_error(fn, "learning_rates.size()",
                       format_value(static_cast<long long>(learning_rates.size())),
                       "steps = " + format_value(s.steps));
  if (!(s.diameter > 0)) throw_domain_error(fn, "diameter", s.diameter, "> 0 (inf: none)");
  interpolation_problem p;
  p.contraction = 1;
  for (double eta : learning_rates) {
    p.contractions.push_back(contraction(eta, m, M));  // checks η_k, m, M (Lemma 2.8)
    p.sensitivities.push_back(eta * L / n);
    p.noise.push_back(eta * sigma);
  }
  const interpolation_scan opt = best_interpolation(p, s.diameter);
  gdp_bound g =
      make(std::sqrt(opt.value), "BSA24 Thm C.3 with a learning-rate schedule, solved exactly");
  g.tau = opt.tau;
  g.note = "time-varying step sizes: not in the paper (docs/shifted.md)";
  if (!opt.exhaustive) g.note += "; tau found by golden-section search";
  return g;
}

// ---- NoisyCGD ------------------------------------------------------------------------------

gdp_bound noisy_cgd_composition(const noisy_gradient_setting& s) {
  constexpr const char* fn = "noisy_cgd_composition";
  const double L = sensitivity(fn, s), sigma = noise(fn, s);
  const cyclic cy = cyclic_layout(fn, s);
  return make(L / (cy.b * sigma) * std::sqrt(cy.E), "BSA24 Thm 4.4 (composition)");
}

gdp_bound noisy_cgd_strongly_convex(const noisy_gradient_setting& s) {
  constexpr const char* fn = "noisy_cgd_strongly_convex";
  const double L = sensitivity(fn, s), sigma = noise(fn, s), c = strict_contraction(fn, s);
  const cyclic cy = cyclic_layout(fn, s);
  const double l = cy.l, E = cy.E;
  // BSA24 Thm 4.5 (with 1 + c^{l(E−1)} as the theorem states; Lemma C.10's proof misprints it)
  const double one_minus_cl = one_minus_power(c, l);
  const double inner = power(c, 2 * l - 2) * (1 - c * c) / (one_minus_cl * one_minus_cl) *
                       one_minus_power(c, l * (E - 1)) / (1 + power(c, l * (E - 1)));
  gdp_bound g = make(L / (cy.b * sigma) * std::sqrt(1 + inner), "BSA24 Thm 4.5");
  g.tau = 0;
  return g;
}

gdp_bound noisy_cgd_constrained_convex(const noisy_gradient_setting& s) {
  constexpr const char* fn = "noisy_cgd_constrained_convex";
  const double L = sensitivity(fn, s), sigma = noise(fn, s), eta = learning_rate(fn, s),
               D = diameter(fn, s);
  const cyclic cy = cyclic_layout(fn, s);
  const double b = cy.b, l = cy.l, k = D * b / (eta * L);
  if (cy.E < k)
    throw_domain_error(fn, "steps", format_value(s.steps),
                       "at least Db/(eta L) = " + format_value(k) +
                           " epochs (Thm 4.6's hypothesis; "
                           "noisy_cgd_constrained_convex_best_tau has no such condition)");
  // BSA24 Thm 4.6: (1/σ)√((L/b)² + 3LD/(ηbl) + (L²/(b²l))⌈Db/(ηL)⌉)
  const double mu = std::sqrt((L / b) * (L / b) + 3 * L * D / (eta * b * l) +
                              L * L / (b * b * l) * std::ceil(k)) /
                    sigma;
  gdp_bound g = make(mu, "BSA24 Thm 4.6");
  g.tau = cy.epochs - static_cast<long long>(std::ceil(k));
  g.note = "tau counted in epochs";
  return g;
}

namespace {
// Proof of BSA24 Thm 4.6 (Lemma C.11): μ(τ) = (1/σ)√((L/b)² + (D/η + Lk/b)²/(lk)), k = E − τ.
double cgd_constrained_mu(const char* fn, const noisy_gradient_setting& s, long long k) {
  const double L = sensitivity(fn, s), sigma = noise(fn, s), eta = learning_rate(fn, s),
               D = diameter(fn, s);
  const cyclic cy = cyclic_layout(fn, s);
  const double kk = static_cast<double>(k), r = D / eta + L * kk / cy.b;
  return std::sqrt((L / cy.b) * (L / cy.b) + r * r / (cy.l * kk)) / sigma;
}
}  // namespace

gdp_bound noisy_cgd_constrained_convex_at(const noisy_gradient_setting& s, long long tau) {
  constexpr const char* fn = "noisy_cgd_constrained_convex_at";
  const cyclic cy = cyclic_layout(fn, s);
  if (tau < 0 || tau >= cy.epochs)
    throw_domain_error(fn, "tau", format_value(tau), "in {0, ..., E - 1} (epochs)");
  gdp_bound g = make(cgd_constrained_mu(fn, s, cy.epochs - tau), "BSA24 Thm 4.6 (general tau)");
  g.tau = tau;
  g.note = "tau counted in epochs";
  return g;
}

gdp_bound noisy_cgd_constrained_convex_best_tau(const noisy_gradient_setting& s) {
  constexpr const char* fn = "noisy_cgd_constrained_convex_best_tau";
  const cyclic cy = cyclic_layout(fn, s);
  const double k_star = diameter(fn, s) * cy.b / (learning_rate(fn, s) * sensitivity(fn, s));
  auto mu = [&](long long k) { return cgd_constrained_mu(fn, s, k); };
  const auto [k, value] = best_integer(mu, k_star, cy.epochs);
  gdp_bound g = make(value, "BSA24 Thm 4.6 (general tau, optimised)");
  g.tau = cy.epochs - k;
  g.note = "tau counted in epochs";
  return g;
}

gdp_bound noisy_cgd_convex(const noisy_gradient_setting& s) {
  constexpr const char* fn = "noisy_cgd_convex";
  const double L = sensitivity(fn, s), sigma = noise(fn, s);
  const cyclic cy = cyclic_layout(fn, s);
  // Derived (docs/shifted-noisy-cgd.md): Thm C.3 with c = 1, a_k = s/l after the first sensitive
  // step.
  gdp_bound g = make(L / (cy.b * sigma) * std::sqrt(1 + (cy.E - 1) / cy.l),
                     "derived from BSA24 Thm C.3 (c = 1), not in the paper");
  g.tau = 0;
  g.note = "derived bound (docs/shifted-noisy-cgd.md); the c -> 1 limit of Thm 4.5";
  return g;
}

gdp_bound noisy_cgd_strongly_convex_lower(const noisy_gradient_setting& s) {
  constexpr const char* fn = "noisy_cgd_strongly_convex_lower";
  const double L = sensitivity(fn, s), sigma = noise(fn, s), c = strict_contraction(fn, s);
  const cyclic cy = cyclic_layout(fn, s);
  const double l = cy.l, E = cy.E;
  // BSA24 Thm C.17: (L/(bσ))√((1 − c^{lE})/(1 + c^{lE})·(1 − c²)/(1 − c^l)²)
  const double one_minus_cl = one_minus_power(c, l);
  const double v = one_minus_power(c, l * E) / (1 + power(c, l * E)) * (1 - c * c) /
                   (one_minus_cl * one_minus_cl);
  return make(L / (cy.b * sigma) * std::sqrt(v), "BSA24 Thm C.17 (lower bound)",
              bound_kind::lower_bound);
}

gdp_bound noisy_cgd_shifted(const noisy_gradient_setting& s) {
  constexpr const char* fn = "noisy_cgd_shifted";
  const double L = sensitivity(fn, s), sigma = noise(fn, s), eta = learning_rate(fn, s),
               c = any_contraction(fn, s);
  if (!(s.diameter > 0)) throw_domain_error(fn, "diameter", s.diameter, "> 0 (inf: none)");
  const cyclic cy = cyclic_layout(fn, s);
  const double last = L / (cy.b * sigma);  // the last sensitive step, Lemma 3.1
  gdp_bound worst = make(0, "BSA24 Thm C.3 for cyclic batches (proof of Thm 4.5), solved exactly");
  // Step k → k+1 uses batch r(k) = (k mod l) + 1 (BSA24 §2.3, Prop C.9). For j*, the last sensitive
  // step is k = t* = t + j* − l − 1; the steps after it use other batches (post-processing).
  bool searched = false;
  for (long long j = 1; j <= cy.batches; ++j) {
    const long long t_star = s.steps + j - cy.batches - 1;
    double mu2 = last * last;
    long long tau = 0;
    if (t_star > 0) {
      std::vector<double> sens(static_cast<std::size_t>(t_star), 0.0);
      for (long long k = 0; k < t_star; ++k)
        if (k % cy.batches + 1 == j) sens[static_cast<std::size_t>(k)] = eta * L / cy.b;
      const interpolation_scan opt = best_interpolation(c, sens, s.diameter);
      mu2 += opt.value / ((eta * sigma) * (eta * sigma));
      tau = opt.tau;
      if (!opt.exhaustive) searched = true;
    }
    if (std::sqrt(mu2) > worst.mu) {
      worst.mu = std::sqrt(mu2);
      worst.tau = tau;
      worst.note =
          "worst case over the batch j* holding the differing example: j* = " + std::to_string(j);
    }
  }
  if (searched)
    worst.note += "; tau found by golden-section search (valid bound, possibly not the best tau)";
  return worst;
}

// ---- LMC and exponential mechanisms ---------------------------------------------------------

gdp_bound lmc(double L, double m, double eta) {
  constexpr const char* fn = "lmc";
  check_positive(fn, "sensitivity", L);
  check_positive(fn, "strong_convexity", m);
  check_positive(fn, "learning_rate", eta);
  if (eta * m >= 2) throw_domain_error(fn, "learning_rate", eta, "< 2/m");
  // BSA24 Prop 5.1 / Cor 5.2
  return make(std::sqrt((2 - eta * m) / 2) * L / std::sqrt(m), "BSA24 Prop 5.1 / Cor 5.2");
}

gdp_bound lmc_at(double L, double m, double eta, long long t) {
  constexpr const char* fn = "lmc_at";
  check_positive(fn, "sensitivity", L);
  check_positive(fn, "strong_convexity", m);
  check_positive(fn, "learning_rate", eta);
  check_at_least(fn, "t", t, 1);
  if (eta * m >= 1)
    throw_domain_error(fn, "learning_rate", eta, "< 1/m (so that c = 1 - eta m is in (0, 1))");
  const double c = 1 - eta * m, tt = static_cast<double>(t);
  // Thm 4.2 with n = 1, σ = √(2/η) (derived; BSA24 proves Prop 5.1 this way)
  const double v = one_minus_power(c, tt) / (1 + power(c, tt)) * (2 - eta * m) / (eta * m);
  gdp_bound g =
      make(std::sqrt(v) * L * std::sqrt(eta / 2), "BSA24 Thm 4.2 with n = 1, sigma = sqrt(2/eta)");
  g.note = "finite-t form of Prop 5.1 (derived from BSA24 Thm 4.2)";
  return g;
}

gdp_bound exponential_mechanism(double L, double m) {
  constexpr const char* fn = "exponential_mechanism";
  check_positive(fn, "sensitivity", L);
  check_positive(fn, "strong_convexity", m);
  return make(L / std::sqrt(m), "BSA24 Cor 5.2");
}

gdp_bound log_concave_mechanism(double L, double D) {
  constexpr const char* fn = "log_concave_mechanism";
  check_positive(fn, "sensitivity", L);
  check_positive(fn, "diameter", D);
  return make(2 * std::sqrt(L * D), "BSA24 Cor 5.4");
}

gdp_bound projected_lmc(double L, double D, double eta) {
  constexpr const char* fn = "projected_lmc";
  check_positive(fn, "sensitivity", L);
  check_positive(fn, "diameter", D);
  check_positive(fn, "learning_rate", eta);
  return make(std::sqrt(4 * L * D + 2 * eta * L * L), "BSA24 Cor 5.4 (projected LMC)");
}

double exponential_mechanism_threshold() {
  // BSA24 §D.4: e^{2x} = (1 − Φ(−√x))/Φ(−√x), in log form 2x = log Φ(√x) − log Φ(−√x).
  auto f = [](double x) {
    const double r = std::sqrt(x);
    return 2 * x - (normal_lcdf(r) - normal_lcdf(-r));
  };
  const root_result r = find_root(f, 0.1, 2.0);
  if (!r.converged()) throw std::runtime_error("exponential_mechanism_threshold: " + r.message);
  return r.root;
}

// ---- CLT choices ---------------------------------------------------------------------------

namespace {

// BSA24 Lemma A.5: K(μ) = e^{μ²}Φ(1.5μ) + 3Φ(−0.5μ) − 2; +∞ beyond μ = √ln(DBL_MAX).
double clt_k_value(double mu) {
  return std::exp(mu * mu) * normal_cdf(1.5 * mu) + 3 * normal_cdf(-0.5 * mu) - 2;
}

}  // namespace

double clt_k(double mu) {
  // Beyond √ln(DBL_MAX) = 26.64 e^{μ²} overflows: refused rather than answered +∞ (a probe's
  // clt_k(1e30)); the CLT choices below use the value, whose +∞ they report as such.
  static const double largest = std::sqrt(std::log(std::numeric_limits<double>::max()));
  if (!(mu >= 0 && mu <= largest))
    throw_domain_error("clt_k", "mu", mu,
                       "in [0, " + format_value(largest) + "] (beyond, e^(mu^2) overflows)");
  return clt_k_value(mu);
}

namespace {

// K(x) for the CLT choices: where the sum e^{x²}Φ(1.5x) + 3Φ(−x/2) − 2 cancels to ≤ 0 in double
// (x ≲ 1e-8), its leading term x²/2 (K(x) = x²/2 + O(x³), checked against 40-digit values at
// x = 1e-3 … 1e-9: K/x² = 0.5004, 0.5000004, 0.5000000004).
double clt_k_positive(double x) {
  if (!(x >= 0)) throw_domain_error("clt_k", "mu", x, ">= 0");  // +inf gives K = +inf
  const double k = clt_k_value(x);
  return k > 0 ? k : 0.5 * x * x;
}

// √K(x) where K(x) itself underflows to 0 (x ≲ 1e-154: x²/2 is below the smallest double), as
// x/√2, its leading term: a sensitivity of 1e-200 once took log √K = −∞ and gave μ = NaN.
double clt_sqrt_k(double x, double k) {
  // Below DBL_MIN the computed K keeps few digits (subnormal): its leading term is exact enough
  // there (K = x²/2 + O(x³)).
  return k >= std::numeric_limits<double>::min() ? std::sqrt(k) : x / std::sqrt(2.0);
}

}  // namespace

clt_choice noisy_sgd_strongly_convex_clt(const noisy_gradient_setting& s) {
  constexpr const char* fn = "noisy_sgd_strongly_convex_clt";
  const double L = sensitivity(fn, s), n = examples(fn, s), sigma = noise(fn, s),
               c = strict_contraction(fn, s);
  check_at_least(fn, "batch_size", s.batch_size, 1);
  const double b = static_cast<double>(s.batch_size);
  const double x = 2 * L / (b * sigma);
  const double k1 = clt_k_positive(x);
  const double log_inv_c = -std::log(c);
  // BSA24 Prop C.14: t − τ = −log(b²σ(1 − c)√K₁/(2√2 nL√log(1/c)))/log(1/c) − 1, with log √K₁
  // taken as x²/2 + log Φ(1.5x)/2 where K₁ overflows (x ≳ 26: the other terms of K are −2 + o(1)
  // against e^{x²}). The real optimum falls below 1 when L/(bσ) is large (the CLT term
  // dominates); t − τ ≥ 1 (τ ≤ t − 1), so the choice is then 1 (a minimiser of the convex (C.6)
  // over k ≥ 1).
  const double log_sqrt_k1 =
      std::isfinite(k1) ? std::log(clt_sqrt_k(x, k1)) : 0.5 * (x * x + normal_lcdf(1.5 * x));
  const double steps_after = std::max(
      1.0,
      -(std::log(b * b * sigma * (1 - c) / (2 * std::sqrt(2.0) * n * L * std::sqrt(log_inv_c))) +
        log_sqrt_k1) /
              log_inv_c -
          1);
  // (C.6): μ = √(8(L/(bσ)·c^{k+1}/(1 − c))² + 2b²/n²·k·K₁); +∞ where K₁ overflows (the CLT
  // approximation is vacuous there)
  const double k = steps_after;
  const double first = L / (b * sigma) * power(c, k + 1) / (1 - c);
  clt_choice out;
  out.steps_after_tau = steps_after;
  double mu = std::sqrt(8 * first * first + 2 * b * b / (n * n) * k * k1);
  // Where K₁ is subnormal or 0 (tiny L: then μ ∝ L ~ 1e-200 and its square underflows too),
  // or the sum of squares underflowed, the same sum by hypot, with √K₁ = x/√2 below DBL_MIN.
  if (k1 < std::numeric_limits<double>::min() || mu < std::numeric_limits<double>::min())
    mu = std::hypot(std::sqrt(8.0) * first, std::sqrt(2 * k) * (b / n) * clt_sqrt_k(x, k1));
  out.bound = make(mu, "BSA24 Prop C.14 (CLT)", bound_kind::approximation);
  out.bound.note = "CLT approximation, not a certified bound";
  return out;
}

clt_choice noisy_sgd_constrained_convex_clt(const noisy_gradient_setting& s) {
  constexpr const char* fn = "noisy_sgd_constrained_convex_clt";
  const double L = sensitivity(fn, s), n = examples(fn, s), sigma = noise(fn, s),
               eta = learning_rate(fn, s), D = diameter(fn, s);
  check_at_least(fn, "batch_size", s.batch_size, 1);
  const double b = static_cast<double>(s.batch_size);
  const double x2 = 2 * std::sqrt(2.0) * L / (b * sigma);
  const double k2 = clt_k_positive(x2);
  const double sqrt_k2 = clt_sqrt_k(x2, k2);
  // BSA24 Prop C.15: t − τ = Dn/(bησ√K₂), at least 1 (τ ≤ t − 1); (C.7) μ = √(2D²/(η²σ²k) +
  // 2b²kK₂/n²), +∞ where K₂ overflows a double (the CLT approximation is vacuous there)
  double k_star = D * n / (b * eta * sigma * sqrt_k2);
  if (std::isinf(k_star))  // D n overflowed (D = 1e308): the same quotient in logs
    k_star = std::exp(std::log(D) + std::log(n) - std::log(b * eta * sigma * sqrt_k2));
  const double k = std::max(1.0, k_star);
  double mu = std::sqrt(2 * D * D / (eta * eta * sigma * sigma * k) + 2 * b * b * k * k2 / (n * n));
  // Where K₂ is subnormal or 0 (tiny L), its term is 2(b/n)²(k√K₂)√K₂, with √K₂ = x/√2.
  if (k2 < std::numeric_limits<double>::min())
    mu = std::sqrt(2 * D * D / (eta * eta * sigma * sigma * k) +
                   2 * (b / n) * (b / n) * (k * sqrt_k2) * sqrt_k2);
  // Where that overflows or cancels to NaN (D n = inf at D = 1e308, or K₂ = 0) but the choice
  // is the unconstrained optimum, its value μ = 2√(D b √K₂/(ησn)) is formed in logs.
  if (!std::isfinite(mu) && std::isfinite(k2) && k_star >= 1)
    mu = 2 * std::exp(0.5 * (std::log(D) + std::log(b) + std::log(sqrt_k2) - std::log(eta) -
                             std::log(sigma) - std::log(n)));
  clt_choice out;
  out.steps_after_tau = k;
  out.bound = make(mu, "BSA24 Prop C.15 (CLT)", bound_kind::approximation);
  out.bound.note = "CLT approximation, not a certified bound";
  return out;
}

// ---- YS22 RDP ------------------------------------------------------------------------------

double ys22_noisy_gd_rho(const noisy_gradient_setting& s, double c_ys) {
  constexpr const char* fn = "ys22_noisy_gd_rho";
  const double L = sensitivity(fn, s), n = examples(fn, s), sigma = noise(fn, s), t = steps(fn, s),
               c = strict_contraction(fn, s);
  if (!(c_ys > 0 && c_ys < 1)) throw_domain_error(fn, "c_ys", c_ys, "in (0, 1)");
  const double e = L / (n * sigma);
  return (1 + c) / (1 - c) * one_minus_power(c_ys, t) * e * e;  // as the code of BSA24 evaluates it
}

double ys22_noisy_cgd_rho(const noisy_gradient_setting& s) {
  constexpr const char* fn = "ys22_noisy_cgd_rho";
  const double L = sensitivity(fn, s), sigma = noise(fn, s), c = strict_contraction(fn, s);
  const cyclic cy = cyclic_layout(fn, s);
  const double l = cy.l, E = cy.E, e = L / (cy.b * sigma);
  const double one_minus_cl = one_minus_power(c, l);
  // as the code of BSA24 evaluates it: ½(L/(bσ))²(1 + c^{l−2}(1 − c²)/(1 − c^l)²(1 − c^{l(E−1)}))
  return 0.5 * e * e *
         (1 + power(c, l - 2) * (1 - c * c) / (one_minus_cl * one_minus_cl) *
                  one_minus_power(c, l * (E - 1)));
}

}  // namespace dpkit::shifted
