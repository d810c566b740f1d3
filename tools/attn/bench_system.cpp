// What `attn bench` reports about the machine and the build (bench_system.h).
#include "bench_system.h"

#include <sys/utsname.h>

#include <fstream>

#include "kernels/s8/kernels_s8.h"

#if defined(ATTN_CLI_HWY)
#include <hwy/targets.h>
#endif

#ifndef ATTN_CLI_F32_BACKEND
#define ATTN_CLI_F32_BACKEND "unknown"
#endif

namespace attn_cli {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  const auto e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

}  // namespace

std::string cpu_model() {
  std::ifstream f("/proc/cpuinfo");
  std::string line, implementer, part, hardware;
  while (std::getline(f, line)) {
    const auto colon = line.find(':');
    if (colon == std::string::npos) continue;
    const std::string key = trim(line.substr(0, colon));
    const std::string value = trim(line.substr(colon + 1));
    if (key == "model name" && !value.empty()) return value;  // x86, some Arm kernels
    if (key == "CPU implementer" && implementer.empty()) implementer = value;
    if (key == "CPU part" && part.empty()) part = value;
    if (key == "Hardware" && hardware.empty()) hardware = value;
  }
  if (!implementer.empty()) return "Arm CPU implementer " + implementer + " part " + part;
  if (!hardware.empty()) return hardware;
  return "unknown";
}

std::string cpu_arch() {
  utsname u{};
  return uname(&u) == 0 ? std::string(u.machine) : "unknown";
}

std::string f32_backend() { return ATTN_CLI_F32_BACKEND; }

// Highway's dynamic dispatch runs the best target (lowest bit) among those
// compiled (HWY_TARGETS; this file gets the engine's Highway definitions)
// that the CPU supports; without run-time dispatch, the static target.
std::string f32_target() {
#if defined(ATTN_CLI_HWY) && defined(HWY_COMPILE_ONLY_STATIC)
  return hwy::TargetName(HWY_STATIC_TARGET);
#elif defined(ATTN_CLI_HWY)
  const int64_t targets = hwy::SupportedTargets() & HWY_TARGETS;
  return hwy::TargetName(targets & -targets);
#else
  return "";
#endif
}

std::string int8_kernels() { return attn::detail::kernels_s8_name(); }

}  // namespace attn_cli
