# attn.pc for users without CMake: `pkg-config --cflags --libs attn` gives the
# include directory (with the generated attn/config.h, so no -D is needed) and
# the static library plus what it links (libhwy on x86 Highway builds, whose
# run-time dispatch needs it). Relocatable: paths are relative to the .pc file.
set(ATTN_PC_EXTRA_LIBS "")
if(ATTN_LINKS_HWY)
  get_target_property(_attn_hwy_lib hwy::hwy LOCATION)
  get_filename_component(_attn_hwy_dir "${_attn_hwy_lib}" DIRECTORY)
  if(NOT _attn_hwy_dir IN_LIST CMAKE_CXX_IMPLICIT_LINK_DIRECTORIES)
    string(APPEND ATTN_PC_EXTRA_LIBS " -L${_attn_hwy_dir}")
  endif()
  string(APPEND ATTN_PC_EXTRA_LIBS " -lhwy")
endif()
file(RELATIVE_PATH ATTN_PC_TO_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" ATTN_PC_TO_PREFIX "${ATTN_PC_TO_PREFIX}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/attn.pc.in ${CMAKE_CURRENT_BINARY_DIR}/attn.pc @ONLY)
install(FILES ${CMAKE_CURRENT_BINARY_DIR}/attn.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
