"""The student's feedback page says, in the student's words, what the grader found and did.

:class:`ExplainToStudent` (``GenerateFeedback``, after ``HideGraderPaths``, before the
sanitiser, :func:`autograder.grading.config.feedback_config`) reads what the re-check wrote
into the graded notebook's metadata and puts on the page:

- first, when the submission was late or had an extension, its late section: due date,
  extension, hand-in time, the late rule and what it cost (:mod:`.late_note`, the notes
  the term recorded in the course folder, named by the ``late_notes`` setting);
- then "What the grader did to your notebook": each flag that concerns the student's own
  work, in words (:func:`student_note`: a test cell restored, a grade id renamed, a function
  that did not return within 30 s — with the exercise's hint for a hang —, a kernel
  restarted, output cut, ...); flags about the grading itself are the instructor's, and so
  are those about what the student did not do (a notebook made from a release of another
  nbgrader version: its checksums, :data:`~autograder.grading.preprocessors.OTHER_RELEASE_LINE`);
- then "Graded by hand": the answers and tasks of the notebook that await a person's grade
  (the gradebook's "needs manual grade"), which the page shows at 0 points until given;
- under the first failing test of each failed exercise, "What this looks like: …": the
  misconception the answers match, its hint, and its probe (the call, the student's answer,
  the rule's answer), or else the smallest probe on which the answer differs from the rule
  (:mod:`autograder.recheck.diagnosis`). Probes are the catalogue's own inputs, never a
  hidden test's;
- tracebacks without the grader's frames (the library's ``linlib/`` files, where
  ``call_student`` and the checks live): the test's lines and the student's own frames stay.

Everything is written as HTML with every piece of text escaped, then cleaned with the rest
of the page by :class:`~.sanitise.SanitiseNotebook` and shown under the page's
Content-Security-Policy. :func:`whole_round` is the page template's ``round`` filter: whole
scores print as whole numbers (``8 / 13``, not ``8.0 / 13.0``).
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable, Mapping
from typing import Any

import nbformat
from nbformat import NotebookNode
from nbgrader.preprocessors import NbGraderPreprocessor
from nbgrader.utils import is_grade, is_solution
from traitlets import Unicode

from autograder.feedback.late_note import LateNotes, late_note_html
from autograder.notebook import DIAGNOSES_KEY, FLAGS_KEY, grade_id

__all__ = ["ExplainToStudent", "student_note", "trim_traceback", "whole_round"]

#: The box of a diagnosis, an output under a test (inline style: the sanitiser keeps these
#: properties). The notes and the late section above the notebook are raw cells, which
#: nbconvert's template cleans down to a few tags and no style: their box is the page's
#: style sheet's (:data:`autograder.feedback.sanitise.PAGE_STYLE`, by their class).
_BOX = 'style="border: 2px solid #b35900; padding: 0.2em 1em; background-color: #fff8e6"'
_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def whole_round(value: Any, precision: int = 0, method: str = "common") -> float | int:
    """Jinja's ``round``, but a whole number comes back as an int (prints ``3``, not ``3.0``)."""
    number = float(value)
    if method == "common":
        rounded = round(number, precision)
    else:
        import math

        factor = 10**precision
        rounded = (math.ceil if method == "ceil" else math.floor)(number * factor) / factor
    return int(rounded) if float(rounded).is_integer() else rounded


# --------------------------------------------------------------------------- flags in words


def _e(text: str) -> str:
    return html.escape(str(text), quote=True)


def _code(text: str) -> str:
    return f"<code>{_e(text)}</code>"


def _hung(match: re.Match[str], diagnoses: Mapping[str, Any]) -> str:
    record = diagnoses.get(match["exercise"], {})
    hint = str(record.get("hint") or "")
    text = f"Your {_code(match['function'])} did not return within {_e(match['seconds'])} s"
    text += f": {_e(hint)}" if hint else ""
    return text + ". Its tests scored 0; the other exercises were graded as usual."


#: (pattern of a flag the grader writes, the student's words for it). The patterns follow
#: the flags' texts (autograder.grading.preprocessors, autograder.recheck.outcomes and
#: .execute, autograder.recheck.scan); ``tests/autograder/feedback/test_feedback_student_page``
#: makes each kind of flag for real and checks that its words are found.
_NOTES: list[tuple[re.Pattern[str], Callable[[re.Match[str], Mapping[str, Any]], str]]] = [
    (
        re.compile(r"test cell (?P<id>\S+) was deleted \(restored"),
        lambda m, _: (
            f"You deleted the test cell {_code(m['id'])}: the grader put the "
            "course's copy back and ran it."
        ),
    ),
    (
        re.compile(r"test cell (?P<id>\S+) appears (?P<n>\d+) times"),
        lambda m, _: (
            f"The test cell {_code(m['id'])} appears {_e(m['n'])} times in your "
            "notebook: one copy, the course's, was graded."
        ),
    ),
    (
        re.compile(r"test cell (?P<id>\S+) was edited"),
        lambda m, _: (
            f"You changed the test cell {_code(m['id'])}: the course's version was run instead."
        ),
    ),
    (
        re.compile(r"test cell (?P<id>\S+) was marked as an answer cell"),
        lambda m, _: (
            f"The test cell {_code(m['id'])} had been made an answer cell: it was "
            "put back and graded as the test it is."
        ),
    ),
    (
        re.compile(r"answer cell (?P<id>\S+) was deleted"),
        lambda m, _: (
            f"Your answer cell {_code(m['id'])} is missing: its exercise was graded without it."
        ),
    ),
    (
        re.compile(r"grade ids not in the instructor's copy: (?P<cells>.*) \(renamed"),
        lambda m, _: (
            f"Grade ids that are not the course's ({_e(m['cells'])}): a renamed "
            "grade id is not graded — those cells ran as ordinary cells, and the course's cells "
            "were put back."
        ),
    ),
    (
        re.compile(r"(?P<what>cell kind|points|locked flag|checksum) changed: (?P<cells>.*?);"),
        lambda m, _: (
            f"The nbgrader {_e(m['what'])} of {_e(m['cells'])} in your notebook differs "
            "from the course's copy: the grader used the course's (your answers are graded "
            "as you wrote them)."
        ),
    ),
    (
        re.compile(r"this notebook is not (?P<a>\S+)'s"),
        lambda m, _: (
            f"This notebook has none of {_e(m['a'])}'s graded cells: the course's "
            "tests were put back and run."
        ),
    ),
    (
        re.compile(r"time-out: cell\(s\) (?P<cells>.*?) did not finish"),
        lambda m, _: (
            f"Cell(s) {_e(m['cells'])} of your notebook ran longer than allowed and "
            "were interrupted; the tests were decided by the grader's own re-check."
        ),
    ),
    (
        re.compile(r"cell #(?P<n>\d+) did not stop when interrupted: the kernel was killed"),
        lambda m, _: (
            f"Cell #{_e(m['n'])} did not stop when interrupted: your notebook's "
            "kernel was restarted, the cells before it were run again, and of the later cells "
            "only the answers."
        ),
    ),
    (
        re.compile(
            r"exercise (?P<exercise>\S+): (?P<function>\w+) did not return within "
            r"(?P<seconds>\d+) s when re-checked"
        ),
        _hung,
    ),
    (
        re.compile(r"the notebook ran longer than (?P<s>\d+) s"),
        lambda m, _: (
            f"Your notebook ran longer than {_e(m['s'])} s: the cells after that "
            "were not run (answer cells excepted)."
        ),
    ),
    (
        re.compile(r"kernel stopped: "),
        lambda m, _: (
            "Your notebook's kernel stopped before the end (out of time or memory, "
            "or it was killed): the cells after that point were not run."
        ),
    ),
    (
        re.compile(r"output too large: cut in cell\(s\) (?P<cells>.*)"),
        lambda m, _: (
            f"Cell(s) {_e(m['cells'])} printed more than the grader keeps: the rest "
            "of their output was cut."
        ),
    ),
    (
        re.compile(r"the notebook left (?P<n>\d+) process\(es\) running"),
        lambda m, _: f"Your notebook left {_e(m['n'])} process(es) running: they were stopped.",
    ),
    (
        re.compile(r"(?P<id>\S+): failed in the student's kernel .* but passed the trusted"),
        lambda m, _: (
            f"The test {_code(m['id'])} failed when your notebook ran, but passed "
            "when the grader checked it again: it counts as passed."
        ),
    ),
    (
        re.compile(r"(?P<id>\S+): the student's kernel reported a pass, but the trusted"),
        lambda m, _: (
            f"The test {_code(m['id'])} passed in your notebook but failed when the "
            "grader checked it again outside your notebook: it counts as failed (the message is "
            "under the test)."
        ),
    ),
    (
        re.compile(r"(?P<id>\S+): not re-checked: (?P<why>.*); scored as the kernel ran it"),
        lambda m, _: (
            f"The test {_code(m['id'])} was scored as your notebook ran it: the grader could "
            f"not check it again on its own ({_e(m['why'])})."
        ),
    ),
    (
        re.compile(r"scan: (?P<cell>\S+), line (?P<line>\d+): (?P<message>.*)"),
        lambda m, _: f"In cell {_code(m['cell'])}, line {_e(m['line'])}: {_e(m['message'])}.",
    ),
]


def student_note(flag: str, diagnoses: Mapping[str, Any] | None = None) -> str | None:
    """The student's words (HTML, escaped) for a flag the grader wrote into a notebook, or
    None for a flag that is about the grading, not the student's work."""
    for pattern, words in _NOTES:
        match = pattern.match(str(flag))
        if match is not None:
            return words(match, diagnoses or {})
    return None


# --------------------------------------------------------------------------- diagnoses


def _diagnosis_html(record: Mapping[str, Any]) -> tuple[str, str]:
    """The "What this looks like" box (HTML, and plain text) of one diagnosis record."""
    if record.get("timed_out") is not None:
        hint = str(record.get("hint") or "")
        text = (
            f"your {record.get('exercise')} did not return within "
            f"{int(record['timed_out'])} s" + (f": {hint}" if hint else "")
        )
        return f"<p><strong>What this looks like:</strong> {_e(text)}.</p>", (
            f"What this looks like: {text}."
        )
    call, got, rule = (str(record.get(k, "")) for k in ("call", "got", "rule"))
    example = (
        f"<p>For example, {_code(call)}: your answer {_code(got)}; the rule's answer "
        f"{_code(rule)}.</p>"
    )
    plain_example = f"For example, {call}: your answer {got}; the rule's answer {rule}."
    if record.get("misconception"):
        says, hint = str(record.get("says", "")), str(record.get("hint", ""))
        return (
            f"<p><strong>What this looks like:</strong> {_e(says)}.</p>"
            f"<p><strong>Hint:</strong> {_e(hint)}</p>{example}",
            f"What this looks like: {says}.\nHint: {hint}\n{plain_example}",
        )
    lead = (
        "none of the typical mistakes of this exercise matches your answers; the smallest "
        "case where your answer differs from the rule:"
    )
    return (
        f"<p><strong>What this looks like:</strong> {_e(lead)}</p>{example}",
        f"What this looks like: {lead}\n{plain_example}",
    )


def diagnosis_output(record: Mapping[str, Any]) -> NotebookNode:
    """The output shown under an exercise's failing test for its diagnosis *record*."""
    markup, plain = _diagnosis_html(record)
    return nbformat.v4.new_output(
        "display_data",
        data={
            "text/html": f'<div class="autograder-diagnosis" {_BOX}>{markup}</div>',
            "text/plain": plain,
        },
        metadata={},
    )


# --------------------------------------------------------------------------- tracebacks


def _grader_frame(entry: str) -> bool:
    """An IPython traceback entry of a frame in the grader's library (``linlib/…``)."""
    text = _ANSI.sub("", str(entry)).lstrip()
    return text.startswith("File ") and re.match(r"File \S*\blinlib/\S+\.py", text) is not None


def trim_traceback(traceback: list[str]) -> list[str]:
    """An IPython traceback without the frames in the grader's library."""
    return [entry for entry in traceback if not _grader_frame(entry)]


# --------------------------------------------------------------------------- the preprocessor

#: The order the "Graded by hand" box names what awaits a person.
_KIND_ORDER = ("written answer", "code answer", "task")


class ExplainToStudent(NbGraderPreprocessor):
    """Put what the grader found and did on the student's feedback page (see the module's
    docstring). Changes the page only, never a score (``GetGrades`` ran before)."""

    late_notes = Unicode(
        "",
        help="The course's late notes (autograder.feedback.late_note.LATE_NOTES_FILE): a "
        "late submission's page shows its due date, hand-in time and late rule",
    ).tag(config=True)

    def preprocess(self, nb: NotebookNode, resources: Any):
        meta = nb.metadata.get(FLAGS_KEY, {}) or {}
        flags = [str(f) for f in meta.get("flags", []) or []]
        diagnoses = meta.get(DIAGNOSES_KEY, {}) or {}
        if not isinstance(diagnoses, dict):
            diagnoses = {}
        for cell in nb.cells:
            if cell.cell_type != "code":
                continue
            for output in cell.get("outputs", []):
                if output.get("output_type") == "error" and "traceback" in output:
                    output["traceback"] = trim_traceback(list(output["traceback"]))
        self._diagnoses_under_tests(nb, diagnoses)
        waiting = self._awaiting_hand_grade(resources)
        if waiting is not None:
            cell = nbformat.v4.new_raw_cell(waiting, metadata={"raw_mimetype": "text/html"})
            cell["id"] = "autograder-by-hand"
            nb.cells.insert(0, cell)
        notes = [n for n in (student_note(f, diagnoses) for f in flags) if n]
        if notes:
            items = "".join(f"<li>{note}</li>" for note in dict.fromkeys(notes))
            box = (
                '<div class="autograder-notes"><strong>What the grader did to your '
                f"notebook</strong><ul>{items}</ul></div>"
            )
            cell = nbformat.v4.new_raw_cell(box, metadata={"raw_mimetype": "text/html"})
            cell["id"] = "autograder-notes"  # not random: the same notebook, the same page
            nb.cells.insert(0, cell)
        late = self._late_note(resources)
        if late is not None:
            cell = nbformat.v4.new_raw_cell(late, metadata={"raw_mimetype": "text/html"})
            cell["id"] = "autograder-late"
            nb.cells.insert(0, cell)
        return nb, resources

    @staticmethod
    def _awaiting_hand_grade(resources: Any) -> str | None:
        """The page's "Graded by hand" box (HTML): how many of the notebook's answers and
        tasks await a person's grade, of what kinds, and their points; None when none
        does (or the page is made without a gradebook)."""
        about = resources.get("nbgrader", {}) if isinstance(resources, dict) else {}
        if not about.get("db_url"):
            return None
        from nbgrader.api import Gradebook, MissingEntry, TaskCell

        kinds: dict[str, int] = {}
        points = 0.0
        try:
            with Gradebook(about["db_url"]) as gb:
                notebook = gb.find_submission_notebook(
                    about["notebook"], about["assignment"], about["student"]
                )
                for grade in notebook.grades:
                    if not grade.needs_manual_grade:
                        continue
                    cell = grade.cell
                    if isinstance(cell, TaskCell):
                        kind = "task"
                    else:
                        kind = "code answer" if cell.cell_type == "code" else "written answer"
                    kinds[kind] = kinds.get(kind, 0) + 1
                    points += float(grade.max_score or 0.0)
        except MissingEntry:
            return None
        if not kinds:
            return None
        parts = [
            f"{n} {kind}{'s' * (n != 1)}"
            for kind, n in sorted(kinds.items(), key=lambda kv: _KIND_ORDER.index(kv[0]))
        ]
        listed = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + f" and {parts[-1]}"
        count = sum(kinds.values())
        text = (
            f"{listed} ({whole_round(points, 2)} point{'s' * (points != 1)}) "
            f"{'are' if count != 1 else 'is'} graded by hand and not graded yet: until your "
            f"instructor grades {'them' if count != 1 else 'it'}, this page counts "
            f"{'them' if count != 1 else 'it'} as 0 points."
        )
        return (
            '<div class="autograder-notes autograder-by-hand"><strong>Graded by hand</strong>'
            f"<ul><li>{_e(text)}</li></ul></div>"
        )

    def _late_note(self, resources: Any) -> str | None:
        """The page's late section (HTML), or None: no note for this submission."""
        if not self.late_notes:
            return None
        about = resources.get("nbgrader", {}) if isinstance(resources, dict) else {}
        key = (str(about.get("assignment", "")), str(about.get("student", "")))
        note = LateNotes(self.late_notes).read().get(key)
        return late_note_html(note) if note is not None else None

    @staticmethod
    def _diagnoses_under_tests(nb: NotebookNode, diagnoses: Mapping[str, Any]) -> None:
        for record in diagnoses.values():
            if not isinstance(record, dict):
                continue
            failing = {str(t) for t in record.get("tests", []) or []}
            for cell in nb.cells:
                if cell.cell_type == "code" and is_grade(cell) and not is_solution(cell):
                    if grade_id(cell) in failing:
                        cell.setdefault("outputs", []).append(diagnosis_output(record))
                        break
