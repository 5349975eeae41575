// Internal: what the translation units of the HSGD privacy surrogate (hsgd/privacy.hpp) share
// (privacy.cpp: the argument checks and the entry points; privacy_kernel.cpp: the candidate
// pairs reduced to eigen-group sums, the low-rank Rényi kernel and the per-node evaluator;
// privacy_mixture.cpp: the s-integral and the mixtures over the differing record's position).
#pragma once

#include <Eigen/Core>
#include <cstddef>
#include <span>
#include <vector>

#include "dpkit/core/result.hpp"
#include "dpkit/hsgd/privacy.hpp"

namespace dpkit::hsgd::detail {

// ---- the candidate records and pairs, reduced to eigen-group sums (privacy_kernel.cpp) ----------
//
// Everything a pair contributes at (t, s) is a weighted sum over eigen-coordinates with weights
// that depend on the coordinate only through its group (every operator but the data is a
// function of Σ). So per record we keep S_g = Σ_{k∈g} a_k², E_g = Σ_{k∈g} a_k(x0_k −
// x⋆_k) and c = aᵀx⋆, and per pair X_g = Σ_{k∈g} a_{1k}a_{2k}: a node then costs O(#groups) per
// record and per pair instead of O(d). When #pairs·#groups is too large to store, or nothing is
// grouped, the cross sums are recomputed per node from the rotated records (O(d) per pair).

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
                 std::span<const record_pair> pairs);

// ---- releases: which blocks, and the per-group weights at s (docs/hsgd.md) ----------------------

enum class release_kind { last_iterate, iterates, average };

struct release {
  release_kind kind = release_kind::last_iterate;
  std::vector<double> times;  // t_1 < … < t_J
  std::vector<double> Gamma;  // Γ(t_j)
  std::vector<double> w;      // w_g(t_j) at [j·r + g]
};

release make_release(const gaussian_law& law, release_kind kind, std::span<const double> times);

// Process 1's leading 2×2 block of the Cholesky factor (factorise, privacy_kernel.cpp) depends
// on its record alone (K₁₁ = [[K_vv, K_vu], [K_vu, K_uu]]), so it is formed once per record and
// node: with both pivots kept, inv0 = 1/√K_vv, l01 = K_vu·inv0, a11 = K_uu − l01², inv1 = 1/√a11
// (the same operations, in the same order, as the generic loop, so the factor is bitwise the
// same).
struct lead_block {
  bool full = false;  // both pivots kept (else the pair takes the generic path)
  double inv0 = 0, l01 = 0, a11 = 0, inv1 = 0;
};

// Evaluates (α − 1)·D_α(release; s, θ) for every pair θ at one s ≤ t_J, sharing all work that
// does not depend on the pair; buffers are allocated once.
class evaluator {
 public:
  evaluator(const gaussian_law& law,
            const prepared& P,
            const release& rel,
            double alpha,
            renyi_order order);

  // The candidates are the pairs, or with renyi_order::symmetric each pair in both orders
  // (candidate 2q: D_α(P₁‖P₂) of pair q, 2q + 1: D_α(P₂‖P₁)), so that the sup over candidates
  // is a max of smooth functions of s.
  [[nodiscard]] std::size_t candidates() const { return P_.m * per_pair_; }
  [[nodiscard]] std::size_t per_pair() const { return per_pair_; }

  // Fills g[c] = (α − 1)·D_α(candidate c) and returns max_c g (NaN if any is NaN).
  double evaluate(double s, std::span<double> g);

  // (α − 1)·D_α of one candidate at s (the per-record work is redone: O(#records·#groups)).
  double evaluate_one(double s, std::size_t c);

 private:
  void at(double s);
  void pair_values(std::size_t q, double* out);
  void weighted_columns();
  void weights(double s, double Gs, double h);

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

// The RDP of one release over the candidate pairs: the mixture over the differing record's
// position (continuous or discrete, options.positions), with the law's status and error.
rdp_value mixture_rdp(const gaussian_law& law,
                      const prepared& P,
                      const release& rel,
                      double alpha,
                      const mixture_options& o);

// Merges `from` into `into`: the worse termination, the messages joined, the evaluations added.
void merge_status(solver_status& into, const solver_status& from);

}  // namespace dpkit::hsgd::detail
