// Random orthogonal matrices and Gaussian vectors for the tests of the linear models (hsgd).
#pragma once

#include <random>

#include <Eigen/Dense>

namespace dpkit::test {

/// A d × d orthogonal matrix: the Q factor of a matrix of independent standard normals.
inline Eigen::MatrixXd random_orthogonal(int d, std::mt19937_64& rng) {
  std::normal_distribution<double> z;
  Eigen::MatrixXd g(d, d);
  for (int i = 0; i < d; ++i)
    for (int j = 0; j < d; ++j) g(i, j) = z(rng);
  const Eigen::HouseholderQR<Eigen::MatrixXd> qr(g);
  return qr.householderQ() * Eigen::MatrixXd::Identity(d, d);
}

/// A vector of d independent N(0, scale²) entries.
inline Eigen::VectorXd random_vector(int d, std::mt19937_64& rng, double scale) {
  std::normal_distribution<double> z;
  Eigen::VectorXd v(d);
  for (int i = 0; i < d; ++i) v[i] = scale * z(rng);
  return v;
}

}  // namespace dpkit::test
