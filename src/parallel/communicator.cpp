#include "parallel/communicator.hpp"

namespace fvproxy {

Communicator::Communicator(MPI_Comm c) {
  // Without MPI (a program that never called MPI_Init, such as the unit tests): one rank, and no
  // MPI call is ever made; on one rank the reductions return their argument without MPI either.
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized) return;
  comm_ = c;
  MPI_Comm_rank(comm_, &rank_);
  MPI_Comm_size(comm_, &size_);
}

Communicator Communicator::world() {
  return Communicator(MPI_COMM_WORLD);
}

Communicator Communicator::self() {
  return Communicator(MPI_COMM_SELF);
}

namespace {

template <class T> T reduce(MPI_Comm c, T v, MPI_Datatype t, MPI_Op op) {
  if (c == MPI_COMM_NULL) return v;
  int size = 1;
  MPI_Comm_size(c, &size);
  if (size == 1) return v;
  T out{};
  MPI_Allreduce(&v, &out, 1, t, op, c);
  return out;
}

void reduce_vector(MPI_Comm c, std::vector<double>& v, MPI_Op op) {
  if (c == MPI_COMM_NULL) return;
  if (!v.empty()) MPI_Allreduce(MPI_IN_PLACE, v.data(), static_cast<int>(v.size()), MPI_DOUBLE, op, c);
}

} // namespace

double Communicator::sum(double v) const {
  return reduce(comm_, v, MPI_DOUBLE, MPI_SUM);
}
double Communicator::max(double v) const {
  return reduce(comm_, v, MPI_DOUBLE, MPI_MAX);
}
double Communicator::min(double v) const {
  return reduce(comm_, v, MPI_DOUBLE, MPI_MIN);
}
std::int64_t Communicator::sum(std::int64_t v) const {
  return reduce(comm_, v, MPI_INT64_T, MPI_SUM);
}
std::int64_t Communicator::max(std::int64_t v) const {
  return reduce(comm_, v, MPI_INT64_T, MPI_MAX);
}
std::int64_t Communicator::min(std::int64_t v) const {
  return reduce(comm_, v, MPI_INT64_T, MPI_MIN);
}
void Communicator::sum(std::vector<double>& v) const {
  reduce_vector(comm_, v, MPI_SUM);
}
void Communicator::max(std::vector<double>& v) const {
  reduce_vector(comm_, v, MPI_MAX);
}
void Communicator::min(std::vector<double>& v) const {
  reduce_vector(comm_, v, MPI_MIN);
}
bool Communicator::any(bool flag) const {
  return reduce(comm_, int(flag), MPI_INT, MPI_LOR) != 0;
}
unsigned Communicator::bitwise_or(unsigned bits) const {
  return reduce(comm_, bits, MPI_UNSIGNED, MPI_BOR);
}
void Communicator::barrier() const {
  if (size_ > 1) MPI_Barrier(comm_);
}

std::string Communicator::broadcast(const std::string& s, int root) const {
  if (size_ == 1) return s;
  long long n = rank_ == root ? static_cast<long long>(s.size()) : 0;
  MPI_Bcast(&n, 1, MPI_LONG_LONG, root, comm_);
  std::string out = rank_ == root ? s : std::string(static_cast<std::size_t>(n), '\0');
  if (n > 0) MPI_Bcast(out.data(), static_cast<int>(n), MPI_CHAR, root, comm_);
  return out;
}

std::vector<std::string> Communicator::gather(const std::string& s, int root) const {
  if (size_ == 1) return {s};
  const int n = static_cast<int>(s.size());
  std::vector<int> sizes(rank_ == root ? size_ : 0), offsets(rank_ == root ? size_ + 1 : 0);
  MPI_Gather(&n, 1, MPI_INT, sizes.data(), 1, MPI_INT, root, comm_);
  std::string all;
  if (rank_ == root) {
    offsets[0] = 0;
    for (int r = 0; r < size_; ++r) offsets[r + 1] = offsets[r] + sizes[r];
    all.resize(static_cast<std::size_t>(offsets[size_]));
  }
  MPI_Gatherv(s.data(), n, MPI_CHAR, all.data(), sizes.data(), offsets.data(), MPI_CHAR, root, comm_);
  std::vector<std::string> out;
  if (rank_ == root)
    for (int r = 0; r < size_; ++r) out.push_back(all.substr(std::size_t(offsets[r]), std::size_t(sizes[r])));
  return out;
}

double exact_total(ExactSum& sum, const Communicator& comm) {
  if (comm.size() > 1) {
    std::vector<std::int64_t>& w = sum.words();
    MPI_Allreduce(MPI_IN_PLACE, w.data(), static_cast<int>(w.size()), MPI_INT64_T, MPI_SUM, comm.raw());
    sum.special() = comm.sum(sum.special());
    sum.merged();
  }
  return sum.total();
}

} // namespace fvproxy
