// WSK+26 (Wang et al. 2026, "Population risk bounds for KANs trained by DP-SGD with correlated
// noise")
// as validation scenarios on the two-layer KAN of dpkit::sim (kan.hpp); the DP-λCGD trends of
// Thm 4.1: wsk26_kan_trends.cpp.
//
//  * wsk26-lemmaB6-B7-random-kan — an EXACT check: on random KANs (several widths, tanh and
//    sigmoid, random points of the unit ball, W at the initialisation, inside the localisation
//    ball and at W = 0), the measured ‖∇f_W(x)‖, ‖∇²f_W(x)‖₂, the extreme eigenvalues of the
//    loss Hessian ∇²ℓ(y f_W(x)) and the self-bounding ratio ‖∇L_S‖²/L_S never exceed the explicit
//    constants of Lemmas B.6–B.7 (risk/kan_bounds.hpp). These bounds hold for every W and x
//    (given c: always; G_δ, H_δ: on Lemma B.5's event E_δ), so one exceedance refutes them.
//
// The simulator (dpkit::sim) knows no bound; the bounds come from dpkit::risk.
#include <algorithm>
#include <boost/math/distributions/normal.hpp>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <span>
#include <stdexcept>
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
using kan_detail::theorem_radius;

// ---- extreme eigenvalues of the loss Hessian of one example ------------------------------------

// λ_min and λ_max of A = diag(dv) + ρ a aᵀ with ρ ≥ 0, from the secular equation
// 1 + ρ Σ_j a_j²/(d_j − λ) = 0 and the interlacing d_(1) ≤ λ_1 ≤ d_(2),
// d_(m) ≤ λ_m ≤ d_(m) + ρ‖a‖² (Golub 1973, "Some modified matrix eigenvalue problems", SIAM
// Review 15, §5). Bisection keeps the secular function's sign at both ends, so the returned
// λ_min is ≤ the exact one and λ_max ≥ the exact one, each within a few ulp: a check
// "measured ≤ bound" on them is never easier than on the exact values.
std::pair<double, double> extreme_eigenvalues(const sim::vector& dv,
                                              const sim::vector& a,
                                              double rho) {
  const Eigen::Index m = dv.size();
  const double weight = rho * a.squaredNorm();
  // The two smallest diagonal entries (indices), and the largest.
  Eigen::Index i1 = 0;
  for (Eigen::Index j = 1; j < m; ++j)
    if (dv[j] < dv[i1]) i1 = j;
  double d2 = std::numeric_limits<double>::infinity();
  for (Eigen::Index j = 0; j < m; ++j)
    if (j != i1) d2 = std::min(d2, dv[j]);
  const double d1 = dv[i1], dmax = dv.maxCoeff();
  auto secular = [&](double lambda) {
    double s = 0;
    for (Eigen::Index j = 0; j < m; ++j) s += a[j] * a[j] / (dv[j] - lambda);
    return 1 + rho * s;  // increasing in λ between consecutive poles
  };
  auto bisect = [&](double lo, double hi) {  // secular(lo) < 0 ≤ secular(hi), lo < hi
    for (int it = 0; it < 200 && hi - lo > 4 * std::numeric_limits<double>::epsilon() *
                                               std::max(std::abs(lo), std::abs(hi));
         ++it) {
      const double mid = 0.5 * (lo + hi);
      if (mid <= lo || mid >= hi) break;
      (secular(mid) < 0 ? lo : hi) = mid;
    }
    return std::pair<double, double>{lo, hi};
  };
  // λ_max ∈ [d_(m), d_(m) + ρ‖a‖²]: the root above d_(m) (the secular function is < 0 just
  // above d_(m) when weight sits there); within 1e-15 of d_(m) the upper end is returned.
  double lambda_max = dmax;
  if (weight > 0) {
    const double hi = dmax + weight;  // secular(hi) ≥ 0 by the interlacing bound
    const double probe = dmax + 1e-300 + std::abs(dmax) * 1e-15;
    if (probe >= hi)
      lambda_max = hi;
    else if (secular(probe) >= 0)
      lambda_max = probe;
    else
      lambda_max = bisect(probe, hi).second;
  }
  // λ_min: d_(1) itself when it is a repeated entry or carries no weight; otherwise the root in
  // (d_(1), min{d_(2), d_(1) + ρ‖a‖²}] (or that end point if the secular function stays < 0).
  double lambda_min = d1;
  if (weight > 0 && a[i1] != 0 && d2 > d1) {
    const double hi = std::min(d2, d1 + weight);
    const double inside = std::nextafter(hi, d1);
    if (secular(inside) < 0)
      lambda_min = inside;  // λ_1 ∈ [inside, hi] (a root there, or λ_1 = d_(2) by interlacing)
    else
      lambda_min = bisect(d1, inside).first;
  }
  return {lambda_min, lambda_max};
}

// What Lemmas B.6–B.7 bound, at one (W, x) of a KAN with dataset labels (exact; kan.hpp):
// ‖∇f‖, ‖∇²f‖₂ (Lemma B.1), the loss ℓ(y f) and λ_min, λ_max of ∇²ℓ(y f).
struct point_measure {
  double gradient = 0, hessian = 0, loss = 0, lambda_min = 0, lambda_max = 0;
};

// The loss Hessian of example (x, y) is ℓ″(z)∇f∇fᵀ + ℓ′(z) y ∇²f with z = y f.
// With ∇_{w_j}f = a_j h and ∇²f = diag_j(β_j hhᵀ) both live on span{e_j ⊗ h}; in the orthonormal
// basis e_j ⊗ h/‖h‖ the Hessian is ‖h‖²(ℓ″ a aᵀ + ℓ′ y diag(β)) and it is 0 on the complement
// (dimension mdp − m > 0), so its spectrum is that m×m matrix's plus zeros — exactly.
class kan_probe {
 public:
  // Holds a reference to f: a temporary model would dangle, so binding one is an error.
  explicit kan_probe(learners::kan_model&&) = delete;
  explicit kan_probe(const learners::kan_model& f)
      : f_(f),
        m_(static_cast<Eigen::Index>(f.width())),
        dp_(static_cast<Eigen::Index>(f.input_dimension() * f.basis_size())),
        g_(static_cast<Eigen::Index>(f.dimension())),
        h_(dp_),
        beta_(m_),
        a_(m_),
        diag_(m_) {}

  point_measure at(const sim::vector& w, const sim::vector& x, double y) {
    point_measure r;
    f_.features(x, h_);
    f_.output_gradient(w, x, g_);
    f_.output_hessian_scales(w, x, beta_);
    const double hh = h_.squaredNorm();
    for (Eigen::Index j = 0; j < m_; ++j) a_[j] = g_.segment(j * dp_, dp_).dot(h_) / hh;
    r.gradient = g_.norm();
    r.hessian = beta_.cwiseAbs().maxCoeff() * hh;  // WSK+26 Lemma B.1
    const double z = y * f_.output(w, x);
    // Logistic loss (WSK+26 §3): ℓ(z) = log(1 + e^{−z}), ℓ′ = −1/(1 + e^z),
    // ℓ″ = e^z/(1 + e^z)².
    r.loss = z > 0 ? std::log1p(std::exp(-z)) : -z + std::log1p(std::exp(z));
    const double e = std::exp(-std::abs(z));
    const double l1 = z > 0 ? -e / (1 + e) : -1 / (1 + e);
    const double l2 = e / ((1 + e) * (1 + e));
    diag_ = (hh * l1 * y) * beta_;
    const auto [lo, hi] = extreme_eigenvalues(diag_, a_, hh * l2);
    r.lambda_min = std::min(0.0, lo);
    r.lambda_max = std::max(0.0, hi);
    return r;
  }

 private:
  const learners::kan_model& f_;
  Eigen::Index m_, dp_;
  sim::vector g_, h_, beta_, a_, diag_;
};

// ---- wsk26-lemmaB6-B7-random-kan ---------------------------------------------------------------

// The five checked inequalities (WSK+26 Lemma B.6 eqs. (3)–(4) and Lemma B.7's proof):
//   ‖∇f_W(x)‖ ≤ G,  ‖∇²f_W(x)‖₂ ≤ H,  λ_max(∇²ℓ) ≤ β = G²/4 + H,  −λ_min(∇²ℓ)/ℓ ≤ ν = H,
//   ‖∇L_S(W)‖² ≤ G² L_S(W).
constexpr int kChecks = 5;
const char* const kCheckNames[kChecks] = {
    "|grad f| <= G", "||Hess f|| <= H", "lambda_max(Hess loss) <= beta",
    "-lambda_min(Hess loss)/loss <= nu", "|grad L_S|^2/L_S <= G^2"};
const char* const kSlackNames[kChecks] = {
    "G_delta / max |grad f|", "H_delta / max ||Hess f||", "beta_delta / max lambda_max",
    "nu_delta / max(-lambda_min/loss)", "G_delta^2 / max |grad L_S|^2/L_S"};
// The same ratios as the figure's legend (gnuplot enhanced text).
const char* const kSlackLegend[kChecks] = {
    "G_δ / max |∇f|", "H_δ / max ‖∇^2f‖", "β_δ / max λ_{max}", "ν_δ / max(−λ_{min}/loss)",
    "G_δ^2 / max |∇L_S|^2/L_S"};

double bound_of(const risk::kan_curvature& k, int check) {
  switch (check) {
    case 0:
      return k.gradient;
    case 1:
      return k.hessian;
    case 2:
      return k.smoothness;
    case 3:
      return k.weak_convexity;
    default:
      return k.self_bounding;
  }
}

scenario_result lemma_b6_b7(const scenario_context& c) {
  const bool full = c.tier == tier::full;
  const std::vector<std::size_t> widths =
      full ? std::vector<std::size_t>{4, 16, 64, 256} : std::vector<std::size_t>{4, 16, 64};
  const std::vector<std::size_t> dims =
      full ? std::vector<std::size_t>{2, 10} : std::vector<std::size_t>{2};
  const learners::kan_activation acts[2] = {learners::kan_activation::tanh, learners::kan_activation::sigmoid};
  // (c, W_0) draws per configuration. quick: 4 (24 in all; 8 before): an exact check, so fewer
  // draws only visit fewer (c, W_0); the largest measured/bound ratio (~0.09) stays far from 1.
  const std::uint64_t draws = replicates_for(c, 4, 32);
  const std::size_t points = 200;  // inputs per draw
  const double delta = 0.01;       // E_δ of Lemma B.5
  // The radius of the W probes: Thm 4.1's R* at wsk26-dplcgd-kan-trends' (n, T, δ).
  const double radius_steps = 300, radius_examples = 200;
  const double F = c.bound_factor;

  scenario_result r;
  r.id = "wsk26-lemmaB6-B7-random-kan";
  r.title = "WSK+26 Lemmas B.6-B.7: gradient, Hessian and curvature bounds on random KANs";
  r.source = "WSK+26 Lemmas B.5-B.7 (proofs, eqs. (3)-(5)), Lemma B.1";
  r.claim =
      "exact check: for every sampled (c, W, x) the measured |grad f_W(x)|, ||Hess f_W(x)||_2, "
      "lambda_max and -lambda_min/loss of the loss Hessian and |grad L_S|^2/L_S are <= Lemma "
      "B.6-B.7's explicit constants (with the realised c always; G_delta, H_delta when c is in "
      "E_delta)";
  r.parameters = {{"widths_m", widths},
                  {"input_dimensions_d", dims},
                  {"activations", {"tanh", "sigmoid"}},
                  {"basis", "cubic B-splines, G = 5 on [-1, 1] (p = 8, h = 0.4)"},
                  {"draws_per_configuration", draws},
                  {"points_per_draw", points},
                  {"inputs", "unit_ball_margin_data(margin 0.1, direction 1/sqrt(d)): |x| <= 1"},
                  {"W_probes",
                   "W_0; W_0 + (R*/2) U; W_0 + R* U (U uniform on the sphere); W = 0 (every s_j "
                   "= 0, where sigma' peaks)"},
                  {"R_star",
                   "(log T + sqrt(log(n/delta)))/gamma, T = 300, n = 200, gamma = "
                   "ntk_margin of the draw (Thm 4.1, constant 1)"},
                  {"delta", delta},
                  {"tier", to_string(c.tier)}};

  // Per configuration and check: the largest measured value (for the slack) and the largest
  // measured/bound ratio (realised-c bound, and E_δ bound on draws inside E_δ).
  double worst_ratio = 0;
  std::string worst_where;
  int exceed = 0;
  std::uint64_t total = 0, outside_event = 0, dense_checked = 0;
  double dense_error = 0;
  figure& fig = r.figure;
  fig.title = "Slack of Lemmas B.6-B.7 on random KANs (d = 2, p = 8)";
  fig.x_label = "width m";
  fig.y_label = "bound / largest measured value";
  fig.log_x = fig.log_y = true;
  std::vector<series> slack_series;
  for (int a = 0; a < 2; ++a)
    for (int k = 0; k < kChecks; ++k) {
      series s;
      s.name = std::string(kSlackLegend[k]) + ", " + learners::to_string(acts[a]);
      s.style = "lines";
      s.colour = k;
      s.dash = a + 1;
      slack_series.push_back(std::move(s));
    }
  int config_index = 0;
  for (const std::size_t d : dims)
    for (int a = 0; a < 2; ++a)
      for (const std::size_t m : widths) {
        const std::uint64_t stream_base = 100 + 10 * static_cast<std::uint64_t>(config_index++);
        learners::kan_options o;
        o.width = m;
        o.activation = acts[a];
        const std::size_t p = o.grid_size + static_cast<std::size_t>(o.spline_degree);
        const risk::kan_constants k = constants_of(o);
        const auto ml = static_cast<long long>(m), pl = static_cast<long long>(p);
        const risk::kan_curvature event_bound = risk::kan_curvature_bounds(k, ml, pl, delta);
        const risk::second_layer_radii b5 = risk::lemma_b5(ml, pl, delta);
        // Observables: 5 measured maxima, 5 ratios to the realised-c bounds, E_δ membership,
        // γ, R*, and the dense cross-check's largest discrepancy.
        std::vector<sim::observable> obs;
        for (int q = 0; q < kChecks; ++q)
          obs.push_back({std::string("max ") + kCheckNames[q], true});
        for (int q = 0; q < kChecks; ++q)
          obs.push_back({std::string("ratio given c ") + kCheckNames[q], true});
        obs.push_back({"c in E_delta", true});
        obs.push_back({"gamma", true});
        obs.push_back({"R_star", true});
        obs.push_back({"dense eigenvalue discrepancy", true});
        obs.push_back({"dense checked", true});
        sim::monte_carlo_options mc = mc_options(c, draws, r.id + " m = " + std::to_string(m));
        mc.chunk = 1;  // a few expensive draws: one per chunk, so threads share them
        const sim::monte_carlo_result res = sim::run_monte_carlo(
            obs,
            [&](std::uint64_t rep, std::span<double> out) {
              random_stream data_s(c.seed, rep, stream_base), init_s(c.seed, rep, stream_base + 1),
                  probe_s(c.seed, rep, stream_base + 2);
              const auto data = std::make_shared<const sim::dataset>(sim::unit_ball_margin_data(
                  points, sim::vector::Ones(static_cast<Eigen::Index>(d)), 0.1, data_s));
              const sim::vector cc = learners::kan_second_layer(m, p, init_s);
              const sim::vector w0 = learners::kan_initial_weights(m, d, p, init_s);
              const learners::kan_model f(data, o, cc);
              const double cblock = block_norm(cc, m, p);
              const risk::kan_curvature given =
                  risk::kan_curvature_given_c(k, ml, pl, cc.norm(), cblock);
              const learners::margin_result margin = learners::ntk_margin(f, w0);
              const double R = margin.gamma > 0 ? theorem_radius(margin.gamma, radius_steps,
                                                                 radius_examples, delta)
                                                : w0.norm();
              // The W probes.
              std::vector<sim::vector> probes;
              probes.push_back(w0);
              for (const double scale : {0.5, 1.0}) {
                sim::vector u(w0.size());
                probe_s.fill_normal({u.data(), static_cast<std::size_t>(u.size())});
                probes.push_back(w0 + scale * R * u / u.norm());
              }
              probes.push_back(sim::vector::Zero(w0.size()));
              double mx[kChecks] = {0, 0, 0, 0, 0};
              double discrepancy = 0;
              bool dense = false;
              kan_probe probe(f);
              sim::vector g(w0.size()), risk_gradient(w0.size());
              for (std::size_t pi = 0; pi < probes.size(); ++pi) {
                const sim::vector& w = probes[pi];
                for (std::size_t i = 0; i < points; ++i) {
                  const sim::vector x =
                      data->features.row(static_cast<Eigen::Index>(i)).transpose();
                  const double y = data->labels[static_cast<Eigen::Index>(i)];
                  const point_measure pm = probe.at(w, x, y);
                  mx[0] = std::max(mx[0], pm.gradient);
                  mx[1] = std::max(mx[1], pm.hessian);
                  mx[2] = std::max(mx[2], pm.lambda_max);
                  mx[3] = std::max(mx[3], -pm.lambda_min / pm.loss);
                  // The m×m reduction against a dense eigendecomposition of the D×D loss Hessian
                  // (kan_model::hessian) on small models: first two points of every probe.
                  if (f.dimension() <= 128 && i < 2) {
                    const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(
                        f.hessian(i, w), Eigen::EigenvaluesOnly);
                    const double scale = std::max(1.0, eig.eigenvalues().cwiseAbs().maxCoeff());
                    discrepancy =
                        std::max({discrepancy,
                                  std::abs(eig.eigenvalues().minCoeff() - pm.lambda_min) / scale,
                                  std::abs(eig.eigenvalues().maxCoeff() - pm.lambda_max) / scale});
                    dense = true;
                  }
                }
                // Lemma B.7's self-bounding inequality on the whole sample.
                risk_gradient.setZero();
                for (std::size_t i = 0; i < points; ++i) {
                  f.gradient(i, w, g);
                  risk_gradient += g;
                }
                risk_gradient /= static_cast<double>(points);
                mx[4] = std::max(mx[4], risk_gradient.squaredNorm() / f.empirical_risk(w));
              }
              for (int q = 0; q < kChecks; ++q) {
                out[static_cast<std::size_t>(q)] = mx[q];
                out[static_cast<std::size_t>(kChecks + q)] = mx[q] / bound_of(given, q);
              }
              out[10] = cc.norm() <= b5.norm && cblock <= b5.block_norm ? 1 : 0;
              out[11] = margin.gamma;
              out[12] = R;
              out[13] = discrepancy;
              out[14] = dense ? 1 : 0;
            },
            mc);
        total += draws;
        const auto& obsr = res.observables;
        const auto& in_event = obsr[10].samples;
        for (std::size_t rep = 0; rep < in_event.size(); ++rep)
          if (in_event[rep] == 0) ++outside_event;
        dense_error = std::max(dense_error, obsr[13].stats.max());
        if (obsr[14].stats.max() > 0) dense_checked += draws;
        std::string row = std::string(learners::to_string(acts[a])) + ", d = " + std::to_string(d) +
                          ", m = " + std::to_string(m) + ":";
        for (int q = 0; q < kChecks; ++q) {
          // E_δ bound: only draws inside E_δ (Lemma B.5); the realised-c bound: every draw.
          double max_in_event = 0;
          for (std::size_t rep = 0; rep < in_event.size(); ++rep)
            if (in_event[rep] != 0)
              max_in_event = std::max(max_in_event, obsr[static_cast<std::size_t>(q)].samples[rep]);
          const double b = bound_of(event_bound, q);
          const double ratio_event = max_in_event / b;
          const double ratio_given = obsr[static_cast<std::size_t>(kChecks + q)].stats.max();
          for (const auto& [ratio, what] :
               {std::pair<double, const char*>{ratio_event, "E_delta bound"},
                std::pair<double, const char*>{ratio_given, "realised-c bound"}}) {
            if (ratio > F) ++exceed;
            if (ratio > worst_ratio) {
              worst_ratio = ratio;
              worst_where = std::string(kCheckNames[q]) + " (" + what + "), " +
                            learners::to_string(acts[a]) + ", d = " + std::to_string(d) +
                            ", m = " + std::to_string(m);
            }
          }
          const double measured = obsr[static_cast<std::size_t>(q)].stats.max();
          // Appended piecewise: GCC 12 at -O3 warns falsely (-Wrestrict, GCC bug 105651) on
          // const char* + std::string chains.
          row.append(" ").append(kSlackNames[q]).append(" = ").append(sig(b / measured, 3));
          row.append(" (max ").append(sig(measured, 3)).append(", bound ").append(sig(b, 3));
          row.append("; realised c: ").append(sig(1 / ratio_given, 3)).append(");");
          if (d == dims.front()) {
            series& s = slack_series[static_cast<std::size_t>(a * kChecks + q)];
            s.x.push_back(static_cast<double>(m));
            s.y.push_back(b / measured);
          }
        }
        row += " gamma in [" + sig(obsr[11].stats.min(), 3) + ", " + sig(obsr[11].stats.max(), 3) +
               "], R* in [" + sig(obsr[12].stats.min(), 3) + ", " + sig(obsr[12].stats.max(), 3) +
               "]";
        r.notes.push_back(row);
      }
  // The cross-check of the m×m reduction is a correctness check of this scenario, not of the
  // lemma: a discrepancy means the measured eigenvalues are wrong.
  if (dense_error > 1e-9)
    throw std::runtime_error(
        "wsk26-lemmaB6-B7-random-kan: the m x m loss-Hessian reduction "
        "disagrees with the dense eigendecomposition by " +
        sig(dense_error, 3));
  fig.data = std::move(slack_series);
  series line;  // the scaled claim: slack F (1 = the lemma itself)
  line.name =
      F == 1 ? "bound = measured (slack 1)" : "slack " + sig(F) + " (bound × " + sig(F) + ")";
  line.x = {static_cast<double>(widths.front()), static_cast<double>(widths.back())};
  line.y = {F, F};
  line.colour = 7;
  line.dash = 3;
  fig.data.push_back(std::move(line));

  r.verdict = exceed > 0 ? verdict::violated : verdict::holds;
  r.verdict_reason =
      exceed > 0
          ? std::to_string(exceed) + " (configuration, check, bound) maxima exceed " +
                (F == 1 ? std::string("the bound") : "the bound x " + sig(F)) +
                "; worst measured/bound " + sig(worst_ratio, 3) + " at " + worst_where
          : "every measured value is below its bound" + (F == 1 ? std::string() : " x " + sig(F)) +
                "; the largest measured/bound is " + sig(worst_ratio, 3) + " (" + worst_where + ")";
  r.quantity = "largest measured/bound over all checks";
  r.bound = F;
  r.estimate = worst_ratio;
  r.estimate_lo = worst_ratio;  // a maximum over the sample, no sampling interval
  r.estimate_hi = worst_ratio;
  r.confidence = 1;
  r.tightness = F / worst_ratio;
  r.replicates = total;
  r.notes.insert(
      r.notes.begin(),
      "exact check, not a statistical one: Lemma B.6 holds for every W and every |x| <= 1 (with "
      "the realised c deterministically, with G_delta, H_delta on E_delta), so a single "
      "measured value above its bound would refute it; the verdict is violated iff one "
      "exceeds. The sampled W, x are not a worst case: 'holds' means no counterexample among " +
          std::to_string(total) + " draws x 4 W probes x " + std::to_string(points) + " points");
  r.notes.insert(r.notes.begin() + 1,
                 "eigenvalues of the loss Hessian: exact m x m reduction (the Hessian lives on "
                 "span{e_j (x) h(x)}) solved by the secular equation; cross-checked against a "
                 "dense eigendecomposition of the D x D Hessian where D <= 128 (" +
                     std::to_string(dense_checked) + " draws): largest discrepancy " +
                     sig(dense_error, 3) + " (relative)");
  r.notes.insert(r.notes.begin() + 2, "draws outside Lemma B.5's E_delta (delta = " + sig(delta) +
                                          "; the E_delta bounds are not checked there): " +
                                          std::to_string(outside_event) + " of " +
                                          std::to_string(total));
  r.notes.push_back(
      "self-check: --bound-factor F multiplies every bound, so any F below the largest "
      "measured/bound (" +
      sig(worst_ratio, 3) +
      " here) must be refuted; the registered factor 0.01 leaves a margin of " +
      sig(worst_ratio / 0.01, 2) + "x for other seeds");
  return r;
}

}  // namespace

void register_kan_scenarios(std::vector<scenario>& out) {
  // Exact check with bounds loose by design (slack 8-10^5x): the largest measured/bound is
  // 0.093 (quick) / 0.119 (full), the realised-c gradient bound at m = 4 (seed 2026), so at 0.01
  // measured values exceed the scaled bounds with a 9x margin (docs/kan.md "Validation
  // scenarios").
  out.push_back({"wsk26-lemmaB6-B7-random-kan",
                 "WSK+26 Lemmas B.6-B.7: gradient/Hessian/curvature bounds on random KANs",
                 lemma_b6_b7, 0.01});
}

}  // namespace dpkit::validation
