#!/usr/bin/env bash
# scripts/check-skips.py, the test command's gate on skipped tests: a skip for a GPU or root
# passes, a skip for a missing dataset (GoogleTest), a missing package (exit 77) or a QtTest
# QSKIP inside an entry that passed fails, naming the test and its reason.
set -u
check=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
case_xml() {  # case_xml NAME STATUS OUTPUT
  printf '<testcase name="%s" status="%s"><system-out>%s</system-out></testcase>\n' "$1" "$2" "$3"
}
{
  echo '<testsuite>'
  case_xml cuda notrun $'x.cpp:1: Skipped\nneeds a CUDA device\n[  SKIPPED ] A.Cuda (0 ms)'
  case_xml hosts notrun 'skipped: needs root and iproute2'
  case_xml plain run 'PASS   : T::f()'
  echo '</testsuite>'
} > "$dir/ok.xml"
/usr/bin/python3 "$check" "$dir/ok.xml" > "$dir/ok.out" || { cat "$dir/ok.out"; echo "FAIL: allowed skips refused"; exit 1; }
grep -q "no test skipped but 2 that need" "$dir/ok.out" || { cat "$dir/ok.out"; echo "FAIL: count"; exit 1; }
for bad in \
  "$(case_xml data notrun $'x.cpp:9: Skipped\nthe Fashion-MNIST files are not installed\n[  SKIPPED ] D.Data (0 ms)')" \
  "$(case_xml torch notrun 'skipped: python3-torch is not installed')" \
  "$(case_xml ui run $'PASS   : T::a()\nSKIP   : T::b() the Fashion-MNIST files are not installed\nPASS   : T::c()')"; do
  printf '<testsuite>%s</testsuite>\n' "$bad" > "$dir/bad.xml"
  if /usr/bin/python3 "$check" "$dir/bad.xml" > "$dir/bad.out"; then
    cat "$dir/bad.out"; echo "FAIL: a skip for a missing dependency passed"; exit 1
  fi
  grep -q "skipped, NOT allowed" "$dir/bad.out" || { cat "$dir/bad.out"; echo "FAIL: no reason named"; exit 1; }
done
/usr/bin/python3 "$check" "$dir/missing.xml" > /dev/null 2>&1 && { echo "FAIL: a missing file passed"; exit 1; }
echo "check-skips: allowed 2, refused 3 of 3"
