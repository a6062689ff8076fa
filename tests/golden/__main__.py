"""``python -m tests.golden [--update] [--out DIR]``: grade the demo class (sandboxed, as
the test does) and compare its outputs with the record; ``--update`` writes the record
instead (on purpose: the diff shows in review). Exit 0 when they match (or were written),
1 when they differ."""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from tests.golden import RECORD, differences, grade_demo, run_files, write_record


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.golden", description=__doc__)
    parser.add_argument(
        "--update", action="store_true", help="write the record from this run (on purpose)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        metavar="DIR",
        help="grade into DIR (an empty or new folder) and keep it (default: a temporary one)",
    )
    args = parser.parse_args(argv)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        if any(args.out.iterdir()):
            parser.error(f"{args.out} is not empty")
        return _run(args.out, args.update)
    with tempfile.TemporaryDirectory(prefix="golden-") as root:
        return _run(Path(root), args.update)


def _run(root: Path, update: bool) -> int:
    out, course = grade_demo(root)
    files = run_files(out, course)
    if update:
        write_record(files)
        print(f"wrote {RECORD.name} and its texts: {len(files)} files")
        return 0
    report = differences(files)
    print(report or f"the demo class's {len(files)} outputs match {RECORD.name}")
    return 1 if report else 0


if __name__ == "__main__":
    sys.exit(main())
