"""Shared pytest configuration: a deterministic Hypothesis profile, loaded by default."""

from hypothesis import HealthCheck, settings

# Derandomized, no example database, no deadline: the suite runs on a shared 2-core CI
# machine where timing-based deadlines would make tests flaky.
settings.register_profile(
    "course",
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("course")
