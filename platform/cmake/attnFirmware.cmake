# attn_firmware(<target> [LINKER_SCRIPT <file>] [STACK_SIZE <bytes>])
#
# Links <target> as a bare-metal firmware image <target>.elf (and a .map beside
# it): the start-up code and semihosting defaults (attn::platform_rt), the
# platform library (attn::platform) and a linker script, which is
#   LINKER_SCRIPT <file>            when given (a board script outside this tree),
#   else ATTN_LINKER_SCRIPT         when set (cache or variable),
#   else ATTN_PLATFORM_LD_DIR/<ATTN_BOARD>.ld   (the shipped boards).
# A board script defines MEMORY { FLASH ...; RAM ... } and does
# INCLUDE cortex-m.ld, which the linker finds in ATTN_PLATFORM_LD_DIR.
# STACK_SIZE sets the main stack (default 64 KiB; cortex-m.ld's __stack_size).
#
# Used by the library's own build (platform/CMakeLists.txt) and by the installed
# package (attnConfig.cmake), with the same targets: attn::platform and
# attn::platform_rt.
function(attn_firmware target)
  cmake_parse_arguments(arg "" "LINKER_SCRIPT;STACK_SIZE" "" ${ARGN})
  if(arg_LINKER_SCRIPT)
    set(script ${arg_LINKER_SCRIPT})
  elseif(ATTN_LINKER_SCRIPT)
    set(script ${ATTN_LINKER_SCRIPT})
  elseif(ATTN_BOARD)
    set(script ${ATTN_PLATFORM_LD_DIR}/${ATTN_BOARD}.ld)
  else()
    message(FATAL_ERROR "attn_firmware(${target}): no linker script (set ATTN_BOARD, "
                        "ATTN_LINKER_SCRIPT or LINKER_SCRIPT)")
  endif()
  get_filename_component(script ${script} ABSOLUTE)
  if(NOT EXISTS ${script})
    message(FATAL_ERROR "attn_firmware(${target}): linker script ${script} does not exist")
  endif()
  set_target_properties(${target} PROPERTIES SUFFIX .elf)
  target_link_libraries(${target} PRIVATE attn::platform_rt attn::platform)
  target_link_options(${target} PRIVATE
    -nostartfiles
    -L${ATTN_PLATFORM_LD_DIR}
    -T${script}
    -Wl,-Map=$<TARGET_FILE_DIR:${target}>/${target}.map
    -Wl,--print-memory-usage)
  if(arg_STACK_SIZE)
    target_link_options(${target} PRIVATE -Wl,--defsym=__stack_size=${arg_STACK_SIZE})
  endif()
  set_property(TARGET ${target} APPEND PROPERTY LINK_DEPENDS
    ${script} ${ATTN_PLATFORM_LD_DIR}/cortex-m.ld)
endfunction()
