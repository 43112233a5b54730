#!/usr/bin/env python3
"""animate.py — frames into one animation a teacher can put on a slide: the
PNG frames that `seqrep explore` saves (a scripted walk through a series,
explore --series DIR --script "s]s]s..." --save-dir FRAMES) or any PNGs, in
the order given, into an animated GIF (OUT.gif) or an animated PNG (OUT.png,
APNG: full colour, shown by every current browser and slide tool that plays
GIFs). Written with Pillow (Debian: python3-pil), the image library of
Python; every frame shown DELAY ms (default 800), looping forever.

Usage: python3 examples/animate.py OUT.gif|OUT.png FRAME.png... [--delay MS]
A missing or unreadable frame, frames of different sizes or another
extension: one line naming it, exit status 2; OUT is written to a temporary
file and renamed, so a failed run leaves nothing.
"""
import argparse
import os
import sys


def fail(message):
    """Print one line naming the problem and exit with status 2."""
    print(f"animate: {message}", file=sys.stderr)
    sys.exit(2)


def main():
    """Read the frames, check their sizes, write the animation."""
    parser = argparse.ArgumentParser(description="PNG frames into an animated GIF or PNG")
    parser.add_argument("out")
    parser.add_argument("frames", nargs="+")
    parser.add_argument("--delay", type=int, default=800, help="ms each frame is shown (default 800)")
    args = parser.parse_args()
    kind = {".gif": "GIF", ".png": "PNG"}.get(os.path.splitext(args.out)[1].lower())
    if kind is None:
        fail(f"{args.out}: the animation must be .gif or .png (APNG)")
    if args.delay < 10:
        fail(f"--delay {args.delay}: at least 10 ms")
    try:
        from PIL import Image
    except ImportError:
        fail("Pillow is not installed (Debian: apt-get install python3-pil)")
    images = []
    for path in args.frames:
        try:
            with Image.open(path) as image:
                images.append(image.convert("RGB" if kind == "GIF" else "RGBA"))
        except OSError as error:
            fail(f"{path}: cannot read it as an image ({error})")
        if images[-1].size != images[0].size:
            fail(f"{path}: {images[-1].size[0]}x{images[-1].size[1]}, but {args.frames[0]} is "
                 f"{images[0].size[0]}x{images[0].size[1]} (frames of one window size)")
    temporary = f"{args.out}.tmp.{os.getpid()}"
    try:
        images[0].save(temporary, format=kind, save_all=True, append_images=images[1:], duration=args.delay,
                       loop=0, **({"optimize": False} if kind == "GIF" else {}))
        os.replace(temporary, args.out)
    except OSError as error:
        if os.path.exists(temporary):
            os.remove(temporary)
        fail(f"{args.out}: {error.strerror or error}")
    print(f"wrote {args.out}: {len(images)} frames, {args.delay} ms each")


if __name__ == "__main__":
    main()
