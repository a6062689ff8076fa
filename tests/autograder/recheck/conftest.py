"""The re-check's tests of remote calls share a student's kernel in the sandbox."""

from __future__ import annotations

import pytest

from autograder.recheck import KernelChannel
from tests.needs import require_sandbox

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

def sleeps():
    import time
    time.sleep(10**6)

def hang():
    import signal
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    while True:
        pass

def echo(x):
    return x

def echo_copy(x):
    import copy
    return copy.deepcopy(x)

def keep_or_copy(w, copy):
    w = np.asarray(w, dtype=float)
    return (w.copy() if copy else w), copy

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

def gram(X, kernel):
    return np.array([[kernel(a, b) for b in X] for a in X])

def apply_all(functions, x):
    functions.reverse()
    return [f(x) for f in functions]

def give_back(f):
    return f

answer = [1, 2.5, "three"]
"""


@pytest.fixture(scope="module")
def kernel():
    require_sandbox()
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
    return KernelChannel(km, kc, call_timeout=5, interrupt_grace=2)
