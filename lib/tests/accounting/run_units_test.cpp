#include "dpkit/accounting/run_units.hpp"

#include "dpkit/accounting/accountant.hpp"
#include "dpkit/accounting/shuffling.hpp"

#include <catch2/catch.hpp>
#include <cstdint>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>

namespace acc = dpkit::accounting;
using Catch::Matchers::Contains;

namespace {

__extension__ typedef __int128 i128;  // GCC and Clang; -Wpedantic asks for the marker

i128 pow10(int k) {
  i128 r = 1;
  for (int i = 0; i < k; ++i) r *= 10;
  return r;
}

// ⌈a/b⌉ for a, b > 0 in 128-bit integers: the reference, independent of the library's decimal
// reading (the epochs are built from integers here, and only the test turns them into text).
long long ceil_div(i128 a, i128 b) {
  return static_cast<long long>((a + b - 1) / b);
}

// The double a user who types "<a>e-<j>" passes (std::stod reads the decimal text).
double typed(long long a, int j) {
  return std::stod(std::to_string(a) + "e-" + std::to_string(j));
}

template <class F>
acc::units_rule rule_of(F f) {
  try {
    f();
  } catch (const acc::units_error& e) {
    return e.rule();
  }
  FAIL("no units_error");
  return acc::units_rule::out_of_range;
}

}  // namespace

TEST_CASE("epochs to steps: the cases the two front ends disagreed on", "[accounting][units]") {
  // 2.2 epochs, batches of 100 of 1 000 examples: ⌈2.2·10⌉ = 22 (Python's binary reading gave 23).
  CHECK(acc::steps_for_epochs(2.2, 100LL, 1000LL) == 22);
  // 3 epochs at q = 0.3: ⌈3/0.3⌉ = 10 (the binary 0.29999999999999998890 gives 11).
  CHECK(acc::steps_for_epochs(3.0, 0.3) == 10);
  // Not an integer, by 1e-10 epochs: ⌈10.000000001⌉ = 11 (the CLI's tolerance of 1e-9 gave 10).
  CHECK(acc::steps_for_epochs(1.0000000001, 10LL, 100LL) == 11);
  // 60 epochs of 60 000 examples in batches of 250: 14 400, as in Abadi et al.'s MNIST run.
  CHECK(acc::steps_for_epochs(60.0, 250LL, 60000LL) == 14400);
  CHECK(acc::steps_for_epochs(0.5, 1.0) == 1);  // full batch: ⌈E⌉
  CHECK(acc::steps_for_epochs(1e-300, 0.5) == 1);
}

TEST_CASE("epochs to steps: exact on the decimals as typed (seeded sweep)", "[accounting][units]") {
  std::mt19937_64 rng(20261125);
  std::uniform_int_distribution<long long> mantissa(1, 999999), count(1, 1000000);
  std::uniform_int_distribution<int> digits(0, 6);
  for (int i = 0; i < 20000; ++i) {
    const long long a = mantissa(rng);
    const int j = digits(rng);
    const double epochs = typed(a, j);
    long long n = count(rng), b = count(rng);
    if (b > n) std::swap(b, n);
    // E·N/B = a·N / (10^j·B).
    const long long want = ceil_div(static_cast<i128>(a) * n, pow10(j) * b);
    INFO("epochs " << epochs << ", B = " << b << ", N = " << n);
    REQUIRE(acc::steps_for_epochs(epochs, b, n) == want);
    // E/q with q = c·10^-k typed as a decimal in (0, 1]: a·10^k / (c·10^j).
    const int k = 1 + digits(rng);
    const long long c = 1 + static_cast<long long>(rng() % static_cast<unsigned long long>(pow10(k)));
    const double q = typed(c, k);
    INFO("q " << q);
    REQUIRE(acc::steps_for_epochs(epochs, q) ==
            ceil_div(static_cast<i128>(a) * pow10(k), static_cast<i128>(c) * pow10(j)));
  }
}

TEST_CASE("epochs to steps: refusals", "[accounting][units]") {
  CHECK(rule_of([] { acc::steps_for_epochs(1e300, 1e-10); }) == acc::units_rule::too_many_steps);
  CHECK(rule_of([] { acc::steps_for_epochs(2.0, 2.2250738585072014e-308); }) ==
        acc::units_rule::too_many_steps);
  CHECK(rule_of([] { acc::steps_for_epochs(9007199254740993.0, 1LL, 2LL); }) ==
        acc::units_rule::too_many_steps);
  // 2^53 steps exactly is a length; one more is not.
  CHECK(acc::steps_for_epochs(9007199254740992.0, 1.0) == acc::kMaxSteps);
  CHECK(rule_of([] { acc::steps_for_epochs(1.0, 0.0); }) == acc::units_rule::epochs_never_end);
  CHECK(rule_of([] { acc::steps_for_epochs(0.0, 0.5); }) == acc::units_rule::out_of_range);
  CHECK(rule_of([] { acc::steps_for_epochs(std::nan(""), 0.5); }) ==
        acc::units_rule::out_of_range);
  CHECK(rule_of([] { acc::steps_for_epochs(1.0, 5LL, 4LL); }) == acc::units_rule::batch_too_large);
  REQUIRE_THROWS_WITH(acc::steps_for_epochs(1e300, 1e-10),
                      Contains("epochs is 1e+300, but must be a length of at most 2^53 steps"));
}

namespace {

acc::phase_derivation loader_phase(acc::sampling_scheme s,
                                   long long b,
                                   long long n,
                                   double e,
                                   bool drop_last = false) {
  acc::phase_units u;
  u.noise_multiplier = 1.0;
  u.batch_size = b;
  u.dataset_size = n;
  u.epochs = e;
  u.sampling = s;
  u.drop_last = drop_last;
  return acc::derive_phase(u);
}

}  // namespace

TEST_CASE("epochs of a data loader's schemes: E passes of ceil(N/B) batches", "[accounting][units]") {
  using acc::sampling_scheme;
  // The case: 10 epochs of 60 000 in batches of 256 are 10 · 235 = 2 350 steps for a
  // shuffled loader (Poisson keeps TF Privacy's ⌈10 · 60000/256⌉ = 2 344).
  for (auto s : {sampling_scheme::shuffling, sampling_scheme::random_allocation,
                 sampling_scheme::without_replacement}) {
    INFO(acc::to_string(s));
    const auto d = loader_phase(s, 256, 60000, 10);
    CHECK(d.rule == acc::epoch_rule::data_passes);
    CHECK(d.batches_per_epoch == 235);
    CHECK(d.steps_per_epoch == 235);
    CHECK(d.phase.steps == 2350);
    CHECK(loader_phase(s, 256, 60000, 2.5).phase.steps == 588);  // ⌈2.5 · 235⌉
    CHECK(loader_phase(s, 100, 1000, 2.2).phase.steps == 22);    // B divides N: as Poisson
  }
  CHECK(loader_phase(sampling_scheme::poisson, 256, 60000, 10).phase.steps == 2344);
  CHECK(loader_phase(sampling_scheme::poisson, 256, 60000, 10).rule ==
        acc::epoch_rule::expected_batches);
  // From a rate: k = the accountants' ⌈1/q⌉ (q = 0.3: 4 batches, the last 0.1 N).
  acc::phase_units u;
  u.noise_multiplier = 1.0;
  u.sampling_rate = 0.3;
  u.epochs = 3;
  u.sampling = sampling_scheme::shuffling;
  CHECK(acc::derive_phase(u).phase.steps == 12);
  u.sampling = sampling_scheme::poisson;
  CHECK(acc::derive_phase(u).phase.steps == 10);
  // q = 0 (an edge value): no epoch ends, on either rule.
  u.sampling = sampling_scheme::without_replacement;
  u.sampling_rate = 0.0;
  CHECK(rule_of([&] { acc::derive_phase(u, true); }) == acc::units_rule::epochs_never_end);
  CHECK(rule_of([] { acc::steps_for_passes(1e300, 3); }) == acc::units_rule::too_many_steps);
  CHECK(rule_of([] { acc::steps_for_passes(1.0, 0); }) == acc::units_rule::out_of_range);
}

TEST_CASE("epochs of a shuffled loader are the shuffling accountant's epochs (seeded sweep)",
          "[accounting][units]") {
  // Whole epochs derived here are whole epochs there: E complete epochs, none begun beyond, for
  // every B ≤ N the sweep draws (the accountant counts t = ⌈1/q⌉ steps per epoch from q = B/N).
  std::mt19937_64 rng(20261126);
  std::uniform_int_distribution<long long> count(1, 10000000);
  std::uniform_int_distribution<int> epochs(1, 50);
  for (int i = 0; i < 2000; ++i) {
    long long n = count(rng), b = count(rng);
    if (b > n) std::swap(b, n);
    const int e = epochs(rng);
    const auto d = loader_phase(acc::sampling_scheme::shuffling, b, n, e);
    INFO("B = " << b << ", N = " << n << ", E = " << e);
    REQUIRE(d.batches_per_epoch == ceil_div(n, b));
    REQUIRE(d.batches_per_epoch == acc::shuffling_steps_per_epoch(d.phase.sampling_rate));
    REQUIRE(d.phase.steps == e * d.batches_per_epoch);
  }
}

TEST_CASE("epochs of a loader that drops the last batch: E passes of floor(N/B) batches",
          "[accounting][units]") {
  using acc::sampling_scheme;
  auto dropping = [](sampling_scheme s, long long b, long long n, double e) {
    return loader_phase(s, b, n, e, true);
  };
  // The loader with drop_last: 10 · ⌊60000/256⌋ = 10 · 234 = 2 340 steps.
  for (auto s : {sampling_scheme::shuffling, sampling_scheme::without_replacement}) {
    INFO(acc::to_string(s));
    const auto d = dropping(s, 256, 60000, 10);
    CHECK(d.drop_last);
    CHECK(d.batches_per_epoch == 234);
    CHECK(d.phase.steps == 2340);
    CHECK(dropping(s, 256, 60000, 2.5).phase.steps == 585);  // ⌈2.5 · 234⌉
    CHECK(dropping(s, 100, 1000, 3).phase.steps == 30);      // B divides N: nothing dropped
  }
  // A shuffled phase carries its epoch: 234 steps that use an example with probability
  // 234·256/60000 = 0.9984; a per-step scheme has no epoch to carry.
  CHECK(dropping(sampling_scheme::shuffling, 256, 60000, 10).phase.steps_per_epoch == 234);
  CHECK(dropping(sampling_scheme::without_replacement, 256, 60000, 10).phase.steps_per_epoch == 0);
  const auto b = acc::shuffling_epsilon(dropping(sampling_scheme::shuffling, 256, 60000, 10).phase,
                                        1e-5, acc::pld_options{1e-2});
  CHECK(b.steps_per_epoch == 234);
  CHECK(b.complete_epochs == 10);
  CHECK(b.epochs_begun == 10);
  CHECK(b.used < 0.9984);  // 59904/60000, rounded down
  CHECK(b.used > 0.9984 * (1 - 1e-14));
  CHECK(b.lower <= b.upper);
  // Refused where there is no last batch to drop, or no B and N to count it from.
  CHECK(rule_of([&] { dropping(sampling_scheme::poisson, 256, 60000, 10); }) ==
        acc::units_rule::drop_last_unused);
  CHECK(rule_of([&] { dropping(sampling_scheme::random_allocation, 256, 60000, 10); }) ==
        acc::units_rule::drop_last_unused);
  acc::phase_units u;
  u.noise_multiplier = 1.0;
  u.sampling_rate = 0.01;
  u.steps = 100;
  u.sampling = sampling_scheme::shuffling;
  u.drop_last = true;
  CHECK(rule_of([&] { acc::derive_phase(u); }) == acc::units_rule::drop_last_unused);
  // Without drop_last a shuffled or allocated phase carries the loader's ⌈N/B⌉, exact beyond
  // where 1/q in floating point loses it: N = 10^10 + 1 in batches of 10 is 10^9 + 1 batches,
  // which ⌈1/q⌉ rounds to 10^9.
  const auto big = loader_phase(sampling_scheme::shuffling, 10, 10000000001LL, 1);
  CHECK(big.phase.steps_per_epoch == 1000000001LL);
  CHECK(acc::shuffling_steps_per_epoch(big.phase.sampling_rate) == 1000000000LL);
  CHECK(big.phase.steps == 1000000001LL);
  CHECK(loader_phase(sampling_scheme::random_allocation, 256, 60000, 1).phase.steps_per_epoch ==
        235);
}

TEST_CASE("a phase's own epoch length: the schemes and lengths validate accepts",
          "[accounting][units]") {
  using acc::sampling_scheme;
  auto check = [](sampling_scheme s, double q, long long t) {
    acc::training_phase p;
    p.noise_multiplier = 1.0;
    p.sampling_rate = q;
    p.sampling = s;
    p.steps = 10;
    p.steps_per_epoch = t;
    acc::training_run run;
    run.phases.push_back(p);
    try {
      run.validate("test");
      return true;
    } catch (const std::domain_error&) {
      return false;
    }
  };
  CHECK(check(sampling_scheme::shuffling, 0.3, 4));   // ⌈1/q⌉
  CHECK(check(sampling_scheme::shuffling, 0.3, 3));   // drop_last: ⌊1/q⌋
  CHECK(check(sampling_scheme::shuffling, 0.3, 1));   // fewer batches still fit the data
  CHECK_FALSE(check(sampling_scheme::shuffling, 0.3, 5));  // more than the data holds
  CHECK_FALSE(check(sampling_scheme::shuffling, 0.3, -1));
  CHECK(check(sampling_scheme::random_allocation, 0.3, 4));
  CHECK_FALSE(check(sampling_scheme::random_allocation, 0.3, 3));  // q = 1/t there
  CHECK_FALSE(check(sampling_scheme::poisson, 0.3, 4));
  CHECK_FALSE(check(sampling_scheme::without_replacement, 0.3, 3));
  CHECK(check(sampling_scheme::poisson, 0.3, 0));
}

TEST_CASE("noise scales: sigma relative to C or to the sensitivity", "[accounting][units]") {
  using acc::noise_scale;
  using acc::sampling_scheme;
  // Replace-one phases have sensitivity 2C: sigma 0.55 of the sensitivity is sigma 1.1 of C, and
  // back; every other relation has sensitivity C and the scales agree.
  acc::phase_units u;
  u.noise_multiplier = 0.55;
  u.noise_relative_to = noise_scale::sensitivity;
  u.batch_size = 256;
  u.dataset_size = 60000;
  u.steps = 10;
  u.sampling = sampling_scheme::without_replacement;
  const auto d = acc::derive_phase(u);
  CHECK(d.phase.noise_multiplier == 1.1);
  CHECK(acc::noise_relative_to(1.1, noise_scale::sensitivity, d.phase) == 0.55);
  CHECK(acc::noise_relative_to(1.1, noise_scale::clip_norm, d.phase) == 1.1);
  u.sampling = sampling_scheme::poisson;
  CHECK(acc::derive_phase(u).phase.noise_multiplier == 0.55);
  u.neighbours = acc::neighbouring::replace_one;
  CHECK(acc::derive_phase(u).phase.noise_multiplier == 1.1);
  u.neighbours = acc::neighbouring::standard;
  u.sampling = sampling_scheme::shuffling;
  CHECK(acc::derive_phase(u).phase.noise_multiplier == 0.55);
  // The edge values stay edge values; a σ whose double overflows is refused by name.
  u.sampling = sampling_scheme::without_replacement;
  u.noise_multiplier = std::numeric_limits<double>::infinity();
  CHECK(acc::derive_phase(u, true).phase.noise_multiplier ==
        std::numeric_limits<double>::infinity());
  u.noise_multiplier = 1e308;
  CHECK(rule_of([&] { acc::derive_phase(u); }) == acc::units_rule::out_of_range);
  CHECK(acc::parse_noise_scale("sensitivity") == noise_scale::sensitivity);
  CHECK(acc::parse_noise_scale("clip_norm") == noise_scale::clip_norm);
  CHECK_FALSE(acc::parse_noise_scale("C").has_value());
  CHECK(acc::to_string(noise_scale::clip_norm) == "clip-norm");
}

TEST_CASE("derive_phase: the units of a training loop", "[accounting][units]") {
  acc::phase_units u;
  u.noise_multiplier = 1.1;
  u.batch_size = 256;
  u.dataset_size = 60000;
  u.epochs = 10;
  const acc::phase_derivation d = acc::derive_phase(u);
  CHECK(d.phase.sampling_rate == 256.0 / 60000.0);
  CHECK(d.phase.steps == 2344);  // ⌈10·60000/256⌉ = ⌈2343.75⌉
  CHECK(d.phase.noise_multiplier == 1.1);
  CHECK(d.in_batches);
  CHECK(d.batch_size == 256);
  CHECK(d.dataset_size == 60000);
  CHECK(d.steps_per_epoch == 60000.0 / 256.0);
  CHECK(acc::steps_for_epochs(2.5, d) == 586);  // ⌈585.9375⌉

  acc::phase_units f;
  f.full_batch = true;
  f.epochs = 3.5;
  const acc::phase_derivation g = acc::derive_phase(f);
  CHECK(g.phase.sampling_rate == 1);
  CHECK(g.phase.steps == 4);
  CHECK_FALSE(g.noise_given);
  CHECK(g.phase.noise_multiplier == 1);

  acc::phase_units t;
  t.noise_multiplier = 2;
  t.sampling_rate = 0.01;
  t.sampling = acc::sampling_scheme::truncated_poisson;
  t.dataset_size = 1000;
  t.max_batch_size = 20;
  const acc::phase_derivation h = acc::derive_phase(t);
  CHECK_FALSE(h.length_given);
  CHECK(h.phase.steps == 1);
  CHECK(h.phase.dataset_size == 1000);
  CHECK(h.phase.max_batch_size == 20);
}

TEST_CASE("derive_phase: each rule is named with its field", "[accounting][units]") {
  auto base = [] {
    acc::phase_units u;
    u.noise_multiplier = 1;
    u.sampling_rate = 0.01;
    u.steps = 100;
    return u;
  };
  auto failing = [&](auto edit) {
    acc::phase_units u = base();
    edit(u);
    try {
      acc::derive_phase(u);
    } catch (const acc::units_error& e) {
      return std::make_tuple(e.rule(), e.name(), e.other());
    }
    FAIL("accepted");
    return std::make_tuple(acc::units_rule::out_of_range, std::string(), std::string());
  };
  using R = acc::units_rule;
  CHECK(failing([](auto& u) { u.sampling_rate.reset(); }) ==
        std::make_tuple(R::sampling_missing, std::string("sampling_rate"), std::string()));
  CHECK(failing([](auto& u) { u.full_batch = true; }) ==
        std::make_tuple(R::sampling_twice, std::string("full_batch"),
                        std::string("sampling_rate")));
  CHECK(failing([](auto& u) {
          u.sampling_rate.reset();
          u.batch_size = 10;
        }) == std::make_tuple(R::dataset_missing, std::string("batch_size"),
                              std::string("dataset_size")));
  CHECK(failing([](auto& u) {
          u.sampling_rate.reset();
          u.batch_size = 10;
          u.dataset_size = 9;
        }) == std::make_tuple(R::batch_too_large, std::string("batch_size"),
                              std::string("dataset_size")));
  CHECK(failing([](auto& u) { u.dataset_size = 9; }) ==
        std::make_tuple(R::dataset_unused, std::string("dataset_size"),
                        std::string("batch_size")));
  CHECK(failing([](auto& u) { u.epochs = 2; }) ==
        std::make_tuple(R::length_twice, std::string("epochs"), std::string("steps")));
  CHECK(failing([](auto& u) { u.max_batch_size = 2; }) ==
        std::make_tuple(R::max_batch_unused, std::string("max_batch_size"),
                        std::string("sampling")));
  CHECK(failing([](auto& u) {
          u.sampling = acc::sampling_scheme::truncated_poisson;
          u.dataset_size = 100;
        }) == std::make_tuple(R::truncation_missing, std::string("max_batch_size"),
                              std::string("sampling")));
  CHECK(failing([](auto& u) {
          u.sampling = acc::sampling_scheme::shuffling;
          u.neighbours = acc::neighbouring::add_remove;
        }) == std::make_tuple(R::neighbours_fixed, std::string("neighbours"),
                              std::string("sampling")));
  CHECK(failing([](auto& u) { u.noise_multiplier = 0; }) ==
        std::make_tuple(R::out_of_range, std::string("noise_multiplier"), std::string()));
  CHECK(failing([](auto& u) { u.sampling_rate = 1.5; }) ==
        std::make_tuple(R::out_of_range, std::string("sampling_rate"), std::string()));
  CHECK(failing([](auto& u) { u.steps = 0; }) ==
        std::make_tuple(R::out_of_range, std::string("steps"), std::string()));
  CHECK(failing([](auto& u) {
          u.steps.reset();
          u.epochs = 1;
          u.sampling_rate = 0;
        }) == std::make_tuple(R::out_of_range, std::string("sampling_rate"), std::string()));
  // With the edge values accepted, q = 0 reaches the length, where no epoch ends.
  acc::phase_units e = base();
  e.steps.reset();
  e.epochs = 1;
  e.sampling_rate = 0;
  CHECK(rule_of([&] { acc::derive_phase(e, true); }) == R::epochs_never_end);
  e.epochs.reset();
  e.steps = 5;
  CHECK(acc::derive_phase(e, true).phase.sampling_rate == 0);
}

TEST_CASE("the names of schemes, relations and accountants parse back", "[accounting][units]") {
  for (std::string_view name : acc::kSamplingSchemeNames) {
    const auto s = acc::parse_sampling_scheme(name);
    REQUIRE(s.has_value());
    CHECK(acc::to_string(*s) == name);
  }
  CHECK(acc::parse_sampling_scheme("without_replacement") ==
        acc::sampling_scheme::without_replacement);
  CHECK_FALSE(acc::parse_sampling_scheme("Poisson").has_value());
  CHECK_FALSE(acc::parse_sampling_scheme("").has_value());
  for (std::string_view name : acc::kNeighbouringNames)
    CHECK(acc::to_string(*acc::parse_neighbouring(name)) == name);
  CHECK_FALSE(acc::parse_neighbouring("zero-out").has_value());
  CHECK_FALSE(acc::parse_neighbouring("standard").has_value());
  for (std::string_view name : acc::kAccountantNames)
    CHECK(acc::to_string(*acc::parse_accountant(name)) == name);
  CHECK_FALSE(acc::parse_accountant("all").has_value());
}
