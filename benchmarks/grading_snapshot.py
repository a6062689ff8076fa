"""Same grades before and after a change: a snapshot of what the grader writes, and a diff.

``python -m benchmarks.grading_snapshot write SNAPSHOT.json [--per-notebook N]`` grades,
through the command line only (``python -m autograder``), the demo class and the benchmark
batch (``benchmarks.bench_grading``'s: ``--per-notebook`` submissions of every notebook,
default 12) with the sandbox and trusted re-check on, and writes what came out: every
submission's per-test scores, flags and status (``results.json``), the rows of
``grades.csv``, ``summary.md``, and each feedback page (its text with timestamps and temporary paths
normalised, as the sorted list of its tags and text runs: where the kernel flushed a cell's
output in two pieces, and the order in which its stdout and stderr pieces arrive, depend on
timing, so they are not compared). ``--keep DIR`` keeps
the graded folders for a closer look. The feedback pages use MathJax from ``node_modules``
when ``./run`` has installed it, from a CDN otherwise: compare runs made the same way.

``python -m benchmarks.grading_snapshot compare BEFORE.json AFTER.json`` prints every
difference and exits 1 when there is one, 0 when the two runs graded identically.

A refactor of ``autograder/`` writes a snapshot on the commit before and on the commit after
(a ``git worktree`` of the old commit runs this same file) and compares them.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import io
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks.environment import child_env

# the checkout a run was made from, as it appears in tracebacks (linlib/, autograder/, .venv/)
_CHECKOUT = re.compile(r"(?:/[^/\s\"'<>:=]+)+/(?=(?:linlib|autograder|\.venv)/)")
# where the kernel flushed a cell's stdout in two pieces, nbconvert shows two output areas
_STREAM_SEAM = re.compile(
    r"</pre>\s*</div>\s*</div>\s*<div class=\"output_area\">\s*<div class=\"prompt\">\s*"
    r"</div>\s*<div class=\"output_subarea output_stream output_(std\w+) output_text\">\s*<pre>"
)
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d+)?([+-]\d{2}:?\d{2}|Z)?")


def _autograder(*args: str, cwd: Path) -> None:
    command = [sys.executable, "-m", "autograder", *args]
    if args[0] != "release":
        command.append("--no-progress")
    proc = subprocess.run(command, cwd=cwd, env=child_env(), capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(args[:1])} failed ({proc.returncode}): {proc.stderr[-2000:]}")


def _normalise(text: str, root: Path) -> str:
    text = text.replace(str(root.resolve()), "<ROOT>").replace(str(root), "<ROOT>")
    text = _CHECKOUT.sub("<CHECKOUT>/", text)
    return _TIMESTAMP.sub("<TIME>", text)


def _outputs(out_dir: Path, root: Path) -> dict[str, Any]:
    results = json.loads((out_dir / "results.json").read_text())
    rows = list(csv.DictReader(io.StringIO((out_dir / "grades.csv").read_text())))
    for row in rows:
        for key in list(row):
            if "timestamp" in key:
                row[key] = "<TIME>"
    feedback = {}
    for page in sorted((out_dir / "feedback").rglob("*.html")):
        text = _normalise(page.read_text(encoding="utf-8", errors="replace"), root)
        text = _STREAM_SEAM.sub("", text)
        pieces = sorted(piece.strip() for piece in text.replace(">", ">\n").splitlines())
        digest = hashlib.sha256("\n".join(pieces).encode()).hexdigest()
        feedback[str(page.relative_to(out_dir))] = digest
    return {
        "results": json.loads(_normalise(json.dumps(results, sort_keys=True), root)),
        "grades.csv": rows,
        "summary.md": _normalise((out_dir / "summary.md").read_text(), root),
        "feedback": feedback,
    }


def write(path: Path, per_notebook: int, keep: Path | None = None) -> None:
    from benchmarks.bench_grading import build_batch

    with tempfile.TemporaryDirectory(prefix="grading-snapshot-") as tmp:
        root = Path(tmp) if keep is None else keep
        root.mkdir(parents=True, exist_ok=True)
        _autograder("demo", "--course", "demo-course", "--out", "demo-out", cwd=root)
        course = root / "batch-course" / "course"
        _autograder("release", "--course", str(course), cwd=root)
        assignments = sorted(p.name for p in (course / "release").iterdir() if p.is_dir())
        batch = build_batch(course, assignments, per_notebook)
        _autograder("grade", str(batch), "--course", str(course), "--out", "batch-out", cwd=root)
        save(root, path)


def save(root: Path, path: Path) -> None:
    """Write the snapshot of the graded folders in *root* (``write``'s or ``--keep``'s)."""
    snapshot = {
        "demo": _outputs(root / "demo-out", root),
        "batch": _outputs(root / "batch-out", root),
    }
    path.write_text(json.dumps(snapshot, indent=1, sort_keys=True) + "\n")
    print(f"wrote {path}")


def _diff(before: Any, after: Any, where: str, out: list[str]) -> None:
    if isinstance(before, dict) and isinstance(after, dict):
        for key in sorted(set(before) | set(after), key=str):
            if key not in after:
                out.append(f"{where}/{key}: only before")
            elif key not in before:
                out.append(f"{where}/{key}: only after")
            else:
                _diff(before[key], after[key], f"{where}/{key}", out)
    elif isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        for i, (b, a) in enumerate(zip(before, after, strict=True)):
            _diff(b, a, f"{where}[{i}]", out)
    elif before != after:
        out.append(f"{where}: {json.dumps(before)[:300]} -> {json.dumps(after)[:300]}")


def compare(before_path: Path, after_path: Path) -> int:
    before = json.loads(before_path.read_text())
    after = json.loads(after_path.read_text())
    differences: list[str] = []
    _diff(before, after, "", differences)
    for line in differences:
        print(line)
    counts = {
        part: len(after[part]["results"].get("submissions", after[part]["results"]))
        for part in after
    }
    if differences:
        print(f"{len(differences)} difference(s)")
        return 1
    print(f"identical: scores, flags, grades.csv, summary.md and feedback ({counts})")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.grading_snapshot")
    sub = parser.add_subparsers(dest="command", required=True)
    w = sub.add_parser("write", help="grade the demo class and the benchmark batch; save")
    w.add_argument("snapshot", type=Path)
    w.add_argument("--per-notebook", type=int, default=12)
    w.add_argument("--keep", type=Path, help="grade in this folder and keep it")
    k = sub.add_parser("save", help="snapshot a folder kept by write --keep (no grading)")
    k.add_argument("kept", type=Path)
    k.add_argument("snapshot", type=Path)
    c = sub.add_parser("compare", help="print the differences between two snapshots")
    c.add_argument("before", type=Path)
    c.add_argument("after", type=Path)
    args = parser.parse_args(argv)
    if args.command == "write":
        keep = args.keep.resolve() if args.keep else None
        write(args.snapshot.resolve(), args.per_notebook, keep)
        return 0
    if args.command == "save":
        save(args.kept.resolve(), args.snapshot.resolve())
        return 0
    return compare(args.before, args.after)


if __name__ == "__main__":
    sys.exit(main())
