#pragma once
// The Monte Carlo engine: R independent replicates in parallel (OpenMP threads, and MPI ranks
// when built with DPKIT_WITH_MPI and run under mpirun), streaming each replicate's observables
// into mergeable accumulators.
//
// Bit-identical results for any number of threads or ranks (docs/architecture.md, "Randomness"):
// replicate r draws only from streams keyed by (seed, r, ·); replicates are grouped into fixed
// chunks of `chunk` consecutive indices, each chunk is accumulated sequentially, and the chunk
// accumulators are merged in chunk order at the end. Who ran a chunk never matters.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

namespace dpkit::sim {

/// Running count, mean, variance, min and max (Welford), mergeable (Chan, Golub & LeVeque 1979).
/// The sum of squared deviations is kept divided by s², s the power of two at or above the
/// largest |x| seen, so the standard deviation of values near the ends of the double range
/// neither overflows (values ~1e160 squared) nor underflows (~1e-170): the scaling by powers of
/// two is exact, and where no scaled value is subnormal the results are bit for bit those of the
/// unscaled recurrence. From the first inf or NaN on, the mean is inf or NaN and M2 NaN, for good.
class moments {
 public:
  void add(double x) noexcept;
  void merge(const moments& other) noexcept;
  std::uint64_t count() const noexcept { return n_; }
  double mean() const noexcept { return mean_; }
  /// Unbiased sample variance (0 for fewer than two values; +inf where it exceeds the largest
  /// double, while the standard deviation is still finite).
  double variance() const noexcept;
  double standard_deviation() const noexcept;
  /// Standard error of the mean, sd/√n.
  double standard_error() const noexcept;
  double min() const noexcept { return min_; }
  double max() const noexcept { return max_; }
  /// Raw state (for MPI reduction): count, mean, M2/s², min, max, s.
  static constexpr std::size_t kArraySize = 6;
  void to_array(double out[kArraySize]) const noexcept;
  static moments from_array(const double in[kArraySize]) noexcept;

 private:
  // Brings m2_ to the scale 2^e (e >= scale_exp_), exactly: a power-of-two factor.
  void rescale(int e) noexcept;
  // No inf or NaN seen (the mean finite, M2 a number).
  bool finite_state() const noexcept { return std::isfinite(mean_) && !std::isnan(m2_); }
  std::uint64_t n_ = 0;
  double mean_ = 0;
  double m2_ = 0;      // Σ (x − mean)² / s², s = 2^scale_exp_
  int scale_exp_ = 0;  // meaningful once a nonzero finite value was seen (scaled_)
  bool scaled_ = false;
  double min_ = 0, max_ = 0;
};

/// One scalar the replicate function reports. keep_samples stores every replicate's value
/// (R doubles) for quantiles, audits and QQ plots; otherwise only the moments are kept.
struct observable {
  std::string name;
  bool keep_samples = false;
};

struct observable_summary {
  std::string name;
  moments stats;
  std::vector<double> samples;  // by replicate index, when kept
  /// Normal-approximation confidence interval for the mean: mean ± z·se (an estimate; valid for
  /// large R).
  std::pair<double, double> mean_interval(double confidence) const;
  /// Empirical quantile (type 7, linear interpolation); requires kept samples.
  double quantile(double p) const;
};

struct monte_carlo_options {
  std::uint64_t replicates = 1000;
  std::uint64_t seed = 0;
  int threads = 0;           // 0: OpenMP's default
  std::uint64_t chunk = 64;  // replicates per reduction chunk (does not depend on threads)
  bool progress = false;     // progress bar on stderr, only when stderr is a terminal
  /// One line on stderr, terminal or not, when the run is projected to take longer than
  /// `announce_seconds`: the projected time, measured on the first replicates (after 2 s or
  /// 5 % of the work, whichever comes first), before the rest runs.
  bool announce = false;
  double announce_seconds = 30;
  std::string label = "monte carlo";
};

struct monte_carlo_result {
  std::vector<observable_summary> observables;
  std::uint64_t replicates = 0, seed = 0;
  int threads = 1, ranks = 1;
  double seconds = 0;
  const observable_summary& at(const std::string& name) const;
};

/// The observables that were not finite in some replicate (a diverged run: an iterate that
/// overflowed), in words, e.g. "risk (5 of 5 replicates), norm (5 of 5 replicates)"; the count
/// is given where samples are kept. Empty when every value of every observable is finite (the
/// running mean is then finite too, which is how an observable without samples is judged).
std::string non_finite_observables(const monte_carlo_result& result);

/// Fills out[j] with observable j of replicate `replicate`. Must draw randomness only from
/// random_stream(seed, replicate, ·). Called concurrently from several threads.
using replicate_function = std::function<void(std::uint64_t replicate, std::span<double> out)>;

/// Runs the replicates and reduces them. An exception thrown by `f` stops the run and is
/// rethrown (the first one, by replicate order within the failing thread).
monte_carlo_result run_monte_carlo(const std::vector<observable>& observables,
                                   const replicate_function& f,
                                   const monte_carlo_options& options);

/// Whether this build distributes replicates over MPI ranks (DPKIT_WITH_MPI) — it does so only
/// when MPI has been initialised by the program (mpi_session below; the dpkit CLI holds one).
bool monte_carlo_uses_mpi();

/// The number of MPI ranks run_monte_carlo shards over (1 without an active MPI session).
int monte_carlo_ranks();

/// The threads run_monte_carlo uses when monte_carlo_options::threads is 0 (OpenMP's default:
/// OMP_NUM_THREADS, else the cores).
int monte_carlo_default_threads();

/// Whether this build has MPI support (configured with -DDPKIT_WITH_MPI=ON).
bool built_with_mpi() noexcept;

/// MPI for the lifetime of a program, when there is a reason to use it: the build has MPI
/// (DPKIT_WITH_MPI) and the process was started by an MPI launcher (mpirun/mpiexec of OpenMPI,
/// or a PMI/PMIx launcher such as srun: OMPI_COMM_WORLD_SIZE, PMI_SIZE or PMIX_RANK is set).
/// Otherwise it does nothing and the process is rank 0 of 1 — a plain `dpkit` never pays for
/// MPI start-up. MPI is initialised with MPI_THREAD_FUNNELED (only the thread that built the
/// session calls MPI; OpenMP threads do not). Construct at most one, in main().
///
/// While a session is active, run_monte_carlo shards chunks of replicates round-robin over the
/// ranks and every rank gets the whole, bit-identical result; only rank 0 should write output.
class mpi_session {
 public:
  mpi_session(int& argc, char**& argv);
  ~mpi_session();
  mpi_session(const mpi_session&) = delete;
  mpi_session& operator=(const mpi_session&) = delete;
  bool active() const noexcept { return active_; }
  int rank() const noexcept { return rank_; }
  int size() const noexcept { return size_; }
  /// Ends the run of every rank (MPI_Abort) — for a rank that failed while others may be
  /// waiting in a collective. Does nothing (returns) when the session is not active.
  void abort(int exit_code) const;
  /// The number of ranks an MPI launcher (mpirun, srun) started, from its environment
  /// (OMPI_COMM_WORLD_SIZE, PMI_SIZE); 1 when not launched by one. Readable in any build.
  static int launched_ranks() noexcept;

 private:
  bool active_ = false;
  int rank_ = 0, size_ = 1;
};

}  // namespace dpkit::sim
