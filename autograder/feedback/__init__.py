"""The feedback pages: each graded notebook's page for its student, safe to open and in the
student's words.

``sanitise`` (the pages' cleaning and Content-Security-Policy; the similarity report uses
them too), ``student_page`` (what the grader found and did, in the student's words),
``template_cache`` (the pages' compiled templates and highlighted code cells, kept for a
worker's life), ``stale`` (pages written again once their late penalty is recorded). The
grading layer sets nbgrader's ``GenerateFeedback`` up with them
(:func:`autograder.grading.config.feedback_config`) and writes the pages
(:func:`autograder.grading.task.generate_feedback`).

``sanitise`` and ``student_page`` subclass nbconvert's and nbgrader's classes: what imports
this package imports nbconvert (``python -m autograder --help`` does not).
"""

from autograder.feedback.sanitise import clean_html, content_security_policy
from autograder.feedback.stale import STALE_FILE, PageWriter, StaleFeedback

__all__ = [
    "STALE_FILE",
    "PageWriter",
    "StaleFeedback",
    "clean_html",
    "content_security_policy",
]
