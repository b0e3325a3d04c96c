# skb_add_static_kernels(<name> OP_PARAMS <dir>... [TOOLCHAIN host|<file>] [SOC <soc>]
#                        [JOBS <n>] [LAUNCHER <cmd>...] [COMPRESSION gzip|zstd|xz] [STRICT]
#                        [CACHE <url>] [SIGN_KEY <file>] [TRUSTED_KEYS <file>] [BASE <run> [SELF_CONTAINED]]
#                        [PAYOFF <file>] [OUTPUT_VARIABLE <var>])
#
# Adds a target <name> (built by default) that scans the op-statistics folders, compiles one
# static-shape kernel per distinct op call and packages them. The package is
# ${CMAKE_CURRENT_BINARY_DIR}/<name>/static_kernel.run (a hard link to the newest
# static_kernel_<YYYYMMDDHHMMSS>_<digest>.run beside it); OUTPUT_VARIABLE receives that path, for
# install(FILES) or other targets' DEPENDS. Folders that give no kernel to build (no records, or
# each one rejected or unsupported) fail the build (skb-generate --require-kernels, exit 3).
#
# Inside the outer build it is one step: it reruns only when a dump folder, the toolchain or
# skb changes, or a file BASE, PAYOFF or SIGN_KEY names (a depfile written by skb-generate says
# which), compiles only new kernels, runs
# in the console pool with JOBS parallel compiles (default: the number of cores), and fails
# the outer build with skb-generate's errors. CACHE names a kernel store shared with other
# builds (file:///folder, redis://host:port[/db], http://host/prefix, each with ?mode=ro for a
# consumer that never writes); without it, SKB_CACHE in the build's environment is used.
# SIGN_KEY names the private key file that signs what the build stores and the package (its path
# goes into the build, never the key); TRUSTED_KEYS the trust file whose keys a store entry must
# be signed by. Without them, SKB_SIGNING_KEY and SKB_TRUSTED_KEYS, else the user's own key.
# BASE names a .run the package is a delta on: it carries only the kernels that one lacks, and
# installs where that one's kernels are (skb-package --base). Such a delta also leaves out the
# installer when the base's is the same, and runs the copy the base left in the library;
# SELF_CONTAINED keeps it in (skb-package --self-contained). PAYOFF names `skb bench` evidence of
# the target's machine class: the static kernels it found slower are left out (skb-package --payoff).
function(skb_add_static_kernels name)
  set(flags STRICT SELF_CONTAINED)
  set(values TOOLCHAIN SOC JOBS COMPRESSION CACHE SIGN_KEY TRUSTED_KEYS BASE PAYOFF OUTPUT_VARIABLE)
  set(lists OP_PARAMS LAUNCHER)
  cmake_parse_arguments(PARSE_ARGV 1 arg "${flags}" "${values}" "${lists}")
  # The name is the folder of its build, inside the current binary folder.
  if(name MATCHES "^\\.\\.?$")
    message(FATAL_ERROR "skb_add_static_kernels(${name}): expected a target name that can name a folder")
  endif()
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "skb_add_static_kernels(${name}): unknown arguments: ${arg_UNPARSED_ARGUMENTS}")
  endif()
  if(arg_KEYWORDS_MISSING_VALUES)
    message(FATAL_ERROR "skb_add_static_kernels(${name}): missing values for: ${arg_KEYWORDS_MISSING_VALUES}")
  endif()
  if(NOT arg_OP_PARAMS)
    message(FATAL_ERROR "skb_add_static_kernels(${name}): OP_PARAMS is required (one or more op-statistics folders)")
  endif()
  # Values that can be checked without running skb are checked here, at configure time, where a
  # bad one would fail only the build.
  if(NOT "${arg_JOBS}" STREQUAL "" AND NOT arg_JOBS MATCHES "^[1-9][0-9]*$")
    message(FATAL_ERROR "skb_add_static_kernels(${name}): JOBS ${arg_JOBS}: expected a number of parallel compiles, 1 or more")
  endif()
  if(NOT "${arg_COMPRESSION}" STREQUAL "" AND NOT arg_COMPRESSION MATCHES "^(gzip|zstd|xz)$")
    message(FATAL_ERROR "skb_add_static_kernels(${name}): COMPRESSION ${arg_COMPRESSION}: expected gzip, zstd or xz")
  endif()
  if(arg_SELF_CONTAINED AND NOT arg_BASE)
    message(FATAL_ERROR "skb_add_static_kernels(${name}): SELF_CONTAINED needs BASE (it keeps a delta's installer in)")
  endif()
  if(NOT TARGET skb::generate OR NOT TARGET skb::package)
    message(FATAL_ERROR "skb_add_static_kernels(${name}): skb::generate and skb::package are missing; "
                        "call find_package(skb CONFIG REQUIRED) first")
  endif()
  if(NOT CMAKE_GENERATOR MATCHES "Ninja|Makefiles")
    message(FATAL_ERROR "skb_add_static_kernels(${name}): needs a Ninja or Makefile generator (its step depends "
                        "on a depfile), not ${CMAKE_GENERATOR}")
  endif()

  set(out "${CMAKE_CURRENT_BINARY_DIR}/${name}")
  set(gen_args -o "${out}" --quiet --require-kernels --depfile "${out}/skb.d")
  foreach(dir IN LISTS arg_OP_PARAMS)
    get_filename_component(abs "${dir}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    # A misspelt keyword (JOB 4) would be taken for two folders, and fail only the build.
    if(dir MATCHES "^[A-Z][A-Z_]+$" AND NOT EXISTS "${abs}")
      string(REPLACE ";" ", " keywords "${flags};${values};${lists}")
      message(FATAL_ERROR "skb_add_static_kernels(${name}): OP_PARAMS ${dir}: no such folder, and not a keyword "
                          "(${keywords})")
    endif()
    list(APPEND gen_args -p "${abs}")
  endforeach()
  if(arg_TOOLCHAIN)
    if(arg_TOOLCHAIN MATCHES "/|\\.json$")
      get_filename_component(arg_TOOLCHAIN "${arg_TOOLCHAIN}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
    endif()
    list(APPEND gen_args --toolchain "${arg_TOOLCHAIN}")
  endif()
  if(arg_SOC)
    list(APPEND gen_args --soc "${arg_SOC}")
  endif()
  foreach(word IN LISTS arg_LAUNCHER)
    # ... and after LAUNCHER, for words of the command that no compile from the store would run.
    if(word MATCHES "^[A-Z][A-Z_]+$" AND NOT EXISTS "${word}")
      string(REPLACE ";" ", " keywords "${flags};${values};${lists}")
      message(FATAL_ERROR "skb_add_static_kernels(${name}): LAUNCHER ... ${word}: not a keyword (${keywords}); a "
                          "launcher's words are a program and its arguments")
    endif()
    list(APPEND gen_args --launcher "${word}")
  endforeach()
  if(arg_COMPRESSION)
    list(APPEND gen_args --compression "${arg_COMPRESSION}")
  endif()
  if(arg_STRICT)
    list(APPEND gen_args --strict)
  endif()
  if(arg_SELF_CONTAINED)
    list(APPEND gen_args --package-self-contained)
  endif()
  if(arg_CACHE)
    list(APPEND gen_args --cache "${arg_CACHE}")
  endif()
  foreach(option SIGN_KEY TRUSTED_KEYS BASE PAYOFF)
    if(arg_${option})
      get_filename_component(file "${arg_${option}}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
      string(TOLOWER "${option}" flag)
      string(REPLACE "_" "-" flag "${flag}")
      if(option STREQUAL "BASE" OR option STREQUAL "PAYOFF")
        set(flag "package-${flag}")
      endif()
      list(APPEND gen_args "--${flag}" "${file}")
    endif()
  endforeach()
  set(jobs "${arg_JOBS}")
  if(NOT jobs)
    cmake_host_system_information(RESULT jobs QUERY NUMBER_OF_LOGICAL_CORES)
  endif()
  if(CMAKE_MAKE_PROGRAM MATCHES "ninja")
    set(ninja "${CMAKE_MAKE_PROGRAM}")
  else()
    find_program(SKB_NINJA NAMES ninja ninja-build REQUIRED)
    set(ninja "${SKB_NINJA}")
  endif()
  # ninja's --quiet (no progress lines inside the outer build's) came with ninja 1.11.
  set(quiet "")
  execute_process(COMMAND "${ninja}" --version OUTPUT_VARIABLE ninja_version OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE ninja_rc)
  if(ninja_rc EQUAL 0 AND ninja_version VERSION_GREATER_EQUAL 1.11)
    set(quiet --quiet)
  endif()

  # The depfile names absolute paths; CMP0116 (NEW) has CMake hand it to Ninja correctly.
  cmake_policy(PUSH)
  if(POLICY CMP0116)
    cmake_policy(SET CMP0116 NEW)
  endif()
  # Ninja keeps the step's outputs' times when the inner build changed nothing (restat); Make has no
  # such thing, so there the step marks them built, or every later build would run it again.
  set(mark_built "")
  if(NOT CMAKE_GENERATOR MATCHES "Ninja")
    set(mark_built COMMAND "${CMAKE_COMMAND}" -E touch_nocreate "${out}/package.json" "${out}/static_kernel.run")
  endif()
  add_custom_command(
    OUTPUT "${out}/package.json" "${out}/static_kernel.run"
    COMMAND skb::generate ${gen_args}
    COMMAND "${ninja}" -C "${out}" -j "${jobs}" ${quiet}
    ${mark_built}
    DEPENDS skb::generate skb::package
    DEPFILE "${out}/skb.d"
    USES_TERMINAL
    COMMENT "Building static kernels of ${name}"
    VERBATIM)
  cmake_policy(POP)
  add_custom_target(${name} ALL DEPENDS "${out}/package.json" "${out}/static_kernel.run")
  if(arg_OUTPUT_VARIABLE)
    set(${arg_OUTPUT_VARIABLE} "${out}/static_kernel.run" PARENT_SCOPE)
  endif()
endfunction()
