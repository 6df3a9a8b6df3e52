#!/usr/bin/env python3
"""Fails if a binary holds EVEX-encoded (AVX-512) instructions.

  check_no_evex.py LIB.so [--objdump objdump]

valgrind 3.19 cannot decode EVEX: a library that the test suite runs under
valgrind must be compiled for an ISA without AVX-512 (--cpu=x86-64...v3),
whatever the host. This check reads the machine code itself, so it proves
that on any machine, with or without AVX-512.

An EVEX instruction starts with the byte 0x62 after any segment or
address-size prefix (in 64-bit mode 0x62 is no longer BOUND; no other
prefix may precede EVEX). Prints the first offenders and exits 1, or prints
how many instructions were read and exits 0.
"""
import argparse
import re
import subprocess
import sys

# Prefixes allowed before an EVEX prefix: segment overrides and 0x67.
ALLOWED_PREFIXES = {0x26, 0x2E, 0x36, 0x3E, 0x64, 0x65, 0x67}
LINE = re.compile(r"^\s*([0-9a-f]+):\t([0-9a-f]{2}(?: [0-9a-f]{2})*)\s*\t(.*)$")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("binary")
    p.add_argument("--objdump", default="objdump")
    args = p.parse_args()
    try:
        out = subprocess.run([args.objdump, "-d", "-w", args.binary],
                             capture_output=True, text=True, check=True).stdout
    except (OSError, subprocess.CalledProcessError) as e:
        sys.exit(f"check_no_evex: cannot disassemble {args.binary}: {e}")
    count = 0
    found = []
    for line in out.splitlines():
        m = LINE.match(line)
        if not m:
            continue  # headers, labels, or a continuation line of bytes
        count += 1
        code = [int(b, 16) for b in m.group(2).split()]
        i = 0
        while i < len(code) and code[i] in ALLOWED_PREFIXES:
            i += 1
        if i < len(code) and code[i] == 0x62:
            found.append(f"  {m.group(1)}: {m.group(3).strip()}")
    if count == 0:
        sys.exit(f"check_no_evex: no instructions in {args.binary}")
    if found:
        print(f"check_no_evex: {args.binary}: {len(found)} EVEX-encoded "
              f"(AVX-512) instruction(s), e.g.:")
        print("\n".join(found[:5]))
        sys.exit(1)
    print(f"check_no_evex: {args.binary}: {count} instructions, none EVEX-encoded")


if __name__ == "__main__":
    main()
