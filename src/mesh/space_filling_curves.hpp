#pragma once
// Space-filling-curve keys of points quantized on a 2^21 grid per axis (63-bit keys), as small
// function objects (ArborX style). Used by the `zorder` and `hilbert` orderings.
#include <cstdint>

#include <Kokkos_Core.hpp>

namespace fvproxy {

inline constexpr int kCurveBits = 21;

/// Spreads the low 21 bits of v so that bit i lands on bit 3i.
KOKKOS_INLINE_FUNCTION std::uint64_t spread_bits3(std::uint64_t v) {
  v &= 0x1fffffULL;
  v = (v | (v << 32)) & 0x1f00000000ffffULL;
  v = (v | (v << 16)) & 0x1f0000ff0000ffULL;
  v = (v | (v << 8)) & 0x100f00f00f00f00fULL;
  v = (v | (v << 4)) & 0x10c30c30c30c30c3ULL;
  v = (v | (v << 2)) & 0x1249249249249249ULL;
  return v;
}

/// Morton (Z-order) key: bits interleaved x, y, z from the most significant triple down.
struct MortonKey {
  KOKKOS_INLINE_FUNCTION std::uint64_t operator()(std::uint32_t x, std::uint32_t y, std::uint32_t z) const {
    return (spread_bits3(x) << 2) | (spread_bits3(y) << 1) | spread_bits3(z);
  }
};

/// Hilbert key (Skilling, "Programming the Hilbert curve", 2004): axes -> transpose -> interleave.
struct HilbertKey {
  KOKKOS_INLINE_FUNCTION std::uint64_t operator()(std::uint32_t x, std::uint32_t y, std::uint32_t z) const {
    std::uint32_t X[3] = {x, y, z};
    const std::uint32_t M = 1u << (kCurveBits - 1);
    for (std::uint32_t Q = M; Q > 1; Q >>= 1) { // inverse undo
      const std::uint32_t P = Q - 1;
      for (int i = 0; i < 3; ++i) {
        if (X[i] & Q) {
          X[0] ^= P;
        } else {
          const std::uint32_t t = (X[0] ^ X[i]) & P;
          X[0] ^= t;
          X[i] ^= t;
        }
      }
    }
    for (int i = 1; i < 3; ++i) X[i] ^= X[i - 1]; // Gray encode
    std::uint32_t t = 0;
    for (std::uint32_t Q = M; Q > 1; Q >>= 1)
      if (X[2] & Q) t ^= Q - 1;
    for (int i = 0; i < 3; ++i) X[i] ^= t;
    return MortonKey{}(X[0], X[1], X[2]);
  }
};

} // namespace fvproxy
