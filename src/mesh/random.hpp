#pragma once
// Deterministic, platform-independent pseudo-random numbers (splitmix64): the same seed gives the
// same mesh jitter and the same `random` ordering with every compiler and standard library.
#include <cstdint>

namespace fvproxy {

inline std::uint64_t splitmix64(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

/// Uniform in [0, 1) from (seed, counter).
inline double uniform01(std::uint64_t seed, std::uint64_t counter) {
  return double(splitmix64(splitmix64(seed) ^ counter) >> 11) * 0x1.0p-53;
}

/// Uniform in [-1, 1) from (seed, counter).
inline double uniform_pm1(std::uint64_t seed, std::uint64_t counter) {
  return 2.0 * uniform01(seed, counter) - 1.0;
}

} // namespace fvproxy
