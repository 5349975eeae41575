// dpkit simulate --algorithm <SWX+23 GLM learner> (simulate_papers.hpp): the phased SGD family
// (Algorithms 1–3, 5, 6, 9) on a well-specified GLM population, DP projected GD for ReLU
// regression (Algorithm 7) and adaptive DP batched GD for agnostic ReLU regression (Algorithm
// 8). Each replicate draws fresh data and measures the population excess risk; the privacy
// report certifies ε of the Gaussian releases by exact Gaussian DP, for the paper's noise
// multiplier and for the tight one.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "dpkit/core/random.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "dpkit/learners/glm.hpp"
#include "simulate_papers_detail.hpp"

namespace dpkit::cli::detail::papers {
namespace {

learners::glm_link link_of(const std::string& s) {
  if (s == "sigmoid") return learners::glm_link::sigmoid;
  if (s == "tanh") return learners::glm_link::tanh;
  return learners::glm_link::relu;
}

/// The teacher the flags describe, checked before any replicate: its limits
/// (learners::kLargestTeacherNorm) said in the flags' words (--w-norm 1e308 once failed inside
/// a replicate with "label 38 is inf").
void check_teacher(const learners::glm_teacher& teacher) {
  try {
    teacher.validate("dpkit simulate");
  } catch (const std::exception& e) {
    throw usage_error(library_reason(
        e, nullptr, {{"teacher.|w_star|", "--w-norm"}, {"teacher.noise_scale", "--label-noise"}}));
  }
}

/// ε certified for `compositions` Gaussian releases of noise multiplier z (exact GDP:
/// μ = √k/z; Dong, Roth & Su 2022, Cor. 2.13 for the composition, Balle & Wang 2018 for δ(ε)).
/// ∞ without noise (μ = ∞) and where μ exceeds the largest μ-GDP conversion, both by
/// gdp_epsilon_upper's rule (the paper's noise at δ within 1e-16 of 1 gave μ = 3.4e7, which once
/// failed the run with "mu is ...").
double gaussian_epsilon(double z, long long compositions, double delta) {
  return divergence::gdp_epsilon_upper(std::sqrt(static_cast<double>(compositions)) / z, delta);
}

/// The smallest noise multiplier for which `compositions` Gaussian releases are (ε, δ)-DP.
double gaussian_tight_multiplier(double epsilon, double delta, long long compositions) {
  const auto mu = divergence::gdp_mu(epsilon, delta);
  if (!mu.converged()) throw numerical_failure("GDP calibration did not converge: " + mu.message);
  return std::sqrt(static_cast<double>(compositions)) / mu.value;
}

/// The privacy report of a run made of Gaussian releases (SWX+23 Algs 1–9): the noise used,
/// the paper's and the tight noise multiplier, and the certified ε of each (exact GDP).
json gaussian_privacy(const std::string& calibration,
                      double z_paper,
                      double z_tight,
                      double z_used,
                      long long k,
                      double epsilon,
                      double delta,
                      const std::string& sensitivity) {
  const double eps_paper = gaussian_epsilon(z_paper, k, delta);
  const double eps_used = gaussian_epsilon(z_used, k, delta);
  json privacy = {
      {"accounting", "exact Gaussian DP: mu = sqrt(compositions)/z, delta(eps) of mu-GDP"},
      {"compositions", k},
      {"noise_multiplier_paper", z_paper},
      {"epsilon_certified_paper", number_or_null(eps_paper)},
      {"noise_multiplier_tight", z_tight},
      {"noise_multiplier_used", z_used},
      {"epsilon_certified_used", number_or_null(eps_used)},
      {"kind",
       "upper-bound (tight for the Gaussian releases; conditional on the sensitivity "
       "argument of the paper's proof, see 'sensitivity')"},
      {"sensitivity", sensitivity}};
  privacy["summary"] = fmt::format(
      "{} calibration, noise multiplier z = {} ({} release(s) per record): certified eps = {} at "
      "delta = {} (exact GDP). The paper's z = {} certifies eps = {}; the tight z for eps = {} is "
      "{} (the paper's noise is {}x the tight one).",
      calibration, format_number(z_used), k, format_number(eps_used), format_number(delta),
      format_number(z_paper), format_number(eps_paper), format_number(epsilon),
      format_number(z_tight), format_number(z_paper / z_tight));
  return privacy;
}

}  // namespace

// ---- SWX+23 GLM family (Algs 1, 2, 3, 5, 6, 9) ------------------------------------------------

int run_glm(const paper_common_options& c, const paper_options& o) {
  const auto& info = info_of(c.algorithm);
  reject_unsupported(c,
                     {"--steps", "--noise-std", "--clip", "--radius", "--batch-size",
                      "--sampling-rate", "--classes", "--label-noise"},
                     given_of(c));
  const learners::glm_link link = link_of(o.link);
  if (link == learners::glm_link::relu)
    throw usage_error(
        "--link relu: Algorithms 1-3, 5, 6, 9 need a bounded link (Assumption 1); "
        "use --algorithm relu-dp-pgd for the ReLU link");
  const auto n = static_cast<std::size_t>(c.examples);
  const auto d = static_cast<std::size_t>(c.dimension);
  const std::size_t theta = o.rank ? static_cast<std::size_t>(*o.rank) : d;
  if (theta > d)
    throw usage_error("--rank is " + std::to_string(theta) + ", but must be <= --dimension (" +
                      std::to_string(d) + ")");
  const bool kernel = c.algorithm == "dp-kernel-glm";
  if (kernel) {  // the features' count, checked before any replicate runs, in the flags' words
    try {
      (void)learners::polynomial_feature_dimension(d, o.kernel_degree);
    } catch (const std::exception& e) {
      throw usage_error(library_reason(e, nullptr, {{"degree", "--kernel-degree"}}));
    }
  }

  // The population: x uniform on the unit sphere of the first θ axes (rank θ), w* = (W/√θ)(1, …,
  // 1, 0, …) (‖w*‖ = W), labels binary with E[y|x] = σ(⟨w*, x⟩) (well specified, model (1)).
  learners::glm_population pop;
  pop.design = learners::glm_design::coordinate(d, theta, learners::glm_design_law::unit_sphere);
  pop.teacher.link = link;
  pop.teacher.w_star = sim::vector::Zero(static_cast<Eigen::Index>(d));
  pop.teacher.w_star.head(static_cast<Eigen::Index>(theta))
      .setConstant(o.w_norm / std::sqrt(static_cast<double>(theta)));
  pop.teacher.noise = learners::glm_label_noise::binary;
  check_teacher(pop.teacher);

  learners::phased_sgd_options a;
  a.link = link;
  a.epsilon = o.epsilon;
  a.delta = o.delta;
  a.eta = c.learning_rate.value_or(0);
  a.theta_rank = static_cast<double>(theta);
  a.jl_dim = o.jl_dim ? static_cast<std::size_t>(*o.jl_dim) : 0;
  a.beta_smooth = o.moreau_beta.value_or(0);
  a.gamma_oracle = o.oracle_gamma.value_or(0);
  a.oracle = o.oracle == "algorithm4" ? learners::moreau_oracle_kind::algorithm4
                                      : learners::moreau_oracle_kind::exact;

  auto run = [&](const sim::dataset& data, const learners::phased_sgd_options& opt,
                 const sim::random_key& key) {
    if (c.algorithm == "phased-sgd") return learners::phased_sgd(data, opt, key);
    if (c.algorithm == "jl-phased-sgd") return learners::jl_phased_sgd(data, opt, key);
    if (c.algorithm == "moreau-phased-sgd") return learners::moreau_phased_sgd(data, opt, key);
    if (c.algorithm == "jl-moreau-phased-sgd") return learners::jl_moreau_phased_sgd(data, opt, key);
    if (c.algorithm == "dp-glm") return learners::dp_glm(data, opt, key);
    return learners::dp_kernel_glm(data, o.kernel_degree, opt, key);
  };
  auto draw_data = [&](std::uint64_t r) {
    random_stream fs(c.seed, r, kFeatures), ls(c.seed, r, kLabels);
    return pop.sample(n, fs, ls);
  };

  // A probe run (replicate 0) gives the paper's noise multiplier and the number of releases a
  // record enters; the tight calibration then replaces the noise by the smallest multiplier for
  // the same (ε, δ) under exact Gaussian DP.
  const learners::glm_result probe = run(draw_data(0), a, sim::random_key{c.seed, 0, 0});
  const double z_paper = probe.privacy.noise_multiplier;
  const long long k = std::max(1LL, probe.privacy.compositions);
  const double z_tight = gaussian_tight_multiplier(o.epsilon, o.delta, k);
  if (o.calibration == "tight") a.noise_multiplier = z_tight;
  const double z_used = o.calibration == "tight" ? z_tight : z_paper;
  const bool jl = probe.jl.size() > 0;

  std::vector<sim::observable> obs = {{"excess_risk"}, {"norm"}};
  std::vector<std::string> meaning = {
      kernel ? "E_x (sigma(<w, psi(x)>) - E[y|x])^2 (Monte Carlo on fresh x)"
             : "L_P(w) - L_P(w*) = E_x (sigma(<w,x>) - sigma(<w*,x>))^2 (Monte Carlo on fresh x)",
      "|w|"};
  if (!kernel) {
    obs.push_back({"surrogate_excess_risk"});
    meaning.push_back(
        "L^l_P(w) - L^l_P(w*), the surrogate's excess (Lemma 3: excess <= 2G x this)");
  }
  if (jl) {
    obs.push_back({"jl_max_norm"});
    meaning.push_back("max_i |Phi x_i| (the privacy proof needs <= 2: the JL event)");
  }
  const auto samples = static_cast<std::size_t>(o.risk_samples);
  auto replicate = [&](std::uint64_t r, std::span<double> out) {
    const sim::dataset data = draw_data(r);
    const learners::glm_result res = run(data, a, sim::random_key{c.seed, r, 0});
    // A diverged run (an overflowing step) has no risk to evaluate: its observables are NaN,
    // which the report flags as DIVERGED (it was refused as bad input, "w(0) is nan").
    if (!res.w.allFinite()) {
      std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
      return;
    }
    random_stream es(c.seed, r, kEvaluation);
    std::size_t j = 0;
    if (kernel) {
      // h(x) = σ(⟨w, ψ(x)⟩) against the Bayes regressor E[y|x] = σ(⟨w*, x⟩) on fresh x.
      const Eigen::MatrixXd x = pop.design.sample(samples, es);
      const Eigen::VectorXd h = learners::kernel_predict(link, res.w, x, o.kernel_degree);
      const Eigen::VectorXd b = x * pop.teacher.w_star;
      double sum = 0;
      for (Eigen::Index i = 0; i < h.size(); ++i) {
        const double e = h[i] - pop.teacher.conditional_mean(b[i]);
        sum += e * e;
      }
      out[j++] = sum / static_cast<double>(samples);
    } else {
      out[j++] = pop.excess_risk(link, res.w, samples, es).value;
    }
    out[j++] = res.w.norm();
    if (!kernel) {
      random_stream ss(c.seed, r, kEvaluation + 100);
      out[j++] = pop.surrogate_excess_risk(link, res.w, samples, ss).value;
    }
    if (jl) out[j++] = res.jl_max_norm;
  };
  const auto mc = run_replicates(c, obs, replicate);

  report rep;
  rep.tool = "dpkit simulate";
  rep.title = fmt::format(
      "{} x {} replicates: {}, n = {}, d = {}, theta = {}, eps = {}, delta = {}", c.algorithm,
      c.replicates, info.source, n, d, theta, format_number(o.epsilon), format_number(o.delta));
  rep.parameters = {{"algorithm", c.algorithm},
                    {"source", info.source},
                    {"link", o.link},
                    {"examples", n},
                    {"dimension", d},
                    {"rank", theta},
                    {"w_norm", o.w_norm},
                    {"epsilon", o.epsilon},
                    {"delta", o.delta},
                    {"calibration", o.calibration},
                    {"replicates", c.replicates},
                    {"seed", c.seed},
                    {"risk_samples", samples},
                    {"threads", mc.threads}};
  if (!probe.branch.empty()) rep.parameters["branch"] = probe.branch;
  if (kernel) rep.parameters["kernel_degree"] = o.kernel_degree;
  json phases = json::array();
  for (const auto& rel : probe.releases)
    phases.push_back(json{{"eta", rel.eta},
                          {"samples", rel.samples},
                          {"sensitivity", rel.sensitivity},
                          {"paper_std", rel.paper_std}});
  rep.parameters["releases_replicate0"] = phases;
  summarise(mc, meaning, rep);

  add_privacy_note(rep, gaussian_privacy(o.calibration, z_paper, z_tight, z_used, k, o.epsilon,
                                         o.delta, probe.privacy.note));
  rep.notes.push_back("sensitivity: " + probe.privacy.note);
  if (jl)
    rep.notes.push_back(
        "JL: the paper adds delta/2 for the event max|Phi x| <= 2; see "
        "jl_max_norm (its max over replicates) for whether it held here");
  rep.notes.push_back(fmt::format(
      "data: x uniform on the unit sphere of a rank-{} subspace of R^{}, w* = (W/sqrt(theta))(1, "
      "..., 1), W = {}, binary labels with E[y|x] = {}(<w*, x>); fresh data per replicate",
      theta, d, format_number(o.w_norm), o.link));
  rep.notes.push_back(fmt::format("{} replicates on {} thread(s) in {:.2f} s", mc.replicates,
                                  mc.threads, mc.seconds));
  return emit_paper_run(c, rep, mc, sim::non_finite_observables(mc));
}

// ---- SWX+23 Alg 7 (ReLU, well specified) and Alg 8 (agnostic ReLU)
// ------------------------------

int run_relu(const paper_common_options& c, const paper_options& o) {
  const auto& info = info_of(c.algorithm);
  const bool adaptive = c.algorithm == "adaptive-batched-gd";
  reject_unsupported(
      c, {"--noise-std", "--clip", "--radius", "--batch-size", "--sampling-rate", "--classes"},
      given_of(c));
  const auto n = static_cast<std::size_t>(c.examples);
  const auto d = static_cast<std::size_t>(c.dimension);
  const double h = c.label_noise.value_or(0.1);  // uniform label noise on [−h, h]

  learners::glm_population pop;
  pop.teacher.link = learners::glm_link::relu;
  pop.teacher.w_star = sim::vector::Constant(static_cast<Eigen::Index>(d),
                                             o.w_norm / std::sqrt(static_cast<double>(d)));
  pop.teacher.noise = learners::glm_label_noise::uniform;
  pop.teacher.noise_scale = h;
  check_teacher(pop.teacher);
  double B = o.w_norm + h;
  if (adaptive) {
    // Assumption 2: x isotropic log-concave AND bounded — uniform in the ball of radius
    // √(d + 2) (E xxᵀ = I; N(0, I_d) would break the bound ‖x‖ ≤ √d that the
    // sensitivity needs for about half the records). Labels clamped to [−B, B] with B = 2W + h,
    // so E[y|x] ≠ ReLU(⟨w*, x⟩) where the clamp is active: agnostic (opt > 0).
    pop.design = learners::glm_design::coordinate(d, d, learners::glm_design_law::isotropic_ball);
    B = 2 * o.w_norm + h;
    pop.teacher.clamp = B;
  } else {
    pop.design = learners::glm_design::coordinate(d, d, learners::glm_design_law::unit_sphere);
  }
  auto draw_data = [&](std::uint64_t r) {
    random_stream fs(c.seed, r, kFeatures), ls(c.seed, r, kLabels);
    return pop.sample(n, fs, ls);
  };

  learners::relu_pgd_options p;
  p.epsilon = o.epsilon;
  p.delta = o.delta;
  p.W_norm = o.w_norm;
  p.B_bound = B;
  p.jl_dim = o.jl_dim ? static_cast<std::size_t>(*o.jl_dim) : 0;
  p.steps = c.steps ? static_cast<long>(*c.steps) : 0;
  p.eta = c.learning_rate.value_or(0);
  learners::adaptive_gd_options g;
  g.epsilon = o.epsilon;
  g.delta = o.delta;
  g.B_bound = B;
  // T = 10 chunks unless given: the noise is proportional to ‖w‖ (adaptive), so small chunks
  // m = n/T make the noise feed back into ‖w‖ and the iterates diverge (docs/nonconvex.md).
  g.steps = c.steps ? static_cast<long>(*c.steps) : 10;
  g.feature_norm_bound = std::sqrt(static_cast<double>(d) + 2);
  if (c.learning_rate) g.eta = *c.learning_rate;
  g.corrected_sensitivity = o.corrected_sensitivity;
  auto run = [&](const sim::dataset& data, const sim::random_key& key) {
    return adaptive ? learners::adaptive_batched_gd(data, g, key) : learners::relu_dp_pgd(data, p, key);
  };

  const learners::glm_result probe = run(draw_data(0), sim::random_key{c.seed, 0, 0});
  const double z_paper = probe.privacy.noise_multiplier;
  const long long k = std::max(1LL, probe.privacy.compositions);
  const double z_tight = gaussian_tight_multiplier(o.epsilon, o.delta, k);
  if (o.calibration == "tight") {
    p.noise_multiplier = z_tight;
    g.noise_multiplier = z_tight;
  }
  const double z_used = o.calibration == "tight" ? z_tight : z_paper;

  std::vector<sim::observable> obs;
  std::vector<std::string> meaning;
  const auto samples = static_cast<std::size_t>(o.risk_samples);
  sim::vector w_star_l;
  double opt = NAN;
  if (adaptive) {
    obs = {{"risk"}, {"distance_to_w_star"}, {"norm"}, {"features_over_bound"}};
    meaning = {"L_P(w_T) = E (ReLU(<w_T, x>) - y)^2 (Monte Carlo on fresh x, E_y exact)",
               "|w_T - w*| (w* the teacher)", "|w_T|",
               "records with |x| > sqrt(d + 2) (outside the sensitivity bound; 0 by construction)"};
    w_star_l = pop.teacher.w_star;
    random_stream os(c.seed, 0, kEvaluation + 200);
    opt = pop.risk(learners::glm_link::relu, pop.teacher.w_star, 200000, os).value;
  } else {
    obs = {{"excess_risk"}, {"norm"}, {"jl_max_norm"}};
    meaning = {"L_P(w) - L_P(w*) = E_x (ReLU(<w,x>) - ReLU(<w*,x>))^2 (Monte Carlo on fresh x)",
               "|w|", "max_i |Phi x_i| (the privacy proof needs <= 2: the JL event)"};
  }
  auto replicate = [&](std::uint64_t r, std::span<double> out) {
    const sim::dataset data = draw_data(r);
    const learners::glm_result res = run(data, sim::random_key{c.seed, r, 0});
    if (!res.w.allFinite()) {  // diverged: see above
      std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
      return;
    }
    random_stream es(c.seed, r, kEvaluation);
    if (adaptive) {
      out[0] = pop.risk(learners::glm_link::relu, res.w, samples, es).value;
      out[1] = (res.w - w_star_l).norm();
      out[2] = res.w.norm();
      out[3] = static_cast<double>(res.features_over_bound);
    } else {
      out[0] = pop.excess_risk(learners::glm_link::relu, res.w, samples, es).value;
      out[1] = res.w.norm();
      out[2] = res.jl_max_norm;
    }
  };
  const auto mc = run_replicates(c, obs, replicate);

  report rep;
  rep.tool = "dpkit simulate";
  rep.title = fmt::format("{} x {} replicates: {}, n = {}, d = {}, eps = {}, delta = {}",
                          c.algorithm, c.replicates, info.source, n, d, format_number(o.epsilon),
                          format_number(o.delta));
  rep.parameters = {{"algorithm", c.algorithm},
                    {"source", info.source},
                    {"examples", n},
                    {"dimension", d},
                    {"w_norm", o.w_norm},
                    {"label_noise", h},
                    {"B", B},
                    {"epsilon", o.epsilon},
                    {"delta", o.delta},
                    {"calibration", o.calibration},
                    {"replicates", c.replicates},
                    {"seed", c.seed},
                    {"steps", probe.releases.size()}};
  if (!probe.releases.empty()) rep.parameters["eta"] = probe.releases.front().eta;
  if (adaptive) {
    rep.parameters["corrected_sensitivity"] = o.corrected_sensitivity;
    rep.parameters["opt_estimate"] = opt;
  }
  summarise(mc, meaning, rep);
  add_privacy_note(rep, gaussian_privacy(o.calibration, z_paper, z_tight, z_used, k, o.epsilon,
                                         o.delta, probe.privacy.note));
  rep.notes.push_back("sensitivity: " + probe.privacy.note);
  if (adaptive)
    rep.notes.push_back(fmt::format(
        "data: x uniform in the ball of radius sqrt(d + 2) (isotropic), y = clamp(ReLU(<w*, x>) + "
        "U[-h, h], +-B), |w*| = {}, h = {}, B = "
        "{}; opt ~ L_P(w*) = {} (Thm 7: L_P(w_T) <= 2(1 + 2mu) opt + alpha; mu is the constant "
        "of Lemma 12)",
        format_number(o.w_norm), format_number(h), format_number(B), format_number(opt)));
  else
    rep.notes.push_back(fmt::format(
        "data: x uniform on the unit sphere of R^{}, y = ReLU(<w*, x>) + U[-h, h], |w*| = W = {}, "
        "h = {}; JL: the paper adds delta/2 for the event max|Phi x| <= 2",
        d, format_number(o.w_norm), format_number(h)));
  rep.notes.push_back(fmt::format("{} replicates on {} thread(s) in {:.2f} s", mc.replicates,
                                  mc.threads, mc.seconds));
  return emit_paper_run(c, rep, mc, sim::non_finite_observables(mc));
}

}  // namespace dpkit::cli::detail::papers
