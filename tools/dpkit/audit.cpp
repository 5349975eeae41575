// dpkit audit — check a user's privacy claim about a training run against Monte Carlo runs of
// it, as one line of a CI script: the training setting in the vocabulary of `dpkit simulate`
// (simulate_setting.hpp), a claim (μ-GDP, (ε, δ), or a tradeoff curve from a CSV file), and
// the verdict of the threshold tests of sim/claim_audit.hpp — exit 3 when the claim is violated.
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <limits>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "audit_scores.hpp"
#include "baseline.hpp"
#include "cli.hpp"
#include "commands.hpp"
#include "dpkit/core/csv.hpp"
#include "dpkit/core/parse.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/sim/algorithm.hpp"
#include "dpkit/sim/claim_audit.hpp"
#include "dpkit/sim/monte_carlo.hpp"
#include "figure.hpp"
#include "simulate_setting.hpp"

namespace dpkit::cli {
namespace {

struct audit_options {
  simulate_options setting;
  std::optional<double> mu, epsilon, delta;
  std::string tradeoff_file, risk_file, renyi_file;
  std::string direction;  // comma-separated v of the statistic <X_T, v> (empty: --coordinate)
  double confidence = 0.95;
  long long thresholds = 24;
  long long coordinate = 0;
  std::string tests_file, figure_file, baseline_file;
  score_audit_options scores;  ///< --scores: a real run's canary scores (audit_scores.hpp)
};

// ---- regression baselines (baseline.hpp): a stored `dpkit audit --format json` of the same
// claim kind; its result row.
json read_baseline(const std::string& path, const char* kind) {
  const json doc = read_json_output("--baseline", path, "dpkit audit");
  if (doc["results"].empty() || !doc["results"][0].is_object())
    throw usage_error("--baseline: " + path + ": no result row");
  const json& row = doc["results"][0];
  const bool risk = row.value("claim", "").rfind("a risk bound", 0) == 0;
  if (risk != (std::string(kind) == "risk"))
    throw usage_error("--baseline: " + path + " holds a " +
                      (risk ? std::string("risk") : std::string("privacy")) +
                      " audit, but this run audits a " + kind + " claim");
  return row;
}

double number_at(const json& row, const char* key, const std::string& path) {
  if (!row.contains(key) || !row[key].is_number())
    throw usage_error("--baseline: " + path + ": no number '" + key + "' in its result");
  return row[key].get<double>();
}

// Adds the drift check to the result row and the notes; true when something drifted.
bool report_drift(const drift_check& d, const std::string& path, json& row, report& rep) {
  row["baseline"] = {{"file", path}, {"drift", d.drift}, {"checks", d.rows}};
  rep.columns.push_back("drift");
  row["drift"] = d.drift;
  rep.notes.push_back(d.drift ? "baseline " + path + ": DRIFT — " + d.summary + " (exit 3)"
                              : "baseline " + path + ": no drift beyond the runs' noise (" +
                                    std::to_string(d.rows.size()) + " estimate(s) compared)");
  return d.drift;
}

// A claim file: a CSV table (a header row; '#' comments) with two named columns, each found
// under any of its names. Bad content is a usage error "<flag>: PATH[:LINE]: ..." naming the
// file and the line.
struct claim_table {
  std::string flag, path;
  std::vector<csv_record> rows;  // the data rows (the header removed)
  std::size_t first = 0, second = 0;

  [[nodiscard]] std::string where(const csv_record& r) const {
    return flag + ": " + path + ":" + std::to_string(r.line) + ": ";
  }
  [[nodiscard]] const std::string& cell(const csv_record& r,
                                        std::size_t c,
                                        const char* name) const {
    if (c >= r.cells.size()) throw usage_error(where(r) + "no " + name + " value");
    return r.cells[c];
  }
  [[nodiscard]] double number(const csv_record& r, std::size_t c, const char* name) const {
    const std::string& text = cell(r, c, name);
    // A data file's number: underflow is read as strtod gives it, as read_csv does (dpkit writes
    // subnormals exactly); text, inf and nan are refused.
    const std::optional<double> v = parse_double(text);
    if (!v || !std::isfinite(*v))
      throw usage_error(where(r) + name + " is '" + text + "', but must be a finite number");
    return *v;
  }
};

claim_table read_claim_table(const std::string& flag,
                             const std::string& path,
                             std::initializer_list<const char*> first,
                             std::initializer_list<const char*> second,
                             const std::string& columns_in_words) {
  claim_table t{flag, path, read_csv_records(flag, path), 0, 0};
  if (t.rows.empty()) throw usage_error(flag + ": " + path + ": no header row");
  const csv_record header = t.rows.front();
  t.rows.erase(t.rows.begin());
  auto find = [&](std::initializer_list<const char*> names) {
    for (std::size_t c = 0; c < header.cells.size(); ++c)
      for (const char* name : names)
        if (header.cells[c] == name) return c;
    throw usage_error(flag + ": " + path + ":" + std::to_string(header.line) +
                      ": the header must name the columns " + columns_in_words);
  };
  t.first = find(first);
  t.second = find(second);
  return t;
}

// The claim's tradeoff curve: columns alpha and beta.
sim::privacy_claim curve_from_csv(const std::string& path) {
  const claim_table t = read_claim_table("--tradeoff", path, {"alpha"}, {"beta"}, "alpha and beta");
  std::vector<double> alpha, beta;
  for (const csv_record& rec : t.rows) {
    const std::string where = t.where(rec);
    alpha.push_back(t.number(rec, t.first, "alpha"));
    beta.push_back(t.number(rec, t.second, "beta"));
    const std::size_t i = alpha.size() - 1;
    if (!(alpha[i] >= 0 && alpha[i] <= 1 && beta[i] >= 0 && beta[i] <= 1))
      throw usage_error(where + "(alpha, beta) = (" + format_number(alpha[i]) + ", " +
                        format_number(beta[i]) + "), but both must be in [0, 1]");
    if (i > 0 && !(alpha[i] > alpha[i - 1]))
      throw usage_error(where + "alpha = " + format_number(alpha[i]) +
                        ", but must increase from row to row (previous " +
                        format_number(alpha[i - 1]) + ")");
    if (i > 0 && !(beta[i] <= beta[i - 1]))
      throw usage_error(where + "beta = " + format_number(beta[i]) +
                        ", but a tradeoff curve is non-increasing (previous " +
                        format_number(beta[i - 1]) + ")");
  }
  if (alpha.size() < 2)
    throw usage_error("--tradeoff: " + path + ": " + std::to_string(alpha.size()) +
                      " point(s), but a curve needs at least 2");
  return sim::privacy_claim::tradeoff_curve(std::move(alpha), std::move(beta));
}

// A risk bound: columns t (or step) and bound.
sim::risk_claim risk_from_csv(const std::string& path, long long steps) {
  const claim_table tab =
      read_claim_table("--risk-bound", path, {"t", "step"}, {"bound"}, "t (or step) and bound");
  std::vector<long> t;
  std::vector<double> b;
  for (const csv_record& rec : tab.rows) {
    const std::string where = tab.where(rec);
    const std::string& ts = tab.cell(rec, tab.first, "t");
    const long long step = parse_integer(ts).value_or(-1);
    if (step < 0)
      throw usage_error(where + "t is '" + ts + "', but must be a whole number of steps >= 0");
    if (step > steps)
      throw usage_error(where + "t is " + ts + ", but the run has --steps " +
                        std::to_string(steps));
    if (!t.empty() && step <= t.back())
      throw usage_error(where + "t is " + ts + ", but must increase from row to row");
    t.push_back(static_cast<long>(step));
    b.push_back(tab.number(rec, tab.second, "bound"));
  }
  if (t.empty()) throw usage_error("--risk-bound: " + path + ": no rows");
  return sim::risk_claim::at_steps(std::move(t), std::move(b));
}

// A Rényi-DP claim: columns order (or alpha) and epsilon.
sim::privacy_claim renyi_from_csv(const std::string& path) {
  const claim_table t = read_claim_table("--renyi", path, {"order", "alpha"}, {"epsilon"},
                                         "order (or alpha) and epsilon");
  std::vector<double> orders, eps;
  for (const csv_record& rec : t.rows) {
    const std::string where = t.where(rec);
    const double o = t.number(rec, t.first, "order"), e = t.number(rec, t.second, "epsilon");
    if (!(o > 1)) throw usage_error(where + "order is " + format_number(o) + ", but must be > 1");
    if (!(e >= 0))
      throw usage_error(where + "epsilon is " + format_number(e) + ", but must be >= 0");
    if (!orders.empty() && !(o > orders.back()))
      throw usage_error(where + "order is " + format_number(o) +
                        ", but must increase from row to row");
    orders.push_back(o);
    eps.push_back(e);
  }
  if (orders.empty()) throw usage_error("--renyi: " + path + ": no rows");
  return sim::privacy_claim::renyi(std::move(orders), std::move(eps));
}

sim::monte_carlo_options monte_carlo_of(const simulate_options& o) {
  return cli_monte_carlo(o.replicates, o.seed, o.threads, "dpkit audit");
}

// X_0 of replicate r on the side with stream base `base` (as in dpkit simulate: base + 1 init,
// + 2 batches, + 3 noise; D′ uses base 8): zero, or N(0, s² I) with --init gaussian.
sim::vector initial_point(const simulate_options& o,
                          std::size_t p,
                          std::uint64_t r,
                          std::uint64_t base) {
  sim::vector x0 = sim::vector::Zero(static_cast<Eigen::Index>(p));
  if (o.init == "gaussian") {
    random_stream init(o.seed, r, base + 1);
    init.fill_normal(std::span<double>(x0.data(), p));
    x0 *= o.init_scale;
  }
  return x0;
}

sim::privacy_claim claim_of(const audit_options& a) {
  const int given = (a.mu ? 1 : 0) + (a.epsilon ? 1 : 0) + (a.tradeoff_file.empty() ? 0 : 1) +
                    (a.risk_file.empty() ? 0 : 1) + (a.renyi_file.empty() ? 0 : 1);
  if (given != 1)
    throw usage_error(
        "the claim: give exactly one of --mu M (mu-GDP), --epsilon E with --delta D, "
        "--tradeoff FILE.csv, --renyi FILE.csv, or --risk-bound FILE.csv");
  if (a.delta && !a.epsilon) throw usage_error("--delta goes with --epsilon");
  if (a.mu) return sim::privacy_claim::gdp(*a.mu);
  if (a.epsilon) {
    if (!a.delta) throw usage_error("--epsilon needs --delta");
    return sim::privacy_claim::epsilon_delta(*a.epsilon, *a.delta);
  }
  if (!a.renyi_file.empty()) return renyi_from_csv(a.renyi_file);
  return curve_from_csv(a.tradeoff_file);
}

json finite_or_null(double x) {
  return std::isfinite(x) ? json(x) : json(nullptr);
}

// The claimed curve and the tests' boxes.
figures::figure figure_of(const sim::privacy_claim& claim,
                             const sim::claim_audit& res,
                             const std::string& setting) {
  figures::figure f;
  f.title = "dpkit audit: " + figures::enhanced_escape(claim.describe());
  f.subtitle = std::string(to_string(res.verdict)) + " at " + format_number(100 * res.confidence) +
               "% confidence — " + figures::enhanced_escape(setting);
  f.x_label = "type I error α";
  f.y_label = "type II error β";
  f.x_min = 0;
  f.x_max = 1;
  f.y_min = 0;
  f.y_max = 1;
  f.linear_x = f.linear_y = true;
  figures::series curve;
  curve.name = "claimed lower bound";
  for (int i = 0; i <= 400; ++i) {
    const double a = i / 400.0;
    curve.x.push_back(a);
    curve.y.push_back(claim(a));
  }
  // One series per direction of the tests (the statistic larger, or smaller, under D′): only
  // the direction in which D′ moves the statistic comes near a tight claim.
  figures::series above, below;
  above.name = "tests rejecting D above a threshold (simultaneous boxes)";
  below.name = "tests rejecting D below a threshold (simultaneous boxes)";
  above.style = below.style = "points";
  for (const sim::tradeoff_point& p : res.empirical.points) {
    figures::series& s = p.direction == sim::test_direction::reject_above ? above : below;
    s.x.push_back(p.alpha);
    s.y.push_back(p.beta);
    s.x_lo.push_back(p.alpha_lo);
    s.x_hi.push_back(p.alpha_hi);
    s.y_lo.push_back(p.beta_lo);
    s.y_hi.push_back(p.beta_hi);
  }
  f.data = {curve, above, below};
  return f;
}

// A risk claim: E F(X_t) on D at the claim's steps, from the same replicates, against the
// bounds (sim::audit_risk_claim).
int run_risk_audit(const audit_options& a, const output_options& output) {
  const simulate_options& o = a.setting;
  const sim::risk_claim claim = risk_from_csv(a.risk_file, o.steps);
  std::vector<std::string> notes;
  const models m = make_models(o, notes, /*with_test=*/false);
  const sim::noisy_gradient_options alg = algorithm_options(o, *m.d);
  const std::size_t p = m.d->dimension();
  const std::vector<long>& steps = claim.steps();

  const sim::monte_carlo_options mc = monte_carlo_of(o);
  std::vector<sim::observable> obs;
  for (const long t : steps) obs.push_back({"risk@" + std::to_string(t), false});
  auto replicate = [&](std::uint64_t r, std::span<double> out) {
    const sim::vector x0 = initial_point(o, p, r, 0);
    std::size_t next = 0;
    sim::run_noisy_gradient(*m.d, alg, x0, {o.seed, r, 0}, [&](long k, const sim::vector& x) {
      if (next < steps.size() && k == steps[next]) out[next++] = m.d->empirical_risk(x);
    });
  };
  const sim::monte_carlo_result mcr = sim::run_monte_carlo(obs, replicate, mc);
  std::vector<sim::risk_estimate> est;
  for (const auto& ob : mcr.observables)
    est.push_back({ob.stats.mean(), std::sqrt(ob.stats.variance()),
                   static_cast<std::size_t>(ob.stats.count())});
  const sim::risk_audit res = sim::audit_risk_claim(claim, est, a.confidence);

  report rep;
  rep.tool = "dpkit audit";
  const std::string what = "a risk bound at " + std::to_string(steps.size()) + " step(s)";
  rep.title = "audit of " + what + " on E F(X_t): " + o.algorithm + " on " + o.model + ", " +
              std::to_string(o.steps) + " steps";
  rep.parameters = {{"claim", what},    {"claim_file", a.risk_file}, {"algorithm", o.algorithm},
                    {"model", o.model}, {"steps", o.steps},          {"replicates", o.replicates},
                    {"seed", o.seed},   {"confidence", a.confidence}};
  if (!m.data_description.empty()) rep.parameters["data"] = m.data_description;
  double tight = std::numeric_limits<double>::infinity();
  long tight_step = -1;
  json rows = json::array();
  for (const sim::risk_audit_row& r : res.rows) {
    if (std::isfinite(r.tightness) && r.tightness < tight) {
      tight = r.tightness;
      tight_step = r.step;
    }
    rows.push_back({{"t", r.step},
                    {"bound", r.bound},
                    {"mean", r.mean},
                    {"lower", r.lower},
                    {"upper", r.upper},
                    {"tightness", finite_or_null(r.tightness)}});
  }
  rep.results.push_back({{"claim", what},
                         {"verdict", std::string(to_string(res.verdict))},
                         {"confidence", res.confidence},
                         {"resolution", res.resolution},
                         {"tightest_step", tight_step},
                         {"tightness", finite_or_null(tight)},
                         {"replicates", o.replicates},
                         {"reason", res.reason},
                         {"tests", rows}});
  rep.columns = {"claim",         "verdict",   "confidence", "resolution",
                 "tightest_step", "tightness", "replicates"};
  rep.notes = notes;
  rep.notes.push_back("verdict: " + std::string(to_string(res.verdict)) + " — " + res.reason);
  rep.notes.push_back(
      "each step: mean of F(X_t) over the replicates with a Student-t interval, simultaneous over "
      "the steps (Bonferroni; a normal approximation). tightness: bound/mean at the step where it "
      "is smallest. resolution: the median half-width of the intervals.");
  bool drifted = false;
  if (!a.baseline_file.empty()) {
    const json base = read_baseline(a.baseline_file, "risk");
    drift_check d;
    if (!base.contains("tests") || !base["tests"].is_array())
      throw usage_error("--baseline: " + a.baseline_file + ": no per-step rows ('tests')");
    for (const sim::risk_audit_row& r : res.rows)
      for (const json& b : base["tests"])
        if (b.is_object() && b.value("t", -1L) == r.step) {
          const double bl = number_at(b, "lower", a.baseline_file);
          const double bu = number_at(b, "upper", a.baseline_file);
          d.compare("mean risk at t = " + std::to_string(r.step), r.mean, (r.upper - r.lower) / 2,
                    number_at(b, "mean", a.baseline_file), (bu - bl) / 2);
        }
    if (d.rows.empty())
      throw usage_error("--baseline: " + a.baseline_file +
                        ": no step in common with this claim's steps");
    drifted = report_drift(d, a.baseline_file, rep.results.back(), rep);
  }
  emit(rep, output);
  if (!a.tests_file.empty() && output_rank()) {
    std::vector<std::vector<double>> tested;
    for (const sim::risk_audit_row& r : res.rows)
      tested.push_back(
          {static_cast<double>(r.step), r.bound, r.mean, r.lower, r.upper, r.tightness});
    std::ostringstream csv;
    write_csv(csv, {"t", "bound", "mean", "lower", "upper", "tightness"}, tested);
    write_file("--tests", a.tests_file, csv.str());
  }
  if (!a.figure_file.empty() && output_rank()) {
    figures::figure f;
    f.title = "dpkit audit: " + figures::enhanced_escape(what);
    f.subtitle = std::string(to_string(res.verdict)) + " at " +
                 format_number(100 * res.confidence) + "% simultaneous confidence — " +
                 o.algorithm + ", " + std::to_string(o.replicates) + " replicates";
    f.x_label = "step t";
    f.y_label = "expected risk E F(X_t)";
    figures::series bound, mean;
    bound.name = "claimed bound";
    bound.style = "linespoints";
    mean.name = "Monte Carlo mean (simultaneous intervals)";
    mean.style = "points";
    for (const sim::risk_audit_row& r : res.rows) {
      bound.x.push_back(static_cast<double>(r.step));
      bound.y.push_back(r.bound);
      mean.x.push_back(static_cast<double>(r.step));
      mean.y.push_back(r.mean);
      mean.y_lo.push_back(r.lower);
      mean.y_hi.push_back(r.upper);
    }
    f.data = {bound, mean};
    std::string error;
    if (!figures::render(f, a.figure_file, error)) throw usage_error("--figure: " + error);
    std::cerr << "dpkit audit: wrote " << a.figure_file << "\n";
  }
  return res.verdict == sim::verdict::violated || drifted ? kExitValidationFailed : kExitSuccess;
}

int run_audit(const audit_options& a, const output_options& output) {
  const simulate_options& o = a.setting;
  check_distinct_outputs(
      {{"--output", output.file}, {"--tests", a.tests_file}, {"--figure", a.figure_file}});
  if (!generated_data(o) && o.data != "fashion-mnist") {
    check_not_an_input("--output", output.file, "--data", o.data);
    check_not_an_input("--tests", a.tests_file, "--data", o.data);
  }
  if (!o.test_data.empty() || !o.test_labels.empty() || o.test_size > 0 || !o.tail_classes.empty())
    throw usage_error(
        "--test-data, --test-labels, --test-size and --tail-classes apply to dpkit simulate (an "
        "audit looks at the runs on D and D' only)");
  if (!a.tradeoff_file.empty()) {
    check_not_an_input("--output", output.file, "--tradeoff", a.tradeoff_file);
    check_not_an_input("--tests", a.tests_file, "--tradeoff", a.tradeoff_file);
  }
  if (!a.renyi_file.empty()) {
    check_not_an_input("--output", output.file, "--renyi", a.renyi_file);
    check_not_an_input("--tests", a.tests_file, "--renyi", a.renyi_file);
  }
  if (!a.baseline_file.empty()) {
    check_not_an_input("--output", output.file, "--baseline", a.baseline_file);
    check_not_an_input("--tests", a.tests_file, "--baseline", a.baseline_file);
  }
  if (!a.figure_file.empty() &&
      !figures::is_figure_extension(std::filesystem::path(a.figure_file).extension().string()))
    throw usage_error("--figure is " + a.figure_file + ", but must end in .svg, .png or .pdf");
  if (!a.risk_file.empty()) {
    check_not_an_input("--output", output.file, "--risk-bound", a.risk_file);
    check_not_an_input("--tests", a.tests_file, "--risk-bound", a.risk_file);
    if (a.mu || a.epsilon || a.delta || !a.tradeoff_file.empty() || !a.renyi_file.empty())
      throw usage_error(
          "the claim: give exactly one of --mu M (mu-GDP), --epsilon E with --delta D, "
          "--tradeoff FILE.csv, --renyi FILE.csv, or --risk-bound FILE.csv");
    return run_risk_audit(a, output);
  }
  if (o.neighbour == "none")
    throw usage_error(
        "--neighbour: a privacy audit compares runs on D and on a neighbouring D' (replace-one "
        "or zero-out)");
  if (o.coupling == "shared")
    throw usage_error(
        "--coupling shared: an auditor sees independent runs on D and D' (use independent)");
  const sim::privacy_claim claim = claim_of(a);

  std::vector<std::string> notes;
  const models m = make_models(o, notes, /*with_test=*/false);
  const sim::noisy_gradient_options alg = algorithm_options(o, *m.d);
  const std::size_t p = m.d->dimension();
  // The statistic: <X_T, v>, v = --direction or the unit vector of --coordinate.
  sim::vector v = sim::vector::Zero(static_cast<Eigen::Index>(p));
  std::string statistic;
  if (!a.direction.empty()) {
    std::vector<double> w;
    std::size_t start = 0;
    while (start <= a.direction.size()) {
      const std::size_t comma = a.direction.find(',', start);
      const std::string cell =
          a.direction.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      const std::optional<double> x = parse_finite(cell);
      if (!x) throw usage_error("--direction: '" + cell + "' is not a number (give v1,v2,...)");
      w.push_back(*x);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    if (w.size() != p)
      throw usage_error("--direction has " + std::to_string(w.size()) +
                        " entries, but the iterate has dimension " + std::to_string(p));
    for (std::size_t i = 0; i < p; ++i) v[static_cast<Eigen::Index>(i)] = w[i];
    if (v.norm() == 0) throw usage_error("--direction is the zero vector");
    statistic = "<X_T, v>, v = (" + a.direction + ")";
  } else {
    if (static_cast<std::size_t>(a.coordinate) >= p)
      throw usage_error("--coordinate is " + std::to_string(a.coordinate) +
                        ", but must be below the dimension " + std::to_string(p));
    v[static_cast<Eigen::Index>(a.coordinate)] = 1;
    statistic = "coordinate " + std::to_string(a.coordinate) + " of X_T";
  }

  const sim::monte_carlo_options mc = monte_carlo_of(o);
  auto replicate = [&](std::uint64_t r, std::span<double> out) {
    for (std::size_t s = 0; s < 2; ++s) {
      const std::uint64_t base = s == 0 ? 0 : 8;  // D′ on streams of its own
      const sim::vector x0 = initial_point(o, p, r, base);
      const sim::model& f = s == 0 ? *m.d : *m.dprime;
      out[s] = sim::run_noisy_gradient(f, alg, x0, {o.seed, r, base}).dot(v);
    }
  };
  const sim::monte_carlo_result mcr =
      sim::run_monte_carlo({{"D", true}, {"D'", true}}, replicate, mc);

  sim::claim_audit_options ao;
  ao.confidence = a.confidence;
  ao.thresholds = static_cast<std::size_t>(a.thresholds);
  const sim::claim_audit res =
      sim::audit_privacy_claim(mcr.observables[0].samples, mcr.observables[1].samples, claim, ao);

  report rep;
  rep.tool = "dpkit audit";
  rep.title = "audit of " + claim.describe() + ": " + o.algorithm + " on " + o.model + ", " +
              std::to_string(o.steps) + " steps, " + m.neighbour_description + "; statistic " +
              statistic;
  rep.parameters = {{"claim", claim.describe()},
                    {"algorithm", o.algorithm},
                    {"model", o.model},
                    {"steps", o.steps},
                    {"neighbour", m.neighbour_description},
                    {"statistic", statistic},
                    {"replicates", o.replicates},
                    {"seed", o.seed},
                    {"confidence", a.confidence},
                    {"thresholds", a.thresholds}};
  if (!m.data_description.empty()) rep.parameters["data"] = m.data_description;
  json row = {{"claim", claim.describe()},
              {"verdict", std::string(to_string(res.verdict))},
              {"confidence", res.confidence},
              {"min_gap", finite_or_null(res.min_gap)},
              {"min_gap_lower", finite_or_null(res.min_gap_lo)},
              {"min_gap_upper", finite_or_null(res.min_gap_hi)},
              {"resolution", finite_or_null(res.resolution)},
              {"epsilon_lower", res.epsilon_lower.epsilon},
              {"epsilon_lower_delta", res.epsilon_lower.delta},
              {"mu_estimate", finite_or_null(res.mu_estimate)},
              {"mu_lower", finite_or_null(res.mu_lo)},
              {"mu_upper", finite_or_null(res.mu_hi)},
              {"tightness", finite_or_null(res.tightness)},
              {"samples_d", res.empirical.n_d},
              {"samples_dprime", res.empirical.n_dprime},
              {"reason", res.reason}};
  rep.columns = {"claim",         "verdict",     "confidence", "min_gap",   "resolution",
                 "epsilon_lower", "mu_estimate", "tightness",  "samples_d", "samples_dprime"};
  json tests = json::array();
  for (const sim::tradeoff_point& t : res.empirical.points)
    tests.push_back({{"threshold", t.threshold},
                     {"direction", std::string(to_string(t.direction))},
                     {"alpha", t.alpha},
                     {"alpha_lower", t.alpha_lo},
                     {"alpha_upper", t.alpha_hi},
                     {"beta", t.beta},
                     {"beta_lower", t.beta_lo},
                     {"beta_upper", t.beta_hi},
                     {"claim_beta", claim(t.alpha)}});
  row["tests"] = tests;
  rep.results.push_back(row);
  rep.notes = notes;
  rep.notes.push_back("verdict: " + std::string(to_string(res.verdict)) + " — " + res.reason);
  rep.notes.push_back(
      "tests: " + std::to_string(res.empirical.points.size()) +
      " thresholds (both directions) at pooled quantiles of a 10% pilot, Clopper-Pearson boxes "
      "from the other samples, simultaneous (Bonferroni). resolution: the median half-width of "
      "the beta boxes — a claim further than about this above the truth at the tested points is "
      "caught. epsilon_lower: certified at the same confidence for this pair and statistic.");
  rep.notes.push_back(
      "holds / inconclusive: the samples do not refute the claim (a tight claim is "
      "inconclusive: its boxes straddle it); Monte Carlo never proves a claim. violated: exit "
      "status 3.");
  bool drifted = false;
  if (!a.baseline_file.empty()) {
    const json base = read_baseline(a.baseline_file, "privacy");
    drift_check d;
    const double bl = number_at(base, "mu_lower", a.baseline_file);
    const double bu = number_at(base, "mu_upper", a.baseline_file);
    d.compare("mu estimate", res.mu_estimate, (res.mu_hi - res.mu_lo) / 2,
              number_at(base, "mu_estimate", a.baseline_file), (bu - bl) / 2);
    drifted = report_drift(d, a.baseline_file, rep.results.back(), rep);
  }
  emit(rep, output);

  if (!a.tests_file.empty() && output_rank()) {
    std::string csv = csv_row({"threshold", "direction", "alpha", "alpha_lower", "alpha_upper",
                               "beta", "beta_lower", "beta_upper", "claim_beta"}) +
                      "\n";
    auto number = [](const json& t, const char* key) { return csv_number(t[key].get<double>()); };
    for (const auto& t : tests)
      csv += csv_row({number(t, "threshold"), t["direction"].get<std::string>(),
                      number(t, "alpha"), number(t, "alpha_lower"), number(t, "alpha_upper"),
                      number(t, "beta"), number(t, "beta_lower"), number(t, "beta_upper"),
                      number(t, "claim_beta")}) +
             "\n";
    write_file("--tests", a.tests_file, csv);
  }
  if (!a.figure_file.empty() && output_rank()) {
    std::string error;
    const std::string setting = o.algorithm + ", " + std::to_string(o.steps) + " steps, " +
                                std::to_string(o.replicates) + " replicates";
    if (!figures::render(figure_of(claim, res, setting), a.figure_file, error))
      throw usage_error("--figure: " + error);
    std::cerr << "dpkit audit: wrote " << a.figure_file << "\n";
  }
  return res.verdict == sim::verdict::violated || drifted ? kExitValidationFailed : kExitSuccess;
}

}  // namespace

void register_audit(CLI::App& app, int& exit_code) {
  auto a = std::make_shared<audit_options>();
  auto output = std::make_shared<output_options>();
  a->setting.replicates = 20000;
  CLI::App* sub = app.add_subcommand(
      "audit",
      "Check a privacy claim about a noisy training run against Monte Carlo runs on D and a "
      "neighbouring D' (threshold tests with simultaneous confidence boxes); exit status 3 when "
      "the claim is violated — one line of a CI script (docs/audit.md)");
  const char* ga = "Algorithm (docs/sim.md)";
  sub->add_option("--algorithm", a->setting.algorithm,
                  "gd: NoisyGD (full batch); cgd: NoisyCGD (fixed cyclic batches); sgd: NoisySGD "
                  "(uniform batches without replacement); poisson: DP-SGD (Poisson sampling, "
                  "with --clip); one-pass: one example per step, each once; lmc: Langevin Monte "
                  "Carlo")
      ->check(CLI::IsMember({"gd", "cgd", "sgd", "poisson", "one-pass", "lmc"}))
      ->capture_default_str()
      ->group(ga);
  add_setting_options(sub, a->setting);
  const char* gc = "The claim (exactly one)";
  sub->add_option("--mu", a->mu, "mu-GDP: the tradeoff curve is at least G(mu)")
      ->check(real_at_least(0))
      ->type_name("M")
      ->group(gc);
  sub->add_option("--epsilon,--claim-epsilon", a->epsilon,
                  "(epsilon, delta)-DP, with --delta (with --scores: the claimed upper bound the "
                  "scores are checked against)")
      ->check(real_at_least(0))
      ->type_name("E")
      ->group(gc);
  sub->add_option("--delta", a->delta, "delta of an (epsilon, delta) claim, in [0, 1)")
      ->check(real_in_half_open_interval(0.0, 1.0))
      ->type_name("D")
      ->group(gc);
  sub->add_option("--risk-bound", a->risk_file,
                  "A claimed bound on the expected risk E F(X_t) on D: CSV with columns t (or "
                  "step) and bound, t increasing and <= --steps (excess risk: add F(x*) to the "
                  "bound); no --neighbour needed")
      ->check(CLI::ExistingFile)
      ->type_name("FILE")
      ->group(gc);
  sub->add_option("--renyi", a->renyi_file,
                  "Renyi DP of the pair, both orders: CSV with columns order (or alpha) > 1, "
                  "increasing, and epsilon >= 0 (the tradeoff curve it implies by data "
                  "processing is audited)")
      ->check(CLI::ExistingFile)
      ->type_name("FILE")
      ->group(gc);
  sub->add_option("--tradeoff", a->tradeoff_file,
                  "A claimed tradeoff curve: CSV with columns alpha, beta (alpha increasing, "
                  "beta non-increasing, both in [0, 1]); linear between the points, beta_1 left "
                  "of the first, 0 right of the last")
      ->check(CLI::ExistingFile)
      ->type_name("FILE")
      ->group(gc);
  const char* gs = "Statistics";
  CLI::Option* coordinate =
      sub->add_option("--coordinate", a->coordinate,
                      "The released statistic: this coordinate of the last iterate X_T")
          ->check(integer_at_least(0))
          ->capture_default_str()
          ->group(gs);
  sub->add_option("--direction", a->direction,
                  "The released statistic <X_T, v> for v = V1,V2,... (one entry per coordinate) "
                  "instead of a coordinate")
      ->type_name("V")
      ->excludes(coordinate)
      ->group(gs);
  sub->add_option("--confidence", a->confidence,
                  "Simultaneous confidence of the boxes, the verdict and epsilon_lower")
      ->check(real_in_closed_interval(0.5, 0.999999))
      ->capture_default_str()
      ->group(gs);
  sub->add_option("--thresholds", a->thresholds, "Threshold tests per direction")
      ->check(integer_at_least(1, 1000))
      ->capture_default_str()
      ->group(gs);
  sub->add_option("--tests", a->tests_file, "Write the tests (alpha, beta, boxes) to FILE.csv")
      ->check(writable_file_validator())
      ->type_name("FILE")
      ->group(gs);
  sub->add_option("--figure", a->figure_file,
                  "Draw the claimed curve and the tests' boxes (.svg, .png or .pdf)")
      ->type_name("FIG")
      ->group(gs);
  sub->add_option("--baseline", a->baseline_file,
                  "A stored run (dpkit audit --format json --output FILE) of the same claim kind: "
                  "report drift beyond the two runs' noise (the mu estimate; the mean risk at each "
                  "common step) and exit 3 when an estimate moved")
      ->check(CLI::ExistingFile)
      ->type_name("FILE")
      ->group(gs);
  add_score_audit_options(sub, a->scores);
  add_output_options(sub, *output);
  sub->footer(
      "Examples (docs/audit.md):\n"
      "  dpkit audit --model quadratic --dataset-size 10 --dimension 2 --neighbour replace-one "
      "--perturbation 1 --noise-std 0.5 --learning-rate 0.5 --steps 20 --mu 0.6\n"
      "  dpkit audit ... --epsilon 1 --delta 1e-5\n"
      "  dpkit audit ... --tradeoff claimed_curve.csv --figure audit.svg\n"
      "  dpkit audit --model quadratic --noise-std 0.5 --steps 20 --risk-bound bound.csv\n"
      "  dpkit audit --scores in.csv out.csv --delta 1e-5 --claim-epsilon 8\n"
      "  dpkit audit --scores canaries.csv --one-run --guesses 100 --accountant-run \"-s 1.1 -p "
      "0.01 --steps 1000\"\n"
      "Exit status: 0 holds or inconclusive, 2 bad input, 3 the claim is violated (or, with "
      "--baseline, an estimate drifted).");
  sub->callback([a, output, sub, &exit_code] {
    if (!a->scores.scores.empty()) {
      exit_code = run_score_audit(a->scores, a->epsilon, a->delta, a->confidence, a->setting.seed,
                                  a->figure_file, *output, sub);
      return;
    }
    finish_setting(sub, a->setting);
    exit_code = run_audit(*a, *output);
  });
}

}  // namespace dpkit::cli
