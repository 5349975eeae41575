// End-to-end tests of `dpkit correlated` (WSK+26's correlated noise): every method labelled,
// the inapplicable ones reported with their failing condition, the factors against closed
// forms, --help and bad input.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using dpkit::test::count_lines;
using dpkit::test::dpkit_run;
using dpkit::test::relative_error;
using json = nlohmann::json;

TEST_CASE("dpkit correlated: every method labelled, inapplicable ones reported, factors", "[cli]") {
  const auto r = dpkit_run(
      "correlated --correlation 0.5 --sampling-rate 0.1 --steps 1000 --epsilon 1 --delta 1e-5 "
      "--format json");
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  const json doc = json::parse(r.out);
  CHECK(doc.at("context").at("tool") == "dpkit correlated");
  CHECK(doc.at("context").at("parameters").at("correlation") == 0.5);
  const json& results = doc.at("results");
  REQUIRE(results.size() == 10);  // the nine methods and the lower bound
  std::map<std::string, json> by_method;
  for (const json& row : results) {
    REQUIRE(row.contains("method"));
    REQUIRE(row.contains("noise_multiplier"));
    REQUIRE(row.contains("validity"));
    REQUIRE(row.contains("label"));
    by_method[row.at("method").get<std::string>()] = row;
  }
  for (const char* m : {"pld", "d9", "d9-eq19", "pld-replace-one"}) {
    CAPTURE(m);
    CHECK(by_method.at(m).at("validity") == "not-applicable");
    CHECK(by_method.at(m).at("noise_multiplier").is_null());
  }
  // Thm F.12 at these settings: 252.7 (an independent computation); its conditions hold.
  const json& f12 = by_method.at("f12");
  CHECK(std::abs(f12.at("noise_multiplier").get<double>() - 252.7) < 0.05);
  CHECK(f12.at("validity") == "valid-upper-bound");
  CHECK(f12.at("conditions_met") == true);
  // The tightest valid upper bound here is f9-exact (f9-block is conjecture-dependent).
  const json& exact = by_method.at("f9-exact");
  CHECK(exact.at("factor").get<double>() == 1.0);
  CHECK(by_method.at("f9-block").at("validity") == "conjecture-dependent");
  CHECK(by_method.at("f9-block").at("factor").get<double>() <= 1.0);
  CHECK(relative_error(f12.at("factor").get<double>(),
                       f12.at("noise_multiplier").get<double>() /
                           exact.at("noise_multiplier").get<double>()) < 1e-15);
  CHECK(f12.at("factor").get<double>() > 2.0);
  // The lower bound: below every calibration; the mechanism is not DP there, and the
  // projected delta it reports exceeds the budget.
  const json& lower = by_method.at("lower-bound");
  CHECK(lower.at("validity") == "lower-bound");
  CHECK(lower.at("factor").get<double>() < by_method.at("f9-block").at("factor").get<double>());
  CHECK(lower.at("noise_multiplier").get<double>() > 0);
  CHECK(lower.at("noise_multiplier_upper").get<double>() >
        lower.at("noise_multiplier").get<double>());
  CHECK_THAT(lower.at("label").get<std::string>(), Contains("not (epsilon delta)-DP"));
}

TEST_CASE("dpkit correlated at lambda = 0: pld is the tightest, conditions that fail are shown",
          "[cli]") {
  // rT = 10 < 3 ln(2/δ) = 36.6: Thm F.12 does not apply, and says so.
  const auto r = dpkit_run(
      "correlated --correlation 0 --sampling-rate 0.01 --steps 1000 --epsilon 2 --delta 1e-5 "
      "--format json");
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  std::map<std::string, json> by_method;
  for (const json& row : doc.at("results")) by_method[row.at("method").get<std::string>()] = row;
  REQUIRE(by_method.size() == 10);
  CHECK(by_method.at("f12").at("validity") == "outside-conditions");
  CHECK(by_method.at("f12").at("conditions_met") == false);
  CHECK_THAT(by_method.at("f12").at("conditions").get<std::string>(), Contains("FAILS"));
  CHECK(by_method.at("pld").at("validity") == "valid-upper-bound");
  CHECK(by_method.at("pld").at("factor").get<double>() == 1.0);
  CHECK(by_method.at("d9").at("validity") == "heuristic");
  CHECK(by_method.at("d9").at("relation") == "replace-one");
  CHECK(by_method.at("d9-eq19").at("validity") == "valid-upper-bound");
  CHECK(by_method.at("d9-eq19").at("factor").get<double>() >= 1.0);
  CHECK(by_method.at("d9-eq19").at("attainable") == true);
  CHECK(by_method.at("pld-replace-one").at("validity") == "valid-upper-bound");
  CHECK(by_method.at("pld-replace-one").at("noise_multiplier").get<double>() <=
        by_method.at("d9-eq19").at("noise_multiplier").get<double>());
  CHECK(by_method.at("f9-exact").at("factor").get<double>() > 1.0);
  // At λ = 0 the truth is pld's κ (to its bracket): the lower bound sits below it.
  CHECK(by_method.at("lower-bound").at("factor").get<double>() <= 1.0);
  // Where eq. (19) cannot certify the budget at any kappa, that is what the row says.
  const auto floor = dpkit_run(
      "correlated --correlation 0 --sampling-rate 0.1 --steps 1000 --epsilon 1 --delta 1e-5 "
      "--method d9-eq19 --format json");
  REQUIRE(floor.exit_code == 0);
  const json floor_doc = json::parse(floor.out);
  const json& floor_row = floor_doc.at("results").at(0);
  CHECK(floor_row.at("attainable") == false);
  CHECK(floor_row.at("noise_multiplier").is_null());
  CHECK_THAT(floor_row.at("message").get<std::string>(), Contains("at no kappa"));
  // CSV: one header row, one row per method, the columns of the table.
  const auto csv = dpkit_run(
      "correlated --correlation 0 --sampling-rate 0.1 --steps 200 --epsilon 1 --delta 1e-5 "
      "--method f12 --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK_THAT(csv.out, StartsWith("method,noise_multiplier,factor,validity,form,relation,"
                                 "conditions_met,label\n"));
  CHECK(count_lines(csv.out) == 2);
  CHECK_THAT(csv.out, Contains("f12,") && Contains("outside-conditions"));
}

TEST_CASE("dpkit correlated: a single inapplicable method, --help, bad input", "[cli]") {
  const auto na = dpkit_run(
      "correlated --correlation 0.5 --sampling-rate 0.1 --steps 100 --epsilon 1 --delta 1e-5 "
      "--method pld");
  CHECK(na.exit_code == 0);
  CHECK_THAT(na.out, Contains("not-applicable") && Contains("pld: not applicable"));
  const auto h = dpkit_run("correlated --help");
  CHECK(h.exit_code == 0);
  CHECK_THAT(h.out, Contains("f9-exact") && Contains("conjecture-dependent") &&
                        Contains("Thm F.12") && Contains("--correlation"));
  struct bad_case {
    std::string args, message;
  };
  const std::vector<bad_case> cases = {
      {"correlated --correlation 1 --sampling-rate 0.1 --steps 10 --epsilon 1 --delta 1e-5",
       "--correlation is 1, but must be a number in [0, 1)"},
      {"correlated --correlation 0.5 --sampling-rate 0 --steps 10 --epsilon 1 --delta 1e-5",
       "--sampling-rate is 0, but must be a number in [2.2250738585072014e-308, 1]"},
      {"correlated --correlation 0.5 --sampling-rate 0.1 --steps 10 --epsilon 1 --delta 1e-5 "
       "--method f13",
       "--method"},
      {"correlated --correlation 0.5 --sampling-rate 0.1 --epsilon 1 --delta 1e-5",
       "--steps is required"},
  };
  for (const bad_case& c : cases) {
    CAPTURE(c.args);
    const auto r = dpkit_run(c.args);
    CAPTURE(r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Contains(c.message));
    CHECK(count_lines(r.err) == 1);
    CHECK(r.out.empty());
  }
}
