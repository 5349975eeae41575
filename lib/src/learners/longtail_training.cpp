// ZXD+26's DP-SGD (learners/longtail.hpp, eq. (4)): the step count and the noisy-gradient options
// of a training configuration, its accounting request and noise scales (Remark 4), the per-step
// record (the §5.2 metrics), and the network's batch gradient for run_noisy_gradient, computed
// from the gradient's scalars with the same bits at a fraction of the cost.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>
#include <vector>

#include "detail/longtail.hpp"
#include "dpkit/core/check.hpp"
#include "dpkit/core/decimal.hpp"
#include "dpkit/learners/longtail.hpp"

namespace dpkit::learners {

using detail::longtail::count;
using detail::longtail::idx;
using detail::longtail::index;
using detail::longtail::online_lse;
using detail::longtail::relu;

// ---- training -----------------------------------------------------------------------------------

long training_steps(const longtail_training& t, std::size_t n) {
  constexpr const char* fn = "training_steps";
  if (t.steps > 0) return t.steps;
  check_positive(fn, "epochs", t.epochs);
  check_at_least(fn, "examples", static_cast<long long>(n), 1);
  if (t.batches != batch_rule::full && t.batch_size < 1)
    throw_domain_error(fn, "batch_size", "0", ">= 1");
  // T = ⌈epochs·n/B⌉ (ZXD+26 §5.1: 20 epochs, n = 500, B = 256 → T = 40), ⌈epochs⌉ with the full
  // batch; exact on the epochs as written (core/decimal.hpp, the rule of accounting/run_units).
  const auto steps = t.batches == batch_rule::full
                         ? ceil_as_written(t.epochs, 1, 1)
                         : ceil_as_written(t.epochs, static_cast<long long>(n),
                                           static_cast<long long>(t.batch_size));
  if (!steps) throw_domain_error(fn, "epochs", t.epochs, "at most 2^53 steps");
  return static_cast<long>(*steps);
}

noisy_gradient_options to_noisy_gradient_options(const longtail_training& t, std::size_t n) {
  constexpr const char* fn = "train_longtail";
  check_positive(fn, "eta", t.eta);
  check_nonnegative(fn, "clip", t.clip);
  check_nonnegative(fn, "noise_std", t.noise_std);
  check_at_least(fn, "record_every", t.record_every, 1);
  noisy_gradient_options o;
  o.batches = t.batches;
  switch (t.batches) {
    case batch_rule::shuffled:
      if (t.batch_size < 1 || t.batch_size > n)
        throw_domain_error(fn, "batch_size", count(t.batch_size), "in [1, n = " + count(n) + "]");
      o.batch_size = t.batch_size;
      break;
    case batch_rule::poisson:
      if (t.batch_size < 1 || t.batch_size > n)
        throw_domain_error(fn, "batch_size", count(t.batch_size), "in [1, n = " + count(n) + "]");
      o.sampling_rate = static_cast<double>(t.batch_size) / static_cast<double>(n);  // q = B/n
      break;
    case batch_rule::full:
      break;
    default:
      throw_domain_error(fn, "batches", to_string(t.batches), "shuffled, poisson or full");
  }
  o.steps = training_steps(t, n);
  o.learning_rate = t.eta;
  o.noise = t.noise_std;  // x ← x − η(ḡ + σ_n Z): eq. (4) exactly (header comment)
  o.clip = t.clip;
  return o;
}

privacy_request accounting_request(const longtail_training& t, std::size_t n) {
  const noisy_gradient_options o = to_noisy_gradient_options(t, n);
  privacy_request r;
  r.steps = o.steps;
  r.clip = t.clip;
  if (t.batches == batch_rule::full) {
    r.sampling_rate = 1;
    r.batch_size = n;
    r.scheme = accounting::sampling_scheme::without_replacement;
  } else {
    r.sampling_rate = static_cast<double>(t.batch_size) / static_cast<double>(n);
    r.batch_size = t.batch_size;
    r.scheme = t.batches == batch_rule::poisson ? accounting::sampling_scheme::poisson
                                                : accounting::sampling_scheme::without_replacement;
  }
  return r;
}

accounting::training_run privacy_request::run(double noise_multiplier) const {
  accounting::training_run out;
  accounting::training_phase phase;
  phase.noise_multiplier = noise_multiplier;
  phase.sampling_rate = sampling_rate;
  phase.sampling = scheme;
  phase.steps = steps;
  out.phases.push_back(phase);
  return out;
}

double noise_std_for(double z, double clip, std::size_t batch_size) {
  check_nonnegative("noise_std_for", "noise_multiplier", z);
  check_nonnegative("noise_std_for", "clip", clip);
  check_at_least("noise_std_for", "batch_size", static_cast<long long>(batch_size), 1);
  double sigma = z * clip / static_cast<double>(batch_size);  // σ_n = zC/B
  if (!std::isfinite(sigma)) sigma = z * (clip / static_cast<double>(batch_size));  // zC overflowed
  // Named as the clip norm: z and B are derived (calibration, batching), C is what is given.
  if (!std::isfinite(sigma))
    throw_domain_error(
        "noise_std_for", "clip", clip,
        "<= " +
            format_value(std::numeric_limits<double>::max() / z * static_cast<double>(batch_size)) +
            " at noise multiplier " + format_value(z) +
            " (the noise std noise_multiplier x clip / batch_size overflows beyond)");
  return sigma;
}

double noise_multiplier_for(double noise_std, double clip, std::size_t batch_size) {
  constexpr const char* fn = "noise_multiplier_for";
  check_nonnegative(fn, "noise_std", noise_std);
  check_positive(fn, "clip", clip);
  check_at_least(fn, "batch_size", static_cast<long long>(batch_size), 1);
  const double b = static_cast<double>(batch_size);
  const double z = noise_std * b / clip;
  return std::isfinite(z) ? z : noise_std / (clip / b);  // σB overflowed; C/B cannot
}

double remark4_noise_scale(
    double clip, long long steps, double dp_delta, std::size_t n, double epsilon) {
  constexpr const char* fn = "remark4_noise_scale";
  check_positive(fn, "clip", clip);
  check_at_least(fn, "steps", steps, 1);
  check_open_probability(fn, "dp_delta", dp_delta);
  check_at_least(fn, "examples", static_cast<long long>(n), 1);
  check_positive(fn, "epsilon", epsilon);
  // ZXD+26 Remark 4: σ_n = O(C√(T ln(1/δ))/(nε)); the O's constant is unknown.
  const double scale = std::sqrt(static_cast<double>(steps) * std::log(1 / dp_delta)) /
                       (static_cast<double>(n) * epsilon);
  const double sigma = clip * scale;
  if (!std::isfinite(sigma))
    throw_domain_error(fn, "clip", clip,
                       "<= " + format_value(std::numeric_limits<double>::max() / scale) +
                           " (Remark 4's noise scale C sqrt(T ln(1/delta))/(n epsilon) overflows "
                           "beyond)");
  return sigma;
}

longtail_record measure(const longtail_network& net,
                        const_vector_ref w,
                        double clip,
                        std::size_t tracked) {
  constexpr const char* fn = "measure";
  check_nonnegative(fn, "clip", clip);
  if (tracked >= net.width())
    throw_domain_error(fn, "tracked_neuron", count(tracked), "< m = " + count(net.width()));
  const longtail_data& data = net.data();
  const Eigen::MatrixXd s = net.noise_alignments(w, data);  // (Km) × n
  const auto K = idx(net.classes()), m = idx(net.width()), n = idx(data.size());
  const Eigen::Map<const Eigen::MatrixXd> filters(w.data(), idx(net.input_dimension()), K * m);
  const double inv_m = 1 / static_cast<double>(m);
  longtail_record rec;
  Eigen::VectorXd f(K), p(K), signal_sum = Eigen::VectorXd::Zero(m),
                              noise_sum = Eigen::VectorXd::Zero(m);
  Eigen::VectorXi nu(K), nx(K);
  double loss = 0, h_sum = 0, h_min = 1;
  std::size_t errors = 0;
  for (index i = 0; i < n; ++i) {
    const int y = data.labels[static_cast<std::size_t>(i)];
    const double uy = data.signal_norms[y];
    const double xi2 = data.noise.col(i).squaredNorm();
    for (index k = 0; k < K; ++k) {
      double acc = 0;
      int cu = 0, cx = 0;
      for (index r = 0; r < m; ++r) {
        const double su = uy * filters(y, k * m + r), sx = s(k * m + r, i);
        acc += relu(su) + relu(sx);
        cu += su > 0;
        cx += sx > 0;
      }
      f[k] = acc * inv_m;
      nu[k] = cu;
      nx[k] = cx;
    }
    const double fmax = f.maxCoeff();
    const double log_z = fmax + std::log((f.array() - fmax).exp().sum());
    p = (f.array() - log_z).exp().matrix();
    loss += log_z - f[y];
    errors += f[y] < fmax;
    if (clip > 0) {
      double norm2 = 0;  // the closed form
      for (index k = 0; k < K; ++k) {
        const double c = p[k] - (k == y ? 1.0 : 0.0);
        norm2 += c * c * (nu[k] * uy * uy + nx[k] * xi2);
      }
      const double h = 1 / std::max(1.0, std::sqrt(norm2) * inv_m / clip);  // eq. (66)
      h_sum += h;
      h_min = std::min(h_min, h);
    } else {
      h_sum += 1;
    }
    // ZXD+26 §5.2's footnote metrics, with the reading w_{y_i,r}, u_{y_i}.
    for (index r = 0; r < m; ++r) {
      signal_sum[r] += uy * filters(y, y * m + r);
      noise_sum[r] += s(y * m + r, i);
    }
  }
  const auto nd = static_cast<double>(n);
  rec.training_loss = loss / nd;
  rec.training_error = static_cast<double>(errors) / nd;
  rec.signal_learning = signal_sum.maxCoeff() / nd;
  rec.memorisation = noise_sum.maxCoeff() / nd;
  rec.memorisation_tracked = noise_sum[idx(tracked)] / nd;
  rec.mean_clip_multiplier = h_sum / nd;
  rec.min_clip_multiplier = h_min;
  return rec;
}

namespace {

// ---- the structured batch gradient -------------------------------------------------------------
//
// run_noisy_gradient materialises every per-example gradient (K·m·d doubles), takes its norm,
// scales it and adds it to the batch sum: about six passes over 4 MB per example at the paper's
// size, which made one 40-step run take ~10 s. The gradient of example i is structured:
// block (k, r) is c_k ξ_i if ⟨w_{k,r}, ξ_i⟩ > 0 and 0 otherwise, plus c_k‖u_y‖ at
// coordinate y if ⟨w_{k,r}, u_y⟩ > 0, with c_k = (p_k − 1[y=k])/m.
// longtail_network::clipped_gradient_sum (the engine's hook, model.hpp) computes the batch sum
// from these scalars and produces the SAME bits as model's default, example by example through
// model::gradient (the contract that keeps every result unchanged):
//   * the inner products are the same Eigen expressions as in longtail_network::gradient, and
//     F_k, p_k, c_k the same scalar code;
//   * ‖∇L_i‖ is the sum of squares in the order of Eigen 3.4's vectorised reduction of
//     gi.norm() for 2-double packets (SSE2): lanes j mod 4 accumulated in index order, then
//     (l₀ + l₂) + (l₁ + l₃), the last p mod 4 entries as Eigen adds them (Redux.h,
//     LinearVectorizedTraversal). Zero entries are skipped: adding +0 to a sum of squares
//     (never −0) leaves it unchanged;
//   * the batch sum adds, coordinate by coordinate, the same rounded values (c_k ξ_j)·(C/‖∇L_i‖)
//     in the same batch order, zeros skipped (the running sum starts at +0 and so is never
//     −0, and x + (±0) = x for such x); blocks of filters are visited tile by tile so that the
//     partial sums stay in cache;
//   * averaging, noise and the step are run_noisy_gradient's, which calls the hook.
// It is used only where the emulated reductions are Eigen's SSE2 ones (packets of two doubles,
// no FMA contraction possible); elsewhere (AVX, NEON, EIGEN_DONT_VECTORIZE) the override calls
// the default.
#if defined(EIGEN_VECTORIZE_SSE2) && !defined(EIGEN_VECTORIZE_AVX) && !defined(__FMA__)
constexpr bool structured_trainer_exact = true;

// out[q] = ⟨w_q, x⟩ for the four filters w_q = w + q·d, each exactly as Eigen 3.4 evaluates
// w.segment(·, d).dot(x) with SSE2 (Redux.h, LinearVectorizedTraversal: two packet
// accumulators over the first d − d mod 4 entries, their sum, one more packet if d mod 4 ≥ 2,
// lane 0 + lane 1, then the last entry if d is odd). Four dots at once share the loads of x
// and keep eight independent addition chains in flight. Needs d ≥ 4.
void four_dots(const double* w, const double* x, index d, double* out) {
  const index end2 = d - d % 4, end1 = d - d % 2;
  const double* w0 = w;
  const double* w1 = w + d;
  const double* w2 = w + 2 * d;
  const double* w3 = w + 3 * d;
  __m128d x0 = _mm_loadu_pd(x), x1 = _mm_loadu_pd(x + 2);
  __m128d a0 = _mm_mul_pd(_mm_loadu_pd(w0), x0), b0 = _mm_mul_pd(_mm_loadu_pd(w0 + 2), x1);
  __m128d a1 = _mm_mul_pd(_mm_loadu_pd(w1), x0), b1 = _mm_mul_pd(_mm_loadu_pd(w1 + 2), x1);
  __m128d a2 = _mm_mul_pd(_mm_loadu_pd(w2), x0), b2 = _mm_mul_pd(_mm_loadu_pd(w2 + 2), x1);
  __m128d a3 = _mm_mul_pd(_mm_loadu_pd(w3), x0), b3 = _mm_mul_pd(_mm_loadu_pd(w3 + 2), x1);
  for (index j = 4; j < end2; j += 4) {
    x0 = _mm_loadu_pd(x + j);
    x1 = _mm_loadu_pd(x + j + 2);
    a0 = _mm_add_pd(a0, _mm_mul_pd(_mm_loadu_pd(w0 + j), x0));
    b0 = _mm_add_pd(b0, _mm_mul_pd(_mm_loadu_pd(w0 + j + 2), x1));
    a1 = _mm_add_pd(a1, _mm_mul_pd(_mm_loadu_pd(w1 + j), x0));
    b1 = _mm_add_pd(b1, _mm_mul_pd(_mm_loadu_pd(w1 + j + 2), x1));
    a2 = _mm_add_pd(a2, _mm_mul_pd(_mm_loadu_pd(w2 + j), x0));
    b2 = _mm_add_pd(b2, _mm_mul_pd(_mm_loadu_pd(w2 + j + 2), x1));
    a3 = _mm_add_pd(a3, _mm_mul_pd(_mm_loadu_pd(w3 + j), x0));
    b3 = _mm_add_pd(b3, _mm_mul_pd(_mm_loadu_pd(w3 + j + 2), x1));
  }
  __m128d s[4] = {_mm_add_pd(a0, b0), _mm_add_pd(a1, b1), _mm_add_pd(a2, b2), _mm_add_pd(a3, b3)};
  const double* ws[4] = {w0, w1, w2, w3};
  for (int q = 0; q < 4; ++q) {
    if (end1 > end2)
      s[q] = _mm_add_pd(s[q], _mm_mul_pd(_mm_loadu_pd(ws[q] + end2), _mm_loadu_pd(x + end2)));
    double res = _mm_cvtsd_f64(_mm_add_sd(s[q], _mm_unpackhi_pd(s[q], s[q])));
    for (index j = end1; j < d; ++j) res += ws[q][j] * x[j];
    out[q] = res;
  }
}
#else
constexpr bool structured_trainer_exact = false;

void four_dots(const double* w, const double* x, index d, double* out) {
  const Eigen::Map<const Eigen::VectorXd> xv(x, d);
  for (index q = 0; q < 4; ++q) out[q] = Eigen::Map<const Eigen::VectorXd>(w + q * d, d).dot(xv);
}
#endif

// Σ v_j² over a vector of length p in the order of Eigen 3.4's LinearVectorizedTraversal sum
// for 2-double packets (aligned start 0: the reduced expression has no direct access), fed
// with the non-zero entries in increasing index order.
class packet2_sum_of_squares {
 public:
  explicit packet2_sum_of_squares(index p) : p_(p), end2_(p - p % 4) {}
  // Adds the squares of v[0..len) at global indices off, off + 1, …
  void add(index off, const double* sq, index len) {
    index j = 0;
    for (; j < len && ((off + j) & 3) != 0 && off + j < end2_; ++j) lane_[(off + j) & 3] += sq[j];
    double a0 = lane_[0], a1 = lane_[1], a2 = lane_[2], a3 = lane_[3];
    for (; j + 4 <= len && off + j + 4 <= end2_; j += 4) {
      a0 += sq[j];
      a1 += sq[j + 1];
      a2 += sq[j + 2];
      a3 += sq[j + 3];
    }
    lane_[0] = a0;
    lane_[1] = a1;
    lane_[2] = a2;
    lane_[3] = a3;
    for (; j < len; ++j) add_one(off + j, sq[j]);
  }
  void add_one(index at, double sq) {
    if (at < end2_)
      lane_[at & 3] += sq;
    else
      tail_[at - end2_] = sq;
  }
  double value() const {
    // packet_res0 + packet_res1, then one more packet if p mod 4 ≥ 2, predux, scalar tail.
    double c0 = lane_[0] + lane_[2], c1 = lane_[1] + lane_[3];
    if (p_ % 4 >= 2) {
      c0 += tail_[0];
      c1 += tail_[1];
    }
    double res = c0 + c1;
    if (p_ % 2 == 1) res += tail_[p_ % 4 - 1];
    return res;
  }

 private:
  index p_, end2_;
  double lane_[4] = {0, 0, 0, 0};
  double tail_[3] = {0, 0, 0};
};

}  // namespace

void longtail_network::clipped_gradient_sum(std::span<const std::size_t> b,
                                            const_vector_ref x,
                                            double clip,
                                            vector& g,
                                            vector& work) const {
  if constexpr (!structured_trainer_exact) {
    model::clipped_gradient_sum(b, x, clip, g, work);
  } else {
    const longtail_data& data = *data_;
    const index K = idx(classes()), m = idx(width()), d = idx(input_dimension());
    const index p = K * m * d, filters = K * m;
    const double inv_m = 1 / static_cast<double>(m);
    // Work buffers kept across calls (one call a step), one set per thread: Monte Carlo threads
    // train their own replicates on one network.
    thread_local vector t, sq;
    thread_local Eigen::MatrixXd sx, coef;  // (Km) × b inner products ⟨w_{k,r}, ξ_i⟩; K × b c_k
    thread_local Eigen::VectorXd scale;     // per example: C/‖∇L_i‖ where clipped, else 1
    thread_local std::vector<char> clipped;
    constexpr index tile = 16;  // filters per cache tile (16·d doubles)
    t.resize(d);
    sq.resize(d);
    g.resize(p);
    const auto nb = idx(b.size());
    const_vector_ref w = x;
    // Inner products, filter tile by tile (the tile stays in cache across the batch); the same
    // expression as longtail_network::gradient.
    sx.resize(filters, nb);
    for (index f0 = 0; f0 < filters; f0 += tile)
      for (index c = 0; c < nb; ++c) {
        const auto xi = data.noise.col(idx(b[static_cast<std::size_t>(c)]));
        const index f1 = std::min(filters, f0 + tile);
        index f = f0;
        for (; f + 4 <= f1; f += 4) four_dots(x.data() + f * d, xi.data(), d, &sx(f, c));
        for (; f < f1; ++f) sx(f, c) = w.segment(f * d, d).dot(xi);
      }
    // Per example: F_k, p_k, c_k (longtail_network::gradient's scalar code) and the clip scale.
    coef.resize(K, nb);
    scale.setOnes(nb);
    clipped.assign(b.size(), 0);
    for (index c = 0; c < nb; ++c) {
      const std::size_t i = b[static_cast<std::size_t>(c)];
      const int y = data.labels[i];
      const double uy = data.signal_norms[y];
      online_lse lse;
      for (index k = 0; k < K; ++k) {
        double f = 0;
        for (index r = 0; r < m; ++r) {
          const double su = uy * w[(k * m + r) * d + y];
          f += relu(su) + relu(sx(k * m + r, c));
        }
        f *= inv_m;
        coef(k, c) = f;
        lse.add(f);
      }
      const double log_z = lse.value();
      for (index k = 0; k < K; ++k) {
        const double pk = std::exp(coef(k, c) - log_z);
        coef(k, c) = (pk - (k == y ? 1.0 : 0.0)) * inv_m;
      }
      if (clip > 0) {
        // ‖∇L_i‖ with gi.norm()'s rounding (see packet2_sum_of_squares).
        const auto xi = data.noise.col(idx(i));
        packet2_sum_of_squares acc(p);
        for (index k = 0; k < K; ++k) {
          const double ck = coef(k, c);
          bool any = false;
          for (index r = 0; r < m && !any; ++r) any = sx(k * m + r, c) > 0;
          if (any) {
            const double* xp = xi.data();
            double* sp = sq.data();
            for (index j = 0; j < d; ++j) {
              const double v = ck * xp[j];
              sp[j] = v * v;
            }
          }
          for (index r = 0; r < m; ++r) {
            const index off = (k * m + r) * d;
            const bool noise_on = sx(k * m + r, c) > 0, signal_on = uy * w[off + y] > 0;
            // In index order (the lanes are order-sensitive): [0, y), y, (y, d).
            if (noise_on) acc.add(off, sq.data(), y);
            if (noise_on || signal_on) {
              double vy = noise_on ? ck * xi[y] : 0.0;
              if (signal_on) vy += ck * uy;
              acc.add_one(off + y, vy * vy);
            }
            if (noise_on) acc.add(off + y + 1, sq.data() + y + 1, d - y - 1);
          }
        }
        const double norm = std::sqrt(acc.value());
        if (norm > clip) {
          scale[c] = clip / norm;
          clipped[static_cast<std::size_t>(c)] = 1;
        }
      }
    }
    // g = Σ_i clip(∇L_i), coordinate by coordinate in batch order, tile by tile.
    g.setZero();
    for (index k = 0; k < K; ++k)
      for (index r0 = 0; r0 < m; r0 += tile) {
        const index r1 = std::min(m, r0 + tile);
        for (index c = 0; c < nb; ++c) {
          const std::size_t i = b[static_cast<std::size_t>(c)];
          const int y = data.labels[i];
          const double uy = data.signal_norms[y], ck = coef(k, c), s = scale[c];
          const bool clip_c = clipped[static_cast<std::size_t>(c)] != 0;
          const auto xi = data.noise.col(idx(i));
          bool any = false;
          for (index r = r0; r < r1 && !any; ++r) any = sx(k * m + r, c) > 0;
          const double* xp = xi.data();
          double* tp = t.data();
          if (any) {
            for (index j = 0; j < d; ++j) tp[j] = ck * xp[j];
            if (clip_c)
              for (index j = 0; j < d; ++j) tp[j] *= s;
          }
          for (index r = r0; r < r1; ++r) {
            const index off = (k * m + r) * d;
            const bool noise_on = sx(k * m + r, c) > 0, signal_on = uy * w[off + y] > 0;
            double* gb = g.data() + off;
            if (noise_on) {
              for (index j = 0; j < y; ++j) gb[j] += tp[j];
              for (index j = y + 1; j < d; ++j) gb[j] += tp[j];
            }
            if (noise_on || signal_on) {
              double vy = noise_on ? ck * xi[y] : 0.0;
              if (signal_on) vy += ck * uy;
              if (clip_c) vy *= s;
              gb[y] += vy;
            }
          }
        }
      }
  }
}

longtail_run train_longtail(const longtail_network& net,
                            const longtail_training& t,
                            const_vector_ref w0,
                            const random_key& key) {
  constexpr const char* fn = "train_longtail";
  const std::size_t n = net.examples();
  const noisy_gradient_options o = to_noisy_gradient_options(t, n);
  if (w0.size() != idx(net.dimension()))
    throw_domain_error(fn, "w0.size()", count(static_cast<std::size_t>(w0.size())),
                       "K m d = " + count(net.dimension()));
  if (t.track_noise_contribution && t.noise_track_neuron >= net.width())
    throw_domain_error(fn, "noise_track_neuron", count(t.noise_track_neuron),
                       "< m = " + count(net.width()));
  longtail_run run;
  run.steps = o.steps;
  const longtail_data& data = net.data();
  const index d = idx(net.input_dimension()), m = idx(net.width());
  const std::size_t tracked = t.track_noise_contribution ? t.noise_track_neuron : 0;
  // Replay of run_noisy_gradient's noise stream (stream_base + 3, one N(0, I_p) vector per step
  // when σ > 0, algorithm.hpp): the exact noise −ησ_n Z_t added at step t.
  const bool replay = t.track_noise_contribution && t.noise_std > 0;
  random_stream noise_replay(key.seed, key.replicate, key.stream_base + 3);
  vector z;
  if (t.track_noise_contribution) run.noise_memorisation = Eigen::VectorXd::Zero(idx(n));
  if (replay) z.resize(idx(net.dimension()));
  const step_observer observe = [&](long step, const vector& x) {
    if (replay && step > 0) {
      noise_replay.fill_normal({z.data(), static_cast<std::size_t>(z.size())});
      for (std::size_t i = 0; i < n; ++i) {
        const index y = data.labels[i];
        const index off = (y * m + idx(tracked)) * d;
        run.noise_memorisation[idx(i)] +=
            -t.eta * t.noise_std * z.segment(off, d).dot(data.noise.col(idx(i)));
      }
    }
    if (step % t.record_every == 0 || step == o.steps) {
      longtail_record r = measure(net, x, t.clip, tracked);
      r.step = step;
      run.records.push_back(r);
    }
  };
  run.weights = run_noisy_gradient(net, o, w0, key, observe);
  return run;
}

}  // namespace dpkit::learners
