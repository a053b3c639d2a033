#!/usr/bin/python3
"""torchvision models exported with torch.onnx.export (weights=None, offline)
at opsets 13 and 17, static and dynamic batch, checked through reshaper-run in
check mode: every data-movement node (Reshape, Transpose, Squeeze, Unsqueeze,
Flatten) claimed, every check passed; a dynamic-batch export with --free-dim,
and without it exits 2 naming the unbound dim in check mode and 0 in infer
mode (ops over tensors of unknown rank unclaimed, with the reason).

  torchvision_onnx_check.py --run build/bin/reshaper-run --out build/onnx_models
"""
import argparse
import json
import os
import subprocess
import sys

import onnx

HERE = os.path.dirname(os.path.abspath(__file__))
EXPORT = os.path.join(HERE, "..", "..", "scripts", "export_onnx_model.py")
MOVEMENT = {"Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten"}

# (model, opset, dynamic batch); small inputs keep the check fast.
CASES = [
    ("shufflenet_v2_x0_5", 13, False),
    ("shufflenet_v2_x0_5", 13, True),
    ("shufflenet_v2_x0_5", 17, True),
    ("tiny_vit", 17, True),
    ("tiny_swin", 13, False),
]


def export(out_dir, model, opset, dynamic):
    path = os.path.join(out_dir, f"{model}_op{opset}_{'dyn' if dynamic else 'static'}.onnx")
    # Exported once per build folder; again when the exporter changed.
    if not os.path.exists(path) or os.path.getmtime(path) < os.path.getmtime(EXPORT):
        cmd = [sys.executable, EXPORT, model, path, "--opset", str(opset), "--size", "64"]
        if dynamic:
            cmd.append("--dynamic-batch")
        subprocess.run(cmd, check=True)
    return path


def run(driver, args):
    proc = subprocess.run([driver, "--report=json"] + args, capture_output=True, text=True)
    return proc.returncode, proc.stdout, proc.stderr


def check_claims(path, report):
    """Every data-movement node's op is in a supported partition."""
    kinds = [n.op_type for n in onnx.load(path, load_external_data=False).graph.node]
    claimed = set()
    for p in report["partitions"]:
        if p["supported"]:
            claimed.update(p["ops"])
    movement = [i for i, k in enumerate(kinds) if k in MOVEMENT]
    unclaimed = [(i, kinds[i]) for i in movement if i not in claimed]
    reasons = [p.get("reason") for p in report["partitions"]
               if not p["supported"] and any(i in p["ops"] for i in movement)]
    assert not unclaimed, f"{path}: unclaimed movement nodes {unclaimed[:10]}: {reasons[:3]}"
    assert movement, f"{path}: no data-movement node"
    return len(movement)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--run", required=True)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    os.makedirs(args.out, exist_ok=True)
    failures = 0
    for model, opset, dynamic in CASES:
        name = f"{model} opset {opset} {'dynamic' if dynamic else 'static'} batch"
        try:
            path = export(args.out, model, opset, dynamic)
            runs = [["--free-dim=batch=2"]] if dynamic else [[]]
            for extra in runs:
                code, out, err = run(args.run, extra + [path])
                assert code == 0, f"{name}: exit {code}: {out[:2000]} {err[:2000]}"
                report = json.loads(out)
                assert report["status"] == "ok", report.get("error")
                moved = check_claims(path, report)
                check = report["check"]
                assert check["failed"] == 0 and check["passed"] > 0, check
                print(f"ok: {name} {' '.join(extra)}: {moved} movement nodes claimed, {check['passed']} checks passed")
            if dynamic:
                code, out, _ = run(args.run, [path])
                assert code == 2 and "batch" in json.loads(out)["error"]["message"], (code, out[:500])
                # Infer mode needs no binding: what the symbolic batch leaves
                # of unknown rank is unclaimed with the reason, never an error.
                code, out, _ = run(args.run, ["--mode=infer", path])
                assert code == 0, (code, out[:500])
                report = json.loads(out)
                reasons = {p.get("reason", "") for p in report["partitions"] if not p["supported"]}
                assert all("unknown rank" in r or "not handled" in r for r in reasons), reasons
                print(f"ok: {name}: unbound batch exits 2 in check mode, 0 in infer mode")
        except (AssertionError, subprocess.CalledProcessError) as e:
            failures += 1
            print(f"FAIL: {name}: {e}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
