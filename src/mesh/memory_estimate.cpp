#include "mesh/memory_estimate.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <vector>

#include "core/types.hpp"

namespace fvproxy {

namespace {

std::string count_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.0f", v);
  return buf;
}

MeshCounts box_counts(const BoxConfig& g) {
  const double n[3] = {double(g.cells[0]), double(g.cells[1]), double(g.cells[2])};
  const double hexes = n[0] * n[1] * n[2];
  // Faces of the hex grid normal to each axis: interior and boundary (a periodic axis has none).
  double fi[3], fb[3];
  for (int a = 0; a < 3; ++a) {
    const double across = hexes / n[a];
    fi[a] = (n[a] - (g.periodic[a] ? 0 : 1)) * across;
    fb[a] = g.periodic[a] ? 0 : 2 * across;
  }
  MeshCounts c;
  c.nodes = (n[0] + 1) * (n[1] + 1) * (n[2] + 1);
  c.node_keys = true;
  c.exact = true;
  c.known = true;
  switch (g.element) {
  case ElementKind::hex:
    c.cells = hexes;
    c.cell_nodes = 8 * hexes;
    c.interior_faces = fi[0] + fi[1] + fi[2];
    c.faces = c.interior_faces + fb[0] + fb[1] + fb[2];
    c.face_nodes = 4 * c.faces;
    break;
  case ElementKind::tet: // 6 tets around each hex's main diagonal: 6 triangles inside, 2 per quad
    c.cells = 6 * hexes;
    c.cell_nodes = 24 * hexes;
    c.interior_faces = 2 * (fi[0] + fi[1] + fi[2]) + 6 * hexes;
    c.faces = c.interior_faces + 2 * (fb[0] + fb[1] + fb[2]);
    c.face_nodes = 3 * c.faces;
    break;
  case ElementKind::prism: // 2 prisms per hex: one quad inside, the z faces split into 2 triangles
    c.cells = 2 * hexes;
    c.cell_nodes = 12 * hexes;
    c.interior_faces = fi[0] + fi[1] + 2 * fi[2] + hexes;
    c.faces = c.interior_faces + fb[0] + fb[1] + 2 * fb[2];
    c.face_nodes = 4 * (fi[0] + fi[1] + fb[0] + fb[1] + hexes) + 3 * 2 * (fi[2] + fb[2]);
    break;
  }
  c.what = count_text(c.cells) + " " + to_string(g.element) + " cells, " + count_text(c.nodes) + " nodes, " +
           count_text(c.faces) + " faces";
  return c;
}

/// Reads a Gmsh file's section headers only: the format, then the node and element counts that
/// $Nodes and $Elements declare. Scans forward for the headers (binary node data is skipped by
/// its block sizes). False when the file is not one it can read this way (the reader reports it).
class GmshPeek {
public:
  explicit GmshPeek(const std::string& path) : in_(path, std::ios::binary) {}

  bool run(double& nodes, double& elements) {
    if (!in_) return false;
    if (!find_line("$MeshFormat")) return false;
    std::string line;
    if (!std::getline(in_, line)) return false;
    std::istringstream f(line);
    double version = 0;
    int type = -1;
    if (!(f >> version >> type)) return false;
    binary_ = type == 1;
    const bool v4 = version >= 4;
    if (!find_line("$Nodes")) return false;
    if (!counts(v4, nodes)) return false;
    if (binary_ && !skip_binary_nodes()) return false;
    if (!find_line("$Elements")) return false;
    return counts(v4, elements);
  }

private:
  std::ifstream in_;
  bool binary_ = false;
  std::uint64_t declared_blocks_ = 0, declared_nodes_ = 0;

  /// Moves past the next line that is exactly `header` (a trailing '\r' allowed).
  bool find_line(const std::string& header) {
    const std::string needle = "\n" + header;
    std::streamoff start = static_cast<std::streamoff>(in_.tellg());
    if (start < 0) return false;
    std::string window = start == 0 ? "\n" : ""; // a header on the first line has no '\n' before it
    std::streamoff window_start = start - static_cast<std::streamoff>(window.size());
    std::vector<char> chunk(1 << 20);
    for (;;) {
      in_.read(chunk.data(), static_cast<std::streamsize>(chunk.size()));
      const std::size_t got = static_cast<std::size_t>(in_.gcount());
      window.append(chunk.data(), got);
      for (std::size_t at = window.find(needle); at != std::string::npos; at = window.find(needle, at + 1)) {
        const std::size_t after = at + needle.size();
        std::size_t end = std::string::npos;
        if (after < window.size() && window[after] == '\n') end = after + 1;
        if (after + 1 < window.size() && window[after] == '\r' && window[after + 1] == '\n') end = after + 2;
        if (end != std::string::npos) {
          in_.clear();
          in_.seekg(window_start + static_cast<std::streamoff>(end));
          return static_cast<bool>(in_);
        }
        if (after + 1 >= window.size()) break; // the line's end is in the next chunk
      }
      if (got == 0) return false;
      const std::size_t keep = std::min(window.size(), needle.size() + 1);
      window_start += static_cast<std::streamoff>(window.size() - keep);
      window.erase(0, window.size() - keep);
    }
  }

  /// The count after a section header: MSH 4.1 "blocks count min max", MSH 2.2 "count".
  bool counts(bool v4, double& count) {
    if (binary_) {
      std::uint64_t h[4];
      if (!in_.read(reinterpret_cast<char*>(h), sizeof h)) return false;
      declared_blocks_ = h[0];
      declared_nodes_ = h[1];
      count = double(h[1]);
      return true;
    }
    std::string line;
    if (!std::getline(in_, line)) return false;
    std::istringstream s(line);
    double first = 0, second = 0;
    if (!(s >> first)) return false;
    if (v4 && !(s >> second)) return false;
    count = v4 ? second : first;
    return count >= 0;
  }

  /// Binary MSH 4.1: each block is (dim, tag, parametric, n), n tags, n coordinate tuples.
  bool skip_binary_nodes() {
    for (std::uint64_t b = 0; b < declared_blocks_; ++b) {
      std::int32_t head[3];
      std::uint64_t n = 0;
      if (!in_.read(reinterpret_cast<char*>(head), sizeof head) || !in_.read(reinterpret_cast<char*>(&n), sizeof n))
        return false;
      if (n > declared_nodes_) return false;
      const std::uint64_t per = 3 + (head[2] ? std::uint64_t(std::max(0, head[0])) : 0);
      in_.seekg(static_cast<std::streamoff>(8 * n + 8 * per * n), std::ios::cur);
      if (!in_) return false;
    }
    return true;
  }
};

} // namespace

MeshCounts mesh_counts(const MeshConfig& cfg) {
  if (cfg.generate) return box_counts(*cfg.generate);
  MeshCounts c;
  std::ifstream size_probe(cfg.file, std::ios::binary | std::ios::ate);
  if (!size_probe) return c;
  c.file_bytes = double(size_probe.tellg());
  double nodes = 0, elements = 0;
  if (!GmshPeek(cfg.file).run(nodes, elements)) return c;
  // Counts that the file cannot hold (every node and element takes at least 8 bytes of it) are
  // left to the reader, which names the line.
  if (8 * (nodes + elements) > c.file_bytes) return c;
  c.known = true;
  c.nodes = nodes;
  c.cells = elements; // every element costed as a tetrahedron (surface elements included)
  c.cell_nodes = 4 * elements;
  c.faces = 2 * elements;
  c.interior_faces = 2 * elements;
  c.face_nodes = 3 * c.faces;
  c.what = count_text(elements) + " elements and " + count_text(nodes) + " nodes declared in " + cfg.file_as_written;
  return c;
}

double host_mesh_bytes(const MeshCounts& c) {
  const double node = 24 + 8 + (c.node_keys ? 4 : 0); // coordinates (double), global id, key
  const double cell = 1 + 4 + 8 + 4;                  // type, node offset, global id, face offset
  const double face = 4 + 4 + 4 + 1;                  // node offset, owner, neighbour, shift
  return node * c.nodes + cell * c.cells + face * c.faces + 4 * c.cell_nodes + 4 * c.face_nodes +
         (4 + 1) * c.cell_faces() + 3 * 4; // + the last entry of the three offset arrays
}

double device_mesh_bytes(const MeshCounts& c) {
  const double R = sizeof(real), I = sizeof(index_t), G = sizeof(gid_t);
  const double node = 3 * R + G;
  const double cell = 1 + G + 2 * I + 2 * R + 3 * R; // type, gid, 2 offsets, volume, 1/volume, centroid
  const double face = I + 2 * I + 1 + 6 * R;         // node offset, owner, neighbour, shift, area, centroid
  return node * c.nodes + cell * c.cells + face * c.faces + I * c.cell_nodes + I * c.face_nodes +
         (I + 1) * c.cell_faces() + 3 * I; // + the last entry of the three offset arrays
}

double mesh_file_bytes(const MeshCounts& c) {
  // nodes (3 doubles) + node ids; topology (type + nodes per cell, int64), cell types, cell ids;
  // the boundary patches (about a third of the faces of a small box: bounded by all faces).
  const double boundary = c.faces - c.interior_faces;
  return 32 * c.nodes + 8 * (c.cell_nodes + c.cells) + 9 * c.cells + 8 * (boundary * 6);
}

MemoryNeed case_memory(const MeshCounts& c, const MeshConfig& cfg, bool keep_unordered, double work_device,
                       double work_host) {
  const double H = host_mesh_bytes(c), D = device_mesh_bytes(c);
  // Face matching (build_faces): a 24-byte record per cell face (at most one per cell-node entry)
  // and, while they are sorted on the host threads, a buffer as large; then beside the records an
  // index per record, and per face its group, owner, neighbour, patch, translation and flags; the
  // face arrays held twice (gathered, then sorted into their final order, with the order's sort
  // buffer). A generated box enumerates its faces (mesh/box_faces.hpp) with far less beside the
  // face arrays (8 bytes per cell, 1 per face): the bound stays, an over-estimate of that phase
  // there (on the safe side; the device mesh and the reordered copy's phases are unchanged).
  const double R = c.cell_nodes;
  const double matching = std::max({48 * R, 32 * R + 8 * c.faces, 24 * R + 58 * c.faces + 4 * c.face_nodes}) +
                          2 * (15 * c.faces + 4 * c.face_nodes);
  // A Gmsh file's text is held twice while it is parsed (the stream's buffer and its copy).
  const double reading = 2 * c.file_bytes;
  const bool reorder = cfg.reorder != Ordering::none;
  const double sort_keys = 16 * c.cells; // an ordering's keys and permutation
  struct Phase {
    double host, device;
  };
  std::vector<Phase> phases{{reading + H, 0}, {H + matching, 0}, {H, D}};
  if (reorder || keep_unordered) {
    phases.push_back({2 * H + sort_keys, D});                // the permuted copy beside the first mesh
    phases.push_back({(keep_unordered ? 2 : 1) * H, 2 * D}); // its upload beside the first device mesh
  }
  phases.push_back({(keep_unordered ? 2 : 1) * H + work_host, (keep_unordered ? 2 : 1) * D + work_device});
  MemoryNeed m;
  for (const Phase& p : phases) {
    m.host = std::max(m.host, p.host);
    m.device = std::max(m.device, p.device);
    m.combined = std::max(m.combined, p.host + p.device);
  }
  return m;
}

std::string bytes_text(double b) {
  char buf[48];
  if (b >= 1024.0 * 1024 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f GiB", b / (1024.0 * 1024 * 1024));
  else if (b >= 1024.0 * 1024)
    std::snprintf(buf, sizeof buf, "%.1f MiB", b / (1024.0 * 1024));
  else
    std::snprintf(buf, sizeof buf, "%.1f KiB", b / 1024.0);
  return buf;
}

} // namespace fvproxy
