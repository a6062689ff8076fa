"""The feedback pages: each graded notebook's page for its student, safe to open and in the
student's words.

``sanitise`` (the pages' cleaning and Content-Security-Policy; the similarity report uses
them too), ``student_page`` (what the grader found and did, in the student's words),
``template_cache`` (the pages' compiled templates and highlighted code cells, kept for a
worker's life), ``late_note`` (a late submission's due date, hand-in time and late rule,
recorded by the term for its page), ``stale`` (pages written again once their late penalty
or late note is recorded). The
grading layer sets nbgrader's ``GenerateFeedback`` up with them
(:func:`autograder.grading.config.feedback_config`) and writes the pages
(:func:`autograder.grading.task.generate_feedback`).

``sanitise`` and ``student_page`` subclass nbconvert's and nbgrader's classes: what imports
this package imports nbconvert (``python -m autograder --help`` does not).
"""

from autograder.feedback.late_note import LATE_NOTES_FILE, LateNote, LateNotes
from autograder.feedback.sanitise import clean_html, content_security_policy
from autograder.feedback.stale import STALE_FILE, PageWriter, StaleFeedback

__all__ = [
    "LATE_NOTES_FILE",
    "STALE_FILE",
    "LateNote",
    "LateNotes",
    "PageWriter",
    "StaleFeedback",
    "clean_html",
    "content_security_policy",
]
