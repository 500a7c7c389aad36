"""The tile game in parts: the turn context and one module per group of commands (moves,
claims, jokers, help, ending); engine/tiles.py holds :class:`~engine.tiles.TurnContext` and
dispatches to them."""
