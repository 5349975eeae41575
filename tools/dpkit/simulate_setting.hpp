// The training setting shared by `dpkit simulate` and `dpkit audit`: the algorithm (noisy GD,
// CGD, SGD, DP-SGD, one-pass SGD, LMC), the model and its data (generated, a CSV file, an IDX
// pair or Fashion-MNIST, with an optional test set), and the neighbouring dataset D′, in the
// flags of docs/cli.md ("dpkit simulate").
#pragma once

#include <Eigen/Dense>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/dataset.hpp"
#include "dpkit/sim/idx.hpp"
#include "dpkit/sim/model.hpp"
#include "dpkit/sim/monte_carlo.hpp"

namespace dpkit::cli {

struct simulate_options {
  // algorithm
  std::string algorithm = "gd";
  long long steps = 100;
  double learning_rate = 0.1;
  std::optional<double> lr_decay;
  std::optional<double> noise;
  double correlation = 0;
  double clip = 0;
  double weight_decay = 0;
  std::optional<double> radius;
  std::optional<long long> batch_size;
  std::optional<double> sampling_rate;
  double dt = 0.01;
  std::string init = "zero";
  double init_scale = 1;
  // model and data
  std::string model = "least-squares";
  std::string data = "gaussian";
  std::string label_column = "y";
  // real data (IDX or Fashion-MNIST)
  std::string idx_labels;                // the labels' IDX file of an IDX --data
  std::vector<long> keep_classes;        // stored labels kept (empty: all)
  std::vector<std::size_t> class_sizes;  // at most this many of each kept class
  std::vector<long> tail_classes;        // stored labels whose examples form "the tail"
  std::string pixels = "unit";
  std::optional<double> feature_clip;
  bool bias = false;
  std::string test_data;        // "" (Fashion-MNIST: its test split), "none", or a file
  std::string test_labels;      // the labels' IDX file of an IDX --test-data
  long long test_size = 0;      // 0: every test example
  bool examples_given = false;  // --dataset-size given (a cap on real data)
  long long examples = 100;
  long long dimension = 10;
  std::string spectrum = "flat";
  double label_noise = 0.5;
  std::optional<double> label_clamp;
  long long classes = 3;
  bool classes_given = false;
  double ridge = 0;
  double curvature = 1;
  // neighbouring dataset
  std::string neighbour = "none";
  std::string neighbour_data;  // --neighbour dataset: D′ read from this CSV file
  long long index = 0;
  std::string coupling = "independent";
  double perturbation = 1;
  // observables and Monte Carlo
  long long record_every = 0;
  long long replicates = 1000;
  std::uint64_t seed = 2026;
  std::optional<std::uint64_t> data_seed;
  int threads = 0;
  std::string samples_file;
  output_options output;
};

/// λ_j of the design's covariance: "flat" (all 1) or "power:A" (λ_j = (j + 1)^(−A)).
Eigen::VectorXd spectrum_of(const std::string& spec, std::size_t d);

/// --data names generated data (gaussian, uniform) rather than a file or Fashion-MNIST.
bool generated_data(const simulate_options& o);

/// The dataset models' data: generated (Gaussian or uniform design with GLM labels) or read
/// (CSV, IDX, Fashion-MNIST's training split).
std::shared_ptr<const sim::dataset> make_dataset(const simulate_options& o,
                                                 std::vector<std::string>& notes);

/// The dataset model of --model on `data`.
std::shared_ptr<const sim::model> model_on(const simulate_options& o,
                                           std::shared_ptr<const sim::dataset> data);

struct models {
  std::shared_ptr<const sim::model> d, dprime;  // dprime null without --neighbour
  std::shared_ptr<const sim::model> test;       // the model on the test set (no ridge), or null
  /// With --tail-classes: the models on the training and test examples of those classes (the
  /// test one without ridge; null without a test set).
  std::shared_ptr<const sim::model> tail, test_tail;
  std::string neighbour_description;
  std::string data_description, test_description;  // what was read or generated
  long long classes = 0;                           // K of softmax (resolved from real data)
};

/// D, and D′ from --neighbour (null without one), and (with `with_test`) the test set's model
/// where there is one; `notes` gets a line on the data.
models make_models(const simulate_options& o,
                   std::vector<std::string>& notes,
                   bool with_test = true);

/// The fraction of examples a classifier (logistic or softmax model) gets wrong at x; empty for
/// the other models.
std::function<double(const sim::vector&)> error_rate_of(std::shared_ptr<const sim::model> f);

/// The algorithm's options for model f (usage_error where a flag does not fit the algorithm).
sim::noisy_gradient_options algorithm_options(const simulate_options& o, const sim::model& f);

/// The Monte Carlo options of a command-line run: a progress bar on a terminal, and a run
/// projected beyond 30 s says how long before it goes on (terminal or not).
sim::monte_carlo_options cli_monte_carlo(long long replicates,
                                         std::uint64_t seed,
                                         int threads,
                                         std::string label);

/// An IDX pair — or Fashion-MNIST's split ("train" or "test" as `test` says) when `images` is
/// "fashion-mnist" — read with `selection`; a usage error naming `flag` on any failure (a
/// missing file says how to install the data).
std::shared_ptr<sim::dataset> read_idx_data(const std::string& flag,
                                            const std::string& images,
                                            const std::string& labels,
                                            bool test,
                                            const sim::idx_selection& selection);

/// Registers the setting's flags after --algorithm (which the caller registers, with its own
/// list): the algorithm's parameters, model and data, the neighbouring dataset, and
/// --replicates, --seed and --threads.
void add_setting_options(CLI::App* sub, simulate_options& o);

/// Records which of the setting's flags were given (--classes, --dataset-size) and checks the
/// combinations of model and data; call in the subcommand's callback.
void finish_setting(CLI::App* sub, simulate_options& o);

}  // namespace dpkit::cli
