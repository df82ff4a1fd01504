#include "mesh/build.hpp"

#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/reorder.hpp"

namespace fvproxy {

BuiltMesh build_mesh(const MeshConfig& cfg, UnorderedMesh* unordered) {
  BuiltMesh b;
  Kokkos::Timer timer;
  std::string where = "mesh";
  if (cfg.generate) {
    const BoxConfig& g = *cfg.generate;
    std::ostringstream os;
    os << "generated " << to_string(g.element) << " box " << g.cells[0] << "x" << g.cells[1] << "x" << g.cells[2];
    b.source = os.str();
    b.host = generate_box(g);
    where = "mesh.generate";
  } else {
    b.source = cfg.file;
    b.host = read_gmsh(cfg.file);
    where = cfg.file;
  }
  b.device = upload(b.host);
  validate_geometry(b.device, where);
  if (cfg.generate) {
    const BoxConfig& g = *cfg.generate;
    const double box = g.lengths[0] * g.lengths[1] * g.lengths[2];
    const double total = check_geometry(b.device).total_volume;
    const double tol = 1e3 * std::numeric_limits<real>::epsilon() * std::sqrt(double(b.device.n_cells));
    if (!(std::abs(total - box) <= tol * box)) {
      std::ostringstream os;
      os << "total cell volume " << total << " differs from the box volume " << box;
      throw InputError(where, "generated mesh is inconsistent", os.str());
    }
  }
  b.seconds_build = timer.seconds();
  if (cfg.reorder != Ordering::none) {
    timer.reset();
    const auto perm = ordering_permutation(b.host, b.device, cfg.reorder, cfg.reorder_seed);
    if (!unordered) b.device = Mesh{}; // not beside the reordered copies: the build's peak is one device mesh
    HostMesh ordered = permute_cells(b.host, perm);
    if (unordered) *unordered = {std::move(b.host), std::move(b.device)};
    b.host = std::move(ordered);
    b.device = upload(b.host);
    b.seconds_reorder = timer.seconds();
  } else if (unordered) {
    *unordered = {b.host, b.device}; // the device views are shared, not copied
  }
  return b;
}

} // namespace fvproxy
