"""Rewrites a safetensors file the way safetensors.torch lays one out: a
__metadata__ object (with nested values) first, tensors in reverse order and
an extra unused tensor, with 8-byte header padding. With --shift, the
extra tensor (2 bytes, first) leaves every other tensor's data 2-byte
aligned only, as a file of mixed dtypes can."""
import json
import struct
import sys

args = [a for a in sys.argv[1:] if a != "--shift"]
shift = "--shift" in sys.argv
src, dst = args[0], args[1]
raw = open(src, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
data = raw[8 + n:]
blobs = {k: data[v["data_offsets"][0]:v["data_offsets"][1]] for k, v in header.items()
         if k != "__metadata__"}
extra = struct.pack("<e", 1) if shift else struct.pack("<4f", 1, 2, 3, 4)
blobs["unused.extra"] = extra
out_header = {"__metadata__": {"format": "pt", "nested": "[1, {\"a\": 2}]"}}
entries = dict(header)
entries["unused.extra"] = ({"dtype": "F16", "shape": [1]} if shift
                          else {"dtype": "F32", "shape": [4]})
offset, chunks = 0, []
names = list(blobs)
names = names[-1:] + names[:-1] if shift else list(reversed(names))
for name in names:
    info = dict(entries[name])
    info["data_offsets"] = [offset, offset + len(blobs[name])]
    out_header[name] = info
    chunks.append(blobs[name])
    offset += len(blobs[name])
text = json.dumps(out_header).encode()
text += b" " * ((8 - len(text) % 8) % 8)
with open(dst, "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))
