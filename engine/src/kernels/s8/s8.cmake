# The int8 kernels, included by engine/CMakeLists.txt: the reference set (always
# built: the oracle, and the entries an ISA set does not implement) and one
# folder per ISA. Every file is compiled on every target; an ISA's files are
# empty unless kernel_set.h selects that ISA. None may use floating point
# (tests/int8/check_no_float.cmake).
target_sources(attn PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/ref/kernels_s8_ref.cpp
  ${CMAKE_CURRENT_LIST_DIR}/ref/kernels_s8_tile_ref.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dsp/kernels_s8_dsp.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dsp/kernels_s8_tile_dsp.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dsp/qk_tile_rq_dsp.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dsp/pv_tile_rq_dsp.cpp
  ${CMAKE_CURRENT_LIST_DIR}/dsp/softmax_s8_row_dsp.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mve/kernels_s8_mve.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mve/kernels_s8_tile_mve.cpp
  ${CMAKE_CURRENT_LIST_DIR}/neon/kernels_s8_neon.cpp
  ${CMAKE_CURRENT_LIST_DIR}/neon/kernels_s8_tile_neon.cpp
  ${CMAKE_CURRENT_LIST_DIR}/neon/kernels_s8_tile_i8mm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/neon/kernels_s8_pack_neon.cpp
  ${CMAKE_CURRENT_LIST_DIR}/neon/kernels_s8_softmax_neon.cpp
  ${CMAKE_CURRENT_LIST_DIR}/x86/kernels_s8_x86.cpp
)
