# Compile settings shared by every target of skb, as INTERFACE targets.
set(CMAKE_CXX_STANDARD 17)
set(CMAKE_CXX_STANDARD_REQUIRED ON)
set(CMAKE_CXX_EXTENSIONS OFF)
if(NOT CMAKE_BUILD_TYPE AND NOT CMAKE_CONFIGURATION_TYPES)
  set(CMAKE_BUILD_TYPE RelWithDebInfo CACHE STRING "Build type" FORCE)
endif()

option(SKB_WERROR "Treat warnings as errors" OFF)
set(SKB_SANITIZE "" CACHE STRING "Comma-separated sanitizers, e.g. address,undefined")

add_library(skb_settings INTERFACE)
target_compile_options(skb_settings INTERFACE -Wall -Wextra -Wshadow -Wnon-virtual-dtor
  $<$<BOOL:${SKB_WERROR}>:-Werror>)
if(SKB_SANITIZE)
  # Every finding fails the run: no sanitizer report scrolls by in a passing test.
  target_compile_options(skb_settings INTERFACE -fsanitize=${SKB_SANITIZE} -fno-sanitize-recover=all
    -fno-omit-frame-pointer)
  target_link_options(skb_settings INTERFACE -fsanitize=${SKB_SANITIZE} -fno-sanitize-recover=all)
endif()

# libFuzzer targets (tests/fuzz/) need clang; the libraries then carry coverage instrumentation.
option(SKB_FUZZ "Build the libFuzzer targets (needs clang)" OFF)
if(SKB_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SKB_FUZZ needs clang (CXX=clang++), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  target_compile_options(skb_settings INTERFACE -fsanitize=fuzzer-no-link)
endif()
