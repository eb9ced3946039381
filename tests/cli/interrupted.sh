#!/usr/bin/env bash
# interrupted.sh SACCADE_CLI: Ctrl+C (SIGINT) on a command held by an imported model whose forward
# never returns ends it at once, with one line that says what it was doing, and exit 130.
# Needs Debian's python3-torch to write the model (skipped, exit 77, when it is missing).
set -u
cli=$1
/usr/bin/python3 -c "import torch" 2>/dev/null || { echo "skipped: python3-torch is not installed"; exit 77; }
dir=$(mktemp -d); trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$dir"' EXIT
cd "$dir"
export OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 OMP_WAIT_POLICY=PASSIVE PYTHONDONTWRITEBYTECODE=1
cat > make_looping.py <<'PY'
from typing import Dict
import torch

class Looping(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.input_size = 12

    def forward(self, x: torch.Tensor) -> Dict[str, torch.Tensor]:
        s = x.sum()
        while bool(s > -1.0):  # inf > -1: never ends
            s = s + 1.0
        return {"logits": torch.zeros(x.size(0), 3), "attention": torch.full([x.size(0), 1, 2, 2], 0.25)}

torch.jit.script(Looping()).save("looping.pt")
PY
/usr/bin/python3 make_looping.py || { echo "FAIL: could not write the looping model"; exit 1; }
"$cli" trace --model looping.pt > out.log 2> err.log &
pid=$!
sleep 3
kill -0 "$pid" 2>/dev/null || { echo "FAIL: trace ended before the signal: $(cat err.log)"; exit 1; }
kill -INT "$pid"
start=$SECONDS
wait "$pid"; rc=$?
[ $((SECONDS - start)) -le 5 ] || { echo "FAIL: took $((SECONDS - start)) s to stop"; exit 1; }
[ "$rc" -eq 130 ] || { echo "FAIL: exit $rc, not 130: $(cat err.log)"; exit 1; }
[ "$(grep -c . err.log)" -eq 1 ] || { echo "FAIL: not one line: $(cat err.log)"; exit 1; }
grep -qF "saccade-cli trace: interrupted while loading the model 'looping.pt'" err.log ||
  { echo "FAIL: $(cat err.log)"; exit 1; }
echo "ok: $(cat err.log)"
