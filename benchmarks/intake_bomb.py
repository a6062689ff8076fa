"""Peak memory of the grader's intake on a zip bomb: ``python -m benchmarks.intake_bomb``.

Builds, in a temporary folder, a Canvas zip holding two honest notebooks, a member of
1 GiB of zeros (deflated to about 1 MiB: skipped for its size and ratio before it is read)
and a member of 1 GiB of zeros whose headers declare 1,000 bytes (read in capped chunks and
given up at the lie), then reads it with :func:`autograder.intake.read_submissions` in a
fresh process and prints the peak resident memory above that process's baseline (its
imports done; the peak is reset there through /proc/self/clear_refs where Linux allows
it). The bound the tests hold it to is :data:`BOUND_MIB`.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Mapping, Sequence
from pathlib import Path

MIB = 1024 * 1024
BOMB_BYTES = 1024 * MIB
LIE_BYTES = 1000
BOUND_MIB = 200
ASSIGNMENT = "01_hyperplanes"


def declare_size(path: Path, name: str, declared: int) -> None:
    """Make the local header and the central-directory record of member ``name`` of the
    zip at ``path`` declare ``declared`` uncompressed bytes (a lie, for the tests)."""
    data = bytearray(path.read_bytes())
    encoded = name.encode()
    for signature, size_at, name_at in ((b"PK\x03\x04", 22, 30), (b"PK\x01\x02", 24, 46)):
        at = data.find(signature)
        while at >= 0 and data[at + name_at : at + name_at + len(encoded)] != encoded:
            at = data.find(signature, at + 1)
        if at < 0:
            raise ValueError(f"no {signature!r} header for {name!r} in the zip")
        data[at + size_at : at + size_at + 4] = declared.to_bytes(4, "little")
    path.write_bytes(bytes(data))


def write_bomb_zip(
    path: Path,
    honest: Mapping[str, bytes],
    *,
    bombs: Sequence[str] = (),
    liar: str | None = None,
    bomb_bytes: int = BOMB_BYTES,
) -> Path:
    """A zip of the ``honest`` members (name -> bytes), plus each of ``bombs``:
    ``bomb_bytes`` of zeros, deflated; plus ``liar``: the same, its headers declaring
    :data:`LIE_BYTES`."""
    zeros = bytes(MIB)
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, content in honest.items():
            archive.writestr(name, content)
        for bomb in [*bombs, liar]:
            if bomb is not None:
                with archive.open(bomb, "w") as member:
                    for _ in range(bomb_bytes // MIB):
                        member.write(zeros)
    if liar is not None:
        declare_size(path, liar, LIE_BYTES)
    return path


def measure(path: Path, assignment: str | None = None) -> dict:
    """Read the submissions at ``path`` in a fresh process; its peak memory (MiB) above its
    baseline, and what was read."""
    command = [sys.executable, "-m", "benchmarks.intake_bomb", "--measure", str(path)]
    if assignment is not None:
        command += ["--assignment", assignment]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def _status_kib(field: str) -> int | None:
    """A memory figure (KiB) of this process from /proc/self/status (None: unavailable)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(f"{field}:"):
                return int(line.split()[1])
    except OSError:
        pass
    return None


def _reset_peak() -> bool:
    """Reset this process's peak resident memory (Linux: VmHWM); False if it cannot be."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return True


def _measure_here(path: Path, assignment: str | None) -> dict:
    # everything reading imports, imported before the baseline
    import nbgrader.plugins.zipcollect  # noqa: F401

    from autograder.intake import read_submissions

    gc.collect()
    if _reset_peak() and _status_kib("VmRSS") is not None:
        baseline = _status_kib("VmRSS")  # the peak now starts from here
        raws = read_submissions(path, assignment=assignment)
        peak = _status_kib("VmHWM")
    else:  # no /proc: the peak since the process started (ru_maxrss is in KiB on Linux)
        baseline = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        raws = read_submissions(path, assignment=assignment)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    assert baseline is not None and peak is not None
    return {
        "baseline_mib": round(baseline / 1024, 1),
        "peak_mib": round(peak / 1024, 1),
        "above_baseline_mib": round((peak - baseline) / 1024, 1),
        "students": {r.student: {"files": sorted(r.files), "flags": r.flags} for r in raws},
    }


def _honest_notebook() -> bytes:
    from nbformat.v4 import new_code_cell, new_notebook

    from autograder.notebook import notebook_bytes

    return notebook_bytes(new_notebook(cells=[new_code_cell("x = 1")]))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.intake_bomb")
    parser.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--assignment", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.measure is not None:
        print(json.dumps(_measure_here(args.measure, args.assignment)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        nb = _honest_notebook()
        honest = {f"student{i}_{i}_900{i}_{ASSIGNMENT}.ipynb": nb for i in (1, 2)}
        path = write_bomb_zip(
            Path(tmp) / "bomb.zip",
            honest,
            bombs=[f"bomber_666_9666_{ASSIGNMENT}.ipynb"],
            liar=f"liar_667_9667_{ASSIGNMENT}.ipynb",
        )
        size = path.stat().st_size
        result = measure(path, ASSIGNMENT)
    print(
        f"zip: {size / MIB:.1f} MiB on disk, 4 members, two of them {BOMB_BYTES // MIB:,} MiB "
        "of zeros (one declaring 1,000 bytes)"
    )
    for student, read in result["students"].items():
        print(f"  {student}: read {read['files']}; flags {read['flags']}")
    print(
        f"peak memory while reading: +{result['above_baseline_mib']:.1f} MiB above the "
        f"baseline of {result['baseline_mib']:.1f} MiB (bound: {BOUND_MIB} MiB)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
