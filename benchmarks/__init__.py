"""Benchmarks: ``python -m benchmarks [name ...]`` runs each ``bench_<name>.py``'s ``main()``.

They print figures; they are not tests (timings on a shared machine are noisy).
"""
