"""The card games' parts (RULES.md presets ``romme`` and ``rummy``), split along their seams.

:class:`engine.cards.CardGame` is the state and the surface; the rest lives here:

- :mod:`.scoring`: Rommé penalties, Rummy points, the score of a finished game;
- :mod:`.parse`: the one reader of a card message (commands plus variant b's declared jokers);
- :mod:`.words`: errors worded for cards (cards, suits, ranks; Karten, Farben);
- :mod:`.table`: table melds and their geometry (runs by position from :mod:`engine.melds`);
- :mod:`.moves`: the command handlers (draw, pick, meld, add, swap, undo, reset, discard, done,
  hint) over the worked-on copy of the game;
- :mod:`.hint`: the ``hint`` answer (what to type next, as data), from the exact plan of
  :mod:`engine.cardplan`;
- :mod:`.strong`: the ``strong`` computer player of the card games (hold until the whole hand
  goes, discard by live cards), also the hint's discard;
- :mod:`.variants`: the Rommé variants with their own commands (a knocking, b declared jokers,
  e announcing, f colour Rommé);
- :mod:`.turn`: turn order, the talon, the stalemate test and the end of a game.
"""
