#!/usr/bin/env python3
"""Builds packaging/windows/fabric-broker.ico from the PNG icons (PNG-compressed ICO entries,
supported since Windows Vista). Standard library only.

    python3 packaging/windows/make-ico.py [resources/icons] [packaging/windows/fabric-broker.ico]
"""
import pathlib
import struct
import sys

root = pathlib.Path(__file__).resolve().parents[2]
src = pathlib.Path(sys.argv[1]) if len(sys.argv) > 1 else root / "resources" / "icons"
out = pathlib.Path(sys.argv[2]) if len(sys.argv) > 2 else root / "packaging" / "windows" / "fabric-broker.ico"

images = []
for size in (16, 24, 32, 48, 64, 128, 256):
    for cand in (src / "hicolor" / f"{size}x{size}" / "fabric-broker.png", src / f"fabric-broker-{size}.png"):
        if cand.exists():
            images.append((size, cand.read_bytes()))
            break
if not images:
    sys.exit(f"no fabric-broker PNG icons under {src}")

header = struct.pack("<HHH", 0, 1, len(images))
offset = 6 + 16 * len(images)
entries, blobs = b"", b""
for size, data in images:
    dim = 0 if size >= 256 else size  # 0 means 256 in an ICO directory entry
    entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(data), offset)
    blobs += data
    offset += len(data)
out.write_bytes(header + entries + blobs)
print(f"wrote {out} ({', '.join(str(s) for s, _ in images)} px)")
