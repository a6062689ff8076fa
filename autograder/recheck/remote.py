"""Proxies of the kernel's objects: what the trusted namespace holds for a name the student's
code bound to something that is not plain data.

An object of the student's kernel — an instance of the student's class, the class itself, a
generator, a module, a function that is not graded — stays in the kernel, under a handle
(``linlib._remote``); the grader holds a :class:`RemoteObject` whose every operation (an
attribute, a call, an item, ``next``, ``len``, a comparison, arithmetic) is one request on
the channel, answered as plain data or as another proxy. A class of the kernel's is a
class here too (of the metaclass :class:`RemoteType`), named as the student named it, so
that ``Counter(3)`` makes an instance in the kernel, ``type(c) is Counter`` holds and
``isinstance(c, Counter)`` asks the kernel.

Nothing a proxy answers is trusted, but most of it is no more than what a call of a
student's function returns: a value that the test then judges with its own code. A
comparison, a truth value, a membership test or arithmetic with the test's own value is
different: there the student's code decides the outcome itself (an ``__eq__`` that is
always true). Each such decision is recorded on the channel (``note_decision``); the
runner reports the test cell as resting on the student's code
(:attr:`~autograder.recheck.runner.CheckResult.decided_by`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

__all__ = ["Proxies", "RecheckLimit", "RemoteObject", "RemoteType"]


class RecheckLimit(Exception):
    """The re-check cannot run this test cell as the kernel ran it: its verdict is left to
    the kernel where the instructor's own solution meets the same limit."""


class _Channel(Protocol):
    def apply(self, fn: str, args: list[Any], kwargs: dict[str, Any] | None = None) -> Any: ...

    def note_decision(self, text: str) -> None: ...


#: Attributes a library looks for on any object (numpy, copy, pickle, IPython's display):
#: answered here (absent), not asked of the kernel each time.
_LOCAL_ABSENT_PREFIXES = ("__array_", "_repr_", "_ipython_")
#: Double-underscore attributes that are asked of the kernel; any other is absent here.
_REMOTE_DUNDERS = frozenset(
    {"__dict__", "__doc__", "__module__", "__annotations__", "__defaults__", "__wrapped__"}
)


def _check_attribute(name: str) -> None:
    dunder = name.startswith("__") and name.endswith("__")
    if (dunder and name not in _REMOTE_DUNDERS) or name.startswith(_LOCAL_ABSENT_PREFIXES):
        raise AttributeError(name)


class RemoteType(type):
    """The metaclass of the proxies of the kernel's classes (and of their instances'
    classes): calling such a class makes an instance in the kernel; an instance check
    asks the kernel."""

    _channel: _Channel
    _handle: int

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        if getattr(cls, "_handle", None) is None:
            return super().__call__(*args, **kwargs)
        return cls._channel.apply("call", [cls, *args], kwargs)

    def __instancecheck__(cls, instance: Any) -> bool:
        if getattr(cls, "_handle", None) is None:
            return super().__instancecheck__(instance)
        if type(instance) is cls:
            return True
        if not isinstance(instance, RemoteObject):
            return False
        return bool(cls._channel.apply("isinstance", [instance, cls]))

    def __subclasscheck__(cls, sub: Any) -> bool:
        if getattr(cls, "_handle", None) is None or not isinstance(sub, RemoteType):
            return super().__subclasscheck__(sub)
        return sub is cls or bool(cls._channel.apply("issubclass", [sub, cls]))

    def __getattr__(cls, name: str) -> Any:
        if name.startswith("_") and name in ("_handle", "_channel"):
            raise AttributeError(name)
        _check_attribute(name)
        return cls._channel.apply("getattr", [cls, name])

    def __repr__(cls) -> str:
        return f"<student class {cls.__name__}>"


def _binary(name: str, reflected: bool = False) -> Callable[..., Any]:
    def operation(self: Any, other: Any) -> Any:
        self._channel_.note_decision(f"{type(self).__name__}.__{name.strip('_')}__")
        args = [other, self] if reflected else [self, other]
        return self._channel_.apply(name, args)

    operation.__name__ = f"__{'r' if reflected else ''}{name.strip('_')}__"
    return operation


def _unary(name: str, decides: bool = False) -> Callable[..., Any]:
    def operation(self: Any, *args: Any) -> Any:
        if decides:
            self._channel_.note_decision(f"{type(self).__name__}.__{name}__")
        return self._channel_.apply(name, [self, *args])

    operation.__name__ = f"__{name}__"
    return operation


class RemoteObject(metaclass=RemoteType):
    """An object of the student's kernel, reached by its handle."""

    __slots__ = ("_channel_", "_handle_", "_kind_")

    def __getattr__(self, name: str) -> Any:
        _check_attribute(name)
        return self._channel_.apply("getattr", [self, name])

    def __setattr__(self, name: str, value: Any) -> None:
        if name in RemoteObject.__slots__:
            object.__setattr__(self, name, value)
        else:
            self._channel_.apply("setattr", [self, name, value])

    def __delattr__(self, name: str) -> None:
        self._channel_.apply("delattr", [self, name])

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self._channel_.apply("call", [self, *args], kwargs)

    def __getitem__(self, key: Any) -> Any:
        return self._channel_.apply("getitem", [self, key])

    def __setitem__(self, key: Any, value: Any) -> None:
        self._channel_.apply("setitem", [self, key, value])

    def __delitem__(self, key: Any) -> None:
        self._channel_.apply("delitem", [self, key])

    def __iter__(self) -> Any:
        return self._channel_.apply("iter", [self])

    def __next__(self) -> Any:
        return self._channel_.apply("next", [self])

    def __len__(self) -> int:
        return int(self._channel_.apply("len", [self]))

    def __bool__(self) -> bool:
        self._channel_.note_decision(f"{type(self).__name__}.__bool__")
        return bool(self._channel_.apply("bool", [self]))

    def __contains__(self, item: Any) -> bool:
        self._channel_.note_decision(f"{type(self).__name__}.__contains__")
        return bool(self._channel_.apply("contains", [self, item]))

    def __hash__(self) -> int:
        return int(self._channel_.apply("hash", [self]))

    def __repr__(self) -> str:
        return str(self._channel_.apply("repr", [self]))

    def __str__(self) -> str:
        return str(self._channel_.apply("str", [self]))

    def __format__(self, spec: str) -> str:
        return str(self._channel_.apply("format", [self, spec]))

    def __float__(self) -> float:
        return float(self._channel_.apply("float", [self]))

    def __int__(self) -> int:
        return int(self._channel_.apply("int", [self]))

    def __index__(self) -> int:
        return int(self._channel_.apply("index", [self]))

    def __complex__(self) -> complex:
        return complex(self._channel_.apply("complex", [self]))

    def __round__(self, *args: Any) -> Any:
        return self._channel_.apply("round", [self, *args])

    def __array__(self, dtype: Any = None, copy: Any = None) -> Any:
        import numpy as np

        return np.asarray(self._channel_.apply("array", [self]), dtype=dtype)

    def __enter__(self) -> Any:
        return self._channel_.apply("call", [self._channel_.apply("getattr", [self, "__enter__"])])

    def __exit__(self, *exc: Any) -> Any:
        method = self._channel_.apply("getattr", [self, "__exit__"])
        return self._channel_.apply("call", [method, None, None, None])

    __eq__ = _binary("eq")
    __ne__ = _binary("ne")
    __lt__ = _binary("lt")
    __le__ = _binary("le")
    __gt__ = _binary("gt")
    __ge__ = _binary("ge")
    __neg__ = _unary("neg", decides=True)
    __pos__ = _unary("pos", decides=True)
    __abs__ = _unary("abs", decides=True)
    __invert__ = _unary("invert", decides=True)


for _name in "add sub mul matmul truediv floordiv mod pow lshift rshift and_ or_ xor".split():
    _plain = _name.strip("_")
    setattr(RemoteObject, f"__{_plain}__", _binary(_name))
    setattr(RemoteObject, f"__r{_plain}__", _binary(_name, reflected=True))


class Proxies:
    """The proxies of one kernel: one per handle, one class per class of the kernel."""

    def __init__(self, channel: _Channel) -> None:
        self._channel = channel
        self._objects: dict[int, Any] = {}
        self._classes: dict[int, RemoteType] = {}

    def cls(self, handle: int, name: str) -> RemoteType:
        """The proxy class of the kernel's class *handle*."""
        known = self._classes.get(handle)
        if known is None:
            safe = name if name.isidentifier() else "StudentObject"
            known = RemoteType(safe, (RemoteObject,), {"__slots__": ()})
            known._channel = self._channel
            known._handle = handle
            self._classes[handle] = known
            self._objects[handle] = known
        return known

    def get(self, tag: dict[str, Any]) -> Any:
        """The proxy of the reference *tag* (``{"__ag__": "obj", ...}``, checked by the
        codec): the same proxy for the same handle each time."""
        handle = tag["id"]
        known = self._objects.get(handle)
        if known is not None:
            return known
        if tag["kind"] == "class":
            return self.cls(handle, tag["name"])
        proxy_class = self.cls(tag["type"], tag["type_name"])
        proxy: Any = object.__new__(proxy_class)  # type: ignore[arg-type]
        object.__setattr__(proxy, "_channel_", self._channel)
        object.__setattr__(proxy, "_handle_", handle)
        object.__setattr__(proxy, "_kind_", tag["kind"])
        self._objects[handle] = proxy
        return proxy

    @staticmethod
    def handle(value: Any) -> int | None:
        """The kernel's handle of a proxy (None: not a proxy)."""
        if isinstance(value, RemoteType):
            return getattr(value, "_handle", None)
        if isinstance(value, RemoteObject):
            return value._handle_
        return None
