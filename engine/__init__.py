"""The rules engine: pure Python, synchronous, no I/O (see ../shared/RULES.md)."""
