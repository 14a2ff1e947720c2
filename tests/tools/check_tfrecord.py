#!/usr/bin/env python3
"""Walks TFRecord framing independently of TrainIO (python3-crc32c) and checks every record:
masked CRC-32C of the length and of the data, and that the data holds the 'image' feature name.
Usage: check_tfrecord.py FILE n [INDEX_FILE]  -> prints 'ok' and exits 0, else the problem, exit 1.
With INDEX_FILE, also checks each line "<offset> <length>" against the walk."""
import struct
import sys
import crc32c

def masked(data):
    c = crc32c.crc32c(data)
    return (((c >> 15) | (c << 17)) + 0xA282EAD8) & 0xFFFFFFFF

path, n = sys.argv[1], int(sys.argv[2])
blob = open(path, "rb").read()
pos, records, problems = 0, [], []
while pos < len(blob):
    if len(blob) - pos < 12:
        problems.append(f"truncated header at {pos}")
        break
    (length,) = struct.unpack_from("<Q", blob, pos)
    (lcrc,) = struct.unpack_from("<I", blob, pos + 8)
    if lcrc != masked(blob[pos:pos + 8]):
        problems.append(f"record {len(records)} length CRC")
    data = blob[pos + 12:pos + 12 + length]
    (dcrc,) = struct.unpack_from("<I", blob, pos + 12 + length)
    if dcrc != masked(data):
        problems.append(f"record {len(records)} data CRC")
    if b"image" not in data or b"size" not in data:
        problems.append(f"record {len(records)} lacks image/size features")
    records.append((pos, 16 + length))
    pos += 16 + length
if len(records) != n:
    problems.append(f"{len(records)} records, expected {n}")
if len(sys.argv) > 3:
    lines = [tuple(map(int, l.split())) for l in open(sys.argv[3]) if l.strip()]
    if lines != records:
        problems.append(f"index {lines} != walk {records}")
print("; ".join(problems) if problems else "ok")
sys.exit(1 if problems else 0)
