#!/usr/bin/env bash
# check_floors.sh SOURCE_DIR: scripts/check-floors.sh passes on the sources, and fails, naming the
# file and the floors, on a copy where one include goes up (models -> analysis), one goes sideways
# between families (patch -> ram), the models base includes a family, and one room of analysis
# includes another (labs -> runs); and in ui, where a page
# includes another page, shared ui code includes a page, and the shell reaches into a page's panel.
set -u
src=$1
out=$("$src/scripts/check-floors.sh" "$src" 2>&1) || { echo "FAIL: the sources break a floor:"; echo "$out"; exit 1; }
echo "$out"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cp -r "$src/core" "$src/ui" "$dir/"
sed -i '0,/^#include "/s//#include "analysis\/adequacy.h"\n#include "/' "$dir/core/models/attention_model.cpp"
sed -i '0,/^#include "/s//#include "models\/ram\/ram_config.h"\n#include "/' "$dir/core/models/patch/patch_config.cpp"
sed -i '0,/^#include "/s//#include "models\/vit\/vit_config.h"\n#include "/' "$dir/core/models/model_input.cpp"
sed -i '0,/^#include "/s//#include "analysis\/runs\/adequacy.h"\n#include "/' "$dir/core/analysis/labs/scalar_lab.cpp"
sed -i '0,/^#include "/s//#include "ui\/attention\/attention_page.h"\n#include "/' "$dir/ui/length/length_page.cpp"
sed -i '0,/^#include "/s//#include "ui\/sequences\/sequences_page.h"\n#include "/' "$dir/ui/job_panel.cpp"
sed -i '0,/^#include "/s//#include "ui\/attention\/model_panel.h"\n#include "/' "$dir/ui/main_window.cpp"
if bad=$("$src/scripts/check-floors.sh" "$dir" 2>&1); then echo "FAIL: an upward include passed"; exit 1; fi
echo "$bad"
grep -q 'core/models/attention_model.cpp:[0-9]* includes "analysis/adequacy.h": models (floor 5) may include only floors below it, not analysis (floor 6)' <<< "$bad" \
  || { echo "FAIL: the upward include was not named"; exit 1; }
grep -q "core/models/patch/patch_config.cpp:[0-9]* includes \"models/ram/ram_config.h\": family 'patch' includes no other family ('ram')" <<< "$bad" \
  || { echo "FAIL: the sideways include was not named"; exit 1; }
grep -q 'core/models/model_input.cpp:[0-9]* includes "models/vit/vit_config.h": the models base includes no family' <<< "$bad" \
  || { echo "FAIL: the base's include of a family was not named"; exit 1; }
grep -q "ui/length/length_page.cpp:[0-9]* includes \"ui/attention/attention_page.h\": page 'length' includes no other page ('attention')" <<< "$bad" \
  || { echo "FAIL: the page-to-page include was not named"; exit 1; }
grep -q "ui/job_panel.cpp:[0-9]* includes \"ui/sequences/sequences_page.h\": shared ui code includes no page ('sequences')" <<< "$bad" \
  || { echo "FAIL: the shared code's include of a page was not named"; exit 1; }
grep -q "ui/main_window.cpp:[0-9]* includes \"ui/attention/model_panel.h\": the shell includes page 'attention' by its entry header only" <<< "$bad" \
  || { echo "FAIL: the shell's reach into a panel was not named"; exit 1; }
grep -q "core/analysis/labs/scalar_lab.cpp:[0-9]* includes \"analysis/runs/adequacy.h\": analysis room 'labs' includes no other room ('runs')" <<< "$bad" \
  || { echo "FAIL: the include across rooms was not named"; exit 1; }
[ "$(grep -c '^saccade: core/' <<< "$bad")" = 4 ] || { echo "FAIL: expected exactly the four planted core includes"; exit 1; }
[ "$(grep -c '^saccade: ui/' <<< "$bad")" = 3 ] || { echo "FAIL: expected exactly the three planted ui includes"; exit 1; }
echo "floors hold, and a planted upward include is caught"
