#include "packager/stub.h"

#include <fmt/format.h>

#include "common/sha256.h"
#include "common/version.h"

namespace skb::packager {
namespace {

// {0} package {1} soc {2} kernels {3} skb version {4} the header's fields (render_run_header_fields)
constexpr const char* kStub = R"STUB(#!/bin/sh
# {0}.run: {2} prebuilt kernels for {1}, made by skb {3}.
# A self-extracting installer: `sh {0}.run --help` lists the options.
# Needs only POSIX sh, coreutils and gzip. Every part is checked with SHA-256 before it is used:
# the installer here (gzip-compressed), against the hash below, before gzip unpacks it (or the
# operator library's copy of the same installer, against the unpacked hashes below: BLAKE2b-512
# where coreutils has b2sum, twice as fast as its sha256sum, else SHA-256); then, by
# the installer and before anything else, this header (its hash is on the line after its last
# line), its signature (the line after that, when the package is signed: checked against the
# trust policy where it installs) and the payload, all found at the exact byte offsets below.
# Commands write to files, never through `$(...)` or a pipe, so that the shell starts each one
# without copying itself (but the hash of the installer, which runs beside its unpacking): the
# LOCAL_WORLD_SIZE copies of this script that the ranks of a node start at once spend most of
# their time starting programs, and they unpack the installer once between them.
# All of it is one block, which sh reads whole before it runs any of it: a read of this file that
# fails part way (an I/O error, which sh takes for the end of the file) is then a syntax error,
# never a run that did half of its work and exits 0.
{{
set -eu
umask 022
{4}
skb_die() {{ echo "$skb_package.run: error: $*" >&2; exit 3; }}
skb_self=$0
case $skb_self in /*) ;; *) skb_self=${{PWD:-$(pwd)}}/$skb_self ;; esac
[ -f "$skb_self" ] && [ -r "$skb_self" ] || skb_die "cannot read $skb_self: run the package by its path"
for skb_tool in dd head tail sha256sum wc df chmod rm gzip; do
  command -v "$skb_tool" >/dev/null 2>&1 || skb_die "'$skb_tool' is missing, so the package cannot be verified; nothing was done"
done
# Prints bytes [$1, $1 + $2) of this file: one dd when it counts in bytes (GNU), else tail | head.
# Coreutils run in the C locale: none of the dozen locale files each would load otherwise.
skb_bytes() {{ LC_ALL=C dd if="$skb_self" iflag=skip_bytes,count_bytes bs=65536 skip="$1" count="$2" 2>/dev/null ||
  LC_ALL=C tail -c +$(($1 + 1)) "$skb_self" | LC_ALL=C head -c "$2"; }}
# Runs the installer $1 on this package, with the user's options ($2...), in place of this shell.
# Its memory comes in huge pages where the kernel allows them (transparent huge pages in "madvise"
# mode): an install then takes half the page faults, most of them the manifest's JSON tree.
# GLIBC_TUNABLES set by the user come after, so they win. Given --work-file, the installer removes
# the stub's temporary files as soon as it runs: nothing is left behind, even when it is killed.
skb_run() {{
  skb_program=$1
  shift
  GLIBC_TUNABLES=glibc.malloc.hugetlb=1${{GLIBC_TUNABLES:+:$GLIBC_TUNABLES}} exec "$skb_program" --work-file="$skb_file" \
    ${{skb_node_lock:+"--node-lock=$skb_node_lock"}} --run-file="$skb_self" --header-len="$skb_header_len" --package-name="$skb_package" \
    --installer-offset="$skb_installer_offset" --installer-size="$skb_installer_size" \
    --installer-sha256="$skb_installer_sha256" --payload-offset="$skb_payload_offset" --payload-size="$skb_payload_size" \
    --payload-sha256="$skb_payload_sha256" --signature-size="$skb_signature_size" -- "$@"
}}

# The operator library keeps the installer of the package installed last (bin/skb-install). When
# that copy is this package's installer (the unpacked SHA-256 above), it runs in place: nothing is
# copied, unpacked or written outside the library (a delta package whose base has the same
# installer carries none and needs it). The copy is looked for in the libraries the installer
# would pick, in its order (--install-path, SKB_INSTALL_PATH, ASCEND_OPP_PATH, ASCEND_HOME_PATH,
# /usr/local/skb, HOME); one counts only when whoever runs this owns it, and it is checked, tried
# and run through one open file (descriptor 3), so that nobody can swap it between the three.
skb_path=
skb_prev=
for skb_arg in "$@"; do
  case $skb_prev in --install-path) skb_path=$skb_arg ;; esac
  case $skb_arg in --install-path=*) skb_path=${{skb_arg#--install-path=}} ;; --) break ;; esac
  skb_prev=$skb_arg
done
skb_fd=/dev/fd/3
[ -e /dev/fd ] || skb_fd=/proc/self/fd/3  # a container without /dev/fd
# 0 when descriptor 3 holds this package's installer, by its unpacked hash.
skb_holds_installer() {{
  if [ -n "$skb_installer_unpacked_b2" ] && command -v b2sum >/dev/null 2>&1; then
    LC_ALL=C b2sum -c --status <<EOF 2>/dev/null
$skb_installer_unpacked_b2  $skb_fd
EOF
  else
    LC_ALL=C sha256sum -c --status <<EOF 2>/dev/null
$skb_installer_unpacked_sha256  $skb_fd
EOF
  fi
}}
skb_library_has_it() {{
  [ -f "$1/bin/skb-install" ] && {{ command exec 3<"$1/bin/skb-install"; }} 2>/dev/null || return 1
  [ -O $skb_fd ] && [ -x $skb_fd ] && skb_holds_installer && $skb_fd --version >/dev/null 2>&1 && return 0
  exec 3<&-
  return 1
}}
skb_run_library_copy() {{
  for skb_library in ${{skb_path:+"$skb_path/opp/static_kernel/ai_core"}} \
      ${{SKB_INSTALL_PATH:+"$SKB_INSTALL_PATH/opp/static_kernel/ai_core"}} \
      ${{ASCEND_OPP_PATH:+"$ASCEND_OPP_PATH/static_kernel/ai_core"}} \
      ${{ASCEND_HOME_PATH:+"$ASCEND_HOME_PATH/opp/static_kernel/ai_core"}} \
      /usr/local/skb/opp/static_kernel/ai_core ${{HOME:+"$HOME/.local/skb/opp/static_kernel/ai_core"}}; do
    if skb_library_has_it "$skb_library"; then skb_run $skb_fd "$@"; fi
  done
}}
skb_file=
skb_node_lock=
skb_waiting=
skb_run_library_copy "$@"
if [ "$skb_installer_size" -eq 0 ]; then
  # --help and --version need no installer: said here, as the installer would.
  for skb_arg in "$@"; do
    case $skb_arg in
      -h|--help)
        echo "$skb_package.run: a delta package on $skb_base. It carries no installer: it runs the one $skb_base left in the operator library (bin/skb-install), which takes the options of every skb package (\`man skb-install\`, or --help of a package that carries one). No library where it would install has that installer: install $skb_base first, or pass --install-path."
        exit 0 ;;
      --version) echo "$skb_package.run (skb {3})"; exit 0 ;;
      --) break ;;
    esac
  done
  echo "$skb_package.run: error: this delta package carries no installer: it runs the one its base $skb_base left in the operator library (bin/skb-install, SHA-256 $skb_installer_unpacked_sha256), and no library where it would install has it; install $skb_base first, or the whole package, or a delta made with skb-package --self-contained; nothing was done" >&2
  exit 5
fi

# The installer and its scratch files (the first holds it compressed, the second its hash) go to
# new files of the first folder with room for them, from which programs may run (not a noexec
# mount). Noclobber creates a file only under a new name, never through a planted symlink; the
# sticky bit of a shared folder keeps others' hands off.
set -C
skb_cleanup() {{
  if [ -n "$skb_file" ]; then rm -f "$skb_file" "$skb_file.t" "$skb_file.h"; fi
  if [ -n "$skb_waiting" ]; then rm -f "$skb_waiting"; fi
  if [ -n "$skb_node_lock" ]; then rm -rf "$skb_node_lock"; fi
}}
trap skb_cleanup EXIT
trap 'exit 129' HUP
trap 'exit 130' INT
trap 'exit 143' TERM
skb_need_kb=$(((skb_installer_size + skb_installer_unpacked_size) / 1024 + 256))
skb_new() {{ {{ true > "$1"; }} 2>/dev/null; }}
# Unpacks the installer into the new file $skb_file of folder $1 and checks it.
skb_unpack() {{
  skb_new "$skb_file" && skb_new "$skb_file.h" || return 1
  # df -P: a title line, then the folder's filesystem, its free KiB 4th.
  skb_avail=0
  LC_ALL=C df -Pk "$1" >| "$skb_file.h" 2>/dev/null && {{ read -r _ && read -r _ _ _ skb_avail _; }} < "$skb_file.h" || :
  case $skb_avail in ''|*[!0-9]*) skb_avail=0 ;; esac
  [ "$skb_avail" -ge "$skb_need_kb" ] || return 1
  skb_bytes "$skb_installer_offset" "$skb_installer_size" >| "$skb_file.t" || return 1
  # Hashed while gzip unpacks it (two cores at work): gzip only reads the bytes, and nothing runs
  # what it wrote unless they match.
  LC_ALL=C sha256sum "$skb_file.t" >| "$skb_file.h" &
  skb_hashing=$!
  skb_unpacked=1
  LC_ALL=C gzip -dc < "$skb_file.t" >| "$skb_file" 2>/dev/null || skb_unpacked=
  skb_have=
  wait "$skb_hashing" && read -r skb_have _ < "$skb_file.h" || :
  if [ "$skb_have" != "$skb_installer_sha256" ]; then
    skb_total=$(($(wc -c < "$skb_self")))
    [ "$skb_total" -eq $((skb_payload_offset + skb_payload_size)) ] ||
      skb_die "$skb_total bytes, expected $((skb_payload_offset + skb_payload_size)): the file is truncated or damaged; nothing was done"
    skb_die "installer checksum mismatch: the file is damaged; nothing was done"
  fi
  # Checked bytes: gzip fails here only when it cannot write (a full folder): the next one is tried.
  [ -n "$skb_unpacked" ] || {{ skb_unpack_failed=$1; return 1; }}
  LC_ALL=C chmod 700 "$skb_file"
  [ -x "$skb_file" ]
}}
skb_try() {{
  skb_n=0
  until skb_new "$1/skb_run.$$.$skb_n.t"; do
    skb_n=$((skb_n + 1))
    [ "$skb_n" -lt 8 ] || return 1
  done
  skb_file=$1/skb_run.$$.$skb_n
  skb_unpack "$1"
}}

# One unpack a node. The copies of this package that the ranks of a node start at once take
# turns: the first to make the folder skb_run.<installer's SHA-256>.lock in the first temporary
# folder unpacks the installer in it. The others wait in that folder (a file w.<pid> each), give
# the file a name of their own as soon as it is there (a hard link: nothing is copied, and what
# the first writes into it shows under every name) and run it once it is executable: the first
# makes it so only when it is whole and checked. The first runs it once each other has its name
# (5 seconds at most), and the installer removes the folder as soon as it runs. A copy unpacks
# its own when there is no such folder to share, when the one that made it is gone (killed
# before its installer ran: its folder stays, and nothing of it is run), or after a minute.
skb_usable() {{ [ -n "$1" ] && [ -d "$1" ] && [ -w "$1" ]; }}
skb_tmp=
for skb_folder in "${{TMPDIR:-}}" /tmp /var/tmp /dev/shm "${{HOME:-}}"; do
  if skb_usable "$skb_folder"; then skb_tmp=$skb_folder; break; fi
done
skb_lock=${{skb_tmp:+$skb_tmp/skb_run.$skb_installer_unpacked_sha256.lock}}
# Sleeps $1 seconds where sleep takes fractions, else a second, which counts as $2 more waits.
skb_nap() {{ LC_ALL=C sleep "$1" 2>/dev/null || {{ LC_ALL=C sleep 1; skb_waits=$((skb_waits + $2)); }}; }}
# 0 with $skb_file the checked installer under a name of this copy's own.
skb_share() {{
  skb_waits=0
  skb_waiting=$skb_lock/w.$$
  : > "$skb_waiting" 2>/dev/null || skb_waiting=
  while [ -n "$skb_waiting" ]; do
    if [ -z "$skb_file" ] && [ -d "$skb_lock" ] && [ -O "$skb_lock" ] && [ ! -h "$skb_lock" ] &&
        [ -e "$skb_lock/installer" ] && LC_ALL=C ln "$skb_lock/installer" "$skb_tmp/skb_run.$$.0" 2>/dev/null; then
      skb_file=$skb_tmp/skb_run.$$.0
      echo linked >| "$skb_waiting" 2>/dev/null || :
    fi
    if [ -n "$skb_file" ] && [ -O "$skb_file" ] && [ -x "$skb_file" ]; then
      skb_waiting=  # goes with the folder
      return 0
    fi
    [ -d "$skb_lock" ] || break
    skb_holder=
    {{ read -r skb_holder < "$skb_lock/pid"; }} 2>/dev/null || :
    if [ -n "$skb_holder" ]; then
      kill -0 "$skb_holder" 2>/dev/null || break
    elif [ "$skb_waits" -ge 100 ]; then
      break  # its maker writes its process id right after making it: this one has none
    fi
    skb_waits=$((skb_waits + 1))
    [ "$skb_waits" -le 6000 ] || break
    skb_nap 0.01 99
  done
  skb_cleanup
  skb_file=
  skb_waiting=
  return 1
}}
# 0 while a copy that is still running waits in the folder and has not yet linked the installer.
skb_waited() {{
  for skb_w in "$skb_lock"/w.*; do
    if [ -e "$skb_w" ] && [ ! -s "$skb_w" ] && kill -0 "${{skb_w##*/w.}}" 2>/dev/null; then return 0; fi
  done
  return 1
}}
if [ -n "$skb_lock" ]; then
  if mkdir -m 700 "$skb_lock" 2>/dev/null; then
    skb_node_lock=$skb_lock
    echo $$ > "$skb_lock/pid"
    skb_file=$skb_lock/installer
    if skb_new "$skb_file.t" && skb_unpack "$skb_tmp"; then
      skb_waits=0
      while skb_waited && [ "$skb_waits" -lt 1000 ]; do
        skb_waits=$((skb_waits + 1))
        skb_nap 0.005 199
      done
      skb_file=
      skb_run "$skb_lock/installer" "$@"
    fi
    skb_cleanup
    skb_file=
    skb_node_lock=
  else
    if skb_share; then skb_run "$skb_file" "$@"; fi
    skb_run_library_copy "$@"
  fi
fi

for skb_base in "${{TMPDIR:-}}" /tmp /var/tmp /dev/shm "${{HOME:-}}"; do
  skb_usable "$skb_base" || continue
  if skb_try "$skb_base"; then break; fi
  skb_cleanup
  skb_file=
done
[ -n "$skb_file" ] || [ -z "${{skb_unpack_failed:-}}" ] ||
  skb_die "gzip could not unpack the installer into $skb_unpack_failed (is it full?); nothing was done"
[ -n "$skb_file" ] ||
  skb_die "no folder with $skb_need_kb KiB free that allows running programs (tried \$TMPDIR, /tmp, /var/tmp, /dev/shm, \$HOME); set TMPDIR"
skb_run "$skb_file" "$@"
}}
)STUB";

}  // namespace

std::string make_stub(const StubInput& in) {
  RunHeaderFields f = in;
  f.header_len = 0;
  std::string text;
  // The offsets depend on the header's length, which depends on the offsets' digits: iterate
  // until stable (two or three rounds).
  for (int round = 0; round < 8; ++round) {
    f.installer_offset = f.header_len + kStubHashLine + in.signature_size;
    f.payload_offset = f.installer_offset + in.installer_size;
    text = fmt::format(kStub, in.package, in.soc, in.kernels, common::kVersion, render_run_header_fields(f));
    if (text.size() == f.header_len) break;
    f.header_len = text.size();
  }
  return text + common::sha256_hex(text) + "\n";
}

}  // namespace skb::packager
