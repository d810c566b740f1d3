// The few Cortex-M system registers the platform layer touches (Armv7-M and
// Armv8-M share these addresses).
#pragma once

#include <cstdint>

namespace attn {
namespace platform {
namespace cm {

inline volatile uint32_t& reg(uint32_t address) {
  return *reinterpret_cast<volatile uint32_t*>(static_cast<uintptr_t>(address));
}

constexpr uint32_t kCpuid = 0xE000ED00u;  // SCB->CPUID
constexpr uint32_t kVtor = 0xE000ED08u;   // SCB->VTOR
constexpr uint32_t kCcr = 0xE000ED14u;    // SCB->CCR
constexpr uint32_t kShcsr = 0xE000ED24u;  // SCB->SHCSR
constexpr uint32_t kCfsr = 0xE000ED28u;   // SCB->CFSR (MMFSR | BFSR | UFSR)
constexpr uint32_t kHfsr = 0xE000ED2Cu;   // SCB->HFSR
constexpr uint32_t kMmfar = 0xE000ED34u;  // SCB->MMFAR
constexpr uint32_t kBfar = 0xE000ED38u;   // SCB->BFAR
constexpr uint32_t kCpacr = 0xE000ED88u;  // SCB->CPACR
constexpr uint32_t kSfsr = 0xE000EDE4u;   // SAU->SFSR (Armv8-M Security Extension)
constexpr uint32_t kSfar = 0xE000EDE8u;   // SAU->SFAR
constexpr uint32_t kDemcr = 0xE000EDFCu;  // CoreDebug->DEMCR
constexpr uint32_t kMvfr0 = 0xE000EF40u;  // FPU media and VFP feature registers
constexpr uint32_t kMvfr1 = 0xE000EF44u;
constexpr uint32_t kDwtCtrl = 0xE0001000u;
constexpr uint32_t kDwtCyccnt = 0xE0001004u;

inline void dsb() { __asm__ volatile("dsb 0xF" ::: "memory"); }
inline void isb() { __asm__ volatile("isb 0xF" ::: "memory"); }

}  // namespace cm
}  // namespace platform
}  // namespace attn
