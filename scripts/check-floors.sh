#!/usr/bin/env bash
# Proves that every include in the sources goes down a floor, never up or sideways (the floors are
# drawn in docs/architecture.md). Bottom to top:
#   core: common | data io | trace | metrics attention | train | models | analysis | render doctor | report
#   then ui (includes core), then app (includes ui and core).
# Within core/models, the shared base (files directly in core/models/) includes no family folder,
# and a family folder (core/models/<family>/) includes no other family's.
# core/analysis is in rooms (runs, attribution, labs, length, atlas, shards): a room includes only
# its own, but for the ones named in room_may below; the labs (no model) include no models or train.
# Within ui (its own headers spelt "ui/..."): a page (ui/<page>/) includes no other page; the shared
# code (ui/*.h beside the shell, ui/charts/) includes no page; the shell (ui/main_window.*)
# includes each page by its entry header only. ui spells core's headers without "core/".
# Usage: scripts/check-floors.sh [SOURCE_ROOT]   (prints each include that goes up; exit 1 if any)
set -euo pipefail
root=${1:-$(dirname "$0")/..}
cd "$root"

# Each page's entry headers: all that the shell may include of it.
declare -A entry=(
  [analysis]="analysis_page.h" [atlas]="atlas_page.h" [attention]="attention_page.h" [doctor]="doctor_panel.h"
  [labs]="scalar_lab_panel.h estimator_lab_panel.h" [length]="length_page.h" [sequences]="sequences_page.h"
  [training]="training_panel.h"
)
shared_ui_folders=" charts "

# What a room of core/analysis may include of another room.
declare -A room_may=([atlas]="length" [shards]="runs attribution")

declare -A floor=(
  [common]=0 [data]=1 [io]=1 [trace]=2 [metrics]=3 [attention]=3 [train]=4 [models]=5
  [analysis]=6 [render]=7 [doctor]=7 [report]=8
)
bad=0
say() { echo "saccade: $1:$2 includes \"$3\": $4" >&2; bad=$((bad + 1)); }

# ui/<page>/... -> the page; ui/charts/... and ui/x.h -> "" (shared).
ui_page() {
  local p=${1#ui/}
  [[ "$p" == */* ]] || { echo ""; return; }
  p=${p%%/*}
  [[ "$shared_ui_folders" == *" $p "* ]] && echo "" || echo "$p"
}

check_ui() {
  local rel=$1 line=$2 target=$3 tdir=${3%%/*}
  case "$tdir" in
    app) say "$rel" "$line" "$target" "ui includes no program"; return ;;
    core) say "$rel" "$line" "$target" "ui spells core's headers from core's root (\"${target#core/}\")"; return ;;
    ui) ;;
    *) return ;;  # core's floors: all below ui
  esac
  local from to
  from=$(ui_page "$rel"); to=$(ui_page "$target")
  [ -n "$to" ] || return 0  # shared ui code: anyone may include it
  if [[ "$rel" == ui/main_window.* ]]; then
    local name=${target##*/}
    [[ " ${entry[$to]:-} " == *" $name "* ]] ||
      say "$rel" "$line" "$target" "the shell includes page '$to' by its entry header only (${entry[$to]:-none}): ask the page"
  elif [ -z "$from" ]; then
    say "$rel" "$line" "$target" "shared ui code includes no page ('$to')"
  elif [ "$from" != "$to" ]; then
    say "$rel" "$line" "$target" "page '$from' includes no other page ('$to')"
  fi
}

checked=0
while IFS= read -r file; do
  rel=${file#./}
  layer=${rel%%/*}          # core, ui or app
  rest=${rel#*/}
  dir=${rest%%/*}           # core's folder (common, models, ...)
  while IFS=: read -r line target; do
    checked=$((checked + 1))
    tdir=${target%%/*}
    case "$layer" in
      core)
        if [ -z "${floor[$tdir]+x}" ]; then
          say "$rel" "$line" "$target" "core includes only core's own floors"; continue
        fi
        from=${floor[$dir]:-}
        [ -n "$from" ] || { say "$rel" "$line" "$target" "core/$dir has no floor in scripts/check-floors.sh"; continue; }
        to=${floor[$tdir]}
        if [ "$tdir" != "$dir" ] && [ "$to" -ge "$from" ]; then
          say "$rel" "$line" "$target" "$dir (floor $from) may include only floors below it, not $tdir (floor $to)"
        fi
        if [ "$dir" = analysis ]; then
          room=${rest#analysis/}; room=${room%%/*}
          if [ "$tdir" = analysis ]; then
            troom=${target#analysis/}; troom=${troom%%/*}
            if [[ "$rest" != analysis/*/* || "$target" != analysis/*/* ]]; then
              say "$rel" "$line" "$target" "core/analysis keeps its files in rooms (analysis/ROOM/file.h)"
            elif [ "$room" != "$troom" ] && [[ " ${room_may[$room]:-} " != *" $troom "* ]]; then
              say "$rel" "$line" "$target" "analysis room '$room' includes no other room ('$troom')"
            fi
          elif [ "$room" = labs ] && { [ "$tdir" = models ] || [ "$tdir" = train ]; }; then
            say "$rel" "$line" "$target" "the labs have no model: analysis/labs includes no $tdir"
          fi
        fi
        if [ "$dir" = models ] && [ "$tdir" = models ]; then
          sub=${rest#models/}; tsub=${target#models/}
          fam=""; [[ "$sub" == */* ]] && fam=${sub%%/*}
          tfam=""; [[ "$tsub" == */* ]] && tfam=${tsub%%/*}
          if [ -z "$fam" ] && [ -n "$tfam" ]; then
            say "$rel" "$line" "$target" "the models base includes no family (ask the registry, models/model_family.h)"
          elif [ -n "$fam" ] && [ -n "$tfam" ] && [ "$fam" != "$tfam" ]; then
            say "$rel" "$line" "$target" "family '$fam' includes no other family ('$tfam')"
          fi
        fi ;;
      ui) check_ui "$rel" "$line" "$target" ;;
    esac
  done < <(grep -noE '^#include "[a-z0-9_]+/[a-z0-9_/]+\.h"' "$file" | sed -E 's/^([0-9]+):#include "(.*)"$/\1:\2/')
done < <(find ./core ./ui -name '*.h' -o -name '*.cpp' | sort)

if [ "$bad" -gt 0 ]; then
  echo "saccade: $bad includes go up a floor (see docs/architecture.md)" >&2
  exit 1
fi
echo "floors: $checked includes in core and ui, every one going down a floor"
