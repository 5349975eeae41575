// dpkit simulate — run a noisy training algorithm of the reference simulator (sim module) for R
// independent replicates and report Monte Carlo summaries of its observables: the final risk,
// norm and projection of the iterate, the risk along the trajectory, and — on a neighbouring
// dataset D′ — the same on D′ and the distance between the two runs.
#include <fmt/format.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <iomanip>
#include <iostream>
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
#include "simulate_setting.hpp"

namespace dpkit::cli {
namespace {

/// The recorded steps 0, K, 2K, …, and T (without --record-every: none).
std::vector<long> recorded_steps(long long every, long long steps) {
  std::vector<long> s;
  if (every <= 0) return s;
  for (long long k = 0; k < steps; k += every) s.push_back(static_cast<long>(k));
  s.push_back(static_cast<long>(steps));
  return s;
}

int run_simulate(const simulate_options& o) {
  if (!generated_data(o) && o.data != "fashion-mnist") {
    check_not_an_input("--output", o.output.file, "--data", o.data);
    check_not_an_input("--samples", o.samples_file, "--data", o.data);
  }
  const bool sde = o.algorithm == "hsgd-sde";
  if (sde && (o.model != "least-squares" || o.data != "gaussian"))
    throw usage_error(
        "--algorithm hsgd-sde simulates noisy homogenized SGD for least squares on a Gaussian "
        "design: use --model least-squares --data gaussian");
  if (sde && o.neighbour != "none")
    throw usage_error("--neighbour: hsgd-sde has no dataset (it is the population SDE)");
  if (o.coupling == "shared" && o.neighbour == "none")
    throw usage_error("--coupling shared needs --neighbour");
  // hsgd-sde's horizon is steps x dt: finite, or the library refuses its "horizon is inf".
  if (sde && !std::isfinite(static_cast<double>(o.steps) * o.dt))
    throw usage_error("--steps x --dt is " + format_number(static_cast<double>(o.steps) * o.dt) +
                      ", but must be finite (the horizon of hsgd-sde)");

  // hsgd-sde takes the label-noise variance: --label-noise squared must be finite, or the
  // library's refusal would name the flag with the square's value ("--label-noise is inf").
  // (1.34e154 squared is 1.8e308, still finite.)
  if (sde && !(o.label_noise <= 1.34e154))
    throw usage_error("--label-noise is " + format_number(o.label_noise) +
                      ", but must be at most 1.34e154 for hsgd-sde (its square, the label-noise "
                      "variance, must be finite)");

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
  // Classifiers: the training error of the run on D; with a test set, the test risk (the plain
  // loss, no ridge) and test error of the same iterate.
  const auto train_error = sde ? std::function<double(const sim::vector&)>() : error_rate_of(m.d);
  const auto test_error =
      m.test ? error_rate_of(m.test) : std::function<double(const sim::vector&)>();
  const auto tail_error =
      m.tail ? error_rate_of(m.tail) : std::function<double(const sim::vector&)>();
  const auto tail_test_error =
      m.test_tail ? error_rate_of(m.test_tail) : std::function<double(const sim::vector&)>();
  const std::size_t extra_offset = obs.size();
  if (train_error) {
    obs.push_back({"error/D", true});
    meta.push_back({"error", "D", static_cast<long>(o.steps)});
  }
  if (m.test) {
    obs.push_back({"test-risk/D", true});
    meta.push_back({"test-risk", "D", static_cast<long>(o.steps)});
    if (test_error) {
      obs.push_back({"test-error/D", true});
      meta.push_back({"test-error", "D", static_cast<long>(o.steps)});
    }
  }
  if (tail_error) {
    obs.push_back({"tail-error/D", true});
    meta.push_back({"tail-error", "D", static_cast<long>(o.steps)});
  }
  if (tail_test_error) {
    obs.push_back({"tail-test-error/D", true});
    meta.push_back({"tail-test-error", "D", static_cast<long>(o.steps)});
  }
  const std::size_t final_count = obs.size();
  for (const std::string& side : sides)
    for (long k : steps) {
      obs.push_back({"risk@" + std::to_string(k) + "/" + side, false});
      meta.push_back({"risk", side, k});
    }

  // ‖x‖ as Eigen's plain norm where that is exact enough, its scaled norm where the squares
  // overflow or underflow (‖x‖ = 1e160 read as inf, and a finite run as diverged).
  auto norm_of = [](const sim::vector& x) {
    const double plain = x.norm();
    const bool exact = std::isfinite(plain) && (plain > 1e-150 || x.isZero(0.0));
    return exact ? plain : x.stableNorm();
  };
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
      out[s * per_side + 1] = norm_of(x);
      out[s * per_side + 2] = x[0];
      if (s == 0) {
        std::size_t e = extra_offset;
        if (train_error) out[e++] = train_error(x);
        if (m.test) {
          out[e++] = m.test->empirical_risk(x);
          if (test_error) out[e++] = test_error(x);
        }
        if (tail_error) out[e++] = tail_error(x);
        if (tail_test_error) out[e++] = tail_test_error(x);
      }
      finals.push_back(std::move(x));
    }
    if (pair && shared) out[sides.size() * per_side] = norm_of(finals[0] - finals[1]);
  };

  const sim::monte_carlo_result res = sim::run_monte_carlo(
      obs, replicate, cli_monte_carlo(o.replicates, o.seed, o.threads, "dpkit simulate"));

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
  if (!m.data_description.empty()) rep.parameters["data"] = m.data_description;
  if (!m.test_description.empty()) rep.parameters["test_data"] = m.test_description;
  if (o.lr_decay) rep.parameters["lr_decay"] = *o.lr_decay;
  if (!sde) {
    if (alg.batches == sim::batch_rule::cyclic || alg.batches == sim::batch_rule::shuffled)
      rep.parameters["batch_size"] = alg.batch_size;
    if (alg.batches == sim::batch_rule::poisson)
      rep.parameters["sampling_rate"] = alg.sampling_rate;
    if (alg.correlation != 0) rep.parameters["correlation"] = alg.correlation;
    if (alg.clip > 0) rep.parameters["clip"] = alg.clip;
    if (alg.weight_decay > 0) rep.parameters["weight_decay"] = alg.weight_decay;
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
                std::string(pair && shared ? "; distance: |X_T - X'_T| (shared noise)" : "") +
                std::string(train_error ? "; error: fraction of D misclassified by X_T" : "") +
                std::string(m.test ? "; test-risk: mean loss of X_T on the test set (no ridge)"
                                   : "") +
                std::string(test_error ? "; test-error: fraction of the test set misclassified"
                                       : "") +
                std::string(tail_error ? "; tail-error, tail-test-error: the same on the "
                                         "training and test examples of --tail-classes"
                                       : ""));
  rep.notes.push_back(
      "ci95: normal-approximation interval for the mean (an estimate, valid for many "
      "replicates); q05/median/q95: empirical quantiles of the final values");
  rep.notes.push_back(
      fmt::format("{} replicates on {} thread(s){} in {:.2f} s", o.replicates, res.threads,
                  res.ranks > 1 ? fmt::format(" x {} MPI ranks", res.ranks) : "", res.seconds));
  const int status = emit_simulation(rep, sim::non_finite_observables(res), o.output);

  write_samples(o.samples_file, res, final_count);
  return status;
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
  // Real data (mlp-dp-sgd only; the dispatcher rejects them for the other paper algorithms).
  if (given("--data")) c.data = o.data;
  c.keep_classes = o.keep_classes;
  c.examples_given = given("--dataset-size");
  c.samples_file = o.samples_file;
  for (const char* name :
       {"--lr-decay",     "--correlation",  "--dt",           "--init",        "--init-scale",
        "--model",        "--label-column", "--spectrum",     "--label-clamp", "--ridge",
        "--curvature",    "--data-seed",    "--neighbour",    "--index",       "--coupling",
        "--perturbation", "--record-every", "--weight-decay", "--idx-labels",  "--class-sizes",
        "--pixels",       "--feature-clip", "--bias",         "--test-data",   "--test-labels",
        "--test-size",    "--tail-classes"})
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
  add_setting_options(sub, *o);
  const char* gr = "Monte Carlo and output";
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
      "  dpkit simulate --algorithm sgd --batch-size 10 --noise-std 0.5 --steps 200 --record-every "
      "50\n"
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
  sub->callback([o, paper, sub, &exit_code] {
    check_distinct_outputs({{"--output", o->output.file}, {"--samples", o->samples_file}});
    if (is_paper_algorithm(o->algorithm)) {
      o->classes_given = sub->get_option("--classes")->count() > 0;
      reject_foreign_paper_options(*sub, o->algorithm, *paper);
      exit_code = run_paper_simulation(paper_common_of(*o, *sub), *paper);
      return;
    }
    reject_paper_options(*o, *sub);
    finish_setting(sub, *o);
    exit_code = run_simulate(*o);
  });
}

}  // namespace dpkit::cli
