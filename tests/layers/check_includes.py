#!/usr/bin/env python3
"""The folders are the layers: every `#include "x/..."` in a layer's sources
names a layer that its row of the table under "## Layers" in
docs/architecture.md allows. The table is the picture; this keeps it true.

Usage: check_includes.py SOURCE_DIR. Exit 0 when every include is allowed;
else 1, printing each that is not (file:line, the include, what the row
allows)."""
import fnmatch
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else ".").resolve()
doc = (root / "docs" / "architecture.md").read_text()
section = doc.split("\n## Layers", 1)[1].split("\n## ", 1)[0]

# | `name` | `files` | library | `a`, `b` |
rows = []
for line in section.splitlines():
    cells = [c.strip() for c in line.strip().strip("|").split("|")]
    if len(cells) != 4 or not cells[0].startswith("`"):
        continue
    rows.append((cells[0].strip("`"), cells[1].strip("`").rstrip("/"), set(re.findall(r"`([a-z_]+)`", cells[3]))))
if not rows:
    sys.exit("no layer table under '## Layers' in docs/architecture.md")
names = {name for name, _, _ in rows}
globs = [(name, files) for name, files, _ in rows if "*" in files]


def layer_of_path(relative):
    """The layer a file (path from the root) belongs to, or None."""
    for name, pattern in globs:
        if fnmatch.fnmatch(relative, pattern):
            return name
    for name, files, _ in rows:
        if "*" not in files and relative.startswith(files + "/"):
            return name
    return None


def layer_of_include(path):
    """The layer an include names: a file under src/ or the root, or the public headers."""
    if path.startswith("reshaper/"):
        return "reshaper"
    for candidate in ("src/" + path, path):
        if (root / candidate).exists():
            return layer_of_path(candidate)
    return None


include = re.compile(r'^\s*#\s*include\s+"([^"]+/[^"]+)"')
problems, checked = [], 0
for name, files, allowed in rows:
    paths = root.glob(files) if "*" in files else (root / files).rglob("*")
    for path in sorted(paths):
        relative = str(path.relative_to(root))
        if path.suffix not in (".cpp", ".hpp", ".h") or layer_of_path(relative) != name:
            continue
        for number, text in enumerate(path.read_text().splitlines(), 1):
            m = include.match(text)
            if not m:
                continue
            checked += 1
            target = layer_of_include(m.group(1))
            if target is None or target == name or target in allowed:
                continue
            problems.append(f"{relative}:{number}: includes \"{m.group(1)}\" (layer {target}); "
                            f"layer {name} may include only {', '.join(sorted(allowed)) or 'itself'}")
for p in problems:
    print(p)
print(f"{len(rows)} layers, {checked} includes checked, {len(problems)} not allowed")
sys.exit(1 if problems else 0)
