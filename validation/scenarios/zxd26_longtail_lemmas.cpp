// ZXD+26: the Appendix B/D lemmas behind Theorems 1–3, checked on the data of
// Definition 1 and the two-layer ReLU CNN of eq. (1) (dpkit::sim longtail simulator):
//
//  * zxd26-init-lemmas         [exact / Monte Carlo] Lemma 16 (‖ξ_i‖² within [½, 3/2]Tr for all
//                            i: failure rate falls as Tr/‖AᵀA‖_F grows), claim 3 (the fitted
//                            constant of max|⟨ξ_i, ξ_j⟩|/‖A_iᵀA_j‖_F against √log(n²/δ), reported),
//                            Lemma 17 (Gaussian-initialisation alignments, exact tail + union),
//                            Lemmas 18/19 with the corrected (Hoeffding) probability of Lemma 9.
//  * zxd26-lemma21-dynamics    [trend + exact count] activation sets S_i^(t) only grow along clean
//                            training (Lemma 21) in a configuration close to Condition 1; DP and
//                            the paper's configuration reported; κ measured.
//  * zxd26-lemma23-24-trained  [scaling + count] after T clean steps max⟨w_{y,r}, ξ⟩ and
//                            ‖(W_j)ᵀA_j‖_2 grow at most like log T (Lemma 23); a fresh ξ ~ A_jζ
//                            activates ≥ 0.1m class-j neurons (Lemma 24).
//
// Everything is computed in the U basis of sim/longtail.hpp (exact: A_k = U diag(a_k)Uᵀ, so
// A_kᵀw = a_k ∘ w and ⟨w, u_k⟩ = ‖u_k‖w[k]). Activation patterns and alignments come from the
// public network API (noise_alignments, output_matrix); the per-step trajectory from
// run_noisy_gradient with the options train_longtail uses (to_noisy_gradient_options).
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
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
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/longtail.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "dpkit/sim/statistics.hpp"

namespace dpkit::validation {
namespace {

// ---- shared helpers
// -------------------------------------------------------------------------------

// The checks of one scenario. `must_resolve` checks decide "holds" (all resolved as predicted);
// refute-only checks (e.g. adjacent grid points whose rates may tie) can only make it violated.
struct ledger {
  int total = 0, wrong = 0, unresolved = 0;
  std::string first_wrong;
  void record(const std::string& name,
              int outcome,
              bool must_resolve,
              scenario_result& r,
              const std::string& detail) {
    // outcome: +1 as predicted, −1 refuted, 0 not resolved.
    ++total;
    if (outcome < 0) {
      ++wrong;
      if (first_wrong.empty()) first_wrong = name;
    }
    if (outcome == 0 && must_resolve) ++unresolved;
    r.notes.push_back("check " + std::to_string(total) + ": " + name + ": " + detail + " -> " +
                      (outcome > 0   ? "as predicted"
                       : outcome < 0 ? "REFUTED"
                                     : (must_resolve ? "not resolved" : "not resolved (tie)")));
  }
  // E[x] > 0 for paired differences x (Student t interval at the coverage of the normal
  // quantile z, t_multiplier in zxd26_longtail_common.hpp). The self-check (`reversed`) audits the
  // reversed ordering E[x] < 0 through the same interval, as audit_positive there.
  void positive(std::string name,
                std::vector<double> x,
                double z,
                bool reversed,
                bool must_resolve,
                scenario_result& r) {
    if (reversed) {
      for (double& v : x) v = -v;
      name = "reversed ordering (self-check): -(" + name + ")";
    }
    z = t_multiplier(z, x.size());
    const auto [mean, se] = mean_se(x);
    const double lo = mean - z * se, hi = mean + z * se;
    record(name, lo > 0 ? 1 : (hi < 0 ? -1 : 0), must_resolve, r,
           sig(mean, 4) + " +- " + sig(z * se, 3));
  }
  // P ≤ bound for an event seen k times in N independent trials: refuted iff the
  // Clopper–Pearson lower limit exceeds the bound; resolved iff the upper limit is below it.
  void at_most(const std::string& name,
               std::size_t k,
               std::size_t N,
               double bound,
               double confidence,
               bool must_resolve,
               scenario_result& r) {
    const sim::confidence_interval ci = sim::clopper_pearson(k, N, confidence);
    record(name, ci.lower > bound ? -1 : (ci.upper <= bound ? 1 : 0), must_resolve, r,
           std::to_string(k) + "/" + std::to_string(N) + " = " + sig(ci.estimate, 4) + " [" +
               sig(ci.lower, 4) + ", " + sig(ci.upper, 4) + "] vs bound " + sig(bound, 4));
  }
  // P = exact: the two-sided Clopper–Pearson interval must contain the exact value.
  void equals(const std::string& name,
              std::size_t k,
              std::size_t N,
              double exact,
              double confidence,
              scenario_result& r) {
    const sim::confidence_interval ci = sim::clopper_pearson(k, N, confidence);
    record(name, (ci.lower <= exact && exact <= ci.upper) ? 1 : -1, true, r,
           std::to_string(k) + "/" + std::to_string(N) + " = " + sig(ci.estimate, 4) + " [" +
               sig(ci.lower, 4) + ", " + sig(ci.upper, 4) + "] vs exact " + sig(exact, 4));
  }
  void finish(double confidence, scenario_result& r) const {
    r.verdict = wrong > 0         ? verdict::violated
                : unresolved == 0 ? verdict::holds
                                  : verdict::inconclusive;
    r.verdict_reason = wrong > 0 ? std::to_string(wrong) + " of " + std::to_string(total) +
                                       " checks refuted (first: " + first_wrong + ")"
                       : unresolved == 0
                           ? "every check as predicted (refute-only ties allowed)"
                           : std::to_string(unresolved) + " of " + std::to_string(total) +
                                 " checks not resolved at this sample size";
    r.confidence = confidence;
  }
};

// Configuration shared by the three scenarios: the quick tier is zxd26_longtail.cpp's scaled-down
// synthetic setting, the full tier the paper's (ZXD+26 §5.1).
struct lt_config {
  std::size_t K = 3, d = 150, m = 20;
  std::vector<std::size_t> counts{50, 50, 50};
  double signal = 0.5, s = 0.5, ncr = 200;
  std::size_t n() const { return std::accumulate(counts.begin(), counts.end(), std::size_t{0}); }
};

lt_config config_for(const scenario_context& c) {
  lt_config g;
  if (c.tier == tier::full) {
    g.K = 5;
    g.d = 1000;
    g.m = 100;
    g.counts.assign(5, 100);
    g.ncr = 1400;
  }
  return g;
}

sim::longtail_data_options data_options(const lt_config& g, double spike, sim::zeta_law law) {
  sim::longtail_data_options o;
  o.classes = g.K;
  o.dimension = g.d;
  o.signal_norm = g.signal;
  o.spike = spike;
  o.law = law;
  return o;
}

// ‖A_kᵀA_j‖_op = max_l |a_k[l] a_j[l]| for diagonal spectra.
double cross_operator(const sim::noise_spectra& a, Eigen::Index k, Eigen::Index j) {
  return (a.row(k).array() * a.row(j).array()).abs().maxCoeff();
}

// ---- zxd26-init-lemmas
// -----------------------------------------------------------------------------

scenario_result init_lemmas(const scenario_context& c) {
  const lt_config g = config_for(c);
  const double F = c.bound_factor;
  const std::size_t n = g.n(), K = g.K, d = g.d;
  const double D = static_cast<double>(d - K);
  const double lambda_paper = sim::spike_for_ncr(K, d, g.s, g.ncr);
  // (a) Spike grid: multiples of the bulk's noise mass √(s²(D − 1)) put the per-set failure
  // rate of Lemma 16's event on both sides of ½ (flat spectrum first, the paper's NCR last).
  const double bulk = g.s * std::sqrt(D - 1);
  std::vector<double> spikes = {g.s};
  for (double f : {0.15, 0.2, 0.25, 0.3, 0.35, 0.5, 1.0}) spikes.push_back(f * bulk);
  spikes.push_back(lambda_paper);
  const std::size_t G = spikes.size();
  std::vector<double> ratio(G);  // Tr(AᵀA)/‖AᵀA‖_F, decreasing along the grid
  for (std::size_t j = 0; j < G; ++j) {
    const sim::spiked_norms nm = sim::spiked_closed_form(K, d, g.s, spikes[j]);
    ratio[j] = nm.frobenius * nm.frobenius / nm.self_cross;
  }
  // (b) n grid: nested per-class prefixes of one data set.
  const std::vector<std::size_t> per_class = c.tier == tier::full
                                                 ? std::vector<std::size_t>{5, 10, 20, 50, 100}
                                                 : std::vector<std::size_t>{5, 10, 20, 50};
  const std::size_t NB = per_class.size();
  const double delta_b = 0.05;
  const std::vector<double> spikes_b = {g.s, lambda_paper};  // flat (NCR = 1) and the paper's
  // (d) widths: the configuration's m and a wider network (5m quick, 2m full).
  const std::vector<std::size_t> widths = {g.m, c.tier == tier::full ? 2 * g.m : 5 * g.m};
  const double sigma0 = 0.01;
  const double delta17 = 0.1;
  // quick: 60 replicates resolve the end-to-end Lemma 16 ordering (failure rate ~0.99 vs ~0.01)
  // by > 15x its interval and the adjacent grid points (refute-only, mostly ties) to about
  // +-0.15; the exact-value checks detect a frequency off by more than ~0.1 (Lemma 18, m = 20),
  // ~0.05 (m = 100) or ~0.1 (Lemma 19). The full tier's 300 resolve under half of that.
  const std::uint64_t R = replicates_for(c, 60, 300);
  // Observables: (a) 2G failure indicators; (b) 2 spectra × NB × {c_n, Bernstein c_n};
  // (d) per width: failures among K examples (one per class), all-i failure; Lemma 19 failure;
  // Lemma 17's ξ part (fitted constant).
  std::vector<sim::observable> obs;
  for (std::size_t law = 0; law < 2; ++law)
    for (std::size_t j = 0; j < G; ++j)
      obs.push_back({"L16 fail " + std::to_string(law) + "/" + std::to_string(j), true});
  const std::size_t ob = obs.size();
  for (std::size_t s = 0; s < 2; ++s)
    for (std::size_t q = 0; q < NB; ++q) {
      obs.push_back({"c_n " + std::to_string(s) + "/" + std::to_string(q), true});
      obs.push_back({"bernstein c_n " + std::to_string(s) + "/" + std::to_string(q), true});
    }
  const std::size_t od = obs.size();
  for (std::size_t w = 0; w < widths.size(); ++w) {
    obs.push_back({"L18 per-example fails " + std::to_string(w), true});
    obs.push_back({"L18 all-i fail " + std::to_string(w), true});
  }
  obs.push_back({"L19 fail", true});
  obs.push_back({"L17 xi constant", true});
  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs,
      [&](std::uint64_t rep, std::span<double> out) {
        // (a) Lemma 16: ½Tr ≤ ‖ξ_i‖² ≤ 3/2 Tr for every i ≤ n. The
        // same ζ stream for every spike, so grid points are paired.
        for (std::size_t law = 0; law < 2; ++law)
          for (std::size_t j = 0; j < G; ++j) {
            random_stream st(c.seed, rep, 20 + law);
            const sim::longtail_data data = sim::generate_longtail_data(
                data_options(g, spikes[j],
                             law == 0 ? sim::zeta_law::gaussian : sim::zeta_law::uniform),
                g.counts, st);
            const double tr = data.spectra.row(0).squaredNorm();  // equal for every class
            const Eigen::VectorXd sq = data.noise.colwise().squaredNorm().transpose();
            out[law * G + j] = (sq.minCoeff() < 0.5 * tr || sq.maxCoeff() > 1.5 * tr) ? 1 : 0;
          }
        // (b) claim 3 (Lemmas 4, 6, 16): max_{i≠j} |⟨ξ_i, ξ_j⟩|/‖A_{y_i}ᵀA_{y_j}‖_F over nested
        // sets, divided by √log(n²/δ); the Bernstein form divides by max{‖·‖_F √log,
        // ‖·‖_op log} instead (Lemma 16's full statement, with the op-norm term).
        for (std::size_t s = 0; s < 2; ++s) {
          random_stream st(c.seed, rep, 30 + s);
          std::vector<std::size_t> big(K, per_class.back());
          const sim::longtail_data data = sim::generate_longtail_data(
              data_options(g, spikes_b[s], sim::zeta_law::gaussian), big, st);
          const sim::noise_norms nn = sim::spectra_norms(data.spectra);
          const Eigen::MatrixXd gram = data.noise.transpose() * data.noise;
          const std::size_t nc = per_class.back();
          for (std::size_t q = 0; q < NB; ++q) {
            const std::size_t pc = per_class[q];
            const double nq = static_cast<double>(pc * K);
            const double lg = std::log(nq * nq / delta_b);
            double mf = 0, mb = 0;
            for (std::size_t a = 0; a < K * nc; ++a) {
              if (a % nc >= pc) continue;
              for (std::size_t b = a + 1; b < K * nc; ++b) {
                if (b % nc >= pc) continue;
                const auto ka = static_cast<Eigen::Index>(a / nc),
                           kb = static_cast<Eigen::Index>(b / nc);
                const double v =
                    std::abs(gram(static_cast<Eigen::Index>(a), static_cast<Eigen::Index>(b)));
                const double fro = nn.cross(ka, kb);
                mf = std::max(mf, v / fro);
                mb = std::max(mb, v / std::max(fro * std::sqrt(lg),
                                               cross_operator(data.spectra, ka, kb) * lg));
              }
            }
            out[ob + 2 * (s * NB + q)] = mf / std::sqrt(lg);
            out[ob + 2 * (s * NB + q) + 1] = mb;
          }
        }
        // (d) Lemmas 18/19 at Gaussian initialisation N(0, σ₀²) on the paper's spectra.
        random_stream ds(c.seed, rep, 40);
        const auto data = std::make_shared<const sim::longtail_data>(sim::generate_longtail_data(
            data_options(g, lambda_paper, sim::zeta_law::gaussian), g.counts, ds));
        sim::initialisation init;
        init.type = sim::initialisation::kind::gaussian;
        init.sigma0 = sigma0;
        for (std::size_t w = 0; w < widths.size(); ++w) {
          const std::size_t m = widths[w];
          random_stream is(c.seed, rep, 41 + w);
          const sim::vector w0 = sim::longtail_initial_weights(K, m, d, init, is);
          const sim::longtail_network net(data, m);
          const Eigen::MatrixXd al = net.noise_alignments(w0, *data);  // (K·m) × n
          const double need = 0.4 * static_cast<double>(m);
          double per_example = 0;
          bool any = false;
          for (std::size_t i = 0; i < n; ++i) {
            const auto y = static_cast<Eigen::Index>(data->labels[i]);
            const auto col =
                al.col(static_cast<Eigen::Index>(i))
                    .segment(y * static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(m));
            const double active = static_cast<double>((col.array() > 0).count());
            // |S_i^(0)| < 0.4m (eq. 76; Lemma 18).
            if (active < need) any = true;
          }
          for (std::size_t k = 0; k < K; ++k) {  // first example of each class: independent
            const std::size_t i = data->class_indices(static_cast<int>(k)).front();
            const auto col =
                al.col(static_cast<Eigen::Index>(i))
                    .segment(static_cast<Eigen::Index>(k * m), static_cast<Eigen::Index>(m));
            if (static_cast<double>((col.array() > 0).count()) < need) per_example += 1;
          }
          out[od + 2 * w] = per_example;
          out[od + 2 * w + 1] = any ? 1 : 0;
          if (w == 0) {
            // Lemma 19: neuron (0, 0) is activated by fewer than 0.4n noise patches.
            const double cnt = static_cast<double>((al.row(0).array() > 0).count());
            out[od + 2 * widths.size()] = cnt < 0.4 * static_cast<double>(n) ? 1 : 0;
            // Lemma 17's ξ part (hidden constant): max |⟨w0, ξ_i⟩|/(log(Km/δ)‖A_{y_i}‖_F σ₀).
            double mx = 0;
            const double lg = std::log(static_cast<double>(K * m) / delta17);
            for (std::size_t i = 0; i < n; ++i) {
              const double fro = data->spectra.row(data->labels[i]).norm();
              mx = std::max(mx, al.col(static_cast<Eigen::Index>(i)).cwiseAbs().maxCoeff() /
                                    (lg * fro * sigma0));
            }
            out[od + 2 * widths.size() + 1] = mx;
          }
        }
      },
      mc_options(c, R, "zxd26-init-lemmas"));
  auto col = [&](std::size_t j) -> const std::vector<double>& {
    return res.observables[j].samples;
  };
  auto count = [&](std::size_t j) {
    double s = 0;
    for (double v : col(j)) s += v;
    return static_cast<std::size_t>(std::llround(s));
  };

  // (c) Lemma 17: P[max_{j,r,k} |⟨w0_{j,r}, u_k⟩| >
  // √(2 log(4Km/δ))‖u_k‖σ₀] ≤ δ. Exact: ⟨w0_{j,r}, u_k⟩/(‖u_k‖σ₀) ~ N(0, 1) i.i.d. over the
  // K·m·K triples (U basis: ‖u_k‖ w[k]), so P = 1 − (1 − 2Φ̄(t))^{K²m}.
  // quick: 1000 initialisations (each draws all K m d weights) detect a Lemma 17 frequency off
  // the exact ~0.014 by more than ~0.01 (4000: ~0.005), and one above delta = 0.1 by far.
  const std::uint64_t Rc = replicates_for(c, 1000, 4000);
  const double t17 = std::sqrt(2 * std::log(4.0 * static_cast<double>(K * g.m) / delta17));
  const boost::math::normal nd;
  const double tail1 = 2 * boost::math::cdf(boost::math::complement(nd, t17));
  const double exact17 =
      -std::expm1(static_cast<double>(K * K * g.m) * std::log1p(-tail1));  // exact
  const sim::monte_carlo_result r17 = sim::run_monte_carlo(
      {{"L17 fail", true}},
      [&](std::uint64_t rep, std::span<double> out) {
        sim::initialisation init;
        init.type = sim::initialisation::kind::gaussian;
        init.sigma0 = sigma0;
        random_stream is(c.seed, rep, 50);
        const sim::vector w0 = sim::longtail_initial_weights(K, g.m, d, init, is);
        double worst = 0;  // max |⟨w, u_k⟩|/(‖u_k‖σ₀) = max |w_{j,r}[k]|/σ₀
        for (std::size_t f = 0; f < K * g.m; ++f)
          for (std::size_t k = 0; k < K; ++k)
            worst = std::max(worst, std::abs(w0[static_cast<Eigen::Index>(f * d + k)]) / sigma0);
        out[0] = worst > t17 ? 1 : 0;
      },
      mc_options(c, Rc, "zxd26-init-lemmas (Lemma 17)"));
  std::size_t k17 = 0;
  for (double v : r17.observables[0].samples) k17 += v > 0 ? 1 : 0;

  scenario_result r;
  r.id = "zxd26-init-lemmas";
  r.title = "ZXD+26 Lemmas 16-19: noise norms, noise correlations and the initialisation";
  r.source = "ZXD+26 App B Lemmas 9, 16-19";
  r.claim =
      "(a) Lemma 16: the failure rate of '1/2 Tr <= ||xi_i||^2 <= 3/2 Tr for all i <= n' falls "
      "as Tr(A'A)/||A'A||_F grows (paired differences along the spiked family, Gaussian and "
      "uniform zeta); (c) Lemma 17: P[max |<w0, u_k>| > sqrt(2 log(4Km/delta))||u_k|| sigma0] <= "
      "delta, and the frequency equals the exact Gaussian value; (d) Lemmas 18/19 with Lemma 9 "
      "corrected: per example P[|S_i^(0)| < 0.4m] = P[Bin(m, 1/2) < 0.4m] exactly, the all-i "
      "failure is <= n exp(-m/50), per neuron P[#{i: <w0, xi_i> > 0} < 0.4n] = P[Bin(n, 1/2) < "
      "0.4n]; (b) claim 3's fitted constant is reported. Bonferroni over all checks";
  const int n_checks = static_cast<int>(2 * (G - 1) + 2 + 2 + 2 * widths.size() + 1);
  const double conf = 1 - 0.05 / n_checks, zq = normal_quantile(conf);
  ledger L;
  // (a) The failure rate must not fall as the ratio falls (grid order: ratio decreasing):
  // paired x = fail_{j+1} − fail_j ≥ 0 (refute-only), and end to end resolved.
  const char* law_name[] = {"gaussian", "uniform"};
  for (std::size_t law = 0; law < 2; ++law) {
    for (std::size_t j = 0; j + 1 < G; ++j) {
      std::vector<double> x(R);
      for (std::size_t i = 0; i < R; ++i) x[i] = col(law * G + j + 1)[i] - col(law * G + j)[i];
      L.positive(std::string("L16 ") + law_name[law] + ": fail(ratio " + sig(ratio[j + 1], 3) +
                     ") - fail(ratio " + sig(ratio[j], 3) + ")",
                 x, zq, c.self_check, false, r);
    }
    std::vector<double> x(R);
    for (std::size_t i = 0; i < R; ++i) x[i] = col(law * G + G - 1)[i] - col(law * G)[i];
    L.positive(std::string("L16 ") + law_name[law] + ": fail(paper ratio " + sig(ratio.back(), 4) +
                   ") - fail(flat, ratio " + sig(ratio.front(), 3) + ")",
               x, zq, c.self_check, true, r);
  }
  // (c) Lemma 17.
  L.at_most(
      "L17: P[max_{j,r,k} |<w0_{j,r}, u_k>| > sqrt(2 log(4Km/delta)) ||u_k|| sigma0] <= "
      "delta = " +
          sig(delta17),
      k17, Rc, F * delta17, conf, false, r);
  L.equals("L17: frequency = exact 1 - (1 - 2 Phi-bar(t))^{K^2 m}", k17, Rc, F * exact17, conf, r);
  // (d) Lemmas 18/19.
  std::vector<double> d_exact, d_emp, d_all, d_printed;
  for (std::size_t w = 0; w < widths.size(); ++w) {
    const auto m = static_cast<long long>(widths[w]);
    const double ex = risk::lemma9_exact(m);
    L.equals("L18 m = " + std::to_string(m) +
                 ": per example P[|S_i^(0)| < 0.4m] = P[Bin(m, "
                 "1/2) < 0.4m]",
             count(od + 2 * w), R * K, F * ex, conf, r);
    const double corrected = std::min(1.0, static_cast<double>(n) * risk::lemma9_hoeffding(m));
    L.at_most("L18 m = " + std::to_string(m) +
                  ": P[some i has |S_i^(0)| < 0.4m] <= min(1, n "
                  "exp(-m/50))",
              count(od + 2 * w + 1), R, F * corrected, conf, false, r);
    d_exact.push_back(ex);
    d_emp.push_back(static_cast<double>(count(od + 2 * w)) / static_cast<double>(R * K));
    d_all.push_back(res.observables[od + 2 * w + 1].stats.mean());
    d_printed.push_back(static_cast<double>(n) * risk::lemma9_claimed(m));
  }
  L.equals("L19: per neuron P[#{i : <w0, xi_i> > 0} < 0.4n] = P[Bin(n, 1/2) < 0.4n]",
           count(od + 2 * widths.size()), R, F * risk::lemma9_exact(static_cast<long long>(n)),
           conf, r);
  L.finish(conf, r);

  // Reports.
  const sim::spiked_norms paper = sim::spiked_closed_form(K, d, g.s, lambda_paper);
  {
    std::string a =
        "Lemma 16 failure rates (all i <= n = " + std::to_string(n) + "), ratio Tr/||A'A||_F: ";
    for (std::size_t j = 0; j < G; ++j)
      a += sig(ratio[j], 3) + " -> gaussian " + sig(res.observables[j].stats.mean(), 3) +
           ", uniform " + sig(res.observables[G + j].stats.mean(), 3) + (j + 1 < G ? "; " : "");
    r.notes.push_back(a);
    const sim::spiked_norms p5 =
        sim::spiked_closed_form(5, 1000, 0.5, sim::spike_for_ncr(5, 1000, 0.5, 1400));
    r.notes.push_back(
        "the paper's synthetic spectra (K = 5, d = 1000, NCR = 1400, spike " +
        sig(sim::spike_for_ncr(5, 1000, 0.5, 1400), 4) +
        ") have Tr/||A'A||_F = " + sig(p5.frobenius * p5.frobenius / p5.self_cross, 6) +
        " (this tier's NCR: " + sig(paper.frobenius * paper.frobenius / paper.self_cross, 6) +
        "): ||xi||^2 ~ lambda^2 zeta_spike^2, inside [1/2, 3/2]Tr with probability about "
        "P[1/2 <= z^2 <= 3/2] = 0.26 per example, so Lemma 16's event fails for every data set; "
        "NCR near 1 gives the ratio sqrt(D) = " +
        sig(std::sqrt(D), 3) +
        ". Lemma 16's hypothesis (Tr >> ||A'A||_F sqrt(log(n/delta))) is the opposite of the "
        "paper's high-NCR regime");
  }
  {
    const std::vector<double> ns = [&] {
      std::vector<double> v;
      for (std::size_t pc : per_class) v.push_back(static_cast<double>(pc * K));
      return v;
    }();
    const char* sp_name[] = {"flat spectra (NCR = 1)", "paper's spectra (NCR high)"};
    for (std::size_t s = 0; s < 2; ++s) {
      std::string a = std::string("claim 3, ") + sp_name[s] +
                      ": fitted constant max_{i!=j}|<xi_i, xi_j>|/(||A_i'A_j||_F "
                      "sqrt(log(n^2/delta))), delta = 0.05, mean [95th percentile] at n = ";
      std::vector<double> slopes(R), slopes_b(R);
      for (std::size_t q = 0; q < NB; ++q) {
        const sim::observable_summary& o = res.observables[ob + 2 * (s * NB + q)];
        a += sig(ns[q]) + ": " + sig(o.stats.mean(), 3) + " [" + sig(o.quantile(0.95), 3) + "]" +
             (q + 1 < NB ? "; " : "");
      }
      for (std::size_t i = 0; i < R; ++i) {  // per replicate OLS slope in log n
        double mx = 0, my = 0, mb = 0, sxx = 0, sxy = 0, sxb = 0;
        for (std::size_t q = 0; q < NB; ++q) {
          mx += std::log(ns[q]) / static_cast<double>(NB);
          my += col(ob + 2 * (s * NB + q))[i] / static_cast<double>(NB);
          mb += col(ob + 2 * (s * NB + q) + 1)[i] / static_cast<double>(NB);
        }
        for (std::size_t q = 0; q < NB; ++q) {
          const double dx = std::log(ns[q]) - mx;
          sxx += dx * dx;
          sxy += dx * (col(ob + 2 * (s * NB + q))[i] - my);
          sxb += dx * (col(ob + 2 * (s * NB + q) + 1)[i] - mb);
        }
        slopes[i] = sxy / sxx;
        slopes_b[i] = sxb / sxx;
      }
      const auto [ms, ses] = mean_se(slopes);
      const auto [mb, seb] = mean_se(slopes_b);
      const double tq = t_multiplier(zq, slopes.size());
      a += "; slope in log n " + sig(ms, 3) + " +- " + sig(tq * ses, 3) +
           "; with Lemma 16's op-norm term (max{F sqrt(log), op log}) the constant's slope is " +
           sig(mb, 3) + " +- " + sig(tq * seb, 3) + " (reported, not audited)";
      r.notes.push_back(a);
    }
  }
  r.notes.push_back(
      "Lemma 17 (delta = " + sig(delta17) + ", K^2 m = " + std::to_string(K * K * g.m) +
      " Gaussian alignments): exact P = " + sig(exact17, 4) +
      " <= delta. The proof's union bound does not give it: the Chernoff tail 2exp(-t^2/2) = "
      "delta/(2Km) per (j, r, k) summed over the K^2 m triples is K delta/2 = " +
      sig(static_cast<double>(K) * delta17 / 2, 3) +
      " > delta for K > 2 (the constant 4Km fits the binary case j in [2]); "
      "the statement survives because the exact tail 2 Phi-bar(t) is smaller by about "
      "sqrt(2/pi)/t");
  r.notes.push_back(
      "Lemma 17's xi part (hidden constant): max |<w0_{j,r}, xi_i>|/(log(Km/delta) ||A||_F "
      "sigma0) = " +
      sig(res.observables[od + 2 * widths.size() + 1].stats.mean(), 3) + " (mean over replicates)");
  for (std::size_t w = 0; w < widths.size(); ++w)
    r.notes.push_back(
        "Lemma 18 at m = " + std::to_string(widths[w]) + ", n = " + std::to_string(n) +
        ": per example " + sig(d_emp[w], 3) + " vs exact " + sig(d_exact[w], 3) +
        " (printed Lemma 9: " + sig(risk::lemma9_claimed(static_cast<long long>(widths[w])), 3) +
        "); some i fails with frequency " + sig(d_all[w], 3) +
        " vs the corrected union bound n "
        "exp(-m/50) = " +
        sig(static_cast<double>(n) * risk::lemma9_hoeffding(static_cast<long long>(widths[w])), 3) +
        " and the printed n exp(-8m/25) = " + sig(d_printed[w], 3) + " (off by a factor " +
        sig(d_all[w] / d_printed[w], 3) + ")");
  r.quantity = "P[max |<w0, u_k>| > t] (Lemma 17)";
  r.bound = F * delta17;
  const sim::confidence_interval ci17 = sim::clopper_pearson(k17, Rc, conf);
  r.estimate = ci17.estimate;
  r.estimate_lo = ci17.lower;
  r.estimate_hi = ci17.upper;
  r.tightness = r.bound / r.estimate;
  r.parameters = {{"K", K},
                  {"d", d},
                  {"class_counts", g.counts},
                  {"width_m", g.m},
                  {"signal_norm", g.signal},
                  {"s", g.s},
                  {"lemma16_spikes", spikes},
                  {"lemma16_ratios", ratio},
                  {"claim3_n", per_class},
                  {"claim3_delta", delta_b},
                  {"lemma17_delta", delta17},
                  {"sigma0", sigma0},
                  {"lemma18_widths", widths},
                  {"paper_spike", lambda_paper},
                  {"replicates", R},
                  {"lemma17_replicates", Rc},
                  {"init", "gaussian N(0, sigma0^2)"}};
  r.replicates = R;
  r.figure.title = "Lemma 16: P[some ‖ξ_i‖^2 outside [Tr/2, 3Tr/2]] against Tr/‖A'A‖_F";
  r.figure.x_label = "Tr(A'A)/‖A'A‖_F";
  r.figure.y_label = "failure rate (all i ≤ n)";
  r.figure.log_x = true;
  for (std::size_t law = 0; law < 2; ++law) {
    series s = make_series(std::string("ζ ") + law_name[law], {}, {}, "points");
    for (std::size_t j = 0; j < G; ++j) {
      const sim::confidence_interval ci = sim::clopper_pearson(count(law * G + j), R, conf);
      s.x.push_back(ratio[j]);
      s.y.push_back(ci.estimate);
      s.y_lo.push_back(ci.lower);
      s.y_hi.push_back(ci.upper);
    }
    r.figure.data.push_back(s);
  }
  return r;
}

// ---- zxd26-lemma21-dynamics
// ------------------------------------------------------------------------

// The noise multiplier the PLD accountant certifies for (ε, δ) = (8, 1e-5) for this run (as
// zxd26_longtail.cpp).
double calibrated_multiplier(const sim::longtail_training& t, std::size_t n) {
  const sim::privacy_request req = sim::accounting_request(t, n);
  accounting::training_run run;
  accounting::training_phase ph;
  ph.noise_multiplier = 1;
  ph.sampling_rate = req.sampling_rate;
  ph.sampling = accounting::sampling_scheme::without_replacement;
  ph.steps = req.steps;
  run.phases.push_back(ph);
  return accounting::calibrate_noise_multiplier(run, 8, 1e-5).noise_multiplier;
}

// What one tracked run measures. Margins are ⟨w_{y_i,r}^{(t)}, ξ_i⟩ (the own-class rows of
// noise_alignments); S_i^(t) = {r : margin > 0} (ZXD+26 eq. (76)).
struct dynamics {
  double leaves = 0;   ///< #(i, r, t): r ∈ S_i^(t), r ∉ S_i^(t+1)   (Lemma 21 says 0)
  double joins = 0;    ///< #(i, r, t): r ∉ S_i^(t), r ∈ S_i^(t+1)
  double kappa = 1;    ///< max_t max_{i,j} (1 − p_{y_i}(x_i))/(1 − p_{y_j}(x_j))
  double loss0 = 0, lossT = 0;
};

dynamics track(const sim::longtail_network& net,
               const sim::longtail_training& t,
               const sim::vector& w0,
               const sim::random_key& key) {
  const sim::longtail_data& data = net.data();
  const std::size_t n = data.size(), K = net.classes(), m = net.width();
  const auto M = static_cast<Eigen::Index>(m);
  dynamics out;
  Eigen::MatrixXd prev(M, static_cast<Eigen::Index>(n));
  // The same trajectory as train_longtail (it runs run_noisy_gradient with these options);
  // the observer sees every iterate W^(0), ..., W^(T).
  sim::run_noisy_gradient(
      net, sim::to_noisy_gradient_options(t, n), w0, key, [&](long step, const sim::vector& w) {
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
  sim::initialisation init;
  std::size_t n() const { return K * per_class; }
  sim::longtail_training training(double clip_c, double noise) const {
    sim::longtail_training t;
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
  a.init.type = sim::initialisation::kind::gaussian;
  a.init.sigma0 = 0.01;
  // B: the paper's configuration (quick: zxd26_longtail.cpp's scaled-down version).
  dyn_config b;
  b.name = "paper";
  b.init.type = sim::initialisation::kind::pytorch_uniform;
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
    sigmas.push_back(sim::noise_std_for(zs.back(), g.clip, g.full_batch ? g.n() : g.batch));
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
          sim::longtail_data_options o;
          o.classes = g.K;
          o.dimension = g.d;
          o.signal_norm = 0.5;
          o.spike = sim::spike_for_ncr(g.K, g.d, 0.5, g.ncr);
          random_stream ds(c.seed, rep, 60 + 10 * k), is(c.seed, rep, 61 + 10 * k);
          const auto data = std::make_shared<const sim::longtail_data>(
              sim::generate_longtail_data(o, std::vector<std::size_t>(g.K, g.per_class), ds));
          const sim::longtail_network net(data, g.m);
          const sim::vector w0 = sim::longtail_initial_weights(g.K, g.m, g.d, g.init, is);
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
    const long T = sim::training_steps(g.training(0, 0), g.n());
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
        risk::spiked_problem(g.K, g.d, 0.5, 0.5, sim::spike_for_ncr(g.K, g.d, 0.5, g.ncr),
                             std::vector<double>(g.K, static_cast<double>(g.per_class)));
    risk::longtail_setting s;
    s.width = static_cast<double>(g.m);
    s.eta = g.eta;
    s.batch_size = static_cast<double>(g.n());
    s.steps = static_cast<double>(sim::training_steps(g.training(0, 0), g.n()));
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
                            {"steps", sim::training_steps(g.training(0, 0), g.n())},
                            {"batches", g.full_batch ? "full" : "shuffled"},
                            {"batch", g.full_batch ? g.n() : g.batch},
                            {"clip_dp", g.clip},
                            {"noise_multiplier_dp", zs[k]},
                            {"sigma_n_dp", sigmas[k]},
                            {"init", g.init.type == sim::initialisation::kind::gaussian
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
                       static_cast<double>(sim::training_steps(g.training(0, 0), g.n())) *
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

trained_norms measure_norms(const sim::longtail_network& net, const sim::vector& w) {
  const sim::longtail_data& data = net.data();
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
          (sim::longtail_network::filter(w, j, r, m, d).array() *
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
  cfgs[1].init.type = sim::initialisation::kind::gaussian;
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
          sim::longtail_data_options o;
          o.classes = g.K;
          o.dimension = g.d;
          o.signal_norm = 0.5;
          o.spike = sim::spike_for_ncr(g.K, g.d, 0.5, g.ncr);
          random_stream ds(c.seed, rep, 80 + 10 * k), ts(c.seed, rep, 81 + 10 * k),
              is(c.seed, rep, 82 + 10 * k);
          const auto data = std::make_shared<const sim::longtail_data>(
              sim::generate_longtail_data(o, std::vector<std::size_t>(g.K, g.per_class), ds));
          const sim::longtail_data test =
              sim::generate_longtail_data(o, std::vector<std::size_t>(g.K, fresh), ts);
          const sim::longtail_network net(data, m);
          const sim::vector w0 = sim::longtail_initial_weights(g.K, m, g.d, g.init, is);
          sim::longtail_training t = g.training(0, 0);
          t.steps = static_cast<long>(Ts.back());
          std::size_t j = 0;
          sim::vector wT;
          sim::run_noisy_gradient(net, sim::to_noisy_gradient_options(t, g.n()), w0,
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
    const sim::spiked_norms nm =
        sim::spiked_closed_form(g.K, g.d, 0.5, sim::spike_for_ncr(g.K, g.d, 0.5, g.ncr));
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

void register_longtail_lemma_scenarios(std::vector<scenario>& out) {
  out.push_back({"zxd26-init-lemmas",
                 "ZXD+26 Lemmas 16-19: noise norms and correlations, Gaussian initialisation",
                 init_lemmas, 0.5});
  out.push_back({"zxd26-lemma21-dynamics",
                 "ZXD+26 Lemma 21: activation sets only grow under clean training", lemma21,
                 0.25});
  out.push_back({"zxd26-lemma23-24-trained",
                 "ZXD+26 Lemmas 23-24: trained alignments grow like log T; fresh activations",
                 lemma23_24, 0.1});
}

}  // namespace dpkit::validation
