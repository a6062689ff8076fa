"""A grading batch on a Dask cluster (``--dask local:N`` or ``--dask tcp://HOST:PORT``): the
executor that :func:`autograder.grading.batch.grade_prepared` uses in place of the local
process pool (:mod:`autograder.grading.pool`) when its options name a Dask target.

Workers need no shared file system. The grader process sends each assignment's source folder
to the workers once (a zip, as a task of its own that a lost worker's replacement
recomputes); each task carries one submission's files and the gradebook's URL. The worker
grades in a private temporary course directory of its own (:func:`grade_remote`: nbgrader's
Autograde and GenerateFeedback, :func:`autograder.grading.task.autograde_task`, writing the
grades through the gradebook's URL), in a grading process of its own started ahead of need
(:class:`GradingProcess`, a worker plugin: as a worker of the local pool, with warm kernels
without the sandbox), and returns the outcome with the autograded notebooks and the feedback
pages as bytes; the grader process writes those into the course directory, as the pool's
workers would have, and records the result (ledger, progress) as it does for the pool.

Nothing is lost when a worker dies: Dask runs its task again on another worker (a task
that raised is retried twice); only the grader process writes the ledger, on completion,
and nbgrader's gradebook writes are updates-or-creates, so a retried task records its
submission once. A submission whose workers keep dying (Dask's ``KilledWorker``) is, as a
pool worker that dies, a failure of the machine (:mod:`autograder.faults`): flagged "not
graded" in this run and not recorded, so the next run grades it again.

A scheduler that dies stops the run (:class:`GradingError`) without recording the
submissions still in flight: the ledger holds every one that came back, so the same command
run again (with a scheduler) resumes.

Each submission has the pool's wall-clock bound (``timeout``, default
``batch.SUBMISSION_TIMEOUT``), enforced on the worker: past it, the worker's grading process
is killed (its kernel, warm kernels and sandbox die with it), a new one is started, and
the submission is flagged with the pool's text ("grading took longer than N s and was
stopped"). That grading process starts warm kernels as a pool worker does: sandboxed, a
warm box of its own; without the sandbox, the kernel template.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import logging
import os
import shutil
import tempfile
import time
import zipfile
from collections.abc import Collection, Iterator, Mapping
from concurrent.futures import CancelledError
from contextlib import contextmanager
from pathlib import Path, PurePosixPath
from typing import Any, cast

from autograder.course import Course, prepare_nbgrader
from autograder.files import BATCH_PREFIX, owned_tempdir, sweep_orphans
from autograder.grading.gradebook import share_engines
from autograder.grading.pool import Run, failure_message
from autograder.grading.task import autograde_task, failed_outcome, read_verdict, worker_init
from autograder.models import GradingError, SubmissionsError
from autograder.options import GradeOptions
from autograder.source import CONFIG_NAME, CourseSource

log = logging.getLogger(__name__)

#: Times a task that raised is run again (a worker that dies reschedules its task anyway).
RETRIES = 2
#: Seconds to wait for a running scheduler (``--dask tcp://...``).
CONNECT_TIMEOUT = 20

DASK_FORMS = "'local:N' (N local worker processes) or 'tcp://HOST:PORT' (a running scheduler)"


def parse_dask_target(text: str) -> int | str:
    """``local:N`` -> N (a local cluster of N worker processes); ``tcp://HOST:PORT`` -> that
    address. Anything else is the instructor's mistake (:class:`SubmissionsError`)."""
    text = text.strip()
    if text.startswith("local:"):
        count = text.removeprefix("local:")
        if count.isdigit() and int(count) >= 1:
            return int(count)
    elif text.startswith("tcp://"):
        host, _, port = text.removeprefix("tcp://").rpartition(":")
        if host and port.isdigit() and 0 < int(port) < 65536:
            return text
    raise SubmissionsError(f"--dask {text!r} is not {DASK_FORMS}")


def check_dask_gradebook(target: int | str, db_url: str) -> None:
    """Workers on other machines cannot share one machine's SQLite file: refuse a scheduler
    with an SQLite gradebook (:class:`SubmissionsError`)."""
    if isinstance(target, str) and db_url.startswith("sqlite"):
        raise SubmissionsError(
            f"--dask {target} grades on other machines, which cannot share an SQLite "
            "gradebook: pass --db postgresql+psycopg://... (see docs/instructor/large-classes.md)"
        )


# --------------------------------------------------------------------------- files as bytes


def read_tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` (relative POSIX path -> bytes); {} if it does not exist."""
    if not folder.is_dir():
        return {}
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def write_tree(folder: Path, files: dict[str, bytes]) -> None:
    """Replace ``folder``'s files with ``files`` (relative POSIX path -> bytes)."""
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for name, content in files.items():
        target = folder.joinpath(*PurePosixPath(name).parts)
        if not target.resolve().is_relative_to(folder.resolve()):
            raise GradingError(f"a grading worker returned a file outside its folder: {name!r}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)


def zip_tree(folder: Path) -> bytes:
    """``folder``'s files as a zip (what a worker needs of an assignment's source)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in read_tree(folder).items():
            archive.writestr(name, content)
    return buffer.getvalue()


# --------------------------------------------------------------------------- the worker


class GradingProcess:
    """A Dask worker's grading process (made a ``distributed.WorkerPlugin`` by
    :func:`_grading_plugin`, registered by :func:`dask_executor`): each Dask worker grades
    in a process of its own, started ahead of need, as each worker of the local pool is (a
    ``pebble`` pool of one worker from :class:`~autograder.grading.pool.WorkerPool`,
    :func:`~.task.worker_init` first: nbgrader imported, its warm kernels starting when
    ``prewarm`` — a warm box when ``options`` grade in the sandbox, else the kernel
    template).

    That process is what the wall-clock bound stops: a submission that runs past its
    ``timeout`` has its grading process killed (its kernel, warm kernels and sandbox die
    with it) and a fresh one started, and returns a failed outcome with the pool's text.
    """

    name = "autograder-grading-process"

    def __init__(self, log_dir: str | None, prewarm: bool, options: GradeOptions) -> None:
        self.log_dir = log_dir
        self.prewarm = prewarm
        self.options = options
        self.pool: Any = None

    def setup(self, worker: Any = None) -> None:
        import multiprocessing

        from autograder.grading.pool import WorkerPool

        # Dask runs its workers as daemonic processes unless configured otherwise
        # (``distributed.worker.daemon``), and multiprocessing refuses children to a daemon.
        # The daemon flag only makes a parent kill its children at exit; the grading
        # process dies with this worker anyway (the parent-death signal).
        multiprocessing.current_process().daemon = False
        # what killed workers of this machine left in its temporary folder (on a cluster's
        # machine no grader's own sweep reaches)
        sweep_orphans()

        prewarm_log = None
        if self.prewarm:
            folder = self.log_dir or tempfile.gettempdir()
            prewarm_log = str(Path(folder) / "kernels.log")
        self.pool = WorkerPool(
            1, log_dir=self.log_dir, initializer=worker_init, initargs=(prewarm_log, self.options)
        ).pebble_pool()
        # start it now, from this long-lived thread (the parent-death signal is a thread's)
        self.pool.schedule(share_engines)

    def teardown(self, worker: Any = None) -> None:
        if self.pool is not None:
            self.pool.stop()
            self.pool.join()
            self.pool = None

    def grade(self, args: tuple, timeout: float) -> dict[str, Any]:
        """:func:`~.task.autograde_task` ``(*args)`` in the grading process, bounded by
        ``timeout`` seconds."""
        if self.pool is None:
            self.setup()
        start = time.monotonic()
        future = self.pool.schedule(autograde_task, args, timeout=timeout)
        try:
            return future.result()
        except Exception as exc:  # stopped at the bound, died, or raised
            return failed_outcome(failure_message(exc, timeout), time.monotonic() - start, exc)


def _grading_plugin(log_dir: Path | None, prewarm: bool, options: GradeOptions) -> Any:
    from distributed import WorkerPlugin

    class GradingPlugin(GradingProcess, WorkerPlugin):
        """:class:`GradingProcess` as a Dask worker plugin: set up in every worker,
        restarted ones too, torn down when unregistered or when the worker stops."""

    return GradingPlugin(str(log_dir) if log_dir is not None else None, prewarm, options)


def _grading_process() -> GradingProcess:
    """This Dask worker's :class:`GradingProcess` (one made here if none was registered)."""
    from distributed import get_worker

    try:
        plugins = get_worker().plugins
    except ValueError:  # not in a Dask worker (called directly)
        plugins = {}
    plugin = plugins.get(GradingProcess.name)
    if plugin is None:  # no warm kernels: the options only choose those (each task has its own)
        return _LOCAL.setdefault("plugin", GradingProcess(None, False, GradeOptions()))
    # registered by dask_executor under GradingProcess.name: a GradingProcess (made a
    # WorkerPlugin by _grading_plugin)
    return cast(GradingProcess, plugin)


#: The fallback grading process of a process that is not a Dask worker.
_LOCAL: dict[str, GradingProcess] = {}


#: Where a worker's temporary course keeps the course's nbgrader_config.py.
_WORKER_CONFIG = "course-config"


def _course_config_file(course: Course) -> bytes | None:
    """What a worker needs to build the course's configuration: the course's own
    ``nbgrader_config.py`` (another course's; this repository's is the worker's own)."""
    source = course.source
    if source.own or source.config_file is None or not source.config_file.is_file():
        return None
    return source.config_file.read_bytes()


def _worker_source(tmp: Path, config: bytes | None) -> CourseSource | None:
    """The course source of a worker's temporary course: the course's configuration, from
    *config*; None: this repository's course."""
    if config is None:
        return None
    folder = tmp / _WORKER_CONFIG
    folder.mkdir()
    (folder / CONFIG_NAME).write_bytes(config)
    return CourseSource(folder, tmp / "source", folder / CONFIG_NAME)


def grade_remote(
    source_zip: bytes,
    db_url: str,
    assignment: str,
    student: str,
    files: dict[str, bytes],
    options: GradeOptions,
    shown_root: str,
    timeout: float,
    prewarm: bool,
    config: bytes | None = None,
    hold: tuple[str, str] | None = None,
    kernel_graded: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """On a Dask worker: grade one submission in a private temporary course directory, in
    the worker's grading process (:class:`GradingProcess`), as ``options`` say (the sandbox
    or not, its feedback page or not), stopped after ``timeout`` seconds. ``config``: the
    course's ``nbgrader_config.py`` (None: this repository's course, whose configuration
    the worker has). ``hold``: (the gradebook URL of the scratch course of held students,
    the verdict's marker file): before the verdict, the submission is graded into that
    gradebook, and the outcome says ``held`` (:mod:`autograder.grading.hold`); after it,
    the marker holds the test cells the re-check leaves to the kernel's verdict.
    ``kernel_graded``: those cells, when the grader knew them as it sent the task.

    Returns :func:`~autograder.grading.task.autograde_task`'s outcome plus ``seconds``,
    ``autograded`` and ``feedback_files`` (relative path -> bytes). The temporary folder's
    path is replaced by ``shown_root`` (the grader's course directory) in the texts.
    """
    prepare_nbgrader()
    start = time.monotonic()
    # its owner recorded: a worker killed while it grades (by its nanny, by the cluster's
    # close) cannot remove it, the next sweep does (autograder.files.sweep_orphans)
    tmp = owned_tempdir(BATCH_PREFIX)
    held = hold is not None and not os.path.exists(hold[1])
    if held:
        assert hold is not None
        db_url = hold[0]
    elif hold is not None and kernel_graded is None:
        kernel_graded = read_verdict(hold[1])
    try:
        course = Course(tmp, db_url, _worker_source(tmp, config))
        with zipfile.ZipFile(io.BytesIO(source_zip)) as archive:
            source = {name: archive.read(name) for name in archive.namelist()}
        write_tree(course.source_dir(assignment), source)
        course.write_submission(assignment, student, files)
        args = (course, assignment, student, options, prewarm, None, kernel_graded)
        out = _grading_process().grade(args, timeout)
        root = str(course.root)
        for key in ("error", "log", "cause"):
            out[key] = out.get(key, "").replace(root, shown_root)
        out["flags"] = [flag.replace(root, shown_root) for flag in out["flags"]]
        out["autograded"] = read_tree(course.autograded_dir(student, assignment))
        out["feedback_files"] = read_tree(course.feedback_dir(student, assignment))
        out["held"] = held
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    out["seconds"] = time.monotonic() - start
    return out


# --------------------------------------------------------------------------- the grader side


def _worker_log_plugin(log_dir: Path) -> Any:
    from distributed import WorkerPlugin

    class LogToFile(WorkerPlugin):
        """A local worker's stdout and stderr (its kernels', nbgrader's) go to
        ``<log_dir>/dask-worker-<pid>.log``, as the pool's workers' do: the grader's
        terminal (and its progress bar) stays clean. Runs in every worker, restarted ones
        too."""

        name = "autograder-log-to-file"

        def setup(self, worker: Any) -> None:
            import os

            path = Path(log_dir) / f"dask-worker-{os.getpid()}.log"
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
            os.dup2(fd, 1)
            os.dup2(fd, 2)
            os.close(fd)

    return LogToFile()


@contextmanager
def dask_client(
    target: int | str, log_dir: Path | None = None, *, connect_timeout: float = CONNECT_TIMEOUT
) -> Iterator[Any]:
    """A ``distributed.Client``: of a new local cluster of ``target`` single-threaded worker
    processes (their output to ``log_dir``), or connected to the scheduler at address
    ``target``. The dashboard's link, when there is one (:func:`dashboard_link`), goes to
    stderr."""
    from distributed import Client, LocalCluster

    if isinstance(target, int):
        cluster = LocalCluster(
            n_workers=target,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=logging.ERROR,
        )
        try:
            with Client(cluster) as client:
                if log_dir is not None:
                    log_dir.mkdir(parents=True, exist_ok=True)
                    client.register_plugin(_worker_log_plugin(log_dir))
                _show_dashboard(client)
                yield client
        finally:
            cluster.close()
        return
    try:
        client = Client(target, timeout=connect_timeout)
    except OSError as exc:
        raise GradingError(f"cannot reach the Dask scheduler at {target}: {exc}") from None
    with client:
        _show_dashboard(client)
        yield client


def _show_dashboard(client: Any) -> None:
    link = dashboard_link(client)
    if link is not None:
        log.info("Dask dashboard: %s", link)


def _has_bokeh() -> bool:
    import importlib.util

    return importlib.util.find_spec("bokeh") is not None


def dashboard_link(client: Any) -> str | None:
    """The link to the scheduler's dashboard, or None when it has none to show: the
    scheduler runs no dashboard service, or it does (its HTTP server also answers health
    and metrics requests) without ``bokeh``, which draws the dashboard's pages."""
    if "dashboard" not in client.scheduler_info().get("services", {}):
        return None
    try:
        drawn = client.run_on_scheduler(_has_bokeh)
    except Exception:  # a scheduler that cannot run it: show the link, as Dask does
        drawn = True
    return client.dashboard_link if drawn else None


@contextmanager
def dask_executor(
    course: Course,
    options: GradeOptions,
    *,
    timeout: float,
    prewarm: bool = True,
) -> Iterator[Run]:
    """The Dask cluster of ``options.dask`` (:func:`parse_dask_target`), kept for several
    steps of one batch (the grading canary, then the class), grading as ``options`` say
    (the sandbox or not, the feedback pages): yields ``run(jobs, feedback=None)`` (None:
    as ``options`` say), which grades ``(assignment, student)``
    pairs already in ``submitted/`` (their students in the gradebook) on the same workers
    and grading processes, as :func:`~autograder.grading.batch.pool_executor`'s does, after
    writing the autograded notebooks and feedback pages each worker returned into the course
    directory. Each worker grades in its own grading process (:class:`GradingProcess`),
    each submission stopped after ``timeout`` seconds; ``prewarm`` forks kernels there
    from a warm box (sandboxed) or a pre-warmed template, as in the local pool."""
    if options.dask is None:
        raise GradingError("the Dask executor needs options naming a Dask target")
    dask = parse_dask_target(options.dask)
    log_dir = course.root / "logs" if isinstance(dask, int) else None
    with dask_client(dask, course.root / "logs") as client:
        client.register_plugin(_grading_plugin(log_dir, prewarm, options))
        sources: dict[str, Any] = {}  # assignment -> its scattered source, sent once

        def run(
            jobs: list[tuple[str, str]],
            feedback: bool | None = None,
            *,
            no_pages: Collection[tuple[str, str]] = (),
            hold: tuple[Course, str, Collection[tuple[str, str]]] | None = None,
            files: Mapping[tuple[str, str], Mapping[str, bytes]] | None = None,
            kernel_graded: dict[str, Any] | None = None,
        ) -> Iterator[tuple[str, str, dict[str, Any]]]:
            pages = options if feedback is None else dataclasses.replace(options, feedback=feedback)
            return _collect(
                client,
                course,
                jobs,
                pages,
                timeout,
                prewarm,
                sources,
                no_pages=no_pages,
                hold=hold,
                files=files or {},
                kernel_graded=kernel_graded,
            )

        # the workers of a local cluster reach the scratch course of the students graded
        # beside the canary (autograder.grading.hold); a scheduler's may be elsewhere
        try:
            yield Run(run, holds=isinstance(dask, int), takes_files=True)
        finally:
            if isinstance(dask, str):  # a running cluster's workers stop their process
                with contextlib.suppress(Exception):
                    client.unregister_worker_plugin(GradingProcess.name)


def _collect(
    client: Any,
    course: Course,
    jobs: list[tuple[str, str]],
    options: GradeOptions,
    timeout: float,
    prewarm: bool,
    sources: dict[str, Any],
    *,
    no_pages: Collection[tuple[str, str]] = (),
    hold: tuple[Course, str, Collection[tuple[str, str]]] | None = None,
    files: Mapping[tuple[str, str], Mapping[str, bytes]],
    kernel_graded: dict[str, Any] | None = None,
) -> Iterator[tuple[str, str, dict[str, Any]]]:
    from distributed import as_completed
    from distributed.comm import CommClosedError

    for a in sorted({a for a, _ in jobs} - set(sources)):
        # a task, not scattered data: the scheduler keeps what makes it, so a worker killed
        # while holding it costs a recomputation, not the run (scattered data is lost with
        # the worker, and every task that needs it cancelled)
        sources[a] = client.submit(bytes, zip_tree(course.source_dir(a)), pure=False)
    futures = {}
    held = hold[0] if hold is not None else None
    # where a task graded before the canary's verdict records it: the scratch gradebook and
    # the verdict's marker (autograder.grading.hold)
    held_to = (hold[0].db_url, hold[1]) if hold is not None else None
    without_pages = dataclasses.replace(options, feedback=False)
    for assignment, student in jobs:
        key = (assignment, student)
        given = files.get(key)
        future = client.submit(
            grade_remote,
            sources[assignment],
            course.db_url,
            assignment,
            student,
            dict(given)
            if given is not None
            else read_tree(course.submitted_dir(student, assignment)),
            without_pages if key in no_pages else options,
            str(course.root),
            timeout,
            prewarm,
            _course_config_file(course),
            held_to if key not in no_pages else None,
            kernel_graded,
            retries=RETRIES,
            pure=False,
        )
        futures[future] = (assignment, student, time.monotonic())
    try:
        for future in as_completed(futures):
            assignment, student, submitted_at = futures.pop(future)
            try:
                value = future.result()
            except (CancelledError, CommClosedError) as exc:  # the scheduler is gone (or its
                # connection broke while fetching a result): the grader's failure, nothing
                # recorded for this submission, so the next run grades it
                raise GradingError(
                    f"lost the Dask scheduler ({type(exc).__name__}); the grades recorded so "
                    "far are kept: run again to resume"
                ) from None
            except Exception as exc:  # the task's error, or KilledWorker: that submission's
                error = f"{type(exc).__name__}: {exc}"
                value = failed_outcome(error, time.monotonic() - submitted_at, exc)
            else:
                into = held if value.get("held") and held is not None else course
                write_tree(into.autograded_dir(student, assignment), value.pop("autograded"))
                pages = value.pop("feedback_files")
                if pages:
                    write_tree(into.feedback_dir(student, assignment), pages)
            yield assignment, student, value
    finally:  # the caller stopped early (a failed canary): what is left is not wanted
        if futures:
            with contextlib.suppress(Exception):
                client.cancel(list(futures))
