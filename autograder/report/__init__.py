"""Report: what a grading run writes — grades.csv (:mod:`.grades`), results.json
(:mod:`.results`), the feedback pages (:mod:`.feedback`) and summary.md (:mod:`.summary`).
The CSV and the summary are views of the same results; what each submission is worth (its
score and maximum as nbgrader counts them, the points graded by hand included) and what of
it awaits manual grading are read from the gradebook when they are written
(:mod:`.manual`)."""

from autograder.report.feedback import copy_feedback, feedback_folder
from autograder.report.grades import (
    EXTRA_COLUMNS,
    MAX_CELL,
    FlaggedCsvExportPlugin,
    csv_cell,
    export_grades,
    flags_cell,
)
from autograder.report.manual import (
    ManualPending,
    manual_pending,
    pending_in_gradebook,
    pending_of,
    totals,
)
from autograder.report.results import RESULTS_FORMAT, results_data, write_results
from autograder.report.summary import AssignmentSummary, TermSummary, summarise, summary_text

__all__ = [
    "EXTRA_COLUMNS",
    "MAX_CELL",
    "RESULTS_FORMAT",
    "AssignmentSummary",
    "FlaggedCsvExportPlugin",
    "ManualPending",
    "TermSummary",
    "copy_feedback",
    "csv_cell",
    "export_grades",
    "feedback_folder",
    "flags_cell",
    "manual_pending",
    "pending_in_gradebook",
    "pending_of",
    "results_data",
    "summarise",
    "summary_text",
    "totals",
    "write_results",
]
