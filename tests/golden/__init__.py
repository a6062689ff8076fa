"""The demo class's outputs, byte for byte: a record of what ``python -m autograder demo``
writes, so that a change meant to leave the grader's behaviour alone (a refactoring, a
speed-up) is seen to change no score, flag, feedback page or report.

The record, refreshed only on purpose (its diff shows in review):

- ``demo_class.sha256``: one line per output file, ``<sha256>  <path>`` (the path relative
  to the run's output folder), every file the run writes but ``feedback/_mathjax/`` (a copy
  of the npm package ``package-lock.json`` pins); and one line ``course:gradebook.json``:
  the gradebook's contents (:func:`gradebook_dump`: every student, assignment, submission,
  grade and comment by name, without nbgrader's random row ids);
- ``demo_class.json.xz``: the same files as text (the feedback pages' embedded images
  replaced by their digests: about 150 kB instead of 12 MB), only to show *what* changed
  when a digest differs: a unified diff of the first file that differs.

Refresh it (after a change that is meant to change an output, say which in the commit)::

    ./run python -m tests.golden --update

``./run python -m tests.golden`` grades the class and compares it without writing anything;
``--out DIR`` keeps the run's outputs there (to diff two runs by hand). The test,
``tests/golden/test_golden.py``, runs the same comparison in the slow tier.

How it is graded: as CI does, the command line ``python -m autograder demo`` in the grading
sandbox (the diagnoses of failed exercises come from the sandbox's re-check, so an
``--unsandboxed`` run differs, by design), with two workers, MathJax installed (``./run``
installs it: without it the pages load MathJax from a CDN and differ), in a fresh temporary
folder (the folder's path must appear in no output). Nothing of a run depends on the wall
clock (the demo's submission times are fixed in ``autograder/samples/demo.py``), the order in
which workers finish or the machine's speed: consecutive stream outputs are merged
(``autograder.grading.preprocessors.CoalesceStreams``), the kernel's folder of cell files is
hidden like the grader's folders, and no page carries a duration.

Every byte but the figures' is asserted the same on any machine. A figure is compared by
its size and its fingerprint (``demo_class.images.json.xz``: each channel's mean over
blocks of :data:`BLOCK` × :data:`BLOCK` pixels, :func:`fingerprint`), equal when no block
mean differs by more than :data:`TOLERANCE` of 255: the same figure rendered on another CPU
differs by a pixel's anti-aliasing (floating-point noise in the last bits of the plotted
values: on an AMD EPYC without AVX-512, one pixel of notebook 03's figure of the proof's
three steps differs from the record made on another machine), which moves a block's mean by
less than 1; a figure of other data (a student's bug plotted, a point moved, another colour)
moves many blocks by far more.
"""

from __future__ import annotations

import base64
import difflib
import hashlib
import io
import json
import lzma
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
#: The digests of the demo class's outputs.
RECORD = HERE / "demo_class.sha256"
#: The same outputs as text (images as digests), to show a difference.
TEXTS = HERE / "demo_class.json.xz"
#: The figures' sizes and fingerprints, per output (in the order they appear in it).
IMAGES = HERE / "demo_class.images.json.xz"
#: The side of a fingerprint's square block of pixels.
BLOCK = 16
#: The largest difference of a block's mean (of 255) between two renderings of one figure.
TOLERANCE = 2
#: The gradebook's contents, as a line of the record (not a file of the output folder).
GRADEBOOK = "course:gradebook.json"
#: Left out: a copy of the pinned npm package MathJax, beside the feedback pages.
SKIPPED = ("feedback/_mathjax/",)
#: The grading workers (the outputs do not depend on it; the record was made with it).
WORKERS = 2

_IMAGE = re.compile(r"data:image/[a-z+.-]+;base64,[A-Za-z0-9+/=\s]+")
_IMAGE_DIGEST = re.compile(r"data:image;sha256,[0-9a-f]{64}")
#: What an embedded image is replaced by in the digest of its file: the figures are held to
#: the record by their fingerprints, the rest of the file byte for byte.
_PLACEHOLDER = "data:image;fingerprinted"
_DIFF_LINES = 120


def grade_demo(root: Path, *, timeout: float = 1800) -> tuple[Path, Path]:
    """Grade the demo class through the command line into ``root/out`` (course folder
    ``root/course``), in the sandbox; returns (output folder, course folder). Raises
    ``RuntimeError`` with the command's output when it fails."""
    root = Path(root)
    command = [sys.executable, "-m", "autograder", "demo", "--course", "course", "--out", "out"]
    command += ["--workers", str(WORKERS), "--no-progress"]
    env = dict(os.environ, PYTHONPATH=str(REPO))
    env.pop("COLUMNS", None)
    proc = subprocess.run(
        command, cwd=root, env=env, capture_output=True, text=True, timeout=timeout
    )
    if proc.returncode != 0:
        raise RuntimeError(
            f"{' '.join(command[1:])} failed (exit {proc.returncode}):\n"
            f"{proc.stdout[-3000:]}\n{proc.stderr[-3000:]}"
        )
    return root / "out", root / "course"


def output_files(out: Path) -> dict[str, bytes]:
    """Every file of the output folder (but :data:`SKIPPED`), by its path relative to it."""
    files = {}
    for path in sorted(Path(out).rglob("*")):
        name = path.relative_to(out).as_posix()
        if path.is_file() and not name.startswith(SKIPPED):
            files[name] = path.read_bytes()
    return files


def gradebook_dump(course: Path) -> bytes:
    """The course's gradebook (SQLite) as canonical JSON: the students; per assignment its
    due date and, per submission, its time and extension, and per notebook its late
    penalty, flag, grades (auto, manual, extra credit, needs manual grade, max score) and
    comments; sorted by name, without nbgrader's row ids (random)."""
    from nbgrader.api import Gradebook

    def when(moment: object) -> str | None:
        return None if moment is None else str(moment)

    url = f"sqlite:///{Path(course).resolve() / 'gradebook.db'}"
    with Gradebook(url) as gb:
        students = sorted(
            [s.id, s.first_name, s.last_name, s.email, s.lms_user_id] for s in gb.students
        )
        assignments = {}
        for assignment in sorted(gb.assignments, key=lambda a: a.name):
            submissions = {}
            for sub in sorted(gb.assignment_submissions(assignment.name), key=_student):
                notebooks = {}
                for nb in sorted(sub.notebooks, key=lambda n: n.name):
                    notebooks[nb.name] = {
                        "late_submission_penalty": nb.late_submission_penalty,
                        "flagged": nb.flagged,
                        "grades": {
                            g.name: {
                                "cell_type": g.cell_type,
                                "auto_score": g.auto_score,
                                "manual_score": g.manual_score,
                                "extra_credit": g.extra_credit,
                                "needs_manual_grade": g.needs_manual_grade,
                                "max_score": g.max_score,
                            }
                            for g in sorted(nb.grades, key=lambda g: g.name)
                        },
                        "comments": {
                            c.name: {"auto": c.auto_comment, "manual": c.manual_comment}
                            for c in sorted(nb.comments, key=lambda c: c.name)
                        },
                    }
                submissions[sub.student_id] = {
                    "timestamp": when(sub.timestamp),
                    "extension": when(sub.extension),
                    "notebooks": notebooks,
                }
            assignments[assignment.name] = {
                "duedate": when(assignment.duedate),
                "submissions": submissions,
            }
    data = {"students": students, "assignments": assignments}
    return (json.dumps(data, indent=1, sort_keys=True, ensure_ascii=False) + "\n").encode()


def _student(submission: object) -> str:
    return str(getattr(submission, "student_id", ""))


def run_files(out: Path, course: Path) -> dict[str, bytes]:
    """What the record covers of a run: its output files and the gradebook's dump."""
    files = output_files(out)
    files[GRADEBOOK] = gradebook_dump(course)
    return files


def digest(content: bytes) -> str:
    return hashlib.sha256(content).hexdigest()


def as_text(content: bytes) -> str:
    """A file's text as the record keeps it (embedded images replaced by their digests)."""
    text = content.decode("utf-8", errors="replace")
    return _IMAGE.sub(lambda m: f"data:image;sha256,{digest(m.group(0).encode())}", text)


def file_digest(content: bytes) -> str:
    """The record's digest of a file: of its bytes, or, for a file with embedded images, of
    its text with each image replaced by one placeholder (its figures are compared by
    :func:`fingerprint`)."""
    if not _IMAGE.search(content.decode("utf-8", errors="replace")):
        return digest(content)
    return text_digest(as_text(content))


def text_digest(text: str) -> str:
    """:func:`file_digest` of a file from its recorded text (:func:`as_text`)."""
    return digest(_IMAGE_DIGEST.sub(_PLACEHOLDER, text).encode("utf-8"))


def fingerprint(uri: str) -> dict[str, object]:
    """An embedded image (a ``data:`` URI) as the record compares it: its size, and each
    channel's mean over blocks of :data:`BLOCK` × :data:`BLOCK` pixels (RGBA, rounded to
    the byte; the last row and column of blocks cover what is left), base64."""
    import numpy as np
    from PIL import Image

    data = base64.b64decode(uri.split(",", 1)[1])
    with Image.open(io.BytesIO(data)) as image:
        pixels = np.asarray(image.convert("RGBA"), dtype=np.float64)
    height, width = pixels.shape[:2]
    rows, cols = -(-height // BLOCK), -(-width // BLOCK)
    padded = np.full((rows * BLOCK, cols * BLOCK, 4), np.nan)
    padded[:height, :width] = pixels
    means = np.nanmean(padded.reshape(rows, BLOCK, cols, BLOCK, 4), axis=(1, 3))
    blocks = np.rint(means).astype(np.uint8)
    return {"size": [width, height], "blocks": base64.b64encode(blocks.tobytes()).decode()}


def fingerprints(content: bytes) -> list[dict[str, object]]:
    """The fingerprints of a file's embedded images, in the order they appear."""
    text = content.decode("utf-8", errors="replace")
    return [fingerprint("".join(m.group(0).split())) for m in _IMAGE.finditer(text)]


def image_difference(recorded: dict[str, object], seen: dict[str, object]) -> int | None:
    """How far apart two fingerprints are: the largest difference of a block's mean (of
    255), None when the images are not of one size."""
    import numpy as np

    if recorded["size"] != seen["size"]:
        return None
    a = np.frombuffer(base64.b64decode(str(recorded["blocks"])), dtype=np.uint8)
    b = np.frombuffer(base64.b64decode(str(seen["blocks"])), dtype=np.uint8)
    if a.shape != b.shape:
        return None
    return int(np.max(np.abs(a.astype(int) - b.astype(int)), initial=0))


def read_record(path: Path = RECORD) -> dict[str, str]:
    """The record: path -> sha256."""
    record = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line and not line.startswith("#"):
            sha, name = line.split("  ", 1)
            record[name] = sha
    return record


def read_texts(path: Path = TEXTS) -> dict[str, str]:
    """The recorded files as text (path -> :func:`as_text`)."""
    return json.loads(lzma.decompress(path.read_bytes()).decode("utf-8"))


def read_images(path: Path = IMAGES) -> dict[str, list[dict[str, object]]]:
    """The recorded figures: path -> their fingerprints (:func:`fingerprint`)."""
    return json.loads(lzma.decompress(path.read_bytes()).decode("utf-8"))


def _write_xz(path: Path, value: object) -> None:
    data = json.dumps(value, indent=0, sort_keys=True, ensure_ascii=False).encode("utf-8")
    path.write_bytes(lzma.compress(data, preset=9 | lzma.PRESET_EXTREME))


def write_record(files: dict[str, bytes]) -> None:
    """Write :data:`RECORD`, :data:`TEXTS` and :data:`IMAGES` for ``files`` (deterministic
    bytes: the same run gives the same files)."""
    lines = [
        "# The demo class's outputs, sha256 per file (tests/golden/__init__.py says what and",
        "# how); refresh on purpose: ./run python -m tests.golden --update",
    ]
    lines += [f"{file_digest(content)}  {name}" for name, content in sorted(files.items())]
    RECORD.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _write_xz(TEXTS, {name: as_text(content) for name, content in sorted(files.items())})
    images = {name: fingerprints(content) for name, content in sorted(files.items())}
    _write_xz(IMAGES, {name: found for name, found in images.items() if found})


def differences(
    files: dict[str, bytes],
    record: dict[str, str] | None = None,
    images: dict[str, list[dict[str, object]]] | None = None,
) -> str:
    """What differs between a run's ``files`` and the record, as a report ("" when nothing
    does): the files missing, new or changed (a file's bytes but its figures, or a figure
    beyond :data:`TOLERANCE`), then a unified diff of the first changed file (from
    :data:`TEXTS`)."""
    record = read_record() if record is None else record
    images = read_images() if images is None else images
    missing = sorted(set(record) - set(files))
    new = sorted(set(files) - set(record))
    both = sorted(set(files) & set(record))
    changed = [n for n in both if file_digest(files[n]) != record[n]]
    figures: dict[str, str] = {}  # name -> how its figures differ
    for name in both:
        seen = fingerprints(files[name])
        recorded = images.get(name, [])
        if len(seen) != len(recorded):
            figures[name] = f"{len(seen)} figures, {len(recorded)} recorded"
            continue
        for index, (old, now) in enumerate(zip(recorded, seen, strict=True), start=1):
            apart = image_difference(old, now)
            if apart is None:
                figures[name] = f"figure {index}: {now['size']} pixels, {old['size']} recorded"
                break
            if apart > TOLERANCE:
                figures[name] = (
                    f"figure {index}: a block's mean differs by {apart} of 255 (at most "
                    f"{TOLERANCE} is a rendering's anti-aliasing)"
                )
                break
    changed = sorted(set(changed) | set(figures))
    if not (missing or new or changed):
        return ""
    lines = [
        f"the demo class's outputs differ from the record ({RECORD.name}): "
        f"{len(changed)} changed, {len(missing)} missing, {len(new)} new"
    ]
    lines += [f"  changed: {n}" + (f" ({figures[n]})" if n in figures else "") for n in changed]
    lines += [f"  missing: {n}" for n in missing]
    lines += [f"  new:     {n}" for n in new]
    if changed:
        name = changed[0]
        old = read_texts().get(name)
        if old is None:
            lines.append(f"(no text of {name} in {TEXTS.name}: refresh both together)")
        else:
            diff = list(
                difflib.unified_diff(
                    old.splitlines(),
                    as_text(files[name]).splitlines(),
                    f"recorded/{name}",
                    f"this run/{name}",
                    lineterm="",
                    n=2,
                )
            )
            more = len(diff) - _DIFF_LINES
            lines += [""] + [line[:300] for line in diff[:_DIFF_LINES]]
            if more > 0:
                lines.append(f"... {more} more lines of the diff")
            if not diff:
                lines.append(f"(the text of {name} is the same: its bytes differ)")
    lines += [
        "",
        "If the change is meant to change these outputs, refresh the record on purpose and "
        "say why in the commit: ./run python -m tests.golden --update",
    ]
    return "\n".join(lines)
