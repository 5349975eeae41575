// ZXD+26: trend scenarios at calibrated noise and in the tail threshold L, on the
// dpkit::sim longtail simulator (the shapes they are compared with are dpkit::risk's, all up to
// hidden constants):
//
//  * zxd26-remark4-calibrated  [trend] with σ_n = zC/B and z from the PLD accountant for each
//                            (ε, T, C): (a) the test error and the training loss at T fall as ε
//                            grows (Remark 4); (b) at fixed ε prolonged training hurts: the DP
//                            error and its privacy part (DP minus clipping alone at the same T)
//                            are larger at 80 than at 20 epochs (claim 29, σ_n ∝ √T; the curves
//                            in T are U-shaped, so no monotone trend is audited); (c) C-invariance
//                            at calibrated noise (claim 31), reported at fixed η and fixed ηC.
//  * zxd26-thm3-tail-L         [trend] the error on the exact L-tail T_k against L (at NCR = 2):
//                            clean training (and NCR) lower it (Remark 3.3, claim 25); under DP
//                            in Remark 3's regime a ≤ b the benefit of L shrinks (log scale);
//                            claim 27's literal "L no longer helps" is checked and reported.
//
// Configuration: zxd26_longtail.cpp's quick tier (K = 3, d = 150, n = 150, m = 20, B = 64, 20
// epochs, PyTorch init, NCR = 200, ‖u‖ = 0.5) and the paper's in the full tier (K = 5, d = 1000,
// n = 500, m = 100, B = 256), at η = 0.2 (zxd26_longtail.cpp's kTrendEta: at the paper's η = 0.002
// the DP noise has no visible effect within 20 epochs). The runs are outside Condition 1
// (docs/longtail.md): directions are audited, no bound value is. The simulator knows no bound.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <memory>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "../harness/scenarios.hpp"
#include "dpkit/accounting/accountant.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/risk/longtail_bounds.hpp"
#include "dpkit/learners/longtail.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "zxd26_longtail_common.hpp"

namespace dpkit::validation {
namespace {

using namespace longtail_detail;

// ---- configuration and helpers (the shared ones are in zxd26_longtail_common.hpp) ---------------

constexpr long kTrendsFirstAndLast = 1000000;  // record_every: the first and last steps only

// zxd26_longtail.cpp's configuration at η = 0.2: at its η = 0.002 the DP noise has no visible
// effect in 40 steps (docs/longtail.md), so the noise trends are checked at η = 0.2.
lt_config trend_config(const scenario_context& c) {
  lt_config g = config_for(c);
  g.eta = 0.2;
  return g;
}

std::vector<double> logs(const std::vector<double>& x) {
  std::vector<double> out;
  for (double v : x) out.push_back(std::log(v));
  return out;
}

std::vector<double> negate(std::vector<double> x) {
  for (double& v : x) v = -v;
  return x;
}

series mean_series(const std::string& name,
                   const std::vector<double>& x,
                   const sim::monte_carlo_result& res,
                   std::size_t first,
                   std::size_t stride,
                   double zq) {
  series s = make_series(name, {}, {}, "lines");
  for (std::size_t j = 0; j < x.size(); ++j) {
    const auto [m, se] = mean_se(res.observables[first + j * stride].samples);
    s.x.push_back(x[j]);
    s.y.push_back(m);
    const double tq = t_multiplier(zq, res.observables[first + j * stride].samples.size());
    s.y_lo.push_back(m - tq * se);
    s.y_hi.push_back(m + tq * se);
  }
  return s;
}

// ---- zxd26-remark4-calibrated
// ------------------------------------------------------------------------

scenario_result remark4_calibrated(const scenario_context& c) {
  const lt_config g = trend_config(c);
  const std::vector<double> eps = {1, 2, 4, 8, 16};
  // The T sweep (index 1: the paper's 20 epochs). Audited: 80 against 20 epochs. Quick: without
  // 40 epochs (its DP and clipping-only runs were ~1/6 of the cost): the audited runs are the
  // same, and the reported slopes in log T and of z(T) are fitted on 10, 20, 80 epochs.
  const std::vector<double> epochs =
      c.tier == tier::full ? std::vector<double>{10, 20, 40, 80} : std::vector<double>{10, 20, 80};
  const double eps_T = 2;  // the T sweep's ε (the noise is visible at η = 0.2)
  // (c), reported only: C = 0.3, 1, 3 in the full tier; quick: C = 1 alone (the eps sweep's
  // eps = 8 run), so its four extra runs (~1/5 of the quick cost) are not made and (c) is not
  // reported there.
  const bool full = c.tier == tier::full;
  const std::vector<double> clips = full ? std::vector<double>{0.3, 1, 3} : std::vector<double>{1};
  const std::uint64_t R = replicates_for(c, 12, 12);
  const std::size_t I = eps.size(), J = epochs.size(), Q = clips.size();
  std::vector<double> z_eps, z_T, T_steps;
  for (double e : eps) {
    lt_config h = g;
    h.epsilon = e;
    z_eps.push_back(calibrated_multiplier(h));
  }
  for (double ep : epochs) {
    lt_config h = g;
    h.epsilon = eps_T;
    h.epochs = ep;
    z_T.push_back(calibrated_multiplier(h));
    T_steps.push_back(static_cast<double>(
        learners::training_steps(training_of(h, h.clip, 0, kTrendsFirstAndLast), h.n())));
  }
  const double z_C = z_eps[3];  // ε = 8, the paper's budget
  // Observables: [err, loss] per ε; slopes; [dp err, clip err, dp loss, clip loss] per T;
  // slopes; err per C at fixed η, err per C at fixed ηC.
  std::vector<sim::observable> obs;
  for (std::size_t i = 0; i < I; ++i) {
    obs.push_back({"err eps " + std::to_string(i), true});
    obs.push_back({"loss eps " + std::to_string(i), true});
  }
  const std::size_t b1 = obs.size();
  obs.push_back({"err slope log eps", true});
  obs.push_back({"loss slope log eps", true});
  const std::size_t b2 = obs.size();
  for (std::size_t j = 0; j < J; ++j) {
    obs.push_back({"dp err T " + std::to_string(j), true});
    obs.push_back({"clip err T " + std::to_string(j), true});
    obs.push_back({"dp loss T " + std::to_string(j), true});
    obs.push_back({"clip loss T " + std::to_string(j), true});
  }
  const std::size_t b3 = obs.size();
  obs.push_back({"err penalty slope log T", true});
  obs.push_back({"loss penalty slope log T", true});
  obs.push_back({"dp err slope log T", true});
  const std::size_t b4 = obs.size();
  for (std::size_t q = 0; q < Q; ++q) obs.push_back({"err C eta " + std::to_string(q), true});
  for (std::size_t q = 0; q < Q; ++q) obs.push_back({"err C etaC " + std::to_string(q), true});
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        const lt_problem p = make_problem(g, c.seed, rep, g.signal, g.ncr);
        const sim::random_key key{c.seed, rep, 10};  // common batches and noise
        auto run = [&](const lt_config& h, double C, double z, double& err, double& loss) {
          const learners::longtail_training t =
              training_of(h, C, learners::noise_std_for(z, C, h.batch), kTrendsFirstAndLast);
          // Clipping alone (z = 0; at 20 epochs and C = 1 a run of zxd26-thm2-loss-floor,
          // zxd26-thm2-plateau-scaling and zxd26-thm3-tail-gap too) through train_shared.
          const std::shared_ptr<const learners::longtail_run> shared =
              z == 0 ? train_shared(p, t, key) : nullptr;
          const learners::longtail_run rr = shared ? *shared : learners::train_longtail(*p.net, t, p.w0, key);
          err = learners::test_errors(*p.net, rr.weights, p.test).overall();
          loss = rr.records.back().training_loss;
        };
        // (a) ε sweep at C = 1.
        std::vector<double> e(I), l(I);
        for (std::size_t i = 0; i < I; ++i) {
          run(g, g.clip, z_eps[i], e[i], l[i]);
          out[2 * i] = e[i];
          out[2 * i + 1] = l[i];
        }
        out[b1] = ols_slope(logs(eps), e);
        out[b1 + 1] = ols_slope(logs(eps), l);
        // (b) T sweep at ε = eps_T: DP at the calibrated z(T) and clipping alone (z = 0).
        std::vector<double> pe(J), pl(J), de(J);
        for (std::size_t j = 0; j < J; ++j) {
          lt_config h = g;
          h.epochs = epochs[j];
          double* o = &out[b2 + 4 * j];
          if (epochs[j] == g.epochs && eps_T == eps[1]) {  // the ε sweep's run (same z, key)
            o[0] = e[1];
            o[2] = l[1];
          } else {
            run(h, g.clip, z_T[j], o[0], o[2]);
          }
          run(h, g.clip, 0, o[1], o[3]);
          pe[j] = o[0] - o[1];
          pl[j] = o[2] - o[3];
          de[j] = o[0];
        }
        out[b3] = ols_slope(logs(T_steps), pe);
        out[b3 + 1] = ols_slope(logs(T_steps), pl);
        out[b3 + 2] = ols_slope(logs(T_steps), de);
        // (c) C at calibrated noise (ε = 8): fixed η, and fixed ηC (η = η₀/C).
        for (std::size_t q = 0; q < Q; ++q) {
          if (clips[q] == g.clip) {  // the ε sweep's ε = 8 run, for both variants
            out[b4 + q] = out[b4 + Q + q] = e[3];
            continue;
          }
          double loss = 0;
          run(g, clips[q], z_C, out[b4 + q], loss);
          lt_config h = g;
          h.eta = g.eta * g.clip / clips[q];
          run(h, clips[q], z_C, out[b4 + Q + q], loss);
        }
      },
      mc_options(c, R, "zxd26-remark4-calibrated"));
  auto col = [&](std::size_t j) -> const std::vector<double>& {
    return res.observables[j].samples;
  };
  scenario_result r;
  r.id = "zxd26-remark4-calibrated";
  r.title =
      "ZXD+26 Remark 4: at accountant-calibrated noise the error falls with eps; the privacy "
      "part grows with T; C-invariance";
  r.source = "ZXD+26 Thm 2-3, Remark 4";
  const double conf = 1 - 0.05 / 4, zq = normal_quantile(conf);
  r.claim =
      "with sigma_n = zC/B and z from the PLD accountant for each (eps, T): audited (paired, "
      "Bonferroni over 4): (a) the per-replicate OLS slopes in log eps of the test error and of "
      "L_S(W_T) are < 0 (eps = 1..16, Remark 4); (b) at eps = 2, prolonged DP training hurts "
      "(claim 29: at fixed eps sigma_n grows like sqrt(T)): the DP test error and its privacy "
      "part (DP at z(T) minus clipping alone at the same T) are larger at 80 epochs than at 20 "
      "(the curves in T are U-shaped: slopes reported). (c) C-invariance (claim 31) is "
      "reported: test error at C = 0.3, 1, 3 at calibrated z (eps = 8), at fixed eta and at "
      "fixed eta*C";
  tally t;
  audit_positive("-(slope of the test error in log eps)", negate(col(b1)), zq, c.self_check, t, r);
  audit_positive("-(slope of L_S(W_T) in log eps)", negate(col(b1 + 1)), zq, c.self_check, t, r);
  // (b) The measured curves in T are U-shaped (optimisation improves with T, the calibrated
  // noise grows like √T): what Remark 4 implies is that prolonged DP training hurts, audited as
  // T_max = 80 epochs against the paper's 20 epochs, on the DP error and on its privacy part.
  auto tcol = [&](std::size_t j, std::size_t what) -> const std::vector<double>& {
    return col(b2 + 4 * j + what);
  };
  audit_positive("DP test error: " + sig(epochs[J - 1]) + " epochs - " + sig(epochs[1]) +
                     " epochs (eps = " + sig(eps_T) + ")",
                 diff(tcol(J - 1, 0), tcol(1, 0)), zq, c.self_check, t, r);
  audit_positive("privacy part (DP - clip only) of the test error: " + sig(epochs[J - 1]) +
                     " epochs - " + sig(epochs[1]) + " epochs",
                 diff(diff(tcol(J - 1, 0), tcol(J - 1, 1)), diff(tcol(1, 0), tcol(1, 1))), zq, c.self_check, t,
                 r);
  finish(t, conf, c.self_check, r);
  for (std::size_t i = 0; i < I; ++i)
    r.notes.push_back("eps = " + sig(eps[i]) + ": z = " + sig(z_eps[i], 4) +
                      ", sigma_n = " + sig(learners::noise_std_for(z_eps[i], g.clip, g.batch), 3) +
                      ", test error " + sig(res.observables[2 * i].stats.mean(), 3) +
                      ", L_S(W_T) " + sig(res.observables[2 * i + 1].stats.mean(), 4));
  for (std::size_t j = 0; j < J; ++j)
    r.notes.push_back("eps = " + sig(eps_T) + ", " + sig(epochs[j]) +
                      " epochs (T = " + sig(T_steps[j]) + "): z = " + sig(z_T[j], 4) +
                      "; test error DP " + sig(res.observables[b2 + 4 * j].stats.mean(), 3) +
                      ", clip only " + sig(res.observables[b2 + 4 * j + 1].stats.mean(), 3) +
                      "; L_S(W_T) DP " + sig(res.observables[b2 + 4 * j + 2].stats.mean(), 4) +
                      ", clip only " + sig(res.observables[b2 + 4 * j + 3].stats.mean(), 4));
  {
    std::vector<std::vector<double>> zc;
    for (double z : z_T) zc.push_back({z, z});
    const slope_fit fz = log_log_slope(T_steps, zc);
    r.notes.push_back("accountant: log-log slope of z(T) at fixed eps = " + sig(fz.slope, 3) +
                      " (Remark 4's advanced-composition scale: 0.5)");
  }
  report_only("slope in log T of the DP test error itself (eps = " + sig(eps_T) +
                  "; optimisation and privacy together)",
              col(b3 + 2), zq, r);
  report_only("slope in log T of the privacy part of the test error", col(b3), zq, r);
  report_only("slope in log T of the privacy part of L_S(W_T)", col(b3 + 1), zq, r);
  std::vector<double> spread_eta, spread_etac;
  for (std::size_t q = 0; q < Q; ++q) {
    report_only(
        "test error at C = " + sig(clips[q]) + ", z = " + sig(z_C, 4) + ", eta = " + sig(g.eta),
        col(b4 + q), zq, r);
    report_only("test error at C = " + sig(clips[q]) + ", z = " + sig(z_C, 4) +
                    ", eta = " + sig(g.eta * g.clip / clips[q]) + " (eta*C fixed)",
                col(b4 + Q + q), zq, r);
  }
  if (Q > 1) {
    report_only("C-invariance, eta fixed: error(C = 3) - error(C = 0.3)",
                diff(col(b4 + Q - 1), col(b4)), zq, r);
    report_only("C-invariance, eta*C fixed: error(C = 3) - error(C = 0.3)",
                diff(col(b4 + 2 * Q - 1), col(b4 + Q)), zq, r);
  } else {
    r.notes.push_back("(c) C-invariance at C = 0.3, 1, 3 is reported in the full tier only");
  }
  r.notes.push_back(
      "all shapes hold up to constants under Condition 1, which this configuration violates "
      "(docs/longtail.md); Thm 3 is stated at T = O~(n sqrt(m)/(eta C)), so the theory's "
      "C-comparison is at fixed eta*C");
  r.parameters = config_json(g);
  r.parameters["epsilons"] = eps;
  r.parameters["z_for_epsilons"] = z_eps;
  r.parameters["T_sweep_epsilon"] = eps_T;
  r.parameters["T_sweep_epochs"] = epochs;
  r.parameters["T_sweep_steps"] = T_steps;
  r.parameters["z_for_T"] = z_T;
  r.parameters["clips"] = clips;
  r.parameters["z_for_clips"] = z_C;
  r.parameters["replicates"] = R;
  r.replicates = R;
  r.figure.title = "Test error at accountant-calibrated noise against ε";
  r.figure.x_label = "ε (δ = 10^{-5})";
  r.figure.y_label = "test error";
  r.figure.log_x = true;
  r.figure.data.push_back(mean_series("DP, C = 1", eps, res, 0, 2, zq));
  return r;
}

// ---- zxd26-thm3-tail-L
// -------------------------------------------------------------------------------

scenario_result thm3_tail_L(const scenario_context& c) {
  lt_config g = trend_config(c);
  // A low NCR: at the tier's NCR (200, 1400) the clean model classifies every tail point
  // correctly for every L (measured: error 0 at L = 0.5..2.5), so there is nothing to decrease.
  // At NCR = 2 the clean tail error is 0.08 at L = 0.5.
  g.ncr = 2;
  const std::vector<double> Ls = {0.5, 1, 1.5, 2, 2.5};
  const double z_cal = calibrated_multiplier(g);  // ε = 8
  const std::vector<double> mults = {z_cal, 32};  // both in Remark 3's regime a ≤ b (below)
  const double ncr_high = 20, L_ncr = 1.5;
  const std::uint64_t R = replicates_for(c, 16, 16);
  const std::size_t NL = Ls.size(), NZ = mults.size();
  // Remark 3's regime at each noise level (class 0; balanced classes, so every class).
  const risk::longtail_problem prob =
      risk::spiked_problem(g.K, g.d, g.signal, 0.5, learners::spike_for_ncr(g.K, g.d, 0.5, g.ncr),
                           std::vector<double>(g.counts.begin(), g.counts.end()));
  risk::longtail_setting s;
  s.width = static_cast<double>(g.m);
  s.eta = g.eta;
  s.batch_size = static_cast<double>(g.batch);
  s.steps = static_cast<double>(
      learners::training_steps(training_of(g, g.clip, 0, kTrendsFirstAndLast), g.n()));
  s.clip = g.clip;
  std::vector<risk::tail_regime> regimes;
  for (double z : mults) {
    s.noise_std = learners::noise_std_for(z, g.clip, g.batch);
    regimes.push_back(risk::remark3_tail_regime(prob, s, 0));
  }
  std::vector<sim::observable> obs;
  for (std::size_t v = 0; v <= NZ; ++v)  // v = 0 clean, then each DP level
    for (std::size_t l = 0; l < NL; ++l)
      obs.push_back({"err " + std::to_string(v) + " L " + std::to_string(l), true});
  const std::size_t b1 = obs.size();
  for (std::size_t v = 0; v <= NZ; ++v) obs.push_back({"slope " + std::to_string(v), true});
  for (std::size_t v = 0; v <= NZ; ++v) obs.push_back({"log slope " + std::to_string(v), true});
  const std::size_t b2 = obs.size();
  obs.push_back({"clean tail err low ncr", true});
  obs.push_back({"clean tail err high ncr", true});
  // Continuity correction of the log error: half a point of the K·test_per_class tail points.
  const double half_point = 0.5 / static_cast<double>(g.K * g.test_per_class);
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        const lt_problem p = make_problem(g, c.seed, rep, g.signal, g.ncr);
        const sim::random_key key{c.seed, rep, 10};
        const learners::longtail_run clean =
            learners::train_longtail(*p.net, training_of(g, 0, 0, kTrendsFirstAndLast), p.w0, key);
        // Exact samples of T_k for every L (Def 3, aggregate neuron of the clean model); one
        // tail stream per L so the sets do not depend on the order of the L grid.
        std::vector<std::vector<learners::longtail_data>> tails(NL);
        for (std::size_t l = 0; l < NL; ++l) {
          random_stream ts(c.seed, rep, 20 + l);
          for (std::size_t k = 0; k < g.K; ++k) {
            const sim::vector v = learners::tail_direction(*p.net, clean.weights, static_cast<int>(k));
            tails[l].push_back(
                learners::sample_tail(p.test, static_cast<int>(k), v, Ls[l], g.test_per_class, ts));
          }
        }
        auto tail_error = [&](const learners::longtail_network& net, const sim::vector& w,
                              const std::vector<learners::longtail_data>& sets) {
          double e = 0;
          for (const learners::longtail_data& tk : sets) e += learners::test_errors(net, w, tk).overall();
          return e / static_cast<double>(sets.size());
        };
        for (std::size_t v = 0; v <= NZ; ++v) {
          const sim::vector w =
              v == 0 ? clean.weights
                     : learners::train_longtail(
                           *p.net,
                           training_of(g, g.clip,
                                       learners::noise_std_for(mults[v - 1], g.clip, g.batch),
                                       kTrendsFirstAndLast),
                           p.w0, key)
                           .weights;
          std::vector<double> e(NL), le(NL);
          for (std::size_t l = 0; l < NL; ++l) {
            e[l] = out[v * NL + l] = tail_error(*p.net, w, tails[l]);
            le[l] = std::log(e[l] + half_point);
          }
          out[b1 + v] = ols_slope(Ls, e);
          // Thm 3 Stmt 2's bound is exp(−c(N_T(L)/D)²): L acts on the log of the error.
          out[b1 + NZ + 1 + v] = ols_slope(Ls, le);
        }
        // Claim 25 (clean): the tail error falls with the NCR (L = L_ncr, same seeds).
        const lt_problem q = make_problem(g, c.seed, rep, g.signal, ncr_high);
        const learners::longtail_run cq =
            learners::train_longtail(*q.net, training_of(g, 0, 0, kTrendsFirstAndLast), q.w0, key);
        std::vector<learners::longtail_data> tq;
        random_stream ts(c.seed, rep, 30);
        for (std::size_t k = 0; k < g.K; ++k) {
          const sim::vector v = learners::tail_direction(*q.net, cq.weights, static_cast<int>(k));
          tq.push_back(
              learners::sample_tail(q.test, static_cast<int>(k), v, L_ncr, g.test_per_class, ts));
        }
        out[b2] = out[2];  // clean, L = 1.5, NCR = g.ncr
        out[b2 + 1] = tail_error(*q.net, cq.weights, tq);
      },
      mc_options(c, R, "zxd26-thm3-tail-L"));
  auto col = [&](std::size_t j) -> const std::vector<double>& {
    return res.observables[j].samples;
  };
  scenario_result r;
  r.id = "zxd26-thm3-tail-L";
  r.title = "ZXD+26 Thm 3 Stmt 2 / Remark 3.3: tail error against the tail threshold L";
  r.source = "ZXD+26 Thm 3 Stmt 2, Remark 3.3, Def 3";
  // Bonferroni over every statement that can decide the verdict: the three orderings and claim
  // 27's refutation check at each DP level in the regime a <= b.
  const std::size_t statements =
      3 + static_cast<std::size_t>(std::count_if(regimes.begin(), regimes.end(),
                                                 [](const risk::tail_regime& x) {
                                                   return !x.larger_L_helps;
                                                 }));
  const double conf = 1 - 0.05 / static_cast<double>(statements), zq = normal_quantile(conf);
  r.claim =
      "on exact samples of the L-tail T_k (L = 0.5..2.5; direction: the clean model's aggregate "
      "neuron; NCR = 2), audited (paired, Bonferroni over " +
      std::to_string(statements) + " statements): (i) clean training: the "
      "per-replicate OLS slope of the tail error in L is < 0 (Remark 3.3); (ii) clean: the tail "
      "error (L = 1.5) is lower at NCR = 20 than at NCR = 2 (claim 25); (iii) under DP at the "
      "calibrated noise (eps = 8, in the regime a <= b) the benefit of L shrinks in the "
      "theorem's scale: the slope in L of log(error + 1/(2N)) is larger (less negative) under "
      "DP than clean. Claim 27's literal 'under DP with a <= b increasing L does not reduce the "
      "error' is "
      "checked as printed on the DP slopes (Student t intervals): when one lies wholly below 0 "
      "the verdict is refuted (an expected refutation, docs/findings.md)";
  tally t;
  audit_positive("clean: -(slope of the tail error in L)", negate(col(b1)), zq, c.self_check, t, r);
  audit_positive("clean: tail error at NCR = " + sig(g.ncr) + " - at NCR = " + sig(ncr_high),
                 diff(col(b2), col(b2 + 1)), zq, c.self_check, t, r);
  audit_positive("slope in L of log tail error: DP (z = " + sig(z_cal, 4) + ") - clean",
                 diff(col(b1 + NZ + 2), col(b1 + NZ + 1)), zq, c.self_check, t, r);
  for (std::size_t v = 0; v <= NZ; ++v)
    report_only("slope in L of log(tail error + 1/(2N)), " +
                    (v == 0 ? std::string("clean") : "DP z = " + sig(mults[v - 1], 4)),
                col(b1 + NZ + 1 + v), zq, r);
  report_only("slope in L of the tail error, clean", col(b1), zq, r);
  finish(t, conf, c.self_check, r);
  // Claim 27 as printed: under DP in the regime a <= b, increasing L does not reduce the tail
  // error. Refuted when the Student t interval of the DP slope in L lies wholly below 0.
  bool refuted27 = false;
  for (std::size_t v = 1; v <= NZ; ++v) {
    if (regimes[v - 1].larger_L_helps) continue;
    refuted27 |= refuted_below_zero(
        "claim 27: slope of the DP tail error in L at z = " + sig(mults[v - 1], 4) + " (a = " +
            sig(regimes[v - 1].a, 4) + " <= b = " + sig(regimes[v - 1].b, 4) + ") >= 0",
        col(b1 + v), conf, r);
  }
  if (refuted27)
    mark_refuted(
        "claim 27 refuted: under DP with a <= b the tail error still falls with L (Student t "
        "interval of the slope wholly below 0) while the audited directions hold; Remark 3.3 "
        "reads an upper bound that is vacuous there, and the measured error keeps the clean "
        "model's ordering, only less steeply. Scope: the regime a <= b is located with Thm 3's "
        "hidden constants set to 1 (it decides only which DP level is audited, not a value); the "
        "run is outside Condition 1, as every simulable configuration is; the L-tail is taken "
        "along the clean model's aggregate neuron (the paper leaves the direction undefined)",
        r);
  for (std::size_t v = 0; v <= NZ; ++v) {
    std::string line =
        (v == 0 ? std::string("clean") : "DP z = " + sig(mults[v - 1], 4)) + ": tail error at L =";
    for (std::size_t l = 0; l < NL; ++l)
      line += " " + sig(Ls[l]) + ": " + sig(res.observables[v * NL + l].stats.mean(), 3) +
              (l + 1 < NL ? "," : "");
    r.notes.push_back(line);
  }
  r.notes.push_back("clean tail error (L = " + sig(L_ncr) + ") at NCR = " + sig(g.ncr) + ": " +
                    sig(res.observables[b2].stats.mean(), 3) + ", at NCR = " + sig(ncr_high) +
                    ": " + sig(res.observables[b2 + 1].stats.mean(), 3));
  r.notes.push_back(
      "Remark 3's a = sqrt(|S_k|) Lambda_k ||A_k^T A_k||_F, b = n sigma_n ||A_k||_op "
      "(risk::remark3_tail_regime, constants 1); a <= b from z = " +
      sig(regimes[0].a / (static_cast<double>(g.n()) * prob.operator_norm[0]) *
              static_cast<double>(g.batch) / g.clip,
          3) +
      " here. Thm 3 is an upper bound up to constants under Condition 1, which this "
      "configuration violates (docs/longtail.md): only directions are audited");
  r.parameters = config_json(g);
  r.parameters["tail_L"] = Ls;
  r.parameters["tail_direction"] = "aggregate sum_r w_{k,r} of the clean model";
  r.parameters["tail_sampling"] = "exact (learners::sample_tail), test_per_class points per class";
  r.parameters["dp_noise_multipliers"] = mults;
  r.parameters["epsilon_of_first_multiplier"] = g.epsilon;
  r.parameters["ncr_high"] = ncr_high;
  r.parameters["replicates"] = R;
  r.replicates = R;
  r.figure.title = "Error on the L-tail T_k against L";
  r.figure.x_label = "L";
  r.figure.y_label = "tail test error";
  r.figure.data.push_back(mean_series("clean", Ls, res, 0, 1, zq));
  for (std::size_t v = 1; v <= NZ; ++v)
    r.figure.data.push_back(mean_series("DP z = " + sig(mults[v - 1], 3), Ls, res, v * NL, 1, zq));
  return r;
}

// ---- zxd26-thm2-plateau-scaling
// ----------------------------------------------------------------------

// Mean training loss over the examples of class k (in_class) or of the other classes.
double class_loss(const learners::longtail_network& net, const sim::vector& w, int k, bool in_class) {
  const learners::longtail_data& data = net.data();
  double sum = 0;
  std::size_t count = 0;
  for (std::size_t i = 0; i < net.examples(); ++i)
    if ((data.labels[i] == k) == in_class) {
      sum += net.loss(i, w);
      ++count;
    }
  return sum / static_cast<double>(count);
}

scenario_result thm2_plateau_scaling(const scenario_context& c) {
  const lt_config g = trend_config(c);
  const std::uint64_t R = replicates_for(c, 12, 12);
  const std::vector<double> clips = {0.3, 1, 3};
  const std::vector<double> signals = {0.5, 1.0};
  const double z_fixed = 8;  // σ_n fixed at the value of z = 8 at C = 1
  const double sigma = learners::noise_std_for(z_fixed, 1, g.batch);
  // One rare class (10 % of n), as zxd26-thm3-tail-gap.
  lt_config gr = g;
  const std::size_t n = g.n();
  gr.counts.assign(g.K, (n - n / 10) / (g.K - 1));
  gr.counts[0] = n / 10;
  gr.counts[1] += n - std::accumulate(gr.counts.begin(), gr.counts.end(), std::size_t{0});
  const std::size_t J = clips.size();
  std::vector<sim::observable> obs;
  for (const double C : clips)
    obs.push_back({"privacy part of L_S(W_T) at C = " + sig(C) + " (DP - clipping alone)", true});
  obs.push_back({"rare-class DP penalty - common-class DP penalty (training loss)", true});
  for (const double u : signals) obs.push_back({"clean L_S(W_T) at |u| = " + sig(u), true});
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        const sim::random_key key{c.seed, rep, 10};  // common batches and noise
        // Clipping alone and DP at z = 8 with C = 1 are runs of other scenarios too, as is the
        // clean run on the rare-class set (train_shared).
        auto final_loss = [&](const lt_problem& p, double clip, double noise) {
          return train_shared(p, training_of(g, clip, noise, kTrendsFirstAndLast), key)
              ->records.back()
              .training_loss;
        };
        const lt_problem p = make_problem(g, c.seed, rep, g.signal, g.ncr);
        for (std::size_t j = 0; j < J; ++j)
          out[j] = final_loss(p, clips[j], sigma) - final_loss(p, clips[j], 0);
        // Per-class DP penalty: (DP − clean) on the rare class minus the same on the others.
        const lt_problem q = make_problem(gr, c.seed, rep, g.signal, g.ncr);
        const sim::vector wc =
            train_shared(q, training_of(gr, 0, 0, kTrendsFirstAndLast), key)->weights;
        const sim::vector wd =
            learners::train_longtail(*q.net, training_of(gr, gr.clip, sigma, kTrendsFirstAndLast),
                                     q.w0, key)
                .weights;
        out[J] = (class_loss(*q.net, wd, 0, true) - class_loss(*q.net, wc, 0, true)) -
                 (class_loss(*q.net, wd, 0, false) - class_loss(*q.net, wc, 0, false));
        for (std::size_t v = 0; v < signals.size(); ++v) {
          const lt_problem ps = make_problem(g, c.seed, rep, signals[v], g.ncr);
          out[J + 1 + v] = final_loss(ps, 0, 0);
        }
      },
      mc_options(c, R, "zxd26-thm2-plateau-scaling"));
  auto col = [&](std::size_t j) -> const std::vector<double>& {
    return res.observables[j].samples;
  };
  scenario_result r;
  r.id = "zxd26-thm2-plateau-scaling";
  r.title = "ZXD+26 Thm 2: the DP loss plateau falls with C at fixed noise, hits rare classes";
  r.source = "ZXD+26 Thm 2, Lemma 20";
  const double conf = 1 - 0.05 / 4, zq = normal_quantile(conf);
  r.claim =
      "Thm 2's privacy error n sqrt(m) sigma_n sqrt(d)(|u| + |A|_F)/(Lambda_y |S_y| |u|^2) (up to "
      "constants), at fixed sigma_n: (a) decreases in C (Lambda_y grows with C; claim 21's 1/C), "
      "audited on the privacy part of L_S(W_T) (DP minus clipping alone at the same C, same "
      "batches) for C = 0.3 < 1 < 3; (b) is larger for a rare class (n/|S_y|; claims 21, 30): "
      "the rare class's DP penalty exceeds the common classes'; (c) the clean decay rate grows "
      "with |S_y||u|^2 (claim 20): L_S(W_T) is smaller at |u| = 1 than at 0.5. Paired by "
      "replicate, Bonferroni over 4";
  tally t;
  audit_positive("privacy part at C = 0.3 minus at C = 1", diff(col(0), col(1)), zq, c.self_check, t, r);
  audit_positive("privacy part at C = 1 minus at C = 3", diff(col(1), col(2)), zq, c.self_check, t, r);
  audit_positive("rare-class DP penalty minus common-class DP penalty", col(J), zq, c.self_check, t, r);
  audit_positive("clean L_S(W_T): |u| = 0.5 minus |u| = 1", diff(col(J + 1), col(J + 2)), zq, c.self_check, t,
                 r);
  finish(t, conf, c.self_check, r);
  std::vector<double> means;
  for (std::size_t j = 0; j < J; ++j) means.push_back(mean_se(col(j)).first);
  std::string levels;
  for (std::size_t j = 0; j < J; ++j) levels += " " + sig(means[j], 4);
  bool positive = true;
  for (double m : means) positive = positive && m > 0;
  r.notes.push_back("privacy part of L_S(W_T) by C:" + levels +
                    (positive
                         ? "; log-log slope in C " +
                               sig(std::log(means.back() / means.front()) /
                                       std::log(clips.back() / clips.front()),
                                   3) +
                               " (Thm 2's 1/C is the clipped-regime limit Lambda ~ C; reported)"
                         : ""));
  r.notes.push_back(
      "claim 14 (h increases in C) is an identity of h = min(1, C/|grad|) and is unit-tested, not "
      "audited here");
  nlohmann::json par = config_json(g);
  par["epsilon"] = "none: sigma_n fixed";
  par["noise_std_sigma_n"] = sigma;
  par["clips"] = clips;
  par["signals"] = signals;
  par["rare_class_counts"] = gr.counts;
  par["replicates"] = R;
  par["tier"] = to_string(c.tier);
  r.parameters = par;
  r.replicates = R;
  r.figure.title = "Privacy part of the DP training loss against C at fixed σ_n";
  r.figure.x_label = "clipping threshold C";
  r.figure.y_label = "L_S(W_T): DP − clipping alone";
  r.figure.log_x = true;
  r.figure.data.push_back(mean_series("measured (Bonferroni intervals)", clips, res, 0, 1, zq));
  return r;
}
}  // namespace

void register_longtail_trend_scenarios(std::vector<scenario>& out) {
  out.push_back({"zxd26-remark4-calibrated",
                 "ZXD+26 Remark 4: calibrated-noise error vs eps, T and C", remark4_calibrated,
                 0.5});
  out.push_back({"zxd26-thm3-tail-L", "ZXD+26 Remark 3.3: tail error vs the tail threshold L",
                 thm3_tail_L, 0.5});
  out.push_back({"zxd26-thm2-plateau-scaling",
                 "ZXD+26 Thm 2: DP loss plateau against C at fixed noise and class frequency",
                 thm2_plateau_scaling, 0.5});
}

}  // namespace dpkit::validation
