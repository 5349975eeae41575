#include "dpkit/sim/algorithm.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "dpkit/core/check.hpp"
#include "dpkit/core/random.hpp"

namespace dpkit::sim {
namespace {

std::string size_text(std::size_t n) {
  return format_value(static_cast<long long>(n));
}

}  // namespace

projection projection::ball(vector c, double r) {
  check_nonnegative("projection::ball", "radius", r);
  for (double v : c) check_finite("projection::ball", "center", v);
  projection p;
  p.type = kind::ball;
  p.center = std::move(c);
  p.radius = r;
  return p;
}

projection projection::box(vector lo, vector hi) {
  if (lo.size() != hi.size())
    throw_domain_error("projection::box", "upper.size()",
                       size_text(static_cast<std::size_t>(hi.size())),
                       "lower.size() = " + size_text(static_cast<std::size_t>(lo.size())));
  for (Eigen::Index i = 0; i < lo.size(); ++i) {
    check_not_nan("projection::box", "lower", lo[i]);
    check_not_nan("projection::box", "upper", hi[i]);
    if (!(lo[i] <= hi[i]))
      throw_domain_error("projection::box", "lower", lo[i], "<= upper = " + format_value(hi[i]));
  }
  projection p;
  p.type = kind::box;
  p.lower = std::move(lo);
  p.upper = std::move(hi);
  return p;
}

projection projection::block_balls(vector c,
                                   std::vector<std::size_t> offsets,
                                   std::vector<std::size_t> sizes,
                                   std::vector<double> radii) {
  constexpr const char* fn = "projection::block_balls";
  if (sizes.size() != offsets.size())
    throw_domain_error(fn, "sizes.size()", size_text(sizes.size()),
                       "offsets.size() = " + size_text(offsets.size()));
  if (radii.size() != offsets.size())
    throw_domain_error(fn, "radii.size()", size_text(radii.size()),
                       "offsets.size() = " + size_text(offsets.size()));
  for (double v : c) check_finite(fn, "center", v);
  const auto p = static_cast<std::size_t>(c.size());
  // Sort the blocks by offset to check that they are disjoint and inside [0, p).
  std::vector<std::size_t> by_offset(offsets.size());
  std::iota(by_offset.begin(), by_offset.end(), std::size_t{0});
  std::sort(by_offset.begin(), by_offset.end(),
            [&](std::size_t a, std::size_t b) { return offsets[a] < offsets[b]; });
  std::size_t end = 0;
  for (std::size_t k : by_offset) {
    const std::string block = "block " + size_text(k);
    if (sizes[k] < 1) throw_domain_error(fn, block + " size", "0", ">= 1");
    if (offsets[k] < end)
      throw_domain_error(fn, block + " offset", size_text(offsets[k]),
                         ">= " + size_text(end) + " (blocks must not overlap)");
    if (sizes[k] > p || offsets[k] > p - sizes[k])
      throw_domain_error(fn, block + " end", size_text(offsets[k] + sizes[k]),
                         "<= center.size() = " + size_text(p));
    end = offsets[k] + sizes[k];
    check_nonnegative(fn, block + " radius", radii[k]);
  }
  projection q;
  q.type = kind::block_balls;
  q.center = std::move(c);
  q.block_offsets = std::move(offsets);
  q.block_sizes = std::move(sizes);
  q.block_radii = std::move(radii);
  return q;
}

void projection::apply(vector_ref x) const {
  switch (type) {
    case kind::none:
      return;
    case kind::ball: {
      // Π(x) = c + (x − c)·min(1, r/‖x − c‖).
      const double dist = (x - center).norm();
      if (dist > radius) x = center + (x - center) * (radius / dist);
      return;
    }
    case kind::box:
      x = x.cwiseMax(lower).cwiseMin(upper);
      return;
    case kind::block_balls:
      // K is a product over disjoint blocks, so Π_K acts block by block (each a ball).
      for (std::size_t k = 0; k < block_offsets.size(); ++k) {
        const auto o = static_cast<Eigen::Index>(block_offsets[k]);
        const auto b = static_cast<Eigen::Index>(block_sizes[k]);
        auto xk = x.segment(o, b);
        const auto ck = center.segment(o, b);
        const double dist = (xk - ck).norm();
        if (dist > block_radii[k]) xk = ck + (xk - ck) * (block_radii[k] / dist);
      }
      return;
  }
}

double projection::diameter() const {
  switch (type) {
    case kind::ball:
      return 2 * radius;
    case kind::box:
      return (upper - lower).norm();
    case kind::block_balls: {
      std::size_t covered = 0;
      double sum = 0;
      for (std::size_t k = 0; k < block_sizes.size(); ++k) {
        covered += block_sizes[k];
        sum += block_radii[k] * block_radii[k];
      }
      if (covered < static_cast<std::size_t>(center.size())) break;  // unconstrained coordinates
      return 2 * std::sqrt(sum);
    }
    case kind::none:
      break;
  }
  return std::numeric_limits<double>::infinity();
}

const char* to_string(batch_rule b) {
  switch (b) {
    case batch_rule::full:
      return "full";
    case batch_rule::cyclic:
      return "cyclic";
    case batch_rule::shuffled:
      return "shuffled";
    case batch_rule::poisson:
      return "poisson";
    case batch_rule::one_pass:
      return "one-pass";
  }
  return "?";
}

void check_options(const noisy_gradient_options& o, const model& f) {
  constexpr const char* fn = "run_noisy_gradient";
  const std::size_t n = f.examples();
  check_at_least(fn, "steps", o.steps, 1);
  check_nonnegative(fn, "noise", o.noise);
  check_nonnegative(fn, "clip", o.clip);
  check_nonnegative(fn, "weight_decay", o.weight_decay);
  if (!(o.correlation >= 0 && o.correlation < 1))
    throw_domain_error(fn, "correlation", o.correlation, "in [0, 1)");
  if (!o.schedule) check_positive(fn, "learning_rate", o.learning_rate);
  if (!o.order.empty()) {
    if (o.order.size() != n)
      throw_domain_error(fn, "order.size()", size_text(o.order.size()), "n = " + size_text(n));
    std::vector<bool> seen(n, false);
    for (std::size_t i : o.order) {
      if (i >= n || seen[i])
        throw_domain_error(fn, "order", "not a permutation", "a permutation of 0..n-1");
      seen[i] = true;
    }
  }
  switch (o.batches) {
    case batch_rule::full:
      break;
    case batch_rule::cyclic:
      if (o.batch_size < 1 || o.batch_size > n || n % o.batch_size != 0)
        throw_domain_error(
            fn, "batch_size", size_text(o.batch_size),
            n == 1 ? std::string("1, the only divisor of the dataset size n = 1 "
                                 "(cyclic batches)")
                   : "a divisor of the dataset size n = " + size_text(n) + " (cyclic batches)");
      break;
    case batch_rule::shuffled:
      if (o.batch_size < 1 || o.batch_size > n)
        throw_domain_error(fn, "batch_size", size_text(o.batch_size),
                           "in [1, n], n = " + size_text(n) + " the dataset size");
      break;
    case batch_rule::poisson:
      if (!(o.sampling_rate > 0 && o.sampling_rate <= 1))
        throw_domain_error(fn, "sampling_rate", o.sampling_rate, "in (0, 1]");
      break;
    case batch_rule::one_pass:
      if (static_cast<std::size_t>(o.steps) > n)
        throw_domain_error(fn, "steps", format_value(static_cast<long long>(o.steps)),
                           "<= n = " + size_text(n) + " (one pass)");
      break;
  }
  const auto p = static_cast<Eigen::Index>(f.dimension());
  if (o.constraint.type == projection::kind::ball && o.constraint.center.size() != p)
    throw_domain_error(fn, "constraint.center.size()",
                       size_text(static_cast<std::size_t>(o.constraint.center.size())),
                       "the model dimension " + size_text(f.dimension()));
  if (o.constraint.type == projection::kind::block_balls && o.constraint.center.size() != p)
    throw_domain_error(fn, "constraint.center.size()",
                       size_text(static_cast<std::size_t>(o.constraint.center.size())),
                       "the model dimension " + size_text(f.dimension()));
  if (o.constraint.type == projection::kind::box && o.constraint.lower.size() != p)
    throw_domain_error(fn, "constraint.lower.size()",
                       size_text(static_cast<std::size_t>(o.constraint.lower.size())),
                       "the model dimension " + size_text(f.dimension()));
}

noisy_gradient_options lmc_options(double eta, long steps, projection constraint) {
  check_positive("lmc_options", "eta", eta);
  noisy_gradient_options o;
  o.batches = batch_rule::full;
  o.steps = steps;
  o.learning_rate = eta;
  o.noise = std::sqrt(2 / eta);  // η·σZ = √(2η) Z
  o.constraint = std::move(constraint);
  return o;
}

vector run_noisy_gradient(const model& f,
                          const noisy_gradient_options& o,
                          const_vector_ref x0,
                          const random_key& key,
                          const step_observer& observe) {
  check_options(o, f);
  const std::size_t n = f.examples();
  const auto p = static_cast<Eigen::Index>(f.dimension());
  if (x0.size() != p)
    throw_domain_error("run_noisy_gradient", "x0.size()",
                       size_text(static_cast<std::size_t>(x0.size())),
                       "the model dimension " + size_text(f.dimension()));
  random_stream batch_stream(key.seed, key.replicate, key.stream_base + 2);
  random_stream noise_stream(key.seed, key.replicate, key.stream_base + 3);

  std::vector<std::size_t> order = o.order;
  if (order.empty()) {
    order.resize(n);
    std::iota(order.begin(), order.end(), std::size_t{0});
  }
  // Work buffers, allocated once (the loop below does not allocate except for the batch lists).
  vector x = x0, g(p), gi(p), z(p), z_prev = vector::Zero(p);
  std::vector<std::size_t> batch;
  if (observe) observe(0, x);
  for (long k = 0; k < o.steps; ++k) {
    // The batch B_k and its normaliser b.
    double normaliser = 1;
    const std::vector<std::size_t>* current = &batch;
    switch (o.batches) {
      case batch_rule::full:
        current = &order;  // no copy: every example, every step
        normaliser = static_cast<double>(n);
        break;
      case batch_rule::cyclic: {
        const std::size_t l = n / o.batch_size, r = static_cast<std::size_t>(k) % l;
        batch.assign(order.begin() + static_cast<std::ptrdiff_t>(r * o.batch_size),
                     order.begin() + static_cast<std::ptrdiff_t>((r + 1) * o.batch_size));
        normaliser = static_cast<double>(o.batch_size);
        break;
      }
      case batch_rule::shuffled:
        batch = batch_stream.sample_without_replacement(n, o.batch_size);
        normaliser = static_cast<double>(o.batch_size);
        break;
      case batch_rule::poisson:
        batch = batch_stream.poisson_sample(n, o.sampling_rate);
        normaliser = !o.realised_batch_mean ? o.sampling_rate * static_cast<double>(n)
                     : batch.empty()        ? 1.0
                                            : static_cast<double>(batch.size());
        break;
      case batch_rule::one_pass:
        batch.assign(1, order[static_cast<std::size_t>(k)]);
        normaliser = 1;
        break;
    }
    f.clipped_gradient_sum(*current, x, o.clip, g, gi);
    g /= normaliser;
    if (o.weight_decay > 0) g += o.weight_decay * x;
    if (o.noise > 0) {
      noise_stream.fill_normal({z.data(), static_cast<std::size_t>(p)});
      if (o.correlation > 0) {
        g += o.noise * (z - o.correlation * z_prev);
        z_prev = z;
      } else {
        g += o.noise * z;
      }
    }
    const double eta = o.schedule ? o.schedule(k) : o.learning_rate;
    x -= eta * g;
    o.constraint.apply(x);
    if (observe) observe(k + 1, x);
  }
  return x;
}

double hsgd_sde::population_risk(const_vector_ref x) const {
  return 0.5 * ((x - target).cwiseAbs2().dot(eigenvalues) + label_noise);
}

vector run_hsgd_euler_maruyama(const hsgd_sde& sde,
                               const_vector_ref x0,
                               double horizon,
                               double dt,
                               const random_key& key,
                               const std::function<void(long, double, const vector&)>& observe) {
  constexpr const char* fn = "run_hsgd_euler_maruyama";
  const Eigen::Index d = sde.eigenvalues.size();
  if (d < 1) throw_domain_error(fn, "eigenvalues.size()", "0", ">= 1");
  for (double l : sde.eigenvalues) check_nonnegative(fn, "eigenvalue", l);
  if (sde.target.size() != d || x0.size() != d)
    throw_domain_error(fn, "target/x0 size", "not the number of eigenvalues",
                       size_text(static_cast<std::size_t>(d)));
  check_nonnegative(fn, "ridge", sde.ridge);
  check_nonnegative(fn, "label_noise", sde.label_noise);
  check_nonnegative(fn, "noise", sde.noise);
  check_positive(fn, "horizon", horizon);
  check_positive(fn, "dt", dt);
  random_stream stream(key.seed, key.replicate, key.stream_base + 3);
  const auto dd = static_cast<double>(d);
  const vector a = sde.eigenvalues.array() + sde.ridge;                  // A = Σ + δI
  const vector sigma_target = sde.eigenvalues.cwiseProduct(sde.target);  // Σ x̃
  vector x = x0, xi(d);
  if (observe) observe(0, 0.0, x);
  // Step count fixed up front (t_k = k·dt, the last step shortened to land on the horizon):
  // accumulating t += dt would drift by ~k ulp and could add a spurious tiny final step.
  const double ratio = horizon / dt;
  const auto steps = static_cast<long>(std::ceil(ratio * (1 - 1e-12)));
  double t = 0;
  for (long k = 0; k < steps; ++k) {
    const double h = k + 1 < steps ? dt : horizon - static_cast<double>(k) * dt;
    const double gamma = sde.gamma ? sde.gamma(t) : 1.0;
    const double risk = sde.population_risk(x);
    stream.fill_normal({xi.data(), static_cast<std::size_t>(d)});
    // Diffusion in the eigenbasis: diag(√((2 P λ_i + σ²)/d)) (LKSP25 §1.4, derived there).
    const vector diffusion =
        ((2 * risk * sde.eigenvalues.array() + sde.noise * sde.noise) / dd).sqrt();
    x += -gamma * h * (a.cwiseProduct(x) - sigma_target) +
         (gamma * std::sqrt(h)) * diffusion.cwiseProduct(xi);
    t = k + 1 < steps ? static_cast<double>(k + 1) * dt : horizon;
    if (observe) observe(k + 1, t, x);
  }
  return x;
}

}  // namespace dpkit::sim
