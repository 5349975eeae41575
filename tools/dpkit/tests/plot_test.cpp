// dpkit plot: every kind of dpkit output is recognised and drawn, intervals become error bars
// (x only, y only, both) or bands, log axes where values span decades and not otherwise, SVG,
// PNG and PDF by extension, and bad input exits 2 with one line (docs/plot.md).
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "cli_run.hpp"

using Catch::Matchers::Contains;
using dpkit::test::count_lines;
using dpkit::test::dpkit_run;
using dpkit::test::slurp;
using dpkit::test::scratch;

namespace {

std::string quoted(const std::filesystem::path& p) {
  return "'" + p.string() + "'";
}

void write(const std::filesystem::path& p, const std::string& text) {
  std::ofstream out(p, std::ios::binary);
  out << text;
}

// Draws `inputs` (with `flags`) into NAME.svg and returns the gnuplot script (--script); the
// run must succeed.
std::string script_of(const std::string& inputs,
                      const std::string& flags = "",
                      const std::string& name = "fig") {
  const auto svg = scratch(name + ".svg"), gp = scratch(name + ".gp");
  std::filesystem::remove(gp);
  const auto r = dpkit_run("plot " + inputs + " --output " + quoted(svg) + " --script " +
                           quoted(gp) + " " + flags);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  REQUIRE(std::filesystem::file_size(svg) > 0);
  return slurp(gp);
}

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (auto at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

// The plot command's clauses, one per element.
std::vector<std::string> plot_clauses(const std::string& script) {
  const auto start = script.find("\nplot ");
  REQUIRE(start != std::string::npos);
  const auto end = script.find("\nunset output", start);
  const std::string plot = script.substr(start + 6, end - start - 6);
  std::vector<std::string> out;
  std::size_t from = 0;
  for (auto at = plot.find(", \\\n"); at != std::string::npos; at = plot.find(", \\\n", from)) {
    out.push_back(plot.substr(from, at - from));
    from = at + 4;
  }
  out.push_back(plot.substr(from));
  return out;
}

// A long-format validation CSV with one series per kind of interval.
const char* kIntervals =
    "series,x,y,x_lo,x_hi,y_lo,y_hi\n"
    "y only,1,2,,,1.5,2.5\n"
    "y only,2,3,,,2.5,3.5\n"
    "x only,1,4,0.5,1.5,,\n"
    "x only,2,5,1.5,2.5,,\n"
    "both,1,6,0.8,1.2,5.5,6.5\n"
    "both,2,7,1.8,2.2,6.5,7.5\n"
    "none,1,8,,,,\n"
    "none,2,9,,,,\n";

}  // namespace

TEST_CASE("dpkit plot of a validation CSV takes its axis names from the result beside it",
          "[cli][plot]") {
  // dpkit validate writes <id>.csv and <id>.json side by side; the CSV alone says x and y.
  const auto csv = scratch("scen-1.csv");
  write(csv, kIntervals);
  std::filesystem::remove(scratch("scen-1.json"));
  const std::string alone = script_of(quoted(csv));
  CHECK_THAT(alone, Contains("set xlabel \"x\""));
  CHECK_THAT(alone, Contains("set ylabel \"y\""));
  write(scratch("scen-1.json"),
        R"({"id": "scen-1", "verdict": "holds", "tightness": 0.5,
            "figure": {"title": "Theorem 2 against Monte Carlo", "x_label": "steps T",
                       "y_label": "excess risk", "log_y": true, "series": []}})");
  const std::string paired = script_of(quoted(csv));
  CHECK_THAT(paired, Contains("Theorem 2 against Monte Carlo"));
  CHECK_THAT(paired, Contains("set xlabel \"steps T\""));
  CHECK_THAT(paired, Contains("set ylabel \"excess risk\""));
  CHECK_THAT(paired, Contains("set logscale y"));
  CHECK_THAT(paired, Contains("scen-1") && Contains("holds"));
  // A JSON beside it that is not a validation result is ignored.
  write(scratch("scen-1.json"), "[1, 2]");
  CHECK_THAT(script_of(quoted(csv)), Contains("set xlabel \"x\""));
  std::filesystem::remove(scratch("scen-1.json"));
}

TEST_CASE("dpkit plot of an epsilon or delta CSV keeps the run's delta, sigma and q",
          "[cli][plot]") {
  // The program writes the run's parameters as constant columns after the results; the plot
  // reads them back into its title as the JSON path reads the context.
  const auto eps = scratch("run-eps.csv"), del = scratch("run-del.csv");
  REQUIRE(dpkit_run("epsilon --noise-multiplier 1.3 --sampling-rate 0.02 --steps 100:300:100 "
                    "--delta 3e-6 --format csv --output " + quoted(eps))
              .exit_code == 0);
  REQUIRE(dpkit_run("delta --noise-multiplier 1.3 --sampling-rate 0.02 --steps 100:300:100 "
                    "--epsilon 2 --format csv --output " + quoted(del))
              .exit_code == 0);
  CHECK_THAT(slurp(eps), Contains(",delta,noise_multiplier,sampling_rate,sampling\n"));
  const std::string e = script_of(quoted(eps), "", "run-eps");
  CHECK_THAT(e, Contains("ε of the run by accountant"));
  CHECK_THAT(e, Contains("σ = 1.3, q = 0.02 (poisson)"));
  CHECK_THAT(e, Contains("ε at δ = 3"));
  const std::string d = script_of(quoted(del), "", "run-del");
  CHECK_THAT(d, Contains("δ of the run by accountant"));  // not read as an ε CSV
  CHECK_THAT(d, Contains("σ = 1.3, q = 0.02 (poisson)"));
  CHECK_THAT(d, Contains("δ at ε = 2"));
}

TEST_CASE("dpkit plot draws error bars for y-only, x-only and two-sided intervals", "[cli][plot]") {
  const auto csv = scratch("intervals.csv");
  write(csv, kIntervals);
  const std::string gp = script_of(quoted(csv));
  const auto clauses = plot_clauses(gp);
  REQUIRE(clauses.size() == 4);
  // The validation CSV's series with intervals are points with the matching error bars.
  CHECK_THAT(clauses[0], Contains("using 1:2:5:6") && Contains("with yerrorbars"));
  CHECK_THAT(clauses[1], Contains("using 1:2:3:4") && Contains("with xerrorbars"));
  CHECK_THAT(clauses[2], Contains("using 1:2:3:4:5:6") && Contains("with xyerrorbars"));
  CHECK_THAT(clauses[3], Contains("with lines"));
  CHECK(count(gp, "errorbars pt") == 3);
  // The data carry the interval ends (x y x_lo x_hi y_lo y_hi).
  CHECK_THAT(gp, Contains("\n1 2 1 1 1.5 2.5\n"));
  CHECK_THAT(gp, Contains("\n1 4 0.5 1.5 4 4\n"));
  CHECK_THAT(gp, Contains("\n2 7 1.8 2.2 6.5 7.5\n"));
  // The SVG has one bar path per interval end point drawn: more paths than without intervals.
  const std::string svg = slurp(scratch("fig.svg"));
  CHECK_THAT(svg, Contains("<svg"));
  CHECK(count(svg, "<path") > 8);
}

TEST_CASE("dpkit plot draws a dense curve's y intervals as a band", "[cli][plot]") {
  std::string text = "t,value,lo,hi\n";
  for (int i = 0; i < 60; ++i)
    text += std::to_string(i) + "," + std::to_string(i * 0.5) + "," + std::to_string(i * 0.5 - 1) +
            "," + std::to_string(i * 0.5 + 1) + "\n";
  const auto csv = scratch("band.csv");
  write(csv, text);
  const std::string gp =
      script_of(quoted(csv), "--x t --y value --y-lower lo --y-upper hi", "band");
  CHECK_THAT(gp, Contains("using 1:5:6 with filledcurves"));
  CHECK(count(gp, "errorbars pt") == 0);
  // Without the interval columns: no band.
  const std::string plain = script_of(quoted(csv), "--x t --y value", "plain");
  CHECK(count(plain, "filledcurves") == 0);
}

TEST_CASE("dpkit plot chooses log axes for values spanning decades, and only then", "[cli][plot]") {
  const auto wide = scratch("wide.csv"), narrow = scratch("narrow.csv"),
             signs = scratch("signs.csv");
  write(wide, "steps,eps\n10,0.001\n100,0.01\n1000,0.1\n10000,1\n");
  write(narrow, "steps,eps\n10,1\n20,2\n50,3\n90,4\n");
  write(signs, "steps,eps\n-1000,1\n0,100\n1000,10000\n");
  const std::string w = script_of(quoted(wide), "--x steps --y eps", "wide");
  CHECK_THAT(w, Contains("set logscale x"));
  CHECK_THAT(w, Contains("set logscale y"));
  const std::string n = script_of(quoted(narrow), "--x steps --y eps", "narrow");
  CHECK(count(n, "set logscale") == 0);
  // y spans four decades (log), x crosses zero (linear).
  const std::string s = script_of(quoted(signs), "--x steps --y eps", "signs");
  CHECK(count(s, "set logscale x") == 0);
  CHECK_THAT(s, Contains("set logscale y"));
  // The flags override the choice either way.
  const std::string forced = script_of(quoted(narrow), "--x steps --y eps --log-y", "forced");
  CHECK_THAT(forced, Contains("set logscale y"));
  CHECK(count(forced, "set logscale x") == 0);
  const std::string linear =
      script_of(quoted(wide), "--x steps --y eps --linear-x --linear-y", "linear");
  CHECK(count(linear, "set logscale") == 0);
}

TEST_CASE("dpkit plot fits the axes to the data with a margin", "[cli][plot]") {
  const auto csv = scratch("fit.csv");
  write(csv, "x,y,lo,hi\n2,10,9,11\n3,20,19,21\n5,30,28,32\n");
  const std::string gp = script_of(quoted(csv), "--x x --y y --y-lower lo --y-upper hi", "fitgp");
  std::smatch m;
  const std::regex xr(R"(set xrange \[([-0-9.e+]+):([-0-9.e+]+)\])"),
      yr(R"(set yrange \[([-0-9.e+]+):([-0-9.e+]+)\])");
  REQUIRE(std::regex_search(gp, m, xr));
  const double x_lo = std::stod(m[1]), x_hi = std::stod(m[2]);
  CHECK(x_lo < 2);  // nothing on the frame
  CHECK(x_hi > 5);
  CHECK(x_lo > 1.5);  // and not far beyond the data
  CHECK(x_hi < 5.5);
  REQUIRE(std::regex_search(gp, m, yr));
  const double y_lo = std::stod(m[1]), y_hi = std::stod(m[2]);
  CHECK(y_lo < 9);  // the interval ends are inside too
  CHECK(y_hi > 32);
  CHECK(y_lo > 7);
  CHECK(y_hi < 34);
}

TEST_CASE("dpkit plot recognises each dpkit output by its columns or context", "[cli][plot]") {
  // epsilon against steps (the rows of several steps values), one series per accountant.
  const auto eps = scratch("eps.csv");
  write(eps,
        "steps,accountant,epsilon,kind,epsilon_lower,epsilon_upper,method\n"
        "100,pld,0.7,upper-bound,0.69,0.7,PLD\n100,rdp,1.2,upper-bound,,1.2,RDP\n"
        "100,clt,0.5,approximation,,,CLT\n"
        "1000,pld,1.8,upper-bound,1.79,1.8,PLD\n1000,rdp,2.1,upper-bound,,2.1,RDP\n"
        "1000,clt,1.6,approximation,,,CLT\n"
        "10000,pld,6.2,upper-bound,6.18,6.2,PLD\n10000,rdp,6.7,upper-bound,,6.7,RDP\n"
        "10000,clt,,unavailable,,,none\n");
  const std::string e = script_of(quoted(eps), "", "eps");
  CHECK_THAT(e, Contains("ε of the run by accountant"));
  CHECK_THAT(e, Contains("PLD: upper bound, certified bracket [ε_{lower}, ε_{upper}]"));
  CHECK_THAT(e, Contains("RDP: upper bound\""));
  CHECK_THAT(e, Contains("CLT: approximation (no guarantee)"));
  CHECK_THAT(e, Contains("set xlabel \"steps T\""));
  CHECK(count(e, "errorlines") == 1);  // the PLD bracket only
  // Epochs are preferred to steps when the run was given in epochs.
  const auto epochs = scratch("epochs.csv");
  write(epochs,
        "steps,epochs,accountant,epsilon,kind,epsilon_lower,epsilon_upper,method\n"
        "60,1,pld,1.3,upper-bound,1.29,1.3,PLD\n120,2,pld,1.6,upper-bound,1.59,1.6,PLD\n");
  CHECK_THAT(script_of(quoted(epochs), "", "epochs"), Contains("set xlabel \"epochs\""));

  // The program's own outputs.
  const auto tradeoff = scratch("tradeoff.csv"), delta = scratch("delta.json"),
             risk = scratch("risk.csv"), privacy = scratch("privacy.json"),
             shifted = scratch("shifted.csv"), simulate = scratch("simulate.csv"),
             correlated = scratch("correlated.json");
  const std::vector<std::string> runs = {
      "tradeoff --noise-multiplier 1 --sampling-rate 0.1 --steps 10 --points 41 --format csv "
      "--output " +
          quoted(tradeoff),
      "delta --noise-multiplier 1 --sampling-rate 0.01 --steps 100 --epsilon 1 --accountant all "
      "--format json --output " +
          quoted(delta),
      "hsgd risk --spectrum isotropic:1 --dimension 10 --learning-rate 1 --times 0.5,1,2 --format "
      "csv "
      "--output " +
          quoted(risk),
      "hsgd privacy --dimension 20 --dataset-size 100 --noise-std 1.5 --orders 2 --points 3 "
      "--format json --output " +
          quoted(privacy),
      "shifted noisy-gd --sensitivity 1 --dataset-size 1 --noise-std 1 --contraction 0.95 --steps "
      "100 "
      "--format csv --output " +
          quoted(shifted),
      "simulate --algorithm sgd --batch-size 10 --noise-std 0.5 --steps 20 --record-every 5 "
      "--replicates 20 --format csv --output " +
          quoted(simulate),
      "correlated --correlation 0.5 --sampling-rate 0.1 --steps 100 --epsilon 1 --delta 1e-5 "
      "--format json --output " +
          quoted(correlated)};
  for (const std::string& run : runs) {
    INFO(run);
    REQUIRE(dpkit_run(run).exit_code == 0);
  }
  const std::string t = script_of(quoted(tradeoff), "", "tradeoff");
  CHECK_THAT(t, Contains("Tradeoff curve"));
  CHECK_THAT(t, Contains("certified bracket [β, β_{upper}]"));
  CHECK_THAT(t, Contains("filledcurves"));  // the bracket as a band
  CHECK_THAT(t, Contains("perfect privacy: β = 1 − α"));
  const std::string roc = script_of(quoted(tradeoff), "--roc", "roc");
  CHECK_THAT(roc, Contains("true-positive rate 1 − β(α)"));
  CHECK_THAT(roc, Contains("set logscale x"));
  CHECK_THAT(roc, Contains("set logscale y"));
  CHECK_THAT(roc, Contains("random guessing: TPR = FPR"));
  // One run of dpkit delta: the accountants side by side, the PLD bracket as an error bar.
  const std::string d = script_of(quoted(delta), "", "delta");
  CHECK_THAT(d, Contains("δ of the run by accountant"));
  CHECK_THAT(d, Contains("set xtics (\"PLD\" 1, \"RDP\" 2, \"CLT\" 3)"));
  CHECK_THAT(d, Contains("set ylabel \"δ at ε = 1\""));
  CHECK_THAT(d, Contains("yerrorbars"));
  const std::string r = script_of(quoted(risk), "", "risk");
  CHECK_THAT(r, Contains("population risk P_t"));
  CHECK_THAT(r, Contains("regularised risk R_t"));
  const std::string p = script_of(quoted(privacy), "", "privacy");
  CHECK_THAT(p, Contains("Rényi DP ε_α(t), α = 2"));
  CHECK_THAT(p, Contains("axes x1y2"));  // ε at δ on the right-hand axis
  const std::string s = script_of(quoted(shifted), "", "shifted");
  CHECK_THAT(s, Contains("Privacy of the last iterate by bound"));
  CHECK_THAT(s, Contains("shifted interpolation"));
  const std::string sim = script_of(quoted(simulate), "", "simulate");
  CHECK_THAT(sim, Contains("risk on D\""));
  CHECK_THAT(sim, Contains("yerrorlines"));  // the 95 % intervals
  const std::string c = script_of(quoted(correlated), "", "correlated");
  CHECK_THAT(c, Contains("noise multiplier κ"));
  CHECK_THAT(c, Contains("Lemma F.9,"));
  CHECK_THAT(c, !Contains("f9-row-sum"));  // the methods in words, not their codes
}

TEST_CASE("dpkit plot draws a validation result, JSON or CSV, as dpkit validate does",
          "[cli][plot]") {
  const auto dir = scratch("validate");
  const auto v = dpkit_run("validate gdp-gaussian-1d --no-figures --output-dir " + quoted(dir));
  REQUIRE(v.exit_code == 0);
  const std::string j = script_of(quoted(dir / "gdp-gaussian-1d.json"), "", "vjson");
  CHECK_THAT(j, Contains("gdp-gaussian-1d: "));  // the subtitle: id, verdict, tightness
  CHECK_THAT(j, Contains("type I error α"));
  CHECK_THAT(j, Contains("xyerrorbars"));  // the Clopper–Pearson boxes
  const std::string c = script_of(quoted(dir / "gdp-gaussian-1d.csv"), "", "vcsv");
  CHECK_THAT(c, Contains("xyerrorbars"));
}

TEST_CASE("dpkit plot keeps a validation result's category axis", "[cli][plot]") {
  const auto result = scratch("categories_result.json");
  write(result,
        R"({"id": "x-test", "verdict": "holds", "tightness": null, "figure": {"title": "t",
            "x_label": "cell", "y_label": "accuracy", "log_x": false, "log_y": false,
            "x_categories": ["first cell", "second cell"],
            "series": [{"name": "clean", "style": "points", "x": [1, 2], "y": [0.5, 0.6],
                        "y_lo": [0.4, 0.5], "y_hi": [0.6, 0.7]},
                       {"name": "DP", "style": "points", "x": [1, 2], "y": [0.3, 0.4]}]}})");
  const std::string gp = script_of(quoted(result), "", "categories_result");
  CHECK_THAT(gp, Contains("set xtics (\"first cell\" 1, \"second cell\" 2)"));
  CHECK_THAT(gp, Contains("x-test: holds"));
  CHECK_THAT(gp, Contains("yerrorbars"));
  CHECK_THAT(gp, Contains("\n0.925 0.5 "));  // side by side in the category
}

TEST_CASE("dpkit plot pools single-run outputs into a sweep and overlays curves", "[cli][plot]") {
  std::string files;
  for (const char* e : {"0.5", "1", "2"}) {
    const auto out = scratch(std::string("c") + e + ".json");
    REQUIRE(dpkit_run(std::string("correlated --correlation 0.2 --sampling-rate 0.1 --steps 50 "
                                  "--delta 1e-5 --format json --epsilon ") +
                      e + " --output " + quoted(out))
                .exit_code == 0);
    files += " " + quoted(out);
  }
  // Single runs of dpkit epsilon pool into ε against T, as JSON (the context names the steps)
  // and as CSV (the run's steps and parameters are columns); a CSV without them cannot.
  std::string runs, csvs;
  for (const char* t : {"100", "1000"}) {
    const auto json_out = scratch(std::string("eps_") + t + ".json"),
               csv_out = scratch(std::string("eps_") + t + ".csv");
    const std::string run = std::string("epsilon --noise-multiplier 1 --sampling-rate 0.01 ") +
                            "--delta 1e-5 --accountant all --steps " + t;
    REQUIRE(dpkit_run(run + " --format json --output " + quoted(json_out)).exit_code == 0);
    REQUIRE(dpkit_run(run + " --format csv --output " + quoted(csv_out)).exit_code == 0);
    runs += " " + quoted(json_out);
    csvs += " " + quoted(csv_out);
  }
  const std::string steps = script_of(runs, "", "pooled_steps");
  CHECK_THAT(steps, Contains("set xlabel \"steps T\""));
  CHECK(plot_clauses(steps).size() == 3);  // one series per accountant, not per file
  const std::string csv_steps = script_of(csvs, "", "pooled_csv_steps");
  CHECK_THAT(csv_steps, Contains("set xlabel \"steps T\""));
  CHECK(plot_clauses(csv_steps).size() == 3);
  std::string bare;
  for (const char* t : {"100", "1000"}) {
    const auto out = scratch(std::string("bare_") + t + ".csv");
    write(out, std::string("accountant,epsilon,kind,epsilon_lower,epsilon_upper,method\n") +
                   "pld," + t + ",upper-bound," + t + "," + t + ",PLD\n");
    bare += " " + quoted(out);
  }
  const auto no_steps = dpkit_run("plot" + bare + " --output " + quoted(scratch("no_steps.svg")));
  CHECK(no_steps.exit_code == 2);
  CHECK_THAT(no_steps.err, Contains("holds one run without its parameters"));
  const std::string sweep = script_of(files, "", "sweep");
  CHECK_THAT(sweep, Contains("set xlabel \"ε\""));  // the parameter that differs
  CHECK_THAT(sweep, Contains("Thm F.12 closed form"));
  // Curves from several files overlay, each named by its --label.
  const auto a = scratch("a.csv"), b = scratch("b.csv");
  write(a, "x,y\n1,1\n2,2\n3,3\n");
  write(b, "x,y\n1,3\n2,2\n3,1\n");
  const std::string both =
      script_of(quoted(a) + " " + quoted(b), "--y y --label first --label second", "overlay");
  CHECK_THAT(both, Contains("title \"first\""));
  CHECK_THAT(both, Contains("title \"second\""));
  // Without labels, files whose series have the same names are told apart by file name.
  const std::string named = script_of(quoted(a) + " " + quoted(b), "--y y", "named");
  CHECK_THAT(named, Contains("title \"a: y\""));
  CHECK_THAT(named, Contains("title \"b: y\""));
  // --name names the drawn columns.
  const std::string renamed = script_of(quoted(a), "--y y --name 'the line'", "renamed");
  CHECK_THAT(renamed, Contains("title \"the line\""));
  CHECK(plot_clauses(both).size() == 2);
  // --group splits the rows of one file into series.
  const auto g = scratch("group.csv");
  write(g, "run,x,y\nA,1,1\nA,2,2\nB,1,2\nB,2,1\nC,1,3\nC,2,3\n");
  const std::string grouped = script_of(quoted(g), "--x x --y y --group run", "grouped");
  CHECK(plot_clauses(grouped).size() == 3);
  CHECK_THAT(grouped, Contains("title \"B\""));  // a text value as itself
  // A numeric one with the column's symbol.
  const auto n = scratch("numeric.csv");
  write(n, "steps,x,y\n100,1,1\n100,2,2\n1000,1,2\n1000,2,1\n");
  const std::string numeric = script_of(quoted(n), "--x x --y y --group steps", "numeric");
  CHECK_THAT(numeric, Contains("title \"T = 1000\""));
}

TEST_CASE("dpkit plot places categories side by side and notes invisible intervals once",
          "[cli][plot]") {
  // Two series in one category stand either side of it, not on top of each other.
  const auto c = scratch("categories.csv");
  write(c, "observable,dataset,value\nrisk,D,1\nrisk,E,2\nnorm,D,3\n");
  const std::string gp =
      script_of(quoted(c), "--x observable --y value --group dataset", "categories");
  CHECK_THAT(gp, Contains("set xtics (\"risk\" 1, \"norm\" 2)"));
  CHECK_THAT(gp, Contains("\n0.925 1 "));
  CHECK_THAT(gp, Contains("\n1.075 2 "));
  CHECK_THAT(gp, Contains("\n2 3 "));  // alone in its category: on it
  // Intervals far narrower than the axis: said once in the legend when every series has such,
  // after the series' name when only one has.
  const auto narrow = scratch("narrow_intervals.csv");
  write(narrow,
        "x,a,a_lo,a_hi,b,b_lo,b_hi\n1,1,0.9999,1.0001,2,1.9999,2.0001\n"
        "2,5,4.9999,5.0001,6,5.9999,6.0001\n");
  const std::string both = script_of(
      quoted(narrow), "--x x --y a,b --y-lower a_lo,b_lo --y-upper a_hi,b_hi", "narrow_both");
  CHECK(count(both, "keyentry") == 1);
  CHECK(count(both, "too narrow to see") == 1);
  const std::string one =
      script_of(quoted(narrow), "--x x --y a,b --y-lower a_lo --y-upper a_hi", "narrow_one");
  CHECK(count(one, "keyentry") == 0);
  CHECK_THAT(one, Contains("title \"a (intervals smaller than the marks)\""));
}

TEST_CASE("dpkit plot writes SVG, PNG and PDF by extension", "[cli][plot]") {
  const auto csv = scratch("formats.csv");
  write(csv, kIntervals);
  const std::vector<std::pair<std::string, std::string>> formats = {
      {"svg", "<?xml"}, {"png", "\x89PNG\r\n"}, {"pdf", "%PDF-"}};
  for (const auto& [ext, magic] : formats) {
    const auto out = scratch("formats." + ext);
    std::filesystem::remove(out);
    const auto r = dpkit_run("plot " + quoted(csv) + " --output " + quoted(out));
    INFO(ext << ": " << r.err);
    REQUIRE(r.exit_code == 0);
    const std::string head = slurp(out).substr(0, magic.size());
    CHECK(head == magic);
  }
  CHECK_THAT(slurp(scratch("formats.svg")), Contains("<svg"));
  // No temporary file is left beside the figure.
  for (const auto& entry : std::filesystem::directory_iterator(scratch("").parent_path()))
    CHECK_THAT(entry.path().filename().string(), !Contains(".tmp"));
}

TEST_CASE("dpkit plot rejects bad input with exit 2 and one line", "[cli][plot]") {
  const auto csv = scratch("ok.csv");
  write(csv, kIntervals);
  const auto other = scratch("other.csv"), empty = scratch("empty.csv"),
             binary = scratch("binary.csv"), nojson = scratch("nojson.json"),
             scoreboard = scratch("scoreboard.json");
  write(other, "a,b\n1,2\n");
  // Malformed rows: a text cell in a number column, a NaN, a column mixing numbers and text.
  const auto text_y = scratch("text_y.csv"), nan_y = scratch("nan_y.csv"),
             mixed_x = scratch("mixed_x.csv");
  write(text_y, "a,b\n1,2\n2,abc\n3,4\n");
  write(nan_y, "a,b\n1,2\n2,nan\n");
  write(mixed_x, "a,b\n1,2\nabc,3\n3,4\n");
  write(empty, "");
  write(binary, std::string("\0\1\2\3", 4));
  write(nojson, "{\"context\": {\"tool\": \"dpkit epsilon\"}}");
  write(scoreboard, "{\"context\": {\"tool\": \"dpkit validate\"}, \"results\": []}");
  const auto svg = quoted(scratch("bad.svg"));
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"plot " + quoted(csv) + " --output " + quoted(scratch("fig.txt")), "--output"},
      {"plot " + quoted(csv) + " --output /no/such/folder/fig.svg", "does not exist"},
      {"plot " + quoted(other) + " --output " + svg, "is not a dpkit output"},
      {"plot " + quoted(empty) + " --output " + svg, "is empty"},
      {"plot " + quoted(binary) + " --output " + svg, "is not a text file"},
      {"plot " + quoted(nojson) + " --output " + svg, "without a results list"},
      {"plot " + quoted(scoreboard) + " --output " + svg, "scoreboard"},
      {"plot " + quoted(other) + " --y nosuch --output " + svg, "no column 'nosuch'"},
      {"plot " + quoted(other) + " --x nosuch --y b --output " + svg, "--x"},
      {"plot " + quoted(text_y) + " --x a --y b --output " + svg,
       "data row 2: column 'b' is 'abc', but must be a number (or empty for no point)"},
      {"plot " + quoted(nan_y) + " --x a --y b --output " + svg, "column 'b' is 'nan'"},
      {"plot " + quoted(mixed_x) + " --x a --y b --output " + svg, "column 'a' is 'abc'"},
      {"plot " + quoted(csv) + " --label a --label b --output " + svg, "--label"},
      {"plot " + quoted(csv) + " --output " + quoted(csv), "--output"},
      {"plot " + quoted(scratch("missing.csv")) + " --output " + svg, "missing.csv"},
      {"plot " + quoted(csv) + " --output " + svg + " --log-x --linear-x", "--linear-x"},
      {"plot " + quoted(csv) + " --style points --style lines --output " + svg, "--style"},
  };
  for (const auto& [args, says] : cases) {
    INFO(args);
    const auto r = dpkit_run(args);
    CHECK(r.exit_code == 2);
    CHECK(count_lines(r.err) == 1);
    CHECK_THAT(r.err, Contains(says));
  }
  // The file given as input is never touched by a rejected --output.
  CHECK(slurp(csv) == kIntervals);
}

TEST_CASE("dpkit plot says which package to install when gnuplot is missing", "[cli][plot]") {
  const auto csv = scratch("nognuplot.csv");
  write(csv, kIntervals);
  const auto out = scratch("nognuplot.svg"), err = scratch("nognuplot.err");
  std::filesystem::remove(out);
  const std::string cmd = "env PATH=/nonexistent '" + std::string(DPKIT_CLI_PATH) + "' plot " +
                          quoted(csv) + " --output " + quoted(out) + " 2>" + quoted(err);
  const int status = std::system(cmd.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 1);
  const std::string message = slurp(err);
  CHECK(count_lines(message) == 1);
  CHECK_THAT(message, Contains("gnuplot-nox"));
  CHECK(!std::filesystem::exists(out));
}
