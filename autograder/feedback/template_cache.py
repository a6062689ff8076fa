"""The feedback pages' compiled Jinja templates and highlighted code cells, kept for the
life of the process.

nbgrader's ``GenerateFeedback`` builds its exporter afresh for every submission, and the
exporter builds a new Jinja environment that parses and compiles nbgrader's ``feedback``
template and the nbconvert templates it extends again each time (about a sixth of a
page's CPU seconds). :class:`CompiledTemplates` is a Jinja bytecode cache
(:class:`jinja2.BytecodeCache`, the environment's own ``bytecode_cache``) that keeps what
the compiler made of each template file in memory: the next exporter's environment reads
the files, finds their compiled code here and skips the compiler.

Only the compiled code is shared, never an environment: each exporter keeps its own
environment, with its own filters (those bound to the exporter, the notebook's lexer)
and its own resources, exactly as nbconvert builds them. A template's entry is found by
its name and file (Jinja's key) and used only for the same source text (Jinja's
checksum, SHA-1 of the source), and only by an environment whose settings give the
compiler the same input (:func:`compiler_settings`, part of the key).

:class:`RememberedHighlight` keeps the other thing every page does again: the syntax
highlighting of code cells that are the same in every student's notebook (the
instructor's and the test cells), found by everything nbconvert's highlighter reads.
"""

from __future__ import annotations

import json
import threading
from collections import OrderedDict
from collections.abc import Hashable
from types import CodeType
from typing import Any

from jinja2 import Environment
from jinja2.bccache import Bucket, BytecodeCache


class CompiledTemplates(BytecodeCache):
    """Jinja's bytecode cache in memory: the compiled code of each template as it is (a
    code object, not marshalled), found by the template's name and file and the
    environment's compiler settings (:func:`compiler_settings`, read when the template is
    loaded), used only for the same source text."""

    def __init__(self) -> None:
        self._codes: dict[Hashable, tuple[str, CodeType]] = {}
        self._lock = threading.Lock()

    def get_bucket(
        self, environment: Environment, name: str, filename: str | None, source: str
    ) -> Bucket:
        key = (self.get_cache_key(name, filename), compiler_settings(environment))
        # jinja2 types a bucket's key as a str; it only keeps it, and ours is a tuple
        bucket = Bucket(environment, key, self.get_source_checksum(source))  # type: ignore[arg-type]
        self.load_bytecode(bucket)
        return bucket

    def load_bytecode(self, bucket: Bucket) -> None:
        with self._lock:
            entry = self._codes.get(bucket.key)
        if entry is not None and entry[0] == bucket.checksum:
            bucket.code = entry[1]

    def dump_bytecode(self, bucket: Bucket) -> None:
        if bucket.code is not None:
            with self._lock:
                self._codes[bucket.key] = (bucket.checksum, bucket.code)

    def clear(self) -> None:
        with self._lock:
            self._codes.clear()

    def __len__(self) -> int:
        return len(self._codes)


def _pass_arg(function: Any) -> Any:
    """How the compiled code calls a filter or test: with the context, the evaluation
    context, the environment or none (what Jinja's ``pass_*`` decorators set)."""
    return getattr(function, "jinja_pass_arg", None)


def compiler_settings(environment: Environment) -> tuple:
    """Everything of *environment* that the template compiler reads besides the source:
    the lexer's syntax, the extensions, autoescaping, async, the optimizer, ``finalize``,
    and which filters and tests exist and what each is passed (the compiled code calls
    each as the compiler found it)."""
    autoescape = environment.autoescape
    return (
        environment.block_start_string,
        environment.block_end_string,
        environment.variable_start_string,
        environment.variable_end_string,
        environment.comment_start_string,
        environment.comment_end_string,
        environment.line_statement_prefix,
        environment.line_comment_prefix,
        environment.trim_blocks,
        environment.lstrip_blocks,
        environment.newline_sequence,
        environment.keep_trailing_newline,
        tuple(sorted(environment.extensions)),
        autoescape if isinstance(autoescape, bool) else id(autoescape),
        environment.is_async,
        environment.optimized,
        environment.code_generator_class,
        environment.context_class,
        None if environment.finalize is None else ("finalize", _pass_arg(environment.finalize)),
        tuple(sorted((name, _pass_arg(f)) for name, f in environment.filters.items())),
        tuple(sorted((name, _pass_arg(f)) for name, f in environment.tests.items())),
    )


#: This process's compiled templates (a grading worker's: it renders every page it grades).
COMPILED_TEMPLATES = CompiledTemplates()


#: How many highlighted code cells a process keeps (the least recently used go first):
#: every instructor's and test cell of a course's notebooks, with room to spare.
HIGHLIGHTED_CELLS = 4096


class RememberedHighlight:
    """nbconvert's ``highlight_code`` filter (``Highlight2HTML``, made per page for the
    notebook's lexer) that gives a code cell's source it has
    highlighted before the HTML it got then: the instructor's and test cells are the same
    in every student's notebook. The HTML is found by everything ``Highlight2HTML`` reads:
    the source, the language (the notebook's lexer unless the template names one), the
    cell's ``magics_language`` where the language is IPython's, and the formatter's
    options; a call with anything that is not plain data goes straight to the filter."""

    def __init__(self, highlight: Any) -> None:
        self.highlight = highlight

    def __call__(self, source: str, language: str | None = None, metadata: Any = None) -> str:
        try:
            key = _highlight_key(self.highlight, source, language, metadata)
        except (TypeError, ValueError):
            return self.highlight(source, language, metadata)
        with _HIGHLIGHTED_LOCK:
            html = _HIGHLIGHTED.get(key)
            if html is not None:
                _HIGHLIGHTED.move_to_end(key)
                return html
        html = self.highlight(source, language, metadata)
        with _HIGHLIGHTED_LOCK:
            _HIGHLIGHTED[key] = html
            while len(_HIGHLIGHTED) > HIGHLIGHTED_CELLS:
                _HIGHLIGHTED.popitem(last=False)
        return html


def _highlight_key(highlight: Any, source: Any, language: Any, metadata: Any) -> tuple:
    language = language or highlight.pygments_lexer
    magics = None
    if language.startswith("ipython") and metadata and "magics_language" in metadata:
        magics = metadata["magics_language"]
    key = (
        type(highlight),
        source,
        language,
        magics,
        json.dumps(highlight.extra_formatter_options, sort_keys=True),
    )
    if not all(isinstance(part, str | type | None) for part in key):
        raise TypeError("not plain data")
    return key


_HIGHLIGHTED: OrderedDict[tuple, str] = OrderedDict()
_HIGHLIGHTED_LOCK = threading.Lock()
