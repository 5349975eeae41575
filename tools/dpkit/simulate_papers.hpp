// dpkit simulate --algorithm <paper algorithm>: the private learners of SWX+23 (Algorithms 1–3,
// 5–10) and ZXD+26 (DP-SGD of eq. (4) with the long-tail protocol of Definition 3), each run
// for R independent replicates on freshly drawn data, with its noise calibrated and a privacy
// report (the paper's calibration and the tight one). The generic noisy-gradient algorithms of
// `dpkit simulate` (gd, sgd, poisson, ...) live in simulate.cpp; this file is the paper layer.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "cli.hpp"
#include "dpkit/sim/monte_carlo.hpp"

namespace dpkit::cli {

/// The names accepted by --algorithm that this file runs.
const std::vector<std::string>& paper_algorithms();
bool is_paper_algorithm(const std::string& name);

/// The options of `dpkit simulate` that the paper algorithms share with the generic ones.
struct paper_common_options {
  std::string algorithm;
  std::optional<long long> steps;
  std::optional<double> learning_rate;
  std::optional<double> noise;
  std::optional<double> clip;
  std::optional<double> radius;
  std::optional<long long> batch_size;
  std::optional<double> sampling_rate;
  long long examples = 100;
  long long dimension = 10;
  std::optional<long long> classes;
  std::optional<double> label_noise;
  long long replicates = 100;
  std::uint64_t seed = 2026;
  int threads = 0;
  output_options output;
  /// Real data for mlp-dp-sgd: "fashion-mnist" (empty: the paper's synthetic task), the two
  /// classes kept, and whether --dataset-size (a cap on the real data) was given.
  std::string data;
  std::vector<long> keep_classes;
  bool examples_given = false;
  /// --samples: every replicate's final observables to this CSV file (empty: none).
  std::string samples_file;
  /// Generic options given on the command line that no paper algorithm uses (usage error).
  std::vector<std::string> unsupported_given;
};

/// The options only the paper algorithms have (their own option groups in --help).
struct paper_options {
  // privacy target and calibration
  double epsilon = 1;
  double delta = 1e-5;
  std::string calibration = "paper";
  // SWX+23 GLMs
  std::string link = "sigmoid";
  std::optional<long long> rank;
  double w_norm = 1;
  std::optional<long long> jl_dim;
  std::optional<double> moreau_beta;
  std::string oracle = "exact";
  std::optional<double> oracle_gamma;
  int kernel_degree = 2;
  bool corrected_sensitivity = false;
  long long risk_samples = 20000;
  // networks (SWX+23 Alg 10, ZXD+26)
  long long width = 32;
  long long depth = 3;
  long long test_examples = 500;
  std::string constraint = "around-init";
  long long teacher_hidden = 4;
  // ZXD+26
  double signal_norm = 0.5;
  double ncr = 10;
  std::string noise_law = "gaussian";
  std::string class_frequencies;
  double epochs = 20;
  double tail_threshold = 1;
  std::string init = "pytorch";
  double sigma0 = 0.01;
};

/// Adds the paper options to `simulate` in option groups.
void add_paper_options(CLI::App* sub, paper_options& o);

/// Refuses (usage_error) a paper option given to a paper algorithm that does not read it, such
/// as --moreau-beta to phased-sgd or --sigma0 without --network-init gaussian: before, such
/// flags were ignored without a word.
void reject_foreign_paper_options(const CLI::App& sub, const std::string& algorithm,
                                  const paper_options& o);

/// Runs a paper algorithm and emits its report; returns the exit code.
int run_paper_simulation(const paper_common_options& common, const paper_options& o);

/// Emits a simulation's report and returns its exit status: with a DIVERGED note (and a line on
/// stderr, exit 1) where some replicate's value was not finite (sim::non_finite_observables), so
/// that a run whose iterates overflowed never reads as empty statistics with exit 0.
int emit_simulation(report& rep, const std::string& non_finite, const output_options& output);

/// --samples FILE: a row per replicate (its index, then the first `count` observables' values,
/// which must have been run with keep_samples), written whole or not at all, by the output rank.
/// Nothing when `path` is empty.
void write_samples(const std::string& path, const sim::monte_carlo_result& res, std::size_t count);

}  // namespace dpkit::cli
