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

The names below are imported on first use (``lazy_loader``, as :mod:`autograder.grading`'s
are): ``python -m autograder --help`` does not pay for nbconvert and nbgrader.
"""

import lazy_loader

__getattr__, __dir__, __all__ = lazy_loader.attach(
    __name__,
    submod_attrs={
        "late_note": ["LATE_NOTES_FILE", "LateNote", "LateNotes"],
        "sanitise": ["clean_html", "content_security_policy"],
        "stale": ["STALE_FILE", "PageWriter", "StaleFeedback"],
    },
)
