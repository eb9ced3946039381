#!/usr/bin/env bash
# output_collisions.sh SACCADE_CLI SAMPLES_DIR: an output that names an input, or another output,
# is refused with one line and exit 2 before any work, and every file stays byte for byte as it was.
set -u
cli=$1; models=$2/models
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
cd "$dir"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE
cp "$models/seq-dates-additive.pt" X.pt; cp "$models/seq-dates-additive.json" X.json
echo "iteration,loss" > X.metrics.csv
for f in pt json metrics.csv metrics.json; do cp "$models/patch-hard-fashion60.$f" "P.$f"; done
ln -s P.pt report-link.pdf  # the PDF a report writes beside its --out is an output too
before=$(sha256sum ./* | sort)

# refused PATTERN ARGS...: exit 2, one line containing PATTERN, within seconds (no training).
refused() {
  local pattern=$1; shift
  local start=$SECONDS err rc
  err=$("$cli" "$@" 2>&1 >/dev/null); rc=$?
  [ "$rc" -eq 2 ] || { echo "FAIL: exit $rc (want 2) for: $*: $err"; exit 1; }
  [ "$(printf '%s\n' "$err" | grep -c .)" -eq 1 ] || { echo "FAIL: not one line for: $*: $err"; exit 1; }
  case "$err" in *"$pattern"*) ;; *) echo "FAIL: '$pattern' missing for: $*: $err"; exit 1;; esac
  [ $((SECONDS - start)) -lt 20 ] || { echo "FAIL: refused only after $((SECONDS - start)) s: $*"; exit 1; }
  echo "ok: $*"
}
refused "must end in .pt" train seq --iterations 1 --out X.json
refused "must end in .pt" train patch --iterations 1 --out r.txt
refused "must end in .pt" train patch --iterations 1 --out P.metrics.json
refused "its sidecar would be the metrics of 'P.pt'" train patch --iterations 1 --out P.metrics.pt
refused "is --init-from" train patch --iterations 1 --init-from P.pt --out ./P.pt
refused "is --model" strip --model X.pt --out ./X.pt
refused "must end in .pt" strip --model X.pt --out X.json
refused "is --model" trace --model P.pt --out P.pt
refused "is the sidecar of --model" translate --model X.pt --text "3 March 2001" --out X.json
refused "is the sidecar of --model" adequacy --model P.pt --limit 10 --runs 2 --out P.json
refused "is the metrics of --model" translate --model X.pt --text "3 March 2001" --out X.metrics.csv
ln X.pt hard-link.pt
refused "is --model" trace --model P.pt --out ../"$(basename "$dir")"/P.pt
refused "is --model" translate --model hard-link.pt --text "3 March 2001" --out X.pt
refused "--pdf 'report-link.pdf' is --model" report --model P.pt --out report-link.html --pdf --quick
mkfifo f.metrics.csv; ln -s /dev/full g.metrics.json; mkdir folder.json
refused "'f.metrics.csv': it is a FIFO" train patch --iterations 1 --out f.pt
refused "'g.metrics.json': it is a character device" train patch --iterations 1 --out g.pt
refused "'folder.json': it is a folder" train patch --iterations 1 --out folder.pt
refused "'/dev/full': it is a character device" report --model P.pt --out /dev/full
rm hard-link.pt f.metrics.csv g.metrics.json; rmdir folder.json
after=$(sha256sum ./* | sort)
[ "$before" = "$after" ] || { echo "FAIL: a file changed:"; diff <(echo "$before") <(echo "$after"); exit 1; }
echo "all collisions refused, nothing changed"
