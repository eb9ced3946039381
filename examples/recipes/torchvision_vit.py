"""torchvision's VisionTransformer in samples/torchscript/torchvision_vit.py's wrapper, traced, so PyTorch 2.x's file opens in LibTorch 1.13.

    python examples/recipes/torchvision_vit.py --out OUT --seed 1           # traced: opens
    python examples/recipes/torchvision_vit.py --out OUT --seed 1 --script  # scripted: LibTorch 1.13 refuses it

4 layers, 3 heads, width 192, 224x224 in 16x16 patches, random weights under --seed (nothing is
downloaded). torchvision starts its head at zero, which would give every class the same logit, so
the head is re-initialised with a seeded normal (std 0.02). The wrapper asks each block's
nn.MultiheadAttention for its weights (need_weights=True). Scripted under PyTorch 2.x, the file
also holds the rest of F.multi_head_attention_forward, whose need_weights=False branch calls
aten::scaled_dot_product_attention, an operator LibTorch 1.13 does not have, so the whole file
fails to load even though that branch never runs. Traced, only the path that ran is recorded. A
traced module keeps no attributes, so the settings go into the extra file saccade.json.
Writes OUT/torchvision_vit.pt, .png and .reference.json (_common.py).
"""

import os
import sys

import torch
from torch import nn
from torchvision.models.vision_transformer import VisionTransformer

import _common as rc

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "samples", "torchscript"))
from torchvision_vit import VitInContract  # noqa: E402

SIZE = 224


def main() -> None:
    script = "--script" in sys.argv
    if script:
        sys.argv.remove("--script")
    a = rc.arguments(__doc__, "torchvision_vit")
    vit = VisionTransformer(image_size=SIZE, patch_size=16, num_layers=4, num_heads=3, hidden_dim=192, mlp_dim=768,
                            num_classes=10)
    rc.seeded_normal_(vit.heads.head)  # torchvision's head starts at zero
    wrapped = VitInContract(vit, registers=0).eval()
    module = torch.jit.script(wrapped) if script else torch.jit.trace(wrapped, torch.rand(1, 3, SIZE, SIZE),
                                                                       strict=False, check_trace=False)
    rc.save(module, a.path + ".pt", {"input_size": [3, SIZE, SIZE], "mean": "imagenet", "prefix_tokens": 1})
    rc.classifier_reference(a.path, SIZE, rc.IMAGENET_MEAN, rc.IMAGENET_STD, a.seed, lambda x: wrapped(x)["logits"])


if __name__ == "__main__":
    main()
