#include "dpkit/volterra/schedule.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>

#include "dpkit/core/check.hpp"

namespace dpkit::volterra {
namespace {

template <class... F>
struct overloaded : F... {
  using F::operator()...;
};
template <class... F>
overloaded(F...) -> overloaded<F...>;

void check_time(const char* fn, double t) {
  if (!(std::isfinite(t) && t >= 0)) throw_domain_error(fn, "t", t, "finite and >= 0");
}

// (1 − f^n)/(1 − f) = Σ_{k<n} f^k without cancellation for f near 1 (f ∈ (0, 1]).
double geometric_sum(double f, double n) {
  if (f == 1) return n;
  return -std::expm1(n * std::log(f)) / (1 - f);
}

// n = ⌊t/τ⌋, made consistent with the jump points n·τ (as computed by multiplication, which is
// how breakpoints() lists them): t/τ can round across an integer.
double step_index(double t, double interval) {
  double n = std::floor(t / interval);
  if ((n + 1) * interval <= t) n += 1;
  if (n > 0 && n * interval > t) n -= 1;
  return n;
}

// Index k of the table segment [t_k, t_{k+1}) containing t (the last knot for t beyond it).
std::size_t segment(const std::vector<double>& knots, double t) {
  const auto it = std::upper_bound(knots.begin(), knots.end(), t);
  return static_cast<std::size_t>(it - knots.begin()) - 1;
}

}  // namespace

schedule schedule::constant(double gamma) {
  check_positive("schedule::constant", "gamma", gamma);
  return schedule(constant_rate{gamma});
}

schedule schedule::step_decay(double gamma0, double factor, double interval) {
  constexpr const char* fn = "schedule::step_decay";
  check_positive(fn, "gamma0", gamma0);
  if (!(factor > 0 && factor <= 1)) throw_domain_error(fn, "factor", factor, "in (0, 1]");
  check_positive(fn, "interval", interval);
  return schedule(step{gamma0, factor, interval});
}

schedule schedule::polynomial_decay(double gamma0, double time_scale, double power) {
  constexpr const char* fn = "schedule::polynomial_decay";
  check_positive(fn, "gamma0", gamma0);
  check_positive(fn, "time_scale", time_scale);
  check_nonnegative(fn, "power", power);
  return schedule(polynomial{gamma0, time_scale, power});
}

schedule schedule::cosine(double gamma0, double gamma_min, double horizon) {
  constexpr const char* fn = "schedule::cosine";
  check_positive(fn, "gamma0", gamma0);
  check_bounded(fn, "gamma_min", gamma_min, 0, gamma0);
  check_positive(fn, "horizon", horizon);
  return schedule(cosine_rate{gamma0, gamma_min, horizon});
}

schedule schedule::piecewise_linear(std::vector<double> times, std::vector<double> rates) {
  constexpr const char* fn = "schedule::piecewise_linear";
  check_at_least(fn, "times.size()", static_cast<long long>(times.size()), 1);
  if (rates.size() != times.size())
    throw_domain_error(fn, "rates.size()", format_value(static_cast<long long>(rates.size())),
                       "times.size() = " + format_value(static_cast<long long>(times.size())));
  if (times[0] != 0) throw_domain_error(fn, "times[0]", times[0], "0");
  double largest = 0;
  for (std::size_t k = 0; k < times.size(); ++k) {
    check_nonnegative(fn, "rates[" + std::to_string(k) + "]", rates[k]);
    largest = std::max(largest, rates[k]);
    if (k > 0 && !(std::isfinite(times[k]) && times[k] > times[k - 1]))
      throw_domain_error(fn, "times[" + std::to_string(k) + "]", times[k],
                         "finite and > the previous time, " + format_value(times[k - 1]) +
                             " (strictly increasing)");
  }
  if (largest == 0) throw_domain_error(fn, "max(rates)", 0.0, "> 0");
  // Γ at the knots: the trapezoid rule is exact for a linear γ.
  std::vector<double> area(times.size(), 0.0);
  for (std::size_t k = 1; k < times.size(); ++k)
    area[k] = area[k - 1] + 0.5 * (rates[k - 1] + rates[k]) * (times[k] - times[k - 1]);
  return schedule(table{std::move(times), std::move(rates), std::move(area)});
}

double schedule::rate(double t) const {
  check_time("schedule::rate", t);
  return std::visit(
      overloaded{
          [](const constant_rate& c) { return c.gamma; },
          [t](const step& s) { return s.gamma0 * std::pow(s.factor, step_index(t, s.interval)); },
          [t](const polynomial& p) { return p.gamma0 * std::pow(1 + t / p.time_scale, -p.power); },
          [t](const cosine_rate& c) {
            if (t >= c.horizon) return c.gamma_min;
            return c.gamma_min + (c.gamma0 - c.gamma_min) * 0.5 *
                                     (1 + std::cos(std::numbers::pi * t / c.horizon));
          },
          [t](const table& tb) {
            const std::size_t k = segment(tb.t, t);
            if (k + 1 == tb.t.size()) return tb.g.back();
            const double w = (t - tb.t[k]) / (tb.t[k + 1] - tb.t[k]);
            return tb.g[k] + w * (tb.g[k + 1] - tb.g[k]);
          },
      },
      rep_);
}

double schedule::left_limit(double t) const {
  check_time("schedule::left_limit", t);
  if (const step* s = std::get_if<step>(&rep_)) {
    const double n = step_index(t, s->interval);
    // At a jump t = nτ the left limit belongs to the previous interval.
    if (t > 0 && n * s->interval == t) return s->gamma0 * std::pow(s->factor, n - 1);
  }
  return rate(t);  // every other schedule is continuous
}

double schedule::integral(double t) const {
  check_time("schedule::integral", t);
  return std::visit(overloaded{
                        [t](const constant_rate& c) { return c.gamma * t; },
                        [t](const step& s) {
                          // Γ = γ0 τ (1 − f^n)/(1 − f) + γ0 f^n (t − nτ), n = ⌊t/τ⌋.
                          const double n = step_index(t, s.interval);
                          return s.gamma0 * (s.interval * geometric_sum(s.factor, n) +
                                             std::pow(s.factor, n) * (t - n * s.interval));
                        },
                        [t](const polynomial& p) {
                          // ∫_0^t γ0 (1 + s/t0)^{−p} ds = γ0 t0 ((1 + t/t0)^{1−p} − 1)/(1 − p)
                          //                              = γ0 t0 expm1((1 − p) L)/(1 − p),  L =
                          //                              log1p(t/t0);
                          // the expm1 form is exact as p → 1, where it tends to γ0 t0 L.
                          const double L = std::log1p(t / p.time_scale);
                          const double a = 1 - p.power;
                          const double f = a == 0 ? L : std::expm1(a * L) / a;
                          return p.gamma0 * p.time_scale * f;
                        },
                        [t](const cosine_rate& c) {
                          // ∫_0^t (1 + cos(πs/T))/2 ds = (t + (T/π) sin(πt/T))/2.
                          const double s = std::min(t, c.horizon);
                          const double bump =
                              0.5 * (s + c.horizon / std::numbers::pi *
                                             std::sin(std::numbers::pi * s / c.horizon));
                          return c.gamma_min * t + (c.gamma0 - c.gamma_min) * bump;
                        },
                        [t](const table& tb) {
                          const std::size_t k = segment(tb.t, t);
                          const double dt = t - tb.t[k];
                          if (k + 1 == tb.t.size()) return tb.area[k] + tb.g.back() * dt;
                          const double slope = (tb.g[k + 1] - tb.g[k]) / (tb.t[k + 1] - tb.t[k]);
                          return tb.area[k] + tb.g[k] * dt + 0.5 * slope * dt * dt;
                        },
                    },
                    rep_);
}

std::vector<double> schedule::breakpoints(double t_end) const {
  check_time("schedule::breakpoints", t_end);
  std::vector<double> b;
  if (const step* s = std::get_if<step>(&rep_)) {
    if (s->factor < 1) {
      // Each decay is a breakpoint the solvers stop at: at most 1e5 of them, a resource limit
      // (a probe's interval 1e-300 asked for 1e300 and ran out of memory).
      if (t_end / s->interval > 1e5)
        throw_domain_error("schedule::breakpoints", "interval", s->interval,
                           ">= horizon / 1e5 = " + format_value(t_end / 1e5) +
                               " (at most 100000 decay steps before the horizon " +
                               format_value(t_end) + ")");
      for (double k = 1; k * s->interval < t_end; ++k) b.push_back(k * s->interval);
    }
  } else if (const cosine_rate* c = std::get_if<cosine_rate>(&rep_)) {
    if (c->horizon < t_end) b.push_back(c->horizon);
  } else if (const table* tb = std::get_if<table>(&rep_)) {
    for (std::size_t k = 1; k < tb->t.size() && tb->t[k] < t_end; ++k) b.push_back(tb->t[k]);
  }
  return b;
}

double schedule::max_rate(double t_end) const {
  check_time("schedule::max_rate", t_end);
  return std::visit(overloaded{
                        [](const constant_rate& c) { return c.gamma; },
                        [](const step& s) { return s.gamma0; },  // factor ≤ 1
                        [](const polynomial& p) { return p.gamma0; },
                        [](const cosine_rate& c) { return c.gamma0; },
                        [&](const table& tb) {
                          double m = rate(t_end);
                          for (std::size_t k = 0; k < tb.t.size() && tb.t[k] <= t_end; ++k)
                            m = std::max(m, tb.g[k]);
                          return m;
                        },
                    },
                    rep_);
}

bool schedule::is_constant() const {
  return std::holds_alternative<constant_rate>(rep_);
}

std::string schedule::describe() const {
  return std::visit(
      overloaded{
          [](const constant_rate& c) { return "constant(gamma=" + format_value(c.gamma) + ")"; },
          [](const step& s) {
            return "step_decay(gamma0=" + format_value(s.gamma0) +
                   ", factor=" + format_value(s.factor) + ", interval=" + format_value(s.interval) +
                   ")";
          },
          [](const polynomial& p) {
            return "polynomial_decay(gamma0=" + format_value(p.gamma0) +
                   ", time_scale=" + format_value(p.time_scale) +
                   ", power=" + format_value(p.power) + ")";
          },
          [](const cosine_rate& c) {
            return "cosine(gamma0=" + format_value(c.gamma0) +
                   ", gamma_min=" + format_value(c.gamma_min) +
                   ", horizon=" + format_value(c.horizon) + ")";
          },
          [](const table& tb) {
            return "piecewise_linear(" + std::to_string(tb.t.size()) + " knots)";
          },
      },
      rep_);
}

}  // namespace dpkit::volterra
