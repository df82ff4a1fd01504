#include "mesh/build.hpp"

#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "core/retained_heap.hpp"
#include "mesh/box_generator.hpp"
#include "mesh/gmsh_reader.hpp"
#include "mesh/reorder.hpp"

namespace fvproxy {

void check_jitter(const BoxConfig& box, double min_volume, gid_t cell) {
  if (min_volume > 0 || box.perturb == 0) return;
  std::ostringstream os;
  os << "jitter " << box.perturb << " of the spacing turns a " << to_string(box.element)
     << " inside out: cell (global id) " << cell << " has volume " << min_volume;
  throw InputError("mesh.generate.perturb", os.str(),
                   "each node moves up to perturb x spacing along each axis: a tet of the hex's split stays valid for "
                   "every draw only below 1/6, a prism's below 1/4 (docs/mesh.md#generators-meshgenerate); lower "
                   "mesh.generate.perturb or try another mesh.generate.seed");
}

BuiltMesh build_mesh(const MeshConfig& cfg, UnorderedMesh* unordered) {
  const RetainedHeap heap; // core/retained_heap.hpp
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
  const GeometryChecks checks = check_geometry(b.device);
  if (cfg.generate) check_jitter(*cfg.generate, checks.min_volume, checks.min_volume_cell);
  validate_geometry(b.device, checks, where);
  if (cfg.generate) {
    const BoxConfig& g = *cfg.generate;
    const double box = g.lengths[0] * g.lengths[1] * g.lengths[2];
    const double total = checks.total_volume;
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
