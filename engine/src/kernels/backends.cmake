# Selects the float kernel backend (ATTN_SIMD=auto|ref|hwy|xsimd) and adds its
# sources to the attn target. ref is always compiled: it is the oracle.
if(ATTN_SIMD STREQUAL "auto" OR ATTN_SIMD STREQUAL "ref")
  set(ATTN_BACKEND_NAME ref)
else()
  message(FATAL_ERROR "ATTN_SIMD=${ATTN_SIMD}: this build knows only ref")
endif()
target_compile_definitions(attn PRIVATE ATTN_BACKEND=${ATTN_BACKEND_NAME})
