// dpkit simulate — run a noisy training algorithm of the reference simulator (sim module) for R
// independent replicates and report Monte Carlo summaries of its observables: the final risk,
// norm and projection of the iterate, the risk along the trajectory, and — on a neighbouring
// dataset D′ — the same on D′ and the distance between the two runs.
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <iomanip>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/core/csv.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/data.hpp"
#include "dpkit/sim/dataset.hpp"
#include "dpkit/sim/model.hpp"
#include "dpkit/sim/models.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "simulate_papers.hpp"

namespace dpkit::cli {
namespace {

struct simulate_options {
  // algorithm
  std::string algorithm = "gd";
  long long steps = 100;
  double learning_rate = 0.1;
  std::optional<double> lr_decay;
  std::optional<double> noise;
  double correlation = 0;
  double clip = 0;
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
Eigen::VectorXd spectrum_of(const std::string& spec, std::size_t d) {
  Eigen::VectorXd lambda = Eigen::VectorXd::Ones(static_cast<Eigen::Index>(d));
  if (spec == "flat") return lambda;
  if (spec.rfind("power:", 0) == 0) {
    double a = 0;
    std::size_t used = 0;
    try {
      a = std::stod(spec.substr(6), &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == spec.size() - 6 && used > 0 && std::isfinite(a) && a >= 0) {
      for (std::size_t j = 0; j < d; ++j)
        lambda[static_cast<Eigen::Index>(j)] = std::pow(static_cast<double>(j + 1), -a);
      return lambda;
    }
  }
  throw usage_error("--spectrum is " + spec + ", but must be 'flat' or 'power:A' with A >= 0");
}

/// The dataset models' data: generated (Gaussian or uniform design with GLM labels) or read.
std::shared_ptr<const sim::dataset> make_dataset(const simulate_options& o,
                                                 std::vector<std::string>& notes) {
  auto data = std::make_shared<sim::dataset>();
  if (o.data != "gaussian" && o.data != "uniform") {
    try {
      *data = sim::read_dataset_csv(o.data, o.label_column);
    } catch (const std::exception& e) {  // I/O, parse and content errors are all bad input
      std::string why = user_message(e.what(), nullptr);  // no function name
      if (why.rfind("label_column ", 0) == 0) why.replace(0, 12, "--label-column");
      throw usage_error("--data is " + o.data +
                        ", but must be gaussian, uniform or a readable dataset CSV: " + why);
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
    data->labels = sim::linear_labels(data->features, x_star, o.label_noise, label_stream,
                                      o.label_clamp.value_or(INFINITY));
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

struct models {
  std::shared_ptr<const sim::model> d, dprime;  // dprime null without --neighbour
  std::string neighbour_description;
};

models make_models(const simulate_options& o, std::vector<std::string>& notes) {
  models m;
  std::shared_ptr<const sim::dataset> data;
  if (o.model == "quadratic") {
    m.d = std::make_shared<sim::quadratic>(static_cast<std::size_t>(o.examples),
                                           static_cast<std::size_t>(o.dimension), o.curvature);
  } else {
    data = make_dataset(o, notes);
    m.d = model_on(o, data);
  }
  if (o.neighbour == "none") return m;
  const auto n = m.d->examples();
  if (static_cast<std::size_t>(o.index) >= n)
    throw usage_error("--index is " + std::to_string(o.index) +
                      ", but must be below n = " + std::to_string(n));
  const auto i = static_cast<std::size_t>(o.index);
  if (o.neighbour == "zero-out") {
    m.dprime = std::make_shared<sim::zeroed_example>(m.d, i);
    m.neighbour_description = "zero-out: f'_i = 0 for i = " + std::to_string(i);
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
  if (o.radius)
    a.constraint = sim::projection::ball(
        sim::vector::Zero(static_cast<Eigen::Index>(f.dimension())), *o.radius);
  sim::check_options(a, f);
  return a;
}

/// The recorded steps 0, K, 2K, …, and T (without --record-every: none).
std::vector<long> recorded_steps(long long every, long long steps) {
  std::vector<long> s;
  if (every <= 0) return s;
  for (long long k = 0; k < steps; k += every) s.push_back(static_cast<long>(k));
  s.push_back(static_cast<long>(steps));
  return s;
}

json number_or_null(double x) {
  return std::isfinite(x) ? json(x) : json(nullptr);
}

int run_simulate(const simulate_options& o) {
  if (o.data != "gaussian" && o.data != "uniform") {
    check_not_an_input("--output", o.output.file, "--data", o.data);
    check_not_an_input("--samples", o.samples_file, "--data", o.data);
  }
  if (o.classes_given && o.model != "softmax")
    throw usage_error("--classes applies to --model softmax only");
  if (o.model == "quadratic" && o.data != "gaussian")
    throw usage_error("--data: the quadratic model has no data (use --dataset-size, --dimension)");
  const bool sde = o.algorithm == "hsgd-sde";
  if (sde && (o.model != "least-squares" || o.data != "gaussian"))
    throw usage_error(
        "--algorithm hsgd-sde simulates noisy homogenized SGD for least squares on a Gaussian "
        "design: use --model least-squares --data gaussian");
  if (sde && o.neighbour != "none")
    throw usage_error("--neighbour: hsgd-sde has no dataset (it is the population SDE)");
  if (o.coupling == "shared" && o.neighbour == "none")
    throw usage_error("--coupling shared needs --neighbour");

  std::vector<std::string> notes;
  models m;
  sim::noisy_gradient_options alg;
  sim::hsgd_sde equation;
  if (sde) {
    const auto d = static_cast<std::size_t>(o.dimension);
    equation.eigenvalues = spectrum_of(o.spectrum, d);
    equation.target =
        sim::vector::Constant(static_cast<Eigen::Index>(d), 1 / std::sqrt(static_cast<double>(d)));
    equation.ridge = o.ridge;
    equation.label_noise = o.label_noise * o.label_noise;
    equation.noise = o.noise.value_or(0);
    const double eta = o.learning_rate;
    if (o.lr_decay) {
      const double tau = *o.lr_decay;
      equation.gamma = [eta, tau](double t) { return eta / (1 + t / tau); };
    } else {
      equation.gamma = [eta](double) { return eta; };
    }
    notes.push_back("hsgd-sde: Euler-Maruyama in the eigenbasis of Sigma, dt = " +
                    format_number(o.dt) + "; risk is the population risk P(X)");
  } else {
    m = make_models(o, notes);
    alg = algorithm_options(o, *m.d);
  }
  const std::size_t p = sde ? static_cast<std::size_t>(o.dimension) : m.d->dimension();
  const bool pair = m.dprime != nullptr;
  const bool shared = o.coupling == "shared";
  const std::vector<long> steps = recorded_steps(o.record_every, o.steps);

  // Observables, per side: risk, norm, projection (samples kept), then the trajectory risks.
  const std::vector<std::string> sides =
      pair ? std::vector<std::string>{"D", "D'"} : std::vector<std::string>{"D"};
  std::vector<sim::observable> obs;
  struct row_meta {
    std::string name, side;
    long step = -1;
  };
  std::vector<row_meta> meta;
  for (const std::string& side : sides) {
    for (const char* name : {"risk", "norm", "projection"}) {
      obs.push_back({std::string(name) + "/" + side, true});
      meta.push_back({name, side, static_cast<long>(o.steps)});
    }
  }
  if (pair && shared) {
    obs.push_back({"distance", true});
    meta.push_back({"distance", "D,D'", static_cast<long>(o.steps)});
  }
  const std::size_t final_count = obs.size();
  for (const std::string& side : sides)
    for (long k : steps) {
      obs.push_back({"risk@" + std::to_string(k) + "/" + side, false});
      meta.push_back({"risk", side, k});
    }

  const sim::vector x0_zero = sim::vector::Zero(static_cast<Eigen::Index>(p));
  const auto per_side = 3;
  const std::size_t trajectory_offset = final_count;
  auto replicate = [&](std::uint64_t r, std::span<double> out) {
    sim::vector x0 = x0_zero;
    std::vector<sim::vector> finals;
    for (std::size_t s = 0; s < sides.size(); ++s) {
      // Streams: base + 1 init, base + 2 batches, base + 3 noise (random.hpp); an independent
      // D′ run uses base 8, a shared (coupled) one the same streams as D.
      const std::uint64_t base = (s == 1 && !shared) ? 8 : 0;
      if (o.init == "gaussian") {
        random_stream init(o.seed, r, base + 1);
        init.fill_normal(std::span<double>(x0.data(), p));
        x0 *= o.init_scale;
      }
      const sim::random_key key{o.seed, r, base};
      const std::size_t traj = trajectory_offset + s * steps.size();
      std::size_t next = 0;
      sim::vector x;
      if (sde) {
        x = sim::run_hsgd_euler_maruyama(equation, x0, static_cast<double>(o.steps) * o.dt, o.dt,
                                         key, [&](long k, double, const sim::vector& xk) {
                                           if (next < steps.size() && steps[next] == k)
                                             out[traj + next++] = equation.population_risk(xk);
                                         });
      } else {
        const sim::model& f = s == 0 ? *m.d : *m.dprime;
        x = sim::run_noisy_gradient(f, alg, x0, key, [&](long k, const sim::vector& xk) {
          if (next < steps.size() && steps[next] == k) out[traj + next++] = f.empirical_risk(xk);
        });
      }
      out[s * per_side + 0] =
          sde ? equation.population_risk(x) : (s == 0 ? *m.d : *m.dprime).empirical_risk(x);
      out[s * per_side + 1] = x.norm();
      out[s * per_side + 2] = x[0];
      finals.push_back(std::move(x));
    }
    if (pair && shared) out[sides.size() * per_side] = (finals[0] - finals[1]).norm();
  };

  sim::monte_carlo_options mc;
  mc.replicates = static_cast<std::uint64_t>(o.replicates);
  mc.seed = o.seed;
  mc.threads = o.threads;
  mc.progress = true;
  mc.announce = true;  // a run projected beyond 30 s says how long, terminal or not
  mc.label = "dpkit simulate";
  const sim::monte_carlo_result res = sim::run_monte_carlo(obs, replicate, mc);

  report rep;
  rep.tool = "dpkit simulate";
  const std::string algorithm_text =
      sde ? "noisy HSGD SDE (Euler-Maruyama)" : std::string(sim::to_string(alg.batches));
  rep.parameters = {{"algorithm", o.algorithm},
                    {"model", sde ? "population least squares" : m.d->describe()},
                    {"steps", o.steps},
                    {"learning_rate", o.learning_rate},
                    {"noise", sde ? equation.noise : alg.noise},
                    {"replicates", o.replicates},
                    {"seed", o.seed},
                    {"threads", res.threads},
                    {"mpi_ranks", res.ranks}};
  if (o.lr_decay) rep.parameters["lr_decay"] = *o.lr_decay;
  if (!sde) {
    if (alg.batches == sim::batch_rule::cyclic || alg.batches == sim::batch_rule::shuffled)
      rep.parameters["batch_size"] = alg.batch_size;
    if (alg.batches == sim::batch_rule::poisson)
      rep.parameters["sampling_rate"] = alg.sampling_rate;
    if (alg.correlation != 0) rep.parameters["correlation"] = alg.correlation;
    if (alg.clip > 0) rep.parameters["clip"] = alg.clip;
    if (o.radius) rep.parameters["radius"] = *o.radius;
  } else {
    rep.parameters["dt"] = o.dt;
  }
  if (pair) {
    rep.parameters["neighbour"] = m.neighbour_description;
    rep.parameters["coupling"] = o.coupling;
  }
  rep.parameters["init"] =
      o.init == "zero" ? std::string("zero") : "gaussian, scale " + format_number(o.init_scale);
  rep.columns = {"observable", "dataset", "step", "mean",   "ci95_lo", "ci95_hi",
                 "sd",         "min",     "q05",  "median", "q95",     "max"};
  for (std::size_t j = 0; j < res.observables.size(); ++j) {
    const sim::observable_summary& s = res.observables[j];
    const auto [lo, hi] = s.mean_interval(0.95);
    json row = {{"observable", meta[j].name},
                {"dataset", meta[j].side},
                {"step", meta[j].step},
                {"mean", number_or_null(s.stats.mean())},
                {"ci95_lo", number_or_null(lo)},
                {"ci95_hi", number_or_null(hi)},
                {"sd", number_or_null(s.stats.standard_deviation())},
                {"min", number_or_null(s.stats.min())},
                {"max", number_or_null(s.stats.max())},
                {"count", s.stats.count()}};
    if (!s.samples.empty()) {
      row["q05"] = number_or_null(s.quantile(0.05));
      row["median"] = number_or_null(s.quantile(0.5));
      row["q95"] = number_or_null(s.quantile(0.95));
    }
    rep.results.push_back(row);
  }
  rep.title = fmt::format("{} x {} replicates: {}, T = {}, eta = {}{}", algorithm_text,
                          o.replicates, sde ? "population least squares" : m.d->describe(), o.steps,
                          format_number(o.learning_rate), pair ? ", with neighbour D'" : "");
  rep.notes = notes;
  rep.notes.push_back(
      sde ? "risk: population risk P(X); norm: |X_T|; projection: first coordinate of X_T in the "
            "eigenbasis of Sigma (largest eigenvalue)"
          : "risk: empirical risk of the iterate on the run's own dataset; norm: |X_T|; "
            "projection: <X_T, e_1>" +
                std::string(pair && shared ? "; distance: |X_T - X'_T| (shared noise)" : ""));
  rep.notes.push_back(
      "ci95: normal-approximation interval for the mean (an estimate, valid for many "
      "replicates); q05/median/q95: empirical quantiles of the final values");
  rep.notes.push_back(
      fmt::format("{} replicates on {} thread(s){} in {:.2f} s", o.replicates, res.threads,
                  res.ranks > 1 ? fmt::format(" x {} MPI ranks", res.ranks) : "", res.seconds));
  emit(rep, o.output);

  if (!o.samples_file.empty() && output_rank()) {
    std::ostringstream f;
    std::vector<std::string> header = {"replicate"};
    for (std::size_t j = 0; j < final_count; ++j) header.push_back(res.observables[j].name);
    f << csv_row(header) << "\n" << std::setprecision(17);
    for (std::uint64_t r = 0; r < res.replicates; ++r) {
      f << r;
      for (std::size_t j = 0; j < final_count; ++j) f << "," << res.observables[j].samples[r];
      f << "\n";
    }
    write_file("--samples", o.samples_file, f.str());  // whole or not at all
  }
  return kExitSuccess;
}

}  // namespace

std::vector<std::string> algorithm_names() {
  std::vector<std::string> v = {"gd", "cgd", "sgd", "poisson", "one-pass", "lmc", "hsgd-sde"};
  for (const auto& name : paper_algorithms()) v.push_back(name);
  return v;
}

/// The paper algorithms' view of the options (simulate_papers.hpp): the shared ones, and the
/// generic ones given that do not apply to them.
paper_common_options paper_common_of(const simulate_options& o, const CLI::App& sub) {
  paper_common_options c;
  c.algorithm = o.algorithm;
  auto given = [&](const char* name) { return sub.get_option(name)->count() > 0; };
  if (given("--steps")) c.steps = o.steps;
  if (given("--learning-rate")) c.learning_rate = o.learning_rate;
  c.noise = o.noise;
  if (given("--clip")) c.clip = o.clip;
  c.radius = o.radius;
  c.batch_size = o.batch_size;
  c.sampling_rate = o.sampling_rate;
  c.examples = o.examples;
  c.dimension = o.dimension;
  if (o.classes_given) c.classes = o.classes;
  if (given("--label-noise")) c.label_noise = o.label_noise;
  c.replicates = given("--replicates") ? o.replicates : 100;
  c.seed = o.seed;
  c.threads = o.threads;
  c.output = o.output;
  for (const char* name :
       {"--lr-decay", "--correlation", "--dt", "--init", "--init-scale", "--model", "--data",
        "--label-column", "--spectrum", "--label-clamp", "--ridge", "--curvature", "--data-seed",
        "--neighbour", "--index", "--coupling", "--perturbation", "--record-every", "--samples"})
    if (given(name)) c.unsupported_given.emplace_back(name);
  return c;
}

/// Paper-only options given to a generic algorithm: usage error naming the first.
void reject_paper_options(const simulate_options& o, const CLI::App& sub) {
  for (const CLI::Option* opt : sub.get_options())
    if (opt->get_group().rfind("Paper algorithms", 0) == 0 && opt->count() > 0)
      throw usage_error(opt->get_name() +
                        " applies to the paper algorithms only, not to "
                        "--algorithm " +
                        o.algorithm);
}

void register_simulate(CLI::App& app, int& exit_code) {
  auto o = std::make_shared<simulate_options>();
  auto paper = std::make_shared<paper_options>();
  CLI::App* sub = app.add_subcommand(
      "simulate",
      "Run a noisy training algorithm for many independent replicates (reference simulator) and "
      "summarise its observables: risk, norm and projection of the final iterate, risk along the "
      "trajectory, and the same on a neighbouring dataset");

  const char* ga = "Algorithm (docs/sim.md)";
  sub->add_option("--algorithm", o->algorithm,
                  "gd: NoisyGD (full batch); cgd: NoisyCGD (fixed cyclic batches); sgd: NoisySGD "
                  "(uniform batches without replacement); poisson: DP-SGD (Poisson sampling); "
                  "one-pass: one example per step, each once; lmc: Langevin Monte Carlo; "
                  "hsgd-sde: noisy homogenized SGD (Euler-Maruyama). The papers' private "
                  "learners (their own data, calibrated noise, privacy report; docs/nonconvex.md, "
                  "docs/longtail.md): SWX+23 phased-sgd (Alg 2), jl-phased-sgd (Alg 3), "
                  "moreau-phased-sgd (Alg 5), jl-moreau-phased-sgd (Alg 6), dp-glm (Alg 1), "
                  "dp-kernel-glm (Alg 9), relu-dp-pgd (Alg 7), adaptive-batched-gd (Alg 8), "
                  "mlp-dp-sgd (Alg 10); ZXD+26 longtail-dp-sgd (eq. (4))")
      ->check(CLI::IsMember(algorithm_names()))
      ->capture_default_str()
      ->group(ga);
  sub->add_option("--steps", o->steps, "Number of steps T")
      ->check(integer_at_least(1))
      ->capture_default_str()
      ->group(ga);
  sub->add_option("--learning-rate", o->learning_rate, "Learning rate eta (hsgd-sde: gamma)")
      ->check(real_greater_than(0))
      ->capture_default_str()
      ->group(ga);
  sub->add_option("--lr-decay", o->lr_decay,
                  "Schedule eta_k = eta / (1 + k / TAU) (hsgd-sde: in time t) instead of constant")
      ->check(real_greater_than(0))
      ->type_name("TAU")
      ->group(ga);
  sub->add_option("--noise-std", o->noise,
                  "Standard deviation sigma of the Gaussian noise added to the averaged gradient, "
                  "per coordinate (default 0)")
      ->check(real_at_least(0))
      ->type_name("SIGMA")
      ->group(ga);
  sub->add_option(
         "--correlation", o->correlation,
         "lambda in [0, 1): correlated noise sigma (Z_t - lambda Z_{t-1}) of DP-lambda-CGD")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->group(ga);
  sub->add_option("--clip", o->clip, "Clip per-example gradients to norm C (0: no clipping)")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->type_name("C")
      ->group(ga);
  sub->add_option("--radius", o->radius, "Project the iterates onto the ball |x| <= R")
      ->check(real_greater_than(0))
      ->type_name("R")
      ->group(ga);
  sub->add_option("--batch-size", o->batch_size, "Batch size b (cgd, sgd)")
      ->check(integer_at_least(1))
      ->type_name("B")
      ->group(ga);
  sub->add_option("--sampling-rate", o->sampling_rate, "Poisson sampling rate q (poisson)")
      ->check(sampling_rate_validator())
      ->type_name("Q")
      ->group(ga);
  sub->add_option("--dt", o->dt, "Euler-Maruyama time step (hsgd-sde; horizon = steps x dt)")
      ->check(real_greater_than(0))
      ->capture_default_str()
      ->group(ga);
  sub->add_option("--init", o->init,
                  "Initial point: zero, or gaussian (N(0, s^2 I), per replicate)")
      ->check(CLI::IsMember({"zero", "gaussian"}))
      ->capture_default_str()
      ->group(ga);
  sub->add_option("--init-scale", o->init_scale, "s of --init gaussian")
      ->check(real_greater_than(0))
      ->capture_default_str()
      ->group(ga);

  const char* gm = "Model and data";
  sub->add_option("--model", o->model,
                  "least-squares, logistic (labels +-1), softmax (labels 0..K-1), or quadratic "
                  "(f_i = (m/2)|x|^2, the base of BSA24's worst-case constructions)")
      ->check(CLI::IsMember({"least-squares", "logistic", "softmax", "quadratic"}))
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--data", o->data,
                  "gaussian: N(0, diag(spectrum)) design; uniform: a_ij ~ U(0, 1/sqrt(d)) (LKSP25 "
                  "Sec 5); or a CSV file (one header row, a label column)")
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--label-column", o->label_column, "Label column of a --data CSV file")
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--dataset-size", o->examples, "n, the number of generated examples")
      ->check(integer_at_least(1))
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--dimension", o->dimension, "d, the number of generated features")
      ->check(integer_at_least(1))
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--spectrum", o->spectrum,
                  "Covariance eigenvalues of the Gaussian design: flat, or power:A for "
                  "lambda_j = j^(-A)")
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--label-noise", o->label_noise,
                  "Standard deviation of the label noise of least squares (y = a'x* + noise)")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--label-clamp", o->label_clamp, "Clamp the label noise to [-C, C]")
      ->check(real_at_least(0))
      ->type_name("C")
      ->group(gm);
  CLI::Option* classes =
      sub->add_option("--classes", o->classes, "K, the number of classes of softmax")
          ->check(integer_at_least(2))
          ->capture_default_str()
          ->group(gm);
  sub->add_option("--ridge", o->ridge, "Ridge (L2) penalty delta of the dataset models")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--curvature", o->curvature, "m of the quadratic model")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->group(gm);
  sub->add_option("--data-seed", o->data_seed, "Seed of the generated data (default: --seed)")
      ->group(gm);

  const char* gn = "Neighbouring dataset";
  sub->add_option("--neighbour", o->neighbour,
                  "none; replace-one: example --index gets the flipped label (a_i, -y_i) "
                  "(softmax: label "
                  "(y_i + 1) mod K; quadratic: gradient shifted by -L e_1, BSA24 W1); zero-out: "
                  "example --index contributes f'_i = 0")
      ->check(CLI::IsMember({"none", "replace-one", "zero-out"}))
      ->capture_default_str()
      ->group(gn);
  sub->add_option("--index", o->index, "The example that differs (0-based)")
      ->check(integer_at_least(0))
      ->capture_default_str()
      ->group(gn);
  sub->add_option("--coupling", o->coupling,
                  "independent: D' uses its own noise (as an auditor sees it); shared: the same "
                  "noise and batches as D, and the distance |X_T - X'_T| is reported")
      ->check(CLI::IsMember({"independent", "shared"}))
      ->capture_default_str()
      ->group(gn);
  sub->add_option("--perturbation", o->perturbation, "L of the quadratic model's replace-one")
      ->check(real_at_least(0))
      ->capture_default_str()
      ->group(gn);

  const char* gr = "Monte Carlo and output";
  sub->add_option("--replicates", o->replicates, "R, independent runs")
      ->check(integer_at_least(1))
      ->capture_default_str()
      ->group(gr);
  sub->add_option("--seed", o->seed, "Seed of the random streams")
      ->capture_default_str()
      ->group(gr);
  sub->add_option("--threads", o->threads,
                  "OpenMP threads (0: all cores); results are identical for any number")
      ->check(integer_at_least(0, 1024))
      ->capture_default_str()
      ->group(gr);
  sub->add_option("--record-every", o->record_every,
                  "Also report the risk at steps 0, K, 2K, ..., T (mean and interval)")
      ->check(integer_at_least(1))
      ->type_name("K")
      ->group(gr);
  sub->add_option("--samples", o->samples_file,
                  "Write every replicate's final observables to FILE.csv (for histograms, audits)")
      ->check(writable_file_validator())
      ->type_name("FILE")
      ->group(gr);
  add_paper_options(sub, *paper);
  add_output_options(sub, o->output);
  sub->footer(
      "Examples:\n"
      "  dpkit simulate --algorithm sgd --batch-size 10 --noise-std 0.5 --steps 200 --record-every 50\n"
      "  dpkit simulate --model logistic --algorithm poisson --sampling-rate 0.05 --clip 1 "
      "--noise-std 1\n"
      "  dpkit simulate --model quadratic --dataset-size 10 --dimension 2 --curvature 1 "
      "--neighbour replace-one --perturbation 2 --noise-std 0.4 --learning-rate 0.5 --steps 25\n"
      "  dpkit simulate --algorithm hsgd-sde --dimension 100 --spectrum power:1 --noise-std 0.1 "
      "--steps 1000\n"
      "  dpkit simulate --algorithm phased-sgd --dataset-size 4096 --dimension 20 --rank 5 "
      "--epsilon 1 --calibration tight --replicates 50\n"
      "  dpkit simulate --algorithm longtail-dp-sgd --classes 3 --dimension 200 --dataset-size 150 "
      "--width 20 --epsilon 8 --replicates 10\n"
      "Randomness: replicate r draws from Philox streams keyed by (seed, r); the same seed gives "
      "the same numbers for any --threads (and under mpirun). docs/cli.md, docs/sim.md.");
  sub->callback([o, paper, sub, classes, &exit_code] {
    o->classes_given = classes->count() > 0;
    if (is_paper_algorithm(o->algorithm)) {
      exit_code = run_paper_simulation(paper_common_of(*o, *sub), *paper);
      return;
    }
    reject_paper_options(*o, *sub);
    exit_code = run_simulate(*o);
  });
}

}  // namespace dpkit::cli
