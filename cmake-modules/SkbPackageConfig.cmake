# Makes skb findable with find_package(skb CONFIG), from an install prefix and from this build
# tree: imported executables skb::generate and skb::package, and skbFunctions.cmake.
include(CMakePackageConfigHelpers)
set(SKB_CMAKE_DIR "${CMAKE_INSTALL_LIBDIR}/cmake/skb")
set_target_properties(skb-generate PROPERTIES EXPORT_NAME generate)
set_target_properties(skb-package PROPERTIES EXPORT_NAME package)

write_basic_package_version_file("${CMAKE_BINARY_DIR}/skbConfigVersion.cmake"
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)

# Installed package.
configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/skbConfig.cmake.in"
  "${CMAKE_BINARY_DIR}/install-config/skbConfig.cmake" INSTALL_DESTINATION "${SKB_CMAKE_DIR}")
install(EXPORT skbTargets NAMESPACE skb:: DESTINATION "${SKB_CMAKE_DIR}")
install(FILES "${CMAKE_BINARY_DIR}/install-config/skbConfig.cmake" "${CMAKE_BINARY_DIR}/skbConfigVersion.cmake"
  "${CMAKE_CURRENT_LIST_DIR}/skbFunctions.cmake" DESTINATION "${SKB_CMAKE_DIR}")

# Build tree: -Dskb_DIR=<this build folder>.
export(EXPORT skbTargets NAMESPACE skb:: FILE "${CMAKE_BINARY_DIR}/skbTargets.cmake")
configure_package_config_file("${CMAKE_CURRENT_LIST_DIR}/skbConfig.cmake.in" "${CMAKE_BINARY_DIR}/skbConfig.cmake"
  INSTALL_DESTINATION "${CMAKE_BINARY_DIR}" INSTALL_PREFIX "${CMAKE_BINARY_DIR}")
configure_file("${CMAKE_CURRENT_LIST_DIR}/skbFunctions.cmake" "${CMAKE_BINARY_DIR}/skbFunctions.cmake" COPYONLY)
