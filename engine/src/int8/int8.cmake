# The int8 path (TFLite-exact quantized ops), included by engine/CMakeLists.txt.
# *_prepare.cpp files may use floating point; the others (eval, kernels) may
# not (tests/int8 checks their Cortex-M4 soft-float objects).
target_sources(attn PRIVATE
  ${CMAKE_CURRENT_LIST_DIR}/quantize.cpp
  ${CMAKE_CURRENT_LIST_DIR}/softmax_s8_prepare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/softmax_s8.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sdpa_s8_prepare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/sdpa_s8.cpp
  ${CMAKE_CURRENT_LIST_DIR}/attend_s8.cpp
  ${CMAKE_CURRENT_LIST_DIR}/fc_s8_prepare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mha_s8_prepare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/mha_s8.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../ops/mha_decode_s8_prepare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/../ops/mha_decode_s8.cpp
  ${CMAKE_CURRENT_LIST_DIR}/luong_s8_prepare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/luong_s8.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bahdanau_s8_prepare.cpp
  ${CMAKE_CURRENT_LIST_DIR}/bahdanau_s8.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels_s8_ref.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels_s8_tile.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels_s8_arm.cpp
  ${CMAKE_CURRENT_LIST_DIR}/kernels_s8_neon.cpp
)
if(CMAKE_SYSTEM_PROCESSOR MATCHES "^(x86_64|AMD64|amd64)$")
  # Run-time dispatch over AVX2 / AVX-VNNI / AVX-512 VNNI (target attributes
  # per function; the file is empty unless kernels_s8.h selects x86).
  target_sources(attn PRIVATE ${CMAKE_CURRENT_LIST_DIR}/kernels_s8_x86.cpp)
endif()
