// SWX+23 Part I rates beyond Alg 2 (Thms 2, 4, 6): the
// excess risk of the JL, Moreau and ReLU algorithms against n and ε, as fitted log-log slopes
// against the theorems' exponents. Every theorem here is an upper bound up to hidden constants
// and log factors, so a slope is checked ONE-SIDED: the risk must decay at least as fast as the
// exponent allows.
//
//  * swx23-thm2-alg3-rate   [scaling]  Alg 3 (JL + phased SGD): Õ((nε)^{−2/3} + n^{−1/2}) — slope
//                                    in ε ≤ −2/3 (private regime), in n ≤ −1/2 (ε large).
//  * swx23-thm4-alg5-rate   [scaling]  Alg 5 (Moreau-smoothed phased SGD, β = √n): Moreau bias
//                                    GB²/β + O(1/√n + √(θ log(1/δ))/(nε)) — slope in n ≤ −1/2.
//  * swx23-thm6-alg7-rate   [scaling]  Alg 7 (DP projected GD, ReLU regression):
//                                    Õ(n^{−1/2} + (nε)^{−2/3}) — slope in ε ≤ −2/3, in n ≤ −1/2.
//
// Verdict per sweep (the rule of swx23-thm1-rate): violated if the slope's interval lies wholly
// above the claimed exponent while the runs learn (the mean excess at the sweep's best point is
// significantly below the excess of the start w0 = 0) and so does the interval of the last
// segment's slope (otherwise the window is pre-asymptotic: inconclusive); holds if the interval
// reaches the exponent or below and is narrower than ±0.3; inconclusive otherwise. Self-check
// (--bound-factor F): the claimed exponents are divided by F (a faster decay is claimed), so at F =
// 1/4 every sweep must be violated.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
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

namespace dpkit::validation {
namespace {

using learners::glm_link;

// One sweep: the excess risk of replicate `rep` at point j (x_j the swept variable).
struct sweep {
  std::string name, x_name;
  double claimed = 0;  // the theorem's exponent in x
  std::vector<double> x;
  std::function<double(std::uint64_t rep, std::size_t j)> excess;
  bool audited = true;            // false: measured and reported, not part of the verdict
  std::vector<double> baselines;  // per point; empty → rate_header::baseline
  double self_check_shift = 0;    // tested exponent (claimed − shift)/F + shift (see below)
};

struct rate_header {
  std::string id, title, source, claim_intro;
  double baseline = 0;  // excess risk of the start w0 = 0 (what a run that never moves gets)
  std::string quantity = "excess";
  std::string x_label = "swept variable (n or ε)", y_label = "E excess risk";
};

// Runs the sweeps on common replicates and gives the verdict described at the top of the file.
scenario_result rate_scenario(const scenario_context& c,
                              const rate_header& h,
                              const std::vector<sweep>& sweeps,
                              std::uint64_t replicates,
                              nlohmann::json parameters) {
  const double F = c.bound_factor;
  std::vector<sim::observable> obs;
  for (const sweep& w : sweeps)
    for (const double x : w.x)
      obs.push_back({h.quantity + ", " + w.name + ", " + w.x_name + " = " + sig(x), true});
  sim::monte_carlo_options mc = mc_options(c, replicates, h.id);
  mc.chunk = 2;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        std::size_t k = 0;
        for (const sweep& w : sweeps)
          for (std::size_t j = 0; j < w.x.size(); ++j) out[k++] = w.excess(rep, j);
      },
      mc);
  const double confidence = 1 - 0.05 / dbl(sweeps.size());
  // Student t for the replicates behind the means and the slopes' delta-method se.
  const double z = t_multiplier(normal_quantile(confidence), res.replicates);
  const double max_halfwidth = 0.3;
  scenario_result r;
  r.id = h.id;
  r.title = h.title;
  r.source = h.source;
  r.claim = h.claim_intro +
            ". Verdict per sweep: violated if the log-log slope's interval lies wholly above the "
            "claimed exponent while the runs learn (best mean excess significantly below the "
            "excess of the start w0 = 0, " +
            sig(h.baseline, 4) +
            "); holds if the whole interval is below the exponent, or if its lower end is at or "
            "below it (the theorem is an upper bound: faster decay is allowed) with a half-width "
            "<= " +
            sig(max_halfwidth) + "; inconclusive otherwise. " + sig(confidence * 100, 4) +
            "% intervals, Bonferroni over the sweeps";
  parameters["excess_of_w0"] = h.baseline;
  parameters["replicates"] = replicates;
  parameters["tier"] = to_string(c.tier);
  r.parameters = std::move(parameters);
  figure& f = r.figure;
  f.title = legend_words(h.title);
  f.x_label = h.x_label;
  f.y_label = h.y_label;
  f.log_x = f.log_y = true;
  int holds = 0, violated = 0;
  double worst_gap = -INFINITY, worst_claimed = 0;
  slope_fit worst_fit;
  std::string worst_name;
  std::size_t k = 0;
  for (std::size_t w = 0; w < sweeps.size(); ++w) {
    const sweep& sw = sweeps[w];
    std::vector<std::vector<double>> cols;
    std::string means;
    series s;
    s.name = legend_words(sw.name);
    s.style = "linespoints";
    s.colour = static_cast<int>(w);
    bool learns = false;
    for (std::size_t j = 0; j < sw.x.size(); ++j, ++k) {
      cols.push_back(res.observables[k].samples);
      const double m = res.observables[k].stats.mean(),
                   se = res.observables[k].stats.standard_error();
      means += " " + sig(m, 4);
      if (m + z * se < (sw.baselines.empty() ? h.baseline : sw.baselines[j])) learns = true;
      s.x.push_back(sw.x[j]);
      s.y.push_back(m);
      const double t95 = t_multiplier(1.96, res.observables[k].stats.count());  // Student t
      s.y_lo.push_back(m - t95 * se);
      s.y_hi.push_back(m + t95 * se);
    }
    f.data.push_back(std::move(s));
    const slope_fit fit = log_log_slope(sw.x, cols);
    // The slope of the last segment (largest x): where the sweep is closest to asymptotic.
    const std::size_t J = sw.x.size();
    const slope_fit last = log_log_slope({sw.x[J - 2], sw.x[J - 1]}, {cols[J - 2], cols[J - 1]});
    // The self-check claims a faster decay: the exponent divided by F; an exponent of 0 (a
    // quantity that must not grow) is first shifted, so that F < 1 claims a decay.
    const double claimed = (sw.claimed - sw.self_check_shift) / F + sw.self_check_shift;
    const double lo = fit.slope - z * fit.se, hi = fit.slope + z * fit.se;
    const double last_lo = last.slope - z * last.se;
    std::string v;
    if (!fit.positive) {
      v = "no fit (a mean <= 0)";
    } else if (!sw.audited) {
      v = learns ? "reported, not audited" : "reported, not audited (no point learns beyond w0)";
    } else if (lo > claimed && !learns) {
      v = "inconclusive (slower than the claimed exponent, but no point learns beyond w0 = 0: "
          "pre-asymptotic)";
    } else if (lo > claimed && !(last.positive && last_lo > claimed)) {
      v = "inconclusive (slower than the claimed exponent over the sweep, but the last segment "
          "is not: pre-asymptotic window)";
    } else if (lo > claimed) {
      ++violated;
      v = "VIOLATED (decays slower than the claimed exponent)";
    } else if (hi < claimed || z * fit.se <= max_halfwidth) {
      ++holds;
      v = hi < claimed ? "holds (decays faster than the claimed exponent)"
                       : "holds (interval contains the exponent)";
    } else {
      v = "inconclusive (interval too wide)";
    }
    if (sw.audited && fit.positive && lo - claimed > worst_gap) {
      worst_gap = lo - claimed;
      worst_fit = fit;
      worst_name = sw.name;
      worst_claimed = claimed;
    }
    r.notes.push_back(sw.name + ": mean " + h.quantity + " at " + sw.x_name + " =" + means +
                      "; slope " + sig(fit.slope, 3) + " [" + sig(lo, 3) + ", " + sig(hi, 3) +
                      "] (last segment " + sig(last.slope, 3) + " [" + sig(last_lo, 3) + ", " +
                      sig(last.slope + z * last.se, 3) + "]) vs claimed exponent " +
                      sig(claimed, 3) + " -> " + v);
  }
  const auto all = static_cast<int>(
      std::count_if(sweeps.begin(), sweeps.end(), [](const sweep& w) { return w.audited; }));
  r.verdict = violated > 0   ? verdict::violated
              : holds == all ? verdict::holds
                             : verdict::inconclusive;
  r.verdict_reason =
      violated > 0 ? std::to_string(violated) + " sweep(s) decay significantly slower than claimed"
      : holds == all ? "every sweep decays at least as fast as the theorem's exponent"
                     : "some sweeps are not resolved";
  r.quantity = "log-log slope of the sweep closest to violating (" + worst_name + ")";
  r.estimate = worst_fit.slope;
  r.estimate_lo = worst_fit.slope - z * worst_fit.se;
  r.estimate_hi = worst_fit.slope + z * worst_fit.se;
  r.bound = worst_claimed;
  r.confidence = confidence;
  r.tightness = std::nan("");
  r.notes.push_back(
      "a slope is one-sided evidence: the theorems are upper bounds with hidden constants, and the "
      "exponent of a two-term bound applies only where its term dominates (for (n eps)^(-2/3) + "
      "n^(-1/2), eps <~ n^(-1/4) with constants 1); a slower decay in a window where the other "
      "term or the start dominates is not a refutation, hence the last-segment and learning gates");
  r.replicates = replicates;
  return r;
}

// w* = W·(1, …, 1)/√d.
sim::vector diagonal(std::size_t d, double W) {
  return sim::vector::Constant(static_cast<Eigen::Index>(d), W / std::sqrt(dbl(d)));
}

// Well-specified sigmoid GLM, x uniform on S^{d−1}, binary labels (Algs 3 and 5).
learners::glm_population sigmoid_population(std::size_t d, double W) {
  learners::glm_population p;
  p.design = learners::glm_design::coordinate(d, d, learners::glm_design_law::unit_sphere);
  p.teacher.link = glm_link::sigmoid;
  p.teacher.w_star = diagonal(d, W);
  p.teacher.noise = learners::glm_label_noise::binary;
  return p;
}

double excess_of_zero(const learners::glm_population& p, glm_link link, const scenario_context& c) {
  random_stream s(c.seed, 0, 999);
  return p
      .excess_risk(link, sim::vector::Zero(static_cast<Eigen::Index>(p.design.dimension)), 200000,
                   s)
      .value;
}

// ---- swx23-thm2-alg3-rate -----------------------------------------------------------------------

scenario_result thm2_alg3_rate(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const std::uint64_t replicates = replicates_for(c, 32, 400);
  const std::size_t samples = full ? 20000 : 4000, d = 2;
  // W = 1 and d = 2 give the surrogate enough curvature (E σ′ xxᵀ ≈ I/10) for the runs to reach
  // their asymptotic regime at these n. The ε sweep uses Thm 2's η = min{ε/√(m log(1/δ)),
  // 1/√n}; the n sweep at ε = 4 uses η = 2 = 1/(2G), the largest step of the privacy proof (with
  // the default 1/√n every run there is pre-asymptotic: the phases are too short to converge).
  const double W = 1, delta = 1e-5, eta = 2;
  const learners::glm_population p = sigmoid_population(d, W);
  // The JL dimension m = ⌈(nε)^{2/3}⌉ (Thm 2's m* without its log(n/δ) factor, which would give
  // m ≈ 20(nε)^{2/3}: the rate is the same up to that log, and the runs stay affordable).
  const std::size_t n_private = full ? 65536 : 16384;
  const std::vector<double> epss = {0.05, 0.1, 0.2, 0.4};
  const std::vector<std::size_t> ns = full
                                          ? std::vector<std::size_t>{2048, 4096, 8192, 16384, 32768}
                                          : std::vector<std::size_t>{2048, 4096, 8192};
  // Every run of a replicate samples p from the same streams (seed, rep, 0/1), one record after
  // the other: its n records are the first n of the largest data set, which the replicate samples
  // once (freed after its last run, the n sweep's largest n, evaluated last by rate_scenario).
  const std::size_t n_max = std::max(n_private, ns.back());
  std::vector<sim::dataset> replicate_data(replicates);
  auto run = [&](std::uint64_t rep, std::size_t n, double eps, double step) {
    random_stream es(c.seed, rep, 2);
    sim::dataset& all = replicate_data[rep];
    if (all.labels.size() == 0) {
      random_stream fs(c.seed, rep, 0), ls(c.seed, rep, 1);
      all = p.sample(n_max, fs, ls);
    }
    const auto rows = static_cast<Eigen::Index>(n);
    const sim::dataset data{all.features.topRows(rows), all.labels.head(rows)};
    learners::phased_sgd_options o;
    o.epsilon = eps;
    o.delta = delta;
    o.B_bound = 1;
    o.eta = step;
    o.jl_dim = static_cast<std::size_t>(std::ceil(std::pow(dbl(n) * eps, 2.0 / 3)));
    const learners::glm_result g = learners::jl_phased_sgd(data, o, {c.seed, rep, 10});
    return p.excess_risk(glm_link::sigmoid, g.w, samples, es).value;
  };
  const double eps_large = 4;
  std::vector<sweep> sweeps(2);
  sweeps[0].name = "eps, private regime (n = " + std::to_string(n_private) + ")";
  sweeps[0].x_name = "eps";
  sweeps[0].claimed = -2.0 / 3;
  sweeps[0].x = epss;
  sweeps[0].excess = [&](std::uint64_t rep, std::size_t j) {
    return run(rep, n_private, epss[j], 0);
  };
  sweeps[1].name = "n, eps = 4";
  sweeps[1].x_name = "n";
  sweeps[1].claimed = -0.5;
  for (const std::size_t n : ns) sweeps[1].x.push_back(dbl(n));
  sweeps[1].excess = [&](std::uint64_t rep, std::size_t j) {
    const double e = run(rep, ns[j], eps_large, eta);
    if (j + 1 == ns.size()) replicate_data[rep] = sim::dataset();  // the replicate's last run
    return e;
  };
  rate_header h;
  h.id = "swx23-thm2-alg3-rate";
  h.title = "SWX+23 Thm 2: Alg 3 (JL + phased SGD) excess risk against eps and n";
  h.source = "SWX+23 Alg 3, Thm 2";
  h.claim_intro =
      "scaling (up to constants and logs): E L_P(w) - L_P(w*) = O~((n eps)^(-2/3) + n^(-1/2)), "
      "independent of theta and d; so the log-log slope in eps is at most -2/3 where the private "
      "term dominates, and in n at most -1/2 (the n^(-1/2) term dominates at eps = 4)";
  h.baseline = excess_of_zero(p, glm_link::sigmoid, c);
  nlohmann::json par = {{"link", "sigmoid (G = 1/4, B = 1)"},
                        {"d", d},
                        {"design", "x uniform on S^{d-1}"},
                        {"w_star", "W (1, ..., 1)/sqrt(d), W = 1"},
                        {"delta", delta},
                        {"jl_dim", "ceil((n eps)^(2/3)) (Thm 2's m* without log(n/delta))"},
                        {"eta",
                         "eps sweep: Thm 2's min{eps/sqrt(m log(1/delta)), 1/sqrt(n)}; n sweep: 2 "
                         "= 1/(2G), the privacy proof's largest step"},
                        {"n_private", n_private},
                        {"eps_sweep", epss},
                        {"n_sweep", ns},
                        {"eps_large", eps_large},
                        {"x_samples_per_replicate", samples}};
  return rate_scenario(c, h, sweeps, replicates, std::move(par));
}

// ---- swx23-thm4-alg5-rate -----------------------------------------------------------------------

scenario_result thm4_alg5_rate(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  // quick: 8 replicates give the n slope to about +-0.12; it lies ~0.7 below the claimed -1/2 at
  // seeds 2026, 1, 7 (24 gave +-0.06). A slope within ~0.15 of -1/2 would not be resolved.
  const std::uint64_t replicates = replicates_for(c, 8, 400);
  const std::size_t samples = full ? 20000 : 4000, d = 2;
  const double W = 1, delta = 1e-5, eps = 4;  // curvature as in swx23-thm2-alg3-rate
  const learners::glm_population p = sigmoid_population(d, W);
  const std::vector<std::size_t> ns = full ? std::vector<std::size_t>{8192, 32768, 131072, 524288}
                                           : std::vector<std::size_t>{8192, 32768, 131072};
  std::vector<sweep> sweeps(1);
  sweeps[0].name = "n, eps = 4 (beta = sqrt(n))";
  sweeps[0].x_name = "n";
  sweeps[0].claimed = -0.5;
  for (const std::size_t n : ns) sweeps[0].x.push_back(dbl(n));
  sweeps[0].excess = [&](std::uint64_t rep, std::size_t j) {
    random_stream fs(c.seed, rep, 0), ls(c.seed, rep, 1), es(c.seed, rep, 2);
    const sim::dataset data = p.sample(ns[j], fs, ls);
    learners::phased_sgd_options o;
    o.epsilon = eps;
    o.delta = delta;
    o.B_bound = 1;
    o.theta_rank = dbl(d);
    o.oracle = learners::moreau_oracle_kind::exact;  // the γ → 0 limit of Alg 4 (docs/nonconvex.md)
    o.eta = 2 / std::sqrt(dbl(ns[j]));          // 2/β: the largest step of Thm 4's proof
    const learners::glm_result g = learners::moreau_phased_sgd(data, o, {c.seed, rep, 10});
    return p.excess_risk(glm_link::sigmoid, g.w, samples, es).value;
  };
  rate_header h;
  h.id = "swx23-thm4-alg5-rate";
  h.title = "SWX+23 Thm 4: Alg 5 (Moreau-smoothed phased SGD) excess risk against n";
  h.source = "SWX+23 Alg 5, Thm 4";
  h.claim_intro =
      "scaling (up to constants): with beta = sqrt(n) the Moreau bias G B^2/beta and the "
      "optimisation/sampling term O(1/sqrt(n)) balance, plus sqrt(theta log(1/delta))/(n eps); so "
      "at eps = 4 the log-log slope in n is at most -1/2";
  h.baseline = excess_of_zero(p, glm_link::sigmoid, c);
  nlohmann::json par = {{"link", "sigmoid (G = 1/4, B = 1)"},
                        {"d", d},
                        {"design", "x uniform on S^{d-1}"},
                        {"w_star", "W (1, ..., 1)/sqrt(d), W = 1"},
                        {"epsilon", eps},
                        {"delta", delta},
                        {"beta", "sqrt(n) (Thm 4)"},
                        {"oracle", "exact prox (the gamma -> 0 limit of Alg 4)"},
                        {"eta", "2/beta = 2/sqrt(n), the privacy proof's largest step"},
                        {"n_sweep", ns},
                        {"x_samples_per_replicate", samples}};
  return rate_scenario(c, h, sweeps, replicates, std::move(par));
}

// ---- swx23-thm6-alg7-rate -----------------------------------------------------------------------

scenario_result thm6_alg7_rate(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  // quick: 12 replicates give the slopes to about +-0.13 (eps) and +-0.21 (n; the verdict needs
  // <= 0.3 when the interval contains the exponent); the eps slope stays wholly below -2/3 at
  // seeds 2026, 1, 7. A slope within ~0.2 of its exponent is not separated from it.
  const std::uint64_t replicates = replicates_for(c, 12, 400);
  const std::size_t samples = full ? 20000 : 4000, d = 5;
  const double W = 1, h_noise = 0.5, B = W + h_noise, delta = 1e-5;
  // Well-specified ReLU teacher y = ReLU(<w*, x>) + U[−h, h] on the unit sphere (as
  // swx23-thm6-steps-ushape), w* = W(1, …, 1)/√d.
  learners::glm_population p;
  p.design = learners::glm_design::coordinate(d, d, learners::glm_design_law::unit_sphere);
  p.teacher.link = glm_link::relu;
  p.teacher.w_star = diagonal(d, W);
  p.teacher.noise = learners::glm_label_noise::uniform;
  p.teacher.noise_scale = h_noise;
  // Φ = I_d (use_jl = false, m = d): at d = 5 the JL step cannot reduce the dimension, and the
  // rate with m = d is the theorem's with its m fixed; T and η are Thm 6's defaults at m = d.
  auto run = [&](std::uint64_t rep, std::size_t n, double eps) {
    random_stream fs(c.seed, rep, 0), ls(c.seed, rep, 1), es(c.seed, rep, 2);
    const sim::dataset data = p.sample(n, fs, ls);
    learners::relu_pgd_options o;
    o.epsilon = eps;
    o.delta = delta;
    o.W_norm = W;
    o.B_bound = B;
    o.use_jl = false;
    const learners::glm_result g = learners::relu_dp_pgd(data, o, {c.seed, rep, 10});
    return p.excess_risk(glm_link::relu, g.w, samples, es).value;
  };
  const std::size_t n_private = full ? 8192 : 4096;
  const std::vector<double> epss = {0.4, 0.8, 1.6};
  const std::vector<std::size_t> ns = full ? std::vector<std::size_t>{512, 1024, 2048, 4096}
                                           : std::vector<std::size_t>{256, 512, 1024};
  const double eps_large = 4;
  std::vector<sweep> sweeps(2);
  sweeps[0].name = "eps, private regime (n = " + std::to_string(n_private) + ")";
  sweeps[0].x_name = "eps";
  sweeps[0].claimed = -2.0 / 3;
  sweeps[0].x = epss;
  sweeps[0].excess = [&](std::uint64_t rep, std::size_t j) { return run(rep, n_private, epss[j]); };
  sweeps[1].name = "n, eps = 4";
  sweeps[1].x_name = "n";
  sweeps[1].claimed = -0.5;
  for (const std::size_t n : ns) sweeps[1].x.push_back(dbl(n));
  sweeps[1].excess = [&](std::uint64_t rep, std::size_t j) { return run(rep, ns[j], eps_large); };
  rate_header h;
  h.id = "swx23-thm6-alg7-rate";
  h.title =
      "SWX+23 Thm 6: Alg 7 (DP projected GD, ReLU regression) excess risk against eps and n";
  h.source = "SWX+23 Alg 7, Thm 6";
  h.claim_intro =
      "scaling (up to constants and logs): with T = min{n, n^2 eps^2/(m log(1/delta))} the excess "
      "risk is O~(n^(-1/2) + (n eps)^(-2/3)); so the log-log slope in eps is at most -2/3 where "
      "the private term dominates, and in n at most -1/2 at eps = 4";
  h.baseline = excess_of_zero(p, glm_link::relu, c);
  nlohmann::json par = {{"link", "relu (G = 1)"},
                        {"d", d},
                        {"design", "x uniform on S^{d-1}"},
                        {"teacher", "y = ReLU(<w*, x>) + U[-h, h], w* = W(1,...,1)/sqrt(d)"},
                        {"W", W},
                        {"h", h_noise},
                        {"B", B},
                        {"delta", delta},
                        {"jl", "none (Phi = I_d, m = d)"},
                        {"steps_T", "Thm 6: min{n, n^2 eps^2/(m log(1/delta))}"},
                        {"eta", "Thm 6's default"},
                        {"n_private", n_private},
                        {"eps_sweep", epss},
                        {"n_sweep", ns},
                        {"eps_large", eps_large},
                        {"x_samples_per_replicate", samples}};
  return rate_scenario(c, h, sweeps, replicates, std::move(par));
}

// ---- swx23-thm7-alg8-dimension ------------------------------------------------------------------

scenario_result thm7_alg8_dimension(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  // quick: 12 replicates give the printed sweep's slope in d to about +-0.18 (the verdict needs
  // <= 0.3 when the interval contains 0); a growth in d slower than ~d^0.2 is not resolved.
  const std::uint64_t replicates = replicates_for(c, 12, 400);
  const std::vector<std::size_t> dims =
      full ? std::vector<std::size_t>{4, 8, 16, 32, 64} : std::vector<std::size_t>{4, 8, 16, 32};
  const long T = 48;               // steps (disjoint chunks)
  const std::size_t per_dim = 40;  // chunk m = 40 d records, so n = T m = 1 920 d
  const double eta = 1.0 / 16, epsilon = 1, delta = 1e-5, B = 3, h_noise = 1, W_teacher = 1;
  // The misspecified ReLU teacher of swx23-thm7-alg8-contraction on x ~ N(0, I_d):
  // y = clamp_B(ReLU(<w*, x>) + U[−h, h]), and w*_ℓ = 2E[yx] (derived for Gaussian x) by
  // quadrature.
  std::vector<learners::glm_population> pops;
  std::vector<sim::vector> targets;
  std::vector<double> start;  // ‖w0 − w*_ℓ‖² with w0 = 0
  for (const std::size_t d : dims) {
    learners::glm_population p;
    p.design = learners::glm_design::coordinate(d, d, learners::glm_design_law::gaussian);
    p.teacher.link = glm_link::relu;
    p.teacher.w_star = diagonal(d, W_teacher);
    p.teacher.noise = learners::glm_label_noise::uniform;
    p.teacher.noise_scale = h_noise;
    p.teacher.clamp = B;
    targets.push_back(2 * p.label_correlation());
    start.push_back(targets.back().squaredNorm());
    pops.push_back(std::move(p));
  }
  // Both calibrations run on the same data set (streams 0, 1 of the replicate), and sampling it is
  // ~85% of the cost: it is drawn once, the printed run is the audited sweep's value and the
  // corrected run's is kept for the reported sweep, which rate_scenario evaluates after it in the
  // same replicate (the same numbers as two separate draws).
  std::vector<double> corrected_runs(replicates * dims.size(), NAN);
  auto run = [&](std::uint64_t rep, std::size_t j, const sim::dataset& data, bool corrected) {
    const std::size_t d = dims[j];
    learners::adaptive_gd_options o;
    o.epsilon = epsilon;
    o.delta = delta;
    o.B_bound = B;
    o.eta = eta;
    o.steps = T;
    o.corrected_sensitivity = corrected;
    // The printed calibration uses Assumption 2's ‖x‖ ≤ √d; the corrected one R_x = 2√d (a bound
    // that ~all Gaussian records meet: P(‖x‖ > 2√d) ≈ 2e-5 at d = 10).
    o.feature_norm_bound = corrected ? 2 * std::sqrt(dbl(d)) : 0;
    const learners::glm_result g = learners::adaptive_batched_gd(data, o, {c.seed, rep, 10});
    return (g.w - targets[j]).squaredNorm();
  };
  std::vector<sweep> sweeps(2);
  for (sweep& w : sweeps) {
    w.x_name = "d";
    w.claimed = 0;
    w.self_check_shift = 0.5;
    for (const std::size_t d : dims) w.x.push_back(dbl(d));
    w.baselines = start;
  }
  sweeps[0].name = "printed calibration (Thm 7 as stated), n = 1920 d";
  sweeps[0].excess = [&](std::uint64_t rep, std::size_t j) {
    random_stream fs(c.seed, rep, 0), ls(c.seed, rep, 1);
    const sim::dataset data =
        pops[j].sample(static_cast<std::size_t>(T) * per_dim * dims[j], fs, ls);
    corrected_runs[rep * dims.size() + j] = run(rep, j, data, true);
    return run(rep, j, data, false);
  };
  sweeps[1].name = "corrected (private) calibration, n = 1920 d";
  sweeps[1].excess = [&](std::uint64_t rep, std::size_t j) {
    const double v = corrected_runs[rep * dims.size() + j];
    if (std::isnan(v))
      throw std::logic_error("swx23-thm7-alg8-dimension: the corrected run is read before it ran");
    return v;
  };
  sweeps[1].audited = false;
  rate_header h;
  h.id = "swx23-thm7-alg8-dimension";
  h.title = "SWX+23 Thm 7: Alg 8 with n proportional to d (sample complexity linear in d)";
  h.source = "SWX+23 Alg 8, Thm 7";
  h.quantity = "|w_T - w*_l|^2";
  h.x_label = "d (n = 1920 d)";
  h.y_label = "E |w_T − w^*_l|^2";
  h.claim_intro =
      "scaling (up to constants and logs): Thm 7's sample complexity n >~ max{d/(eps alpha), "
      "d/alpha^2} is linear in d, so at n proportional to d (fixed eps, T, eta) the error "
      "|w_T - w*_l|^2 that the proof contracts (12)-(15) does not grow with d: claimed log-log "
      "slope in d at most 0 (the self-check claims (0 - 0.5)/F + 0.5). Audited with the paper's "
      "printed noise (the theorem as stated); the same sweep with the noise calibrated to the "
      "true replace-one sensitivity 2R_x(R_x|w| + B)/m is reported beside it";
  h.baseline = start.front();
  nlohmann::json par = {
      {"design", "x ~ N(0, I_d)"},
      {"teacher", "y = clamp_B(ReLU(<w*, x>) + U[-h, h]), w* = (1,...,1)/sqrt(d), h = 1, B = 3"},
      {"target", "w*_l = 2 E[yx] (SWX+23 Sec 4.2, quadrature)"},
      {"dims", dims},
      {"steps_T", T},
      {"chunk_m", "40 d"},
      {"eta", eta},
      {"epsilon", epsilon},
      {"delta", delta},
      {"printed_noise", "sigma^2 = 8(sqrt(d)|w| + B)^2 log(1.25/delta)/(m^2 eps^2) (a variance)"},
      {"corrected_noise",
       "8 Delta^2 log(1.25/delta)/eps^2, Delta = 2R_x(R_x|w| + B)/m, R_x = 2 sqrt(d)"}};
  scenario_result r = rate_scenario(c, h, sweeps, replicates, std::move(par));
  r.notes.push_back(
      "the printed noise is calibrated to the proof's per-sample bound sqrt(d)|w| + B, which is "
      "the gradient norm divided by R_x = sqrt(d): against the true sensitivity it is sqrt(d) "
      "(times 2) too small, so the printed run is not (eps, delta)-DP (docs/nonconvex.md). The "
      "noise norm per step is ~ d/m printed but ~ d^(3/2)/m private, so a fixed alpha needs n "
      "~ d^(3/2) with private noise: 'linear in d' holds only for the printed noise. At n = 1920 "
      "d the private runs do not learn at all: the noise, proportional to |w|, feeds back into "
      "|w| and the iterates diverge (the Alg 8 instability in docs/nonconvex.md)");
  return r;
}

// ---- swx23-thm8-alg9-rate -----------------------------------------------------------------------

scenario_result thm8_alg9_rate(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  // quick: 8 replicates give both slopes to about +-0.05-0.1 (the verdict needs <= 0.3); the
  // estimates lie >= 0.1 below the claimed -1/2 at seeds 2026, 1, 7 (24 gave +-0.04). A slope
  // within ~0.1 of -1/2 is not resolved.
  const std::uint64_t replicates = replicates_for(c, 8, 400);
  const std::size_t samples = full ? 20000 : 4000, d = 3;
  const int degree = 2;
  const std::size_t k = learners::polynomial_feature_dimension(d, degree);  // θ = k = 10
  const double delta = 1e-5, W = 1;
  // Model (4) with M = 0 (well specified in the kernel space): x uniform on S^{d−1}, binary
  // labels with P(y = 1 | x) = σ(⟨v, ψ(x)⟩), ψ the normalised multinomial features (‖ψ‖ ≤ 1),
  // v = W(1, …, 1)/√k. The excess risk E_x(σ(⟨w, ψ(x)⟩) − σ(⟨v, ψ(x)⟩))² by Monte Carlo on
  // fresh x (common draws within a replicate).
  const learners::glm_design design =
      learners::glm_design::coordinate(d, d, learners::glm_design_law::unit_sphere);
  const sim::vector v = diagonal(k, W);
  auto excess = [&](const sim::vector& w, random_stream& s) {
    const Eigen::MatrixXd x = design.sample(samples, s);
    const Eigen::VectorXd a = learners::kernel_predict(glm_link::sigmoid, w, x, degree);
    const Eigen::VectorXd b = learners::kernel_predict(glm_link::sigmoid, v, x, degree);
    return (a - b).squaredNorm() / static_cast<double>(samples);
  };
  const std::size_t n_private = full ? 262144 : 65536;
  const std::vector<double> epss = {0.05, 0.1, 0.2, 0.4};
  const std::vector<std::size_t> ns = full ? std::vector<std::size_t>{4096, 16384, 65536, 262144}
                                           : std::vector<std::size_t>{4096, 16384, 65536};
  // Every run of a replicate draws its data from the same streams (seed, rep, 0/1), one record
  // after the other (features, then labels from P(y = 1 | x)): the n records of a run are the
  // first n of the largest data set. Each replicate samples that once (sampling was ~40% of the
  // run time) and gives each run its prefix; the slot is freed after the replicate's last run
  // (the n sweep's largest n, which rate_scenario evaluates last).
  const std::size_t n_max = std::max(n_private, ns.back());
  std::vector<sim::dataset> replicate_data(replicates);
  auto data_of = [&](std::uint64_t rep) -> const sim::dataset& {
    sim::dataset& all = replicate_data[rep];
    if (all.labels.size() == 0) {
      random_stream fs(c.seed, rep, 0), ls(c.seed, rep, 1);
      all.features = design.sample(n_max, fs);
      const Eigen::VectorXd p = learners::kernel_predict(glm_link::sigmoid, v, all.features, degree);
      all.labels.resize(static_cast<Eigen::Index>(n_max));
      for (Eigen::Index i = 0; i < all.labels.size(); ++i)
        all.labels(i) = ls.uniform() < p(i) ? 1.0 : 0.0;
    }
    return all;
  };
  auto run = [&](std::uint64_t rep, std::size_t n, double eps) {
    random_stream es(c.seed, rep, 2);
    const sim::dataset& all = data_of(rep);
    const auto rows = static_cast<Eigen::Index>(n);
    const sim::dataset data{all.features.topRows(rows), all.labels.head(rows)};
    learners::phased_sgd_options o;
    o.epsilon = eps;
    o.delta = delta;
    o.B_bound = 1;
    o.theta_rank = dbl(k);
    // η* of App A's closed-form approximation at θ = k, capped at 2/G (as swx23-thm1-rate): the
    // explicit-constant version of Thm 8's η.
    risk::glm_problem prob;
    prob.examples = static_cast<long long>(n);
    prob.theta = dbl(k);
    prob.epsilon = eps;
    prob.delta = delta;
    prob.W = W;
    prob.G = 0.25;
    prob.B = 1;
    o.eta = std::min(8.0, risk::phased_sgd_phase_sum_approximation(prob, 1, W).eta_star);
    const learners::glm_result g = learners::dp_kernel_glm(data, degree, o, {c.seed, rep, 10});
    return excess(g.w, es);
  };
  const double eps_large = 4;
  std::vector<sweep> sweeps(2);
  sweeps[0].name = "eps (n = " + std::to_string(n_private) + ")";
  sweeps[0].x_name = "eps";
  sweeps[0].claimed = -0.5;  // min{√θ/(nε), 1/√(nε)}: at most −1/2 in ε in either branch
  sweeps[0].x = epss;
  sweeps[0].excess = [&](std::uint64_t rep, std::size_t j) { return run(rep, n_private, epss[j]); };
  sweeps[1].name = "n, eps = 4";
  sweeps[1].x_name = "n";
  sweeps[1].claimed = -0.5;
  for (const std::size_t n : ns) sweeps[1].x.push_back(dbl(n));
  sweeps[1].excess = [&](std::uint64_t rep, std::size_t j) {
    const double e = run(rep, ns[j], eps_large);
    if (j + 1 == ns.size()) replicate_data[rep] = sim::dataset();  // the replicate's last run
    return e;
  };
  rate_header h;
  h.id = "swx23-thm8-alg9-rate";
  h.title = "SWX+23 Thm 8: Alg 9 (phased SGD on multinomial-kernel features) excess risk";
  h.source = "SWX+23 Alg 9, Thm 8";
  h.claim_intro =
      "scaling (up to constants and logs): with M = 0 the excess risk of Alg 9 is O(min{sqrt(theta)"
      "/(n eps), 1/sqrt(n eps)} + n^(-1/2)) (theta = the feature dimension k), so the log-log "
      "slope in eps is at most -1/2 where the private term dominates (-1 in the Alg 2 branch), "
      "and in n at most -1/2 at eps = 4";
  {
    random_stream s(c.seed, 0, 999);
    h.baseline = excess(sim::vector::Zero(static_cast<Eigen::Index>(k)), s);
  }
  nlohmann::json par = {
      {"link", "sigmoid (G = 1/4, B = 1)"},
      {"d", d},
      {"degree", degree},
      {"feature_dim_k", k},
      {"design", "x uniform on S^{d-1}"},
      {"teacher", "P(y = 1|x) = sigmoid(<v, psi(x)>), v = (1,...,1)/sqrt(k), M = 0"},
      {"delta", delta},
      {"eta", "eta* of App A's closed form at theta = k, capped at 2/G"},
      {"n_private", n_private},
      {"eps_sweep", epss},
      {"n_sweep", ns},
      {"eps_large", eps_large},
      {"x_samples_per_replicate", samples}};
  return rate_scenario(c, h, sweeps, replicates, std::move(par));
}
}  // namespace

void register_nonconvex_rate_scenarios(std::vector<scenario>& out) {
  out.push_back(
      {"swx23-thm2-alg3-rate", "SWX+23 Thm 2: Alg 3 rates in eps and n", thm2_alg3_rate, 0.25});
  out.push_back({"swx23-thm4-alg5-rate", "SWX+23 Thm 4: Alg 5 rate in n", thm4_alg5_rate, 0.25});
  out.push_back(
      {"swx23-thm6-alg7-rate", "SWX+23 Thm 6: Alg 7 rates in eps and n", thm6_alg7_rate, 0.25});
  out.push_back(
      {"swx23-thm8-alg9-rate", "SWX+23 Thm 8: Alg 9 rates in eps and n", thm8_alg9_rate, 0.25});
  out.push_back({"swx23-thm7-alg8-dimension", "SWX+23 Thm 7: Alg 8 sample size linear in d",
                 thm7_alg8_dimension, 0.25});
}

}  // namespace dpkit::validation
