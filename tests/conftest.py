"""Test-wide settings: Hypothesis runs derandomised so CI is deterministic; the fixtures of the one
PostgreSQL server the session starts itself (``pg_server``, ``pg_url``: tests/pg.py) are available
to every test directory, so however many tests use it, one server runs."""

from hypothesis import HealthCheck, settings

pytest_plugins = ("tests.pg",)

settings.register_profile(
    "ci",
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    print_blob=True,
)
settings.load_profile("ci")
