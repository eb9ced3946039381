"""Plain PyTorch on a TorchScript file, for `saccade-cli bench import --reference
scripts/import_reference.py`: what a PyTorch user pays to open the model and run it.

  open_ms               torch.jit.load plus one forward (the median of --repeats fresh loads)
  warm_forward_ms       the median forward of one image after warm-up, under torch.no_grad()
  batched_ms_per_image  --images random images in batches of --batch, per image (null without --images)

Prints one JSON line. Run with /usr/bin/python3 (Debian's python3-torch):
  /usr/bin/python3 scripts/import_reference.py --model samples/torchscript/torchvision_vit.pt --size 224 --channels 3
"""

import argparse
import json
import statistics
import time

import torch


def ms_since(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--size", type=int, required=True)
    p.add_argument("--channels", type=int, default=3)
    p.add_argument("--repeats", type=int, default=5)
    p.add_argument("--images", type=int, default=0)
    p.add_argument("--batch", type=int, default=100)
    p.add_argument("--threads", type=int, default=1)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.manual_seed(0)
    x = torch.rand(1, a.channels, a.size, a.size)
    opens = []
    with torch.no_grad():
        for _ in range(a.repeats):
            t0 = time.perf_counter()
            model = torch.jit.load(a.model).eval()
            model(x)
            opens.append(ms_since(t0))
        y = torch.rand(1, a.channels, a.size, a.size)
        for _ in range(3):
            model(x)
        forwards = []
        for i in range(a.repeats):
            t0 = time.perf_counter()
            model(x if i % 2 else y)
            forwards.append(ms_since(t0))
        batched = None
        if a.images > 0:
            images = torch.rand(a.images, a.channels, a.size, a.size)
            t0 = time.perf_counter()
            for first in range(0, a.images, a.batch):
                model(images[first:first + a.batch])
            batched = ms_since(t0) / a.images
    print(json.dumps({"open_ms": statistics.median(opens), "warm_forward_ms": statistics.median(forwards),
                      "batched_ms_per_image": batched, "torch": torch.__version__}))


if __name__ == "__main__":
    main()
