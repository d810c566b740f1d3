// A fragment of kernels_s8_x86.cpp, included by that one translation unit
// only: its definitions cannot be duplicated across units.
// NOLINTBEGIN(misc-definitions-in-headers)
// x86 int8 kernels: CPU feature detection and the dispatch level (part of
// kernels_s8_x86.cpp, inside its anonymous namespace).

// ------------------------------------------------------------- CPU features
uint64_t xgetbv0() {
  uint32_t lo = 0, hi = 0;
  __asm__ volatile("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
  return (static_cast<uint64_t>(hi) << 32) | lo;
}

// The best level this CPU runs, and (separately) whether it has AVX-VNNI:
// a CPU with AVX512-VNNI but no VEX-encoded AVX-VNNI (Ice Lake, Cascade
// Lake) runs levels 0, 1 and 3 but not 2.
struct CpuLevels {
  int best = 0;
  bool avxvnni = false;
};

CpuLevels detect_levels() {
  CpuLevels r;
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0, &a, &b, &c, &d) == 0 || a < 7) return r;
  __get_cpuid(1, &a, &b, &c, &d);
  const bool osxsave = (c & (1u << 27)) != 0;
  const bool avx = (c & (1u << 28)) != 0;
  if (!osxsave || !avx) return r;
  const uint64_t xcr0 = xgetbv0();
  const bool os_ymm = (xcr0 & 0x6u) == 0x6u;
  const bool os_zmm = (xcr0 & 0xe6u) == 0xe6u;
  if (!os_ymm) return r;
  __cpuid_count(7, 0, a, b, c, d);
  const bool avx2 = (b & (1u << 5)) != 0;
  const bool avx512f = (b & (1u << 16)) != 0;
  const bool avx512bw = (b & (1u << 30)) != 0;
  const bool avx512vl = (b & (1u << 31)) != 0;
  const bool avx512vnni = (c & (1u << 11)) != 0;
  unsigned a1 = 0, b1 = 0, c1 = 0, d1 = 0;
  __cpuid_count(7, 1, a1, b1, c1, d1);
  if (!avx2) return r;
  r.avxvnni = (a1 & (1u << 4)) != 0;
  if (os_zmm && avx512f && avx512bw && avx512vl && avx512vnni) {
    r.best = 3;
  } else {
    r.best = r.avxvnni ? 2 : 1;
  }
  return r;
}

const CpuLevels& cpu_levels() {
  static const CpuLevels levels = detect_levels();
  return levels;
}

int cpu_level() { return cpu_levels().best; }

// AVX512_VBMI (vpermi2b), for the byte-table softmax at level 3.
bool detect_vbmi() {
  if (cpu_level() < 3) return false;
  unsigned a = 0, b = 0, c = 0, d = 0;
  __cpuid_count(7, 0, a, b, c, d);
  return (c & (1u << 1)) != 0;
}

bool cpu_vbmi() {
  static const bool vbmi = detect_vbmi();
  return vbmi;
}

RuntimeLevel<cpu_level> g_level;

int level() { return g_level.get(); }

inline int32_t wrap_sub32(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) - static_cast<uint32_t>(b));
}
inline int32_t wrap_mul32(int32_t a, int32_t b) {
  return static_cast<int32_t>(static_cast<uint32_t>(a) * static_cast<uint32_t>(b));
}
// NOLINTEND(misc-definitions-in-headers)
