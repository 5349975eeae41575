// WSK+26 (Wang et al. 2026, "Population risk bounds for KANs trained by DP-SGD with correlated
// noise")
// as validation scenarios on the two-layer KAN of dpkit::sim (kan.hpp); Lemmas B.6–B.7:
// wsk26_kan.cpp.
//
//  * wsk26-dplcgd-kan-trends — TREND checks: DP-λCGD (Algorithm 1: mini-batches without
//    replacement, clipping at C_clip = G_δ, correlated noise, projection onto B(W_0, R*)) on
//    separable unit-ball data; the averaged population risk on fresh test data moves in the
//    directions Thm 4.1's bound predicts where every term of the bound moves the same way. The
//    bound holds only up to constants (and this regime violates its step-size condition, see the
//    notes), so these are checks of directions, not of values.
//
// The simulator (dpkit::sim) knows no bound; the bounds come from dpkit::risk.
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../harness/scenarios.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/risk/kan_bounds.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/data.hpp"
#include "dpkit/learners/kan.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "wsk26_kan_common.hpp"

namespace dpkit::validation {
namespace {

using kan_detail::block_norm;
using kan_detail::constants_of;
using kan_detail::paired;
using kan_detail::theorem_radius;

// ---- wsk26-dplcgd-kan-trends -------------------------------------------------------------------

// One configuration of Algorithm 1 in the trend scenario.
struct run_config {
  std::string name;
  double kappa = 0, lambda = 0;
};

// A predicted ordering "E[X_hi] > E[X_lo]" on paired samples (common random numbers).
struct trend_check {
  std::string claim, source;
  std::size_t hi, lo;  // configuration indices
  bool distance;       // false: averaged test risk; true: max_t ‖W_t − W_0‖
};

scenario_result dplcgd_trends(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  // The problem: separable data in the unit ball (WSK+26 §3: |x| <= 1, y = ±1).
  const std::size_t d = 2, n = 200, n_test = 250, p = 8;
  const double data_margin = 0.1;
  // Algorithm 1's parameters (WSK+26 §3.2).
  const std::size_t m = full ? 64 : 16;
  const long B = 20, T = 300;
  const double eta = 0.5, delta = 0.01, kappa1 = 0.01;
  // Test-risk checkpoints t = 0, every, …, T − every: (1/T)Σ_{t<T} by K = T/every terms. Full:
  // every 20 steps (K = 15). Quick: every 60 steps (K = 5), a third of the test-set passes (250
  // losses per checkpoint and configuration, ~30% of the run at K = 15); the weakest ordering keeps
  // 1.99x / 1.40x / 1.79x its interval at seeds 2026 / 1 / 7 (K = 15: 2.19x / 1.51x / 1.82x).
  // 64 replicates cannot resolve a risk rise from kappa = 0 to kappa_1 under ~1/2 of the measured.
  const long every = full ? 20 : 60;
  const std::uint64_t replicates = replicates_for(c, 64, 1000);
  learners::kan_options o;
  o.width = m;
  const risk::kan_constants k = constants_of(o);
  const auto ml = static_cast<long long>(m), pl = static_cast<long long>(p);
  const risk::kan_curvature curvature = risk::kan_curvature_bounds(k, ml, pl, delta);
  const double clip = curvature.gradient;  // C_clip = G_δ (Thm 4.1: C_clip ≍ G_δ, ≥ G_δ)
  const risk::second_layer_radii b5 = risk::lemma_b5(ml, pl, delta);

  std::vector<run_config> configs = {
      {"κ = 0 (non-private)", 0, 0},
      {"κ = " + sig(kappa1) + ", λ = 0.5", kappa1, 0.5},
      {"κ = " + sig(2 * kappa1) + ", λ = 0.5", 2 * kappa1, 0.5},
      {"κ = " + sig(4 * kappa1) + ", λ = 0.5", 4 * kappa1, 0.5},
      {"κ = " + sig(2 * kappa1) + ", λ = 0", 2 * kappa1, 0},
      {"κ = " + sig(2 * kappa1) + ", λ = 0.9", 2 * kappa1, 0.9}};
  // λ = 0.9 is reported only (the bound predicts no direction there, see the notes): the full
  // tier runs it; the quick tier does not (1/6 of the runs). The audited configurations 0-4 are
  // unchanged: every configuration has its own runs from the replicate's shared streams.
  if (!full) configs.pop_back();
  const std::size_t V = configs.size();
  // The audited orderings: each is one where EVERY term of Thm 4.1's A_corr moves the same way
  // (so the bound predicts it whatever its hidden constants), Bonferroni over the k checks.
  const std::vector<trend_check> checks = {
      {"avg risk rises from kappa = 0 to kappa_1 (lambda = 0.5)",
       "Thm 4.1: A_corr increasing in kappa", 1, 0, false},
      {"avg risk rises from kappa_1 to 2 kappa_1 (lambda = 0.5)",
       "Thm 4.1: A_corr increasing in kappa", 2, 1, false},
      {"avg risk rises from 2 kappa_1 to 4 kappa_1 (lambda = 0.5)",
       "Thm 4.1: A_corr increasing in kappa", 3, 2, false},
      {"avg risk falls from lambda = 0 to 0.5 (kappa = 2 kappa_1)",
       "Thm 4.1, Remark 4.2: (1 - lambda) and (1 - lambda)^2 + lambda^2 eta both fall for lambda < "
       "1/(1 + eta)",
       4, 2, false},
      {"max_t |W_t - W_0| rises from kappa_1 to 4 kappa_1 (lambda = 0.5)",
       "Lemma C.3 eq. (10) (explicit certificate): R_bar increasing in c_priv = C_clip kappa/B", 3, 1,
       true}};
  const std::size_t K = static_cast<std::size_t>(T / every);

  // Observables: per configuration the averaged test risk, averaged 0-1 test error, final test
  // risk, max distance / R*, projection active (0/1); the test risk at each checkpoint (figure);
  // per replicate γ, R*, E_δ membership, and the clipping identity check.
  std::vector<sim::observable> obs;
  for (const run_config& v : configs) {
    obs.push_back({"avg test risk, " + v.name, true});
    obs.push_back({"avg test error, " + v.name, true});
    obs.push_back({"final test risk, " + v.name, true});
    obs.push_back({"max distance, " + v.name, true});
    obs.push_back({"projection active, " + v.name, true});
  }
  const std::size_t curve_base = obs.size();
  for (const run_config& v : configs)
    for (std::size_t j = 0; j < K; ++j)
      obs.push_back(
          {"test risk at t = " + std::to_string(static_cast<long>(j) * every) + ", " + v.name,
           false});
  const std::size_t extra = obs.size();
  obs.push_back({"gamma", true});
  obs.push_back({"R_star", true});
  obs.push_back({"c in E_delta", true});
  obs.push_back({"clipping check run", true});
  obs.push_back({"clipping check identical", true});

  sim::monte_carlo_options mc = mc_options(c, replicates, "wsk26-dplcgd-kan-trends");
  mc.chunk = 4;  // expensive replicates: small chunks so that threads share the quick tier's 64
  const sim::vector direction = sim::vector::Ones(static_cast<Eigen::Index>(d));
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        // Per replicate: training data (stream 0), c and W_0 (stream 1), test data (stream 5);
        // the algorithm's batches and noise (key stream_base 10: streams 12, 13) are SHARED by
        // every configuration (common random numbers: the same B_t and Z_t in each run).
        random_stream data_s(c.seed, rep, 0), init_s(c.seed, rep, 1), test_s(c.seed, rep, 5);
        const auto train = std::make_shared<const sim::dataset>(
            sim::unit_ball_margin_data(n, direction, data_margin, data_s));
        const auto test = std::make_shared<const sim::dataset>(
            sim::unit_ball_margin_data(n_test, direction, data_margin, test_s));
        const sim::vector cc = learners::kan_second_layer(m, p, init_s);
        const sim::vector w0 = learners::kan_initial_weights(m, d, p, init_s);
        const learners::kan_model f(train, o, cc), f_test(test, o, cc);
        const learners::margin_result margin = learners::ntk_margin(f, w0);
        // Thm 4.1's R* with the replicate's own γ (it depends on S, W_0, c; docs/kan.md).
        const double R = margin.gamma > 0 ? theorem_radius(margin.gamma, static_cast<double>(T),
                                                           static_cast<double>(n), delta)
                                          : w0.norm();
        out[extra] = margin.gamma;
        out[extra + 1] = R;
        out[extra + 2] = cc.norm() <= b5.norm && block_norm(cc, m, p) <= b5.block_norm ? 1 : 0;
        auto options_for = [&](const run_config& v) {
          return kan_detail::dplcgd_options(static_cast<std::size_t>(B), T, eta, clip, v.kappa,
                                            v.lambda, w0, R);
        };
        const sim::random_key key{c.seed, rep, 10};
        for (std::size_t v = 0; v < V; ++v) {
          double risk_sum = 0, error_sum = 0, max_distance = 0;
          std::size_t j = 0;
          const sim::vector wT = sim::run_noisy_gradient(
              f, options_for(configs[v]), w0, key, [&](long step, const sim::vector& w) {
                max_distance = std::max(max_distance, (w - w0).norm());
                if (step % every != 0 || j >= K) return;
                double risk = 0, errors = 0;
                for (std::size_t i = 0; i < n_test; ++i) {
                  const double l = f_test.loss(i, w);
                  risk += l;
                  // ℓ(y f) > log 2 iff y f < 0: the 0-1 error.
                  if (l > std::log(2.0)) ++errors;
                }
                risk /= static_cast<double>(n_test);
                out[curve_base + v * K + j] = risk;
                risk_sum += risk;
                error_sum += errors / static_cast<double>(n_test);
                ++j;
              });
          double final_risk = 0;
          for (std::size_t i = 0; i < n_test; ++i) final_risk += f_test.loss(i, wT);
          out[5 * v] = risk_sum / static_cast<double>(K);
          out[5 * v + 1] = error_sum / static_cast<double>(K);
          out[5 * v + 2] = final_risk / static_cast<double>(n_test);
          out[5 * v + 3] = max_distance / R;
          out[5 * v + 4] = max_distance >= R * (1 - 1e-9) ? 1 : 0;
          // Exact check on every 4th replicate (quick: every 8th; 8 of the 64, 16 before) at the
          // largest noise: clipping at C_clip = G_δ never acts (Lemma B.6 on E_δ: every
          // per-example gradient has norm ≤ G_δ), so the run without clipping gives bit-identical
          // iterates.
          if (v == 3) {
            const bool run_check = rep % (full ? 4 : 8) == 0;
            out[extra + 3] = run_check ? 1 : 0;
            out[extra + 4] = 0;
            if (run_check) {
              sim::noisy_gradient_options unclipped = options_for(configs[v]);
              unclipped.clip = 0;
              const sim::vector w_free = sim::run_noisy_gradient(f, unclipped, w0, key);
              out[extra + 4] = (w_free.array() == wT.array()).all() ? 1 : 0;
            }
          }
        }
      },
      mc);

  auto samples = [&](std::size_t v, std::size_t what) -> const std::vector<double>& {
    return res.observables[5 * v + what].samples;
  };
  auto mean_of = [&](std::size_t v, std::size_t what) {
    return res.observables[5 * v + what].stats.mean();
  };
  auto se_of = [&](std::size_t v, std::size_t what) {
    return res.observables[5 * v + what].stats.standard_error();
  };
  const double N = static_cast<double>(replicates);
  const double confidence = 1 - 0.05 / static_cast<double>(checks.size());
  // Student t for the paired differences over the replicates (n pairs).
  const double z = t_multiplier(normal_quantile(confidence), samples(0, 0).size());
  const double gamma_mean = res.observables[extra].stats.mean();
  const double R_mean = res.observables[extra + 1].stats.mean();

  scenario_result r;
  r.id = "wsk26-dplcgd-kan-trends";
  r.title = "WSK+26 Thm 4.1: DP-lambdaCGD on a KAN, risk trends in kappa and lambda";
  r.source =
      "WSK+26 Algorithm 1, Thm 4.1 / C.13, Remark 4.2, Lemma C.3 eq. (10)";
  r.claim =
      "trend checks (Thm 4.1's bound holds only up to constants; its explicit step-size "
      "condition is violated here): the averaged population (test) risk of DP-lambdaCGD rises "
      "with the noise multiplier kappa at lambda = 0.5 and falls from lambda = 0 to 0.5 at fixed "
      "kappa, and max_t |W_t - W_0| rises with kappa (paired differences, " +
      sig(confidence * 100, 3) + "% each, Bonferroni over " + std::to_string(checks.size()) + ")";
  r.parameters = {
      {"n", n},
      {"n_test", n_test},
      {"d", d},
      {"data", "unit_ball_margin_data, margin 0.1 along 1/sqrt(2); fresh per replicate"},
      {"width_m", m},
      {"basis", "cubic B-splines, G = 5 on [-1, 1] (p = 8)"},
      {"activation", "tanh"},
      {"batch_size_B", B},
      {"steps_T", T},
      {"eta", eta},
      {"clip_C", clip},
      {"clip_rule", "C_clip = G_delta (Lemma B.6 eq. (5), delta = 0.01)"},
      {"kappas", {0, kappa1, 2 * kappa1, 4 * kappa1}},
      {"lambdas", full ? std::vector<double>{0, 0.5, 0.9} : std::vector<double>{0, 0.5}},
      {"noise_scale_c_priv_per_kappa", clip / static_cast<double>(B)},
      {"radius_rule",
       "R* = (log T + sqrt(log(n/delta)))/gamma, gamma = ntk_margin(S, W_0, c) per replicate"},
      {"risk_average", "(1/K) sum over t = 0, " + std::to_string(every) + ", ..., " +
                           std::to_string(T - every) + " (K = " + std::to_string(K) +
                           ") of the test risk"},
      {"replicates", replicates},
      {"tier", to_string(c.tier)}};

  // The audited checks.
  int wrong = 0, right = 0;
  double weakest = INFINITY;
  std::size_t weakest_index = 0;
  std::vector<std::pair<double, double>> diffs;
  for (std::size_t q = 0; q < checks.size(); ++q) {
    const trend_check& t = checks[q];
    const std::size_t what = t.distance ? 3 : 0;
    // The self-check audits the reversed ordering through the same interval.
    auto [mean, se] = paired(samples(t.hi, what), samples(t.lo, what), 1);
    if (c.self_check) mean = -mean;
    diffs.emplace_back(mean, se);
    const double lo = mean - z * se, hi = mean + z * se;
    if (hi < 0) ++wrong;
    if (lo > 0) ++right;
    const double score = mean / (z * se);
    if (score < weakest) {
      weakest = score;
      weakest_index = q;
    }
    const std::string scale = t.distance ? " (in units of R*)" : "";
    r.notes.push_back("trend " + std::to_string(q + 1) + ": " + t.claim + " [" + t.source +
                      "]: paired difference" + scale +
                      (c.self_check ? std::string(" (reversed: the self-check's wrong claim)")
                                    : std::string()) +
                      " " + sig(mean, 4) + " +- " + sig(z * se, 3) + " -> " +
                      (lo > 0   ? "as predicted"
                       : hi < 0 ? "REFUTED"
                                : "not resolved"));
  }
  {
    const ordering_verdict v =
        judge_orderings(right, wrong, static_cast<int>(checks.size()), c.self_check);
    r.verdict = v.verdict;
    r.verdict_reason = v.reason;
  }
  {
    const auto [mean, se] = diffs[weakest_index];
    r.quantity =
        "weakest audited paired difference (trend " + std::to_string(weakest_index + 1) + ")";
    r.bound = 0;
    r.estimate = mean;
    r.estimate_lo = mean - z * se;
    r.estimate_hi = mean + z * se;
  }
  r.confidence = confidence;
  r.tightness = std::nan("");
  r.replicates = replicates;

  // Information (not audited): per-configuration summaries.
  for (std::size_t v = 0; v < V; ++v) {
    const double active = mean_of(v, 4);
    r.notes.push_back(configs[v].name + " (c_priv = " + sig(clip * configs[v].kappa / B, 3) +
                      "): avg test risk " + sig(mean_of(v, 0), 4) + " +- " + sig(se_of(v, 0), 2) +
                      ", avg 0-1 error " + sig(mean_of(v, 1), 3) + ", final test risk " +
                      sig(mean_of(v, 2), 4) + ", max |W_t - W_0|/R* " + sig(mean_of(v, 3), 3) +
                      ", projection inactive in " + sig(100 * (1 - active), 3) + "% of runs");
  }
  // Projection inactivity against the radius. For R ≤ R* the projection onto
  // B(W_0, R) is inactive on a run iff that run never touched B(W_0, R*)'s boundary and its
  // max_t ‖W_t − W_0‖ ≤ R (pathwise: an inactive run is the unprojected trajectory), so the
  // frequency at R = x·R* comes from the same runs.
  {
    const double fractions[] = {0.1, 0.15, 0.2, 0.3, 0.5, 1.0};
    std::string table;
    for (std::size_t v = 0; v < V; ++v) {
      table.append(" ").append(configs[v].name).append(":");  // append: GCC bug 105651
      for (const double x : fractions) {
        double inactive = 0;
        for (std::size_t i = 0; i < samples(v, 3).size(); ++i)
          if (samples(v, 4)[i] == 0 && samples(v, 3)[i] <= x) inactive += 1 / N;
        table.append(" ").append(sig(100 * inactive, 3)).append("%");
      }
      table += ";";
    }
    r.notes.push_back(
        "projection inactivity frequency at R = 0.1, 0.15, 0.2, 0.3, 0.5, 1 x R* (R* = "
        "(log T + sqrt(log(n/delta)))/gamma, constant 1; an exact pathwise consequence of the "
        "runs, not a statistical extrapolation):" +
        table);
  }
  // λ = 0.9 lies beyond Remark 4.2's monotone range λ < 1/(1 + η): there the linear noise term
  // (1 − λ) still falls but (1 − λ)² + λ²η rises, so the bound makes no prediction.
  if (V > 5) {
    const auto [mean, se] = paired(samples(5, 0), samples(2, 0), 1);
    r.notes.push_back(
        "not audited: lambda = 0.9 vs 0.5 at kappa = 2 kappa_1: paired difference in avg test "
        "risk " +
        sig(mean, 3) + " +- " + sig(z * se, 3) +
        " (the bound predicts no direction: 0.9 > 1/(1 + eta) = " + sig(1 / (1 + eta), 3) +
        ", where (1 - lambda) falls but (1 - lambda)^2 + lambda^2 eta rises, Remark 4.2)");
  } else {
    r.notes.push_back(
        "lambda = 0.9 (beyond Remark 4.2's monotone range, where the bound predicts no "
        "direction) is run in the full tier only");
  }
  // κ = 4κ₁, λ = 0.5 and κ = 2κ₁, λ = 0 have the same (1 − λ)κ: the cumulative noise
  // Σ_{s≤t} ξ_s = κ(Z_t + (1 − λ)Σ_{s<t} Z_s) then has the same O(√t) part.
  {
    const auto [mean, se] = paired(samples(3, 0), samples(4, 0), 1);
    r.notes.push_back(
        "not audited: equal (1 - lambda) kappa, kappa = 4 kappa_1, lambda = 0.5 vs kappa = 2 "
        "kappa_1, lambda = 0: paired difference in avg test risk " +
        sig(mean, 3) + " +- " + sig(z * se, 3) +
        " (the cumulative noise kappa (Z_t + (1 - lambda) sum_{s<t} Z_s) differs only in its "
        "O(1) part)");
  }
  // The noise-induced excess Δ(κ, λ) = E L̄(κ, λ) − E L̄(0): its κ exponent and its λ ratio,
  // against the exponents/factors of Thm 4.1's noise terms (trend information, not audited).
  {
    auto excess = [&](std::size_t v) {
      std::vector<double> e(samples(v, 0).size());
      for (std::size_t i = 0; i < e.size(); ++i) e[i] = samples(v, 0)[i] - samples(0, 0)[i];
      return e;
    };
    auto mean_se = [&](const std::vector<double>& e) {
      double mean = 0, var = 0;
      for (double x : e) mean += x / N;
      for (double x : e) var += (x - mean) * (x - mean) / (N - 1);
      return std::pair<double, double>{mean, std::sqrt(var / N)};
    };
    std::vector<double> lx, ly, lw;
    bool positive = true;
    std::string points;
    for (std::size_t v = 1; v <= 3; ++v) {
      const auto [mean, se] = mean_se(excess(v));
      points += " " + sig(mean, 3) + " +- " + sig(se, 2) + ";";
      if (mean <= 0) positive = false;
      lx.push_back(std::log(configs[v].kappa));
      ly.push_back(std::log(std::max(mean, 1e-300)));
      lw.push_back(mean * mean / (se * se));  // delta method: se(log Δ) = se/Δ
    }
    if (positive) {
      double sw = 0, mx = 0, my = 0;
      for (std::size_t i = 0; i < lx.size(); ++i) {
        sw += lw[i];
        mx += lw[i] * lx[i];
        my += lw[i] * ly[i];
      }
      mx /= sw;
      my /= sw;
      double sxx = 0, sxy = 0;
      for (std::size_t i = 0; i < lx.size(); ++i) {
        sxx += lw[i] * (lx[i] - mx) * (lx[i] - mx);
        sxy += lw[i] * (lx[i] - mx) * (ly[i] - my);
      }
      const double slope = sxy / sxx, se_slope = 1 / std::sqrt(sxx);
      const double z95 = t_multiplier(normal_quantile(0.95), samples(0, 0).size());
      r.parameters["excess_kappa_exponent"] = slope;
      r.notes.push_back(
          "trend information (not audited): the noise excess Delta(kappa) = avg risk - avg "
          "risk at kappa = 0 (lambda = 0.5) at kappa_1, 2 kappa_1, 4 kappa_1:" +
          points + " log-log slope " + sig(slope, 3) + " [" + sig(slope - z95 * se_slope, 3) +
          ", " + sig(slope + z95 * se_slope, 3) +
          "] (95%, weighted least squares, delta-method weights; the independent-replicate "
          "correlation of the three points is ignored); Thm 4.1's noise terms have exponents 1 "
          "(linear) and 2 (quadratic)");
    } else {
      r.notes.push_back("trend information: the noise excess is not positive at every kappa (" +
                        points + "), no exponent fitted");
    }
    // Ratio Δ(2κ₁, 0.5)/Δ(2κ₁, 0), delta method on paired samples.
    const std::vector<double> e5 = excess(2), e0 = excess(4);
    const auto [m5, s5] = mean_se(e5);
    const auto [m0, s0] = mean_se(e0);
    double cov = 0;
    for (std::size_t i = 0; i < e5.size(); ++i) cov += (e5[i] - m5) * (e0[i] - m0) / (N - 1);
    cov /= N;
    const double ratio = m5 / m0;
    const double se_ratio = std::abs(ratio) * std::sqrt(s5 * s5 / (m5 * m5) + s0 * s0 / (m0 * m0) -
                                                        2 * cov / (m5 * m0));
    r.parameters["excess_lambda_ratio"] = ratio;
    r.notes.push_back(
        "trend information (not audited): Delta(2 kappa_1, lambda = 0.5)/Delta(2 kappa_1, "
        "lambda = 0) = " +
        sig(ratio, 3) + " +- " + sig(t_multiplier(normal_quantile(0.95), e5.size()) * se_ratio, 2) +
        " (95%, delta method); Thm 4.1's linear noise term scales by 1 - lambda = 0.5, the "
        "quadratic one by (1 - lambda)^2 + lambda^2 eta = " +
        sig(0.25 + 0.25 * eta, 3) +
        "; the exact cumulative-noise variance factor (1 + (1 - lambda)^2 (t - 1))/(1 + (t - 1)) "
        "-> 0.25)");
  }
  // Where the run sits relative to Thm 4.1's hypotheses (hidden constants 1), and what its noise
  // terms say: as printed (κ/B, "md") and with C_clip and p made explicit (the proof's
  // c_priv = C_clip κ/B; "md" is mdp; docs/kan.md), i.e. κ → C_clip κ and d → dp.
  {
    risk::kan_training run;
    run.examples = static_cast<long long>(n);
    run.input_dimension = static_cast<long long>(d);
    run.width = ml;
    run.basis_size = pl;
    run.batch_size = B;
    run.steps = T;
    run.eta = eta;
    run.gamma = gamma_mean;
    run.delta = delta;
    run.clip = clip;
    run.radius = R_mean;
    auto noise_part = [](const risk::risk_bound& b) {
      return b.terms[3].value + b.terms[4].value;  // linear + quadratic noise terms of A_corr
    };
    std::string printed, explicit_form;
    for (std::size_t v = 1; v < V; ++v) {
      run.kappa = configs[v].kappa;
      run.lambda = configs[v].lambda;
      run.input_dimension = static_cast<long long>(d);
      const risk::risk_bound b = risk::kan_correlated_optimization(run, k);
      printed += " " + configs[v].name + ": " + sig(noise_part(b), 3) + ";";
      if (v == 2) {
        std::string failed;
        for (const auto& cond : b.conditions)
          if (!cond.holds)
            failed +=
                " [" + cond.name + ": " + sig(cond.value, 3) + " vs " + sig(cond.limit, 3) + "]";
        r.notes.push_back(
            "regime: Thm 4.1 at kappa = 2 kappa_1, lambda = 0.5 with the mean gamma = " +
            sig(gamma_mean, 3) + " and all hidden constants 1 reports '" + b.label +
            "' (A_corr = " + sig(b.value, 4) +
            ", the same to 3 digits for every kappa here); "
            "failed conditions:" +
            (failed.empty() ? std::string(" none") : failed) +
            ". eta = 0.5 follows Cor 5.3's eta ~ 1 (the explicit eta <= 1/(12 beta) = " +
            sig(1 / (12 * curvature.smoothness), 3) +
            " would need ~10^4 x more steps to move W at all), so the bound's DIRECTIONS are "
            "checked outside its proven step-size range");
      }
      run.kappa = clip * configs[v].kappa;
      run.input_dimension = static_cast<long long>(d * p);
      explicit_form += " " + sig(noise_part(risk::kan_correlated_optimization(run, k)), 3) + ";";
    }
    r.notes.push_back(
        "Thm 4.1's noise terms (linear + quadratic, constants 1) for the " +
        std::string(V > 5 ? "five" : "four") +
        " private configurations: as printed (kappa/B, md):" + printed +
        " with C_clip and p explicit (kappa -> C_clip kappa, md -> mdp):" + explicit_form +
        " compare the measured noise excesses Delta: as printed the bound's noise part is "
        "orders of magnitude below them (C_clip = G_delta ~ 10^2 is absorbed as a constant)");
  }
  // Exact side checks.
  {
    const auto& ran = res.observables[extra + 3].samples;
    const auto& same = res.observables[extra + 4].samples;
    std::size_t checked = 0, identical = 0, in_event = 0;
    for (std::size_t i = 0; i < ran.size(); ++i) {
      if (ran[i] != 0) ++checked;
      if (ran[i] != 0 && same[i] != 0) ++identical;
      if (res.observables[extra + 2].samples[i] != 0) ++in_event;
    }
    r.notes.push_back(
        "exact side check (D1): clipping at C_clip = G_delta = " + sig(clip, 4) +
        " never acted: the unclipped run at kappa = 4 kappa_1 gave bit-identical iterates in " +
        std::to_string(identical) + " of " + std::to_string(checked) +
        " replicates checked; c in E_delta in " + std::to_string(in_event) + " of " +
        std::to_string(ran.size()));
    if (identical != checked)
      r.notes.push_back("clipping acted in some run although Lemma B.6 says it cannot on E_delta");
  }
  r.notes.push_back("gamma (NTK margin at W_0, per replicate) in [" +
                    sig(res.observables[extra].stats.min(), 3) + ", " +
                    sig(res.observables[extra].stats.max(), 3) + "], mean " + sig(gamma_mean, 3) +
                    "; R* mean " + sig(R_mean, 3));
  r.notes.push_back(
      "common random numbers: every configuration of a replicate uses the same data, c, W_0, "
      "test set, mini-batches and Gaussian Z_t (streams (seed, r, 0/1/5/12/13)), so the paired "
      "differences' intervals are tight; kappa is small because C_clip = G_delta is ~60-100x "
      "the gradients (docs/kan.md): c_priv = C_clip kappa/B is the noise that matters");
  r.notes.push_back(
      "self-check (--self-check): the reversed orderings E[X_hi] < E[X_lo] ('the risk falls "
      "with kappa, and rises from lambda = 0 to 0.5'), through the same paired intervals, must "
      "be refuted");

  // The figure: mean test risk along the trajectory for every configuration.
  r.figure.title = "DP-λCGD on a KAN (m = " + std::to_string(m) +
                   ", n = 200, B = 20, η = 0.5): mean test risk";
  r.figure.x_label = "iteration t";
  r.figure.y_label = "population (test) logistic risk (95 % intervals)";
  for (std::size_t v = 0; v < V; ++v) {
    series s;
    s.name = configs[v].name;
    s.colour = static_cast<int>(v);
    s.dash = configs[v].lambda == 0.5 || v == 0 ? 1 : 2;
    for (std::size_t j = 0; j < K; ++j)
      push_mean(s, static_cast<double>(static_cast<long>(j) * every),
                res.observables[curve_base + v * K + j].stats);
    r.figure.data.push_back(std::move(s));
  }
  return r;
}

}  // namespace

void register_kan_trend_scenarios(std::vector<scenario>& out) {
  // Trend checks: at 0.5 each claim becomes "the larger side at least doubles the smaller".
  out.push_back({"wsk26-dplcgd-kan-trends",
                 "WSK+26 Thm 4.1: DP-lambdaCGD on a KAN, risk trends in kappa and lambda",
                 dplcgd_trends, 0.5});
}

}  // namespace dpkit::validation
