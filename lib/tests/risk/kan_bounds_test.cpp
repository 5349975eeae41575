// WSK+26's risk bounds (risk/kan_bounds.hpp). Every bound is recomputed here from the formula
// as WSK+26 states it (App. B, Thm 4.1 and App. C.1 with the explicit certificate, Thm 5.2,
// App. D, App. E), term by term, not through the library's
// helpers; then monotonicity and limits that follow from the formulas (Remark 4.2's λ-dependence,
// κ = 0 against Thm E.1, the C.23 ⊇ 5.2 log factors), the conditions flagged exactly when they
// fail, and bad input. Finally Lemmas B.6–B.7 are checked on random KANs of the simulator
// (learners/kan.hpp): measured gradient norms, network-Hessian norms and loss-Hessian eigenvalues
// stay below the explicit constants.
//
// Tolerances: the library and the test evaluate the same closed forms in a different order, so
// they agree to a few ulp per operation; WithinRel(·, 1e-13) (≈ 450 ulp) covers the longest
// formula (A_van, ~40 operations incl. log and sqrt, whose relative condition numbers are ≤ 1).
#include "dpkit/risk/kan_bounds.hpp"

#include <Eigen/Eigenvalues>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <numbers>
#include <stdexcept>
#include <string>

#include "dpkit/core/random.hpp"
#include "dpkit/sim/data.hpp"
#include "dpkit/learners/kan.hpp"
#include "support/test_util.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using Catch::Matchers::WithinRel;
using dpkit::risk::bound_status;
using dpkit::risk::hidden_constants;
using dpkit::risk::kan_activation;
using dpkit::risk::kan_constants;
using dpkit::risk::kan_training;
using dpkit::risk::risk_bound;

namespace {

constexpr double kKanRel = 1e-13;
using dpkit::test::kNan;
using dpkit::test::kInf;

// Cubic B-splines on [−1, 1] with G = 5 (h = 0.4, p = 8) and tanh: the toolkit default.
kan_constants tanh_cubic() {
  return dpkit::risk::cubic_bspline_constants(kan_activation::tanh, 0.4);
}

// A run inside every condition of Thm C.13 with the default hidden constants (checked below).
kan_training correlated_run() {
  kan_training s;
  s.examples = 1000;
  s.input_dimension = 2;
  s.width = 64;
  s.basis_size = 8;
  s.batch_size = 100;
  s.steps = 1000;
  s.eta = 1e-4;
  s.kappa = 1;
  s.lambda = 0.5;
  s.gamma = 0.5;
  s.delta = 0.01;
  s.clip = 120;
  return s;
}

// G_δ and H_δ from WSK+26 Lemma B.6, eqs. (3)–(5).
double G_delta(const kan_constants& k, double m, double p, double delta) {
  return k.B_sigma_1 * k.B_b * k.B_b_1 * p *
         (4 * std::sqrt(p) + 2 * std::sqrt(std::log(2 / delta) / m));
}
double H_delta(const kan_constants& k, double m, double p, double delta) {
  return k.B_b * k.B_b * (k.B_sigma_2 * k.B_b_1 + k.B_sigma_1 * k.B_sigma_1 * k.B_b_2) *
         std::pow(p, 1.5) / std::sqrt(m) *
         (4 * std::sqrt(p) + 2 * std::sqrt(std::log(2 * m / delta)));
}

// A_corr of Thm 4.1 as printed.
double A_corr(const kan_training& s) {
  const double g = s.gamma, e = s.eta, T = s.steps, B = s.batch_size, l = s.lambda, k = s.kappa;
  const double md = static_cast<double>(s.width * s.input_dimension);
  return 1 / (g * g * e * T) + 1 / (g * std::sqrt(B * T)) + e * (1 / B + 1 / T) +
         (1 - l) * k / (B * std::sqrt(T)) * (1 / g + e * std::sqrt(md) / std::sqrt(B)) +
         ((1 - l) * (1 - l) + l * l * e) * e * k * k * md / (B * B);
}

// A_non of Thm E.1.
double A_non(const kan_training& s) {
  const double g = s.gamma, e = s.eta, T = s.steps, B = s.batch_size;
  return 1 / (g * g * e * T) + 1 / (g * std::sqrt(B * T)) + e / B;
}

// A_van of Thm D.14.
double A_van(const kan_training& s) {
  const double g = s.gamma, e = s.eta, T = s.steps, B = s.batch_size, k = s.kappa, n = s.examples;
  const double md = static_cast<double>(s.width * s.input_dimension), dl = s.delta;
  const double L = std::log(1 / dl), lT = std::log(T), ln = std::log(n / dl);
  return (lT * lT + ln) / (g * g * e * T) + L * (lT + std::sqrt(ln)) / (g * std::sqrt(B * T)) +
         L * (lT + std::sqrt(ln)) * k / (g * B * std::sqrt(T)) + e * L * (1 / B + L / T) +
         e * md * L * L * k * k / (B * B);
}

// Returns a pointer into r: a temporary bound would leave it dangling (ASan found one), so
// binding one does not compile.
const dpkit::risk::condition* find(risk_bound&& r, const std::string& prefix) = delete;
const dpkit::risk::condition* find(const risk_bound& r, const std::string& prefix) {
  for (const auto& c : r.conditions)
    if (c.name.rfind(prefix, 0) == 0) return &c;
  return nullptr;
}

bool holds(const risk_bound& r, const std::string& prefix) {
  const auto* c = find(r, prefix);
  REQUIRE(c != nullptr);
  return c->holds;
}

}  // namespace

// ---- Lemmas B.5–B.7
// -------------------------------------------------------------------------------

TEST_CASE("kan_bounds: Assumption 3.2 constants for cubic splines with tanh and sigmoid",
          "[risk]") {
  const auto t = dpkit::risk::cubic_bspline_constants(kan_activation::tanh, 0.5);
  CHECK(t.B_b == 2.0 / 3);
  CHECK_THAT(t.B_b_1, WithinRel(4.0 / 3, kKanRel));
  CHECK_THAT(t.B_b_2, WithinRel(8.0, kKanRel));
  CHECK(t.B_sigma == 1);
  CHECK(t.B_sigma_1 == 1);
  CHECK_THAT(t.B_sigma_2, WithinRel(0.769800358919501, 1e-14));  // 4/(3√3)
  const auto s = dpkit::risk::cubic_bspline_constants(kan_activation::sigmoid, 0.5);
  CHECK(s.B_sigma_1 == 0.25);
  CHECK_THAT(s.B_sigma_2, WithinRel(0.0962250448649376, 1e-14));  // 1/(6√3)
  // Independent of the simulator's numeric sup norms (Brent on the polynomial pieces).
  const dpkit::learners::uniform_bspline basis(4, 3, -1, 1);
  CHECK_THAT(basis.sup_norm(0), WithinRel(t.B_b, 1e-13));
  CHECK_THAT(basis.sup_norm(1), WithinRel(t.B_b_1, 1e-13));
  CHECK_THAT(basis.sup_norm(2), WithinRel(t.B_b_2, 1e-13));
  CHECK_THAT(dpkit::learners::sup_norms(dpkit::learners::kan_activation::tanh).second,
             WithinRel(t.B_sigma_2, 1e-15));
}

TEST_CASE("kan_bounds: Lemma B.5 radii and the B.6-B.7 constants as in the proofs", "[risk]") {
  const kan_constants k = tanh_cubic();
  for (const long long m : {1LL, 16LL, 1000LL})
    for (const long long p : {4LL, 8LL, 12LL})
      for (const double delta : {0.5, 1e-3}) {
        CAPTURE(m, p, delta);
        const double mm = static_cast<double>(m), pp = static_cast<double>(p);
        const auto b5 = dpkit::risk::lemma_b5(m, p, delta);
        CHECK_THAT(b5.norm,
                   WithinRel(4 * std::sqrt(pp * mm) + 2 * std::sqrt(std::log(2 / delta)), kKanRel));
        CHECK_THAT(b5.block_norm,
                   WithinRel(4 * std::sqrt(pp) + 2 * std::sqrt(std::log(2 * mm / delta)), kKanRel));
        const auto c = dpkit::risk::kan_curvature_bounds(k, m, p, delta);
        const double G = G_delta(k, mm, pp, delta), H = H_delta(k, mm, pp, delta);
        CHECK_THAT(c.gradient, WithinRel(G, kKanRel));
        CHECK_THAT(c.hessian, WithinRel(H, kKanRel));
        CHECK_THAT(c.weak_convexity, WithinRel(H, kKanRel));
        CHECK_THAT(c.smoothness, WithinRel(G * G / 4 + H, kKanRel));
        CHECK_THAT(c.self_bounding, WithinRel(G * G, kKanRel));
        CHECK(c.status == bound_status::explicit_bound);
        CHECK(c.label == "explicit bound");
        // The stated forms with C_{σ,b} = 2.
        hidden_constants hc;
        hc.C_sigma_b = 2;
        const auto st = dpkit::risk::kan_curvature_stated(m, p, delta, hc);
        CHECK_THAT(st.gradient,
                   WithinRel(2 * pp * (std::sqrt(pp) + std::sqrt(std::log(1 / delta) / mm)), kKanRel));
        CHECK_THAT(st.hessian,
                   WithinRel(2 * std::pow(pp, 1.5) *
                                 (std::sqrt(pp) + std::sqrt(std::log(mm / delta))) / std::sqrt(mm),
                             kKanRel));
        CHECK_THAT(st.smoothness, WithinRel(2 * pp * pp * pp, kKanRel));
        CHECK_THAT(st.self_bounding, WithinRel(8 * pp * pp * pp, kKanRel));
        CHECK(st.status == bound_status::up_to_constants);
      }
  // H_δ decays like m^{-1/2} up to the √log(2m/δ) factor; G_δ tends to 4B′_σB_bB′_b p^{3/2}.
  const auto a = dpkit::risk::kan_curvature_bounds(k, 100, 8, 0.1);
  const auto b = dpkit::risk::kan_curvature_bounds(k, 10000, 8, 0.1);
  CHECK(b.hessian < a.hessian / 10 * 1.2);
  CHECK(b.hessian > a.hessian / 10);
  CHECK_THAT(dpkit::risk::kan_curvature_bounds(k, 1LL << 40, 8, 0.1).gradient,
             WithinRel(4 * k.B_b * k.B_b_1 * std::pow(8.0, 1.5), 1e-5));
}

TEST_CASE("kan_bounds: Lemma C.12 comparator radius", "[risk]") {
  const double gamma = 0.3, delta = 0.05, Bb = 2.0 / 3;
  for (const long long T : {1LL, 100LL, 1000000LL}) {
    const auto r = dpkit::risk::kan_comparator_radius(gamma, 8, 500, T, delta, Bb, 1e-3);
    const double expected =
        std::max(2 * Bb * std::sqrt(2 * 8 * std::log(2 * 500 / delta)), 4 * std::log(double(T))) /
        gamma;
    CAPTURE(T);
    CHECK_THAT(r.value, WithinRel(expected, kKanRel));
    CHECK(holds(r, "tau H_{delta/2} <= gamma/2") == (expected * 1e-3 <= gamma / 2));
  }
  const auto big = dpkit::risk::kan_comparator_radius(gamma, 8, 500, 100, delta, Bb, 10);
  CHECK(big.status == bound_status::condition_violated);
  CHECK_THAT(big.label, StartsWith("condition violated: tau H_{delta/2} <= gamma/2"));
  const auto ok = dpkit::risk::kan_comparator_radius(gamma, 8, 500, 100, delta, Bb, 1e-6);
  CHECK(ok.status == bound_status::explicit_bound);
  CHECK(ok.label == "explicit bound");
}

// ---- the explicit certificate (docs/kan.md) -----------------------------------------------------

TEST_CASE("kan_bounds: the explicit certificate recomputed step by step", "[risk]") {
  const kan_constants k = tanh_cubic();
  kan_training s = correlated_run();
  s.radius = 200;
  dpkit::risk::certificate_inputs in;
  in.tau = 30;
  in.comparator_loss = 1e-3;
  in.delta_init = in.delta_Z = in.delta_Delta = in.delta_pot = 0.0025;
  const auto r = dpkit::risk::kan_correlated_certificate(s, k, in);

  const double m = 64, d = 2, p = 8, D = m * d * p, T = 1000, B = 100, eta = 1e-4, lam = 0.5;
  const double G = G_delta(k, m, p, 0.0025), H = H_delta(k, m, p, 0.0025);
  const double beta = G * G / 4 + H, nu = H, c = 120 * 1.0 / B;
  const double z = std::sqrt(D) + std::sqrt(2 * std::log(2 * T / 0.0025));
  const double VZ =
      (T - 1) * D + 2 * std::sqrt((T - 1) * D * std::log(2 / 0.0025)) + 2 * std::log(2 / 0.0025);
  const double VD = 2 * T * G * G / B + 8 * G * G * std::log(1 / 0.0025);
  const double lp = std::log(6 / 0.0025);
  const double a = 4 * std::sqrt(2.0) * eta * G * std::sqrt(T * lp / B) +
                   4 * (1 - lam) * eta * c * std::sqrt(T * lp);
  const double b = 4 * (1 - lam) * eta * eta * c * G * std::sqrt(VZ * lp / B);
  const double K = 30.0 * 30 + 8.0 / 3 * eta * T * 1e-3 + 2 * eta * eta * VD +
                   ((1 - lam) * (1 - lam) * eta * eta * c * c +
                    12 * beta * lam * lam * eta * eta * eta * c * c) *
                       VZ;
  const double R = 0.5 * (a + std::sqrt(a * a + 4 * (K + b)));
  const double bound =
      8 * 1e-3 + 3 * 900 / (eta * T) + 3 * (a * R + b) / (eta * T) + 6 * eta * VD / T +
      3 * ((1 - lam) * (1 - lam) * eta + 12 * beta * lam * lam * eta * eta) * c * c * VZ / T;
  CHECK_THAT(r.z, WithinRel(z, kKanRel));
  CHECK_THAT(r.V_Z, WithinRel(VZ, kKanRel));
  CHECK_THAT(r.V_Delta, WithinRel(VD, kKanRel));
  CHECK_THAT(r.a, WithinRel(a, kKanRel));
  CHECK_THAT(r.b, WithinRel(b, kKanRel));
  CHECK_THAT(r.R_bar, WithinRel(R, kKanRel));
  CHECK_THAT(r.value, WithinRel(bound, kKanRel));
  CHECK_THAT(r.noise_scale, WithinRel(c, kKanRel));
  CHECK_THAT(r.probability, WithinRel(0.99, kKanRel));
  // R̄ solves (10) with equality.
  CHECK_THAT(r.R_bar * r.R_bar, WithinRel(K + a * r.R_bar + b, 1e-12));
  // Conditions, each against its own recomputation.
  CHECK(holds(r, "eta <= 1/(12 beta)") == (eta <= 1 / (12 * beta)));
  CHECK(holds(r, "nu (R_bar + eta c z)^2 <= 1/2") ==
        (nu * (R + eta * c * z) * (R + eta * c * z) <= 0.5));
  CHECK(holds(r, "R* >= R_bar + tau + eta c z") == (200 >= R + 30 + eta * c * z));
  CHECK(holds(r, "C_clip >= G_delta") == (120 >= G));
  CHECK(holds(r, "lambda > 0"));
  // At realistic widths ν(R̄)² ≤ 1/2 fails by orders of magnitude (docs/kan.md).
  CHECK(r.status == bound_status::condition_violated);
  CHECK_THAT(r.label, Contains("nu (R_bar + eta c z)^2 <= 1/2"));

  // λ = 0 is outside Lemma C.11's stated hypothesis; κ = 0 gives c = 0 even without clipping.
  s.lambda = 0;
  s.kappa = 0;
  s.clip = kInf;
  const auto r0 = dpkit::risk::kan_correlated_certificate(s, k, in);
  CHECK(r0.noise_scale == 0);
  CHECK(!holds(r0, "lambda > 0"));
  CHECK(r0.b == 0);
}

TEST_CASE("kan_bounds: the certificate's conditions all hold at astronomically large width",
          "[risk]") {
  // Non-private (κ = 0), so c = 0: ν R̄² ≤ 1/2 with R̄ ≈ τ = 20 needs H_δ ≤ 1/800, i.e.
  // m ≳ 1e13 at p = 8 (H_δ ≈ 2.5e3/√m); m = 2^60 is far beyond.
  const kan_constants k = tanh_cubic();
  kan_training s = correlated_run();
  s.kappa = 0;
  s.lambda = 0.5;
  s.width = 1LL << 60;
  s.radius = kInf;
  s.eta = 1e-5;
  s.steps = 100000;
  dpkit::risk::certificate_inputs in;
  in.tau = 20;
  in.comparator_loss = 1e-5;
  in.delta_init = in.delta_Z = in.delta_Delta = in.delta_pot = 0.0025;
  const auto r = dpkit::risk::kan_correlated_certificate(s, k, in);
  CHECK(r.conditions_hold());
  CHECK(r.status == bound_status::explicit_bound);
  CHECK(r.label == "explicit bound");
}

// ---- Thm 4.1 / C.13
// ----------------------------------------------------------------------------------

TEST_CASE("kan_bounds: Thm C.13 value and conditions", "[risk]") {
  const kan_constants k = tanh_cubic();
  const kan_training s = correlated_run();
  const auto r = dpkit::risk::kan_correlated_optimization(s, k);
  CHECK_THAT(r.value, WithinRel(A_corr(s), kKanRel));
  CHECK(r.terms.size() == 5);
  CHECK(r.conditions_hold());
  CHECK(r.status == bound_status::up_to_constants);
  CHECK(r.label == "up to hidden constants");
  CHECK(r.source == "WSK+26, Thm 4.1 / C.13");
  // The hidden constants multiply.
  hidden_constants c;
  c.bound = 3;
  c.polylog = 7;
  CHECK_THAT(dpkit::risk::kan_correlated_optimization(s, k, c).value,
             WithinRel(21 * A_corr(s), kKanRel));

  SECTION("each condition is flagged exactly when its inequality fails") {
    const double g = s.gamma, e = s.eta, T = s.steps, B = s.batch_size, l = s.lambda, kap = s.kappa;
    auto flagged = [&](const kan_training& t, const hidden_constants& hc, const std::string& name) {
      const auto b = dpkit::risk::kan_correlated_optimization(t, k, hc);
      CAPTURE(name, b.label);
      CHECK(b.status == bound_status::condition_violated);
      CHECK(!holds(b, name));
      CHECK_THAT(b.label, Contains(name));
    };
    kan_training t = s;
    t.eta = 1.01 / (12 * 512);
    flagged(t, {}, "eta <= 1/(12 C_{sigma,b} p^3)");
    t = s;
    t.clip = G_delta(k, 64, 8, 0.01) * (1 - 1e-9);
    flagged(t, {}, "C_clip >= G_delta");
    // The step-size condition at its value, with the tolerance just below.
    const double step =
        e * g * std::sqrt(T) * (1 / std::sqrt(B) + kap * (1 - l) / B) + e * e * g * g * (T / B + 1);
    hidden_constants hc;
    hc.step_size_condition = step * (1 - 1e-9);
    flagged(s, hc, "eta gamma sqrt(T)");
    hc.step_size_condition = step * (1 + 1e-9);
    CHECK(holds(dpkit::risk::kan_correlated_optimization(s, k, hc), "eta gamma sqrt(T)"));
    // Width window: lower γ^{-4} = 16, upper B²/(η²κ²γ²d)·min{1, 1/(T((1−λ)² + λ²η))}.
    const double upper = B * B / (e * e * kap * kap * g * g * 2) *
                         std::min(1.0, 1 / (T * ((1 - l) * (1 - l) + l * l * e)));
    t = s;
    t.width = 15;
    flagged(t, {}, "m >= c-width-lower gamma^-4");
    t.width = 16;
    t.clip = 1e9;
    CHECK(dpkit::risk::kan_correlated_optimization(t, k).conditions_hold());
    t.width = static_cast<long long>(upper) + 1;
    flagged(t, {}, "m <= c-width-upper");
    t = s;
    t.lambda = 0;
    flagged(t, {}, "lambda > 0");
    t = s;
    t.kappa = 0;
    flagged(t, {}, "kappa > 0");
    t = s;
    t.gamma = 1.5;
    flagged(t, {}, "gamma <= 1");
  }
}

TEST_CASE("kan_bounds: A_corr monotonicity and limits that follow from Thm 4.1", "[risk]") {
  const kan_constants k = tanh_cubic();
  kan_training s = correlated_run();
  auto value = [&](const kan_training& t) {
    return dpkit::risk::kan_correlated_optimization(t, k).value;
  };
  // Nonincreasing in T (every term is, the quadratic noise term is constant in T).
  double previous = kInf;
  for (long long T = 1; T <= 1000000; T *= 10) {
    kan_training t = s;
    t.steps = T;
    CHECK(value(t) <= previous);
    previous = value(t);
  }
  // Increasing in κ; linear term ∝ κ, quadratic ∝ κ².
  previous = value(s);
  for (const double kap : {2.0, 4.0, 8.0}) {
    kan_training t = s;
    t.kappa = kap;
    CHECK(value(t) > previous);
    previous = value(t);
  }
  // Remark 4.2: at fixed κ the bound decreases in λ while λ < 1/(1 + η)
  // (d/dλ[(1 − λ)² + λ²η] < 0 there), and the noise terms vanish-ish as λ → 1 for small η.
  previous = kInf;
  for (double lam = 0.05; lam < 1 / (1 + s.eta); lam += 0.05) {
    kan_training t = s;
    t.lambda = lam;
    CHECK(value(t) < previous);
    previous = value(t);
  }
  // κ = 0: A_corr = A_non + η/T exactly (Thm E.1 is "set κ = 0").
  kan_training t = s;
  t.kappa = 0;
  const auto corr0 = dpkit::risk::kan_correlated_optimization(t, k);
  const auto non = dpkit::risk::kan_sgd_optimization(t, k);
  CHECK_THAT(corr0.value, WithinRel(non.value + t.eta / static_cast<double>(t.steps), kKanRel));
  CHECK(corr0.value <= 2 * non.value);  // T ≥ B: η/T ≤ η/B
  CHECK(!holds(corr0, "kappa > 0"));
}

TEST_CASE("kan_bounds: Thm 5.2 and C.23 population bounds", "[risk]") {
  const kan_constants k = tanh_cubic();
  kan_training s = correlated_run();
  const double n = 1000, T = 1000, eta = 1e-4, delta = 0.01, m = 64, B = 100;
  const double R = (std::log(T) + std::sqrt(std::log(n / delta))) / 0.5;  // R* ≍ …/γ
  const double A = A_corr(s);
  const auto c23 = dpkit::risk::kan_correlated_population(s, k);
  CHECK_THAT(c23.value, WithinRel((1 + eta * T * std::log(1 / delta) / n) *
                                      (A + std::log(n / delta) * (std::sqrt(m) + R) * delta),
                                  kKanRel));
  CHECK(c23.source == "WSK+26, Thm C.23");
  const auto displayed =
      dpkit::risk::kan_correlated_population(s, k, {}, dpkit::risk::statement::main_text);
  CHECK_THAT(displayed.value,
             WithinRel((1 + eta * T / n) * (A + (std::sqrt(m) + R) * delta), kKanRel));
  CHECK(displayed.source == "WSK+26, Thm 5.2");
  // C.23 carries the extra log(1/δ), log(n/δ) ≥ 1 factors: never below the main-text display.
  CHECK(c23.value >= displayed.value);
  CHECK(c23.value >= dpkit::risk::kan_correlated_optimization(s, k).value);
  // An explicit R* replaces the default.
  s.radius = 3;
  CHECK_THAT(
      dpkit::risk::kan_correlated_population(s, k, {}, dpkit::risk::statement::main_text).value,
      WithinRel((1 + eta * T / n) * (A + (std::sqrt(m) + 3) * delta), kKanRel));
  // The generalization width condition, recomputed.
  const double L = std::log(1 / delta), ln = std::log(n / delta);
  const double inner = T * A + (ln + 3) * (std::sqrt(T * L / B) + L);
  const double need = 9 * std::log(m / delta) * eta * eta * inner * inner;
  const risk_bound population = dpkit::risk::kan_correlated_population(s, k);
  const auto* w = find(population, "m >= width_generalization");
  REQUIRE(w);
  CHECK_THAT(w->limit, WithinRel(need, kKanRel));
  CHECK(w->holds == (m >= need));
}

// ---- independent noise and non-private
// ------------------------------------------------------------

TEST_CASE("kan_bounds: Thm D.14 and D.16 (independent noise)", "[risk]") {
  const kan_constants k = tanh_cubic();
  kan_training s = correlated_run();
  s.lambda = 0;
  s.width = 10000000;
  const auto opt = dpkit::risk::kan_independent_optimization(s, k);
  CHECK_THAT(opt.value, WithinRel(A_van(s), kKanRel));
  const double n = 1000, T = 1000, eta = 1e-4, delta = 0.01, g = 0.5;
  const double L = std::log(1 / delta), ln = std::log(n / delta), rho = std::log(T) + std::sqrt(ln);
  const auto pop = dpkit::risk::kan_independent_population(s, k);
  CHECK_THAT(pop.value, WithinRel((1 + eta * T * L / n) * (A_van(s) + delta * std::sqrt(ln)) +
                                      std::sqrt(L) * rho * delta / g,
                                  kKanRel));
  const double w1 = std::log(1e7 / delta) * (std::pow(std::log(T), 4) + ln * ln) / std::pow(g, 4);
  CHECK_THAT(find(opt, "m >= c-width-lower max")->limit, WithinRel(w1, kKanRel));
  CHECK(opt.conditions_hold());
  CHECK(pop.conditions_hold());
  s.lambda = 0.3;
  CHECK(!holds(dpkit::risk::kan_independent_optimization(s, k), "lambda = 0"));
  // λ = 0 and κ = 0 in A_van leave the logs: A_van ≥ A_non at δ ≤ 1/e, n ≥ e…
  s.lambda = 0;
  s.kappa = 0;
  CHECK(dpkit::risk::kan_independent_optimization(s, k).value >=
        dpkit::risk::kan_sgd_optimization(s, k).value);
}

TEST_CASE("kan_bounds: Thm E.1 (non-private mini-batch SGD)", "[risk]") {
  const kan_constants k = tanh_cubic();
  kan_training s = correlated_run();
  s.kappa = 0;
  s.width = 1000000;
  s.clip = kInf;
  const auto opt = dpkit::risk::kan_sgd_optimization(s, k);
  CHECK_THAT(opt.value, WithinRel(A_non(s), kKanRel));
  CHECK(opt.conditions_hold());
  const double n = 1000, T = 1000, eta = 1e-4, delta = 0.01, g = 0.5;
  const auto pop = dpkit::risk::kan_sgd_population(s, k);
  CHECK_THAT(pop.value, WithinRel((1 + eta * T / n) * (A_non(s) + delta) + delta / g, kKanRel));
  CHECK(pop.source == "WSK+26, Thm E.1 (population)");
  // Full batch, T → ∞: A_non → η/B (the step term), the generalization factor grows like ηT/n.
  s.batch_size = 1000;
  s.steps = 1000000000000000000LL;
  CHECK_THAT(dpkit::risk::kan_sgd_optimization(s, k).value, WithinRel(eta / 1000, 1e-3));
  s.kappa = 0.5;
  CHECK(!holds(dpkit::risk::kan_sgd_optimization(s, k), "kappa = 0"));
}

// ---- corollaries
// --------------------------------------------------------------------------------------

TEST_CASE("kan_bounds: Cor 5.3, 5.5, 5.6 and full-batch GD parameter choices and rates", "[risk]") {
  dpkit::risk::rate_problem p;
  p.examples = 100000;
  p.input_dimension = 10;
  p.epsilon = 1;
  p.gamma = 0.5;
  p.delta = 1e-7;
  const double n = 1e5, d = 10, eps = 1, g = 0.5, delta = 1e-7;

  SECTION("Cor 5.3") {
    const auto r = dpkit::risk::kan_correlated_rate(p);
    CHECK_THAT(r.optimization.value,
               WithinRel(1 / (g * std::sqrt(n)) + std::sqrt(d) / (std::pow(g, 4) * n * eps), kKanRel));
    CHECK(r.population.value == r.optimization.value);
    CHECK(r.setting.batch_size == 50000);
    const double T = std::round(std::min(std::sqrt(n) / g, n * eps * g * g / std::sqrt(d)));
    CHECK(r.setting.steps == static_cast<long long>(T));
    CHECK(r.setting.width == 64);  // γ^{-6}
    const double amp = (1 - std::pow(0.5, T)) / 0.5, rT = 0.5 * T, L = std::log(1 / delta);
    CHECK_THAT(r.setting.kappa,
               WithinRel(std::sqrt(amp * amp * (rT + std::sqrt(rT * L)) * L) / eps, kKanRel));
    // η ≍ 1 violates η ≤ 1/(12 C p³) unless C_{σ,b} absorbs p³ (docs/kan.md).
    CHECK(r.optimization.status == bound_status::condition_violated);
    CHECK_THAT(r.optimization.label, Contains("eta <= 1/(12 C_{sigma,b} p^3)"));
    CHECK(holds(r.optimization, "delta <= min{1/(n sqrt m), gamma/n}"));
    hidden_constants c;
    c.C_sigma_b = 1.0 / (12 * 512);
    CHECK(dpkit::risk::kan_correlated_rate(p, c).optimization.conditions_hold());
    dpkit::risk::rate_problem q = p;
    q.delta = 1e-5;  // > 1/(n√m) = 1.25e-6
    CHECK(!holds(dpkit::risk::kan_correlated_rate(q, c).population, "delta <= min"));
    // Rates fall like n^{-1/2} once the privacy term is negligible.
    q = p;
    q.examples = 400000;
    CHECK(dpkit::risk::kan_correlated_rate(q).optimization.value < r.optimization.value / 1.9);
  }
  SECTION("Cor 5.5") {
    const auto r = dpkit::risk::kan_independent_rate(p);
    CHECK_THAT(r.optimization.value,
               WithinRel(1 / (g * std::sqrt(n)) + std::sqrt(d) / (g * g * g * n * eps), kKanRel));
    const double B = std::round(g * std::sqrt(n)), T = std::round(std::sqrt(n) / g);
    CHECK(r.setting.batch_size == static_cast<long long>(B));
    CHECK(r.setting.steps == static_cast<long long>(T));
    CHECK_THAT(r.setting.eta,
               WithinRel(std::min(1.0, g * g * std::sqrt(n) * eps / std::sqrt(d)), kKanRel));
    CHECK(r.setting.width == 16);  // γ^{-4}
    CHECK_THAT(r.setting.kappa,
               WithinRel(std::sqrt(B * B * T * std::log(1 / delta)) / (n * eps), kKanRel));
    CHECK(holds(r.optimization, "delta <= gamma/n"));
    CHECK(!holds(r.optimization, "eta <= 1/(12 C_{sigma,b} p^3)"));
    // Cor 5.5's privacy term is γ^{-3} against Cor 5.3's γ^{-4}.
    CHECK(r.optimization.value < dpkit::risk::kan_correlated_rate(p).optimization.value);
  }
  SECTION("Cor 5.6 and full-batch GD") {
    const auto r = dpkit::risk::kan_sgd_rate(p);
    CHECK_THAT(r.optimization.value, WithinRel(1 / n, kKanRel));
    CHECK_THAT(r.population.value, WithinRel(1 / (g * g * n), kKanRel));
    const double B = std::floor(g * std::sqrt(n));
    CHECK(r.setting.batch_size == static_cast<long long>(B));
    CHECK_THAT(r.setting.eta, WithinRel(B / n, kKanRel));
    CHECK(r.setting.steps == static_cast<long long>(std::round(n * n / (g * g * B))));
    // η = B/n = 1.6e-3 > 1/(12·512): flagged; δ = 1e-7 ≤ 1/(γn) = 2e-5 holds.
    CHECK(!holds(r.optimization, "eta <= 1/(12 C_{sigma,b} p^3)"));
    CHECK(holds(r.optimization, "delta <= 1/(gamma n)"));
    dpkit::risk::rate_problem q = p;
    q.batch_size = 1000;  // > γ√n ≈ 158
    CHECK(!holds(dpkit::risk::kan_sgd_rate(q).optimization, "B <= batch gamma sqrt n"));
    const auto gd = dpkit::risk::kan_gd_rate(p);
    CHECK(gd.setting.batch_size == 100000);
    CHECK(gd.setting.steps == 400000);
    CHECK_THAT(gd.optimization.value, WithinRel(1 / (g * g * 400000), kKanRel));
    CHECK_THAT(gd.population.value, WithinRel(1 / (g * g * n), kKanRel));
  }
}

// ---- Lemmas B.6–B.7 on random KANs -------------------------------------------------------------

TEST_CASE("kan_bounds: Lemmas B.6-B.7 hold on random KANs of the simulator", "[risk]") {
  using dpkit::random_stream;
  using dpkit::sim::vector;
  struct config {
    std::size_t m, d, grid;
    dpkit::learners::kan_activation act;
    double weight_scale;
  };
  const config configs[] = {{4, 2, 5, dpkit::learners::kan_activation::tanh, 1},
                            {4, 2, 5, dpkit::learners::kan_activation::sigmoid, 1},
                            {16, 3, 5, dpkit::learners::kan_activation::tanh, 3},
                            {64, 2, 3, dpkit::learners::kan_activation::tanh, 1},
                            {8, 2, 8, dpkit::learners::kan_activation::sigmoid, 10}};
  const double delta = 0.01;
  for (const config& cf : configs) {
    CAPTURE(cf.m, cf.d, cf.grid, dpkit::learners::to_string(cf.act), cf.weight_scale);
    random_stream s(2024, cf.m, cf.grid);
    const auto data = std::make_shared<const dpkit::sim::dataset>(dpkit::sim::unit_ball_margin_data(
        30, vector::Ones(static_cast<Eigen::Index>(cf.d)), 0.0, s));
    dpkit::learners::kan_options o;
    o.width = cf.m;
    o.grid_size = cf.grid;
    o.activation = cf.act;
    const std::size_t p = cf.grid + 3;
    const vector c = dpkit::learners::kan_second_layer(cf.m, p, s);
    const dpkit::learners::kan_model f(data, o, c);
    // Assumption 3.2's constants of this model, from the closed forms.
    const kan_constants k = dpkit::risk::cubic_bspline_constants(
        cf.act == dpkit::learners::kan_activation::tanh ? kan_activation::tanh : kan_activation::sigmoid,
        2.0 / static_cast<double>(cf.grid));
    const auto pl = static_cast<long long>(p), ml = static_cast<long long>(cf.m);
    // Deterministic form with the realised ‖c‖, max_j ‖c_j‖; and the E_δ form (E_δ must hold).
    double block = 0;
    for (std::size_t j = 0; j < cf.m; ++j)
      block = std::max(
          block, c.segment(static_cast<Eigen::Index>(j * p), static_cast<Eigen::Index>(p)).norm());
    const auto given = dpkit::risk::kan_curvature_given_c(k, ml, pl, c.norm(), block);
    const auto b5 = dpkit::risk::lemma_b5(ml, pl, delta);
    REQUIRE(c.norm() <= b5.norm);
    REQUIRE(block <= b5.block_norm);
    const auto bound = dpkit::risk::kan_curvature_bounds(k, ml, pl, delta);
    CHECK(given.gradient <= bound.gradient);
    CHECK(given.hessian <= bound.hessian);

    double grad_max = 0, hess_max = 0;
    for (int trial = 0; trial < 5; ++trial) {
      vector w = cf.weight_scale * dpkit::learners::kan_initial_weights(cf.m, cf.d, p, s);
      vector g(w.size());
      for (std::size_t i = 0; i < f.examples(); ++i) {
        const vector x = data->features.row(static_cast<Eigen::Index>(i)).transpose();
        f.output_gradient(w, x, g);
        grad_max = std::max(grad_max, g.norm());
        hess_max = std::max(hess_max, f.output_hessian_norm(w, x));
        if (f.dimension() <= 128) {
          // B.7: λ_min(∇²ℓ) ≥ −ν ℓ and λ_max(∇²ℓ) ≤ β, by a dense eigendecomposition.
          const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(f.hessian(i, w));
          CHECK(eig.eigenvalues().minCoeff() >= -given.weak_convexity * f.loss(i, w));
          CHECK(eig.eigenvalues().maxCoeff() <= given.smoothness);
        }
      }
      // B.7 self-bounding: ‖∇L_S‖² ≤ G² L_S.
      vector grad_risk = vector::Zero(w.size());
      for (std::size_t i = 0; i < f.examples(); ++i) {
        f.gradient(i, w, g);
        grad_risk += g / static_cast<double>(f.examples());
      }
      CHECK(grad_risk.squaredNorm() <= given.self_bounding * f.empirical_risk(w));
    }
    CHECK(grad_max <= given.gradient);
    CHECK(hess_max <= given.hessian);
    // The bounds are loose (docs/kan.md reports the measured slack); make sure they are not
    // vacuous in the other direction either.
    CHECK(grad_max > 0);
    CHECK(hess_max > 0);
  }
}

// ---- bad input
// ----------------------------------------------------------------------------------------

TEST_CASE("kan_bounds: bad input is rejected with the documented messages", "[risk]") {
  const kan_constants k = tanh_cubic();
  kan_training s = correlated_run();
  s.delta = 1;
  CHECK_THROWS_WITH(dpkit::risk::kan_correlated_optimization(s, k),
                    Contains("kan_correlated_optimization: delta is 1, but must be in (0, 1)"));
  s = correlated_run();
  s.lambda = 1;
  CHECK_THROWS_WITH(dpkit::risk::kan_correlated_population(s, k),
                    Contains("lambda is 1, but must be in [0, 1)"));
  s = correlated_run();
  s.batch_size = 2000;
  CHECK_THROWS_WITH(dpkit::risk::kan_sgd_optimization(s, k),
                    Contains("batch_size is 2000, but must be <= examples = 1000"));
  s = correlated_run();
  s.eta = kNan;
  CHECK_THROWS_AS(dpkit::risk::kan_independent_optimization(s, k), std::domain_error);
  s = correlated_run();
  s.clip = 0;
  CHECK_THROWS_WITH(dpkit::risk::kan_sgd_population(s, k), Contains("clip is 0"));
  s = correlated_run();
  dpkit::risk::certificate_inputs in;
  in.tau = 1;
  in.comparator_loss = 0.1;
  in.delta_init = in.delta_Z = in.delta_Delta = in.delta_pot = 0.01;
  CHECK_THROWS_WITH(dpkit::risk::kan_correlated_certificate(s, k, in), Contains("radius is nan"));
  s.radius = 10;
  s.clip = kInf;
  CHECK_THROWS_WITH(dpkit::risk::kan_correlated_certificate(s, k, in), Contains("clip is inf"));
  kan_constants bad = k;
  bad.B_b = -1;
  CHECK_THROWS_WITH(dpkit::risk::kan_curvature_bounds(bad, 4, 8, 0.1), Contains("B_b is -1"));
  hidden_constants hc;
  hc.polylog = 0;
  CHECK_THROWS_WITH(dpkit::risk::kan_correlated_optimization(correlated_run(), k, hc),
                    Contains("hidden_constants.polylog is 0"));
  CHECK_THROWS_WITH(dpkit::risk::lemma_b5(0, 8, 0.1), Contains("width is 0"));
  CHECK_THROWS_WITH(dpkit::risk::cubic_bspline_constants(kan_activation::tanh, 0),
                    Contains("spacing is 0"));
  dpkit::risk::rate_problem p;
  p.examples = 100;
  p.input_dimension = 1;
  p.gamma = 0.5;
  p.delta = 1e-3;
  CHECK_THROWS_WITH(dpkit::risk::kan_correlated_rate(p), Contains("epsilon is nan"));
  CHECK_NOTHROW(dpkit::risk::kan_sgd_rate(p));  // ε unused
  CHECK(dpkit::risk::to_string(bound_status::condition_violated) == "condition violated");
}

// ---- the slack table of docs/kan.md (hidden: run `dpkit_risk_tests "[slack]"`) ------------------

TEST_CASE("kan_bounds: print the measured slack of Lemmas B.6-B.7 on random KANs", "[.][slack]") {
  using dpkit::random_stream;
  using dpkit::sim::vector;
  std::printf(
      "| sigma | d | m | max |grad f| | G (realised c) | G_delta | G_delta/max | max ||Hess f|| | "
      "H_delta | H_delta/max | max lambda_max | beta (realised c) | beta/max | "
      "min lambda_min/loss | -nu (realised c) | max |grad L_S|^2/L_S | G^2 (realised c) "
      "|\n|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"
      "---|---|\n");
  for (const auto act : {dpkit::learners::kan_activation::tanh, dpkit::learners::kan_activation::sigmoid})
    for (const std::size_t d : {2u, 10u})
      for (const std::size_t m : {4u, 16u, 64u, 256u}) {
        random_stream s(77, m, d);
        const auto data =
            std::make_shared<const dpkit::sim::dataset>(dpkit::sim::unit_ball_margin_data(
                200, vector::Ones(static_cast<Eigen::Index>(d)), 0.0, s));
        dpkit::learners::kan_options o;
        o.width = m;
        o.activation = act;
        const vector c = dpkit::learners::kan_second_layer(m, 8, s);
        const dpkit::learners::kan_model f(data, o, c);
        const kan_constants k = dpkit::risk::cubic_bspline_constants(
            act == dpkit::learners::kan_activation::tanh ? kan_activation::tanh
                                                    : kan_activation::sigmoid,
            0.4);
        double block = 0;
        for (std::size_t j = 0; j < m; ++j)
          block = std::max(block, c.segment(static_cast<Eigen::Index>(8 * j), 8).norm());
        const auto ml = static_cast<long long>(m);
        const auto given = dpkit::risk::kan_curvature_given_c(k, ml, 8, c.norm(), block);
        const auto bound = dpkit::risk::kan_curvature_bounds(k, ml, 8, 0.01);
        double gm = 0, hm = 0, lmax = 0, lmin = 0, sb = 0;
        const bool dense = m * d * 8 <= 320;
        for (int trial = 0; trial < 5; ++trial) {
          const vector w = dpkit::learners::kan_initial_weights(m, d, 8, s);
          vector g(w.size()), risk_gradient = vector::Zero(w.size());
          for (std::size_t i = 0; i < f.examples(); ++i) {
            const vector x = data->features.row(static_cast<Eigen::Index>(i)).transpose();
            f.output_gradient(w, x, g);
            gm = std::max(gm, g.norm());
            hm = std::max(hm, f.output_hessian_norm(w, x));
            if (dense && i < 40) {
              const Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> eig(f.hessian(i, w));
              lmax = std::max(lmax, eig.eigenvalues().maxCoeff());
              lmin = std::min(lmin, eig.eigenvalues().minCoeff() / f.loss(i, w));
            }
            f.gradient(i, w, g);
            risk_gradient += g / static_cast<double>(f.examples());
          }
          sb = std::max(sb, risk_gradient.squaredNorm() / f.empirical_risk(w));
        }
        auto opt = [&](double v) {
          return dense ? std::to_string(v).substr(0, 6) : std::string("-");
        };
        std::printf(
            "| %s | %zu | %zu | %.3g | %.3g | %.3g | %.0f | %.3g | %.3g | %.0f | %s | %.3g | %s | "
            "%s "
            "| %.3g | %.3g | %.3g |\n",
            dpkit::learners::to_string(act), d, m, gm, given.gradient, bound.gradient,
            bound.gradient / gm, hm, bound.hessian, bound.hessian / hm, opt(lmax).c_str(),
            given.smoothness,
            dense ? std::to_string(static_cast<int>(given.smoothness / lmax)).c_str() : "-",
            opt(lmin).c_str(), -given.weak_convexity, sb, given.self_bounding);
      }
  SUCCEED();
}
