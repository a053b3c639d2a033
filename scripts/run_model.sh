#!/bin/sh
# Runs a real model through reshaper: exports torchvision's shufflenet_v2_x0_5
# (weights=None: no download) to ONNX with torch.onnx.export into build/models/,
# checks it with reshaper-run (every claimed partition compiled, executed and
# compared bit-exactly with the reference), then prints on one screen what
# became an alias (no data moves) and what moved (our kernels or a oneDNN
# reorder), chain by chain.
#   scripts/run_model.sh [--model NAME] [--size PIXELS] [--opset N]
# NAME: a torchvision.models builder or tiny_vit, tiny_swin (default
# shufflenet_v2_x0_5); PIXELS: input height and width (default 224).
# Needs scripts/setup.sh first (the build and Debian's python3-torch,
# python3-torchvision, python3-onnx).
set -eu

cd "$(dirname "$0")/.."
build="${RESHAPER_BUILD_DIR:-build}"
model=shufflenet_v2_x0_5
size=224
opset=17
while [ $# -gt 0 ]; do
    case "$1" in
        --model) model=$2; shift 2 ;;
        --size) size=$2; shift 2 ;;
        --opset) opset=$2; shift 2 ;;
        *) echo "usage: scripts/run_model.sh [--model NAME] [--size PIXELS] [--opset N]" >&2; exit 2 ;;
    esac
done

mkdir -p "$build/models"
onnx="$build/models/${model}_${size}_op${opset}.onnx"
echo "exporting torchvision $model (weights=None, input 1x3x${size}x${size}, opset $opset) to $onnx"
/usr/bin/python3 scripts/export_onnx_model.py "$model" "$onnx" --opset "$opset" --size "$size"

report="$build/models/${model}_${size}_op${opset}.report.json"
status=0
"$build/bin/reshaper-run" --mode=check --report=json "$onnx" > "$report" || status=$?
/usr/bin/python3 - "$onnx" "$report" <<'PY'
import collections, json, sys
import onnx

nodes = onnx.load(sys.argv[1], load_external_data=False).graph.node
report = json.loads(open(sys.argv[2]).read())
if report["status"] != "ok":
    sys.exit(f"reshaper-run: {report['error']['code']}: {report['error']['message']}")
tensors = {t["id"]: t for t in report["tensors"]}
shape = lambda i: "x".join(map(str, tensors[i]["shape"])) or "scalar"
claimed, chains = 0, collections.Counter()
for p in report["partitions"]:
    if not p["supported"]:
        continue
    claimed += len(p["ops"])
    kinds = "+".join(nodes[i].op_type for i in p["ops"])
    moves = f"{shape(p['inputs'][0]['id'])} -> {shape(p['outputs'][0]['id'])}"
    chains[(p["lowering"], kinds, moves)] += 1
movement = sum(n.op_type in ("Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten") for n in nodes)
print(f"{len(nodes)} ONNX nodes, {movement} of them data movement; reshaper claimed {claimed} "
      f"in {sum(chains.values())} partitions (each chain fused into one):")
for lowering in ("alias", "kernel", "reorder"):
    rows = [(k, m, n) for (low, k, m), n in chains.items() if low == lowering]
    if not rows and lowering == "alias":
        print("  alias: none (every chain here permutes data, so it must move)")
    if not rows:
        continue
    what = {"alias": "alias: a view of the input, no data moves",
            "kernel": "kernel: moved by reshaper's SIMD kernels",
            "reorder": "reorder: moved by a oneDNN reorder"}[lowering]
    print(f"  {what}")
    for kinds, moves, n in sorted(rows):
        print(f"    {n:3d} x {kinds:32s} {moves}")
claimed_ops = {i for p in report["partitions"] if p["supported"] for i in p["ops"]}
left = [f"{i}:{n.op_type}" for i, n in enumerate(nodes)
        if n.op_type in ("Reshape", "Transpose", "Squeeze", "Unsqueeze", "Flatten") and i not in claimed_ops]
if left:
    print(f"  data-movement nodes left unclaimed: {' '.join(left[:12])}")
check = report.get("check", {})
print(f"check: {check.get('passed', 0)} partitions bit-exact against the reference, {check.get('failed', 0)} failed")
PY
exit $status
