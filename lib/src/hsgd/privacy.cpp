#include "dpkit/hsgd/privacy.hpp"

#include <algorithm>
#include <array>
#include <boost/math/quadrature/gauss.hpp>
#include <boost/math/quadrature/gauss_kronrod.hpp>
#include <cmath>
#include <exception>
#include <limits>
#include <numeric>
#include <string>
#include <utility>

#include "dpkit/core/check.hpp"
#include "dpkit/core/roots.hpp"

namespace dpkit::hsgd {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kEps = std::numeric_limits<double>::epsilon();

// ---- argument checks ----------------------------------------------------------------------------

void check_alpha(const char* fn, double alpha) {
  check_greater(fn, "alpha", alpha, 1.0);
}

void check_law(const char* fn, const gaussian_law& law) {
  // σ = 0 makes V(t) singular near the jump (no noise masks it): no finite RDP.
  check_positive(fn, "law.problem().sigma", law.problem().sigma);
}

void check_time_in(const char* fn, const char* name, double t, const gaussian_law& law) {
  if (!(t >= 0 && t <= law.horizon()))
    throw_domain_error(fn, name, t, "in [0, horizon] = [0, " + format_value(law.horizon()) + "]");
}

void check_record(const char* fn, const char* name, const record& rec, const gaussian_law& law) {
  if (rec.a.size() != law.dimension())
    throw_domain_error(fn, std::string(name) + ".a.size()",
                       format_value(static_cast<long long>(rec.a.size())),
                       "d = " + format_value(law.dimension()));
  if (!rec.a.allFinite()) throw_domain_error(fn, std::string(name) + ".a", "non-finite", "finite");
  check_finite(fn, std::string(name) + ".b", rec.b);
}

void check_release_times(const char* fn, std::span<const double> times, const gaussian_law& law) {
  check_at_least(fn, "times.size()", static_cast<long long>(times.size()), 1);
  for (std::size_t j = 0; j < times.size(); ++j) {
    const std::string name = "times[" + std::to_string(j) + "]";
    if (!(times[j] > 0 && times[j] <= law.horizon()))
      throw_domain_error(fn, name, times[j],
                         "in (0, horizon] = (0, " + format_value(law.horizon()) + "]");
    if (j > 0 && !(times[j] > times[j - 1]))
      throw_domain_error(fn, name, times[j],
                         "> times[" + std::to_string(j - 1) + "] = " + format_value(times[j - 1]) +
                             " (strictly increasing)");
  }
}

void check_dataset(const char* fn, const dataset& data, const gaussian_law& law) {
  if (data.features.cols() != law.dimension())
    throw_domain_error(fn, "data.features.cols()",
                       format_value(static_cast<long long>(data.features.cols())),
                       "d = " + format_value(law.dimension()));
  if (data.labels.size() != data.features.rows())
    throw_domain_error(
        fn, "data.labels.size()", format_value(static_cast<long long>(data.labels.size())),
        "data.features.rows() = " + format_value(static_cast<long long>(data.features.rows())));
  if (!data.features.allFinite()) throw_domain_error(fn, "data.features", "non-finite", "finite");
  if (!data.labels.allFinite()) throw_domain_error(fn, "data.labels", "non-finite", "finite");
}

void check_pairs(const char* fn, std::span<const record_pair> pairs, long long n) {
  check_at_least(fn, "pairs.size()", static_cast<long long>(pairs.size()), 1);
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const std::string name = "pairs[" + std::to_string(i) + "]";
    const std::string range = "in [0, " + format_value(n) + ")";
    if (pairs[i].first < 0 || pairs[i].first >= n)
      throw_domain_error(fn, name + ".first", format_value(pairs[i].first), range);
    if (pairs[i].second < 0 || pairs[i].second >= n)
      throw_domain_error(fn, name + ".second", format_value(pairs[i].second), range);
    if (pairs[i].first == pairs[i].second)
      throw_domain_error(fn, name + ".second", format_value(pairs[i].second),
                         "different from .first (a neighbouring pair)");
  }
}

void check_options(const char* fn, const mixture_options& o) {
  check_positive(fn, "options.relative_tolerance", o.relative_tolerance);
  check_nonnegative(fn, "options.absolute_tolerance", o.absolute_tolerance);
  check_at_least(fn, "options.max_intervals", o.max_intervals, 1);
}

// The discrete mixture runs over the n = T·d SGD steps, so T·d must be a whole number.
void check_positions(const char* fn, const mixture_options& o, const gaussian_law& law) {
  if (o.positions != position_mixture::discrete) return;
  const double steps = law.horizon() * static_cast<double>(law.dimension());
  if (!(std::abs(steps - std::round(steps)) <= 1e-9 * std::max(1.0, steps)) || steps < 1)
    throw_domain_error(fn, "horizon*d", format_value(steps),
                       "a positive integer (the number n of SGD steps) for "
                       "position_mixture::discrete");
}

// ---- the candidate records and pairs, reduced to eigen-group sums -------------------------------
//
// Everything a pair contributes at (t, s) is a weighted sum over eigen-coordinates with weights
// that depend on the coordinate only through its group (every operator but the data is a
// function of Σ). So per record we keep S_g = Σ_{k∈g} a_k², E_g = Σ_{k∈g} a_k(x0_k −
// x⋆_k) and c = aᵀx⋆, and per pair X_g = Σ_{k∈g} a_{1k}a_{2k}: a node then costs O(#groups) per
// record and per pair instead of O(d). When #pairs·#groups is too large to store, or nothing is
// grouped, the cross sums are recomputed per node from the rotated records (O(d) per pair).
constexpr std::size_t kMaxStoredCross = std::size_t{1} << 24;  // doubles (128 MiB)

struct prepared {
  std::size_t r = 0;                // groups
  std::size_t n = 0;                // used records
  std::size_t m = 0;                // pairs
  std::vector<double> S, E;         // n·r
  std::vector<double> c, b;         // n
  std::vector<std::size_t> p1, p2;  // pair → used record
  bool stored = true;
  std::vector<double> X;  // m·r (stored)
  Eigen::MatrixXd A;      // d×n rotated records, coordinates sorted by group (on the fly)
  std::vector<std::size_t> group_start;  // r + 1 offsets into A's rows
};

prepared prepare(const gaussian_law& law,
                 const Eigen::MatrixXd& features,
                 const Eigen::VectorXd& labels,
                 std::span<const record_pair> pairs) {
  prepared P;
  P.r = law.group_count();
  P.m = pairs.size();
  const long long d = law.dimension();
  const std::vector<int>& group_of = law.group_of();
  // Coordinates sorted by group (counting sort), so each group's coordinates are contiguous.
  P.group_start.assign(P.r + 1, 0);
  for (int g : group_of) ++P.group_start[static_cast<std::size_t>(g) + 1];
  std::partial_sum(P.group_start.begin(), P.group_start.end(), P.group_start.begin());
  std::vector<Eigen::Index> perm(static_cast<std::size_t>(d));
  {
    std::vector<std::size_t> next(P.group_start.begin(), P.group_start.end() - 1);
    for (Eigen::Index k = 0; k < d; ++k)
      perm[next[static_cast<std::size_t>(group_of[static_cast<std::size_t>(k)])]++] = k;
  }
  std::vector<long long> compact(static_cast<std::size_t>(features.rows()), -1);
  std::vector<long long> used;
  auto use = [&](long long i) {
    if (compact[static_cast<std::size_t>(i)] < 0) {
      compact[static_cast<std::size_t>(i)] = static_cast<long long>(used.size());
      used.push_back(i);
    }
    return static_cast<std::size_t>(compact[static_cast<std::size_t>(i)]);
  };
  for (const record_pair& pr : pairs) {
    P.p1.push_back(use(pr.first));
    P.p2.push_back(use(pr.second));
  }
  P.n = used.size();
  P.A.resize(d, static_cast<Eigen::Index>(P.n));
  P.S.assign(P.n * P.r, 0);
  P.E.assign(P.n * P.r, 0);
  P.c.assign(P.n, 0);
  P.b.assign(P.n, 0);
  const Eigen::VectorXd& x0 = law.x0();
  const Eigen::VectorXd& xs = law.xstar();
  for (std::size_t j = 0; j < P.n; ++j) {
    const Eigen::Index row = static_cast<Eigen::Index>(used[j]);
    const Eigen::VectorXd a = law.basis().to_eigen(features.row(row).transpose());
    P.b[j] = labels[row];
    for (std::size_t g = 0; g < P.r; ++g) {
      for (std::size_t p = P.group_start[g]; p < P.group_start[g + 1]; ++p) {
        const Eigen::Index k = perm[p];
        P.A(static_cast<Eigen::Index>(p), static_cast<Eigen::Index>(j)) = a[k];
        P.S[j * P.r + g] += a[k] * a[k];
        P.E[j * P.r + g] += a[k] * (x0[k] - xs[k]);
        P.c[j] += a[k] * xs[k];
      }
    }
  }
  // Without any grouping (r = d) the cross sums are the coordinate products themselves: form them
  // per node from the records (same O(d) work, no m·d copy).
  P.stored = P.r < static_cast<std::size_t>(d) && P.m * P.r <= kMaxStoredCross;
  if (P.stored) {
    P.X.assign(P.m * P.r, 0);
    for (std::size_t q = 0; q < P.m; ++q) {
      const double* a1 = P.A.col(static_cast<Eigen::Index>(P.p1[q])).data();
      const double* a2 = P.A.col(static_cast<Eigen::Index>(P.p2[q])).data();
      for (std::size_t g = 0; g < P.r; ++g) {
        double x = 0;
        for (std::size_t p = P.group_start[g]; p < P.group_start[g + 1]; ++p) x += a1[p] * a2[p];
        P.X[q * P.r + g] = x;
      }
    }
  }
  return P;
}

// ---- the low-rank Rényi kernel (docs/hsgd.md) ---------------------------------------------------
//
// Both covariances are V_i = D + L_i S_i L_iᵀ with L_i = [v_i, u_i], S_i = [[0,1],[1,q_i]], and
// Δ = −(r₁u₁ − r₂u₂) lies in the span of the u's. With K = LᵀD⁻¹L (4×4, L = [L₁, L₂]) and Δ̃ =
// D^{−1/2}Δ = D^{−1/2}L e, e = (0, −r₁, 0, r₂):
//   M = αV₂ + (1 − α)V₁ = D + L S Lᵀ,  S = blkdiag((1 − α)S₁, αS₂)        (forward order)
//   det M / det D = det(I + SK) = det(I + R S Rᵀ),   K = RᵀR  (Sylvester)
//   ΔᵀM⁻¹Δ = eᵀK(I + SK)⁻¹e = (Re)ᵀ(I + RSRᵀ)⁻¹(Re)                     (push-through)
//   det V_i / det D = det(I₂ + S_iK_ii) = (1 + K_vu)² + q_iK_uu − K_vvK_uu.
// The last two lines are the Woodbury / determinant-lemma form rewritten so that the quadratic
// form is manifestly ≥ 0 (no c₀ − yᵀ(...)y cancellation) and B = I + RSRᵀ is symmetric: its LDLᵀ
// pivots decide positive definiteness of M (Sylvester's criterion) and give ln det M − ln det D
// as log1p(Π pivots − 1), exact to rounding for the small perturbations of the LKSP25 regime.
// R comes from a Cholesky factorisation of the PSD K that skips a column numerically in the
// span of the previous ones (one eigen-group: v_i ∥ u_i, rank 2) — dropping a Schur-complement
// diagonal below kPivotTolerance·K_jj changes D_α by O(kPivotTolerance) (the dropped row enters
// det and the quadratic form squared). Hand-rolled on fixed 4×4 arrays: this runs ~10⁶–10⁷
// times per RDP trajectory, must not allocate, and needs the rank truncation and the
// "pivot − 1" form, which Eigen's fixed-size LDLT does not expose.
constexpr double kPivotTolerance = 1e-13;

struct pair_sums {
  double kvv1, kvu1, kuu1, kvv2, kvu2, kuu2;  // K blocks of each process
  double xvv, xvu, xuu;                       // cross blocks
  double q1, q2, r1, r2;
  double ld1, ld2;  // ln det V_i − ln det D = ln det(I₂ + S_iK_ii) (per record, see own_logdet)
};

// ln det(I₂ + S_iK_ii) of one process: det − 1 = 2K_vu + K_vu² + q K_uu − K_vv K_uu (see above).
// It depends on the record alone, so it is formed once per record and node, not per pair.
double own_logdet(double kvv, double kvu, double kuu, double q) {
  return std::log1p(2 * kvu + kvu * kvu + q * kuu - kvv * kuu);
}

struct factor {
  int rank = 0;
  double R[4][4];  // rows ℓ_j with RᵀR = K (rows ≥ rank unused)
  double Re[4];    // R e
};

// Process 1's leading 2×2 block of the Cholesky factor below depends on its record alone
// (K₁₁ = [[K_vv, K_vu], [K_vu, K_uu]]), so it is formed once per record and node: with both
// pivots kept, inv0 = 1/√K_vv, l01 = K_vu·inv0, a11 = K_uu − l01², inv1 = 1/√a11 (the same
// operations, in the same order, as the generic loop, so the factor is bitwise the same).
struct lead_block {
  bool full = false;  // both pivots kept (else the pair takes the generic path)
  double inv0 = 0, l01 = 0, a11 = 0, inv1 = 0;
};

lead_block make_lead_block(double kvv, double kvu, double kuu) {
  lead_block b;
  if (!(kvv > kPivotTolerance * kvv)) return b;
  b.inv0 = 1 / std::sqrt(kvv);
  b.l01 = kvu * b.inv0;
  b.a11 = kuu - b.l01 * b.l01;
  if (!(b.a11 > kPivotTolerance * kuu)) return b;
  b.inv1 = 1 / std::sqrt(b.a11);
  b.full = true;
  return b;
}

void factorise(const pair_sums& p, const lead_block& lead, factor& f) {
  const double K[4][4] = {{p.kvv1, p.kvu1, p.xvv, p.xvu},
                          {p.kvu1, p.kuu1, p.xvu, p.xuu},
                          {p.xvv, p.xvu, p.kvv2, p.kvu2},
                          {p.xvu, p.xuu, p.kvu2, p.kuu2}};
  // Cholesky in the fixed order (v₁, u₁, v₂, u₂), skipping a column whose Schur-complement
  // diagonal is below kPivotTolerance of its own diagonal (numerically dependent on the previous
  // ones). No pivoting is needed for accuracy: for a PSD matrix |A_ij| ≤ √(A_ii A_jj), so no row
  // grows, and a pivot's rounding error enters D_α only at O(ε) (see above).
  double A[4][4];
  int start = 0;
  f.rank = 0;
  if (lead.full) {
    // Columns 0 and 1 from the record's lead_block; only the cross terms are per pair.
    double* l0 = f.R[0];
    l0[0] = p.kvv1 * lead.inv0;
    l0[1] = lead.l01;
    l0[2] = p.xvv * lead.inv0;
    l0[3] = p.xvu * lead.inv0;
    double* l1 = f.R[1];
    l1[0] = 0;
    l1[1] = lead.a11 * lead.inv1;
    l1[2] = (p.xvu - l0[2] * l0[1]) * lead.inv1;
    l1[3] = (p.xuu - l0[3] * l0[1]) * lead.inv1;
    A[2][2] = (p.kvv2 - l0[2] * l0[2]) - l1[2] * l1[2];
    A[3][2] = (p.kvu2 - l0[3] * l0[2]) - l1[3] * l1[2];
    A[3][3] = (p.kuu2 - l0[3] * l0[3]) - l1[3] * l1[3];
    f.rank = 2;
    start = 2;
  } else {
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 4; ++j) A[i][j] = K[i][j];
  }
  for (int j = start; j < 4; ++j) {
    if (!(A[j][j] > kPivotTolerance * K[j][j])) continue;
    const double inv = 1 / std::sqrt(A[j][j]);
    double* l = f.R[f.rank];
    for (int i = 0; i < j; ++i) l[i] = 0;
    for (int i = j; i < 4; ++i) l[i] = A[i][j] * inv;
    for (int i = j + 1; i < 4; ++i)
      for (int k = j + 1; k <= i; ++k) A[i][k] -= l[i] * l[k];
    ++f.rank;
  }
  for (int j = 0; j < f.rank; ++j) f.Re[j] = -p.r1 * f.R[j][1] + p.r2 * f.R[j][3];
}

// The two halves of R S Rᵀ: P_i = R S̃_i Rᵀ with S̃_i = [[0,1],[1,q_i]] on process i's
// coordinates, so that R S Rᵀ = c₁P₁ + c₂P₂ for either argument order (lower triangles).
struct halves {
  double P1[4][4], P2[4][4];
};

void form_halves(const factor& f, const pair_sums& p, halves& h) {
  for (int j = 0; j < f.rank; ++j) {
    const double* a = f.R[j];
    for (int k = 0; k <= j; ++k) {
      const double* b = f.R[k];
      h.P1[j][k] = a[0] * b[1] + a[1] * b[0] + p.q1 * a[1] * b[1];
      h.P2[j][k] = a[2] * b[3] + a[3] * b[2] + p.q2 * a[3] * b[3];
    }
  }
}

// LDLᵀ of B = I + c₁P₁ + c₂P₂ (N = rank, unrolled by the compiler), pivots d_j = 1 + e_j;
// det B − 1 = Π(1 + e_j) − 1 is accumulated as P ← P + e + P·e, so one log1p gives ln det B to
// full relative accuracy. Returns false when B (equivalently M) is not positive definite.
template <int N>
bool ldl(const halves& h, const double* Re, double c1, double c2, double& log_det, double& quad) {
  double L[N][N], dpiv[N], det_m1 = 0;
  for (int j = 0; j < N; ++j) {
    double e = c1 * h.P1[j][j] + c2 * h.P2[j][j];
    for (int q = 0; q < j; ++q) e -= L[j][q] * L[j][q] * dpiv[q];
    dpiv[j] = 1 + e;
    if (!(dpiv[j] > 0)) {
      log_det = dpiv[j];  // NaN or ≤ 0: the caller tells the two apart
      return false;
    }
    det_m1 += e + det_m1 * e;
    for (int k = j + 1; k < N; ++k) {
      double v = c1 * h.P1[k][j] + c2 * h.P2[k][j];
      for (int q = 0; q < j; ++q) v -= L[k][q] * L[j][q] * dpiv[q];
      L[k][j] = v / dpiv[j];
    }
  }
  double x[N];
  quad = 0;
  for (int j = 0; j < N; ++j) {
    double v = Re[j];
    for (int q = 0; q < j; ++q) v -= L[j][q] * x[q];
    x[j] = v;
    quad += v * v / dpiv[j];
  }
  log_det = std::log1p(det_m1);
  return true;
}

// D_α(N(m₁,V₁) ‖ N(m₂,V₂)) when c1 = 1 − α, c2 = α (forward), or D_α(P₂ ‖ P₁) when c1 = α,
// c2 = 1 − α (the paper's printed order). +inf when M is not positive definite.
double divergence_from(
    const factor& f, const halves& h, const pair_sums& p, double alpha, double c1, double c2) {
  double log_det = 0, quad = 0;
  bool ok = true;
  switch (f.rank) {
    case 4:
      ok = ldl<4>(h, f.Re, c1, c2, log_det, quad);
      break;
    case 3:
      ok = ldl<3>(h, f.Re, c1, c2, log_det, quad);
      break;
    case 2:
      ok = ldl<2>(h, f.Re, c1, c2, log_det, quad);
      break;
    case 1:
      ok = ldl<1>(h, f.Re, c1, c2, log_det, quad);
      break;
    default:
      break;  // K = 0: M = D, log det and the quadratic form vanish
  }
  if (!ok) return std::isnan(log_det) ? NAN : kInf;  // M not positive definite
  // Gil et al. (2013) (GAL13) in the correct order (docs/findings.md): with M = αV₂ + (1−α)V₁,
  // D_α = (α/2)ΔᵀM⁻¹Δ − [ln det M − (1−α) ln det V₁ − α ln det V₂]/(2(α−1)); ln det D cancels.
  return 0.5 * alpha * quad - (log_det - c1 * p.ld1 - c2 * p.ld2) / (2 * (alpha - 1));
}

// ---- releases: which blocks, and the per-group weights at s (docs/hsgd.md) ----------------------

enum class release_kind { last_iterate, iterates, average };

struct release {
  release_kind kind = release_kind::last_iterate;
  std::vector<double> times;  // t_1 < … < t_J
  std::vector<double> Gamma;  // Γ(t_j)
  std::vector<double> w;      // w_g(t_j) at [j·r + g]
};

release make_release(const gaussian_law& law, release_kind kind, std::span<const double> times) {
  release rel;
  rel.kind = kind;
  rel.times.assign(times.begin(), times.end());
  const std::size_t r = law.group_count();
  rel.w.resize(times.size() * r);
  for (std::size_t j = 0; j < times.size(); ++j) {
    rel.Gamma.push_back(law.Gamma(times[j]));
    law.group_variances(times[j], std::span<double>(rel.w.data() + j * r, r));
  }
  return rel;
}

// Evaluates (α − 1)·D_α(release; s, θ) for every pair θ at one s ≤ t_J, sharing all work that
// does not depend on the pair; buffers are allocated once.
class evaluator {
 public:
  evaluator(const gaussian_law& law,
            const prepared& P,
            const release& rel,
            double alpha,
            renyi_order order)
      : law_(law),
        P_(P),
        rel_(rel),
        alpha_(alpha),
        order_(order),
        per_pair_(order == renyi_order::symmetric ? 2 : 1) {
    const std::size_t r = P.r;
    W_.resize(r);
    phis_.resize(r);
    wvv_.resize(r);
    wvu_.resize(r);
    wuu_.resize(r);
    res_.resize(P.n);
    q_.resize(P.n);
    kvv_.resize(P.n);
    kvu_.resize(P.n);
    kuu_.resize(P.n);
    ld_.resize(P.n);
    lead_.resize(P.n);
    if (!P.stored) {
      cvv_.resize(P.A.rows());
      cvu_.resize(P.A.rows());
      cuu_.resize(P.A.rows());
      Bvv_.resize(P.A.rows(), P.A.cols());
      Bvu_.resize(P.A.rows(), P.A.cols());
      Buu_.resize(P.A.rows(), P.A.cols());
    }
    d_ = static_cast<double>(law.dimension());
    delta_ = law.problem().ridge;
    sigma2_ = law.problem().sigma * law.problem().sigma;
  }

  // The candidates are the pairs, or with renyi_order::symmetric each pair in both orders
  // (candidate 2q: D_α(P₁‖P₂) of pair q, 2q + 1: D_α(P₂‖P₁)), so that the sup over candidates
  // is a max of smooth functions of s.
  [[nodiscard]] std::size_t candidates() const { return P_.m * per_pair_; }
  [[nodiscard]] std::size_t per_pair() const { return per_pair_; }

  // Fills g[c] = (α − 1)·D_α(candidate c) and returns max_c g (NaN if any is NaN).
  double evaluate(double s, std::span<double> g) {
    at(s);
    double sup = -kInf;
    bool nan = false;
    for (std::size_t q = 0; q < P_.m; ++q) {
      double* v = g.data() + q * per_pair_;
      pair_values(q, v);
      for (std::size_t k = 0; k < per_pair_; ++k) {
        if (std::isnan(v[k])) nan = true;
        sup = std::max(sup, v[k]);
      }
    }
    return nan ? NAN : sup;
  }

  // (α − 1)·D_α of one candidate at s (the per-record work is redone: O(#records·#groups)).
  double evaluate_one(double s, std::size_t c) {
    at(s);
    double v[2];
    pair_values(c / per_pair_, v);
    return v[c % per_pair_];
  }

 private:
  // The pair-independent work at s: w(s), m(s), the weights, and per record the residual
  // r = b − aᵀm(s), m(s) = x⋆ + e^{−κΓ(s)}(x0 − x⋆) (LKSP25 (12)–(13)), q = aᵀW a, and the record's
  // own K blocks.
  void at(double s) {
    const std::size_t r = P_.r;
    const double Gs = law_.schedule().integral(s);
    law_.group_variances(s, W_);
    for (std::size_t k = 0; k < r; ++k) phis_[k] = std::exp(-law_.kappa(k) * Gs);
    const double h = law_.schedule().rate(s) / d_;  // LKSP25 §4.2: step γ(s)/d at time s
    weights(s, Gs, h);
    for (std::size_t j = 0; j < P_.n; ++j) {
      const double* S = P_.S.data() + j * r;
      const double* E = P_.E.data() + j * r;
      double am = P_.c[j], q = 0, kvv = 0, kvu = 0, kuu = 0;
      for (std::size_t k = 0; k < r; ++k) {
        am += phis_[k] * E[k];
        q += W_[k] * S[k];
        kvv += wvv_[k] * S[k];
        kvu += wvu_[k] * S[k];
        kuu += wuu_[k] * S[k];
      }
      res_[j] = P_.b[j] - am;
      q_[j] = q;
      kvv_[j] = kvv;
      kvu_[j] = kvu;
      kuu_[j] = kuu;
      ld_[j] = own_logdet(kvv, kvu, kuu, q);
      lead_[j] = make_lead_block(kvv, kvu, kuu);
    }
    if (!P_.stored) weighted_columns();
  }

  void pair_values(std::size_t q, double* out) {
    const std::size_t r = P_.r;
    const std::size_t i1 = P_.p1[q], i2 = P_.p2[q];
    double xvv = 0, xvu = 0, xuu = 0;
    if (P_.stored) {
      const double* X = P_.X.data() + q * r;
      for (std::size_t k = 0; k < r; ++k) {
        xvv += wvv_[k] * X[k];
        xvu += wvu_[k] * X[k];
        xuu += wuu_[k] * X[k];
      }
    } else {
      const auto c1 = static_cast<Eigen::Index>(i1), c2 = static_cast<Eigen::Index>(i2);
      xvv = Bvv_.col(c1).dot(P_.A.col(c2));
      xvu = Bvu_.col(c1).dot(P_.A.col(c2));
      xuu = Buu_.col(c1).dot(P_.A.col(c2));
    }
    const pair_sums p{kvv_[i1], kvu_[i1], kuu_[i1], kvv_[i2], kvu_[i2], kuu_[i2], xvv,    xvu,
                      xuu,      q_[i1],   q_[i2],   res_[i1], res_[i2], ld_[i1],  ld_[i2]};
    factor f;
    factorise(p, lead_[i1], f);
    halves h;
    form_halves(f, p, h);
    const double a = alpha_, am1 = alpha_ - 1;
    switch (order_) {
      case renyi_order::forward:
        out[0] = am1 * divergence_from(f, h, p, a, 1 - a, a);
        break;
      case renyi_order::paper:
        out[0] = am1 * divergence_from(f, h, p, a, a, 1 - a);
        break;
      case renyi_order::symmetric:
        out[0] = am1 * divergence_from(f, h, p, a, 1 - a, a);
        out[1] = am1 * divergence_from(f, h, p, a, a, 1 - a);
        break;
    }
  }

  // Cross sums without stored group sums: per node each record's weighted columns ω_xy∘a (one
  // pass over the records), then three length-d dot products per pair (Eigen, vectorised).
  void weighted_columns() {
    for (std::size_t g = 0; g < P_.r; ++g)
      for (std::size_t p = P_.group_start[g]; p < P_.group_start[g + 1]; ++p) {
        const Eigen::Index k = static_cast<Eigen::Index>(p);
        cvv_[k] = wvv_[g];
        cvu_[k] = wvu_[g];
        cuu_[k] = wuu_[g];
      }
    Bvv_.noalias() = cvv_.asDiagonal() * P_.A;
    Bvu_.noalias() = cvu_.asDiagonal() * P_.A;
    Buu_.noalias() = cuu_.asDiagonal() * P_.A;
  }

  // Per-group weights ω_xy = x_kᵀ(Cov of the base chain)⁻¹y_k for x, y ∈ {ν, μ}, where the
  // process-i correction is v_i = ν∘a_i, u_i = μ∘a_i stacked over the kept release blocks
  // (docs/hsgd.md). Base chain per coordinate (common to both processes, C_i replaced by βI):
  //   same side of s:  F = φ(τ′,τ),           Q = w(τ′) − F²w(τ)
  //   crossing s:      F = ψβφ(s,τ),  ψ = φ(τ′,s),
  //                    Q = ψ²(β²(w(s) − φ(s,τ)²w(τ)) + h²σ²) + w(τ′) − ψ²w(s)
  //   from t = 0:      Q = w(τ) (before s) or the single-time D of renyi_divergence (after s),
  // and ν = w(τ)φ(s,τ), μ = 0 before s; ν = βφ(τ,s)w(s), μ = −hφ(τ,s) after s. Noise increments
  // are clamped at 0 against interpolation rounding (each is ≥ 0 exactly).
  //  * iterates: ω_xy = Σ_r (x_r − F_r x_{r−1})(y_r − F_r y_{r−1})/Q_r (the chain's precision in
  //    innovations form). Between two post-s blocks the innovations vanish identically
  //    (ν, μ ∝ φ(τ,s) and F = φ(τ′,τ)): both processes follow the same dynamics after the jump,
  //    so only the blocks around s carry information, and those terms are set to 0 exactly.
  //  * average: Ā = (1/J)(𝟏ᵀ⊗I) gives the scalar D̄ = J⁻²𝟏ᵀK𝟏 per coordinate (by the recursion
  //    c_r = Var_r + F_r c_{r−1}, 𝟏ᵀK𝟏 = Σ(2c_r − Var_r)) and ν̄ = Σν/J, μ̄ = Σμ/J, ω = ν̄ȳ/D̄.
  void weights(double s, double Gs, double h) {
    const std::size_t r = P_.r;
    const double beta = 1 - h * delta_;
    const double hs2 = h * h * sigma2_;
    const std::size_t J = rel_.times.size();
    std::size_t first = 0;
    if (rel_.kind != release_kind::average) {
      std::size_t l = 0;  // first release block at or after s
      while (l < J && rel_.times[l] < s) ++l;
      first = l > 0 ? l - 1 : 0;
    }
    for (std::size_t g = 0; g < r; ++g) {
      const double kap = law_.kappa(g), W = W_[g];
      double vv = 0, vu = 0, uu = 0;
      double prev_nu = 0, prev_mu = 0, prev_w = 0, prev_G = 0;
      bool prev_pre = false;
      double var = 0, csum = 0, total = 0, nu_sum = 0, mu_sum = 0;
      for (std::size_t j = first; j < J; ++j) {
        const double tau_w = rel_.w[j * r + g], tau_G = rel_.Gamma[j];
        const bool pre = rel_.times[j] < s;
        double nu, mu, psi = 1;
        if (pre) {
          nu = tau_w * std::exp(-kap * (Gs - tau_G));
          mu = 0;
        } else {
          psi = std::exp(-kap * (tau_G - Gs));
          nu = beta * psi * W;
          mu = -h * psi;
        }
        double F, Q;
        if (j == first) {
          F = 0;
          Q = pre ? tau_w
                  : std::max(0.0, tau_w - psi * psi * W) + psi * psi * (beta * beta * W + hs2);
        } else if (prev_pre == pre) {
          F = std::exp(-kap * (tau_G - prev_G));
          Q = std::max(0.0, tau_w - F * F * prev_w);
        } else {
          const double back = std::exp(-kap * (Gs - prev_G));
          F = psi * beta * back;
          Q = psi * psi * (beta * beta * std::max(0.0, W - back * back * prev_w) + hs2) +
              std::max(0.0, tau_w - psi * psi * W);
        }
        if (rel_.kind == release_kind::average) {
          var = F * F * var + Q;
          csum = var + F * csum;
          total += 2 * csum - var;
          nu_sum += nu;
          mu_sum += mu;
        } else if (j == first || pre || prev_pre) {
          const double in_nu = nu - F * prev_nu, in_mu = mu - F * prev_mu;
          vv += in_nu * in_nu / Q;
          vu += in_nu * in_mu / Q;
          uu += in_mu * in_mu / Q;
        }
        prev_nu = nu;
        prev_mu = mu;
        prev_w = tau_w;
        prev_G = tau_G;
        prev_pre = pre;
      }
      if (rel_.kind == release_kind::average) {
        const double Jd = static_cast<double>(J);
        const double Dbar = total / (Jd * Jd), nb = nu_sum / Jd, mb = mu_sum / Jd;
        vv = nb * nb / Dbar;
        vu = nb * mb / Dbar;
        uu = mb * mb / Dbar;
      }
      wvv_[g] = vv;
      wvu_[g] = vu;
      wuu_[g] = uu;
    }
  }

  const gaussian_law& law_;
  const prepared& P_;
  const release& rel_;
  double alpha_;
  renyi_order order_;
  std::size_t per_pair_;
  double d_ = 1, delta_ = 0, sigma2_ = 0;
  std::vector<double> W_, phis_, wvv_, wvu_, wuu_, res_, q_, kvv_, kvu_, kuu_, ld_;
  std::vector<lead_block> lead_;     // process 1's Cholesky block per record
  Eigen::VectorXd cvv_, cvu_, cuu_;  // weights per (group-sorted) coordinate
  Eigen::MatrixXd Bvv_, Bvu_, Buu_;  // weighted record columns (on-the-fly cross sums)
};

// ---- single evaluations ------------------------------------------------------------------------

double single_divergence(const char* fn,
                         const gaussian_law& law,
                         const record& first,
                         const record& second,
                         release_kind kind,
                         std::span<const double> times,
                         double s,
                         double alpha,
                         renyi_order order) {
  check_law(fn, law);
  check_alpha(fn, alpha);
  check_record(fn, "first", first, law);
  check_record(fn, "second", second, law);
  check_time_in(fn, "s", s, law);
  if (s > times.back()) return 0;  // LKSP25 Thm 4.3: the processes coincide before s
  Eigen::MatrixXd features(2, law.dimension());
  features.row(0) = first.a.transpose();
  features.row(1) = second.a.transpose();
  const Eigen::VectorXd labels = Eigen::Vector2d(first.b, second.b);
  const record_pair pair{0, 1};
  const prepared P = prepare(law, features, labels, std::span<const record_pair>(&pair, 1));
  const release rel = make_release(law, kind, times);
  evaluator ev(law, P, rel, alpha, order);
  double g[2] = {0, 0};
  return ev.evaluate(s, std::span<double>(g, ev.candidates())) / (alpha - 1);
}

// ---- the adaptive s-integral -------------------------------------------------------------------
//
// Global adaptive Gauss–Kronrod (7, 15) (the QUADPACK QAG strategy: bisect the interval with the
// largest error estimate |K₁₅ − G₇| until the total meets the tolerance). The nodes and weights
// are Boost.Math's; the driver is ours because Boost's integrators are scalar-valued, while here
// the sup-over-pairs integrand and every per-pair integrand must share the nodes (each node
// costs O(#pairs) kernels, shared by all components).
struct gk_rule {
  std::array<double, 15> x{}, wk{}, wg{};
  gk_rule() {
    using boost::math::quadrature::gauss;
    using boost::math::quadrature::gauss_kronrod;
    const auto& ax = gauss_kronrod<double, 15>::abscissa();  // 0, then x₁ > … (8 values)
    const auto& kw = gauss_kronrod<double, 15>::weights();
    const auto& gw = gauss<double, 7>::weights();  // at 0 and at the even Kronrod indices
    x[0] = ax[0];
    wk[0] = kw[0];
    wg[0] = gw[0];
    for (std::size_t i = 1; i < 8; ++i) {
      x[2 * i - 1] = ax[i];
      x[2 * i] = -ax[i];
      wk[2 * i - 1] = wk[2 * i] = kw[i];
      wg[2 * i - 1] = wg[2 * i] = i % 2 == 0 ? gw[i / 2] : 0.0;
    }
  }
};

const gk_rule& rule() {
  static const gk_rule r;
  return r;
}

struct mixture_integral : solver_status {
  std::vector<double> value, error;  // ∫ f_c ds over the pieces, per component
  bool infinite = false;             // the sup integrand is +inf somewhere
  double max_g = -kInf;              // largest finite (α−1)D seen
  double inf_at = NAN;
};

// ∫_{pieces} f_c(s) ds, f_c = e^{g_c − shift} − e^{−shift} (expm1(g_c) when shift = 0), with
// component 0 the sup over the candidates and components 1.. the candidates (when per_pair).
//
// Kinks: every candidate's integrand is smooth between the jumps of γ and the release times (the
// initial cuts), but the sup has a kink wherever the maximising candidate changes, and
// there the Gauss–Kronrod error estimate is unreliable (measured: an 8× under-estimate on the
// LKSP25 §5 setup). So an interval whose nodes do not all share (within 1e-12) the maximiser
// of its leftmost node is split at the crossing of the two candidates, found by TOMS 748
// (core/roots.hpp) between the adjacent nodes where the maximiser changes: each side is then
// smooth again and the rule converges at its usual rate.
mixture_integral integrate(evaluator& ev,
                           std::size_t cands,
                           const std::vector<double>& cuts,
                           double shift,
                           const mixture_options& o,
                           double T) {
  const gk_rule& R = rule();
  const std::size_t nc = 1 + (o.per_pair ? cands : 0);
  const double end = cuts.back();
  mixture_integral out;
  std::vector<double> g(cands), gnode(15 * cands), sups(15);
  std::vector<std::pair<double, double>> iv, pending;
  std::vector<double> est, err;  // per interval × component
  std::vector<double> K(nc), G(nc), A(nc), fv(15 * nc);
  const double e_shift = std::exp(-shift);
  auto f = [&](double gv) { return shift == 0 ? std::expm1(gv) : std::exp(gv - shift) - e_shift; };
  // The Kronrod nodes in increasing s (R.x: 0, then ±x₁ > ±x₂ > …).
  static constexpr std::array<std::size_t, 15> by_s = {2,  4,  6, 8, 10, 12, 14, 0,
                                                       13, 11, 9, 7, 5,  3,  1};
  enum class outcome { stored, split, stop };
  // Evaluates [a, b]: appends it to iv/est/err, or asks for a split at `split` (a kink of the
  // sup), or stops (NaN, or the sup is +inf).
  // Kink detection runs twice: first on 5 of the 15 nodes (spread over the interval), so that an
  // interval with a kink between them is split after 5 evaluations instead of 15 (measured on
  // the LKSP25 §5 setup: 24 % fewer evaluations); then on all 15, as before.
  static constexpr std::array<std::size_t, 5> probes = {0, 4, 7, 10, 14};  // positions in by_s
  auto eval = [&](double a, double b, bool may_split, double& split) {
    const double mid = 0.5 * (a + b), half = 0.5 * (b - a);
    // Evaluates Kronrod node i; false (and out says why) on NaN or +inf.
    auto node = [&](std::size_t i) {
      const double s = mid + half * R.x[i];
      const double sup = ev.evaluate(s, g);
      ++out.evaluations;
      if (std::isnan(sup)) {
        out.termination = termination_type::failure;
        out.message = "a Rényi divergence is NaN at s = " + format_value(s);
        return false;
      }
      if (sup == kInf) {
        out.infinite = true;
        out.inf_at = s;
        return false;
      }
      out.max_g = std::max(out.max_g, sup);
      sups[i] = sup;
      std::copy(g.begin(), g.end(), gnode.begin() + static_cast<std::ptrdiff_t>(i * cands));
      fv[i * nc] = f(sup);
      for (std::size_t c = 1; c < nc; ++c) fv[i * nc + c] = f(g[c - 1]);
      return true;
    };
    // A kink among the evaluated nodes `order` (increasing s): the first node whose sup is not
    // attained by the first node's maximiser, the crossing found between it and its predecessor.
    auto kink = [&](const std::size_t* order, std::size_t count) {
      auto leader = [&](std::size_t n) {
        const double* gn = gnode.data() + n * cands;
        return static_cast<std::size_t>(std::max_element(gn, gn + cands) - gn);
      };
      const std::size_t lead = leader(order[0]);
      for (std::size_t k = 1; k < count; ++k) {
        const std::size_t j = order[k];
        if (!(sups[j] - gnode[j * cands + lead] > 1e-12 * std::abs(sups[j]))) continue;
        const std::size_t other = leader(j);
        const double lo = mid + half * R.x[order[k - 1]], hi = mid + half * R.x[j];
        auto gap = [&](double s) { return ev.evaluate_one(s, lead) - ev.evaluate_one(s, other); };
        double at = lo;
        if (gap(lo) > 0) {
          root_options ro;
          ro.absolute_tolerance = 1e-10 * (b - a);
          ro.max_evaluations = 60;
          const root_result rr = find_root(gap, lo, hi, ro);
          at = rr.termination == termination_type::failure ? 0.5 * (lo + hi) : rr.root;
        }
        if (at - a > 1e-9 * (b - a) && b - at > 1e-9 * (b - a)) {
          split = at;
          return true;
        }
        return false;
      }
      return false;
    };
    std::array<bool, 15> done{};
    std::array<std::size_t, 5> probe_nodes{};
    for (std::size_t k = 0; k < probes.size(); ++k) {
      probe_nodes[k] = by_s[probes[k]];
      if (!node(probe_nodes[k])) return outcome::stop;
      done[probe_nodes[k]] = true;
    }
    const bool check = may_split && cands > 1;
    if (check && kink(probe_nodes.data(), probe_nodes.size())) return outcome::split;
    for (std::size_t i = 0; i < 15; ++i)
      if (!done[i] && !node(i)) return outcome::stop;
    if (check && kink(by_s.data(), by_s.size())) return outcome::split;
    std::fill(K.begin(), K.end(), 0.0);
    std::fill(G.begin(), G.end(), 0.0);
    for (std::size_t i = 0; i < 15; ++i)
      for (std::size_t c = 0; c < nc; ++c) {
        K[c] += R.wk[i] * fv[i * nc + c];
        G[c] += R.wg[i] * fv[i * nc + c];
      }
    // QUADPACK's error estimate (dqk15; Piessens et al. 1983, §2.2.1): with resasc = ∫|f − mean|
    // by the Kronrod rule, err = resasc·min(1, (200|K − G|/resasc)^{3/2}) — more cautious than
    // |K − G| until the rule is in its asymptotic regime.
    std::fill(A.begin(), A.end(), 0.0);
    for (std::size_t i = 0; i < 15; ++i)
      for (std::size_t c = 0; c < nc; ++c) A[c] += R.wk[i] * std::abs(fv[i * nc + c] - 0.5 * K[c]);
    iv.emplace_back(a, b);
    for (std::size_t c = 0; c < nc; ++c) {
      const double resasc = half * A[c];
      double e = std::abs(half * (K[c] - G[c]));
      if (resasc > 0 && e > 0) e = resasc * std::min(1.0, std::pow(200 * e / resasc, 1.5));
      est.push_back(half * K[c]);
      err.push_back(std::max(e, 50 * kEps * std::abs(half * K[c])));
    }
    return outcome::stored;
  };
  // Evaluates every pending interval (splitting at kinks while the budget lasts).
  auto drain = [&]() {
    while (!pending.empty()) {
      const auto [a, b] = pending.back();
      pending.pop_back();
      const bool may_split =
          static_cast<long long>(iv.size() + pending.size()) + 2 <= o.max_intervals &&
          b - a > 1e-10 * end;
      double split = NAN;
      switch (eval(a, b, may_split, split)) {
        case outcome::stored:
          break;
        case outcome::split:
          pending.emplace_back(split, b);
          pending.emplace_back(a, split);
          break;
        case outcome::stop:
          return false;
      }
    }
    return true;
  };
  for (std::size_t i = cuts.size() - 1; i > 0; --i) pending.emplace_back(cuts[i - 1], cuts[i]);
  if (!drain()) return out;
  out.value.assign(nc, 0);
  out.error.assign(nc, 0);
  while (true) {
    std::fill(out.value.begin(), out.value.end(), 0.0);
    std::fill(out.error.begin(), out.error.end(), 0.0);
    for (std::size_t i = 0; i < iv.size(); ++i)
      for (std::size_t c = 0; c < nc; ++c) {
        out.value[c] += est[i * nc + c];
        out.error[c] += err[i * nc + c];
      }
    // Tolerance on (1/T)∫: max(absolute, relative·value), the same for every component.
    const double tol =
        std::max(o.absolute_tolerance * T, o.relative_tolerance * std::abs(out.value[0]));
    const double worst_total = *std::max_element(out.error.begin(), out.error.end());
    if (worst_total <= tol) return out;
    if (static_cast<long long>(iv.size()) >= o.max_intervals) {
      out.termination = termination_type::max_iterations;
      out.message = "the s-integral used max_intervals = " + format_value(o.max_intervals) +
                    " Gauss-Kronrod intervals; estimated error " + format_value(worst_total / T) +
                    " > tolerance " + format_value(tol / T);
      return out;
    }
    std::size_t worst = 0;
    double worst_err = -1;
    for (std::size_t i = 0; i < iv.size(); ++i) {
      const double e = *std::max_element(err.begin() + static_cast<std::ptrdiff_t>(i * nc),
                                         err.begin() + static_cast<std::ptrdiff_t>((i + 1) * nc));
      if (e > worst_err) {
        worst_err = e;
        worst = i;
      }
    }
    const auto [a, b] = iv[worst];
    const double mid = 0.5 * (a + b);
    if (!(mid > a && mid < b)) {  // the interval cannot be split further in double precision
      out.termination = termination_type::max_iterations;
      out.message =
          "the s-integral cannot refine below the resolution of double at s = " + format_value(a);
      return out;
    }
    // Remove the worst interval (the last one moves into its slot), then evaluate its halves.
    const std::size_t last = iv.size() - 1;
    if (worst != last) {
      iv[worst] = iv[last];
      std::copy(est.begin() + static_cast<std::ptrdiff_t>(last * nc), est.end(),
                est.begin() + static_cast<std::ptrdiff_t>(worst * nc));
      std::copy(err.begin() + static_cast<std::ptrdiff_t>(last * nc), err.end(),
                err.begin() + static_cast<std::ptrdiff_t>(worst * nc));
    }
    iv.pop_back();
    est.resize(last * nc);
    err.resize(last * nc);
    pending.emplace_back(mid, b);
    pending.emplace_back(a, mid);
    if (!drain()) return out;
  }
}

// The initial partition of [0, end]: the schedule's jumps (the integrand jumps with h = γ(s)/d),
// the release times before end (blocks change sides there), points graded geometrically
// towards 0 (where w(s) rises from 0) and one point before end (the fresh-jump end), on the
// fastest relaxation scale 1/(2γκ_max) of the eigen-variances. (Measured on the LKSP25 §5
// setup: without the graded points the rule converged falsely at one release time, by 1e-6.)
std::vector<double> initial_cuts(const gaussian_law& law, const release& rel, double end) {
  std::vector<double> cuts{0.0, end};
  for (double b : law.schedule().breakpoints(end)) cuts.push_back(b);
  for (double t : rel.times)
    if (t < end) cuts.push_back(t);
  double kappa_max = 0;
  for (std::size_t g = 0; g < law.group_count(); ++g) kappa_max = std::max(kappa_max, law.kappa(g));
  const double rate = law.schedule().max_rate(end) * kappa_max;
  if (rate > 0) {
    for (double x = 1 / (2 * rate); x < end; x *= 4) cuts.push_back(x);
    if (1 / (2 * rate) < end) cuts.push_back(end - 1 / (2 * rate));
  }
  std::sort(cuts.begin(), cuts.end());
  std::vector<double> out;
  for (double c : cuts)
    if (out.empty() || c - out.back() > 1e-12 * end) out.push_back(c);
  out.back() = end;
  if (out.size() < 2) out = {0.0, end};
  return out;
}

void inherit_law_status(solver_status& s, const gaussian_law& law) {
  if (law.status().termination == termination_type::converged) return;
  s.termination = law.status().termination;
  s.message = "the Gaussian law: " + law.status().message;
}

void merge_status(solver_status& into, const solver_status& from) {
  if (from.termination == termination_type::failure ||
      (from.termination == termination_type::max_iterations &&
       into.termination == termination_type::converged))
    into.termination = from.termination;
  if (!from.message.empty()) into.message += (into.message.empty() ? "" : "; ") + from.message;
  into.evaluations += from.evaluations;
}

std::string vacuous_message(double s, double alpha) {
  std::string m = "alpha*V_2 + (1-alpha)*V_1 is not positive definite at s = ";
  m += format_value(s);
  m += " (D_alpha = +inf): the bound is vacuous at alpha = ";
  m += format_value(alpha);
  return m;
}

// Per-pair ε from the per-component values (component 1 + q·per, and with symmetric order also
// 2 + q·per, the pair's second order), and the worst pair.
template <class Eps>
void assign_pair_epsilons(rdp_value& out, std::size_t per, Eps eps_of) {
  double best = -kInf;
  for (std::size_t q = 0; q < out.pair_epsilons.size(); ++q) {
    out.pair_epsilons[q] = eps_of(1 + q * per);
    if (per == 2) out.pair_epsilons[q] = std::max(out.pair_epsilons[q], eps_of(2 + q * per));
    if (out.pair_epsilons[q] > best) {
      best = out.pair_epsilons[q];
      out.worst_pair = static_cast<long long>(q);
    }
  }
}

// Both mixtures start from `out` with time, pair_epsilons and the law's status set (mixture_rdp).
void continuous_mixture_rdp(rdp_value& out,
                            const gaussian_law& law,
                            const prepared& P,
                            const release& rel,
                            double alpha,
                            const mixture_options& o) {
  const double T = law.horizon();
  const double end = rel.times.back();
  if (end <= 0) {
    out.epsilon = 0;
    out.abs_error = 0;
    return;
  }
  evaluator ev(law, P, rel, alpha, o.order);
  const std::vector<double> cuts = initial_cuts(law, rel, end);
  // exp((α−1)D) overflows beyond ≈ 709: then integrate e^{g − shift} with shift = the largest g
  // seen (log-sum-exp scaling), ε = [shift + log(e^{−shift} + I/T)]/(α − 1).
  double shift = 0;
  mixture_integral I;
  for (int attempt = 0; attempt < 3; ++attempt) {
    I = integrate(ev, ev.candidates(), cuts, shift, o, T);
    if (I.infinite || I.termination == termination_type::failure || I.max_g <= 600) break;
    if (shift >= I.max_g - 100) break;
    shift = I.max_g;
  }
  merge_status(out, I);
  if (I.termination == termination_type::failure) {
    out.epsilon = NAN;
    return;
  }
  if (I.infinite) {
    out.epsilon = kInf;
    out.abs_error = 0;
    std::fill(out.pair_epsilons.begin(), out.pair_epsilons.end(), kInf);
    out.message += (out.message.empty() ? "" : "; ") + vacuous_message(I.inf_at, alpha);
    return;
  }
  auto eps = [&](double value) {
    // (T − t)/T + (1/T)∫e^{(α−1)D} = 1 + e^{shift}·I/T (LKSP25 eq. (15))
    const double total =
        shift == 0 ? std::log1p(value / T) : shift + std::log(std::exp(-shift) + value / T);
    return total / (alpha - 1);
  };
  out.epsilon = eps(I.value[0]);
  out.abs_error = std::abs(eps(I.value[0] + I.error[0]) - out.epsilon);
  if (o.per_pair)
    assign_pair_epsilons(out, ev.per_pair(), [&](std::size_t c) { return eps(I.value[c]); });
  return;
}

// The discrete mixture (position_mixture::discrete, docs/hsgd.md): with n = T·d steps and
// the differing record at step ℓ ~ U{1..n}, entering at s_ℓ = (ℓ − 1)/d, Lemma C.3 with the
// uniform law on the n positions gives
//   e^{(α−1)ε} ≤ (1/n)[#{ℓ : s_ℓ ≥ t} + Σ_{ℓ: s_ℓ < t} e^{(α−1)D(s_ℓ)}] = 1 + (1/n)Σ expm1(g_ℓ),
// summed exactly (expm1 for accuracy at small g; log-sum-exp form once some g exceeds 600).
void discrete_mixture_rdp(rdp_value& out,
                          const gaussian_law& law,
                          const prepared& P,
                          const release& rel,
                          double alpha,
                          const mixture_options& o) {
  const double d = static_cast<double>(law.dimension());
  const auto n = static_cast<long long>(std::llround(law.horizon() * d));
  // Steps with s_ℓ = (ℓ − 1)/d < t_J: ℓ − 1 < t_J·d (t_J·d is an integer up to rounding).
  const long long m =
      std::clamp<long long>(static_cast<long long>(std::ceil(out.time * d - 1e-9)), 0, n);
  evaluator ev(law, P, rel, alpha, o.order);
  const std::size_t cands = ev.candidates();
  const std::size_t nc = 1 + (o.per_pair ? cands : 0);
  std::vector<double> g(cands), small(nc, 0.0), big(nc, 0.0), top(nc, -kInf);
  auto add = [&](std::size_t c, double v) {
    small[c] += std::expm1(v);
    if (v > top[c]) {
      big[c] = big[c] * std::exp(top[c] - v) + 1;
      top[c] = v;
    } else {
      big[c] += std::exp(v - top[c]);
    }
  };
  for (long long l = 1; l <= m; ++l) {
    const double s = static_cast<double>(l - 1) / d;
    const double sup = ev.evaluate(s, g);
    ++out.evaluations;
    if (std::isnan(sup)) {
      out.termination = termination_type::failure;
      out.message = "a Rényi divergence is NaN at s = " + format_value(s);
      out.epsilon = NAN;
      return;
    }
    if (sup == kInf) {
      out.epsilon = kInf;
      out.abs_error = 0;
      std::fill(out.pair_epsilons.begin(), out.pair_epsilons.end(), kInf);
      out.message += (out.message.empty() ? "" : "; ") + vacuous_message(s, alpha);
      return;
    }
    add(0, sup);
    for (std::size_t c = 1; c < nc; ++c) add(c, g[c - 1]);
  }
  const auto nd = static_cast<double>(n);
  auto eps = [&](std::size_t c) {
    if (m == 0) return 0.0;
    const double total =
        top[c] <= 600
            ? std::log1p(small[c] / nd)
            : top[c] + std::log(static_cast<double>(n - m) * std::exp(-top[c]) / nd + big[c] / nd);
    return total / (alpha - 1);
  };
  out.epsilon = eps(0);
  out.abs_error = 0;  // an exact finite sum: no quadrature error
  if (o.per_pair) assign_pair_epsilons(out, ev.per_pair(), eps);
  return;
}

rdp_value mixture_rdp(const gaussian_law& law,
                      const prepared& P,
                      const release& rel,
                      double alpha,
                      const mixture_options& o) {
  rdp_value out;
  out.time = rel.times.back();
  if (o.per_pair) out.pair_epsilons.assign(P.m, 0.0);
  inherit_law_status(out, law);
  if (out.termination == termination_type::failure) {
    out.epsilon = NAN;
    return out;
  }
  if (o.positions == position_mixture::discrete)
    discrete_mixture_rdp(out, law, P, rel, alpha, o);
  else
    continuous_mixture_rdp(out, law, P, rel, alpha, o);
  out.law_error =
      std::isfinite(out.epsilon) ? std::abs(out.epsilon) * law.interpolation_error() : 0.0;
  return out;
}

}  // namespace

std::string_view to_string(position_mixture m) noexcept {
  return m == position_mixture::discrete ? "discrete" : "continuous";
}

std::string_view to_string(renyi_order o) noexcept {
  switch (o) {
    case renyi_order::forward:
      return "forward";
    case renyi_order::paper:
      return "paper";
    case renyi_order::symmetric:
      return "symmetric";
  }
  return "?";
}

Eigen::MatrixXd neighbouring_law::covariance(int process) const {
  if (process != 1 && process != 2)
    throw_domain_error("neighbouring_law::covariance", "process",
                       format_value(static_cast<long long>(process)), "1 or 2");
  const Eigen::MatrixXd& L = process == 1 ? factor1 : factor2;
  const Eigen::Matrix2d& S = process == 1 ? core1 : core2;
  Eigen::MatrixXd V = L * S * L.transpose();
  V.diagonal() += base;
  return V;
}

neighbouring_law neighbouring_processes(
    const gaussian_law& law, const record& first, const record& second, double t, double s) {
  constexpr const char* fn = "neighbouring_processes";
  check_law(fn, law);
  check_record(fn, "first", first, law);
  check_record(fn, "second", second, law);
  check_time_in(fn, "t", t, law);
  check_time_in(fn, "s", s, law);
  if (s > t)
    throw_domain_error(fn, "s", s, "<= t = " + format_value(t) + " (else the processes coincide)");
  const long long d = law.dimension();
  const std::vector<int>& group = law.group_of();
  const double h = law.schedule().rate(s) / static_cast<double>(d);  // LKSP25 §4.2
  const double delta = law.problem().ridge, sigma2 = law.problem().sigma * law.problem().sigma;
  const double beta = 1 - h * delta;
  const double dG = law.Gamma(t) - law.Gamma(s);
  const Eigen::VectorXd ws = law.variances(s), wt = law.variances(t);
  const Eigen::VectorXd ms = law.mean(s), mt = law.mean(t);
  Eigen::VectorXd psi(d);
  for (Eigen::Index k = 0; k < d; ++k)
    psi[k] =
        std::exp(-law.kappa(static_cast<std::size_t>(group[static_cast<std::size_t>(k)])) * dG);
  neighbouring_law out;
  out.t = t;
  out.s = s;
  // D = w(t) − (1 − β²)ψ²w(s) + h²σ²ψ², written as the (≥ 0) noise increment
  // w(t) − ψ²w(s) plus the propagated jump ψ²(β²w(s) + h²σ²).
  out.base =
      (wt - psi.cwiseAbs2().cwiseProduct(ws)).cwiseMax(0.0) +
      psi.cwiseAbs2().cwiseProduct(beta * beta * ws + Eigen::VectorXd::Constant(d, h * h * sigma2));
  auto one = [&](const record& rec, Eigen::VectorXd& mean, Eigen::MatrixXd& L, Eigen::Matrix2d& S) {
    const Eigen::VectorXd a = law.basis().to_eigen(rec.a);
    const double res = rec.b - a.dot(ms);  // r_i = b_i − a_iᵀm(s)
    // m_i(t; s) = m(t) + ψ∘(−hδ m(s) + h r_i a_i) (LKSP25 (12)–(13)).
    mean = mt + psi.cwiseProduct(-h * delta * ms + h * res * a);
    L.resize(d, 2);
    L.col(0) = beta * psi.cwiseProduct(ws).cwiseProduct(a);  // v_i
    L.col(1) = -h * psi.cwiseProduct(a);                     // u_i
    S << 0, 1, 1, a.cwiseAbs2().dot(ws);                     // q_i = a_iᵀW a_i
  };
  one(first, out.mean1, out.factor1, out.core1);
  one(second, out.mean2, out.factor2, out.core2);
  return out;
}

double renyi_divergence(const gaussian_law& law,
                        const record& first,
                        const record& second,
                        double t,
                        double s,
                        double alpha,
                        renyi_order order) {
  constexpr const char* fn = "renyi_divergence";
  check_time_in(fn, "t", t, law);
  return single_divergence(fn, law, first, second, release_kind::last_iterate,
                           std::span<const double>(&t, 1), s, alpha, order);
}

double renyi_divergence_iterates(const gaussian_law& law,
                                 const record& first,
                                 const record& second,
                                 std::span<const double> times,
                                 double s,
                                 double alpha,
                                 renyi_order order) {
  constexpr const char* fn = "renyi_divergence_iterates";
  check_release_times(fn, times, law);
  return single_divergence(fn, law, first, second, release_kind::iterates, times, s, alpha, order);
}

double renyi_divergence_average(const gaussian_law& law,
                                const record& first,
                                const record& second,
                                std::span<const double> times,
                                double s,
                                double alpha,
                                renyi_order order) {
  constexpr const char* fn = "renyi_divergence_average";
  check_release_times(fn, times, law);
  return single_divergence(fn, law, first, second, release_kind::average, times, s, alpha, order);
}

rdp_trajectory last_iterate_rdp(const gaussian_law& law,
                                const dataset& data,
                                std::span<const record_pair> pairs,
                                std::span<const double> times,
                                double alpha,
                                const mixture_options& options) {
  constexpr const char* fn = "last_iterate_rdp";
  check_law(fn, law);
  check_alpha(fn, alpha);
  check_dataset(fn, data, law);
  check_pairs(fn, pairs, static_cast<long long>(data.features.rows()));
  check_options(fn, options);
  check_positions(fn, options, law);
  for (std::size_t j = 0; j < times.size(); ++j)
    check_time_in(fn, ("times[" + std::to_string(j) + "]").c_str(), times[j], law);
  const prepared P = prepare(law, data.features, data.labels, pairs);
  rdp_trajectory out;
  out.alpha = alpha;
  out.order = options.order;
  out.times.assign(times.begin(), times.end());
  // The release times are independent: one OpenMP task each (dynamic: late times need more
  // nodes). Every value is computed exactly as in a serial loop, so results do not depend on
  // the number of threads; statuses are merged in time order afterwards.
  std::vector<rdp_value> values(times.size());
  std::vector<std::exception_ptr> errors(times.size());
  const auto count = static_cast<long long>(times.size());
#pragma omp parallel for schedule(dynamic)
  for (long long j = 0; j < count; ++j) {
    try {
      const double t = times[static_cast<std::size_t>(j)];
      const release rel =
          make_release(law, release_kind::last_iterate, std::span<const double>(&t, 1));
      values[static_cast<std::size_t>(j)] = mixture_rdp(law, P, rel, alpha, options);
    } catch (...) {
      errors[static_cast<std::size_t>(j)] = std::current_exception();
    }
  }
  for (const auto& e : errors)
    if (e) std::rethrow_exception(e);
  for (std::size_t j = 0; j < values.size(); ++j) {
    solver_status st = values[j];
    if (!st.message.empty()) st.message = "t = " + format_value(times[j]) + ": " + st.message;
    merge_status(out, st);
    out.values.push_back(std::move(values[j]));
  }
  return out;
}

namespace {
// The shared body of iterates_rdp and average_rdp: checks, then the mixture over s.
rdp_value released_rdp(const char* fn,
                       release_kind kind,
                       const gaussian_law& law,
                       const dataset& data,
                       std::span<const record_pair> pairs,
                       std::span<const double> times,
                       double alpha,
                       const mixture_options& options) {
  check_law(fn, law);
  check_alpha(fn, alpha);
  check_dataset(fn, data, law);
  check_pairs(fn, pairs, static_cast<long long>(data.features.rows()));
  check_options(fn, options);
  check_positions(fn, options, law);
  check_release_times(fn, times, law);
  const prepared P = prepare(law, data.features, data.labels, pairs);
  return mixture_rdp(law, P, make_release(law, kind, times), alpha, options);
}
}  // namespace

rdp_value iterates_rdp(const gaussian_law& law,
                       const dataset& data,
                       std::span<const record_pair> pairs,
                       std::span<const double> times,
                       double alpha,
                       const mixture_options& options) {
  return released_rdp("iterates_rdp", release_kind::iterates, law, data, pairs, times, alpha,
                      options);
}

rdp_value average_rdp(const gaussian_law& law,
                      const dataset& data,
                      std::span<const record_pair> pairs,
                      std::span<const double> times,
                      double alpha,
                      const mixture_options& options) {
  return released_rdp("average_rdp", release_kind::average, law, data, pairs, times, alpha,
                      options);
}

std::vector<record_pair> all_pairs(long long n) {
  check_at_least("all_pairs", "n", n, 2);
  std::vector<record_pair> out;
  out.reserve(static_cast<std::size_t>(n * (n - 1) / 2));
  for (long long i = 0; i < n; ++i)
    for (long long j = i + 1; j < n; ++j) out.push_back({i, j});
  return out;
}

std::vector<record_pair> extreme_label_pairs(const dataset& data, long long count) {
  constexpr const char* fn = "extreme_label_pairs";
  const long long n = data.labels.size();
  if (!data.labels.allFinite()) throw_domain_error(fn, "data.labels", "non-finite", "finite");
  check_at_least(fn, "count", count, 1);
  if (2 * count > n)
    throw_domain_error(fn, "count", format_value(count),
                       "<= n/2 = " + format_value(n / 2) + " (disjoint top and bottom sets)");
  std::vector<long long> order(static_cast<std::size_t>(n));
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](long long a, long long b) { return data.labels[a] > data.labels[b]; });
  std::vector<record_pair> out;
  for (long long i = 0; i < count; ++i)
    for (long long j = 0; j < count; ++j)
      out.push_back(
          {order[static_cast<std::size_t>(i)], order[static_cast<std::size_t>(n - 1 - j)]});
  return out;
}

std::vector<double> mean_gap_proxy(const gaussian_law& law,
                                   const dataset& data,
                                   std::span<const record_pair> pairs,
                                   double s) {
  constexpr const char* fn = "mean_gap_proxy";
  check_dataset(fn, data, law);
  check_pairs(fn, pairs, static_cast<long long>(data.features.rows()));
  check_time_in(fn, "s", s, law);
  const prepared P = prepare(law, data.features, data.labels, pairs);
  std::vector<double> phis(P.r);
  law.group_decay(s, phis);
  std::vector<double> res(P.n);
  for (std::size_t j = 0; j < P.n; ++j) {
    double am = P.c[j];
    for (std::size_t g = 0; g < P.r; ++g) am += phis[g] * P.E[j * P.r + g];
    res[j] = P.b[j] - am;
  }
  const double h = law.schedule().rate(s) / static_cast<double>(law.dimension());
  std::vector<double> out(P.m);
  // ‖m₁(s⁺) − m₂(s⁺)‖ = h‖r₁a₁ − r₂a₂‖, directly over the coordinates (O(d)).
  for (std::size_t q = 0; q < P.m; ++q) {
    const auto a1 = P.A.col(static_cast<Eigen::Index>(P.p1[q]));
    const auto a2 = P.A.col(static_cast<Eigen::Index>(P.p2[q]));
    out[q] = h * (res[P.p1[q]] * a1 - res[P.p2[q]] * a2).norm();
  }
  return out;
}

std::vector<record_pair> top_pairs_by_proxy(const gaussian_law& law,
                                            const dataset& data,
                                            std::span<const record_pair> pairs,
                                            double s,
                                            long long count) {
  check_at_least("top_pairs_by_proxy", "count", count, 1);
  const std::vector<double> proxy = mean_gap_proxy(law, data, pairs, s);
  std::vector<std::size_t> order(pairs.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return proxy[a] > proxy[b]; });
  order.resize(std::min(order.size(), static_cast<std::size_t>(count)));
  std::vector<record_pair> out;
  for (std::size_t i : order) out.push_back(pairs[i]);
  return out;
}

divergence::rdp_epsilon_result epsilon_delta(std::span<const double> alphas,
                                             std::span<const double> rdp_epsilons,
                                             double delta) {
  constexpr const char* fn = "epsilon_delta";
  check_at_least(fn, "alphas.size()", static_cast<long long>(alphas.size()), 1);
  if (rdp_epsilons.size() != alphas.size())
    throw_domain_error(fn, "rdp_epsilons.size()",
                       format_value(static_cast<long long>(rdp_epsilons.size())),
                       "alphas.size() = " + format_value(static_cast<long long>(alphas.size())));
  check_open_probability(fn, "delta", delta);
  std::vector<double> a, e;
  for (std::size_t i = 0; i < alphas.size(); ++i) {
    check_greater(fn, "alphas[" + std::to_string(i) + "]", alphas[i], 1.0);
    check_not_nan(fn, "rdp_epsilons[" + std::to_string(i) + "]", rdp_epsilons[i]);
    if (rdp_epsilons[i] == kInf) continue;
    check_nonnegative(fn, "rdp_epsilons[" + std::to_string(i) + "]", rdp_epsilons[i]);
    a.push_back(alphas[i]);
    e.push_back(rdp_epsilons[i]);
  }
  divergence::rdp_epsilon_result out;
  if (a.empty()) {
    out.value = out.lower = out.upper = kInf;
    out.message = "every order has epsilon_alpha = +inf";
  } else {
    out = divergence::rdp_epsilon(divergence::rdp_curve::at_orders(std::move(a), std::move(e)),
                                  delta);
  }
  out.kind = bound_kind::approximation;
  out.tight = false;
  out.message += (out.message.empty() ? "" : "; ") +
                 std::string(
                     "HSGD surrogate (LKSP25): an upper bound for the linearised HSGD "
                     "over the candidate pairs, an approximation for noisy SGD");
  return out;
}

std::vector<divergence::rdp_epsilon_result> last_iterate_epsilon_delta(
    const gaussian_law& law,
    const dataset& data,
    std::span<const record_pair> pairs,
    std::span<const double> times,
    std::span<const double> alphas,
    double delta,
    const mixture_options& options) {
  constexpr const char* fn = "last_iterate_epsilon_delta";
  check_at_least(fn, "alphas.size()", static_cast<long long>(alphas.size()), 1);
  check_open_probability(fn, "delta", delta);
  std::vector<rdp_trajectory> curves;
  for (double a : alphas) curves.push_back(last_iterate_rdp(law, data, pairs, times, a, options));
  std::vector<divergence::rdp_epsilon_result> out;
  for (std::size_t j = 0; j < times.size(); ++j) {
    std::vector<double> eps;
    solver_status st;
    for (const rdp_trajectory& c : curves) {
      eps.push_back(c.values[j].epsilon);
      merge_status(st, c.values[j]);
    }
    if (st.termination == termination_type::failure) {
      divergence::rdp_epsilon_result r;
      r.termination = st.termination;
      r.message = st.message;
      r.kind = bound_kind::approximation;
      out.push_back(r);
      continue;
    }
    divergence::rdp_epsilon_result r = epsilon_delta(alphas, eps, delta);
    if (st.termination != termination_type::converged) r.termination = st.termination;
    if (!st.message.empty()) r.message = st.message + "; " + r.message;
    out.push_back(std::move(r));
  }
  return out;
}

}  // namespace dpkit::hsgd
