// The per-node work of the HSGD privacy surrogate (hsgd/privacy.hpp, docs/hsgd.md): the
// candidate records and pairs reduced to eigen-group sums, the low-rank Rényi kernel of two
// neighbouring Gaussian processes (D + rank ≤ 4: Woodbury and the determinant lemma, in the
// correct order of GAL13 rather than LKSP25's printed one), the release blocks, and the
// evaluator of (α − 1)·D_α for every candidate pair at one entry time s.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <span>
#include <vector>

#include "detail/privacy.hpp"

namespace dpkit::hsgd::detail {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// ---- the candidate records and pairs, reduced to eigen-group sums (detail/privacy.hpp) ---------
constexpr std::size_t kMaxStoredCross = std::size_t{1} << 24;  // doubles (128 MiB)

}  // namespace

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

namespace {

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

}  // namespace

// ---- releases: which blocks, and the per-group weights at s (docs/hsgd.md) ----------------------

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

evaluator::evaluator(
    const gaussian_law& law, const prepared& P, const release& rel, double alpha, renyi_order order)
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

double evaluator::evaluate(double s, std::span<double> g) {
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

double evaluator::evaluate_one(double s, std::size_t c) {
  at(s);
  double v[2];
  pair_values(c / per_pair_, v);
  return v[c % per_pair_];
}

// The pair-independent work at s: w(s), m(s), the weights, and per record the residual
// r = b − aᵀm(s), m(s) = x⋆ + e^{−κΓ(s)}(x0 − x⋆) (LKSP25 (12)–(13)), q = aᵀW a, and the record's
// own K blocks.
void evaluator::at(double s) {
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

void evaluator::pair_values(std::size_t q, double* out) {
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
void evaluator::weighted_columns() {
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
void evaluator::weights(double s, double Gs, double h) {
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

}  // namespace dpkit::hsgd::detail
