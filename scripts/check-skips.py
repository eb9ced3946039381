#!/usr/bin/python3
"""Fails the test command when a test was skipped for any reason but missing hardware or rights.

Reads the JUnit file that `ctest --output-junit` wrote (with the whole output of every test) and
finds every skip: a ctest entry that did not run (a skip code or expression), a GoogleTest
`[  SKIPPED ]` and a QtTest `SKIP   :` inside an entry that ran. A skip is allowed only when its
reason says the test needs a CUDA device, root (or the network namespaces root makes), or a CPU
instruction set this machine lacks; anything else (a missing package, dataset or file) fails.

Usage: check-skips.py JUNIT_XML
"""
import re
import sys
import xml.etree.ElementTree as ET

ALLOWED = re.compile(r"needs a CUDA device|needs root|network namespaces cannot be (made|entered) here|"
                     r"no AVX-512 here")
GTEST_SKIP = re.compile(r"^\S+:\d+: Skipped\n(.*?)\n\[  SKIPPED \] (\S+)", re.M | re.S)
QTEST_SKIP = re.compile(r"^SKIP   : (\S+) (.*)$", re.M)


def skips(case):
    """(what, reason) for each skip inside one ctest entry."""
    name = case.get("name", "?")
    out = case.findtext("system-out") or ""
    found = [(f"{name}: {test}", reason.strip()) for reason, test in GTEST_SKIP.findall(out)]
    found += [(f"{name}: {test}", reason.strip()) for test, reason in QTEST_SKIP.findall(out)]
    if case.get("status") == "notrun" and not found:
        lines = [l for l in out.strip().splitlines() if l.strip()]
        found.append((name, lines[-1].strip() if lines else "no reason printed"))
    return found


def main():
    if len(sys.argv) != 2:
        sys.exit("usage: check-skips.py JUNIT_XML")
    try:
        cases = ET.parse(sys.argv[1]).getroot().iter("testcase")
    except (OSError, ET.ParseError) as e:
        sys.exit(f"check-skips: cannot read {sys.argv[1]}: {e}")
    allowed, refused = [], []
    for case in cases:
        for what, reason in skips(case):
            (allowed if ALLOWED.search(reason) else refused).append(f"{what} ({reason})")
    for line in allowed:
        print(f"skipped, allowed (hardware or root): {line}")
    for line in refused:
        print(f"skipped, NOT allowed: {line}")
    if refused:
        print(f"check-skips: {len(refused)} test(s) skipped for a reason other than a GPU, root or a CPU "
              "feature; install what they need (scripts/install-deps.sh) or fix them")
        return 1
    print(f"check-skips: no test skipped but {len(allowed)} that need a GPU, root or a CPU feature")
    return 0


if __name__ == "__main__":
    sys.exit(main())
