"""Shared by the fault tests (``test_api_faults.py``): a small class of real submissions of
one assignment with its expected scores (from the source notebook's points and each sample
answer's ``lost`` tests, not from a grading run), the command line in a subprocess, the
checks that a run's outputs are complete and correct, and small disks (tmpfs) in a private
mount namespace, so nothing is mounted on the machine itself."""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import nbformat

from autograder.course import Course
from autograder.notebook import notebook_bytes
from autograder.release import ensure_released
from autograder.samples import VARIANTS, make_submission
from course_common.paths import REPO_ROOT
from tests.needs import sandbox_args

ASSIGNMENT = "01_hyperplanes"
SANDBOX_ARGS = sandbox_args()
#: student -> the sample answer handed in (None: the instructor's solution)
FIRST = {"full": None, "forgets_bias": "activation_forgets_bias", "tie": "predict_tie_is_positive"}
#: a resubmission: another bug, in another exercise
SECOND = {**FIRST, "forgets_bias": "signed_distance_unsigned"}
#: what an output folder holds, besides feedback/
OUTPUTS = ("results.json", "grades.csv", "summary.md")


def points(source: Path) -> dict[str, float]:
    """grade id -> points of every autograded test cell of a source notebook."""
    out = {}
    for cell in nbformat.read(source, as_version=4).cells:
        meta = cell.metadata.get("nbgrader", {})
        if meta.get("grade") and not meta.get("solution") and cell.cell_type == "code":
            out[meta["grade_id"]] = float(meta["points"])
    return out


@dataclass
class SampleClass:
    """A class of submissions in nbgrader's layout, and what each student must score."""

    folder: Path
    release_nb: Path
    source_nb: Path
    points: dict[str, float]
    answers: dict[str, str | None] = field(default_factory=dict)

    def hand_in(self, answers: dict[str, str | None]) -> None:
        """Write (or replace) each student's notebook: the instructor's solution, or the
        named sample answer of :mod:`autograder.samples`."""
        variants = {v.name: v for v in VARIANTS[ASSIGNMENT]}
        for student, name in answers.items():
            replace = variants[name].replace if name else None
            nb = make_submission(self.release_nb, self.source_nb, replace)
            target = self.folder / student / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(notebook_bytes(nb))
        self.answers = dict(answers)

    def expected(self) -> dict[str, dict[str, float]]:
        """student -> grade id -> the score it must get."""
        variants = {v.name: v for v in VARIANTS[ASSIGNMENT]}
        out = {}
        for student, name in self.answers.items():
            lost = variants[name].lost if name else frozenset()
            out[student] = {gid: 0.0 if gid in lost else p for gid, p in self.points.items()}
        return out


def sample_class(root: Path, answers: dict[str, str | None] = FIRST) -> SampleClass:
    """The class under ``root/submissions``, from a release made in ``root/scratch``."""
    scratch = Course(root / "scratch")
    ensure_released(scratch, [ASSIGNMENT], zips=False)
    release_nb = scratch.root / "release" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    source_nb = scratch.root / "source" / ASSIGNMENT / f"{ASSIGNMENT}.ipynb"
    found = SampleClass(root / "submissions", release_nb, source_nb, points(source_nb))
    found.hand_in(answers)
    return found


def cli_command(*args: str | os.PathLike) -> list[str]:
    """``python -m autograder ARGS`` (sandboxed when this machine can)."""
    command = [sys.executable, "-m", "autograder", *map(str, args)]
    if args and args[0] in ("grade", "demo"):
        command += SANDBOX_ARGS
    return command


def environment(tmpdir: Path | None = None) -> dict[str, str]:
    """The command line's environment; ``tmpdir``: its temporary folder (``TMPDIR``)."""
    env = dict(os.environ, PYTHONPATH=str(REPO_ROOT))
    env.pop("COLUMNS", None)
    if tmpdir is not None:
        env["TMPDIR"] = str(tmpdir)
    return env


def run_cli(
    *args: str | os.PathLike,
    cwd: Path,
    prefix: list[str] | None = None,
    timeout=900,
    tmpdir: Path | None = None,
    env: dict[str, str] | None = None,
):
    """Run the command line (optionally under ``prefix``, e.g. nsenter; with ``tmpdir`` as
    its temporary folder; ``env``: its environment instead of :func:`environment`'s);
    returns the CompletedProcess (text)."""
    return subprocess.run(
        [*(prefix or []), *cli_command(*args)],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env if env is not None else environment(tmpdir),
        timeout=timeout,
    )


#: What the grader's temporary folders are named (a warm box, a sandbox, a Dask worker's
#: course), as an instructor finds them in the system's temporary folder.
GRADER_TEMP = ("ag-*", "autograde-*")


def temp_leftovers(tmpdir: Path) -> list[Path]:
    """The grader's temporary folders in ``tmpdir``, sorted."""
    return sorted(folder for pattern in GRADER_TEMP for folder in tmpdir.glob(pattern))


def described(folders: list[Path]) -> str:
    """Each folder with what it holds (for a failing test's message)."""
    return "\n".join(
        f"{folder.name}: {sorted(p.relative_to(folder).as_posix() for p in folder.rglob('*'))[:12]}"
        for folder in folders
    )


def one_line_error(stderr: str) -> str:
    """The command line's error: its last stderr line, which must be the only line that is
    not a note or the progress bar (no traceback)."""
    lines = [line for line in stderr.splitlines() if line.strip()]
    assert lines, "no message on stderr"
    assert "Traceback" not in stderr, stderr[-3000:]
    assert lines[-1].startswith("python -m autograder: error: "), stderr[-3000:]
    return lines[-1]


#: The line ``grade`` starts its stderr with: the course folder it uses.
COURSE_LINE = re.compile(r"course folder: .+/ \((new|existing)\)")


def refusal(stderr: str) -> str:
    """A command refused for bad input, from its stderr: the one line of the refusal and
    nothing else (no traceback), after ``grade``'s course folder line when it got that
    far; returns that line."""
    lines = stderr.strip().splitlines()
    if len(lines) > 1 and COURSE_LINE.fullmatch(lines[0]):
        lines = lines[1:]
    assert len(lines) == 1, stderr[-3000:]
    return lines[0]


def snapshot(out: Path) -> dict[str, bytes]:
    """Every file under ``out`` (relative path -> bytes)."""
    if not out.is_dir():
        return {}
    return {
        p.relative_to(out).as_posix(): p.read_bytes() for p in sorted(out.rglob("*")) if p.is_file()
    }


def assert_old_or_new(mid: dict[str, bytes], old: dict[str, bytes], new: dict[str, bytes]):
    """Each file of ``mid`` (outputs after a fault) is exactly its old or its new version
    (or absent, where the old run had none); no temporary file is left but hidden ones
    (a writer killed between writing and renaming leaves its own, nothing else)."""
    for name, content in mid.items():
        if Path(name).name.startswith("."):
            assert name.endswith(".tmp"), name
            continue
        assert name in old or name in new, f"{name}: neither an old nor a new output"
        assert content in (old.get(name), new.get(name)), (
            f"{name} is torn: {len(content)} bytes, neither the old "
            f"({len(old.get(name, b''))} bytes) nor the new ({len(new.get(name, b''))} bytes)"
        )
    for name in old:
        if name not in mid and not name.startswith("feedback/_mathjax"):
            # a page of the old run may only go when the new run has none for it
            assert name not in new, f"{name} was lost: neither the old nor the new file"


def grade_rows(out: Path) -> dict[str, dict[str, str]]:
    """grades.csv of the output folder ``out``, a run of one assignment: student id -> row."""
    with (out / "grades.csv").open(newline="", encoding="utf-8") as fh:
        return {row["student_id"]: row for row in csv.DictReader(fh)}


def assert_complete(out: Path, sample: SampleClass) -> None:
    """The class's grades in ``out`` are complete and correct: every student, every test
    scored as expected, nothing flagged as not graded, a whole feedback page each."""
    expected = sample.expected()
    data = json.loads((out / "results.json").read_text(encoding="utf-8"))
    got = {s["student"]: s for s in data["submissions"]}
    assert sorted(got) == sorted(expected)
    for student, tests in expected.items():
        entry = got[student]
        assert entry["ok"], (student, entry["flags"])
        assert not [f for f in entry["flags"] if "graded" in f], (student, entry["flags"])
        assert {g: t["score"] for g, t in entry["tests"].items()} == tests, student
    rows = grade_rows(out)
    assert sorted(rows) == sorted(expected)
    for student, tests in expected.items():
        assert float(rows[student]["raw_score"]) == sum(tests.values()), student
        assert rows[student]["flags"] == "", (student, rows[student]["flags"])
        page = out / "feedback" / student / ASSIGNMENT / f"{ASSIGNMENT}.html"
        assert page.read_text(encoding="utf-8").rstrip().endswith("</html>"), page
    assert (out / "summary.md").read_text(encoding="utf-8").startswith("## Grading summary")


def ledger_entries(course: Path) -> list[dict]:
    path = course / "ledger.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]


def assert_ledger_holds_only_earned(course: Path, sample: SampleClass) -> None:
    """Every result in the ledger is what the notebook earned: graded, no failure flagged,
    the scores of one of the notebooks that student handed in (:data:`FIRST`,
    :data:`SECOND`)."""
    variants = {v.name: v for v in VARIANTS[ASSIGNMENT]}
    for entry in ledger_entries(course):
        result = entry["result"]
        assert result["ok"] and not result["error"], entry
        assert not [f for f in result["flags"] if "graded" in f], entry
        handed_in = {FIRST[entry["student"]], SECOND[entry["student"]]}
        allowed = [variants[n].lost if n else frozenset() for n in handed_in]
        scores = {g: s for g, (s, _) in result["scores"].items()}
        assert any(
            scores == {g: 0.0 if g in lost else p for g, p in sample.points.items()}
            for lost in allowed
        ), entry


# --------------------------------------------------------------------------- small disks


class MountNamespace:
    """A private mount namespace (``unshare -m``) held open by a sleeping process: tmpfs
    disks are mounted in it, commands run in it (``nsenter``), and its files are read and
    written from outside through ``/proc/<pid>/root``. It dies with the test process, so no
    mount outlives the test."""

    def __init__(self) -> None:
        if os.geteuid() != 0 or not (shutil.which("unshare") and shutil.which("nsenter")):
            raise RuntimeError("needs root, unshare and nsenter")
        keeper = (
            "import ctypes, signal, sys; ctypes.CDLL(None).prctl(1, signal.SIGKILL); "
            "sys.stdout.write('ready\\n'); sys.stdout.flush(); signal.pause()"
        )
        self.process = subprocess.Popen(
            ["unshare", "-m", "--propagation", "private", sys.executable, "-c", keeper],
            stdout=subprocess.PIPE,
            text=True,
        )
        if self.process.stdout.readline().strip() != "ready":
            raise RuntimeError("unshare -m failed")

    @property
    def prefix(self) -> list[str]:
        return ["nsenter", "-t", str(self.process.pid), "-m", "--"]

    def mount_tmpfs(self, path: Path, size_kb: int) -> None:
        path.mkdir(parents=True, exist_ok=True)
        subprocess.run(
            [*self.prefix, "mount", "-t", "tmpfs", "-o", f"size={size_kb}k", "tmpfs", str(path)],
            check=True,
        )

    def resize(self, path: Path, size_kb: int) -> None:
        """Give the tmpfs mounted at ``path`` another size (its files stay)."""
        subprocess.run(
            [*self.prefix, "mount", "-o", f"remount,size={size_kb}k", str(path)], check=True
        )

    def view(self, path: Path) -> Path:
        """``path`` as this namespace sees it (for reading and writing from outside)."""
        return Path(f"/proc/{self.process.pid}/root{Path(path).resolve()}")

    def fill(self, path: Path, leave_kb: int) -> Path:
        """Fill the disk of ``path`` with a ballast file, leaving ``leave_kb`` KiB free."""
        stats = os.statvfs(self.view(path))
        free = stats.f_bavail * stats.f_frsize
        ballast = self.view(path) / "ballast"
        with ballast.open("wb") as fh:
            fh.truncate(0)
            chunk = b"\0" * (1 << 16)
            remaining = free - leave_kb * 1024
            while remaining > 0:
                remaining -= fh.write(chunk[: min(len(chunk), remaining)])
        return ballast

    def close(self) -> None:
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


def wait_for(condition, timeout: float, what: str, step: float = 0.05):
    """Poll ``condition()`` until it returns something true; returns it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"timed out waiting for {what}")
