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

# Debug information: the build type's (-g: full), or line tables only (SKB_DEBUG_INFO=lines, as
# scripts/test.sh builds): a backtrace, a debugger's stack and a sanitizer's report still name file
# and line, and each unit compiles in a fifth to a quarter less time. The code is the same either way.
set(SKB_DEBUG_INFO "full" CACHE STRING "Debug information with -g: full, or lines (line tables only)")
set_property(CACHE SKB_DEBUG_INFO PROPERTY STRINGS full lines)
if(SKB_DEBUG_INFO STREQUAL "lines")
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_compile_options(skb_settings INTERFACE -gline-tables-only)
  else()
    target_compile_options(skb_settings INTERFACE -g1)
  endif()
elseif(NOT SKB_DEBUG_INFO STREQUAL "full")
  message(FATAL_ERROR "SKB_DEBUG_INFO is full or lines, not '${SKB_DEBUG_INFO}'")
endif()

# libFuzzer targets (tests/fuzz/) need clang; the libraries then carry coverage instrumentation.
option(SKB_FUZZ "Build the libFuzzer targets (needs clang)" OFF)
if(SKB_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    message(FATAL_ERROR "SKB_FUZZ needs clang (CXX=clang++), not ${CMAKE_CXX_COMPILER_ID}")
  endif()
  target_compile_options(skb_settings INTERFACE -fsanitize=fuzzer-no-link)
endif()

option(SKB_PCH "Precompile the headers most units include, once per build" ON)

# A target that precompiles a header: clang's carries no timestamp, so that ccache can cache it
# and the units that use it.
function(skb_pch_producer target)
  if(CMAKE_CXX_COMPILER_ID STREQUAL "Clang")
    target_compile_options(${target} PRIVATE "SHELL:-Xclang -fno-pch-timestamp")
  endif()
endfunction()

# Precompiled headers: one target of a build precompiles the headers most units include, and the
# targets of the given folders (those without the property SKB_NO_PCH) and the given targets reuse it.
function(skb_reuse_pch pch)
  if(NOT SKB_PCH)
    return()
  endif()
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "DIRECTORIES;TARGETS")
  set(chosen ${arg_TARGETS})
  foreach(dir ${arg_DIRECTORIES})
    get_property(targets DIRECTORY ${dir} PROPERTY BUILDSYSTEM_TARGETS)
    foreach(target ${targets})
      get_target_property(type ${target} TYPE)
      get_target_property(opt_out ${target} SKB_NO_PCH)
      if(NOT target STREQUAL pch AND type MATCHES "^(STATIC|SHARED|MODULE|OBJECT)_LIBRARY$|^EXECUTABLE$"
         AND NOT opt_out)
        list(APPEND chosen ${target})
      endif()
    endforeach()
  endforeach()
  foreach(target ${chosen})
    target_precompile_headers(${target} REUSE_FROM ${pch})
    get_target_property(type ${target} TYPE)
    if(type STREQUAL "EXECUTABLE")
      # The header is precompiled position-independent (-fPIC), as libraries are built, and is
      # used only by units compiled the same way: an executable's units are too (they link into
      # a position-independent executable all the same).
      target_compile_options(${target} PRIVATE -fPIC)
    endif()
  endforeach()
endfunction()
