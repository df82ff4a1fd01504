#pragma once
// The muscl operator's limiter: per cell and component, phi = min over the cell's faces of the
// limiter functor (physics/limiters.hpp) applied to delta = g . (x_f - x_c), with dmax/dmin the
// largest increase/decrease to the cell's neighbours (and boundary values), and for
// Venkatakrishnan eps^2 = (K h)^3 = K^3 V (h = V^(1/3)). The reconstructed face state is
// u_c + phi g . (x_f - x_c). Storage: limiter (cells x N).
#include <memory>
#include <string>

#include "core/config.hpp"
#include "core/types.hpp"
#include "mesh/mesh.hpp"
#include "operators/operator_geometry.hpp"

namespace fvproxy {

class LimiterOperator {
public:
  virtual ~LimiterOperator() = default;
  virtual void compute(ConstView2<real> u, ConstView2<real> ub, ConstView2<real> grad, View2<real> limiter) const = 0;
  virtual std::string description() const = 0;
};

std::unique_ptr<LimiterOperator> make_limiter(const Mesh& mesh, const OperatorGeometry& geom, const MusclConfig& cfg,
                                              int components);

} // namespace fvproxy
