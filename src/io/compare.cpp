#include "io/compare.hpp"

#include <algorithm>
#include <cmath>

#include "core/error.hpp"

namespace fvproxy {

namespace {

/// Files of different meshes cannot be compared cell by cell.
void check_same_mesh(const FieldFile& a, const std::string& a_name, const FieldFile& b, const std::string& b_name,
                     const std::string& both) {
  if (a.cell_gid.size() != b.cell_gid.size())
    throw InputError(both, "different meshes: " + std::to_string(a.cell_gid.size()) + " cells in " + a_name + ", " +
                               std::to_string(b.cell_gid.size()) + " in " + b_name);
  // Checkpoints and fields files carry the mesh's fingerprint (order-independent: the same on any
  // rank count and numbering): two meshes of one cell count with different geometry differ there.
  // Files of earlier versions (fields files before issue 37) have none: then the ids must do.
  const auto fa = a.strings.find("mesh_fingerprint"), fb = b.strings.find("mesh_fingerprint");
  if (fa != a.strings.end() && fb != b.strings.end() && fa->second != fb->second)
    throw InputError(both,
                     "different meshes: " + std::to_string(a.cell_gid.size()) +
                         " cells in both, but mesh fingerprint " + fa->second + " in " + a_name + ", " + fb->second +
                         " in " + b_name,
                     "the fingerprint covers the cells' and nodes' counts and positions: the two runs' meshes "
                     "differ (mesh.generate, mesh.file)");
}

/// (global id, row) of every row of `f`, by global id.
std::vector<std::pair<gid_t, std::size_t>> sorted_rows(const FieldFile& f, const std::string& name) {
  std::vector<std::pair<gid_t, std::size_t>> rows(f.cell_gid.size());
  for (std::size_t i = 0; i < rows.size(); ++i) rows[i] = {f.cell_gid[i], i};
  std::sort(rows.begin(), rows.end());
  // Each global id once in either file: a repeated one would compare some rows twice and others never.
  for (std::size_t i = 1; i < rows.size(); ++i)
    if (rows[i].first == rows[i - 1].first)
      throw InputError(name,
                       "cell global id " + std::to_string(rows[i].first) + " appears twice (rows " +
                           std::to_string(rows[i - 1].second) + " and " + std::to_string(rows[i].second) + ")",
                       "a file fvproxy wrote holds each cell once: damaged or edited?");
  return rows;
}

/// The row of b holding each row's cell of a.
std::vector<std::size_t> matching_rows(const FieldFile& a, const std::string& a_name, const FieldFile& b,
                                       const std::string& b_name, const std::string& both) {
  sorted_rows(a, a_name);
  const std::vector<std::pair<gid_t, std::size_t>> rows = sorted_rows(b, b_name); // row of each global id in b
  std::vector<std::size_t> match(a.cell_gid.size());
  for (std::size_t i = 0; i < a.cell_gid.size(); ++i) {
    const auto it = std::lower_bound(rows.begin(), rows.end(), std::make_pair(a.cell_gid[i], std::size_t(0)));
    if (it == rows.end() || it->first != a.cell_gid[i])
      throw InputError(both, "different meshes: cell global id " + std::to_string(a.cell_gid[i]) + " of " + a_name +
                                 " is not in " + b_name);
    match[i] = it->second;
  }
  return match;
}

/// A field only in the other file: a mismatch.
FieldDifference missing_field(const std::string& name, const char* missing_in) {
  FieldDifference d;
  d.name = name;
  d.missing_in = missing_in;
  d.pass = false;
  return d;
}

/// Field k of a against its column `vb` of b (row match[i] for a's row i), judged on its own scale.
FieldDifference difference(const FieldFile& a, std::size_t k, const std::vector<double>& vb,
                           const std::vector<std::size_t>& match, double rtol, double atol) {
  const std::vector<double>& va = a.values[k];
  FieldDifference d;
  d.name = a.names[k];
  double sum2 = 0;
  for (std::size_t i = 0; i < va.size(); ++i) {
    const double x = va[i], y = vb[match[i]];
    if (!std::isfinite(x) || !std::isfinite(y)) {
      d.non_finite = true;
      continue;
    }
    const double e = std::abs(x - y);
    sum2 += e * e;
    d.max_b = std::max(d.max_b, std::abs(y));
    if (e > d.max_abs) {
      d.max_abs = e;
      d.worst_cell = a.cell_gid[i];
    }
  }
  d.l2 = va.empty() ? 0.0 : std::sqrt(sum2 / double(va.size()));
  d.max_rel = d.max_b > 0 ? d.max_abs / d.max_b : (d.max_abs > 0 ? INFINITY : 0.0);
  d.pass = !d.non_finite && d.max_abs <= atol + rtol * d.max_b;
  return d;
}

/// The vector a component's name (name[i]) belongs to; empty for a scalar.
std::string group(const std::string& n) {
  const auto at = n.find('[');
  return at == std::string::npos || n.back() != ']' ? std::string() : n.substr(0, at);
}

/// A vector's components (name[i]) are judged against the vector's scale: the largest max|b| of
/// its components (a component that is zero up to round-off, v of a flow along x, is not
/// compared with its own noise).
void judge_vector_components(std::vector<FieldDifference>& out, double rtol, double atol) {
  for (FieldDifference& d : out) {
    const std::string g = group(d.name);
    if (g.empty() || !d.missing_in.empty()) continue;
    double scale = 0;
    for (const FieldDifference& e : out)
      if (group(e.name) == g && e.missing_in.empty()) scale = std::max(scale, e.max_b);
    d.max_rel = scale > 0 ? d.max_abs / scale : (d.max_abs > 0 ? INFINITY : 0.0);
    d.pass = !d.non_finite && d.max_abs <= atol + rtol * scale;
  }
}

} // namespace

std::vector<FieldDifference> compare_fields(const FieldFile& a, const std::string& a_name, const FieldFile& b,
                                            const std::string& b_name, double rtol, double atol) {
  const std::string both = a_name + " vs " + b_name;
  check_same_mesh(a, a_name, b, b_name, both);
  const std::vector<std::size_t> match = matching_rows(a, a_name, b, b_name, both);
  std::vector<FieldDifference> out;
  for (std::size_t k = 0; k < a.names.size(); ++k) {
    const auto bk = std::find(b.names.begin(), b.names.end(), a.names[k]);
    if (bk == b.names.end()) {
      out.push_back(missing_field(a.names[k], "B"));
      continue;
    }
    const std::vector<double>& vb = b.values[std::size_t(bk - b.names.begin())];
    out.push_back(difference(a, k, vb, match, rtol, atol));
  }
  judge_vector_components(out, rtol, atol);
  for (const std::string& name : b.names)
    if (std::find(a.names.begin(), a.names.end(), name) == a.names.end()) out.push_back(missing_field(name, "A"));
  return out;
}

} // namespace fvproxy
