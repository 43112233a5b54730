#!/usr/bin/env python3
"""series_list.py — the snapshots of a series folder, one line each in the
order of their steps: "STEP MODEL ADAPTER", for the scripts that measure
every snapshot (series_heads.sh, series_flow.sh). A pre-training's series
(train-lm --snapshots) and a full fine-tuning's (finetune --save-epochs,
"epoch_files": "model") name checkpoints: MODEL is the snapshot's file and
ADAPTER "-". A LoRA fine-tuning's ("epoch_files": "adapter") names adapter
files: MODEL is the base model of its series.json and ADAPTER the epoch's
file. A file that is not there, or a series.json that is not one, is
one line on stderr naming it, exit status 2.

Usage: python3 examples/series_list.py SERIES_DIR
"""
import json
import os
import sys


def fail(message):
    """Print one line naming the problem and exit with status 2."""
    print(f"series_list: {message}", file=sys.stderr)
    sys.exit(2)


def main():
    """List the snapshots of the series folder given."""
    if len(sys.argv) != 2:
        fail("usage: python3 examples/series_list.py SERIES_DIR")
    folder = sys.argv[1]
    path = os.path.join(folder, "series.json")
    try:
        series = json.load(open(path))
        snapshots = sorted(series["snapshots"], key=lambda e: e["step"])
        epochs = series.get("unit", "step") == "epoch" and series.get("epoch_files", "adapter") == "adapter"
        base = series.get("model") if epochs else None
        lines = [(int(e["step"]), e["file"]) for e in snapshots]
    except OSError as error:
        fail(f"{path}: {error.strerror}")
    except (ValueError, KeyError, TypeError, AttributeError) as error:
        fail(f"{path}: not a snapshot series ({error})")
    if not lines:
        fail(f"{path}: lists no snapshot")
    if epochs and not (isinstance(base, str) and os.path.isfile(base)):
        fail(f"{path}: its base model {base!r} (\"model\") is not there")
    for step, name in lines:
        file = os.path.join(folder, name)
        if not os.path.isfile(file):
            fail(f"{file} (step {step} of {path}) not found")
        print(step, base if epochs else file, file if epochs else "-")


if __name__ == "__main__":
    main()
