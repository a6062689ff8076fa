"""``python -m lecture build [--out DIR]``: the course site and the slide decks, offline."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Sequence
from pathlib import Path

from lecture._notebooks import ROOT
from lecture.assets import AssetsMissing
from lecture.decks import build_decks
from lecture.site import build_site


def build(out: Path) -> tuple[int, int]:
    """Build the site and the decks into *out* (replaced); returns (pages, decks)."""
    work = out.parent / f".{out.name}-work"
    if out.exists():
        shutil.rmtree(out)
    notebooks = build_site(out, work)
    decks = build_decks(out / "slides")
    return len(notebooks) + 1, len(decks)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m lecture", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    build_cmd = sub.add_parser("build", help="build the site and the decks")
    build_cmd.add_argument("--out", type=Path, default=ROOT / "build" / "lecture")
    args = parser.parse_args(argv)
    start = time.perf_counter()
    try:
        pages, decks = build(args.out)
    except AssetsMissing as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    shown = args.out.resolve()
    shown = shown.relative_to(Path.cwd()) if shown.is_relative_to(Path.cwd()) else args.out
    seconds = time.perf_counter() - start
    print(f"{pages} pages and {decks} decks in {shown}/ ({seconds:.1f} s)")
    print(f"view offline: open {shown}/index.html, or serve it: python -m http.server -d {shown}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
