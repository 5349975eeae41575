// `dpkit bound` catalogue: the risk bounds of Zhang, Xie, Ding, Fu, Liu & Wang (long-tailed
// memorisation under DP-SGD), from dpkit/risk/longtail_bounds.hpp.
#include <algorithm>
#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "bound_catalogue.hpp"
#include "dpkit/risk/longtail_bounds.hpp"
#include "dpkit/learners/longtail.hpp"

namespace dpkit::cli::bound_catalogue {
namespace {

// ---- ZXD+26: long-tailed memorisation -------------------------------------------------------------

const char* kLongtailProblem = "Data (Definition 1, the spiked construction)";
const char* kLongtailRun = "Training run (DP-SGD of eq. (4))";

std::vector<param> longtail_params(bool noise) {
  std::vector<param> data = in_group(
      {param{"class-counts", param_type::list,
             "|S_1|,...,|S_K|: training examples per class (K = how many are given; n = their sum)",
             "50,50,50", count_list(), {}, ""},
       integer("class", "k, the class the bound is about (0-based)", 0, 0, 1000000000),
       integer("dimension", "d, the data dimension (>= 2K)", 150, 4),
       real("signal-norm", "||u_k||, the norm of every class signal", "5", nonnegative()),
       real("noise-scale", "s: the noise patches' A_k have entries s off the spike", "0.5",
            positive()),
       real("ncr", "NCR >= 1, the noise correlation ratio of balanced classes: it sets the spike "
                   "lambda of A_k at coordinate K + k (as in dpkit simulate)",
            "10", number([](double v) { return v >= 1; }, "a finite number >= 1"))},
      kLongtailProblem);
  std::vector<param> run = {
      integer("width", "m, filters of the two-layer ReLU CNN", 20, 1),
      real("eta", "eta, step size", "0.002", positive()),
      integer("batch-size", "B, batch size (Condition 1(c): B >= c2 n)", 64, 1),
      integer("steps", "T, number of steps", 50, 1),
      real("clip", "C, clipping threshold; inf: no clipping (clean training, Lambda_k = 1)", "1",
           positive({"inf"}))};
  if (noise)
    run.push_back(real("noise-std", "sigma_n, std of the DP noise n_t of eq. (4) (z C/B for a "
                                    "noise multiplier z)",
                       "0.02", nonnegative()));
  run.push_back(real("sigma0", "sigma_0, the initialisation scale (Condition 1(b), (c); Thm 1's T "
                               "condition)",
                     "0.001", positive()));
  run.push_back(real("fail-delta", "delta, failure probability", "0.05", open_unit()));
  std::vector<param> cond1 = in_group(
      {flag("no-condition1", "do not check Condition 1 (the hypothesis of every theorem of the "
                             "paper); then only the theorem's own conditions are checked"),
       real("condition1-c1", "c1 of Condition 1 ('sufficiently large'; also the Omega of (b))",
            "1", positive()),
       real("condition1-c2", "c2 of Condition 1(c), B >= c2 n, in (0, 1)", "0.5", open_unit()),
       real("condition1-c-abs", "the absolute C of Condition 1(b)", "1", positive()),
       flag("literal-condition1a",
            "read Condition 1(a)'s third line literally for all i != j (self-contradictory) "
            "instead of as self-dominance (the proofs' reading)")},
      "Condition 1");
  return join({data, in_group(std::move(run), kLongtailRun), cond1});
}

std::vector<param> longtail_hidden(const std::vector<std::pair<std::string, std::string>>& keys) {
  std::vector<param> ps;
  for (const auto& [k, h] : keys) ps.push_back(real(k, h, "1", positive()));
  return in_group(std::move(ps), kHidden);
}

struct longtail_inputs {
  risk::longtail_problem problem;
  risk::longtail_setting setting;
  std::size_t k = 0;
};

longtail_inputs longtail_of(const args& a, evaluation& e) {
  longtail_inputs in;
  const std::vector<double> counts = parse_list(a.text("class-counts"));
  const std::size_t K = counts.size();
  const long long k = a.integer("class");
  if (k >= static_cast<long long>(K))
    throw usage_error("--class is " + std::to_string(k) + ", but must be < K = " +
                      std::to_string(K) + " (the number of --class-counts)");
  in.k = static_cast<std::size_t>(k);
  const auto d = static_cast<std::size_t>(a.integer("dimension"));
  if (d < 2 * K)
    throw usage_error("--dimension is " + a.text("dimension") + ", but must be >= 2K = " +
                      std::to_string(2 * K) + " (K = the number of --class-counts)");
  const double spike = learners::spike_for_ncr(K, d, a.real("noise-scale"), a.real("ncr"));
  in.problem = risk::spiked_problem(K, d, a.real("signal-norm"), a.real("noise-scale"), spike,
                                    counts);
  risk::longtail_setting& s = in.setting;
  s.width = double(a.integer("width"));
  s.eta = a.real("eta");
  s.batch_size = double(a.integer("batch-size"));
  s.steps = double(a.integer("steps"));
  s.clip = a.real("clip");
  if (a.has("noise-std")) s.noise_std = a.real("noise-std");
  s.sigma0 = a.real("sigma0");
  s.fail_delta = a.real("fail-delta");
  if (s.batch_size > in.problem.examples())
    throw usage_error("--batch-size is " + a.text("batch-size") +
                      ", but must be <= n = " + format_number(in.problem.examples()) +
                      " (the sum of --class-counts)");
  e.derived.push_back({"spike lambda of A_k (from --ncr)", spike});
  e.derived.push_back({"n = sum of class counts", in.problem.examples()});
  e.derived.push_back({"Lambda_k = min{1, C/(||u_k|| + ||A_k||_F)}, clipping factor",
                       risk::setting_clipping_factor(in.problem, s, in.k)});
  for (std::size_t j = 0; j < K; ++j)
    if (j != in.k) {
      e.derived.push_back({"SNR_{k," + std::to_string(j) + "}", risk::snr(in.problem, in.k, j)});
      e.derived.push_back({"NCR_{k," + std::to_string(j) + "}", risk::ncr(in.problem, in.k, j)});
    }
  return in;
}

/// The theorem's result with Condition 1 appended (unless --no-condition1).
evaluation with_condition1(const args& a, const longtail_inputs& in, const risk::risk_bound& r,
                           evaluation e) {
  evaluation out = single(r);
  out.derived = std::move(e.derived);
  out.notes = std::move(e.notes);
  if (a.flag("no-condition1")) {
    out.notes.push_back(
        "Condition 1 not checked (--no-condition1): the theorems of this paper assume it.");
    return out;
  }
  if (in.setting.steps < 2)
    throw usage_error("--steps is " + a.text("steps") +
                      ", but Condition 1 needs T >= 2 (log T > 0); give --no-condition1 to skip it");
  risk::condition1_constants c;
  c.c1 = a.real("condition1-c1");
  c.c2 = a.real("condition1-c2");
  c.c_abs = a.real("condition1-c-abs");
  c.self_dominance_reading = !a.flag("literal-condition1a");
  const std::vector<risk::condition> c1 = risk::condition1(in.problem, in.setting, c);
  out.conditions.insert(out.conditions.end(), c1.begin(), c1.end());
  out.notes.push_back(
      "Condition 1 (every inequality of (a)-(c), with c1, c2, C as given) is checked as a "
      "hypothesis; its 'P[zeta > c'] >= 0.4' requirement is a property of the data law and is "
      "not evaluated.");
  return out;
}

risk::longtail_constants longtail_constants_of(const args& a, bool statement2) {
  risk::longtail_constants c;
  a.maybe("c-drift", c.drift);
  a.maybe("c-drift-noise", c.drift_noise);
  a.maybe("c-iterations", c.iterations);
  a.maybe("c-rate", c.rate);
  a.maybe("c-floor", c.floor);
  if (statement2) {
    a.maybe("c-exponent", c.c2);
    a.maybe("c-threshold", c.C2);
  } else {
    a.maybe("c-exponent", c.c1);
    a.maybe("c-threshold", c.C1);
  }
  return c;
}

const std::string kLongtailNote =
    "The data are the spiked construction of Definition 1 (closed forms): A_k has entries s off\n"
    "the first K coordinates and a spike lambda at K + k, set by --ncr; every class signal has\n"
    "norm ||u_k||; --class-counts sets K and |S_k| (a small count makes a long-tailed class).\n"
    "Condition 1 is checked too unless --no-condition1.";

}  // namespace

std::vector<bound_spec> longtail_bounds() {
  using risk::bound_status;
  std::vector<bound_spec> out;
  out.push_back(
      {"longtail-thm1", "ZXD+26", "Thm 1",
       "memorisation: a LOWER bound on <w_{y,r}^(T), xi> (how far training moves a filter toward "
       "an example's noise patch xi)",
       bound_status::up_to_constants,
       "Thm 1: memorisation of an example's noise patch under DP-SGD (a lower bound)",
       "value = c-drift (eta Lambda_y/(n sqrt m)) ||xi||^2 sum_t (1 - logit_y)\n"
       "      - c-drift-noise (noise term),  noise term: statement eta sigma_n ||A_y||_F,\n"
       "      proof eta T sigma_n ||A_y||_F, exact-std eta sigma_n ||xi|| sqrt(T) (no constant).\n"
       "sum_t (1 - logit_y) = T x --one-minus-logit. Hypothesis: T >= c-iterations n sqrt(m)\n"
       "sigma_0/(eta Lambda_y ||A_y||_F). " +
           kLongtailNote,
       "--noise-form proof --steps 200",
       join({longtail_params(true),
             in_group({real("xi-norm-sq", "||xi||^2 of the example's noise patch; auto: "
                                          "||A_k||_F^2 (its mean for xi = A_k zeta, zeta standard "
                                          "Gaussian)",
                            "auto", nonnegative({"auto"})),
                       real("one-minus-logit",
                            "mean of 1 - logit_y(W^(t), x) over the T steps, in [0, 1]; auto: "
                            "1 - 1/K (uniform logits, as at initialisation)",
                            "auto",
                            number([](double v) { return v >= 0 && v <= 1; }, "a number in [0, 1]",
                                   {"auto"})),
                       choice("noise-form",
                              "the DP-noise term: statement (as Thm 1 states it), proof (what the "
                              "proof's sum gives, T times larger) or exact-std (the exact std)",
                              "statement", {"statement", "proof", "exact-std"})},
                      "Theorem 1"),
             longtail_hidden({{"c-drift", "the Omega in front of the memorisation drift"},
                              {"c-drift-noise", "the O of the DP-noise term"},
                              {"c-iterations", "T >= c-iterations n sqrt(m) sigma_0/(...)"}})}),
       [](const args& a) {
         evaluation e;
         const longtail_inputs in = longtail_of(a, e);
         const double F = in.problem.frobenius[in.k];
         const double xi = a.is("xi-norm-sq", "auto") ? F * F : a.real("xi-norm-sq");
         const double K = double(in.problem.classes());
         const double oml = a.is("one-minus-logit", "auto") ? 1 - 1 / K : a.real("one-minus-logit");
         const std::string& form = a.text("noise-form");
         const risk::risk_bound r = risk::thm1_memorisation(
             in.problem, in.setting, in.k, xi, in.setting.steps * oml,
             form == "statement" ? risk::thm1_noise_form::statement
             : form == "proof"   ? risk::thm1_noise_form::proof
                                 : risk::thm1_noise_form::exact_std,
             longtail_constants_of(a, false));
         e.derived.push_back({"||xi||^2 used", xi});
         e.derived.push_back({"sum_t (1 - logit_y) used", in.setting.steps * oml});
         e.notes.push_back(
             "Thm 1 is a LOWER bound: memorisation is at least the value (a value <= 0 says "
             "nothing).");
         return with_condition1(a, in, r, std::move(e));
       }});
  out.push_back(
      {"longtail-thm2", "ZXD+26", "Thm 2", "training loss L(W^(T), x, y) of an example of class k",
       bound_status::up_to_constants, "Thm 2: training loss of DP-SGD on an example of class k",
       "value = exp(-c-rate eta T Lambda_y |S_y| ||u_y||^2/(n sqrt m)) L(W^(0), x, y)\n"
       "      + c-floor n sqrt(m) sigma_n sqrt(d) (||u_y|| + ||A_y||_F)/(Lambda_y |S_y| ||u_y||^2)\n"
       "(vanishing error + privacy protection error; the second is a floor, linear in sigma_n).\n" +
           kLongtailNote,
       "--class-counts 50,50,5 --class 2",
       join({longtail_params(true),
             in_group({real("initial-loss", "L(W^(0), x, y) at initialisation; auto: log K "
                                            "(cross-entropy at uniform logits)",
                            "auto", nonnegative({"auto"}))},
                      "Theorem 2"),
             longtail_hidden({{"c-rate", "the Omega in the exponent of the vanishing error"},
                              {"c-floor", "the O of the privacy-protection error"}})}),
       [](const args& a) {
         evaluation e;
         const longtail_inputs in = longtail_of(a, e);
         const double L0 = a.is("initial-loss", "auto") ? std::log(double(in.problem.classes()))
                                                       : a.real("initial-loss");
         const risk::risk_bound r = risk::thm2_training_loss(in.problem, in.setting, in.k, L0,
                                                             longtail_constants_of(a, false));
         e.derived.push_back({"L(W^(0)) used", L0});
         return with_condition1(a, in, r, std::move(e));
       }});
  out.push_back(
      {"longtail-thm3-all", "ZXD+26", "Thm 3 Statement 1",
       "test error on all data of class k", bound_status::up_to_constants,
       "Thm 3 (Statement 1): test error of DP-SGD on all data of class k",
       "value = sum_{j != k} exp(-c-exponent (N_D/D_j)^2),\n"
       "N_D = |S_k| Lambda_k ||u_k||^2 - n sigma_n ||u_k|| sqrt(2 log(2/delta)),\n"
       "D_j = sqrt|S_j| ||A_k'A_j||_F + n sigma_n ||A_k||_F.\n"
       "Hypotheses: |S_k| Lambda_k ||u_k||^2 >= c-threshold (max_j sqrt|S_j| ||A_k'A_j||_F\n"
       "+ n sigma_n (||u_k|| + ||A_k||_F)) and N_D > 0. " +
           kLongtailNote,
       "--noise-std 0.001 --no-condition1",
       join({longtail_params(true),
             longtail_hidden({{"c-exponent", "c1 of Thm 3 Statement 1 (the exponent)"},
                              {"c-threshold", "C1 of Thm 3 Statement 1 (the threshold)"}})}),
       [](const args& a) {
         evaluation e;
         const longtail_inputs in = longtail_of(a, e);
         const risk::risk_bound r =
             risk::thm3_all_data(in.problem, in.setting, in.k, longtail_constants_of(a, false));
         return with_condition1(a, in, r, std::move(e));
       }});
  out.push_back(
      {"longtail-thm3-tail", "ZXD+26", "Thm 3 Statement 2",
       "test error on the L-long-tailed data of class k", bound_status::up_to_constants,
       "Thm 3 (Statement 2): test error of DP-SGD on the long-tailed data of class k",
       "value = sum_{j != k} exp(-c-exponent (N_T(L)/D_j)^2),\n"
       "N_T(L) = a L - b sqrt(d + L^2), a = sqrt|S_k| Lambda_k ||A_k'A_k||_F,\n"
       "b = n sigma_n ||A_k||_op, D_j as in longtail-thm3-all.\n"
       "Hypotheses: a >= c-threshold (max_j sqrt|S_j| ||A_k'A_j||_F + b sqrt(d + L^2)\n"
       "+ n sigma_n ||A_k||_F) and N_T(L) > 0 (which needs a > b and L > L* = b sqrt(d)/sqrt(a^2 - "
       "b^2)). " +
           kLongtailNote,
       "--tail-threshold 3 --noise-std 0",
       join({longtail_params(true),
             in_group({real("tail-threshold", "L, the long-tail threshold (Definition 3)", "1.5", any_finite())},
                      "Theorem 3"),
             longtail_hidden({{"c-exponent", "c2 of Thm 3 Statement 2 (the exponent)"},
                              {"c-threshold", "C2 of Thm 3 Statement 2 (the threshold)"}})}),
       [](const args& a) {
         evaluation e;
         const longtail_inputs in = longtail_of(a, e);
         const double L = a.real("tail-threshold");
         const risk::risk_bound r =
             risk::thm3_tail(in.problem, in.setting, in.k, L, longtail_constants_of(a, true));
         const risk::tail_regime t = risk::remark3_tail_regime(in.problem, in.setting, in.k);
         e.derived.push_back({"a = sqrt|S_k| Lambda_k ||A_k'A_k||_F", t.a});
         e.derived.push_back({"b = n sigma_n ||A_k||_op", t.b});
         e.derived.push_back({"L* (N_T(L) > 0 iff a > b and L > L*; Remark 3)", t.threshold_L});
         return with_condition1(a, in, r, std::move(e));
       }});
  out.push_back(
      {"longtail-remark4", "ZXD+26", "Remark 4",
       "test error on all data of class k at the noise an (epsilon, delta) budget needs",
       bound_status::up_to_constants,
       "Remark 4: Thm 3 Statement 1 at the noise calibrated to epsilon (logs absorbed)",
       "value = sum_{j != k} exp(-c-exponent ((eps |S_k| Lambda_k ||u_k||^2 - C sqrt(T) ||u_k||)\n"
       "        / (eps sqrt|S_j| ||A_k'A_j||_F + C sqrt(T) ||A_k||_F))^2),\n"
       "i.e. Statement 1 with sigma_n = C sqrt(T)/(n eps) (the log(1/delta) factor absorbed).\n"
       "Uses a finite --clip and --steps. Hypothesis: the numerator is > 0. " +
           kLongtailNote,
       "--epsilon 1 --steps 200",
       join({longtail_params(false),
             in_group({real("epsilon", "epsilon of the privacy budget", "8", positive())},
                      "Remark 4"),
             longtail_hidden({{"c-exponent", "c1 of Thm 3 Statement 1 (the exponent)"}})}),
       [](const args& a) {
         evaluation e;
         longtail_inputs in = longtail_of(a, e);
         if (std::isinf(in.setting.clip))
           throw usage_error("--clip is inf, but Remark 4 calibrates the noise to a finite clip");
         const double epsilon = a.real("epsilon");
         const risk::risk_bound r = risk::remark4_all_data(in.problem, in.setting, in.k, epsilon,
                                                           longtail_constants_of(a, false));
         // The noise Remark 4's form stands for, sigma_n = C sqrt(T)/(n eps) (its log(1/delta)
         // absorbed, as in the bound): Condition 1(c) depends on it.
         in.setting.noise_std = risk::remark4_noise(in.setting.clip, in.setting.steps,
                                                    std::exp(-1.0), in.problem.examples(), epsilon);
         e.derived.push_back({"sigma_n = C sqrt(T)/(n eps), Remark 4's noise (logs absorbed)",
                              in.setting.noise_std});
         return with_condition1(a, in, r, std::move(e));
       }});
  return out;
}

}  // namespace dpkit::cli::bound_catalogue
