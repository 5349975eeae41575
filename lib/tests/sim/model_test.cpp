// The neighbour decorators of model.hpp: exact losses and gradients by construction.
#include "dpkit/sim/model.hpp"

#include <catch2/catch.hpp>
#include <memory>
#include <stdexcept>

#include "dpkit/sim/models.hpp"

using namespace dpkit::sim;

TEST_CASE("linearly_perturbed shifts one example's gradient by -w", "[model]") {
  auto base = std::make_shared<quadratic>(4, 3, 2.0);
  const vector w = vector::LinSpaced(3, 1, 3);
  const linearly_perturbed nb(base, 1, w);
  const vector x = vector::LinSpaced(3, -1, 0.5);
  vector g(3), gb(3);
  for (std::size_t i = 0; i < 4; ++i) {
    nb.gradient(i, x, g);
    base->gradient(i, x, gb);
    if (i == 1) {
      CHECK((g - (2.0 * x - w)).norm() == 0);
      CHECK(nb.loss(i, x) == Approx(base->loss(i, x) - w.dot(x)));
    } else {
      CHECK(g == gb);
      CHECK(nb.loss(i, x) == base->loss(i, x));
    }
  }
  // Empirical risk: the mean of the losses.
  CHECK(nb.empirical_risk(x) == Approx(base->empirical_risk(x) - w.dot(x) / 4));
  CHECK(nb.has_hessian_vector());
  CHECK_THROWS_AS(linearly_perturbed(base, 4, w), std::domain_error);
  CHECK_THROWS_AS(linearly_perturbed(base, 0, vector::Zero(2)), std::domain_error);
  CHECK_THROWS_AS(linearly_perturbed(nullptr, 0, w), std::domain_error);
}

TEST_CASE("zeroed_example removes one example's loss and gradient", "[model]") {
  auto base = std::make_shared<quadratic>(3, 2, 1.5);
  const zeroed_example nb(base, 2);
  const vector x = vector::Constant(2, 0.7);
  vector g(2), hv(2);
  nb.gradient(2, x, g);
  CHECK(g.isZero(0));
  CHECK(nb.loss(2, x) == 0);
  nb.hessian_vector(2, x, x, hv);
  CHECK(hv.isZero(0));
  nb.gradient(0, x, g);
  CHECK((g - 1.5 * x).norm() == 0);
  CHECK(nb.empirical_risk(x) == Approx(2.0 / 3 * base->loss(0, x)));
  CHECK_THAT(nb.describe(), Catch::Matchers::Contains("zeroed out"));
  CHECK_THROWS_AS(zeroed_example(base, 3), std::domain_error);
}
