// Declarations mirroring Kokkos 4.6.01's templates (Kokkos_Core_fwd.hpp, Kokkos_ExecPolicy.hpp,
// Kokkos_Parallel_Reduce.hpp, impl/Kokkos_FunctorAnalysis.hpp, Cuda/Kokkos_Cuda_KernelLaunch.hpp):
// g++ mangles the kernel entry names the way a Kokkos 4.6 CUDA build names its reductions.
namespace Kokkos {
class Cuda;
class HostSpace;
template <class... Properties> class RangePolicy;
template <class Scalar, class Index> struct ValLocScalar;
template <class Scalar> struct MinMaxScalar;
template <class Scalar, class Index, class Space> struct MinLoc;
template <class Scalar, class Space> struct MinMax;
namespace Impl {
struct FunctorPatternInterface {
  struct FOR {};
  struct REDUCE {};
  struct SCAN {};
};
template <typename PatternInterface, class Policy, class Functor, typename OverrideValueType> struct FunctorAnalysis {
  struct Reducer;
};
template <typename FunctorType, typename FunctorAnalysisReducerType, typename Enable = void>
class CombinedFunctorReducer;
template <typename CombinedFunctorReducerType, typename PolicyType, typename ExecutionSpaceType> class ParallelReduce;
template <class DriverType> void cuda_parallel_launch_local_memory(const DriverType driver);
} // namespace Impl
} // namespace Kokkos

using Policy = Kokkos::RangePolicy<Kokkos::Cuda>;
template <class Functor, class ReducerOrFunctor, class Value> void* kernel() {
  using A =
      Kokkos::Impl::FunctorAnalysis<Kokkos::Impl::FunctorPatternInterface::REDUCE, Policy, ReducerOrFunctor, Value>;
  using PR = Kokkos::Impl::ParallelReduce<Kokkos::Impl::CombinedFunctorReducer<Functor, typename A::Reducer>, Policy,
                                          Kokkos::Cuda>;
  return reinterpret_cast<void*>(&Kokkos::Impl::cuda_parallel_launch_local_memory<PR>);
}

namespace fvproxy {
struct Mesh;
struct L1Sum {};           // exempt (exact solution: sin/cos frame)
struct ConservationSum {}; // not exempt: a made-up optimized reduction with a stack frame
void* check_geometry(const Mesh&) {
  auto l = [](int, Kokkos::ValLocScalar<double, int>&) {};
  return kernel<decltype(l), Kokkos::MinLoc<double, int, Kokkos::HostSpace>, Kokkos::ValLocScalar<double, int>>();
}
void* value_bounds(int) {
  auto l = [](int, Kokkos::MinMaxScalar<double>&) {};
  return kernel<decltype(l), Kokkos::MinMax<double, Kokkos::HostSpace>, Kokkos::MinMaxScalar<double>>();
}
void* sums(bool l1) {
  return l1 ? kernel<L1Sum, L1Sum, double>() : kernel<ConservationSum, ConservationSum, double>();
}
} // namespace fvproxy
