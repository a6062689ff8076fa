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

from autograder.notebook import hidden_line_ranges, strip_hidden_tests
from autograder.recheck import scan, trusted
from autograder.sandbox import sandbox_unavailable_reason

REPO = Path(__file__).resolve().parents[3]
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


# What correct answers hand back: argsort/argmax give intp, np.sum of int32 gives int64,
# comparisons give bool, indexing a string array gives np.str_ (whose dtype is not
# np.dtype(np.str_), "<U0", but "<U<length>").
NUMPY_SCALARS = [
    np.int8(-5),
    np.int32(-3),
    np.int64(2**40),
    np.intp(7),
    np.uint8(200),
    np.uint64(2**63 + 1),
    np.float16(0.5),
    np.float32(1.25),
    np.float64(-2.5),
    np.complex64(1 - 2j),
    np.bool_(True),
    np.bool_(False),
    np.str_("spam"),
    np.array(["a", "chlorophyll"])[1],
    np.array(["a", "chlorophyll"])[0],
    np.str_(""),
    np.str_("κόσμε ✓"),
    np.argmax([3, 9, 1]),
    np.sum(np.array([1, 2], dtype=np.int32)),
    np.float32(np.nan),
    np.float64(-np.inf),
]
NUMPY_ARRAYS = [
    np.arange(4, dtype=np.int32),
    np.arange(4, dtype=np.int64).reshape(2, 2),
    np.argsort([3.0, 1.0, 2.0]),
    np.array([0.5, -1.5], dtype=np.float32),
    np.array([True, False]),
    np.array(["spam", "ham", "chlorophyll"]),
    np.array(["spam", "ham", "chlorophyll"])[np.argsort([2.0, 1.0, 3.0], kind="stable")][:2],
    np.array([], dtype=np.int32),
    np.zeros((0, 3)),
    np.array(1.5, dtype=np.float32),
    np.array([1, 2], dtype=">i4"),
    np.arange(6, dtype=np.float64)[::2],
]


def _same_numpy(back, value) -> bool:
    if type(back) is not type(value) or back.dtype != value.dtype:
        return False
    if isinstance(value, np.ndarray):
        return back.shape == value.shape and np.array_equal(
            back, value, equal_nan=value.dtype.kind in "fc"
        )
    return bool(back == value) or (value != value and back != back)


@pytest.mark.parametrize("value", NUMPY_SCALARS, ids=lambda v: f"{type(v).__name__}-{v!r}")
def test_numpy_scalars_of_every_plain_dtype_round_trip(value):
    back = trusted.decode(json.loads(json.dumps(trusted.encode(value))))
    assert _same_numpy(back, value), (back, value)


@pytest.mark.parametrize("value", NUMPY_ARRAYS, ids=lambda v: f"{v.dtype.str}-{v.shape}")
def test_numpy_arrays_of_every_plain_dtype_round_trip(value):
    back = trusted.decode(json.loads(json.dumps(trusted.encode(value))))
    assert _same_numpy(back, value), (back, value)
    assert back.flags.writeable  # a copy the grader may change, not a view of the reply


def test_numpy_values_inside_containers_round_trip():
    words = np.array(["spam", "ham"])
    value = {"top": [words[0], words[1]], "index": (np.intp(1), np.int32(2)), "ok": np.bool_(1)}
    back = trusted.decode(trusted.encode(value))
    assert type(back["top"][0]) is np.str_ and back["top"] == ["spam", "ham"]
    assert [type(v) for v in back["index"]] == [np.intp, np.int32]
    assert type(back["ok"]) is np.bool_


def _run_kernel_helper(monkeypatch, namespace: dict, request: dict):
    """Run the kernel-side helper here (no kernel), as the channel would, and return the
    reply decoded by the grader's strict decoder."""
    import IPython.display

    published = []
    monkeypatch.setattr(IPython.display, "publish_display_data", published.append)
    request = dict(request, nonce="n")
    exec(
        trusted._KERNEL_HELPER + "\n_ag_main(_ag_ns, _ag_req)\n",
        {"_ag_ns": namespace, "_ag_req": json.dumps(request)},
    )
    (data,) = published
    return json.loads(data[trusted.REPLY_MIME])


@pytest.mark.parametrize(
    "value", NUMPY_SCALARS + NUMPY_ARRAYS, ids=lambda v: f"{type(v).__name__}-{v.dtype.str}"
)
def test_the_kernel_side_codec_agrees_with_the_graders_both_ways(monkeypatch, value):
    # grader -> kernel: the argument arrives with its type and dtype; kernel -> grader:
    # the echoed value decodes strictly to the same thing.
    seen = []

    def echo(x):
        seen.append(x)
        return x

    reply = _run_kernel_helper(
        monkeypatch,
        {"echo": echo},
        {
            "op": "call",
            "name": "echo",
            "args": trusted.encode([value]),
            "kwargs": trusted.encode({}),
            "disable": [],
        },
    )
    assert reply["status"] == "ok", reply
    assert _same_numpy(seen[0], value)
    assert _same_numpy(trusted.decode(reply["value"]), value)


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
        {"__ag__": "np", "dtype": "<U0", "b64": ""},
        {"__ag__": "nd", "dtype": "<U0", "shape": [10**12], "b64": ""},
        {"__ag__": "np", "dtype": "<U2", "b64": "AAAA"},
        {"__ag__": "nd", "dtype": "|S3", "shape": [1], "b64": "YWJj"},
        {"__ag__": "nd", "dtype": "<M8[s]", "shape": [1], "b64": "AAAAAAAAAAA="},
        {"__ag__": "nd", "dtype": "not a dtype", "shape": [0], "b64": ""},
    ],
    ids=[
        "object-dtype",
        "short-data",
        "negative-shape",
        "unknown-tag",
        "bad-float",
        "untagged",
        "short-scalar",
        "empty-string-dtype",
        "huge-shape-of-nothing",
        "string-of-wrong-length",
        "bytes-dtype",
        "datetime-dtype",
        "unknown-dtype",
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
    assert hidden_line_ranges(source) == [(2, 5)]


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

def echo(x):
    return x

def typed_answers():
    words = np.array(["spam", "ham", "eggs"])
    scores = np.array([0.5, 2.0, 1.0], dtype=np.float32)
    order = np.argsort(-scores, kind="stable")
    return {
        "top_word": words[order[0]],
        "top_words": words[order][:2],
        "order": order,
        "best": np.argmax(scores),
        "total": np.sum(np.array([1, 2], dtype=np.int32)),
        "int32": np.int32(-3),
        "scores": scores,
        "mask": scores > 0.7,
        "any": np.any(scores > 1.0),
        "listed": [words[1], np.float32(0.5)],
    }

def signed_distance(X, w, b):
    return np.full(len(X), 123.0)  # the student's own, wrong

def distances_via_own_helper(X, w, b):
    return signed_distance(X, w, b)

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


def test_numpy_values_of_every_plain_dtype_come_back_from_the_kernel(channel):
    got = trusted.RemoteFunction(channel, "typed_answers")()
    expected = {
        "top_word": (np.str_, "<U3"),
        "top_words": (np.ndarray, "<U4"),
        "order": (np.ndarray, np.dtype(np.intp).str),
        "best": (np.intp, np.dtype(np.intp).str),
        "total": (np.int64, "<i8"),
        "int32": (np.int32, "<i4"),
        "scores": (np.ndarray, "<f4"),
        "mask": (np.ndarray, "|b1"),
        "any": (np.bool_, "|b1"),
    }
    for key, (kind, dtype) in expected.items():
        assert type(got[key]) is kind and got[key].dtype.str == dtype, (key, got[key])
    assert got["top_word"] == "ham" and got["top_words"].tolist() == ["ham", "eggs"]
    assert got["order"].tolist() == [1, 2, 0] and got["best"] == 1 and got["total"] == 3
    assert got["mask"].tolist() == [False, True, True] and got["any"]
    assert [type(v) for v in got["listed"]] == [np.str_, np.float32]


def test_numpy_arguments_of_every_plain_dtype_reach_the_kernel_and_come_back(channel):
    values = NUMPY_SCALARS + NUMPY_ARRAYS
    back = trusted.RemoteFunction(channel, "echo")(list(values))
    assert len(back) == len(values)
    for got, value in zip(back, values, strict=True):
        assert _same_numpy(got, value), (got, value)


def test_use_reference_runs_the_librarys_reference_in_the_kernel(channel):
    from linlib.grading import call_student

    fn = trusted.RemoteFunction(channel, "distances_via_own_helper")
    X, w = [[3.0, 4.0]], [3.0, 4.0]
    assert call_student(fn, X, w, 0.0).tolist() == [123.0]  # the student's own helper
    got = call_student(fn, X, w, 0.0, use_reference=("signed_distance",))
    assert got.tolist() == pytest.approx([5.0])
    mapped = {"signed_distance": "linlib.geometry.signed_distance"}
    assert call_student(fn, X, w, 0.0, use_reference=mapped).tolist() == pytest.approx([5.0])
    # Only during the call: the student's namespace is restored afterwards.
    assert call_student(fn, X, w, 0.0).tolist() == [123.0]
    found = channel.describe(["signed_distance"])
    assert found["signed_distance"]["kind"] == "callable"


def test_a_test_cell_with_use_reference_passes_in_the_recheck(channel):
    code = trusted.InstructorCode(
        [
            ("code", None, "import numpy as np\nfrom linlib.grading import assert_close"),
            ("solution", "a", "def signed_distance(X, w, b):\n    raise NotImplementedError()"),
            (
                "solution",
                "b",
                "def distances_via_own_helper(X, w, b):\n    raise NotImplementedError()",
            ),
            ("test", "t", ""),
        ]
    )
    source = (
        "from linlib.grading import assert_close, call_student\n"
        "assert_close(call_student(distances_via_own_helper, [[3.0, 4.0]], [3.0, 4.0], 0.0,\n"
        "    use_reference=('signed_distance',)), [5.0])\n"
    )
    assert trusted.run_test_cell("t", source, code, channel).passed
    without = source.replace("use_reference=('signed_distance',)", "disable=()")
    result = trusted.run_test_cell("t", without, code, channel)
    assert not result.passed


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
    from autograder.recheck.execute import SafeExecute

    pp = SafeExecute(**{"timeout": 20, **settings})
    nb, _ = pp.preprocess(nb, {"metadata": {"path": str(tmp_path)}})
    return nb


@pytest.mark.slow
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


@pytest.mark.slow
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


@pytest.mark.slow
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
