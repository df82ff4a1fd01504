#include "operators/boundary_patches.hpp"

#include <array>
#include <stdexcept>
#include <string>

namespace fvproxy {

std::vector<PatchRuns> patch_owner_runs(const Mesh& m, const std::vector<BoundaryType>& types, const char* label) {
  if (types.size() != m.patches.size()) throw std::logic_error("patch_owner_runs: one boundary type per mesh patch");
  auto owner = Kokkos::create_mirror_view_and_copy(HostSpace(), m.face_owner);
  std::vector<PatchRuns> out;
  for (std::size_t p = 0; p < m.patches.size(); ++p) {
    const index_t b = m.patches[p].begin, e = m.patches[p].end;
    if (e <= b) continue;
    std::vector<std::array<index_t, 2>> inner, frontier;
    for (index_t f = b; f < e;) {
      index_t g = f + 1;
      while (g < e && owner(g) == owner(f)) ++g;
      (owner(f) < m.n_inner ? inner : frontier).push_back({f, g});
      f = g;
    }
    const index_t n_inner = static_cast<index_t>(inner.size());
    inner.insert(inner.end(), frontier.begin(), frontier.end());
    View2<index_t> v(std::string(label), inner.size(), 2);
    auto h = Kokkos::create_mirror_view(v);
    for (std::size_t i = 0; i < inner.size(); ++i) h(i, 0) = inner[i][0], h(i, 1) = inner[i][1];
    Kokkos::deep_copy(v, h);
    out.push_back({b, e, types[p], v, n_inner, p});
  }
  return out;
}

View1<std::int8_t> outflow_face_flags(const Mesh& m, const std::vector<BoundaryType>& types, const char* label) {
  if (types.size() != m.patches.size()) throw std::logic_error("outflow_face_flags: one boundary type per mesh patch");
  View1<std::int8_t> flags(std::string(label), m.n_faces - m.n_interior);
  auto h = Kokkos::create_mirror_view(flags);
  for (std::size_t p = 0; p < m.patches.size(); ++p)
    for (index_t f = m.patches[p].begin; f < m.patches[p].end; ++f)
      h(f - m.n_interior) = types[p] == BoundaryType::outflow ? 1 : 0;
  Kokkos::deep_copy(flags, h);
  return flags;
}

} // namespace fvproxy
