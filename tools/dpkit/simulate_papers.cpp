// dpkit simulate --algorithm <paper algorithm> (simulate_papers.hpp): SWX+23's GLM learners
// (Algorithms 1–3, 5–9), its DP-SGD for ReLU networks (Algorithm 10), and ZXD+26's DP-SGD with
// the long-tail protocol. Each replicate draws fresh data, runs the algorithm and measures the
// paper's quantity (population excess risk, test error, tail error, memorisation); the privacy
// report gives the certified ε of the noise actually used and the noise of the other
// calibration, so the paper's and the tight calibration can be compared for every algorithm.
//
// This file holds the algorithm table, the report helpers shared by the runs, the options and
// the dispatch; the runs are in simulate_papers_glm.cpp (SWX+23 Algorithms 1–3, 5–9) and
// simulate_papers_networks.cpp (SWX+23 Algorithm 10, ZXD+26).
#include "simulate_papers.hpp"

#include <algorithm>
#include <cmath>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "dpkit/core/csv.hpp"
#include "simulate_papers_detail.hpp"
#include "simulate_setting.hpp"

namespace dpkit::cli {

using detail::papers::algorithm_info;
using detail::papers::info_of;
using detail::papers::run_glm;
using detail::papers::run_longtail;
using detail::papers::run_mlp;
using detail::papers::run_relu;

namespace {

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

}  // namespace

namespace detail::papers {

const algorithm_info& info_of(const std::string& name) {
  for (const auto& i : infos())
    if (name == i.name) return i;
  throw usage_error("--algorithm is " + name + ", but is not a paper algorithm");
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

sim::monte_carlo_result run_replicates(const paper_common_options& c,
                                       std::vector<sim::observable> obs,
                                       const sim::replicate_function& replicate) {
  for (auto& ob : obs) ob.keep_samples = !c.samples_file.empty();
  return sim::run_monte_carlo(obs, replicate, mc_of(c));
}

int emit_paper_run(const paper_common_options& c,
                   report& rep,
                   const sim::monte_carlo_result& mc,
                   const std::string& non_finite) {
  const int status = emit_simulation(rep, non_finite, c.output);
  write_samples(c.samples_file, mc, mc.observables.size());
  return status;
}

sim::monte_carlo_options mc_of(const paper_common_options& c) {
  return cli_monte_carlo(c.replicates, c.seed, c.threads, "dpkit simulate " + c.algorithm);
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

}  // namespace detail::papers

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
      ->check(delta_validator())
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
      ->check(integer_at_least(0, 8))
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

void reject_foreign_paper_options(const CLI::App& sub,
                                  const std::string& algorithm,
                                  const paper_options& o) {
  // The paper options that only some paper algorithms read (the privacy target's are read by
  // all). GLM: Algs 1-3, 5, 6, 9; dp-glm and dp-kernel-glm may take Alg 3's JL branch.
  const std::vector<std::string> glm = {"phased-sgd",           "jl-phased-sgd", "moreau-phased-sgd",
                                        "jl-moreau-phased-sgd", "dp-glm",        "dp-kernel-glm"};
  std::vector<std::string> teacher = glm;
  teacher.insert(teacher.end(), {"relu-dp-pgd", "adaptive-batched-gd"});
  const std::vector<std::string> moreau = {"moreau-phased-sgd", "jl-moreau-phased-sgd"};
  const std::vector<std::string> networks = {"mlp-dp-sgd", "longtail-dp-sgd"};
  const std::vector<std::pair<const char*, std::vector<std::string>>> users = {
      {"--link", glm},
      {"--rank", glm},
      {"--w-norm", teacher},
      {"--risk-samples", teacher},
      {"--jl-dim",
       {"jl-phased-sgd", "jl-moreau-phased-sgd", "dp-glm", "dp-kernel-glm", "relu-dp-pgd"}},
      {"--moreau-beta", moreau},
      {"--oracle", moreau},
      {"--oracle-gamma", moreau},
      {"--kernel-degree", {"dp-kernel-glm"}},
      {"--corrected-sensitivity", {"adaptive-batched-gd"}},
      {"--width", networks},
      {"--test-examples", networks},
      {"--depth", {"mlp-dp-sgd"}},
      {"--constraint", {"mlp-dp-sgd"}},
      {"--teacher-hidden", {"mlp-dp-sgd"}},
      {"--signal-norm", {"longtail-dp-sgd"}},
      {"--ncr", {"longtail-dp-sgd"}},
      {"--noise-law", {"longtail-dp-sgd"}},
      {"--class-frequencies", {"longtail-dp-sgd"}},
      {"--epochs", {"longtail-dp-sgd"}},
      {"--tail-threshold", {"longtail-dp-sgd"}},
      {"--network-init", {"longtail-dp-sgd"}},
      {"--sigma0", {"longtail-dp-sgd"}},
  };
  for (const auto& [flag, readers] : users) {
    const CLI::Option* opt = sub.get_option_no_throw(flag);
    if (opt == nullptr || opt->count() == 0) continue;
    if (std::find(readers.begin(), readers.end(), algorithm) == readers.end()) {
      std::string list;
      for (const std::string& r : readers) list += (list.empty() ? "" : ", ") + r;
      throw usage_error(std::string(flag) + " does not apply to --algorithm " + algorithm +
                        " (it is read by " + list + ")");
    }
  }
  const CLI::Option* gamma = sub.get_option_no_throw("--oracle-gamma");
  if (gamma != nullptr && gamma->count() > 0 && o.oracle != "algorithm4")
    throw usage_error(
        "--oracle-gamma applies to --oracle algorithm4 only (the default, exact, "
        "takes the prox to machine precision)");
  const CLI::Option* sigma0 = sub.get_option_no_throw("--sigma0");
  if (sigma0 != nullptr && sigma0->count() > 0 && o.init != "gaussian")
    throw usage_error("--sigma0 applies to --network-init gaussian only (the default, pytorch, "
                      "draws U(-1/sqrt(d), 1/sqrt(d)))");
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

void write_samples(const std::string& path, const sim::monte_carlo_result& res, std::size_t count) {
  if (path.empty() || !output_rank()) return;
  std::ostringstream f;
  std::vector<std::string> header = {"replicate"};
  for (std::size_t j = 0; j < count; ++j) header.push_back(res.observables[j].name);
  std::vector<std::vector<double>> rows(res.replicates);
  for (std::uint64_t r = 0; r < res.replicates; ++r) {
    rows[r].push_back(static_cast<double>(r));  // exact: fewer than 2^53 replicates
    for (std::size_t j = 0; j < count; ++j) rows[r].push_back(res.observables[j].samples[r]);
  }
  write_csv(f, header, rows);
  write_file("--samples", path, f.str());  // whole or not at all
}

int emit_simulation(report& rep, const std::string& non_finite, const output_options& output) {
  if (!non_finite.empty())
    rep.notes.push_back("DIVERGED: not finite in some replicates: " + non_finite +
                        "; their statistics are not defined (a value left double precision: "
                        "the step size, the noise or a scale is too large for the problem; a "
                        "smaller --learning-rate is the usual remedy)");
  emit(rep, output);
  if (non_finite.empty()) return kExitSuccess;
  if (output_rank())
    std::cerr << "dpkit simulate: the run diverged: not finite in some replicates: " << non_finite
              << "\n";
  return kExitNumericalFailure;
}

}  // namespace dpkit::cli
