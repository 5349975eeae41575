// ZXD+26: the lemmas at initialisation (Lemmas 16–19) behind Theorems 1–3, checked on the data
// of Definition 1 and the two-layer ReLU CNN of eq. (1) (dpkit::sim longtail simulator); the
// lemmas along training (Lemmas 21, 23, 24): zxd26_longtail_trained.cpp.
//
//  * zxd26-init-lemmas         [exact / Monte Carlo] Lemma 16 (‖ξ_i‖² within [½, 3/2]Tr for all
//                            i: failure rate falls as Tr/‖AᵀA‖_F grows), claim 3 (the fitted
//                            constant of max|⟨ξ_i, ξ_j⟩|/‖A_iᵀA_j‖_F against √log(n²/δ), reported),
//                            Lemma 17 (Gaussian-initialisation alignments, exact tail + union),
//                            Lemmas 18/19 with the corrected (Hoeffding) probability of Lemma 9.
//
// Everything is computed in the U basis of learners/longtail.hpp (exact: A_k = U diag(a_k)Uᵀ, so
// A_kᵀw = a_k ∘ w and ⟨w, u_k⟩ = ‖u_k‖w[k]). Alignments come from the public network API
// (noise_alignments).
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
#include "dpkit/core/random.hpp"
#include "dpkit/risk/longtail_bounds.hpp"
#include "dpkit/learners/longtail.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "dpkit/sim/statistics.hpp"
#include "zxd26_longtail_lemmas_common.hpp"

namespace dpkit::validation {
namespace {

using longtail_lemmas_detail::ledger;

// ---- configuration of zxd26-init-lemmas
// -------------------------------------------------------------------------------

// The configuration: the quick tier is zxd26_longtail.cpp's scaled-down synthetic setting, the
// full tier the paper's (ZXD+26 §5.1).
struct lemma_config {
  std::size_t K = 3, d = 150, m = 20;
  std::vector<std::size_t> counts{50, 50, 50};
  double signal = 0.5, s = 0.5, ncr = 200;
  std::size_t n() const { return std::accumulate(counts.begin(), counts.end(), std::size_t{0}); }
};

lemma_config lemma_config_for(const scenario_context& c) {
  lemma_config g;
  if (c.tier == tier::full) {
    g.K = 5;
    g.d = 1000;
    g.m = 100;
    g.counts.assign(5, 100);
    g.ncr = 1400;
  }
  return g;
}

learners::longtail_data_options data_options(const lemma_config& g,
                                             double spike,
                                             learners::zeta_law law) {
  learners::longtail_data_options o;
  o.classes = g.K;
  o.dimension = g.d;
  o.signal_norm = g.signal;
  o.spike = spike;
  o.law = law;
  return o;
}

// ‖A_kᵀA_j‖_op = max_l |a_k[l] a_j[l]| for diagonal spectra.
double cross_operator(const learners::noise_spectra& a, Eigen::Index k, Eigen::Index j) {
  return (a.row(k).array() * a.row(j).array()).abs().maxCoeff();
}

// ---- zxd26-init-lemmas
// -----------------------------------------------------------------------------

scenario_result init_lemmas(const scenario_context& c) {
  const lemma_config g = lemma_config_for(c);
  const double F = c.bound_factor;
  const std::size_t n = g.n(), K = g.K, d = g.d;
  const double D = static_cast<double>(d - K);
  const double lambda_paper = learners::spike_for_ncr(K, d, g.s, g.ncr);
  // (a) Spike grid: multiples of the bulk's noise mass √(s²(D − 1)) put the per-set failure
  // rate of Lemma 16's event on both sides of ½ (flat spectrum first, the paper's NCR last).
  const double bulk = g.s * std::sqrt(D - 1);
  std::vector<double> spikes = {g.s};
  for (double f : {0.15, 0.2, 0.25, 0.3, 0.35, 0.5, 1.0}) spikes.push_back(f * bulk);
  spikes.push_back(lambda_paper);
  const std::size_t G = spikes.size();
  std::vector<double> ratio(G);  // Tr(AᵀA)/‖AᵀA‖_F, decreasing along the grid
  for (std::size_t j = 0; j < G; ++j) {
    const learners::spiked_norms nm = learners::spiked_closed_form(K, d, g.s, spikes[j]);
    ratio[j] = nm.frobenius * nm.frobenius / nm.self_cross;
  }
  // (b) n grid: nested per-class prefixes of one data set.
  const std::vector<std::size_t> per_class = c.tier == tier::full
                                                 ? std::vector<std::size_t>{5, 10, 20, 50, 100}
                                                 : std::vector<std::size_t>{5, 10, 20, 50};
  const std::size_t NB = per_class.size();
  const double delta_b = 0.05;
  const std::vector<double> spikes_b = {g.s, lambda_paper};  // flat (NCR = 1) and the paper's
  // (d) widths: the configuration's m, a wider network (5m quick, 2m full), and m = 400, where
  // the corrected all-i bound n exp(-m/50) is below 1 (0.05 at n = 150, 0.17 at n = 500; it is
  // min(1, ·) = 1, a check that cannot fail, at the other two).
  const std::vector<std::size_t> widths = {g.m, c.tier == tier::full ? 2 * g.m : 5 * g.m, 400};
  const double sigma0 = 0.01;
  const double delta17 = 0.1;
  // quick: 60 replicates resolve the end-to-end Lemma 16 ordering (failure rate ~0.99 vs ~0.01)
  // by > 15x its interval and the adjacent grid points (refute-only, mostly ties) to about
  // +-0.15; an exact-value check refutes a frequency off by more than ~0.1 (Lemma 18, m = 20),
  // ~0.05 (m = 100) or ~0.1 (Lemma 19). The full tier's 300 resolve under half of that.
  // Each exact-value check is an equivalence with a margin relative to the claimed probability p
  // (the exact one at --bound-factor 1): a frequency shown within +-kExactRelative p, i.e. within
  // half of p (a simulator error a
  // reader of these lemmas would see; an absolute margin, 0.1 before, let a frequency of 0 to
  // 0.04 pass as "as predicted" against p = 2.4e-5). The quick size shows none of them (its
  // Clopper-Pearson intervals are wider than p/2 at every p here), so they read "not resolved"
  // there and can only refute. The full tier resolves Lemma 17 (4 000 draws, p = 0.021); its
  // Lemma 18-19 probabilities (0.018 at m = 100 down to 2.9e-6) need from a few thousand to
  // about 1e7 draws, so they stay refute-only there too (measured at seed 2026).
  constexpr double kExactRelative = 0.5;
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
            const learners::longtail_data data = learners::generate_longtail_data(
                data_options(g, spikes[j],
                             law == 0 ? learners::zeta_law::gaussian : learners::zeta_law::uniform),
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
          const learners::longtail_data data = learners::generate_longtail_data(
              data_options(g, spikes_b[s], learners::zeta_law::gaussian), big, st);
          const learners::noise_norms nn = learners::spectra_norms(data.spectra);
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
        const auto data = std::make_shared<const learners::longtail_data>(learners::generate_longtail_data(
            data_options(g, lambda_paper, learners::zeta_law::gaussian), g.counts, ds));
        learners::initialisation init;
        init.type = learners::initialisation::kind::gaussian;
        init.sigma0 = sigma0;
        for (std::size_t w = 0; w < widths.size(); ++w) {
          const std::size_t m = widths[w];
          random_stream is(c.seed, rep, 41 + w);
          const sim::vector w0 = learners::longtail_initial_weights(K, m, d, init, is);
          const learners::longtail_network net(data, m);
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
        learners::initialisation init;
        init.type = learners::initialisation::kind::gaussian;
        init.sigma0 = sigma0;
        random_stream is(c.seed, rep, 50);
        const sim::vector w0 = learners::longtail_initial_weights(K, g.m, d, init, is);
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
  // The family: every check of the ledger, and the printed Lemmas 18-19 at each width (below).
  const int n_checks = static_cast<int>(2 * (G - 1) + 2 + 2 + 3 * widths.size() + 1);
  const double conf = 1 - 0.05 / n_checks, zq = normal_quantile(conf);
  ledger L;
  // The parts of the self-check's wrong claim (self_checks.cpp), each to be rejected on its own.
  const std::string kTrendPart = "Lemma 16's trend reversed";
  const std::string kProbabilityPart = "the probabilities scaled by 0.25";
  // (a) The failure rate must not fall as the ratio falls (grid order: ratio decreasing):
  // paired x = fail_{j+1} − fail_j ≥ 0 (refute-only), and end to end resolved.
  const char* law_name[] = {"gaussian", "uniform"};
  for (std::size_t law = 0; law < 2; ++law) {
    for (std::size_t j = 0; j + 1 < G; ++j) {
      std::vector<double> x(R);
      for (std::size_t i = 0; i < R; ++i) x[i] = col(law * G + j + 1)[i] - col(law * G + j)[i];
      L.positive(std::string("L16 ") + law_name[law] + ": fail(ratio " + sig(ratio[j + 1], 3) +
                     ") - fail(ratio " + sig(ratio[j], 3) + ")",
                 x, zq, c.self_check, false, r, kTrendPart);
    }
    std::vector<double> x(R);
    for (std::size_t i = 0; i < R; ++i) x[i] = col(law * G + G - 1)[i] - col(law * G)[i];
    L.positive(std::string("L16 ") + law_name[law] + ": fail(paper ratio " + sig(ratio.back(), 4) +
                   ") - fail(flat, ratio " + sig(ratio.front(), 3) + ")",
               x, zq, c.self_check, true, r, kTrendPart);
  }
  // (c) Lemma 17.
  L.at_most(
      "L17: P[max_{j,r,k} |<w0_{j,r}, u_k>| > sqrt(2 log(4Km/delta)) ||u_k|| sigma0] <= "
      "delta = " +
          sig(delta17),
      k17, Rc, F * delta17, conf, false, r, kProbabilityPart);
  L.equals("L17: frequency = exact 1 - (1 - 2 Phi-bar(t))^{K^2 m}", k17, Rc, F * exact17,
           kExactRelative * F * exact17, conf, r, kProbabilityPart);
  // (d) Lemmas 18/19.
  std::vector<double> d_exact, d_emp, d_all, d_printed;
  for (std::size_t w = 0; w < widths.size(); ++w) {
    const auto m = static_cast<long long>(widths[w]);
    const double ex = risk::lemma9_exact(m);
    L.equals("L18 m = " + std::to_string(m) +
                 ": per example P[|S_i^(0)| < 0.4m] = P[Bin(m, "
                 "1/2) < 0.4m]",
             count(od + 2 * w), R * K, F * ex, kExactRelative * F * ex, conf, r, kProbabilityPart);
    const double corrected = std::min(1.0, static_cast<double>(n) * risk::lemma9_hoeffding(m));
    // A bound of 1 cannot fail: left out of the ledger (noted), not counted as a check passed —
    // in the self-check too, whose wrong claim is audited by the real claim's own checks.
    if (corrected < 1)
      L.at_most("L18 m = " + std::to_string(m) +
                    ": P[some i has |S_i^(0)| < 0.4m] <= min(1, n "
                    "exp(-m/50))",
                count(od + 2 * w + 1), R, F * corrected, conf, false, r, kProbabilityPart);
    else
      r.notes.push_back("L18 m = " + std::to_string(m) + ": the corrected all-i bound min(1, " +
                        std::to_string(n) + " exp(-m/50)) is 1 here, so it is not audited at " +
                        "this width (a check that cannot fail)");
    d_exact.push_back(ex);
    d_emp.push_back(static_cast<double>(count(od + 2 * w)) / static_cast<double>(R * K));
    d_all.push_back(res.observables[od + 2 * w + 1].stats.mean());
    d_printed.push_back(static_cast<double>(n) * risk::lemma9_claimed(m));
  }
  L.equals("L19: per neuron P[#{i : <w0, xi_i> > 0} < 0.4n] = P[Bin(n, 1/2) < 0.4n]",
           count(od + 2 * widths.size()), R, F * risk::lemma9_exact(static_cast<long long>(n)),
           kExactRelative * F * risk::lemma9_exact(static_cast<long long>(n)), conf, r,
           kProbabilityPart);
  if (c.self_check)
    L.finish_self_check(conf, {kTrendPart, kProbabilityPart}, r);
  else
    L.finish(conf, r);
  // Lemmas 18-19 as printed: "|S_i^(0)| >= 0.4m for all i with probability >= 1 - n e^{-8m/25}",
  // through the false Lemma 9 (zxd26-lemma9-false). Where the all-i failure frequency's
  // Clopper-Pearson interval lies wholly above min(1, n e^{-8m/25}), the printed probability is
  // contradicted: the scenario says refuted — it audits the corrected statement in its place,
  // which must hold — scoped to that statement (an expected refutation, docs/findings.md).
  std::string printed_wrong;
  for (std::size_t w = 0; w < widths.size(); ++w) {
    const auto m = static_cast<long long>(widths[w]);
    const double printed = std::min(1.0, static_cast<double>(n) * risk::lemma9_claimed(m));
    const sim::confidence_interval ci = sim::clopper_pearson(count(od + 2 * w + 1), R, conf);
    if (ci.lower > printed)
      printed_wrong += (printed_wrong.empty() ? "" : "; ") + std::string("m = ") +
                       std::to_string(m) + ": some i fails in " + sig(100 * ci.estimate, 3) +
                       "% of draws [" + sig(100 * ci.lower, 3) + ", " + sig(100 * ci.upper, 3) +
                       "%] against the printed <= " + sig(printed, 3);
  }
  if (!printed_wrong.empty() && r.verdict != verdict::violated && !c.self_check && F == 1) {
    r.verdict = verdict::refuted;
    r.verdict_reason =
        "refuted: Lemmas 18-19's printed probability (all i keep |S_i^(0)| >= 0.4m w.p. >= 1 - "
        "n exp(-8m/25), through the false Lemma 9) at n = " + std::to_string(n) + ", " +
        printed_wrong + "; in its place, Lemmas 16, 17 and Lemmas 18-19 with Lemma 9 corrected "
        "(exp(-m/50)): " + r.verdict_reason;
  }

  // Reports.
  const learners::spiked_norms paper = learners::spiked_closed_form(K, d, g.s, lambda_paper);
  {
    std::string a =
        "Lemma 16 failure rates (all i <= n = " + std::to_string(n) + "), ratio Tr/||A'A||_F: ";
    for (std::size_t j = 0; j < G; ++j)
      a += sig(ratio[j], 3) + " -> gaussian " + sig(res.observables[j].stats.mean(), 3) +
           ", uniform " + sig(res.observables[G + j].stats.mean(), 3) + (j + 1 < G ? "; " : "");
    r.notes.push_back(a);
    const learners::spiked_norms p5 =
        learners::spiked_closed_form(5, 1000, 0.5, learners::spike_for_ncr(5, 1000, 0.5, 1400));
    r.notes.push_back(
        "the paper's synthetic spectra (K = 5, d = 1000, NCR = 1400, spike " +
        sig(learners::spike_for_ncr(5, 1000, 0.5, 1400), 4) +
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

}  // namespace

void register_longtail_lemma_scenarios(std::vector<scenario>& out) {
  out.push_back({"zxd26-init-lemmas",
                 "ZXD+26 Lemmas 16-19: noise norms and correlations, Gaussian initialisation",
                 init_lemmas, 0.25});
}

}  // namespace dpkit::validation
