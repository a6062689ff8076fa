"""Plain values the re-check's encoder and decoder must carry exactly (shared by the tests
of ``linlib.grader_kernel_wire``, ``linlib._remote`` and ``autograder.recheck``)."""

from __future__ import annotations

import numpy as np
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

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


def same(a, b) -> bool:
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    if isinstance(a, list | tuple):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return a == b


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


def same_numpy(back, value) -> bool:
    if type(back) is not type(value) or back.dtype != value.dtype:
        return False
    if isinstance(value, np.ndarray):
        return back.shape == value.shape and np.array_equal(
            back, value, equal_nan=value.dtype.kind in "fc"
        )
    return bool(back == value) or (value != value and back != back)
