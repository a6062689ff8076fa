"""Run every ``benchmarks/bench_*.py`` module's ``main()``, or only those named.

Usage: ``python -m benchmarks`` (all) or ``python -m benchmarks linlib grading``; options
after one benchmark's name go to it (``python -m benchmarks scale --n 500``).
"""

from __future__ import annotations

import importlib
import pkgutil
import sys

import benchmarks


def available() -> list[str]:
    """Names of the benchmark modules, without the ``bench_`` prefix, sorted."""
    return sorted(
        info.name.removeprefix("bench_")
        for info in pkgutil.iter_modules(benchmarks.__path__)
        if info.name.startswith("bench_")
    )


def main(argv: list[str] | None = None) -> int:
    names = available()
    wanted = list(sys.argv[1:] if argv is None else argv)
    options = [arg for arg in wanted if arg.startswith("-")]
    if options:
        first = wanted.index(options[0])
        wanted, options = wanted[:first], wanted[first:]
        if len(wanted) != 1:
            print("options go after exactly one benchmark's name")
            return 2
    unknown = [name for name in wanted if name.removeprefix("bench_") not in names]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; available: {', '.join(names)}")
        return 2
    for name in [w.removeprefix("bench_") for w in wanted] or names:
        print(f"== benchmarks.bench_{name} ==", flush=True)
        module = importlib.import_module(f"benchmarks.bench_{name}")
        module.main(options) if options else module.main()
    return 0


if __name__ == "__main__":
    sys.exit(main())
