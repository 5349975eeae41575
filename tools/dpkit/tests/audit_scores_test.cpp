// dpkit audit --scores: canary scores from a file, the audit of audit/canary_scores.hpp, the
// accountant's certified ε beside it, and the verdict's exit status.
//
// Known answers are closed forms of perfectly separated scores (every inserted canary scores 1,
// every held-out one 0): at θ = 1 the Clopper–Pearson limits are those of k = 0 misses, 1 − t^{1/n},
// and the one-run bound with every one of K guesses right and δ = 0 is logit((1 − c)^{1/K}).
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.hpp"
#include "dpkit/divergence/gdp.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::WithinRel;
using dpkit::test::dpkit_run;
using json = nlohmann::json;
using dpkit::test::write_temp;

namespace {

std::string repeat(const std::string& line, int n) {
  std::string s;
  for (int i = 0; i < n; ++i) s += line;
  return s;
}

json row_of(const json& doc, const std::string& statistic) {
  for (const json& r : doc.at("results"))
    if (r.at("statistic") == statistic) return r;
  FAIL("no row " << statistic);
  return {};
}

}  // namespace

TEST_CASE("dpkit audit --scores: two files or one, the closed form of a perfect separation",
          "[cli][audit]") {
  const auto in = write_temp("in.csv", "score\n" + repeat("1\n", 200));
  const auto out = write_temp("out.csv", repeat("0\n", 300));
  const auto r = dpkit_run("audit --scores " + in.string() + " " + out.string() +
                           " --delta 1e-5 --format json");
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  const double t = 0.05 / 4;  // Bonferroni over the two distinct scores, two limits each
  const double expected =
      std::log((std::pow(t, 1.0 / 200) - 1e-5) / (1 - std::pow(t, 1.0 / 300)));
  const json cp = row_of(doc, "clopper-pearson");
  CHECK(cp.at("kind") == "lower-bound");
  CHECK_THAT(cp.at("epsilon").get<double>(), WithinRel(expected, 1e-10));
  CHECK(cp.at("delta") == 1e-5);
  CHECK(cp.at("confidence") == 0.95);
  CHECK(row_of(doc, "gdp").at("kind") == "estimate");
  CHECK(row_of(doc, "gdp").contains("mu_lower"));
  CHECK(row_of(doc, "auroc").at("auroc") == 1.0);
  CHECK(row_of(doc, "tpr-at-fpr").at("tpr") == 1.0);

  // The same canaries as one file with a member column, rows interleaved.
  std::string one = "score,member\n";
  for (int i = 0; i < 300; ++i) one += (i < 200 ? "1,1\n" : "") + std::string("0,0\n");
  const auto file = write_temp("one.csv", one);
  const auto r1 = dpkit_run("audit --scores " + file.string() + " --delta 1e-5 --format json");
  REQUIRE(r1.exit_code == 0);
  CHECK(row_of(json::parse(r1.out), "clopper-pearson").at("epsilon") == cp.at("epsilon"));
}

TEST_CASE("dpkit audit --scores: a claim below the lower bound exits 3, one above does not",
          "[cli][audit]") {
  const auto in = write_temp("in2.csv", repeat("1\n", 200));
  const auto out = write_temp("out2.csv", repeat("0\n", 300));
  const std::string base = "audit --scores " + in.string() + " " + out.string() + " --delta 1e-5 ";
  const auto low = dpkit_run(base + "--claim-epsilon 1");
  CHECK(low.exit_code == 3);
  CHECK_THAT(low.out, Contains("verdict: violated"));
  const auto high = dpkit_run(base + "--epsilon 50 --format json");
  CHECK(high.exit_code == 0);
  CHECK(json::parse(high.out).at("context").at("parameters").at("verdict") == "inconclusive");
}

TEST_CASE("dpkit audit --scores --one-run: the closed form of K right guesses",
          "[cli][audit]") {
  // 100 inserted canaries score 1, 100 held out score 0; the 50 highest scores are guessed in
  // (the 100 tied at 1: all of them are guesses, all right). δ = 0: ε = logit(0.05^{1/100}).
  const auto in = write_temp("in3.csv", repeat("1\n", 100));
  const auto out = write_temp("out3.csv", repeat("0\n", 100));
  const auto r = dpkit_run("audit --scores " + in.string() + " " + out.string() +
                           " --one-run --guesses 50 --delta 0 --format json");
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  const json one = row_of(doc, "one-run");
  const double q = std::pow(0.05, 1.0 / 100);
  CHECK(one.at("kind") == "lower-bound");
  CHECK(one.at("guesses") == 100);
  CHECK(one.at("correct") == 100);
  CHECK_THAT(one.at("epsilon").get<double>(), WithinRel(std::log(q / (1 - q)), 1e-8));
  // With one run the independent-runs statistics are estimates only.
  CHECK(row_of(doc, "clopper-pearson").at("kind") == "estimate");
  CHECK(row_of(doc, "one-run-fdp").at("kind") == "estimate");
}

TEST_CASE("dpkit audit --scores --accountant-run: the certified bracket beside the bounds",
          "[cli][audit]") {
  const auto in = write_temp("in4.csv", repeat("1\n", 100) + repeat("0\n", 100));
  const auto out = write_temp("out4.csv", repeat("0\n", 200));
  const auto r = dpkit_run("audit --scores " + in.string() + " " + out.string() +
                           " --delta 1e-5 --accountant-run \"--mu 1\" --format json");
  REQUIRE(r.exit_code == 0);
  const json doc = json::parse(r.out);
  const json acc = row_of(doc, "accountant");
  CHECK(acc.at("kind") == "upper-bound");
  const auto exact = dpkit::divergence::gdp_epsilon(1.0, 1e-5);
  CHECK(acc.at("epsilon").get<double>() >= exact.lower);
  CHECK(acc.at("epsilon").get<double>() <= exact.upper * (1 + 1e-9));
  // No --epsilon: the accountant's certified ε is the claim checked.
  CHECK(doc.at("context").at("parameters").at("claim_epsilon") == acc.at("epsilon"));
}

TEST_CASE("dpkit audit --scores: bad input is a usage error in the user's words",
          "[cli][audit]") {
  const auto in = write_temp("in5.csv", "1\n2\nabc\n");
  const auto out = write_temp("out5.csv", "0\n1\n");
  const auto bad = dpkit_run("audit --scores " + in.string() + " " + out.string());
  CHECK(bad.exit_code == 2);
  CHECK_THAT(bad.err, Contains(":3: 'abc' is not a finite number"));

  const auto good_in = write_temp("in6.csv", "1\n2\n3\n");
  const std::string base = "audit --scores " + good_in.string() + " " + out.string() + " ";
  const auto mixed = dpkit_run(base + "--mu 1");
  CHECK(mixed.exit_code == 2);
  CHECK_THAT(mixed.err, Contains("--mu describes a simulated run"));
  const auto guesses = dpkit_run(base + "--guesses 2");
  CHECK(guesses.exit_code == 2);
  CHECK_THAT(guesses.err, Contains("add --one-run"));
  const auto too_many = dpkit_run(base + "--one-run --guesses 9");
  CHECK(too_many.exit_code == 2);
  CHECK_THAT(too_many.err, Contains("guesses"));
  const auto no_header = dpkit_run("audit --scores " + good_in.string());
  CHECK(no_header.exit_code == 2);
  CHECK_THAT(no_header.err, Contains("columns score and member"));
  const auto run = dpkit_run(base + "--accountant-run \"--noise-multiplier 1\"");
  CHECK(run.exit_code == 2);
  CHECK_THAT(run.err, Contains("--accountant-run"));
}
