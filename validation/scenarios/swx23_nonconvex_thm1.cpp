// SWX+23 Part I, Thm 1 (§4.1.2, Alg 2): the excess risk of the DP non-convex GLM learned through
// the convex surrogate, checked against the reference simulator (dpkit/learners/glm.hpp). The
// simulator knows no bound; the bounds come from dpkit/risk/nonconvex_bounds.hpp. The lemmas
// behind Thm 1 (Lemmas 3–6, Alg 2's sensitivity): swx23_nonconvex.cpp.
//
//  * swx23-thm1-phase-sum [exact inequality vs Monte Carlo]  the App A phase-sum right-hand side
//    dominates E[L^ℓ_P(w_k)] − L^ℓ_P(w*), and 2G × it dominates E L_P(w_k) − L_P(w*).
//  * swx23-thm1-rate [scaling]  log-log slopes of the excess risk of Alg 2 in n (non-private and
//    private regimes) and in ε against Thm 1's exponents −1/2, −1, −1.
//  * swx23-thm1-theta-not-d [trend]  same rank θ, ambient d ∈ {θ, 4θ, 16θ}: equal risk.
//
// Self-check (--bound-factor F): the exact checks compare against F × bound; the scaling check
// claims the exponents divided by F (a faster decay); the trend check claims R(d) = F·R(θ).
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../harness/scenarios.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/risk/nonconvex_bounds.hpp"
#include "dpkit/learners/glm.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "swx23_nonconvex_common.hpp"

namespace dpkit::validation {
namespace {

using nonconvex_detail::dbl;
using nonconvex_detail::population;
using nonconvex_detail::span_vector;
using learners::glm_link;

// ---- Alg 2 runs shared by the phase-sum, rate and θ-vs-d scenarios ------------------------------

struct alg2_setting {
  std::size_t n = 0, d = 0, theta = 0;
  double epsilon = 1, delta = 1e-5, eta = 0, W = 2;
};

// One replicate: data (streams 0, 1), Alg 2 (key stream_base 10), population quantities on the
// output with common x draws (stream 2). Returns (surrogate excess, true excess).
// Alg 2 and the population quantities on a given data set (the replicate's first s.n records).
std::pair<double, double> alg2_on_data(const scenario_context& c,
                                       std::uint64_t rep,
                                       const alg2_setting& s,
                                       const learners::glm_population& p,
                                       const sim::dataset& data,
                                       std::size_t samples,
                                       std::uint64_t stream_offset = 0) {
  learners::phased_sgd_options o;
  o.link = glm_link::sigmoid;
  o.epsilon = s.epsilon;
  o.delta = s.delta;
  o.eta = s.eta;
  o.B_bound = 1;
  o.theta_rank = static_cast<double>(s.theta);
  const learners::glm_result g = learners::phased_sgd(data, o, {c.seed, rep, stream_offset + 10});
  random_stream s1(c.seed, rep, stream_offset + 2), s2(c.seed, rep, stream_offset + 2);
  return {p.surrogate_excess_risk(glm_link::sigmoid, g.w, samples, s1).value,
          p.excess_risk(glm_link::sigmoid, g.w, samples, s2).value};
}

std::pair<double, double> alg2_replicate(const scenario_context& c,
                                         std::uint64_t rep,
                                         const alg2_setting& s,
                                         std::size_t samples,
                                         std::uint64_t stream_offset = 0) {
  const sim::vector w_star = span_vector(s.d, s.theta, s.W);
  const learners::glm_population p = population(glm_link::sigmoid, s.d, s.theta, w_star);
  random_stream fs(c.seed, rep, stream_offset + 0), ls(c.seed, rep, stream_offset + 1);
  const sim::dataset data = p.sample(s.n, fs, ls);
  return alg2_on_data(c, rep, s, p, data, samples, stream_offset);
}

risk::glm_problem problem_of(const alg2_setting& s) {
  risk::glm_problem p;
  p.examples = static_cast<long long>(s.n);
  p.theta = static_cast<double>(s.theta);
  p.epsilon = s.epsilon;
  p.delta = s.delta;
  p.W = s.W;
  p.G = 0.25;  // sigmoid
  p.B = 1;
  return p;
}

// η* of the closed-form approximation of the phase sum, capped at 2/G = 8 (Thm 1's privacy
// condition): the explicit-constant version of Thm 1's η ≍ min{ε/√(θ log(1/δ)), 1/√n}.
double eta_star(const alg2_setting& s) {
  return std::min(8.0, risk::phased_sgd_phase_sum_approximation(problem_of(s), 1, s.W).eta_star);
}

// ---- swx23-thm1-phase-sum -----------------------------------------------------------------------

scenario_result thm1_phase_sum(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const std::uint64_t replicates = replicates_for(c, 200, 2000);
  const std::size_t samples = full ? 20000 : 4000;
  const double F = c.bound_factor;
  std::vector<alg2_setting> settings;
  for (const double eps : {0.9, 0.1}) {
    alg2_setting s;
    s.n = full ? 16384 : 4096;
    s.d = s.theta = 4;
    s.epsilon = eps;
    s.W = 2;
    s.eta = eta_star(s);
    settings.push_back(s);
  }
  std::vector<sim::observable> obs;
  for (const alg2_setting& s : settings) {
    obs.push_back({"surrogate excess, eps = " + sig(s.epsilon), true});
    obs.push_back({"true excess, eps = " + sig(s.epsilon), true});
  }
  sim::monte_carlo_options mc = mc_options(c, replicates, "swx23-thm1-phase-sum");
  mc.chunk = 8;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        for (std::size_t k = 0; k < settings.size(); ++k) {
          const auto [se, e] = alg2_replicate(c, rep, settings[k], samples, 100 * k);
          out[2 * k] = se;
          out[2 * k + 1] = e;
        }
      },
      mc);

  const std::size_t checks = 2 * settings.size();
  const double confidence = 1 - 0.05 / static_cast<double>(checks);
  // Student t for the mean over the replicates.
  const double z = t_multiplier(normal_quantile(confidence), res.replicates);
  scenario_result r;
  r.id = "swx23-thm1-phase-sum";
  r.title = "SWX+23 Thm 1 (App A): the phase-sum inequality of Alg 2 against Monte Carlo";
  r.source = "SWX+23 Alg 2, proof of Thm 1 (Lemma 8 summed, Lemma 3)";
  r.claim =
      "exact inequality: E[L^l_P(w_k)] - L^l_P(w*) <= D0^2/(2 eta_1 n_1) + sum_{i>=2} theta "
      "tau_{i-1}^2/(2 eta_i n_i) + 2B^2 sum eta_i + 2B tau_k and E L_P(w_k) - L_P(w*) <= 2G x "
      "that; holds if the Monte Carlo interval (" +
      sig(confidence * 100, 4) + "% each, Bonferroni over " + std::to_string(checks) +
      ") lies wholly below the bound";
  r.parameters = {
      {"link", "sigmoid (G = 1/4, B = 1)"},
      {"n", settings[0].n},
      {"d", settings[0].d},
      {"theta", settings[0].theta},
      {"W", settings[0].W},
      {"w0", "0 (D0 = |w*| = W)"},
      {"epsilons", {settings[0].epsilon, settings[1].epsilon}},
      {"delta", settings[0].delta},
      {"etas", {settings[0].eta, settings[1].eta}},
      {"eta_rule", "eta* of the closed-form approximation of the phase sum, capped at 2/G"},
      {"phases",
       "k = floor(log2 n), n_i = floor(n/2^i), eta_i = eta/4^i, tau_i = 8B eta_i "
       "sqrt(log(1/delta))/eps"},
      {"x_samples_per_replicate", samples},
      {"replicates", replicates},
      {"tier", to_string(c.tier)}};
  int right = 0, wrong = 0;
  double min_tight = INFINITY;
  std::size_t worst = 0;
  std::vector<double> bounds, means, los, his;
  for (std::size_t k = 0; k < settings.size(); ++k) {
    const risk::phase_sum_bound b =
        risk::phased_sgd_phase_sum(problem_of(settings[k]), settings[k].eta, settings[k].W);
    for (std::size_t t = 0; t < 2; ++t) {
      const auto& o = res.observables[2 * k + t];
      const double bound = F * (t == 0 ? b.surrogate : b.excess_risk);
      const double m = o.stats.mean(), h = z * o.stats.standard_error();
      if (m + h < bound) ++right;
      if (m - h > bound) ++wrong;
      bounds.push_back(bound);
      means.push_back(m);
      los.push_back(m - h);
      his.push_back(m + h);
      if (bound / m < min_tight) {
        min_tight = bound / m;
        worst = bounds.size() - 1;
      }
      r.notes.push_back(
          std::string(t == 0 ? "surrogate" : "true") +
          " excess, eps = " + sig(settings[k].epsilon) + ", eta = " + sig(settings[k].eta, 4) +
          ": Monte Carlo " + sig(m, 4) + " +- " + sig(h, 3) + " vs bound " + sig(bound, 4) +
          (t == 0 ? "" : " (2G x phase sum)") + ", tightness bound/estimate " + sig(bound / m, 4));
    }
    std::string terms;
    for (const auto& term : b.terms) terms += " " + term.name + " = " + sig(term.value, 4) + ";";
    r.notes.push_back("phase sum at eps = " + sig(settings[k].epsilon) + ":" + terms +
                      " k = " + std::to_string(b.phases.size()) + " phases");
  }
  r.verdict = wrong > 0                           ? verdict::violated
              : right == static_cast<int>(checks) ? verdict::holds
                                                  : verdict::inconclusive;
  r.verdict_reason =
      wrong > 0 ? std::to_string(wrong) + " of " + std::to_string(checks) +
                      " Monte Carlo intervals lie wholly above the bound"
      : right == static_cast<int>(checks)
          ? "every Monte Carlo interval lies below its bound (smallest bound/estimate " +
                sig(min_tight, 4) + ")"
          : std::to_string(checks - static_cast<std::size_t>(right)) +
                " intervals straddle the bound";
  r.quantity = "E excess (the check with the smallest bound/estimate)";
  r.bound = bounds[worst];
  r.estimate = means[worst];
  r.estimate_lo = los[worst];
  r.estimate_hi = his[worst];
  r.confidence = confidence;
  r.tightness = min_tight;
  r.replicates = replicates;
  r.notes.push_back(
      "the Monte Carlo value per replicate is itself an unbiased Monte Carlo estimate of the "
      "population quantity (fresh x draws), so the interval covers both sources of variance");

  figure& f = r.figure;
  f.title = "Alg 2 (n = " + std::to_string(settings[0].n) +
            ", θ = d = 4): excess risk against the phase-sum bound";
  f.x_label = "excess risk checked";
  f.x_categories = {"surrogate, ε = 0.9", "true, ε = 0.9", "surrogate, ε = 0.1",
                    "true, ε = 0.1"};
  f.y_label = "excess risk";
  f.log_y = true;
  series est, bnd;
  est.name = "Monte Carlo (Bonferroni interval)";
  est.style = "points";
  est.colour = 0;
  bnd.name = "phase-sum bound (times 2G for the true excess)" +
             (F == 1 ? std::string() : " × " + sig(F));
  bnd.style = "points";
  bnd.colour = 1;
  for (std::size_t i = 0; i < bounds.size(); ++i) {
    est.x.push_back(static_cast<double>(i + 1));
    est.y.push_back(means[i]);
    est.y_lo.push_back(los[i]);
    est.y_hi.push_back(his[i]);
    bnd.x.push_back(static_cast<double>(i + 1));
    bnd.y.push_back(bounds[i]);
  }
  f.data.push_back(std::move(est));
  f.data.push_back(std::move(bnd));
  return r;
}

// ---- swx23-thm1-rate ----------------------------------------------------------------------------

struct rate_sweep {
  std::string name;
  std::string x_name;
  double claimed = 0;  // Thm 1's exponent
  std::vector<alg2_setting> settings;
  std::vector<double> x;
};

scenario_result thm1_rate(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  // quick: 32 replicates give slope half-widths of ~0.07-0.2 (the verdict needs <= 0.3), every
  // interval wholly below its claimed exponent at seeds 2026, 1, 7 (the decay is faster than
  // claimed); a slope within ~0.2 of its exponent would not be separated from it.
  const std::uint64_t replicates = replicates_for(c, 32, 1000);
  const std::size_t samples = full ? 20000 : 4000;
  const double F = c.bound_factor;
  const std::size_t theta = 2;
  std::vector<rate_sweep> sweeps(3);
  // (1) non-private regime: ε = 0.9, n ≥ 8192 ≫ θ log(1/δ)/ε² ≈ 28: 1/√n dominates (exponent
  // −1/2); from n = 8192 on, 2G × the phase sum is below the excess at w0 (informative).
  sweeps[0].name = "n, non-private regime (eps = 0.9)";
  sweeps[0].x_name = "n";
  sweeps[0].claimed = -0.5;
  // (2) private regime: ε = 0.1, n = 2^16 … 2^19. There the phase sum's privacy term
  // 256θ log(1/δ)/(nε²) exceeds its sampling term 2/3, and 2G × the phase sum is
  // below the excess at w0 = 0 (the bound is informative); at smaller n the runs are
  // pre-asymptotic (they barely leave w0) and a slope says nothing about Thm 1.
  sweeps[1].name = "n, private regime (eps = 0.1)";
  sweeps[1].x_name = "n";
  sweeps[1].claimed = -1;
  // (3) ε at fixed n = 2^17 in the private regime (exponent −1).
  sweeps[2].name = "eps, private regime (n = 131072)";
  sweeps[2].x_name = "eps";
  sweeps[2].claimed = -1;
  const std::vector<std::size_t> ns =
      full ? std::vector<std::size_t>{8192, 16384, 32768, 65536, 131072}
           : std::vector<std::size_t>{8192, 16384, 32768, 65536};
  const std::vector<std::size_t> ns_private =
      full ? std::vector<std::size_t>{65536, 131072, 262144, 524288, 1048576}
           : std::vector<std::size_t>{65536, 131072, 262144};
  const std::vector<double> epss = {0.05, 0.1, 0.2};
  for (const std::size_t n : ns) {
    alg2_setting s;
    s.n = n;
    s.d = s.theta = theta;
    s.epsilon = 0.9;
    s.eta = eta_star(s);
    sweeps[0].settings.push_back(s);
    sweeps[0].x.push_back(dbl(n));
  }
  for (const std::size_t n : ns_private) {
    alg2_setting s;
    s.n = n;
    s.d = s.theta = theta;
    s.epsilon = 0.1;
    s.eta = eta_star(s);
    sweeps[1].settings.push_back(s);
    sweeps[1].x.push_back(dbl(n));
  }
  for (const double e : epss) {
    alg2_setting s;
    s.n = 131072;
    s.d = s.theta = theta;
    s.epsilon = e;
    s.eta = eta_star(s);
    sweeps[2].settings.push_back(s);
    sweeps[2].x.push_back(e);
  }
  // The largest n (each replicate samples it once; see the replicate below).
  std::size_t n_max = 0;
  for (const rate_sweep& w : sweeps)
    for (const alg2_setting& s : w.settings) {
      if (s.d != theta || s.theta != theta || s.W != 2)
        throw std::logic_error("swx23-thm1-rate: the sweeps must share one population");
      n_max = std::max(n_max, s.n);
    }
  std::vector<sim::observable> obs;
  for (const rate_sweep& w : sweeps)
    for (std::size_t j = 0; j < w.settings.size(); ++j)
      obs.push_back({"true excess, " + w.name + ", " + w.x_name + " = " + sig(w.x[j]), true});
  sim::monte_carlo_options mc = mc_options(c, replicates, "swx23-thm1-rate");
  mc.chunk = 4;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        // Every setting draws its data from the same population (d = theta = 2, W = 2) and the
        // same streams (seed, rep, 0/1), one record after the other: the n records of a setting
        // are the first n of the largest data set, so the replicate samples that once (the
        // sampling was ~2/3 of the run time) and gives each run its prefix.
        const learners::glm_population p =
            population(glm_link::sigmoid, theta, theta, span_vector(theta, theta, 2));
        random_stream fs(c.seed, rep, 0), ls(c.seed, rep, 1);
        const sim::dataset all = p.sample(n_max, fs, ls);
        // A setting shared by two sweeps (n = 131072, eps = 0.1 is in the private n sweep and the
        // eps sweep) is run once: its run would repeat the first bit for bit.
        std::vector<std::pair<const alg2_setting*, double>> done;
        auto same = [](const alg2_setting& a, const alg2_setting& b) {
          return a.n == b.n && a.d == b.d && a.theta == b.theta && a.epsilon == b.epsilon &&
                 a.delta == b.delta && a.eta == b.eta && a.W == b.W;
        };
        std::size_t k = 0;
        for (const rate_sweep& w : sweeps)
          for (const alg2_setting& s : w.settings) {
            const auto it = std::find_if(done.begin(), done.end(),
                                         [&](const auto& e) { return same(*e.first, s); });
            if (it != done.end()) {
              out[k++] = it->second;
              continue;
            }
            const auto rows = static_cast<Eigen::Index>(s.n);
            const sim::dataset data{all.features.topRows(rows), all.labels.head(rows)};
            out[k++] = alg2_on_data(c, rep, s, p, data, samples).second;
            done.emplace_back(&s, out[k - 1]);
          }
      },
      mc);

  const double confidence = 1 - 0.05 / static_cast<double>(sweeps.size());
  // Student t for the replicates behind the slopes' delta-method se.
  const double z = t_multiplier(normal_quantile(confidence), res.replicates);
  const double max_halfwidth = 0.3;  // resolution needed for a verdict
  // The excess risk of the start w0 = 0 (what a run that never moves achieves).
  double excess_at_w0 = 0;
  {
    const learners::glm_population p =
        population(glm_link::sigmoid, theta, theta, span_vector(theta, theta, 2));
    random_stream s0(c.seed, 0, 999);
    excess_at_w0 = p.excess_risk(glm_link::sigmoid,
                                 sim::vector::Zero(static_cast<Eigen::Index>(theta)), 200000, s0)
                       .value;
  }
  scenario_result r;
  r.id = "swx23-thm1-rate";
  r.title = "SWX+23 Thm 1: excess risk of Alg 2 against n and eps (log-log slopes)";
  r.source = "SWX+23 Thm 1, Alg 2";
  r.claim =
      "scaling (up to constants): E L_P(w_k) - L_P(w*) = O(1/sqrt(n) + sqrt(theta log(1/delta))/(n "
      "eps)), so the log-log slope in n is at most -1/2 (non-private regime) and -1 (private "
      "regime), and in eps at most -1 (private regime). Verdict per sweep: violated if the slope's "
      "interval lies wholly above the claimed exponent (decay significantly slower than the "
      "theorem allows) at points where the explicit phase-sum bound is informative (2G x phase "
      "sum below the excess of the start w0 = 0; otherwise inconclusive, pre-asymptotic); holds if "
      "its lower end is at or below the exponent (decay at least as "
      "fast, "
      "the theorem being an upper bound) and the interval is narrower than +-" +
      sig(max_halfwidth) + "; inconclusive otherwise. " + sig(confidence * 100, 4) +
      "% intervals, Bonferroni over the 3 sweeps";
  r.parameters = {
      {"link", "sigmoid (G = 1/4, B = 1)"},
      {"d", theta},
      {"theta", theta},
      {"W", 2},
      {"delta", 1e-5},
      {"n_nonprivate", ns},
      {"n_private", ns_private},
      {"eps_sweep", epss},
      {"eta_rule",
       "eta* of the closed-form approximation of the phase sum, capped at 2/G; "
       "= Thm 1's eta ~ min{eps/sqrt(theta log(1/delta)), 1/sqrt(n)} with explicit constants"},
      {"x_samples_per_replicate", samples},
      {"replicates", replicates},
      {"tier", to_string(c.tier)}};
  int holds = 0, violated = 0;
  std::size_t k = 0;
  double worst_gap = -std::numeric_limits<double>::infinity();
  slope_fit worst_fit;
  std::string worst_name;
  figure& f = r.figure;
  f.title = "Alg 2 excess risk against nε; dashed: 2G × the explicit phase sum (a bound)";
  f.x_label = "nε";
  f.y_label = "E L_P(w_k) − L_P(w^*)";
  f.log_x = f.log_y = true;
  for (std::size_t w = 0; w < sweeps.size(); ++w) {
    const rate_sweep& sw = sweeps[w];
    std::vector<std::vector<double>> cols;
    std::string means;
    series s, b;
    s.name = "measured, " + legend_words(sw.name);
    s.style = "points";
    s.colour = static_cast<int>(w);
    b.name = "2G × phase sum (explicit bound, App A), " + legend_words(sw.name);
    b.colour = static_cast<int>(w);
    b.dash = 2;
    std::vector<double> phase_sums;
    std::string bounds;
    bool informative = true;
    for (std::size_t j = 0; j < sw.settings.size(); ++j, ++k) {
      cols.push_back(res.observables[k].samples);
      const double m = res.observables[k].stats.mean(),
                   se = res.observables[k].stats.standard_error();
      means += " " + sig(m, 4);
      const double xx = dbl(sw.settings[j].n) * sw.settings[j].epsilon;
      s.x.push_back(xx);
      s.y.push_back(m);
      const double t95 = t_multiplier(1.96, res.observables[k].stats.count());  // Student t
      s.y_lo.push_back(m - t95 * se);
      s.y_hi.push_back(m + t95 * se);
      // Informative: 2G × the explicit phase sum is below the excess at w0 = 0.
      const double ps =
          risk::phased_sgd_phase_sum(problem_of(sw.settings[j]), sw.settings[j].eta, 2).excess_risk;
      phase_sums.push_back(ps);
      bounds += " " + sig(ps, 3);
      if (!(ps < excess_at_w0)) informative = false;
    }
    for (std::size_t j = 0; j < phase_sums.size(); ++j) {
      b.x.push_back(s.x[j]);
      b.y.push_back(phase_sums[j]);
    }
    f.data.push_back(std::move(s));
    f.data.push_back(std::move(b));
    const slope_fit fit = log_log_slope(sw.x, cols);
    const double claimed = sw.claimed / F;
    const double lo = fit.slope - z * fit.se, hi = fit.slope + z * fit.se;
    std::string v;
    if (!fit.positive) {
      v = "no fit (a mean <= 0)";
    } else if (lo > claimed && !informative) {
      v = "inconclusive (decays slower than the claimed exponent, but where the explicit bound is "
          "vacuous: pre-asymptotic)";
    } else if (lo > claimed) {
      ++violated;
      v = "VIOLATED (decays slower than the claimed exponent)";
    } else if (z * fit.se <= max_halfwidth) {
      ++holds;
      v = hi < claimed ? "holds (decays faster than the claimed exponent)"
                       : "holds (interval contains the exponent)";
    } else {
      v = "inconclusive (interval too wide)";
    }
    if (lo - claimed > worst_gap) {
      worst_gap = lo - claimed;
      worst_fit = fit;
      worst_name = sw.name;
    }
    r.notes.push_back(sw.name + ": means at " + sw.x_name + " =" + means + "; slope " +
                      sig(fit.slope, 3) + " [" + sig(lo, 3) + ", " + sig(hi, 3) +
                      "] vs claimed exponent " + sig(claimed, 3) + " -> " + v +
                      "; 2G x phase sum (explicit bound) at these points:" + bounds +
                      (informative ? " (all below" : " (NOT all below") +
                      " the excess at w0 = 0, " + sig(excess_at_w0, 4) + ")");
  }
  r.notes.push_back(
      "why faster decay is expected: the population surrogate is strongly convex on the data span "
      "near w* (E[sigma'(b) x x^T] > 0), a property Thm 1 does not use; averaged SGD and the noise "
      "injection between phases are then damped faster than the convex analysis assumes, so the "
      "theorem's exponents are upper bounds on the decay, not predictions of it");
  r.verdict = violated > 0                               ? verdict::violated
              : holds == static_cast<int>(sweeps.size()) ? verdict::holds
                                                         : verdict::inconclusive;
  r.verdict_reason =
      violated > 0 ? std::to_string(violated) + " sweeps decay significantly slower than claimed"
      : holds == static_cast<int>(sweeps.size())
          ? "every sweep decays at least as fast as Thm 1's exponent"
          : "some sweeps are not resolved";
  r.quantity = "log-log slope of the sweep closest to violating (" + worst_name + ")";
  r.estimate = worst_fit.slope;
  r.estimate_lo = worst_fit.slope - z * worst_fit.se;
  r.estimate_hi = worst_fit.slope + z * worst_fit.se;
  r.bound = r.estimate_lo - worst_gap;  // the claimed exponent of that sweep
  r.confidence = confidence;
  r.tightness = std::nan("");
  r.replicates = replicates;
  return r;
}

// ---- swx23-thm1-theta-not-d ---------------------------------------------------------------------

scenario_result thm1_theta_not_d(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const std::uint64_t replicates = replicates_for(c, 300, 3000);
  const std::size_t samples = full ? 20000 : 4000;
  const double F = c.bound_factor;
  const std::size_t theta = 4;
  const std::vector<std::size_t> dims = {theta, 4 * theta, 16 * theta};
  std::vector<alg2_setting> settings;
  for (const std::size_t d : dims) {
    alg2_setting s;
    s.n = full ? 8192 : 2048;
    s.d = d;
    s.theta = theta;
    s.epsilon = 0.2;
    s.eta = 0;  // set below (same η for every d)
    settings.push_back(s);
  }
  const double eta = eta_star(settings[0]);
  for (alg2_setting& s : settings) s.eta = eta;
  std::vector<sim::observable> obs;
  for (const std::size_t d : dims) obs.push_back({"true excess, d = " + std::to_string(d), true});
  sim::monte_carlo_options mc = mc_options(c, replicates, "swx23-thm1-theta-not-d");
  mc.chunk = 8;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        // Common data (the first θ coordinates carry the same z and labels for every d);
        // the output noise has d coordinates, of which only the first θ matter.
        for (std::size_t j = 0; j < settings.size(); ++j)
          out[j] = alg2_replicate(c, rep, settings[j], samples).second;
      },
      mc);
  const std::size_t checks = dims.size() - 1;
  const double confidence = 1 - 0.05 / static_cast<double>(checks);
  // Student t for the n pairs (replicates) of each paired difference.
  const double z = t_multiplier(normal_quantile(confidence), res.observables[0].samples.size());
  scenario_result r;
  r.id = "swx23-thm1-theta-not-d";
  r.title = "SWX+23 Thm 1: the excess risk of Alg 2 depends on the data rank theta, not on d";
  r.source = "SWX+23 Thm 1 (E|zeta|_V^2 <= theta tau^2 in its proof)";
  r.claim =
      "trend: with the data in a theta = 4 dimensional subspace of R^d, the expected excess risk "
      "is "
      "the same for d = 4, 16, 64, an identity in law for Alg 2 that the simulator must reproduce "
      "(paired differences R(d) - R(theta) with " +
      sig(confidence * 100, 4) + "% intervals, Bonferroni over " + std::to_string(checks) +
      "; an equivalence: holds if every interval contains 0 and lies within +-5% of E R(theta), "
      "violated if one excludes 0, inconclusive otherwise); a bound in sqrt(d) "
      "(DP-SGD for convex GLMs in the ambient dimension) would predict a ratio sqrt(d/theta) = 2, "
      "4";
  r.parameters = {{"link", "sigmoid"},
                  {"theta", theta},
                  {"d", dims},
                  {"n", settings[0].n},
                  {"epsilon", settings[0].epsilon},
                  {"delta", settings[0].delta},
                  {"eta", eta},
                  {"W", settings[0].W},
                  {"design", "x = (z, 0), z uniform on S^{theta-1}; w* in the same span"},
                  {"replicates", replicates},
                  {"tier", to_string(c.tier)}};
  const auto& base = res.observables[0].samples;
  // "The same" is an equivalence (equivalence_verdict): each paired difference's interval must
  // contain 0 and lie inside ±5 % of E R(theta), fixed as a gap a figure of the rates would not
  // show (a sqrt(d) rate is a factor 2 and 4); 300 replicates resolve about ±1.4 %.
  constexpr double margin_fraction = 0.05;
  const double margin = margin_fraction * res.observables[0].stats.mean();
  verdict v = verdict::holds;
  double reach = 0;
  int excludes = 0;
  double worst_t = 0;
  double wm = 0, wh = 0;
  series pts;
  pts.name = "E excess (95% interval)";
  pts.style = "points";
  pts.colour = 0;
  for (std::size_t j = 0; j < dims.size(); ++j) {
    const double m = res.observables[j].stats.mean(),
                 se = res.observables[j].stats.standard_error();
    pts.x.push_back(dbl(dims[j]));
    pts.y.push_back(m);
    const double t95 = t_multiplier(1.96, res.observables[j].stats.count());  // Student t
    pts.y_lo.push_back(m - t95 * se);
    pts.y_hi.push_back(m + t95 * se);
  }
  for (std::size_t j = 1; j < dims.size(); ++j) {
    // The self-check audits the ambient-dimension rate: E R(d) = sqrt(d/theta) E R(theta).
    const double k = c.self_check ? std::sqrt(dbl(dims[j]) / dbl(theta)) : F;
    std::vector<double> diff(base.size());
    for (std::size_t i = 0; i < base.size(); ++i)
      diff[i] = res.observables[j].samples[i] - k * base[i];
    const double m = mean_of(diff), h = z * se_of(diff);
    const verdict vj = equivalence_verdict(m, h, margin, equality::exact);
    if (vj == verdict::violated) ++excludes;
    v = combine_equivalence(v, vj);
    reach = std::max(reach, (std::abs(m) + h) / margin);
    if (std::abs(m) / h > worst_t) {
      worst_t = std::abs(m) / h;
      wm = m;
      wh = h;
    }
    r.notes.push_back(
        "d = " + std::to_string(dims[j]) + ": E R(d) - " + (k == 1 ? std::string() : sig(k) + " ") +
        "E R(theta) = " + sig(m, 4) + " +- " + sig(h, 3) + " (ratio of means " +
        sig(res.observables[j].stats.mean() / res.observables[0].stats.mean(), 4) + ")");
  }
  r.notes.push_back("E R at d = 4, 16, 64: " + sig(res.observables[0].stats.mean(), 4) + ", " +
                    sig(res.observables[1].stats.mean(), 4) + ", " +
                    sig(res.observables[2].stats.mean(), 4));
  r.notes.push_back(
      "the equality is exact in law for Alg 2 as printed (no projection step): the noise "
      "zeta_i ~ N(0, tau_i^2 I_d) enters the risk only through its projection on the data span, "
      "N(0, tau_i^2 I_theta), whatever d; the runs share data and labels, only the noise draws "
      "differ. So this audits the simulator end to end (ambient noise reaching the risk, a d-scaled "
      "noise or step, would be violated), and its power against the wrong claim a d-dimensional "
      "DP-SGD analysis makes (risk growing like sqrt(d/theta)) is its self-check");
  r.verdict = v;
  r.verdict_reason =
      excludes > 0 ? std::to_string(excludes) + " paired-difference intervals exclude 0"
      : v == verdict::holds
          ? "equivalent: every paired-difference interval contains 0 and lies within +-5% of "
            "E R(theta) (reach " + sig(reach, 3) + " margins)"
          : "no difference resolved, but an interval reaches past +-5% of E R(theta) (reach " +
                sig(reach, 3) + " margins): equality not shown at this size";
  r.parameters["equivalence_margin"] = "+-5% of E R(theta)";
  r.quantity = "paired difference E R(d) - k E R(theta) (largest |mean|/halfwidth; k = 1, "
               "sqrt(d/theta) in the self-check)";
  r.bound = 0;
  r.estimate = wm;
  r.estimate_lo = wm - wh;
  r.estimate_hi = wm + wh;
  r.confidence = confidence;
  r.tightness = std::nan("");
  r.replicates = replicates;
  figure& f = r.figure;
  f.title = "Alg 2 excess risk at fixed θ = 4 against the ambient dimension d";
  f.x_label = "d";
  f.y_label = "E L_P(w_k) − L_P(w^*)";
  f.log_x = true;
  f.data.push_back(std::move(pts));
  series sq;
  sq.name = "a √d-dependent rate (scaled to d = θ), for contrast";
  sq.colour = 1;
  sq.dash = 2;
  for (const std::size_t d : dims) {
    sq.x.push_back(dbl(d));
    sq.y.push_back(res.observables[0].stats.mean() * std::sqrt(dbl(d) / dbl(theta)));
  }
  f.data.push_back(std::move(sq));
  return r;
}

}  // namespace

void register_nonconvex_thm1_scenarios(std::vector<scenario>& out) {
  out.push_back({"swx23-thm1-phase-sum", "SWX+23 Thm 1: phase-sum inequality vs Monte Carlo",
                 thm1_phase_sum, 0.1});
  out.push_back({"swx23-thm1-rate", "SWX+23 Thm 1: rates in n and eps", thm1_rate, 0.25});
  out.push_back({"swx23-thm1-theta-not-d", "SWX+23 Thm 1: risk depends on theta, not d",
                 thm1_theta_not_d, 0.5});
}

}  // namespace dpkit::validation
