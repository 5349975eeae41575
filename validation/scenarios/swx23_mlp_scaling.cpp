// SWX+23 §6, more validation of Algorithm 10 and its App C lemmas: Fig 5's sample-size
// schedule and the width and depth scaling at initialisation (Lemmas 20, 22, 26), on the
// reference simulator (dpkit::sim mlp) and the common task
// of scenarios/swx23_mlp.cpp (inputs uniform on S^{d−1}, d = 8, a random two-layer ReLU teacher
// with K = 4 units and 5% label noise, a fresh task per replicate, the L = 3 network with He
// initialisation and the logistic loss, S = 1). Fig 1: swx23_mlp_extra.cpp.
//
//  * swx23-fig5-sample-size   [qual]    Alg 10 with Fig 5's schedule m = ⌈n^{1/4}/2⌉ (floor 4),
//                                     T = 50 n^{2/5}, ε = 1, δ = 1/n², against the non-private
//                                     run on the same batches: the test-loss gap and the relative
//                                     gap fall with n (paired differences, Bonferroni).
//  * swx23-lemma20-22-init    [scaling] at He initialisation: hidden-norm fluctuations O(√(L/m))
//                                     (slope −½ in m), per-example gradient norm Θ(√m) (slope ½),
//                                     and max_i |f(W0, x_i)| ≤ ‖h_{L−1}‖√(2 log(n/ξ)) (Lemma 26,
//                                     with its constant made explicit; Clopper–Pearson).
//
// Every claim here is up to hidden constants except the certificate (Lemma 26's explicit
// form), so the verdicts are on directions, exponents and a certified inequality; no value of a
// bound with hidden constants is audited. The simulator knows no bound.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../harness/scenarios.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/risk/mlp_bounds.hpp"
#include "dpkit/learners/mlp.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "dpkit/sim/statistics.hpp"
#include "swx23_mlp_common.hpp"

namespace dpkit::validation {
namespace {

// The common task of scenarios/swx23_mlp.cpp and the batched passes (swx23_mlp_common.hpp).
using mlp_detail::batch_pass;
using mlp_detail::calibrated_z;
using mlp_detail::forward_backward;
using mlp_detail::kDepth;
using mlp_detail::kDim;
using mlp_detail::kEpsilon;
using mlp_detail::kRate;
using mlp_detail::teacher_data;

// ---- swx23-fig5-sample-size
// -----------------------------------------------------------------------

// Fig 5's schedule: m = n^{1/4}/2 (dpkit's reading of the garbled
// "m=(n^14/2)"), rounded up and floored at kMinWidth (m = 2 or 3 hidden units per layer is a
// degenerate network; with the floor the schedule moves only for n > 4⁴·2⁴ = 4096), and
// T = 50 n^{2/5} rounded to the nearest integer.
constexpr std::size_t kMinWidth = 4;
std::size_t fig5_width(std::size_t n) {
  const auto m = static_cast<std::size_t>(std::ceil(std::pow(static_cast<double>(n), 0.25) / 2));
  return std::max(kMinWidth, m);
}
long fig5_steps(std::size_t n) {
  return std::lround(50 * std::pow(static_cast<double>(n), 0.4));
}

scenario_result fig5_sample_size(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const std::vector<std::size_t> sizes =
      full ? std::vector<std::size_t>{500, 1000, 2000, 4000, 8000, 16000}
           : std::vector<std::size_t>{250, 500, 1000, 2000};
  const std::size_t n_test = full ? 5000 : 2000;
  const std::uint64_t replicates = replicates_for(c, 24, 40);
  const double R = 4, C = 1, F = c.bound_factor;
  const std::size_t J = sizes.size();
  struct config {
    std::size_t n = 0, m = 0;
    long T = 0;
    double delta = 0, z = 0, sigma = 0, eta = 0, privacy_term = 0;
  };
  std::vector<config> configs;
  for (std::size_t n : sizes) {
    config g;
    g.n = n;
    g.m = fig5_width(n);
    g.T = fig5_steps(n);
    g.delta = 1 / std::pow(static_cast<double>(n), 2);  // δ = 1/n² (Fig 5)
    g.z = calibrated_z(kRate, g.T, kEpsilon, g.delta);
    g.sigma = learners::alg10_noise_std(g.z, C, kRate, n);
    risk::mlp_training tr;
    tr.examples = static_cast<long long>(n);
    tr.input_dimension = kDim;
    tr.width = static_cast<long long>(g.m);
    tr.depth = kDepth;
    tr.steps = g.T;
    tr.radius = R;
    tr.clip = C;
    tr.epsilon = kEpsilon;
    tr.delta = g.delta;
    tr.sampling_rate = kRate;
    g.eta = risk::mlp_step_size(tr);  // Thm 13: η = √L R/(C√(mT))
    g.privacy_term = risk::mlp_privacy_term(tr);
    configs.push_back(g);
  }
  // Observables per n: DP test loss, non-private test loss, DP test error, non-private error.
  std::vector<sim::observable> obs;
  for (std::size_t j = 0; j < J; ++j) {
    obs.push_back({"dp loss " + std::to_string(j), true});
    obs.push_back({"sgd loss " + std::to_string(j), true});
    obs.push_back({"dp error " + std::to_string(j), false});
    obs.push_back({"sgd error " + std::to_string(j), false});
  }
  sim::monte_carlo_options mc = mc_options(c, replicates, "swx23-fig5-sample-size");
  mc.chunk = 1;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        // One teacher per replicate; the test set first, then a pool whose prefixes are the
        // training sets (nested across n: the comparisons across n are paired by replicate).
        const sim::dataset all = teacher_data(c.seed, rep, n_test + sizes.back());
        const auto [test, pool] = learners::train_test_split(all, n_test);
        for (std::size_t j = 0; j < J; ++j) {
          const config& g = configs[j];
          sim::dataset train;
          train.features = pool.features.topRows(static_cast<Eigen::Index>(g.n));
          train.labels = pool.labels.head(static_cast<Eigen::Index>(g.n));
          const auto data = std::make_shared<const sim::dataset>(std::move(train));
          const learners::mlp_architecture a{kDim, g.m, kDepth};
          const learners::mlp_model f(data, a);
          random_stream init(c.seed, rep, 20 + j);
          const sim::vector w0 = learners::mlp_initial_weights(a, init);
          learners::alg10_options o;
          o.sampling_rate = kRate;
          o.steps = g.T;
          o.learning_rate = g.eta;
          o.clip = C;
          o.noise = g.sigma;
          o.constraint = learners::mlp_constraint::around_init;
          o.radius = R;
          const sim::random_key key{c.seed, rep, 100 + 10 * j};
          const learners::alg10_result dp = learners::run_alg10(f, o, w0, key, &test);
          // The non-private run: the same W0, the same Poisson batches (stream base + 2), the
          // same η and projection; no clipping (C = 1e300 is never reached) and no noise.
          o.clip = 1e300;
          o.noise = 0;
          const learners::alg10_result sgd = learners::run_alg10(f, o, w0, key, &test);
          out[4 * j] = dp.test_average.loss;
          out[4 * j + 1] = sgd.test_average.loss;
          out[4 * j + 2] = dp.test_average.error;
          out[4 * j + 3] = sgd.test_average.error;
        }
      },
      mc);
  std::vector<std::vector<double>> gap(J), rel(J);
  for (std::size_t j = 0; j < J; ++j) {
    const auto& d = res.observables[4 * j].samples;
    const auto& s = res.observables[4 * j + 1].samples;
    for (std::size_t i = 0; i < replicates; ++i) {
      gap[j].push_back(d[i] - s[i]);
      rel[j].push_back((d[i] - s[i]) / s[i]);
    }
  }
  // Checks: end to end, gap(n_max) ≤ F·gap(n_min) for the gap and the relative gap (F = 1: the
  // claim "falls"); and for each consecutive pair, gap(n_{j+1}) ≤ gap(n_j) (never significantly
  // larger). Bonferroni over all 2 + 2(J − 1).
  const std::size_t checks = 2 + 2 * (J - 1);
  const double confidence = 1 - 0.05 / static_cast<double>(checks);
  // Student t for the n pairs (replicates) of each paired difference.
  const double zq = t_multiplier(normal_quantile(confidence), gap.front().size());
  scenario_result r;
  int ends_right = 0, wrong = 0;
  std::string end_text;
  const char* names[2] = {"gap", "relative gap"};
  for (int which = 0; which < 2; ++which) {
    const auto& v = which == 0 ? gap : rel;
    const auto [mu, se] =
        paired_mean_se(v.front(), v.back(), 1 / F);  // A − B/F; F·(A − B/F) = F·A − B
    const double d = F * mu, half = F * zq * se;
    if (d - half > 0) ++ends_right;
    if (d + half < 0) ++wrong;
    end_text += std::string(which == 0 ? "" : "; ") + names[which] + ": " + (F == 1 ? "" : "F*") +
                "value(n = " + std::to_string(sizes.front()) +
                ") - value(n = " + std::to_string(sizes.back()) + ") = " + interval_text(d, half);
    if (which == 0) {
      r.estimate = d;
      r.estimate_lo = d - half;
      r.estimate_hi = d + half;
    }
  }
  int consecutive_against = 0;
  std::string steps_text;
  for (int which = 0; which < 2; ++which) {
    const auto& v = which == 0 ? gap : rel;
    steps_text += std::string(which == 0 ? "" : "; ") + names[which] + " differences by step:";
    for (std::size_t j = 0; j + 1 < J; ++j) {
      const auto [mu, se] = paired_mean_se(v[j], v[j + 1], 1);
      if (mu + zq * se < 0) ++consecutive_against;
      steps_text += " " + interval_text(mu, zq * se);
    }
  }
  wrong += consecutive_against;
  r.id = "swx23-fig5-sample-size";
  r.title =
      "SWX+23 Fig 5: DP-SGD approaches non-private SGD as n grows (m = n^{1/4}/2, T = 50 "
      "n^{2/5})";
  r.source = "SWX+23, Alg 10, Thm 13 eq. (7), Sec 6.1 Fig 5";
  r.claim =
      "qualitative: with Fig 5's schedule every term of eq. (7) falls in n, so the test loss of "
      "Algorithm 10 (eps = 1, delta = 1/n^2) approaches that of the non-private run (same W0, "
      "batches, eta and projection): the gap DP - SGD and the relative gap are smaller at the "
      "largest n than at the smallest, and no step in n raises them significantly (paired by "
      "replicate, " +
      sig(confidence * 100, 4) + "% each, Bonferroni over " + std::to_string(checks) + ")";
  std::vector<std::size_t> ms;
  std::vector<long> Ts;
  std::vector<double> zs, sigmas, etas;
  for (const auto& g : configs) {
    ms.push_back(g.m);
    Ts.push_back(g.T);
    zs.push_back(g.z);
    sigmas.push_back(g.sigma);
    etas.push_back(g.eta);
  }
  r.parameters = {{"sample_sizes_n", sizes},
                  {"n_test", n_test},
                  {"widths_m", ms},
                  {"width_schedule", "max(4, ceil(n^{1/4}/2))"},
                  {"steps_T", Ts},
                  {"steps_schedule", "round(50 n^{2/5})"},
                  {"d", kDim},
                  {"L", kDepth},
                  {"sampling_rate_q", kRate},
                  {"epsilon", kEpsilon},
                  {"delta", "1/n^2"},
                  {"noise_multipliers_z", zs},
                  {"noise_std_sigma", sigmas},
                  {"clip_C", C},
                  {"radius_R", R},
                  {"eta", etas},
                  {"projection", "per-layer B(W0_l, R/sqrt(m))"},
                  {"replicates", replicates},
                  {"tier", to_string(c.tier)}};
  r.verdict = wrong > 0         ? verdict::violated
              : ends_right == 2 ? verdict::holds
                                : verdict::inconclusive;
  r.verdict_reason =
      wrong > 0 ? std::to_string(wrong) + " comparisons are significantly against the claim"
      : ends_right == 2
          ? "both the gap and the relative gap are significantly smaller at the largest n, and "
            "no step in n raises them significantly"
          : "the end-to-end decrease is not resolved at this sample size";
  r.quantity = "paired gap(n_min) - gap(n_max) of the test loss (DP - non-private)";
  r.bound = 0;
  r.confidence = confidence;
  r.tightness = std::nan("");
  r.replicates = replicates;
  std::string dp_text, sgd_text, gap_text, rel_text, err_text;
  for (std::size_t j = 0; j < J; ++j) {
    dp_text += " " + sig(res.observables[4 * j].stats.mean(), 4);
    sgd_text += " " + sig(res.observables[4 * j + 1].stats.mean(), 4);
    gap_text += " " + sig(mean_of(gap[j]), 3);
    rel_text += " " + sig(mean_of(rel[j]), 3);
    err_text += " " + sig(res.observables[4 * j + 2].stats.mean(), 3) + "/" +
                sig(res.observables[4 * j + 3].stats.mean(), 3);
  }
  r.notes.push_back("test loss by n, DP:" + dp_text + "; non-private:" + sgd_text);
  r.notes.push_back("gap by n:" + gap_text + "; relative gap:" + rel_text +
                    "; test error DP/non-private:" + err_text);
  r.notes.push_back(end_text);
  r.notes.push_back(steps_text);
  {
    std::vector<double> xs;
    for (auto n : sizes) xs.push_back(static_cast<double>(n));
    const slope_fit fit = log_log_slope(xs, gap);
    const double span = std::log(xs.back() / xs.front());
    const double theory =
        std::log(configs.back().privacy_term / configs.front().privacy_term) / span;
    r.notes.push_back(
        "fitted log-log slope of the mean gap in n: " +
        (fit.positive
             ? sig(fit.slope, 3) + " +- " + sig(t_multiplier(1.96, gap.front().size()) * fit.se, 2)
             : std::string("n/a (a mean gap is <= 0)")) +
        "; eq. (7)'s privacy term m^2 max(L, d/m) sqrt(T)/(n^2 eps^2) has average slope " +
        sig(theory, 3) +
        " over this schedule (hidden constants; with the width floor m is "
        "constant where n^{1/4}/2 < 4)");
  }
  std::string mt;
  for (std::size_t j = 0; j < J; ++j)
    mt += " n = " + std::to_string(sizes[j]) + ": m = " + std::to_string(configs[j].m) +
          ", T = " + std::to_string(configs[j].T) + ", z = " + sig(configs[j].z, 3) +
          ", sigma = " + sig(configs[j].sigma, 3) + ", eta = " + sig(configs[j].eta, 3) + ";";
  r.notes.push_back("schedule:" + mt);
  r.notes.push_back(
      "C = 1 rather than Fig 5's C = 20: the per-example gradient norm of this network at init is "
      "about 0.4 sqrt(mL) = 1.4 (m = 4; swx23-lemma20-22-init), so C = 20 would clip nothing and "
      "only multiply the noise "
      "(sigma = zC/(qn)); C = 1 <= min{S L sqrt(m), R} is inside Thm 13's range, where eta ~ 1/C "
      "makes the result nearly C-free (swx23-alg10-clip-flat). The non-private run uses the same "
      "eta");
  r.notes.push_back(
      "self-check: --bound-factor F claims gap(n_max) <= F gap(n_min) (and the same for the "
      "relative gap); the self-check factor 0.1 claims a ten-fold decrease over the grid, more "
      "than the measured one, and is refuted");
  r.figure.title = "Algorithm 10 with m = n^{1/4}/2, T = 50 n^{2/5}, ε = 1: test loss against n";
  r.figure.x_label = "training set size n";
  r.figure.y_label = "test loss of the averaged iterate";
  r.figure.log_x = true;
  const double z95 = normal_quantile(0.95);
  for (int which = 0; which < 2; ++which) {
    series s;
    s.name = which == 0 ? "DP-SGD (Alg 10, ε = 1)" : "non-private (same batches, no clip/noise)";
    s.style = "points";
    s.colour = which;
    for (std::size_t j = 0; j < J; ++j) {
      const auto& st = res.observables[4 * j + static_cast<std::size_t>(which)].stats;
      const double t95 = t_multiplier(z95, st.count());  // Student t for the replicates
      s.x.push_back(static_cast<double>(sizes[j]));
      s.y.push_back(st.mean());
      s.y_lo.push_back(st.mean() - t95 * st.standard_error());
      s.y_hi.push_back(st.mean() + t95 * st.standard_error());
    }
    r.figure.data.push_back(std::move(s));
  }
  return r;
}

// ---- swx23-lemma20-22-init
// -------------------------------------------------------------------------

scenario_result lemma20_22_init(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const std::vector<std::size_t> widths =
      full ? std::vector<std::size_t>{16, 32, 64, 128, 256, 512, 1024}
           : std::vector<std::size_t>{16, 32, 64, 128, 256};
  const std::vector<std::size_t> depths = {2, 3, 4, 6};
  const std::size_t depth_width = 64, points = 16, deep = 6;
  const std::uint64_t replicates = replicates_for(c, 40, 200);
  // slack: the margin of the two scaling claims (a), (b) in the log-log slope, fixed with the
  // scenario (not after a run): over the widths' factor 16 (quick; 64 full) a slope off by 0.1
  // moves the ratio of the ends by 16^0.1 = 1.32, a different rate (docs/validation.md,
  // "Equality claims").
  const double F = c.bound_factor, slack = 0.1, xi = 0.1;
  const std::vector<std::size_t> counts = {100, 1000, 10000};
  const std::size_t max_width = full ? 64 : 32;
  const std::uint64_t max_replicates = replicates_for(c, 200, 1000);
  const std::size_t J = widths.size(), D = depths.size(), N = counts.size();

  // Parts (a), (b): per width, the mean over points and hidden layers l = 1, …, L − 1 of
  // (‖h_l‖/‖x‖ − 1)² (Lemma 20; ‖x‖ = 1), the mean ‖∇_W ℓ‖ and the mean ‖∇_W f‖ (Lemma 22);
  // per depth (m = 64), the mean ‖∇_W f‖; at L = 6, the mean squared deviation by layer.
  std::vector<sim::observable> obs;
  for (std::size_t j = 0; j < J; ++j) {
    obs.push_back({"hidden msd " + std::to_string(j), true});
    obs.push_back({"grad loss " + std::to_string(j), true});
    obs.push_back({"grad f " + std::to_string(j), true});
  }
  for (std::size_t k = 0; k < D; ++k) obs.push_back({"depth grad f " + std::to_string(k), true});
  for (std::size_t l = 1; l < deep; ++l) obs.push_back({"deep msd " + std::to_string(l), false});
  sim::monte_carlo_options mc = mc_options(c, replicates, "swx23-lemma20-22-init");
  mc.chunk = 4;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        const auto data = std::make_shared<const sim::dataset>(teacher_data(c.seed, rep, points));
        const double P = static_cast<double>(points);
        auto measure = [&](std::size_t m, std::size_t L, std::uint64_t stream, double& msd,
                           double& grad_loss, double& grad_f, std::vector<double>* by_layer) {
          const learners::mlp_architecture a{kDim, m, L};
          const learners::mlp_model model(data, a);
          random_stream init(c.seed, rep, stream);
          const sim::vector w0 = learners::mlp_initial_weights(a, init);
          sim::vector norms(static_cast<Eigen::Index>(L)), g(w0.size());
          msd = grad_loss = grad_f = 0;
          for (std::size_t i = 0; i < points; ++i) {
            const sim::vector x = data->features.row(static_cast<Eigen::Index>(i)).transpose();
            model.network().hidden_norms(w0, x, norms);
            for (std::size_t l = 1; l < L; ++l) {
              const double dev = std::pow(norms(static_cast<Eigen::Index>(l)) / norms(0) - 1, 2);
              msd += dev / (P * static_cast<double>(L - 1));
              if (by_layer) (*by_layer)[l - 1] += dev / P;
            }
            model.gradient(i, w0, g);
            grad_loss += g.norm() / P;
            model.network().output_gradient(w0, x, g);
            grad_f += g.norm() / P;
          }
        };
        double msd = 0, gl = 0, gf = 0;
        for (std::size_t j = 0; j < J; ++j) {
          measure(widths[j], kDepth, 20 + j, msd, gl, gf, nullptr);
          out[3 * j] = msd;
          out[3 * j + 1] = gl;
          out[3 * j + 2] = gf;
        }
        std::vector<double> by_layer(deep - 1, 0.0);
        for (std::size_t k = 0; k < D; ++k) {
          measure(depth_width, depths[k], 30 + k, msd, gl, gf,
                  depths[k] == deep ? &by_layer : nullptr);
          out[3 * J + k] = gf;
        }
        for (std::size_t l = 1; l < deep; ++l) out[3 * J + D + l - 1] = by_layer[l - 1];
      },
      mc);

  // Part (c): max_i |f(W0, x_i)| over n ∈ {10², 10³, 10⁴} unit inputs (prefixes of one draw).
  // Given W_1, …, W_{L−1}, f(W0, x_i) = √m W_L h_{L−1,i} ~ N(0, ‖h_{L−1,i}‖²) exactly (W_L has
  // N(0, 1/m) entries), so by the union bound and P(|Z| > t) ≤ e^{−t²/2},
  //   P(max_i |f_i|/‖h_{L−1,i}‖ > √(2 log(n/ξ))) ≤ ξ:
  // Lemma 26's O(√log(n/ξ)) (Cao–Gu Lemma 4.4) with its constant made explicit.
  std::vector<sim::observable> obs_c;
  for (std::size_t k = 0; k < N; ++k) {
    obs_c.push_back({"event " + std::to_string(k), false});
    obs_c.push_back({"ratio " + std::to_string(k), true});
  }
  std::vector<double> thresholds(N);
  for (std::size_t k = 0; k < N; ++k)
    thresholds[k] = F * std::sqrt(2 * std::log(static_cast<double>(counts[k]) / xi));
  sim::monte_carlo_options mc_c = mc_options(c, max_replicates, "swx23-lemma20-22-init (max)");
  mc_c.chunk = 8;
  const sim::monte_carlo_result res_c = sim::run_monte_carlo(
      obs_c,
      [&](std::uint64_t rep, std::span<double> out) {
        random_stream xs(c.seed, rep, 40);
        Eigen::MatrixXd x(static_cast<Eigen::Index>(counts.back()),
                          static_cast<Eigen::Index>(kDim));
        for (Eigen::Index i = 0; i < x.rows(); ++i) {
          for (Eigen::Index k = 0; k < x.cols(); ++k) x(i, k) = xs.normal();
          x.row(i) /= x.row(i).norm();
        }
        const learners::mlp_architecture a{kDim, max_width, kDepth};
        random_stream init(c.seed, rep, 41);
        const sim::vector w0 = learners::mlp_initial_weights(a, init);
        const batch_pass b = forward_backward(a, w0, x, false);
        const Eigen::VectorXd h = b.hidden[kDepth - 1].colwise().norm().transpose();
        double max_f = 0, max_normalised = 0;
        std::size_t i = 0;
        for (std::size_t k = 0; k < N; ++k) {
          for (; i < counts[k]; ++i) {
            const auto ii = static_cast<Eigen::Index>(i);
            max_f = std::max(max_f, std::abs(b.f(ii)));
            if (h(ii) > 0) max_normalised = std::max(max_normalised, std::abs(b.f(ii)) / h(ii));
          }
          out[2 * k] = max_normalised <= thresholds[k] ? 1.0 : 0.0;
          out[2 * k + 1] = max_f / std::sqrt(2 * std::log(static_cast<double>(counts[k])));
        }
      },
      mc_c);

  const std::size_t checks = 3 + N;
  const double confidence = 1 - 0.05 / static_cast<double>(checks);
  // Student t at each check's replicate count: zq for the slopes of (a), (b) (the replicates of
  // the first run), zc for the paired ratio check (c′) (the initialisations of the second run).
  const double zq =
      t_multiplier(normal_quantile(confidence), res.observables.front().samples.size());
  const double zc = t_multiplier(normal_quantile(confidence), res_c.observables[1].samples.size());
  std::vector<double> xw;
  for (auto m : widths) xw.push_back(static_cast<double>(m));
  const double span = std::log(xw.back() / xw.front());
  scenario_result r;
  int right = 0, wrong = 0;
  // (a) the standard deviation sqrt(E(‖h_l‖ − 1)²) falls like m^{−1/2}: the slope of the mean
  // squared deviation halves. Claim: slope ≤ −1/2 + slack (+ log F/span: at F the claim is
  // sd(m_max)/sd(m_min) ≤ F (m_max/m_min)^{−1/2 + slack}).
  std::vector<std::vector<double>> cols_a, cols_b, cols_f;
  for (std::size_t j = 0; j < J; ++j) {
    cols_a.push_back(res.observables[3 * j].samples);
    cols_b.push_back(res.observables[3 * j + 1].samples);
    cols_f.push_back(res.observables[3 * j + 2].samples);
  }
  const slope_fit fa = log_log_slope(xw, cols_a);
  const double slope_a = fa.slope / 2, se_a = fa.se / 2;
  const double claimed_a = -0.5 + slack + std::log(F) / span;
  const bool a_ok = slope_a + zq * se_a <= claimed_a, a_bad = slope_a - zq * se_a > claimed_a;
  right += a_ok ? 1 : 0;
  wrong += a_bad ? 1 : 0;
  // (b) the mean per-example gradient norm grows like √m: slope within ½ ± slack (+ log F/span).
  const slope_fit fb = log_log_slope(xw, cols_b);
  const slope_fit ff = log_log_slope(xw, cols_f);
  const double centre_b = 0.5 + std::log(F) / span;
  const double lo_b = fb.slope - zq * fb.se, hi_b = fb.slope + zq * fb.se;
  const bool b_ok = lo_b >= centre_b - slack && hi_b <= centre_b + slack;
  const bool b_bad = lo_b > centre_b + slack || hi_b < centre_b - slack;
  right += b_ok ? 1 : 0;
  wrong += b_bad ? 1 : 0;
  // (c) Clopper–Pearson per n for P(max_i |f_i|/‖h_i‖ ≤ F·√(2 log(n/ξ))) ≥ 1 − ξ.
  double weakest_c = INFINITY;
  std::string c_text;
  for (std::size_t k = 0; k < N; ++k) {
    const auto successes = static_cast<std::size_t>(
        std::llround(res_c.observables[2 * k].stats.mean() * static_cast<double>(max_replicates)));
    const auto ci = sim::clopper_pearson(successes, max_replicates, confidence);
    right += ci.lower >= 1 - xi ? 1 : 0;
    wrong += ci.upper < 1 - xi ? 1 : 0;
    weakest_c = std::min(weakest_c, ci.lower);
    c_text += " n = " + std::to_string(counts[k]) + ": P in [" + sig(ci.lower, 4) + ", " +
              sig(ci.upper, 4) + "] (threshold " + sig(thresholds[k], 3) + ");";
  }
  // (c′) the ratio max_i |f_i|/√(2 log n) does not grow: ratio(n_max) ≤ F·ratio(n_min), paired
  // by initialisation (the points are prefixes of one draw).
  const auto [dr, sr] = paired_mean_se(
      res_c.observables[1].samples, res_c.observables[2 * (N - 1) + 1].samples, 1 / F);  // A − B/F
  const double d_growth = F * dr, half_growth = F * zc * sr;
  right += d_growth - half_growth > 0 ? 1 : 0;
  wrong += d_growth + half_growth < 0 ? 1 : 0;
  c_text += " ratio check: " + std::string(F == 1 ? "" : "F*") +
            "ratio(1e2) - ratio(1e4) = " + interval_text(d_growth, half_growth) +
            (d_growth - half_growth > 0   ? " -> does not grow"
             : d_growth + half_growth < 0 ? " -> AGAINST the claim"
                                          : " -> not resolved");
  r.id = "swx23-lemma20-22-init";
  r.title =
      "SWX+23 Lemmas 20, 22, 26 at He initialisation: hidden norms, gradient norms, outputs";
  r.source =
      "SWX+23, App C Lemmas 20 (Allen-Zhu et al. 7.1), 22, 26 (Cao-Gu 4.4), Alg 10 step 1";
  r.claim =
      "scaling: at He initialisation (a) the fluctuation of ||h_l||/||x|| - 1 is O(sqrt(L/m)): "
      "fitted slope of its sd in m <= -1/2 + " +
      sig(slack) +
      "; (b) the per-example gradient norm is Theta(sqrt(m)): fitted slope in m within 1/2 +- " +
      sig(slack) +
      "; (c) max_i |f(W0, x_i)|/||h_{L-1,i}|| <= sqrt(2 log(n/xi)) with probability >= 1 - xi "
      "(Lemma 26 with its constant made explicit, xi = " +
      sig(xi) +
      ", Clopper-Pearson per n) and max_i |f(W0, x_i)|/sqrt(2 log n) does not grow from n = 1e2 "
      "to 1e4 (paired); " +
      sig(confidence * 100, 4) + "% each, Bonferroni over " + std::to_string(checks);
  r.parameters = {{"d", kDim},
                  {"L", kDepth},
                  {"widths_m", widths},
                  {"depths_L_at_m_64", depths},
                  {"points_per_replicate", points},
                  {"replicates", replicates},
                  {"max_output_counts_n", counts},
                  {"max_output_width", max_width},
                  {"max_output_replicates", max_replicates},
                  {"xi", xi},
                  {"slack", slack},
                  {"tier", to_string(c.tier)}};
  r.verdict = wrong > 0                           ? verdict::violated
              : right == static_cast<int>(checks) ? verdict::holds
                                                  : verdict::inconclusive;
  r.verdict_reason = wrong > 0 ? std::to_string(wrong) + " of " + std::to_string(checks) +
                                     " checks are significantly against the claims"
                     : right == static_cast<int>(checks)
                         ? "every exponent is inside its claimed range and the "
                           "explicit Lemma 26 event has probability >= 1 - xi"
                         : "some check is not resolved at this sample size";
  r.quantity = "fitted slope of the hidden-norm sd in m (bound: the claimed exponent)";
  r.bound = claimed_a;
  r.estimate = slope_a;
  r.estimate_lo = slope_a - zq * se_a;
  r.estimate_hi = slope_a + zq * se_a;
  r.confidence = confidence;
  r.tightness = std::nan("");
  r.replicates = replicates;
  std::string sd_text, gl_text, gf_text, const_text;
  for (std::size_t j = 0; j < J; ++j) {
    const double m = xw[j];
    sd_text += " " + sig(std::sqrt(res.observables[3 * j].stats.mean()), 3);
    gl_text += " " + sig(res.observables[3 * j + 1].stats.mean(), 3);
    gf_text += " " + sig(res.observables[3 * j + 2].stats.mean() /
                             std::sqrt(m * static_cast<double>(kDepth)),
                         3);
    const_text += " " + sig(res.observables[3 * j + 1].stats.mean() /
                                (static_cast<double>(kDepth) * std::sqrt(m)),
                            3);
  }
  const double typical = res.observables[3 * (J - 1) + 1].stats.mean() /
                         std::sqrt(xw.back() * static_cast<double>(kDepth));
  r.notes.push_back("(a) sd of ||h_l||/||x|| - 1 (l = 1, 2) by m:" + sd_text + "; fitted slope " +
                    sig(slope_a, 3) + " [" + sig(slope_a - zq * se_a, 3) + ", " +
                    sig(slope_a + zq * se_a, 3) + "] vs claimed <= " + sig(claimed_a, 3) +
                    (a_ok    ? " -> holds"
                     : a_bad ? " -> VIOLATED"
                             : " -> not resolved"));
  r.notes.push_back("(b) mean ||grad_W loss|| by m:" + gl_text + "; fitted slope " +
                    sig(fb.slope, 3) + " [" + sig(lo_b, 3) + ", " + sig(hi_b, 3) +
                    "] vs claimed band [" + sig(centre_b - slack, 3) + ", " +
                    sig(centre_b + slack, 3) + "]" +
                    (b_ok    ? " -> holds"
                     : b_bad ? " -> VIOLATED"
                             : " -> not resolved") +
                    "; ||grad_W f|| has slope " + sig(ff.slope, 3) + " +- " + sig(zq * ff.se, 2));
  r.notes.push_back(
      "(b) measured constants: ||grad_W f||/sqrt(mL) by m:" + gf_text +
      "; ||grad_W loss||/(S L sqrt(m)) by m:" + const_text +
      " -> the typical per-example norm is " + sig(typical, 2) +
      " sqrt(mL) at the largest m, so clipping at C is active for most examples iff C is below "
      "about " +
      sig(typical / std::sqrt(static_cast<double>(kDepth)), 2) +
      " S L sqrt(m) (Thm 13's C <= S L sqrt(m) puts C above the typical norm by sqrt(L)/" +
      sig(typical, 2) + ")");
  {
    std::vector<double> xd;
    std::vector<std::vector<double>> cols_d;
    std::string depth_text;
    for (std::size_t k = 0; k < D; ++k) {
      xd.push_back(static_cast<double>(depths[k]));
      cols_d.push_back(res.observables[3 * J + k].samples);
      depth_text += " " + sig(std::pow(res.observables[3 * J + k].stats.mean(), 2) /
                                  static_cast<double>(depth_width),
                              3);
    }
    const slope_fit fd = log_log_slope(xd, cols_d);
    std::string layer_text;
    for (std::size_t l = 1; l < deep; ++l)
      layer_text += " " + sig(std::sqrt(res.observables[3 * J + D + l - 1].stats.mean()), 3);
    r.notes.push_back(
        "growth in L (m = 64, reported): (mean ||grad_W f||)^2/m at L = 2, 3, 4, 6:" + depth_text +
        " (close to (L + 1)/2: every layer adds about m/2); fitted "
        "log-log slope of ||grad_W f|| in L " +
        sig(fd.slope, 3) + " +- " + sig(t_multiplier(1.96, cols_d.front().size()) * fd.se, 2) +
        " (sqrt(L) gives 1/2; sqrt(L + 1) over L = 2..6 "
        "gives about 0.39)");
    r.notes.push_back(
        "growth of the fluctuation with depth (L = 6, m = 64, reported): sd of "
        "||h_l|| - 1 at l = 1 ... 5:" +
        layer_text + " (O(sqrt(l/m)) predicts growth like sqrt(l))");
  }
  std::string ratio_text, bound_ratio_text;
  for (std::size_t k = 0; k < N; ++k) {
    const double lg = std::log(static_cast<double>(counts[k]));
    bound_ratio_text += (k == 0 ? "" : ", ") +
                        sig(std::sqrt(std::log(static_cast<double>(counts[k]) / xi) / lg), 3);
    const auto& st = res_c.observables[2 * k + 1].stats;
    ratio_text += " " + sig(st.mean(), 3) + " +- " +
                  sig(t_multiplier(1.96, st.count()) * st.standard_error(), 2);
  }
  r.notes.push_back("(c) m = " + std::to_string(max_width) + ", " + std::to_string(max_replicates) +
                    " initialisations:" + c_text);
  r.notes.push_back(
      "(c) max_i |f(W0, x_i)|/sqrt(2 log n) at n = 1e2, 1e3, 1e4:" + ratio_text +
      "; the explicit bound's ratio sqrt(log(n/xi)/log n) is " + bound_ratio_text +
      " at these n. The ratio FALLS: given W0, f(W0, .) is a Lipschitz function on the sphere "
      "S^{d-1} (d = 8), so max_i |f(W0, x_i)| saturates at sup_x |f(W0, x)| while sqrt(2 log n) "
      "keeps growing (for n independent N(0, 1) values it would instead creep up toward 1 from "
      "below: 0.905, 0.924, 0.936 for E max |Z_i| at these n)");
  r.notes.push_back(
      "self-check: --bound-factor F shifts the claimed exponents by log F/log(m_max/m_min) "
      "((a) sd(m_max)/sd(m_min) <= F (m_max/m_min)^{-1/2 + slack}, (b) the band's centre), "
      "scales the threshold of (c) by F and claims ratio(1e4) <= F ratio(1e2); at F = 0.5 every "
      "part is refuted");
  r.figure.title = "At He initialisation (L = 3, d = 8): fluctuations and gradient norms against m";
  r.figure.x_label = "width m";
  r.figure.y_label = "value";
  r.figure.log_x = true;
  r.figure.log_y = true;
  const double z95 = normal_quantile(0.95);
  for (int which = 0; which < 3; ++which) {
    series s;
    s.name = which == 0   ? "sd of ‖h_l‖/‖x‖ − 1"
             : which == 1 ? "mean ‖∇_W loss‖"
                          : "mean ‖∇_W f‖";
    s.style = "points";
    s.colour = which;
    for (std::size_t j = 0; j < J; ++j) {
      const auto& st = res.observables[3 * j + static_cast<std::size_t>(which)].stats;
      s.x.push_back(xw[j]);
      const double t95 = t_multiplier(z95, st.count());  // Student t for the replicates
      if (which == 0) {
        s.y.push_back(std::sqrt(st.mean()));
        s.y_lo.push_back(std::sqrt(std::max(1e-300, st.mean() - t95 * st.standard_error())));
        s.y_hi.push_back(std::sqrt(st.mean() + t95 * st.standard_error()));
      } else {
        s.y.push_back(st.mean());
        s.y_lo.push_back(st.mean() - t95 * st.standard_error());
        s.y_hi.push_back(st.mean() + t95 * st.standard_error());
      }
    }
    r.figure.data.push_back(std::move(s));
  }
  for (int which = 0; which < 2; ++which) {
    series s;
    s.name = which == 0 ? "m^{-1/2} through the smallest m" : "m^{1/2} through the smallest m";
    s.dash = 2;
    s.colour = which == 0 ? 0 : 1;
    const double y0 =
        which == 0 ? std::sqrt(res.observables[0].stats.mean()) : res.observables[1].stats.mean();
    for (double m : xw) {
      s.x.push_back(m);
      s.y.push_back(y0 * std::pow(m / xw.front(), which == 0 ? -0.5 : 0.5));
    }
    r.figure.data.push_back(std::move(s));
  }
  return r;
}

}  // namespace

void register_mlp_scaling_scenarios(std::vector<scenario>& out) {
  out.push_back({"swx23-fig5-sample-size",
                 "SWX+23 Fig 5: DP-SGD approaches non-private SGD as n grows (m = n^{1/4}/2, "
                 "T = 50 n^{2/5})",
                 fig5_sample_size, 0.1});
  out.push_back({"swx23-lemma20-22-init",
                 "SWX+23 Lemmas 20, 22, 26 at He initialisation: hidden norms, gradient norms, "
                 "outputs",
                 lemma20_22_init, 0.5});
}

}  // namespace dpkit::validation
