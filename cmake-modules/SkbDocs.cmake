# Man pages, made at build time by help2man from each program's own --help: the one source of
# the pages, of `--help`, and of the option tables of doc/reference (tests/docs/check_docs.py
# checks the tables against --help). skb.1 also holds every subcommand's --help, found by
# walking the "Subcommands:" lists. The pages land in <build>/share/man/man1/ and are installed
# in share/man/man1/ (so in the .deb): `man skb-package` works once skb is installed.
#
# The same file in script mode writes skb.1's include file:
#   cmake -DSKB_EXE=<skb> -DSKB_OUT=<file> -DSKB_SEE_ALSO=<file> -P SkbDocs.cmake

if(CMAKE_SCRIPT_MODE_FILE)
  # The --help text of `skb <words>`.
  function(skb_help_section words out)
    execute_process(COMMAND ${SKB_EXE} ${words} --help OUTPUT_VARIABLE help RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0)
      string(REPLACE ";" " " cmd "${words}")
      message(FATAL_ERROR "skb ${cmd} --help: exit status ${rc}")
    endif()
    set(${out} "${help}" PARENT_SCOPE)
  endfunction()

  set(text "[COMMANDS]\n")
  skb_help_section("" top)
  set(queue "")
  # The subcommands of a --help text: the first word of each line of its "Subcommands:" list.
  macro(skb_subcommands help prefix)
    string(REPLACE ";" "," _lines "${help}")
    string(REPLACE "\n" ";" _lines "${_lines}")
    set(_in OFF)
    foreach(_line IN LISTS _lines)
      if(_line MATCHES "^[Ss][Uu][Bb][Cc][Oo][Mm][Mm][Aa][Nn][Dd][Ss]:$")
        set(_in ON)
      elseif(_in AND _line MATCHES "^  +([a-z][a-z0-9-]*)( |$)")
        list(APPEND queue "${prefix}${CMAKE_MATCH_1}")
      elseif(_in)
        set(_in OFF)
      endif()
    endforeach()
  endmacro()
  skb_subcommands("${top}" "")
  # Depth first: each command's subcommands right after it.
  while(queue)
    list(POP_FRONT queue cmd)
    set(rest "${queue}")
    set(queue "")
    string(REPLACE " " ";" words "${cmd}")
    skb_help_section("${words}" help)
    skb_subcommands("${help}" "${cmd} ")
    list(APPEND queue ${rest})
    # A nested command's help repeats its parent's footer: keep it up to its options.
    if(cmd MATCHES " ")
      string(FIND "${help}" "\nOptions:\n" at)
      if(at GREATER -1)
        string(SUBSTRING "${help}" ${at} -1 tail)
        string(FIND "${tail}" "\n\n" end)
        if(end GREATER 0)
          math(EXPR end "${at} + ${end} + 1")
          string(SUBSTRING "${help}" 0 ${end} help)
        endif()
      endif()
    endif()
    # CLI11 shows the program as it was run: the build folder's path.
    string(REPLACE "${SKB_EXE}" "skb" help "${help}")
    # As roff that keeps its lines: backslashes and leading dots escaped.
    string(REPLACE "\\" "\\e" help "${help}")
    string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" help "${help}")
    string(APPEND text ".SS \"skb ${cmd}\"\n.nf\n${help}\n.fi\n")
  endwhile()
  file(READ "${SKB_SEE_ALSO}" see_also)
  file(WRITE "${SKB_OUT}" "${text}${see_also}")
  return()
endif()

option(SKB_MAN_PAGES "Make man pages from the programs' --help (needs help2man)" ON)
# A sanitized build runs its programs only to test them.
if(NOT SKB_MAN_PAGES OR SKB_SANITIZE)
  return()
endif()
find_program(SKB_HELP2MAN help2man)
if(NOT SKB_HELP2MAN)
  message(WARNING "help2man not found: no man pages (Debian: apt-get install help2man)")
  return()
endif()

set(SKB_MAN_DIR ${CMAKE_BINARY_DIR}/share/man/man1)
set(SKB_MAN_SEE_ALSO ${CMAKE_BINARY_DIR}/skb-man-see-also.h2m)
file(WRITE ${SKB_MAN_SEE_ALSO} "[SEE ALSO]
.BR skb (1),
.BR skb-generate (1),
.BR skb-package (1),
.BR skb-install (1),
.BR skb-replay (1),
.BR ninja (1).
The manual: doc/ of skb's source tree (tutorial, how-to guides, reference, explanation).
")

# skb_man_page(<page> <target> <one line: what it is> [<include file> <command that makes it>...])
function(skb_man_page page target what)
  set(out ${SKB_MAN_DIR}/${page}.1)
  set(include ${SKB_MAN_SEE_ALSO})
  set(make_include "")
  if(ARGN)
    list(POP_FRONT ARGN include)
    set(make_include COMMAND ${ARGN})
  endif()
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${SKB_MAN_DIR}
    ${make_include}
    COMMAND ${SKB_HELP2MAN} --no-info --section=1 --name=${what} --include=${include} --output=${out}
            $<TARGET_FILE:${target}>
    DEPENDS ${target} ${SKB_MAN_SEE_ALSO} ${CMAKE_CURRENT_LIST_FILE}
    COMMENT "Man page ${page}.1"
    VERBATIM)
  set_property(GLOBAL APPEND PROPERTY SKB_MAN_PAGES ${out})
endfunction()

set(skb_include ${CMAKE_BINARY_DIR}/skb-man-commands.h2m)
skb_man_page(skb skb "what skb knows about kernels, the keys that sign them and the store that keeps them"
  ${skb_include} ${CMAKE_COMMAND} -DSKB_EXE=$<TARGET_FILE:skb> -DSKB_OUT=${skb_include}
  -DSKB_SEE_ALSO=${SKB_MAN_SEE_ALSO} -P ${CMAKE_CURRENT_LIST_FILE})
skb_man_page(skb-generate skb-generate "scan op-statistics dumps and write a Ninja graph of static-shape kernels")
skb_man_page(skb-package skb-package "package built kernels into a static_kernel_*.run, or do the whole job as CANN's op_compiler")
skb_man_page(skb-install skb-install "the installer inside every static_kernel_*.run: the options of a .run package")
skb_man_page(skb-replay skb-replay "run a dump's op calls through the skb runtime and check them against a reference")

get_property(skb_man_pages GLOBAL PROPERTY SKB_MAN_PAGES)
add_custom_target(skb_man_pages ALL DEPENDS ${skb_man_pages})
install(FILES ${skb_man_pages} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
