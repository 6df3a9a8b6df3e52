#!/usr/bin/env python3
"""Checks that every op defined in dialect/AttuneOps.td has a section in the
generated op reference (docs/AttuneOps.md), a round-trip case in
test/Dialect/ops.mlir, and a verifier case in test/Dialect/invalid.mlir.

Usage: check-op-coverage.py SOURCE_ROOT
"""
import re
import sys
from pathlib import Path

root = Path(sys.argv[1])
td = (root / "dialect/AttuneOps.td").read_text()
defined = set(re.findall(r'def Attune_\w+Op\s*:\s*Attune_\w+<"(\w+)"', td))
if not defined:
    sys.exit("check-op-coverage: no ops found in dialect/AttuneOps.td")

def ops_in(path, pattern):
    return set(re.findall(pattern, (root / path).read_text()))

checks = {
    "docs/AttuneOps.md": ops_in("docs/AttuneOps.md", r"### `attune\.(\w+)`"),
    "test/Dialect/ops.mlir": ops_in("test/Dialect/ops.mlir",
                                    r"(?m)(?:=|^)\s*attune\.(\w+)"),
    "test/Dialect/invalid.mlir": ops_in("test/Dialect/invalid.mlir", r"'attune\.(\w+)' op"),
}
failed = False
for where, found in checks.items():
    missing = sorted(defined - found)
    unknown = sorted(found - defined)
    if missing:
        print(f"{where}: missing {len(missing)} op(s): {', '.join(missing)}")
        failed = True
    if unknown:
        print(f"{where}: names op(s) not in AttuneOps.td: {', '.join(unknown)}")
        failed = True
print(f"{len(defined)} ops defined; " + ("coverage incomplete" if failed else "all covered"))
sys.exit(1 if failed else 0)
