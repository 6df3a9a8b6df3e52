#!/usr/bin/env bash
# Runs every test through lit and ends with one summary line:
#   "tests: N passed, N failed, N skipped"
set -uo pipefail
build_dir=${1:-build}
results="$build_dir/test-results.xml"
rm -f "$results"

/usr/lib/llvm-22/bin/lit -sv --xunit-xml-output="$results" "$build_dir/test"
status=$?

if [[ ! -f "$results" ]]; then
  echo "tests: 0 passed, 1 failed (lit produced no results; exit $status)"
  exit 1
fi
python3 - "$results" "$status" <<'PY'
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
passed = failed = skipped = vulkan_skipped = 0
for case in root.iter("testcase"):
    if case.find("failure") is not None or case.find("error") is not None:
        failed += 1
    elif case.find("skipped") is not None:
        skipped += 1
        name = case.get("classname", "") + "." + case.get("name", "")
        vulkan_skipped += "vulkan" in name.lower()
    else:
        passed += 1
if int(sys.argv[2]) != 0 and failed == 0:
    failed = 1  # lit failed for a reason outside any test case
note = (f" ({vulkan_skipped} Vulkan tests skipped: no Vulkan device)"
        if vulkan_skipped else "")
print(f"tests: {passed} passed, {failed} failed, {skipped} skipped{note}")
sys.exit(1 if failed else 0)
PY
