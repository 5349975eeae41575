// WSK+26: how the risk of DP-λCGD on a KAN scales with the horizon T and the sample
// size n, against the exponents of Thm 4.1 / E.1 (optimisation) and Thm 5.2 (population):
//
//  * wsk26-dplcgd-kan-horizon — the averaged TRAINING risk (1/T)Σ_{t<T} L_S(W_t), the quantity of
//    Thm 4.1 / C.13 (κ > 0) and Thm E.1 (κ = 0), at T = 40, 80, …, 640: TREND checks that it
//    falls with every doubling of T (every T-term of A_corr and A_non falls in T, none rises), and
//    the log-log slope with a confidence interval next to the bound's exponents (−1 for
//    1/(γ²ηT), −1/2 for 1/(γ√(BT)), 0 for η/B) — reported, not audited.
//  * wsk26-dplcgd-kan-sample-size — the averaged POPULATION (test) risk at n = 50, 100, 200, 400
//    (nested training sets, fixed T and B): TREND checks that it falls with every doubling of n
//    (Thm 5.2's multiplier 1 + ηT/n; A_corr does not depend on n at fixed B), and the log-log
//    slope of the generalisation gap next to Thm 5.2's ηT/n (exponent −1) — reported.
//
// Both run OUTSIDE Thm 4.1's proven step-size range (η = 0.5 as Cor 5.3's η ≍ 1; the explicit
// η ≤ 1/(12β) is ~2e-5, docs/kan.md), so they check the bounds' directions and compare their
// exponents; no value of a bound with hidden constants is audited. The simulator (dpkit::sim)
// knows no bound; the bounds come from dpkit::risk.
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
#include "dpkit/risk/kan_bounds.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/data.hpp"
#include "dpkit/learners/kan.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "wsk26_kan_common.hpp"

namespace dpkit::validation {
namespace {

using kan_detail::constants_of;
using kan_detail::dplcgd_options;
using kan_detail::paired;
using kan_detail::theorem_radius;

// The problem shared by both scenarios (as in wsk26-dplcgd-kan-trends): separable data in the unit
// ball (d = 2, margin 0.1), a KAN with cubic B-splines (p = 8) and tanh, B = 20, η = 0.5,
// C_clip = G_δ at δ = 0.01, projection onto B(W_0, R*) with the replicate's own NTK margin.
constexpr std::size_t kDim = 2, kBasis = 8, kBatch = 20;
constexpr double kMargin = 0.1, kEta = 0.5, kDelta = 0.01;

// One audited ordering "E[X_hi] > E[X_lo]/F" on paired samples, Bonferroni-corrected: its line in
// the notes and its contribution to the verdict. Returns (mean, z·se).
struct ordering_tally {
  int right = 0, wrong = 0, total = 0;
  double weakest = INFINITY;
  double weakest_mean = NAN, weakest_halfwidth = NAN;
  std::string weakest_name;
};

void audit_ordering(const std::string& claim,
                    const std::vector<double>& hi,
                    const std::vector<double>& lo,
                    bool reversed,
                    double z,
                    ordering_tally& tally,
                    scenario_result& r) {
  // The self-check (`reversed`) audits the reversed ordering E[hi] < E[lo] with the same
  // interval: data that resolve the predicted ordering reject it.
  auto [mean, se] = paired(hi, lo, 1);
  if (reversed) mean = -mean;
  const double low = mean - z * se, high = mean + z * se;
  ++tally.total;
  if (low > 0) ++tally.right;
  if (high < 0) ++tally.wrong;
  if (mean / (z * se) < tally.weakest) {
    tally.weakest = mean / (z * se);
    tally.weakest_mean = mean;
    tally.weakest_halfwidth = z * se;
    tally.weakest_name = claim;
  }
  r.notes.push_back("trend " + std::to_string(tally.total) + ": " + claim + ": paired difference" +
                    (reversed ? std::string(" (reversed: the self-check's wrong claim)") : "") + " " +
                    sig(mean, 4) + " +- " + sig(z * se, 3) + " -> " +
                    (low > 0    ? "as predicted"
                     : high < 0 ? "REFUTED"
                                : "not resolved"));
}

void finish_verdict(const ordering_tally& t,
                    double confidence,
                    bool self_check,
                    scenario_result& r) {
  const ordering_verdict v = judge_orderings(t.right, t.wrong, t.total, self_check);
  r.verdict = v.verdict;
  r.verdict_reason = v.reason;
  r.quantity = "weakest audited paired difference (" + t.weakest_name + ")";
  r.bound = 0;
  r.estimate = t.weakest_mean;
  r.estimate_lo = t.weakest_mean - t.weakest_halfwidth;
  r.estimate_hi = t.weakest_mean + t.weakest_halfwidth;
  r.confidence = confidence;
  r.tightness = std::nan("");
}

// The replicate's problem: c, W_0, the model on the first n training points, its NTK margin and
// Thm 4.1's R* (with γ of that data set).
struct kan_problem {
  std::shared_ptr<const sim::dataset> data;
  std::unique_ptr<learners::kan_model> model;
  sim::vector w0;
  double gamma = 0, radius = 0;
};

kan_problem make_problem(const sim::dataset& all,
                         std::size_t n,
                         const learners::kan_options& o,
                         const sim::vector& c,
                         const sim::vector& w0,
                         long steps) {
  kan_problem q;
  sim::dataset first;
  first.features = all.features.topRows(static_cast<Eigen::Index>(n));
  first.labels = all.labels.head(static_cast<Eigen::Index>(n));
  q.data = std::make_shared<const sim::dataset>(std::move(first));
  q.model = std::make_unique<learners::kan_model>(q.data, o, c);
  q.w0 = w0;
  q.gamma = learners::ntk_margin(*q.model, w0).gamma;
  // Thm 4.1's R* with the data set's own γ (it depends on S, W_0, c; docs/kan.md).
  q.radius = q.gamma > 0 ? theorem_radius(q.gamma, static_cast<double>(steps),
                                          static_cast<double>(n), kDelta)
                         : w0.norm();
  return q;
}

std::string interval(const slope_fit& f, double z) {
  return sig(f.slope, 3) + " [" + sig(f.slope - z * f.se, 3) + ", " + sig(f.slope + z * f.se, 3) +
         "]";
}

// ---- wsk26-dplcgd-kan-horizon
// ----------------------------------------------------------------------

scenario_result dplcgd_horizon(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const std::size_t n = 200, m = full ? 64 : 16;
  const std::vector<long> horizons = {40, 80, 160, 320, 640};
  const long T = horizons.back();
  const long every = 5;  // L_S at t = 0, 5, 10, …: (1/T)Σ_{t<T} by T/5 terms
  const double kappa = 0.02, lambda = 0.5;
  // quick: 12 replicates resolve each of the 8 orderings at >= 3x its Bonferroni half-width
  // (seeds 2026, 1, 7; 64 replicates gave >= 9x) and the reported slopes to about +-0.04; a drop
  // per doubling under ~1/3 of the measured ones would not be resolved.
  const std::uint64_t replicates = replicates_for(c, 12, 1000);
  learners::kan_options o;
  o.width = m;
  const risk::kan_constants k = constants_of(o);
  const auto ml = static_cast<long long>(m), pl = static_cast<long long>(kBasis);
  const double clip = risk::kan_curvature_bounds(k, ml, pl, kDelta).gradient;  // C_clip = G_δ
  const std::size_t H = horizons.size();
  // Configuration 0: κ = 0 (Thm E.1); configuration 1: κ = 0.02, λ = 0.5 (Thm 4.1).
  const double kappas[2] = {0, kappa};
  const std::string names[2] = {"κ = 0", "κ = " + sig(kappa) + ", λ = 0.5"};

  std::vector<sim::observable> obs;
  for (const std::string& name : names)
    for (const long h : horizons)
      obs.push_back({"avg train risk to T = " + std::to_string(h) + ", " + name, true});
  const std::size_t extra = obs.size();
  obs.push_back({"gamma", true});
  obs.push_back({"R_star", true});
  for (const std::string& name : names) obs.push_back({"max distance / R*, " + name, true});

  sim::monte_carlo_options mc = mc_options(c, replicates, "wsk26-dplcgd-kan-horizon");
  mc.chunk = 4;
  const sim::vector direction = sim::vector::Ones(static_cast<Eigen::Index>(kDim));
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        // Data (stream 0), c and W_0 (stream 1); batches and noise (key stream_base 10) shared
        // by both configurations (common random numbers).
        random_stream data_s(c.seed, rep, 0), init_s(c.seed, rep, 1);
        const sim::dataset all = sim::unit_ball_margin_data(n, direction, kMargin, data_s);
        const sim::vector cc = learners::kan_second_layer(m, kBasis, init_s);
        const sim::vector w0 = learners::kan_initial_weights(m, kDim, kBasis, init_s);
        const kan_problem q = make_problem(all, n, o, cc, w0, T);
        out[extra] = q.gamma;
        out[extra + 1] = q.radius;
        const sim::random_key key{c.seed, rep, 10};
        for (std::size_t v = 0; v < 2; ++v) {
          // One run of T_max steps read at every horizon: the first T iterates of the T_max run
          // ARE the T-step run (same batches, same Z_t; R* taken at T_max for all).
          std::vector<double> prefix;  // Σ of L_S over the checkpoints so far
          double sum = 0, max_distance = 0;
          sim::run_noisy_gradient(
              *q.model, dplcgd_options(kBatch, T, kEta, clip, kappas[v], lambda, w0, q.radius), w0,
              key, [&](long step, const sim::vector& w) {
                max_distance = std::max(max_distance, (w - w0).norm());
                if (step % every != 0 || step >= T) return;
                sum += q.model->empirical_risk(w);
                prefix.push_back(sum);
              });
          for (std::size_t h = 0; h < H; ++h) {
            const auto K = static_cast<std::size_t>(horizons[h] / every);
            out[v * H + h] = prefix[K - 1] / static_cast<double>(K);
          }
          out[extra + 2 + v] = max_distance / q.radius;
        }
      },
      mc);

  auto column = [&](std::size_t v, std::size_t h) -> const std::vector<double>& {
    return res.observables[v * H + h].samples;
  };
  const double gamma_mean = res.observables[extra].stats.mean();
  const double R_mean = res.observables[extra + 1].stats.mean();
  const std::size_t checks = 2 * (H - 1);
  const double confidence = 1 - 0.05 / static_cast<double>(checks);
  // Student t for the n pairs (replicates) behind the paired differences and the slopes.
  const std::size_t pairs = column(0, 0).size();
  const double z = t_multiplier(normal_quantile(confidence), pairs),
               z95 = t_multiplier(normal_quantile(0.95), pairs);  // two-sided 95 %

  scenario_result r;
  r.id = "wsk26-dplcgd-kan-horizon";
  r.title = "WSK+26 Thm 4.1 / E.1: DP-lambdaCGD on a KAN, training risk against the horizon T";
  r.source = "WSK+26 Algorithm 1, Thm 4.1 / C.13, Thm E.1";
  r.claim =
      "trend checks (the bounds hold only up to constants, and the explicit step-size condition "
      "is violated here): the averaged training risk (1/T) sum_{t<T} L_S(W_t) falls with every "
      "doubling of T, T = 40 to 640, at kappa = 0 and at kappa = 0.02, lambda = 0.5 (paired "
      "differences, " +
      sig(confidence * 100, 3) + "% each, Bonferroni over " + std::to_string(checks) +
      "); the log-log slope is reported next to the bounds' exponents";
  r.parameters = {
      {"n", n},
      {"d", kDim},
      {"data", "unit_ball_margin_data, margin 0.1 along 1/sqrt(2); fresh per replicate"},
      {"width_m", m},
      {"basis", "cubic B-splines, G = 5 on [-1, 1] (p = 8)"},
      {"activation", "tanh"},
      {"batch_size_B", kBatch},
      {"horizons_T", horizons},
      {"eta", kEta},
      {"clip_C", clip},
      {"kappas", {0, kappa}},
      {"lambda", lambda},
      {"radius_rule", "R* = (log T_max + sqrt(log(n/delta)))/gamma, T_max = 640, per replicate"},
      {"risk_average", "(1/K) sum over t = 0, 5, ..., T - 5 (K = T/5) of L_S(W_t)"},
      {"replicates", replicates},
      {"tier", to_string(c.tier)}};

  ordering_tally tally;
  for (std::size_t v = 0; v < 2; ++v)
    for (std::size_t h = 0; h + 1 < H; ++h)
      audit_ordering("avg training risk falls from T = " + std::to_string(horizons[h]) + " to " +
                         std::to_string(horizons[h + 1]) + ", " + names[v] +
                         (v == 0 ? " [Thm E.1: every term of A_non falls in T or is constant]"
                                 : " [Thm 4.1: every term of A_corr falls in T or is constant]"),
                     column(v, h), column(v, h + 1), c.self_check, z, tally, r);
  finish_verdict(tally, confidence, c.self_check, r);
  r.replicates = replicates;

  // The measured slopes next to the bounds' local exponents (hidden constants 1).
  std::vector<double> xs(horizons.begin(), horizons.end());
  risk::kan_training run;
  run.examples = static_cast<long long>(n);
  run.input_dimension = static_cast<long long>(kDim);
  run.width = ml;
  run.basis_size = pl;
  run.batch_size = static_cast<long long>(kBatch);
  run.eta = kEta;
  run.gamma = gamma_mean;
  run.delta = kDelta;
  run.clip = clip;
  run.radius = R_mean;
  run.lambda = lambda;
  auto bound_at = [&](std::size_t v, long steps) {
    run.steps = steps;
    if (v == 0) {
      run.kappa = 0;
      run.input_dimension = static_cast<long long>(kDim);
      return risk::kan_sgd_optimization(run, k).value;
    }
    // Thm 4.1 with C_clip and p written out (κ → C_clip κ, md → mdp; docs/kan.md).
    run.kappa = clip * kappa;
    run.input_dimension = static_cast<long long>(kDim * kBasis);
    return risk::kan_correlated_optimization(run, k).value;
  };
  std::vector<double> bound_values[2];
  for (std::size_t v = 0; v < 2; ++v) {
    std::vector<std::vector<double>> cols;
    std::string means, local, bound_local;
    for (std::size_t h = 0; h < H; ++h) {
      cols.push_back(column(v, h));
      means += " " + sig(res.observables[v * H + h].stats.mean(), 4);
      bound_values[v].push_back(bound_at(v, horizons[h]));
    }
    for (std::size_t h = 0; h + 1 < H; ++h) {
      const slope_fit f = log_log_slope({xs[h], xs[h + 1]}, {cols[h], cols[h + 1]});
      local += " " + interval(f, z95) + ";";
      bound_local +=
          " " + sig(std::log(bound_values[v][h + 1] / bound_values[v][h]) / std::log(2.0), 3) + ";";
    }
    const slope_fit all = log_log_slope(xs, cols);
    r.parameters[v == 0 ? "slope_kappa0" : "slope_kappa_private"] = all.slope;
    r.notes.push_back(
        "trend information (not audited), " + names[v] + ": avg training risk at T = 40 ... 640:" +
        means + "; log-log slope over all T " + interval(all, z95) +
        " (95%, OLS on the log means, delta method with the replicates' covariance); local "
        "slopes per doubling:" +
        local + " the bound's local exponents (" +
        (v == 0 ? std::string("Thm E.1 A_non")
                : std::string("Thm 4.1 A_corr, C_clip and p explicit")) +
        ", hidden constants 1, mean gamma):" + bound_local +
        " its terms have exponents -1 (1/(gamma^2 eta T)), -1/2 (1/(gamma sqrt(BT))) and 0 (eta/B" +
        (v == 0 ? std::string(")") : std::string(", and the quadratic noise term)")));
  }
  r.notes.push_back(
      "gamma (NTK margin at W_0, per replicate) mean " + sig(gamma_mean, 3) + " in [" +
      sig(res.observables[extra].stats.min(), 3) + ", " +
      sig(res.observables[extra].stats.max(), 3) + "]; R* mean " + sig(R_mean, 3) +
      "; max_t |W_t - W_0|/R* mean " + sig(res.observables[extra + 2].stats.mean(), 3) + " (" +
      names[0] + "), " + sig(res.observables[extra + 3].stats.mean(), 3) + " (" + names[1] +
      "), max " +
      sig(std::max(res.observables[extra + 2].stats.max(), res.observables[extra + 3].stats.max()),
          3) +
      " (the projection acts only at 1)");
  r.notes.push_back(
      "one run of T_max = 640 steps per configuration is read at every T: its first T iterates "
      "are the T-step run (same batches and Z_t); the runs of a replicate share data, c, W_0, "
      "batches and Z_t (common random numbers)");
  r.notes.push_back(
      "regime: eta = 0.5 (Cor 5.3's eta ~ 1) violates Thm 4.1's eta <= 1/(12 C p^3) and m = " +
      std::to_string(m) +
      " is below its m >= gamma^-4; the orderings are the bounds' directions, checked outside "
      "their proven range (docs/kan.md)");
  r.notes.push_back(
      "self-check (--self-check): the reversed orderings E[X_T] < E[X_2T] ('the averaged "
      "training risk rises with T'), through the same paired intervals, must be refuted");

  r.figure.title = "DP-λCGD on a KAN (m = " + std::to_string(m) +
                   ", n = 200, B = 20, η = 0.5): averaged training risk against T";
  r.figure.x_label = "horizon T";
  r.figure.y_label = "(1/T) Σ_{t<T} L_S(W_t)";
  r.figure.log_x = true;
  r.figure.log_y = true;
  for (std::size_t v = 0; v < 2; ++v) {
    series s;
    s.name = "measured (95 % intervals), " + names[v];
    s.colour = static_cast<int>(v);
    s.dash = 1;
    for (std::size_t h = 0; h < H; ++h) push_mean(s, xs[h], res.observables[v * H + h].stats);
    series b;
    b.name = (v == 0 ? std::string("Thm E.1 A_{non}") : std::string("Thm 4.1 A_{corr}")) +
             " (constants 1), scaled to the measured value at T = 40";
    b.colour = static_cast<int>(v);
    b.dash = 2;
    for (std::size_t h = 0; h < H; ++h) {
      b.x.push_back(xs[h]);
      b.y.push_back(bound_values[v][h] * s.y.front() / bound_values[v].front());
    }
    r.figure.data.push_back(std::move(s));
    r.figure.data.push_back(std::move(b));
  }
  return r;
}

// ---- wsk26-dplcgd-kan-sample-size ----------------------------------------------------------------

scenario_result dplcgd_sample_size(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const std::vector<std::size_t> sizes = {50, 100, 200, 400};
  const std::size_t n_max = sizes.back(), n_test = 400, m = full ? 64 : 16;
  // Risks at t = 0, every, …, T − every: (1/T)Σ_{t<T} by T/every terms. The full tier reads them
  // every 10 steps (32 terms). Quick: every 40 steps (8 terms, t = 0, 40, …, 280): the risk
  // evaluations (n_test = 400 losses per checkpoint and run) cost more than the training at 32
  // terms. The orderings keep their resolution (weakest at 1.47x / 1.67x / 1.24x its interval at
  // seeds 2026 / 1 / 7, against 1.51x / 1.70x / 1.22x with 32 terms): the coarser average moves
  // each replicate's value by far less than the replicate-to-replicate spread. What 64 quick
  // replicates cannot resolve is a fall from n = 200 to 400 under ~2/3 of the measured one.
  const long T = 320, every = full ? 10 : 40;
  const double kappa = 0.02, lambda = 0.5;
  const std::uint64_t replicates = replicates_for(c, 64, 1000);
  learners::kan_options o;
  o.width = m;
  const risk::kan_constants k = constants_of(o);
  const auto ml = static_cast<long long>(m), pl = static_cast<long long>(kBasis);
  const double clip = risk::kan_curvature_bounds(k, ml, pl, kDelta).gradient;  // C_clip = G_δ
  const std::size_t S = sizes.size();
  const std::size_t K = static_cast<std::size_t>(T / every);

  // Per n: avg test risk, avg train risk, gap = test − train, γ, R*, max distance / R*.
  std::vector<sim::observable> obs;
  for (const std::size_t n : sizes) {
    const std::string at = ", n = " + std::to_string(n);
    obs.push_back({"avg test risk" + at, true});
    obs.push_back({"avg train risk" + at, true});
    obs.push_back({"generalisation gap" + at, true});
    obs.push_back({"gamma" + at, true});
    obs.push_back({"R_star" + at, true});
    obs.push_back({"max distance / R*" + at, true});
  }

  sim::monte_carlo_options mc = mc_options(c, replicates, "wsk26-dplcgd-kan-sample-size");
  mc.chunk = 4;
  const sim::vector direction = sim::vector::Ones(static_cast<Eigen::Index>(kDim));
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        // Nested training sets (the first n of n_max points, stream 0), c and W_0 (stream 1),
        // test set (stream 5); batches and noise (key stream_base 10) from the same key at
        // every n (the batches differ with n, the Z_t do not).
        random_stream data_s(c.seed, rep, 0), init_s(c.seed, rep, 1), test_s(c.seed, rep, 5);
        const sim::dataset all = sim::unit_ball_margin_data(n_max, direction, kMargin, data_s);
        const auto test = std::make_shared<const sim::dataset>(
            sim::unit_ball_margin_data(n_test, direction, kMargin, test_s));
        const sim::vector cc = learners::kan_second_layer(m, kBasis, init_s);
        const sim::vector w0 = learners::kan_initial_weights(m, kDim, kBasis, init_s);
        const learners::kan_model f_test(test, o, cc);
        const sim::random_key key{c.seed, rep, 10};
        for (std::size_t s = 0; s < S; ++s) {
          const kan_problem q = make_problem(all, sizes[s], o, cc, w0, T);
          double test_sum = 0, train_sum = 0, max_distance = 0;
          sim::run_noisy_gradient(
              *q.model, dplcgd_options(kBatch, T, kEta, clip, kappa, lambda, w0, q.radius), w0, key,
              [&](long step, const sim::vector& w) {
                max_distance = std::max(max_distance, (w - w0).norm());
                if (step % every != 0 || step >= T) return;
                test_sum += f_test.empirical_risk(w);
                train_sum += q.model->empirical_risk(w);
              });
          const double test_avg = test_sum / static_cast<double>(K);
          const double train_avg = train_sum / static_cast<double>(K);
          out[6 * s] = test_avg;
          out[6 * s + 1] = train_avg;
          out[6 * s + 2] = test_avg - train_avg;
          out[6 * s + 3] = q.gamma;
          out[6 * s + 4] = q.radius;
          out[6 * s + 5] = max_distance / q.radius;
        }
      },
      mc);

  auto column = [&](std::size_t s, std::size_t what) -> const std::vector<double>& {
    return res.observables[6 * s + what].samples;
  };
  auto mean_of = [&](std::size_t s, std::size_t what) {
    return res.observables[6 * s + what].stats.mean();
  };
  const std::size_t checks = S - 1;
  const double confidence = 1 - 0.05 / static_cast<double>(checks);
  // Student t for the n pairs (replicates) behind the paired differences and the slopes.
  const std::size_t pairs = column(0, 0).size();
  const double z = t_multiplier(normal_quantile(confidence), pairs),
               z95 = t_multiplier(normal_quantile(0.95), pairs);  // two-sided 95 %

  scenario_result r;
  r.id = "wsk26-dplcgd-kan-sample-size";
  r.title = "WSK+26 Thm 5.2: DP-lambdaCGD on a KAN, population risk against the sample size n";
  r.source = "WSK+26 Algorithm 1, Thm 5.2 / C.23, Thm C.22, Lemma C.15";
  r.claim =
      "trend checks (Thm 5.2 holds only up to constants, outside its proven step-size range "
      "here): the averaged population (test) risk of DP-lambdaCGD (kappa = 0.02, lambda = 0.5, "
      "T = 320) falls with every doubling of n, n = 50 to 400 (paired differences, " +
      sig(confidence * 100, 3) + "% each, Bonferroni over " + std::to_string(checks) +
      "); the generalisation gap's log-log slope is reported next to Thm 5.2's eta T/n";
  r.parameters = {
      {"sizes_n", sizes},
      {"n_test", n_test},
      {"d", kDim},
      {"data", "unit_ball_margin_data, margin 0.1; nested training sets, fresh per replicate"},
      {"width_m", m},
      {"basis", "cubic B-splines, G = 5 on [-1, 1] (p = 8)"},
      {"activation", "tanh"},
      {"batch_size_B", kBatch},
      {"steps_T", T},
      {"eta", kEta},
      {"clip_C", clip},
      {"kappa", kappa},
      {"lambda", lambda},
      {"radius_rule",
       "R* = (log T + sqrt(log(n/delta)))/gamma, gamma = ntk_margin of the n-point set"},
      {"risk_average", "(1/K) sum over t = 0, " + std::to_string(every) + ", ..., " +
                           std::to_string(T - every) + " (K = " + std::to_string(K) + ")"},
      {"replicates", replicates},
      {"tier", to_string(c.tier)}};

  ordering_tally tally;
  for (std::size_t s = 0; s + 1 < S; ++s)
    audit_ordering("avg test risk falls from n = " + std::to_string(sizes[s]) + " to " +
                       std::to_string(sizes[s + 1]) +
                       " [Thm 5.2: the multiplier 1 + eta T/n falls from " +
                       sig(1 + kEta * T / static_cast<double>(sizes[s]), 3) + " to " +
                       sig(1 + kEta * T / static_cast<double>(sizes[s + 1]), 3) +
                       "; A_corr does not depend on n at fixed B]",
                   column(s, 0), column(s + 1, 0), c.self_check, z, tally, r);
  finish_verdict(tally, confidence, c.self_check, r);
  r.replicates = replicates;

  // Reported: the per-n means, the gap's slope (Thm 5.2: ηT/n, exponent −1), the test risk's
  // slope next to the local exponent of the multiplier 1 + ηT/n.
  std::vector<double> xs;
  std::vector<std::vector<double>> gaps, tests;
  std::string table;
  for (std::size_t s = 0; s < S; ++s) {
    xs.push_back(static_cast<double>(sizes[s]));
    gaps.push_back(column(s, 2));
    tests.push_back(column(s, 0));
    table += " n = " + std::to_string(sizes[s]) + ": test " + sig(mean_of(s, 0), 4) + ", train " +
             sig(mean_of(s, 1), 4) + ", gap " + sig(mean_of(s, 2), 3) + " +- " +
             sig(res.observables[6 * s + 2].stats.standard_error(), 2) + ", gamma " +
             sig(mean_of(s, 3), 3) + ", R* " + sig(mean_of(s, 4), 3) + ", max |W_t - W_0|/R* " +
             sig(mean_of(s, 5), 3) + " (max " + sig(res.observables[6 * s + 5].stats.max(), 3) +
             ");";
  }
  r.notes.push_back("per n (means over replicates):" + table);
  const slope_fit gap = log_log_slope(xs, gaps);
  if (gap.positive) {
    r.parameters["gap_slope"] = gap.slope;
    r.notes.push_back(
        "trend information (not audited): the generalisation gap avg test risk - avg train risk "
        "has log-log slope " +
        interval(gap, z95) +
        " in n (95%, OLS on the log means, delta method with the replicates' covariance); Thm "
        "5.2's generalisation part (Thm C.22 x Lemma C.15: 4 e eta b^2/n sum_t E L_S(W_t)) has "
        "exponent -1 at fixed T and fixed training risk");
  } else {
    r.notes.push_back("trend information: the gap is not positive at every n, no slope fitted");
  }
  {
    const slope_fit test = log_log_slope(xs, tests);
    std::string local;
    for (std::size_t s = 0; s + 1 < S; ++s)
      local +=
          " " +
          sig(std::log((1 + kEta * T / xs[s + 1]) / (1 + kEta * T / xs[s])) / std::log(2.0), 3) +
          ";";
    r.parameters["test_risk_slope"] = test.slope;
    r.notes.push_back(
        "trend information (not audited): the avg test risk has log-log slope " +
        interval(test, z95) + " in n; the multiplier 1 + eta T/n alone has local exponents" +
        local +
        " (the bound's A_corr + residual part is n-free up to R*'s log n, so these are the bound's "
        "exponents with hidden constants 1 in the multiplier)");
  }
  r.notes.push_back(
      "R* grows with n (gamma of a larger nested set is smaller, and sqrt(log(n/delta)) grows); "
      "R* enters Thm 5.2 only through the residual (sqrt(m) + R*) delta, whose growth (the R* "
      "ratio above) is far below the multiplier's fall, so the bound falls in n for any hidden "
      "constants");
  r.notes.push_back(
      "the runs of a replicate share c, W_0, the test set and the Gaussian Z_t; the training sets "
      "are nested (the first n of 400 points), so the paired differences isolate the effect of "
      "more data");
  r.notes.push_back(
      "regime: eta = 0.5 (Cor 5.3's eta ~ 1) violates Thm 4.1's eta <= 1/(12 C p^3) and m = " +
      std::to_string(m) + " is below m >= gamma^-4 (docs/kan.md)");
  r.notes.push_back(
      "self-check (--self-check): the reversed orderings E[X_n] < E[X_2n] ('more data raises "
      "the test risk'), through the same paired intervals, must be refuted");

  r.figure.title = "DP-λCGD on a KAN (m = " + std::to_string(m) +
                   ", B = 20, T = 320, κ = 0.02, λ = 0.5): risk against n";
  r.figure.x_label = "training set size n";
  r.figure.y_label = "averaged risk (95 % intervals)";
  r.figure.log_x = true;
  r.figure.log_y = true;
  const char* names[3] = {"population (test) risk", "training risk", "generalisation gap"};
  for (std::size_t what = 0; what < 3; ++what) {
    series s;
    s.name = names[what];
    s.colour = static_cast<int>(what);
    s.dash = 1;
    for (std::size_t q = 0; q < S; ++q) push_mean(s, xs[q], res.observables[6 * q + what].stats);
    r.figure.data.push_back(std::move(s));
  }
  if (gap.positive) {
    series ref;
    ref.name = "slope −1 (Thm 5.2's ηT/n) through the gap at n = 50";
    ref.colour = 2;
    ref.dash = 2;
    for (std::size_t q = 0; q < S; ++q) {
      ref.x.push_back(xs[q]);
      ref.y.push_back(mean_of(0, 2) * xs[0] / xs[q]);
    }
    r.figure.data.push_back(std::move(ref));
  }
  return r;
}

}  // namespace

void register_kan_scaling_scenarios(std::vector<scenario>& out) {
  // Trend checks: at 0.5 each claim becomes "the risk at least halves with each doubling".
  out.push_back(
      {"wsk26-dplcgd-kan-horizon",
       "WSK+26 Thm 4.1 / E.1: DP-lambdaCGD on a KAN, training risk against the horizon T",
       dplcgd_horizon, 0.5});
  out.push_back(
      {"wsk26-dplcgd-kan-sample-size",
       "WSK+26 Thm 5.2: DP-lambdaCGD on a KAN, population risk against the sample size n",
       dplcgd_sample_size, 0.5});
}

}  // namespace dpkit::validation
