// ZXD+26 (learners/longtail.hpp): the data model of Definition 1 in the U basis (noise spectra,
// class counts, data sets), the initialisation, the two-layer ReLU "CNN" of eq. (1) with its
// exact gradient and the test errors, and the long-tail protocol of Definition 3 (tail
// directions, tail subsets, exact tail sampling). DP-SGD training (eq. (4)) is in
// longtail_training.cpp.
#include "dpkit/learners/longtail.hpp"

#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "detail/longtail.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/normal.hpp"

namespace dpkit::learners {

using detail::longtail::count;
using detail::longtail::idx;
using detail::longtail::index;
using detail::longtail::online_lse;
using detail::longtail::relu;

namespace {

// Checks spectra of K rows and d columns, finite, zero on the first K coordinates.
void check_spectra(const char* fn, const noise_spectra& a, std::size_t K, std::size_t d) {
  if (a.rows() != idx(K) || a.cols() != idx(d))
    throw_domain_error(fn, "spectra",
                       count(static_cast<std::size_t>(a.rows())) + " x " +
                           count(static_cast<std::size_t>(a.cols())),
                       "K x d = " + count(K) + " x " + count(d));
  for (index k = 0; k < a.rows(); ++k)
    for (index i = 0; i < a.cols(); ++i) {
      check_finite(fn, "spectra entry", a(k, i));
      // Def 1: u_jᵀA_k = 0 for all j (the spiked construction: a_k[1..K] = 0).
      if (i < idx(K) && a(k, i) != 0)
        throw_domain_error(fn,
                           "spectra(" + count(static_cast<std::size_t>(k)) + ", " +
                               count(static_cast<std::size_t>(i)) + ")",
                           a(k, i), "0 on the signal coordinates 0..K-1");
    }
}

}  // namespace

const char* to_string(zeta_law z) {
  return z == zeta_law::gaussian ? "gaussian" : "uniform";
}

// ---- spectra ------------------------------------------------------------------------------------

noise_spectra spiked_spectra(std::size_t K, std::size_t d, double s, double lambda) {
  constexpr const char* fn = "spiked_spectra";
  check_at_least(fn, "classes", static_cast<long long>(K), 1);
  if (d < 2 * K) throw_domain_error(fn, "dimension", count(d), ">= 2K = " + count(2 * K));
  check_positive(fn, "s", s);
  check_nonnegative(fn, "lambda", lambda);
  // The spiked construction: a_k[i] = 0 (i < K), s (i ≥ K), spike a_k[K + k] = λ.
  noise_spectra a = noise_spectra::Constant(idx(K), idx(d), s);
  a.leftCols(idx(K)).setZero();
  for (std::size_t k = 0; k < K; ++k) a(idx(k), idx(K + k)) = lambda;
  return a;
}

noise_norms spectra_norms(const noise_spectra& a) {
  constexpr const char* fn = "spectra_norms";
  if (a.rows() < 1 || a.cols() < 1) throw_domain_error(fn, "spectra", "empty", "K x d, K, d >= 1");
  check_spectra(fn, a, static_cast<std::size_t>(a.rows()), static_cast<std::size_t>(a.cols()));
  const index K = a.rows();
  noise_norms out;
  const Eigen::MatrixXd sq = a.cwiseAbs2();
  out.frobenius = sq.rowwise().sum().cwiseSqrt();
  out.cross = (sq * sq.transpose()).cwiseSqrt();  // ‖A_kᵀA_j‖_F² = Σ_i a_k[i]²a_j[i]²
  out.operator_norm = a.cwiseAbs().rowwise().maxCoeff();
  out.smallest_nonzero.resize(K);
  out.rank.resize(K);
  for (index k = 0; k < K; ++k) {
    double smallest = std::numeric_limits<double>::infinity();
    int rank = 0;
    for (index i = 0; i < a.cols(); ++i)
      if (a(k, i) != 0) {
        smallest = std::min(smallest, std::abs(a(k, i)));
        ++rank;
      }
    out.smallest_nonzero[k] = rank > 0 ? smallest : 0.0;
    out.rank[k] = rank;
  }
  return out;
}

spiked_norms spiked_closed_form(std::size_t K, std::size_t d, double s, double lambda) {
  constexpr const char* fn = "spiked_closed_form";
  check_at_least(fn, "classes", static_cast<long long>(K), 1);
  if (d < 2 * K) throw_domain_error(fn, "dimension", count(d), ">= 2K = " + count(2 * K));
  check_positive(fn, "s", s);
  check_nonnegative(fn, "lambda", lambda);
  const double D = static_cast<double>(d - K);
  const double s2 = s * s, l2 = lambda * lambda;
  // Closed forms of the spiked construction.
  spiked_norms out;
  out.frobenius = std::sqrt(s2 * (D - 1) + l2);
  out.self_cross = std::sqrt(s2 * s2 * (D - 1) + l2 * l2);
  out.cross = std::sqrt(s2 * s2 * (D - 2) + 2 * s2 * l2);
  out.operator_norm = std::max(s, lambda);
  return out;
}

double spiked_ncr(std::size_t K, std::size_t d, double s, double lambda) {
  const spiked_norms n = spiked_closed_form(K, d, s, lambda);
  if (K < 2) throw_domain_error("spiked_ncr", "classes", count(K), ">= 2");
  return n.self_cross / n.cross;  // balanced: √|S_k|/√|S_j| = 1 (ZXD+26 §4)
}

double spike_for_ncr(std::size_t K, std::size_t d, double s, double ncr) {
  constexpr const char* fn = "spike_for_ncr";
  check_at_least(fn, "classes", static_cast<long long>(K), 2);
  if (d < 2 * K) throw_domain_error(fn, "dimension", count(d), ">= 2K = " + count(2 * K));
  // s⁴ enters the cross norms ‖A_iᵀA_j‖_F² of the construction: below 1e-75 it underflows, and
  // the bounds' conditions compared 0/0 (a probe's --noise-scale 1e-200; SNR, NCR blank at 1e-100).
  if (!(s >= 1e-75 && s <= 1e75))
    throw_domain_error(fn, "noise_scale", s,
                       "in [1e-75, 1e75] (its fourth power enters the cross norms)");
  if (!(std::isfinite(ncr) && ncr >= 1))
    throw_domain_error(fn, "ncr", ncr, "finite and >= 1 (the spiked construction's minimum)");
  // NCR² = (D − 1 + x²)/(D − 2 + 2x), x = λ²/s² (header): the larger root of
  // x² − 2N²x + (D − 1) − N²(D − 2) = 0.
  // Divided through by N⁴ so that no intermediate overflows (N⁴ did beyond N = 1.2e77, and a
  // probe's 1e308 reached the bounds as "lambda is inf"): x = N²(1 + √(1 + (D − 2)/N² −
  // (D − 1)/N⁴)), the radicand ≥ 0 for N ≥ 1 (= 0·(D − 1)/N⁴ at N = 1 up to rounding).
  const double D = static_cast<double>(d - K);
  const double N2 = ncr * ncr;
  const double radicand = 1 + (D - 2) / N2 - (D - 1) / N2 / N2;
  const double lambda = s * ncr * std::sqrt(1 + std::sqrt(std::max(radicand, 0.0)));
  // Its square enters the data's norms and every bound: at most 1e150 (a probe's 1e308 gave
  // "frobenius is inf").
  if (!(lambda <= 1e150))
    throw_domain_error(fn, "the spike's eigenvalue (from the noise scale and the NCR)", lambda,
                       "<= 1e150 (its square enters the bounds: lower the noise scale or the "
                       "NCR)");
  return lambda;
}

// ---- class counts -------------------------------------------------------------------------------

std::vector<std::size_t> balanced_counts(std::size_t n, std::size_t K) {
  check_at_least("balanced_counts", "classes", static_cast<long long>(K), 1);
  std::vector<std::size_t> c(K, n / K);
  for (std::size_t k = 0; k < n % K; ++k) ++c[k];
  return c;
}

std::vector<std::size_t> counts_from_frequencies(std::size_t n, const std::vector<double>& f) {
  constexpr const char* fn = "counts_from_frequencies";
  if (f.empty()) throw_domain_error(fn, "frequencies", "empty", "at least one class");
  double total = 0;
  for (double v : f) {
    check_nonnegative(fn, "frequency", v);
    total += v;
  }
  if (!(total > 0)) throw_domain_error(fn, "sum of frequencies", total, "> 0");
  std::vector<std::size_t> c(f.size());
  std::vector<std::pair<double, std::size_t>> remainder(f.size());
  std::size_t assigned = 0;
  for (std::size_t k = 0; k < f.size(); ++k) {
    const double exact = static_cast<double>(n) * f[k] / total;
    c[k] = static_cast<std::size_t>(std::floor(exact));
    assigned += c[k];
    remainder[k] = {exact - std::floor(exact), k};
  }
  // Largest remainder; ties to the lower class index.
  std::stable_sort(remainder.begin(), remainder.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  for (std::size_t j = 0; assigned < n; ++j, ++assigned) ++c[remainder[j % f.size()].second];
  return c;
}

// ---- data ---------------------------------------------------------------------------------------

std::vector<std::size_t> longtail_data::class_indices(int k) const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < labels.size(); ++i)
    if (labels[i] == k) out.push_back(i);
  return out;
}

std::vector<std::size_t> longtail_data::class_counts() const {
  std::vector<std::size_t> c(classes, 0);
  for (int y : labels) ++c[static_cast<std::size_t>(y)];
  return c;
}

longtail_data generate_longtail_data(const longtail_data_options& o,
                                     const std::vector<std::size_t>& counts,
                                     random_stream& stream) {
  constexpr const char* fn = "generate_longtail_data";
  check_at_least(fn, "classes", static_cast<long long>(o.classes), 2);
  const std::size_t K = o.classes, d = o.dimension;
  longtail_data data;
  data.classes = K;
  data.dimension = d;
  data.law = o.law;
  if (o.spectra.size() == 0) {
    data.spectra = spiked_spectra(K, d, 0.5, o.spike);  // s = 0.5 (ZXD+26 §5.1)
  } else {
    check_spectra(fn, o.spectra, K, d);
    data.spectra = o.spectra;
  }
  if (o.signal_norms.size() == 0) {
    check_nonnegative(fn, "signal_norm", o.signal_norm);
    data.signal_norms = Eigen::VectorXd::Constant(idx(K), o.signal_norm);
  } else {
    if (o.signal_norms.size() != idx(K))
      throw_domain_error(fn, "signal_norms.size()",
                         count(static_cast<std::size_t>(o.signal_norms.size())), "K = " + count(K));
    for (double v : o.signal_norms) check_nonnegative(fn, "signal_norms entry", v);
    data.signal_norms = o.signal_norms;
  }
  if (counts.size() != K)
    throw_domain_error(fn, "counts.size()", count(counts.size()), "K = " + count(K));
  const std::size_t n = std::accumulate(counts.begin(), counts.end(), std::size_t{0});
  if (n == 0) throw_domain_error(fn, "sum of counts", "0", ">= 1");
  data.labels.reserve(n);
  data.noise.resize(idx(d), idx(n));
  const double root3 = std::sqrt(3.0);
  std::size_t i = 0;
  for (std::size_t k = 0; k < K; ++k)
    for (std::size_t c = 0; c < counts[k]; ++c, ++i) {
      data.labels.push_back(static_cast<int>(k));
      auto col = data.noise.col(idx(i));
      // ζ with i.i.d. unit-variance coordinates (Def 1; Sec 5.1: N(0,1) or U(−√3, √3)); all d
      // coordinates are drawn (those where a_k = 0 are multiplied by 0).
      for (index j = 0; j < idx(d); ++j)
        col[j] = o.law == zeta_law::gaussian ? stream.normal() : stream.uniform(-root3, root3);
      col.array() *= data.spectra.row(idx(k)).transpose().array();  // ξ = a_k ∘ ζ (U basis)
    }
  return data;
}

// ---- initialisation -----------------------------------------------------------------------------

vector longtail_initial_weights(std::size_t K,
                                std::size_t m,
                                std::size_t d,
                                const initialisation& init,
                                random_stream& stream) {
  constexpr const char* fn = "longtail_initial_weights";
  check_at_least(fn, "classes", static_cast<long long>(K), 1);
  check_at_least(fn, "width", static_cast<long long>(m), 1);
  check_at_least(fn, "dimension", static_cast<long long>(d), 1);
  const index p = idx(K * m * d);
  vector w(p);
  if (init.type == initialisation::kind::gaussian) {
    // The weights' squares enter the outputs and the memorisation measures: at most 1e150 (a
    // probe's 1e308 drew weights of ±inf and failed with "A_k' w is 0").
    if (!(init.sigma0 > 0 && init.sigma0 <= 1e150))
      throw_domain_error(fn, "sigma0", init.sigma0,
                         "in (0, 1e150] (the weights' squares overflow beyond)");
    // ZXD+26 §3: w_{j,r} ~ N(0, σ₀²I) — rotation invariant, so drawn in the U basis directly.
    stream.fill_normal({w.data(), static_cast<std::size_t>(p)});
    w *= init.sigma0;
    return w;
  }
  // PyTorch nn.Linear default (kaiming_uniform with a = √5): U(−1/√fan_in, 1/√fan_in), fan_in = d
  // (ZXD+26 §5.1: "parameters initialised with PyTorch defaults").
  const double bound = 1 / std::sqrt(static_cast<double>(d));
  for (index j = 0; j < p; ++j) w[j] = stream.uniform(-bound, bound);
  if (init.rotate) {
    // Haar U: Q of the QR of a Gaussian matrix, columns' signs fixed by sign(diag R) (Mezzadri,
    // "How to generate random matrices from the classical compact groups", Notices AMS 2007).
    Eigen::MatrixXd g(idx(d), idx(d));
    stream.fill_normal({g.data(), static_cast<std::size_t>(g.size())});
    Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
    Eigen::MatrixXd q = qr.householderQ();
    const Eigen::MatrixXd& r = qr.matrixQR();
    for (index j = 0; j < idx(d); ++j)
      if (r(j, j) < 0) q.col(j) *= -1;
    // Stored coordinates are the U basis: w_U = Uᵀ w_original (header comment).
    Eigen::Map<Eigen::MatrixXd> filters(w.data(), idx(d), idx(K * m));
    filters = (q.transpose() * filters).eval();
  }
  return w;
}

// ---- network ------------------------------------------------------------------------------------

longtail_network::longtail_network(std::shared_ptr<const longtail_data> data, std::size_t width)
    : data_(std::move(data)), width_(width) {
  constexpr const char* fn = "longtail_network";
  if (!data_) throw_domain_error(fn, "data", "null", "a data set");
  check_at_least(fn, "width", static_cast<long long>(width), 1);
  const longtail_data& s = *data_;
  check_at_least(fn, "classes", static_cast<long long>(s.classes), 2);
  check_at_least(fn, "examples", static_cast<long long>(s.size()), 1);
  classes_ = s.classes;
  dimension_ = s.dimension;
  if (dimension_ < 2 * classes_)
    throw_domain_error(fn, "dimension", count(dimension_), ">= 2K = " + count(2 * classes_));
  check_spectra(fn, s.spectra, classes_, dimension_);
  if (s.signal_norms.size() != idx(classes_))
    throw_domain_error(fn, "signal_norms.size()",
                       count(static_cast<std::size_t>(s.signal_norms.size())), "K");
  if (s.noise.rows() != idx(dimension_) || s.noise.cols() != idx(s.size()))
    throw_domain_error(fn, "noise", "of the wrong shape", "d x n");
  for (int y : s.labels)
    if (y < 0 || y >= static_cast<int>(classes_))
      throw_domain_error(fn, "label", format_value(static_cast<long long>(y)), "in [0, K)");
  noise_norms_sq_ = s.noise.colwise().squaredNorm().transpose();
}

std::string longtail_network::describe() const {
  return "two-layer ReLU CNN (ZXD+26): K = " + count(classes_) + ", m = " + count(width_) +
         ", d = " + count(dimension_) + ", n = " + count(data_->size()) + " (" +
         to_string(data_->law) + " zeta)";
}

const_vector_ref longtail_network::filter(
    const_vector_ref w, std::size_t k, std::size_t r, std::size_t width, std::size_t dimension) {
  return w.segment(idx((k * width + r) * dimension), idx(dimension));
}

double longtail_network::loss(std::size_t i, const_vector_ref w) const {
  // −log softmax_y(F), F_k = (1/m)Σ_r [σ(⟨w_{k,r},u_y⟩) + σ(⟨w_{k,r},ξ⟩)] (eqs. 1–3).
  const int y = data_->labels[i];
  const auto xi = data_->noise.col(idx(i));
  const double uy = data_->signal_norms[y];
  const double inv_m = 1 / static_cast<double>(width_);
  online_lse lse;
  double fy = 0;
  for (std::size_t k = 0; k < classes_; ++k) {
    double f = 0;
    for (std::size_t r = 0; r < width_; ++r) {
      const auto wk = w.segment(idx((k * width_ + r) * dimension_), idx(dimension_));
      f += relu(uy * wk[y]) + relu(wk.dot(xi));  // ⟨w, u_y⟩ = ‖u_y‖ w[y] in the U basis
    }
    f *= inv_m;
    if (static_cast<int>(k) == y) fy = f;
    lse.add(f);
  }
  return lse.value() - fy;
}

void longtail_network::gradient(std::size_t i, const_vector_ref w, vector_ref g) const {
  // ∇_{w_{k,r}} L = (1/m)(p_k − 1[y=k])(1[⟨w,u_y⟩>0]u_y + 1[⟨w,ξ⟩>0]ξ), σ′(0) = 0.
  // No allocation: block (k, r) of g first holds its two inner products (entries 0, 1) and, for
  // r = 0, F_k (entry 2; d ≥ 2K ≥ 4), then is overwritten by its gradient.
  const int y = data_->labels[i];
  const auto xi = data_->noise.col(idx(i));
  const double uy = data_->signal_norms[y];
  const double inv_m = 1 / static_cast<double>(width_);
  const index d = idx(dimension_);
  online_lse lse;
  for (std::size_t k = 0; k < classes_; ++k) {
    double f = 0;
    for (std::size_t r = 0; r < width_; ++r) {
      const index off = idx(k * width_ + r) * d;
      const auto wk = w.segment(off, d);
      const double su = uy * wk[y], sx = wk.dot(xi);
      g[off] = su;
      g[off + 1] = sx;
      f += relu(su) + relu(sx);
    }
    f *= inv_m;
    g[idx(k * width_) * d + 2] = f;
    lse.add(f);
  }
  const double log_z = lse.value();
  for (std::size_t k = 0; k < classes_; ++k) {
    const double pk = std::exp(g[idx(k * width_) * d + 2] - log_z);
    const double coef = (pk - (static_cast<int>(k) == y ? 1.0 : 0.0)) * inv_m;
    for (std::size_t r = 0; r < width_; ++r) {
      const index off = idx(k * width_ + r) * d;
      const double su = g[off], sx = g[off + 1];
      auto block = g.segment(off, d);
      if (sx > 0)
        block = coef * xi;
      else
        block.setZero();
      if (su > 0) block[y] += coef * uy;  // u_y = ‖u_y‖e_y; ξ[y] = 0 so the sum is exact
    }
  }
}

longtail_forward longtail_network::forward(const_vector_ref w, const longtail_point& x) const {
  constexpr const char* fn = "longtail_network::forward";
  if (x.label < 0 || x.label >= static_cast<int>(classes_))
    throw_domain_error(fn, "label", format_value(static_cast<long long>(x.label)), "in [0, K)");
  if (x.noise.size() != idx(dimension_))
    throw_domain_error(fn, "noise.size()", count(static_cast<std::size_t>(x.noise.size())),
                       "d = " + count(dimension_));
  if (w.size() != idx(dimension()))
    throw_domain_error(fn, "w.size()", count(static_cast<std::size_t>(w.size())),
                       "K m d = " + count(dimension()));
  const int y = x.label;
  const double uy = data_->signal_norms[y];
  const auto K = idx(classes_);
  longtail_forward out;
  out.outputs.resize(K);
  out.signal_active.setZero(K);
  out.noise_active.setZero(K);
  const double inv_m = 1 / static_cast<double>(width_);
  for (std::size_t k = 0; k < classes_; ++k) {
    double f = 0;
    for (std::size_t r = 0; r < width_; ++r) {
      const auto wk = filter(w, k, r, width_, dimension_);
      const double su = uy * wk[y], sx = wk.dot(x.noise);
      f += relu(su) + relu(sx);
      out.signal_active[idx(k)] += su > 0;
      out.noise_active[idx(k)] += sx > 0;
    }
    out.outputs[idx(k)] = f * inv_m;
  }
  const double fmax = out.outputs.maxCoeff();
  const double log_z = fmax + std::log((out.outputs.array() - fmax).exp().sum());
  out.probabilities = (out.outputs.array() - log_z).exp().matrix();
  out.loss = log_z - out.outputs[y];
  out.outputs.maxCoeff(&out.prediction);
  out.error = out.outputs[y] < fmax;
  // ‖∇L‖² = (1/m²) Σ_k (p_k − 1[y=k])²(N^u_k‖u_y‖² + N^ξ_k‖ξ‖²) (u_y ⟂ ξ).
  const double xi2 = x.noise.squaredNorm();
  double norm2 = 0;
  for (index k = 0; k < K; ++k) {
    const double c = out.probabilities[k] - (k == y ? 1.0 : 0.0);
    norm2 += c * c * (out.signal_active[k] * uy * uy + out.noise_active[k] * xi2);
  }
  out.gradient_norm = std::sqrt(norm2) * inv_m;
  return out;
}

longtail_forward longtail_network::forward(const_vector_ref w, std::size_t i) const {
  if (i >= data_->size())
    throw_domain_error("longtail_network::forward", "i", count(i), "< n = " + count(data_->size()));
  return forward(w, longtail_point{data_->labels[i], data_->noise.col(idx(i))});
}

Eigen::VectorXd longtail_network::outputs(const_vector_ref w, const longtail_point& x) const {
  return forward(w, x).outputs;
}

Eigen::VectorXd longtail_network::probabilities(const_vector_ref w, const longtail_point& x) const {
  return forward(w, x).probabilities;
}

double longtail_network::gradient_norm(const_vector_ref w, std::size_t i) const {
  return forward(w, i).gradient_norm;
}

double longtail_network::gradient_norm_bound(const_vector_ref w, std::size_t i) const {
  // Σ_k (p_k − 1[y=k])² ≤ 2(1 − p_y)² ⇒ ‖∇L‖ ≤ (1 − p_y)√(2(‖u_y‖² + ‖ξ‖²)/m).
  const longtail_forward f = forward(w, i);
  const int y = data_->labels[i];
  const double uy = data_->signal_norms[y];
  return (1 - f.probabilities[y]) *
         std::sqrt(2 * (uy * uy + noise_norms_sq_[idx(i)]) / static_cast<double>(width_));
}

double longtail_network::clipping_multiplier(const_vector_ref w, std::size_t i, double clip) const {
  check_nonnegative("longtail_network::clipping_multiplier", "clip", clip);
  if (clip == 0) return 1;
  // h = 1/max(1, ‖∇L‖/C) (eq. 66).
  return 1 / std::max(1.0, gradient_norm(w, i) / clip);
}

Eigen::MatrixXd longtail_network::noise_alignments(const_vector_ref w,
                                                   const longtail_data& set) const {
  if (set.dimension != dimension_ || set.classes != classes_)
    throw_domain_error("longtail_network::noise_alignments", "set", "of another K or d",
                       "the network's K = " + count(classes_) + ", d = " + count(dimension_));
  if (w.size() != idx(dimension()))
    throw_domain_error("longtail_network::noise_alignments", "w.size()",
                       count(static_cast<std::size_t>(w.size())), "K m d = " + count(dimension()));
  const Eigen::Map<const Eigen::MatrixXd> filters(w.data(), idx(dimension_),
                                                  idx(classes_ * width_));
  return filters.transpose() * set.noise;  // one GEMM: (Km × d)(d × n)
}

Eigen::MatrixXd longtail_network::output_matrix(const_vector_ref w,
                                                const longtail_data& set) const {
  const Eigen::MatrixXd s = noise_alignments(w, set);
  const Eigen::Map<const Eigen::MatrixXd> filters(w.data(), idx(dimension_),
                                                  idx(classes_ * width_));
  const auto n = idx(set.size());
  const auto m = idx(width_);
  Eigen::MatrixXd f = Eigen::MatrixXd::Zero(idx(classes_), n);
  for (index i = 0; i < n; ++i) {
    const int y = set.labels[static_cast<std::size_t>(i)];
    const double uy = set.signal_norms[y];
    for (index k = 0; k < idx(classes_); ++k) {
      double acc = 0;
      for (index r = 0; r < m; ++r) acc += relu(uy * filters(y, k * m + r)) + relu(s(k * m + r, i));
      f(k, i) = acc / static_cast<double>(width_);
    }
  }
  return f;
}

double longtail_network::empirical_risk(const_vector_ref w) const {
  const Eigen::MatrixXd f = output_matrix(w, *data_);
  double total = 0;
  for (index i = 0; i < f.cols(); ++i) {
    const double fmax = f.col(i).maxCoeff();
    const double lse = fmax + std::log((f.col(i).array() - fmax).exp().sum());
    total += lse - f(data_->labels[static_cast<std::size_t>(i)], i);
  }
  return total / static_cast<double>(f.cols());
}

std::vector<int> longtail_network::predict(const_vector_ref w, const longtail_data& set) const {
  const Eigen::MatrixXd f = output_matrix(w, set);
  std::vector<int> out(set.size());
  for (index i = 0; i < f.cols(); ++i) {
    index k = 0;
    f.col(i).maxCoeff(&k);
    out[static_cast<std::size_t>(i)] = static_cast<int>(k);
  }
  return out;
}

double class_errors::rate(int k) const {
  const auto j = static_cast<std::size_t>(k);
  return counts[j] == 0 ? std::numeric_limits<double>::quiet_NaN()
                        : static_cast<double>(errors[j]) / static_cast<double>(counts[j]);
}

double class_errors::overall() const {
  return total == 0 ? std::numeric_limits<double>::quiet_NaN()
                    : static_cast<double>(total_errors) / static_cast<double>(total);
}

class_errors test_errors(const longtail_network& network,
                         const_vector_ref w,
                         const longtail_data& set,
                         const std::vector<std::size_t>* subset) {
  const Eigen::MatrixXd f = network.output_matrix(w, set);
  class_errors out;
  out.errors.assign(set.classes, 0);
  out.counts.assign(set.classes, 0);
  auto add = [&](std::size_t i) {
    if (i >= set.size())
      throw_domain_error("test_errors", "subset index", count(i), "< n = " + count(set.size()));
    const int y = set.labels[i];
    const auto col = f.col(idx(i));
    // Error iff F_y < max_j F_j (ZXD+26 §4; ties are not errors).
    const bool err = col[y] < col.maxCoeff();
    ++out.counts[static_cast<std::size_t>(y)];
    ++out.total;
    if (err) {
      ++out.errors[static_cast<std::size_t>(y)];
      ++out.total_errors;
    }
  };
  if (subset) {
    for (std::size_t i : *subset) add(i);
  } else {
    for (std::size_t i = 0; i < set.size(); ++i) add(i);
  }
  return out;
}

// ---- long-tail protocol -------------------------------------------------------------------------

vector tail_direction(const longtail_network& net,
                      const_vector_ref w,
                      int k,
                      tail_neuron choice,
                      std::size_t neuron) {
  constexpr const char* fn = "tail_direction";
  const std::size_t K = net.classes(), m = net.width(), d = net.input_dimension();
  if (k < 0 || k >= static_cast<int>(K))
    throw_domain_error(fn, "k", format_value(static_cast<long long>(k)), "in [0, K)");
  if (w.size() != idx(net.dimension()))
    throw_domain_error(fn, "w.size()", count(static_cast<std::size_t>(w.size())), "K m d");
  const auto kk = static_cast<std::size_t>(k);
  vector v = vector::Zero(idx(d));
  switch (choice) {
    case tail_neuron::aggregate:
      // Σ_r w_{k,r} (Lemma 25's aggregate; over all neurons since R(ξ) is undefined, §6 item 5).
      for (std::size_t r = 0; r < m; ++r) v += longtail_network::filter(w, kk, r, m, d);
      break;
    case tail_neuron::single:
      if (neuron >= m) throw_domain_error(fn, "neuron", count(neuron), "< m = " + count(m));
      v = longtail_network::filter(w, kk, neuron, m, d);
      break;
    case tail_neuron::most_memorising: {
      const Eigen::MatrixXd s = net.noise_alignments(w, net.data());
      std::size_t best = 0;
      double best_sum = -std::numeric_limits<double>::infinity();
      for (std::size_t r = 0; r < m; ++r) {
        double sum = 0;
        for (std::size_t i = 0; i < net.data().size(); ++i)
          if (net.data().labels[i] == k) sum += s(idx(kk * m + r), idx(i));
        if (sum > best_sum) {
          best_sum = sum;
          best = r;
        }
      }
      v = longtail_network::filter(w, kk, best, m, d);
      break;
    }
  }
  v.array() *= net.data().spectra.row(k).transpose().array();  // A_kᵀw = a_k ∘ w (U basis)
  const double norm = v.stableNorm();  // the plain norm squares: weights of 1e200 read as inf
  if (!(norm > 0)) throw_domain_error(fn, "A_k' w", "0", "non-zero (no memorised direction)");
  return v / norm;
}

tail_scores tail_projections(const longtail_data& set, int k, const_vector_ref v) {
  constexpr const char* fn = "tail_projections";
  if (k < 0 || k >= static_cast<int>(set.classes))
    throw_domain_error(fn, "k", format_value(static_cast<long long>(k)), "in [0, K)");
  if (v.size() != idx(set.dimension))
    throw_domain_error(fn, "direction.size()", count(static_cast<std::size_t>(v.size())), "d");
  const auto a = set.spectra.row(k);
  // ζ′ = ⟨v̂, ζ⟩ with ζ_j = ξ_j/a_k[j] where a_k[j] ≠ 0; v̂ must vanish where a_k does (it lies
  // in the range of A_kᵀ), else ζ′ is not determined by ξ.
  vector weights = vector::Zero(v.size());
  for (index j = 0; j < v.size(); ++j) {
    if (a[j] != 0) {
      weights[j] = v[j] / a[j];
    } else if (v[j] != 0) {
      throw_domain_error(fn, "direction", "non-zero where a_k = 0", "in the range of A_k'");
    }
  }
  tail_scores out;
  for (std::size_t i = 0; i < set.size(); ++i)
    if (set.labels[i] == k) {
      out.indices.push_back(i);
      out.scores.push_back(weights.dot(set.noise.col(idx(i))));
    }
  return out;
}

std::vector<std::size_t> tail_subset(const longtail_data& set,
                                     int k,
                                     const_vector_ref v,
                                     double tail_L) {
  check_not_nan("tail_subset", "tail_L", tail_L);
  const tail_scores s = tail_projections(set, k, v);
  std::vector<std::size_t> out;
  for (std::size_t j = 0; j < s.indices.size(); ++j)
    if (s.scores[j] >= tail_L) out.push_back(s.indices[j]);  // Def 3: ⟨w, ξ⟩ ≥ L‖A_kᵀw‖
  return out;
}

double tail_frequency(double tail_L) {
  check_not_nan("tail_frequency", "tail_L", tail_L);
  return normal_ccdf(tail_L);  // ζ′ ~ N(0, 1) for Gaussian ζ (Definition 3)
}

double truncated_normal_mean(double tail_L) {
  check_finite("truncated_normal_mean", "tail_L", tail_L);
  // φ(L)/Φ̄(L) in log space (no underflow for large L).
  return std::exp(normal_lpdf(tail_L) - normal_lccdf(tail_L));
}

double sample_truncated_normal(double tail_L, random_stream& stream) {
  check_finite("sample_truncated_normal", "tail_L", tail_L);
  // Inversion: Φ̄(z) = U·Φ̄(L) ⇔ z = −Φ⁻¹(exp(log U + log Φ̄(L))).
  const double z = -normal_quantile_from_log(std::log(stream.uniform()) + normal_lccdf(tail_L));
  return std::max(z, tail_L);  // rounding guard at the boundary
}

longtail_data sample_tail(const longtail_data& like,
                          int k,
                          const_vector_ref v,
                          double tail_L,
                          std::size_t n,
                          random_stream& stream) {
  constexpr const char* fn = "sample_tail";
  if (like.law != zeta_law::gaussian)
    throw_domain_error(fn, "law", to_string(like.law), "gaussian (the exact construction)");
  if (k < 0 || k >= static_cast<int>(like.classes))
    throw_domain_error(fn, "k", format_value(static_cast<long long>(k)), "in [0, K)");
  if (v.size() != idx(like.dimension))
    throw_domain_error(fn, "direction.size()", count(static_cast<std::size_t>(v.size())), "d");
  if (!(std::abs(v.norm() - 1) <= 1e-12)) throw_domain_error(fn, "direction norm", v.norm(), "1");
  check_finite(fn, "tail_L", tail_L);
  longtail_data out;
  out.classes = like.classes;
  out.dimension = like.dimension;
  out.signal_norms = like.signal_norms;
  out.spectra = like.spectra;
  out.law = like.law;
  out.labels.assign(n, k);
  out.noise.resize(idx(like.dimension), idx(n));
  vector g(idx(like.dimension));
  for (std::size_t i = 0; i < n; ++i) {
    // ζ = z v̂ + (I − v̂v̂ᵀ)g, z ~ N(0,1) | z ≥ L, g ~ N(0, I_d) (Definition 3).
    const double z = sample_truncated_normal(tail_L, stream);
    stream.fill_normal({g.data(), static_cast<std::size_t>(g.size())});
    g += (z - v.dot(g)) * v;
    out.noise.col(idx(i)) = g.cwiseProduct(like.spectra.row(k).transpose());  // ξ = a_k ∘ ζ
  }
  return out;
}

}  // namespace dpkit::learners
