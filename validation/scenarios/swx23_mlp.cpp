// SWX+23 §6 (Alg 10, Thm 13, App C, Figs 3–4): DP-SGD for multi-layer
// ReLU networks (Algorithm 10) on the reference simulator (dpkit::sim mlp), against Thm 13 and
// the App C lemmas (dpkit::risk mlp_bounds; all up to hidden constants except Lemma 23):
//
//  * swx23-lemma23-batch           [exact]   Poisson batches: P(every |B_t| ≥ (1 − √(3
//                                          log(T/γ)/M))M) ≥ 1 − γ, Clopper–Pearson per expected
//                                          batch size M.
//  * swx23-alg10-clip-flat         [trend]   at calibrated noise (z from dpkit's accountant) and
//                                          Thm 13's η ∝ 1/C, the test loss of the averaged iterate
//                                          is flat in C over C ≤ min{SL√m, R} (claim 39); the Fig 2
//                                          protocol (fixed η) is reported beside it (claim 42).
//  * swx23-alg10-width-ushape      [trend]   test loss against the width m: an interior minimum
//                                          (Remark 15, claims 40/42).
//  * swx23-alg10-steps-ushape      [trend]   test loss against the horizon T, each T with its own
//                                          calibrated z: an interior minimum (claims 40/42).
//  * swx23-lemma18-linearisation   [scaling] |f(W) − f_ntk(W)| on the per-layer sphere of radius
//                                          R/√m around W0 against m: fitted exponent ≤ −1/6.
//
// Common task: inputs uniform on the unit sphere S^{d−1} (d = 8), labels from a random two-layer
// ReLU teacher (K = 4 units) with 5% label noise, a fresh task per replicate; the L = 3 network
// of Thm 13 with He initialisation and logistic loss (S = 1); Poisson rate q = 0.05; ε = 1,
// δ = 1/n² (Alg 10's input); noise multiplier z from the RDP accountant (an upper bound on ε,
// so the runs are (ε, δ)-DP with the expected-batch normaliser), σ = zC/(qn); projection onto
// the per-layer balls B(W0_l, R/√m) (what App C's analysis uses); the returned iterate is the
// average (1/T)Σ W^{(t)}. Every run is far outside Thm 13's width conditions (m* ∝ T⁷C^{−8}),
// so the U-shapes and the C-flatness are checked as the theorem's DIRECTIONS; no value of a
// bound with hidden constants is audited. The simulator knows no bound.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../harness/scenarios.hpp"
#include "dpkit/accounting/accountant.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/risk/mlp_bounds.hpp"
#include "dpkit/learners/mlp.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "dpkit/sim/statistics.hpp"
#include "swx23_mlp_common.hpp"

namespace dpkit::validation {
namespace {

using mlp_detail::calibrated_z;
using mlp_detail::kDepth;
using mlp_detail::kDim;
using mlp_detail::kEpsilon;
using mlp_detail::kRate;

// ---- shared pieces
// -------------------------------------------------------------------------------

// One configuration of Algorithm 10 in a sweep.
struct alg10_config {
  std::size_t width = 32;
  long steps = 200;
  double clip = 1;
  double eta = 0.1;
  double z = 1;  // noise multiplier; σ = zC/(qn)
  double radius = 4;
};

struct task_sizes {
  std::size_t n_train = 1000, n_test = 1000;
};

// The replicate's task (stream 0): teacher, then n_train + n_test examples.
std::pair<sim::dataset, sim::dataset> make_task(std::uint64_t seed,
                                                std::uint64_t rep,
                                                const task_sizes& t) {
  return learners::train_test_split(mlp_detail::teacher_data(seed, rep, t.n_train + t.n_test),
                               t.n_train);
}

// Per configuration: test loss, test error and training loss of the averaged iterate, and the
// largest per-layer distance from W0 in units of 1/√m.
struct sweep_result {
  std::vector<std::vector<double>> test_loss;  // [config][replicate]
  std::vector<double> test_loss_mean, test_error_mean, train_loss_mean, distance_mean;
  double seconds = 0;
};

sweep_result run_sweep(const scenario_context& c,
                       const std::string& label,
                       const std::vector<alg10_config>& configs,
                       const task_sizes& sizes,
                       std::uint64_t replicates) {
  const std::size_t K = configs.size();
  std::vector<sim::observable> obs;
  for (std::size_t k = 0; k < K; ++k) {
    obs.push_back({"test loss " + std::to_string(k), true});
    obs.push_back({"test error " + std::to_string(k), false});
    obs.push_back({"train loss " + std::to_string(k), false});
    obs.push_back({"distance " + std::to_string(k), false});
  }
  sim::monte_carlo_options mc = mc_options(c, replicates, label);
  mc.chunk = 2;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        const auto [train, test] = make_task(c.seed, rep, sizes);
        const auto data = std::make_shared<const sim::dataset>(train);
        for (std::size_t k = 0; k < K; ++k) {
          const alg10_config& g = configs[k];
          const learners::mlp_architecture a{kDim, g.width, kDepth};
          const learners::mlp_model f(data, a);
          random_stream init(c.seed, rep, 1);  // W0: the same draws for every config of width m
          const sim::vector w0 = learners::mlp_initial_weights(a, init);
          learners::alg10_options o;
          o.sampling_rate = kRate;
          o.steps = g.steps;
          o.learning_rate = g.eta;
          o.clip = g.clip;
          o.noise = learners::alg10_noise_std(g.z, g.clip, kRate, sizes.n_train);
          o.constraint = learners::mlp_constraint::around_init;
          o.radius = g.radius;
          // Batches (stream 12) and noise (13) shared by all configs: common random numbers.
          const learners::alg10_result r = learners::run_alg10(f, o, w0, {c.seed, rep, 10}, &test);
          out[4 * k] = r.test_average.loss;
          out[4 * k + 1] = r.test_average.error;
          out[4 * k + 2] = r.train_average.loss;
          out[4 * k + 3] = r.max_layer_distance;
        }
      },
      mc);
  sweep_result s;
  s.seconds = res.seconds;
  for (std::size_t k = 0; k < K; ++k) {
    s.test_loss.push_back(res.observables[4 * k].samples);
    s.test_loss_mean.push_back(res.observables[4 * k].stats.mean());
    s.test_error_mean.push_back(res.observables[4 * k + 1].stats.mean());
    s.train_loss_mean.push_back(res.observables[4 * k + 2].stats.mean());
    s.distance_mean.push_back(res.observables[4 * k + 3].stats.mean());
  }
  return s;
}

// The U-shape audit shared by the width and steps scenarios, on paired differences with
// Bonferroni over the 2·(J − 2) end-versus-interior comparisons (Student t intervals: the
// replicates are few).
//
// Claim: the test loss has an interior minimum on the grid — some interior point j has a lower
// expected loss than both ends (both intervals of E[L(end) − L(j)] above 0): holds.
// The competing claim, the one a paper without the trade-off (or a sign error in dpkit's
// training) would give, is a monotone curve: the grid's minimum at an end — some end resolved
// below every interior point. The data resolving that make the U-shape violated on this grid
// (the grids span the range of the paper's Figures 3 and 4, so a minimum outside them is a
// failure of the claim where it was drawn). Otherwise inconclusive.
// The self-check (`self_check`) swaps the two: it audits the monotone curve as the claim, which
// data showing the U reject.
void audit_ushape(const std::vector<std::vector<double>>& loss,
                  const std::vector<std::string>& names,
                  bool self_check,
                  scenario_result& r) {
  const std::size_t J = loss.size();
  const std::size_t checks = 2 * (J - 2);
  const double confidence = 1 - 0.05 / static_cast<double>(checks);
  const double z = t_multiplier(normal_quantile(confidence), loss.front().size());
  bool any_u = false;
  bool end_below[2] = {true, true};  // end resolved below every interior point
  double best_score = -INFINITY;
  std::size_t best_j = 1;
  double best_mean = NAN, best_half = NAN;
  for (std::size_t j = 1; j + 1 < J; ++j) {
    const auto [m0, s0] = paired_mean_se(loss.front(), loss[j], 1);
    const auto [m1, s1] = paired_mean_se(loss.back(), loss[j], 1);
    const bool left = m0 - z * s0 > 0, right = m1 - z * s1 > 0;
    const bool left_below = m0 + z * s0 < 0, right_below = m1 + z * s1 < 0;
    if (left && right) any_u = true;
    if (!left_below) end_below[0] = false;
    if (!right_below) end_below[1] = false;
    const double score = std::min(m0 / (z * s0), m1 / (z * s1));
    if (score > best_score) {
      best_score = score;
      best_j = j;
      best_mean = m0 / (z * s0) < m1 / (z * s1) ? m0 : m1;
      best_half = m0 / (z * s0) < m1 / (z * s1) ? z * s0 : z * s1;
    }
    r.notes.push_back("interior " + names[j] + ": L(" + names.front() + ") - L(" + names[j] +
                      ") = " + interval_text(m0, z * s0) + ", L(" + names.back() + ") - L(" +
                      names[j] + ") = " + interval_text(m1, z * s1) + " -> " +
                      (left && right ? "interior minimum (as predicted)"
                       : left_below && right_below ? "worse than both ends"
                       : left_below  ? "worse than " + names.front()
                       : right_below ? "worse than " + names.back()
                                     : "not resolved"));
  }
  const bool monotone = end_below[0] || end_below[1];
  const std::string end_name = end_below[0] ? names.front() : names.back();
  const std::string u_reason = "an interior grid point (" + names[best_j] +
                               ") has a lower test loss than both ends (both paired intervals "
                               "above 0)";
  const std::string monotone_reason = "the end " + end_name +
                                      " has a lower test loss than every interior grid point: "
                                      "the minimum lies at an end of the grid (no trade-off seen)";
  const std::string open_reason =
      "neither an interior minimum nor a minimum at an end is resolved at this sample size";
  if (!self_check) {
    r.verdict = any_u ? verdict::holds : monotone ? verdict::violated : verdict::inconclusive;
    r.verdict_reason = any_u ? u_reason : monotone ? monotone_reason : open_reason;
  } else {
    r.verdict = monotone ? verdict::holds : any_u ? verdict::violated : verdict::inconclusive;
    r.verdict_reason =
        "self-check (wrong claim: the loss is monotone on the grid, minimum at an end): " +
        (monotone ? monotone_reason : any_u ? u_reason : open_reason);
  }
  r.quantity = "weakest end-minus-interior paired difference at the best interior point (" +
               names[best_j] + ")";
  r.bound = 0;
  r.estimate = best_mean;
  r.estimate_lo = best_mean - best_half;
  r.estimate_hi = best_mean + best_half;
  r.confidence = confidence;
  r.tightness = std::nan("");
}

void add_loss_figure(scenario_result& r,
                     const std::vector<double>& x,
                     const std::vector<std::vector<double>>& loss,
                     const std::string& name,
                     int colour) {
  series s;
  s.name = name;
  s.style = "points";
  s.colour = colour;
  const double z95 = normal_quantile(0.95);
  for (std::size_t j = 0; j < x.size(); ++j) {
    const sim::moments m = [&] {
      sim::moments mm;
      for (double v : loss[j]) mm.add(v);
      return mm;
    }();
    const double z = t_multiplier(z95, m.count());  // Student t for this point's replicates
    s.x.push_back(x[j]);
    s.y.push_back(m.mean());
    s.y_lo.push_back(m.mean() - z * m.standard_error());
    s.y_hi.push_back(m.mean() + z * m.standard_error());
  }
  r.figure.data.push_back(std::move(s));
}

// ---- swx23-lemma23-batch
// ---------------------------------------------------------------------------

scenario_result lemma23_batch(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const std::size_t n = 1000;
  const long T = full ? 200 : 100;
  const double gamma = 0.1, F = c.bound_factor;
  const std::vector<double> rates = {0.05, 0.1, 0.2};  // M = 50, 100, 200
  // quick: 200 replicates with no failure put each Clopper-Pearson lower limit at ~0.976, well
  // above 1 - gamma = 0.9 (1000 gave 0.995); a failure rate of the event above ~3% would show.
  // The reported empirical gamma-quantiles are read from 200 minima.
  const std::uint64_t replicates = replicates_for(c, 200, 20000);
  const std::size_t J = rates.size();
  // The claimed floor, with F scaling the deviation: (1 − F√(3 log(T/γ)/M))M (F = 1: Lemma 23).
  std::vector<double> floors(J);
  for (std::size_t j = 0; j < J; ++j) {
    const double M = rates[j] * static_cast<double>(n);
    const double lemma = risk::lemma23_batch_floor(M, T, gamma);
    floors[j] = M - F * (M - lemma);
  }
  std::vector<sim::observable> obs;
  for (std::size_t j = 0; j < J; ++j) {
    obs.push_back({"event " + std::to_string(j), false});
    obs.push_back({"min batch " + std::to_string(j), true});
  }
  sim::monte_carlo_options mc = mc_options(c, replicates, "swx23-lemma23-batch");
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        for (std::size_t j = 0; j < J; ++j) {
          // Alg 10's batches: random_stream::poisson_sample, as run_noisy_gradient draws them.
          random_stream s(c.seed, rep, 2 + 10 * j);
          std::size_t smallest = n;
          for (long t = 0; t < T; ++t)
            smallest = std::min(smallest, s.poisson_sample(n, rates[j]).size());
          out[2 * j] = static_cast<double>(smallest) >= floors[j] ? 1.0 : 0.0;
          out[2 * j + 1] = static_cast<double>(smallest);
        }
      },
      mc);
  const double confidence = 1 - 0.05 / static_cast<double>(J);
  scenario_result r;
  r.id = "swx23-lemma23-batch";
  r.title = "SWX+23 Lemma 23: Poisson batch sizes stay above (1 - sqrt(3 log(T/gamma)/M))M";
  r.source = "SWX+23, App C Lemma 23";
  r.claim =
      "exact: with Poisson sampling at rate q = M/n, P(|B_t| >= (1 - sqrt(3 log(T/gamma)/M)) M "
      "for all t <= T) >= 1 - gamma; Clopper-Pearson interval per M (" +
      sig(confidence * 100, 4) + "% each, Bonferroni over " + std::to_string(J) + ")";
  r.parameters = {{"n", n},
                  {"steps_T", T},
                  {"gamma", gamma},
                  {"sampling_rates", rates},
                  {"replicates", replicates},
                  {"tier", to_string(c.tier)}};
  int right = 0, wrong = 0;
  double weakest = INFINITY;
  series floor_s, quant_s, mean_s;
  floor_s.name = "Lemma 23 floor (1 − √(3 log(T/γ)/M))M";
  quant_s.name = "empirical γ-quantile of min_t |B_t|";
  quant_s.style = "points";
  mean_s.name = "M = qn";
  mean_s.dash = 2;
  for (std::size_t j = 0; j < J; ++j) {
    const auto& ev = res.observables[2 * j];
    const auto k =
        static_cast<std::size_t>(std::llround(ev.stats.mean() * static_cast<double>(replicates)));
    const auto ci = sim::clopper_pearson(k, replicates, confidence);
    const double M = rates[j] * static_cast<double>(n);
    if (ci.lower >= 1 - gamma) ++right;
    if (ci.upper < 1 - gamma) ++wrong;
    const double q_gamma = res.observables[2 * j + 1].quantile(gamma);
    r.notes.push_back("M = " + sig(M) + ": floor " + sig(floors[j], 5) +
                      ", P(all |B_t| >= floor) in [" + sig(ci.lower, 5) + ", " + sig(ci.upper, 5) +
                      "] (estimate " + sig(ci.estimate, 5) + ") vs 1 - gamma = " + sig(1 - gamma) +
                      "; the empirical gamma-quantile of min_t |B_t| is " + sig(q_gamma, 4) +
                      " (the sharp floor; Lemma 23's is lower by " + sig(q_gamma - floors[j], 3) +
                      ")");
    if (ci.lower - (1 - gamma) < weakest) {
      weakest = ci.lower - (1 - gamma);
      r.estimate = ci.estimate;
      r.estimate_lo = ci.lower;
      r.estimate_hi = ci.upper;
      r.tightness = (M - floors[j]) / std::max(1e-12, M - q_gamma);
    }
    floor_s.x.push_back(M);
    floor_s.y.push_back(floors[j]);
    quant_s.x.push_back(M);
    quant_s.y.push_back(q_gamma);
    mean_s.x.push_back(M);
    mean_s.y.push_back(M);
  }
  r.verdict = wrong > 0                      ? verdict::violated
              : right == static_cast<int>(J) ? verdict::holds
                                             : verdict::inconclusive;
  r.verdict_reason = wrong > 0 ? std::to_string(wrong) + " of " + std::to_string(J) +
                                     " event probabilities lie wholly below 1 - gamma"
                     : right == static_cast<int>(J)
                         ? "every Clopper-Pearson interval lies at or above 1 - gamma"
                         : "some interval straddles 1 - gamma";
  r.quantity = "P(min_t |B_t| >= floor) at the weakest M";
  r.bound = 1 - gamma;
  r.confidence = confidence;
  r.replicates = replicates;
  r.notes.push_back(
      "tightness = (M - floor)/(M - empirical gamma-quantile): how much wider Lemma 23's "
      "deviation allowance is than needed (the Chernoff constant 3 and the union bound)");
  r.notes.push_back(
      "self-check: --bound-factor F scales the deviation allowance, floor = M - F(M - floor); at "
      "F = 0.5 the event fails too often and the claim is refuted");
  r.figure.title = "Lemma 23: Poisson batch sizes over T = " + std::to_string(T) +
                   " steps (n = 1000, γ = 0.1)";
  r.figure.x_label = "expected batch M = qn";
  r.figure.y_label = "batch size";
  r.figure.data = {mean_s, quant_s, floor_s};
  return r;
}

// ---- swx23-alg10-clip-flat
// -------------------------------------------------------------------------

scenario_result clip_flat(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  task_sizes sizes;
  const std::size_t m = full ? 64 : 32;
  const long T = full ? 400 : 200;
  const double R = 8, tau = 0.05;
  const std::uint64_t replicates = replicates_for(c, 12, 100);
  const double delta = 1 / std::pow(static_cast<double>(sizes.n_train), 2);
  const double z = calibrated_z(kRate, T, kEpsilon, delta);
  // The per-example gradient norm scale of claim 35: |ℓ′| ≈ 1/2 at init times ‖∇f‖ ≈ √(mL)‖x‖.
  const double G0 = 0.5 * std::sqrt(static_cast<double>(m * kDepth));
  // Thm 13's η at C/G0 = 1/8 … 8 in the full tier; quick: the audited C <= 8 = R only
  // (C/G0 <= 1 at m = 32; the larger C, reported only, were 3 of the quick tier's 10 runs).
  const std::vector<double> ratios =
      full ? std::vector<double>{1.0 / 8, 1.0 / 4, 1.0 / 2, 1, 2, 4, 8}
           : std::vector<double>{1.0 / 8, 1.0 / 4, 1.0 / 2, 1};
  const double eta_fixed = 0.02;  // the Fig 2 protocol: one η for every C
  // The Fig 2 protocol is reported, not audited: every C/G0 above in the full tier; quick: the
  // smallest, 1 and the largest (3 of 7 runs: its runs were half the scenario's cost). The
  // audited runs (Thm 13's η) are unchanged: each configuration has its own runs from the same
  // streams, so the verdict and its intervals do not depend on this grid.
  const std::vector<double> fixed_ratios = full ? ratios : std::vector<double>{1.0 / 8, 1, 8};
  std::vector<alg10_config> configs;
  risk::mlp_training tr;
  tr.examples = static_cast<long long>(sizes.n_train);
  tr.input_dimension = kDim;
  tr.width = static_cast<long long>(m);
  tr.depth = kDepth;
  tr.steps = T;
  tr.radius = R;
  tr.epsilon = kEpsilon;
  tr.delta = delta;
  tr.sampling_rate = kRate;
  std::vector<double> clips, fixed_clips;
  for (double q : ratios) clips.push_back(q * G0);
  for (double q : fixed_ratios) fixed_clips.push_back(q * G0);
  for (int variant = 0; variant < 2; ++variant)
    for (double C : variant == 0 ? clips : fixed_clips) {
      tr.clip = C;
      alg10_config g;
      g.width = m;
      g.steps = T;
      g.clip = C;
      g.eta = variant == 0 ? risk::mlp_step_size(tr) : eta_fixed;  // Thm 13: η = √L R/(C√(mT))
      g.z = z;
      g.radius = R;
      configs.push_back(g);
    }
  const sweep_result s = run_sweep(c, "swx23-alg10-clip-flat", configs, sizes, replicates);
  const std::size_t J = clips.size(), JF = fixed_clips.size();
  // Audited: C ≤ min{S L √m, R} (Thm 13's range with constant 1), η of Thm 13.
  const double c_max = std::min(static_cast<double>(kDepth) * std::sqrt(static_cast<double>(m)), R);
  std::vector<std::size_t> audited;
  for (std::size_t j = 0; j < J; ++j)
    if (clips[j] <= c_max) audited.push_back(j);
  const std::size_t checks = 2 * (audited.size() - 1);
  const double confidence = 1 - 0.05 / static_cast<double>(checks);
  // Student t for the n pairs (replicates) of each paired difference.
  const double zq = t_multiplier(normal_quantile(confidence), s.test_loss.front().size());

  scenario_result r;
  r.id = "swx23-alg10-clip-flat";
  r.title = "SWX+23 Thm 13 / Remark 15: Algorithm 10's test loss does not depend on C";
  r.source = "SWX+23, Alg 10, Thm 13, Remark 15, Fig 2";
  r.claim =
      "trend (up to constants): at calibrated noise (z fixed by the accountant) and Thm 13's "
      "eta = sqrt(L) R/(C sqrt(mT)), the test loss of the averaged iterate at every C <= min{S L "
      "sqrt(m), R} lies within +-" +
      sig(tau * 100) + "% of its value at the smallest C (paired differences, " +
      sig(confidence * 100, 4) + "% each, Bonferroni over " + std::to_string(checks) + ")";
  r.parameters = {
      {"n_train", sizes.n_train},
      {"n_test", sizes.n_test},
      {"d", kDim},
      {"L", kDepth},
      {"width_m", m},
      {"teacher", "random two-layer ReLU, K = 4, label noise 0.05; fresh per replicate"},
      {"sampling_rate_q", kRate},
      {"steps_T", T},
      {"epsilon", kEpsilon},
      {"delta", delta},
      {"noise_multiplier_z", z},
      {"accountant", "RDP (upper bound), Poisson subsampling"},
      {"radius_R", R},
      {"projection", "per-layer B(W0_l, R/sqrt(m))"},
      {"clips_C", clips},
      {"gradient_scale_G0", G0},
      {"eta_fixed_fig2", eta_fixed},
      {"tolerance_tau", tau},
      {"replicates", replicates},
      {"tier", to_string(c.tier)}};
  const std::size_t ref = audited.front();
  int right = 0, wrong = 0;
  // The self-check's wrong claim, the one noise growing with C at a fixed step would give (the
  // Fig 2 protocol): L(C) >= (1 + tau) L(C_ref) at every audited C > C_ref. It is audited on
  // the band's upper side alone: any C resolved below (1 + tau) L(C_ref) refutes it.
  int rises = 0, below_rise = 0;
  double weakest = INFINITY;
  for (std::size_t idx = 1; idx < audited.size(); ++idx) {
    const std::size_t j = audited[idx];
    // Upper side: L(C) ≤ (1 + τ)L(C_ref); lower side: L(C) ≥ (1 − τ)L(C_ref).
    const auto [mu, su] = paired_mean_se(s.test_loss[j], s.test_loss[ref], 1 + tau);
    const auto [ml, sl] = paired_mean_se(s.test_loss[j], s.test_loss[ref], 1 - tau);
    const bool up_ok = mu + zq * su < 0, low_ok = ml - zq * sl > 0;
    const bool up_bad = mu - zq * su > 0, low_bad = ml + zq * sl < 0;
    right += (up_ok ? 1 : 0) + (low_ok ? 1 : 0);
    wrong += (up_bad ? 1 : 0) + (low_bad ? 1 : 0);
    rises += up_bad ? 1 : 0;
    below_rise += up_ok ? 1 : 0;
    const auto [d, sd] = paired_mean_se(s.test_loss[j], s.test_loss[ref], 1);
    r.notes.push_back("C = " + sig(clips[j], 3) + " (C/G0 = " + sig(ratios[j], 3) +
                      "): L(C) - L(C_ref) = " + interval_text(d, zq * sd) + " vs band +-" +
                      sig(tau * s.test_loss_mean[ref], 3) + " -> " +
                      (up_bad || low_bad ? "OUTSIDE the band"
                       : up_ok && low_ok ? "inside the band"
                                         : "not resolved"));
    const double margin = std::min(-(mu + zq * su), ml - zq * sl);
    if (margin < weakest) {
      weakest = margin;
      r.estimate = d;
      r.estimate_lo = d - zq * sd;
      r.estimate_hi = d + zq * sd;
      r.bound = tau * s.test_loss_mean[ref];
    }
  }
  const int compared = static_cast<int>(audited.size()) - 1;
  if (!c.self_check) {
    r.verdict = wrong > 0                           ? verdict::violated
                : right == static_cast<int>(checks) ? verdict::holds
                                                    : verdict::inconclusive;
    r.verdict_reason =
        wrong > 0 ? std::to_string(wrong) + " of " + std::to_string(checks) +
                        " one-sided checks put L(C) outside the +-tau band around L(C_ref)"
        : right == static_cast<int>(checks)
            ? "every C in Thm 13's range has its test loss inside the band around L(C_ref)"
            : "some C is not resolved inside the band at this sample size";
  } else {
    r.verdict = below_rise > 0        ? verdict::violated
                : rises == compared ? verdict::holds
                                    : verdict::inconclusive;
    r.verdict_reason =
        "self-check (wrong claim: the loss rises by more than tau with C, L(C) >= (1 + tau) "
        "L(C_ref) at every audited C): " +
        (below_rise > 0 ? std::to_string(below_rise) + " of " + std::to_string(compared) +
                              " audited C resolved below (1 + tau) L(C_ref)"
         : rises == compared ? "every audited C resolved above (1 + tau) L(C_ref)"
                             : std::string("not resolved at this sample size"));
  }
  r.quantity = "L(C) - L(C_ref) at the weakest audited C (bound: the band half-width)";
  r.confidence = confidence;
  r.tightness = std::nan("");
  r.replicates = replicates;
  if (!full) r.parameters["clips_C_fixed_eta"] = fixed_clips;
  std::string levels, fixed;
  for (std::size_t j = 0; j < J; ++j) levels += " " + sig(s.test_loss_mean[j], 4);
  for (std::size_t j = 0; j < JF; ++j)
    fixed += " " + sig(s.test_loss_mean[J + j], 4) +
             (full ? std::string() : " (C/G0 = " + sig(fixed_ratios[j], 3) + ")");
  r.notes.push_back("test loss (averaged iterate) at C/G0 = 1/8 ... " + sig(ratios.back(), 3) +
                    ", Thm 13's eta:" + levels + "; audited C <= " + sig(c_max, 3) + " (" +
                    std::to_string(audited.size()) + " values)" +
                    (full ? "; the larger C are reported only"
                          : "; the larger C (reported only) run in the full tier"));
  // The Fig 2 protocol (fixed η): reported, not audited.
  const auto [fd, fsd] = paired_mean_se(s.test_loss[J], s.test_loss[J + JF - 1], 1);
  r.notes.push_back(
      "trend information (not audited), Fig 2 protocol with one eta = " + sig(eta_fixed) +
      " for every C (claim 42):" + fixed +
      "; L(smallest C) - L(largest C) = " + interval_text(fd, zq * fsd) +
      " (with fixed eta the step and the noise both scale with C while clipping is active, so "
      "small C trains slowly: the paper's flatness needs eta proportional to 1/C)");
  r.notes.push_back(
      "with Thm 13's eta, eta*C is constant: a run in which every per-example gradient is "
      "clipped (clipped directions, noise eta*z*C/(qn)) is the SAME for every C; differences "
      "come only from examples whose gradient norm is below C (well-fitted examples, where "
      "|l'| is small), and grow once C passes the typical norm G0 = 0.5 sqrt(mL) = " +
      sig(G0, 3) + " at init (claim 35), where the effective step eta*|g| falls like 1/C");
  r.notes.push_back("noise multiplier z = " + sig(z, 4) + " (RDP, q = " + sig(kRate) +
                    ", T = " + std::to_string(T) +
                    ", eps = 1, delta = 1/n^2); mean max_l |W_l - W0_l| sqrt(m) = " +
                    sig(s.distance_mean[0], 3) + " (R = " + sig(R) + ")");
  r.figure.title = "Algorithm 10 (m = " + std::to_string(m) +
                   ", n = " + std::to_string(sizes.n_train) + ", ε = 1): test loss against C";
  r.figure.x_label = "clipping threshold C";
  r.figure.y_label = "test loss of the averaged iterate";
  r.figure.log_x = true;
  std::vector<std::vector<double>> first(s.test_loss.begin(),
                                         s.test_loss.begin() + static_cast<std::ptrdiff_t>(J));
  std::vector<std::vector<double>> second(s.test_loss.begin() + static_cast<std::ptrdiff_t>(J),
                                          s.test_loss.end());
  add_loss_figure(r, clips, first,
                  "Thm 13 η = √L R/(C√(mT)) (audited for C ≤ " + sig(c_max, 3) + ")",
                  0);
  add_loss_figure(r, fixed_clips, second,
                  "fixed η = " + sig(eta_fixed) + " (Fig 2 protocol, reported)", 1);
  return r;
}

// ---- swx23-alg10-width-ushape
// ----------------------------------------------------------------------

scenario_result width_ushape(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  task_sizes sizes;
  const std::vector<std::size_t> widths =
      full ? std::vector<std::size_t>{2, 4, 8, 16, 32, 64, 128, 256}
           : std::vector<std::size_t>{2, 4, 8, 16, 32, 64, 128};
  const long T = 200;
  const double R = 4, C = 1;
  const std::uint64_t replicates = replicates_for(c, 12, 100);
  const double delta = 1 / std::pow(static_cast<double>(sizes.n_train), 2);
  const double z = calibrated_z(kRate, T, kEpsilon, delta);
  std::vector<alg10_config> configs;
  risk::mlp_training tr;
  tr.examples = static_cast<long long>(sizes.n_train);
  tr.input_dimension = kDim;
  tr.depth = kDepth;
  tr.steps = T;
  tr.radius = R;
  tr.clip = C;
  tr.epsilon = kEpsilon;
  tr.delta = delta;
  tr.sampling_rate = kRate;
  std::vector<double> xs, privacy;
  std::vector<std::string> names;
  for (std::size_t m : widths) {
    tr.width = static_cast<long long>(m);
    alg10_config g;
    g.width = m;
    g.steps = T;
    g.clip = C;
    g.eta = risk::mlp_step_size(tr);
    g.z = z;
    g.radius = R;
    configs.push_back(g);
    xs.push_back(static_cast<double>(m));
    names.push_back("m = " + std::to_string(m));
    privacy.push_back(risk::mlp_privacy_term(tr));
  }
  const sweep_result s = run_sweep(c, "swx23-alg10-width-ushape", configs, sizes, replicates);
  scenario_result r;
  r.id = "swx23-alg10-width-ushape";
  r.title = "SWX+23 Thm 13 / Remark 15: test loss against the width m is U-shaped";
  r.source =
      "SWX+23, Alg 10, Thm 13 eq. (7), Remark 15, Fig 3";
  r.claim =
      "trend (up to constants): the NTRF approximation term falls and the privacy term (prop. to "
      "m^2 max(L, d/m)) rises with m, so the test loss of Algorithm 10 has an interior minimum in "
      "m: some interior width beats both ends (paired differences, Bonferroni)";
  r.parameters = {{"n_train", sizes.n_train},
                  {"n_test", sizes.n_test},
                  {"d", kDim},
                  {"L", kDepth},
                  {"widths_m", widths},
                  {"steps_T", T},
                  {"clip_C", C},
                  {"radius_R", R},
                  {"eta", "Thm 13: sqrt(L) R/(C sqrt(mT)) per m"},
                  {"sampling_rate_q", kRate},
                  {"epsilon", kEpsilon},
                  {"delta", delta},
                  {"noise_multiplier_z", z},
                  {"replicates", replicates},
                  {"tier", to_string(c.tier)}};
  audit_ushape(s.test_loss, names, c.self_check, r);
  r.replicates = replicates;
  std::string levels, errors, trains, priv;
  for (std::size_t j = 0; j < widths.size(); ++j) {
    levels += " " + sig(s.test_loss_mean[j], 4);
    errors += " " + sig(s.test_error_mean[j], 3);
    trains += " " + sig(s.train_loss_mean[j], 4);
    priv += " " + sig(privacy[j] / privacy.front(), 3);
  }
  r.notes.push_back("test loss by m:" + levels + "; test error:" + errors +
                    "; training loss:" + trains);
  r.notes.push_back("eq. (7)'s privacy term relative to m = 2 (hidden constants 1):" + priv +
                    " (slope 2 in log m once m >= d/L)");
  r.notes.push_back("noise multiplier z = " + sig(z, 4) + " (RDP, q = " + sig(kRate) +
                    ", T = 200, eps = 1, delta = 1/n^2), sigma = zC/(qn)");
  r.figure.title = "Algorithm 10 (n = " + std::to_string(sizes.n_train) +
                   ", T = 200, ε = 1): test loss against the width";
  r.figure.x_label = "width m";
  r.figure.y_label = "test loss of the averaged iterate";
  r.figure.log_x = true;
  add_loss_figure(r, xs, s.test_loss, "measured (95% intervals)", 0);
  return r;
}

// ---- swx23-alg10-steps-ushape
// ----------------------------------------------------------------------

scenario_result steps_ushape(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  task_sizes sizes;
  const std::size_t m = full ? 64 : 32;
  const std::vector<long> horizons = full ? std::vector<long>{10, 30, 100, 300, 1000, 3000}
                                          : std::vector<long>{10, 30, 100, 300, 1000};
  const double R = 4, C = 1;
  const std::uint64_t replicates = replicates_for(c, 12, 100);
  const double delta = 1 / std::pow(static_cast<double>(sizes.n_train), 2);
  std::vector<alg10_config> configs;
  risk::mlp_training tr;
  tr.examples = static_cast<long long>(sizes.n_train);
  tr.input_dimension = kDim;
  tr.width = static_cast<long long>(m);
  tr.depth = kDepth;
  tr.radius = R;
  tr.clip = C;
  tr.epsilon = kEpsilon;
  tr.delta = delta;
  tr.sampling_rate = kRate;
  std::vector<double> xs, zs;
  std::vector<std::string> names;
  for (long T : horizons) {
    tr.steps = T;
    alg10_config g;
    g.width = m;
    g.steps = T;
    g.clip = C;
    g.eta = risk::mlp_step_size(tr);
    g.z = calibrated_z(kRate, T, kEpsilon, delta);  // each T at the same (ε, δ)
    g.radius = R;
    configs.push_back(g);
    xs.push_back(static_cast<double>(T));
    zs.push_back(g.z);
    names.push_back("T = " + std::to_string(T));
  }
  const risk::mlp_steps_tradeoff opt = risk::mlp_optimal_steps(tr);
  const sweep_result s = run_sweep(c, "swx23-alg10-steps-ushape", configs, sizes, replicates);
  scenario_result r;
  r.id = "swx23-alg10-steps-ushape";
  r.title = "SWX+23 Thm 13 / Remark 15: test loss against the horizon T is U-shaped";
  r.source =
      "SWX+23, Alg 10, Thm 13 eq. (7), Remark 15, Fig 4; the trade-off in T derived from "
      "eq. (7)";
  r.claim =
      "trend (up to constants): the convergence terms fall like 1/sqrt(T) and the privacy term "
      "rises like sqrt(T) at fixed (eps, delta), so the test loss of Algorithm 10 has an interior "
      "minimum in T: some interior T beats both ends (paired differences, Bonferroni)";
  r.parameters = {{"n_train", sizes.n_train},
                  {"n_test", sizes.n_test},
                  {"d", kDim},
                  {"L", kDepth},
                  {"width_m", m},
                  {"horizons_T", horizons},
                  {"clip_C", C},
                  {"radius_R", R},
                  {"eta", "Thm 13: sqrt(L) R/(C sqrt(mT)) per T"},
                  {"sampling_rate_q", kRate},
                  {"epsilon", kEpsilon},
                  {"delta", delta},
                  {"noise_multipliers_z", zs},
                  {"replicates", replicates},
                  {"tier", to_string(c.tier)}};
  audit_ushape(s.test_loss, names, c.self_check, r);
  r.replicates = replicates;
  std::string levels, errors, trains, zt;
  for (std::size_t j = 0; j < horizons.size(); ++j) {
    levels += " " + sig(s.test_loss_mean[j], 4);
    errors += " " + sig(s.test_error_mean[j], 3);
    trains += " " + sig(s.train_loss_mean[j], 4);
    zt += " " + sig(zs[j], 3);
  }
  r.notes.push_back("test loss by T:" + levels + "; test error:" + errors +
                    "; training loss:" + trains);
  r.notes.push_back("noise multipliers z by T (RDP, eps = 1, delta = 1/n^2):" + zt);
  r.notes.push_back(
      "eq. (7) with every hidden constant 1 puts the optimum at T* = a/b = " + sig(opt.steps, 3) +
      " (a = sqrt(log(1/xi)) + S L^{3/2} R, b = the privacy term / sqrt(T)); "
      "the constants are unknown, so T* locates the trade-off only up to a factor");
  r.figure.title = "Algorithm 10 (m = " + std::to_string(m) +
                   ", n = " + std::to_string(sizes.n_train) + ", ε = 1): test loss against T";
  r.figure.x_label = "steps T";
  r.figure.y_label = "test loss of the averaged iterate";
  r.figure.log_x = true;
  add_loss_figure(r, xs, s.test_loss, "measured (95% intervals)", 0);
  return r;
}

// ---- swx23-lemma18-linearisation
// -------------------------------------------------------------------

scenario_result lemma18_linearisation(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const std::vector<std::size_t> widths =
      full ? std::vector<std::size_t>{16, 32, 64, 128, 256, 512, 1024}
           : std::vector<std::size_t>{16, 32, 64, 128, 256};
  const double R = 1, F = c.bound_factor;
  const std::size_t points = 16;
  const std::uint64_t replicates = replicates_for(c, 24, 200);
  const std::size_t J = widths.size();
  // Two perturbation families on the per-layer spheres ‖W_l − W0_l‖ = R/√m: a uniformly random
  // direction per layer, and the direction of ∇_{W_l} f(W0, x) for each test point x (the
  // steepest first-order direction, where the curvature along the path is largest).
  std::vector<sim::observable> obs;
  for (std::size_t j = 0; j < J; ++j) {
    obs.push_back({"random " + std::to_string(j), true});
    obs.push_back({"gradient " + std::to_string(j), true});
  }
  sim::monte_carlo_options mc = mc_options(c, replicates, "swx23-lemma18-linearisation");
  mc.chunk = 4;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        random_stream xs(c.seed, rep, 0);
        std::vector<sim::vector> x(points, sim::vector(static_cast<Eigen::Index>(kDim)));
        for (auto& v : x) {
          for (auto& e : v) e = xs.normal();
          v /= v.norm();
        }
        for (std::size_t j = 0; j < J; ++j) {
          const std::size_t m = widths[j];
          const learners::mlp_architecture a{kDim, m, kDepth};
          const learners::mlp_network net(a);
          random_stream init(c.seed, rep, 1), dir(c.seed, rep, 5);
          const sim::vector w0 = learners::mlp_initial_weights(a, init);
          const double omega = R / std::sqrt(static_cast<double>(m));
          auto to_sphere = [&](sim::vector& delta) {
            for (std::size_t l = 1; l <= kDepth; ++l) {
              auto b = delta.segment(static_cast<Eigen::Index>(a.layer_offset(l)),
                                     static_cast<Eigen::Index>(a.layer_size(l)));
              b *= omega / b.norm();
            }
          };
          sim::vector delta(w0.size());
          for (auto& e : delta) e = dir.normal();
          to_sphere(delta);
          const sim::vector w = w0 + delta;
          double random_gap = 0, gradient_gap = 0;
          sim::vector g(w0.size());
          for (const auto& xi : x) {
            random_gap += std::abs(net.output(w, xi) - net.ntk_output(w0, w, xi)) /
                          static_cast<double>(points);
            net.output_gradient(w0, xi, g);
            to_sphere(g);
            const sim::vector wg = w0 + g;
            gradient_gap += std::abs(net.output(wg, xi) - net.ntk_output(w0, wg, xi)) /
                            static_cast<double>(points);
          }
          out[2 * j] = random_gap;
          out[2 * j + 1] = gradient_gap;
        }
      },
      mc);
  // OLS slope of log(mean gap) on log m; columns are independent across m only through W0 and
  // the directions (the test points are shared), so the delta-method variance keeps the
  // replicates' covariance.
  auto fit = [&](std::size_t family) {
    std::vector<double> mean(J, 0.0), a(J);
    for (std::size_t j = 0; j < J; ++j) mean[j] = res.observables[2 * j + family].stats.mean();
    double mx = 0;
    for (std::size_t m : widths) mx += std::log(static_cast<double>(m)) / static_cast<double>(J);
    double sxx = 0;
    for (std::size_t m : widths) sxx += std::pow(std::log(static_cast<double>(m)) - mx, 2);
    double slope = 0;
    for (std::size_t j = 0; j < J; ++j) {
      a[j] = (std::log(static_cast<double>(widths[j])) - mx) / sxx;
      slope += a[j] * std::log(mean[j]);
    }
    double var = 0;
    const double N = static_cast<double>(replicates);
    for (std::size_t j = 0; j < J; ++j)
      for (std::size_t k = 0; k < J; ++k) {
        const auto& sj = res.observables[2 * j + family].samples;
        const auto& sk = res.observables[2 * k + family].samples;
        double cov = 0;
        for (std::size_t i = 0; i < sj.size(); ++i)
          cov += (sj[i] - mean[j]) * (sk[i] - mean[k]) / (N - 1);
        var += a[j] * a[k] * cov / N / (mean[j] * mean[k]);
      }
    return std::pair<double, double>{slope, std::sqrt(var)};
  };
  const double confidence = 1 - 0.05 / 2;
  // Student t for the replicates behind the slopes' delta-method se and the figure's means.
  const double zq =
      t_multiplier(normal_quantile(confidence), res.observables.front().samples.size());
  // The claimed exponent −1/6 (Lemma 18 at ω = R/√m, without its √log m), moved by log F over the
  // grid: at F the claim is gap(m_max)/gap(m_min) ≤ F·(m_max/m_min)^{−1/6}.
  const double span =
      std::log(static_cast<double>(widths.back()) / static_cast<double>(widths.front()));
  const double claimed = -1.0 / 6 + std::log(F) / span;
  scenario_result r;
  r.id = "swx23-lemma18-linearisation";
  r.title =
      "SWX+23 Lemma 18: the NTK linearisation gap on B(W0, R/sqrt(m)) falls like m^{-1/6} or "
      "faster";
  r.source = "SWX+23, App C Lemma 18 (Cao-Gu 2019a Lemma 4.1), Def 8";
  r.claim =
      "scaling (up to constants): |f(W, x) - f_ntk(W, x)| <= O(R^{4/3} L^3 sqrt(log m) m^{-1/6}) "
      "on the per-layer balls of radius R/sqrt(m): the fitted log-log slope in m of the mean gap "
      "is "
      "<= -1/6 (interval wholly below: holds; wholly above: violated), for random directions and "
      "for gradient directions (" +
      sig(confidence * 100, 4) + "% each)";
  r.parameters = {{"d", kDim},
                  {"L", kDepth},
                  {"radius_R", R},
                  {"widths_m", widths},
                  {"test_points", points},
                  {"directions",
                   "per layer on the sphere of radius R/sqrt(m): uniform, and grad_{W_l} f(W0, x)"},
                  {"replicates", replicates},
                  {"tier", to_string(c.tier)}};
  int right = 0, wrong = 0;
  double weakest = -INFINITY;
  const char* family_names[2] = {"random directions", "gradient directions"};
  for (std::size_t family = 0; family < 2; ++family) {
    const auto [slope, se] = fit(family);
    const bool ok = slope + zq * se <= claimed, bad = slope - zq * se > claimed;
    right += ok ? 1 : 0;
    wrong += bad ? 1 : 0;
    std::string means;
    for (std::size_t j = 0; j < J; ++j)
      means += " " + sig(res.observables[2 * j + family].stats.mean(), 3);
    r.notes.push_back(std::string(family_names[family]) + ": mean gap by m:" + means +
                      "; fitted slope " + sig(slope, 3) + " [" + sig(slope - zq * se, 3) + ", " +
                      sig(slope + zq * se, 3) + "] vs claimed <= " + sig(claimed, 3));
    r.parameters[family == 0 ? "slope_random" : "slope_gradient"] = slope;
    if (slope + zq * se > weakest) {
      weakest = slope + zq * se;
      r.estimate = slope;
      r.estimate_lo = slope - zq * se;
      r.estimate_hi = slope + zq * se;
    }
  }
  r.verdict = wrong > 0 ? verdict::violated : right == 2 ? verdict::holds : verdict::inconclusive;
  r.verdict_reason = wrong > 0    ? "a fitted slope lies wholly above the claimed exponent"
                     : right == 2 ? "both fitted slopes lie wholly below the claimed exponent"
                                  : "a slope interval straddles the claimed exponent";
  r.quantity =
      "fitted log-log slope of the mean linearisation gap in m (the steeper family's "
      "interval is the weaker check)";
  r.bound = claimed;
  r.confidence = confidence;
  r.tightness = std::nan("");
  r.replicates = replicates;
  const double local =
      std::log(risk::mlp_linearisation_gap(R, kDepth, static_cast<long long>(widths.back())) /
               risk::mlp_linearisation_gap(R, kDepth, static_cast<long long>(widths.front()))) /
      span;
  const auto cond =
      risk::mlp_linearisation_radius_condition(R, kDepth, static_cast<long long>(widths.back()));
  r.notes.push_back("Lemma 18's bound with its sqrt(log m) has average slope " + sig(local, 3) +
                    " over this grid (less steep than -1/6): checking -1/6 is the stricter claim");
  r.notes.push_back(
      "Lemma 18's hypothesis omega = R/sqrt(m) <= kappa L^-6 (log m)^-3/2 fails here (" +
      sig(cond.value, 3) + " > " + sig(cond.limit, 3) +
      " at the largest m with kappa = 1): the check is of the rate outside the proven range");
  r.notes.push_back(
      "a measured slope much steeper than -1/6 means the bound is loose in m (it is a worst case "
      "over the ball; random and gradient directions are not worst cases)");
  r.notes.push_back(
      "self-check: --bound-factor F claims gap(m_max)/gap(m_min) <= F (m_max/m_min)^{-1/6}, i.e. "
      "slope <= -1/6 + log F/log(m_max/m_min)");
  r.figure.title =
      "Lemma 18: |f(W) − f_{ntk}(W)| at per-layer distance R/√m from W_0 (L = 3, R = 1)";
  r.figure.x_label = "width m";
  r.figure.y_label = "mean |f − f_{ntk}| over 16 unit inputs";
  r.figure.log_x = true;
  r.figure.log_y = true;
  for (std::size_t family = 0; family < 2; ++family) {
    series s;
    s.name = family_names[family];
    s.style = "points";
    s.colour = static_cast<int>(family);
    for (std::size_t j = 0; j < J; ++j) {
      const auto& st = res.observables[2 * j + family].stats;
      s.x.push_back(static_cast<double>(widths[j]));
      s.y.push_back(st.mean());
      s.y_lo.push_back(std::max(1e-300, st.mean() - zq * st.standard_error()));
      s.y_hi.push_back(st.mean() + zq * st.standard_error());
    }
    r.figure.data.push_back(std::move(s));
  }
  series b;
  b.name = "m^{-1/6} through the gradient family at the smallest m";
  b.dash = 2;
  const double y0 = res.observables[1].stats.mean();
  for (std::size_t m : widths) {
    b.x.push_back(static_cast<double>(m));
    b.y.push_back(y0 *
                  std::pow(static_cast<double>(m) / static_cast<double>(widths.front()), -1.0 / 6));
  }
  r.figure.data.push_back(std::move(b));
  return r;
}

}  // namespace

void register_mlp_scenarios(std::vector<scenario>& out) {
  out.push_back({"swx23-lemma23-batch",
                 "SWX+23 Lemma 23: Poisson batch sizes stay above (1 - sqrt(3 log(T/gamma)/M))M",
                 lemma23_batch, 0.5});
  out.push_back({"swx23-alg10-clip-flat",
                 "SWX+23 Thm 13 / Remark 15: Algorithm 10's test loss does not depend on C",
                 clip_flat, 0.5});
  out.push_back({"swx23-alg10-width-ushape",
                 "SWX+23 Thm 13 / Remark 15: test loss against the width m is U-shaped",
                 width_ushape, 0.5});
  out.push_back({"swx23-alg10-steps-ushape",
                 "SWX+23 Thm 13 / Remark 15: test loss against the horizon T is U-shaped",
                 steps_ushape, 0.5});
  out.push_back({"swx23-lemma18-linearisation",
                 "SWX+23 Lemma 18: the NTK linearisation gap falls like m^{-1/6} or faster",
                 lemma18_linearisation, 0.01});
}

}  // namespace dpkit::validation
