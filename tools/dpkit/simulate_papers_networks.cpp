// dpkit simulate --algorithm mlp-dp-sgd | longtail-dp-sgd (simulate_papers.hpp): SWX+23's
// DP-SGD for L-layer ReLU networks (Algorithm 10, on its synthetic teacher task or on two
// Fashion-MNIST classes) and ZXD+26's DP-SGD on the two-layer CNN with the long-tail protocol
// (Definition 3), each run beside its clean counterpart where the paper compares them. The
// privacy report certifies ε by the PLD accountant for the subsampled runs, for the noise used,
// the paper's scale and the tight calibration.
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
#include "dpkit/core/parse.hpp"
#include "dpkit/sim/idx.hpp"
#include "dpkit/learners/longtail.hpp"
#include "dpkit/learners/mlp.hpp"
#include "simulate_papers_detail.hpp"
#include "simulate_setting.hpp"

namespace dpkit::cli::detail::papers {
namespace {

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

// ε of the run at its noise multiplier; below the smallest the accountants take (a --noise-std
// of 1e-300 once failed the whole run with "noise_multiplier is 6.4e-299") the noise-free answer
// bounds it (the library's rule, estimate_epsilon_any_noise).
double certified_epsilon(const accounting::training_run& run, double delta) {
  const auto e =
      accounting::estimate_epsilon_any_noise(run, delta, accounting::accountant_type::pld);
  if (!e.converged()) throw numerical_failure("PLD accountant: " + e.message);
  return e.value;
}

// The smallest noise multiplier for (ε, δ): the run's phases scaled together.
double certified_multiplier(double epsilon, double delta, const accounting::training_run& run) {
  const auto cal = accounting::calibrate_noise_multiplier(run, epsilon, delta);
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

}  // namespace

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
  learners::mlp_architecture arch;
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
  const double eta = c.learning_rate ? *c.learning_rate
                                     : learners::alg10_theorem13_learning_rate(
                                           arch.depth, R, C, arch.width, T);
  const learners::mlp_constraint constraint = o.constraint == "none" ? learners::mlp_constraint::none
                                         : o.constraint == "printed"
                                             ? learners::mlp_constraint::printed
                                             : learners::mlp_constraint::around_init;

  // Noise: --noise-std sigma as given; else the tight calibration (PLD accountant, Poisson q, T) or
  // the paper's σ = c₂ qC√(T log(1/δ))/(|B_t| ε) with |B_t| = qn and the unknown c₂ set to 1.
  const double z_tight = certified_multiplier(o.epsilon, o.delta, subsampled_run(1, q, T, true));
  const double sigma_paper = learners::alg10_paper_noise_std(C, q, T, o.delta, n, o.epsilon);
  const double z_paper = learners::alg10_noise_multiplier(sigma_paper, C, q, n);
  double sigma = 0;
  std::string calibration = o.calibration;
  if (c.noise) {
    sigma = *c.noise;
    calibration = "given (--noise-std)";
  } else {
    sigma = o.calibration == "tight" ? learners::alg10_noise_std(z_tight, C, q, n) : sigma_paper;
  }
  const double z_used = learners::alg10_noise_multiplier(sigma, C, q, n);

  random_stream ts(c.seed, 0, kInit + 100);
  const learners::sphere_teacher teacher = learners::random_sphere_teacher(
      d, static_cast<std::size_t>(o.teacher_hidden), ts);  // unused on real data
  learners::alg10_options a;
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
                            learners::sphere_teacher_data(n, teacher, label_noise, fs));
    const sim::dataset fresh_test =
        real ? sim::dataset{} : learners::sphere_teacher_data(n_test, teacher, label_noise, tst);
    const sim::dataset& test = real ? *real_test : fresh_test;
    const learners::mlp_model f(train, arch);
    const sim::vector w0 = learners::mlp_initial_weights(arch, is);
    const learners::alg10_result res = learners::run_alg10(f, a, w0, sim::random_key{c.seed, r, 0}, &test);
    out[0] = res.test_average.loss;
    out[1] = res.test_average.error;
    out[2] = res.train_average.loss;
    out[3] = res.train_average.error;
    out[4] = res.test_last.error;
    out[5] = static_cast<double>(res.min_batch);
    out[6] = res.max_layer_distance;
  };
  const auto mc = run_replicates(c, obs, replicate);

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
  const double eps_used = certified_epsilon(subsampled_run(z_used, q, T, true), o.delta);
  const double eps_paper = certified_epsilon(subsampled_run(z_paper, q, T, true), o.delta);
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
  return emit_paper_run(c, rep, mc, sim::non_finite_observables(mc));
}

// ---- ZXD+26
// --------------------------------------------------------------------------------------

namespace {

std::vector<double> parse_frequencies(const std::string& s) {
  std::vector<double> f;
  std::stringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    const std::optional<double> v = parse_finite(trim(item));
    if (!v || *v <= 0)
      throw usage_error("--class-frequencies is " + s +
                        ", but must be a comma-separated list of positive numbers");
    f.push_back(*v);
  }
  return f;
}

}  // namespace

int run_longtail(const paper_common_options& c, const paper_options& o) {
  const auto& info = info_of(c.algorithm);
  reject_unsupported(c, {"--radius", "--sampling-rate", "--label-noise"}, given_of(c));
  const auto n = static_cast<std::size_t>(c.examples);
  const auto n_test = static_cast<std::size_t>(o.test_examples);
  const auto K = static_cast<std::size_t>(c.classes.value_or(5));
  const auto d = static_cast<std::size_t>(c.dimension);
  const auto m = static_cast<std::size_t>(o.width);
  // K is --classes where given, else 5 for this algorithm (--help's 3 is softmax's): say which.
  const std::string k_words = "K = " + std::to_string(K) +
                              (c.classes ? " (--classes)"
                                         : " (--classes not given: 5 for "
                                           "longtail-dp-sgd)");
  if (d <= K + 1)
    throw usage_error("--dimension is " + std::to_string(d) +
                      ", but ZXD+26's data model "
                      "needs d > K + 1 (K signal directions and a noise spike per class), " +
                      k_words);
  std::vector<std::size_t> counts, test_counts;
  if (o.class_frequencies.empty()) {
    counts = learners::balanced_counts(n, K);
    test_counts = learners::balanced_counts(n_test, K);
  } else {
    const auto f = parse_frequencies(o.class_frequencies);
    if (f.size() != K)
      throw usage_error("--class-frequencies has " + std::to_string(f.size()) +
                        " entries, but must have " + k_words);
    counts = learners::counts_from_frequencies(n, f);
    test_counts = learners::balanced_counts(n_test, K);  // every class is tested on the same footing
  }
  learners::longtail_data_options data_options;
  data_options.classes = K;
  data_options.dimension = d;
  data_options.signal_norm = o.signal_norm;
  data_options.spike = learners::spike_for_ncr(K, d, 0.5, o.ncr);
  data_options.law = o.noise_law == "uniform" ? learners::zeta_law::uniform : learners::zeta_law::gaussian;

  learners::longtail_training t;
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
  t.record_every = std::max<long>(1, learners::training_steps(t, n));
  const auto request = learners::accounting_request(t, n);
  const double z_tight = certified_multiplier(o.epsilon, o.delta, request.run(1));
  const double sigma_remark4 =
      learners::remark4_noise_scale(t.clip, request.steps, o.delta, n, o.epsilon);
  std::string calibration = o.calibration;
  if (c.noise) {
    t.noise_std = *c.noise;
    calibration = "given (--noise-std)";
  } else {
    t.noise_std = o.calibration == "tight" ? learners::noise_std_for(z_tight, t.clip, request.batch_size)
                                           : sigma_remark4;
  }
  const double z_used = learners::noise_multiplier_for(t.noise_std, t.clip, request.batch_size);
  learners::longtail_training clean = t;
  clean.clip = 0;
  clean.noise_std = 0;
  learners::initialisation init;
  init.type = o.init == "gaussian" ? learners::initialisation::kind::gaussian
                                   : learners::initialisation::kind::pytorch_uniform;
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
    auto train = std::make_shared<const learners::longtail_data>(
        learners::generate_longtail_data(data_options, counts, ds));
    const learners::longtail_data test = learners::generate_longtail_data(data_options, test_counts, tst);
    const learners::longtail_network net(train, m);
    const sim::vector w0 = learners::longtail_initial_weights(K, m, d, init, is);
    const auto dp = learners::train_longtail(net, t, w0, sim::random_key{c.seed, r, 0});
    const auto cl = learners::train_longtail(net, clean, w0, sim::random_key{c.seed, r, 0});
    std::vector<std::size_t> tail;
    for (std::size_t k = 0; k < K; ++k) {
      const auto v = learners::tail_direction(net, cl.weights, static_cast<int>(k));
      const auto s = learners::tail_subset(test, static_cast<int>(k), v, o.tail_threshold);
      tail.insert(tail.end(), s.begin(), s.end());
    }
    const auto all_dp = learners::test_errors(net, dp.weights, test);
    const auto all_cl = learners::test_errors(net, cl.weights, test);
    const auto tail_dp = learners::test_errors(net, dp.weights, test, &tail);
    const auto tail_cl = learners::test_errors(net, cl.weights, test, &tail);
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
  const auto mc = run_replicates(c, obs, replicate);

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
  const double eps_used = certified_epsilon(request.run(z_used), o.delta);
  json privacy = {
      {"accounting", fmt::format("PLD accountant (certified upper bound), {} batches of B = {} "
                                 "(q = {}), T = {}, z = sigma_n B / C",
                                 accounting::to_string(request.scheme), request.batch_size,
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
      format_number(learners::noise_std_for(z_tight, t.clip, request.batch_size)),
      format_number(sigma_remark4));
  add_privacy_note(rep, privacy);
  rep.notes.push_back(fmt::format(
      "data: Definition 1 with |u| = {}, spiked noise spectra (s = 0.5, spike {} for NCR = {}), "
      "{} zeta; tail = test points whose noise projects beyond L = {} on the clean model's "
      "aggregate direction A_k^T sum_r w_k,r (Def 3); Gaussian-zeta tail frequency 1 - Phi(L) = "
      "{}",
      format_number(o.signal_norm), format_number(data_options.spike), format_number(o.ncr),
      o.noise_law, format_number(o.tail_threshold),
      format_number(learners::tail_frequency(o.tail_threshold))));
  rep.notes.push_back(fmt::format("{} replicates on {} thread(s) in {:.2f} s", mc.replicates,
                                  mc.threads, mc.seconds));
  // The tail errors are NaN by design where a replicate's tail set is empty (above): not a
  // divergence. The other observables are judged.
  sim::monte_carlo_result judged = mc;
  std::erase_if(judged.observables, [](const sim::observable_summary& s) {
    return s.name == "dp_tail_error" || s.name == "clean_tail_error";
  });
  return emit_paper_run(c, rep, mc, sim::non_finite_observables(judged));
}

}  // namespace dpkit::cli::detail::papers
