#!/usr/bin/env bash
# expect_failure.sh PATTERN COMMAND...: passes when COMMAND exits non-zero and prints exactly one
# line on stderr that contains PATTERN (and, when EXPECT_RC is set, exits with that code).
pattern=$1; shift
err=$("$@" 2>&1 >/dev/null); rc=$?
lines=$(printf '%s\n' "$err" | grep -c .)
if [ "$rc" -eq 0 ]; then echo "expected failure, got exit 0"; exit 1; fi
if [ -n "${EXPECT_RC:-}" ] && [ "$rc" -ne "$EXPECT_RC" ]; then echo "expected exit $EXPECT_RC, got $rc: $err"; exit 1; fi
if [ "$lines" -ne 1 ]; then echo "expected one line on stderr, got $lines:"; echo "$err"; exit 1; fi
case "$err" in *"$pattern"*) echo "ok (exit $rc): $err";; *) echo "stderr lacks '$pattern': $err"; exit 1;; esac
