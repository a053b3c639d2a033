#!/usr/bin/python3
"""docs/performance.md keeps the hand-written sections scripts/bench_report.py
writes into it (KERNEL_TUNING_SECTION, REAL_MODEL_CHAINS_SECTION,
PER_CALL_SECTION, STREAMING_LLC_SECTION, PROFILE_NOTE) byte for byte: an edit
to one side only would be lost, or come back, at the next scripts/bench.sh.
A section that is a whole "## " section must also be all the doc has under
its heading: a bullet added to the doc alone would be lost at the next run
(ten were, once).

    check_performance_sections.py REPO_ROOT
"""
import importlib.util
import os
import sys

SECTIONS = ["KERNEL_TUNING_SECTION", "REAL_MODEL_CHAINS_SECTION", "PER_CALL_SECTION", "STREAMING_LLC_SECTION",
            "PROFILE_NOTE"]


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "..")
    spec = importlib.util.spec_from_file_location("bench_report", os.path.join(root, "scripts", "bench_report.py"))
    report = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(report)
    with open(os.path.join(root, "docs", "performance.md")) as f:
        doc = f.read()
    missing, extra = [], []
    for name in SECTIONS:
        # As write_markdown writes them: the sections without their last newline.
        text = getattr(report, name).rstrip("\n")
        if text not in doc:
            missing.append(name)
        elif text.startswith("## "):
            start = doc.index(text)
            end = doc.find("\n## ", start + len(text))
            if doc[start:len(doc) if end < 0 else end].rstrip("\n") != text:
                extra.append(name)
    for name in missing:
        print(f"docs/performance.md lacks scripts/bench_report.py's {name} as written there: edit both, or "
              "rerun scripts/bench.sh", file=sys.stderr)
    for name in extra:
        print(f"docs/performance.md has more under {name}'s heading than scripts/bench_report.py writes there: "
              "add it to scripts/bench_report.py too, or it is lost at the next scripts/bench.sh", file=sys.stderr)
    return 1 if missing or extra else 0


if __name__ == "__main__":
    sys.exit(main())
