// dpkit hsgd — risk trajectories of one-pass noisy SGD on ridge least squares through noisy HSGD
// (LKSP25): the Volterra equations (6)–(7) solved exactly by the ODE lift, for a spectrum
// file or a covariance family, any learning-rate schedule, with the plateau and K_∞.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/core/csv.hpp"
#include "dpkit/core/parse.hpp"
#include "dpkit/core/grid.hpp"
#include "dpkit/core/progress.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/hsgd/law.hpp"
#include "dpkit/hsgd/privacy.hpp"
#include "dpkit/hsgd/ys22.hpp"
#include "dpkit/sim/data.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "dpkit/volterra/risk.hpp"
#include "dpkit/volterra/schedule.hpp"
#include "dpkit/volterra/spectrum.hpp"
#include "hsgd_specs.hpp"

namespace dpkit::cli {
namespace {

using hsgd_specs::build_schedule;
using hsgd_specs::in_spec_words;
using hsgd_specs::need_count;
using hsgd_specs::parse_spec;
using hsgd_specs::spec_integer;

struct hsgd_options {
  std::string spectrum_file, spectrum;
  std::optional<long long> dim;
  std::optional<double> ridge, label_noise, noise;
  std::optional<double> learning_rate, sgd_step_size;
  std::string schedule = "constant";
  double horizon = NAN;
  long long points = 0;
  std::string times;
  double start_error = 1, target_norm = 0, start_target = 0;
  std::uint64_t seed = 2;
  double x0_scale = 2;
  std::string solver = "auto";
  std::string write_spectrum;
  double tolerance = 1e-8;
  output_options output;
};

// The LKSP25 §5 families: "paper-design" (the design's true Σ) and "paper-code" (the released
// code's Σ). Their names before dpkit 0.2, "seed-design" and "seed-code", are still accepted
// (not shown in --help).
std::string canonical_family(const std::string& name) {
  if (name == "seed-design") return "paper-design";
  if (name == "seed-code") return "paper-code";
  return name;
}

volterra::problem build_problem(const hsgd_options& o, report& rep) {
  volterra::problem p;
  if (!o.spectrum_file.empty()) {
    // Header lines the file lacks come from the flags (docs/volterra.md); the flags also
    // override the lines it has.
    volterra::problem_file_defaults defaults;
    defaults.ridge = o.ridge;
    defaults.label_noise = o.label_noise;
    defaults.sigma = o.noise;
    try {
      p = volterra::read_problem_csv(o.spectrum_file, defaults);
    } catch (const std::runtime_error& e) {
      std::string what = e.what();
      const std::string missing = "(and no default given for it)";
      if (const auto at = what.find(missing); at != std::string::npos)
        what.replace(at, missing.size(), "(give it with --ridge, --label-noise or --noise-std)");
      throw usage_error("--spectrum-file: " + what);
    }
    if (o.dim && *o.dim != p.d)
      throw usage_error("--dimension is " + std::to_string(*o.dim) +
                        ", but the spectrum file says d = " + std::to_string(p.d));
    if (o.ridge) p.ridge = *o.ridge;
    if (o.label_noise) p.label_noise = *o.label_noise;
    if (o.noise) p.sigma = *o.noise;
    volterra::validate(p, "dpkit hsgd");
    rep.parameters["spectrum_file"] = o.spectrum_file;
    return p;
  }
  if (!o.dim) throw usage_error("--dimension is required with --spectrum");
  const long long d = *o.dim;
  volterra::problem_parameters par;
  par.ridge = o.ridge.value_or(0);
  par.label_noise = o.label_noise.value_or(0);
  par.sigma = o.noise.value_or(0);
  const volterra::energies e{o.start_error, o.target_norm, o.start_target};
  // Named references, not structured bindings: the lambdas below capture them (clang's analyzer
  // misreads a captured binding as an uninitialised pointer).
  const auto spec = parse_spec("--spectrum", o.spectrum);
  const std::string& given = spec.first;
  const std::vector<double>& v = spec.second;
  const std::string name = canonical_family(given);
  const std::string& text = o.spectrum;
  rep.parameters["spectrum"] = text;
  if (name == "isotropic") {
    need_count("--spectrum", text, v, 1, 1, "isotropic:LAMBDA");
    return in_spec_words("--spectrum", "isotropic:LAMBDA", {{"lambda", "LAMBDA"}},
                         [&] { return volterra::isotropic(d, v[0], e, par); });
  }
  if (name == "two-level") {
    // Σ = λ_b I + (λ_1 − λ_b)uuᵀ: a spike of multiplicity 1 (its direction is immaterial when
    // the energies are spread by multiplicity; docs/volterra.md).
    need_count("--spectrum", text, v, 2, 2, "two-level:BULK,SPIKE");
    return in_spec_words("--spectrum", "two-level:BULK,SPIKE",
                         {{"lambda_bulk", "BULK"}, {"spikes[0]", "SPIKE"}}, [&] {
                           return volterra::spiked(d, v[0], std::vector<double>{v[1]}, e, par);
                         });
  }
  if (name == "spiked") {
    need_count("--spectrum", text, v, 2, 1u << 20, "spiked:BULK,SPIKE1[,SPIKE2,...]");
    return in_spec_words("--spectrum", "spiked:BULK,SPIKE1[,SPIKE2,...]",
                         {{"lambda_bulk", "BULK"}}, [&] {
                           return volterra::spiked(
                               d, v[0], std::vector<double>(v.begin() + 1, v.end()), e, par);
                         });
  }
  if (name == "power-law") {
    need_count("--spectrum", text, v, 1, 2, "power-law:EXPONENT[,TRACE] (trace default 1)");
    return in_spec_words(
        "--spectrum", "power-law:EXPONENT[,TRACE]", {{"exponent", "EXPONENT"}, {"trace", "TRACE"}},
        [&] { return volterra::power_law(d, v[0], v.size() > 1 ? v[1] : 1.0, e, par); });
  }
  if (name == "marchenko-pastur") {
    need_count("--spectrum", text, v, 2, 3, "marchenko-pastur:RATIO,SCALE[,GROUPS] (groups 200)");
    // At most 1e5 groups (1e9 ran for minutes; the discretisation is converged long before).
    const long long g = spec_integer("GROUPS in --spectrum marchenko-pastur:RATIO,SCALE,GROUPS",
                                     v.size() > 2 ? v[2] : 200, 1, 100000);
    return in_spec_words("--spectrum", "marchenko-pastur:RATIO,SCALE[,GROUPS]",
                         {{"ratio", "RATIO"}, {"scale", "SCALE"}},
                         [&] { return volterra::marchenko_pastur(d, v[0], v[1], g, e, par); });
  }
  if (name == "paper-design" || name == "paper-code") {
    // LKSP25 §5 and its released code: x̃ iid U(0, 1/√d), x0 ~ N(0, s²I) (s = 2 in the code, 1 in
    // the paper), drawn from the counter-based stream (seed, 0, 0).
    need_count("--spectrum", text, v, 0, 0, name + " (no values)");
    rep.parameters["seed"] = o.seed;
    rep.parameters["x0_scale"] = o.x0_scale;
    return volterra::lksp25_experiment(
        d, name == "paper-design" ? volterra::lksp25_sigma::design : volterra::lksp25_sigma::code,
        o.x0_scale, o.seed, par);
  }
  throw usage_error("--spectrum is '" + text +
                    "', but must be isotropic:L, two-level:B,S, spiked:B,S..., power-law:A[,TR], "
                    "marchenko-pastur:C,S[,G], paper-design or paper-code");
}

int run_risk(const hsgd_options& o) {
  report rep;
  rep.tool = "dpkit hsgd risk";
  check_not_an_input("--output", o.output.file, "--spectrum-file", o.spectrum_file);
  check_not_an_input("--write-spectrum", o.write_spectrum, "--spectrum-file", o.spectrum_file);
  check_distinct_outputs({{"--output", o.output.file}, {"--write-spectrum", o.write_spectrum}});
  if (o.spectrum_file.empty() == o.spectrum.empty())
    throw usage_error("give one of --spectrum-file or --spectrum");
  volterra::problem p = build_problem(o, rep);
  const bool table = o.schedule.rfind("table:", 0) == 0;
  double gamma = NAN;
  if (o.learning_rate && o.sgd_step_size)
    throw usage_error("--learning-rate excludes --sgd-step-size (gamma = eta d)");
  if (o.learning_rate) gamma = *o.learning_rate;
  if (o.sgd_step_size) gamma = *o.sgd_step_size * double(p.d);
  if (!table && !std::isfinite(gamma))
    throw usage_error("--learning-rate gamma (or --sgd-step-size eta = gamma/d) is required");
  const volterra::schedule sched = build_schedule(o.schedule, gamma);
  std::vector<double> times;
  if (!o.times.empty()) {
    if (o.points > 0 || std::isfinite(o.horizon))
      throw usage_error("--times excludes --horizon/--points");
    times = parse_spec("--times", "t:" + o.times).second;
    for (double t : times)
      if (!(t >= 0)) throw usage_error("--times: " + format_number(t) + " is not >= 0");
    for (std::size_t i = 1; i < times.size(); ++i)
      if (times[i] < times[i - 1]) throw usage_error("--times must be nondecreasing");
  } else {
    if (!std::isfinite(o.horizon))
      throw usage_error("--horizon T (with --points N) or --times is required");
    const long long n = o.points > 0 ? o.points : 101;
    times = linspace(0.0, o.horizon, static_cast<std::size_t>(n));
  }
  // Written once every argument is known to be good (no file from a command that then fails).
  if (!o.write_spectrum.empty()) {
    std::ostringstream text;
    volterra::write_problem_csv(p, text);
    write_file("--write-spectrum", o.write_spectrum, text.str());
    std::cerr << "dpkit hsgd risk: wrote the problem to " << o.write_spectrum << "\n";
  }

  volterra::risk_curve c;
  if (o.solver == "auto") {
    c = volterra::solve_risk(p, sched, times, o.tolerance);
  } else if (o.solver == "ode") {
    volterra::ode_options op;
    op.relative_tolerance = o.tolerance;
    c = volterra::solve_ode_lift(p, sched, times, op);
  } else if (o.solver == "exponential") {
    volterra::exponential_options op;
    op.relative_tolerance = o.tolerance;
    c = volterra::solve_exponential(p, sched, times, op);
  } else {
    volterra::trapezoid_options op;
    op.relative_tolerance = o.tolerance;
    c = volterra::solve_product_trapezoid(p, sched, times, op);
  }
  rep.parameters["d"] = p.d;
  rep.parameters["groups"] = p.groups.size();
  rep.parameters["ridge"] = p.ridge;
  rep.parameters["label_noise"] = p.label_noise;
  rep.parameters["sigma"] = p.sigma;
  rep.parameters["schedule"] = sched.describe();
  rep.parameters["method"] = c.method;
  rep.parameters["termination"] = std::string(to_string(c.termination));
  rep.parameters["steps"] = c.steps;
  rep.parameters["max_kernel_norm"] = c.max_kernel_norm;
  rep.title = "noisy HSGD risk (LKSP25 eqs. (6)-(7)), d = " + std::to_string(p.d) + ", " +
              std::to_string(p.groups.size()) + " eigen-groups, " + sched.describe();
  rep.columns = {"t", "P", "R", "P_error", "R_error"};
  // The solvers leave NaN at the times they did not reach (a stop or a divergence): those are
  // not rows of the trajectory (a probe printed four rows of nan).
  std::size_t missing = 0;
  for (std::size_t i = 0; i < times.size(); ++i) {
    if (!std::isfinite(c.P[i])) {
      ++missing;
      continue;
    }
    rep.results.push_back({{"t", times[i]},
                           {"P", c.P[i]},
                           {"R", c.R[i]},
                           {"P_error", c.P_error[i]},
                           {"R_error", c.R_error[i]}});
  }
  if (missing > 0)
    rep.notes.push_back(std::to_string(missing) + " of " + std::to_string(times.size()) +
                        " output times not computed: the solver stopped before them (below)");
  rep.notes.push_back(
      "P = E[population risk of X_t], R = P + (ridge/2) E|X_t|^2; t = k/d (k SGD "
      "steps), SGD step eta = gamma/d; *_error: estimated absolute error");
  rep.notes.push_back("solver: " + c.method + ", " + std::to_string(c.steps) + " steps, " +
                      std::string(to_string(c.termination)) +
                      (c.message.empty() ? "" : ": " + c.message));
  if (sched.is_constant()) {
    const volterra::plateau_result pl = volterra::plateau(p, gamma);
    rep.parameters["kernel_norm"] = pl.kernel_norm;
    rep.parameters["stable"] = pl.stable;
    if (pl.stable) {
      rep.parameters["P_inf"] = pl.P_inf;
      rep.parameters["R_inf"] = pl.R_inf;
      rep.notes.push_back("plateau: P_inf = " + format_number(pl.P_inf) +
                          ", R_inf = " + format_number(pl.R_inf) +
                          ", K_inf = " + format_number(pl.kernel_norm) + " < 1 (stable)");
    } else {
      rep.notes.push_back(
          "DIVERGES: K_inf = " + format_number(pl.kernel_norm) +
          " >= 1, so P_t grows without bound (docs/volterra.md)" +
          (std::isfinite(pl.kernel_norm)
               ? "; lower the HSGD rate gamma (--learning-rate) below " +
                     format_number(gamma / pl.kernel_norm)
               : std::string()));
    }
  }
  emit(rep, o.output);
  if (c.termination == termination_type::failure) {
    std::cerr << "dpkit hsgd risk: the solver failed: " << c.message << "\n";
    return kExitNumericalFailure;
  }
  return kExitSuccess;
}

struct privacy_options {
  std::string spectrum = "paper-design";
  long long dim = 1000, n = 1500;
  double ridge = 0.1, label_noise = 1e-5, noise = 1.5, learning_rate = 50;
  std::uint64_t seed = 2;
  double x0_scale = 2;
  std::string dataset_file;
  std::vector<double> orders = {2};
  std::string release = "last";
  std::string mixture = "continuous";
  std::string times;
  long long points = 0;
  std::string pairs = "extreme:30";
  bool pairs_given = false;  // --pairs on the command line (else the default, fitted to n)
  std::string per_pair_file;
  std::vector<double> ys22_clips;
  double delta = 1e-5;
  double tolerance = 1e-6;
  output_options output;
};

// `count` distinct unordered pairs {i, j}, i < j < n, uniformly at random (stream 3 of the
// instance's seed; streams 0-2 draw the instance), in increasing order of (i, j).
std::vector<hsgd::record_pair> random_pairs(long long n, long long count, std::uint64_t seed) {
  const auto total = static_cast<std::size_t>(n) * static_cast<std::size_t>(n - 1) / 2;
  if (count < 1 || static_cast<std::size_t>(count) > total)
    throw usage_error("--pairs random:" + std::to_string(count) +
                      " needs 1 <= K <= n(n-1)/2 = " + std::to_string(total));
  random_stream rng(seed, 0, 3);
  std::vector<std::size_t> picks = rng.sample_without_replacement(total, std::size_t(count));
  std::sort(picks.begin(), picks.end());
  std::vector<hsgd::record_pair> out;
  out.reserve(picks.size());
  std::size_t row_start = 0;  // linear index of the pair (i, i + 1)
  long long i = 0;
  for (const std::size_t k : picks) {
    while (k >= row_start + static_cast<std::size_t>(n - 1 - i)) {
      row_start += static_cast<std::size_t>(n - 1 - i);
      ++i;
    }
    out.push_back({i, i + 1 + static_cast<long long>(k - row_start)});
  }
  return out;
}

// LKSP25 §5's worst-pair heuristic g(θ) = (b a − b′a′) − (a aᵀ − a′a′ᵀ + δI) v for a pair, with
// v = 𝟏_d (as printed) or v = x0 (the released code's mean at s = 0), and the exact mean gap
// ‖r a − r′a′‖ at s = 0 (r = b − aᵀx0; m₁(0⁺) − m₂(0⁺) over the step h, where δI cancels).
struct pair_gaps {
  double g_ones = 0, g_x0 = 0, exact = 0;
};

pair_gaps gaps_of(const hsgd::dataset& data,
                  const Eigen::VectorXd& x0,
                  double ridge,
                  const hsgd::record_pair& p) {
  const auto a = data.features.row(p.first).transpose();
  const auto a2 = data.features.row(p.second).transpose();
  const double b = data.labels[p.first], b2 = data.labels[p.second];
  const Eigen::VectorXd ones = Eigen::VectorXd::Ones(x0.size());
  const auto g = [&](const Eigen::VectorXd& v) {
    return ((b * a - b2 * a2) - (a * a.dot(v) - a2 * a2.dot(v) + ridge * v)).norm();
  };
  const double r = b - a.dot(x0), r2 = b2 - a2.dot(x0);
  return {g(ones), g(x0), (r * a - r2 * a2).norm()};
}

// LKSP25 §5's instance (as its released code draws it): x̃ iid U(0, 1/√d), x0 ~ N(0, s²I) from the
// stream (seed, 0, 0) in that order (as volterra::lksp25_experiment), then n records a_ij iid
// U(0, 1/√d) (stream 1) with labels aᵀx̃ + ξ, ξ ~ N(0, label_noise) clamped at ±3 sd (stream 2).
struct instance {
  Eigen::VectorXd x0, xtilde;
  hsgd::dataset data;
};

instance paper_instance(
    long long d, long long n, double x0_scale, std::uint64_t seed, double noise2) {
  volterra::lksp25_vectors start = volterra::lksp25_start(d, x0_scale, seed);
  random_stream feats(seed, 0, 1), labels(seed, 0, 2);
  instance out{std::move(start.x0), std::move(start.xtilde), {}};
  out.data.features = sim::uniform_design(std::size_t(n), std::size_t(d), feats);
  const double sd = std::sqrt(noise2);
  try {
    out.data.labels = sim::linear_labels(out.data.features, out.xtilde, sd, labels, 3 * sd);
  } catch (const argument_error& e) {
    // The library's limit is on the sd; --label-noise is a variance ("noise_sd is 1e+154" for
    // --label-noise 1e308 before).
    if (e.name() != "noise_sd") throw;
    throw usage_error("--label-noise is " + format_number(noise2) +
                      ", but must be at most 1e300 (a variance: the labels' noise sd, its "
                      "square root, is at most 1e150, beyond which the squared labels "
                      "overflow)");
  }
  return out;
}

// A dataset file: a header row, then rows a_1,...,a_d,b (RFC 4180, through core/csv.hpp).
hsgd::dataset read_dataset(const std::string& path) {
  const std::vector<csv_record> records = read_csv_records("--data", path);
  std::vector<std::vector<double>> rows;
  for (std::size_t k = 1; k < records.size(); ++k) {  // records[0]: the header
    const csv_record& rec = records[k];
    const std::string where = "--data: " + path + ":" + std::to_string(rec.line);
    std::vector<double> row;
    for (const std::string& cell : rec.cells) {
      // Underflow is read as strtod gives it, as read_csv does (dpkit writes subnormals exactly).
      const std::optional<double> v = parse_double(cell);
      if (!v || !std::isfinite(*v))
        throw usage_error(where + ": '" + cell + "' is not a finite number");
      row.push_back(*v);
    }
    if (row.size() < 2 || (!rows.empty() && row.size() != rows.front().size()))
      throw usage_error(
          where + ": " + std::to_string(row.size()) + " values, expected " +
          (rows.empty() ? std::string("at least 2") : std::to_string(rows.front().size())) +
          " (a_1..a_d, b)");
    rows.push_back(std::move(row));
  }
  if (rows.size() < 2) throw usage_error("--data: " + path + " needs at least two records");
  const auto n = static_cast<Eigen::Index>(rows.size());
  const auto d = static_cast<Eigen::Index>(rows.front().size() - 1);
  hsgd::dataset out;
  out.features.resize(n, d);
  out.labels.resize(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    for (Eigen::Index j = 0; j < d; ++j) out.features(i, j) = rows[std::size_t(i)][std::size_t(j)];
    out.labels[i] = rows[std::size_t(i)][std::size_t(d)];
  }
  return out;
}

// The cost estimate of docs/cli.md ("Long runs"): the continuous mixture's s-integral costs
// about (candidate pairs) × (Gauss–Kronrod intervals the horizon needs) evaluations, and the
// interval count is known only by integrating. Pilots at the last release time and the last
// order are timed, and the run projected from them: × pairs × orders ×
// Σt/t_max (an integral up to t costs about t/t_max of the last one; iterates and average are one
// integral per order) / the threads working on release times at once, but never less than the
// last time's integral. Said on stderr, terminal or not, when the projection is over 30 s.
// Skipped for fewer than 20 pairs, where the pilots would cost a noticeable share.
void announce_privacy_cost(const privacy_options& o,
                           const hsgd::gaussian_law& law,
                           const hsgd::dataset& data,
                           const std::vector<hsgd::record_pair>& pairs,
                           const std::vector<double>& times,
                           const hsgd::mixture_options& mo) {
  if (mo.positions != hsgd::position_mixture::continuous || times.empty() || pairs.size() < 20)
    return;
  const double t_max = *std::max_element(times.begin(), times.end());
  // A time beyond the horizon is refused by the run itself, which names its place in --times
  // (a pilot at t_max alone called it entry 1).
  if (!(t_max > 0) || !(t_max <= law.horizon())) return;
  // Two pilots, with 1 and with 4 pairs, separate the fixed cost of an integral (the law at
  // the quadrature nodes) from the cost per pair.
  // Timed in process CPU time: CPU time does not count the time another process held the core.
  // On a loaded machine a wall-clock p1 preempted more than p4 once made the per-pair cost a
  // quarter of its value and a 70 s run unannounced (the CLI fuzz, 4 jobs on 2 cores). The load
  // itself enters once, as the pilots' wall time over their CPU time (below).
  double pilot_wall = 0, pilot_cpu = 0;
  auto pilot = [&](std::size_t k) {
    const auto wall_start = std::chrono::steady_clock::now();
    const std::clock_t start = std::clock();
    const std::vector<hsgd::record_pair> some(pairs.begin(),
                                              pairs.begin() + static_cast<std::ptrdiff_t>(k));
    if (o.release == "last")
      (void)hsgd::last_iterate_rdp(law, data, some, std::span<const double>(&t_max, 1),
                                   o.orders.back(), mo);
    else if (o.release == "iterates")
      (void)hsgd::iterates_rdp(law, data, some, times, o.orders.back(), mo);
    else
      (void)hsgd::average_rdp(law, data, some, times, o.orders.back(), mo);
    const double cpu = double(std::clock() - start) / CLOCKS_PER_SEC;
    pilot_cpu += cpu;
    pilot_wall +=
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
    return cpu;
  };
  // Each pilot twice, the faster kept (the first may pay for cold caches). Where p4 is not
  // clearly above p1 (within 10 %: timing noise), the per-pair cost is taken as p4/4, its upper
  // end (all of p4's cost per pair).
  const double p1 = std::min(pilot(1), pilot(1)), p4 = std::min(pilot(4), pilot(4));
  const double per_pair = p4 - p1 > 0.1 * p4 ? (p4 - p1) / 3 : p4 / 4;
  const double fixed = std::max(0.0, p1 - per_pair);
  // Release times run in parallel, but no faster than the longest one (the last).
  double share = 1;
  if (o.release == "last") {
    share = 0;
    for (double t : times) share += t / t_max;
    const double parallel = std::min<double>(
        double(times.size()), double(std::max(1, sim::monte_carlo_default_threads())));
    share = std::max(1.0, share / parallel);
  }
  // The machine's load as the pilots met it: a run on a core shared with another process takes
  // that much longer in wall time. (Pilots with several release times may run on more threads
  // than one, CPU time above wall time; the factor is then 1 and the projection errs high.)
  const double load = pilot_cpu > 0 ? std::max(1.0, pilot_wall / pilot_cpu) : 1.0;
  const double projected =
      (fixed + per_pair * double(pairs.size())) * double(o.orders.size()) * share * load;
  if (projected <= 30) return;
  std::cerr << "dpkit hsgd privacy: about " << duration_text(projected) << " for " << pairs.size()
            << " candidate pairs x " << times.size() << " release time"
            << (times.size() == 1 ? "" : "s") << " x " << o.orders.size() << " order"
            << (o.orders.size() == 1 ? "" : "s")
            << " (projected from pilot integrals of 1 and 4 pairs: " << duration_text(pilot_wall)
            << "; the horizon T = n/d = " << format_number(law.horizon())
            << " sets the cost: fewer --pairs, --points or orders, or --mixture discrete, "
               "are faster)\n";
}

int run_privacy(const privacy_options& o) {
  report rep;
  rep.tool = "dpkit hsgd privacy";
  check_not_an_input("--output", o.output.file, "--data", o.dataset_file);
  check_not_an_input("--per-pair", o.per_pair_file, "--data", o.dataset_file);
  check_distinct_outputs({{"--output", o.output.file}, {"--per-pair", o.per_pair_file}});
  if (!o.ys22_clips.empty() && o.release != "last")
    throw usage_error("--ys22-clip goes with --release last (the bound is for the last iterate)");
  const volterra::problem_parameters par{o.ridge, o.label_noise, o.noise};
  if (!(o.noise > 0))
    throw usage_error("--noise-std is " + format_number(o.noise) + ", but must be > 0");
  instance inst = paper_instance(o.dim, o.n, o.x0_scale, o.seed, o.label_noise);
  if (!o.dataset_file.empty()) {
    inst.data = read_dataset(o.dataset_file);
    if (inst.data.features.cols() != o.dim)
      throw usage_error("--data has d = " + std::to_string(inst.data.features.cols()) +
                        " features, but --dimension is " + std::to_string(o.dim));
  }
  const long long n = inst.data.features.rows();
  const double horizon = double(n) / double(o.dim);  // one pass: T = n/d
  // --ys22-clip: [YS22]'s bound for the same pass with clipping at each c (hsgd/ys22.hpp):
  // b = 1, m = n batches, η = γ/d, λ = δ (each record's ridge loss is δ-strongly convex),
  // σ as given; the step condition η < 2/(δ + β), β = max‖a‖² + δ, checked on the data.
  hsgd::ys22_setting ys;
  if (!o.ys22_clips.empty()) {
    if (o.orders.size() != 1)
      throw usage_error("--ys22-clip needs exactly one --orders value (the bound is per order)");
    ys.alpha = o.orders.front();
    ys.noise = o.noise;
    ys.step = o.learning_rate / double(o.dim);
    ys.strong_convexity = o.ridge;
    ys.batches = n;
    const double beta = inst.data.features.rowwise().squaredNorm().maxCoeff() + o.ridge;
    if (!(o.ridge > 0) || !hsgd::ys22_step_ok(ys.step, o.ridge, beta))
      throw usage_error(
          "--ys22-clip: Ye & Shokri's bound needs ridge > 0 and the SGD step eta "
          "= gamma/d = " +
          format_number(ys.step) + " < 2/(ridge + beta) = " + format_number(2 / (o.ridge + beta)) +
          " (beta = max |a|^2 + ridge)");
  }
  const volterra::schedule gamma = volterra::schedule::constant(o.learning_rate);
  hsgd::gaussian_law law = [&] {
    if (o.spectrum == "paper-design")
      return hsgd::gaussian_law::lksp25_design(inst.x0, inst.xtilde, par, gamma, horizon);
    if (o.spectrum == "paper-code") {
      const std::vector<double> lambda(std::size_t(o.dim), 1 / (12.0 * double(o.dim)));
      return hsgd::gaussian_law(hsgd::eigenbasis::identity(o.dim), lambda, inst.x0, inst.xtilde,
                                par, gamma, horizon);
    }
    // empirical: Σ = (1/n)Σ a aᵀ of the dataset (O(d³) eigendecomposition)
    const Eigen::MatrixXd sigma =
        inst.data.features.transpose() * inst.data.features / static_cast<double>(n);
    return hsgd::gaussian_law::from_covariance(sigma, inst.x0, inst.xtilde, par, gamma, horizon);
  }();
  // candidate pairs
  std::vector<hsgd::record_pair> pairs;
  const auto [kind, v] = parse_spec("--pairs", o.pairs);
  if (kind == "all") {
    pairs = hsgd::all_pairs(n);
  } else if (kind == "extreme" && v.size() == 1) {
    // The default screen, extreme:30, takes at most half the dataset at each end (a smaller
    // dataset is a valid input, not the user's error); a K the user gave must fit.
    long long k = spec_integer("K in --pairs extreme:K", v[0], 1, 9007199254740992LL);
    if (!o.pairs_given) k = std::min(k, n / 2);
    if (2 * k > n)
      throw usage_error("--pairs is extreme:" + std::to_string(k) + ", which takes " +
                        std::to_string(k) + " records at each end of the labels, but the " +
                        "dataset has " + std::to_string(n) +
                        " (K must be <= " + std::to_string(n / 2) + ")");
    pairs = hsgd::extreme_label_pairs(inst.data, k);
  } else if (kind == "proxy" && v.size() == 1) {
    pairs = hsgd::top_pairs_by_proxy(law, inst.data, hsgd::all_pairs(n), 0.0,
                                     spec_integer("K in --pairs proxy:K", v[0], 1,
                                                  9007199254740992LL));
  } else if (kind == "pair" && v.size() == 2) {
    const long long i = spec_integer("I in --pairs pair:I,J", v[0], 0, n - 1);
    const long long j = spec_integer("J in --pairs pair:I,J", v[1], 0, n - 1);
    if (i == j)
      throw usage_error("--pairs is pair:" + std::to_string(i) + "," + std::to_string(j) +
                        ", but I and J must differ (a neighbouring pair: records I and J)");
    pairs = {{i, j}};
  } else if (kind == "random" && v.size() == 1) {
    pairs = random_pairs(n, spec_integer("K in --pairs random:K", v[0], 1, 9007199254740992LL),
                         o.seed);
  } else {
    throw usage_error("--pairs is '" + o.pairs +
                      "', but must be extreme:K, proxy:K, random:K, all or pair:I,J");
  }
  // release times
  std::vector<double> times;
  if (!o.times.empty()) {
    times = parse_spec("--times", "t:" + o.times).second;
  } else {
    const long long k = o.points > 0 ? o.points : 30;
    for (long long i = 1; i <= k; ++i) times.push_back(horizon * double(i) / double(k));
  }
  hsgd::mixture_options mo;
  mo.relative_tolerance = o.tolerance;
  mo.positions = o.mixture == "discrete" ? hsgd::position_mixture::discrete
                                         : hsgd::position_mixture::continuous;
  mo.per_pair = !o.per_pair_file.empty();
  // --per-pair: one row per (release, pair) with each order's ε_α of the pair alone
  std::ostringstream per_pair_csv;
  per_pair_csv << "t,first,second,b_first,b_second,g_ones,g_x0,gap_exact";
  for (double a : o.orders) per_pair_csv << ",eps_alpha=" << format_number(a);
  per_pair_csv << "\n";
  std::vector<pair_gaps> gaps;
  if (mo.per_pair)
    for (const auto& p : pairs) gaps.push_back(gaps_of(inst.data, inst.x0, o.ridge, p));
  const auto add_per_pair_rows = [&](double t, const std::vector<const hsgd::rdp_value*>& vals) {
    for (std::size_t q = 0; q < pairs.size(); ++q) {
      std::vector<std::string> cells = {csv_number(t),
                                        std::to_string(pairs[q].first),
                                        std::to_string(pairs[q].second),
                                        csv_number(inst.data.labels[pairs[q].first]),
                                        csv_number(inst.data.labels[pairs[q].second]),
                                        csv_number(gaps[q].g_ones),
                                        csv_number(gaps[q].g_x0),
                                        csv_number(gaps[q].exact)};
      for (const hsgd::rdp_value* val : vals) cells.push_back(csv_number(val->pair_epsilons[q]));
      per_pair_csv << csv_row(cells) << "\n";
    }
  };
  rep.parameters = {{"spectrum", o.spectrum},
                    {"d", o.dim},
                    {"n", n},
                    {"horizon", horizon},
                    {"ridge", o.ridge},
                    {"label_noise", o.label_noise},
                    {"sigma", o.noise},
                    {"gamma", o.learning_rate},
                    {"release", o.release},
                    {"mixture", o.mixture},
                    {"pairs", o.pairs},
                    {"candidate_pairs", pairs.size()},
                    {"orders", o.orders},
                    {"delta", o.delta},
                    {"seed", o.seed}};
  std::vector<std::string> order_cols;
  for (double a : o.orders) order_cols.push_back("eps_alpha=" + format_number(a));
  announce_privacy_cost(o, law, inst.data, pairs, times, mo);
  const elapsed_ticker ticker("dpkit hsgd privacy: " + std::to_string(pairs.size()) +
                              " candidate pairs");
  if (o.release == "last") {
    std::vector<std::vector<double>> eps(o.orders.size());
    std::vector<hsgd::rdp_trajectory> trajectories;
    for (std::size_t k = 0; k < o.orders.size(); ++k) {
      hsgd::rdp_trajectory tr =
          hsgd::last_iterate_rdp(law, inst.data, pairs, times, o.orders[k], mo);
      if (tr.termination == termination_type::failure) throw numerical_failure(tr.message);
      for (const auto& val : tr.values) eps[k].push_back(val.epsilon);
      trajectories.push_back(std::move(tr));
    }
    if (mo.per_pair)
      for (std::size_t i = 0; i < times.size(); ++i) {
        std::vector<const hsgd::rdp_value*> vals;
        for (const auto& tr : trajectories) vals.push_back(&tr.values[i]);
        add_per_pair_rows(times[i], vals);
      }
    rep.columns = {"t", "k"};
    rep.columns.insert(rep.columns.end(), order_cols.begin(), order_cols.end());
    rep.columns.push_back("epsilon");
    rep.columns.push_back("kind");  // of eps_alpha and epsilon (the ys22 columns are bounds)
    for (double c : o.ys22_clips) rep.columns.push_back("ys22_c=" + format_number(c));
    for (std::size_t i = 0; i < times.size(); ++i) {
      json row = {{"t", times[i]}, {"k", std::llround(times[i] * double(o.dim))}};
      for (double c : o.ys22_clips) {
        ys.clip = c;
        const long long k = std::min(n, std::llround(times[i] * double(o.dim)));
        row["ys22_c=" + format_number(c)] = hsgd::ys22_one_pass_rdp(ys, k);
      }
      std::vector<double> at;
      for (std::size_t k = 0; k < o.orders.size(); ++k) {
        row[order_cols[k]] = std::isfinite(eps[k][i]) ? json(eps[k][i]) : json(nullptr);
        at.push_back(eps[k][i]);
      }
      const auto e = hsgd::epsilon_delta(o.orders, at, o.delta);
      row["epsilon"] = std::isfinite(e.value) ? json(e.value) : json(nullptr);
      row["kind"] = std::string(dpkit::to_string(trajectories.front().values[i].kind));
      rep.results.push_back(row);
    }
  } else {
    rep.columns = {"release", "t_J"};
    rep.columns.insert(rep.columns.end(), order_cols.begin(), order_cols.end());
    rep.columns.push_back("epsilon");
    rep.columns.push_back("kind");
    json row = {{"release", o.release}, {"t_J", times.back()}};
    std::vector<double> at;
    std::vector<hsgd::rdp_value> values;
    for (std::size_t k = 0; k < o.orders.size(); ++k) {
      hsgd::rdp_value val = o.release == "iterates"
                                ? hsgd::iterates_rdp(law, inst.data, pairs, times, o.orders[k], mo)
                                : hsgd::average_rdp(law, inst.data, pairs, times, o.orders[k], mo);
      if (val.termination == termination_type::failure) throw numerical_failure(val.message);
      row[order_cols[k]] = std::isfinite(val.epsilon) ? json(val.epsilon) : json(nullptr);
      at.push_back(val.epsilon);
      values.push_back(std::move(val));
    }
    if (mo.per_pair) {
      std::vector<const hsgd::rdp_value*> vals;
      for (const auto& val : values) vals.push_back(&val);
      add_per_pair_rows(times.back(), vals);
    }
    const auto e = hsgd::epsilon_delta(o.orders, at, o.delta);
    row["epsilon"] = std::isfinite(e.value) ? json(e.value) : json(nullptr);
    row["kind"] = std::string(dpkit::to_string(values.front().kind));
    rep.results.push_back(row);
  }
  if (!o.ys22_clips.empty())
    rep.notes.push_back(
        "ys22_c=C: Ye & Shokri's (YS22) Renyi DP bound of order alpha for the same one pass of "
        "noisy SGD with per-example gradients clipped at C (b = 1, eta = gamma/d, "
        "lambda = ridge; sensitivity 2C, their noise sqrt(2 eta sigma_YS^2) = eta sigma), as "
        "their released code evaluates it: a worst-case BOUND for clipped SGD (the ridge "
        "outside the clipping), beside the data-dependent approximation for unclipped SGD");
  if (mo.per_pair) {
    write_file("--per-pair", o.per_pair_file, per_pair_csv.str());
    std::cerr << "dpkit hsgd privacy: wrote " << pairs.size() << " pairs' own eps_alpha to "
              << o.per_pair_file << "\n";
    rep.notes.push_back(
        "--per-pair " + o.per_pair_file +
        ": each candidate pair's own eps_alpha (the larger of its two orders), with LKSP25's "
        "g(theta) at v = 1_d (g_ones, as printed) and v = x0 (g_x0, the released code's), and "
        "the exact mean gap |r a - r' a'| at s = 0 (gap_exact)");
  }
  rep.title =
      "HSGD surrogate's Renyi divergence, an approximation, not a DP guarantee (LKSP25 Thm " +
      std::string(o.release == "last"       ? "4.3"
                  : o.release == "iterates" ? "4.4"
                                            : "4.5") +
      "), " + o.release + " release, " + std::to_string(pairs.size()) +
      " candidate pairs, d = " + std::to_string(o.dim) + ", n = " + std::to_string(n);
  rep.notes.insert(
      rep.notes.begin(),
      {std::string(
           o.mixture == "discrete"
               ? "eps_alpha: Renyi DP of order alpha with the record at SGD step l ~ U{1..n} "
                 "(entering at s = (l-1)/d, an exact sum)"
               : "eps_alpha: Renyi DP of order alpha with the record position s ~ U(0, T), "
                 "T = n/d") +
           ", sup over the candidate pairs (both orders); epsilon: at delta = " +
           format_number(o.delta) + " by the best RDP conversion",
       std::string(hsgd::kPrivacyCaveat),
       "argument order of the Renyi divergence and the pre-s blocks of Thms 4.4/4.5 are the "
       "corrected ones (docs/findings.md)"});
  emit(rep, o.output);
  return kExitSuccess;
}

}  // namespace

void register_hsgd(CLI::App& app, int& exit_code) {
  CLI::App* top = app.add_subcommand(
      "hsgd",
      "One-pass noisy SGD on ridge least squares through noisy HSGD (LKSP25): risk "
      "trajectories from the Volterra equations");
  top->require_subcommand(1);
  auto o = std::make_shared<hsgd_options>();
  CLI::App* sub = top->add_subcommand(
      "risk", "P_t and R_t of noisy HSGD on a grid of t, with the plateau and K_inf");
  sub->add_option("--spectrum-file", o->spectrum_file,
                  "CSV: '# d: ...', '# ridge: ...', '# label_noise: ...', '# sigma: ...' header "
                  "lines, then columns eigenvalue,multiplicity,e0_sq,xstar_sq,e0_xstar "
                  "(docs/volterra.md)")
      ->check(CLI::ExistingFile)
      ->type_name("FILE");
  sub->add_option("--spectrum", o->spectrum,
                  "A covariance family: isotropic:L, two-level:BULK,SPIKE, spiked:BULK,S1[,S2..], "
                  "power-law:A[,TRACE], "
                  "marchenko-pastur:RATIO,SCALE[,GROUPS], paper-design (LKSP25's true "
                  "Sigma = I/(12d) + 11'/(4d)) or paper-code (the released code's I/(12d))")
      ->type_name("FAMILY");
  sub->add_option("--dimension", o->dim, "Dimension d (with --spectrum; checked against the file)")
      ->check(integer_at_least(1));
  sub->add_option("--ridge", o->ridge, "Ridge delta (overrides the file)")->check(real_at_least(0));
  sub->add_option("--label-noise", o->label_noise, "Label-noise variance E w^2")
      ->check(real_at_least(0));
  sub->add_option("--noise-std", o->noise, "DP noise sigma of Algorithm 1 (g = grad + sigma Z)")
      ->check(real_at_least(0));
  sub->add_option("--learning-rate", o->learning_rate,
                  "HSGD rate gamma (the SGD step is eta = gamma/d)")
      ->check(real_in_open_interval(0, 1e300));
  sub->add_option("--sgd-step-size", o->sgd_step_size, "SGD step eta instead (gamma = eta d)")
      ->check(real_in_open_interval(0, 1e300));
  sub->add_option("--schedule", o->schedule,
                  "constant, step:FACTOR,INTERVAL, polynomial:TIME_SCALE,POWER, "
                  "cosine:GAMMA_MIN,HORIZON (gamma scaled from --learning-rate) or "
                  "table:0,G0,T1,G1,... (piecewise linear)")
      ->capture_default_str();
  sub->add_option("--horizon", o->horizon, "Last time T (t = k/d); with --points")
      ->check(real_at_least(0));
  // At most 1e7, as tradeoff's: the table holds every point (1e9 asked for gigabytes first).
  sub->add_option("--points", o->points,
                  "Grid points from 0 to T inclusive (default 101), at most 1e7")
      ->check(integer_at_least(1, 10000000));
  sub->add_option("--times", o->times, "Explicit times t1,t2,... instead of a grid")
      ->type_name("LIST");
  sub->add_option("--start-error", o->start_error,
                  "Families: |x0 - x~|^2 (spread over eigen-groups by multiplicity)")
      ->check(real_at_least(0))
      ->capture_default_str();
  sub->add_option("--target-norm", o->target_norm, "Families: |x~|^2")
      ->check(real_at_least(0))
      ->capture_default_str();
  sub->add_option("--start-target", o->start_target, "Families: <x0 - x~, x~>")
      ->check(real_finite())
      ->capture_default_str();
  sub->add_option("--seed", o->seed, "paper-design/paper-code: seed of the x~, x0 draws")
      ->check(integer_at_least(0, kMaxExactInteger))
      ->capture_default_str();
  sub->add_option("--x0-scale", o->x0_scale,
                  "paper-design/paper-code: x0 ~ N(0, s^2 I) (2 in the released code, 1 in the "
                  "paper)")
      ->check(real_at_least(0))
      ->capture_default_str();
  sub->add_option("--solver", o->solver,
                  "auto (ODE lift: dopri5 when non-stiff, else the exponential stepper), ode, "
                  "exponential, trapezoid (the direct Volterra solver, O(N^2))")
      ->check(CLI::IsMember({"auto", "ode", "exponential", "trapezoid"}))
      ->capture_default_str();
  sub->add_option("--write-spectrum", o->write_spectrum,
                  "Also write the problem as a spectrum file (e.g. from a family, to edit)")
      ->check(writable_file_validator())
      ->type_name("FILE");
  sub->add_option("--tolerance", o->tolerance, "Relative accuracy")
      ->check(real_in_open_interval(0, 1))
      ->capture_default_str();
  add_output_options(sub, o->output);
  sub->footer(
      "Examples (LKSP25 §5: d = 1000, gamma = eta d = 50, ridge 0.1, sigma 1.5):\n"
      "  dpkit hsgd risk --spectrum paper-design --dimension 1000 --ridge 0.1 --label-noise 1e-5 "
      "--noise-std 1.5 --learning-rate 50 --horizon 1.5 --points 16\n"
      "  dpkit hsgd risk --spectrum power-law:1.5 --dimension 1000 --start-error 1 --noise-std 1 "
      "--learning-rate 1 --schedule polynomial:2,1 --times 1,10,100\n"
      "Time t = k/d; docs/volterra.md has the equations and the file format.");
  sub->callback([o, &exit_code] { exit_code = run_risk(*o); });

  auto q = std::make_shared<privacy_options>();
  CLI::App* priv = top->add_subcommand(
      "privacy",
      "Renyi DP trajectory of noisy HSGD for neighbouring datasets (LKSP25 Thms 4.3-4.5): "
      "eps_alpha(t) and (epsilon, delta); labelled approximation");
  priv->add_option("--spectrum", q->spectrum,
                   "paper-design (the true Sigma of LKSP25's design), paper-code (the released "
                   "code's I/(12d)) or empirical ((1/n) sum a a' of the dataset)")
      ->transform([](std::string s) { return canonical_family(s); })
      ->check(CLI::IsMember({"paper-design", "paper-code", "empirical"}))
      ->capture_default_str();
  priv->add_option("--dimension", q->dim, "Dimension d")
      ->check(integer_at_least(2))
      ->capture_default_str();
  priv->add_option("--dataset-size", q->n,
                   "Records of the generated dataset (LKSP25 §5's design; one pass: T = n/d)")
      ->check(integer_at_least(2))
      ->capture_default_str();
  priv->add_option("--data", q->dataset_file,
                   "CSV of records instead: a header row, then a_1,...,a_d,b per row")
      ->check(CLI::ExistingFile)
      ->type_name("FILE");
  priv->add_option("--ridge", q->ridge, "Ridge delta")
      ->check(real_at_least(0))
      ->capture_default_str();
  priv->add_option("--label-noise", q->label_noise, "Label-noise variance")
      ->check(real_at_least(0))
      ->capture_default_str();
  priv->add_option("--noise-std", q->noise, "DP noise sigma")
      ->check(real_in_left_open_interval(0, hsgd::kLargestPrivacyNoise))
      ->capture_default_str();
  priv->add_option("--learning-rate", q->learning_rate, "HSGD rate gamma = eta d (constant)")
      ->check(real_in_half_open_interval(hsgd::kSmallestPrivacyRate, 1e300))
      ->capture_default_str();
  priv->add_option("--orders", q->orders, "Renyi order(s) alpha > 1 (several: best conversion)")
      ->delimiter(',')
      ->check(real_in_open_interval(1, 1e6))
      ->capture_default_str();
  priv->add_option("--release", q->release,
                   "last (the last iterate at each time), iterates (X_t1..X_tJ jointly) or "
                   "average ((1/J) sum X_tj)")
      ->check(CLI::IsMember({"last", "iterates", "average"}))
      ->capture_default_str();
  priv->add_option("--mixture", q->mixture,
                   "Position of the differing record: continuous (s ~ U(0, T), the paper's "
                   "integral, adaptive quadrature) or discrete (SGD step l ~ U{1..n}, an exact "
                   "sum over s = (l-1)/d; differs by O(1/d); needs n = T d whole)")
      ->check(CLI::IsMember({"continuous", "discrete"}))
      ->capture_default_str();
  priv->add_option("--times", q->times, "Release times t (default: --points equally spaced to T)")
      ->type_name("LIST");
  // Each release time is a divergence integral per candidate pair: 1e5 at most (1e9 ran
  // without an end in sight).
  priv->add_option("--points", q->points,
                   "Equally spaced release times in (0, T] (default 30), at most 1e5")
      ->check(integer_at_least(1, 100000));
  priv->add_option("--pairs", q->pairs,
                   "Candidate neighbouring pairs: extreme:K (K largest x K smallest labels, the "
                   "released code's screen; the default takes K = min(30, n/2)), proxy:K (top K "
                   "by the mean-gap proxy), random:K (K distinct pairs drawn with --seed; the "
                   "released code's Fig. 1(b) sample), all, or pair:I,J")
      ->capture_default_str()
      ->each([q](const std::string&) { q->pairs_given = true; });
  priv->add_option("--ys22-clip", q->ys22_clips,
                   "Also give Ye & Shokri's last-iterate RDP bound for the same pass with "
                   "gradients clipped at each C (LKSP25 Fig. 3(b); one --orders value; release "
                   "last)")
      ->delimiter(',')
      ->check(real_greater_than(0))
      ->type_name("C1,C2,...");
  priv->add_option("--per-pair", q->per_pair_file,
                   "Also write each candidate pair's own eps_alpha to this CSV (one row per "
                   "release time and pair, with LKSP25's g(theta) and the exact mean gap: "
                   "Fig. 1(b)'s scatter; docs/hsgd.md)")
      ->type_name("FILE");
  priv->add_option("--seed", q->seed, "Seed of the generated instance")
      ->check(integer_at_least(0, kMaxExactInteger))
      ->capture_default_str();
  priv->add_option("--x0-scale", q->x0_scale, "x0 ~ N(0, s^2 I) (2 in the code, 1 in the paper)")
      ->check(real_at_least(0))
      ->capture_default_str();
  priv->add_option("--tolerance", q->tolerance, "Relative accuracy of the s-integral")
      ->check(real_in_open_interval(0, 1))
      ->capture_default_str();
  add_delta_option(priv, q->delta, false);
  add_output_options(priv, q->output);
  priv->footer(
      "Example (LKSP25 Fig. 2(b): d = 1000, n = 1500, 900 candidate pairs, 30 times):\n"
      "  dpkit hsgd privacy --noise-std 1.5 --orders 2\n"
      "  dpkit hsgd privacy --spectrum paper-code --noise-std 1 --orders 2,4,8 --delta 1e-5\n"
      "Fig. 1(b), each pair's own loss at t = T/2, and Fig. 3(b), Ye & Shokri's bound beside:\n"
      "  dpkit hsgd privacy --times 0.75 --pairs random:1000 --per-pair pairs.csv\n"
      "  dpkit hsgd privacy --noise-std 1.5 --orders 2 --ys22-clip 3,5,7\n"
      "docs/hsgd.md says what these numbers are (and are not).");
  priv->callback([q, &exit_code] { exit_code = run_privacy(*q); });
}

}  // namespace dpkit::cli
