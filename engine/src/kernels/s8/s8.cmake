# The int8 kernels, included by engine/CMakeLists.txt: the reference set (always
# built: the oracle, and the entries an ISA set does not implement) and one
# folder per ISA. Every file is compiled on every target; an ISA's files are
# empty unless kernel_set.h selects that ISA. None may use floating point
# (tests/int8/check_no_float.cmake).
attn_sources(ref kernels_s8_ref.cpp kernels_s8_tile_ref.cpp)
attn_sources(dsp kernels_s8_dsp.cpp kernels_s8_tile_dsp.cpp qk_tile_rq_dsp.cpp pv_tile_rq_dsp.cpp
  softmax_s8_row_dsp.cpp)
attn_sources(mve kernels_s8_mve.cpp kernels_s8_tile_mve.cpp)
attn_sources(neon kernels_s8_neon.cpp kernels_s8_tile_neon.cpp kernels_s8_tile_i8mm.cpp
  kernels_s8_pack_neon.cpp kernels_s8_softmax_neon.cpp)
attn_sources(x86 kernels_s8_x86.cpp)
