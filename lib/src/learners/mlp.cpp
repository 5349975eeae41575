#include "dpkit/learners/mlp.hpp"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <numbers>
#include <string>
#include <utility>
#include <vector>

#include "dpkit/core/check.hpp"

namespace dpkit::learners {
namespace {

using row_matrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using const_row_map = Eigen::Map<const row_matrix>;
using row_map = Eigen::Map<row_matrix>;
using const_vec_map = Eigen::Map<const Eigen::VectorXd>;
using vec_map = Eigen::Map<Eigen::VectorXd>;

std::string count(std::size_t n) {
  return format_value(static_cast<long long>(n));
}

// The per-thread scratch of the forward/backward pass (header comment "Threads"): grows to the
// largest request seen on this thread and is reused, so steady-state calls do not allocate.
double* scratch(std::size_t size) {
  thread_local std::vector<double> buffer;
  if (buffer.size() < size) buffer.resize(size);
  return buffer.data();
}

// ℓ(z) = log(1 + e^{−z}) without overflow or cancellation (as in kan.cpp / models.cpp).
double logistic_loss(double z) {
  return z >= 0 ? std::log1p(std::exp(-z)) : -z + std::log1p(std::exp(z));
}
// ℓ′(z) = −1/(1 + e^{z}).
double logistic_first(double z) {
  return z >= 0 ? -std::exp(-z) / (1 + std::exp(-z)) : -1 / (1 + std::exp(z));
}
// The scale of the backward pass for the logistic loss: ∇ℓ(y f) = ℓ′(y f)·y·∇f.
double logistic_scale(double f, double y) {
  return logistic_first(y * f) * y;
}

void check_labels(const char* fn, const dataset& data) {
  for (Eigen::Index i = 0; i < data.labels.size(); ++i) {
    const double y = data.labels(i);
    if (y != 1 && y != -1)
      throw_domain_error(fn, "label " + count(static_cast<std::size_t>(i)), y, "-1 or +1");
  }
}

void check_parameters(const char* fn, const mlp_architecture& a, const_vector_ref w) {
  if (static_cast<std::size_t>(w.size()) != a.dimension())
    throw_domain_error(fn, "w.size()", count(static_cast<std::size_t>(w.size())),
                       "the network dimension p = " + count(a.dimension()));
}

void check_input(const char* fn, const mlp_architecture& a, const_vector_ref x) {
  if (static_cast<std::size_t>(x.size()) != a.input_dimension)
    throw_domain_error(fn, "x.size()", count(static_cast<std::size_t>(x.size())),
                       "d = " + count(a.input_dimension));
  for (Eigen::Index q = 0; q < x.size(); ++q)
    check_finite(fn, "x(" + count(static_cast<std::size_t>(q)) + ")", x(q));
}

std::shared_ptr<const dataset> checked_data(const char* fn,
                                            std::shared_ptr<const dataset> data,
                                            const mlp_architecture& a) {
  if (!data) throw_domain_error(fn, "data", "null", "a dataset");
  check_dataset(fn, *data);
  check_labels(fn, *data);
  a.validate(fn);
  if (data->dimension() != a.input_dimension)
    throw_domain_error(fn, "data dimension", count(data->dimension()),
                       "architecture.input_dimension = " + count(a.input_dimension));
  return data;
}

}  // namespace

// ---- architecture ------------------------------------------------------------------------------

void mlp_architecture::validate(const char* function) const {
  check_at_least(function, "input_dimension", static_cast<long long>(input_dimension), 1);
  check_at_least(function, "width", static_cast<long long>(width), 1);
  check_at_least(function, "depth", static_cast<long long>(depth), 2);
}

std::size_t mlp_architecture::dimension() const {
  // p = md + (L − 2)m² + m (SWX+23 Alg 10: "m²(L − 2) + md + m").
  return width * input_dimension + (depth - 2) * width * width + width;
}

std::size_t mlp_architecture::rows(std::size_t layer) const {
  return layer == depth ? 1 : width;
}

std::size_t mlp_architecture::columns(std::size_t layer) const {
  return layer == 1 ? input_dimension : width;
}

std::size_t mlp_architecture::layer_offset(std::size_t layer) const {
  if (layer <= 1) return 0;
  // W_1 (m·d), then W_2, …, W_{layer−1} (m² each).
  return width * input_dimension + (layer - 2) * width * width;
}

// ---- the network
// ---------------------------------------------------------------------------------

mlp_network::mlp_network(const mlp_architecture& architecture) : arch_(architecture) {
  arch_.validate("mlp_network");
}

double mlp_network::pass(const double* w,
                         const double* x,
                         double* g,
                         double y,
                         double (*scale)(double f, double y)) const {
  const auto m = static_cast<Eigen::Index>(arch_.width);
  const auto d = static_cast<Eigen::Index>(arch_.input_dimension);
  const std::size_t L = arch_.depth;
  // Scratch: h_1, …, h_{L−1} (m each), then two δ buffers (m each).
  double* h = scratch((L + 1) * arch_.width);
  auto hidden = [&](std::size_t l) { return h + (l - 1) * arch_.width; };  // h_l, l ≥ 1
  // Forward: h_l = σ(W_l h_{l−1}) (SWX+23 App C hidden features).
  const double* previous = x;
  Eigen::Index previous_size = d;
  for (std::size_t l = 1; l < L; ++l) {
    const const_row_map W(w + arch_.layer_offset(l), m, previous_size);
    vec_map hl(hidden(l), m);
    hl.noalias() = W * const_vec_map(previous, previous_size);
    hl = hl.cwiseMax(0.0);
    previous = hidden(l);
    previous_size = m;
  }
  const double sqrt_m = std::sqrt(static_cast<double>(arch_.width));
  const const_vec_map wL(w + arch_.layer_offset(L), m);
  const const_vec_map hlast(hidden(L - 1), m);
  // f = √m W_L h_{L−1}.
  const double f = sqrt_m * wL.dot(hlast);
  if (!g) return f;
  const double s = scale ? scale(f, y) : 1.0;
  // Backward (SWX+23 eq. (16)): ∇_{W_L} f = √m h_{L−1}ᵀ; δ_{L−1} = √m D_{L−1} W_Lᵀ;
  // ∇_{W_l} f = δ_l h_{l−1}ᵀ; δ_{l−1} = D_{l−1} W_lᵀ δ_l, D_l = diag(1{h_l > 0}). All scaled by s.
  vec_map(g + arch_.layer_offset(L), m) = (s * sqrt_m) * hlast;
  double* delta = h + (L - 1) * arch_.width;
  double* next = delta + arch_.width;
  {
    vec_map dl(delta, m);
    for (Eigen::Index j = 0; j < m; ++j) dl(j) = hlast(j) > 0 ? s * sqrt_m * wL(j) : 0.0;
  }
  for (std::size_t l = L - 1; l >= 1; --l) {
    const Eigen::Index cols = l == 1 ? d : m;
    const double* below = l == 1 ? x : hidden(l - 1);
    const const_vec_map dl(delta, m);
    row_map(g + arch_.layer_offset(l), m, cols).noalias() =
        dl * const_vec_map(below, cols).transpose();
    if (l == 1) break;
    const const_row_map W(w + arch_.layer_offset(l), m, m);
    vec_map dn(next, m);
    dn.noalias() = W.transpose() * dl;
    const const_vec_map hb(below, m);
    for (Eigen::Index j = 0; j < m; ++j)
      if (!(hb(j) > 0)) dn(j) = 0;
    std::swap(delta, next);
  }
  return f;
}

double mlp_network::output(const_vector_ref w, const_vector_ref x) const {
  constexpr const char* fn = "mlp_network::output";
  check_parameters(fn, arch_, w);
  check_input(fn, arch_, x);
  return pass(w.data(), x.data(), nullptr);
}

double mlp_network::output_gradient(const_vector_ref w, const_vector_ref x, vector_ref g) const {
  constexpr const char* fn = "mlp_network::output_gradient";
  check_parameters(fn, arch_, w);
  check_input(fn, arch_, x);
  if (static_cast<std::size_t>(g.size()) != arch_.dimension())
    throw_domain_error(fn, "g.size()", count(static_cast<std::size_t>(g.size())),
                       "p = " + count(arch_.dimension()));
  return pass(w.data(), x.data(), g.data());
}

void mlp_network::hidden_norms(const_vector_ref w, const_vector_ref x, vector_ref norms) const {
  constexpr const char* fn = "mlp_network::hidden_norms";
  check_parameters(fn, arch_, w);
  check_input(fn, arch_, x);
  const std::size_t L = arch_.depth;
  if (static_cast<std::size_t>(norms.size()) != L)
    throw_domain_error(fn, "norms.size()", count(static_cast<std::size_t>(norms.size())),
                       "L = " + count(L));
  // The same forward pass as `pass`, keeping the norms (allocation-free is not needed here).
  const auto m = static_cast<Eigen::Index>(arch_.width);
  vector previous = x, current(m);
  norms(0) = x.norm();
  for (std::size_t l = 1; l < L; ++l) {
    const const_row_map W(w.data() + arch_.layer_offset(l), m, previous.size());
    current.noalias() = W * previous;
    current = current.cwiseMax(0.0);
    norms(static_cast<Eigen::Index>(l)) = current.norm();
    previous = current;
  }
}

double mlp_network::ntk_output(const_vector_ref w0, const_vector_ref w, const_vector_ref x) const {
  constexpr const char* fn = "mlp_network::ntk_output";
  check_parameters(fn, arch_, w0);
  check_parameters(fn, arch_, w);
  check_input(fn, arch_, x);
  vector g(static_cast<Eigen::Index>(arch_.dimension()));
  // Cao–Gu NTRF (SWX+23 Def 8 with W − W0; docs/findings.md).
  const double f0 = pass(w0.data(), x.data(), g.data());
  return f0 + g.dot(w - w0);
}

vector mlp_initial_weights(const mlp_architecture& a, random_stream& stream) {
  a.validate("mlp_initial_weights");
  vector w(static_cast<Eigen::Index>(a.dimension()));
  const double m = static_cast<double>(a.width);
  // SWX+23 Alg 10 step 1: N(0, 2/m) for l ≤ L − 1 (W_1 included, as printed), N(0, 1/m) for W_L.
  const double hidden_sd = std::sqrt(2 / m), last_sd = std::sqrt(1 / m);
  const auto last = static_cast<Eigen::Index>(a.layer_offset(a.depth));
  for (Eigen::Index k = 0; k < w.size(); ++k)
    w(k) = (k < last ? hidden_sd : last_sd) * stream.normal();
  return w;
}

// ---- the model on a dataset
// ------------------------------------------------------------------------

mlp_model::mlp_model(std::shared_ptr<const dataset> data, const mlp_architecture& architecture)
    : data_(checked_data("mlp_model", std::move(data), architecture)),
      network_(architecture),
      by_example_(data_->features.transpose()) {}

double mlp_model::output(std::size_t i, const_vector_ref w) const {
  assert(i < examples() && static_cast<std::size_t>(w.size()) == dimension());
  return network_.pass(w.data(), by_example_.col(static_cast<Eigen::Index>(i)).data(), nullptr);
}

double mlp_model::loss(std::size_t i, const_vector_ref w) const {
  const double y = data_->labels(static_cast<Eigen::Index>(i));
  return logistic_loss(y * output(i, w));
}

void mlp_model::gradient(std::size_t i, const_vector_ref w, vector_ref g) const {
  assert(i < examples() && static_cast<std::size_t>(w.size()) == dimension() &&
         static_cast<std::size_t>(g.size()) == dimension());
  const auto k = static_cast<Eigen::Index>(i);
  network_.pass(w.data(), by_example_.col(k).data(), g.data(), data_->labels(k), &logistic_scale);
}

std::string mlp_model::describe() const {
  const mlp_architecture& a = network_.architecture();
  return "ReLU MLP (n = " + count(examples()) + ", d = " + count(a.input_dimension) +
         ", m = " + count(a.width) + ", L = " + count(a.depth) + ", p = " + count(dimension()) +
         ", logistic loss)";
}

mlp_ntk_model::mlp_ntk_model(std::shared_ptr<const dataset> data,
                             const mlp_architecture& architecture,
                             const vector& w0)
    : data_(checked_data("mlp_ntk_model", std::move(data), architecture)),
      arch_(architecture),
      w0_(w0) {
  constexpr const char* fn = "mlp_ntk_model";
  check_parameters(fn, arch_, w0_);
  for (Eigen::Index k = 0; k < w0_.size(); ++k)
    check_finite(fn, "w0(" + count(static_cast<std::size_t>(k)) + ")", w0_(k));
  const mlp_network net(arch_);
  const auto n = static_cast<Eigen::Index>(data_->size());
  const Eigen::MatrixXd xs = data_->features.transpose();
  f0_.resize(n);
  gradients_.resize(w0_.size(), n);
  for (Eigen::Index i = 0; i < n; ++i)
    f0_(i) = net.pass(w0_.data(), xs.col(i).data(), gradients_.col(i).data());
  // f_ntk(W, x_i) = f(W0, x_i) + ⟨∇f(W0, x_i), W − W0⟩ = (f0_i − ⟨∇f_i, W0⟩) + ⟨∇f_i, W⟩.
  f0_ -= gradients_.transpose() * w0_;
}

double mlp_ntk_model::output(std::size_t i, const_vector_ref w) const {
  assert(i < examples() && w.size() == w0_.size());
  const auto k = static_cast<Eigen::Index>(i);
  return f0_(k) + gradients_.col(k).dot(w);
}

double mlp_ntk_model::loss(std::size_t i, const_vector_ref w) const {
  const double y = data_->labels(static_cast<Eigen::Index>(i));
  return logistic_loss(y * output(i, w));
}

void mlp_ntk_model::gradient(std::size_t i, const_vector_ref w, vector_ref g) const {
  const auto k = static_cast<Eigen::Index>(i);
  const double y = data_->labels(k);
  g.noalias() = logistic_scale(output(i, w), y) * gradients_.col(k);
}

std::string mlp_ntk_model::describe() const {
  return "linearised ReLU MLP (Cao-Gu NTRF at W0; n = " + count(examples()) +
         ", d = " + count(arch_.input_dimension) + ", m = " + count(arch_.width) +
         ", L = " + count(arch_.depth) + ", p = " + count(dimension()) + ", logistic loss)";
}

mlp_evaluation evaluate(const mlp_network& network, const_vector_ref w, const dataset& data) {
  constexpr const char* fn = "evaluate";
  check_parameters(fn, network.architecture(), w);
  check_dataset(fn, data);
  check_labels(fn, data);
  if (data.dimension() != network.architecture().input_dimension)
    throw_domain_error(fn, "data dimension", count(data.dimension()),
                       "d = " + count(network.architecture().input_dimension));
  const Eigen::MatrixXd xs = data.features.transpose();
  mlp_evaluation e;
  const auto n = static_cast<Eigen::Index>(data.size());
  for (Eigen::Index i = 0; i < n; ++i) {
    const double y = data.labels(i);
    const double f = network.pass(w.data(), xs.col(i).data(), nullptr);
    e.loss += logistic_loss(y * f);
    if (!(y * f > 0)) e.error += 1;
  }
  e.loss /= static_cast<double>(n);
  e.error /= static_cast<double>(n);
  return e;
}

// ---- projections
// ---------------------------------------------------------------------------------

const char* to_string(mlp_constraint c) {
  switch (c) {
    case mlp_constraint::none:
      return "none";
    case mlp_constraint::printed:
      return "printed";
    case mlp_constraint::around_init:
      return "around-init";
  }
  return "?";
}

projection mlp_projection(const mlp_architecture& a,
                          mlp_constraint constraint,
                          double radius,
                          const vector& w0) {
  constexpr const char* fn = "mlp_projection";
  a.validate(fn);
  check_nonnegative(fn, "radius", radius);
  check_parameters(fn, a, w0);
  if (constraint == mlp_constraint::none) return projection::none();
  std::vector<std::size_t> offsets, sizes;
  for (std::size_t l = 1; l <= a.depth; ++l) {
    offsets.push_back(a.layer_offset(l));
    sizes.push_back(a.layer_size(l));
  }
  // SWX+23 §6 prints ‖W_l‖_F ≤ R (centre 0); the analysis of App C uses
  // ‖W_l − W0_l‖_F ≤ ω = R/√m.
  const bool around = constraint == mlp_constraint::around_init;
  const double r = around ? radius / std::sqrt(static_cast<double>(a.width)) : radius;
  vector center = around ? w0 : vector::Zero(w0.size());
  return projection::block_balls(std::move(center), std::move(offsets), std::move(sizes),
                                 std::vector<double>(a.depth, r));
}

// ---- Algorithm 10
// --------------------------------------------------------------------------------

const char* to_string(alg10_normaliser n) {
  return n == alg10_normaliser::expected_batch ? "expected-batch" : "realised-batch";
}

double alg10_noise_std(double z, double clip, double q, std::size_t n) {
  constexpr const char* fn = "alg10_noise_std";
  check_nonnegative(fn, "noise_multiplier", z);
  check_positive(fn, "clip", clip);
  if (!(q > 0 && q <= 1)) throw_domain_error(fn, "sampling_rate", q, "in (0, 1]");
  check_at_least(fn, "n", static_cast<long long>(n), 1);
  // Sensitivity of (1/(qn)) Σ clip_C(g_i) under add/remove is C/(qn); σ = z·C/(qn).
  const double qn = q * static_cast<double>(n);
  double sigma = z * clip / qn;
  if (!std::isfinite(sigma)) sigma = z * (clip / qn);  // the product alone overflowed
  // Named as the clip norm: z is derived (calibration), C is what is given.
  if (!std::isfinite(sigma))
    throw_domain_error(fn, "clip", clip,
                       "<= " + format_value(std::numeric_limits<double>::max() / z * qn) +
                           " at noise multiplier " + format_value(z) +
                           " (the noise std noise_multiplier x clip / (q n) overflows beyond)");
  return sigma;
}

double alg10_paper_noise_std(
    double clip, double q, long long steps, double delta, std::size_t n, double epsilon) {
  constexpr const char* fn = "alg10_paper_noise_std";
  check_positive(fn, "clip", clip);
  if (!(q > 0 && q <= 1)) throw_domain_error(fn, "sampling_rate", q, "in (0, 1]");
  check_at_least(fn, "steps", steps, 1);
  check_open_probability(fn, "delta", delta);
  check_at_least(fn, "n", static_cast<long long>(n), 1);
  check_positive(fn, "epsilon", epsilon);
  // c₂·qC√(T log(1/δ))/(qn·ε), c₂ = 1, evaluated as printed (q cancels but for rounding).
  const double root = std::sqrt(static_cast<double>(steps) * std::log(1 / delta));
  const double scale = root / (static_cast<double>(n) * epsilon);
  double sigma = q * clip * root / (q * static_cast<double>(n) * epsilon);
  if (!std::isfinite(sigma)) sigma = clip * scale;  // the product alone overflowed
  if (!std::isfinite(sigma))
    throw_domain_error(fn, "clip", clip,
                       "<= " + format_value(std::numeric_limits<double>::max() / scale) +
                           " (the paper's noise std C sqrt(T log(1/delta))/(n epsilon) overflows "
                           "beyond)");
  return sigma;
}

double alg10_theorem13_learning_rate(
    std::size_t depth, double radius, double clip, std::size_t width, long long steps) {
  constexpr const char* fn = "alg10_theorem13_learning_rate";
  check_at_least(fn, "depth", static_cast<long long>(depth), 1);
  check_positive(fn, "radius", radius);
  check_positive(fn, "clip", clip);
  check_at_least(fn, "width", static_cast<long long>(width), 1);
  check_at_least(fn, "steps", steps, 1);
  const double eta = std::sqrt(static_cast<double>(depth)) * radius /
                     (clip * std::sqrt(static_cast<double>(width) * static_cast<double>(steps)));
  if (!(eta > 0 && std::isfinite(eta)))
    throw_domain_error(fn, "clip", clip,
                       "such that Theorem 13's step size sqrt(L) R/(C sqrt(m T)) is a positive "
                       "number (it is " + format_value(eta) + "; give the learning rate instead)");
  return eta;
}

double alg10_noise_multiplier(double sigma, double clip, double q, std::size_t n) {
  constexpr const char* fn = "alg10_noise_multiplier";
  check_nonnegative(fn, "noise_std", sigma);
  check_positive(fn, "clip", clip);
  if (!(q > 0 && q <= 1)) throw_domain_error(fn, "sampling_rate", q, "in (0, 1]");
  check_at_least(fn, "n", static_cast<long long>(n), 1);
  const double qn = q * static_cast<double>(n);
  const double z = sigma * qn / clip;
  return std::isfinite(z) ? z : sigma / (clip / qn);  // σqn overflowed; C/(qn) cannot
}

namespace {

void check_alg10(const char* fn, const mlp_model& f, const alg10_options& o, const vector& w0) {
  if (!(o.sampling_rate > 0 && o.sampling_rate <= 1))
    throw_domain_error(fn, "sampling_rate", o.sampling_rate, "in (0, 1]");
  check_at_least(fn, "steps", o.steps, 1);
  check_positive(fn, "learning_rate", o.learning_rate);
  check_positive(fn, "clip", o.clip);
  check_nonnegative(fn, "noise", o.noise);
  check_nonnegative(fn, "radius", o.radius);
  check_parameters(fn, f.architecture(), w0);
  for (Eigen::Index k = 0; k < w0.size(); ++k)
    check_finite(fn, "w0(" + count(static_cast<std::size_t>(k)) + ")", w0(k));
}

}  // namespace

noisy_gradient_options alg10_noisy_gradient_options(const mlp_model& f,
                                                    const alg10_options& o,
                                                    const vector& w0) {
  check_alg10("alg10_noisy_gradient_options", f, o, w0);
  noisy_gradient_options a;
  a.batches = batch_rule::poisson;  // b = qn (the expected batch size)
  a.sampling_rate = o.sampling_rate;
  a.steps = o.steps;
  a.learning_rate = o.learning_rate;
  a.noise = o.noise;
  a.clip = o.clip;
  a.constraint = mlp_projection(f.architecture(), o.constraint, o.radius, w0);
  return a;
}

alg10_result run_alg10(const mlp_model& f,
                       const alg10_options& o,
                       const vector& w0,
                       const random_key& key,
                       const dataset* test) {
  constexpr const char* fn = "run_alg10";
  check_alg10(fn, f, o, w0);
  const mlp_architecture& a = f.architecture();
  const std::size_t n = f.examples();
  const auto p = static_cast<Eigen::Index>(f.dimension());
  const double sqrt_m = std::sqrt(static_cast<double>(a.width));
  alg10_result r;
  vector sum = vector::Zero(p);
  // Iterate averaging (1/T) Σ_{t=1}^T W^{(t)} (Alg 10 step 3) and the per-layer distances.
  auto observe = [&](long step, const vector& w) {
    if (step == 0) return;
    sum += w;
    for (std::size_t l = 1; l <= a.depth; ++l) {
      const auto off = static_cast<Eigen::Index>(a.layer_offset(l));
      const auto size = static_cast<Eigen::Index>(a.layer_size(l));
      r.max_layer_distance = std::max(
          r.max_layer_distance, (w.segment(off, size) - w0.segment(off, size)).norm() * sqrt_m);
    }
  };
  // Algorithm 10 as printed divides by the realised batch, (1/|B_t|) Σ_{j∈B_t}; the engine's
  // option (an empty batch: noise only).
  noisy_gradient_options opts = alg10_noisy_gradient_options(f, o, w0);
  opts.realised_batch_mean = o.normaliser == alg10_normaliser::realised_batch;
  r.last = run_noisy_gradient(f, opts, w0, key, observe);
  r.average = sum / static_cast<double>(o.steps);
  // The realised batch sizes, replayed from the batch stream (it serves only the batches).
  random_stream replay(key.seed, key.replicate, key.stream_base + 2);
  r.min_batch = n;
  double total = 0;
  for (long t = 0; t < o.steps; ++t) {
    const std::size_t b = replay.poisson_sample(n, o.sampling_rate).size();
    r.min_batch = std::min(r.min_batch, b);
    total += static_cast<double>(b);
  }
  r.mean_batch = total / static_cast<double>(o.steps);
  r.train_average = evaluate(f.network(), r.average, f.data());
  r.train_last = evaluate(f.network(), r.last, f.data());
  if (test) {
    r.test_average = evaluate(f.network(), r.average, *test);
    r.test_last = evaluate(f.network(), r.last, *test);
  }
  return r;
}

// ---- the synthetic task
// --------------------------------------------------------------------------

double sphere_teacher::value(const_vector_ref x) const {
  if (linear) return directions.row(0).dot(x);
  double g = -offset;
  for (Eigen::Index k = 0; k < directions.rows(); ++k)
    g += weights(k) * std::max(0.0, directions.row(k).dot(x));
  return g;
}

sphere_teacher random_sphere_teacher(std::size_t d, std::size_t hidden, random_stream& stream) {
  constexpr const char* fn = "random_sphere_teacher";
  check_at_least(fn, "input_dimension", static_cast<long long>(d), 1);
  sphere_teacher t;
  t.linear = hidden == 0;
  const std::size_t K = t.linear ? 1 : hidden;
  t.directions.resize(static_cast<Eigen::Index>(K), static_cast<Eigen::Index>(d));
  for (Eigen::Index k = 0; k < t.directions.rows(); ++k) {
    for (Eigen::Index j = 0; j < t.directions.cols(); ++j) t.directions(k, j) = stream.normal();
    t.directions.row(k) /= t.directions.row(k).norm();
  }
  if (t.linear) return t;
  const double scale = 1 / std::sqrt(static_cast<double>(K));
  t.weights.resize(static_cast<Eigen::Index>(K));
  for (Eigen::Index k = 0; k < t.weights.size(); ++k) t.weights(k) = k % 2 == 0 ? scale : -scale;
  // b = (Σ a_k)·E σ(x_1), x uniform on S^{d−1}: E σ(x_1) = E|x_1|/2 = Γ(d/2)/(2√π Γ((d + 1)/2)).
  const double dd = static_cast<double>(d);
  const double e_relu =
      std::exp(std::lgamma(dd / 2) - std::lgamma((dd + 1) / 2)) / (2 * std::sqrt(std::numbers::pi));
  t.offset = t.weights.sum() * e_relu;
  return t;
}

dataset sphere_teacher_data(std::size_t n,
                            const sphere_teacher& teacher,
                            double label_noise,
                            random_stream& stream) {
  constexpr const char* fn = "sphere_teacher_data";
  check_at_least(fn, "n", static_cast<long long>(n), 1);
  check_bounded(fn, "label_noise", label_noise, 0, 0.5);
  const Eigen::Index d = teacher.directions.cols();
  if (d < 1) throw_domain_error(fn, "teacher dimension", "0", ">= 1");
  dataset data;
  data.features.resize(static_cast<Eigen::Index>(n), d);
  data.labels.resize(static_cast<Eigen::Index>(n));
  vector x(d);
  for (Eigen::Index i = 0; i < static_cast<Eigen::Index>(n); ++i) {
    for (Eigen::Index j = 0; j < d; ++j) x(j) = stream.normal();
    x /= x.norm();  // uniform on S^{d−1}
    double y = teacher.value(x) >= 0 ? 1.0 : -1.0;
    if (stream.uniform() < label_noise) y = -y;
    data.features.row(i) = x.transpose();
    data.labels(i) = y;
  }
  return data;
}

std::pair<dataset, dataset> train_test_split(const dataset& data, std::size_t n_train) {
  constexpr const char* fn = "train_test_split";
  check_dataset(fn, data);
  if (!(n_train >= 1 && n_train < data.size()))
    throw_domain_error(fn, "n_train", count(n_train),
                       "in [1, n) = [1, " + count(data.size()) + ")");
  const auto k = static_cast<Eigen::Index>(n_train);
  const auto rest = static_cast<Eigen::Index>(data.size()) - k;
  dataset train, test;
  train.features = data.features.topRows(k);
  train.labels = data.labels.head(k);
  test.features = data.features.bottomRows(rest);
  test.labels = data.labels.tail(rest);
  return {std::move(train), std::move(test)};
}

}  // namespace dpkit::learners
