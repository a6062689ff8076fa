"""Report: what a grading run writes — grades.csv (:mod:`.grades`), results.json
(:mod:`.results`), the feedback pages (:mod:`.feedback`) and summary.md (:mod:`.summary`).
The CSV and the summary are views of the same results."""

from autograder.report.feedback import copy_feedback
from autograder.report.grades import COLUMNS, EXPORT_COLUMNS, FlaggedCsvExportPlugin, export_grades
from autograder.report.results import RESULTS_FORMAT, results_data, write_results
from autograder.report.summary import AssignmentSummary, summarise, summary_text

__all__ = [
    "COLUMNS",
    "EXPORT_COLUMNS",
    "RESULTS_FORMAT",
    "AssignmentSummary",
    "FlaggedCsvExportPlugin",
    "copy_feedback",
    "export_grades",
    "results_data",
    "summarise",
    "summary_text",
    "write_results",
]
