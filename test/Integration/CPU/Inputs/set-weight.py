"""set-weight.py SRC DST NAME INDEX VALUE: copies the safetensors file SRC
to DST with element INDEX (flat) of the F32 tensor NAME set to VALUE."""
import json
import struct
import sys

src, dst, name, index, value = sys.argv[1:]
raw = bytearray(open(src, "rb").read())
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
info = header[name]
if info["dtype"] != "F32":
    sys.exit(f"set-weight: {name} is {info['dtype']}, expected F32")
begin, end = info["data_offsets"]
at = 8 + n + begin + 4 * int(index)
if at + 4 > 8 + n + end:
    sys.exit(f"set-weight: index {index} beyond {name}'s {(end - begin) // 4} elements")
raw[at:at + 4] = struct.pack("<f", float(value))
open(dst, "wb").write(raw)
