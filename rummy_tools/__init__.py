"""The ``rummy`` command-line tool: engine, solver, computer-player and picture commands.

The engine and the renderer promise no I/O, so their command lines live here, above both:

- :mod:`.engine_cli` - ``rummy validate``, ``turn`` and ``score`` (tile and card games);
- :mod:`.cards_cli` - ``rummy settle`` and the card halves of validate/turn/score;
- :mod:`.solver_cli` - ``rummy solve``; :mod:`.ai_cli` - ``rummy simulate`` and ``stats``;
- :mod:`.render_cli` - ``rummy render`` (PNG pictures);
- :mod:`.main` - assembles them into one parser (``rummy``, ``python -m rummy_tools``).

This package imports the engine and rendering only (never ``bot``); the import-linter contracts in
pyproject.toml check it.
"""
