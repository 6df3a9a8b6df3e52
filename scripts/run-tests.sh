#!/usr/bin/env bash
# Runs every test through lit and ends with one summary line:
#   "tests: N passed, N failed, N skipped (REASON: N; ...)"
# where each reason names a facility the machine lacks (a Vulkan device,
# valgrind, ...) and how many tests it kept from running.
set -uo pipefail
build_dir=${1:-build}
results="$build_dir/test-results.xml"
rm -f "$results"

# The CPU the suite ran on (tests must pass whatever it is).
cpu=$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -1)
isa=$(grep -m1 -o -w -E 'avx2|avx512f|avx512_bf16|amx_tile' /proc/cpuinfo | sort -u | tr '\n' ' ')
echo "run-tests: host CPU: ${cpu:-unknown} (${isa% })"

/usr/lib/llvm-22/bin/lit -sv --xunit-xml-output="$results" "$build_dir/test"
status=$?

if [[ ! -f "$results" ]]; then
  echo "tests: 0 passed, 1 failed (lit produced no results; exit $status)"
  exit 1
fi
python3 - "$results" "$status" <<'PY'
import sys, xml.etree.ElementTree as ET
from collections import Counter
# Why a skipped test did not run: the facility it REQUIRES that the machine
# lacks (lit names the missing features in the skip message).
REASONS = {
    "vulkan": "no Vulkan device",
    "valgrind": "no valgrind",
    "gnu-time": "no GNU time",
    "qemu": "no qemu-x86_64",
    "cpu-avx2": "the CPU has no AVX2",
    "cpu-avx512f": "the CPU has no AVX-512",
}
root = ET.parse(sys.argv[1]).getroot()
passed = failed = skipped = 0
reasons = Counter()
for case in root.iter("testcase"):
    if case.find("failure") is not None or case.find("error") is not None:
        failed += 1
    elif (skip := case.find("skipped")) is not None:
        skipped += 1
        message = skip.get("message", "")
        prefix = "Missing required feature(s): "
        if message.startswith(prefix):
            for feature in message[len(prefix):].split(", "):
                reasons[REASONS.get(feature, "needs " + feature)] += 1
        else:
            reasons[message or "unsupported"] += 1
    else:
        passed += 1
if int(sys.argv[2]) != 0 and failed == 0:
    failed = 1  # lit failed for a reason outside any test case
note = ""
if reasons:
    note = " (" + "; ".join(f"{why}: {n}"
                            for why, n in sorted(reasons.items())) + ")"
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped{note}")
sys.exit(1 if failed else 0)
PY
