// What `attn bench` reports about the machine and the build
// (bench_system.cpp).
#pragma once

#include <string>

namespace attn_cli {

// The CPU as /proc/cpuinfo names it ("model name", else the Arm implementer
// and part numbers, else "Hardware"), or "unknown".
std::string cpu_model();
// uname's machine: "x86_64", "aarch64", "armv7l".
std::string cpu_arch();

// The float kernel backend the engine was built with (ATTN_SIMD): "ref",
// "hwy" or "xsimd".
std::string f32_backend();
// hwy: the Highway target the engine's dispatch picks on this CPU ("AVX2",
// "AVX3", "NEON", "SVE"); empty for the other backends.
std::string f32_target();
// The int8 kernel set the engine runs on this CPU: "ref", "dsp", "mve",
// "neon..." or the x86 level ("avx2", "avx-vnni", "avx512-vnni").
std::string int8_kernels();

}  // namespace attn_cli
