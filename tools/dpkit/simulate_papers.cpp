// dpkit simulate --algorithm <paper algorithm> (simulate_papers.hpp): SWX+23's GLM learners
// (Algorithms 1–3, 5–9), its DP-SGD for ReLU networks (Algorithm 10), and ZXD+26's DP-SGD with
// the long-tail protocol. Each replicate draws fresh data, runs the algorithm and measures the
// paper's quantity (population excess risk, test error, tail error, memorisation); the privacy
// report gives the certified ε of the noise actually used and the noise of the other
// calibration, so the paper's and the tight calibration can be compared for every algorithm.
#include "simulate_papers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <sstream>
#include <string>
#include <tuple>
#include <vector>

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "dpkit/sim/glm.hpp"
#include "dpkit/sim/idx.hpp"
#include "dpkit/sim/longtail.hpp"
#include "dpkit/sim/mlp.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "simulate_setting.hpp"

namespace dpkit::cli {
namespace {

// Streams of a replicate r (random.hpp convention): the algorithms use stream_base 0 (streams 2,
// 3 and 5); the data use 10 (features), 11 (labels), 12 (risk evaluation), 13 (initialisation),
// 14 (test data), so nothing is shared between them.
constexpr std::uint64_t kFeatures = 10, kLabels = 11, kEvaluation = 12, kInit = 13, kTest = 14;

struct algorithm_info {
  const char* name;
  const char* source;
  const char* family;  // glm, relu-pgd, adaptive, mlp, longtail
};

const std::vector<algorithm_info>& infos() {
  static const std::vector<algorithm_info> all = {
      {"phased-sgd", "SWX+23 Alg 2 (phased SGD, output perturbation)", "glm"},
      {"jl-phased-sgd", "SWX+23 Alg 3 (JL projection + phased SGD)", "glm"},
      {"moreau-phased-sgd", "SWX+23 Alg 5 (phased SGD on the Moreau envelope)", "glm"},
      {"jl-moreau-phased-sgd", "SWX+23 Alg 6 (JL + Alg 5)", "glm"},
      {"dp-glm", "SWX+23 Alg 1 (Alg 2 if eps > theta^1.5/n, else Alg 3)", "glm"},
      {"dp-kernel-glm", "SWX+23 Alg 9 (Alg 2/3 on polynomial-kernel features)", "glm"},
      {"relu-dp-pgd", "SWX+23 Alg 7 (JL + DP projected GD, ReLU)", "relu-pgd"},
      {"adaptive-batched-gd", "SWX+23 Alg 8 (adaptive DP batched GD, agnostic ReLU)", "adaptive"},
      {"mlp-dp-sgd", "SWX+23 Alg 10 (DP-SGD for L-layer ReLU networks)", "mlp"},
      {"longtail-dp-sgd", "ZXD+26 eq. (4) (DP-SGD on the two-layer CNN, long-tail protocol)",
       "longtail"},
  };
  return all;
}

const algorithm_info& info_of(const std::string& name) {
  for (const auto& i : infos())
    if (name == i.name) return i;
  throw usage_error("--algorithm is " + name + ", but is not a paper algorithm");
}

sim::glm_link link_of(const std::string& s) {
  if (s == "sigmoid") return sim::glm_link::sigmoid;
  if (s == "tanh") return sim::glm_link::tanh;
  return sim::glm_link::relu;
}

json number_or_null(double x) {
  return std::isfinite(x) ? json(x) : json(nullptr);
}

/// One table row per observable: mean with a normal-approximation 95 % interval, sd, min, max.
void summarise(const sim::monte_carlo_result& res,
               const std::vector<std::string>& descriptions,
               report& rep) {
  rep.columns = {"observable", "mean", "ci95_lo", "ci95_hi", "sd", "min", "max", "meaning"};
  for (std::size_t j = 0; j < res.observables.size(); ++j) {
    const auto& s = res.observables[j];
    const auto ci = s.mean_interval(0.95);
    rep.results.push_back(json{{"observable", s.name},
                               {"mean", number_or_null(s.stats.mean())},
                               {"ci95_lo", number_or_null(ci.first)},
                               {"ci95_hi", number_or_null(ci.second)},
                               {"sd", number_or_null(s.stats.standard_deviation())},
                               {"min", number_or_null(s.stats.min())},
                               {"max", number_or_null(s.stats.max())},
                               {"meaning", descriptions[j]}});
  }
}

sim::monte_carlo_options mc_of(const paper_common_options& c) {
  return cli_monte_carlo(c.replicates, c.seed, c.threads, "dpkit simulate " + c.algorithm);
}

/// ε certified for `compositions` Gaussian releases of noise multiplier z (exact GDP:
/// μ = √k/z; Dong, Roth & Su 2022, Cor. 2.13 for the composition, Balle & Wang 2018 for δ(ε)).
double gaussian_epsilon(double z, long long compositions, double delta) {
  if (!(z > 0)) return INFINITY;
  const double mu = std::sqrt(static_cast<double>(compositions)) / z;
  return divergence::gdp_epsilon(mu, delta).value;
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

void reject_unsupported(const paper_common_options& c,
                        const std::vector<std::string>& also_unsupported,
                        const std::vector<std::string>& given) {
  std::vector<std::string> bad = c.unsupported_given;
  for (const auto& a : also_unsupported)
    if (std::find(given.begin(), given.end(), a) != given.end()) bad.push_back(a);
  if (!bad.empty())
    throw usage_error(bad.front() + " does not apply to --algorithm " + c.algorithm +
                      " (see dpkit simulate --help, group 'Paper algorithms')");
}

std::vector<std::string> given_of(const paper_common_options& c) {
  std::vector<std::string> g;
  if (c.steps) g.push_back("--steps");
  if (c.learning_rate) g.push_back("--learning-rate");
  if (c.noise) g.push_back("--noise-std");
  if (c.clip) g.push_back("--clip");
  if (c.radius) g.push_back("--radius");
  if (c.batch_size) g.push_back("--batch-size");
  if (c.sampling_rate) g.push_back("--sampling-rate");
  if (c.classes) g.push_back("--classes");
  if (c.label_noise) g.push_back("--label-noise");
  return g;
}

void add_privacy_note(report& rep, const json& privacy) {
  rep.parameters["privacy"] = privacy;
  std::ostringstream s;
  s << "privacy: " << privacy.value("summary", std::string());
  rep.notes.push_back(s.str());
}

// ---- SWX+23 GLM family (Algs 1, 2, 3, 5, 6, 9) ------------------------------------------------

int run_glm(const paper_common_options& c, const paper_options& o) {
  const auto& info = info_of(c.algorithm);
  reject_unsupported(c,
                     {"--steps", "--noise-std", "--clip", "--radius", "--batch-size",
                      "--sampling-rate", "--classes", "--label-noise"},
                     given_of(c));
  const sim::glm_link link = link_of(o.link);
  if (link == sim::glm_link::relu)
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

  // The population: x uniform on the unit sphere of the first θ axes (rank θ), w* = (W/√θ)(1, …,
  // 1, 0, …) (‖w*‖ = W), labels binary with E[y|x] = σ(⟨w*, x⟩) (well specified, model (1)).
  sim::glm_population pop;
  pop.design = sim::glm_design::coordinate(d, theta, sim::glm_design_law::unit_sphere);
  pop.teacher.link = link;
  pop.teacher.w_star = sim::vector::Zero(static_cast<Eigen::Index>(d));
  pop.teacher.w_star.head(static_cast<Eigen::Index>(theta))
      .setConstant(o.w_norm / std::sqrt(static_cast<double>(theta)));
  pop.teacher.noise = sim::glm_label_noise::binary;

  sim::phased_sgd_options a;
  a.link = link;
  a.epsilon = o.epsilon;
  a.delta = o.delta;
  a.eta = c.learning_rate.value_or(0);
  a.theta_rank = static_cast<double>(theta);
  a.jl_dim = o.jl_dim ? static_cast<std::size_t>(*o.jl_dim) : 0;
  a.beta_smooth = o.moreau_beta.value_or(0);
  a.gamma_oracle = o.oracle_gamma.value_or(0);
  a.oracle = o.oracle == "algorithm4" ? sim::moreau_oracle_kind::algorithm4
                                      : sim::moreau_oracle_kind::exact;

  auto run = [&](const sim::dataset& data, const sim::phased_sgd_options& opt,
                 const sim::random_key& key) {
    if (c.algorithm == "phased-sgd") return sim::phased_sgd(data, opt, key);
    if (c.algorithm == "jl-phased-sgd") return sim::jl_phased_sgd(data, opt, key);
    if (c.algorithm == "moreau-phased-sgd") return sim::moreau_phased_sgd(data, opt, key);
    if (c.algorithm == "jl-moreau-phased-sgd") return sim::jl_moreau_phased_sgd(data, opt, key);
    if (c.algorithm == "dp-glm") return sim::dp_glm(data, opt, key);
    return sim::dp_kernel_glm(data, o.kernel_degree, opt, key);
  };
  auto draw_data = [&](std::uint64_t r) {
    random_stream fs(c.seed, r, kFeatures), ls(c.seed, r, kLabels);
    return pop.sample(n, fs, ls);
  };

  // A probe run (replicate 0) gives the paper's noise multiplier and the number of releases a
  // record enters; the tight calibration then replaces the noise by the smallest multiplier for
  // the same (ε, δ) under exact Gaussian DP.
  const sim::glm_result probe = run(draw_data(0), a, sim::random_key{c.seed, 0, 0});
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
    const sim::glm_result res = run(data, a, sim::random_key{c.seed, r, 0});
    random_stream es(c.seed, r, kEvaluation);
    std::size_t j = 0;
    if (kernel) {
      // h(x) = σ(⟨w, ψ(x)⟩) against the Bayes regressor E[y|x] = σ(⟨w*, x⟩) on fresh x.
      const Eigen::MatrixXd x = pop.design.sample(samples, es);
      const Eigen::VectorXd h = sim::kernel_predict(link, res.w, x, o.kernel_degree);
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
  const auto mc = sim::run_monte_carlo(obs, replicate, mc_of(c));

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
  emit(rep, c.output);
  return kExitSuccess;
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

  sim::glm_population pop;
  pop.teacher.link = sim::glm_link::relu;
  pop.teacher.w_star = sim::vector::Constant(static_cast<Eigen::Index>(d),
                                             o.w_norm / std::sqrt(static_cast<double>(d)));
  pop.teacher.noise = sim::glm_label_noise::uniform;
  pop.teacher.noise_scale = h;
  double B = o.w_norm + h;
  if (adaptive) {
    // Assumption 2: x isotropic log-concave AND bounded — uniform in the ball of radius
    // √(d + 2) (E xxᵀ = I; N(0, I_d) would break the bound ‖x‖ ≤ √d that the
    // sensitivity needs for about half the records). Labels clamped to [−B, B] with B = 2W + h,
    // so E[y|x] ≠ ReLU(⟨w*, x⟩) where the clamp is active: agnostic (opt > 0).
    pop.design = sim::glm_design::coordinate(d, d, sim::glm_design_law::isotropic_ball);
    B = 2 * o.w_norm + h;
    pop.teacher.clamp = B;
  } else {
    pop.design = sim::glm_design::coordinate(d, d, sim::glm_design_law::unit_sphere);
  }
  auto draw_data = [&](std::uint64_t r) {
    random_stream fs(c.seed, r, kFeatures), ls(c.seed, r, kLabels);
    return pop.sample(n, fs, ls);
  };

  sim::relu_pgd_options p;
  p.epsilon = o.epsilon;
  p.delta = o.delta;
  p.W_norm = o.w_norm;
  p.B_bound = B;
  p.jl_dim = o.jl_dim ? static_cast<std::size_t>(*o.jl_dim) : 0;
  p.steps = c.steps ? static_cast<long>(*c.steps) : 0;
  p.eta = c.learning_rate.value_or(0);
  sim::adaptive_gd_options g;
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
    return adaptive ? sim::adaptive_batched_gd(data, g, key) : sim::relu_dp_pgd(data, p, key);
  };

  const sim::glm_result probe = run(draw_data(0), sim::random_key{c.seed, 0, 0});
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
    opt = pop.risk(sim::glm_link::relu, pop.teacher.w_star, 200000, os).value;
  } else {
    obs = {{"excess_risk"}, {"norm"}, {"jl_max_norm"}};
    meaning = {"L_P(w) - L_P(w*) = E_x (ReLU(<w,x>) - ReLU(<w*,x>))^2 (Monte Carlo on fresh x)",
               "|w|", "max_i |Phi x_i| (the privacy proof needs <= 2: the JL event)"};
  }
  auto replicate = [&](std::uint64_t r, std::span<double> out) {
    const sim::dataset data = draw_data(r);
    const sim::glm_result res = run(data, sim::random_key{c.seed, r, 0});
    random_stream es(c.seed, r, kEvaluation);
    if (adaptive) {
      out[0] = pop.risk(sim::glm_link::relu, res.w, samples, es).value;
      out[1] = (res.w - w_star_l).norm();
      out[2] = res.w.norm();
      out[3] = static_cast<double>(res.features_over_bound);
    } else {
      out[0] = pop.excess_risk(sim::glm_link::relu, res.w, samples, es).value;
      out[1] = res.w.norm();
      out[2] = res.jl_max_norm;
    }
  };
  const auto mc = sim::run_monte_carlo(obs, replicate, mc_of(c));

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
  emit(rep, c.output);
  return kExitSuccess;
}

// ---- accountant helpers for the subsampled algorithms
// ----------------------------------------------

accounting::training_run subsampled_run(double z, double q, long long steps, bool poisson) {
  accounting::training_run run;
  run.phases.push_back(
      accounting::training_phase{z, q,
                                 poisson ? accounting::sampling_scheme::poisson
                                         : accounting::sampling_scheme::without_replacement,
                                 steps});
  return run;
}

double pld_epsilon(double z, double q, long long steps, bool poisson, double delta) {
  if (!(z > 0)) return INFINITY;
  const auto e = accounting::estimate_epsilon(subsampled_run(z, q, steps, poisson), delta,
                                              accounting::accountant_type::pld);
  if (!e.converged()) throw numerical_failure("PLD accountant: " + e.message);
  return e.value;
}

double pld_calibrate(double epsilon, double delta, double q, long long steps, bool poisson) {
  const auto cal =
      accounting::calibrate_noise_multiplier(subsampled_run(1, q, steps, poisson), epsilon, delta);
  if (!cal.converged()) throw numerical_failure("noise calibration: " + cal.message);
  return cal.noise_multiplier;
}

// ---- SWX+23 Alg 10
// -------------------------------------------------------------------------------

// Fashion-MNIST for Algorithm 10: two classes (labels ±1, the first kept class −1), pixels in
// [0, 1] scaled to norm at most 1 (SWX+23's inputs lie in the unit ball; an image of norm below
// 1 keeps its norm), the training set capped by --dataset-size, the test set by
// --test-examples (both the first ones in file order).
std::pair<std::shared_ptr<const sim::dataset>, std::shared_ptr<const sim::dataset>> mlp_real_data(
    const paper_common_options& c, std::size_t n_test) {
  if (c.data != "fashion-mnist")
    throw usage_error("--data is " + c.data +
                      ", but mlp-dp-sgd takes fashion-mnist (or no --data: the paper's "
                      "synthetic task)");
  if (c.keep_classes.size() != 2)
    throw usage_error(
        "mlp-dp-sgd on Fashion-MNIST is binary (logistic loss, labels +-1): give two classes "
        "with --keep-classes A,B");
  auto read = [&](bool test, std::size_t cap) {
    sim::idx_selection s;
    s.classes = c.keep_classes;
    s.max_examples = cap;
    s.scaling = sim::pixel_scaling::unit;
    s.row_norm_clip = 1;
    std::shared_ptr<sim::dataset> data = read_idx_data("--data", "fashion-mnist", "", test, s);
    data->labels = (2 * data->labels.array() - 1).matrix();
    return std::shared_ptr<const sim::dataset>(std::move(data));
  };
  return {read(false, c.examples_given ? static_cast<std::size_t>(c.examples) : 0),
          read(true, n_test)};
}

int run_mlp(const paper_common_options& c, const paper_options& o) {
  const auto& info = info_of(c.algorithm);
  reject_unsupported(c, {"--batch-size", "--classes"}, given_of(c));
  const auto n_test_given = static_cast<std::size_t>(o.test_examples);
  const bool real = !c.data.empty() || !c.keep_classes.empty();
  std::shared_ptr<const sim::dataset> real_train, real_test;
  if (real) {
    if (c.data.empty()) throw usage_error("--keep-classes goes with --data fashion-mnist");
    std::tie(real_train, real_test) = mlp_real_data(c, n_test_given);
  }
  const auto n = real ? real_train->size() : static_cast<std::size_t>(c.examples);
  const auto d = real ? real_train->dimension() : static_cast<std::size_t>(c.dimension);
  const auto n_test = real ? real_test->size() : n_test_given;
  sim::mlp_architecture arch;
  arch.input_dimension = d;
  arch.width = static_cast<std::size_t>(o.width);
  arch.depth = static_cast<std::size_t>(o.depth);
  arch.validate("dpkit simulate");
  const double q = c.sampling_rate.value_or(std::min(1.0, 64.0 / static_cast<double>(n)));
  const long long T = c.steps.value_or(200);
  const double C = c.clip.value_or(1.0);
  const double R = c.radius.value_or(1.0);
  const double label_noise = c.label_noise.value_or(0.05);
  if (label_noise > 0.5)
    throw usage_error("--label-noise is " + format_number(label_noise) +
                      ", but for mlp-dp-sgd it is a flip probability: must be <= 0.5");
  // Thm 13's step size η = √L R/(C√(mT)) (SWX+23 Thm 13) unless given.
  const double eta = c.learning_rate.value_or(
      std::sqrt(static_cast<double>(arch.depth)) * R /
      (C * std::sqrt(static_cast<double>(arch.width) * static_cast<double>(T))));
  const sim::mlp_constraint constraint = o.constraint == "none" ? sim::mlp_constraint::none
                                         : o.constraint == "printed"
                                             ? sim::mlp_constraint::printed
                                             : sim::mlp_constraint::around_init;

  // Noise: --noise-std sigma as given; else the tight calibration (PLD accountant, Poisson q, T) or
  // the paper's σ = c₂ qC√(T log(1/δ))/(|B_t| ε) with |B_t| = qn and the unknown c₂ set to 1.
  const double z_tight = pld_calibrate(o.epsilon, o.delta, q, T, true);
  const double sigma_paper = q * C * std::sqrt(static_cast<double>(T) * std::log(1 / o.delta)) /
                             (q * static_cast<double>(n) * o.epsilon);
  const double z_paper = sim::alg10_noise_multiplier(sigma_paper, C, q, n);
  double sigma = 0;
  std::string calibration = o.calibration;
  if (c.noise) {
    sigma = *c.noise;
    calibration = "given (--noise-std)";
  } else {
    sigma = o.calibration == "tight" ? sim::alg10_noise_std(z_tight, C, q, n) : sigma_paper;
  }
  const double z_used = sim::alg10_noise_multiplier(sigma, C, q, n);

  random_stream ts(c.seed, 0, kInit + 100);
  const sim::sphere_teacher teacher = sim::random_sphere_teacher(
      d, static_cast<std::size_t>(o.teacher_hidden), ts);  // unused on real data
  sim::alg10_options a;
  a.sampling_rate = q;
  a.steps = static_cast<long>(T);
  a.learning_rate = eta;
  a.clip = C;
  a.noise = sigma;
  a.constraint = constraint;
  a.radius = R;

  const std::vector<sim::observable> obs = {
      {"test_loss"},       {"test_error"}, {"train_loss"},        {"train_error"},
      {"test_error_last"}, {"min_batch"},  {"max_layer_distance"}};
  const std::vector<std::string> meaning = {
      real ? "logistic loss of the averaged iterate on the test set"
           : "logistic loss of the averaged iterate on fresh test data",
      real ? "0/1 error of the averaged iterate on the test set"
           : "0/1 error of the averaged iterate on fresh test data",
      "logistic loss of the averaged iterate on the training set",
      "0/1 error of the averaged iterate on the training set",
      "0/1 test error of the last iterate",
      "min_t |B_t| (Poisson batches)",
      "max_t max_l |W_l - W0_l|_F sqrt(m) (compare with R for around-init)"};
  auto replicate = [&](std::uint64_t r, std::span<double> out) {
    random_stream fs(c.seed, r, kFeatures), tst(c.seed, r, kTest), is(c.seed, r, kInit);
    // The paper's task: fresh data per replicate; real data: the same images, fresh runs.
    auto train = real ? real_train
                      : std::make_shared<const sim::dataset>(
                            sim::sphere_teacher_data(n, teacher, label_noise, fs));
    const sim::dataset fresh_test =
        real ? sim::dataset{} : sim::sphere_teacher_data(n_test, teacher, label_noise, tst);
    const sim::dataset& test = real ? *real_test : fresh_test;
    const sim::mlp_model f(train, arch);
    const sim::vector w0 = sim::mlp_initial_weights(arch, is);
    const sim::alg10_result res = sim::run_alg10(f, a, w0, sim::random_key{c.seed, r, 0}, &test);
    out[0] = res.test_average.loss;
    out[1] = res.test_average.error;
    out[2] = res.train_average.loss;
    out[3] = res.train_average.error;
    out[4] = res.test_last.error;
    out[5] = static_cast<double>(res.min_batch);
    out[6] = res.max_layer_distance;
  };
  const auto mc = sim::run_monte_carlo(obs, replicate, mc_of(c));

  report rep;
  rep.tool = "dpkit simulate";
  rep.title =
      fmt::format("{} x {} replicates: {}, n = {}, d = {}, m = {}, L = {}, q = {}, T = {}, C = {}",
                  c.algorithm, c.replicates, info.source, n, d, arch.width, arch.depth,
                  format_number(q), T, format_number(C));
  rep.parameters = {{"algorithm", c.algorithm},
                    {"source", info.source},
                    {"examples", n},
                    {"test_examples", n_test},
                    {"dimension", d},
                    {"width", arch.width},
                    {"depth", arch.depth},
                    {"sampling_rate", q},
                    {"steps", T},
                    {"learning_rate", eta},
                    {"clip", C},
                    {"radius", R},
                    {"constraint", o.constraint},
                    {"noise_std", sigma},
                    {"label_noise", label_noise},
                    {"epsilon", o.epsilon},
                    {"delta", o.delta},
                    {"calibration", calibration},
                    {"replicates", c.replicates},
                    {"seed", c.seed}};
  if (real) {
    rep.parameters["data"] = "Fashion-MNIST, classes " + std::to_string(c.keep_classes[0]) +
                             " (-1) and " + std::to_string(c.keep_classes[1]) +
                             " (+1), pixels in [0, 1] scaled to norm <= 1";
    rep.parameters.erase("label_noise");
  }
  summarise(mc, meaning, rep);
  const double eps_used = pld_epsilon(z_used, q, T, true, o.delta);
  const double eps_paper = pld_epsilon(z_paper, q, T, true, o.delta);
  json privacy = {{"accounting",
                   "PLD accountant (certified upper bound), Poisson sampling q, "
                   "T steps, noise multiplier z = sigma q n / C"},
                  {"noise_multiplier_used", z_used},
                  {"epsilon_certified_used", number_or_null(eps_used)},
                  {"noise_multiplier_tight", z_tight},
                  {"noise_multiplier_paper_c2_1", z_paper},
                  {"epsilon_certified_paper_c2_1", number_or_null(eps_paper)},
                  {"kind", "upper-bound"}};
  privacy["summary"] = fmt::format(
      "{} calibration: z = {} (sigma = {}), certified eps = {} at delta = {} (PLD, Poisson q = "
      "{}, T = {}). Tight z for eps = {}: {}. The paper's sigma = c2 qC sqrt(T log(1/delta))/(|B| "
      "eps) with its unknown c2 = 1 is z = {}, certified eps = {}.",
      calibration, format_number(z_used), format_number(sigma), format_number(eps_used),
      format_number(o.delta), format_number(q), T, format_number(o.epsilon), format_number(z_tight),
      format_number(z_paper), format_number(eps_paper));
  add_privacy_note(rep, privacy);
  if (real)
    rep.notes.push_back(fmt::format(
        "data: Fashion-MNIST (Xiao, Rasul & Vollgraf 2017), classes {} (label -1) and {} (+1): "
        "{} training and {} test images (the first ones in file order), pixels in [0, 1] scaled "
        "to norm <= 1; the same images in every replicate, fresh He initialisation, batches and "
        "noise; eta = {} (Thm 13: sqrt(L) R/(C sqrt(m T)) unless given)",
        c.keep_classes[0], c.keep_classes[1], n, n_test, format_number(eta)));
  else
    rep.notes.push_back(fmt::format(
        "data: x uniform on the unit sphere of R^{}, labels sign of a random two-layer ReLU "
        "teacher ({} hidden units) flipped with probability {}; fresh train/test data and He "
        "initialisation per replicate; eta = {} (Thm 13: sqrt(L) R/(C sqrt(m T)) unless given)",
        d, o.teacher_hidden, format_number(label_noise), format_number(eta)));
  rep.notes.push_back(fmt::format("{} replicates on {} thread(s) in {:.2f} s", mc.replicates,
                                  mc.threads, mc.seconds));
  emit(rep, c.output);
  return kExitSuccess;
}

// ---- ZXD+26
// --------------------------------------------------------------------------------------

std::vector<double> parse_frequencies(const std::string& s) {
  std::vector<double> f;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    try {
      std::size_t used = 0;
      const double v = std::stod(item, &used);
      if (used != item.size() || !std::isfinite(v) || v <= 0) throw std::invalid_argument(item);
      f.push_back(v);
    } catch (const std::exception&) {
      throw usage_error("--class-frequencies is " + s +
                        ", but must be a comma-separated list of positive numbers");
    }
  }
  return f;
}

int run_longtail(const paper_common_options& c, const paper_options& o) {
  const auto& info = info_of(c.algorithm);
  reject_unsupported(c, {"--radius", "--sampling-rate", "--label-noise"}, given_of(c));
  const auto n = static_cast<std::size_t>(c.examples);
  const auto n_test = static_cast<std::size_t>(o.test_examples);
  const auto K = static_cast<std::size_t>(c.classes.value_or(5));
  const auto d = static_cast<std::size_t>(c.dimension);
  const auto m = static_cast<std::size_t>(o.width);
  if (d <= K + 1)
    throw usage_error("--dimension is " + std::to_string(d) +
                      ", but ZXD+26's data model "
                      "needs d > K + 1 (K signal directions and a noise spike per class)");
  std::vector<std::size_t> counts, test_counts;
  if (o.class_frequencies.empty()) {
    counts = sim::balanced_counts(n, K);
    test_counts = sim::balanced_counts(n_test, K);
  } else {
    const auto f = parse_frequencies(o.class_frequencies);
    if (f.size() != K)
      throw usage_error("--class-frequencies has " + std::to_string(f.size()) +
                        " entries, but must have K = " + std::to_string(K));
    counts = sim::counts_from_frequencies(n, f);
    test_counts = sim::balanced_counts(n_test, K);  // every class is tested on the same footing
  }
  sim::longtail_data_options data_options;
  data_options.classes = K;
  data_options.dimension = d;
  data_options.signal_norm = o.signal_norm;
  data_options.spike = sim::spike_for_ncr(K, d, 0.5, o.ncr);
  data_options.law = o.noise_law == "uniform" ? sim::zeta_law::uniform : sim::zeta_law::gaussian;

  sim::longtail_training t;
  t.eta = c.learning_rate.value_or(0.002);
  t.batch_size = static_cast<std::size_t>(
      std::min<long long>(c.batch_size.value_or(256), static_cast<long long>(n)));
  t.batches = t.batch_size >= n ? sim::batch_rule::full : sim::batch_rule::shuffled;
  if (c.steps) t.steps = static_cast<long>(*c.steps);
  t.epochs = o.epochs;
  t.clip = c.clip.value_or(1.0);
  if (!(t.clip > 0))
    throw usage_error(
        "--clip is 0, but DP-SGD needs a clipping norm C > 0 (clean training is "
        "run alongside automatically)");
  t.record_every = std::max<long>(1, sim::training_steps(t, n));
  const auto request = sim::accounting_request(t, n);
  const bool poisson = request.scheme == "poisson";
  const double z_tight =
      pld_calibrate(o.epsilon, o.delta, request.sampling_rate, request.steps, poisson);
  const double sigma_remark4 =
      sim::remark4_noise_scale(t.clip, request.steps, o.delta, n, o.epsilon);
  std::string calibration = o.calibration;
  if (c.noise) {
    t.noise_std = *c.noise;
    calibration = "given (--noise-std)";
  } else {
    t.noise_std = o.calibration == "tight" ? sim::noise_std_for(z_tight, t.clip, request.batch_size)
                                           : sigma_remark4;
  }
  const double z_used = t.noise_std * static_cast<double>(request.batch_size) / t.clip;
  sim::longtail_training clean = t;
  clean.clip = 0;
  clean.noise_std = 0;
  sim::initialisation init;
  init.type = o.init == "gaussian" ? sim::initialisation::kind::gaussian
                                   : sim::initialisation::kind::pytorch_uniform;
  init.sigma0 = o.sigma0;

  const std::vector<sim::observable> obs = {
      {"dp_test_error"}, {"dp_tail_error"},    {"clean_test_error"}, {"clean_tail_error"},
      {"dp_train_loss"}, {"clean_train_loss"}, {"dp_memorisation"},  {"clean_memorisation"},
      {"dp_signal"},     {"clean_signal"},     {"tail_size"}};
  const std::vector<std::string> meaning = {
      "test error of the DP model (all test points)",
      "test error of the DP model on the L-tail (Def 3, direction from the clean model)",
      "test error of the clean model (no clipping, no noise)",
      "test error of the clean model on the L-tail",
      "training loss L_S of the DP model at T",
      "training loss of the clean model at T",
      "<w, xi> = (1/n) max_r sum_i <w_{y_i,r}, xi_i> at T (ZXD+26 Sec 5.2), DP",
      "the same for the clean model",
      "<w, u> signal learning at T, DP",
      "the same for the clean model",
      "number of tail test points (all classes)"};
  auto replicate = [&](std::uint64_t r, std::span<double> out) {
    random_stream ds(c.seed, r, kFeatures), tst(c.seed, r, kTest), is(c.seed, r, kInit);
    auto train = std::make_shared<const sim::longtail_data>(
        sim::generate_longtail_data(data_options, counts, ds));
    const sim::longtail_data test = sim::generate_longtail_data(data_options, test_counts, tst);
    const sim::longtail_network net(train, m);
    const sim::vector w0 = sim::longtail_initial_weights(K, m, d, init, is);
    const auto dp = sim::train_longtail(net, t, w0, sim::random_key{c.seed, r, 0});
    const auto cl = sim::train_longtail(net, clean, w0, sim::random_key{c.seed, r, 0});
    std::vector<std::size_t> tail;
    for (std::size_t k = 0; k < K; ++k) {
      const auto v = sim::tail_direction(net, cl.weights, static_cast<int>(k));
      const auto s = sim::tail_subset(test, static_cast<int>(k), v, o.tail_threshold);
      tail.insert(tail.end(), s.begin(), s.end());
    }
    const auto all_dp = sim::test_errors(net, dp.weights, test);
    const auto all_cl = sim::test_errors(net, cl.weights, test);
    const auto tail_dp = sim::test_errors(net, dp.weights, test, &tail);
    const auto tail_cl = sim::test_errors(net, cl.weights, test, &tail);
    out[0] = all_dp.overall();
    out[1] = tail.empty() ? NAN : tail_dp.overall();
    out[2] = all_cl.overall();
    out[3] = tail.empty() ? NAN : tail_cl.overall();
    out[4] = dp.records.back().training_loss;
    out[5] = cl.records.back().training_loss;
    out[6] = dp.records.back().memorisation;
    out[7] = cl.records.back().memorisation;
    out[8] = dp.records.back().signal_learning;
    out[9] = cl.records.back().signal_learning;
    out[10] = static_cast<double>(tail.size());
  };
  const auto mc = sim::run_monte_carlo(obs, replicate, mc_of(c));

  report rep;
  rep.tool = "dpkit simulate";
  rep.title =
      fmt::format("{} x {} replicates: {}, K = {}, d = {}, n = {}, m = {}, B = {}, T = {}, C = {}",
                  c.algorithm, c.replicates, info.source, K, d, n, m, request.batch_size,
                  request.steps, format_number(t.clip));
  json count_list = json::array();
  for (auto k : counts) count_list.push_back(k);
  rep.parameters = {{"algorithm", c.algorithm},
                    {"source", info.source},
                    {"classes", K},
                    {"dimension", d},
                    {"examples", n},
                    {"class_counts", count_list},
                    {"test_examples", n_test},
                    {"width", m},
                    {"signal_norm", o.signal_norm},
                    {"ncr", o.ncr},
                    {"spike", data_options.spike},
                    {"noise_law", o.noise_law},
                    {"learning_rate", t.eta},
                    {"batch_size", request.batch_size},
                    {"steps", request.steps},
                    {"clip", t.clip},
                    {"noise_std", t.noise_std},
                    {"tail_threshold", o.tail_threshold},
                    {"init", o.init},
                    {"epsilon", o.epsilon},
                    {"delta", o.delta},
                    {"calibration", calibration},
                    {"replicates", c.replicates},
                    {"seed", c.seed}};
  summarise(mc, meaning, rep);
  const double eps_used =
      pld_epsilon(z_used, request.sampling_rate, request.steps, poisson, o.delta);
  json privacy = {
      {"accounting", fmt::format("PLD accountant (certified upper bound), {} batches of B = {} "
                                 "(q = {}), T = {}, z = sigma_n B / C",
                                 request.scheme, request.batch_size,
                                 format_number(request.sampling_rate), request.steps)},
      {"noise_multiplier_used", z_used},
      {"epsilon_certified_used", number_or_null(eps_used)},
      {"noise_multiplier_tight", z_tight},
      {"remark4_scale", sigma_remark4},
      {"kind", "upper-bound"}};
  privacy["summary"] = fmt::format(
      "{} calibration: sigma_n = {} (z = {}), certified eps = {} at delta = {}. Tight z for eps "
      "= {}: {} (sigma_n = {}). The paper's Remark 4 gives only the scale C sqrt(T ln(1/delta))/(n "
      "eps) = {} with an unknown constant ('paper' uses constant 1).",
      calibration, format_number(t.noise_std), format_number(z_used), format_number(eps_used),
      format_number(o.delta), format_number(o.epsilon), format_number(z_tight),
      format_number(sim::noise_std_for(z_tight, t.clip, request.batch_size)),
      format_number(sigma_remark4));
  add_privacy_note(rep, privacy);
  rep.notes.push_back(fmt::format(
      "data: Definition 1 with |u| = {}, spiked noise spectra (s = 0.5, spike {} for NCR = {}), "
      "{} zeta; tail = test points whose noise projects beyond L = {} on the clean model's "
      "aggregate direction A_k^T sum_r w_k,r (Def 3); Gaussian-zeta tail frequency 1 - Phi(L) = "
      "{}",
      format_number(o.signal_norm), format_number(data_options.spike), format_number(o.ncr),
      o.noise_law, format_number(o.tail_threshold),
      format_number(sim::tail_frequency(o.tail_threshold))));
  rep.notes.push_back(fmt::format("{} replicates on {} thread(s) in {:.2f} s", mc.replicates,
                                  mc.threads, mc.seconds));
  emit(rep, c.output);
  return kExitSuccess;
}

}  // namespace

const std::vector<std::string>& paper_algorithms() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const auto& i : infos()) v.emplace_back(i.name);
    return v;
  }();
  return names;
}

bool is_paper_algorithm(const std::string& name) {
  const auto& v = paper_algorithms();
  return std::find(v.begin(), v.end(), name) != v.end();
}

void add_paper_options(CLI::App* sub, paper_options& o) {
  const char* gp = "Paper algorithms: privacy target";
  sub->add_option("--epsilon", o.epsilon, "Target epsilon of the calibration (paper algorithms)")
      ->check(real_greater_than(0))
      ->capture_default_str()
      ->group(gp);
  sub->add_option("--delta", o.delta, "Target delta (paper algorithms)")
      ->check(real_in_open_interval(0, 1))
      ->capture_default_str()
      ->group(gp);
  sub->add_option("--calibration", o.calibration,
                  "paper: the noise the paper prints (SWX+23 Algs 2-8: tau_i, sigma; Alg 10 "
                  "and ZXD+26: their O(.) scale with the constant 1); tight: the smallest noise "
                  "for (epsilon, delta) by exact accounting (Gaussian DP, or PLD for subsampled "
                  "runs). Both are reported either way")
      ->check(CLI::IsMember({"paper", "tight"}))
      ->capture_default_str()
      ->group(gp);

  const char* gg = "Paper algorithms: SWX+23 GLMs (phased-sgd ... adaptive-batched-gd)";
  sub->add_option("--link", o.link, "Link sigma of the GLM: sigmoid, tanh (Algs 1-3, 5, 6, 9)")
      ->check(CLI::IsMember({"sigmoid", "tanh"}))
      ->capture_default_str()
      ->group(gg);
  sub->add_option("--rank", o.rank, "theta, the rank of the design (default: --dimension)")
      ->check(integer_at_least(1))
      ->group(gg);
  sub->add_option("--w-norm", o.w_norm, "W = |w*|, the teacher's norm")
      ->check(real_greater_than(0))
      ->capture_default_str()
      ->group(gg);
  sub->add_option("--jl-dim", o.jl_dim,
                  "JL dimension m (default: the paper's log(n/delta) (n eps)^(2/3))")
      ->check(integer_at_least(1))
      ->group(gg);
  sub->add_option("--moreau-beta", o.moreau_beta, "Moreau smoothing beta (default sqrt(n))")
      ->check(real_greater_than(0))
      ->group(gg);
  sub->add_option("--oracle", o.oracle,
                  "Gradient of the Moreau envelope: exact (the prox to machine precision) or "
                  "algorithm4 (SWX+23 Alg 4 with accuracy --oracle-gamma)")
      ->check(CLI::IsMember({"exact", "algorithm4"}))
      ->capture_default_str()
      ->group(gg);
  sub->add_option("--oracle-gamma", o.oracle_gamma,
                  "Accuracy gamma of Alg 4 (default B/(n ln n), the proof of Thm 4)")
      ->check(real_greater_than(0))
      ->group(gg);
  sub->add_option("--kernel-degree", o.kernel_degree,
                  "Degree of the multinomial-kernel features of dp-kernel-glm (Alg 9)")
      ->check(CLI::Range(0, 8))
      ->capture_default_str()
      ->group(gg);
  sub->add_flag("--corrected-sensitivity", o.corrected_sensitivity,
                "adaptive-batched-gd: calibrate to the corrected sensitivity 2 sqrt(d)(sqrt(d)|w| "
                "+ B)/m instead of the printed one (docs/findings.md)")
      ->group(gg);
  sub->add_option("--risk-samples", o.risk_samples,
                  "Fresh x draws per replicate for the population risk")
      ->check(integer_at_least(100))
      ->capture_default_str()
      ->group(gg);

  const char* gn = "Paper algorithms: networks (mlp-dp-sgd, longtail-dp-sgd)";
  sub->add_option("--width", o.width, "m, the width (neurons per class for longtail-dp-sgd)")
      ->check(integer_at_least(1))
      ->capture_default_str()
      ->group(gn);
  sub->add_option("--depth", o.depth, "L, the number of layers (mlp-dp-sgd)")
      ->check(integer_at_least(2))
      ->capture_default_str()
      ->group(gn);
  sub->add_option("--test-examples", o.test_examples, "Fresh test examples per replicate")
      ->check(integer_at_least(1))
      ->capture_default_str()
      ->group(gn);
  sub->add_option("--constraint", o.constraint,
                  "mlp-dp-sgd projection: none, printed (|W_l|_F <= R, as Alg 10 prints), "
                  "around-init (|W_l - W0_l|_F <= R/sqrt(m), as its analysis uses)")
      ->check(CLI::IsMember({"none", "printed", "around-init"}))
      ->capture_default_str()
      ->group(gn);
  sub->add_option("--teacher-hidden", o.teacher_hidden,
                  "Hidden units of the mlp-dp-sgd teacher (0: a linear teacher)")
      ->check(integer_at_least(0))
      ->capture_default_str()
      ->group(gn);

  const char* gl = "Paper algorithms: ZXD+26 (longtail-dp-sgd)";
  sub->add_option("--signal-norm", o.signal_norm, "|u|, the class-signal norm")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->group(gl);
  sub->add_option("--ncr", o.ncr,
                  "Noise correlation ratio (>= 1; sets the spike of the noise spectra)")
      ->check(real_at_least(1))
      ->capture_default_str()
      ->group(gl);
  sub->add_option("--noise-law", o.noise_law, "Law of zeta: gaussian or uniform")
      ->check(CLI::IsMember({"gaussian", "uniform"}))
      ->capture_default_str()
      ->group(gl);
  sub->add_option("--class-frequencies", o.class_frequencies,
                  "Training class frequencies f_1,...,f_K (default balanced); test sets are "
                  "balanced")
      ->group(gl);
  sub->add_option("--epochs", o.epochs, "Epochs (T = ceil(epochs n / B) unless --steps)")
      ->check(real_greater_than(0))
      ->capture_default_str()
      ->group(gl);
  sub->add_option("--tail-threshold", o.tail_threshold, "L of Definition 3")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->group(gl);
  sub->add_option("--network-init", o.init,
                  "pytorch: U(-1/sqrt(d), 1/sqrt(d)) as the experiments; gaussian: N(0, "
                  "sigma0^2) as the theory")
      ->check(CLI::IsMember({"pytorch", "gaussian"}))
      ->capture_default_str()
      ->group(gl);
  sub->add_option("--sigma0", o.sigma0, "sigma0 of --network-init gaussian")
      ->check(real_greater_than(0))
      ->capture_default_str()
      ->group(gl);
}

int run_paper_simulation(const paper_common_options& c, const paper_options& o) {
  const std::string family = info_of(c.algorithm).family;
  if (family != "mlp" && (!c.data.empty() || !c.keep_classes.empty()))
    throw usage_error(std::string(!c.data.empty() ? "--data" : "--keep-classes") +
                      " does not apply to --algorithm " + c.algorithm +
                      " (its data come from the paper's model; real data: mlp-dp-sgd)");
  if (family == "glm") return run_glm(c, o);
  if (family == "relu-pgd" || family == "adaptive") return run_relu(c, o);
  if (family == "mlp") return run_mlp(c, o);
  return run_longtail(c, o);
}

}  // namespace dpkit::cli
