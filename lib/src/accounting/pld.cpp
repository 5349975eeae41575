#include "dpkit/accounting/pld.hpp"

#include <fftw3.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <limits>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>

#include "dpkit/core/check.hpp"
#include "dpkit/core/log_space.hpp"
#include "dpkit/core/tolerance.hpp"

namespace dpkit::accounting {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kPi = 3.14159265358979323846;

// ---------------------------------------------------------------------------------------
// log E[e^{λY}] of a discretised step (finite part): with ℓ_k = ℓ_0 + k·h and r = e^{λh},
// Σ m_k e^{λℓ_k} is a polynomial in r, evaluated by Horner's rule in the direction where
// powers of r shrink (no overflow for any λ). Every term and factor is ≥ 0 (no cancellation):
// the sum's relative error is at most about 2n·2⁻⁵³, whatever the order of the operations.
//
// Horner's rule split into kChains interleaved chains (chain j takes every kChains-th term, in
// powers of x^kChains; the chains are joined by one last Horner step in x): one multiply-add
// per point as before, but the chains are independent, so they run side by side instead of one
// after another. The searches in `compose` evaluate K(λ) hundreds to thousands of times per
// query; with one chain this loop was 55 % of the time of full domain-sweep case 72 096's δ
// queries (4 replace-one steps at σ = 0.0046: 3 762 evaluations over millions of points, 150 s
// a query; 91 s with 8 chains) and 13 % of the full tier's time. The padding terms in front are
// zeros at the top powers, which leave the sum unchanged.
constexpr std::size_t kChains = 8;
double horner_sum(const std::vector<double>& mass, double x, bool forward) {
  const std::size_t n = mass.size();
  // Term i (0 ≤ i < n) in processing order has power n − 1 − i of x; padded in front to a
  // multiple of kChains with zero terms (the highest powers).
  const std::size_t pad = (kChains - n % kChains) % kChains;
  auto term = [&](std::size_t i) {  // i counts the padded terms
    if (i < pad) return 0.0;
    const std::size_t k = forward ? i - pad : n - 1 - (i - pad);
    return std::max(mass[k], 0.0);
  };
  double xc = 1;
  for (std::size_t j = 0; j < kChains; ++j) xc *= x;
  std::array<double, kChains> a{};
  const std::size_t total = n + pad;
  std::size_t i = 0;
  for (; i < kChains && i < total; ++i) a[i] = term(i);
  if (forward) {
    for (; i < total; i += kChains)
      for (std::size_t j = 0; j < kChains; ++j) a[j] = a[j] * xc + std::max(mass[i + j - pad], 0.0);
  } else {
    for (; i < total; i += kChains)
      for (std::size_t j = 0; j < kChains; ++j)
        a[j] = a[j] * xc + std::max(mass[n - 1 - (i + j - pad)], 0.0);
  }
  // Chain j's last term sits at power kChains − 1 − j.
  double s = 0;
  for (std::size_t j = 0; j < kChains; ++j) s = s * x + a[j];
  return s;
}
double log_mgf(const discrete_pld& d, double lambda) {
  const std::size_t n = d.mass.size();
  if (lambda > 0)  // Σ m_k r^k = r^{n−1} Σ m_k r^{−(n−1−k)}
    return std::log(horner_sum(d.mass, std::exp(-lambda * d.h), true)) + lambda * d.loss(n - 1);
  return std::log(horner_sum(d.mass, std::exp(lambda * d.h), false)) + lambda * d.loss(0);
}

struct fftw_deleter {
  void operator()(void* p) const { fftw_free(p); }
};

// Per-thread FFT buffers and plans, cached by size (FFTW's new-array execute interface accepts
// any buffers with fftw_malloc's alignment). FFTW's planner is not thread-safe, so planning
// and destruction are serialised; executing plans is thread-safe.
std::mutex& planner_mutex() {
  static std::mutex m;
  return m;
}

struct fft_workspace {
  std::size_t n = 0;
  std::unique_ptr<double, fftw_deleter> real;
  std::unique_ptr<fftw_complex, fftw_deleter> spectrum;
  std::vector<std::complex<double>> product;
  std::vector<double> spectrum_error;  // round-off bound per coefficient
  fftw_plan forward = nullptr, backward = nullptr;
  fft_workspace() = default;
  fft_workspace(const fft_workspace&) = delete;
  fft_workspace& operator=(const fft_workspace&) = delete;
  ~fft_workspace() {
    if (forward == nullptr) return;
    std::lock_guard<std::mutex> lock(planner_mutex());
    fftw_destroy_plan(forward);
    fftw_destroy_plan(backward);
  }
};

fft_workspace& workspace(std::size_t n) {
  // A few sizes per thread (each pass uses one or two); the largest are evicted first, and
  // those of 2^18 points or more (9 MB and up; planning them with FFTW_ESTIMATE costs far less
  // than one transform) whenever another size is asked for: a run refined from 2^19 to 2^21
  // points kept 42 MB of smaller buffers besides the 56 MB it used.
  thread_local std::vector<std::unique_ptr<fft_workspace>> cache;
  for (auto& w : cache)
    if (w->n == n) return *w;
  std::erase_if(cache, [](const auto& w) { return w->n >= (std::size_t{1} << 18); });
  if (cache.size() >= 4) {
    auto largest = std::max_element(cache.begin(), cache.end(),
                                    [](const auto& a, const auto& b) { return a->n < b->n; });
    cache.erase(largest);
  }
  auto w = std::make_unique<fft_workspace>();
  w->real.reset(static_cast<double*>(fftw_malloc(sizeof(double) * n)));
  w->spectrum.reset(static_cast<fftw_complex*>(fftw_malloc(sizeof(fftw_complex) * (n / 2 + 1))));
  if (!w->real || !w->spectrum) throw std::bad_alloc();
  {
    std::lock_guard<std::mutex> lock(planner_mutex());
    w->forward =
        fftw_plan_dft_r2c_1d(static_cast<int>(n), w->real.get(), w->spectrum.get(), FFTW_ESTIMATE);
    w->backward =
        fftw_plan_dft_c2r_1d(static_cast<int>(n), w->spectrum.get(), w->real.get(), FFTW_ESTIMATE);
  }
  w->n = n;
  cache.push_back(std::move(w));
  return *cache.back();
}

}  // namespace

namespace {

// Golden-section search for the minimiser of f over [lo, hi] (unimodal f). 24 steps narrow the
// bracket to 0.618^24 ≈ 1e-5 of its width (≈ 2e-4 in log λ over the ≈ 18-wide range searched)
// — ample where any abscissa gives a valid bound and the search only tightens it.
// Written here rather than boost::math::tools::brent_find_minima (used for the RDP orders):
// f is +inf wherever the cumulant leaves its domain, Brent starts by evaluating the upper end
// and fits parabolas through the values it has, which inf turns into NaN steps; golden section
// never evaluates the ends and only compares values. Any λ gives a certified bound, so the
// certified numbers do not depend on this choice, only on how tight they are.
template <class F>
double golden_min(F&& f, double lo, double hi) {
  const double g = 0.6180339887498949;
  double a = lo, b = hi, c = b - g * (b - a), d = a + g * (b - a);
  double fc = f(c), fd = f(d);
  for (int i = 0; i < 24; ++i) {
    if (fc < fd) {
      b = d, d = c, fd = fc, c = b - g * (b - a), fc = f(c);
    } else {
      a = c, c = d, fc = fd, d = a + g * (b - a), fd = f(d);
    }
  }
  return fc < fd ? c : d;
}

// Floating-point slack, relative, on both sides of every bound. The constructions are exact in
// exact arithmetic; the FFT's round-off is bounded separately (compose). What remains is the
// rounding of the discretisation itself — cell masses as differences of CDFs, the
// mean-preserving split, the tilt's logarithms — and of the final sums. That part is measured,
// not proven: at most 2e-13 relative against the 24-digit references of one to three steps
// (data/reference/pld_*). A relative error ρ per step becomes at most (1 + ρ)^T − 1 ≈ Tρ after
// T steps (every composed mass is a sum of products of T step masses), so the slack is
// max(1e-9, T·1e-12): 5× the measured per-step error, with a floor that leaves a wide margin.
constexpr double kFloatingSlack = 1e-9;
constexpr double kFloatingSlackPerStep = 1e-12;

// Error of one level of an FFT's butterflies, in ulp of the ℓ₁ norm of its input (see compose).
constexpr double kFftLevelUlps = 8;

// Tail level (target δ, or the Chernoff bound at the queried ε) below which compositions are
// tilted.
constexpr double kTiltBelow = 1e-9;

// The λ searches run over [1e-4, 1e12], cut to λ·|ℓ| ≤ kMaxExponent below. Small losses need
// large λ: at q = 1e-4, σ = 22.43 one step's losses are ~1e-4, and δ = 1e-50 over two steps
// needs λ ≈ 1.4e6 to lift the crossing above the FFT's round-off. With λ ≤ 1e4 (and λ ≤ 1e6
// whatever the losses, the cap below taken against losses of at least 1) that bracket stayed
// about [3.4e-5, 2e-4 to 4e-4] on every grid, the exact ε being 1.10426e-4; it is now
// [1.1042513e-4, 1.1042762e-4].
constexpr double kLogLambdaMin = -9.210340371976182;  // log 1e-4
constexpr double kLogLambdaMax = 27.631021115928547;  // log 1e12

// The largest λ·|ℓ| any exponent may reach. Tilts and Chernoff bounds form differences such as
// K(λ) − λℓ, each term up to λ·|ℓ|, rounded to 1.1e-16 of that: at 1e6 the difference errs by
// ~1e-10, inside the floating slack. The λ range [1e-4, 1e4] is cut down to it for losses
// beyond 100: at σ = 3e-10 the losses reach 5.6e20, and with λ ≥ 1e-4 the tilted masses were
// rescaled by e^{K − λℓ} with both terms ~5e16 — wrong by factors e^{±8} — and the certified
// lower bound came out 14 times the exact ε.
constexpr double kMaxExponent = 1e6;

}  // namespace

// FFT sizes are powers of two: FFTW plans them fastest (planning a size like 2⁸·3⁴·5 costs
// ~11 ms even with FFTW_ESTIMATE — measured — more than the transform itself), and the few
// sizes recur, so plans are cached. The padding costs at most a factor 2 in a ~1 ms FFT.
std::size_t fft_size_for(std::size_t points) {
  std::size_t m = 64;
  while (m < points) m *= 2;
  return m;
}

// compose's refusal of a grid too fine for its lattice indices (length_error: the accountant
// coarsens the grid).
constexpr const char* kIndicesBeyondDoubles =
    "compose: the composed lattice indices at this grid spacing are beyond 2^53 (a coarser grid)";

composed_pld compose(std::span<const pld_factor> factors,
                     double tail_bound,
                     std::size_t max_fft_size,
                     const compose_focus& focus) {
  if (factors.empty()) throw_domain_error("compose", "factors.size()", "0", ">= 1");
  if (!(tail_bound > 0 && tail_bound <= 1e-3))
    throw_domain_error("compose", "tail_bound", tail_bound, "in (0, 1e-3]");
  if (!std::isnan(focus.epsilon)) check_finite("compose", "focus.epsilon", focus.epsilon);
  if (!std::isnan(focus.delta)) check_open_probability("compose", "focus.delta", focus.delta);
  if (!std::isnan(focus.tolerance) && !(focus.tolerance > 0 && focus.tolerance < 1))
    throw_domain_error("compose", "focus.tolerance", focus.tolerance, "in (0, 1) or NaN");
  const pld_side side = factors[0].pld->side;
  const double h = factors[0].pld->h;
  composed_pld out;
  out.side = side;
  out.h = h;
  double log_no_infinity = 0;  // log P(no factor at +∞)
  long long base = 0;
  double smallest = 0, largest = 0, mean = 0;
  std::size_t longest = 1;
  for (const pld_factor& f : factors) {
    if (f.pld == nullptr || f.pld->side != side || f.pld->h != h)
      throw_domain_error("compose", "factors", "inconsistent", "one side and one grid spacing");
    check_at_least("compose", "count", f.count, 1);
    const double c = static_cast<double>(f.count);
    out.offset += c * f.pld->offset;
    // Checked: the composed lattice indices must stay exact as doubles (below 2^53), as the
    // window's placement and the losses go through doubles; the accountant's lattice_floor
    // keeps them below. Beyond, adjacent points merge (and past 2^63 the sum overflows).
    long long shifted = 0;
    if (__builtin_mul_overflow(f.count, f.pld->first, &shifted) ||
        __builtin_add_overflow(base, shifted, &base))
      throw std::length_error(kIndicesBeyondDoubles);
    smallest += c * f.pld->loss(0);
    largest += c * f.pld->loss(f.pld->mass.size() - 1);
    longest = std::max(longest, f.pld->mass.size());
    log_no_infinity += c * std::log1p(-f.pld->infinity_mass);
    double m = 0, total = 0;
    for (std::size_t k = 0; k < f.pld->mass.size(); ++k) {
      m += std::max(f.pld->mass[k], 0.0) * f.pld->loss(k);
      total += std::max(f.pld->mass[k], 0.0);
    }
    mean += total > 0 ? c * m / total : 0.0;
  }
  out.infinity_mass = -std::expm1(log_no_infinity);
  if (!(std::max(std::abs(smallest), std::abs(largest)) / h < 0x1p53))
    throw std::length_error(kIndicesBeyondDoubles);
  // The λ range of every search below (kMaxExponent): λ·|ℓ| ≤ 1e6 on every loss an exponent
  // meets — one step's (the cumulants and the tilted masses) and the composed losses of the
  // window (the Chernoff bounds at its edges and the final rescaling), checked in `build`. (It
  // was the whole composed range, T times one step's: at T = 1e7 that capped λ at 3e-3, and
  // the Chernoff window then needed an FFT beyond the limit — [44.03, 44.41] at σ = 0.8,
  // q = 1e-3, where the window at λ ~ 1 needs 2^21 points.) The losses as they are, however
  // small (kLogLambdaMax).
  double step_span = 0;
  for (const pld_factor& f : factors)
    step_span = std::max({step_span, std::abs(f.pld->loss(0)),
                          std::abs(f.pld->loss(f.pld->mass.size() - 1))});
  auto lambda_range = [](double extent) {
    const double hi = std::min(kLogLambdaMax, std::log(kMaxExponent / extent));
    return std::pair{std::min(kLogLambdaMin, hi - 18.420680743952367), hi};
  };
  const auto [log_lambda_min, log_lambda_max] = lambda_range(step_span);
  double steps = 0;
  for (const pld_factor& f : factors) steps += static_cast<double>(f.count);
  out.floating_slack = std::max(kFloatingSlack, kFloatingSlackPerStep * steps);

  // K(λ): the exact cumulant generating function of the discretised composition (finite part).
  auto cumulant = [&](double lambda) {
    double k = 0;
    for (std::size_t i = 0; i < factors.size(); ++i)
      k += static_cast<double>(factors[i].count) * log_mgf(*factors[i].pld, lambda);
    return k;
  };

  // Exponential tilt λ_t ≥ 0 (see pld.hpp): the FFT then works on a distribution centred where
  // the query needs accuracy, so round-off and aliasing errors, relative to the tilted peak,
  // become e^{K(λ_t) − λ_t ℓ} times smaller in original units at losses ℓ above the focus.
  // log C_λ: (1 − e^{−x})₊ ≤ C_λ e^{λx} for all x, C_λ = (λ/(1+λ))^λ/(1+λ), so that
  // δ(ε) = E[(1 − e^{ε−S})₊] ≤ C_λ e^{K(λ) − λε}: a Chernoff bound on δ itself.
  auto log_c = [](double lambda) {
    return lambda * std::log(lambda / (1 + lambda)) - std::log1p(lambda);
  };
  // Tilt only where it is needed: the tilted law is wider than the plain one (the subsampled
  // losses' higher cumulants grow with λ), which costs up to a doubling of the FFT, and finding
  // λ costs ~50 evaluations of K. ε queries: below δ = 1e-9 only (measured on G(2): relative
  // gap 5e-6 with or without tilt at δ = 1e-8, 1.6e-5 vs 5e-6 at 1e-10, 9e-4 vs 5e-6 at
  // 1e-12). δ queries: the plain composition is tried first and kept unless its corrections
  // at ε exceed 1e-4 of its δ (the Chernoff level below can exceed δ(ε) by orders of magnitude:
  // 1e-9 for δ = 9e-12 at q = 0.001, σ = 0.8, so it cannot decide).
  auto delta_focus_tilt = [&] {
    // ε(δ) ≤ a = min_λ (K(λ) + log C_λ − log δ)/λ; the minimiser centres the tilted law near
    // the crossing — closer than the plain tail bound P(S ≥ a) ≤ δ, which overshoots where
    // S − ε is small (losses with a hard upper edge, e.g. the add direction), and would
    // amplify errors there by e^{λ(a − ε)}.
    const double log_delta = std::log(focus.delta);
    return std::exp(golden_min(
        [&](double t) {
          const double lambda = std::exp(t), k = cumulant(lambda);
          return std::isfinite(k) ? (k + log_c(lambda) - log_delta) / lambda : kInf;
        },
        log_lambda_min, log_lambda_max));
  };
  auto epsilon_focus_tilt = [&] {
    // δ(ε) ≤ min_λ C_λ e^{K(λ) − λε}; the minimiser tilts the law onto the losses above ε
    // that make up δ(ε).
    return std::exp(golden_min(
        [&](double t) {
          const double lambda = std::exp(t), k = cumulant(lambda);
          return std::isfinite(k) ? k + log_c(lambda) - lambda * focus.epsilon : kInf;
        },
        log_lambda_min, log_lambda_max));
  };
  auto build = [&](double tilt, composed_pld result) {
    // Window [a_lo, a_hi] of the tilted composition from Chernoff: P̃(S ≥ a) ≤ e^{K̃(λ) − λa},
    // P̃(S ≤ a) ≤ e^{K̃(−λ) + λa}; a_hi = min_λ (K̃(λ) − log τ)/λ, a_lo = max_λ (log τ − K̃(−λ))/λ.
    // The λ's (tilt included) times the window's losses stay within kMaxExponent: where they
    // would not, the range is cut to the window found and the window found again (a smaller λ
    // only widens it, so at most a few rounds; at worst the whole composed range's cut).
    const double log_tau = std::log(tail_bound);
    double lambda_min = log_lambda_min, lambda_max = log_lambda_max;
    double k_tilt = 0, lambda_hi = 0, lambda_lo = 0, k_plus = kInf, k_minus = kInf;
    double a_hi = largest, a_lo = smallest;
    auto tilted_cumulant = [&](double lambda) { return cumulant(lambda + tilt) - k_tilt; };
    for (int round = 0;; ++round) {
      tilt = std::min(tilt, std::exp(lambda_max));
      k_tilt = tilt > 0 ? cumulant(tilt) : 0.0;
      lambda_hi = std::exp(golden_min(
          [&](double t) {
            const double lambda = std::exp(t), k = tilted_cumulant(lambda);
            return std::isfinite(k) ? (k - log_tau) / lambda : kInf;
          },
          lambda_min, lambda_max));
      lambda_lo = std::exp(golden_min(
          [&](double t) {  // negated, so that golden_min minimises
            const double lambda = std::exp(t), k = tilted_cumulant(-lambda);
            return std::isfinite(k) ? -(log_tau - k) / lambda : kInf;
          },
          lambda_min, lambda_max));
      k_plus = tilted_cumulant(lambda_hi);
      k_minus = tilted_cumulant(-lambda_lo);
      a_hi = largest;
      a_lo = smallest;
      if (std::isfinite(k_plus)) a_hi = std::min(a_hi, (k_plus - log_tau) / lambda_hi);
      if (std::isfinite(k_minus)) a_lo = std::max(a_lo, (log_tau - k_minus) / lambda_lo);
      // δ queries: the window must reach below the queried ε (the mass below it is certified
      // but counted whole).
      if (!std::isnan(focus.epsilon))
        a_lo = std::min(a_lo, std::max(focus.epsilon - h, smallest));
      if (a_lo > a_hi) a_lo = a_hi = 0.5 * (a_lo + a_hi);
      // The window's edges, one cell out (top and bottom below), and the losses past them
      // that the mass bounds reach.
      // After a few rounds, the whole composed range (every loss: the cut before the window
      // was used).
      const double extent =
          round == 4 ? std::max({std::abs(smallest), std::abs(largest), step_span}) + 2 * h
                     : std::max({std::abs(a_lo), std::abs(a_hi), step_span}) + 2 * h;
      const double reach = (std::max({tilt, lambda_hi, lambda_lo}) + tilt) * extent;
      if (reach <= kMaxExponent || round == 5) break;
      const auto [lo, hi] = lambda_range(2 * extent);  // λ_hi + tilt ≤ 2·max λ
      lambda_min = std::min(lambda_min, lo);
      lambda_max = std::min(lambda_max, hi);
    }
    result.tilt = tilt;
    result.log_scale = k_tilt;
    long long j_lo = static_cast<long long>(std::floor((a_lo - result.offset) / h));
    const long long j_hi = static_cast<long long>(std::ceil((a_hi - result.offset) / h));
    const std::size_t needed = static_cast<std::size_t>(std::max<long long>(j_hi - j_lo + 1, 1));
    const std::size_t n = fft_size_for(std::max(needed, longest));
    if (n > max_fft_size)
      throw fft_limit_error("the composed distribution of this run needs an FFT of " +
                                std::to_string(n) + " points, more than the FFT limit " +
                                std::to_string(max_fft_size) +
                                " (a coarser accuracy, a larger FFT limit or the RDP accountant "
                                "answers it)",
                            static_cast<double>(n));
    result.first = j_lo;
    result.fft_size = n;
    result.span = static_cast<double>(std::max(needed, longest)) * h;
    // Certified bounds on the mass outside the final window [first, first + n − 1].
    const double top =
        (static_cast<double>(j_lo + static_cast<long long>(n) - 1) + 0.5) * h + result.offset;
    const double bottom = (static_cast<double>(j_lo) - 0.5) * h + result.offset;
    // Tilted mass outside (it may wrap around in the circular convolution): the optimal λ's
    // certify the edges too (each is a valid Chernoff exponent).
    const double tilted_above = top >= largest || !std::isfinite(k_plus)
                                    ? (top >= largest ? 0.0 : 1.0)
                                    : std::exp(std::min(0.0, k_plus - lambda_hi * top));
    const double tilted_below = bottom <= smallest || !std::isfinite(k_minus)
                                    ? (bottom <= smallest ? 0.0 : 1.0)
                                    : std::exp(std::min(0.0, k_minus + lambda_lo * bottom));
    result.wrap_bound = tilted_above + tilted_below;
    // Original mass above the top: λ = λ_hi + λ_t in P(S ≥ a) ≤ e^{K(λ) − λa}.
    if (top < largest) {
      const double k = cumulant(lambda_hi + tilt);
      result.above_bound =
          std::isfinite(k) ? std::exp(std::min(0.0, k - (lambda_hi + tilt) * top)) : 1.0;
    }
    // Original mass below the bottom (it matters to upper bounds at ε below the window);
    // without a tilt it is the tilted bound already.
    if (tilt == 0) {
      result.below_bound = tilted_below;
    } else if (bottom > smallest) {
      const double mu = std::exp(golden_min(
          [&](double t) {
            const double lambda = std::exp(t), k = cumulant(-lambda);
            return std::isfinite(k) ? k + lambda * bottom : kInf;
          },
          lambda_min, lambda_max));
      const double k = cumulant(-mu);
      result.below_bound = std::isfinite(k) ? std::exp(std::min(0.0, k + mu * bottom)) : 1.0;
    }

    // FFT: product of the (tilted) factors' transforms, each raised to its count.
    //
    // Round-off is bounded a priori, component by component (docs/guarantees.md). A transform
    // of n = 2^L points is L levels of butterflies; each level adds an error of at most η times
    // the ℓ₁ norm of its inputs and never amplifies earlier errors (|twiddle| = 1), so every
    // computed coefficient is within E = L·η·‖x‖₁ of the exact one (Higham 2002, Accuracy and
    // Stability of Numerical Algorithms, §24.1, for radix 2: η ≈ 2.2 ulp with exact twiddles).
    // FFTW's codelets are other Cooley–Tukey factorisations with per-level errors of the same
    // order; dpkit assumes η = kFftLevelUlps = 8 ulp. A coefficient X raised to the count c then
    // errs by at most c·E·(|X̂| + E)^{c−1} (|X| ≤ ‖x‖₁ ≤ 1), plus the rounding of log, exp and
    // the trigonometry of the power (relative c·(|log|X̂|| + 6) ulp) and of the products; the
    // inverse transform adds its own L·η·‖P̂‖₁ and passes the spectrum's errors on with weight
    // 1/n each. The result bounds every output point; the negative outputs the exact result
    // would not have give an independent (smaller) estimate, and the larger of the two is used.
    const std::size_t nc = n / 2 + 1;
    fft_workspace& w = workspace(n);
    double* real = w.real.get();
    fftw_complex* spectrum = w.spectrum.get();
    std::vector<std::complex<double>>& product = w.product;
    product.assign(nc, 1.0);
    std::vector<double>& spectrum_error = w.spectrum_error;  // absolute, per coefficient
    spectrum_error.assign(nc, 0.0);
    const double levels = std::log2(static_cast<double>(n));
    for (const pld_factor& f : factors) {
      std::fill(real, real + n, 0.0);
      double input_ulps = 0;  // rounding of the inputs themselves, relative
      if (tilt > 0) {
        // m̃_k = m_k e^{λ_t ℓ_k − κ}, κ = log Σ m_k e^{λ_t ℓ_k}: a probability vector again.
        const double kappa = log_mgf(*f.pld, tilt);
        for (std::size_t k = 0; k < f.pld->mass.size(); ++k) {
          const double m = f.pld->mass[k];
          real[k] = m > 0 ? std::exp(std::log(m) + tilt * f.pld->loss(k) - kappa) : 0.0;
        }
        input_ulps = 4;  // log, the sum, exp: relative to each entry
      } else {
        std::copy(f.pld->mass.begin(), f.pld->mass.end(), real);
      }
      double l1 = 0;
      for (std::size_t k = 0; k < n; ++k) l1 += std::abs(real[k]);
      const double coefficient_error =
          (kFftLevelUlps * levels + input_ulps + 2) * tol::kMachineEps * l1;
      fftw_execute_dft_r2c(w.forward, real, spectrum);
      const double c = static_cast<double>(f.count);
      // |x|^c underflows below e^{−745} when |x|² < e^{−1490/c}: skip log and trigonometry there
      // (most coefficients at large c, since |x| < 1 away from frequency 0).
      const double r2_min = std::exp(-1490.0 / c);
      // The error bound c·E·(|X̂| + E)^{c−1} of a coefficient (the other factors' moduli are
      // bounded by 1 here, |X_g| ≤ ‖x_g‖₁ ≤ 1); for the coefficients below r2_min, one bound
      // for all: |X̂| < e^{−745/c}.
      auto power_error = [&](double log_reach) {
        return c * coefficient_error * (c == 1 ? 1.0 : std::exp((c - 1) * log_reach));
      };
      const double skipped_error =
          power_error(std::min(0.0, std::log(std::exp(-745.0 / c) + coefficient_error)));
      for (std::size_t k = 0; k < nc; ++k) {
        const std::complex<double> x(spectrum[k][0], spectrum[k][1]);
        const double r2 = std::norm(x);
        // r2 = 0 takes this branch too: at c = 1, r2_min = e^{−1490} rounds to 0, and below,
        // the rounding term |X̂^c|·(c(½|log r2| + 6) + 4) ulp would be 0·∞ (a NaN that once
        // made the whole upper bound NaN).
        if (!(r2 > 0) || r2 < r2_min) {
          spectrum_error[k] += skipped_error;
          product[k] = 0.0;
          continue;
        }
        const double log_r2 = std::log(r2), modulus = std::sqrt(r2);
        // log(|X̂| + E) ≤ log|X̂| + E/|X̂| (log(1 + t) ≤ t), capped at 0 (|X| ≤ 1).
        spectrum_error[k] += power_error(std::min(0.0, 0.5 * log_r2 + coefficient_error / modulus));
        if (product[k] == 0.0) continue;
        product[k] *= std::polar(std::exp(0.5 * c * log_r2), c * std::arg(x));
        // The rounding of this power and product, relative to the partial product; later
        // factors (|X_g|^c ≤ 1) do not amplify it.
        spectrum_error[k] +=
            std::abs(product[k]) * (c * (0.5 * std::abs(log_r2) + 6) + 4) * tol::kMachineEps;
      }
    }
    // The full spectrum has the n/2 − 1 inner coefficients twice (Hermitian symmetry). Each
    // coefficient's error e_k reaches a sum of output points through the inverse transform;
    // roundoff_bound weighs it by min(Σa, max a / sin(πk/n)) (prefix and tail sums here).
    double product_l1 = 0;
    const double inv_n = 1.0 / static_cast<double>(n);
    result.spectral_prefix.assign(nc + 1, 0.0);
    result.spectral_tail.assign(nc + 1, 0.0);
    for (std::size_t k = 0; k < nc; ++k) {
      spectrum[k][0] = product[k].real();
      spectrum[k][1] = product[k].imag();
      const double weight = k == 0 || k == nc - 1 ? 1.0 : 2.0;
      const double modulus = std::abs(product[k]);
      product_l1 += weight * modulus;
      // 1.01: second-order terms (products of two error bounds, each ≲ 1e-6 relative).
      const double e = 1.01 * weight * spectrum_error[k] * inv_n;
      result.spectral_prefix[k + 1] = result.spectral_prefix[k] + e;
      // 1/sin x ≤ 1/(x − x³/6) on (0, π/2] (exact to 8 % at π/2, to x²/6 near 0).
      const double x = kPi * static_cast<double>(k) * inv_n;
      result.spectral_tail[k] = k == 0 ? 0.0 : e / (x - x * x * x / 6);
    }
    for (std::size_t k = nc; k-- > 1;) result.spectral_tail[k] += result.spectral_tail[k + 1];
    // The prefix and tail sums round by at most nc ulp relative (≤ 2e-9 for n = 2^24): within
    // the factor 1.01 above.
    fftw_execute_dft_c2r(w.backward, spectrum, real);
    // Unwrap: array position k holds lattice index base + k (mod n); the window starts at j_lo.
    result.mass.resize(n);
    const long long shift =
        ((j_lo - base) % static_cast<long long>(n) + static_cast<long long>(n)) %
        static_cast<long long>(n);
    double most_negative = 0, largest_output = 0;
    for (std::size_t i = 0, k = static_cast<std::size_t>(shift); i < n;
         ++i, k = k + 1 == n ? 0 : k + 1) {
      const double v = real[k] * inv_n;
      result.mass[i] = v;
      most_negative = std::min(most_negative, v);
      largest_output = std::max(largest_output, std::abs(v));
    }
    // Round-off per point (tilted units) besides the spectrum's: the inverse transform's own
    // (L·η·‖P̂‖₁/n) and the scaling's — or, if larger, the largest negative value, which the
    // exact result cannot contain (an independent floor in case the assumptions fail).
    const double pointwise = (kFftLevelUlps * levels + 2) * tol::kMachineEps * product_l1 * inv_n +
                             2 * tol::kMachineEps * largest_output;
    result.roundoff = std::max(pointwise, -most_negative);
    return result;
  };
  if (factors.size() == 1 && factors[0].count == 1) {
    // One step: the discretised step itself, exactly — no window, no FFT, no round-off.
    const discrete_pld& d = *factors[0].pld;
    out.first = d.first;
    out.mass = d.mass;
    out.fft_size = 0;
    return out;
  }
  const double tolerance = std::isnan(focus.tolerance) ? 1e-4 : focus.tolerance;
  if (!std::isnan(focus.delta)) {
    if (focus.delta < kTiltBelow || focus.tilt_first) return build(delta_focus_tilt(), out);
    // Above 1e-9 the plain composition usually suffices; but its round-off bound, summed over
    // every point above the crossing, can exceed δ itself for long runs (T = 1e5: ~2e-13 per
    // point over 1e6 points): tilt then, as for ε queries.
    composed_pld plain = build(0, out);
    const double points = static_cast<double>(plain.mass.size());
    const double fixed = plain.wrap_bound + plain.above_bound;
    if (plain.roundoff_bound(points, 1.0) + fixed <= tolerance * focus.delta) return plain;
    const double crossing = plain.epsilon(focus.delta);
    plain.focus_delta = focus.delta;  // the query will ask again: keep the answer
    plain.focus_epsilon = crossing;
    if (!std::isfinite(crossing)) return build(delta_focus_tilt(), out);
    const double above =
        std::clamp(points - std::ceil((crossing - plain.loss(0)) / h), 0.0, points);
    const double correction = plain.roundoff_bound(above, 1.0) + fixed;
    // What the correction costs in ε: Δε ≈ correction / |δ'(ε)|, with the slope read off the
    // plain composition one cell above the crossing. Keep the plain composition while that is
    // within the tolerance relative to ε. (It was absolute below ε = 1: at ε = 0.0018 the plain
    // composition's corrections then cost 2 % of ε on both sides, on every grid, so the bracket
    // never narrowed below the 1e-3 asked for — σ = 6852, q = 0.0445, T = 4219, δ = 1.4e-9 gave
    // [0.0017481, 0.0017703] where tilted compositions give [0.00175849, 0.00175869] — and a
    // calibration there refined its grid for 4 minutes.) An upper end of 0 needs nothing more.
    if (plain.side == pld_side::pessimistic && crossing == 0) return plain;
    const std::array<double, 2> at = {crossing, crossing + h};
    const std::vector<double> d = plain.delta(at);
    const double slope = (d[0] - d[1]) / h;
    if (correction <= tolerance * focus.delta ||
        (slope > 0 && correction / slope <= tolerance * crossing))
      return plain;
    return build(delta_focus_tilt(), out);
  }
  if (!std::isnan(focus.epsilon) && focus.epsilon > mean) {
    if (focus.tilt_first) return build(epsilon_focus_tilt(), out);
    composed_pld plain = build(0, out);
    // Corrections the plain composition applies at ε: round-off per point above ε, and the
    // masses beyond the window.
    std::size_t above = 0;
    for (std::size_t k = 0; k < plain.mass.size(); ++k) above += plain.loss(k) > focus.epsilon;
    const double correction = plain.roundoff_bound(static_cast<double>(above), 1.0) +
                              plain.wrap_bound + plain.above_bound;
    if (correction <= tolerance * plain.delta(focus.epsilon)) return plain;
    return build(epsilon_focus_tilt(), out);
  }
  return build(0, out);
}

// ---------------------------------------------------------------------------------------
double composed_pld::delta(double epsilon) const {
  check_finite("composed_pld::delta", "epsilon", epsilon);
  const std::vector<double> v = delta(std::span<const double>(&epsilon, 1));
  return v[0];
}

std::vector<double> composed_pld::delta(std::span<const double> eps) const {
  constexpr const char* kFn = "composed_pld::delta";
  for (std::size_t j = 0; j < eps.size(); ++j) {
    check_finite(kFn, "epsilon", eps[j]);
    if (j > 0 && eps[j] < eps[j - 1])
      throw_domain_error(kFn, "epsilons", format_value(eps[j]), "in ascending order");
  }
  const bool pessimistic = side == pld_side::pessimistic;
  std::vector<double> out(eps.size());
  // Sweep the lattice downwards and the ε list downwards together. After adding point k,
  // s2 = Σ_{i≥k} p_i e^{ℓ_k − ℓ_i} (p: probabilities, untilted) and d = Σ_{i≥k} p_i
  // (1 − e^{ℓ_k − ℓ_i}); for ℓ_{k−1} ≤ ε < ℓ_k, δ(ε) = d + (1 − e^{ε−ℓ_k})·s2 (every exponent
  // ≤ 0). Both terms are sums of positive terms: the form s1 − e^{ε−ℓ_k}·s2 (s1 = Σ p_i)
  // subtracts two nearly equal sums where the mass above ε falls off slowly across a cell
  // (ℓ_i − ε ≪ 1), and its rounding errors, amplified by that ratio, came out 1.4e-8 of δ,
  // above the floating slack: a certified lower end 1e-9 above the exact ε (one step, σ = 1.06,
  // q = 1.2e-8, δ = 4.8e-49, case 3323 of the full sweep). Moving down one point:
  // d ← d + (1 − e^{−h})·s2, then s2 ← p_k + e^{−h}·s2. Corrections: round-off r·Σ w_i over the
  // points used; aliasing wrap·max w_i (optimistic); the certified masses beyond the window
  // (pessimistic).
  const double e_minus_h = std::exp(-h);
  const double one_minus_e_minus_h = -std::expm1(-h);
  const double bottom = loss(0) - h / 2;
  double d = 0, s2 = 0, sum_w = 0, last_w = 0;
  double top = kInf;  // ℓ_k of the last point added (+∞: none yet)
  std::size_t j = eps.size();
  auto emit = [&](std::size_t idx) {
    const double sum = top == kInf ? 0.0 : d - std::expm1(eps[idx] - top) * s2;
    double value = std::max(sum, 0.0);
    if (pessimistic) {
      value += infinity_mass + above_bound + roundoff_bound(sum_w, last_w) +
               (eps[idx] < bottom ? below_bound : 0.0);
    } else {
      value -= roundoff_bound(sum_w, last_w) +
               wrap_bound * (top == kInf ? weight(mass.size() - 1) : last_w);
    }
    value *= pessimistic ? 1 + floating_slack : 1 - floating_slack;
    out[idx] = std::clamp(value, 0.0, 1.0);
  };
  for (std::size_t i = mass.size(); i-- > 0;) {
    const double l = loss(i);
    while (j > 0 && eps[j - 1] >= l) emit(--j);  // these ε see only the points above l
    if (j == 0) break;
    const double w = weight(i);
    const double p = probability(i, w);
    if (top != kInf) d += one_minus_e_minus_h * s2;
    s2 = top == kInf ? p : p + e_minus_h * s2;
    sum_w += w;
    last_w = w;
    top = l;
  }
  while (j > 0) emit(--j);
  return out;
}

double composed_pld::epsilon(double requested) const {
  check_open_probability("composed_pld::epsilon", "delta", requested);
  if (requested == focus_delta) return focus_epsilon;
  const bool pessimistic = side == pld_side::pessimistic;
  // The floating-point slack of delta(): δ_up·(1 + s) ≤ δ ⇔ δ_up ≤ δ/(1 + s), and so on.
  const double target = requested / (pessimistic ? 1 + floating_slack : 1 - floating_slack);
  // On ε ∈ [ℓ_{k−1}, ℓ_k): δ(ε) = c + D − (e^{ε−ℓ_{k−1}} − 1)·S2 ± corrections, with suffix sums
  // over i ≥ k of the (untilted) probabilities, the scaled S2 = Σ p_i e^{ℓ_{k−1} − ℓ_i} and
  // D = Σ p_i (1 − e^{ℓ_{k−1} − ℓ_i}) (every exponent ≤ 0: no overflow for ε beyond 709, where
  // e^ε itself is not a double; positive terms only: see delta() for the cancellation the form
  // S1 − e^t·S2 had). Moving down one lattice point: D(k) = D(k+1) + (1 − e^{−h})(p_k + S2(k+1)),
  // S2(k) = e^{−h}(p_k + S2(k+1)). Corrections as in delta().
  const double constant = pessimistic ? infinity_mass + above_bound : 0.0;
  if (pessimistic && constant >= target) return kInf;  // the corrections alone exceed δ
  const double e_minus_h = std::exp(-h);
  const double one_minus_e_minus_h = -std::expm1(-h);
  double d = 0, s2 = 0, sum_w = 0;
  double rest_at_bottom = NAN;  // at_below − target at the window's lowest point
  for (std::size_t i = mass.size(); i-- > 0;) {
    const double l = loss(i);
    if (l <= 0) return 0.0;  // δ(0) is already ≤ target
    const double w = weight(i);
    const double p = probability(i, w);
    d += one_minus_e_minus_h * (p + s2);
    s2 = e_minus_h * (p + s2);
    sum_w += w;
    const double below = l - h;  // ℓ_{k−1}
    // Corrections on [ℓ_{k−1}, ℓ_k): the points ≥ ℓ_k are used; below the window (i = 0), the
    // pessimistic side adds the certified mass there.
    const double correction = pessimistic ? roundoff_bound(sum_w, w) + (i == 0 ? below_bound : 0.0)
                                          : -(roundoff_bound(sum_w, w) + wrap_bound * w);
    const double at_below = constant + d + correction;
    if (at_below > target || below <= 0) {
      // The crossing lies in [max(ℓ_{k−1}, 0), ℓ_k): solve c + D + corr − (e^t − 1) S2 = δ,
      // t = ε − ℓ_{k−1}.
      const double rest = at_below - target;
      // rest ≤ 0 (possible only when below ≤ 0): the bound of δ is ≤ target on all of
      // [max(ℓ_{k−1}, 0), ℓ_k). Pessimistic: every ε there is certified, the smallest is
      // max(ℓ_{k−1}, 0). Optimistic: no ε ≥ 0 has a lower δ bound above the target, so the
      // lower bound on ε is 0 (returning ℓ_k here once claimed ε ≥ h where the exact ε was 0).
      if (!(rest > 0)) return pessimistic ? std::max(below, 0.0) : 0.0;
      const double t = s2 > 0 ? std::log1p(rest / s2) : kInf;
      const double eps = std::clamp(below + t, std::max(below, 0.0), l);
      if (at_below > target || eps > 0) return eps;
      return 0.0;
    }
    if (i == 0) rest_at_bottom = at_below - target;
  }
  // No crossing above 0 inside the window: δ(ε) ≤ target down to the window's bottom ℓ₀ − h > 0.
  // Below it every point lies above ε, so the same form holds with t = ε − (ℓ₀ − h) < 0:
  // δ(ε) = c + D + corr + (1 − e^t)·S2 (the pessimistic side's mass below the window is in
  // corr; the optimistic side leaves it out, which only lowers its bound). It reaches the target
  // at t = log1p(rest/S2), rest ≤ 0, and stays below it down to ε = 0 where rest ≤ −S2. Both
  // ends come from it: it is each side's own δ(ε). Returning the bottom (upper end) and 0
  // (lower end) instead was valid but loose, and the upper end grew as the grid was refined:
  // one truncated-Poisson step (n = 26, B = 1, q = 0.074, σ = 0.092, δ = 0.047), whose losses
  // in the direction the window is cut from all lie above 0.026 to within the tail, said
  // ε ≤ 0.0114 at h = 0.0057 and ε ≤ 0.0264 at h = 8.9e-5, where δ(0) ≤ 0.0333 (ε = 0); each
  // refinement widened the bracket, and a calibration at that δ spent 20 minutes on grids of
  // 2^24 cells (full domain-sweep case 46 034).
  if (mass.empty()) return 0.0;
  const double bottom_point = loss(0) - h;
  if (!(rest_at_bottom <= 0) || !(s2 > 0)) return pessimistic ? std::max(0.0, bottom_point) : 0.0;
  if (rest_at_bottom <= -s2) return 0.0;
  return std::max(0.0, bottom_point + std::log1p(rest_at_bottom / s2));
}

}  // namespace dpkit::accounting
