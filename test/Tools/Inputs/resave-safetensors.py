"""Rewrites a safetensors file the way safetensors.torch lays one out: a
__metadata__ object (with nested values) first, tensors in reverse order and
an extra unused tensor, with 8-byte header padding."""
import json
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
raw = open(src, "rb").read()
n = struct.unpack("<Q", raw[:8])[0]
header = json.loads(raw[8:8 + n])
data = raw[8 + n:]
blobs = {k: data[v["data_offsets"][0]:v["data_offsets"][1]] for k, v in header.items()
         if k != "__metadata__"}
blobs["unused.extra"] = struct.pack("<4f", 1, 2, 3, 4)
out_header = {"__metadata__": {"format": "pt", "nested": "[1, {\"a\": 2}]"}}
entries = dict(header)
entries["unused.extra"] = {"dtype": "F32", "shape": [4]}
offset, chunks = 0, []
for name in reversed(list(blobs)):
    info = dict(entries[name])
    info["data_offsets"] = [offset, offset + len(blobs[name])]
    out_header[name] = info
    chunks.append(blobs[name])
    offset += len(blobs[name])
text = json.dumps(out_header).encode()
text += b" " * ((8 - len(text) % 8) % 8)
with open(dst, "wb") as f:
    f.write(struct.pack("<Q", len(text)) + text + b"".join(chunks))
