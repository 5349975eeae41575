// `dpkit bound` catalogue: the risk bounds of Wang, Schuchardt, Kalinin, Zhou, Fellenz, Lampert
// & Kloft (KANs trained by DP-SGD with correlated noise), from dpkit/risk/kan_bounds.hpp.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "bound_catalogue.hpp"
#include "dpkit/risk/kan_bounds.hpp"

namespace dpkit::cli::bound_catalogue {
namespace {

// ---- WSK+26: KANs trained by DP-SGD with correlated noise -----------------------------------------

const char* kKanRun = "Training run (Algorithm 1, DP-lambdaCGD)";

std::vector<param> kan_run_params(const std::string& kappa, const std::string& lambda,
                                  bool with_radius) {
  std::vector<param> ps = {
      integer("dataset-size", "n, training examples", 1000, 1),
      integer("input-dimension", "d, input dimension", 2, 1),
      integer("width", "m, width of the KAN (hidden units)", 1024, 1),
      integer("basis-size", "p, B-spline basis functions per input (cubic, G + 3 for G knot "
                            "intervals)",
              8, 1),
      integer("batch-size", "B, mini-batch size (drawn without replacement; B = n: full batch)", 20,
              1),
      integer("steps", "T, number of steps", 500, 1),
      real("eta", "eta, step size", "0.5", positive()),
      real("kappa", "kappa, noise multiplier (0: non-private)", kappa, nonnegative()),
      real("lambda", "lambda, noise correlation: xi_t = kappa (Z_t - lambda Z_{t-1}) (0: independent)",
           lambda, right_open_unit()),
      real("gamma", "gamma, the NTK margin of Assumption 3.3 (the theorems need gamma <= 1)", "0.1",
           positive()),
      real("delta", "delta, confidence level (and the DP delta of the corollaries)", "0.01",
           open_unit()),
      real("clip", "C_clip, clipping norm; auto: G_delta of eq. (5), the smallest C_clip at which "
                   "clipping is inactive; inf: no clipping",
           "auto", positive({"auto", "inf"})),
      choice("activation", "sigma of Assumption 3.2 (with cubic B-splines: its constants in closed "
                           "form)",
             "tanh", {"tanh", "sigmoid"}),
      real("spacing", "h, knot spacing of the cubic B-splines (2/G on [-1, 1]; in [1e-100, 2])",
           "0.4", number([](double v) { return v >= 1e-100 && v <= 2; }, "a number in [1e-100, 2]"))};
  if (with_radius)
    ps.push_back(real("radius",
                      "R*, radius of the projection ball B(W_0, R*); auto: the theorems' choice "
                      "c-radius (log T + sqrt(log(n/delta)))/gamma; inf: no projection",
                      "auto", positive({"auto", "inf"})));
  return in_group(std::move(ps), kKanRun);
}

std::vector<param> kan_hidden_params(const std::vector<std::string>& keys) {
  static const std::map<std::string, std::string> help = {
      {"c-sigma-b", "C_{sigma,b} of the step-size condition eta <= 1/(12 C_{sigma,b} p^3)"},
      {"c-bound", "the absolute constant of the bound's <~"},
      {"c-polylog", "the polylog factor (the paper leaves its power open)"},
      {"c-step-size-condition", "the '<~ 1' of Thm 4.1's step-size/horizon condition"},
      {"c-width-lower", "m >= c-width-lower x (the width's lower bound without its polylog)"},
      {"c-width-upper", "m <= c-width-upper x (Thm 4.1's upper width bound)"},
      {"c-width-generalization", "m >= c-width-generalization x (the population theorems' width "
                                 "condition)"},
      {"c-radius", "R* = c-radius (log T + sqrt(log(n/delta)))/gamma when --radius is auto"},
      {"c-batch", "the corollary's batch size: B = c-batch gamma sqrt(n)"},
      {"c-steps", "T = c-steps x (the corollary's T)"},
      {"c-step-size", "eta = c-step-size x (the corollary's eta)"},
      {"c-width", "m = c-width polylog/gamma^k"},
      {"c-noise", "kappa^2 = c-noise x (Thm 5.1 / Thm 5.4 expression)"}};
  std::vector<param> ps;
  for (const std::string& k : keys) ps.push_back(real(k, help.at(k), "1", positive()));
  return in_group(std::move(ps), kHidden);
}

risk::hidden_constants kan_hidden(const args& a) {
  risk::hidden_constants c;
  a.maybe("c-sigma-b", c.C_sigma_b);
  a.maybe("c-bound", c.bound);
  a.maybe("c-polylog", c.polylog);
  a.maybe("c-step-size-condition", c.step_size_condition);
  a.maybe("c-width-lower", c.width_lower);
  a.maybe("c-width-upper", c.width_upper);
  a.maybe("c-width-generalization", c.width_generalization);
  a.maybe("c-radius", c.radius);
  a.maybe("c-batch", c.batch);
  a.maybe("c-steps", c.steps);
  a.maybe("c-step-size", c.step_size);
  a.maybe("c-width", c.width);
  a.maybe("c-noise", c.noise);
  return c;
}

risk::kan_constants kan_consts(const args& a) {
  return risk::cubic_bspline_constants(
      a.is("activation", "tanh") ? risk::kan_activation::tanh : risk::kan_activation::sigmoid,
      a.real("spacing"));
}

/// The run of the flags. `clip_delta`: the delta at which an auto clip takes G_delta.
risk::kan_training kan_run(const args& a, const risk::kan_constants& k, evaluation& e,
                           double clip_delta = NAN) {
  risk::kan_training s;
  s.examples = a.integer("dataset-size");
  s.input_dimension = a.integer("input-dimension");
  s.width = a.integer("width");
  s.basis_size = a.integer("basis-size");
  s.batch_size = a.integer("batch-size");
  if (s.batch_size > s.examples)
    throw usage_error("--batch-size is " + std::to_string(s.batch_size) +
                      ", but must be <= --dataset-size = " + std::to_string(s.examples));
  s.steps = a.integer("steps");
  s.eta = a.real("eta");
  s.kappa = a.real("kappa");
  s.lambda = a.real("lambda");
  s.gamma = a.real("gamma");
  s.delta = a.real("delta");
  const double G =
      risk::kan_curvature_bounds(k, s.width, s.basis_size,
                                 std::isnan(clip_delta) ? s.delta : clip_delta)
          .gradient;
  e.derived.push_back({"G_delta, gradient bound of eq. (5)", G});
  s.clip = a.is("clip", "auto") ? G : a.real("clip");
  if (a.is("clip", "auto")) e.derived.push_back({"C_clip = G_delta (--clip auto)", s.clip});
  if (a.has("radius")) s.radius = a.real("radius");
  return s;
}

const std::string kKanFormulaNote =
    "Assumption 3.2's constants are those of cubic B-splines of spacing h with tanh or sigmoid\n"
    "(B_b = 2/3, B'_b = 2/(3h), B''_b = 2/h^2). 'md' is printed by the paper as md (p absorbed).";

}  // namespace

std::vector<bound_spec> kan_bounds() {
  using risk::bound_status;
  std::vector<bound_spec> out;
  auto theorem = [](risk::risk_bound (*fn)(const risk::kan_training&, const risk::kan_constants&,
                                           const risk::hidden_constants&)) {
    return [fn](const args& a) {
      evaluation e;
      const risk::kan_constants k = kan_consts(a);
      const risk::kan_training s = kan_run(a, k, e);
      const risk::risk_bound r = fn(s, k, kan_hidden(a));
      evaluation result = single(r);
      result.derived = e.derived;
      return result;
    };
  };
  out.push_back(
      {"kan-thm4.1", "WSK+26", "Thm 4.1 / C.13",
       "optimisation risk (1/T) sum_t L_S(W_t) of DP-lambdaCGD (correlated noise)",
       bound_status::up_to_constants,
       "Thm 4.1 / C.13: optimisation risk of a KAN trained by DP-SGD with correlated noise",
       "value = c-bound c-polylog A_corr,\n"
       "A_corr = 1/(gamma^2 eta T) + 1/(gamma sqrt(B T)) + eta (1/B + 1/T)\n"
       "       + ((1 - lambda) kappa/(B sqrt T)) (1/gamma + eta sqrt(md)/sqrt(B))\n"
       "       + ((1 - lambda)^2 + lambda^2 eta) eta kappa^2 md/B^2.\n"
       "Hypotheses checked: 0 < lambda < 1, kappa > 0, gamma <= 1, eta <= 1/(12 C_{sigma,b} p^3),\n"
       "C_clip >= G_delta, the step-size/horizon condition and the width window\n"
       "c-width-lower gamma^-4 <= m <= c-width-upper B^2/(eta^2 kappa^2 gamma^2 d) min{1, ...}.\n" +
           kKanFormulaNote,
       "--kappa 2 --lambda 0.9",
       join({kan_run_params("1", "0.5", false),
             kan_hidden_params({"c-sigma-b", "c-bound", "c-polylog", "c-step-size-condition",
                                "c-width-lower", "c-width-upper"})}),
       theorem(&risk::kan_correlated_optimization)});
  out.push_back(
      {"kan-thm5.2", "WSK+26", "Thm 5.2 / C.23",
       "population risk of DP-lambdaCGD (correlated noise)", bound_status::up_to_constants,
       "Thm 5.2 / C.23: population risk of a KAN trained by DP-SGD with correlated noise",
       "appendix (Thm C.23, default): c-bound (1 + eta T log(1/delta)/n)(A + log(n/delta)(sqrt(m) + "
       "R*) delta),\n"
       "main-text (Thm 5.2):          c-bound (1 + eta T/n)(A + (sqrt(m) + R*) delta),\n"
       "A = c-polylog A_corr (see kan-thm4.1). Hypotheses: those of Thm 4.1 and the width\n"
       "condition m >= c-width-generalization R*^2 log(m/delta) eta^2 (T A + ...)^2.\n" +
           kKanFormulaNote,
       "--statement main-text --dataset-size 60000",
       join({kan_run_params("1", "0.5", true),
             in_group({choice("statement",
                              "appendix: Thm C.23 (the full statement, with its log factors); "
                              "main-text: Thm 5.2's display",
                              "appendix", {"appendix", "main-text"})},
                      kKanRun),
             kan_hidden_params({"c-sigma-b", "c-bound", "c-polylog", "c-step-size-condition",
                                "c-width-lower", "c-width-upper", "c-width-generalization",
                                "c-radius"})}),
       [](const args& a) {
         evaluation e;
         const risk::kan_constants k = kan_consts(a);
         const risk::kan_training s = kan_run(a, k, e);
         const risk::hidden_constants c = kan_hidden(a);
         const risk::risk_bound r = risk::kan_correlated_population(
             s, k, c,
             a.is("statement", "appendix") ? risk::statement::appendix
                                           : risk::statement::main_text);
         evaluation result = single(r);
         result.derived = e.derived;
         if (std::isnan(s.radius))
           result.derived.push_back(
               {"R* = c-radius (log T + sqrt(log(n/delta)))/gamma (--radius auto)",
                c.radius *
                    (std::log(double(s.steps)) + std::sqrt(std::log(double(s.examples) / s.delta))) /
                    s.gamma});
         return result;
       }});
  out.push_back(
      {"kan-thmD.14", "WSK+26", "Thm D.14",
       "optimisation risk of DP-SGD with independent noise (lambda = 0)",
       bound_status::up_to_constants,
       "Thm D.14: optimisation risk of a KAN trained by DP-SGD with independent noise",
       "value = c-bound A_van, with L = log(1/delta), rho_T = log T + sqrt(log(n/delta)):\n"
       "A_van = (log^2 T + log(n/delta))/(gamma^2 eta T) + L rho_T/(gamma sqrt(B T))\n"
       "      + L rho_T kappa/(gamma B sqrt T) + eta L (1/B + L/T) + eta md L^2 kappa^2/B^2.\n"
       "Hypotheses: lambda = 0, gamma <= 1, eta <= 1/(12 C_{sigma,b} p^3), C_clip >= G_delta,\n"
       "m >= c-width-lower max{log(m/delta)(log^4 T + log^2(n/delta))/gamma^4, log(nT/delta)/(Td)}.",
       "--kappa 0.5 --eta 1e-4",
       join({kan_run_params("1", "0", false),
             kan_hidden_params({"c-sigma-b", "c-bound", "c-width-lower"})}),
       theorem(&risk::kan_independent_optimization)});
  out.push_back(
      {"kan-thmD.16", "WSK+26", "Thm D.16",
       "population risk of DP-SGD with independent noise (lambda = 0)",
       bound_status::up_to_constants,
       "Thm D.16: population risk of a KAN trained by DP-SGD with independent noise",
       "value = c-bound [(1 + eta T log(1/delta)/n)(A_van + delta sqrt(log(n/delta)))\n"
       "        + sqrt(log(1/delta)) rho_T delta/gamma], A_van as in kan-thmD.14.\n"
       "Hypotheses: those of Thm D.14 and m >= c-width-generalization log(m/delta) eta^2\n"
       "(T^2 A_van^2 + log(n/delta) log^2(1/delta)(T/B + 1)).",
       "--dataset-size 60000 --steps 2000",
       join({kan_run_params("1", "0", false),
             kan_hidden_params({"c-sigma-b", "c-bound", "c-width-lower", "c-width-generalization"})}),
       theorem(&risk::kan_independent_population)});
  out.push_back(
      {"kan-thmE.1-opt", "WSK+26", "Thm E.1 (optimisation)",
       "optimisation risk of non-private mini-batch SGD (kappa = 0)",
       bound_status::up_to_constants,
       "Thm E.1: optimisation risk of a KAN trained by non-private mini-batch SGD",
       "value = c-bound A_non, A_non = 1/(gamma^2 eta T) + 1/(gamma sqrt(B T)) + eta/B.\n"
       "Hypotheses: kappa = 0, gamma <= 1, eta <= 1/(12 C_{sigma,b} p^3), C_clip >= G_delta,\n"
       "m >= c-width-lower log(m/delta)(log^4 T + log^2(n/delta))/gamma^4.",
       "--eta 1e-4 --steps 100000",
       join({kan_run_params("0", "0", false),
             kan_hidden_params({"c-sigma-b", "c-bound", "c-width-lower"})}),
       theorem(&risk::kan_sgd_optimization)});
  out.push_back(
      {"kan-thmE.1-pop", "WSK+26", "Thm E.1 (population)",
       "population risk of non-private mini-batch SGD (kappa = 0)", bound_status::up_to_constants,
       "Thm E.1: population risk of a KAN trained by non-private mini-batch SGD",
       "value = c-bound [(1 + eta T/n)(A_non + delta) + delta/gamma], A_non as in kan-thmE.1-opt.\n"
       "Hypotheses: those of the optimisation bound and m >= c-width-generalization log(m/delta)\n"
       "eta^2 (T^2 A_non^2 + log(n/delta) log^2(1/delta)(T/B + 1)).",
       "--dataset-size 60000",
       join({kan_run_params("0", "0", false),
             kan_hidden_params({"c-sigma-b", "c-bound", "c-width-lower", "c-width-generalization"})}),
       theorem(&risk::kan_sgd_population)});

  // The explicit certificate (Lemmas C.3-C.11 assembled) with Lemma C.12's comparator.
  out.push_back(
      {"kan-certificate", "WSK+26", "Lemmas C.3, C.5, C.6, C.10, C.11 with Lemma C.12",
       "optimisation risk (1/T) sum_t L_S(W_t) of DP-lambdaCGD, every constant explicit",
       bound_status::explicit_bound,
       "Explicit certificate (Lemmas C.3-C.12): optimisation risk of DP-lambdaCGD, no hidden "
       "constant",
       "value = 8 L_S(W*) + 3 tau^2/(eta T) + 3(a R_bar + b)/(eta T) + 6 eta V_Delta/T\n"
       "      + 3((1 - lambda)^2 eta + 12 beta lambda^2 eta^2) c^2 V_Z/T,  c = C_clip kappa/B,\n"
       "with beta = G^2/4 + H and G, H the explicit Lemma B.6-B.7 constants at delta-init,\n"
       "holding with probability >= 1 - (delta-init + delta-z + delta-minibatch + delta-pot)\n"
       "(and - delta for the comparator when --tau and --comparator-loss are auto).\n"
       "Hypotheses: eta <= 1/(12 beta), nu (R_bar + eta c z)^2 <= 1/2, R* >= R_bar + tau + eta c z,\n"
       "C_clip >= G_delta, 0 < lambda; with the auto comparator also Lemma C.12's gamma <= 1 and\n"
       "tau H_{delta/2} <= gamma/2. " + kKanFormulaNote,
       "--eta 1e-5 --width 100000000",
       join({kan_run_params("1", "0.5", true),
             in_group({real("tau",
                            "||W* - W_0||, the comparator's distance; auto: Lemma C.12's radius "
                            "max{2 B_b sqrt(2p log(2n/delta)), 4 log T}/gamma",
                            "auto", nonnegative({"auto"})),
                       real("comparator-loss",
                            "L_S(W*), the comparator's training loss; auto: 1/T (what Lemma "
                            "C.12 guarantees when its conditions hold)",
                            "auto", nonnegative({"auto"})),
                       real("delta-init", "delta of the second-layer event E_delta (Lemma B.5); "
                                          "auto: delta/4",
                            "auto", open_unit({"auto"})),
                       real("delta-z", "delta_Z of the Gaussian event (Lemma C.5); auto: delta/4",
                            "auto", open_unit({"auto"})),
                       real("delta-minibatch",
                            "delta_Delta of the mini-batch event (Lemma C.6); auto: delta/4", "auto",
                            open_unit({"auto"})),
                       real("delta-pot", "delta_pot of the potential event (Lemma C.10); auto: "
                                         "delta/4",
                            "auto", open_unit({"auto"}))},
                      "Certificate")}),
       [](const args& a) {
         evaluation e;
         const risk::kan_constants k = kan_consts(a);
         const double delta = a.real("delta");
         auto or_quarter = [&](const char* key) {
           return a.is(key, "auto") ? delta / 4 : a.real(key);
         };
         risk::certificate_inputs in;
         in.delta_init = or_quarter("delta-init");
         in.delta_Z = or_quarter("delta-z");
         in.delta_Delta = or_quarter("delta-minibatch");
         in.delta_pot = or_quarter("delta-pot");
         risk::kan_training s = kan_run(a, k, e, in.delta_init);
         if (std::isnan(s.radius)) {
           s.radius = (std::log(double(s.steps)) +
                       std::sqrt(std::log(double(s.examples) / s.delta))) /
                      s.gamma;
           e.derived.push_back(
               {"R* = (log T + sqrt(log(n/delta)))/gamma (--radius auto)", s.radius});
         }
         std::vector<risk::condition> comparator;
         const bool auto_tau = a.is("tau", "auto"), auto_loss = a.is("comparator-loss", "auto");
         if (auto_tau) {
           const double H =
               risk::kan_curvature_bounds(k, s.width, s.basis_size, delta / 2).hessian;
           const risk::risk_bound t = risk::kan_comparator_radius(
               s.gamma, s.basis_size, s.examples, s.steps, delta, k.B_b, H);
           in.tau = t.value;
           comparator = t.conditions;
           e.derived.push_back({"tau, Lemma C.12's comparator radius (--tau auto)", in.tau});
         } else {
           in.tau = a.real("tau");
         }
         in.comparator_loss = auto_loss ? 1 / double(s.steps) : a.real("comparator-loss");
         const risk::kan_certificate r = risk::kan_correlated_certificate(s, k, in);
         evaluation result = single(r);
         result.derived = e.derived;
         if (auto_loss) {
           // L_S(W*) <= 1/T is what Lemma C.12 proves for its W* (= W_0 + tau u): its
           // conditions are hypotheses of this bound too.
           result.conditions.insert(result.conditions.end(), comparator.begin(),
                                    comparator.end());
           if (!auto_tau)
             result.notes.push_back(
                 "--comparator-loss auto (1/T) is Lemma C.12's guarantee for its own tau; with "
                 "your --tau, give the loss of your comparator instead.");
         }
         const double probability = r.probability - (auto_loss && auto_tau ? delta : 0.0);
         result.derived.push_back({"comparator loss L_S(W*) used", in.comparator_loss});
         result.derived.push_back({"R_bar (eq. (10) with equality)", r.R_bar});
         result.derived.push_back({"z_{delta_Z} (Lemma C.5)", r.z});
         result.derived.push_back({"V_Z (Lemma C.5)", r.V_Z});
         result.derived.push_back({"V_Delta (Lemma C.6)", r.V_Delta});
         result.derived.push_back({"noise scale c = C_clip kappa/B", r.noise_scale});
         result.derived.push_back({"beta = G^2/4 + H (smoothness)", r.curvature.smoothness});
         result.derived.push_back({"probability the bound holds, at least", probability});
         return result;
       }});

  // Corollaries: the parameters they prescribe and the rates that follow.
  auto rate_params = [](bool epsilon, bool correlated, bool free_batch) {
    std::vector<param> ps = {
        integer("dataset-size", "n, training examples", 60000, 1),
        integer("input-dimension", "d, input dimension", 784, 1),
        integer("basis-size", "p, B-spline basis functions (for the step-size condition)", 8, 1),
        real("gamma", "gamma, the NTK margin (<= 1)", "0.1", positive()),
        real("delta", "delta, confidence = DP delta", "1e-6", open_unit())};
    if (epsilon) ps.push_back(real("epsilon", "epsilon of (epsilon, delta)-DP", "1", positive()));
    if (correlated) {
      ps.push_back(real("lambda", "lambda, the fixed noise correlation in (0, 1)", "0.5",
                        right_open_unit()));
      ps.push_back(real("rho", "rho, the batch fraction B = rho n, in (0, 1)", "0.5",
                        left_open_unit()));
    }
    if (free_batch)
      ps.push_back(integer("batch-size", "B (0: the largest allowed, c-batch gamma sqrt(n))", 0, 0));
    if (free_batch || !epsilon)
      ps.push_back(integer("width", "m (0: c-width c-polylog/gamma^4)", 0, 0));
    return in_group(std::move(ps), "Problem");
  };
  auto rate = [](risk::kan_rate (*fn)(const risk::rate_problem&, const risk::hidden_constants&)) {
    return [fn](const args& a) {
      risk::rate_problem p;
      p.examples = a.integer("dataset-size");
      p.input_dimension = a.integer("input-dimension");
      p.basis_size = a.integer("basis-size");
      p.gamma = a.real("gamma");
      p.delta = a.real("delta");
      if (a.has("epsilon")) p.epsilon = a.real("epsilon");
      if (a.has("lambda")) p.lambda = a.real("lambda");
      if (a.has("rho")) p.rho = a.real("rho");
      if (a.has("batch-size")) p.batch_size = a.integer("batch-size");
      if (a.has("width")) p.width = a.integer("width");
      if (p.batch_size > p.examples)
        throw usage_error("--batch-size is " + std::to_string(p.batch_size) +
                          ", but must be <= --dataset-size = " + std::to_string(p.examples));
      const risk::kan_rate r = fn(p, kan_hidden(a));
      evaluation e;
      e.totals = {{"optimisation", r.optimization}, {"population", r.population}};
      e.conditions = r.optimization.conditions;  // the same list for both rates
      const risk::kan_training& s = r.setting;
      e.derived = {{"prescribed batch size B", double(s.batch_size)},
                   {"prescribed step size eta", s.eta},
                   {"prescribed steps T", double(s.steps)},
                   {"prescribed width m", double(s.width)},
                   {"prescribed noise multiplier kappa", s.kappa}};
      e.notes.push_back(
          "The prescribed run can be checked against the theorem it comes from: pass the "
          "prescribed B, eta, T, m, kappa to the theorem's own bound (kan-thm4.1, kan-thmD.14 "
          "or kan-thmE.1-opt).");
      return e;
    };
  };
  const std::vector<std::string> rate_hidden = {"c-sigma-b", "c-bound", "c-polylog", "c-batch",
                                                "c-steps",   "c-step-size", "c-width", "c-noise"};
  out.push_back(
      {"kan-cor5.3", "WSK+26", "Cor 5.3 / C.24",
       "optimisation and population risk rates of DP-lambdaCGD at the prescribed parameters",
       bound_status::up_to_constants,
       "Cor 5.3 / C.24: risk rates of DP-SGD with correlated noise (prescribed B, eta, T, m, "
       "kappa)",
       "B = rho n, eta = c-step-size, T = c-steps min{sqrt(n)/gamma, n eps gamma^2/sqrt(d)},\n"
       "m = c-width c-polylog/gamma^6, kappa^2 from Thm 5.1; both rates\n"
       "c-bound c-polylog (1/(gamma sqrt n) + sqrt(d)/(gamma^4 n eps)).\n"
       "Hypotheses: 0 < lambda < 1, rho < 1, gamma <= 1, delta <= min{1/(n sqrt m), gamma/n},\n"
       "eta <= 1/(12 C_{sigma,b} p^3) (which eta ~ 1 violates unless the constants absorb p^3).",
       "--epsilon 2 --lambda 0.9",
       join({rate_params(true, true, false), kan_hidden_params(rate_hidden)}),
       rate(&risk::kan_correlated_rate)});
  out.push_back(
      {"kan-cor5.5", "WSK+26", "Cor 5.5",
       "optimisation and population risk rates of DP-SGD with independent noise",
       bound_status::up_to_constants,
       "Cor 5.5: risk rates of DP-SGD with independent noise (prescribed B, eta, T, m, kappa)",
       "B = c-batch gamma sqrt(n), eta = c-step-size min{1, gamma^2 sqrt(n) eps/sqrt(d)},\n"
       "T = c-steps sqrt(n)/gamma, m = c-width c-polylog/gamma^4, kappa^2 from Thm 5.4; both rates\n"
       "c-bound (1/(gamma sqrt n) + sqrt(d)/(gamma^3 n eps)).\n"
       "Hypotheses: gamma <= 1, delta <= gamma/n, eta <= 1/(12 C_{sigma,b} p^3), 1 <= B <= n.",
       "--epsilon 2", join({rate_params(true, false, false), kan_hidden_params(rate_hidden)}),
       rate(&risk::kan_independent_rate)});
  out.push_back(
      {"kan-cor5.6", "WSK+26", "Cor 5.6",
       "optimisation and population risk rates of non-private mini-batch SGD",
       bound_status::up_to_constants,
       "Cor 5.6: risk rates of non-private mini-batch SGD (prescribed eta, T, m)",
       "B <= c-batch gamma sqrt(n), eta = c-step-size B/n, T = c-steps n^2/(gamma^2 B),\n"
       "m >= c-width c-polylog/gamma^4; rates c-bound/n (optimisation), c-bound/(gamma^2 n)\n"
       "(population). Hypotheses: gamma <= 1, delta <= 1/(gamma n), B <= c-batch gamma sqrt(n),\n"
       "eta <= 1/(12 C_{sigma,b} p^3), m >= c-width c-polylog/gamma^4.",
       "--batch-size 10", join({rate_params(false, false, true), kan_hidden_params(rate_hidden)}),
       rate(&risk::kan_sgd_rate)});
  out.push_back(
      {"kan-gd", "WSK+26", "App. E (full-batch GD after Cor 5.6)",
       "optimisation and population risk rates of full-batch gradient descent",
       bound_status::up_to_constants,
       "App. E: risk rates of full-batch gradient descent (prescribed eta, T, m)",
       "B = n, eta = c-step-size, T = c-steps n/gamma^2; rates c-bound/(gamma^2 T)\n"
       "(optimisation) and c-bound/(gamma^2 n) (population). Hypotheses: gamma <= 1,\n"
       "delta <= 1/(gamma n), eta <= 1/(12 C_{sigma,b} p^3), m >= c-width c-polylog/gamma^4.",
       "--gamma 0.5", join({rate_params(false, false, false), kan_hidden_params(rate_hidden)}),
       rate(&risk::kan_gd_rate)});
  return out;
}

}  // namespace dpkit::cli::bound_catalogue
