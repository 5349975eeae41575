// ZXD+26's simulator (learners/longtail.hpp): the data model of Definition 1 (orthogonality, the
// noise energy by Monte Carlo, the closed-form norms and NCR against dense matrices built with
// an explicit random rotation U), the network of eq. (1) (gradient against central finite
// differences, the gradient-norm closed form and its 2(1 − p_y)²(‖u‖² + ‖ξ‖²)/m bound, the
// clipping multiplier), DP-SGD of eq. (4) (the exact noise replay, clean GD decreasing the
// loss), the long-tail protocol (tail frequency 1 − Φ(L) by a Clopper–Pearson interval, the
// truncated-normal sampler's mean against its closed form), and bad input.
//
// Monte Carlo tolerances are set so that a correct implementation fails with probability
// ≤ 1e-6: 5.5 standard errors for means of ≥ 2000 i.i.d. terms (normal approximation, two-sided
// P ≈ 4e-8; the summands have all moments, so the CLT error is far below that margin), and
// Clopper–Pearson intervals at coverage 1 − 1e-7 for proportions (exact).
//
// Finite differences: central, step h = ε^{1/3}·max(1, |w_j|) ≈ 6e-6; the loss is piecewise
// smooth (ReLU kinks); at the random test points every pre-activation is ≥ 1e-3 away from 0
// (checked), so no kink lies within the stencil, and the error is O(h²) + O(ε/h) ≈ 1e-10.
#include "dpkit/learners/longtail.hpp"

#include <Eigen/QR>
#include <Eigen/SVD>
#include <catch2/catch.hpp>
#include <cmath>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <vector>

#include "dpkit/core/normal.hpp"
#include "dpkit/core/random.hpp"
#include "dpkit/core/tolerance.hpp"
#include "dpkit/sim/statistics.hpp"

using Catch::Matchers::Contains;
using Catch::Matchers::WithinAbs;
using Catch::Matchers::WithinRel;
using dpkit::random_stream;
using namespace dpkit::sim;
using namespace dpkit::learners;

namespace {

constexpr double kSigmas = 5.5;  // two-sided normal tail ≈ 3.8e-8

longtail_data small_data(std::size_t K,
                         std::size_t d,
                         std::size_t per_class,
                         double spike,
                         zeta_law law,
                         std::uint64_t seed,
                         double signal = 1.0) {
  longtail_data_options o;
  o.classes = K;
  o.dimension = d;
  o.signal_norm = signal;
  o.spike = spike;
  o.law = law;
  random_stream stream(seed, 0, 0);
  return generate_longtail_data(o, balanced_counts(K * per_class, K), stream);
}

// A Haar-random orthogonal matrix (QR of a Gaussian matrix, sign-fixed) — independent of the
// library's rotation code path.
Eigen::MatrixXd random_rotation(std::size_t d, std::uint64_t seed) {
  random_stream s(seed, 0, 9);
  Eigen::MatrixXd g(static_cast<Eigen::Index>(d), static_cast<Eigen::Index>(d));
  for (Eigen::Index i = 0; i < g.size(); ++i) g.data()[i] = s.normal();
  Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  Eigen::MatrixXd q = qr.householderQ();
  return q;
}

}  // namespace

TEST_CASE("longtail data: u_k is orthogonal to xi exactly and xi = a_y * zeta", "[longtail]") {
  const longtail_data data = small_data(3, 12, 20, 2.0, zeta_law::gaussian, 1);
  REQUIRE(data.size() == 60);
  REQUIRE(data.class_counts() == std::vector<std::size_t>{20, 20, 20});
  for (std::size_t i = 0; i < data.size(); ++i) {
    // In the U basis u_k = ||u_k|| e_k; <u_k, xi> = ||u_k|| xi[k] must be exactly 0.
    for (Eigen::Index k = 0; k < 3; ++k) REQUIRE(data.noise(k, static_cast<Eigen::Index>(i)) == 0);
  }
  // In the original coordinates (explicit U): u_k' A_y = ||u|| e_k' diag(a_y) U' vanishes to
  // rounding for every k, y.
  const Eigen::MatrixXd U = random_rotation(12, 3);
  for (Eigen::Index y = 0; y < 3; ++y) {
    const Eigen::MatrixXd A = U * data.spectra.row(y).asDiagonal() * U.transpose();
    for (Eigen::Index k = 0; k < 3; ++k) {
      const Eigen::VectorXd u = U.col(k);
      REQUIRE((u.transpose() * A).norm() < 1e-14);
    }
  }
  // Spiked spectra (ZXD+26 §5.1 as dpkit reads it).
  CHECK(data.spectra(1, 3) == 0.5);
  CHECK(data.spectra(1, 4) == 2.0);
  CHECK(data.spectra(1, 5) == 0.5);
}

TEST_CASE("longtail data: E||xi||^2 = Tr(A'A) by Monte Carlo for both zeta laws", "[longtail]") {
  for (zeta_law law : {zeta_law::gaussian, zeta_law::uniform}) {
    const std::size_t per_class = 3000;
    const longtail_data data = small_data(2, 40, per_class, 3.0, law, 7);
    const noise_norms norms = spectra_norms(data.spectra);
    for (int k = 0; k < 2; ++k) {
      const auto idx = data.class_indices(k);
      double sum = 0;
      for (std::size_t i : idx) sum += data.noise.col(static_cast<Eigen::Index>(i)).squaredNorm();
      const double mean = sum / static_cast<double>(idx.size());
      const double trace = norms.frobenius[k] * norms.frobenius[k];
      // Var ||xi||^2 = Σ a_i^4 Var(ζ²): 2 (Gaussian), E ζ⁴ − 1 = 9/5 − 1 = 4/5 (uniform on ±√3).
      const double var_zeta2 = law == zeta_law::gaussian ? 2.0 : 0.8;
      const double a4 = data.spectra.row(k).array().pow(4).sum();
      const double se = std::sqrt(var_zeta2 * a4 / static_cast<double>(idx.size()));
      INFO("law " << to_string(law) << " class " << k << " mean " << mean << " trace " << trace);
      CHECK(std::abs(mean - trace) <= kSigmas * se);
    }
  }
}

TEST_CASE("longtail spectra: closed-form norms and NCR equal dense computations", "[longtail]") {
  const std::size_t K = 4, d = 30;
  const double s = 0.5, lambda = 3.7;
  const noise_spectra a = spiked_spectra(K, d, s, lambda);
  const noise_norms norms = spectra_norms(a);
  const spiked_norms closed = spiked_closed_form(K, d, s, lambda);
  const Eigen::MatrixXd U = random_rotation(d, 11);
  std::vector<Eigen::MatrixXd> A;
  for (Eigen::Index k = 0; k < static_cast<Eigen::Index>(K); ++k)
    A.push_back(U * a.row(k).asDiagonal() * U.transpose());  // A_k = U diag(a_k) U'
  for (std::size_t k = 0; k < K; ++k) {
    const auto kk = static_cast<Eigen::Index>(k);
    const double fro = A[k].norm();
    const double op = Eigen::JacobiSVD<Eigen::MatrixXd>(A[k]).singularValues()[0];
    CHECK_THAT(norms.frobenius[kk], WithinRel(fro, 1e-13));
    CHECK_THAT(closed.frobenius, WithinRel(fro, 1e-13));
    CHECK_THAT(norms.operator_norm[kk], WithinRel(op, 1e-12));
    CHECK_THAT(closed.operator_norm, WithinRel(op, 1e-12));
    CHECK(norms.rank[kk] == static_cast<int>(d - K));
    CHECK(norms.smallest_nonzero[kk] == s);
    for (std::size_t j = 0; j < K; ++j) {
      const double cross = (A[k].transpose() * A[j]).norm();
      CHECK_THAT(norms.cross(kk, static_cast<Eigen::Index>(j)), WithinRel(cross, 1e-12));
      CHECK_THAT(j == k ? closed.self_cross : closed.cross, WithinRel(cross, 1e-12));
    }
  }
  // Balanced NCR = ||A_k'A_k||_F/||A_k'A_j||_F, and the spike for a target NCR inverts it.
  const double dense_ncr = (A[0].transpose() * A[0]).norm() / (A[0].transpose() * A[1]).norm();
  CHECK_THAT(spiked_ncr(K, d, s, lambda), WithinRel(dense_ncr, 1e-12));
  for (double target : {1.0, 1.5, 10.0, 1400.0}) {
    const double l = spike_for_ncr(K, d, s, target);
    CHECK(l >= s);
    CHECK_THAT(spiked_ncr(K, d, s, l), WithinRel(target, 1e-12));
  }
  // NCR = 1400 needs λ ≈ 990 at d = 1000, K = 5 (s = 0.5).
  CHECK_THAT(spike_for_ncr(5, 1000, 0.5, 1400), WithinRel(990.0, 2e-3));
}

TEST_CASE("longtail network: gradient equals central finite differences", "[longtail]") {
  const auto data =
      std::make_shared<const longtail_data>(small_data(3, 8, 2, 1.5, zeta_law::gaussian, 21, 0.8));
  const longtail_network net(data, 4);
  REQUIRE(net.dimension() == 3 * 4 * 8);
  random_stream ws(5, 0, 1);
  initialisation init;
  init.sigma0 = 0.7;
  const vector w = longtail_initial_weights(3, 4, 8, init, ws);
  const double h0 = std::cbrt(dpkit::tol::kMachineEps);
  vector g(w.size()), wp = w;
  for (std::size_t i = 0; i < net.examples(); ++i) {
    // No pre-activation within 1e-3 of a kink (the stencil moves them by < 1e-4).
    const Eigen::MatrixXd s = net.noise_alignments(w, *data);
    for (Eigen::Index r = 0; r < s.rows(); ++r)
      REQUIRE(std::abs(s(r, static_cast<Eigen::Index>(i))) > 1e-3);
    net.gradient(i, w, g);
    for (Eigen::Index j = 0; j < w.size(); ++j) {
      const double h = h0 * std::max(1.0, std::abs(w[j]));
      wp[j] = w[j] + h;
      const double up = net.loss(i, wp);
      wp[j] = w[j] - h;
      const double down = net.loss(i, wp);
      wp[j] = w[j];
      INFO("example " << i << " coordinate " << j);
      CHECK_THAT(g[j], WithinAbs((up - down) / (2 * h), 1e-8));
    }
    // Loss equals the forward pass's and the batch path's.
    CHECK_THAT(net.loss(i, w), WithinRel(net.forward(w, i).loss, 1e-14));
  }
  double mean = 0;
  for (std::size_t i = 0; i < net.examples(); ++i) mean += net.loss(i, w);
  CHECK_THAT(net.empirical_risk(w), WithinRel(mean / 6, 1e-13));
}

TEST_CASE("longtail network: gradient-norm closed form, its bound, clipping multiplier",
          "[longtail]") {
  const auto data =
      std::make_shared<const longtail_data>(small_data(4, 20, 5, 2.5, zeta_law::uniform, 31, 1.3));
  const longtail_network net(data, 6);
  random_stream ws(6, 0, 1);
  initialisation init;
  init.type = initialisation::kind::pytorch_uniform;
  const vector w = longtail_initial_weights(4, 6, 20, init, ws);
  vector g(w.size());
  for (std::size_t i = 0; i < net.examples(); ++i) {
    net.gradient(i, w, g);
    const double norm = g.norm();
    CHECK_THAT(net.gradient_norm(w, i), WithinRel(norm, 1e-12));
    CHECK(norm <= net.gradient_norm_bound(w, i) * (1 + 1e-12));
    // h = 1/max(1, ||g||/C): both regimes.
    for (double C : {0.5 * norm, 2 * norm}) {
      const double h = net.clipping_multiplier(w, i, C);
      CHECK_THAT(h, WithinRel(std::min(1.0, C / norm), 1e-12));
    }
    CHECK(net.clipping_multiplier(w, i, 0) == 1);
    // Probabilities sum to 1 and the loss is −log p_y.
    const longtail_forward f = net.forward(w, i);
    CHECK_THAT(f.probabilities.sum(), WithinRel(1.0, 1e-14));
    CHECK_THAT(f.loss, WithinRel(-std::log(f.probabilities[data->labels[i]]), 1e-12));
  }
}

TEST_CASE("longtail init: the Haar rotation preserves every filter's norm", "[longtail]") {
  initialisation plain, rotated;
  plain.type = rotated.type = initialisation::kind::pytorch_uniform;
  plain.rotate = false;
  random_stream s1(8, 0, 1), s2(8, 0, 1);
  const vector a = longtail_initial_weights(2, 3, 10, plain, s1);
  const vector b = longtail_initial_weights(2, 3, 10, rotated, s2);
  const double bound = 1 / std::sqrt(10.0);
  CHECK(a.cwiseAbs().maxCoeff() <= bound);
  CHECK((a - b).norm() > 1e-3);  // rotated
  for (Eigen::Index f = 0; f < 6; ++f)
    CHECK_THAT(b.segment(f * 10, 10).norm(), WithinRel(a.segment(f * 10, 10).norm(), 1e-13));
}

TEST_CASE("longtail training: the recorded DP-noise memorisation is the noise actually added",
          "[longtail]") {
  const auto data =
      std::make_shared<const longtail_data>(small_data(3, 10, 4, 2.0, zeta_law::gaussian, 41));
  const longtail_network net(data, 5);
  random_stream ws(9, 0, 1);
  const vector w0 = longtail_initial_weights(3, 5, 10, {}, ws);
  longtail_training t;
  t.batches = batch_rule::full;
  t.steps = 1;
  t.eta = 0.3;
  t.clip = 0;
  t.noise_std = 0.7;
  t.track_noise_contribution = true;
  t.noise_track_neuron = 2;
  const longtail_run run = train_longtail(net, t, w0, {17, 3, 0});
  // One full-batch step: W1 = W0 − η(∇L_S(W0) + σZ), so −ησZ = W1 − W0 + η∇L_S(W0).
  vector grad = vector::Zero(w0.size()), gi(w0.size());
  for (std::size_t i = 0; i < net.examples(); ++i) {
    net.gradient(i, w0, gi);
    grad += gi;
  }
  grad /= static_cast<double>(net.examples());
  const vector noise = run.weights - w0 + t.eta * grad;
  for (std::size_t i = 0; i < net.examples(); ++i) {
    const Eigen::Index off = (data->labels[i] * 5 + 2) * 10;
    const double expected =
        noise.segment(off, 10).dot(data->noise.col(static_cast<Eigen::Index>(i)));
    CHECK_THAT(run.noise_memorisation[static_cast<Eigen::Index>(i)], WithinAbs(expected, 1e-12));
  }
  REQUIRE(run.records.size() == 2);
  CHECK(run.records[0].step == 0);
  CHECK(run.records[1].step == 1);
}

namespace {
// The network seen only through its per-example gradient: run_noisy_gradient on it takes the
// engine's default batch sum (model::clipped_gradient_sum), the independent reference for the
// network's block-structured override.
class dense_view final : public dpkit::sim::model {
 public:
  explicit dense_view(const longtail_network& net) : net_(net) {}
  std::size_t dimension() const override { return net_.dimension(); }
  std::size_t examples() const override { return net_.examples(); }
  double loss(std::size_t i, const_vector_ref w) const override { return net_.loss(i, w); }
  void gradient(std::size_t i, const_vector_ref w, dpkit::sim::vector_ref g) const override {
    net_.gradient(i, w, g);
  }
  std::string describe() const override { return "dense view of " + net_.describe(); }

 private:
  const longtail_network& net_;
};
}  // namespace

TEST_CASE("longtail training: the structured batch gradient equals the per-example one",
          "[longtail]") {
  // longtail_network overrides the engine's batch sum with a kernel on the gradient's block
  // structure where it can reproduce Eigen's SSE2 reductions (lib/src/learners/longtail_training.cpp);
  // the default, example by example through the dense gradient, is the independent reference.
  // Bit-identical in the SSE2 builds the kernel is used in (the same function elsewhere). Cases:
  // every batch rule, d mod 4 = 0…3, clipping active, inactive and off, noise on and off.
  struct case_t {
    std::size_t d;
    batch_rule rule;
    double clip, noise;
  };
  const std::vector<case_t> cases = {{12, batch_rule::shuffled, 0.05, 0.3},
                                     {13, batch_rule::poisson, 0.05, 0.3},
                                     {14, batch_rule::full, 100, 0},
                                     {15, batch_rule::shuffled, 0, 0.1},
                                     {7, batch_rule::full, 0.02, 0}};
  for (const case_t& k : cases) {
    const auto data = std::make_shared<const longtail_data>(
        small_data(3, k.d, 6, 2.0, zeta_law::gaussian, 61 + k.d));
    const longtail_network net(data, 6);
    random_stream ws(11, 0, 1);
    const vector w0 = longtail_initial_weights(3, 6, k.d, {}, ws);
    longtail_training t;
    t.batches = k.rule;
    t.batch_size = 7;
    t.steps = 25;
    t.eta = 0.5;
    t.clip = k.clip;
    t.noise_std = k.noise;
    const longtail_run run = train_longtail(net, t, w0, {5, 2, 0});
    const dense_view dense(net);
    const vector ref =
        run_noisy_gradient(dense, to_noisy_gradient_options(t, net.examples()), w0, {5, 2, 0});
    INFO("d = " << k.d << ", batches " << to_string(k.rule) << ", C = " << k.clip);
    CHECK((run.weights - ref).lpNorm<Eigen::Infinity>() <= 1e-12 * (1 + ref.norm()));
    CHECK((run.weights - w0).norm() > 1e-3);  // the runs move
    // The batch sums themselves, at the trained weights, over every example in a shuffled order.
    std::vector<std::size_t> batch(net.examples());
    for (std::size_t i = 0; i < batch.size(); ++i) batch[i] = (7 * i + 3) % batch.size();
    vector structured, reference, work(w0.size());
    for (const double clip : {0.0, k.clip, 1e-3}) {
      net.clipped_gradient_sum(batch, run.weights, clip, structured, work);
      dense.clipped_gradient_sum(batch, run.weights, clip, reference, work);
      CHECK((structured - reference).lpNorm<Eigen::Infinity>() <=
            1e-12 * (1 + reference.lpNorm<Eigen::Infinity>()));
    }
  }
}

TEST_CASE("longtail training: clean full-batch GD decreases the training loss", "[longtail]") {
  const auto data = std::make_shared<const longtail_data>(
      small_data(3, 40, 10, 2.0, zeta_law::gaussian, 51, 1.0));
  const longtail_network net(data, 10);
  random_stream ws(10, 0, 1);
  initialisation init;
  init.sigma0 = 0.01;
  const vector w0 = longtail_initial_weights(3, 10, 40, init, ws);
  longtail_training t;
  t.batches = batch_rule::full;
  t.steps = 60;
  t.eta = 3;
  t.clip = 0;
  t.noise_std = 0;
  t.record_every = 10;
  const longtail_run run = train_longtail(net, t, w0, {1, 0, 0});
  REQUIRE(run.records.size() == 7);
  for (std::size_t j = 1; j < run.records.size(); ++j)
    CHECK(run.records[j].training_loss < run.records[j - 1].training_loss);
  CHECK(run.records.back().training_loss < 0.5 * run.records.front().training_loss);
  CHECK_THAT(run.records.back().training_loss, WithinRel(net.empirical_risk(run.weights), 1e-12));
  CHECK(run.records.back().mean_clip_multiplier == 1);
  CHECK(run.records.back().memorisation > run.records.front().memorisation);
  // Errors: test_errors agrees with forward on the training set.
  const class_errors e = test_errors(net, run.weights, *data);
  std::size_t direct = 0;
  for (std::size_t i = 0; i < net.examples(); ++i) direct += net.forward(run.weights, i).error;
  CHECK(e.total_errors == direct);
  CHECK_THAT(run.records.back().training_error, WithinAbs(e.overall(), 1e-15));
}

TEST_CASE("longtail tail: thresholded frequency is 1 - Phi(L) and the direct sampler is exact",
          "[longtail]") {
  const std::size_t per_class = 20000;
  const longtail_data test = small_data(2, 24, per_class, 3.0, zeta_law::gaussian, 61);
  // A memorised direction from an arbitrary network (the law of ζ′ is N(0,1) for any fixed v̂).
  const auto train =
      std::make_shared<const longtail_data>(small_data(2, 24, 3, 3.0, zeta_law::gaussian, 62));
  const longtail_network net(train, 4);
  random_stream ws(11, 0, 1);
  const vector w = longtail_initial_weights(2, 4, 24, {}, ws);
  for (tail_neuron choice :
       {tail_neuron::aggregate, tail_neuron::single, tail_neuron::most_memorising}) {
    const vector v = tail_direction(net, w, 1, choice, 3);
    CHECK_THAT(v.norm(), WithinRel(1.0, 1e-14));
    for (double L : {0.0, 1.0, 2.0}) {
      const auto tail = tail_subset(test, 1, v, L);
      const confidence_interval ci = clopper_pearson(tail.size(), per_class, 1 - 1e-7);
      INFO("L = " << L << " fraction " << ci.estimate);
      CHECK(ci.lower <= tail_frequency(L));
      CHECK(tail_frequency(L) <= ci.upper);
    }
  }
  CHECK_THAT(tail_frequency(1), WithinRel(0.15865525393145707, 1e-14));

  // Direct sampling: every sample is in the tail (ζ′ ≥ L up to rounding), and the mean of ζ′
  // matches E[z | z ≥ L] = φ(L)/Φ̄(L) with Var = 1 + Lλ − λ² (λ the mean).
  const vector v = tail_direction(net, w, 0);
  random_stream ts(12, 0, 6);
  const double L = 1.5;
  const longtail_data samples = sample_tail(test, 0, v, L, 5000, ts);
  const tail_scores sc = tail_projections(samples, 0, v);
  REQUIRE(sc.scores.size() == 5000);
  double mean = 0;
  for (double z : sc.scores) {
    CHECK(z >= L - 1e-12);
    mean += z;
  }
  mean /= 5000;
  const double lambda = truncated_normal_mean(L);
  CHECK_THAT(lambda, WithinRel(dpkit::normal_pdf(L) / dpkit::normal_ccdf(L), 1e-13));
  const double se = std::sqrt((1 + L * lambda - lambda * lambda) / 5000);
  CHECK(std::abs(mean - lambda) <= kSigmas * se);
  // Deep tail: the log-space inversion still returns z ≥ L.
  random_stream deep(13, 0, 6);
  for (int j = 0; j < 100; ++j) CHECK(sample_truncated_normal(40, deep) >= 40);
}

TEST_CASE("longtail training helpers: steps, accounting request, noise scales", "[longtail]") {
  longtail_training t;  // Sec 5 defaults: 20 epochs, B = 256
  CHECK(training_steps(t, 500) == 40);
  const privacy_request r = accounting_request(t, 500);
  CHECK(r.steps == 40);
  CHECK(r.sampling_rate == 256.0 / 500.0);
  CHECK(r.scheme == dpkit::accounting::sampling_scheme::without_replacement);
  const dpkit::accounting::training_run run = r.run(2.5);
  REQUIRE(run.phases.size() == 1);
  CHECK(run.phases[0].noise_multiplier == 2.5);
  CHECK(run.phases[0].sampling_rate == r.sampling_rate);
  CHECK(run.phases[0].steps == 40);
  CHECK(run.phases[0].sampling == dpkit::accounting::sampling_scheme::without_replacement);
  t.batches = batch_rule::poisson;
  CHECK(accounting_request(t, 500).scheme == dpkit::accounting::sampling_scheme::poisson);
  CHECK(accounting_request(t, 500).run(1).phases[0].sampling ==
        dpkit::accounting::sampling_scheme::poisson);
  // docs/longtail.md: z = 2.258 → σ_n = zC/B = 8.8e-3; Remark 4 scale 5.4e-3.
  CHECK_THAT(noise_std_for(2.258, 1, 256), WithinRel(2.258 / 256, 1e-15));
  CHECK_THAT(remark4_noise_scale(1, 40, 1e-5, 500, 8), WithinRel(5.4e-3, 1e-2));
  const auto c = counts_from_frequencies(101, {0.5, 0.3, 0.2});
  CHECK(std::accumulate(c.begin(), c.end(), std::size_t{0}) == 101);
  CHECK(c == std::vector<std::size_t>{51, 30, 20});
  CHECK(balanced_counts(7, 3) == std::vector<std::size_t>{3, 2, 2});
}

TEST_CASE("longtail: bad input throws domain_error", "[longtail]") {
  REQUIRE_THROWS_AS(spiked_spectra(5, 9, 0.5, 1), std::domain_error);
  REQUIRE_THROWS_WITH(spike_for_ncr(5, 100, 0.5, 0.5), Contains("must be"));
  // Large NCR: N⁴ overflowed beyond N = 1.2e77; the eigenvalue is now √2·s·N(1 + O(D/N²)) up to
  // 1e150, and refused by name beyond.
  CHECK_THAT(spike_for_ncr(5, 1000, 0.5, 1e100), WithinRel(0.5e100 * std::sqrt(2.0), 1e-14));
  REQUIRE_THROWS_WITH(spike_for_ncr(5, 1000, 0.5, 1e308),
                      Contains("the spike's eigenvalue (from the noise scale and the NCR) is 7.07"
                               "1067811865476e+307, but must be <= 1e150"));
  REQUIRE_THROWS_AS(spiked_spectra(3, 10, 0, 1), std::domain_error);
  noise_spectra bad = spiked_spectra(2, 6, 0.5, 1);
  bad(0, 1) = 1;  // non-zero on a signal coordinate
  REQUIRE_THROWS_AS(spectra_norms(bad), std::domain_error);
  longtail_data_options o;
  o.classes = 2;
  o.dimension = 6;
  random_stream s(1, 0, 0);
  REQUIRE_THROWS_AS(generate_longtail_data(o, {1, 2, 3}, s), std::domain_error);
  REQUIRE_THROWS_AS(generate_longtail_data(o, {0, 0}, s), std::domain_error);
  REQUIRE_THROWS_AS(longtail_network(nullptr, 3), std::domain_error);
  const auto data = std::make_shared<const longtail_data>(generate_longtail_data(o, {2, 2}, s));
  REQUIRE_THROWS_AS(longtail_network(data, 0), std::domain_error);
  const longtail_network net(data, 2);
  const vector w = vector::Zero(static_cast<Eigen::Index>(net.dimension()));
  longtail_training t;
  t.batch_size = 9;  // > n
  REQUIRE_THROWS_AS(train_longtail(net, t, w, {}), std::domain_error);
  t.batch_size = 2;
  t.eta = -1;
  REQUIRE_THROWS_AS(train_longtail(net, t, w, {}), std::domain_error);
  t.eta = 0.1;
  t.batches = batch_rule::cyclic;
  REQUIRE_THROWS_AS(train_longtail(net, t, w, {}), std::domain_error);
  t.batches = batch_rule::shuffled;
  REQUIRE_THROWS_AS(train_longtail(net, t, vector::Zero(3), {}), std::domain_error);
  REQUIRE_THROWS_AS(tail_direction(net, w, 0), std::domain_error);  // A'w = 0
  REQUIRE_THROWS_AS(tail_direction(net, w, 5), std::domain_error);
  const vector xi = vector::Zero(6);
  REQUIRE_THROWS_AS(net.forward(w, longtail_point{7, xi}), std::domain_error);
  o.law = zeta_law::uniform;
  const longtail_data uni = generate_longtail_data(o, {2, 2}, s);
  vector v = vector::Zero(6);
  v[3] = 1;
  REQUIRE_THROWS_AS(sample_tail(uni, 0, v, 1, 3, s), std::domain_error);
  REQUIRE_THROWS_AS(counts_from_frequencies(5, {0, 0}), std::domain_error);
  REQUIRE_THROWS_AS(noise_std_for(1, 1, 0), std::domain_error);
  REQUIRE_THROWS_AS(remark4_noise_scale(1, 10, 2, 10, 1), std::domain_error);
}
