#!/usr/bin/python3
"""Exports a torchvision model (weights=None: offline, no download) to ONNX
with torch.onnx.export, for reshaper-run and the ONNX tests.

  scripts/export_onnx_model.py MODEL OUT.onnx [--opset N] [--dynamic-batch]
                               [--size PIXELS] [--batch N]

With --dynamic-batch the input's first dim is the symbolic dim "batch"
(bind it with reshaper-run --free-dim=batch=N). Run it with Debian's
/usr/bin/python3 (python3-torch, python3-torchvision).
"""
import argparse
import sys
import warnings

import torch
import torchvision


# torchvision's transformer architectures at a few layers and narrow widths:
# the same data movement (patches, heads, windows) in a model of a few MB.
TINY = {
    "tiny_vit": lambda size: torchvision.models.vision_transformer.VisionTransformer(
        image_size=size, patch_size=16, num_layers=2, num_heads=2, hidden_dim=64, mlp_dim=128,
        num_classes=10),
    "tiny_swin": lambda size: torchvision.models.swin_transformer.SwinTransformer(
        patch_size=[4, 4], embed_dim=32, depths=[2, 2], num_heads=[2, 4], window_size=[4, 4],
        num_classes=10),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("model", help="a torchvision.models builder, e.g. shufflenet_v2_x0_5, "
                                      "or tiny_vit, tiny_swin (torchvision's ViT and Swin, small)")
    parser.add_argument("out", help="the .onnx file to write")
    parser.add_argument("--opset", type=int, default=17)
    parser.add_argument("--dynamic-batch", action="store_true")
    parser.add_argument("--size", type=int, default=224, help="input height and width")
    parser.add_argument("--batch", type=int, default=1)
    args = parser.parse_args()

    torch.manual_seed(0)
    if args.model in TINY:
        model = TINY[args.model](args.size).eval()
    else:
        builder = getattr(torchvision.models, args.model, None)
        if builder is None:
            sys.exit(f"export_onnx_model: torchvision.models has no {args.model}")
        model = builder(weights=None).eval()
    example = torch.randn(args.batch, 3, args.size, args.size)
    dynamic_axes = {"input": {0: "batch"}, "output": {0: "batch"}} if args.dynamic_batch else None
    # Not under no_grad: in eval mode without grad, torch 1.13's
    # MultiheadAttention takes its fused fast path, which the exporter
    # cannot write (aten::_native_multi_head_attention).
    with warnings.catch_warnings():
        # The exporter's tracer warnings (python values as constants) say
        # nothing about the exported graph's validity.
        warnings.simplefilter("ignore")
        torch.onnx.export(model, (example,), args.out, opset_version=args.opset,
                          input_names=["input"], output_names=["output"],
                          dynamic_axes=dynamic_axes, do_constant_folding=True)


if __name__ == "__main__":
    main()
