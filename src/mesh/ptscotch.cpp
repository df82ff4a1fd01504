#include "mesh/ptscotch.hpp"

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <numeric>
#include <optional>
#include <string>

// Debian's default Scotch headers (/usr/include/scotch, found by cmake/FindPTScotch.cmake): the
// 32-bit SCOTCH_Num build, as the libptscotch.so beside them (checked below at run time).
#include <ptscotch.h>
#include <scotch.h>

#include "core/error.hpp"

namespace fvproxy {

namespace {

// Above this many parts the sequential partition is recursive bisection alone. Scotch's default
// strategy (SCOTCH_stratGraphMapBuild) coarsens to 20 vertices per part, bisects recursively and
// refines the k parts while uncoarsening; that k-way refinement's cost grows with the parts:
// 2,531,250 tets took 13 s at 128 parts, 26 s at 1024 and 176 s at 4096 on one core, against
// 4.9, 6.6 and 10.8 s for recursive bisection, whose edge cut is 6% larger at 128 and 1024 parts
// and 4.5% at 4096 (perf/results/2026-11-24-devvm-partition/README.md).
constexpr int kKwayMaxParts = 1024;

/// Scotch's own recursive-bisection framework (its "<RECU>" with one multilevel bisection per step
/// instead of the best of two: half the time for a 1% larger cut at 4096 parts).
std::string recursive_bisection(double bal) {
  const std::string b = std::to_string(bal);
  const std::string bisect = "m{vert=120,low=h{pass=10}f{bal=" + b + ",move=120},asc=b{bnd=f{bal=" + b +
                             ",move=120},org=f{bal=" + b + ",move=120}}}";
  return "r{job=t,map=t,poli=S,bal=" + b + ",sep=" + bisect + "}";
}

std::string counts(gid_t n, int parts) {
  return std::to_string(n) + " vertices in " + std::to_string(parts) + " parts";
}

/// The library's SCOTCH_Num is the header's (a 64-bit library with this 32-bit header would read
/// every array wrong).
void check_library() {
  if (SCOTCH_numSizeof() != int(sizeof(SCOTCH_Num)))
    throw RunError("error: the PT-Scotch library's SCOTCH_Num has " + std::to_string(SCOTCH_numSizeof()) +
                   " bytes, its header's " + std::to_string(sizeof(SCOTCH_Num)) +
                   ": fvproxy was linked with another Scotch build than the one it was compiled with");
}

/// A Scotch execution context with one thread and its own generator seeded with a fixed value, so
/// that a partition depends neither on the run nor on the machine's core count (Scotch 7 splits
/// the recursive bipartitions over as many threads as there are cores by default, each branch with
/// its own random generator).
struct Context {
  SCOTCH_Context c;
  Context() {
    if (SCOTCH_contextInit(&c) != 0) throw RunError("error: SCOTCH_contextInit failed");
    if (SCOTCH_contextRandomClone(&c) != 0 || SCOTCH_contextOptionSetNum(&c, SCOTCH_OPTIONNUMDETERMINISTIC, 1) != 0 ||
        SCOTCH_contextOptionSetNum(&c, SCOTCH_OPTIONNUMRANDOMFIXEDSEED, 1) != 0 ||
        SCOTCH_contextThreadSpawn(&c, 1, nullptr) != 0) {
      SCOTCH_contextExit(&c);
      throw RunError("error: could not set up a one-thread, fixed-seed Scotch context");
    }
    SCOTCH_contextRandomSeed(&c, 1);
  }
  ~Context() { SCOTCH_contextExit(&c); }
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;
};

struct Strategy {
  SCOTCH_Strat s;
  Strategy() {
    if (SCOTCH_stratInit(&s) != 0) throw RunError("error: SCOTCH_stratInit failed");
  }
  ~Strategy() { SCOTCH_stratExit(&s); }
  Strategy(const Strategy&) = delete;
  Strategy& operator=(const Strategy&) = delete;
};

/// A Scotch graph, released however its scope ends (a throw between Init and Exit leaked it).
struct Graph {
  SCOTCH_Graph g;
  Graph() {
    if (SCOTCH_graphInit(&g) != 0) throw RunError("error: SCOTCH_graphInit failed");
  }
  ~Graph() { SCOTCH_graphExit(&g); }
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;
};

/// A PT-Scotch distributed graph over `comm`, likewise.
struct Dgraph {
  SCOTCH_Dgraph g;
  explicit Dgraph(MPI_Comm comm) {
    if (SCOTCH_dgraphInit(&g, comm) != 0) throw RunError("error: SCOTCH_dgraphInit failed");
  }
  ~Dgraph() { SCOTCH_dgraphExit(&g); }
  Dgraph(const Dgraph&) = delete;
  Dgraph& operator=(const Dgraph&) = delete;
};

template <class To, class From> std::vector<To> narrow(const std::vector<From>& v) {
  return std::vector<To>(v.begin(), v.end());
}

/// Checks of one rank's slice that need no communication; "" when it is well formed.
std::string local_problem(const DistGraph& g, gid_t n_global) {
  const gid_t n = g.n_local();
  if (n < 0) return "vtx_end " + std::to_string(g.vtx_end) + " < vtx_begin " + std::to_string(g.vtx_begin);
  if (gid_t(g.xadj.size()) != n + 1)
    return "xadj has " + std::to_string(g.xadj.size()) + " entries for " + std::to_string(n) +
           " vertices (needs n + 1)";
  if (g.xadj[0] != 0 || g.xadj[n] != gid_t(g.adjncy.size()))
    return "xadj must run from 0 to the size of adjncy (" + std::to_string(g.adjncy.size()) + ")";
  for (gid_t v = 0; v < n; ++v)
    if (g.xadj[v + 1] < g.xadj[v]) return "xadj decreases at local vertex " + std::to_string(v);
  if (!g.adjwgt.empty() && g.adjwgt.size() != g.adjncy.size())
    return "adjwgt has " + std::to_string(g.adjwgt.size()) + " entries, adjncy " + std::to_string(g.adjncy.size());
  for (gid_t v = 0; v < n; ++v)
    for (gid_t k = g.xadj[v]; k < g.xadj[v + 1]; ++k) {
      const gid_t u = g.adjncy[k];
      if (u < 0 || u >= n_global)
        return "vertex " + std::to_string(g.vtx_begin + v) + " has neighbour " + std::to_string(u) + " outside 0.." +
               std::to_string(n_global - 1);
      if (u == g.vtx_begin + v) return "vertex " + std::to_string(u) + " is its own neighbour";
    }
  for (gid_t w : g.adjwgt)
    if (w < 1 || w > gid_t(std::numeric_limits<SCOTCH_Num>::max()))
      return "an edge weight is " + std::to_string(w) + " (must be >= 1 and fit SCOTCH_Num)";
  const auto max_num = gid_t(std::numeric_limits<SCOTCH_Num>::max());
  if (n_global > max_num || gid_t(g.adjncy.size()) > max_num)
    return std::to_string(n_global) + " vertices and " + std::to_string(g.adjncy.size()) +
           " local edge ends: more than Scotch's " + std::to_string(sizeof(SCOTCH_Num) * 8) +
           "-bit SCOTCH_Num holds (Debian's 64-bit build is libptscotch in scotch-int64/)";
  return "";
}

std::vector<int> to_parts(const std::vector<SCOTCH_Num>& p, int parts, const char* who) {
  std::vector<int> out(p.size());
  for (std::size_t i = 0; i < p.size(); ++i) {
    if (p[i] < 0 || p[i] >= parts)
      throw RunError(std::string("error: ") + who + " returned part " + std::to_string(p[i]) + " of " +
                     std::to_string(parts));
    out[i] = static_cast<int>(p[i]);
  }
  return out;
}

} // namespace

std::vector<int> ptscotch_parts_one_process(const DistGraph& g, int parts) {
  if (parts < 1) throw RunError("error: ptscotch_parts: " + std::to_string(parts) + " parts");
  if (g.vtx_begin != 0)
    throw RunError("error: ptscotch_parts on one process: the graph must start at vertex 0, not " +
                   std::to_string(g.vtx_begin));
  const gid_t n = g.n_local();
  if (const std::string e = local_problem(g, n); !e.empty()) throw RunError("error: ptscotch_parts: " + e);
  if (parts == 1) return std::vector<int>(std::size_t(n), 0);
  check_library();
  std::vector<SCOTCH_Num> verttab = narrow<SCOTCH_Num>(g.xadj), edgetab = narrow<SCOTCH_Num>(g.adjncy),
                          edlotab = narrow<SCOTCH_Num>(g.adjwgt), parttab(std::size_t(n), 0);
  Graph owned;
  SCOTCH_Graph& graph = owned.g;
  Context ctx;
  Strategy strat;
  std::string failed;
  if (SCOTCH_graphBuild(&graph, 0, SCOTCH_Num(n), verttab.data(), nullptr, nullptr, nullptr, SCOTCH_Num(edgetab.size()),
                        edgetab.data(), edlotab.empty() ? nullptr : edlotab.data()) != 0)
    failed = "SCOTCH_graphBuild";
  else if (SCOTCH_graphCheck(&graph) != 0)
    failed = "SCOTCH_graphCheck (the graph is not symmetric, or its weights differ both ways)";
  else if (parts <= kKwayMaxParts &&
           SCOTCH_stratGraphMapBuild(&strat.s, SCOTCH_STRATDEFAULT, SCOTCH_Num(parts), g.balance) != 0)
    failed = "SCOTCH_stratGraphMapBuild";
  else if (parts > kKwayMaxParts && SCOTCH_stratGraphMap(&strat.s, recursive_bisection(g.balance).c_str()) != 0)
    failed = "SCOTCH_stratGraphMap (recursive bisection)";
  else {
    SCOTCH_Graph bound; // the graph in the one-thread, fixed-seed context
    if (SCOTCH_contextBindGraph(&ctx.c, &graph, &bound) != 0)
      failed = "SCOTCH_contextBindGraph";
    else {
      if (SCOTCH_graphPart(&bound, SCOTCH_Num(parts), &strat.s, parttab.data()) != 0) failed = "SCOTCH_graphPart";
      SCOTCH_graphExit(&bound);
    }
  }
  if (!failed.empty()) throw RunError("error: " + failed + " failed for " + counts(n, parts));
  return to_parts(parttab, parts, "SCOTCH_graphPart");
}

namespace {

/// The ranks' vertex ranges must follow each other from 0 in rank order; "" when they do.
std::string range_problem(const std::vector<long long>& ranges, int P) {
  std::string problem;
  for (int r = 0; r < P && problem.empty(); ++r)
    if (ranges[2 * r] != (r == 0 ? 0 : ranges[2 * r - 1]) || ranges[2 * r + 1] < ranges[2 * r])
      problem = "rank " + std::to_string(r) + " holds vertices [" + std::to_string(ranges[2 * r]) + ", " +
                std::to_string(ranges[2 * r + 1]) + "): the ranges must follow each other from 0 in rank order";
  return problem;
}

/// The lowest failing rank's message, on every rank (`bad`: this rank's `mine_problem` is one).
[[noreturn]] void throw_lowest_problem(std::string mine_problem, int bad, MPI_Comm comm) {
  const MPI_Comm c = comm;
  const int P = comm_size(c), rank = comm_rank(c);
  int first = bad ? rank : P, lowest = P;
  MPI_Allreduce(&first, &lowest, 1, MPI_INT, MPI_MIN, c);
  int len = rank == lowest ? int(mine_problem.size()) : 0;
  MPI_Bcast(&len, 1, MPI_INT, lowest, c);
  mine_problem.resize(std::size_t(len));
  MPI_Bcast(mine_problem.data(), len, MPI_CHAR, lowest, c);
  throw RunError("error: ptscotch_parts: rank " + std::to_string(lowest) + ": " + mine_problem);
}

/// Every rank's range, then every check's outcome on every rank before any rank goes on: a rank
/// that threw alone would leave the others waiting in PT-Scotch's collectives. Returns the whole
/// graph's vertex count.
gid_t check_slices(const DistGraph& g, int parts, MPI_Comm comm) {
  const MPI_Comm c = comm;
  const int P = comm_size(c);
  const long long mine[2] = {g.vtx_begin, g.vtx_end};
  std::vector<long long> ranges(2 * std::size_t(P));
  MPI_Allgather(mine, 2, MPI_LONG_LONG, ranges.data(), 2, MPI_LONG_LONG, c);
  std::string problem = range_problem(ranges, P);
  const gid_t n_global = ranges[2 * std::size_t(P) - 1];
  int my_parts[2] = {parts, -parts}, all_parts[2] = {0, 0};
  MPI_Allreduce(my_parts, all_parts, 2, MPI_INT, MPI_MAX, c);
  if (problem.empty() && (all_parts[0] != -all_parts[1])) problem = "the ranks ask for different numbers of parts";
  if (problem.empty() && parts < 1) problem = std::to_string(parts) + " parts";
  if (problem.empty() && parts > n_global) problem = counts(n_global, parts) + ": more parts than vertices";
  std::string mine_problem = problem.empty() ? local_problem(g, n_global) : "";
  int bad = mine_problem.empty() ? 0 : 1, any_bad = 0;
  MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, c);
  if (!problem.empty()) throw RunError("error: ptscotch_parts: " + problem);
  if (any_bad) throw_lowest_problem(std::move(mine_problem), bad, comm);
  return n_global;
}

/// Whether `failed` is empty on every rank (one reduction).
bool none_failed(const std::string& failed, MPI_Comm c) {
  int ok = failed.empty() ? 1 : 0, all_ok = 0;
  MPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, c);
  return all_ok;
}

/// ptscotch_parts on several ranks, the slices checked: this rank's slice in PT-Scotch's arrays
/// and PT-Scotch's steps, every step's outcome known on every rank before the next.
struct DistributedPartition {
  const DistGraph& dist_graph;
  const int parts;
  const MPI_Comm mpi_comm;
  const int ranks;
  const gid_t local_cells;
  std::vector<SCOTCH_Num> vertloctab, edgeloctab, edloloctab, partloctab;
  int any_weights = 0;

  DistributedPartition(const DistGraph& dist_graph, int parts, MPI_Comm comm)
      : dist_graph(dist_graph), parts(parts), mpi_comm(comm), ranks(comm_size(comm)), local_cells(dist_graph.n_local()),
        vertloctab(narrow<SCOTCH_Num>(dist_graph.xadj)), edgeloctab(narrow<SCOTCH_Num>(dist_graph.adjncy)),
        edloloctab(narrow<SCOTCH_Num>(dist_graph.adjwgt)), partloctab(std::size_t(local_cells) + 1, 0) {}

  /// Edge weights are given on every rank or on none (PT-Scotch checks): where some rank has them, a
  /// rank without (no edges, or all 1) passes ones. Never a null array where one is expected, even
  /// on a rank without vertices.
  void agree_on_weights() {
    int has_weights = dist_graph.adjwgt.empty() ? 0 : 1;
    MPI_Allreduce(&has_weights, &any_weights, 1, MPI_INT, MPI_MAX, mpi_comm);
    if (any_weights && edloloctab.empty()) edloloctab.assign(std::max<std::size_t>(dist_graph.adjncy.size(), 1), 1);
    if (edgeloctab.empty()) edgeloctab.push_back(0);
  }

  /// The parts of this rank's vertices; RunError on every rank when a step failed on any.
  std::vector<int> partition(gid_t n_global) {
    // The set-up may fail on one rank alone: every rank learns it before the first collective step
    // (a rank that threw here while the others entered SCOTCH_dgraphBuild hung the job).
    std::optional<Dgraph> graph;
    std::optional<Context> ctx;
    std::optional<Strategy> strat;
    std::string failed;
    const auto set_up = [&failed](const char* step, auto&& make) {
      if (!failed.empty()) return;
      try {
        make();
      } catch (const RunError&) {
        failed = step;
      }
    };
    set_up("SCOTCH_dgraphInit", [&] { graph.emplace(mpi_comm); });
    set_up("the one-thread, fixed-seed Scotch context", [&] { ctx.emplace(); });
    set_up("SCOTCH_stratInit", [&] { strat.emplace(); });
    // Fault injection for the tests (tests/cli/mpi_bad_inputs.sh): this set-up failing on one rank.
    if (const char* r = std::getenv("FVPROXY_FAULT_PTSCOTCH_SETUP_RANK"); r && std::atoi(r) == comm_rank(mpi_comm))
      failed = "SCOTCH_dgraphInit (FVPROXY_FAULT_PTSCOTCH_SETUP_RANK)";
    if (none_failed(failed, mpi_comm)) failed = run_steps(graph->g, *ctx, *strat);
    if (!none_failed(failed, mpi_comm)) // the lowest failing rank's step, said by every rank
      throw_lowest_problem(failed + " failed for " + counts(n_global, parts) + " on " + std::to_string(ranks) +
                               " ranks",
                           !failed.empty(), mpi_comm);
    partloctab.resize(std::size_t(local_cells));
    return to_parts(partloctab, parts, "SCOTCH_dgraphPart");
  }

  /// Build, check, strategy and partition into partloctab, a step only where the previous went well
  /// on every rank: "" or the step that failed on this rank.
  std::string run_steps(SCOTCH_Dgraph& graph, Context& ctx, Strategy& strat) {
    std::string failed;
    const auto edges = SCOTCH_Num(dist_graph.adjncy.size());
    if (SCOTCH_dgraphBuild(&graph, 0, SCOTCH_Num(local_cells), SCOTCH_Num(local_cells), vertloctab.data(), nullptr,
                           nullptr, nullptr, edges, edges, edgeloctab.data(), nullptr,
                           any_weights ? edloloctab.data() : nullptr) != 0)
      failed = "SCOTCH_dgraphBuild";
    if (none_failed(failed, mpi_comm) && SCOTCH_dgraphCheck(&graph) != 0)
      failed = "SCOTCH_dgraphCheck (the graph is not symmetric, or its weights differ both ways)";
    if (none_failed(failed, mpi_comm) && SCOTCH_stratDgraphMapBuild(&strat.s, SCOTCH_STRATDEFAULT, SCOTCH_Num(ranks),
                                                                    SCOTCH_Num(parts), dist_graph.balance) != 0)
      failed = "SCOTCH_stratDgraphMapBuild";
    if (none_failed(failed, mpi_comm)) {
      SCOTCH_Dgraph bound; // the graph in the one-thread, fixed-seed context
      if (SCOTCH_contextBindDgraph(&ctx.c, &graph, &bound) != 0) {
        failed = "SCOTCH_contextBindDgraph";
      } else {
        if (SCOTCH_dgraphPart(&bound, SCOTCH_Num(parts), &strat.s, partloctab.data()) != 0)
          failed = "SCOTCH_dgraphPart";
        SCOTCH_dgraphExit(&bound);
      }
    }
    return failed;
  }
};

} // namespace

int comm_size(MPI_Comm c) {
  int started = 0, n = 1;
  MPI_Initialized(&started);
  if (started && c != MPI_COMM_NULL) MPI_Comm_size(c, &n);
  return n;
}

int comm_rank(MPI_Comm c) {
  int started = 0, r = 0;
  MPI_Initialized(&started);
  if (started && c != MPI_COMM_NULL) MPI_Comm_rank(c, &r);
  return r;
}

std::vector<int> ptscotch_parts(const DistGraph& g, int parts, MPI_Comm comm) {
  if (comm_size(comm) == 1) return ptscotch_parts_one_process(g, parts);
  const gid_t n_global = check_slices(g, parts, comm);
  if (parts == 1) return std::vector<int>(std::size_t(g.n_local()), 0);
  check_library();

  DistributedPartition d(g, parts, comm);
  d.agree_on_weights();
  return d.partition(n_global);
}

namespace {

/// The graph of `cells` of `m` (in that order, vertices begin, begin + 1, ...), each neighbour
/// numbered by `number(cell)`.
template <class Number>
DistGraph graph_of(const HostMesh& m, const std::vector<index_t>& cells, gid_t begin, const Number& number) {
  DistGraph g;
  g.vtx_begin = begin;
  g.vtx_end = begin + gid_t(cells.size());
  g.xadj.assign(cells.size() + 1, 0);
  std::size_t ends = 0;
  for (const index_t c : cells) ends += std::size_t(m.cell_face_off[c + 1] - m.cell_face_off[c]);
  g.adjncy.reserve(ends);
  g.adjwgt.reserve(ends);
  std::vector<gid_t> nb; // this cell's neighbours through its interior faces, with repeats
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const index_t c = cells[i];
    nb.clear();
    for (index_t k = m.cell_face_off[c]; k < m.cell_face_off[c + 1]; ++k) {
      const index_t f = m.cell_faces[k];
      if (f >= m.n_interior) continue;
      const index_t a = m.face_owner[f], b = m.face_neighbour[f];
      if (a == b) continue; // a periodic face of a cell with itself: no edge
      nb.push_back(number(a == c ? b : a));
    }
    std::sort(nb.begin(), nb.end());
    for (std::size_t k = 0; k < nb.size(); ++k) {
      if (k > 0 && nb[k] == nb[k - 1]) {
        ++g.adjwgt.back(); // two cells sharing a direct and a periodic face: one edge of weight 2
        continue;
      }
      g.adjncy.push_back(nb[k]);
      g.adjwgt.push_back(1);
    }
    g.xadj[i + 1] = gid_t(g.adjncy.size());
  }
  return g;
}

} // namespace

DistGraph cell_graph(const HostMesh& m, index_t begin, index_t end) {
  std::vector<index_t> cells(std::size_t(end - begin));
  std::iota(cells.begin(), cells.end(), begin);
  return graph_of(m, cells, begin, [](index_t c) { return gid_t(c); });
}

DistGraph cell_graph_by_gid(const HostMesh& m, gid_t begin, gid_t end) {
  std::vector<index_t> cells;
  for (index_t c = 0; c < m.n_cells(); ++c)
    if (m.cell_gid[c] >= begin && m.cell_gid[c] < end) cells.push_back(c);
  std::sort(cells.begin(), cells.end(), [&](index_t a, index_t b) { return m.cell_gid[a] < m.cell_gid[b]; });
  for (std::size_t i = 0; i < cells.size(); ++i)
    if (m.cell_gid[cells[i]] != begin + gid_t(i))
      throw RunError("error: cell_graph_by_gid: the mesh lacks the cell of global id " +
                     std::to_string(begin + gid_t(i)) + " of [" + std::to_string(begin) + ", " + std::to_string(end) +
                     ")");
  if (gid_t(cells.size()) != end - begin)
    throw RunError("error: cell_graph_by_gid: the mesh holds " + std::to_string(cells.size()) + " of the " +
                   std::to_string(end - begin) + " cells of global ids [" + std::to_string(begin) + ", " +
                   std::to_string(end) + ")");
  return graph_of(m, cells, begin, [&](index_t c) { return m.cell_gid[c]; });
}

DistGraph box_hex_graph(const BoxConfig& b, gid_t begin, gid_t end) {
  const gid_t n[3] = {b.cells[0], b.cells[1], b.cells[2]};
  const gid_t total = n[0] * n[1] * n[2];
  if (begin < 0 || end < begin || end > total)
    throw RunError("error: box_hex_graph: hexes [" + std::to_string(begin) + ", " + std::to_string(end) + ") of " +
                   std::to_string(total));
  DistGraph g;
  g.vtx_begin = begin;
  g.vtx_end = end;
  g.balance = 0.005;
  g.xadj.assign(std::size_t(end - begin) + 1, 0);
  g.adjncy.reserve(std::size_t(end - begin) * 6);
  for (gid_t h = begin; h < end; ++h) {
    const gid_t at[3] = {h % n[0], (h / n[0]) % n[1], h / (n[0] * n[1])};
    const std::size_t first = g.adjncy.size();
    for (int a = 0; a < 3; ++a)
      for (const gid_t d : {gid_t(-1), gid_t(1)}) {
        gid_t c[3] = {at[0], at[1], at[2]};
        c[a] += d;
        if (c[a] < 0 || c[a] >= n[a]) {
          if (!b.periodic[a]) continue;
          c[a] = (c[a] + n[a]) % n[a];
        }
        g.adjncy.push_back(c[0] + n[0] * (c[1] + n[1] * c[2]));
      }
    // A periodic axis has at least 3 hexes (mesh.generate.periodic's check): the neighbours are
    // distinct, one face each (adjwgt empty: every weight 1).
    std::sort(g.adjncy.begin() + std::ptrdiff_t(first), g.adjncy.end());
    g.xadj[std::size_t(h - begin) + 1] = gid_t(g.adjncy.size());
  }
  return g;
}

} // namespace fvproxy
