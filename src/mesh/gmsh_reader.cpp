#include "mesh/gmsh_reader.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "core/error.hpp"

namespace fvproxy {

namespace {

// Gmsh element types: number of nodes of the ones we read or skip, names for the messages.
int gmsh_nodes(int type) {
  switch (type) {
  case 15: return 1; // point
  case 1: return 2;  // line
  case 2: return 3;  // triangle
  case 3: return 4;  // quadrangle
  case 4: return 4;  // tetrahedron
  case 5: return 8;  // hexahedron
  case 6: return 6;  // prism
  case 7: return 5;  // pyramid
  default: return -1;
  }
}

std::string gmsh_name(int type) {
  static const std::map<int, std::string> names{
      {1, "2-node line"},        {2, "3-node triangle"},      {3, "4-node quadrangle"},
      {4, "4-node tetrahedron"}, {5, "8-node hexahedron"},    {6, "6-node prism"},
      {7, "5-node pyramid"},     {8, "3-node line"},          {9, "6-node triangle"},
      {10, "9-node quadrangle"}, {11, "10-node tetrahedron"}, {12, "27-node hexahedron"},
      {13, "18-node prism"},     {14, "14-node pyramid"},     {15, "point"},
      {16, "8-node quadrangle"}, {17, "20-node hexahedron"},  {18, "15-node prism"},
      {19, "13-node pyramid"}};
  const auto it = names.find(type);
  return it != names.end() ? it->second : "type " + std::to_string(type);
}

bool is_cell(int type) {
  return type >= 4 && type <= 7;
}
bool is_face(int type) {
  return type == 2 || type == 3;
}
CellType cell_type_of(int type) {
  return type == 4 ? CellType::tet : type == 5 ? CellType::hex : type == 6 ? CellType::prism : CellType::pyramid;
}

struct SurfaceElement {
  long long tags[kMaxFaceNodes]; // file node tags (64-bit, as the volume elements' are)
  index_t nodes[kMaxFaceNodes];  // mesh node indices, once the used nodes are known
  int n;
  int physical;
  long long tag;
  std::size_t offset;
};

class Parser {
public:
  Parser(std::string data, std::string name) : data_(std::move(data)), name_(std::move(name)) {}

  HostMesh parse();

private:
  std::string data_, name_;
  std::size_t pos_ = 0;
  bool binary_ = false;
  double version_ = 0;
  std::string section_;

  // Results
  std::map<int, std::string> phys_names_;           // dim-2 physical tag -> name
  std::unordered_map<long long, int> surface_phys_; // surface entity tag -> first physical tag (4.1)
  std::vector<double> x_;
  std::unordered_map<long long, index_t> node_of_tag_; // file node tag -> index in x_
  struct Cell {
    CellType type;
    long long nodes[kMaxCellNodes];
    long long tag;
    std::size_t offset;
  };
  std::vector<Cell> cells_;
  std::vector<SurfaceElement> faces_;
  bool have_nodes_ = false, have_elements_ = false, have_entities_ = false;

  // --- errors ---------------------------------------------------------------------------------
  std::string where(std::size_t at) const {
    if (binary_ && !section_.empty() && section_ != "MeshFormat" && section_ != "PhysicalNames")
      return name_ + ": byte offset " + std::to_string(at);
    const auto line = 1 + std::count(data_.begin(), data_.begin() + std::min(at, data_.size()), '\n');
    return name_ + ":" + std::to_string(line);
  }
  [[noreturn]] void fail(const std::string& msg, std::size_t at, const std::string& detail = {}) const {
    throw InputError(where(at), msg + (section_.empty() ? "" : " (in $" + section_ + ")"), detail);
  }
  [[noreturn]] void fail(const std::string& msg) const { fail(msg, pos_); }

  // --- ASCII ----------------------------------------------------------------------------------
  void skip_ws() {
    while (pos_ < data_.size() && std::isspace(static_cast<unsigned char>(data_[pos_]))) ++pos_;
  }
  std::string token(const char* what) {
    skip_ws();
    if (pos_ >= data_.size()) fail(std::string("unexpected end of file: expected ") + what + " (truncated file?)");
    const std::size_t b = pos_;
    while (pos_ < data_.size() && !std::isspace(static_cast<unsigned char>(data_[pos_]))) ++pos_;
    return data_.substr(b, pos_ - b);
  }
  /// Parses the next token with `convert` (strtoll / strtod style); `kind` names it in messages.
  template <class T, class Convert> T ascii_number(const char* what, const char* kind, Convert convert) {
    skip_ws();
    const std::size_t at = pos_;
    const std::string t = token(what);
    if (!t.empty() && t[0] == '$')
      fail(std::string("unexpected ") + t + ": expected " + what + " (truncated section?)", at);
    char* end = nullptr;
    errno = 0;
    const T v = convert(t.c_str(), &end);
    if (errno == ERANGE || end == t.c_str() || *end != '\0')
      fail(std::string("expected ") + what + " (" + kind + "), got '" + t + "'", at);
    return v;
  }
  long long ascii_int(const char* what) {
    return ascii_number<long long>(what, "an integer", [](const char* s, char** e) { return std::strtoll(s, e, 10); });
  }
  double ascii_double(const char* what) {
    return ascii_number<double>(what, "a number", [](const char* s, char** e) { return std::strtod(s, e); });
  }

  // --- binary ---------------------------------------------------------------------------------
  template <class T> T bin(const char* what) {
    if (pos_ + sizeof(T) > data_.size())
      fail(std::string("unexpected end of file: expected ") + what + " (truncated file?)");
    T v;
    std::memcpy(&v, data_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return v;
  }

  long long read_int(const char* what) { return binary_ ? bin<std::int32_t>(what) : ascii_int(what); }
  long long read_size(const char* what) {
    if (!binary_) return ascii_int(what);
    const std::uint64_t v = bin<std::uint64_t>(what);
    if (v > (1ULL << 62)) fail(std::string("implausible ") + what + " " + std::to_string(v), pos_ - 8);
    return static_cast<long long>(v);
  }
  double read_double(const char* what) { return binary_ ? bin<double>(what) : ascii_double(what); }
  long long read_count(const char* what, long long limit) {
    const std::size_t at = pos_;
    const long long n = read_size(what);
    if (n < 0 || n > limit) fail(std::string("invalid ") + what + " " + std::to_string(n), at);
    return n;
  }
  /// Bytes one number takes at least: a digit and a separator in ASCII, its size in binary.
  std::size_t min_bytes(std::size_t binary_size) const { return binary_ ? binary_size : 2; }
  /// A declared count must fit in the rest of the file at `bytes_each` bytes per item at least:
  /// a damaged or hostile count is refused here, before anything is allocated or looped over.
  void check_fits(long long n, std::size_t bytes_each, const char* what, std::size_t at) const {
    const std::size_t left = data_.size() - std::min(pos_, data_.size());
    if (n > 0 && static_cast<unsigned long long>(n) > left / bytes_each)
      fail(std::string(what) + " " + std::to_string(n) + " cannot be right: the rest of the file (" +
               std::to_string(left) + " bytes) has room for at most " + std::to_string(left / bytes_each),
           at, "(damaged or truncated file?)");
  }
  /// read_count, then check_fits.
  long long read_count_fits(const char* what, long long limit, std::size_t bytes_each) {
    const std::size_t at = pos_;
    const long long n = read_count(what, limit);
    check_fits(n, bytes_each, what, at);
    return n;
  }
  /// A node coordinate: finite (nan and inf parse as numbers in ASCII and are bit patterns in binary).
  double read_coordinate(long long tag, int d) {
    const std::size_t at = pos_;
    const double v = read_double("node coordinate");
    if (!std::isfinite(v)) {
      std::ostringstream os;
      os << v;
      fail("node " + std::to_string(tag) + ": coordinate " + char('x' + d) + " is " + os.str() +
               ", not a finite number",
           at);
    }
    return v;
  }

  /// Reads "$Name" at the start of a line; returns "" at end of file.
  std::string next_section() {
    skip_ws();
    if (pos_ >= data_.size()) return {};
    if (data_[pos_] != '$')
      fail("expected a section header such as $Nodes, got '" +
           data_.substr(pos_, std::min<std::size_t>(20, data_.size() - pos_)) + "'");
    const std::size_t b = ++pos_;
    while (pos_ < data_.size() && data_[pos_] != '\n' && data_[pos_] != '\r') ++pos_;
    const std::string name = data_.substr(b, pos_ - b);
    if (pos_ < data_.size() && data_[pos_] == '\r') ++pos_;
    if (pos_ < data_.size() && data_[pos_] == '\n') ++pos_; // binary data starts on the next byte
    return name;
  }
  void expect_end(const std::string& name) {
    skip_ws();
    const std::string want = "$End" + name;
    if (data_.compare(pos_, want.size(), want) != 0)
      fail("expected " + want +
           (pos_ >= data_.size()
                ? " before the end of the file (truncated file?)"
                : ", got '" + data_.substr(pos_, std::min<std::size_t>(30, data_.find('\n', pos_) - pos_)) + "'"));
    pos_ += want.size();
  }
  void skip_section(const std::string& name) {
    const std::string want = "\n$End" + name;
    const std::size_t at = data_.find(want, pos_);
    if (at == std::string::npos) fail("section $" + name + " has no $End" + name);
    pos_ = at + want.size();
  }
  void skip_line() {
    while (pos_ < data_.size() && data_[pos_] != '\n') ++pos_;
    if (pos_ < data_.size()) ++pos_;
  }

  void parse_format();
  void parse_physical_names();
  void parse_entities();
  void parse_nodes41();
  void parse_elements41();
  void parse_nodes22();
  void parse_elements22();
  void add_element(int type, const long long* nodes, long long tag, int physical, std::size_t at);
  /// The mesh from the sections read: nodes used by cells, cells, faces and patches, checked.
  HostMesh assemble();
  /// A mesh needs $Nodes and $Elements with 3D elements.
  void check_sections() const;
  /// The index in x_ of file node `tag` (an element's at byte `at`).
  index_t node_index(long long tag, std::size_t at);
  /// The nodes the cells use into `m`; per node of the file, its index in `m` (-1: unused).
  std::vector<index_t> add_used_nodes(HostMesh& m);
  /// The cells into `m`, their nodes numbered by `used`; gid = position among the cells.
  void add_cells(HostMesh& m, const std::vector<index_t>& used);
  /// The surface elements with their nodes numbered by `used`; each must lie on the cells' nodes.
  std::vector<SurfaceElement> surface_elements(const std::vector<index_t>& used);
  /// The patches' names and each surface element's patch.
  void number_patches(const std::vector<SurfaceElement>& faces, std::vector<std::string>& names,
                      std::vector<int>& face_patch) const;
  /// Every surface element must be a face of `m`.
  void check_surface_elements(const HostMesh& m, const std::vector<SurfaceElement>& faces);
};

void Parser::parse_format() {
  section_ = "MeshFormat";
  skip_ws();
  const std::size_t at = pos_;
  const std::string v = token("the format version");
  if (v == "4.1")
    version_ = 4.1;
  else if (v == "2.2")
    version_ = 2.2;
  else
    fail("unsupported MSH format version " + v, at,
         "fvproxy reads MSH 4.1 (ASCII or binary) and MSH 2.2 (ASCII); re-export with gmsh -format msh41");
  const long long ft = ascii_int("the file type");
  const long long ds = ascii_int("the data size");
  if (ft != 0 && ft != 1) fail("invalid file type " + std::to_string(ft) + " (0 ASCII, 1 binary)");
  if (ds != 8) fail("unsupported data size " + std::to_string(ds) + " (must be 8)");
  binary_ = ft == 1;
  if (binary_ && version_ != 4.1)
    fail("binary MSH 2.2 is not supported", at, "re-export with gmsh -format msh41 -bin, or as ASCII");
  if (binary_) {
    skip_line();
    const std::int32_t one = bin<std::int32_t>("the endianness check");
    if (one != 1)
      fail("binary file written with another byte order (endianness check read " + std::to_string(one) + ")");
  }
  expect_end("MeshFormat");
}

void Parser::parse_physical_names() {
  section_ = "PhysicalNames";
  const bool was_binary = binary_;
  binary_ = false;                                                             // ASCII in binary files too
  const long long n = read_count_fits("number of physical names", 1 << 24, 6); // 2 1 "" at least
  for (long long i = 0; i < n; ++i) {
    const long long dim = ascii_int("physical dimension");
    const long long tag = ascii_int("physical tag");
    skip_ws();
    const std::size_t at = pos_;
    if (pos_ >= data_.size() || data_[pos_] != '"') fail("expected a quoted physical name", at);
    const std::size_t e = data_.find('"', pos_ + 1);
    if (e == std::string::npos || data_.find('\n', pos_) < e) fail("unterminated physical name", at);
    if (dim == 2) phys_names_[static_cast<int>(tag)] = data_.substr(pos_ + 1, e - pos_ - 1);
    pos_ = e + 1;
  }
  expect_end("PhysicalNames");
  binary_ = was_binary;
}

void Parser::parse_entities() {
  section_ = "Entities";
  long long count[4];
  const std::size_t at = pos_;
  for (int d = 0; d < 4; ++d) count[d] = read_count("number of entities", 1LL << 32);
  // An entity: its tag, a bounding box of 3 or 6 numbers and a count of physical tags at least.
  check_fits(count[0] + count[1] + count[2] + count[3], binary_ ? 4 + 24 + 8 : 2 * 5, "number of entities", at);
  for (int d = 0; d < 4; ++d)
    for (long long i = 0; i < count[d]; ++i) {
      const long long tag = read_int("entity tag");
      const int nbox = d == 0 ? 3 : 6;
      for (int k = 0; k < nbox; ++k) read_double("entity bounding box");
      const long long np = read_count_fits("number of physical tags", 1 << 20, min_bytes(4));
      for (long long k = 0; k < np; ++k) {
        const std::size_t at_p = pos_;
        const long long p = read_int("physical tag");
        if (p < -(1LL << 31) + 1 || p > (1LL << 31) - 1)
          fail("physical tag " + std::to_string(p) + " out of range", at_p);
        if (d == 2 && k == 0) surface_phys_[tag] = static_cast<int>(p < 0 ? -p : p);
      }
      if (d > 0) {
        const long long nb = read_count_fits("number of bounding entities", 1 << 24, min_bytes(4));
        for (long long k = 0; k < nb; ++k) read_int("bounding entity tag");
      }
    }
  expect_end("Entities");
}

void Parser::parse_nodes41() {
  section_ = "Nodes";
  // A block: 3 ints and a count; a node: its tag and 3 coordinates at least.
  const long long nblocks = read_count_fits("number of node blocks", 1LL << 32, binary_ ? 3 * 4 + 8 : 2 * 4);
  const long long nnodes = read_count_fits("number of nodes", (1LL << 31) - 1, min_bytes(8) + 3 * min_bytes(8));
  read_size("minimum node tag");
  read_size("maximum node tag");
  x_.reserve(3 * std::size_t(nnodes));
  long long seen = 0;
  for (long long b = 0; b < nblocks; ++b) {
    const std::size_t at_dim = pos_;
    const long long dim = read_int("entity dimension");
    if (dim < 0 || dim > 3) fail("invalid entity dimension " + std::to_string(dim) + " (0 to 3)", at_dim);
    read_int("entity tag");
    const long long param = read_int("parametric flag");
    const long long n = read_count_fits("number of nodes in block", nnodes - seen, min_bytes(8) + 3 * min_bytes(8));
    std::vector<long long> tags(n);
    for (long long i = 0; i < n; ++i) {
      const std::size_t at = pos_;
      tags[i] = read_size("node tag");
      if (!node_of_tag_.emplace(tags[i], static_cast<index_t>(x_.size() / 3 + i)).second)
        fail("node tag " + std::to_string(tags[i]) + " appears twice", at);
    }
    for (long long i = 0; i < n; ++i) {
      for (int d = 0; d < 3; ++d) x_.push_back(read_coordinate(tags[i], d));
      for (long long k = 0; k < (param ? dim : 0); ++k) read_double("parametric coordinate");
    }
    seen += n;
  }
  if (seen != nnodes)
    fail("the node blocks hold " + std::to_string(seen) + " nodes, the header says " + std::to_string(nnodes));
  expect_end("Nodes");
  have_nodes_ = true;
}

void Parser::add_element(int type, const long long* nodes, long long tag, int physical, std::size_t at) {
  if (is_cell(type)) {
    Cell c{cell_type_of(type), {}, tag, at};
    std::copy(nodes, nodes + gmsh_nodes(type), c.nodes);
    cells_.push_back(c);
  } else if (is_face(type)) {
    if (physical <= 0) return; // not in a physical group
    SurfaceElement s{};
    s.n = gmsh_nodes(type);
    std::copy(nodes, nodes + s.n, s.tags);
    s.physical = physical;
    s.tag = tag;
    s.offset = at;
    faces_.push_back(s);
  }
}

void Parser::parse_elements41() {
  section_ = "Elements";
  // A block: 3 ints and a count; an element: its tag and one node at least.
  const long long nblocks = read_count_fits("number of element blocks", 1LL << 32, binary_ ? 3 * 4 + 8 : 2 * 4);
  const long long nelem = read_count_fits("number of elements", 1LL << 31, 2 * min_bytes(8));
  read_size("minimum element tag");
  read_size("maximum element tag");
  long long seen = 0;
  long long nodes[64];
  for (long long b = 0; b < nblocks; ++b) {
    const std::size_t at_dim = pos_;
    const long long dim = read_int("entity dimension");
    if (dim < 0 || dim > 3) fail("invalid entity dimension " + std::to_string(dim) + " (0 to 3)", at_dim);
    const long long etag = read_int("entity tag");
    const std::size_t at_type = pos_;
    const long long type_read = read_int("element type");
    const int type = type_read < 0 || type_read > 1000 ? -1 : static_cast<int>(type_read);
    const std::size_t at_n = pos_;
    const long long n = read_count("number of elements in block", nelem - seen);
    const int nn = gmsh_nodes(type);
    if (nn < 0)
      fail("unsupported element type " + std::to_string(type) + " (" + gmsh_name(type) + ")", at_type,
           "fvproxy reads linear elements: tetrahedra, hexahedra, prisms, pyramids, and triangles/quadrangles on the "
           "boundary (mesh with Mesh.ElementOrder = 1)");
    check_fits(n, (1 + std::size_t(nn)) * min_bytes(8), "number of elements in block", at_n);
    int physical = 0;
    if (dim == 2) {
      const auto it = surface_phys_.find(etag);
      physical = it == surface_phys_.end() ? 0 : it->second;
    }
    for (long long i = 0; i < n; ++i) {
      const std::size_t at = pos_;
      const long long tag = read_size("element tag");
      for (int k = 0; k < nn; ++k) nodes[k] = read_size("element node tag");
      add_element(type, nodes, tag, physical, at);
    }
    seen += n;
  }
  if (seen != nelem)
    fail("the element blocks hold " + std::to_string(seen) + " elements, the header says " + std::to_string(nelem));
  expect_end("Elements");
  have_elements_ = true;
}

void Parser::parse_nodes22() {
  section_ = "Nodes";
  const long long n = read_count_fits("number of nodes", (1LL << 31) - 1, 2 * 4); // tag x y z
  x_.reserve(3 * std::size_t(n));
  for (long long i = 0; i < n; ++i) {
    const std::size_t at = pos_;
    const long long tag = ascii_int("node tag");
    if (!node_of_tag_.emplace(tag, static_cast<index_t>(i)).second)
      fail("node tag " + std::to_string(tag) + " appears twice", at);
    for (int d = 0; d < 3; ++d) x_.push_back(read_coordinate(tag, d));
  }
  expect_end("Nodes");
  have_nodes_ = true;
}

void Parser::parse_elements22() {
  section_ = "Elements";
  const long long n = read_count_fits("number of elements", 1LL << 31, 2 * 4); // tag type ntags node
  long long nodes[64];
  for (long long i = 0; i < n; ++i) {
    const std::size_t at = pos_;
    const long long tag = ascii_int("element tag");
    const std::size_t at_type = pos_;
    const long long type_read = ascii_int("element type");
    const int type = type_read < 0 || type_read > 1000 ? -1 : static_cast<int>(type_read);
    const int nn = gmsh_nodes(type);
    if (nn < 0)
      fail("unsupported element type " + std::to_string(type) + " (" + gmsh_name(type) + ")", at_type,
           "fvproxy reads linear elements: tetrahedra, hexahedra, prisms, pyramids, and triangles/quadrangles on the "
           "boundary (mesh with Mesh.ElementOrder = 1)");
    const long long ntags = ascii_int("number of element tags");
    if (ntags < 0 || ntags > 64) fail("invalid number of element tags " + std::to_string(ntags), at);
    int physical = 0;
    for (long long k = 0; k < ntags; ++k) {
      const std::size_t at_t = pos_;
      const long long t = ascii_int("element tag value");
      if (k == 0 && (t < -(1LL << 31) + 1 || t > (1LL << 31) - 1))
        fail("physical tag " + std::to_string(t) + " out of range", at_t);
      if (k == 0) physical = static_cast<int>(t);
    }
    for (int k = 0; k < nn; ++k) nodes[k] = ascii_int("element node tag");
    add_element(type, nodes, tag, physical, at);
  }
  expect_end("Elements");
  have_elements_ = true;
}

/// Patches from the surface physical groups, matched by the faces' sorted node indices.
class GmshClassifier final : public BoundaryClassifier {
public:
  GmshClassifier(const std::vector<SurfaceElement>& faces, const std::vector<int>& patch_of_face, std::string name)
      : name_(std::move(name)) {
    for (std::size_t i = 0; i < faces.size(); ++i) {
      Key k{};
      std::fill(k.begin(), k.end(), -1);
      std::copy(faces[i].nodes, faces[i].nodes + faces[i].n, k.begin());
      sort_face_key(k.data(), faces[i].n);
      map_.emplace(k, patch_of_face[i]);
    }
  }
  int patch_of(const HostMesh&, const index_t* nodes, int n) const override {
    Key k{};
    std::fill(k.begin(), k.end(), -1);
    std::copy(nodes, nodes + n, k.begin());
    sort_face_key(k.data(), n);
    const auto it = map_.find(k);
    return it == map_.end() ? -1 : it->second;
  }
  std::string where() const override {
    return "(" + name_ +
           ": every boundary face must be covered by a triangle or quadrangle in a surface Physical group)";
  }

private:
  using Key = std::array<index_t, kMaxFaceNodes>;
  std::map<Key, int> map_;
  std::string name_;
};

void Parser::check_sections() const {
  if (!have_nodes_) throw InputError(name_, "no $Nodes section");
  if (!have_elements_) throw InputError(name_, "no $Elements section");
  if (cells_.empty())
    throw InputError(name_, "no 3D elements (tetrahedra, hexahedra, prisms, pyramids)",
                     "(with physical groups defined, Gmsh saves only elements in a Physical Volume)");
}

index_t Parser::node_index(long long tag, std::size_t at) {
  const auto it = node_of_tag_.find(tag);
  if (it == node_of_tag_.end()) {
    section_ = "Elements";
    fail("element refers to node tag " + std::to_string(tag) + ", which $Nodes does not define", at);
  }
  return it->second;
}

std::vector<index_t> Parser::add_used_nodes(HostMesh& m) {
  // Nodes used by cells, in file order; gid = position among all nodes of the file.
  const index_t nfile = static_cast<index_t>(x_.size() / 3);
  std::vector<index_t> used(nfile, -1);
  for (const Cell& c : cells_)
    for (int k = 0; k < element_info(c.type).n_nodes; ++k) used[node_index(c.nodes[k], c.offset)] = 0;
  index_t nn = 0;
  for (index_t v = 0; v < nfile; ++v)
    if (used[v] == 0) {
      used[v] = nn++;
      m.x.insert(m.x.end(), x_.begin() + 3 * std::size_t(v), x_.begin() + 3 * std::size_t(v) + 3);
      m.node_gid.push_back(v);
    }
  return used;
}

void Parser::add_cells(HostMesh& m, const std::vector<index_t>& used) {
  index_t buf[kMaxCellNodes];
  gid_t gid = 0;
  for (const Cell& c : cells_) {
    const int n = element_info(c.type).n_nodes;
    for (int k = 0; k < n; ++k) buf[k] = used[node_index(c.nodes[k], c.offset)];
    for (int a = 0; a < n; ++a)
      for (int b = a + 1; b < n; ++b)
        if (buf[a] == buf[b]) {
          section_ = "Elements";
          fail("element " + std::to_string(c.tag) + " (" + element_info(c.type).name + ") repeats a node", c.offset);
        }
    m.add_cell(c.type, buf, gid++);
  }
}

std::vector<SurfaceElement> Parser::surface_elements(const std::vector<index_t>& used) {
  std::vector<SurfaceElement> faces;
  for (SurfaceElement s : faces_) {
    bool on_cells = true;
    for (int i = 0; i < s.n && on_cells; ++i) {
      const auto it = node_of_tag_.find(s.tags[i]);
      if (it == node_of_tag_.end()) {
        section_ = "Elements";
        fail("surface element " + std::to_string(s.tag) + " refers to undefined node tag " + std::to_string(s.tags[i]),
             s.offset);
      }
      on_cells = used[it->second] >= 0;
      s.nodes[i] = used[it->second];
    }
    if (!on_cells) {
      section_ = "Elements";
      fail("surface element " + std::to_string(s.tag) + " matches no face of a volume element", s.offset);
    }
    faces.push_back(s);
  }
  return faces;
}

void Parser::number_patches(const std::vector<SurfaceElement>& faces, std::vector<std::string>& names,
                            std::vector<int>& face_patch) const {
  // Patches: surface physical groups in tag order.
  std::map<int, int> patch_of_phys;
  for (const auto& s : faces) patch_of_phys.emplace(s.physical, 0);
  int p = 0;
  for (auto& [phys, idx] : patch_of_phys) {
    idx = p++;
    const auto it = phys_names_.find(phys);
    names.push_back(it != phys_names_.end() ? it->second : "surface_" + std::to_string(phys));
  }
  for (const auto& s : faces) face_patch.push_back(patch_of_phys[s.physical]);
}

void Parser::check_surface_elements(const HostMesh& m, const std::vector<SurfaceElement>& faces) {
  // Every surface element must be a face of the mesh: a boundary face (its patch) or an interior
  // one (an internal surface, allowed and ignored).
  std::set<std::array<index_t, kMaxFaceNodes>> keys;
  for (index_t f = 0; f < m.n_faces(); ++f) {
    std::array<index_t, kMaxFaceNodes> k;
    k.fill(-1);
    const index_t b = m.face_node_off[f], n = m.face_node_off[f + 1] - b;
    std::copy(m.face_nodes.begin() + b, m.face_nodes.begin() + b + n, k.begin());
    sort_face_key(k.data(), n);
    keys.insert(k);
  }
  for (const auto& sf : faces) {
    std::array<index_t, kMaxFaceNodes> k;
    k.fill(-1);
    std::copy(sf.nodes, sf.nodes + sf.n, k.begin());
    sort_face_key(k.data(), sf.n);
    if (!keys.count(k)) {
      section_ = "Elements";
      fail("surface element " + std::to_string(sf.tag) + " matches no face of a volume element", sf.offset);
    }
  }
}

HostMesh Parser::assemble() {
  check_sections();
  HostMesh m;
  const std::vector<index_t> used = add_used_nodes(m);
  add_cells(m, used);
  const std::vector<SurfaceElement> faces = surface_elements(used);
  std::vector<std::string> names;
  std::vector<int> face_patch;
  number_patches(faces, names, face_patch);
  build_faces(m, names, GmshClassifier(faces, face_patch, name_));
  check_surface_elements(m, faces);
  return m;
}

HostMesh Parser::parse() {
  skip_ws();
  if (data_.compare(pos_, 11, "$MeshFormat") != 0)
    throw InputError(name_ + ":1", "not a Gmsh MSH file (no $MeshFormat header)");
  std::string s = next_section();
  if (s != "MeshFormat") throw InputError(name_ + ":1", "not a Gmsh MSH file (no $MeshFormat header)");
  parse_format();
  while (true) {
    section_.clear();
    s = next_section();
    if (s.empty()) break;
    if ((s == "Nodes" && have_nodes_) || (s == "Elements" && have_elements_) || (s == "Entities" && have_entities_))
      fail("a second $" + s + " section", pos_ - 1, "a mesh file holds one; fvproxy reads one mesh per file");
    if (s == "PhysicalNames")
      parse_physical_names();
    else if (s == "Entities" && version_ == 4.1) {
      if (have_nodes_) fail("$Entities after $Nodes", pos_ - 1, "Gmsh writes $Entities first");
      parse_entities();
      have_entities_ = true;
    } else if (s == "Nodes")
      version_ == 4.1 ? parse_nodes41() : parse_nodes22();
    else if (s == "Elements") {
      if (!have_nodes_) fail("$Elements before $Nodes");
      version_ == 4.1 ? parse_elements41() : parse_elements22();
    } else {
      section_ = s;
      skip_section(s); // sections we do not need ($Periodic, $NodeData, ...)
    }
  }
  section_.clear();
  return assemble();
}

} // namespace

HostMesh read_gmsh_text(const std::string& data, const std::string& name) {
  return Parser(data, name).parse();
}

HostMesh read_gmsh(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, "cannot open the mesh file");
  std::ostringstream ss;
  ss << in.rdbuf();
  return read_gmsh_text(ss.str(), path);
}

} // namespace fvproxy
