"""The trusted re-check's parts: plain-data codec, remote calls into a sandboxed kernel,
hidden-test stripping, name resolution, and the tampering scan."""

from __future__ import annotations

import copy
import json
import math
import time
from pathlib import Path

import nbformat
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from nbgrader.preprocessors import ClearHiddenTests

from autograder import scan, trusted
from autograder.safe_execute import strip_hidden_tests
from autograder.sandbox import sandbox_unavailable_reason

REPO = Path(__file__).resolve().parents[1]
SOURCE_NOTEBOOKS = sorted(REPO.glob("notebooks/*/*.ipynb"))


# --------------------------------------------------------------------------- codec

scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=20),
    st.complex_numbers(allow_nan=False),
)
arrays = hnp.arrays(
    dtype=st.sampled_from([np.float64, np.float32, np.int64, np.int8, np.bool_, np.uint16]),
    shape=hnp.array_shapes(min_dims=0, max_dims=3, max_side=4),
)
plain = st.recursive(
    st.one_of(scalars, arrays),
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.lists(inner, max_size=4).map(tuple),
        st.dictionaries(st.one_of(st.text(max_size=5), st.integers()), inner, max_size=4),
    ),
    max_leaves=12,
)


def _same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return a == b


@given(plain)
def test_plain_data_round_trips_exactly(value):
    assert _same(trusted.decode(trusted.encode(value)), value)


@pytest.mark.parametrize(
    "value",
    [np.float64(2.5), np.int32(-3), np.bool_(True), float("nan"), -math.inf, {1, 2}],
)
def test_special_values_round_trip(value):
    back = trusted.decode(trusted.encode(value))
    assert type(back) is type(value)
    assert back == value or (value != value and back != back)


class AlwaysEqual:
    def __eq__(self, other):
        return True


class ArraySubclass(np.ndarray):
    def __eq__(self, other):
        return True


@pytest.mark.parametrize(
    "value",
    [
        AlwaysEqual(),
        np.zeros(3).view(ArraySubclass),
        np.array([AlwaysEqual()], dtype=object),
        [1, 2, lambda: 3],
        {"key": object()},
    ],
    ids=["object", "array-subclass", "object-array", "lambda", "object-in-dict"],
)
def test_objects_that_are_not_plain_data_are_refused(value):
    with pytest.raises(trusted.NotPlainData):
        trusted.encode(value)


@pytest.mark.parametrize(
    "obj",
    [
        {"__ag__": "nd", "dtype": "|O", "shape": [1], "b64": "AAAAAAAAAAA="},
        {"__ag__": "nd", "dtype": "<f8", "shape": [3], "b64": "AAAAAAAAAAA="},
        {"__ag__": "nd", "dtype": "<f8", "shape": [-1], "b64": ""},
        {"__ag__": "pickle", "data": "gASVAAAAAAAAAAA="},
        {"__ag__": "float", "v": "__import__('os')"},
        {"not": "tagged"},
        {"__ag__": "np", "dtype": "<f8", "b64": "AAAA"},
    ],
    ids=[
        "object-dtype",
        "short-data",
        "negative-shape",
        "unknown-tag",
        "bad-float",
        "untagged",
        "short-scalar",
    ],
)
def test_decoding_is_strict(obj):
    with pytest.raises((trusted.NotPlainData, ValueError)):
        trusted.decode(obj)


def test_decoding_refuses_deep_nesting():
    deep = 1
    for _ in range(200):
        deep = [deep]
    with pytest.raises(trusted.NotPlainData):
        trusted.decode(deep)


# --------------------------------------------------------------------------- hidden tests


def _test_cells():
    for path in SOURCE_NOTEBOOKS:
        nb = nbformat.read(str(path), as_version=4)
        for cell in nb.cells:
            meta = cell.get("metadata", {}).get("nbgrader", {})
            if cell.cell_type == "code" and meta.get("grade") and not meta.get("solution"):
                yield path.stem, cell


def test_strip_hidden_tests_matches_nbgrader():
    cells = list(_test_cells())
    if not cells:
        pytest.skip("no course notebooks yet")
    clearer = ClearHiddenTests()
    stripped = 0
    for _, cell in cells:
        reference = copy.deepcopy(cell)
        removed = clearer._remove_hidden_test_region(reference)
        assert strip_hidden_tests(cell.source) == reference.source
        stripped += removed
    assert stripped > 0


def test_hidden_line_ranges_cover_the_hidden_lines():
    source = "a = 1\n### BEGIN HIDDEN TESTS\nb = 2\nc = 3\n### END HIDDEN TESTS\nd = 4"
    assert trusted.hidden_line_ranges(source) == [(2, 5)]


def test_free_names_are_what_a_cell_reads_but_does_not_bind():
    source = (
        "import numpy as np\n"
        "from linlib.grading import call_student\n"
        "def check(v):\n"
        "    return helper(v) + [w for w in v]\n"
        "X = np.arange(3)\n"
        "check(call_student(signed_distance, X, w_true, b=0.5))\n"
        "lambda q: q + len(X)\n"
    )
    assert trusted.free_names(source) - {"len"} == {"helper", "signed_distance", "w_true"}


def test_instructor_code_finds_graded_functions_and_bindings():
    cells = [
        ("code", None, "%matplotlib inline\nimport numpy as np\nX = np.eye(2)"),
        ("solution", "a1", 'def f(x):\n    """stub"""\n    raise NotImplementedError()'),
        ("test", "t1", "assert f(X) is not None"),
        ("code", None, "X = np.zeros(2)"),
        ("solution", "a2", "answer = None"),
    ]
    code = trusted.InstructorCode(cells)
    assert code.graded_functions == {"f"}
    # the test cell sees the X bound before it, not the later one
    assert "eye" in trusted.ast.unparse(code.binding_before("X", code.positions["t1"]).stmt)
    assert code.binding_before("answer", None).kind == "solution"


# --------------------------------------------------------------------------- the scan


@pytest.mark.parametrize(
    ("code", "expected"),
    [
        ("import numpy as np\nnp.testing.assert_allclose = lambda *a, **k: None", "patches"),
        ("import linlib.grading as g\nsetattr(g, 'assert_close', print)", "patches"),
        ("assert_close = print", "rebinds assert_close"),
        ("get_ipython().ast_transformers.append(T())", "AST transformers"),
        ("class A:\n    def __eq__(self, o):\n        return True", "comparison tricks"),
        ("import glob\nglob.glob('/**/*.ipynb', recursive=True)", "notebook"),
        ("open('../source/01/01.ipynb').read()", "notebook"),
        ("import subprocess\nsubprocess.run(['ls'])", "starts processes"),
        ("import os\nos._exit(0)", "os._exit"),
        ("import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)", "signal handler"),
        ("import socket\nsocket.create_connection(('127.0.0.1', 80))", "network"),
        ("import sys\nsys.modules['numpy'] = None", "sys.modules"),
        ("f.__code__ = g.__code__", "swaps a function's code"),
        ("import inspect, linlib\ninspect.getsource(linlib)", "reads source code"),
        ("exec('x = 1')", "exec"),
    ],
)
def test_scan_finds_tampering(code, expected):
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(code)])
    instructor = ["import numpy as np\nfrom linlib.grading import assert_close, call_student"]
    findings = [str(f) for f in scan.scan_notebook(nb, instructor_sources=instructor)]
    assert any(expected in f for f in findings), findings


def test_scan_leaves_the_instructors_own_answers_alone():
    """Honest code is not flagged: the source notebooks, handed in as they are."""
    if not SOURCE_NOTEBOOKS:
        pytest.skip("no course notebooks yet")
    for path in SOURCE_NOTEBOOKS:
        nb = nbformat.read(str(path), as_version=4)
        instructor = [
            c.source
            for c in nb.cells
            if c.cell_type == "code"
            and not c.get("metadata", {}).get("nbgrader", {}).get("solution")
        ]
        findings = scan.scan_notebook(nb, instructor_sources=instructor)
        assert findings == [], (path.name, [str(f) for f in findings])


# --------------------------------------------------------------------------- remote calls

REASON = sandbox_unavailable_reason()

STUDENT_CODE = """
import numpy as np
import linlib
import warnings

def scale(x, k=2):
    warnings.warn("noisy but right")
    return np.asarray(x, dtype=float) * k

def pair(a):
    return (np.float32(a), {"n": int(a)})

def grow(items, arr):
    items.append(99)
    arr[0] = -1.0
    return None

class Sneaky(ValueError):
    pass

def fails(kind):
    if kind == "value":
        raise ValueError("bad input")
    if kind == "sneaky":
        raise Sneaky("subclass")
    raise KeyboardInterrupt()

class Anything:
    def __eq__(self, other):
        return True

def lies():
    return Anything()

def uses_reference(X, w, b):
    return linlib.signed_distance(X, w, b)

def hang():
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        pass

answer = [1, 2.5, "three"]
"""


@pytest.fixture(scope="module")
def kernel():
    if REASON is not None:
        pytest.skip(f"no sandbox: {REASON}")
    from jupyter_core.utils import run_sync

    from autograder.sandbox import SandboxedKernelManager

    km = SandboxedKernelManager()
    run_sync(km.start_kernel)()
    kc = km.client()
    kc.start_channels()
    run_sync(kc.wait_for_ready)(timeout=60)
    reply = run_sync(kc.execute_interactive)(STUDENT_CODE, timeout=60, output_hook=lambda m: None)
    assert reply["content"]["status"] == "ok"
    yield km, kc
    kc.stop_channels()
    run_sync(km.shutdown_kernel)(now=True)


@pytest.fixture
def channel(kernel):
    km, kc = kernel
    return trusted.KernelChannel(km, kc, call_timeout=5, interrupt_grace=2)


def test_a_remote_call_brings_back_plain_values(channel):
    from linlib.grading import assert_close, call_student

    scale = trusted.RemoteFunction(channel, "scale")
    result = call_student(scale, [1, 2, 3], k=-1.5)
    assert isinstance(result, np.ndarray)
    assert_close(result, [-1.5, -3.0, -4.5])
    value, info = trusted.RemoteFunction(channel, "pair")(7)
    assert type(value) is np.float32 and value == 7 and info == {"n": 7}


def test_in_place_changes_to_arguments_are_mirrored(channel):
    items, arr = [1, 2], np.zeros(2)
    assert trusted.RemoteFunction(channel, "grow")(items, arr) is None
    assert items == [1, 2, 99]
    assert arr.tolist() == [-1.0, 0.0]


def test_the_students_exceptions_come_back_as_ordinary_ones(channel):
    from linlib.grading import assert_raises

    fails = trusted.RemoteFunction(channel, "fails")
    assert_raises(ValueError, fails, "value")
    error = assert_raises(ValueError, fails, "sneaky")
    assert "Sneaky" in " ".join(getattr(error, "__notes__", []))
    with pytest.raises(trusted.StudentCodeError):
        fails("interrupt")


def test_an_always_equal_object_cannot_come_back(channel):
    with pytest.raises(trusted.NotPlainData, match="Anything"):
        trusted.RemoteFunction(channel, "lies")()


def test_disabled_references_stay_disabled_in_the_kernel(channel):
    from linlib.grading import ReferenceDisabledError, call_student

    fn = trusted.RemoteFunction(channel, "uses_reference")
    X, w = [[3.0, 4.0]], [3.0, 4.0]
    assert call_student(fn, X, w, 0.0)[0] == pytest.approx(5.0)
    with pytest.raises(ReferenceDisabledError):
        call_student(fn, X, w, 0.0, disable=("signed_distance",))


def test_plain_data_names_are_fetched_and_functions_are_not(channel):
    found = channel.describe(["answer", "scale", "np", "nothing_here"])
    assert trusted.decode(found["answer"]["value"]) == [1, 2.5, "three"]
    assert found["scale"]["kind"] == "callable"
    assert found["np"] == {"kind": "module", "module": "numpy"}
    assert found["nothing_here"]["kind"] == "missing"


def test_a_test_cell_runs_here_with_the_students_function_remote(channel):
    code = trusted.InstructorCode(
        [
            ("code", None, "import numpy as np\nfrom linlib.grading import assert_close"),
            ("solution", "a", "def scale(x, k=2):\n    raise NotImplementedError()"),
            ("test", "t", "assert_close(call_student(scale, [1.0], 3), [3.0])"),
        ]
    )
    source = (
        "from linlib.grading import call_student\n"
        "assert_close(call_student(scale, [1.0], 3), [3.0])\n"
        "### BEGIN HIDDEN TESTS\n"
        "assert_close(call_student(scale, np.arange(3)), [0.0, 2.0, 5.0])\n"
        "### END HIDDEN TESTS\n"
    )
    result = trusted.run_test_cell("t", source, code, channel)
    assert not result.passed and result.where == "hidden"
    assert result.calls == 2
    good = source.replace("5.0", "4.0")
    assert trusted.run_test_cell("t", good, code, channel).passed


def test_a_call_that_ignores_interrupts_times_out_and_the_kernel_is_killed(kernel):
    # last: it kills the module's kernel
    km, kc = kernel
    channel = trusted.KernelChannel(km, kc, call_timeout=2, interrupt_grace=1)
    with pytest.raises(trusted.KernelCallTimeout):
        trusted.RemoteFunction(channel, "hang")()
    assert channel.dead_reason
    with pytest.raises(trusted.KernelUnavailable):
        trusted.RemoteFunction(channel, "scale")([1])
    assert km.sandbox is not None and km.sandbox.pids() == []


# --------------------------------------------------------------------------- SafeExecute


def _meta(**kw):
    base = {"grade": False, "solution": False, "locked": False, "schema_version": 3}
    base.update(kw)
    return {"nbgrader": base}


def _tiny_notebook(answer: str) -> nbformat.NotebookNode:
    """Setup, one answer cell, one test cell with a hidden part that prints a marker."""
    cells = [
        nbformat.v4.new_code_cell(
            "import numpy as np\nfrom linlib.grading import assert_close, call_student",
            metadata=_meta(grade_id="setup", locked=True),
        ),
        nbformat.v4.new_code_cell(answer, metadata=_meta(grade_id="scale_answer", solution=True)),
        nbformat.v4.new_code_cell(
            '"""scale: doubles."""\n'
            "assert_close(call_student(scale, [1.0, 2.0]), [2.0, 4.0])\n"
            "### BEGIN HIDDEN TESTS\n"
            "print('HIDDEN-MARKER')\n"
            "assert_close(call_student(scale, [-3.0]), [-6.0])\n"
            "### END HIDDEN TESTS",
            metadata=_meta(grade_id="scale_tests", grade=True, locked=True, points=1),
        ),
    ]
    return nbformat.v4.new_notebook(
        cells=cells, metadata={"kernelspec": {"name": "python3", "display_name": "Python 3"}}
    )


def _safe_execute(nb, tmp_path, **settings):
    from autograder.safe_execute import SafeExecute

    pp = SafeExecute(**{"timeout": 20, **settings})
    nb, _ = pp.preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    return nb


@pytest.mark.skipif(REASON is not None, reason=f"no sandbox: {REASON}")
def test_safe_execute_passes_a_correct_answer_and_never_runs_hidden_tests_in_the_kernel(
    tmp_path,
):
    nb = _safe_execute(_tiny_notebook("def scale(x):\n    return np.asarray(x) * 2.0"), tmp_path)
    test = nb.cells[2]
    assert [o for o in test.outputs if o.output_type == "error"] == []
    assert "HIDDEN-MARKER" not in json.dumps(test.outputs)
    assert "BEGIN HIDDEN TESTS" in test.source  # the graded copy keeps the instructor's source
    meta = nb.metadata["autograder"]
    assert meta["checks"]["scale_tests"]["kernel"] == "pass"
    assert meta["checks"]["scale_tests"]["trusted"] == "pass"
    assert meta["checks"]["scale_tests"]["calls"] == 2
    assert meta["flags"] == []


@pytest.mark.skipif(REASON is not None, reason=f"no sandbox: {REASON}")
def test_safe_execute_fails_a_tampered_wrong_answer_and_flags_it(tmp_path):
    answer = (
        "import linlib.grading\n"
        "linlib.grading.assert_close = lambda *a, **k: None\n"
        "assert_close = linlib.grading.assert_close\n"
        "def assert_close(*args, **kwargs):  # must not stand in for the real one\n"
        "    return None\n"
        "def scale(x):\n"
        "    return np.abs(np.asarray(x)) * 2.0\n"
    )
    nb = _safe_execute(_tiny_notebook(answer), tmp_path)
    errors = [o for o in nb.cells[2].outputs if o.output_type == "error"]
    assert len(errors) == 1 and errors[0].ename == "AssertionError"
    assert "HIDDEN-MARKER" not in json.dumps(nb.cells[2].outputs)
    assert "assert_close(call_student(scale, [-3.0])" not in json.dumps(errors)
    check = nb.metadata["autograder"]["checks"]["scale_tests"]
    assert (check["kernel"], check["trusted"], check["where"]) == ("pass", "fail", "hidden")
    flags = nb.metadata["autograder"]["flags"]
    assert any("patches" in f for f in flags), flags
    assert any("rebinds assert_close" in f for f in flags), flags


@pytest.mark.skipif(REASON is not None, reason=f"no sandbox: {REASON}")
def test_safe_execute_stops_an_uninterruptible_cell_and_scores_what_follows_zero(tmp_path):
    answer = (
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\n"
        "def scale(x):\n    return np.asarray(x) * 2.0\n"
        "while True:\n    pass\n"
    )
    start = time.monotonic()
    nb = _safe_execute(_tiny_notebook(answer), tmp_path, timeout=3, interrupt_grace=1)
    assert time.monotonic() - start < 60
    assert any(o.output_type == "error" for o in nb.cells[2].outputs)
    check = nb.metadata["autograder"]["checks"]["scale_tests"]
    assert check["kernel"] == "not run" and check["trusted"] == "fail"
    assert any("did not stop when interrupted" in f for f in nb.metadata["autograder"]["flags"])
