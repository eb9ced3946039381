#!/usr/bin/env bash
# Issue 20: a build installs as a desktop application. Checks, in a fresh mktemp -d prefix:
#  1. `cmake --install BUILD --prefix TMP` lays out the FHS tree: both programs (saccade only with
#     the GUI), every file of samples/ unchanged under share/saccade/samples, the man pages, the
#     bash completion, and with the GUI the .desktop entry, SVG icon and AppStream metainfo
#     (desktop-file-validate, appstreamcli validate --no-net and groff warnings when installed).
#  2. The man page documents, and the completion offers, exactly the commands and options of the
#     installed saccade-cli's --help.
#  3. The installed saccade-cli, run from / with no SACCADE_SAMPLES_DIR, passes doctor and demo;
#     the doctor reports the models of the prefix (not the source tree's, which the programs also
#     know), and an installed model evaluates.
#  4. With cpack, dpkg-deb and dpkg-shlibdeps: `cpack -G DEB` makes a .deb in section science that
#     holds the same files under /usr and lists its Depends.
# Usage: check_install.sh SOURCE_DIR BUILD_DIR GUI(ON|OFF) [CMAKE [CPACK]]
set -euo pipefail
source_dir=$1 build_dir=$2 gui=$3 cmake=${4:-cmake} cpack=${5:-cpack}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$(cd "$work" && pwd -P)/prefix
id=io.github.saccade.Saccade
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
skip() { echo "skip: $*"; }
unset SACCADE_SAMPLES_DIR

echo "== cmake --install $build_dir --prefix $prefix"
if ! "$cmake" --install "$build_dir" --prefix "$prefix" > "$work/install.log" 2>&1; then
  cat "$work/install.log"
  echo "FAIL: cmake --install"
  exit 1
fi

cli_files=(bin/saccade-cli share/man/man1/saccade-cli.1 share/bash-completion/completions/saccade-cli)
gui_files=(bin/saccade share/man/man1/saccade.1 "share/applications/$id.desktop"
           "share/icons/hicolor/scalable/apps/$id.svg" "share/metainfo/$id.metainfo.xml")
for f in "${cli_files[@]}"; do [ -s "$prefix/$f" ] || fail "not installed: $f"; done
for f in "${gui_files[@]}"; do
  if [ "$gui" = ON ]; then [ -s "$prefix/$f" ] || fail "not installed: $f"
  else [ ! -e "$prefix/$f" ] || fail "installed without the GUI: $f"; fi
done
[ -x "$prefix/bin/saccade-cli" ] || fail "bin/saccade-cli is not executable"
samples=$(cd "$source_dir/samples" && find . -type f ! -name '*.tmp' | sed 's|^\./||' | sort)
for f in $samples; do
  cmp -s "$source_dir/samples/$f" "$prefix/share/saccade/samples/$f" ||
    fail "not installed intact: share/saccade/samples/$f"
done
echo "checked $(wc -w <<< "$samples") files under share/saccade/samples"

if [ "$gui" = ON ]; then
  desktop=$prefix/share/applications/$id.desktop
  grep -qx "Icon=$id" "$desktop" || fail "the .desktop entry's Icon is not $id"
  grep -q '^Exec=saccade ' "$desktop" || fail "the .desktop entry does not run saccade"
  grep -q '<svg' "$prefix/share/icons/hicolor/scalable/apps/$id.svg" || fail "the icon is not SVG"
  if command -v desktop-file-validate > /dev/null; then
    desktop-file-validate "$desktop" || fail "desktop-file-validate $desktop"
  else skip "desktop-file-validate is not installed (Debian: desktop-file-utils)"; fi
  if command -v appstreamcli > /dev/null; then
    appstreamcli validate --no-net "$prefix/share/metainfo/$id.metainfo.xml" || fail "appstreamcli validate"
  else skip "appstreamcli is not installed (Debian: appstream)"; fi
fi
if command -v groff > /dev/null; then
  for page in "$prefix"/share/man/man1/*.1; do
    warnings=$(groff -man -Tutf8 -ww -z "$page" 2>&1)
    [ -z "$warnings" ] || fail "groff warns on $page: $warnings"
  done
else skip "groff is not installed: man pages not rendered"; fi

echo "== man page and completion against --help"
cli=$prefix/bin/saccade-cli
man=$prefix/share/man/man1/saccade-cli.1
subcommands() {  # the commands under saccade-cli WORDS...
  "$cli" "$@" --help | awk '/^Subcommands:/ {on = 1; next} /^[^ ]/ {on = 0} on && /^  [a-z]/ {print $1}'
}
options() {  # the options of saccade-cli WORDS...
  "$cli" "$@" --help | sed -n '/^Options:/,/^$/p' | grep -oE '^  (-h,)?--[a-z0-9-]+' | sed -E 's/^  (-h,)?//'
}
completions() {  # the words the installed completion offers after: saccade-cli WORDS... CUR
  # shellcheck disable=SC1091  # installed by the step above
  (set +eu; source "$prefix/share/bash-completion/completions/saccade-cli"
   COMP_WORDS=(saccade-cli "$@"); COMP_CWORD=$#; COMPREPLY=(); _saccade_cli
   printf '%s\n' "${COMPREPLY[@]}")
}
same_words() {  # LABEL EXPECTED ACTUAL: fails on any word in one list only
  local diff
  diff=$(diff <(tr ' ' '\n' <<< "$2" | grep . | sort -u) <(tr ' ' '\n' <<< "$3" | grep . | sort -u)) ||
    fail "$1: --help and the completion differ (< --help only, > completion only): $(tr '\n' ' ' <<< "$diff")"
}
top=$(subcommands)
same_words "saccade-cli" "$top $(options)" "$(completions '')"
leaves=()
for c in $top; do
  subs=$(subcommands "$c")
  if [ -z "$subs" ]; then leaves+=("$c"); continue; fi
  same_words "saccade-cli $c" "$subs --help" "$(completions "$c" '')"
  for s in $subs; do leaves+=("$c $s"); done
done
for path in "${leaves[@]}"; do
  # shellcheck disable=SC2086  # the path is one or two words
  opts=$(options $path)
  # shellcheck disable=SC2086
  same_words "saccade-cli $path" "$opts" "$(completions $path '--')"
  section=$(awk -v head=".SS \"$path\"" '$0 == head {on = 1; next} /^\.S[SH] / {on = 0} on' "$man")
  if [ -z "$section" ]; then fail "saccade-cli.1 has no section .SS \"$path\""; continue; fi
  for o in $opts; do
    [ "$o" = --help ] || grep -qF "\\fB${o//-/\\-}\\fR" <<< "$section" || fail "saccade-cli.1: '$path' lacks $o"
  done
done
echo "checked ${#leaves[@]} commands"

echo "== the installed programs, run from /"
models=$prefix/share/saccade/samples/models
if (cd / && "$cli" doctor --matmul-size 64) > "$work/doctor.txt" 2>&1; then
  grep -qxF "Bundled models $models" "$work/doctor.txt" ||
    fail "doctor did not find the models under the prefix: $(grep '^Bundled models' "$work/doctor.txt")"
else cat "$work/doctor.txt"; fail "saccade-cli doctor"; fi
if (cd / && "$cli" demo) > "$work/demo.txt" 2>&1; then
  grep -qxF "Bundled models $models" "$work/demo.txt" || fail "demo: the doctor's summary lacks the prefix's models"
else cat "$work/demo.txt"; fail "saccade-cli demo"; fi
if ! (cd / && "$cli" eval --model "$models/caption-soft-scenes64.pt" --rules soft --limit 4 --device cpu) \
     > "$work/eval.txt" 2>&1 || ! grep -q "soft" "$work/eval.txt"; then
  cat "$work/eval.txt"; fail "eval of an installed model"
fi
if [ "$gui" = ON ]; then
  (cd / && QT_QPA_PLATFORM=offscreen "$prefix/bin/saccade" --version 2>/dev/null) | grep -q '^saccade [0-9]' ||
    fail "the installed saccade --version"
  for o in $(QT_QPA_PLATFORM=offscreen "$prefix/bin/saccade" --help 2>/dev/null | grep -oE '^  (-[a-z], )?--[a-z-]+' |
             sed -E 's/^  (-[a-z], )?//'); do
    grep -qF -- "${o//-/\\-}" "$prefix/share/man/man1/saccade.1" || fail "saccade.1 lacks $o"
  done
fi
grep '^Bundled models' "$work/doctor.txt" || true

echo "== cpack -G DEB"
if ! command -v "$cpack" > /dev/null || ! command -v dpkg-deb > /dev/null ||
   ! command -v dpkg-shlibdeps > /dev/null; then
  skip "cpack, dpkg-deb or dpkg-shlibdeps (Debian: cmake, dpkg, dpkg-dev) is missing: no .deb built"
elif ! "$cpack" -G DEB --config "$build_dir/CPackConfig.cmake" -B "$work/deb" > "$work/cpack.log" 2>&1; then
  cat "$work/cpack.log"; fail "cpack -G DEB"
else
  deb=$(ls "$work"/deb/*.deb)
  dpkg-deb -I "$deb"
  dpkg-deb -c "$deb" | awk '{print $NF}' | sed 's|^\./|/|' > "$work/contents.txt"
  expect=("${cli_files[@]}")
  [ "$gui" = ON ] && expect+=("${gui_files[@]}")
  for f in $samples; do expect+=("share/saccade/samples/$f"); done
  for f in "${expect[@]}"; do grep -qxF "/usr/$f" "$work/contents.txt" || fail ".deb lacks /usr/$f"; done
  [ "$(dpkg-deb -f "$deb" Section)" = science ] || fail ".deb section is not science"
  depends=$(dpkg-deb -f "$deb" Depends)
  echo "Depends: $depends"
  needed=('libtorch[0-9.]+' 'libopencv-core[0-9]+' 'libopencv-imgcodecs[0-9]+' libopenblas0-pthread 'libstdc\+\+6')
  [ "$gui" = ON ] && needed+=(libqt6widgets6 libqt6charts6 libqt6svg6)
  for p in "${needed[@]}"; do grep -qE "(^|, )$p( |,)" <<< "$depends," || fail ".deb Depends lacks $p"; done
fi

if [ "$failures" -gt 0 ]; then
  echo "check_install: $failures checks failed"
  exit 1
fi
echo "check_install: the install tree and the package are complete"
