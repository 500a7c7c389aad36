"""Typed errors with stable codes and sentences in English and German.

Every rejected input raises :class:`RummyError`. Its ``code`` is machine-readable and never changes
once published (tests, the bot and other tools match on it); ``message(lang)`` is the sentence a
player reads, naming the token, piece or meld number at fault.
"""

from __future__ import annotations

from typing import Any, ClassVar

# code -> (English, German). Templates use str.format with the error's params.
MESSAGES: dict[str, tuple[str, str]] = {
    # notation
    "parse.empty": (
        "Nothing to read: type a piece such as R5.",
        "Nichts zu lesen: z. B. R5 eingeben.",
    ),
    "parse.piece": ('"{token}": {why}', '"{token}": {why_de}'),
    "parse.command": (
        '"{token}" is not a command. Try: {verbs}.',
        '"{token}" ist kein Befehl. Möglich: {verbs}.',
    ),
    "parse.arguments": ('"{command}": {why}', '"{command}": {why_de}'),
    "parse.meld_number": (
        '"{token}" is not a meld number: melds are numbered 1 to {count}.',
        '"{token}" ist keine Nummer einer Kombination: sie sind von 1 bis {count} nummeriert.',
    ),
    "parse.missing_separator": (
        '"{token}" is a command word, but it stands inside "{command}": separate commands with '
        '";" (or "|", or a new line), e.g. {suggestion}',
        '"{token}" ist ein Befehlswort, steht aber mitten in "{command}": Befehle mit ";" '
        '(oder "|" oder einer neuen Zeile) trennen, z. B. {suggestion}',
    ),
    # melds
    "meld.too_short": (
        "{where}{pieces}: a meld needs at least 3 pieces.",
        "{where_de}{pieces}: eine Kombination braucht mindestens 3 Steine.",
    ),
    "meld.only_jokers": (
        "{where}{pieces}: a meld may not consist of jokers only.",
        "{where_de}{pieces}: eine Kombination darf nicht nur aus Jokern bestehen.",
    ),
    "meld.group_too_long": (
        "{where}{pieces}: a group has at most 4 pieces.",
        "{where_de}{pieces}: eine Gruppe hat höchstens 4 Steine.",
    ),
    "meld.group_colours": (
        "{where}{pieces}: a group needs different colours, {dup} appears twice.",
        "{where_de}{pieces}: eine Gruppe braucht verschiedene Farben, {dup} kommt doppelt vor.",
    ),
    "meld.mixed": (
        "{where}{pieces}: neither a group (same value, different colours) nor a run "
        "(same colour, consecutive values).",
        "{where_de}{pieces}: weder Gruppe (gleicher Wert, verschiedene Farben) noch Straße "
        "(gleiche Farbe, aufeinanderfolgende Werte).",
    ),
    "meld.run_gap": (
        "{where}{pieces}: the run has a gap at {gap} and not enough jokers to fill it.",
        "{where_de}{pieces}: die Straße hat eine Lücke bei {gap} und zu wenige Joker.",
    ),
    "meld.run_duplicate": (
        "{where}{pieces}: {dup} appears twice in one run.",
        "{where_de}{pieces}: {dup} kommt in einer Straße doppelt vor.",
    ),
    "meld.run_wrap": (
        "{where}{pieces}: runs do not go round the corner here (13 is high, 1 is low).",
        "{where_de}{pieces}: Straßen gehen hier nicht um die Ecke (13 ist hoch, 1 ist niedrig).",
    ),
    "meld.run_too_long": (
        "{where}{pieces}: a run has at most {max} pieces.",
        "{where_de}{pieces}: eine Straße hat höchstens {max} Steine.",
    ),
    # pieces and places
    "piece.not_in_rack": (
        "{piece} is not in your rack.",
        "{piece} ist nicht auf deiner Bank.",
    ),
    "piece.not_on_table": (
        "{piece} is neither in your hand nor on the table.",
        "{piece} ist weder in deiner Hand noch auf dem Tisch.",
    ),
    "piece.not_in_meld": (
        "{piece} is not in meld {meld}.",
        "{piece} liegt nicht in Kombination {meld}.",
    ),
    "piece.not_in_discards": (
        "{piece} is not in the discard stock.",
        "{piece} liegt nicht im Alt-Bestand.",
    ),
    "piece.not_top_discard": (
        "Only the top discard ({top}) may be taken.",
        "Nur der oberste abgelegte Stein ({top}) darf genommen werden.",
    ),
    "meld.no_such": (
        "There is no meld {meld}: the table has {count}.",
        "Es gibt keine Kombination {meld}: der Tisch hat {count}.",
    ),
    # turn structure
    "turn.not_yours": (
        "It is not your turn: {player} is to move.",
        "Du bist nicht dran: {player} ist am Zug.",
    ),
    "turn.not_seated": ("You are not seated in this game.", "Du sitzt nicht an diesem Tisch."),
    "game.over": ("The game is over.", "Das Spiel ist beendet."),
    "turn.draw_first": (
        "Draw first: {drawn} of {need} drawn so far (draw, or pick a tile from the discard stock).",
        "Erst aufnehmen: bisher {drawn} von {need} aufgenommen (draw, oder pick aus dem Alt-Bestand).",
    ),
    "turn.draws_done": (
        "You have already drawn this turn ({tiles}).",
        "Du hast in diesem Zug schon aufgenommen ({tiles_de}).",
    ),
    "turn.one_pick": (
        "At most one tile per turn may come from the discard stock.",
        "Höchstens ein Stein pro Zug darf aus dem Alt-Bestand kommen.",
    ),
    "turn.pool_empty": ("The pool is empty.", "Der Neu-Bestand ist leer."),
    "turn.discards_empty": ("The discard stock is empty.", "Der Alt-Bestand ist leer."),
    "turn.must_discard": (
        "End your turn by discarding a tile: discard PIECE.",
        "Beende den Zug, indem du einen Stein ablegst: discard STEIN.",
    ),
    "turn.no_discard": (
        "There is no discard in this game: end your turn with done.",
        "In diesem Spiel wird nicht abgelegt: beende den Zug mit done.",
    ),
    "turn.nothing_played": (
        "You have not played a tile from your rack: play one, or draw.",
        "Du hast keinen Stein von deiner Bank gelegt: lege einen oder ziehe.",
    ),
    "turn.nothing_played_changed": (
        "You have not played a tile from your rack: play one, or type reset and draw.",
        "Du hast keinen Stein von deiner Bank gelegt: lege einen, oder reset und dann ziehen.",
    ),
    "turn.discard_from_hand": (
        "You still hold {tiles}: discard from your hand (a table tile may be discarded only "
        "when every tile of your hand is laid).",
        "Du hast noch {tiles_de} in der Hand: lege davon ab (ein Stein vom Tisch nur, wenn "
        "deine Hand leer ist).",
    ),
    "turn.discard_breaks": (
        "{piece} cannot leave the table: without it meld {meld} is not valid ({reason}).",
        "{piece} kann nicht vom Tisch: ohne ihn ist Kombination {meld} nicht gültig ({reason_de}).",
    ),
    "turn.draw_after_play": (
        "You changed the table this turn: type reset before drawing, or finish with done.",
        "Du hast den Tisch in diesem Zug verändert: erst reset, dann ziehen, oder done.",
    ),
    "turn.nothing_to_undo": (
        "Nothing to undo this turn.",
        "In diesem Zug gibt es nichts zurückzunehmen.",
    ),
    "turn.unfinished": (
        "The turn did not end: finish with {finish}.",
        "Der Zug ist nicht zu Ende: schließe ihn mit {finish_de} ab.",
    ),
    "turn.invalid_table": (
        "The table is not valid: {reasons}",
        "Der Tisch ist nicht gültig: {reasons_de}",
    ),
    "turn.not_allowed": (
        "{command} is not part of {preset}.",
        "{command} gibt es bei {preset} nicht.",
    ),
    # opening
    "opening.table_locked": (
        "Before you have opened you may not touch melds already on the table (meld {meld}).",
        "Vor dem ersten Auslegen darfst du keine Kombinationen auf dem Tisch berühren (Kombination {meld}).",
    ),
    "opening.below_minimum": (
        "Your opening is worth {value} points; it must reach {minimum}.",
        "Dein erstes Auslegen zählt {value} Punkte; nötig sind {minimum}.",
    ),
    "opening.no_meld": (
        "To open, lay at least one meld of 3 from your own hand.",
        "Zum ersten Auslegen mindestens eine Dreier-Kombination aus der eigenen Hand legen.",
    ),
    # jokers
    "joker.not_in_meld": ("Meld {meld} has no joker.", "Kombination {meld} enthält keinen Joker."),
    "joker.wrong_piece": (
        "{piece} cannot free the joker in meld {meld}: it stands for {stands_for}.",
        "{piece} kann den Joker in Kombination {meld} nicht auslösen: er steht für {stands_for_de}.",
    ),
    "joker.group_needs_fourth": (
        "A joker in a group is freed only by the missing fourth tile: meld {meld} would then "
        "need four real tiles.",
        "Ein Joker in einer Gruppe wird nur mit dem fehlenden vierten Stein ausgelöst: "
        "Kombination {meld} bräuchte dann vier echte Steine.",
    ),
    "joker.cannot_move": (
        "A joker on the table moves only when it is freed: use swap {meld} PIECE.",
        "Ein Joker auf dem Tisch wird nur durch Auslösen bewegt: swap {meld} STEIN.",
    ),
    "joker.freed_unused": (
        "The freed joker must go into a new meld with tiles from your rack this turn{where}.",
        "Der ausgelöste Joker muss in diesem Zug mit Steinen von deiner Bank in eine neue "
        "Kombination{where_de}.",
    ),
    "joker.no_meaning": (
        "Meld {meld} is not a valid meld as it lies, so its joker stands for nothing yet and "
        "cannot be freed.",
        "Kombination {meld} ist so, wie sie liegt, nicht gültig: ihr Joker steht noch für nichts "
        "und kann nicht ausgelöst werden.",
    ),
    "joker.meaning_changed": (
        "Meld {meld}: its joker stood for {was} at the start of your turn and would now stand "
        "for {now}. A table joker changes only by being freed: swap {meld} PIECE.",
        "Kombination {meld}: ihr Joker stand zu Beginn deines Zuges für {was_de} und stünde nun "
        "für {now_de}. Ein Tisch-Joker ändert sich nur durch Auslösen: swap {meld} STEIN.",
    ),
    "joker.left_meld": (
        "Meld {meld}: a joker from the table stays with tiles of its meld ({home}) unless it "
        "is freed (swap).",
        "Kombination {meld}: ein Joker vom Tisch bleibt bei Steinen seiner Kombination ({home}), "
        "außer er wird ausgelöst (swap).",
    ),
    "joker.freed_not_new": (
        "Meld {meld}: the freed joker must go into a new meld with tiles from your rack, not "
        "into a meld that was on the table ({old}).",
        "Kombination {meld}: der ausgelöste Joker muss mit Steinen von deiner Bank in eine neue "
        "Kombination, nicht in eine, die schon auf dem Tisch lag ({old}).",
    ),
    "joker.locked_meld": (
        "Meld {meld} holds a joker and may not be split: its tiles stay together.",
        "Kombination {meld} enthält einen Joker und darf nicht geteilt werden: ihre Steine "
        "bleiben zusammen.",
    ),
    "joker.none_in_hand": ("You have no joker in your hand.", "Du hast keinen Joker in der Hand."),
    "joker.take_joker": (
        "A joker cannot be taken with a joker.",
        "Ein Joker kann nicht mit einem Joker genommen werden.",
    ),
    "joker.to_rack": (
        "Pieces on the table stay on the table.",
        "Steine auf dem Tisch bleiben auf dem Tisch.",
    ),
    # claims
    "claim.not_group_of_four": (
        "Meld {meld} is not a group of exactly 4 tiles and cannot be claimed.",
        "Kombination {meld} ist keine Gruppe aus genau 4 Steinen und kann kein Claim werden.",
    ),
    "claim.not_yours": (
        "Meld {meld} is {owner}'s claim: only the owner may touch it.",
        "Kombination {meld} ist ein Claim von {owner}: nur der Eigentümer darf ihn berühren.",
    ),
    "claim.not_claimed": ("Meld {meld} is not a claim.", "Kombination {meld} ist kein Claim."),
    "claim.already": ("Meld {meld} is already a claim.", "Kombination {meld} ist schon ein Claim."),
    "claim.not_formed": (
        "Meld {meld} lay on the table like this at the start of your turn: a claim is a group "
        "of four you lay from your hand or put together on the table this turn.",
        "Kombination {meld} lag zu Beginn deines Zuges schon so auf dem Tisch: ein Claim ist "
        "eine Vierer-Gruppe, die du in diesem Zug aus der Hand legst oder auf dem Tisch bildest.",
    ),
    "claim.dissolve_first": (
        "Meld {meld} is your claim: only unclaim ends a claim, so type unclaim {meld} first.",
        "Kombination {meld} ist dein Claim: nur unclaim beendet einen Claim, also erst "
        "unclaim {meld}.",
    ),
    "claim.broken": (
        "Claim {meld} must stay a group of 4: unclaim it first.",
        "Claim {meld} muss eine Vierer-Gruppe bleiben: erst unclaim.",
    ),
    # misc
    "help.not_allowed": (
        "The host has switched help off for this game.",
        "Der Gastgeber hat die Hilfe für dieses Spiel ausgeschaltet.",
    ),
    "place.impossible": ("{reason}", "{reason_de}"),
    "place.too_hard": (
        "Working out where {pieces} fit takes too long on this table: name fewer pieces, or "
        "lay them yourself.",
        "Wo {pieces} hinpassen, ist auf diesem Tisch zu aufwendig zu berechnen: nenne weniger "
        "Steine oder lege sie selbst.",
    ),
    # solver
    "solver.tiles_only": (
        "The solver plays the tile games (stein, stein_plus, rummikub), not {preset}.",
        "Der Löser spielt die Steinspiele (stein, stein_plus, rummikub), nicht {preset}.",
    ),
    "rules.unknown_preset": (
        '"{preset}" is not a preset. Choose one of: {choices}.',
        '"{preset}" ist keine Variante. Möglich: {choices}.',
    ),
    "rules.option": ("{why}", "{why_de}"),
    "rules.players": (
        "{preset} is played by {minimum} to {maximum} players, not {count}.",
        "{preset} wird von {minimum} bis {maximum} Personen gespielt, nicht von {count}.",
    ),
    # card games (engine/cards.py: Rommé and classic Rummy)
    "cards.not_in_hand": ("{card} is not in your hand.", "{card} ist nicht in deiner Hand."),
    "cards.draw_first": (
        "Draw first: draw (top of the talon) or pick (the top discard).",
        "Erst aufnehmen: draw (vom Talon) oder pick (die oberste abgelegte Karte).",
    ),
    "cards.already_drawn": (
        "You have already drawn this turn.",
        "Du hast in diesem Zug schon aufgenommen.",
    ),
    "cards.talon_empty": ("The talon is empty.", "Der Talon ist leer."),
    "cards.discards_empty": (
        "The discard pile is empty: draw from the talon.",
        "Der Abwurfstapel ist leer: ziehe vom Talon.",
    ),
    "cards.pick_wrong": (
        "Only the top discard ({top}) may be taken, not {card}.",
        "Nur die oberste abgelegte Karte ({top}) darf genommen werden, nicht {card}.",
    ),
    "cards.discard_picked": (
        "{card} was taken from the discard pile this turn and may not be discarded again.",
        "{card} wurde in diesem Zug vom Abwurfstapel genommen und darf nicht gleich wieder "
        "abgelegt werden.",
    ),
    "cards.must_discard": (
        "End your turn by discarding a card: discard CARD.",
        "Beende den Zug, indem du eine Karte ablegst: discard KARTE.",
    ),
    "cards.keep_one": (
        "You must keep a card to discard: {why}",
        "Du musst eine Karte zum Ablegen behalten: {why_de}",
    ),
    "cards.not_opened": (
        "Before you have opened you may lay off or swap jokers only when you go out this turn "
        "(Hand-Rommé): {command}.",
        "Vor dem ersten Auslegen darfst du nur anlegen oder Joker tauschen, wenn du in diesem Zug "
        "ausmachst (Hand-Rommé): {command}.",
    ),
    "cards.layoff": (
        "{cards} {fit} meld {meld} ({meld_cards}).",
        "{cards} {fit_de} an Kombination {meld} ({meld_cards}).",
    ),
    "cards.no_jokers": (
        "{token}: {preset} is played without jokers, so a joker is not a card of this game.",
        "{token}: {preset} wird ohne Joker gespielt, ein Joker ist hier keine Karte.",
    ),
    "cards.declare_off": (
        "{token}: declaring what a joker stands for is variant b, which is off in this game.",
        "{token}: einen Joker festlegen ist Variante b, die in diesem Spiel aus ist.",
    ),
    "cards.declare_bad": ('"{token}": {why}', '"{token}": {why_de}'),
    "cards.knock_when": (
        "You may knock only while {player} has drawn from the talon and not yet discarded.",
        "Klopfen geht nur, solange {player} vom Talon gezogen und noch nicht abgelegt hat.",
    ),
    "cards.knock_own": (
        "You discarded {card} yourself and cannot knock for it.",
        "Du hast {card} selbst abgelegt und kannst nicht darum klopfen.",
    ),
    "cards.knock_pending": (
        "You have already knocked for {card}: meld it on your turn first.",
        "Du hast schon um {card} geklopft: lege sie erst in deinem Zug aus.",
    ),
    "cards.knock_not_opened": (
        "Only a player who has opened may knock: you could not meld {card} yet.",
        "Nur wer schon ausgelegt hat, darf klopfen: du könntest {card} noch nicht auslegen.",
    ),
    "cards.knock_unusable": (
        "{card} does not make a meld with two cards of your hand.",
        "{card} ergibt mit zwei Karten deiner Hand keine Kombination.",
    ),
    "cards.knock_talon": (
        "Knocking needs two talon cards and the talon has {count}.",
        "Klopfen braucht zwei Talonkarten, der Talon hat {count}.",
    ),
    "cards.knock_meld_first": (
        "You knocked: first meld {card} with at least two cards from your hand.",
        "Du hast geklopft: lege zuerst {card} mit mindestens zwei Karten aus der Hand aus.",
    ),
    "cards.announce_when": (
        "Announce (knock) at the start of your turn, before you draw.",
        "Ansagen (knock) geht am Anfang deines Zuges, bevor du aufnimmst.",
    ),
    "cards.announce_high": (
        "Your hand counts {value} points: you may announce only at 10 or less.",
        "Deine Hand zählt {value} Punkte: ansagen darfst du erst bei höchstens 10.",
    ),
    "cards.announce_twice": ("{player} has already announced.", "{player} hat schon angesagt."),
    "cards.colour_short": (
        "Colour Rommé needs 10 cards of one suit; your longest suit has {count}.",
        "Farbenrommé braucht 10 Karten einer Farbe; deine längste Farbe hat {count}.",
    ),
    "cards.score_winner": (
        "Exactly one player must have gone out (an empty hand), not {count}.",
        "Genau eine Person muss ausgemacht haben (leere Hand), nicht {count}.",
    ),
    "cards.position": ("{why}", "{why_de}"),
}


class CodedError(Exception):
    """An error with a stable ``code`` and a sentence per language from a ``catalogue``
    (code -> (English, German)). Params ending in ``_de`` hold the German variant of a free-text
    param; when missing, the English one is used for both languages. The service and the league
    subclass it with catalogues of their own."""

    catalogue: ClassVar[dict[str, tuple[str, str]]] = {}

    def __init__(self, code: str, **params: Any) -> None:
        if code not in self.catalogue:
            raise KeyError(f"unknown {type(self).__name__} code {code!r}")
        self.code = code
        self.params = params
        super().__init__(self.message("en"))

    def message(self, lang: str = "en") -> str:
        en, de = self.catalogue[self.code]
        params = dict(self.params)
        for key, value in list(params.items()):
            params.setdefault(f"{key}_de", value)
        template = de if lang.lower().startswith("de") else en
        return template.format(**params)

    def to_dict(self, lang: str = "en") -> dict[str, str]:
        return {"code": self.code, "message": self.message(lang)}

    def __reduce__(self):  # keep pickling/copying working with keyword params
        return (_rebuild, (type(self), self.code, self.params))


def _rebuild(cls: type[CodedError], code: str, params: dict[str, Any]) -> CodedError:
    return cls(code, **params)


class RummyError(CodedError):
    """A rejected input. ``code`` is stable; ``message(lang)`` is for people."""

    catalogue = MESSAGES
