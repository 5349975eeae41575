// End-to-end tests of `dpkit bound`: values recomputed by hand from the papers' formulas (as the
// risk headers print them), the program's JSON against the dpkit::risk functions called with the
// same inputs, hypotheses that fail reported as such, bad input exiting 2 with one line naming
// the flag, and --list listing every bound. No timed assertions.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_run.hpp"  // dpkit_run (shared with cli_test.cpp)
#include "dpkit/risk/kan_bounds.hpp"
#include "dpkit/risk/longtail_bounds.hpp"
#include "dpkit/risk/mlp_bounds.hpp"
#include "dpkit/risk/nonconvex_bounds.hpp"
#include "dpkit/learners/longtail.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using dpkit::test::count_lines;
using dpkit::test::dpkit_run;
using json = nlohmann::json;

namespace {

constexpr double kRel = 1e-13;

// Every bound the program offers (the test fails when one is added or removed without it).
const std::vector<std::string> kBounds = {
    "kan-thm4.1",     "kan-thm5.2",         "kan-thmD.14",          "kan-thmD.16",
    "kan-thmE.1-opt", "kan-thmE.1-pop",     "kan-certificate",      "kan-cor5.3",
    "kan-cor5.5",     "kan-cor5.6",         "kan-gd",               "longtail-thm1",
    "longtail-thm2",  "longtail-thm3-all",  "longtail-thm3-tail",   "longtail-remark4",
    "mlp-thm13",      "nonconvex-thm1",     "nonconvex-thm1-phase-sum", "nonconvex-thm2",
    "nonconvex-alg1", "nonconvex-thm4",     "nonconvex-thm4-proof", "nonconvex-thm5",
    "nonconvex-thm6", "nonconvex-thm6-proof", "nonconvex-thm7",     "nonconvex-thm7-sample-size",
    "nonconvex-thm8", "nonconvex-thm10",    "nonconvex-thm11"};

// The rows of a `dpkit bound NAME --format json` answer, by kind.
struct rows {
  std::vector<json> terms, totals, conditions, derived;
  json parameters;
};

rows run_json(const std::string& args) {
  const auto r = dpkit_run("bound " + args + " --format json");
  INFO("dpkit bound " << args << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  rows out;
  out.parameters = doc.at("context").at("parameters");
  for (const json& row : doc.at("results")) {
    const std::string kind = row.at("row");
    if (kind == "term") out.terms.push_back(row);
    else if (kind == "total") out.totals.push_back(row);
    else if (kind == "condition") out.conditions.push_back(row);
    else out.derived.push_back(row);
  }
  return out;
}

double derived(const rows& r, const std::string& prefix) {
  for (const json& d : r.derived)
    if (d.at("name").get<std::string>().rfind(prefix, 0) == 0) return d.at("value");
  FAIL("no derived row " << prefix);
  return NAN;
}

// The JSON of the program against the library's result: value, status, label, every term and
// every condition (names, numbers, verdicts) equal — doubles round-trip through JSON exactly.
void check_equal(const rows& cli, const dpkit::risk::risk_bound& lib) {
  REQUIRE(cli.totals.size() == 1);
  const json& total = cli.totals.front();
  CHECK(total.at("value").get<double>() == lib.value);
  CHECK(total.at("status") == std::string(dpkit::risk::to_string(lib.status)));
  CHECK(total.at("label") == lib.label);
  CHECK(total.at("hypotheses_hold") == lib.conditions_hold());
  REQUIRE(cli.terms.size() == lib.terms.size());
  for (std::size_t i = 0; i < lib.terms.size(); ++i) {
    CHECK(cli.terms[i].at("name") == lib.terms[i].name);
    CHECK(cli.terms[i].at("value").get<double>() == lib.terms[i].value);
  }
  REQUIRE(cli.conditions.size() == lib.conditions.size());
  for (std::size_t i = 0; i < lib.conditions.size(); ++i) {
    INFO(lib.conditions[i].name);
    CHECK(cli.conditions[i].at("name") == lib.conditions[i].name);
    CHECK(cli.conditions[i].at("value").get<double>() == lib.conditions[i].value);
    CHECK(cli.conditions[i].at("limit").get<double>() == lib.conditions[i].limit);
    CHECK(cli.conditions[i].at("holds") == lib.conditions[i].holds);
    CHECK(cli.conditions[i].at("status") == (lib.conditions[i].holds ? "holds" : "FAILS"));
  }
}

}  // namespace

TEST_CASE("dpkit bound --list: every bound, with paper, theorem, kind and defaults", "[cli]") {
  const auto r = dpkit_run("bound --list --format json");
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  CHECK(doc.at("context").at("tool") == "dpkit bound --list");
  std::vector<std::string> names;
  for (const json& row : doc.at("results")) {
    names.push_back(row.at("bound"));
    INFO(names.back());
    CHECK_FALSE(row.at("paper").get<std::string>().empty());
    CHECK_FALSE(row.at("theorem").get<std::string>().empty());
    const std::string kind = row.at("kind");
    CHECK((kind == "explicit bound" || kind == "up to hidden constants"));
    CHECK(row.at("defaults").is_object());
    CHECK_FALSE(row.at("defaults").empty());
    CHECK_THAT(row.at("parameters").get<std::string>(), StartsWith("--"));
  }
  CHECK(names == kBounds);
  // The four risk headers are all represented.
  for (const std::string prefix : {"kan-", "longtail-", "mlp-", "nonconvex-"})
    CHECK(std::any_of(names.begin(), names.end(),
                      [&](const std::string& n) { return n.rfind(prefix, 0) == 0; }));
  // CSV: a header and one row per bound; the table lists every name too.
  const auto csv = dpkit_run("bound --list --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK(count_lines(csv.out) == kBounds.size() + 1);
  CHECK_THAT(csv.out, StartsWith("bound,paper,theorem,kind,bounds,parameters\n"));
  const auto table = dpkit_run("bound --list");
  REQUIRE(table.exit_code == 0);
  const auto help = dpkit_run("bound --help");
  REQUIRE(help.exit_code == 0);
  for (const std::string& n : kBounds) {
    CHECK_THAT(table.out, Contains(n + "  "));  // the name cell, then the column gap
    CHECK_THAT(help.out, Contains(n));
  }
  CHECK_THAT(help.out, Contains("Exit codes"));
  CHECK_THAT(help.out, Contains("dpkit bound --list"));
}

TEST_CASE("dpkit bound NAME --help: formula, parameters, example and exit codes for each bound",
          "[cli]") {
  for (const std::string& n : kBounds) {
    INFO(n);
    const auto h = dpkit_run("bound " + n + " --help");
    REQUIRE(h.exit_code == 0);
    CHECK_THAT(h.out, Contains("Usage: dpkit bound " + n));
    CHECK_THAT(h.out, Contains("Example:\n  dpkit bound " + n));
    CHECK_THAT(h.out, Contains("Exit codes"));
    CHECK_THAT(h.out, Contains("HYPOTHESIS FAILS"));
  }
}

TEST_CASE("dpkit bound: the papers by name, never by internal number", "[cli]") {
  // Sources cite the papers by the keys of docs/references.md, never by an internal filing
  // number; the parameters name the paper in full.
  for (const std::string& n : kBounds) {
    INFO(n);
    for (const std::string args : {" --format json", " --format csv", "", " --help"}) {
      const auto r = dpkit_run("bound " + n + args);
      CHECK(r.out.find("seed 00") == std::string::npos);
      CHECK(r.out.find("spec 00") == std::string::npos);
      CHECK(r.err.find("seed 00") == std::string::npos);
    }
  }
  const rows kan = run_json("kan-thm4.1");
  CHECK(kan.totals.at(0).at("source") == "WSK+26, Thm 4.1 / C.13");
  CHECK_THAT(kan.parameters.at("paper").get<std::string>(),
             Contains("Wang, Schuchardt, Kalinin, Zhou, Fellenz, Lampert & Kloft"));
  const rows lt = run_json("longtail-thm3-all");
  CHECK(lt.totals.at(0).at("source") ==
        "ZXD+26, Thm 3 Statement 1");
  CHECK_THAT(lt.parameters.at("paper").get<std::string>(),
             Contains("Zhang, Xie, Ding, Fu, Liu & Wang"));
}

TEST_CASE("dpkit bound mlp-thm13: eq. (7) recomputed by hand", "[cli]") {
  // Thm 13, eq. (7) (risk/mlp_bounds.hpp), hidden constants 1:
  //   sqrt(log(1/xi)/T) + S L^{3/2} R/sqrt(T) + NTRF
  //   + S L^{3/2} R max(L, d/m) log(1/gamma) log(1/delta) m^2 sqrt(T)/(n^2 eps^2).
  const double n = 60000, d = 784, m = 256, L = 3, T = 400, S = 1, R = 10, C = 1, eps = 0.8,
               delta = 1e-10, gamma = 0.05, ntrf = 0.05;
  const rows r = run_json(
      "mlp-thm13 --dataset-size 60000 --input-dimension 784 --width 256 --depth 3 --steps 400 "
      "--radius 10 --clip 1 --epsilon 0.8 --delta 1e-10 --sampling-rate 0.05 --approximation "
      "0.05");
  const double convergence = std::sqrt(1 / T);  // xi = 1/e by default: log(1/xi) = 1
  const double optimisation = S * std::pow(L, 1.5) * R / std::sqrt(T);
  const double privacy = S * std::pow(L, 1.5) * R * std::max(L, d / m) * std::log(1 / gamma) *
                         std::log(1 / delta) * m * m * std::sqrt(T) / (n * n * eps * eps);
  REQUIRE(r.terms.size() == 4);
  CHECK_THAT(r.terms[0].at("value").get<double>(), Catch::Matchers::WithinRel(convergence, kRel));
  CHECK_THAT(r.terms[1].at("value").get<double>(), Catch::Matchers::WithinRel(optimisation, kRel));
  CHECK(r.terms[2].at("value").get<double>() == ntrf);
  CHECK_THAT(r.terms[3].at("value").get<double>(), Catch::Matchers::WithinRel(privacy, kRel));
  REQUIRE(r.totals.size() == 1);
  CHECK_THAT(r.totals[0].at("value").get<double>(),
             Catch::Matchers::WithinRel(convergence + optimisation + ntrf + privacy, kRel));
  // Algorithm 10's delta <= 1/n^2 and the statement's width m >= T^7 C^-8 (log(1/xi))^3 = T^7.
  bool saw_delta = false, saw_width = false;
  for (const json& c : r.conditions) {
    const std::string name = c.at("name");
    if (name.rfind("delta <= 1/n^2", 0) == 0) {
      saw_delta = true;
      CHECK_THAT(c.at("limit").get<double>(), Catch::Matchers::WithinRel(1 / (n * n), kRel));
      CHECK(c.at("holds") == true);
    }
    if (name.rfind("m >= m*", 0) == 0) {
      saw_width = true;
      CHECK_THAT(c.at("limit").get<double>(),
                 Catch::Matchers::WithinRel(std::pow(T, 7) / std::pow(C, 8), kRel));
      CHECK(c.at("holds") == false);  // m = 256 is far below T^7
    }
  }
  CHECK(saw_delta);
  CHECK(saw_width);
  CHECK(r.totals[0].at("status") == "condition violated");
  // The step size sqrt(L) R/(C sqrt(mT)) (corrected form) as a derived row.
  CHECK_THAT(derived(r, "step size eta"),
             Catch::Matchers::WithinRel(std::sqrt(L) * R / (C * std::sqrt(m * T)), kRel));
}

TEST_CASE("dpkit bound kan-thm4.1: A_corr and G_delta recomputed by hand", "[cli]") {
  // Thm 4.1 (risk/kan_bounds.hpp): value = bound polylog A_corr,
  // A_corr = 1/(g^2 eta T) + 1/(g sqrt(BT)) + eta(1/B + 1/T)
  //        + ((1-l) k/(B sqrt T))(1/g + eta sqrt(md)/sqrt B) + ((1-l)^2 + l^2 eta) eta k^2 md/B^2.
  const double d = 3, m = 500, p = 8, B = 50, T = 800, eta = 0.01, kap = 2, lam = 0.7,
               g = 0.2, delta = 0.02, h = 0.25;
  const std::string args =
      "kan-thm4.1 --dataset-size 2000 --input-dimension 3 --width 500 --basis-size 8 --batch-size 50 "
      "--steps 800 --eta 0.01 --kappa 2 --lambda 0.7 --gamma 0.2 --delta 0.02 --spacing 0.25";
  const double md = m * d;
  const double a_corr = 1 / (g * g * eta * T) + 1 / (g * std::sqrt(B * T)) + eta * (1 / B + 1 / T) +
                        (1 - lam) * kap / (B * std::sqrt(T)) * (1 / g + eta * std::sqrt(md) / std::sqrt(B)) +
                        ((1 - lam) * (1 - lam) + lam * lam * eta) * eta * kap * kap * md / (B * B);
  const rows r = run_json(args);
  CHECK_THAT(r.totals.at(0).at("value").get<double>(), Catch::Matchers::WithinRel(a_corr, kRel));
  const rows scaled = run_json(args + " --c-bound 2 --c-polylog 3");
  CHECK_THAT(scaled.totals.at(0).at("value").get<double>(),
             Catch::Matchers::WithinRel(6 * a_corr, kRel));
  // eq. (5) with tanh and cubic B-splines of spacing h: B'_sigma = 1, B_b = 2/3, B'_b = 2/(3h):
  // G_delta = B'_sigma B_b B'_b p (4 sqrt(p) + 2 sqrt(log(2/delta)/m)). --clip auto uses it.
  const double G = 1.0 * (2.0 / 3) * (2 / (3 * h)) * p *
                   (4 * std::sqrt(p) + 2 * std::sqrt(std::log(2 / delta) / m));
  CHECK_THAT(derived(r, "G_delta"), Catch::Matchers::WithinRel(G, kRel));
  CHECK_THAT(derived(r, "C_clip = G_delta"), Catch::Matchers::WithinRel(G, kRel));
  // The step-size condition eta <= 1/(12 C_{sigma,b} p^3) fails at eta = 0.01, p = 8.
  bool saw = false;
  for (const json& c : r.conditions)
    if (c.at("name") == "eta <= 1/(12 C_{sigma,b} p^3)") {
      saw = true;
      CHECK_THAT(c.at("limit").get<double>(),
                 Catch::Matchers::WithinRel(1 / (12 * p * p * p), kRel));
      CHECK(c.at("status") == "FAILS");
    }
  CHECK(saw);
}

TEST_CASE("dpkit bound: the JSON equals the dpkit::risk functions at the same inputs", "[cli]") {
  namespace risk = dpkit::risk;
  SECTION("mlp_thm13") {
    risk::mlp_training s;
    s.examples = 20000;
    s.input_dimension = 30;
    s.width = 64;
    s.depth = 4;
    s.steps = 50;
    s.lipschitz = 0.5;
    s.radius = 3;
    s.clip = 2;
    s.epsilon = 0.9;
    s.delta = 1e-9;
    s.sampling_rate = 0.2;
    s.xi = 0.1;
    s.gamma = 0.01;
    s.gamma_batch = 0.02;
    risk::mlp_hidden_constants c;
    c.privacy = 3;
    c.width = 1e-9;
    check_equal(
        run_json("mlp-thm13 --dataset-size 20000 --input-dimension 30 --width 64 --depth 4 --steps 50 "
                 "--lipschitz 0.5 --radius 3 --clip 2 --epsilon 0.9 --delta 1e-9 --sampling-rate "
                 "0.2 --xi 0.1 --gamma 0.01 --gamma-batch 0.02 --approximation 0.125 --c-privacy 3 "
                 "--c-width 1e-9 --width-factor sum"),
        risk::mlp_thm13(s, 0.125, c, risk::width_factor::sum_form));
  }
  SECTION("kan_correlated_population, main-text statement, given radius") {
    risk::kan_training s;
    s.examples = 5000;
    s.input_dimension = 2;
    s.width = 4096;
    s.basis_size = 6;
    s.batch_size = 100;
    s.steps = 300;
    s.eta = 1e-4;
    s.kappa = 0.5;
    s.lambda = 0.3;
    s.gamma = 0.5;
    s.delta = 1e-3;
    s.clip = 1000;
    s.radius = 40;
    const risk::kan_constants k = risk::cubic_bspline_constants(risk::kan_activation::sigmoid, 0.5);
    risk::hidden_constants c;
    c.polylog = 2;
    check_equal(run_json("kan-thm5.2 --dataset-size 5000 --input-dimension 2 --width 4096 "
                         "--basis-size 6 --batch-size 100 --steps 300 --eta 1e-4 --kappa 0.5 "
                         "--lambda 0.3 --gamma 0.5 --delta 1e-3 --clip 1000 --radius 40 "
                         "--activation sigmoid --spacing 0.5 --c-polylog 2 --statement main-text"),
                risk::kan_correlated_population(s, k, c, risk::statement::main_text));
  }
  SECTION("thm3_tail without Condition 1, then with it") {
    // --ncr 4 sets the spike of the construction (dpkit::sim's closed form).
    const double spike = dpkit::learners::spike_for_ncr(3, 200, 0.5, 4);
    const risk::longtail_problem p =
        risk::spiked_problem(3, 200, 4, 0.5, spike, std::vector<double>{60, 60, 10});
    risk::longtail_setting s;
    s.width = 30;
    s.eta = 0.01;
    s.batch_size = 100;
    s.steps = 40;
    s.clip = 2;
    s.noise_std = 0.001;
    s.sigma0 = 1e-4;
    s.fail_delta = 0.1;
    risk::longtail_constants c;
    c.c2 = 0.5;
    const risk::risk_bound lib = risk::thm3_tail(p, s, 2, 2.5, c);
    const std::string args =
        "longtail-thm3-tail --class-counts 60,60,10 --class 2 --dimension 200 --signal-norm 4 "
        "--noise-scale 0.5 --ncr 4 --width 30 --eta 0.01 --batch-size 100 --steps 40 --clip 2 "
        "--noise-std 0.001 --sigma0 1e-4 --fail-delta 0.1 --tail-threshold 2.5 --c-exponent 0.5";
    check_equal(run_json(args + " --no-condition1"), lib);
    // With Condition 1 (the default): the theorem's conditions, then every line of Condition 1.
    const rows all = run_json(args);
    const std::vector<risk::condition> c1 = risk::condition1(p, s);
    REQUIRE(all.conditions.size() == lib.conditions.size() + c1.size());
    bool all_hold = lib.conditions_hold();
    for (std::size_t i = 0; i < c1.size(); ++i) {
      const json& row = all.conditions[lib.conditions.size() + i];
      CHECK(row.at("name") == c1[i].name);
      CHECK(row.at("holds") == c1[i].holds);
      CHECK(row.at("source") == "ZXD+26, Condition 1");
      all_hold = all_hold && c1[i].holds;
    }
    CHECK(all.totals.at(0).at("value").get<double>() == lib.value);
    CHECK(all.totals.at(0).at("hypotheses_hold") == all_hold);
    // Remark 3's regime as derived rows.
    const risk::tail_regime t = risk::remark3_tail_regime(p, s, 2);
    CHECK(derived(all, "a = ") == t.a);
    CHECK(derived(all, "b = ") == t.b);
    CHECK(derived(all, "spike lambda") == spike);
  }
  SECTION("phased_sgd_phase_sum (explicit) and phased_sgd_rate") {
    risk::glm_problem p;
    p.examples = 4096;
    p.theta = 20;
    p.epsilon = 0.7;
    p.delta = 1e-6;
    p.W = 2;
    p.G = 0.25;
    p.B = 1.5;
    const risk::phase_sum_bound ps = risk::phased_sgd_phase_sum(p, 0.05, 1.25);
    const std::string problem =
        " --dataset-size 4096 --theta 20 --epsilon 0.7 --delta 1e-6 --w-norm 2 "
        "--link-lipschitz 0.25 --label-bound 1.5";
    const rows r = run_json("nonconvex-thm1-phase-sum" + problem + " --eta 0.05 --initial-distance 1.25");
    check_equal(r, ps);
    CHECK(r.totals.at(0).at("status") == "explicit bound");
    CHECK(derived(r, "excess risk bound 2G") == ps.excess_risk);
    CHECK(ps.excess_risk == 2 * p.G * ps.value);
    // Thm 1 checked at the theorem's own step size (--eta auto).
    check_equal(run_json("nonconvex-thm1" + problem),
                risk::phased_sgd_rate(p, risk::phased_sgd_step_size(p)));
  }
  SECTION("kan_sgd_rate: two totals and the prescribed run") {
    risk::rate_problem p;
    p.examples = 10000;
    p.input_dimension = 5;
    p.basis_size = 4;
    p.gamma = 0.25;
    p.delta = 1e-5;
    p.batch_size = 20;
    const risk::kan_rate lib = risk::kan_sgd_rate(p);
    const rows r = run_json(
        "kan-cor5.6 --dataset-size 10000 --input-dimension 5 --basis-size 4 --gamma 0.25 --delta 1e-5 "
        "--batch-size 20");
    REQUIRE(r.totals.size() == 2);
    CHECK(r.totals[0].at("value").get<double>() == lib.optimization.value);
    CHECK(r.totals[1].at("value").get<double>() == lib.population.value);
    CHECK(r.totals[0].at("label") == lib.optimization.label);
    CHECK(r.conditions.size() == lib.optimization.conditions.size());
    CHECK(derived(r, "prescribed steps T") == double(lib.setting.steps));
    CHECK(derived(r, "prescribed step size eta") == lib.setting.eta);
  }
}

TEST_CASE("dpkit bound: a hypothesis that fails is reported as such (exit 0)", "[cli]") {
  // mlp-thm13 with C above min{S L sqrt(m), R} = min{12, 10}: Thm 13's clipping hypothesis fails
  // (and only it: the width condition is met by a tiny c-width, the sample size still holds).
  const std::string args = "bound mlp-thm13 --clip 11 --c-width 1e-30";
  const auto table = dpkit_run(args);
  REQUIRE(table.exit_code == 0);
  CHECK_THAT(table.out, Contains("HYPOTHESIS FAILS"));
  CHECK_THAT(table.out, Contains("condition violated: C <= c_clip min{S L sqrt(m), R} (Thm 13)"));
  CHECK_THAT(table.out, Contains("FAILS"));
  CHECK(table.err.empty());
  const auto j = dpkit_run(args + " --format json");
  REQUIRE(j.exit_code == 0);
  CHECK_THAT(j.err, Contains("HYPOTHESIS FAILS"));
  const json doc = json::parse(j.out);
  const json& params = doc.at("context").at("parameters");
  CHECK(params.at("hypotheses_hold") == false);
  CHECK(params.at("status") == "condition violated");
  CHECK(params.at("conditions_failed") == 1);
  int failing = 0;
  for (const json& row : doc.at("results")) {
    if (row.at("row") == "total") {
      CHECK(row.at("status") == "condition violated");
      CHECK(row.at("label") == "condition violated: C <= c_clip min{S L sqrt(m), R} (Thm 13)");
    }
    if (row.at("row") == "condition" && row.at("holds") == false) {
      ++failing;
      CHECK(row.at("value").get<double>() == 11);
      CHECK(row.at("limit").get<double>() == 10);
      CHECK(row.at("status") == "FAILS");
    }
  }
  CHECK(failing == 1);
  // The same run with a legal clip: every hypothesis holds, the bound is up to constants.
  const rows ok = run_json("mlp-thm13 --clip 1 --c-width 1e-30");
  CHECK(ok.totals.at(0).at("status") == "up to hidden constants");
  CHECK(ok.totals.at(0).at("hypotheses_hold") == true);
  const auto ok_table = dpkit_run("bound mlp-thm13 --clip 1 --c-width 1e-30");
  CHECK_THAT(ok_table.out, Contains("STATUS: up to hidden constants"));
  CHECK(ok_table.out.find("HYPOTHESIS FAILS") == std::string::npos);
  // An explicit bound whose hypotheses hold.
  const rows thm7 = run_json("nonconvex-thm7 --opt 0.05 --mu 0.5 --alpha 0.01");
  CHECK(thm7.totals.at(0).at("status") == "explicit bound");
  CHECK(thm7.totals.at(0).at("value").get<double>() == 2 * (1 + 2 * 0.5) * 0.05 + 0.01);
  // CSV carries the same rows under one header.
  const auto csv = dpkit_run(args + " --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK_THAT(csv.out, StartsWith("row,name,value,limit,status,source\n"));
  CHECK_THAT(csv.out, Contains("\ncondition,\"C <= c_clip min{S L sqrt(m), R} (Thm 13)\",11,10,FAILS,"));
}

TEST_CASE("dpkit bound: bad input exits 2 with one line naming the flag", "[cli]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bound mlp-thm13 --delta 1.5",
       "dpkit bound mlp-thm13: --delta is 1.5, but must be a number in (0, 1)"},
      {"bound mlp-thm13 --width 2.5",
       "dpkit bound mlp-thm13: --width is 2.5, but must be an integer in [1, 2^53]"},
      {"bound mlp-thm13 --epsilon nan",
       "dpkit bound mlp-thm13: --epsilon is nan, but must be a finite number > 0"},
      {"bound mlp-thm13 --widht 256",
       "dpkit bound mlp-thm13: --widht is not an option of dpkit bound mlp-thm13 (did you mean "
       "--width?)"},
      {"bound mlp-thm31", "dpkit bound: unknown bound 'mlp-thm31' (did you mean mlp-thm13?)"},
      {"bound", "dpkit bound: give a bound name or --list"},
      {"bound kan-thm4.1 --batch-size 5000",
       "dpkit bound kan-thm4.1: --batch-size is 5000, but must be <= --dataset-size = 1000"},
      {"bound kan-thm4.1 --lambda 1",
       "dpkit bound kan-thm4.1: --lambda is 1, but must be a number in [0, 1)"},
      {"bound kan-thm4.1 --clip -1",
       "dpkit bound kan-thm4.1: --clip is -1, but must be a finite number > 0, or auto or inf"},
      {"bound longtail-thm3-all --class 3",
       "dpkit bound longtail-thm3-all: --class is 3, but must be < K = 3"},
      {"bound longtail-thm3-all --class-counts 50",
       "dpkit bound longtail-thm3-all: --class-counts is 50, but must be 2 to 100 integers"},
      // K classes give K^2 condition rows: K = 1000 once printed two million lines.
      {"bound longtail-thm2 --dimension 6000 --class-counts 5" +
           [] {
             std::string more;
             for (int i = 0; i < 100; ++i) more += ",5";
             return more;
           }(),
       "dpkit bound longtail-thm2: --class-counts is 5,5,"},
      {"bound longtail-thm2 --dimension 5",
       "dpkit bound longtail-thm2: --dimension is 5, but must be >= 2K = 6"},
      {"bound kan-certificate --clip inf",
       "dpkit bound kan-certificate: --clip is inf, but must be finite when kappa > 0"},
      {"bound nonconvex-thm1 --theta 0.5",
       "dpkit bound nonconvex-thm1: --theta is 0.5, but must be a number in [1, 2^53]"},
      {"bound kan-thm4.1 --activation relu", "dpkit bound kan-thm4.1: --activation"},
      // Overflowing inputs named as the user gave them (a probe: "--clip is 0" for
      // --spacing 1e308, "--eta is 0" for --theta 1e308, "lambda is inf" for --ncr 1e308).
      {"bound kan-thm4.1 --spacing 1e308",
       "dpkit bound kan-thm4.1: --spacing is 1e308, but must be a number in [1e-100, 2]"},
      {"bound nonconvex-thm1 --theta 1e308",
       "dpkit bound nonconvex-thm1: --theta is 1e308, but must be a number in [1, 2^53]"},
      {"bound longtail-thm2 --ncr 1e308",
       "dpkit bound longtail-thm2: the spike's eigenvalue (from the noise scale and the NCR) is "
       "7.071067811865476e+307, but must be <= 1e150"},
      {"bound longtail-thm2 --noise-scale 1e200 --ncr 1",
       "dpkit bound longtail-thm2: --noise-scale is 1e+200, but must be in [1e-75, 1e75]"},
      {"bound longtail-thm2 --noise-scale 1e70 --ncr 1e100",
       "dpkit bound longtail-thm2: the spike's eigenvalue (from the noise scale and the NCR) is "},
      {"bound --list mlp-thm13", "dpkit bound mlp-thm13: --list takes no bound name"},
      // Subnormal text says it underflows (it read "must be a finite number > 0"); derived
      // values are named as derived, not as if the user had typed them (a probe, 2026-11-27:
      // "--jl-dim is inf", "phases[i].tau is inf", "gamma is 1.1e+155").
      {"bound kan-thm4.1 --eta 1e-308",
       "dpkit bound kan-thm4.1: --eta is 1e-308, but must be a finite number > 0 (1e-308 "
       "underflows double precision"},
      {"bound kan-thm4.1 --eta 0x1p-1074",
       "dpkit bound kan-thm4.1: --eta is 0x1p-1074, but must be a finite number > 0 (0x1p-1074 "
       "underflows double precision"},
      {"bound nonconvex-thm6-proof --delta 1e-307",
       "dpkit bound nonconvex-thm6-proof: --jl-dim was not given, and the value derived for it "
       "from the other inputs is inf"},
      {"bound nonconvex-thm1-phase-sum --label-bound 1e308",
       "dpkit bound nonconvex-thm1-phase-sum: phase 1's noise tau = 8 B eta/4^i"},
      {"bound longtail-thm1 --noise-scale 1e-200",
       "dpkit bound longtail-thm1: --noise-scale is 1e-200, but must be in [1e-75, 1e75]"},
      {"bound nonconvex-thm1-phase-sum --eta none",
       "dpkit bound nonconvex-thm1-phase-sum: --eta is none, but must be a finite number > 0, "
       "or auto"},
      {"bound nonconvex-thm4 --dataset-size 9007199254740992",
       "dpkit bound nonconvex-thm4: Algorithm 4's step count 144 B^2/gamma^2"},
  };
  for (const auto& [args, message] : cases) {
    INFO(args);
    const auto r = dpkit_run(args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(count_lines(r.err) == 1);
    CHECK_THAT(r.err, StartsWith(message));
    CHECK(r.err.find("internal") == std::string::npos);
  }
  // An overflow is a numerical failure (exit 1), never a bound of +inf.
  const auto inf = dpkit_run("bound nonconvex-thm11 --alpha 1e-9");
  CHECK(inf.exit_code == 1);
  CHECK(count_lines(inf.err) == 1);
  CHECK_THAT(inf.err, Contains("overflows"));
  // A NaN total is not "-nan ... (it overflows)".
  const auto nan = dpkit_run("bound longtail-thm2 --signal-norm 1e308");
  CHECK(nan.exit_code == 1);
  CHECK(nan.err.find("nan") == std::string::npos);
}

TEST_CASE("dpkit bound: values whose intermediate quantities leave double precision", "[cli]") {
  // log(2m/delta) once formed 2m/delta = inf at delta = 1e-305 ("c_block_norm is inf"): the
  // bound's value is that at delta = 1e-300 up to the log's growth, and finite.
  for (const char* args : {"bound kan-thm4.1 --delta 1e-305 --format json",
                           "bound kan-certificate --delta-init 1e-305 --format json",
                           "bound nonconvex-thm4 --label-bound 1e160 --format json"}) {
    INFO(args);
    const auto r = dpkit_run(args);
    CHECK(r.exit_code == 0);
  }
  // (|w*|/alpha)^2 d log^4(1/zeta) depends on the ratio only: |w*|^2 and alpha^2 underflowed to
  // 0/0, and the NaN term dropped out of the max, leaving the privacy term (234.9) alone.
  const auto tiny = nlohmann::json::parse(
      dpkit_run("bound nonconvex-thm7-sample-size --w-star-norm 2e-170 --alpha 1e-170 "
                "--format json")
          .out);
  const auto plain = nlohmann::json::parse(
      dpkit_run("bound nonconvex-thm7-sample-size --w-star-norm 2 --alpha 1 --format json").out);
  for (const auto& row : tiny["results"])
    if (row["row"] == "term") CHECK(row["value"].is_number());
  double tiny_total = 0, plain_total = 0;
  for (const auto& row : tiny["results"])
    if (row["row"] == "total") tiny_total = row["value"].get<double>();
  for (const auto& row : plain["results"])
    if (row["row"] == "total") plain_total = row["value"].get<double>();
  CHECK(tiny_total == Approx(plain_total).epsilon(1e-12));
}

TEST_CASE("dpkit bound: an infinite value or limit says inf, and '-' only where there is none",
          "[cli]") {
  // At gamma = 1e-100 the width condition m >= c gamma^-4 has the limit 1e400 = inf: it was shown
  // as '-' (null), the sign a term row uses for "no limit".
  const auto r = dpkit_run("bound kan-thm4.1 --gamma 1e-100 --format json");
  REQUIRE(r.exit_code == 0);
  const auto j = json::parse(r.out);
  int width = 0;
  for (const auto& row : j["results"]) {
    if (row["row"] == "term") CHECK(row["limit"].is_null());
    if (row["row"] == "condition" &&
        row["name"].get<std::string>().find("c-width-lower gamma^-4") != std::string::npos) {
      ++width;
      CHECK(row["limit"] == "inf");
      CHECK(row["holds"] == false);
    }
  }
  CHECK(width == 1);
  const auto table = dpkit_run("bound kan-thm4.1 --gamma 1e-100").out;
  const auto line = table.find("c-width-lower gamma^-4");
  REQUIRE(line != std::string::npos);
  CHECK_THAT(table.substr(line, table.find('\n', line) - line), Contains(" inf "));
}

TEST_CASE("dpkit bound longtail: a clip above the gradients' scale is no better than no clip",
          "[cli]") {
  // The proofs bound the clipping multiplier h <= 1 by Lambda_k, so the factor is min{1, Lambda_k}
  // and a clip far above the gradients gives the clean limit of Remark 5 (Lambda_k = 1, the value
  // at --clip inf), not a better bound (--clip 100 once gave Lambda_k = 6.66 and a total of 0).
  auto total = [](const std::string& args) {
    const auto j = nlohmann::json::parse(dpkit_run(args + " --format json").out);
    for (const auto& row : j["results"])
      if (row["row"] == "total") return row["value"].get<double>();
    return -1.0;
  };
  const double clean = total("bound longtail-thm3-all --clip inf");
  CHECK(clean > 0);
  CHECK(total("bound longtail-thm3-all --clip 100") == clean);
  CHECK(total("bound longtail-thm3-tail --clip 100") ==
        total("bound longtail-thm3-tail --clip inf"));
}
