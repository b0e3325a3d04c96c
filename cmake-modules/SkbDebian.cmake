# skb as a Debian package: `cpack -G DEB --config <build>/CPackConfig.cmake` (scripts/deb.sh) makes
# skb_<version>_amd64.deb, installed under /usr. Its shared-library dependencies come from
# dpkg-shlibdeps; the programs skb runs are declared here: ninja runs every build, the host
# toolchain compiles with the system's C++ compiler.
set(CPACK_PACKAGE_NAME skb)
set(CPACK_PACKAGE_VENDOR "skb")
set(CPACK_PACKAGE_CONTACT "skb maintainers <skb@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "static kernel builder: prebuilt static-shape kernels from op statistics")
set(CPACK_PACKAGE_DESCRIPTION "skb scans op-statistics dumps, compiles one static-shape kernel per distinct op call
with a toolchain described as data (ninja runs the compiles), and packages them into a self-extracting,
signed .run installer for an operator library; libskb_runtime finds and runs installed kernels.")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "ninja-build, g++ | c++-compiler")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ccache, distcc")
# What `cmake --install` installs (the tests install nothing), stripped as Debian packages are.
set(CPACK_STRIP_FILES ON)
include(CPack)
