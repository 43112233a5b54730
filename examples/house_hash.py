#!/usr/bin/env python3
"""house_hash.py — SHA-256 of the weights of safetensors files (the tensor
bytes after the header, not the metadata, which holds the training time), so
that two trainings of a house model can be told equal or not.

Usage: python3 examples/house_hash.py FILE...      prints "HASH  NAME" per file
"""
import hashlib
import os
import struct
import sys

for path in sys.argv[1:]:
    try:
        with open(path, "rb") as f:
            n = struct.unpack("<Q", f.read(8))[0]
            f.seek(8 + n)  # past the JSON header: only the tensor bytes count
            digest = hashlib.sha256()
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
    except (OSError, struct.error) as e:
        print("house_hash: %s: %s" % (path, e), file=sys.stderr)
        sys.exit(2)
    print("%s  %s" % (digest.hexdigest(), os.path.basename(path)))
