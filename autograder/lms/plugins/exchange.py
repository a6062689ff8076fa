"""nbgrader's exchange: its ``inbound`` folder, one folder per ``nbgrader submit``,
``<student>+<assignment>+<timestamp>[+<random>]/<notebook>.ipynb``, each with nbgrader's
``timestamp.txt`` (read as the submission's time, else the time in the folder's name). A
student who submitted twice has two submissions, which the course's resubmission policy
chooses between (:mod:`autograder.term.attempts`). Its grades go back through nbgrader's
own gradebook (grades.csv is ``nbgrader export``'s): it has no export of its own."""

from __future__ import annotations

from traitlets import Unicode

from autograder.lms.base import LmsPlugin, register

EXCHANGE_REGEXP = (
    r"^(?P<submission>(?P<student_id>[^/+]+)\+(?P<assignment>[^/+]+)\+(?P<timestamp>[^/+]+)"
    r"(?:\+[^/+]*)?)/(?P<file_id>.+)$"
)


@register
class ExchangePlugin(LmsPlugin):
    """nbgrader's exchange (see the module docstring)."""

    name = "exchange"
    title = "nbgrader's exchange"
    description = "nbgrader's inbound folder"
    order = 10
    nbgrader_files = True

    named_regexp = Unicode(EXCHANGE_REGEXP)
