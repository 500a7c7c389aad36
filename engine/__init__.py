"""The rules engine: pure Python, synchronous, no I/O (see docs/RULES.md)."""
