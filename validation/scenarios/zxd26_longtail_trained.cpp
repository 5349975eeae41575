// ZXD+26: the lemmas along training (Lemmas 21, 23, 24) behind Theorems 1–3, checked on the data
// of Definition 1 and the two-layer ReLU CNN of eq. (1) (dpkit::sim longtail simulator); the
// lemmas at initialisation (Lemmas 16–19): zxd26_longtail_lemmas.cpp.
//
//  * zxd26-lemma21-dynamics    [trend + exact count] activation sets S_i^(t) only grow along clean
//                            training (Lemma 21) in a configuration close to Condition 1; DP and
//                            the paper's configuration reported; κ measured.
//  * zxd26-lemma23-24-trained  [scaling + count] after T clean steps max⟨w_{y,r}, ξ⟩ and
//                            ‖(W_j)ᵀA_j‖_2 grow at most like log T (Lemma 23); a fresh ξ ~ A_jζ
//                            activates ≥ 0.1m class-j neurons (Lemma 24).
//
// Everything is computed in the U basis of learners/longtail.hpp (exact: A_k = U diag(a_k)Uᵀ, so
// A_kᵀw = a_k ∘ w and ⟨w, u_k⟩ = ‖u_k‖w[k]). Activation patterns and alignments come from the
// public network API (noise_alignments, output_matrix); the per-step trajectory from
// run_noisy_gradient with the options train_longtail uses (to_noisy_gradient_options).
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
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
#include "dpkit/risk/longtail_bounds.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/learners/longtail.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "dpkit/sim/statistics.hpp"
#include "zxd26_longtail_lemmas_common.hpp"

namespace dpkit::validation {
namespace {

using longtail_lemmas_detail::ledger;

// ---- zxd26-lemma21-dynamics
// ------------------------------------------------------------------------

// The noise multiplier the PLD accountant certifies for (ε, δ) = (8, 1e-5) for this run (as
// zxd26_longtail.cpp).
double calibrated_multiplier(const learners::longtail_training& t, std::size_t n) {
  return accounting::calibrate_noise_multiplier(learners::accounting_request(t, n).run(1), 8, 1e-5)
      .noise_multiplier;
}

// What one tracked run measures. Margins are ⟨w_{y_i,r}^{(t)}, ξ_i⟩ (the own-class rows of
// noise_alignments); S_i^(t) = {r : margin > 0} (ZXD+26 eq. (76)).
struct dynamics {
  double leaves = 0;   ///< #(i, r, t): r ∈ S_i^(t), r ∉ S_i^(t+1)   (Lemma 21 says 0)
  double joins = 0;    ///< #(i, r, t): r ∉ S_i^(t), r ∈ S_i^(t+1)
  double kappa = 1;    ///< max_t max_{i,j} (1 − p_{y_i}(x_i))/(1 − p_{y_j}(x_j))
  double loss0 = 0, lossT = 0;
};

dynamics track(const learners::longtail_network& net,
               const learners::longtail_training& t,
               const sim::vector& w0,
               const sim::random_key& key) {
  const learners::longtail_data& data = net.data();
  const std::size_t n = data.size(), K = net.classes(), m = net.width();
  const auto M = static_cast<Eigen::Index>(m);
  dynamics out;
  Eigen::MatrixXd prev(M, static_cast<Eigen::Index>(n));
  // The same trajectory as train_longtail (it runs run_noisy_gradient with these options);
  // the observer sees every iterate W^(0), ..., W^(T).
  sim::run_noisy_gradient(
      net, learners::to_noisy_gradient_options(t, n), w0, key, [&](long step, const sim::vector& w) {
        const Eigen::MatrixXd al = net.noise_alignments(w, data);
        Eigen::MatrixXd own(M, static_cast<Eigen::Index>(n));
        for (std::size_t i = 0; i < n; ++i)
          own.col(static_cast<Eigen::Index>(i)) =
              al.col(static_cast<Eigen::Index>(i)).segment(data.labels[i] * M, M);
        if (step > 0)
          for (Eigen::Index i = 0; i < own.cols(); ++i)
            for (Eigen::Index r = 0; r < M; ++r) {
              const double a = prev(r, i), b = own(r, i);
              if (a > 0 && b <= 0) out.leaves += 1;
              if (a <= 0 && b > 0) out.joins += 1;
            }
        prev = own;
        // 1 − p_{y_i} from the outputs (log-sum-exp), κ over pairs at this step.
        const Eigen::MatrixXd f = net.output_matrix(w, data);
        double lo = INFINITY, hi = 0, loss = 0;
        for (std::size_t i = 0; i < n; ++i) {
          const auto c = f.col(static_cast<Eigen::Index>(i));
          const double mx = c.maxCoeff();
          const double lse = mx + std::log((c.array() - mx).exp().sum());
          const double lp = c(data.labels[i]) - lse;  // log p_y
          const double q = -std::expm1(lp);           // 1 − p_y
          lo = std::min(lo, q);
          hi = std::max(hi, q);
          loss -= lp / static_cast<double>(n);
        }
        out.kappa = std::max(out.kappa, hi / lo);
        if (step == 0) out.loss0 = loss;
        out.lossT = loss;
      });
  (void)K;
  return out;
}

struct dyn_config {
  std::string name;
  std::size_t K = 3, d = 150, m = 20, per_class = 50;
  double ncr = 200, eta = 0.002, epochs = 20, clip = 1;
  std::size_t batch = 64;
  bool full_batch = false;
  learners::initialisation init;
  std::size_t n() const { return K * per_class; }
  learners::longtail_training training(double clip_c, double noise) const {
    learners::longtail_training t;
    t.eta = eta;
    t.batches = full_batch ? sim::batch_rule::full : sim::batch_rule::shuffled;
    t.batch_size = full_batch ? n() : batch;
    t.epochs = epochs;
    t.clip = clip_c;
    t.noise_std = noise;
    return t;
  }
};

std::vector<dyn_config> dynamics_configs(const scenario_context& c) {
  // A: as close to Condition 1 as runs in seconds (Condition 1): m >= 10n (Cond 1(b)'s
  // min{m, d, rank} − 0.9m >= Cn with C = 1), d >= m + K, full batch (B >= c2 n), Gaussian
  // initialisation with small σ₀, moderate NCR (self-dominance of (a)'s third line), small η.
  dyn_config a;
  a.name = "near-Condition-1";
  a.K = 3;
  a.per_class = 3;
  a.m = 100;
  a.d = 300;
  a.ncr = 2;
  a.eta = 0.05;
  a.epochs = 300;  // full batch: T = 300 steps
  a.full_batch = true;
  a.init.type = learners::initialisation::kind::gaussian;
  a.init.sigma0 = 0.01;
  // B: the paper's configuration (quick: zxd26_longtail.cpp's scaled-down version).
  dyn_config b;
  b.name = "paper";
  b.init.type = learners::initialisation::kind::pytorch_uniform;
  if (c.tier == tier::full) {
    b.K = 5;
    b.d = 1000;
    b.m = 100;
    b.per_class = 100;
    b.batch = 256;
    b.ncr = 1400;
  }
  return {a, b};
}

scenario_result lemma21(const scenario_context& c) {
  const std::vector<dyn_config> cfgs = dynamics_configs(c);
  // quick: 2 replicates: the exact count covers every (i, r, t) of 2 clean near-Condition-1 runs
  // (5.4e5; 3 gave 8.1e5), so a failure that occurs only on a minority of data sets can be
  // missed; the DP and paper-configuration rates and kappa are reported from 2 runs each.
  const std::uint64_t R = replicates_for(c, 2, 4);
  std::vector<double> zs, sigmas;
  for (const dyn_config& g : cfgs) {
    zs.push_back(calibrated_multiplier(g.training(g.clip, 0), g.n()));
    sigmas.push_back(learners::noise_std_for(zs.back(), g.clip, g.full_batch ? g.n() : g.batch));
  }
  const std::size_t per_run = 5;
  std::vector<sim::observable> obs;
  for (std::size_t k = 0; k < 2 * cfgs.size(); ++k)
    for (const char* q : {"leaves", "joins", "kappa", "loss0", "lossT"})
      obs.push_back({std::string(q) + " " + std::to_string(k), true});
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        for (std::size_t k = 0; k < cfgs.size(); ++k) {
          const dyn_config& g = cfgs[k];
          learners::longtail_data_options o;
          o.classes = g.K;
          o.dimension = g.d;
          o.signal_norm = 0.5;
          o.spike = learners::spike_for_ncr(g.K, g.d, 0.5, g.ncr);
          random_stream ds(c.seed, rep, 60 + 10 * k), is(c.seed, rep, 61 + 10 * k);
          const auto data = std::make_shared<const learners::longtail_data>(
              learners::generate_longtail_data(o, std::vector<std::size_t>(g.K, g.per_class), ds));
          const learners::longtail_network net(data, g.m);
          const sim::vector w0 = learners::longtail_initial_weights(g.K, g.m, g.d, g.init, is);
          const sim::random_key key{c.seed, rep, 62 + 10 * k};
          for (std::size_t dp = 0; dp < 2; ++dp) {
            const dynamics s =
                track(net, dp ? g.training(g.clip, sigmas[k]) : g.training(0, 0), w0, key);
            double* o6 = &out[(2 * k + dp) * per_run];
            o6[0] = s.leaves;
            o6[1] = s.joins;
            o6[2] = s.kappa;
            o6[3] = s.loss0;
            o6[4] = s.lossT;
          }
        }
      },
      mc_options(c, R, "zxd26-lemma21-dynamics"));
  auto total = [&](std::size_t run, std::size_t q) {
    double s = 0;
    for (double v : res.observables[run * per_run + q].samples) s += v;
    return s;
  };
  auto maxof = [&](std::size_t run, std::size_t q) {
    return res.observables[run * per_run + q].stats.max();
  };
  scenario_result r;
  r.id = "zxd26-lemma21-dynamics";
  r.title = "ZXD+26 Lemma 21: activation sets only grow; the loss-ratio constant kappa";
  r.source = "ZXD+26 App D Lemma 21";
  r.claim =
      "Lemma 21: S_i^(t) = {r : <w_{y_i,r}^(t), xi_i> > 0} satisfies S_i^(t) subset of "
      "S_i^(t+1) at every step of clean training (exact count over all (i, r, t) and "
      "replicates) in a configuration close to Condition 1; DP training and the paper's "
      "configuration are reported; kappa = max_t max_{i,j} (1 - p_{y_i})/(1 - p_{y_j}) measured";
  // Verdict: exact count (no sampling interval: the claim is for every step of these runs).
  // The self-check audits the over-reading "activation sets never shrink under DP training
  // either" by the same exact count on the DP runs of the same configuration (run 1).
  const char* audited_mode = c.self_check ? "DP" : "clean";
  const double audited = total(c.self_check ? 1 : 0, 0);
  const bool ok = audited == 0;
  r.verdict = ok ? verdict::holds : verdict::violated;
  r.verdict_reason =
      ok ? "no neuron left an activation set in " + std::to_string(R) + " " + audited_mode +
               " runs of the near-Condition-1 configuration"
         : sig(audited, 6) + " (i, r, t) with r in S_i^(t) and r not in S_i^(t+1) in the " +
               "near-Condition-1 " + audited_mode + " runs";
  r.quantity = std::string("neurons leaving S_i, near-Condition-1 ") + audited_mode +
               " runs (all i, r, t)";
  r.bound = 0;
  r.estimate = r.estimate_lo = r.estimate_hi = audited;
  r.confidence = 1;
  r.tightness = std::nan("");
  if (c.self_check)
    r.notes.push_back(
        "self-check: audits the wrong claim 'activation sets never shrink under DP training "
        "either' (Lemma 21 read beyond clean training) with the same exact count");
  const char* mode[] = {"clean", "DP"};
  for (std::size_t k = 0; k < cfgs.size(); ++k) {
    const dyn_config& g = cfgs[k];
    const long T = learners::training_steps(g.training(0, 0), g.n());
    for (std::size_t dp = 0; dp < 2; ++dp) {
      const std::size_t run = 2 * k + dp;
      const double opp =
          static_cast<double>(R) * static_cast<double>(T) * static_cast<double>(g.n() * g.m);
      r.notes.push_back(
          g.name + " (K = " + std::to_string(g.K) + ", d = " + std::to_string(g.d) +
          ", n = " + std::to_string(g.n()) + ", m = " + std::to_string(g.m) +
          ", NCR = " + sig(g.ncr) + ", eta = " + sig(g.eta) + ", T = " + std::to_string(T) + ", " +
          (g.full_batch ? "full batch" : "B = " + std::to_string(g.batch)) + ", " + mode[dp] +
          (dp ? " C = " + sig(g.clip) + ", z = " + sig(zs[k], 4) +
                    ", sigma_n = " + sig(sigmas[k], 3)
              : std::string()) +
          "): neurons leaving S_i: " + sig(total(run, 0), 8) + " of " + sig(opp, 4) +
          " (i, r, t) (" + sig(total(run, 0) / opp, 3) + "), joining: " + sig(total(run, 1), 8) +
          "; kappa max " + sig(maxof(run, 2), 4) + " (mean " +
          sig(res.observables[run * per_run + 2].stats.mean(), 4) + "); loss " +
          sig(res.observables[run * per_run + 3].stats.mean(), 4) + " -> " +
          sig(res.observables[run * per_run + 4].stats.mean(), 4));
    }
  }
  r.notes.push_back(
      "Lemma 21's lower bound on kappa, Theta(max{Tr(A_j'A_j)/Tr(A_i'A_i), ||u_j||^2/||u_i||^2}), "
      "is Theta(1) here (equal spectra up to permutation, equal signal norms): the measured "
      "kappa is the constant the proof needs; the lemma's 'kappa > 1 constant' is not a "
      "number to audit");
  {
    const dyn_config& g = cfgs[0];
    const risk::longtail_problem prob =
        risk::spiked_problem(g.K, g.d, 0.5, 0.5, learners::spike_for_ncr(g.K, g.d, 0.5, g.ncr),
                             std::vector<double>(g.K, static_cast<double>(g.per_class)));
    risk::longtail_setting s;
    s.width = static_cast<double>(g.m);
    s.eta = g.eta;
    s.batch_size = static_cast<double>(g.n());
    s.steps = static_cast<double>(learners::training_steps(g.training(0, 0), g.n()));
    s.clip = g.clip;
    s.noise_std = 0;
    s.sigma0 = g.init.sigma0;
    std::vector<std::string> fails;  // distinct inequalities (names without the class pair)
    int nf = 0, nt = 0;
    for (const risk::condition& q : risk::condition1(prob, s)) {
      ++nt;
      if (q.holds) continue;
      ++nf;
      const std::string base = q.name.substr(0, q.name.rfind(" ("));
      if (std::find(fails.begin(), fails.end(), base) == fails.end()) fails.push_back(base);
    }
    std::string failing;
    for (const std::string& f : fails) failing += (failing.empty() ? "" : "; ") + f;
    r.notes.push_back(
        "Condition 1 at the near-Condition-1 configuration (c1 = 1, c2 = 0.5, C = "
        "1, clip 1, sigma_n = 0): " +
        std::to_string(nt - nf) + " of " + std::to_string(nt) +
        " inequalities hold; failing: " + (nf ? failing : "none") +
        ". A configuration meeting (a)'s first line needs d of order (n "
        "log(n^2/delta))^2, beyond a seconds-long run");
  }
  r.notes.push_back(
      "the paper's configuration uses shuffled batches (B < n): an example outside the batch "
      "only receives other examples' cross terms, so its margins can fall; Lemma 21's proof "
      "uses full-batch sums (B >= c2 n is read as every example contributing). Reported, not "
      "audited; DP noise moves every margin by eta sigma_n ||xi|| per step and breaks "
      "monotonicity, as expected");
  r.parameters = nlohmann::json::object();
  for (std::size_t k = 0; k < cfgs.size(); ++k) {
    const dyn_config& g = cfgs[k];
    r.parameters[g.name] = {{"K", g.K},
                            {"d", g.d},
                            {"m", g.m},
                            {"per_class", g.per_class},
                            {"ncr", g.ncr},
                            {"eta", g.eta},
                            {"steps", learners::training_steps(g.training(0, 0), g.n())},
                            {"batches", g.full_batch ? "full" : "shuffled"},
                            {"batch", g.full_batch ? g.n() : g.batch},
                            {"clip_dp", g.clip},
                            {"noise_multiplier_dp", zs[k]},
                            {"sigma_n_dp", sigmas[k]},
                            {"init", g.init.type == learners::initialisation::kind::gaussian
                                         ? "gaussian sigma0 = " + sig(g.init.sigma0)
                                         : std::string("pytorch uniform, Haar-rotated")}};
  }
  r.parameters["replicates"] = R;
  r.parameters["dp_budget"] = "(8, 1e-5), PLD accountant, sampling without replacement";
  r.replicates = R;
  r.figure.title = "Neurons leaving S_i per (i, r, t) opportunity";
  r.figure.x_label = "run (0 A clean, 1 A DP, 2 paper clean, 3 paper DP)";
  r.figure.y_label = "leaves / (n m T)";
  series sl = make_series("leave rate", {}, {}, "points");
  for (std::size_t k = 0; k < 2 * cfgs.size(); ++k) {
    const dyn_config& g = cfgs[k / 2];
    const double opp = static_cast<double>(R) *
                       static_cast<double>(learners::training_steps(g.training(0, 0), g.n())) *
                       static_cast<double>(g.n() * g.m);
    sl.x.push_back(static_cast<double>(k));
    sl.y.push_back(total(k, 0) / opp);
  }
  r.figure.data.push_back(sl);
  return r;
}

// ---- zxd26-lemma23-24-trained
// ----------------------------------------------------------------------

// After T clean steps: M_ξ(T) = max_{i, r} ⟨w_{y_i,r}^{(T)}, ξ_i⟩ over the training set, and
// M_A(T) = max_j ‖(W_j^{(T)})ᵀA_j‖_2 (operator norm of the m × d matrix with rows
// (a_j ∘ w_{j,r})ᵀ, U basis) and its Frobenius norm.
struct trained_norms {
  double xi = 0, op = 0, fro = 0;
};

trained_norms measure_norms(const learners::longtail_network& net, const sim::vector& w) {
  const learners::longtail_data& data = net.data();
  const std::size_t K = net.classes(), m = net.width(), d = net.input_dimension();
  const auto M = static_cast<Eigen::Index>(m);
  trained_norms out;
  out.xi = -INFINITY;
  const Eigen::MatrixXd al = net.noise_alignments(w, data);
  for (std::size_t i = 0; i < data.size(); ++i)
    out.xi = std::max(
        out.xi, al.col(static_cast<Eigen::Index>(i)).segment(data.labels[i] * M, M).maxCoeff());
  for (std::size_t j = 0; j < K; ++j) {
    Eigen::MatrixXd P(M, static_cast<Eigen::Index>(d));
    for (std::size_t r = 0; r < m; ++r)
      P.row(static_cast<Eigen::Index>(r)) =
          (learners::longtail_network::filter(w, j, r, m, d).array() *
           data.spectra.row(static_cast<Eigen::Index>(j)).transpose().array())
              .transpose();
    const Eigen::MatrixXd gram = P * P.transpose();
    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(gram, Eigen::EigenvaluesOnly);
    out.op = std::max(out.op, std::sqrt(std::max(0.0, es.eigenvalues().maxCoeff())));
    out.fro = std::max(out.fro, P.norm());
  }
  return out;
}

scenario_result lemma23_24(const scenario_context& c) {
  // Clean training (no clipping, no noise) in lemma21's two configurations: the
  // near-Condition-1 one (audited: full batch, Gaussian σ₀ = 0.01, NCR = 2) and the paper's
  // (reported: its spiked spectra break Lemma 16, so Lemma 23's proof does not apply), both at
  // a step size where the loss reaches its small-loss regime within the grid (at the paper's
  // η = 0.002 and 20 epochs it does not start); the paper's at Gaussian σ₀ = 0.01, η = 0.2.
  std::vector<dyn_config> cfgs = dynamics_configs(c);
  // η = 2 (near-Condition-1): the clean dynamics depend on ηT almost only (measured: η = 0.5
  // at T = 800 gives the values η = 2 gives at T = 200), so T <= 800 at η = 2 stands for T <=
  // 32000 at Condition 1(c)'s η ~ 0.05; at η = 0.5 the grid ends before the small-loss regime.
  cfgs[0].eta = 2;
  cfgs[1].eta = 0.2;
  cfgs[1].init.type = learners::initialisation::kind::gaussian;
  cfgs[1].init.sigma0 = 0.01;
  // The paper's configuration is reported, not audited: full tier only (in the quick tier it was
  // half the cost; the audited configuration's runs have their own streams and are unchanged).
  const bool paper_config = c.tier == tier::full;
  if (!paper_config) cfgs.resize(1);
  const long T0 = 25;
  const std::size_t J = 6;  // T = 25, 50, ..., 800
  std::vector<double> Ts;
  for (std::size_t j = 0; j < J; ++j) Ts.push_back(static_cast<double>(T0 << j));
  const std::size_t fresh = 50;  // fresh points per class (Lemma 24)
  // quick: 4 replicates (3 degrees of freedom, Student t) put the growth exponents of the
  // increments within ~+-0.1-0.2, their upper ends below the 0.25 tolerance, and Lemma 24 on 12
  // fresh points (refuted only if failures are frequent); a power-law growth with exponent under
  // ~0.35 is not resolved.
  const std::uint64_t R = replicates_for(c, 4, 6);
  const std::size_t NQ = 3 * J + 4;  // per configuration
  std::vector<sim::observable> obs;
  for (std::size_t k = 0; k < cfgs.size(); ++k) {
    for (const char* q : {"xi", "op", "fro"})
      for (std::size_t j = 0; j < J; ++j)
        obs.push_back({std::string(q) + " " + std::to_string(k) + "/" + std::to_string(j), true});
    obs.push_back({"L24 failures (one per class) " + std::to_string(k), true});
    obs.push_back({"L24 failure fraction (all fresh) " + std::to_string(k), true});
    obs.push_back({"L24 min active fraction " + std::to_string(k), true});
    obs.push_back({"loss T " + std::to_string(k), true});
  }
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> all) {
        for (std::size_t k = 0; k < cfgs.size(); ++k) {
          const dyn_config& g = cfgs[k];
          std::span<double> out = all.subspan(k * NQ, NQ);
          const std::size_t m = g.m;
          const double need = 0.1 * static_cast<double>(m);
          learners::longtail_data_options o;
          o.classes = g.K;
          o.dimension = g.d;
          o.signal_norm = 0.5;
          o.spike = learners::spike_for_ncr(g.K, g.d, 0.5, g.ncr);
          random_stream ds(c.seed, rep, 80 + 10 * k), ts(c.seed, rep, 81 + 10 * k),
              is(c.seed, rep, 82 + 10 * k);
          const auto data = std::make_shared<const learners::longtail_data>(
              learners::generate_longtail_data(o, std::vector<std::size_t>(g.K, g.per_class), ds));
          const learners::longtail_data test =
              learners::generate_longtail_data(o, std::vector<std::size_t>(g.K, fresh), ts);
          const learners::longtail_network net(data, m);
          const sim::vector w0 = learners::longtail_initial_weights(g.K, m, g.d, g.init, is);
          learners::longtail_training t = g.training(0, 0);
          t.steps = static_cast<long>(Ts.back());
          std::size_t j = 0;
          sim::vector wT;
          sim::run_noisy_gradient(net, learners::to_noisy_gradient_options(t, g.n()), w0,
                                  sim::random_key{c.seed, rep, 83 + 10 * k},
                                  [&](long step, const sim::vector& w) {
                                    if (j < J && static_cast<double>(step) == Ts[j]) {
                                      const trained_norms tn = measure_norms(net, w);
                                      out[j] = tn.xi;
                                      out[J + j] = tn.op;
                                      out[2 * J + j] = tn.fro;
                                      ++j;
                                    }
                                    if (static_cast<double>(step) == Ts.back()) wT = w;
                                  });
          // Lemma 24: class-j neurons activated by a fresh ξ ~ A_jζ, at W^(T_max).
          const Eigen::MatrixXd al = net.noise_alignments(wT, test);
          const auto M = static_cast<Eigen::Index>(m);
          double first = 0, fails = 0, min_frac = 1;
          for (std::size_t i = 0; i < test.size(); ++i) {
            const auto y = static_cast<Eigen::Index>(test.labels[i]);
            const double active = static_cast<double>(
                (al.col(static_cast<Eigen::Index>(i)).segment(y * M, M).array() > 0).count());
            const bool fail = active < need;
            fails += fail ? 1 : 0;
            if (i % fresh == 0 && fail) first += 1;  // the first fresh point of each class
            min_frac = std::min(min_frac, active / static_cast<double>(m));
          }
          out[3 * J] = first;
          out[3 * J + 1] = fails / static_cast<double>(test.size());
          out[3 * J + 2] = min_frac;
          out[3 * J + 3] = net.empirical_risk(wT);
        }
      },
      mc_options(c, R, "zxd26-lemma23-24-trained"));
  auto col = [&](std::size_t k) -> const std::vector<double>& {
    return res.observables[k].samples;
  };
  scenario_result r;
  r.id = "zxd26-lemma23-24-trained";
  r.title =
      "ZXD+26 Lemmas 23-24: trained alignments grow like log T; fresh noise activates >= 0.1m "
      "neurons";
  r.source = "ZXD+26 App D Lemmas 23, 24";
  const double tau = 0.25;  // tolerance on the increments' growth exponent
  const int n_checks = 3;
  const double conf = 1 - 0.05 / n_checks, zq = normal_quantile(conf);
  // The growth exponents' standard errors rest on R replicates: Student t with R - 1 degrees of
  // freedom (4.86 at R = 4 for the Bonferroni level, against the normal 2.39).
  const double tq = t_multiplier(zq, R);
  r.claim =
      "in the near-Condition-1 configuration under clean training: Lemma 23, max_{i,r} "
      "<w_{y_i,r}^(T), xi_i> and max_j ||(W_j^(T))'A_j||_2 grow at most like log T (and sqrt(m) "
      "log T): over T = 25 * 2^j the increments M(2T) - M(T) must not grow like a power of T "
      "(log-log slope of the mean increments; refuted when its interval lies above " +
      sig(tau) +
      ", as predicted when below or when the increments stop being positive); Lemma 24: a "
      "fresh xi ~ A_j zeta activates >= 0.1m class-j neurons w.h.p. (delta unspecified: refuted "
      "only when failures are frequent, Clopper-Pearson lower limit > 1/2). The paper's "
      "configuration is reported (full tier)";
  ledger L;
  std::vector<double> first_slope;
  for (std::size_t k = 0; k < cfgs.size(); ++k) {
    const dyn_config& g = cfgs[k];
    const std::size_t b = k * NQ;
    const bool audit = k == 0;
    const std::string tag = g.name + ": ";
    for (std::size_t q = 0; q < 2; ++q) {
      const std::string name = tag + (q == 0 ? "max <w_{y,r}, xi>" : "max_j ||W_j'A_j||_op") +
                               ": growth exponent of the increments";
      std::vector<std::vector<double>> cols;
      std::vector<double> xs;
      for (std::size_t j = 0; j + 1 < J; ++j) {
        std::vector<double> inc(R);
        for (std::size_t i = 0; i < R; ++i)
          inc[i] = col(b + q * J + j + 1)[i] - col(b + q * J + j)[i];
        cols.push_back(inc);
        xs.push_back(Ts[j]);
      }
      const slope_fit fit = log_log_slope(xs, cols);
      int outcome;
      std::string detail;
      if (!fit.positive) {  // a mean increment <= 0: the quantity stops growing
        outcome = 1;
        detail = "not all mean increments positive: growth stalls";
      } else {
        outcome = fit.slope - tq * fit.se > tau ? -1 : (fit.slope + tq * fit.se < tau ? 1 : 0);
        detail = sig(fit.slope, 3) + " +- " + sig(tq * fit.se, 3) + " vs tolerance " + sig(tau);
      }
      if (c.self_check) {  // the wrong claim: power growth like sqrt(T), exponent >= 1/2
        outcome = !fit.positive                           ? -1
                  : fit.slope + tq * fit.se < 0.5         ? -1
                  : fit.slope - tq * fit.se >= 0.5        ? 1
                                                          : 0;
        detail = "self-check (wrong claim: the increments grow like sqrt(T), exponent >= 0.5): " +
                 detail;
      }
      if (q == 0) first_slope.push_back(fit.slope);
      if (audit)
        L.record(name, outcome, true, r, detail);
      else
        r.notes.push_back("reported (not audited): " + name + ": " + detail);
    }
    std::size_t k24 = 0;
    for (double v : col(b + 3 * J)) k24 += static_cast<std::size_t>(std::llround(v));
    const double need = 0.1 * static_cast<double>(g.m);
    const sim::confidence_interval ci = sim::clopper_pearson(k24, R * g.K, conf);
    const std::string name24 =
        tag + "Lemma 24: P[#{r : <w_{j,r}^(T), xi> > 0} < " + sig(need, 3) + "] for fresh xi";
    const std::string det24 = std::to_string(k24) + "/" + std::to_string(R * g.K) + " = " +
                              sig(ci.estimate, 3) + " [" + sig(ci.lower, 3) + ", " +
                              sig(ci.upper, 3) + "] (refuted if the lower limit > 0.5)";
    if (audit)
      L.record(name24, ci.lower > 0.5 ? -1 : 1, true, r, det24);
    else
      r.notes.push_back("reported (not audited): " + name24 + ": " + det24);
    std::string a = tag + "K = " + std::to_string(g.K) + ", d = " + std::to_string(g.d) +
                    ", n = " + std::to_string(g.n()) + ", m = " + std::to_string(g.m) +
                    ", NCR = " + sig(g.ncr) + ", eta = " + sig(g.eta) + ", " +
                    (g.full_batch ? "full batch" : "B = " + std::to_string(g.batch)) +
                    "; means at T = ";
    const learners::spiked_norms nm =
        learners::spiked_closed_form(g.K, g.d, 0.5, learners::spike_for_ncr(g.K, g.d, 0.5, g.ncr));
    for (std::size_t j = 0; j < J; ++j) {
      // The proof's explicit expression (Lemma 23): log(c5 K/(1 − c5)) + 3η Tr/(2mn),
      // c5 = T/(1.1K + T), i.e. log(T/1.1) + 3η Tr/(2mn).
      const double proof = std::log(Ts[j] / 1.1) + 1.5 * g.eta * nm.frobenius * nm.frobenius /
                                                       static_cast<double>(g.m * g.n());
      const double op = res.observables[b + J + j].stats.mean();
      a += sig(Ts[j]) + ": max<w,xi> " + sig(res.observables[b + j].stats.mean(), 4) +
           " (proof's expression " + sig(proof, 3) + "), ||W'A||_op " + sig(op, 4) +
           " (/ sqrt(m) log T = " +
           sig(op / (std::sqrt(static_cast<double>(g.m)) * std::log(Ts[j])), 3) + "), ||W'A||_F " +
           sig(res.observables[b + 2 * J + j].stats.mean(), 4) + (j + 1 < J ? "; " : "");
    }
    a += "; training loss at T = " + sig(Ts.back()) + ": " +
         sig(res.observables[b + 3 * J + 3].stats.mean(), 3) + "; Lemma 24 over all " +
         std::to_string(fresh) + " fresh points per class: failure fraction " +
         sig(res.observables[b + 3 * J + 1].stats.mean(), 3) + ", smallest active fraction " +
         sig(res.observables[b + 3 * J + 2].stats.min(), 3);
    r.notes.push_back(a);
  }
  L.finish(conf, r);
  r.notes.push_back(
      "Lemma 23 is an O(log T) bound with a hidden constant under Condition 1, so only the "
      "growth law is audited: a log-T quantity has increments M(2T) - M(T) that stay bounded "
      "(exponent <= 0), a power law T^g has exponent g. The proof's explicit expression is "
      "reported, not audited");
  r.quantity = "growth exponent of the increments of max <w, xi> (near-Condition-1)";
  r.bound = tau;
  r.estimate = r.estimate_lo = r.estimate_hi = first_slope[0];
  r.tightness = std::nan("");
  r.parameters = nlohmann::json::object();
  for (const dyn_config& g : cfgs)
    r.parameters[g.name] = {{"K", g.K},
                            {"d", g.d},
                            {"m", g.m},
                            {"per_class", g.per_class},
                            {"ncr", g.ncr},
                            {"eta", g.eta},
                            {"batches", g.full_batch ? "full" : "shuffled"},
                            {"batch", g.full_batch ? g.n() : g.batch},
                            {"init", "gaussian sigma0 = " + sig(g.init.sigma0)}};
  r.parameters["T_grid"] = Ts;
  r.parameters["fresh_per_class"] = fresh;
  r.parameters["increment_tolerance"] = tau;
  r.parameters["replicates"] = R;
  r.replicates = R;
  r.figure.title = "Lemma 23: trained alignments vs T (clean)";
  r.figure.x_label = "T";
  r.figure.y_label = "value";
  r.figure.log_x = true;
  for (std::size_t k = 0; k < cfgs.size(); ++k) {
    std::vector<double> mx, mo;
    for (std::size_t j = 0; j < J; ++j) {
      mx.push_back(res.observables[k * NQ + j].stats.mean());
      mo.push_back(res.observables[k * NQ + J + j].stats.mean());
    }
    r.figure.data.push_back(make_series(cfgs[k].name + ": max ⟨w_{y,r}, ξ⟩", Ts, mx));
    r.figure.data.push_back(make_series(cfgs[k].name + ": max_j ‖W_j'A_j‖_{op}", Ts, mo));
  }
  return r;
}

}  // namespace

void register_longtail_trained_scenarios(std::vector<scenario>& out) {
  out.push_back({"zxd26-lemma21-dynamics",
                 "ZXD+26 Lemma 21: activation sets only grow under clean training", lemma21,
                 0.25});
  out.push_back({"zxd26-lemma23-24-trained",
                 "ZXD+26 Lemmas 23-24: trained alignments grow like log T; fresh activations",
                 lemma23_24, 0.1});
}

}  // namespace dpkit::validation
