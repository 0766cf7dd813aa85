"""Drive ARM-software/devlib's GfxinfoFrameCollector parser over a captured framestats file.

Usage: python3 devlib_gfxinfo.py DEVLIB_SRC CAPTURE

DEVLIB_SRC is a checkout of github.com/ARM-software/devlib (scripts/bench-peers.sh extracts the
few files it needs from the fetched mirror; nothing of it is in this repository). devlib's
package __init__ pulls in every target and instrument, so the package is registered without
it and devlib.utils.rendering imported directly. The collector is built without a device (a
header is given, so it never asks one) and its own _process_raw_file reads the capture: every
PROFILEDATA row to ints, repeats dropped by vsync — what process_frames does after a run.
Prints: frames kept.
"""
import os
import sys
import types


def main():
    src, capture = sys.argv[1], sys.argv[2]
    pkg = types.ModuleType("devlib")
    pkg.__path__ = [os.path.join(src, "devlib")]
    sys.modules["devlib"] = pkg
    from devlib.utils.rendering import GfxinfoFrameCollector

    c = GfxinfoFrameCollector(None, 1, "com.example.feed", header=["Flags"])
    with open(capture, encoding="utf-8", errors="replace") as fh:
        c._process_raw_file(fh)
    print("frames=%d" % len(c.frames))


if __name__ == "__main__":
    main()
