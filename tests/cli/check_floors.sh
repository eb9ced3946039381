#!/usr/bin/env bash
# check_floors.sh SOURCE_DIR: scripts/check-floors.sh passes on the sources, and fails, naming the
# file and the floors, on a copy where one include goes up (models -> analysis), one goes sideways
# between families (patch -> ram), and the models base includes a family.
set -u
src=$1
out=$("$src/scripts/check-floors.sh" "$src" 2>&1) || { echo "FAIL: the sources break a floor:"; echo "$out"; exit 1; }
echo "$out"
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cp -r "$src/core" "$src/ui" "$dir/"
sed -i '0,/^#include "/s//#include "analysis\/adequacy.h"\n#include "/' "$dir/core/models/attention_model.cpp"
sed -i '0,/^#include "/s//#include "models\/ram\/ram_config.h"\n#include "/' "$dir/core/models/patch/patch_config.cpp"
sed -i '0,/^#include "/s//#include "models\/vit\/vit_config.h"\n#include "/' "$dir/core/models/model_input.cpp"
if bad=$("$src/scripts/check-floors.sh" "$dir" 2>&1); then echo "FAIL: an upward include passed"; exit 1; fi
echo "$bad"
grep -q 'core/models/attention_model.cpp:[0-9]* includes "analysis/adequacy.h": models (floor 5) may include only floors below it, not analysis (floor 6)' <<< "$bad" \
  || { echo "FAIL: the upward include was not named"; exit 1; }
grep -q "core/models/patch/patch_config.cpp:[0-9]* includes \"models/ram/ram_config.h\": family 'patch' includes no other family ('ram')" <<< "$bad" \
  || { echo "FAIL: the sideways include was not named"; exit 1; }
grep -q 'core/models/model_input.cpp:[0-9]* includes "models/vit/vit_config.h": the models base includes no family' <<< "$bad" \
  || { echo "FAIL: the base's include of a family was not named"; exit 1; }
[ "$(grep -c '^saccade: core/' <<< "$bad")" = 3 ] || { echo "FAIL: expected exactly the three planted includes"; exit 1; }
echo "floors hold, and a planted upward include is caught"
