#include "mesh/report.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/kokkos_compat.hpp"

namespace fvproxy {

namespace {
/// Angle (degrees) between an interior face's area vector and the owner-to-neighbour centroid
/// vector (the neighbour's periodic image on periodic faces): 0 on an orthogonal mesh.
struct NonOrthogonality {
  ConstVec3View<real> S, C;
  ConstView1<index_t> own, nb;
  ConstView1<std::uint8_t> sh;
  ConstVec3View<real> T;
  KOKKOS_FUNCTION double operator()(const index_t f) const {
    double sd = 0, ss = 0, dd = 0;
    for (int k = 0; k < 3; ++k) {
      const double d = double(C(nb(f), k)) + double(T(sh(f), k)) - double(C(own(f), k));
      sd += double(S(f, k)) * d;
      ss += double(S(f, k)) * double(S(f, k));
      dd += d * d;
    }
    double c = sd / kc::sqrt(ss * dd);
    c = c > 1 ? 1 : (c < -1 ? -1 : c);
    return kc::acos(c) * (180.0 / 3.14159265358979323846);
  }
};
} // namespace

Locality locality(const HostMesh& m, const std::vector<index_t>& new_of_old) {
  Locality l;
  const index_t nf = m.n_interior;
  if (nf == 0) return l;
  std::vector<index_t> d(nf);
  double sum = 0;
  std::size_t b32 = 0, b128 = 0;
  const bool id = new_of_old.empty();
  for (index_t f = 0; f < nf; ++f) {
    const index_t a = id ? m.face_owner[f] : new_of_old[m.face_owner[f]];
    const index_t b = id ? m.face_neighbour[f] : new_of_old[m.face_neighbour[f]];
    d[f] = a > b ? a - b : b - a;
    sum += d[f];
    b32 += (a / 32 == b / 32);
    b128 += (a / 128 == b / 128);
  }
  l.mean = sum / nf;
  l.max = *std::max_element(d.begin(), d.end());
  l.bandwidth = l.max;
  const std::size_t mid = std::size_t(nf) / 2;
  std::nth_element(d.begin(), d.begin() + mid, d.end());
  if (nf % 2 == 1) {
    l.median = d[mid];
  } else {
    const index_t hi = d[mid];
    const index_t lo = *std::max_element(d.begin(), d.begin() + mid);
    l.median = 0.5 * (double(lo) + double(hi));
  }
  l.same_block_32 = double(b32) / nf;
  l.same_block_128 = double(b128) / nf;
  return l;
}

MeshReport make_report(const HostMesh& host, const Mesh& mesh, Ordering ordering) {
  MeshReport r;
  r.cells = mesh.n_cells;
  r.faces = mesh.n_faces;
  r.boundary_faces = mesh.n_faces - mesh.n_interior;
  r.nodes = mesh.n_nodes;
  for (CellType t : host.cell_type) ++r.elements[element_info(t).name];
  for (const auto& p : host.patches) r.patches.emplace_back(p.name, p.end - p.begin);
  const GeometryChecks g = check_geometry(mesh);
  r.volume_total = g.total_volume;
  r.volume_min = g.min_volume;
  {
    const auto vol = mesh.volume;
    real vmax = 0;
    Kokkos::parallel_reduce(
        "fvproxy::mesh::volume_max", Kokkos::RangePolicy<ExecSpace>(0, mesh.n_cells),
        KOKKOS_LAMBDA(const index_t c, real& m) { m = vol(c) > m ? vol(c) : m; }, Kokkos::Max<real>(vmax));
    r.volume_max = vmax;
  }
  {
    const NonOrthogonality angle{mesh.face_area,      mesh.centroid,   mesh.face_owner,
                                 mesh.face_neighbour, mesh.face_shift, mesh.shifts};
    double amax = 0, asum = 0;
    Kokkos::parallel_reduce(
        "fvproxy::mesh::non_orthogonality_sum", Kokkos::RangePolicy<ExecSpace>(0, mesh.n_interior),
        KOKKOS_LAMBDA(const index_t f, double& lsum) { lsum += angle(f); }, asum);
    Kokkos::parallel_reduce(
        "fvproxy::mesh::non_orthogonality_max", Kokkos::RangePolicy<ExecSpace>(0, mesh.n_interior),
        KOKKOS_LAMBDA(const index_t f, double& lmax) {
          const double a = angle(f);
          lmax = a > lmax ? a : lmax;
        },
        Kokkos::Max<double>(amax));
    r.nonorth_max = amax;
    r.nonorth_mean = mesh.n_interior > 0 ? asum / mesh.n_interior : 0.0;
  }
  r.ordering = to_string(ordering);
  r.loc = locality(host);
  r.device_bytes = mesh.memory_bytes();
  return r;
}

nlohmann::json to_json(const Locality& l) {
  return {{"face_distance", {{"mean", l.mean}, {"median", l.median}, {"max", l.max}}},
          {"bandwidth", l.bandwidth},
          {"same_block_32", l.same_block_32},
          {"same_block_128", l.same_block_128}};
}

nlohmann::json to_json(const MeshReport& r) {
  nlohmann::json j;
  j["cells"] = r.cells;
  j["faces"] = r.faces;
  j["boundary_faces"] = r.boundary_faces;
  j["nodes"] = r.nodes;
  j["elements"] = nlohmann::json::object();
  for (const auto& [k, v] : r.elements) j["elements"][k] = v;
  j["patches"] = nlohmann::json::object();
  for (const auto& [k, v] : r.patches) j["patches"][k] = v;
  j["volume"] = {{"min", r.volume_min}, {"max", r.volume_max}, {"total", r.volume_total}};
  j["non_orthogonality"] = {{"max", r.nonorth_max}, {"mean", r.nonorth_mean}};
  j["ordering"] = r.ordering;
  j["locality"] = to_json(r.loc);
  j["memory_bytes"] = r.device_bytes;
  j["seconds"] = {{"build", r.seconds_build}, {"reorder", r.seconds_reorder}};
  if (!r.orderings.empty()) {
    j["orderings"] = nlohmann::json::object();
    for (const auto& [k, v] : r.orderings) j["orderings"][k] = to_json(v);
  }
  return j;
}

std::string to_text(const MeshReport& r) {
  std::ostringstream os;
  char buf[256];
  os << "cells            " << r.cells << "  (";
  bool first = true;
  for (const auto& [k, v] : r.elements) os << (first ? "" : ", ") << v << ' ' << k, first = false;
  os << ")\n";
  os << "faces            " << r.faces << "  (" << (r.faces - r.boundary_faces) << " interior, " << r.boundary_faces
     << " boundary)\n";
  os << "nodes            " << r.nodes << "\n";
  os << "patches          ";
  first = true;
  for (const auto& [k, v] : r.patches) os << (first ? "" : ", ") << k << " (" << v << ")", first = false;
  if (r.patches.empty()) os << "none (fully periodic)";
  os << "\n";
  std::snprintf(buf, sizeof buf, "volume           min %.6g  max %.6g  total %.12g\n", r.volume_min, r.volume_max,
                r.volume_total);
  os << buf;
  std::snprintf(buf, sizeof buf, "non-orthogonality max %.3f deg  mean %.3f deg\n", r.nonorth_max, r.nonorth_mean);
  os << buf;
  std::snprintf(buf, sizeof buf, "device memory    %.3f MB (connectivity + geometry)\n", r.device_bytes / 1e6);
  os << buf;
  std::snprintf(buf, sizeof buf, "build time       %.3f s (+ %.3f s reordering)\n", r.seconds_build, r.seconds_reorder);
  os << buf;
  auto row = [&](const std::string& name, const Locality& l) {
    std::snprintf(buf, sizeof buf, "  %-10s %12.1f %10.1f %12d %12d %9.1f%% %9.1f%%\n", name.c_str(), l.mean, l.median,
                  l.max, l.bandwidth, 100 * l.same_block_32, 100 * l.same_block_128);
    os << buf;
  };
  os << "\nlocality of the cell numbering over interior faces (|owner - neighbour|):\n";
  std::snprintf(buf, sizeof buf, "  %-10s %12s %10s %12s %12s %10s %10s\n", "ordering", "mean", "median", "max",
                "bandwidth", "block32", "block128");
  os << buf;
  if (r.orderings.empty()) {
    row(r.ordering, r.loc);
  } else {
    for (const auto& [k, v] : r.orderings) row(k + (k == r.ordering ? "*" : ""), v);
    os << "  (* the case's ordering)\n";
  }
  return os.str();
}

} // namespace fvproxy
