"""Feedback pages written again when the late penalty or the late section they show has
changed.

A page shows its notebook's score after the late penalty that the gradebook held when the
page was written (nbgrader's ``GetGrades``, which the page's template shows as "Late
submission penalty"), and the late section the course's late notes held then
(:mod:`.late_note`). The grading workers write the pages as they grade, before the run
records the term's penalties and notes (:func:`autograder.term.settle`): a late submission's
page, and the page of one whose penalty or note changed since (an extension granted, a new
due date), would show the score before its penalty while grades.csv and the LMS show the
score after it.

:class:`StaleFeedback` keeps the submissions whose pages are stale in the course's
``feedback-stale.json``: :meth:`~StaleFeedback.add` writes them there before the penalties
are committed, :meth:`~StaleFeedback.refresh` writes their pages again and takes them out.
A run that dies in between leaves the file, and the next run with feedback finishes the
work, even for submissions the ledger does not grade again.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable, Iterable

from autograder.course import Course
from autograder.files import write_atomic
from autograder.models import SubmissionKey

__all__ = ["STALE_FILE", "PageWriter", "StaleFeedback"]

log = logging.getLogger(__name__)

#: the course folder's list of (assignment, student) whose feedback pages are stale
STALE_FILE = "feedback-stale.json"
#: What writes one graded submission's pages: (course, assignment, student) -> (whether it
#: succeeded, nbgrader's error if not, the exceptions it met); the grading workers' own,
#: :func:`autograder.grading.task.generate_feedback`, handed in by the use case.
PageWriter = Callable[[Course, str, str], tuple[bool, str, list[BaseException]]]


class StaleFeedback:
    """The course's stale feedback pages (its ``feedback-stale.json``)."""

    def __init__(self, course: Course, write_pages: PageWriter) -> None:
        self.course = course
        self.write_pages = write_pages
        self.path = course.root / STALE_FILE
        self.keys: set[SubmissionKey] = set()
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            if not all(isinstance(k, list) and len(k) == 2 for k in data):
                raise ValueError("not a list of [assignment, student]")
            self.keys = {(str(a), str(s)) for a, s in data}
        except FileNotFoundError:
            pass
        except (OSError, ValueError, TypeError) as exc:
            # the file is the grader's own; unreadable, it names nothing: the pages of
            # this run's late submissions are still written again (their penalties change)
            log.warning("%s could not be read (%s), ignored", STALE_FILE, exc)

    def add(self, keys: Iterable[SubmissionKey]) -> None:
        """Mark the pages of ``keys`` stale, on disk before returning."""
        new = set(keys) - self.keys
        if new:
            self.keys |= new
            self._write()

    def refresh(self) -> list[str]:
        """Write every stale page again, from the autograded notebook and the gradebook as
        they are now (its ``write_pages``: nbgrader's GenerateFeedback, as the workers write
        them); a submission without a page (never written, or not graded) has nothing to
        refresh. Returns one line per page that could not be written: it stays marked, for
        the next run."""
        failed: list[str] = []
        for assignment, student in sorted(self.keys):
            pages = self.course.feedback_dir(student, assignment)
            graded = self.course.autograded_dir(student, assignment)
            if not (pages.is_dir() and any(pages.glob("*.html")) and graded.is_dir()):
                self.keys.discard((assignment, student))
                continue
            ok, error, _ = self.write_pages(self.course, assignment, student)
            if ok:
                self.keys.discard((assignment, student))
            else:
                last = (error.strip().splitlines() or ["unknown error"])[-1]
                failed.append(f"{assignment}/{student}: {last}")
        self._write()
        return failed

    def _write(self) -> None:
        if self.keys:
            write_atomic(self.path, json.dumps(sorted(self.keys), indent=1) + "\n")
        else:
            self.path.unlink(missing_ok=True)
