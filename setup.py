"""Build the solver's C core (engine/_dp.c); everything else is declared in pyproject.toml."""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension("engine._dp", ["engine/_dp.c"], extra_compile_args=["-O2", "-std=c11"]),
    ]
)
