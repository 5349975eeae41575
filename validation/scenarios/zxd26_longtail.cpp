// ZXD+26: DP-SGD and the memorisation of long-tailed data, on the two-layer ReLU
// CNN of eq. (1) and the data of Definition 1 (dpkit::sim longtail simulator), against the
// shapes of Theorems 1–3 (dpkit::risk longtail bounds; all up to hidden constants) and the
// explicit Lemma 9:
//
//  * zxd26-lemma9-false        [exact] Lemma 9 as printed (P[Bin(m,1/2) < 0.4m] ≤ e^{−8m/25}) is
//                            FALSE (reported in the notes with numbers); the verdict concerns the
//                            corrected statement (Hoeffding, e^{−m/50}), checked for m = 1..2000.
//  * zxd26-thm1-memorisation   [trend + exact] memorisation growth falls as C falls (σ_n = 0);
//                            the DP-noise part of ⟨w_{y,r}, ξ⟩ has std ησ_n‖ξ‖√T exactly.
//  * zxd26-thm2-loss-floor     [trend] the training loss at T rises with σ_n (fitted slope > 0);
//                            clean training keeps decreasing the loss.
//  * zxd26-thm3-tail-gap       [trend] tail-vs-all test error gap grows with the noise multiplier;
//                            a rare class loses more to DP; C at calibrated noise (reported).
//  * zxd26-fig-synthetic       [qual] Figs 1/3: DP suppresses memorisation; DP accuracy degrades at
//                            low ‖u‖ even at high NCR.
//
// Quick tier: a scaled-down synthetic configuration (K = 3, d = 150, n = 150, m = 20, B = 64,
// 20 epochs, η = 0.002, C = 1, PyTorch init); full tier: the paper's (K = 5, d = 1000, n = 500,
// m = 100, B = 256, 20 epochs). The DP noise multiplier for (ε, δ) = (8, 1e-5) comes from
// dpkit's PLD accountant (sampling without replacement, q = B/n, T = ⌈20n/B⌉ steps;
// docs/longtail.md), σ_n = zC/B. The runs are far outside Condition 1 (docs/longtail.md), so trends
// are checked, no bound value is audited. The simulator knows no bound.
#include <algorithm>
#include <boost/math/distributions/chi_squared.hpp>
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

// ---- configuration
// --------------------------------------------------------------------------------

// ---- paired ordering audits (as the WSK+26 trend scenarios)
// ---------------------------------------

// record_every for runs whose metrics records are not read (only the weights, or the first and
// last record): recording is pure measurement (no random draws), so the iterates are unchanged.
constexpr long kFirstAndLast = 1000000;

nlohmann::json config_json(const lt_config& g, double z) {
  nlohmann::json j = longtail_detail::config_json(g);
  j["epsilon"] = g.epsilon;
  j["noise_multiplier_z"] = z;
  return j;
}

// ---- zxd26-lemma9-false
// ------------------------------------------------------------------------------

scenario_result lemma9(const scenario_context& c) {
  scenario_result r;
  r.id = "zxd26-lemma9-false";
  r.title = "ZXD+26 Lemma 9: P[Bin(m, 1/2) < 0.4m] - the printed bound is false, Hoeffding holds";
  r.source = "ZXD+26 App B Lemma 9";
  r.claim =
      "the corrected Lemma 9, P[Bin(m, 1/2) < 0.4m] <= exp(-m/50) (Hoeffding), for m = 1..2000 "
      "by the exact binomial CDF; the printed exp(-8m/25) is checked exactly and the verdict is "
      "refuted when it fails (an expected refutation, docs/findings.md)";
  const double F = c.bound_factor;
  const long long M = 2000;
  int violated = 0, printed_false = 0;
  double worst_ratio = 0;  // max exact/Hoeffding
  long long worst_m = 0;
  std::vector<double> ms, exact, claimed, hoeff;
  for (long long m = 1; m <= M; ++m) {
    const double e = risk::lemma9_exact(m), h = F * risk::lemma9_hoeffding(m);
    if (e > h) ++violated;
    if (e > risk::lemma9_claimed(m)) ++printed_false;
    if (e / h > worst_ratio) {
      worst_ratio = e / h;
      worst_m = m;
    }
    if (m <= 200 || m % 10 == 0) {
      ms.push_back(static_cast<double>(m));
      exact.push_back(e);
      claimed.push_back(risk::lemma9_claimed(m));
      hoeff.push_back(h);
    }
  }
  // Exact, no statistics: the corrected bound failing is a violation; the printed bound failing
  // (while the corrected one holds) refutes Lemma 9 as printed.
  r.verdict = violated > 0        ? verdict::violated
              : printed_false > 0 ? verdict::refuted
                                  : verdict::holds;
  r.verdict_reason =
      violated > 0 ? std::to_string(violated) + " values of m violate the corrected bound"
      : printed_false > 0
          ? "Lemma 9 as printed is false: the exact probability exceeds exp(-8m/25) for " +
                std::to_string(printed_false) +
                " of m = 1..2000; the corrected exp(-m/50) holds for every m"
          : "exact probability <= exp(-8m/25) and <= exp(-m/50) for every m = 1..2000";
  r.quantity = "P[Bin(m,1/2) < 0.4m] at m = 100";
  r.bound = F * risk::lemma9_hoeffding(100);
  r.estimate = r.estimate_lo = r.estimate_hi = risk::lemma9_exact(100);
  r.confidence = 1;
  r.tightness = r.bound / r.estimate;
  r.notes.push_back(
      "LEMMA 9 AS PRINTED IS FALSE: it claims P[#{i: x_i > 0} < 0.4m] <= exp(-8m/25); the exact "
      "binomial values are m = 50: " +
      sig(risk::lemma9_exact(50), 3) + " vs claimed " + sig(risk::lemma9_claimed(50), 3) +
      "; m = 100: " + sig(risk::lemma9_exact(100), 3) + " vs " + sig(risk::lemma9_claimed(100), 3) +
      "; m = 1000: " + sig(risk::lemma9_exact(1000), 3) + " vs " +
      sig(risk::lemma9_claimed(1000), 3) + ". The printed bound fails for " +
      std::to_string(printed_false) + " of the 2000 values of m (all but m = 1, 2, 5).");
  r.notes.push_back(
      "the correct Hoeffding bound exp(-2m(0.1)^2) = exp(-m/50) holds for every m checked (largest "
      "exact/bound ratio " +
      sig(worst_ratio, 3) + " at m = " + std::to_string(worst_m) +
      "); it is 0.135 at m = 100, so the downstream '>= 0.4m activated neurons' statements "
      "(Lemmas 18-19) hold only with probability 1 - exp(-m/50), not 1 - exp(-8m/25)");
  r.notes.push_back(
      "exact: Boost.Math binomial CDF at ceil(2m/5) - 1 (integer threshold); no "
      "Monte Carlo");
  r.parameters = {{"m_range", {1, M}}, {"p", 0.5}, {"threshold", "0.4 m (strict)"}};
  r.figure.title = "Lemma 9: P[Bin(m, 1/2) < 0.4m]";
  r.figure.x_label = "m";
  r.figure.y_label = "probability";
  r.figure.log_y = true;
  r.figure.data.push_back(make_series("exact binomial", ms, exact));
  r.figure.data.push_back(make_series("claimed exp(−8m/25) (false)", ms, claimed));
  r.figure.data.push_back(make_series("Hoeffding exp(−m/50)", ms, hoeff));
  r.replicates = 0;
  return r;
}

// ---- zxd26-thm1-memorisation
// -------------------------------------------------------------------------

scenario_result thm1(const scenario_context& c) {
  const lt_config g = config_for(c);
  const double z_cal = calibrated_multiplier(g);
  const std::vector<double> clips = {0, 1, 0.3, 0.1};  // 0: no clipping (clean)
  const std::vector<double> mults = {1, 4};            // DP at C = 1, σ_n = zC/B
  // quick: 16 replicates resolve each audited clipping ordering at >= 2x its interval (24 gave
  // >= 2.8x at seeds 2026, 1, 7); the exact noise-std check (N = 48 chi-square) only detects a
  // variance ratio outside about [0.6, 1.8]; an ordering under ~1/2 of the measured ones is not
  // resolved.
  const std::uint64_t R = replicates_for(c, 16, 24);
  const std::size_t nc = clips.size(), nz = mults.size(), K = g.K;
  std::vector<sim::observable> obs;
  for (std::size_t j = 0; j < nc + nz; ++j) obs.push_back({"slope " + std::to_string(j), true});
  for (std::size_t k = 0; k < K; ++k) obs.push_back({"std noise " + std::to_string(k), true});
  for (std::size_t j = 0; j < nc + nz; ++j) obs.push_back({"h " + std::to_string(j), true});
  const double eta = g.eta, F = c.bound_factor;
  const long T = learners::training_steps(training_of(g, g.clip, 0), g.n());
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        const lt_problem p = make_problem(g, c.seed, rep, g.signal, g.ncr);
        const sim::random_key key{c.seed, rep, 10};  // common batches and noise
        for (std::size_t j = 0; j < nc + nz; ++j) {
          const bool dp = j >= nc;
          const double C = dp ? g.clip : clips[j];
          const double sn = dp ? learners::noise_std_for(mults[j - nc], g.clip, g.batch) : 0;
          learners::longtail_training t = training_of(g, C, sn);
          t.record_every = 1000000;  // first and last only
          t.track_noise_contribution = dp && j + 1 == nc + nz;
          // Clean and clipping alone at C = 1 are zxd26-fig-synthetic's runs too (train_shared).
          const std::shared_ptr<const learners::longtail_run> shared =
              j <= 1 ? train_shared(p, t, key) : nullptr;
          const learners::longtail_run run =
              shared ? *shared : learners::train_longtail(*p.net, t, p.w0, key);
          // Memorisation growth per step (ZXD+26 §5.2's metric).
          out[j] = (run.records.back().memorisation - run.records.front().memorisation) /
                   static_cast<double>(run.steps);
          out[nc + nz + K + j] = run.records.front().mean_clip_multiplier;
          if (t.track_noise_contribution)
            for (std::size_t k = 0; k < K; ++k) {
              // One example per class: different blocks (y, r0) → independent across k.
              const std::size_t i = p.train->class_indices(static_cast<int>(k)).front();
              const double xi = p.train->noise.col(static_cast<Eigen::Index>(i)).norm();
              // Claimed std F·ησ_n‖ξ‖√T (F = 1: the exact std, derived by dpkit).
              out[nc + nz + k] = run.noise_memorisation[static_cast<Eigen::Index>(i)] /
                                 (F * eta * sn * xi * std::sqrt(static_cast<double>(run.steps)));
            }
        }
      },
      mc_options(c, R, "zxd26-thm1-memorisation"));
  auto col = [&](std::size_t j) -> const std::vector<double>& {
    return res.observables[j].samples;
  };
  scenario_result r;
  r.id = "zxd26-thm1-memorisation";
  r.title = "ZXD+26 Thm 1: memorisation drift shrinks with clipping; exact DP-noise part";
  r.source = "ZXD+26 Thm 1, Remark 1";
  const int checks = static_cast<int>(nc - 1);
  const double conf = 1 - 0.05 / (checks + 1);
  const double zq = normal_quantile(conf);
  r.claim =
      "memorisation growth (1/T)(<w,xi>_T - <w,xi>_0) (ZXD+26 Sec 5.2 metric) decreases as the "
      "clipping threshold C decreases (no noise): clean > C = 1 > C = 0.3 > C = 0.1 (paired, "
      "Bonferroni); and the DP-noise part of <w_{y,r0}, xi> after T steps has std "
      "eta sigma_n ||xi|| sqrt(T) exactly (chi-square interval on the pooled variance ratio: "
      "rejected if it excludes 1, shown if inside [1/sqrt(T), sqrt(T)], nearer the exact law "
      "than the paper's noise term without sqrt(T))";
  tally t;
  const std::string names[] = {"clean", "C = 1", "C = 0.3", "C = 0.1"};
  for (std::size_t j = 0; j + 1 < nc; ++j)
    audit_positive("slope(" + names[j] + ") - slope(" + names[j + 1] + ")",
                   diff(col(j), col(j + 1)), zq, c.self_check, t, r);
  for (std::size_t j = 0; j < nz; ++j)
    report_only("slope(C = 1, z = 0) - slope(C = 1, z = " + sig(mults[j]) + ")",
                diff(col(1), col(nc + j)), zq, r);
  // Exact part: Σ v² ~ χ²_N when the std is right.
  double S = 0;
  std::size_t N = 0;
  for (std::size_t k = 0; k < K; ++k)
    for (double v : col(nc + nz + k)) {
      S += v * v;
      ++N;
    }
  const boost::math::chi_squared_distribution<double> chi(static_cast<double>(N));
  const double a = 1 - conf;
  const double ratio = S / static_cast<double>(N);
  const double lo = S / boost::math::quantile(boost::math::complement(chi, a / 2));
  const double hi = S / boost::math::quantile(chi, a / 2);
  // Under the self-check the observable is already divided by the halved std (F = 0.5 above),
  // so the same interval tests the wrong claim.
  // An exact claim audited as an equivalence (docs/validation.md, "Equality claims"): rejected
  // when the interval excludes 1; shown only when it lies inside [1/sqrt(T), sqrt(T)], the
  // margin. The claim's point is the sqrt(T) that the paper's noise term O(eta sigma_n ||A||_F)
  // misses, a variance ratio of T against the exact law's 1: the margin is their geometric
  // midpoint, so "shown" means closer to the exact law than to the paper's term (fixed by the
  // claim, not by a run: T = 47 at the quick size, a factor 6.9).
  const double variance_margin = std::sqrt(static_cast<double>(T));
  const bool exact_holds = lo <= 1 && 1 <= hi;
  const bool exact_shown = lo >= 1 / variance_margin && hi <= variance_margin;
  r.notes.push_back("exact check: Var[noise part / (" + std::string(c.self_check ? "F " : "") +
                    "eta sigma_n ||xi|| sqrt(T))] = " + sig(ratio, 4) + " [" + sig(lo, 4) + ", " +
                    sig(hi, 4) + "] (" + sig(conf * 100, 3) +
                    "% chi-square, N = " + std::to_string(N) +
                    "); the law is N(0, 1) exactly, margin [1/sqrt(T), sqrt(T)] = [" +
                    sig(1 / variance_margin, 3) + ", " + sig(variance_margin, 3) + "] -> " +
                    (!exact_holds  ? "VIOLATED"
                     : exact_shown ? "as predicted"
                                   : "not resolved"));
  finish(t, conf, c.self_check, r);
  if (!c.self_check && exact_holds && !exact_shown && r.verdict == verdict::holds) {
    r.verdict = verdict::inconclusive;
    r.verdict_reason =
        "the DP-noise part's variance ratio is not resolved within [1/sqrt(T), sqrt(T)] at this "
        "size; " +
        r.verdict_reason;
  }
  if (!c.self_check && !exact_holds) {
    r.verdict = verdict::violated;
    r.verdict_reason =
        "the DP-noise part of memorisation does not have std eta sigma_n ||xi|| "
        "sqrt(T) (variance-ratio interval excludes 1)";
  } else if (c.self_check && exact_holds) {
    // The self-check names two wrong claims, the reversed orderings and the halved std; it is
    // caught only when both are rejected.
    r.verdict = verdict::inconclusive;
    r.verdict_reason =
        "the halved DP-noise std is not rejected (variance-ratio interval contains 1); " +
        r.verdict_reason;
  }
  for (std::size_t j = 0; j < nc + nz; ++j)
    r.notes.push_back("mean clipping multiplier h at W0, config " + std::to_string(j) + ": " +
                      sig(res.observables[nc + nz + K + j].stats.mean(), 3));
  r.notes.push_back(
      "Theorem 1 is a lower bound up to constants under Condition 1, which this run violates "
      "(T = " +
      std::to_string(T) +
      " steps vs T >~ n sqrt(m) sigma0/(eta Lambda ||A||_F); "
      "docs/longtail.md): only the direction in C is audited. The noise term of the statement, "
      "O(eta sigma_n ||A||_F), misses the sqrt(T) of the exact std; the proof's O(eta T sigma_n "
      "||A||_F) over-counts it");
  r.notes.push_back(
      "noise orderings are reported, not audited: the Sec 5.2 metric takes a max "
      "over neurons, which mean-zero noise biases upward");
  r.parameters = config_json(g, z_cal);
  r.parameters["clips_no_noise"] = clips;
  r.parameters["dp_multipliers_at_C1"] = mults;
  r.parameters["steps_T"] = T;
  r.parameters["replicates"] = R;
  r.replicates = R;
  r.figure.title = "Memorisation growth per step vs clipping threshold (no noise)";
  r.figure.x_label = "C (clean plotted at C = 10)";
  r.figure.y_label = "d⟨w, ξ⟩/dt";
  r.figure.log_x = true;
  series s = make_series("mean slope", {}, {}, "points");
  for (std::size_t j = 0; j < nc; ++j) {
    const auto [m, se] = mean_se(col(j));
    s.x.push_back(j == 0 ? 10.0 : clips[j]);
    s.y.push_back(m);
    s.y_lo.push_back(m - t_multiplier(zq, col(j).size()) * se);
    s.y_hi.push_back(m + t_multiplier(zq, col(j).size()) * se);
  }
  r.figure.data.push_back(s);
  return r;
}

// ---- zxd26-thm2-loss-floor
// ---------------------------------------------------------------------------

// The step size of the noise-trend checks (thm2, thm3). At the paper's η = 0.002 the DP noise
// moves each weight by ησ_n√T ≈ 2e-3 over the run, far below the PyTorch initial scale 1/√d, so
// neither the loss nor the test error responds to σ_n at all (measured: identical losses to 4
// digits for z = 0..8); what DP changes there is the clipping (h ≈ 0.05-0.2). η = 0.2 is a
// regime where the noise is visible within 20 epochs; it is stated in the parameters.
constexpr double kTrendEta = 0.2;

scenario_result thm2(const scenario_context& c) {
  lt_config g = config_for(c);
  g.eta = kTrendEta;
  const double z_cal = calibrated_multiplier(g);
  const std::vector<double> mults = {0, 2, 4, 8};  // σ_n = zC/B at C = 1
  // quick: 12 replicates resolve both audited differences at >= 1.9x their intervals (24 gave
  // >= 3.7x at seeds 2026, 1, 7); a loss slope in sigma_n under ~1/2 of the measured one, or a
  // clean T/2-to-T drop under ~1/2 of its size, would not be resolved.
  const std::uint64_t R = replicates_for(c, 12, 24);
  const std::size_t J = mults.size();
  std::vector<sim::observable> obs;
  for (std::size_t j = 0; j < J; ++j) obs.push_back({"loss " + std::to_string(j), true});
  obs.push_back({"slope", true});
  obs.push_back({"clean half", true});
  obs.push_back({"clean end", true});
  std::vector<double> sigmas;
  for (double z : mults) sigmas.push_back(learners::noise_std_for(z, g.clip, g.batch));
  const long T = learners::training_steps(training_of(g, g.clip, 0), g.n());
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        const lt_problem p = make_problem(g, c.seed, rep, g.signal, g.ncr);
        const sim::random_key key{c.seed, rep, 10};
        for (std::size_t j = 0; j < J; ++j) {
          learners::longtail_training t = training_of(g, g.clip, sigmas[j]);
          t.record_every = 1000000;
          // z = 0 and z = 8 are runs of other scenarios too (train_shared).
          out[j] = train_shared(p, t, key)->records.back().training_loss;
        }
        // OLS slope of the loss at T against σ_n, per replicate.
        double mx = 0, my = 0, sxx = 0, sxy = 0;
        for (std::size_t j = 0; j < J; ++j) {
          mx += sigmas[j] / static_cast<double>(J);
          my += out[j] / static_cast<double>(J);
        }
        for (std::size_t j = 0; j < J; ++j) {
          sxx += (sigmas[j] - mx) * (sigmas[j] - mx);
          sxy += (sigmas[j] - mx) * (out[j] - my);
        }
        out[J] = sxy / sxx;
        // Clean: loss at T/2 and T.
        learners::longtail_training t = training_of(g, 0, 0);
        const long steps = learners::training_steps(t, g.n());
        t.record_every = steps / 2;
        const std::shared_ptr<const learners::longtail_run> run = train_shared(p, t, key);
        out[J + 1] = run->records[1].training_loss;
        out[J + 2] = run->records.back().training_loss;
      },
      mc_options(c, R, "zxd26-thm2-loss-floor"));
  auto col = [&](std::size_t j) -> const std::vector<double>& {
    return res.observables[j].samples;
  };
  scenario_result r;
  r.id = "zxd26-thm2-loss-floor";
  r.title = "ZXD+26 Thm 2: the DP training-loss floor rises with sigma_n; clean loss decreases";
  r.source = "ZXD+26 Thm 2, Remark 2";
  const double conf = 1 - 0.05 / 2, zq = normal_quantile(conf);
  r.claim =
      "the training loss at T rises with the noise std sigma_n at fixed C (Thm 2's privacy error "
      "is linear in sigma_n): the per-replicate OLS slope of L_S(W_T) on sigma_n has a "
      "confidence interval above 0; under clean training L_S(W_T) < L_S(W_{T/2})";
  tally t;
  audit_positive("slope of L_S(W_T) in sigma_n", col(J), zq, c.self_check, t, r);
  audit_positive("clean: L_S(W_{T/2}) - L_S(W_T)", diff(col(J + 1), col(J + 2)), zq, c.self_check, t, r);
  finish(t, conf, c.self_check, r);
  // Bound shape at the same configuration (constants 1), for comparison of the slope's sign.
  const risk::longtail_problem prob =
      risk::spiked_problem(g.K, g.d, g.signal, 0.5, learners::spike_for_ncr(g.K, g.d, 0.5, g.ncr),
                           std::vector<double>(g.counts.begin(), g.counts.end()));
  risk::longtail_setting s;
  s.width = static_cast<double>(g.m);
  s.eta = g.eta;
  s.batch_size = static_cast<double>(g.batch);
  s.steps = static_cast<double>(T);
  s.clip = g.clip;
  std::vector<double> floors, means;
  for (std::size_t j = 0; j < J; ++j) {
    s.noise_std = sigmas[j];
    floors.push_back(risk::thm2_loss_floor(prob, s, 0));
    means.push_back(res.observables[j].stats.mean());
    r.notes.push_back("sigma_n = " + sig(sigmas[j], 3) + " (z = " + sig(mults[j]) +
                      "): mean L_S(W_T) = " + sig(means.back(), 4) +
                      "; Thm 2 privacy error with constants 1 = " + sig(floors.back(), 3));
  }
  r.notes.push_back(
      "Thm 2's privacy-protection error (constants 1) is orders of magnitude above any loss "
      "here (n sqrt(m) sigma_n sqrt(d)(||u|| + ||A||_F)/(Lambda |S_y| ||u||^2) with ||u|| = " +
      sig(g.signal) +
      "): only its direction (increasing in sigma_n) is checked. The run is outside Condition 1 "
      "and T is tiny relative to the theory's horizon (docs/longtail.md), so 'plateau' here means "
      "the loss at T, not a converged floor");
  r.parameters = config_json(g, z_cal);
  r.parameters["noise_multipliers"] = mults;
  r.parameters["sigma_n"] = sigmas;
  r.parameters["steps_T"] = T;
  r.parameters["replicates"] = R;
  r.replicates = R;
  r.figure.title = "Training loss at T against the DP noise σ_n";
  r.figure.x_label = "σ_n";
  r.figure.y_label = "L_S(W_T)";
  series sm = make_series("mean L_S(W_T)", sigmas, means, "points");
  for (std::size_t j = 0; j < J; ++j) {
    const double se = res.observables[j].stats.standard_error();
    const double tq = t_multiplier(zq, res.observables[j].stats.count());
    sm.y_lo.push_back(means[j] - tq * se);
    sm.y_hi.push_back(means[j] + tq * se);
  }
  r.figure.data.push_back(sm);
  return r;
}

// ---- zxd26-thm3-tail-gap
// -----------------------------------------------------------------------------

scenario_result thm3(const scenario_context& c) {
  lt_config g = config_for(c);
  g.eta = kTrendEta;
  const double z_cal = calibrated_multiplier(g);
  const double L = 1.5;
  // z at C = 1 (0: clipping only). The calibrated z (≈ 4 in the quick tier) changes nothing at
  // η = 0.2 (errors ≈ 1 % for z ≤ 8); DP hurts from z ≈ 16 on, so the axis spans 0..64.
  const std::vector<double> mults = {0, 16, 32, 64};
  const double z_rare = 32;  // the class-frequency check's noise multiplier
  const std::uint64_t R = replicates_for(c, 16, 16);
  const std::size_t J = mults.size();
  // Class-frequency configuration: one rare class.
  lt_config gi = g;
  gi.counts.assign(g.K, 0);
  const std::size_t n = g.n();
  gi.counts[0] = n / 10;
  for (std::size_t k = 1; k < g.K; ++k) gi.counts[k] = (n - n / 10) / (g.K - 1);
  gi.counts[1] += n - std::accumulate(gi.counts.begin(), gi.counts.end(), std::size_t{0});
  // C at calibrated noise σ_n = z_cal C/B (reported only). Quick: not run here: at this tier's
  // configuration these are exactly the runs of zxd26-remark4-calibrated's part (c) at fixed eta
  // (same data, initialisation, key, C, z and eta; checked equal), which reports them.
  const bool full = c.tier == tier::full;
  const std::vector<double> clips = full ? std::vector<double>{0.3, 1, 3} : std::vector<double>{};
  std::vector<sim::observable> obs;
  for (std::size_t j = 0; j < J; ++j) {
    obs.push_back({"err all " + std::to_string(j), true});
    obs.push_back({"err tail " + std::to_string(j), true});
  }
  obs.push_back({"clean err all", true});
  obs.push_back({"clean err tail", true});
  obs.push_back({"gap slope", true});
  obs.push_back({"all slope", true});
  obs.push_back({"tail slope", true});
  obs.push_back({"rare dp - clean", true});
  obs.push_back({"common dp - clean", true});
  for (std::size_t j = 0; j < clips.size(); ++j)
    obs.push_back({"err C " + std::to_string(j), true});
  const std::size_t base = 2 * J;
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        const lt_problem p = make_problem(g, c.seed, rep, g.signal, g.ncr);
        const sim::random_key key{c.seed, rep, 10};
        // 1. Clean model; 2. tail sets sampled exactly from T_k (Def 3, aggregate neuron). The
        // clean run is zxd26-thm2-loss-floor's (recorded at T/2 too, as there; only the weights are
        // read here), the z = 0 run below and the rare-class clean run are other scenarios' too.
        learners::longtail_training clean_options = training_of(g, 0, 0);
        clean_options.record_every = learners::training_steps(clean_options, g.n()) / 2;
        const std::shared_ptr<const learners::longtail_run> clean_run =
            train_shared(p, clean_options, key);
        const learners::longtail_run& clean = *clean_run;
        std::vector<learners::longtail_data> tails;
        random_stream ts(c.seed, rep, 6);
        for (std::size_t k = 0; k < g.K; ++k) {
          const sim::vector v = learners::tail_direction(*p.net, clean.weights, static_cast<int>(k));
          tails.push_back(
              learners::sample_tail(p.test, static_cast<int>(k), v, L, g.test_per_class, ts));
        }
        auto tail_error = [&](const sim::vector& w) {
          double e = 0;
          for (const learners::longtail_data& tk : tails) e += learners::test_errors(*p.net, w, tk).overall();
          return e / static_cast<double>(tails.size());
        };
        out[base] = learners::test_errors(*p.net, clean.weights, p.test).overall();
        out[base + 1] = tail_error(clean.weights);
        std::vector<double> gaps;
        for (std::size_t j = 0; j < J; ++j) {
          const learners::longtail_training t =
              training_of(g, g.clip, learners::noise_std_for(mults[j], g.clip, g.batch), kFirstAndLast);
          const std::shared_ptr<const learners::longtail_run> shared =
              mults[j] == 0 ? train_shared(p, t, key) : nullptr;
          const learners::longtail_run run =
              shared ? *shared : learners::train_longtail(*p.net, t, p.w0, key);
          out[2 * j] = learners::test_errors(*p.net, run.weights, p.test).overall();
          out[2 * j + 1] = tail_error(run.weights);
          gaps.push_back(out[2 * j + 1] - out[2 * j]);
        }
        // Per-replicate OLS slopes in z of the gap, the all-data and the tail error.
        auto slope = [&](auto value) {
          double mx = 0, my = 0, sxx = 0, sxy = 0;
          for (std::size_t j = 0; j < J; ++j) {
            mx += mults[j] / static_cast<double>(J);
            my += value(j) / static_cast<double>(J);
          }
          for (std::size_t j = 0; j < J; ++j) {
            sxx += (mults[j] - mx) * (mults[j] - mx);
            sxy += (mults[j] - mx) * (value(j) - my);
          }
          return sxy / sxx;
        };
        out[base + 2] = slope([&](std::size_t j) { return gaps[j]; });
        out[base + 3] = slope([&](std::size_t j) { return out[2 * j]; });
        out[base + 4] = slope([&](std::size_t j) { return out[2 * j + 1]; });
        const std::size_t bq = base + 2;  // the class-frequency and C outputs follow at bq + 3
        // Class frequency: imbalanced training set, balanced test set, calibrated DP vs clean.
        const lt_problem q = make_problem(gi, c.seed, rep, g.signal, g.ncr);
        const std::shared_ptr<const learners::longtail_run> qc_run =
            train_shared(q, training_of(gi, 0, 0, kFirstAndLast), key);
        const learners::longtail_run& qc = *qc_run;
        const learners::longtail_run qd = learners::train_longtail(
            *q.net,
            training_of(gi, gi.clip, learners::noise_std_for(z_rare, gi.clip, gi.batch), kFirstAndLast),
            q.w0, key);
        const learners::class_errors ec = learners::test_errors(*q.net, qc.weights, q.test);
        const learners::class_errors ed = learners::test_errors(*q.net, qd.weights, q.test);
        out[bq + 3] = ed.rate(0) - ec.rate(0);
        double common = 0;
        for (std::size_t k = 1; k < g.K; ++k)
          common += (ed.rate(static_cast<int>(k)) - ec.rate(static_cast<int>(k))) /
                    static_cast<double>(g.K - 1);
        out[bq + 4] = common;
        // C at calibrated noise.
        for (std::size_t j = 0; j < clips.size(); ++j) {
          const learners::longtail_run run = learners::train_longtail(
              *p.net,
              training_of(g, clips[j], learners::noise_std_for(z_cal, clips[j], g.batch), kFirstAndLast),
              p.w0, key);
          out[bq + 5 + j] = learners::test_errors(*p.net, run.weights, p.test).overall();
        }
      },
      mc_options(c, R, "zxd26-thm3-tail-gap"));
  auto col = [&](std::size_t j) -> const std::vector<double>& {
    return res.observables[j].samples;
  };
  scenario_result r;
  r.id = "zxd26-thm3-tail-gap";
  r.title =
      "ZXD+26 Thm 3 / Remark 3: test error vs DP noise on all, long-tailed and rare-class "
      "points";
  r.source = "ZXD+26 Thm 3, Remarks 3-4, Def 3";
  // Bonferroni over the 4 statements that can decide the verdict: three orderings and Remark 3's
  // refutation check.
  const double conf = 1 - 0.05 / 4, zq = normal_quantile(conf);
  r.claim =
      "audited: (i) Thm 3 Stmt 1: the test error on all points grows with the noise multiplier z "
      "(per-replicate OLS slope in z > 0); (ii) Stmt 2: so does the error on the L-long-tailed "
      "points (L = 1.5, sampled exactly from T_k of the clean model, aggregate neuron); (iii) "
      "with one rare class (10% of n), DP (z = 32) raises the rare class's error more than the "
      "common classes'. Remark 3's claim that the tail-vs-all GAP grows with z is checked as "
      "printed (Student t interval of its slope): when the interval lies below 0 the verdict is "
      "refuted (an expected refutation, docs/findings.md). C at calibrated noise is reported "
      "only" +
      std::string(full ? "" : " (quick tier: by zxd26-remark4-calibrated, part (c), the same runs)");
  tally t;
  audit_positive("slope of the all-data test error in z", col(base + 3), zq, c.self_check, t, r);
  audit_positive("slope of the tail test error in z", col(base + 4), zq, c.self_check, t, r);
  audit_positive("rare-class DP penalty - common-class DP penalty",
                 diff(col(base + 5), col(base + 6)), zq, c.self_check, t, r);
  finish(t, conf, c.self_check, r);
  // Remark 3's gap claim, as the paper states it: (tail error - all error) grows with z.
  if (refuted_below_zero("Remark 3: slope of (tail error - all error) in z > 0", col(base + 2),
                         conf, r)) {
    mark_refuted(
        "Remark 3 refuted: the tail-vs-all error gap shrinks with the noise (Student t interval "
        "of its slope wholly below 0) while Thm 3's directions hold: in the spiked construction "
        "the L-tail of the clean model's memorised direction is dominated by each class's own "
        "spike coordinate, so tail points are MORE class-typical and stay easier under DP",
        r);
  } else if (r.verdict == verdict::holds) {
    r.verdict = verdict::inconclusive;
    r.verdict_reason = "Thm 3's directions hold; Remark 3's gap claim is not resolved here";
  }
  std::vector<double> gap_mean, all_mean, tail_mean;
  for (std::size_t j = 0; j < J; ++j) {
    all_mean.push_back(res.observables[2 * j].stats.mean());
    tail_mean.push_back(res.observables[2 * j + 1].stats.mean());
    gap_mean.push_back(tail_mean.back() - all_mean.back());
    r.notes.push_back("z = " + sig(mults[j]) + " (C = 1): test error all " +
                      sig(all_mean.back(), 3) + ", tail " + sig(tail_mean.back(), 3));
  }
  r.notes.push_back("clean: test error all " + sig(res.observables[base].stats.mean(), 3) +
                    ", tail " + sig(res.observables[base + 1].stats.mean(), 3) +
                    " (tail frequency 1 - Phi(1.5) = " + sig(learners::tail_frequency(L), 3) + ")");
  for (std::size_t j = 0; j < clips.size(); ++j)
    report_only("test error at C = " + sig(clips[j]) + ", calibrated z = " + sig(z_cal, 4),
                col(base + 7 + j), zq, r);
  r.notes.push_back(
      "Thm 3 predicts weak, decreasing dependence on C at calibrated noise (Remark 4's "
      "calibration); the bounds hold up to constants under Condition 1, which "
      "this configuration violates (docs/longtail.md)" +
      std::string(full
                      ? ""
                      : ". Quick tier: the test error at C = 0.3, 1, 3 at the calibrated z is "
                        "reported by zxd26-remark4-calibrated (part (c), fixed eta): the same runs"));
  r.parameters = config_json(g, z_cal);
  r.parameters["tail_L"] = L;
  r.parameters["tail_direction"] = "aggregate sum_r w_{k,r} of the clean model";
  r.parameters["noise_multipliers"] = mults;
  r.parameters["imbalanced_counts"] = gi.counts;
  r.parameters["clips_at_calibrated_noise"] = clips;
  r.parameters["replicates"] = R;
  r.replicates = R;
  r.figure.title = "Test error: all vs long-tailed points, against the noise multiplier";
  r.figure.x_label = "noise multiplier z (C = 1)";
  r.figure.y_label = "test error (95 % intervals)";
  series all_points = make_series("all test points", {}, {}, "lines"),
         tail_points = make_series("tail (L = 1.5)", {}, {}, "lines");
  for (std::size_t j = 0; j < J; ++j) {
    push_mean(all_points, mults[j], res.observables[2 * j].stats);
    push_mean(tail_points, mults[j], res.observables[2 * j + 1].stats);
  }
  r.figure.data.push_back(std::move(all_points));
  r.figure.data.push_back(std::move(tail_points));
  return r;
}

// ---- zxd26-fig-synthetic
// -----------------------------------------------------------------------------

scenario_result fig_synthetic(const scenario_context& c) {
  const lt_config g = config_for(c);
  const double z_cal = calibrated_multiplier(g);
  const double sn = learners::noise_std_for(z_cal, g.clip, g.batch);
  const std::vector<double> signals = {0.1, 3.0};
  const std::vector<double> ncrs = {5, g.ncr};
  // quick: 8 replicates resolve both audited orderings at >= 1.6x their intervals (12 gave
  // >= 2x at seeds 2026, 1, 7); a DP suppression of memorisation, or a DP accuracy loss at
  // ||u|| = 0.1, under ~2/3 of the measured one is not resolved.
  const std::uint64_t R = replicates_for(c, 8, 12);
  std::vector<sim::observable> obs;
  obs.push_back({"mem growth clean", true});
  obs.push_back({"mem growth dp", true});
  obs.push_back({"sig clean", true});
  obs.push_back({"sig dp", true});
  obs.push_back({"mem growth clip only", true});
  obs.push_back({"acc clip only low u high ncr", true});
  for (std::size_t a = 0; a < signals.size(); ++a)
    for (std::size_t b = 0; b < ncrs.size(); ++b) {
      obs.push_back({"acc clean " + std::to_string(a) + std::to_string(b), true});
      obs.push_back({"acc dp " + std::to_string(a) + std::to_string(b), true});
    }
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        const sim::random_key key{c.seed, rep, 10};
        {  // Fig 3: ‖u‖ = 0.5, NCR = the tier's high NCR.
          const lt_problem p = make_problem(g, c.seed, rep, g.signal, g.ncr);
          learners::longtail_training tc = training_of(g, 0, 0), td = training_of(g, g.clip, sn);
          tc.record_every = td.record_every = 1000000;
          // rc and rk are zxd26-thm1-memorisation's runs too (train_shared).
          const std::shared_ptr<const learners::longtail_run> rc_run = train_shared(p, tc, key);
          const learners::longtail_run& rc = *rc_run;
          const learners::longtail_run rd = learners::train_longtail(*p.net, td, p.w0, key);
          learners::longtail_training tk = training_of(g, g.clip, 0);  // clipping without noise
          tk.record_every = 1000000;
          const std::shared_ptr<const learners::longtail_run> rk_run = train_shared(p, tk, key);
          const learners::longtail_run& rk = *rk_run;
          out[4] = rk.records.back().memorisation - rk.records.front().memorisation;
          out[0] = rc.records.back().memorisation - rc.records.front().memorisation;
          out[1] = rd.records.back().memorisation - rd.records.front().memorisation;
          out[2] = rc.records.back().signal_learning - rc.records.front().signal_learning;
          out[3] = rd.records.back().signal_learning - rd.records.front().signal_learning;
        }
        std::size_t j = 6;
        for (double u : signals)
          for (double ncr : ncrs) {  // Fig 1 grid
            const lt_problem p = make_problem(g, c.seed, rep, u, ncr);
            const learners::longtail_run rc =
                learners::train_longtail(*p.net, training_of(g, 0, 0, kFirstAndLast), p.w0, key);
            const learners::longtail_run rd =
                learners::train_longtail(*p.net, training_of(g, g.clip, sn, kFirstAndLast), p.w0, key);
            if (j == 6 + 2 * (ncrs.size() - 1)) {  // ||u|| low, NCR high: clipping alone
              const learners::longtail_run rk =
                  learners::train_longtail(*p.net, training_of(g, g.clip, 0, kFirstAndLast), p.w0, key);
              out[5] = 1 - learners::test_errors(*p.net, rk.weights, p.test).overall();
            }
            out[j++] = 1 - learners::test_errors(*p.net, rc.weights, p.test).overall();
            out[j++] = 1 - learners::test_errors(*p.net, rd.weights, p.test).overall();
          }
      },
      mc_options(c, R, "zxd26-fig-synthetic"));
  auto col = [&](std::size_t j) -> const std::vector<double>& {
    return res.observables[j].samples;
  };
  scenario_result r;
  r.id = "zxd26-fig-synthetic";
  r.title = "ZXD+26 Figs 1/3: DP suppresses memorisation and fails at low signal, any NCR";
  r.source = "ZXD+26 Sec 5.1-5.2, Figs 1 and 3";
  const double conf = 1 - 0.05 / 2, zq = normal_quantile(conf);
  r.claim =
      "(Fig 3) memorisation growth <w,xi>_T - <w,xi>_0 is larger under clean training than under "
      "DP-SGD at (eps, delta) = (8, 1e-5); (Fig 1) at low feature strength ||u|| = 0.1 and high "
      "NCR, where clean training succeeds by memorisation, the DP test accuracy is below the "
      "clean accuracy (DP degrades 'regardless of NCR'); paired, Bonferroni over 2";
  tally t;
  audit_positive("memorisation growth: clean - DP", diff(col(0), col(1)), zq, c.self_check, t, r);
  // Only the high-NCR cell is audited: at ||u|| = 0.1 and low NCR the clean model is itself at
  // chance, so "DP degrades" has nothing to degrade (reported below).
  audit_positive("accuracy clean - DP at ||u|| = 0.1, NCR = " + sig(ncrs.back()),
                 diff(col(6 + 2 * (ncrs.size() - 1)), col(7 + 2 * (ncrs.size() - 1))), zq, c.self_check, t, r);
  finish(t, conf, c.self_check, r);
  r.notes.push_back("Fig 3 (||u|| = " + sig(g.signal) + ", NCR = " + sig(g.ncr) +
                    "): memorisation growth clean " + sig(res.observables[0].stats.mean(), 4) +
                    ", DP " + sig(res.observables[1].stats.mean(), 4) +
                    "; signal-learning growth clean " + sig(res.observables[2].stats.mean(), 4) +
                    ", DP " + sig(res.observables[3].stats.mean(), 4) +
                    "; clipping alone (C = 1, no noise): memorisation growth " +
                    sig(res.observables[4].stats.mean(), 4) +
                    " -- at the paper's eta = 0.002 the suppression comes from clipping "
                    "(h << 1), the noise adds almost nothing");
  r.notes.push_back("Fig 1 cell ||u|| = 0.1, NCR = " + sig(ncrs.back()) +
                    ": accuracy with clipping alone " + sig(res.observables[5].stats.mean(), 3));
  std::size_t j = 6;
  std::vector<double> xs, clean_acc, dp_acc;
  series clean_points = make_series("clean", {}, {}, "points"),
         dp_points = make_series("DP (ε = 8)", {}, {}, "points");
  for (double u : signals)
    for (double ncr : ncrs) {
      const double ac = res.observables[j].stats.mean(), ad = res.observables[j + 1].stats.mean();
      push_mean(clean_points, static_cast<double>(xs.size() + 1), res.observables[j].stats);
      push_mean(dp_points, static_cast<double>(xs.size() + 1), res.observables[j + 1].stats);
      r.figure.x_categories.push_back("‖u‖ = " + sig(u) + ", NCR = " + sig(ncr));
      r.notes.push_back("Fig 1 cell ||u|| = " + sig(u) + ", NCR = " + sig(ncr) +
                        ": accuracy clean " + sig(ac, 3) + ", DP " + sig(ad, 3));
      xs.push_back(static_cast<double>(xs.size()));
      clean_acc.push_back(ac);
      dp_acc.push_back(ad);
      j += 2;
    }
  // Cells: 0 (low u, low NCR), 1 (low u, high NCR), 2 (high u, low NCR), 3 (high u, high NCR).
  const bool rescue = clean_acc[1] > clean_acc[0] + 0.2;
  const bool dp_ok_high_u =
      dp_acc[3] > clean_acc[3] - 0.05 && dp_acc[2] > clean_acc[2] - 0.05 && clean_acc[2] > 0.9;
  r.notes.push_back(
      std::string("Fig 1 claim (ii), high NCR rescues ||u|| ~ 0 without DP: ") +
      (rescue ? "reproduced" : "NOT reproduced") + " (clean " + sig(clean_acc[0], 3) + " -> " +
      sig(clean_acc[1], 3) + "); claim (iii), DP near-optimal at large ||u||: " +
      (dp_ok_high_u ? "reproduced" : "NOT reproduced") +
      " -- with the paper's eta = 0.002 and T = ceil(20n/B) steps the signal coordinate barely "
      "moves (signal-learning growth above), so ||u|| = 3 alone does not give high clean "
      "accuracy at low NCR, and DP (clipping, h << 1) stays far below clean. Reported, not "
      "audited. The paper's NCR axis 'from 0' is unattainable in the spiked construction (NCR "
      ">= 1)");
  r.parameters = config_json(g, z_cal);
  r.parameters["sigma_n"] = sn;
  r.parameters["fig1_signal_norms"] = signals;
  r.parameters["fig1_ncrs"] = ncrs;
  r.parameters["replicates"] = R;
  r.replicates = R;
  r.figure.title = "Fig 1 cells: test accuracy by signal norm ‖u‖ and noise correlation ratio";
  r.figure.x_label = "cell";
  r.figure.y_label = "test accuracy (95 % intervals)";
  r.figure.data.push_back(std::move(clean_points));
  r.figure.data.push_back(std::move(dp_points));
  return r;
}

}  // namespace

void register_longtail_scenarios(std::vector<scenario>& out) {
  out.push_back({"zxd26-lemma9-false",
                 "ZXD+26 Lemma 9: the printed binomial bound is false; Hoeffding holds", lemma9,
                 0.5});
  out.push_back({"zxd26-thm1-memorisation",
                 "ZXD+26 Thm 1: memorisation drift vs clipping; exact DP-noise part", thm1, 0.5});
  out.push_back({"zxd26-thm2-loss-floor", "ZXD+26 Thm 2: DP training-loss floor rises with sigma_n",
                 thm2, 0.5});
  out.push_back({"zxd26-thm3-tail-gap",
                 "ZXD+26 Thm 3: tail-vs-all error gap grows with noise; rare classes lose more",
                 thm3, 0.5});
  out.push_back({"zxd26-fig-synthetic",
                 "ZXD+26 Figs 1/3: DP suppresses memorisation, fails at low signal",
                 fig_synthetic, 0.5});
}

}  // namespace dpkit::validation
