// `dpkit bound` catalogue: the risk bounds of "Differentially Private Non-convex Learning for
// Multi-layer Neural Networks" (SWX+23, Shen et al. 2023): Part III's multi-layer ReLU networks
// (dpkit/risk/mlp_bounds.hpp) and Parts I-II's GLMs, ReLU regression and kernels
// (dpkit/risk/nonconvex_bounds.hpp).
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "bound_catalogue.hpp"
#include "dpkit/risk/mlp_bounds.hpp"
#include "dpkit/risk/nonconvex_bounds.hpp"

namespace dpkit::cli::bound_catalogue {

// ---- SWX+23: DP non-convex learning, Part III (multi-layer ReLU networks) ------------------------

std::vector<bound_spec> mlp_bounds() {
  std::vector<param> run = in_group(
      {integer("dataset-size", "n, training examples", 10000, 1),
       integer("input-dimension", "d, input dimension", 10, 1),
       integer("width", "m, width of every hidden layer", 16, 1),
       integer("depth", "L >= 2, number of layers", 3, 2),
       integer("steps", "T, number of steps", 100, 1),
       real("lipschitz", "S, Lipschitz constant of the convex loss (logistic: 1)", "1", positive()),
       real("radius", "R, radius of the projection (per layer omega = R/sqrt(m) around W_0)", "10",
            positive()),
       real("clip", "C, clipping threshold", "1", positive()),
       real("epsilon", "epsilon of (epsilon, delta)-DP (Algorithm 10 takes epsilon <= 1)", "0.5",
            positive()),
       real("delta", "delta of (epsilon, delta)-DP (Algorithm 10 takes delta <= 1/n^2)", "1e-9",
            open_unit()),
       real("sampling-rate", "q = M/n, the Poisson sampling rate (M the expected batch)", "0.1",
            left_open_unit()),
       real("xi", "xi, failure probability of the convergence event (Thm 13: xi <= 1/e)",
            "0.36787944117144233", open_unit()),
       real("gamma", "gamma, failure probability of the noise-norm event", "0.05", open_unit()),
       real("gamma-batch", "gamma_1, failure probability of Lemma 23's batch event", "0.05",
            open_unit()),
       real("approximation",
            "the NTRF approximation term inf_{f in F(W_0, R/sqrt(m))} (1/T) sum_i loss(f(x_i), y_i) "
            "of eq. (7): YOU must supply it (e.g. by training the NTK model; dpkit::sim's "
            "mlp_ntk_model); default 0 leaves it out",
            "0", nonnegative()),
       choice("width-factor",
              "max: max(L, d/m) as eq. (7) prints it; sum: L + d/m as the proof writes it",
              "max", {"max", "sum"})},
      "Training run (Algorithm 10: projected, Poisson-subsampled, clipped DP-SGD)");
  std::vector<param> hidden;
  for (const auto& [k, h] : std::vector<std::pair<std::string, std::string>>{
           {"c-convergence", "the constant of sqrt(log(1/xi)/T)"},
           {"c-optimisation", "the constant of S L^{3/2} R/sqrt(T)"},
           {"c-privacy", "the O~ of the privacy term (its polylogs absorbed)"},
           {"c-clip", "C <= c-clip min{S L sqrt(m), R}"},
           {"c-batch", "M >= c-batch log(T/gamma_1)"},
           {"c-sample-size", "n >= c-sample-size C(...)/(R eps)"},
           {"c-privacy-regime", "c_1 of the privacy hypothesis eps < c_1 q^2 T"},
           {"c-width", "m >= c-width x (the printed m*)"},
           {"c-step-size", "eta = c-step-size sqrt(L) R/(C sqrt(mT)) (reported, not in the bound)"},
           {"c-noise", "c_2 of the paper's noise sigma (reported, not in the bound)"}})
    hidden.push_back(real(k, h, "1", positive()));
  return {
      {"mlp-thm13", "SWX+23", "Thm 13, eq. (7)",
       "excess population risk of DP-SGD (Algorithm 10) on an L-layer ReLU network",
       risk::bound_status::up_to_constants,
       "Thm 13: excess population risk of DP-SGD on a multi-layer ReLU network (NTK regime)",
       "value = c-convergence sqrt(log(1/xi)/T) + c-optimisation S L^{3/2} R/sqrt(T)\n"
       "      + (NTRF approximation, given by --approximation)\n"
       "      + c-privacy S L^{3/2} R max(L, d/m) log(1/gamma) log(1/delta) m^2 sqrt(T)/(n eps)^2.\n"
       "Hypotheses: C <= c-clip min{S L sqrt(m), R}; M = q n >= c-batch log(T/gamma_1);\n"
       "n >= c-sample-size C (sqrt(Lm) + sqrt(md)) sqrt(T log(1/gamma) log(1/delta))/(R eps);\n"
       "eps < c_1 q^2 T; m >= m* (the statement's version, Poly(S, L, R) := 1); xi <= 1/e;\n"
       "Algorithm 10's eps <= 1 and delta <= 1/n^2. The NTRF approximation term is yours to\n"
       "supply (--approximation, default 0: then the value leaves it out).",
       "--dataset-size 60000 --width 256 --steps 400 --delta 1e-10 --approximation 0.05",
       join({run, in_group(std::move(hidden), kHidden)}),
       [](const args& a) {
         risk::mlp_training s;
         s.examples = a.integer("dataset-size");
         s.input_dimension = a.integer("input-dimension");
         s.width = a.integer("width");
         s.depth = a.integer("depth");
         s.steps = a.integer("steps");
         s.lipschitz = a.real("lipschitz");
         s.radius = a.real("radius");
         s.clip = a.real("clip");
         s.epsilon = a.real("epsilon");
         s.delta = a.real("delta");
         s.sampling_rate = a.real("sampling-rate");
         s.xi = a.real("xi");
         s.gamma = a.real("gamma");
         s.gamma_batch = a.real("gamma-batch");
         risk::mlp_hidden_constants c;
         a.maybe("c-convergence", c.convergence);
         a.maybe("c-optimisation", c.optimisation);
         a.maybe("c-privacy", c.privacy);
         a.maybe("c-clip", c.clip);
         a.maybe("c-batch", c.batch);
         a.maybe("c-sample-size", c.sample_size);
         a.maybe("c-privacy-regime", c.privacy_regime);
         a.maybe("c-width", c.width);
         a.maybe("c-step-size", c.step_size);
         a.maybe("c-noise", c.noise);
         const risk::width_factor form = a.is("width-factor", "max")
                                             ? risk::width_factor::max_form
                                             : risk::width_factor::sum_form;
         evaluation e = single(risk::mlp_thm13(s, a.real("approximation"), c, form));
         const double M = s.sampling_rate * double(s.examples);
         e.derived.push_back({"step size eta = c-step-size sqrt(L) R/(C sqrt(mT))",
                              risk::mlp_step_size(s, c)});
         e.derived.push_back({"paper's noise std sigma = c_2 q C sqrt(T log(1/delta))/(q n eps)",
                              risk::mlp_paper_noise_std(s.sampling_rate, s.clip, s.steps, s.delta,
                                                        M, s.epsilon, c)});
         e.derived.push_back({"Lemma 23: every batch >= this w.p. 1 - gamma_1 (explicit)",
                              risk::lemma23_batch_floor(M, s.steps, s.gamma_batch)});
         const risk::mlp_steps_tradeoff t = risk::mlp_optimal_steps(s, c, form);
         e.derived.push_back({"T* minimising a/sqrt(T) + b sqrt(T) (NTRF term aside)", t.steps});
         e.derived.push_back({"value at T* (NTRF term aside)", t.value});
         const std::vector<risk::condition> widths = risk::mlp_width_conditions(s, c);
         const char* versions[] = {"", "Lemma 25", "proof of Thm 13", "proof of Thm 13, O(SLR/sqrt T)",
                                   "Lemma 22 eq. (19)"};
         for (std::size_t i = 1; i < widths.size() && i < 5; ++i)
           e.derived.push_back({std::string("m* as printed in ") + versions[i] + " (not checked)",
                                widths[i].limit});
         e.notes.push_back(
             "NTRF approximation = " + format_number(a.real("approximation")) +
             " (--approximation): the best training loss within the NTK random-feature class, "
             "which only you can supply; with the default 0 the value is a lower estimate of the "
             "bound's right-hand side.");
         e.notes.push_back(
             "The paper prints four width conditions m >= m* that disagree; the statement's is "
             "checked, the others are listed as derived rows.");
         return e;
       }}};
}

namespace {

// ---- SWX+23: DP non-convex learning, Parts I-II (GLMs, ReLU regression, kernels) ----------------

std::vector<param> glm_params(bool misspecification) {
  std::vector<param> ps = {
      integer("dataset-size", "n, training examples", 10000, 1),
      real("theta", "theta in [1, 2^53], bound on the expected rank of sum x_i x_i'", "10",
           number([](double v) { return v >= 1 && v <= 9007199254740992.0; },
                  "a number in [1, 2^53]")),
      real("epsilon", "epsilon of (epsilon, delta)-DP (the theorems assume epsilon < 1 or <= 1)",
           "0.5", positive()),
      real("delta", "delta of (epsilon, delta)-DP", "1e-5", open_unit()),
      real("w-norm", "W >= ||w*||_2", "1", positive()),
      real("link-lipschitz", "G, Lipschitz constant of the link sigma (sigmoid: 1/4)", "1",
           positive()),
      real("label-bound", "B >= |y|, |sigma|", "1", positive())};
  if (misspecification)
    ps.push_back(real("misspecification", "M >= |phi(x)|, misspecification of the kernel model",
                      "0", nonnegative()));
  return in_group(std::move(ps), "Problem (Assumptions 1 and 3)");
}

std::vector<param> glm_hidden(const std::vector<std::string>& keys) {
  static const std::map<std::string, std::string> help = {
      {"c-bound", "the absolute constant of the O(.) of the bound"},
      {"c-polylog", "the log factors the O~ hides (multiplies the privacy term)"},
      {"c-step-size", "eta = c-step-size x (the theorem's step size)"},
      {"c-jl-dimension", "m = c-jl-dimension x (the theorem's JL dimension)"},
      {"c-smoothing", "beta = c-smoothing sqrt(n) B/W^2 (Thm 4's proof)"},
      {"c-oracle", "gamma = c-oracle B/(n log n) (Thm 4's proof)"},
      {"c-steps", "T = c-steps x (the theorem's T)"},
      {"c-sample-size", "the constant of the sample complexity"},
      {"c-exponent", "C of Lemmas 16-17 (the exponent constant)"}};
  std::vector<param> ps;
  for (const std::string& k : keys) ps.push_back(real(k, help.at(k), "1", positive()));
  return in_group(std::move(ps), kHidden);
}

risk::glm_problem glm_of(const args& a) {
  risk::glm_problem p;
  p.examples = a.integer("dataset-size");
  p.theta = a.real("theta");
  p.epsilon = a.real("epsilon");
  p.delta = a.real("delta");
  p.W = a.real("w-norm");
  p.G = a.real("link-lipschitz");
  p.B = a.real("label-bound");
  if (a.has("misspecification")) p.M = a.real("misspecification");
  return p;
}

risk::nonconvex_hidden_constants glm_hidden_of(const args& a) {
  risk::nonconvex_hidden_constants c;
  a.maybe("c-bound", c.bound);
  a.maybe("c-polylog", c.polylog);
  a.maybe("c-step-size", c.step_size);
  a.maybe("c-jl-dimension", c.jl_dimension);
  a.maybe("c-smoothing", c.smoothing);
  a.maybe("c-oracle", c.oracle);
  a.maybe("c-steps", c.steps);
  a.maybe("c-sample-size", c.sample_size);
  a.maybe("c-exponent", c.exponent);
  return c;
}

/// Thm 4's parameters (beta, oracle gamma, eta) and its step-size hypothesis eta <= 2/beta.
void add_moreau_parameters(const risk::glm_problem& p, const risk::nonconvex_hidden_constants& c,
                           evaluation& e) {
  if (p.examples < 2)
    throw usage_error("--dataset-size is 1, but Thm 4's oracle accuracy B/(n log n) needs n >= 2");
  const risk::moreau_parameters m = risk::moreau_phased_sgd_parameters(p, c);
  e.derived.push_back({"beta = c-smoothing sqrt(n) B/W^2 (smoothing)", m.beta});
  e.derived.push_back({"oracle accuracy gamma = c-oracle B/(n log n)", m.gamma});
  e.derived.push_back({"oracle steps T_o = ceil(144 B^2/gamma^2)", double(m.oracle_steps)});
  e.derived.push_back({"step size eta (as Thm 1)", m.eta});
  e.conditions.push_back({"eta <= 2/beta (phased SGD on the beta-smooth envelope)", m.eta,
                          2 / m.beta, m.eta_le_2_over_beta,
                          std::string(paper("SWX+23").short_name) + ", Thm 4 (its parameters)"});
}

}  // namespace

std::vector<bound_spec> nonconvex_bounds() {
  using risk::bound_status;
  std::vector<bound_spec> out;
  const std::string kGlm =
      "GLM y = sigma(<w*, x>) + zeta with a monotone G-Lipschitz link bounded by B, learned\n"
      "through the convex surrogate (||x|| <= 1).";
  // "none" (the step size not checked) only where the bound has a use for it: the phase sum
  // needs a step size, and took --eta none as NaN ("--eta is nan").
  auto with_eta = [](const std::string& def, const std::string& help, bool none = true) {
    return in_group(
        {real("eta", help, def, none ? positive({"auto", "none"}) : positive({"auto"}))},
        "Step size");
  };
  out.push_back(
      {"nonconvex-thm1", "SWX+23", "Thm 1 (Algorithm 2)",
       "excess population risk of phased DP-SGD (Algorithm 2) on a GLM",
       bound_status::up_to_constants,
       "Thm 1: excess risk of phased DP-SGD on a GLM (dimension-free)",
       "value = c-bound (1/sqrt(n) + sqrt(theta log(1/delta))/(n eps)).\n"
       "Hypotheses: eps < 1; eta <= 2/G (privacy; checked at the theorem's eta =\n"
       "c-step-size min{eps/sqrt(theta log(1/delta)), 1/sqrt(n)} unless --eta is given). " +
           kGlm,
       "--dataset-size 100000 --epsilon 0.1",
       join({glm_params(false),
             with_eta("auto", "eta of Algorithm 2; auto: the theorem's choice; none: not checked"),
             glm_hidden({"c-bound", "c-step-size"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         const risk::nonconvex_hidden_constants c = glm_hidden_of(a);
         const double theorem_eta = risk::phased_sgd_step_size(p, c);
         const double eta = a.is("eta", "auto") ? theorem_eta : a.real("eta");
         evaluation e = single(risk::phased_sgd_rate(p, eta, c));
         e.derived.push_back({"the theorem's step size eta", theorem_eta});
         e.derived.push_back({"Algorithm 1 runs Algorithm 2 iff eps > theta^{3/2}/n",
                              risk::nonconvex_glm_switch_epsilon(p.theta, p.examples)});
         return e;
       }});
  out.push_back(
      {"nonconvex-thm1-phase-sum", "SWX+23",
       "App A (proof of Thm 1): Lemma 8 summed over the phases",
       "surrogate excess risk E L^l_P(w_k) - L^l_P(w*) of Algorithm 2, every constant explicit",
       bound_status::explicit_bound,
       "Proof of Thm 1: the explicit phase-sum bound on Algorithm 2's surrogate excess risk",
       "value = D0^2/(2 eta_1 n_1) + sum_{i>=2} theta tau_{i-1}^2/(2 eta_i n_i) + 2 B^2 sum_i "
       "eta_i\n"
       "      + 2 B tau_k, with n_i = floor(n/2^i), eta_i = eta/4^i, tau_i = 8 B eta_i\n"
       "sqrt(log(1/delta))/eps, k = floor(log2 n). The excess risk is at most 2G times it (Lemma "
       "3,\n"
       "a derived row). " +
           kGlm,
       "--eta 0.01 --initial-distance 0.5",
       join({glm_params(false), with_eta("auto", "eta of Algorithm 2; auto: Thm 1's choice", false),
             in_group({real("initial-distance", "D0 = ||w_0 - w*||; auto: W (w_0 = 0)", "auto",
                            nonnegative({"auto"}))},
                      "Step size"),
             glm_hidden({"c-step-size"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         if (p.examples < 2)
           throw usage_error("--dataset-size is 1, but Algorithm 2 needs n >= 2 (one phase)");
         const risk::nonconvex_hidden_constants c = glm_hidden_of(a);
         const double eta = a.is("eta", "auto") ? risk::phased_sgd_step_size(p, c) : a.real("eta");
         const double D0 = a.is("initial-distance", "auto") ? p.W : a.real("initial-distance");
         const risk::phase_sum_bound r = risk::phased_sgd_phase_sum(p, eta, D0);
         evaluation e = single(r);
         e.derived.push_back({"excess risk bound 2G x surrogate (Lemma 3)", r.excess_risk});
         e.derived.push_back({"eta used", eta});
         e.derived.push_back({"D0 used", D0});
         e.derived.push_back({"phases k", double(r.phases.size())});
         const risk::phase_sum_approximation ap =
             risk::phased_sgd_phase_sum_approximation(p, eta, D0);
         e.derived.push_back({"closed-form approximation (NOT a bound)", ap.value});
         e.derived.push_back({"eta* minimising the approximation", ap.eta_star});
         return e;
       }});
  out.push_back(
      {"nonconvex-thm2", "SWX+23", "Thm 2 (Algorithm 3)",
       "excess population risk of phased DP-SGD on JL-projected data (Algorithm 3)",
       bound_status::up_to_constants,
       "Thm 2: excess risk of phased DP-SGD on JL-projected data (Algorithm 3)",
       "value = c-bound (c-polylog sqrt(log(1/delta))/(n eps)^{2/3} + 1/sqrt(n)).\n"
       "Hypotheses: eps < 1; eta <= 1/(2G) (the privacy proof) when --eta is given. " + kGlm,
       "--dataset-size 100000 --eta 0.1",
       join({glm_params(false), with_eta("none", "eta of Algorithm 3 (none: not checked)"),
             glm_hidden({"c-bound", "c-polylog", "c-jl-dimension"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         const risk::nonconvex_hidden_constants c = glm_hidden_of(a);
         evaluation e = single(risk::jl_phased_sgd_rate(p, a.real("eta"), c));
         e.derived.push_back({"JL dimension m = c-jl-dimension log(n/delta)(n eps)^{2/3}",
                              risk::jl_dimension(p, c)});
         return e;
       }});
  out.push_back(
      {"nonconvex-alg1", "SWX+23", "Algorithm 1 / Remark 3",
       "excess population risk of Algorithm 1 (the better of Algorithms 2 and 3)",
       bound_status::up_to_constants,
       "Algorithm 1 / Remark 3: excess risk of the better of Algorithms 2 and 3 on a GLM",
       "value = c-bound (1/sqrt(n) + min{c-polylog sqrt(theta) sqrt(log(1/delta))/(n eps),\n"
       "        c-polylog sqrt(log(1/delta))/(n eps)^{2/3}}); Algorithm 1 takes Algorithm 2 iff\n"
       "eps > theta^{3/2}/n. Hypothesis: eps < 1. " +
           kGlm,
       "--theta 1000", join({glm_params(false), glm_hidden({"c-bound", "c-polylog"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         evaluation e = single(risk::nonconvex_glm_rate(p, glm_hidden_of(a)));
         e.derived.push_back({"switch: Algorithm 2 iff eps > theta^{3/2}/n",
                              risk::nonconvex_glm_switch_epsilon(p.theta, p.examples)});
         return e;
       }});
  out.push_back(
      {"nonconvex-thm4", "SWX+23", "Thm 4 (Algorithm 5), eq. (3)",
       "excess population risk of phased DP-SGD on the Moreau envelope (Algorithm 5)",
       bound_status::up_to_constants,
       "Thm 4: excess risk of phased DP-SGD on the Moreau envelope (non-smooth link)",
       "value = c-bound (sqrt(theta log(1/delta))/(n eps) + 1/sqrt(n)).\n"
       "Hypotheses: eps <= 1; eta <= 2/beta at the proof's beta = c-smoothing sqrt(n) B/W^2 and\n"
       "eta as Thm 1. " +
           kGlm,
       "--epsilon 1",
       join({glm_params(false), glm_hidden({"c-bound", "c-step-size", "c-smoothing", "c-oracle"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         const risk::nonconvex_hidden_constants c = glm_hidden_of(a);
         evaluation e = single(risk::moreau_phased_sgd_rate(p, c));
         add_moreau_parameters(p, c, e);
         return e;
       }});
  out.push_back(
      {"nonconvex-thm4-proof", "SWX+23", "proof of Thm 4",
       "excess population risk of Algorithm 5 with the Moreau bias separated",
       bound_status::up_to_constants,
       "Proof of Thm 4: excess risk of Algorithm 5 with the Moreau smoothing bias separated",
       "value = c-bound G W^2 B (sqrt(theta log(1/delta))/(n eps) + 1/sqrt(n)) + G B^2/beta,\n"
       "beta = --moreau-beta or the proof's c-smoothing sqrt(n) B/W^2.\n"
       "Hypotheses: eps <= 1; eta <= 2/beta (eta as Thm 1, beta the proof's). " +
           kGlm,
       "--moreau-beta 1000",
       join({glm_params(false),
             in_group({real("moreau-beta", "beta, the Moreau smoothing; auto: c-smoothing sqrt(n) B/W^2",
                            "auto", positive({"auto"}))},
                      "Smoothing"),
             glm_hidden({"c-bound", "c-step-size", "c-smoothing", "c-oracle"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         const risk::nonconvex_hidden_constants c = glm_hidden_of(a);
         evaluation e = single(risk::moreau_phased_sgd_proof_bound(p, a.real("moreau-beta"), c));
         add_moreau_parameters(p, c, e);
         return e;
       }});
  out.push_back(
      {"nonconvex-thm5", "SWX+23", "Thm 5 (Algorithm 6)",
       "excess population risk of Algorithm 6 (Moreau envelope on JL-projected data)",
       bound_status::up_to_constants,
       "Thm 5: excess risk of phased DP-SGD on the Moreau envelope of JL-projected data",
       "value = c-bound (1/sqrt(n) + c-polylog sqrt(log(1/delta))/(n eps)^{2/3}).\n"
       "Hypothesis: eps <= 1. " +
           kGlm,
       "--dataset-size 1000000", join({glm_params(false), glm_hidden({"c-bound", "c-polylog"})}),
       [](const args& a) { return single(risk::jl_moreau_phased_sgd_rate(glm_of(a), glm_hidden_of(a))); }});
  out.push_back(
      {"nonconvex-thm6", "SWX+23", "Thm 6 (Algorithm 7)",
       "excess population risk of projected DP-GD for ReLU regression (Algorithm 7)",
       bound_status::up_to_constants,
       "Thm 6: excess risk of projected DP gradient descent for ReLU regression",
       "value = c-bound (1/sqrt(n) + c-polylog sqrt(log(1/delta))/(n eps)^{2/3}).\n"
       "Hypothesis: eps <= 1. Link: ReLU (G = 1).",
       "--epsilon 0.2", join({glm_params(false), glm_hidden({"c-bound", "c-polylog"})}),
       [](const args& a) { return single(risk::relu_projected_gd_rate(glm_of(a), glm_hidden_of(a))); }});
  out.push_back(
      {"nonconvex-thm6-proof", "SWX+23", "proof of Thm 6 (logs dropped)",
       "excess population risk of Algorithm 7 as a function of T, terms separated",
       bound_status::up_to_constants,
       "Proof of Thm 6: the five terms of Algorithm 7's excess risk at a given T, m and eta",
       "value = c-bound [W^2/(eta T) + eta (W+B)^2 T m log(1/delta)/(n eps)^2 + (W+B)^2 eta T/n\n"
       "        + W log(n/delta)/m + eta (W+B)^2]\n"
       "(optimisation, privacy, stability, JL bias, step variance). eta auto: the proof's\n"
       "W/(sqrt(T) max{W+B, (W+B) sqrt(mT log(1/delta))/(n eps)}). Hypotheses: eps <= 1, eta <= 1/2.",
       "--steps 1000 --jl-dim 200",
       join({glm_params(false),
             in_group({real("steps", "T; auto: the theorem's c-steps min{n, n^2 eps^2/(m "
                                     "log(1/delta))}",
                            "auto", positive({"auto"})),
                       real("jl-dim", "m, the JL dimension; auto: c-jl-dimension "
                                            "log(n/delta)(n eps)^{2/3}",
                            "auto", positive({"auto"})),
                       real("eta", "eta; auto: the proof's choice", "auto", positive({"auto"}))},
                      "Algorithm 7"),
             glm_hidden({"c-bound", "c-jl-dimension", "c-steps"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         const risk::nonconvex_hidden_constants c = glm_hidden_of(a);
         const double m = a.is("jl-dim", "auto") ? risk::jl_dimension(p, c)
                                                       : a.real("jl-dim");
         const risk::relu_gd_horizon h = risk::relu_gd_steps(p, m, a.real("eta"), c);
         const double T_real = a.is("steps", "auto") ? h.theorem_steps : a.real("steps");
         if (!(T_real < 9.0e15))
           throw usage_error("--steps is " + format_number(T_real) + ", but must be < 9e15");
         const long long T = std::max(1LL, static_cast<long long>(std::ceil(T_real)));
         evaluation e = single(risk::relu_gd_proof_bound(p, T, m, a.real("eta"), c));
         e.derived.push_back({"steps T used", double(T)});
         e.derived.push_back({"JL dimension m used", m});
         e.derived.push_back({"the theorem's T = c-steps min{n, n^2 eps^2/(m log(1/delta))}",
                              h.theorem_steps});
         if (!a.is("eta", "auto"))
           e.derived.push_back({"T* minimising the T-dependent terms at this eta", h.optimal_steps});
         return e;
       }});
  out.push_back(
      {"nonconvex-thm7", "SWX+23", "Thm 7 (Algorithm 8)",
       "population risk L_P(w_T) of DP-GD for agnostic ReLU regression (Algorithm 8)",
       bound_status::explicit_bound,
       "Thm 7: population risk of Algorithm 8 for agnostic ReLU regression, 2(1 + 2mu) opt + alpha",
       "value = 2(1 + 2 mu) opt + alpha, with probability 1 - zeta, explicit once mu (Lemma 12's\n"
       "constant of the law of x) is known; the sample size it needs is nonconvex-thm7-sample-size.",
       "--opt 0.05 --mu 0.5 --alpha 0.01",
       in_group({real("opt", "opt = L_P(w*), the best population risk of a ReLU", "0.1",
                      nonnegative()),
                 real("mu", "mu, Lemma 12's constant of the isotropic log-concave law of x", "1",
                      positive()),
                 real("alpha", "alpha, the additive accuracy", "0.1", nonnegative())},
                "Problem"),
       [](const args& a) {
         return single(
             risk::agnostic_relu_guarantee(a.real("opt"), a.real("mu"), a.real("alpha")));
       }});
  out.push_back(
      {"nonconvex-thm7-sample-size", "SWX+23", "Thm 7",
       "sample size n that Thm 7 needs for accuracy alpha", bound_status::up_to_constants,
       "Thm 7: the sample size agnostic ReLU regression needs (a sample complexity)",
       "value = max{privacy, statistical}, privacy = c-sample-size d ||w*|| sqrt(log(1/delta)\n"
       "log(1/zeta))/(eps alpha), statistical = c-sample-size ||w*||^2 d log^4(1/zeta)/alpha^2\n"
       "(a max: the terms do not sum to the value). Hypotheses: alpha < ||w*||, eps < 1.",
       "--dimension 100 --alpha 0.05",
       join({in_group({integer("dimension", "d, input dimension", 10, 1),
                       real("w-star-norm", "||w*_l||, norm of the best ReLU", "1", positive()),
                       real("epsilon", "epsilon of (epsilon, delta)-DP", "0.5", positive()),
                       real("delta", "delta of (epsilon, delta)-DP", "1e-5", open_unit()),
                       real("alpha", "alpha, the additive accuracy", "0.1", positive()),
                       real("zeta", "zeta, failure probability", "0.05", open_unit())},
                      "Problem"),
             glm_hidden({"c-sample-size"})}),
       [](const args& a) {
         return single(risk::agnostic_relu_sample_size(
             a.integer("dimension"), a.real("w-star-norm"), a.real("epsilon"), a.real("delta"),
             a.real("alpha"), a.real("zeta"), glm_hidden_of(a)));
       }});
  out.push_back(
      {"nonconvex-thm8", "SWX+23", "Thm 8 / Cor 1 (Algorithm 9)",
       "excess population risk of the kernelised GLM learner for two-layer networks (Algorithm 9)",
       bound_status::up_to_constants,
       "Thm 8 / Cor 1: excess risk of the kernelised learner for two-layer networks (Algorithm 9)",
       "value = c-bound c-polylog min{sqrt(theta log(1/delta))/(n eps), sqrt(log(1/delta))/sqrt(n "
       "eps)}\n"
       "      + 1/sqrt(n) + M^2 + M (the misspecification floor, printed without constants).\n"
       "Algorithm 9 takes Algorithm 2 iff eps > theta/n. Hypothesis: eps <= 1.",
       "--misspecification 0.01",
       join({glm_params(true), glm_hidden({"c-bound", "c-polylog"})}),
       [](const args& a) {
         const risk::glm_problem p = glm_of(a);
         evaluation e = single(risk::kernel_glm_rate(p, glm_hidden_of(a)));
         e.derived.push_back({"switch: Algorithm 2 iff eps > theta/n",
                              risk::kernel_glm_switch_epsilon(p.theta, p.examples)});
         const risk::kernel_surrogate_constants k = risk::kernel_surrogate_lemma(p.G, p.M);
         e.derived.push_back({"Lemma 7's explicit floor 2 G^2 M^2 + 4 G M", k.floor});
         return e;
       }});
  auto two_layer = [](risk::hidden_activation act) {
    return [act](const args& a) {
      return single(risk::two_layer_sample_size(act, a.integer("hidden-units"), a.real("alpha"),
                                                a.real("link-lipschitz"), a.real("theta"),
                                                a.real("epsilon"), a.real("delta"),
                                                glm_hidden_of(a)));
    };
  };
  auto two_layer_params = [] {
    return join({in_group({integer("hidden-units", "k, hidden units of the two-layer network", 4, 1),
                           real("alpha", "alpha, the target error", "0.5", positive()),
                           real("link-lipschitz", "G, Lipschitz constant of the activation", "1",
                                positive()),
                           real("theta", "theta, the rank bound", "10", positive()),
                           real("epsilon", "epsilon of (epsilon, delta)-DP", "0.5", positive()),
                           real("delta", "delta of (epsilon, delta)-DP", "1e-5", open_unit())},
                          "Problem"),
                 glm_hidden({"c-sample-size", "c-exponent"})});
  };
  out.push_back(
      {"nonconvex-thm10", "SWX+23", "Thm 10",
       "sample size for error alpha with a two-layer sigmoid network", bound_status::up_to_constants,
       "Thm 10: the sample complexity of DP learning a two-layer sigmoid network",
       "value = c-sample-size ((kG/alpha)^{2C} log(1/delta)/eps + (Gk/alpha)^C sqrt(theta "
       "log(1/delta))/eps),\n"
       "C = c-exponent (Lemmas 16-17; unknown). No hypothesis is checked.",
       "--hidden-units 8 --alpha 0.1", two_layer_params(),
       two_layer(risk::hidden_activation::sigmoid)});
  out.push_back(
      {"nonconvex-thm11", "SWX+23", "Thm 11",
       "sample size for error alpha with a two-layer ReLU network", bound_status::up_to_constants,
       "Thm 11: the sample complexity of DP learning a two-layer ReLU network",
       "value = c-sample-size (4^{C Gk/alpha} log(1/delta)/eps + 2^{C Gk/alpha} sqrt(theta "
       "log(1/delta))/eps),\n"
       "C = c-exponent (Lemmas 16-17; unknown). No hypothesis is checked.",
       "--hidden-units 8 --alpha 0.1", two_layer_params(),
       two_layer(risk::hidden_activation::relu)});
  return out;
}

}  // namespace dpkit::cli::bound_catalogue
