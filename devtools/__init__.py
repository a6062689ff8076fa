"""What the tests and the benchmarks share, and the course's packages never use: a
throw-away PostgreSQL cluster (:mod:`devtools.postgres`).

Run from the repository root (``python -m benchmarks``, pytest), not installed; it imports
neither ``tests`` nor ``benchmarks`` (the import contract in ``pyproject.toml`` checks it).
"""
