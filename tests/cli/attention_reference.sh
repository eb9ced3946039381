#!/usr/bin/env bash
# attention_reference.sh CLI SCRIPT: bench attention beside the plain PyTorch reference at tiny
# sizes; skipped (77) where Debian's python3 has no torch.
cli=$1; script=$2
/usr/bin/python3 -c 'import torch' 2>/dev/null || { echo "python3-torch is not installed: skipped"; exit 77; }
exec "$cli" --threads 1 bench attention --lengths 64,128 --dim 8 --heads 1 --repeats 1 \
  --variants full,memory_efficient --no-errors --reference "$script" --json
