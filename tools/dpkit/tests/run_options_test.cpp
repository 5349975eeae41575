// The training run of the accounting subcommands in the user's units (tools/dpkit/run_options):
// batch size, dataset size and epochs; curves over steps and epochs; phases; RDP at given
// orders; tradeoff grids; required inputs; suggestions for mistyped flags.
#include <catch2/catch.hpp>
#include <cmath>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli_run.hpp"
#include "dpkit/core/csv.hpp"
#include "dpkit/divergence/gdp.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using dpkit::test::count_lines;
using dpkit::test::dpkit_run;
using json = nlohmann::json;

namespace {

json run_json(const std::string& args) {
  const auto r = dpkit_run(args + " --format json");
  INFO(args << "\n" << r.err);
  REQUIRE(r.exit_code == 0);
  return json::parse(r.out);
}

// ⌈E·N/B⌉ in integer arithmetic (E whole).
long long steps_of(long long epochs, long long n, long long b) {
  return (epochs * n + b - 1) / b;
}

}  // namespace

TEST_CASE("epsilon in a training loop's units is the same run as in steps and rate",
          "[cli][units]") {
  // TensorFlow Privacy's compute_dp_sgd_privacy example: N = 60000, B = 256, 60 epochs, σ = 1.1.
  const json u = run_json(
      "epsilon --dataset-size 60000 --batch-size 256 --epochs 60 --noise-multiplier 1.1 "
      "--delta 1e-5 --accountant all");
  const json& p = u.at("context").at("parameters");
  CHECK(p.at("steps") == steps_of(60, 60000, 256));  // 14063
  CHECK(p.at("sampling_rate").get<double>() == 256.0 / 60000.0);
  CHECK(p.at("batch_size") == 256);
  CHECK(p.at("dataset_size") == 60000);
  CHECK(p.at("epochs") == 60.0);
  const json s = run_json(
      "epsilon --sampling-rate 0.0042666666666666667 --steps 14063 --noise-multiplier 1.1 "
      "--delta 1e-5 --accountant all");
  REQUIRE(u.at("results").size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(u.at("results")[i].at("epsilon") == s.at("results")[i].at("epsilon"));
    CHECK(u.at("results")[i].at("steps") == 14063);
    CHECK(u.at("results")[i].at("epochs") == 60.0);
  }
  // The table states how q and T were obtained.
  const auto t = dpkit_run(
      "epsilon --dataset-size 60000 --batch-size 256 --epochs 60 --noise-multiplier 1.1 "
      "--delta 1e-5");
  CHECK_THAT(t.out, Contains("q = batch size / dataset size = 256/60000 = 0.004266666667"));
  CHECK_THAT(t.out, Contains("ceil(60 * 60000/256) = 14063"));
  // Whole multiples are not rounded up by floating-point noise: 60 epochs of 60000/250.
  const json w = run_json(
      "epsilon --dataset-size 60000 --batch-size 250 --epochs 60 --noise-multiplier 1.1 "
      "--delta 1e-5 --accountant rdp");
  CHECK(w.at("context").at("parameters").at("steps") == 14400);
  // --sampling-rate with --epochs: T = ceil(E/q); 0.01 is not exactly 1/100 in binary.
  const json q = run_json(
      "epsilon --sampling-rate 0.01 --epochs 3 --noise-multiplier 1 --delta 1e-5 --accountant rdp");
  CHECK(q.at("context").at("parameters").at("steps") == 300);
  // The decimals as typed, exactly (accounting/run_units.hpp): ⌈2.2·1000/100⌉ = 22, ⌈3/0.3⌉ = 10,
  // and 1.0000000001 epochs of 100/10 are not a whole 10 steps but 11.
  for (const auto& [args, steps] :
       {std::pair<std::string, long long>{"--batch-size 100 --dataset-size 1000 --epochs 2.2", 22},
        {"--sampling-rate 0.3 --epochs 3", 10},
        {"--batch-size 10 --dataset-size 100 --epochs 1.0000000001", 11}}) {
    const json j =
        run_json("epsilon " + args + " --noise-multiplier 1 --delta 1e-5 --accountant rdp");
    CHECK(j.at("context").at("parameters").at("steps") == steps);
  }
  // The short flags of prv_accountant: -p -s -i -d.
  const json shortj = run_json("epsilon -p 0.01 -s 1 -i 1000 -d 1e-5");
  const json longj =
      run_json("epsilon --sampling-rate 0.01 --noise-multiplier 1 --steps 1000 --delta 1e-5");
  CHECK(shortj.at("results") == longj.at("results"));
  // --full-batch is q = 1, and nothing else.
  const json fb = run_json("epsilon --full-batch --noise-multiplier 20 --steps 400 --delta 1e-5");
  const json q1 =
      run_json("epsilon --sampling-rate 1 --noise-multiplier 20 --steps 400 --delta 1e-5");
  CHECK(fb.at("results") == q1.at("results"));
  const double exact = dpkit::divergence::gdp_epsilon(1.0, 1e-5).value;  // √400/20 = 1
  CHECK(fb.at("results")[0].at("epsilon_lower").get<double>() <= exact);
  CHECK(exact <= fb.at("results")[0].at("epsilon_upper").get<double>());
}

TEST_CASE("a run that is not fully given is an error naming what is missing", "[cli][units]") {
  struct bad_case {
    const char* args;
    const char* message;
  };
  const bad_case cases[] = {
      {"epsilon --noise-multiplier 1.1 --sampling-rate 0.01 --delta 1e-5",
       "the length of the run is not given: use --steps T or --epochs E"},
      {"epsilon --noise-multiplier 1.1 --steps 100 --delta 1e-5",
       "the sampling is not given: use --sampling-rate Q, or --batch-size B with --dataset-size "
       "N, or --full-batch"},
      {"epsilon --sampling-rate 0.01 --steps 100 --delta 1e-5",
       "the noise multiplier is not given: use --noise-multiplier S"},
      {"epsilon --noise-multiplier 1 --batch-size 256 --epochs 2 --delta 1e-5",
       "--batch-size needs --dataset-size"},
      {"epsilon --noise-multiplier 1 --batch-size 256 --dataset-size 100 --epochs 2 --delta 1e-5",
       "--batch-size is 256, but must be <= --dataset-size (100)"},
      {"epsilon --noise-multiplier 1 --sampling-rate 0.1 --full-batch --steps 2 --delta 1e-5",
       "the sampling is given twice"},
      {"epsilon --noise-multiplier 1 --sampling-rate 0.1 --steps 2 --epochs 1 --delta 1e-5",
       "--steps excludes --epochs"},
      {"epsilon --noise-multiplier 1 --sampling-rate 0.1 --dataset-size 100 --steps 2 --delta 1e-5",
       "--dataset-size is only used with --batch-size"},
      {"epsilon --noise-multiplier 1 --sampling-rate 0.1 --steps 10:5:1 --delta 1e-5",
       "--steps is 10:5:1, but must be an integer in [1, 2^53], a comma-separated list, or a "
       "range"},
      {"epsilon --noise-multiplier 1 --sampling-rate 0.1 --steps 1:100000:1 --delta 1e-5",
       "which gives 100000 values, but at most 10000 are allowed"},
      {"epsilon --noise-multiplier 1 --sampling-rate 0.1 --epochs 0 --delta 1e-5",
       "--epochs is 0, but must be a number > 0"},
      {"epsilon --noise-multiplier 1 --sampling-rate 0.1 --steps 1,,2 --delta 1e-5",
       "must not have an empty entry"},
      {"epsilon --phase noise-multiplier=1,steps=10 --delta 1e-5", "the sampling is not given"},
      {"epsilon --phase noise-multiplier=1,rate=0.1,steps=10 --delta 1e-5",
       "'rate' is not one of noise-multiplier"},
      {"epsilon --phase noise-multiplier=1,sampling-rate=0.1,steps=10 "
       "--phase sampling-rate=0.1,steps=5 --delta 1e-5",
       "--phase 2: the noise multiplier is not given"},
      {"epsilon --phase noise-multiplier=1,sampling-rate=0.1,steps=10:20:5 "
       "--phase noise-multiplier=1,sampling-rate=0.1,steps=5 --delta 1e-5",
       "only the last phase may have several lengths"},
      {"tradeoff --noise-multiplier 1 --sampling-rate 0.1 --steps 10,20", "takes one length"},
      {"tradeoff --mu 1 --alpha 0,0.5,1.5", "--alpha is 1.5, but must be a number in [0, 1]"},
      {"tradeoff --mu 1 --alpha 0:1:log10", "a log range starts above 0"},
      {"tradeoff --mu 1 --alpha 0.1 --points 5", "--points and --alpha both give the alpha grid"},
      {"calibrate --epsilon 1 --delta 1e-5 --sampling-rate 0.01",
       "the length of the run is not given"},
      // With --phase the hint names the phase's key: --steps beside --phase is refused.
      {"epsilon --phase noise-multiplier=1.1,sampling-rate=0.01 --delta 1e-5",
       "the length of the phase is not given: add steps=T or epochs=E to its --phase"},
      {"epsilon --phase noise-multiplier=1.1,sampling-rate=0.01 --phase "
       "noise-multiplier=1,sampling-rate=0.1 --delta 1e-5",
       "--phase 1: the length of the phase is not given: add steps=T or epochs=E to its --phase"},
      {"rdp --noise-multiplier 1 --sampling-rate 0.1 --steps 10 --orders 1",
       "--orders has 1, but every order must be in (1, 1e6]"},
      {"rdp --noise-multiplier 1 --sampling-rate 0.1 --steps 10", "--orders is required"},
      {"epsilon --noise-multipler 1 --sampling-rate 0.1 --steps 10 --delta 1e-5",
       "unknown flag --noise-multipler (did you mean --noise-multiplier?)"},
      {"epsilon --mu 1 --delta 1e-5 --acountant rdp",
       "unknown flag --acountant (did you mean --accountant?)"},
      {"epsilom --mu 1 --delta 1e-5",
       "dpkit: unknown subcommand 'epsilom' (did you mean epsilon?)"},
  };
  for (const bad_case& c : cases) {
    CAPTURE(c.args);
    const auto r = dpkit_run(c.args);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Contains(c.message));
    CHECK(count_lines(r.err) == 1);
    CHECK(r.out.empty());
  }
}

TEST_CASE("epsilon against epochs: one row per epoch, each the run it stands for",
          "[cli][units][curve]") {
  const std::string run =
      "--dataset-size 60000 --batch-size 256 --noise-multiplier 1.1 --delta 1e-5";
  const json c = run_json("epsilon " + run + " --epochs 10 --per-epoch --accountant all");
  const json& rows = c.at("results");
  REQUIRE(rows.size() == 30);  // 10 epochs x 3 accountants
  double last_upper = 0;
  for (long long e = 1; e <= 10; ++e) {
    const json& pld = rows[static_cast<std::size_t>(3 * (e - 1))];
    const json& rdp = rows[static_cast<std::size_t>(3 * (e - 1) + 1)];
    CHECK(pld.at("accountant") == "pld");
    CHECK(pld.at("steps") == steps_of(e, 60000, 256));
    CHECK(pld.at("epochs") == static_cast<double>(e));
    CHECK(rdp.at("steps") == steps_of(e, 60000, 256));
    // Each row is the run of that many steps: RDP to the bit, PLD a certified bracket of the
    // same exact value as the separate call's.
    const json one =
        run_json("epsilon " + run + " --epochs " + std::to_string(e) + " --accountant all");
    const json& p1 = one.at("results")[0];
    CHECK(rdp.at("epsilon") == one.at("results")[1].at("epsilon"));
    CHECK(pld.at("epsilon_lower").get<double>() <= p1.at("epsilon_upper").get<double>());
    CHECK(p1.at("epsilon_lower").get<double>() <= pld.at("epsilon_upper").get<double>());
    CHECK(pld.at("epsilon_upper").get<double>() - pld.at("epsilon_lower").get<double>() <=
          1e-3 * pld.at("epsilon_upper").get<double>());
    // ε grows with the epochs: the lower bound never passes an earlier upper bound's successor.
    CHECK(pld.at("epsilon_upper").get<double>() > last_upper);
    last_upper = pld.at("epsilon_upper").get<double>();
  }
  // Lists and ranges, in any order; CSV for plotting.
  const auto csv =
      dpkit_run("epsilon -s 1 -p 0.01 -i 10:1000:log3,50 -d 1e-5 --accountant rdp --format csv");
  REQUIRE(csv.exit_code == 0);
  CHECK_THAT(csv.out, Contains("steps,accountant,epsilon,kind,epsilon_lower,epsilon_upper,delta,"
                               "noise_multiplier,sampling_rate,sampling\n10,"));
  CHECK_THAT(csv.out, Contains("\n100,rdp,"));
  CHECK_THAT(csv.out, Contains("\n1000,rdp,"));
  CHECK_THAT(csv.out, Contains("\n50,rdp,"));
  CHECK(count_lines(csv.out) == 5);
  // δ against steps: decreasing in nothing, increasing in T.
  const json d = run_json("delta -s 1 -p 0.01 -i 1000:3000:1000 --epsilon 2");
  REQUIRE(d.at("results").size() == 3);
  CHECK(d.at("results")[0].at("delta").get<double>() <
        d.at("results")[2].at("delta").get<double>());
}

TEST_CASE("phases compose: full-batch phases are the Gaussian closed form", "[cli][units]") {
  // G(μ₁)^{⊗3} ⊗ G(μ₂)^{⊗5} = G(√(3μ₁² + 5μ₂²)) (Dong, Roth & Su 2022, Cor. 2), μ = 1/σ.
  const json j = run_json(
      "epsilon --phase noise-multiplier=2,full-batch,steps=3 "
      "--phase noise-multiplier=4,full-batch,steps=5 --delta 1e-5");
  const double mu = std::sqrt(3.0 / 4 + 5.0 / 16);
  const double exact = dpkit::divergence::gdp_epsilon(mu, 1e-5).value;
  const json& r = j.at("results")[0];
  CHECK(r.at("epsilon_lower").get<double>() <= exact * (1 + 1e-15));
  CHECK(exact <= r.at("epsilon_upper").get<double>() * (1 + 1e-15));
  CHECK(j.at("context").at("parameters").at("phases").size() == 2);
  // Phases in a training loop's units: the steps of each phase, and their total.
  const json m = run_json(
      "epsilon --dataset-size 60000 --phase noise-multiplier=1.5,batch-size=512,epochs=2 "
      "--phase noise-multiplier=1.1,batch-size=256,epochs=3 --delta 1e-5 --accountant rdp");
  const json& ph = m.at("context").at("parameters").at("phases");
  CHECK(ph[0].at("steps") == steps_of(2, 60000, 512));
  CHECK(ph[1].at("steps") == steps_of(3, 60000, 256));
  CHECK(m.at("results")[0].at("steps") == steps_of(2, 60000, 512) + steps_of(3, 60000, 256));
  // A curve over the last phase keeps the first.
  const json c = run_json(
      "epsilon --phase noise-multiplier=2,full-batch,steps=3 "
      "--phase noise-multiplier=4,full-batch,steps=1:5:2 --delta 1e-5");
  REQUIRE(c.at("results").size() == 3);
  CHECK(c.at("results")[2].at("steps") == 8);
  CHECK(c.at("results")[2].at("epsilon") == r.at("epsilon"));
}

TEST_CASE("dpkit rdp: the run's Renyi DP at given orders", "[cli][rdp]") {
  // Full batch: T steps of G(1/σ) are (α, Tα/(2σ²))-RDP exactly; the value is raised by the
  // accountant's 1e-10 allowance, never lowered.
  const json g = run_json("rdp --noise-multiplier 4 --full-batch --steps 50 --orders 2,8:32:8");
  const std::vector<double> orders = {2, 8, 16, 24, 32};
  REQUIRE(g.at("results").size() == orders.size());
  for (std::size_t i = 0; i < orders.size(); ++i) {
    const double exact = 50 * orders[i] / (2 * 16.0);
    const double v = g.at("results")[i].at("rdp").get<double>();
    CHECK(g.at("results")[i].at("order") == orders[i]);
    CHECK(v >= exact);
    CHECK(v <= exact * (1 + 2e-10));
  }
  // Poisson: T times one step's RDP from the 50-digit table.
  const auto t = dpkit::read_csv(dpkit::test::reference_path("rdp_poisson_gaussian.csv"));
  for (std::size_t i = 0; i < t.rows.size(); ++i) {
    if (t.at(i, "q") != 0.01 || t.at(i, "sigma") != 1.0) continue;
    const double a = t.at(i, "alpha");
    if (a > 1e4) continue;
    const json j = run_json("rdp --noise-multiplier 1 --sampling-rate 0.01 --steps 1000 --orders " +
                            std::to_string(a));
    const double v = j.at("results")[0].at("rdp").get<double>();
    const double ref = 1000 * t.at(i, "rdp");
    INFO("alpha = " << a);
    CHECK(v >= ref * (1 - 1e-12));
    CHECK(v <= ref * (1 + 2e-10));
  }
  // With --delta: each order's ε, and the best of them no better than the full search.
  const json e = run_json(
      "rdp --noise-multiplier 1.3 --sampling-rate 0.0025 --steps 6000 --orders 2:64:1 --delta "
      "1e-5");
  double best = INFINITY;
  for (const json& row : e.at("results")) best = std::min(best, row.at("epsilon").get<double>());
  const json full = run_json(
      "epsilon --noise-multiplier 1.3 --sampling-rate 0.0025 --steps 6000 --delta 1e-5 "
      "--accountant rdp");
  CHECK(full.at("results")[0].at("epsilon").get<double>() <= best * (1 + 1e-12));
  // The full search optimises over real orders (19.09 here): a little below the best integer
  // (α = 19 is in 2:64), not far.
  CHECK(best <= full.at("results")[0].at("epsilon").get<double>() * (1 + 1e-3));
}

TEST_CASE("tradeoff at log-spaced false-positive rates, with the TPR bound", "[cli][tradeoff]") {
  const json j = run_json("tradeoff --mu 1 --alpha 1e-10:1e-2:log5");
  const std::vector<double> alphas = {1e-10, 1e-8, 1e-6, 1e-4, 1e-2};
  REQUIRE(j.at("results").size() == alphas.size());
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    const json& r = j.at("results")[i];
    CHECK(r.at("alpha").get<double>() == Approx(alphas[i]).epsilon(1e-12));
    // G(1): β(α) = Φ(Φ⁻¹(1 − α) − 1); 1 − β is the largest TPR at FPR α (formed without
    // cancellation, a few ulps outward).
    const double beta = r.at("beta").get<double>();
    // (1 − β itself is off by up to half an ulp of 1, 1.1e-16: a relative 3e-9 at α = 1e-10.)
    const double tpr = r.at("tpr_upper").get<double>();
    CHECK(tpr >= 1 - beta - 1.2e-16);
    CHECK(tpr <= 1 - beta + 1.2e-16 + 1e-9 * tpr);
    CHECK(r.at("tpr_upper").get<double>() > r.at("alpha").get<double>());
  }
  const json s =
      run_json("tradeoff --noise-multiplier 1 --sampling-rate 0.01 --steps 1000 --alpha 1e-8,1e-4");
  for (const json& r : s.at("results")) {
    CHECK(r.at("tpr_lower").get<double>() <= r.at("tpr_upper").get<double>());
    const double tpr = r.at("tpr_upper").get<double>(), beta = r.at("beta").get<double>();
    CHECK(tpr >= 1 - beta - 1.2e-16);
    CHECK(tpr <= 1 - beta + 1.2e-16 + 1e-9 * tpr);
  }
}

TEST_CASE("calibrate in a training loop's units", "[cli][units][calibration]") {
  const std::string run = "--dataset-size 60000 --batch-size 256 --delta 1e-5";
  const json c = run_json("calibrate --epsilon 3 --epochs 60 " + run);
  const json& row = c.at("results")[0];
  CHECK(row.at("steps") == 14063);
  const double sigma = row.at("noise_multiplier").get<double>();
  CHECK(row.at("epsilon").get<double>() <= 3.0);
  // At the calibrated σ the run certifies ≤ 3; a little below it, not.
  const json at = run_json("epsilon --epochs 60 --noise-multiplier " +
                           std::to_string(sigma * 1.0001) + " " + run);
  CHECK(at.at("results")[0].at("epsilon").get<double>() <= 3.0);
  const json below = run_json("epsilon --epochs 60 --noise-multiplier " +
                              std::to_string(sigma * 0.99) + " " + run);
  CHECK(below.at("results")[0].at("epsilon_lower").get<double>() > 3.0);
  // Given σ, the steps; reported in epochs too (steps · B/N).
  const json s = run_json("calibrate --epsilon 3 --noise-multiplier 1.1 " + run);
  const json& sr = s.at("results")[0];
  CHECK(sr.at("epochs").get<double>() == Approx(sr.at("steps").get<double>() * 256 / 60000));
  CHECK(sr.at("epsilon").get<double>() <= 3.0);
}

TEST_CASE("dpkit alone lists every subcommand, one line each", "[cli]") {
  const auto r = dpkit_run("");
  CHECK(r.exit_code == 0);
  for (const char* sub : {"epsilon", "delta", "calibrate", "rdp", "tradeoff", "correlated",
                          "shifted", "hsgd", "bound", "simulate", "validate", "plot", "demo"}) {
    CAPTURE(sub);
    CHECK_THAT(r.out, Contains(std::string("\n  ") + sub + " "));
  }
}

TEST_CASE("shuffled batches: a certified bracket next to the Poisson number", "[cli][shuffling]") {
  // One epoch of 1000 batches at sigma = 0.6 (Chua et al. 2024's single-epoch setting): the
  // shuffled run's certified lower bound is above what the Poisson accountant certifies for the
  // same sigma, q, T; the upper bound is the Gaussian without amplification, (1/sigma)-GDP.
  const json s = run_json(
      "epsilon --sampling shuffling --dataset-size 60000 --batch-size 60 --epochs 1 "
      "--noise-multiplier 0.6 --delta 1e-6");
  const json p = run_json(
      "epsilon --dataset-size 60000 --batch-size 60 --epochs 1 --noise-multiplier 0.6 "
      "--delta 1e-6");
  const json& row = s.at("results")[0];
  CHECK(row.at("kind") == "upper-bound");
  CHECK_THAT(row.at("method").get<std::string>(), Contains("Chua et al. 2024"));
  const double lower = row.at("epsilon_lower").get<double>();
  const double upper = row.at("epsilon").get<double>();
  CHECK(lower > p.at("results")[0].at("epsilon").get<double>());
  CHECK(upper == Approx(dpkit::divergence::gdp_epsilon(1 / 0.6, 1e-6).value).epsilon(1e-9));
  CHECK(lower <= upper);
  // The same run as a phase; CLT has no answer for it; shuffled epochs are accounted alone.
  const json ph = run_json(
      "epsilon --dataset-size 60000 --phase noise-multiplier=0.6,batch-size=60,epochs=1,"
      "sampling=shuffling --delta 1e-6");
  CHECK(ph.at("results")[0].at("epsilon_lower").get<double>() == lower);
  const auto all =
      dpkit_run("epsilon --sampling shuffling -p 0.001 -i 1000 -s 0.6 -d 1e-6 --accountant all");
  CHECK(all.exit_code == 0);
  CHECK_THAT(all.out + all.err, Contains("no CLT approximation is known"));
  const auto mixed = dpkit_run(
      "epsilon --phase noise-multiplier=1,sampling-rate=0.01,steps=100,sampling=shuffling "
      "--phase noise-multiplier=1,sampling-rate=0.01,steps=100 -d 1e-5");
  CHECK(mixed.exit_code == 2);
  CHECK_THAT(mixed.err, Contains("shuffled epochs are accounted alone"));
}

TEST_CASE("drop-last: a loader's floor(N/B) batches per epoch, said in the derivation",
          "[cli][shuffling][units]") {
  // 10 epochs of 60 000 in full batches of 256 (PyTorch's drop_last=True): 10 * 234 = 2 340
  // steps; the shuffled epochs use an example with probability 234 * 256/60000 = 0.9984.
  const auto r = dpkit_run(
      "epsilon --sampling shuffling --dataset-size 60000 --batch-size 256 --epochs 10 "
      "--noise-multiplier 1.1 --delta 1e-5 --drop-last");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Contains("steps T = epochs * floor(dataset size / batch size) = 10 * "
                             "floor(60000/256) = 10 * 234 = 2340"));
  CHECK_THAT(r.out, Contains("probability 0.9984"));
  const json j = run_json(
      "epsilon --sampling shuffling --dataset-size 60000 --batch-size 256 --epochs 10 "
      "--noise-multiplier 1.1 --delta 1e-5 --drop-last");
  const json& row = j.at("results")[0];
  CHECK(row.at("steps") == 2340);
  CHECK(row.at("epsilon_lower").get<double>() <= row.at("epsilon").get<double>());
  // Without replacement: only the step count changes.
  CHECK(run_json("epsilon --sampling without-replacement --dataset-size 60000 --batch-size 256 "
                 "--epochs 10 --noise-multiplier 1.1 --delta 1e-5 --drop-last")
            .at("results")[0]
            .at("steps") == 2340);
  // Refused where no last batch exists, or nothing says how many there are.
  const auto poisson = dpkit_run(
      "epsilon --dataset-size 60000 --batch-size 256 --epochs 10 --noise-multiplier 1.1 "
      "--delta 1e-5 --drop-last");
  CHECK(poisson.exit_code == 2);
  CHECK_THAT(poisson.err, Contains("--drop-last is only used with --sampling shuffling or "
                                   "without-replacement"));
  const auto rate = dpkit_run(
      "epsilon --sampling shuffling --sampling-rate 0.01 --epochs 10 --noise-multiplier 1.1 "
      "--delta 1e-5 --drop-last");
  CHECK(rate.exit_code == 2);
  CHECK_THAT(rate.err, Contains("--drop-last needs --batch-size B and --dataset-size N"));
}

TEST_CASE("noise relative to the sensitivity: dp_accounting's sigma, without arithmetic",
          "[cli][units]") {
  // Replace-one batches: sigma = 0.55 relative to the sensitivity 2C is sigma = 1.1 relative to
  // C — the same run, the same epsilon; the title says both; calibrate answers in the scale
  // asked. Add/remove and zero-out: the two scales are one number.
  const std::string run =
      "--batch-size 256 --dataset-size 60000 --steps 2000 --sampling without-replacement "
      "--delta 1e-5";
  const json c = run_json("epsilon --noise-multiplier 1.1 " + run);
  const json s = run_json("epsilon --noise-multiplier 0.55 --noise-relative-to sensitivity " + run);
  CHECK(s.at("results")[0].at("epsilon") == c.at("results")[0].at("epsilon"));
  CHECK(s.at("context").at("parameters").at("noise_multiplier") == 0.55);
  CHECK(s.at("context").at("parameters").at("noise_relative_to") == "sensitivity");
  const auto text = dpkit_run("epsilon --noise-multiplier 0.55 --noise-relative-to sensitivity " +
                              run);
  CHECK_THAT(text.out, Contains("noise multiplier 0.55 of the sensitivity 2C (1.1 of C)"));
  const double target = c.at("results")[0].at("epsilon").get<double>();
  const json cal_c = run_json("calibrate --epsilon " + std::to_string(target) + " " + run);
  const json cal_s = run_json("calibrate --noise-relative-to sensitivity --epsilon " +
                              std::to_string(target) + " " + run);
  CHECK(cal_s.at("results")[0].at("noise_multiplier").get<double>() ==
        Approx(cal_c.at("results")[0].at("noise_multiplier").get<double>() / 2).epsilon(1e-15));
  const std::string poisson = "--sampling-rate 0.01 --steps 1000 --delta 1e-5";
  CHECK(run_json("epsilon --noise-multiplier 1.1 --noise-relative-to sensitivity " + poisson)
            .at("results")[0]
            .at("epsilon") ==
        run_json("epsilon --noise-multiplier 1.1 " + poisson).at("results")[0].at("epsilon"));
  // One sigma for phases of different sensitivities is refused in the sensitivity's scale.
  const auto mixed = dpkit_run(
      "calibrate --noise-relative-to sensitivity --epsilon 3 --delta 1e-5 --dataset-size 60000 "
      "--phase batch-size=256,steps=100,sampling=without-replacement "
      "--phase sampling-rate=0.01,steps=100");
  CHECK(mixed.exit_code == 2);
  CHECK_THAT(mixed.err, Contains("different sensitivities"));
}

TEST_CASE("edge values: no noise and nothing released, from the command line", "[cli][edge]") {
  // sigma = 0: the example is in some noiseless batch with probability p = 1 − (1 − q)^T; no
  // finite epsilon holds below delta = p, and delta(epsilon) = p exactly when nothing else is
  // released (docs/accounting.md, "Edge values").
  const double p = -std::expm1(100 * std::log1p(-0.01));
  const json none = run_json("epsilon -s 0 -p 0.01 -i 100 -d 1e-5");
  CHECK(none.at("results")[0].at("epsilon") == "inf");
  CHECK(none.at("results")[0].at("tight") == true);
  const json d = run_json("delta -s 0 -p 0.01 -i 100 --epsilon 3");
  CHECK(d.at("results")[0].at("delta").get<double>() == Approx(p).epsilon(1e-14));
  // A phase that releases nothing (q = 0 or sigma = inf) is left out: the answer is the other
  // phase's, and a run of such phases only is exactly (0, delta)-DP.
  const json rest = run_json("epsilon -s 2 -p 0.01 -i 300 -d 1e-5");
  const json with = run_json(
      "epsilon --phase noise-multiplier=inf,sampling-rate=0.5,steps=10 "
      "--phase noise-multiplier=2,sampling-rate=0.01,steps=300 -d 1e-5");
  CHECK(with.at("results")[0].at("epsilon") == rest.at("results")[0].at("epsilon"));
  const json zero = run_json("epsilon -s 1 -p 0 -i 100 -d 1e-5 --accountant all");
  for (const json& row : zero.at("results")) CHECK(row.at("epsilon").get<double>() == 0);
  // Refused with a message where no exact answer exists, or where the input is no number.
  const auto rdp = dpkit_run("rdp -s 0 -p 0.1 -i 10");
  CHECK(rdp.exit_code == 2);
  const auto epochs = dpkit_run("epsilon -s 1 -p 0 --epochs 2 -d 1e-5");
  CHECK(epochs.exit_code == 2);
  CHECK_THAT(epochs.err, Contains("no epoch ends"));
  CHECK(dpkit_run("epsilon -s -1 -p 0.1 -i 10 -d 1e-5").exit_code == 2);
  CHECK(dpkit_run("epsilon -s nan -p 0.1 -i 10 -d 1e-5").exit_code == 2);
}

TEST_CASE("dpkit tradeoff --gdp-mu: the GDP parameter the run is closest to", "[cli][gdp]") {
  // A Gaussian run: exactly mu = sqrt(T)/sigma = 1.
  const json g = run_json("tradeoff --noise-multiplier 2 --full-batch --steps 4 --gdp-mu");
  const json& row = g.at("results")[0];
  CHECK(row.at("kind") == "exact");
  CHECK(row.at("mu").get<double>() == Approx(1.0).epsilon(1e-15));
  // A subsampled run: a certified bracket, narrower over a narrower range of FPRs.
  const json s = run_json("tradeoff -s 1 -p 0.01 -i 2000 --gdp-mu --fpr-min 1e-6");
  const json& b = s.at("results")[0];
  CHECK(b.at("mu_lower").get<double>() <= b.at("mu_upper").get<double>());
  CHECK(b.at("mu_upper").get<double>() < 1.01 * b.at("mu_lower").get<double>());
  CHECK(b.at("fpr_at_max").get<double>() >= 1e-6);
  CHECK(dpkit_run("tradeoff -s 1 -p 0.01 -i 20 --fpr-min 1e-6").exit_code == 2);
  CHECK(dpkit_run("tradeoff -s 1 -p 0.01 -i 20 --gdp-mu --fpr-min 0.6").exit_code == 2);
  CHECK(dpkit_run("tradeoff -s 1 -p 0.01 -i 20 --gdp-mu --alpha 0.1").exit_code == 2);
}

TEST_CASE("a PLD run at the default accuracy and FFT limit is not announced as long",
          "[cli][units]") {
  // 1e8 steps, the most the PLD engine composes: a few seconds on 2 cores (the FFT limit 2^24
  // bounds the work), so no "takes roughly" line — the old model, from the steps alone, said
  // 5.3 min for it.
  const auto r = dpkit_run("epsilon -s 0.8 -p 0.001 -i 100000000 -d 1e-5");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.err, !Contains("takes roughly"));
}

TEST_CASE("rdp takes -d for --delta, as epsilon, delta and calibrate do", "[cli]") {
  // "rdp -d 1e-5" was refused ("did you mean -h?") although the other commands take it.
  const std::string run = "rdp -s 1 -p 0.01 -i 1000 --orders 2,8 ";
  // Compare what the option decides — the parameters and the results — not the whole document:
  // its context carries a timestamp, which differs when the two runs straddle a second (a CI
  // run failed that way).
  const json shortopt = run_json(run + "-d 1e-5");
  const json longopt = run_json(run + "--delta 1e-5");
  CHECK(shortopt.at("context").at("parameters") == longopt.at("context").at("parameters"));
  CHECK(shortopt.at("results") == longopt.at("results"));
}
