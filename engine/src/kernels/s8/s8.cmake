# The int8 kernels, included by engine/CMakeLists.txt: the reference set (always
# built: the oracle, and the entries an ISA does not provide) and the ISA
# folders. Every file is compiled; each ISA file is empty unless
# kernels_s8.h selects that ISA for this target. None may use floating point
# (tests/int8/check_no_float.cmake).
target_sources(attn PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ref/kernels_s8_ref.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ref/kernels_s8_tile_ref.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dsp/kernels_s8_dsp.cpp
  ${CMAKE_CURRENT_LIST_DIR}/neon/kernels_s8_neon.cpp
)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  # Run-time dispatch over AVX2 / AVX-VNNI / AVX-512 VNNI (target attributes
  # per function).
  target_sources(attn PRIVATE ${CMAKE_CURRENT_LIST_DIR}/x86/kernels_s8_x86.cpp)
endif()
