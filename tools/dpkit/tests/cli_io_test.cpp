// The command line's input and output contract: RFC 4180 CSV both ways, --output checked before
// the work and never half-written, never an input file, spectrum files that lack header lines,
// and accountants that cannot answer a run (docs/cli.md, "Output formats" and "Exit codes").
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "cli_run.hpp"
#include "dpkit/core/csv.hpp"

using Catch::Matchers::Contains;
using dpkit::test::count_lines;
using dpkit::test::dpkit_run;
using dpkit::test::slurp;
using json = nlohmann::json;
using dpkit::test::scratch;
using dpkit::test::write_temp;

TEST_CASE("CSV output is RFC 4180: the PLD method's commas are quoted", "[cli]") {
  const auto r = dpkit_run(
      "epsilon --noise-multiplier 1 --sampling-rate 0.01 --steps 100 --delta 1e-5 --format csv");
  REQUIRE(r.exit_code == 0);
  const auto records = dpkit::parse_csv(r.out);
  REQUIRE(records.size() == 2);
  CHECK(records[1].cells.size() == records[0].cells.size());
  // The method column (the run's parameters follow it).
  const auto method = std::find(records[0].cells.begin(), records[0].cells.end(), "method");
  REQUIRE(method != records[0].cells.end());
  CHECK_THAT(records[1].cells.at(static_cast<std::size_t>(method - records[0].cells.begin())),
             Contains("PLD/FFT, h = "));
  CHECK_THAT(r.out, Contains("\"PLD/FFT, h = "));
}

TEST_CASE("accountant all: an accountant out of its range gets an unavailable row", "[cli]") {
  // The CLT's μ = q·sqrt(T(e^{1/σ²} − 1)) is 5e19 here, far beyond what G(μ) can be evaluated
  // at; the PLD (a certified bracket near 1199) and RDP still answer, exit 0.
  const std::string run =
      "epsilon --noise-multiplier 0.1 --sampling-rate 1.024e-05 --steps 976563 --delta 1e-7 "
      "--accountant all";
  const auto r = dpkit_run(run + " --format json");
  REQUIRE(r.exit_code == 0);
  const json results = json::parse(r.out).at("results");
  REQUIRE(results.size() == 3);
  CHECK(results[0].at("kind") == "upper-bound");
  CHECK(results[0].at("epsilon_lower").get<double>() > 1190);
  CHECK(results[1].at("kind") == "upper-bound");
  CHECK(results[2].at("accountant") == "clt");
  CHECK(results[2].at("kind") == "unavailable");
  CHECK(results[2].at("epsilon").is_null());
  CHECK(results[2].at("termination") == "failure");
  CHECK_THAT(results[2].at("message").get<std::string>(), Contains("the CLT's mu"));
  // The CSV says why in a message column; the table in a line under it.
  const auto csv = dpkit_run(run + " --format csv");
  const auto records = dpkit::parse_csv(csv.out);
  REQUIRE(records.size() == 4);
  const auto message = std::find(records[0].cells.begin(), records[0].cells.end(), "message");
  REQUIRE(message != records[0].cells.end());
  CHECK_THAT(records[3].cells.at(static_cast<std::size_t>(message - records[0].cells.begin())),
             Contains("the CLT's mu"));
  CHECK_THAT(dpkit_run(run).out, Contains("clt: unavailable: the CLT's mu"));
  // The CLT alone: bad input for it, exit 2, one line.
  const auto alone = dpkit_run(
      "epsilon --noise-multiplier 0.1 --sampling-rate 1.024e-05 --steps 976563 --delta 1e-7 "
      "--accountant clt");
  CHECK(alone.exit_code == 2);
  CHECK(count_lines(alone.err) == 1);
}

TEST_CASE("output file: checked before the work, written whole, never an input", "[cli]") {
  // An unwritable place is refused at parse time (exit 2, no output), a full device at the
  // write (exit 2).
  const auto missing = dpkit_run("epsilon --mu 1 --delta 1e-5 --output /nonexistent-dir/x.csv");
  CHECK(missing.exit_code == 2);
  CHECK(missing.out.empty());
  const auto full = dpkit_run("epsilon --mu 1 --delta 1e-5 --output /dev/full");
  CHECK(full.exit_code == 2);
  CHECK_THAT(full.err, Contains("--output: cannot write /dev/full"));
  CHECK(count_lines(full.err) == 1);
  // A real file: replaced whole, no temporary left beside it.
  const auto file = scratch("eps.json");
  std::ofstream(file) << "old contents\n";
  const auto ok =
      dpkit_run("epsilon --mu 1 --delta 1e-5 --format json --output '" + file.string() + "'");
  REQUIRE(ok.exit_code == 0);
  CHECK(json::parse(slurp(file)).at("results").size() == 1);
  std::size_t entries = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(file.parent_path()))
    ++entries;
  CHECK(entries == 1);
  // Never the input: the spectrum file given to hsgd risk stays as it was.
  const auto spectrum = scratch("spectrum.csv");
  const std::string text =
      "# d: 2\n# ridge: 0.1\n# label_noise: 0.01\n# sigma: 1\n"
      "eigenvalue,multiplicity,e0_sq,xstar_sq,e0_xstar\n0.5,2,1,1,0.5\n";
  std::ofstream(spectrum) << text;
  const auto same = dpkit_run("hsgd risk --spectrum-file '" + spectrum.string() +
                              "' --learning-rate 1 --times 1 --output '" + spectrum.string() + "'");
  CHECK(same.exit_code == 2);
  CHECK_THAT(same.err, Contains("the file given to --spectrum-file"));
  CHECK(slurp(spectrum) == text);
  std::filesystem::remove_all(file.parent_path());
}

TEST_CASE("two output files of one command may not be the same file", "[cli]") {
  // --output beside each command's second output (--samples, --per-pair, --write-spectrum,
  // --tests, --script, --figure), the same file named two ways: exit 2 before the work, naming both
  // flags, and nothing written; before, one file silently replaced the other.
  const auto csv = scratch("both.csv"), svg = scratch("both.svg");
  const std::string dir = csv.parent_path().string();
  const std::string same_csv = "'" + dir + "/./both.csv'", same_svg = "'" + dir + "/./both.svg'";
  const auto input = write_temp("plot_input.csv", "x,y\n1,2\n2,3\n");
  const auto in_scores = write_temp("in_scores.csv", "score\n0.9\n0.8\n0.7\n");
  const auto out_scores = write_temp("out_scores.csv", "score\n0.1\n0.2\n0.3\n");
  struct pair_case {
    std::string args;
    const char* second;
    std::filesystem::path output;
  };
  const pair_case cases[] = {
      {"simulate --algorithm sgd --replicates 3 --steps 5 --batch-size 2 --noise-std 0.1 "
       "--samples " +
           same_csv,
       "--samples", csv},
      {"simulate --algorithm phased-sgd --dataset-size 256 --dimension 4 --rank 2 --replicates 3 "
       "--risk-samples 100 --samples " +
           same_csv,
       "--samples", csv},
      {"hsgd privacy --dimension 20 --dataset-size 30 --points 2 --pairs extreme:2 --per-pair " +
           same_csv,
       "--per-pair", csv},
      {"hsgd risk --spectrum flat --dimension 10 --learning-rate 1 --times 1 --write-spectrum " +
           same_csv,
       "--write-spectrum", csv},
      {"audit --algorithm gd --steps 2 --noise-std 1 --replicates 100 --tests " + same_csv,
       "--tests", csv},
      {"plot '" + input.string() + "' --script " + same_svg, "--script", svg},
      {"audit --algorithm gd --steps 2 --noise-std 1 --replicates 100 --mu 1 --figure " + same_svg,
       "--figure", svg},
      {"audit --scores '" + in_scores.string() + "' '" + out_scores.string() +
           "' --delta 1e-5 --claim-epsilon 8 --figure " + same_svg,
       "--figure", svg}};
  for (const auto& c : cases) {
    CAPTURE(c.args);
    std::filesystem::remove(c.output);
    const auto r = dpkit_run(c.args + " --output '" + c.output.string() + "'");
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Contains(std::string(c.second) + " is ") &&
                          Contains("the file given to --output: one would replace the other"));
    CHECK_FALSE(std::filesystem::exists(c.output));
  }
  // dpkit validate writes ID.json and ID.csv into --output-dir: --output may not be one of them,
  // nor may the --baseline it reads before the run.
  const auto v = dpkit_run("validate gdp-gaussian-1d --no-figures --format json --output-dir '" +
                           dir + "' --output " + "'" + dir + "/./gdp-gaussian-1d.json'");
  CHECK(v.exit_code == 2);
  CHECK_THAT(v.err, Contains("the file given to --output-dir (scenario gdp-gaussian-1d): one "
                             "would replace the other"));
  CHECK_FALSE(std::filesystem::exists(dir + "/gdp-gaussian-1d.json"));
  const auto b = write_temp("gdp-gaussian-1d.csv", "kept\n");
  const auto vb = dpkit_run("validate gdp-gaussian-1d --no-figures --output-dir '" + dir +
                            "' --baseline '" + b.string() + "'");
  CHECK(vb.exit_code == 2);
  CHECK_THAT(vb.err, Contains("the file given to --baseline: it would be overwritten"));
  CHECK(dpkit::test::slurp(b) == "kept\n");
  std::filesystem::remove_all(csv.parent_path());
}

TEST_CASE("paper algorithms with --samples: a row per replicate, the report's means", "[cli]") {
  // One learner from each file of runs (GLM, networks, long tail): the samples file has the
  // report's observables in its order, one row per replicate, and each column's average is the
  // mean the report prints (an independent sum of the written values).
  const char* runs[] = {
      "simulate --algorithm phased-sgd --dataset-size 256 --dimension 4 --rank 2 "
      "--risk-samples 1000 --replicates 5",
      "simulate --algorithm mlp-dp-sgd --dataset-size 50 --dimension 3 --width 4 --steps 20 "
      "--test-examples 50 --replicates 5",
      "simulate --algorithm longtail-dp-sgd --classes 3 --dimension 20 --dataset-size 30 "
      "--width 4 --epochs 2 --replicates 3"};
  for (const char* args : runs) {
    CAPTURE(args);
    const auto file = scratch("samples.csv");
    const auto r =
        dpkit_run(std::string(args) + " --format json --samples '" + file.string() + "'");
    REQUIRE(r.exit_code == 0);
    const json doc = json::parse(r.out);
    const auto records = dpkit::parse_csv(slurp(file));
    const auto replicates = doc.at("context").at("parameters").at("replicates").get<std::size_t>();
    REQUIRE(records.size() == replicates + 1);
    const auto& results = doc.at("results");
    REQUIRE(records[0].cells.size() == results.size() + 1);
    CHECK(records[0].cells[0] == "replicate");
    for (std::size_t j = 0; j < results.size(); ++j) {
      CHECK(records[0].cells[j + 1] == results[j].at("observable").get<std::string>());
      double sum = 0, finite = 0;
      for (std::size_t r2 = 1; r2 < records.size(); ++r2) {
        const double v = std::stod(records[r2].cells[j + 1]);
        if (std::isfinite(v)) {
          sum += v;
          finite += 1;
        }
      }
      const json& mean = results[j].at("mean");
      if (finite == static_cast<double>(replicates) && mean.is_number())
        CHECK(std::abs(sum / finite - mean.get<double>()) <=
              1e-12 * (1 + std::abs(mean.get<double>())));
    }
  }
  std::filesystem::remove_all(scratch("samples.csv").parent_path());
}

TEST_CASE("a spectrum file without ridge/label_noise/sigma lines takes them from the flags",
          "[cli]") {
  // R-style quoted header, CRLF line ends, and no header lines at all: d is the sum of the
  // multiplicities, the rest comes from --ridge, --label-noise and --noise-std (docs/volterra.md).
  const auto spectrum = scratch("bare.csv");
  std::ofstream(spectrum) << "\"eigenvalue\",\"multiplicity\",\"e0_sq\",\"xstar_sq\","
                             "\"e0_xstar\"\r\n0.5,2,1,1,0.5\r\n";
  const std::string base =
      "hsgd risk --spectrum-file '" + spectrum.string() + "' --learning-rate 1 --times 1";
  const auto without = dpkit_run(base);
  CHECK(without.exit_code == 2);
  CHECK_THAT(without.err,
             Contains("missing header line '# ridge: ...'") && Contains("give it with --ridge"));
  const auto with = dpkit_run(base + " --ridge 0.1 --label-noise 0.01 --noise-std 1 --format json");
  REQUIRE(with.exit_code == 0);
  const json doc = json::parse(with.out);
  CHECK(doc.at("context").at("parameters").at("ridge") == 0.1);
  // The same problem written with its header lines gives the same risk.
  const auto full = scratch("full.csv");
  std::ofstream(full) << "# d: 2\n# ridge: 0.1\n# label_noise: 0.01\n# sigma: 1\n"
                         "eigenvalue,multiplicity,e0_sq,xstar_sq,e0_xstar\n0.5,2,1,1,0.5\n";
  const auto reference = dpkit_run("hsgd risk --spectrum-file '" + full.string() +
                                   "' --learning-rate 1 --times 1 --format json");
  REQUIRE(reference.exit_code == 0);
  CHECK(json::parse(reference.out).at("results") == doc.at("results"));
  std::filesystem::remove_all(spectrum.parent_path());
}

TEST_CASE("dpkit epsilon's table fits 120 columns and its legend covers only what it shows",
          "[cli][table]") {
  // The shuffled run's method text alone is ~200 characters: it moves below the table, whole.
  const std::string shuffled =
      "epsilon --noise-multiplier 1.1 --batch-size 256 --dataset-size 60000 --epochs 3 "
      "--sampling shuffling --delta 1e-5 --accountant all";
  const auto r = dpkit_run(shuffled);
  REQUIRE(r.exit_code == 0);
  std::istringstream lines(r.out);
  std::string text, line;
  while (std::getline(lines, line)) {
    CHECK(line.size() <= 120);
    text += line + " ";
  }
  const auto csv = dpkit_run(shuffled + " --format csv");
  REQUIRE(csv.exit_code == 0);
  // The method, wrapped, is all there: its words in order.
  CHECK_THAT(text, Contains("method (pld): shuffling, t = 235 steps per epoch"));
  CHECK_THAT(text, Contains("upper bound without amplification"));
  CHECK_THAT(csv.out, Contains("upper bound without amplification ((sqrt(E)/sigma)-GDP, E = 3)"));
  CHECK_THAT(text, Contains("shuffling: zero-out neighbours"));
  CHECK_THAT(text, !Contains("Poisson sampling,"));
  CHECK_THAT(text, !Contains("random-allocation"));
  CHECK_THAT(text, !Contains("approximation (clt)"));  // clt is unavailable here

  // A Poisson run by every accountant: each kind explained once, the sensitivity named.
  const auto p = dpkit_run(
      "epsilon --noise-multiplier 1 --sampling-rate 0.01 --steps 1000 --delta 1e-5 "
      "--accountant all");
  REQUIRE(p.exit_code == 0);
  CHECK_THAT(p.out, Contains("approximation (clt): no"));
  CHECK_THAT(p.out, Contains("relative to the"));
  CHECK_THAT(p.out, Contains("sensitivity C."));
  CHECK_THAT(p.out, !Contains("shuffling"));
  // Fixed-size batches: replace-one, sensitivity 2C, dp_accounting's convention said.
  const auto w = dpkit_run(
      "delta --noise-multiplier 1 --sampling-rate 0.01 --steps 1000 --epsilon 2 "
      "--sampling without-replacement");
  REQUIRE(w.exit_code == 0);
  CHECK_THAT(w.out, Contains("replace-one neighbours"));
  CHECK_THAT(w.out, Contains("2C"));
  CHECK_THAT(w.out, Contains("dp_accounting's convention"));
}
