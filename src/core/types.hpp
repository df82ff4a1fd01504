#pragma once
// Basic types and View aliases shared by every fvproxy component.
#include <Kokkos_Core.hpp>
#include <cstdint>

#ifndef FVPROXY_REAL
#define FVPROXY_REAL double
#endif

namespace fvproxy {

/// Floating-point type of all field and geometry arithmetic (`FVPROXY_REAL` at configure time).
using real = FVPROXY_REAL;
/// Local entity index (cells, faces, nodes): 4 bytes, as the byte models assume.
using index_t = std::int32_t;
/// Global id of a cell or node: its number in the mesh as generated or read.
using gid_t = std::int64_t;

using ExecSpace = Kokkos::DefaultExecutionSpace;
using MemSpace = ExecSpace::memory_space;
using HostSpace = Kokkos::HostSpace;
/// Host memory that MPI sends from and receives into: page-locked on CUDA (device copies to and
/// from it are direct DMA; the GPU machines' MPI is not CUDA-aware), ordinary host memory else.
#if defined(KOKKOS_ENABLE_CUDA)
using HostStagingSpace = Kokkos::CudaHostPinnedSpace;
#else
using HostStagingSpace = Kokkos::HostSpace;
#endif

// Device views; the `Const*` aliases mark inputs (HERACLES++ convention).
template <class T> using View1 = Kokkos::View<T*, Kokkos::LayoutLeft, MemSpace>;
template <class T> using ConstView1 = Kokkos::View<const T*, Kokkos::LayoutLeft, MemSpace>;
/// (entity, component) storage: consecutive entities are consecutive addresses.
template <class T> using View2 = Kokkos::View<T**, Kokkos::LayoutLeft, MemSpace>;
template <class T> using ConstView2 = Kokkos::View<const T**, Kokkos::LayoutLeft, MemSpace>;
/// (entity, xyz) storage, LayoutLeft.
template <class T> using Vec3View = Kokkos::View<T* [3], Kokkos::LayoutLeft, MemSpace>;
template <class T> using ConstVec3View = Kokkos::View<const T* [3], Kokkos::LayoutLeft, MemSpace>;

} // namespace fvproxy
