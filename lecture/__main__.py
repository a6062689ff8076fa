"""``python -m lecture build [--out DIR]``: the course site and the slide decks, offline."""

from __future__ import annotations

import argparse
import shutil
import sys
import time
from collections.abc import Sequence
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from course_common.assets import AssetsMissing
from lecture._notebooks import NOTEBOOKS_DIR, ROOT, course_notebooks
from lecture.decks import DECKS_FOLDER, prepare_decks_folder, write_deck
from lecture.site import build_site


def build(out: Path, notebooks_dir: Path = NOTEBOOKS_DIR, workers: int = 2) -> tuple[int, int]:
    """Build the site and the decks into *out* (replaced); returns (pages, decks).

    The site (one Sphinx run) and the decks (one nbconvert export each) are independent:
    they run side by side in *workers* processes.
    """
    work = out.parent / f".{out.name}-work"
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    slides = out / DECKS_FOLDER
    prepare_decks_folder(slides)
    notebooks = course_notebooks(notebooks_dir)
    with ProcessPoolExecutor(max_workers=workers) as pool:
        site = pool.submit(build_site, out, work, notebooks_dir)
        decks = [pool.submit(write_deck, path, slides) for path in notebooks]
        pages = len(site.result()) + 1
        return pages, len([deck.result() for deck in decks])


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
