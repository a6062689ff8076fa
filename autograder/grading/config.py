"""The nbgrader configuration of the grading converters: nbgrader's own preprocessor lists
for ``Autograde`` and ``GenerateFeedback``, with this grader's preprocessors put in by
configuration (:mod:`autograder.grading.preprocessors`, and in place of ``Execute``
:mod:`autograder.grading.safe_execute`'s ``SafeExecute`` — with warm sandboxed kernels — or
:mod:`autograder.grading.prewarm`'s kernels)."""

from __future__ import annotations

from traitlets.config import Config

from autograder.course import Course
from autograder.options import GradeOptions
from course_common.assets import FEEDBACK_MATHJAX, MATHJAX_PAGE, mathjax_available


def autograde_config(course: Course, options: GradeOptions, *, prewarm: bool = False) -> Config:
    """The Autograde configuration of a run with ``options``: nbgrader's preprocessor lists
    plus ours (see below).

    - sanitize: :class:`~.preprocessors.RecordSubmissionFlags` first (flags deleted,
      duplicated or edited test cells), and :class:`~.preprocessors.RestoreTestCells` in place
      of ``OverwriteCells`` (also puts back deleted test cells, from the gradebook);
    - autograde: ``Execute`` becomes ``SafeExecute`` when ``options.sandbox`` is on
      (with ``prewarm``, its kernels are forked from the worker's warm box when it has one:
      :mod:`autograder.sandbox.warm`), or :class:`~.prewarm.PrewarmedExecute` (kernels forked
      from a pre-warmed template) when it is off and ``prewarm`` is on; right after it,
      :class:`~.preprocessors.CoalesceStreams` (a cell's printed text in one output per
      stream, however the kernel flushed it: before nbgrader's ``LimitOutput``, which counts
      lines per output); before ``SaveAutoGrades``,
      :class:`~.preprocessors.StderrToStdout` keeps the points of a passing test cell whose
      code wrote warnings to stderr; nbgrader's ``AssignLatePenalties`` leaves the list:
      the late penalty has one owner, the term, which records it in the gradebook after
      grading (:func:`autograder.term.settle`: course.toml's rules, its extensions and the
      submission times, for the results of the ledger too). nbgrader's step would only
      reset it to none on every notebook graded (its ``LateSubmissionPlugin`` sees neither
      the course's calendar nor a notebook's maximum).
    """
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import (
        AssignLatePenalties,
        DeduplicateIds,
        Execute,
        OverwriteCells,
        SaveAutoGrades,
    )

    from autograder.grading import preprocessors as pp

    config = course.config()
    sanitize = list(Autograde.class_traits()["sanitize_preprocessors"].default())
    sanitize[sanitize.index(OverwriteCells)] = pp.RestoreTestCells
    sanitize[sanitize.index(DeduplicateIds)] = pp.DeduplicateCells
    sanitize.insert(0, pp.RecordSubmissionFlags)
    auto = list(Autograde.class_traits()["autograde_preprocessors"].default())
    if options.sandbox:
        from autograder.grading.safe_execute import SafeExecute

        auto[auto.index(Execute)] = SafeExecute
        config.SandboxedKernelManager.warm = prewarm
    elif prewarm:
        from autograder.grading.prewarm import PrewarmedExecute

        auto[auto.index(Execute)] = PrewarmedExecute
    executes = next(i for i, step in enumerate(auto) if issubclass(step, Execute))
    auto.insert(executes + 1, pp.CoalesceStreams)
    auto.insert(auto.index(SaveAutoGrades), pp.StderrToStdout)
    auto.remove(AssignLatePenalties)  # the term's (see above)
    config.Autograde.sanitize_preprocessors = sanitize
    config.Autograde.autograde_preprocessors = auto
    # Kernel shutdown is a large share of a notebook's grading time; nothing of the kernel's
    # state is needed after the last cell, so stop it at once.
    config.Execute.shutdown_kernel = "immediate"
    return config


def feedback_config(course: Course) -> Config:
    """GenerateFeedback configuration: nbgrader's, with hidden-test source redacted, the
    grader machine's folders taken out of the outputs, what the grader found and did in the
    student's words (:mod:`autograder.feedback.student_page`: the flags about their work, the
    diagnosis of each failed exercise, tracebacks without the grader's frames, whole scores
    as whole numbers), and every active element of the student's notebook taken out
    (:mod:`autograder.feedback.sanitise`: the notebook cleaned, the page rendered by its
    ``SafeHTMLExporter`` with a Content-Security-Policy).

    nbgrader's list ends with nbconvert's ``CSSHTMLHeaderPreprocessor``, which never runs
    there (an nbconvert preprocessor is off unless switched on; the template's own
    ``conf.json`` registers one that is on): it is left out. Every preprocessor listed here
    is on wherever it is registered (``tests/autograder/grading/test_grading_config.py``).
    """
    from nbgrader.preprocessors import GetGrades

    from autograder.feedback.late_note import LATE_NOTES_FILE
    from autograder.feedback.sanitise import SafeHTMLExporter, SanitiseNotebook
    from autograder.feedback.student_page import ExplainToStudent, whole_round
    from autograder.grading.preprocessors import HideGraderPaths, RedactHiddenTests

    config = course.config()
    config.GenerateFeedback.preprocessors = [
        GetGrades,
        RedactHiddenTests,
        HideGraderPaths,
        ExplainToStudent,
        SanitiseNotebook,
    ]
    config.GenerateFeedback.exporter_class = SafeHTMLExporter
    # nbgrader's feedback template prints scores with `| float | round(2)`: 8.0 / 13.0
    config.SafeHTMLExporter.filters = {"round": whole_round}
    config.HideGraderPaths.course_root = str(course.root)
    config.ExplainToStudent.late_notes = str(course.root / LATE_NOTES_FILE)
    if mathjax_available():
        # Formulas typeset without a network: course_common's base/mathjax.html.j2
        # shadows nbconvert's MathJax from a CDN with the copy that report.copy_feedback
        # ships beside the pages. nbgrader's own templates stay (it sets this only when
        # the configuration does not). Set on the feedback's exporter only: formgrader's
        # HTMLExporter keeps its own folders (formgrader_config puts this in its config).
        config.SafeHTMLExporter.extra_template_basedirs = _offline_template_dirs()
    return config


def _offline_template_dirs() -> list[str]:
    """The offline MathJax template (``course_common``'s ``base/mathjax.html.j2``: MathJax
    from a local copy) before nbgrader's formgrader templates (the ``feedback`` and
    ``formgrade`` ones: the folder nbgrader's formgrader itself names, its handlers'
    ``template_path``)."""
    from nbgrader.server_extensions.formgrader.handlers import template_path

    from course_common.assets import TEMPLATES

    return [str(TEMPLATES), template_path]


#: Where formgrader's submission view (``{base_url}/formgrader/submissions/<id>/``) finds
#: MathJax: the copy in the course directory's ``feedback/_mathjax/`` (the one the
#: course's own feedback pages load, :meth:`autograder.course.Course.make` puts it there),
#: through the Jupyter server's ``/files/`` of the course directory opened as its root.
FORMGRADER_MATHJAX_URL = f"../../../files/feedback/{FEEDBACK_MATHJAX}/{MATHJAX_PAGE}"


def formgrader_mathjax_url(default: str) -> str:
    """The Jinja filter ``mathjax_url`` of formgrader's exporter: the MathJax template's
    default URL (beside a feedback page) becomes :data:`FORMGRADER_MATHJAX_URL`."""
    return FORMGRADER_MATHJAX_URL


def formgrader_config(course: Course) -> Config:
    """What the course directory's ``nbgrader_config.py`` adds for nbgrader's formgrader
    (JupyterLab opened in the course directory; the course's own settings are already in
    the file, so they are left out here):

    - its submission view (nbconvert's ``HTMLExporter`` with nbgrader's ``formgrade``
      template) shows, under each written answer, the grader's rubric from the course's
      source notebook (:class:`~.preprocessors.ShowRubric`), and renders the notebook after
      :class:`~autograder.feedback.sanitise.SanitiseNotebook` and with
      :class:`~autograder.feedback.sanitise.CleanMarkdown` as its ``markdown2html`` filter
      (the rubric cell too);
    - its "Generate feedback" button runs ``GenerateFeedback`` with :func:`feedback_config`'s
      preprocessors and exporter, as ``python -m autograder grade`` does (the exporter's
      own preprocessor list stays empty: the feedback's list is the one that runs);
    - its submission view typesets formulas offline: the offline MathJax template, its
      URL mapped by the filter :func:`formgrader_mathjax_url` to the course's own copy of
      MathJax (``feedback/_mathjax/``, served by the Jupyter server's ``/files/``).
    """
    from autograder.feedback.sanitise import CleanMarkdown, SanitiseNotebook
    from autograder.grading.preprocessors import ShowRubric

    own = course.config()
    config = Config(
        {name: section for name, section in feedback_config(course).items() if name not in own}
    )
    config.HTMLExporter.preprocessors = [ShowRubric, SanitiseNotebook]
    config.HTMLExporter.filters = {"markdown2html": CleanMarkdown}
    config.ShowRubric.source_root = str(course.root / "source")
    # The feedback pages' exporter is an HTMLExporter too: it must not inherit the view's
    # preprocessors (a rubric in a student's feedback page).
    config.SafeHTMLExporter.preprocessors = []
    # the feedback's exporter subclasses HTMLExporter: none of the view's filters for it
    # (its pages load MathJax from beside them, as the command line's do), only its own
    # (whole scores as whole numbers, as the command line's pages print them)
    config.SafeHTMLExporter.filters = dict(feedback_config(course).SafeHTMLExporter.filters)
    if mathjax_available():
        config.HTMLExporter.extra_template_basedirs = _offline_template_dirs()
        config.HTMLExporter.filters["mathjax_url"] = formgrader_mathjax_url
    return config
