# Builds the QEMU instruction-count plugin (insn_count.c) with the *host* C
# compiler, whatever the target of this build: it is loaded by qemu-system-arm /
# qemu-aarch64 running on the build machine. Defines ATTN_QEMU_PLUGIN (the .so
# path) and the target attn_qemu_plugin.
if(NOT TARGET attn_qemu_plugin)
  find_program(ATTN_HOST_CC NAMES cc gcc clang NO_CMAKE_FIND_ROOT_PATH)
  set(ATTN_QEMU_PLUGIN ${CMAKE_BINARY_DIR}/tools/qemu-plugin/libattn_insn_count.so
    CACHE INTERNAL "QEMU instruction-count plugin")
  set(_src ${CMAKE_CURRENT_LIST_DIR}/insn_count.c)
  add_custom_command(OUTPUT ${ATTN_QEMU_PLUGIN}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_BINARY_DIR}/tools/qemu-plugin
    COMMAND ${ATTN_HOST_CC} -shared -fPIC -O2 -std=c11 -Wall -Wextra -Werror
      -o ${ATTN_QEMU_PLUGIN} ${_src}
    DEPENDS ${_src} ${CMAKE_CURRENT_LIST_DIR}/qemu_plugin_api.h
    COMMENT "QEMU plugin libattn_insn_count.so (host compiler)")
  add_custom_target(attn_qemu_plugin ALL DEPENDS ${ATTN_QEMU_PLUGIN})
endif()
