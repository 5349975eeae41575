#include "dpkit/sim/monte_carlo.hpp"

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/math/distributions/normal.hpp>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <mutex>
#include <stdexcept>

#include "dpkit/core/check.hpp"
#include "dpkit/core/progress.hpp"

#ifdef DPKIT_WITH_MPI
#include <mpi.h>
#endif

namespace dpkit::sim {

void moments::rescale(int e) noexcept {
  if (scaled_ && e > scale_exp_) m2_ = std::ldexp(m2_, 2 * (scale_exp_ - e));
  scale_exp_ = e;
  scaled_ = true;
}

void moments::add(double x) noexcept {
  ++n_;
  if (n_ == 1) {
    min_ = max_ = x;
  } else {
    min_ = std::min(min_, x);
    max_ = std::max(max_, x);
  }
  if (!std::isfinite(x) || !finite_state()) {
    // As the unscaled recurrence from the first inf or NaN on: the mean inf or NaN, M2 NaN, for
    // good (non_finite_observables relies on it).
    mean_ += (x - mean_) / static_cast<double>(n_);
    m2_ = NAN;
    return;
  }
  if (x == 0 && !scaled_) return;  // only zeros so far: mean and M2 stay 0
  // s = 2^e with |x| < s: frexp's exponent (|x| = f·2^e, f in [0.5, 1)).
  if (int e = 0; x != 0 && (std::frexp(x, &e), !scaled_ || e > scale_exp_)) rescale(e);
  const double xs = std::ldexp(x, -scale_exp_), ms = std::ldexp(mean_, -scale_exp_);
  const double d = xs - ms;
  const double ms_new = ms + d / static_cast<double>(n_);
  mean_ = std::ldexp(ms_new, scale_exp_);
  m2_ += d * (xs - ms_new);
}

void moments::merge(const moments& o) noexcept {
  if (o.n_ == 0) return;
  if (n_ == 0) {
    *this = o;
    return;
  }
  const double na = static_cast<double>(n_), nb = static_cast<double>(o.n_), n = na + nb;
  if (!finite_state() || !o.finite_state()) {  // an inf or NaN on either side: as add's
    mean_ += (o.mean_ - mean_) * nb / n;
    m2_ = NAN;
    n_ += o.n_;
    min_ = std::min(min_, o.min_);
    max_ = std::max(max_, o.max_);
    return;
  }
  double m2b = o.m2_;
  if (o.scaled_) {
    if (!scaled_ || o.scale_exp_ > scale_exp_)
      rescale(o.scale_exp_);
    else
      m2b = std::ldexp(m2b, 2 * (o.scale_exp_ - scale_exp_));
  }
  if (scaled_) {
    const double ma = std::ldexp(mean_, -scale_exp_), mb = std::ldexp(o.mean_, -scale_exp_);
    const double d = mb - ma;
    mean_ = std::ldexp(ma + d * nb / n, scale_exp_);
    m2_ += m2b + d * d * na * nb / n;
  }
  n_ += o.n_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
}

double moments::variance() const noexcept {
  if (n_ < 2) return 0.0;
  return std::ldexp(m2_ / static_cast<double>(n_ - 1), 2 * scale_exp_);
}
double moments::standard_deviation() const noexcept {
  if (n_ < 2) return 0.0;
  return std::ldexp(std::sqrt(m2_ / static_cast<double>(n_ - 1)), scale_exp_);
}
double moments::standard_error() const noexcept {
  return n_ > 0 ? standard_deviation() / std::sqrt(static_cast<double>(n_)) : 0.0;
}

void moments::to_array(double out[kArraySize]) const noexcept {
  out[0] = static_cast<double>(n_);
  out[1] = mean_;
  out[2] = m2_;
  out[3] = min_;
  out[4] = max_;
  out[5] = scaled_ ? static_cast<double>(scale_exp_) : NAN;
}

moments moments::from_array(const double in[kArraySize]) noexcept {
  moments m;
  m.n_ = static_cast<std::uint64_t>(in[0]);
  m.mean_ = in[1];
  m.m2_ = in[2];
  m.min_ = in[3];
  m.max_ = in[4];
  m.scaled_ = !std::isnan(in[5]);
  m.scale_exp_ = m.scaled_ ? static_cast<int>(in[5]) : 0;
  return m;
}

std::pair<double, double> observable_summary::mean_interval(double confidence) const {
  check_open_probability("observable_summary::mean_interval", "confidence", confidence);
  const double z =
      boost::math::quantile(boost::math::complement(boost::math::normal(), (1 - confidence) / 2));
  const double se = stats.standard_error();
  return {stats.mean() - z * se, stats.mean() + z * se};
}

double observable_summary::quantile(double p) const {
  check_probability("observable_summary::quantile", "p", p);
  if (samples.empty())
    throw_domain_error("observable_summary::quantile", "samples of " + name, "not kept",
                       "kept (observable::keep_samples)");
  std::vector<double> s = samples;
  std::sort(s.begin(), s.end());
  const double h = p * static_cast<double>(s.size() - 1);
  const auto lo = static_cast<std::size_t>(std::floor(h));
  const std::size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (h - static_cast<double>(lo)) * (s[hi] - s[lo]);
}

const observable_summary& monte_carlo_result::at(const std::string& name) const {
  for (const auto& o : observables)
    if (o.name == name) return o;
  throw_domain_error("monte_carlo_result::at", "name", name, "an observable of the run");
}

std::string non_finite_observables(const monte_carlo_result& result) {
  std::string out;
  for (const observable_summary& o : result.observables) {
    std::size_t bad = 0;
    for (double x : o.samples) bad += std::isfinite(x) ? 0 : 1;
    // Without samples: one inf or NaN makes the running mean non-finite for good.
    if (bad == 0 && (o.samples.size() == o.stats.count() || std::isfinite(o.stats.mean())))
      continue;
    if (!out.empty()) out += ", ";
    out += o.name;
    if (bad > 0)
      out += " (" + std::to_string(bad) + " of " + std::to_string(o.samples.size()) +
             " replicates)";
  }
  return out;
}

bool monte_carlo_uses_mpi() {
#ifdef DPKIT_WITH_MPI
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  return initialised && !finalised;
#else
  return false;
#endif
}

int monte_carlo_ranks() {
  int ranks = 1;
#ifdef DPKIT_WITH_MPI
  if (monte_carlo_uses_mpi()) MPI_Comm_size(MPI_COMM_WORLD, &ranks);
#endif
  return ranks;
}

int monte_carlo_default_threads() {
  return omp_get_max_threads();
}

bool built_with_mpi() noexcept {
#ifdef DPKIT_WITH_MPI
  return true;
#else
  return false;
#endif
}

mpi_session::mpi_session([[maybe_unused]] int& argc, [[maybe_unused]] char**& argv) {
#ifdef DPKIT_WITH_MPI
  const bool launched = std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr ||
                        std::getenv("PMI_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr;
  int initialised = 0;
  MPI_Initialized(&initialised);
  if (!launched || initialised) return;
  int provided = 0;
  if (MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS)
    throw std::runtime_error("mpi_session: MPI_Init_thread failed");
  active_ = true;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
#endif
}

int mpi_session::launched_ranks() noexcept {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE"}) {
    const char* value = std::getenv(name);
    if (value == nullptr) continue;
    char* end = nullptr;
    const long n = std::strtol(value, &end, 10);
    if (end != value && *end == '\0' && n >= 1 && n <= 1 << 20) return static_cast<int>(n);
  }
  return 1;
}

mpi_session::~mpi_session() {
#ifdef DPKIT_WITH_MPI
  if (active_) MPI_Finalize();
#endif
}

void mpi_session::abort([[maybe_unused]] int exit_code) const {
#ifdef DPKIT_WITH_MPI
  if (active_ && size_ > 1) MPI_Abort(MPI_COMM_WORLD, exit_code);
#endif
}

monte_carlo_result run_monte_carlo(const std::vector<observable>& observables,
                                   const replicate_function& f,
                                   const monte_carlo_options& o) {
  constexpr const char* fn = "run_monte_carlo";
  if (observables.empty()) throw_domain_error(fn, "observables", "empty", "at least one");
  if (o.replicates < 1) throw_domain_error(fn, "replicates", "0", ">= 1");
  if (o.chunk < 1) throw_domain_error(fn, "chunk", "0", ">= 1");
  if (o.threads < 0)
    throw_domain_error(fn, "threads", format_value(static_cast<long long>(o.threads)),
                       ">= 0 (0: default)");
  if (!f) throw_domain_error(fn, "f", "empty", "a replicate function");
  const auto start = std::chrono::steady_clock::now();
  const std::size_t k = observables.size();
  const std::uint64_t r_total = o.replicates;
  const std::uint64_t chunks = (r_total + o.chunk - 1) / o.chunk;

  int rank = 0, ranks = 1;
#ifdef DPKIT_WITH_MPI
  if (monte_carlo_uses_mpi()) {
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  }
#endif

  std::vector<moments> chunk_moments(chunks * k);
  std::vector<std::vector<double>> samples(k);
  for (std::size_t j = 0; j < k; ++j)
    if (observables[j].keep_samples) samples[j].assign(r_total, 0.0);

  const int threads = o.threads > 0 ? o.threads : omp_get_max_threads();
  // Rank 0 reports on its own share of the chunks (c ≡ 0 mod ranks).
  std::uint64_t mine = 0;
  for (std::uint64_t c = static_cast<std::uint64_t>(rank); c < chunks;
       c += static_cast<std::uint64_t>(ranks))
    mine += std::min(r_total, (c + 1) * o.chunk) - c * o.chunk;
  const std::string where = " on " + std::to_string(threads) + " thread" +
                            (threads == 1 ? "" : "s") +
                            (ranks > 1 ? " x " + std::to_string(ranks) + " MPI ranks" : "");
  progress_options po;
  po.bar = o.progress && rank == 0;
  po.announce = o.announce && rank == 0;
  po.announce_seconds = o.announce_seconds;
  po.in_flight = static_cast<std::uint64_t>(threads) * o.chunk;
  po.where = where;
  progress_reporter bar(o.label, mine, po);
  std::exception_ptr error;
  std::mutex error_mutex;
  std::atomic<bool> failed{false};
  // This rank's chunks: c ≡ rank (mod ranks), dynamically shared among threads.
#pragma omp parallel num_threads(threads)
  {
    std::vector<double> out(k);
#pragma omp for schedule(dynamic, 1)
    for (std::int64_t ci = rank; ci < static_cast<std::int64_t>(chunks); ci += ranks) {
      if (failed.load(std::memory_order_relaxed)) continue;
      const auto c = static_cast<std::uint64_t>(ci);
      const std::uint64_t first = c * o.chunk, last = std::min(r_total, first + o.chunk);
      try {
        for (std::uint64_t r = first; r < last; ++r) {
          std::fill(out.begin(), out.end(), std::numeric_limits<double>::quiet_NaN());
          f(r, out);
          for (std::size_t j = 0; j < k; ++j) {
            chunk_moments[c * k + j].add(out[j]);
            if (!samples[j].empty()) samples[j][r] = out[j];
          }
        }
      } catch (...) {
        std::lock_guard lock(error_mutex);
        if (!error) error = std::current_exception();
        failed = true;
      }
      bar.advance(last - first);
    }
  }
#ifdef DPKIT_WITH_MPI
  if (ranks > 1) {
    // Agree on failure first, so that no rank waits in a reduction another rank never reaches.
    int local_failed = error ? 1 : 0, any_failed = 0;
    MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (error) std::rethrow_exception(error);
    if (any_failed)
      throw std::runtime_error("run_monte_carlo: a replicate failed on another MPI rank");
    // Gather by bits: every chunk was computed by exactly one rank and is all-zero bits on the
    // others, so a bitwise OR of the 64-bit patterns reproduces each value exactly (−0, NaN and
    // all). A floating-point sum would turn −0 into +0.
    static_assert(sizeof(double) == sizeof(std::uint64_t));
    const auto or_bits = [](std::vector<double>& v) {
      MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_UINT64_T, MPI_BOR,
                    MPI_COMM_WORLD);
    };
    std::vector<double> raw(chunks * k * moments::kArraySize, 0.0);
    for (std::uint64_t c = static_cast<std::uint64_t>(rank); c < chunks;
         c += static_cast<std::uint64_t>(ranks))
      for (std::size_t j = 0; j < k; ++j)
        chunk_moments[c * k + j].to_array(&raw[(c * k + j) * moments::kArraySize]);
    or_bits(raw);
    for (std::size_t i = 0; i < chunks * k; ++i)
      chunk_moments[i] = moments::from_array(&raw[i * moments::kArraySize]);
    for (std::size_t j = 0; j < k; ++j) {
      if (samples[j].empty()) continue;
      // Zero the entries this rank did not compute, then OR.
      for (std::uint64_t c = 0; c < chunks; ++c) {
        if (static_cast<int>(c % static_cast<std::uint64_t>(ranks)) == rank) continue;
        const std::uint64_t first = c * o.chunk, last = std::min(r_total, first + o.chunk);
        std::fill(samples[j].begin() + static_cast<std::ptrdiff_t>(first),
                  samples[j].begin() + static_cast<std::ptrdiff_t>(last), 0.0);
      }
      or_bits(samples[j]);
    }
  }
#endif
  if (error) std::rethrow_exception(error);

  monte_carlo_result res;
  res.replicates = r_total;
  res.seed = o.seed;
  res.threads = threads;
  res.ranks = ranks;
  for (std::size_t j = 0; j < k; ++j) {
    observable_summary s;
    s.name = observables[j].name;
    for (std::uint64_t c = 0; c < chunks; ++c) s.stats.merge(chunk_moments[c * k + j]);
    s.samples = std::move(samples[j]);
    res.observables.push_back(std::move(s));
  }
  res.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return res;
}

}  // namespace dpkit::sim
