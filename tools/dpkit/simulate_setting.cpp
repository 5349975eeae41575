#include "simulate_setting.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "dpkit/core/random.hpp"
#include "dpkit/core/parse.hpp"
#include "dpkit/sim/data.hpp"
#include "dpkit/sim/idx.hpp"
#include "dpkit/sim/models.hpp"

namespace dpkit::cli {

/// λ_j of the design's covariance: "flat" (all 1) or "power:A" (λ_j = (j + 1)^(−A)).
Eigen::VectorXd spectrum_of(const std::string& spec, std::size_t d) {
  Eigen::VectorXd lambda = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(d));
  if (spec == "flat") return lambda;
  if (spec.rfind("power:", 0) == 0) {
    const std::optional<double> a = parse_finite(trim(std::string_view(spec).substr(6)));
    if (a && *a >= 0) {
      for (std::size_t j = 0; j < d; ++j)
        lambda[static_cast<Eigen::Index>(j)] = std::pow(static_cast<double>(j + 1), -*a);
      return lambda;
    }
  }
  throw usage_error("--spectrum is " + spec + ", but must be 'flat' or 'power:A' with A >= 0");
}

bool generated_data(const simulate_options& o) {
  return o.data == "gaussian" || o.data == "uniform";
}

namespace {

// An IDX file, plain or gzip (IDX files start with two zero bytes, gzip with 1f 8b; a CSV file
// does neither).
bool looks_like_idx(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  unsigned char b[2] = {0xFF, 0xFF};
  f.read(reinterpret_cast<char*>(b), 2);
  return f.gcount() == 2 && ((b[0] == 0 && b[1] == 0) || (b[0] == 0x1F && b[1] == 0x8B));
}

bool real_idx_data(const simulate_options& o) {
  return o.data == "fashion-mnist" || (!generated_data(o) && looks_like_idx(o.data));
}

// What the IDX options select, for the training set (caps included) or the test set (the kept
// classes and the same feature map; --test-size caps it).
sim::idx_selection selection_of(const simulate_options& o, bool test) {
  sim::idx_selection s;
  s.classes = o.keep_classes;
  if (!test) {
    s.per_class = o.class_sizes;
    if (o.examples_given) s.max_examples = static_cast<std::size_t>(o.examples);
  } else {
    s.max_examples = static_cast<std::size_t>(o.test_size);
  }
  s.scaling = sim::pixel_scaling_from_string(o.pixels);
  if (o.feature_clip) s.row_norm_clip = *o.feature_clip;
  s.bias = o.bias;
  return s;
}

// A dataset read from an IDX pair (or Fashion-MNIST's split), with the labels the model needs:
// class indices (softmax, least squares) or ±1 (logistic: exactly two classes, the first kept
// one is −1).
std::shared_ptr<sim::dataset> read_idx_setting(const simulate_options& o,
                                               const std::string& flag,
                                               const std::string& images,
                                               const std::string& labels_flag,
                                               const std::string& labels,
                                               bool test,
                                               std::vector<std::string>& notes) {
  if (images != "fashion-mnist" && labels.empty())
    throw usage_error(flag + " " + images + " is an IDX file: give its labels with " + labels_flag +
                      " FILE");
  std::shared_ptr<sim::dataset> data =
      read_idx_data(flag, images, labels, test, selection_of(o, test));
  const long k = static_cast<long>(data->labels.maxCoeff()) + 1;
  if (o.model == "logistic") {
    if (k != 2)
      throw usage_error("--model logistic needs two classes, but " + flag + " has " +
                        std::to_string(k) + ": keep two with --keep-classes A,B");
    data->labels = (2 * data->labels.array() - 1).matrix();
  }
  const std::string what =
      images == "fashion-mnist"
          ? std::string("Fashion-MNIST ") + (test ? "test" : "training") + " split (" +
                sim::fashion_mnist_files(test ? "test" : "train").images.string() + ")"
          : images;
  notes.push_back(std::string(test ? "test data: " : "data: ") + what + " (n = " +
                  std::to_string(data->size()) + ", d = " + std::to_string(data->dimension()) +
                  ", " + std::to_string(k) + " classes, pixels " + o.pixels +
                  (o.feature_clip ? ", rows clipped to norm " + format_number(*o.feature_clip)
                                  : std::string()) +
                  (o.bias ? ", bias feature" : "") + ")");
  return data;
}

// The examples of `data` in `rows` (in that order).
std::shared_ptr<sim::dataset> examples_at(const sim::dataset& data,
                                          const std::vector<Eigen::Index>& rows) {
  auto out = std::make_shared<sim::dataset>();
  out->features = data.features(rows, Eigen::all);
  out->labels = data.labels(rows);
  return out;
}

// The examples of `data` whose label is one of `labels` (labels as the model sees them).
std::shared_ptr<sim::dataset> examples_labelled(const sim::dataset& data,
                                                const std::vector<double>& labels) {
  std::vector<Eigen::Index> rows;
  for (Eigen::Index r = 0; r < data.labels.size(); ++r)
    if (std::find(labels.begin(), labels.end(), data.labels[r]) != labels.end()) rows.push_back(r);
  return examples_at(data, rows);
}

// --tail-classes (stored labels) as the labels the model sees: the position in --keep-classes
// (all classes kept: the stored label), and ±1 for logistic regression (the first kept is −1).
std::vector<double> tail_labels(const simulate_options& o) {
  std::vector<double> out;
  for (const long c : o.tail_classes) {
    long index = c;
    if (!o.keep_classes.empty()) {
      const auto it = std::find(o.keep_classes.begin(), o.keep_classes.end(), c);
      if (it == o.keep_classes.end())
        throw usage_error("--tail-classes: class " + std::to_string(c) +
                          " is not among --keep-classes");
      index = static_cast<long>(it - o.keep_classes.begin());
    }
    out.push_back(o.model == "logistic" ? (index == 0 ? -1.0 : 1.0) : static_cast<double>(index));
  }
  return out;
}

}  // namespace

sim::monte_carlo_options cli_monte_carlo(long long replicates,
                                         std::uint64_t seed,
                                         int threads,
                                         std::string label) {
  sim::monte_carlo_options mc;
  mc.replicates = static_cast<std::uint64_t>(replicates);
  mc.seed = seed;
  mc.threads = threads;
  mc.progress = true;
  mc.announce = true;
  mc.label = std::move(label);
  return mc;
}

std::shared_ptr<sim::dataset> read_idx_data(const std::string& flag,
                                            const std::string& images,
                                            const std::string& labels,
                                            bool test,
                                            const sim::idx_selection& selection) {
  sim::idx_pair files;
  if (images == "fashion-mnist") {
    try {
      files = sim::fashion_mnist_files(test ? "test" : "train");
    } catch (const std::runtime_error& e) {
      throw usage_error(flag + " fashion-mnist: " + library_reason(e, nullptr));
    }
  } else {
    files = {images, labels};
  }
  auto data = std::make_shared<sim::dataset>();
  try {
    *data = sim::read_idx_dataset(files.images, files.labels, selection);
  } catch (const std::exception& e) {
    throw usage_error(flag + " is " + images +
                      ", but must be a readable IDX pair: " + library_reason(e, nullptr));
  }
  return data;
}

/// The dataset models' data: generated (Gaussian or uniform design with GLM labels) or read.
std::shared_ptr<const sim::dataset> make_dataset(const simulate_options& o,
                                                 std::vector<std::string>& notes) {
  if (real_idx_data(o))
    return read_idx_setting(o, "--data", o.data, "--idx-labels", o.idx_labels, false, notes);
  if (!o.idx_labels.empty()) throw usage_error("--idx-labels goes with an IDX file as --data");
  auto data = std::make_shared<sim::dataset>();
  if (!generated_data(o)) {
    try {
      *data = sim::read_dataset_csv(o.data, o.label_column);
    } catch (const std::exception& e) {  // I/O, parse and content errors are all bad input
      const std::string why = library_reason(e, nullptr, {{"label_column", "--label-column"}});
      throw usage_error("--data is " + o.data +
                        ", but must be gaussian, uniform, fashion-mnist, an IDX file or a "
                        "readable dataset CSV: " +
                        why);
    }
    notes.push_back("data: " + o.data + " (n = " + std::to_string(data->size()) +
                    ", d = " + std::to_string(data->dimension()) + ")");
    return data;
  }
  const auto n = static_cast<std::size_t>(o.examples), d = static_cast<std::size_t>(o.dimension);
  const std::uint64_t seed = o.data_seed.value_or(o.seed);
  // Data streams (random.hpp convention): replicate slot 0 of the data seed, stream 0 for the
  // design, 4 for the labels, 5 for the softmax weights. The algorithm's replicates draw from
  // streams 1–3 (and 9–11 for an independent D′), so nothing is shared.
  random_stream design_stream(seed, 0, 0), label_stream(seed, 0, 4);
  data->features = o.data == "gaussian"
                       ? sim::gaussian_design(n, spectrum_of(o.spectrum, d), design_stream)
                       : sim::uniform_design(n, d, design_stream);
  const Eigen::VectorXd x_star = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(d),
                                                           1 / std::sqrt(static_cast<double>(d)));
  if (o.model == "least-squares") {
    try {
      data->labels =
          sim::linear_labels(data->features, x_star, o.label_noise, label_stream,
                             o.label_clamp.value_or(std::numeric_limits<double>::infinity()));
    } catch (const argument_error& e) {  // the library's noise_sd is --label-noise
      throw usage_error(library_reason(e, nullptr, {{"noise_sd", "--label-noise"}}));
    }
  } else if (o.model == "logistic") {
    data->labels = sim::logistic_labels(data->features, x_star, label_stream);
  } else {
    random_stream w_stream(seed, 0, 5);
    Eigen::MatrixXd w(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(o.classes));
    for (Eigen::Index k = 0; k < w.cols(); ++k)
      for (Eigen::Index j = 0; j < w.rows(); ++j)
        w(j, k) = w_stream.normal() / std::sqrt(static_cast<double>(d));
    data->labels = sim::softmax_labels(data->features, w, label_stream);
  }
  notes.push_back("data: " + o.data + " design (n = " + std::to_string(n) +
                  ", d = " + std::to_string(d) +
                  (o.data == "gaussian" ? ", spectrum " + o.spectrum : "") + "), data seed " +
                  std::to_string(seed) + "; labels from x* = 1/sqrt(d) (1, ..., 1)");
  return data;
}

std::shared_ptr<const sim::model> model_on(const simulate_options& o,
                                           std::shared_ptr<const sim::dataset> data) {
  if (o.model == "least-squares") return std::make_shared<sim::least_squares>(data, o.ridge);
  if (o.model == "logistic") return std::make_shared<sim::logistic_regression>(data, o.ridge);
  return std::make_shared<sim::softmax_regression>(data, static_cast<std::size_t>(o.classes),
                                                   o.ridge);
}

models make_models(const simulate_options& given, std::vector<std::string>& notes, bool with_test) {
  simulate_options o = given;
  models m;
  std::shared_ptr<const sim::dataset> data;
  if (o.model == "quadratic") {
    m.d = std::make_shared<sim::quadratic>(static_cast<std::size_t>(o.examples),
                                           static_cast<std::size_t>(o.dimension), o.curvature);
  } else {
    data = make_dataset(o, notes);
    m.data_description = notes.back().substr(notes.back().find(": ") + 2);
    // Real data: softmax has as many classes as the data keeps, unless --classes says more.
    if (real_idx_data(o) && o.model == "softmax" && !o.classes_given)
      o.classes = static_cast<long long>(data->labels.maxCoeff()) + 1;
    m.d = model_on(o, data);
  }
  m.classes = o.classes;
  // The test set: Fashion-MNIST's test split by default, or --test-data; its model has no ridge
  // (the test risk is the plain loss).
  const bool default_test = o.data == "fashion-mnist" && o.test_data.empty();
  std::shared_ptr<const sim::dataset> test_set;
  if (with_test && o.test_data != "none" && (default_test || !o.test_data.empty())) {
    if (!data) throw usage_error("--test-data: the quadratic model has no data");
    const std::string t = default_test ? std::string("fashion-mnist") : o.test_data;
    std::shared_ptr<sim::dataset> test;
    if (t == "fashion-mnist" || looks_like_idx(t)) {
      if (o.pixels == "standard")
        throw usage_error(
            "--pixels standard standardises each dataset by its own statistics, so the test set "
            "would be scaled differently from the training set: use unit or symmetric with a "
            "test set (or --test-data none)");
      test = read_idx_setting(o, "--test-data", t, "--test-labels", o.test_labels, true, notes);
    } else {
      test = std::make_shared<sim::dataset>();
      try {
        *test = sim::read_dataset_csv(t, o.label_column);
      } catch (const std::exception& e) {
        throw usage_error("--test-data is " + t +
                          ", but must be fashion-mnist, none, an IDX file "
                          "or a readable dataset CSV: " +
                          library_reason(e, nullptr));
      }
      notes.push_back("test data: " + t + " (n = " + std::to_string(test->size()) + ")");
    }
    m.test_description = notes.back().substr(notes.back().find(": ") + 2);
    if (test->dimension() != data->dimension())
      throw usage_error("--test-data has " + std::to_string(test->dimension()) +
                        " features, but --data has " + std::to_string(data->dimension()));
    simulate_options plain = o;
    plain.ridge = 0;
    try {
      m.test = model_on(plain, test);
      test_set = test;
    } catch (const std::domain_error& e) {
      throw usage_error("--test-data: " + library_reason(e, nullptr));
    }
  }
  if (!o.tail_classes.empty()) {
    // The tail's own error rates: the same iterate scored on the tail classes' examples.
    const std::vector<double> labels = tail_labels(o);
    const auto train_tail = examples_labelled(*data, labels);
    if (train_tail->size() == 0)
      throw usage_error("--tail-classes: the training data have no example of these classes");
    m.tail = model_on(o, train_tail);
    if (m.test) {
      const auto test_tail = examples_labelled(*test_set, labels);
      if (test_tail->size() == 0)
        throw usage_error("--tail-classes: the test data have no example of these classes");
      simulate_options plain = o;
      plain.ridge = 0;
      m.test_tail = model_on(plain, test_tail);
    }
  }
  if (o.neighbour == "none") {
    if (!o.neighbour_data.empty())
      throw usage_error("--neighbour-data goes with --neighbour dataset");
    return m;
  }
  if (o.neighbour == "dataset") {
    // A user-given D′: any neighbouring relation (one example replaced, removed or added).
    if (o.neighbour_data.empty())
      throw usage_error("--neighbour dataset needs --neighbour-data FILE.csv (D')");
    if (!data || o.data == "gaussian" || o.data == "uniform")
      throw usage_error("--neighbour dataset needs --data FILE.csv (D) as well");
    check_not_an_input("--neighbour-data", o.neighbour_data, "--data", o.data);
    auto other = std::make_shared<sim::dataset>();
    try {
      *other = sim::read_dataset_csv(o.neighbour_data, o.label_column);
    } catch (const std::exception& e) {
      const std::string why = library_reason(e, nullptr, {{"label_column", "--label-column"}});
      throw usage_error("--neighbour-data is " + o.neighbour_data +
                        ", but must be a readable dataset CSV: " + why);
    }
    if (other->dimension() != data->dimension())
      throw usage_error("--neighbour-data has " + std::to_string(other->dimension()) +
                        " features, but --data has " + std::to_string(data->dimension()));
    m.dprime = model_on(o, other);
    m.neighbour_description =
        "dataset: D' = " + o.neighbour_data + " (n' = " + std::to_string(other->size()) + ")";
    return m;
  }
  if (!o.neighbour_data.empty())
    throw usage_error("--neighbour-data goes with --neighbour dataset");
  const auto n = m.d->examples();
  if (static_cast<std::size_t>(o.index) >= n)
    throw usage_error("--index is " + std::to_string(o.index) +
                      ", but must be below n = " + std::to_string(n));
  const auto i = static_cast<std::size_t>(o.index);
  if (o.neighbour == "zero-out") {
    m.dprime = std::make_shared<sim::zeroed_example>(m.d, i);
    m.neighbour_description = "zero-out: f'_i = 0 for i = " + std::to_string(i);
  } else if (o.neighbour == "remove") {
    // Add/remove: D′ = D without example i (n − 1 examples; averaged gradients renormalise).
    if (!data) throw usage_error("--neighbour remove: the quadratic model has no data to remove");
    if (n < 2) throw usage_error("--neighbour remove needs at least 2 examples");
    std::vector<Eigen::Index> rows;
    for (Eigen::Index r = 0; r < static_cast<Eigen::Index>(n); ++r)
      if (r != static_cast<Eigen::Index>(i)) rows.push_back(r);
    m.dprime = model_on(o, examples_at(*data, rows));
    m.neighbour_description = "remove: D' = D without example " + std::to_string(i) +
                              " (n' = " + std::to_string(n - 1) + ")";
  } else if (o.model == "quadratic") {
    sim::vector w = sim::vector::Zero(static_cast<Eigen::Index>(m.d->dimension()));
    w[0] = o.perturbation;
    m.dprime = std::make_shared<sim::linearly_perturbed>(m.d, i, w);
    m.neighbour_description =
        "replace-one: grad f'_i = grad f_i - L e_1 with L = " + format_number(o.perturbation) +
        ", i = " + std::to_string(i) + " (BSA24 W1/W3)";
  } else {
    // Keep the features and flip the label: (−a_i, −y_i) would leave least squares and logistic
    // regression unchanged (both depend on y_i a_i only through products invariant under it).
    const Eigen::VectorXd a = data->features.row(static_cast<Eigen::Index>(i)).transpose();
    const double y = data->labels[static_cast<Eigen::Index>(i)];
    const double y_new =
        o.model == "softmax" ? std::fmod(y + 1, static_cast<double>(o.classes)) : -y;
    m.dprime = model_on(o, std::make_shared<sim::dataset>(sim::replace_one(*data, i, a, y_new)));
    m.neighbour_description =
        "replace-one: example " + std::to_string(i) + " replaced by (a_i, " +
        (o.model == "softmax" ? std::string("(y_i + 1) mod K") : std::string("-y_i")) + ")";
  }
  return m;
}

std::function<double(const sim::vector&)> error_rate_of(std::shared_ptr<const sim::model> f) {
  if (auto lr = std::dynamic_pointer_cast<const sim::logistic_regression>(f))
    return [lr](const sim::vector& x) { return lr->error_rate(x); };
  if (auto sm = std::dynamic_pointer_cast<const sim::softmax_regression>(f))
    return [sm](const sim::vector& x) { return sm->error_rate(x); };
  return {};
}

sim::noisy_gradient_options algorithm_options(const simulate_options& o, const sim::model& f) {
  sim::noisy_gradient_options a;
  const auto n = f.examples();
  if (o.algorithm == "lmc") {
    if (o.noise) throw usage_error("--noise-std: LMC's noise is fixed, sqrt(2 eta) per step");
    a = sim::lmc_options(o.learning_rate, static_cast<long>(o.steps));
  } else {
    a.steps = static_cast<long>(o.steps);
    a.learning_rate = o.learning_rate;
    a.noise = o.noise.value_or(0);
  }
  if (o.algorithm == "gd" || o.algorithm == "lmc") {
    a.batches = sim::batch_rule::full;
  } else if (o.algorithm == "cgd" || o.algorithm == "sgd") {
    if (!o.batch_size) throw usage_error("--algorithm " + o.algorithm + " needs --batch-size");
    a.batches = o.algorithm == "cgd" ? sim::batch_rule::cyclic : sim::batch_rule::shuffled;
    a.batch_size = static_cast<std::size_t>(*o.batch_size);
  } else if (o.algorithm == "poisson") {
    if (!o.sampling_rate) throw usage_error("--algorithm poisson needs --sampling-rate");
    a.batches = sim::batch_rule::poisson;
    a.sampling_rate = *o.sampling_rate;
  } else if (o.algorithm == "one-pass") {
    a.batches = sim::batch_rule::one_pass;
    if (static_cast<std::size_t>(o.steps) > n)
      throw usage_error("--steps is " + std::to_string(o.steps) +
                        ", but one-pass SGD visits each of the n = " + std::to_string(n) +
                        " examples once: must be <= n");
  }
  if (o.batch_size && a.batches != sim::batch_rule::cyclic &&
      a.batches != sim::batch_rule::shuffled)
    throw usage_error("--batch-size applies to --algorithm cgd and sgd only");
  if (o.sampling_rate && a.batches != sim::batch_rule::poisson)
    throw usage_error("--sampling-rate applies to --algorithm poisson only");
  if (o.lr_decay) {
    const double eta = o.learning_rate, tau = *o.lr_decay;
    a.schedule = [eta, tau](long k) { return eta / (1 + static_cast<double>(k) / tau); };
  }
  a.correlation = o.correlation;
  a.clip = o.clip;
  a.weight_decay = o.weight_decay;
  if (o.radius)
    a.constraint = sim::projection::ball(
        sim::vector::Zero(static_cast<Eigen::Index>(f.dimension())), *o.radius);
  sim::check_options(a, f);
  return a;
}

void add_setting_options(CLI::App* sub, simulate_options& o) {
  const char* ga = "Algorithm (docs/sim.md)";
  sub->add_option("--steps", o.steps, "Number of steps T")
      ->check(integer_at_least(1))
      ->capture_default_str()
      ->group(ga);
  sub->add_option("--learning-rate", o.learning_rate, "Learning rate eta (hsgd-sde: gamma)")
      ->check(real_greater_than(0))
      ->capture_default_str()
      ->group(ga);
  sub->add_option("--lr-decay", o.lr_decay,
                  "Schedule eta_k = eta / (1 + k / TAU) (hsgd-sde: in time t) instead of constant")
      ->check(real_greater_than(0))
      ->type_name("TAU")
      ->group(ga);
  sub->add_option("--noise-std", o.noise,
                  "Standard deviation sigma of the Gaussian noise added to the averaged gradient, "
                  "per coordinate (default 0)")
      ->check(real_at_least(0))
      ->type_name("SIGMA")
      ->group(ga);
  sub->add_option(
         "--correlation", o.correlation,
         "lambda in [0, 1): correlated noise sigma (Z_t - lambda Z_{t-1}) of DP-lambda-CGD")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->group(ga);
  sub->add_option("--clip", o.clip, "Clip per-example gradients to norm C (0: no clipping)")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->type_name("C")
      ->group(ga);
  sub->add_option("--weight-decay", o.weight_decay,
                  "omega: add omega x to the clipped, averaged gradient (x <- (1 - eta omega) x - "
                  "eta (g + noise), BSA24 Sec D.2); --ridge is clipped with the loss instead")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->type_name("OMEGA")
      ->group(ga);
  sub->add_option("--radius", o.radius, "Project the iterates onto the ball |x| <= R")
      ->check(real_greater_than(0))
      ->type_name("R")
      ->group(ga);
  sub->add_option("--batch-size", o.batch_size, "Batch size b (cgd, sgd)")
      ->check(integer_at_least(1))
      ->type_name("B")
      ->group(ga);
  sub->add_option("--sampling-rate", o.sampling_rate, "Poisson sampling rate q (poisson)")
      ->check(sampling_rate_validator())
      ->type_name("Q")
      ->group(ga);
  sub->add_option("--dt", o.dt, "Euler-Maruyama time step (hsgd-sde; horizon = steps x dt)")
      ->check(real_greater_than(0))
      ->capture_default_str()
      ->group(ga);
  sub->add_option("--init", o.init, "Initial point: zero, or gaussian (N(0, s^2 I), per replicate)")
      ->check(CLI::IsMember({"zero", "gaussian"}))
      ->capture_default_str()
      ->group(ga);
  sub->add_option("--init-scale", o.init_scale, "s of --init gaussian")
      ->check(real_greater_than(0))
      ->capture_default_str()
      ->group(ga);

  const char* gm = "Model and data";
  sub->add_option("--model", o.model,
                  "least-squares, logistic (labels +-1), softmax (labels 0..K-1), or quadratic "
                  "(f_i = (m/2)|x|^2, the base of BSA24's worst-case constructions)")
      ->check(CLI::IsMember({"least-squares", "logistic", "softmax", "quadratic"}))
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--data", o.data,
                  "gaussian: N(0, diag(spectrum)) design; uniform: a_ij ~ U(0, 1/sqrt(d)) (LKSP25 "
                  "Sec 5); fashion-mnist: Fashion-MNIST's 60000 training images (Debian's "
                  "dataset-fashion-mnist, or $DPKIT_FASHION_MNIST_DIR; its test split becomes "
                  "the test set); an IDX images file, plain or gzip (with --idx-labels); or a "
                  "CSV file (one header row, a label column)")
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--label-column", o.label_column, "Label column of a --data CSV file")
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--dataset-size", o.examples,
                  "n, the number of generated examples; with IDX data, at most this many (the "
                  "first ones)")
      ->check(integer_at_least(1))
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--dimension", o.dimension, "d, the number of generated features")
      ->check(integer_at_least(1))
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--spectrum", o.spectrum,
                  "Covariance eigenvalues of the Gaussian design: flat, or power:A for "
                  "lambda_j = j^(-A)")
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--label-noise", o.label_noise,
                  "Standard deviation of the label noise of least squares (y = a'x* + noise)")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--label-clamp", o.label_clamp, "Clamp the label noise to [-C, C]")
      ->check(real_at_least(0))
      ->type_name("C")
      ->group(gm);
  sub->add_option(
         "--classes", o.classes,
         "K, the number of classes of softmax (IDX data: the classes kept; longtail-dp-sgd: "
         "default 5)")
      ->check(integer_at_least(2))
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--ridge", o.ridge, "Ridge (L2) penalty delta of the dataset models")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--curvature", o.curvature, "m of the quadratic model")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--data-seed", o.data_seed, "Seed of the generated data (default: --seed)")
      ->check(integer_at_least(0, kMaxExactInteger))
      ->group(gm);

  const char* gi = "Real data (IDX, Fashion-MNIST; docs/sim.md)";
  sub->add_option("--idx-labels", o.idx_labels, "The labels' IDX file of an IDX --data")
      ->check(CLI::ExistingFile)
      ->type_name("FILE")
      ->group(gi);
  sub->add_option("--keep-classes", o.keep_classes,
                  "Keep these classes (stored labels), renumbered 0, 1, ... in this order; "
                  "logistic: two, the first becomes -1")
      ->delimiter(',')
      ->type_name("A,B,...")
      ->group(gi);
  sub->add_option("--class-sizes", o.class_sizes,
                  "At most this many examples of each kept class (the first ones), one per "
                  "--keep-classes entry: long-tailed subsets")
      ->delimiter(',')
      ->type_name("N1,N2,...")
      ->group(gi);
  sub->add_option("--tail-classes", o.tail_classes,
                  "Classes (stored labels, among the kept ones) whose examples form the tail: "
                  "dpkit simulate also reports tail-error and tail-test-error, the error rates on "
                  "their training and test examples (long-tailed subsets with --class-sizes)")
      ->delimiter(',')
      ->type_name("A,B,...")
      ->group(gi);
  sub->add_option("--pixels", o.pixels,
                  "Pixel scaling: unit (x/255), symmetric (x/127.5 - 1), raw, or standard (each "
                  "feature to mean 0 and sd 1 over the data: a statistic of the data)")
      ->check(CLI::IsMember({"unit", "symmetric", "raw", "standard"}))
      ->capture_default_str()
      ->group(gi);
  sub->add_option("--feature-clip", o.feature_clip,
                  "Scale each example's features to norm at most C (BSA24 clips MNIST at 8)")
      ->check(real_greater_than(0))
      ->type_name("C")
      ->group(gi);
  sub->add_flag("--bias", o.bias, "Append a constant feature 1 (an intercept), after the clip")
      ->group(gi);
  sub->add_option("--test-data", o.test_data,
                  "The test set for test-risk and test-error: fashion-mnist (its test split, the "
                  "default with --data fashion-mnist), none, an IDX file (with --test-labels) or "
                  "a CSV file; same classes and feature map as --data")
      ->type_name("DATA")
      ->group(gi);
  sub->add_option("--test-labels", o.test_labels, "The labels' IDX file of an IDX --test-data")
      ->check(CLI::ExistingFile)
      ->type_name("FILE")
      ->group(gi);
  sub->add_option("--test-size", o.test_size, "At most this many test examples (the first ones)")
      ->check(integer_at_least(1))
      ->group(gi);

  const char* gn = "Neighbouring dataset";
  sub->add_option("--neighbour", o.neighbour,
                  "none; replace-one: example --index gets the flipped label (a_i, -y_i) "
                  "(softmax: label "
                  "(y_i + 1) mod K; quadratic: gradient shifted by -L e_1, BSA24 W1); zero-out: "
                  "example --index contributes f'_i = 0; remove: D' = D without example --index "
                  "(add/remove; n - 1 examples); dataset: D' read from --neighbour-data (any "
                  "relation: one example replaced, removed or added)")
      ->check(CLI::IsMember({"none", "replace-one", "zero-out", "remove", "dataset"}))
      ->capture_default_str()
      ->group(gn);
  sub->add_option("--neighbour-data", o.neighbour_data,
                  "D' for --neighbour dataset: a CSV file like --data (same features)")
      ->check(CLI::ExistingFile)
      ->type_name("FILE")
      ->group(gn);
  sub->add_option("--index", o.index, "The example that differs (0-based)")
      ->check(integer_at_least(0))
      ->capture_default_str()
      ->group(gn);
  sub->add_option("--coupling", o.coupling,
                  "independent: D' uses its own noise (as an auditor sees it); shared: the same "
                  "noise and batches as D, and the distance |X_T - X'_T| is reported")
      ->check(CLI::IsMember({"independent", "shared"}))
      ->capture_default_str()
      ->group(gn);
  sub->add_option("--perturbation", o.perturbation, "L of the quadratic model's replace-one")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->group(gn);

  const char* gr = "Monte Carlo and output";
  sub->add_option("--replicates", o.replicates, "R, independent runs")
      ->check(integer_at_least(1))
      ->capture_default_str()
      ->group(gr);
  sub->add_option("--seed", o.seed, "Seed of the random streams")
      ->check(integer_at_least(0, kMaxExactInteger))
      ->capture_default_str()
      ->group(gr);
  sub->add_option("--threads", o.threads,
                  "OpenMP threads (0: all cores); results are identical for any number")
      ->check(integer_at_least(0, 1024))
      ->capture_default_str()
      ->group(gr);
}

void finish_setting(CLI::App* sub, simulate_options& o) {
  auto given = [&](const char* name) { return sub->get_option(name)->count() > 0; };
  o.classes_given = given("--classes");
  o.examples_given = given("--dataset-size");
  if (o.classes_given && o.model != "softmax")
    throw usage_error("--classes applies to --model softmax only");
  if (o.model == "quadratic" && !(o.data == "gaussian" && !given("--data")))
    throw usage_error("--data: the quadratic model has no data (use --dataset-size, --dimension)");
  const bool exists = o.data == "fashion-mnist" || std::filesystem::exists(o.data);
  if (generated_data(o) || (exists && !real_idx_data(o))) {
    for (const char* name : {"--idx-labels", "--keep-classes", "--class-sizes", "--tail-classes",
                             "--pixels", "--feature-clip", "--bias"})
      if (given(name))
        throw usage_error(std::string(name) +
                          " applies to IDX data (--data fashion-mnist or an IDX images file)");
  }
  if (!o.class_sizes.empty() && o.class_sizes.size() != o.keep_classes.size())
    throw usage_error("--class-sizes has " + std::to_string(o.class_sizes.size()) +
                      (o.class_sizes.size() == 1 ? " entry" : " entries") +
                      ", but must have one per --keep-classes entry (" +
                      std::to_string(o.keep_classes.size()) + ")");
  if (!o.tail_classes.empty() && o.model != "logistic" && o.model != "softmax")
    throw usage_error("--tail-classes needs a classifier: --model logistic or softmax");
  if (o.test_data.empty() || o.test_data == "none") {
    if (given("--test-labels") || given("--test-size")) {
      if (o.data != "fashion-mnist" || given("--test-labels"))
        throw usage_error(std::string(given("--test-labels") ? "--test-labels" : "--test-size") +
                          " goes with --test-data");
    }
  }
}

}  // namespace dpkit::cli
