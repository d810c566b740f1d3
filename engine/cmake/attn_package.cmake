# The CMake package of an installed attn: attnConfig.cmake (components attn and
# platform, attn_firmware() on bare metal) and its version file. Included by
# the top-level CMakeLists.txt once engine/ and platform/ have their targets.
include(CMakePackageConfigHelpers)
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/attnConfig.cmake.in
  ${PROJECT_BINARY_DIR}/attnConfig.cmake
  INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/attn
  PATH_VARS ATTN_INSTALL_LDDIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/attnConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES
  ${PROJECT_BINARY_DIR}/attnConfig.cmake
  ${PROJECT_BINARY_DIR}/attnConfigVersion.cmake
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/attn)
