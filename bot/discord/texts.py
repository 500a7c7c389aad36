"""Every sentence the Discord adapter says, in English and German.

Two catalogues live here:

- :data:`MESSAGES` - what the bot writes (``key -> (english, german)``), read with :func:`t`.
  Replies to a person use that person's Discord locale (``interaction.locale``); messages in a
  game thread use the guild's preferred locale (:func:`lang_of`).
- :data:`COMMANDS_DE` - German names and descriptions of the slash commands, keyed by the English
  string that the command definitions wrap in ``locale_str``; the
  :class:`~bot.discord.translator.RummyTranslator` hands them to Discord. German command names
  must be valid Discord names: lowercase, no spaces, 1-32 characters. Descriptions 1-100.

The game's own sentences (moves, errors, results) come from the engine and the service, which
already carry both languages.
"""

from __future__ import annotations

from typing import Any

MESSAGES: dict[str, tuple[str, str]] = {
    # ------------------------------------------------------------------ generic
    "ok": ("Done.", "Erledigt."),
    "internal": (
        "Something went wrong on our side. Nothing was changed; please try again.",
        "Bei uns ist etwas schiefgegangen. Es wurde nichts geändert; bitte noch einmal.",
    ),
    "guild_only": (
        "This command works in a server channel only.",
        "Dieser Befehl geht nur in einem Server-Kanal.",
    ),
    "no_game_here": (
        "There is no game in this channel. Start one with /rummy new.",
        "In diesem Kanal gibt es kein Spiel. Starte eins mit /rummy new.",
    ),
    "no_lobby_here": (
        "There is no open table here. Open one with /rummy new.",
        "Hier gibt es keinen offenen Tisch. Eröffne einen mit /rummy new.",
    ),
    "not_your_game": (
        "You do not sit at this table.",
        "Du sitzt nicht an diesem Tisch.",
    ),
    "manage_server_only": (
        "Only members with the Manage Server permission can do this.",
        "Das können nur Mitglieder mit der Berechtigung „Server verwalten“.",
    ),
    "abort_denied": (
        "Only the host or a member with Manage Server can abort this game.",
        "Nur der Gastgeber oder ein Mitglied mit „Server verwalten“ kann das Spiel abbrechen.",
    ),
    "delivery_failed": (
        "Your move was saved, but Discord did not accept all messages; they may be missing.",
        "Dein Zug ist gespeichert, aber Discord hat nicht alle Nachrichten angenommen; "
        "einige fehlen vielleicht.",
    ),
    # ------------------------------------------------------------------ lobby
    "lobby_post": (
        "**{preset}** table {game} opened by {host}. Join with /rummy join (here or in the "
        "thread); the host starts with /rummy start.",
        "**{preset}**: Tisch {game}, eröffnet von {host}. Mitspielen mit /rummy join (hier "
        "oder im Thread); der Gastgeber startet mit /rummy start.",
    ),
    "lobby_post_seats": (
        "**{preset}** table {game} opened by {host} for {players} players. Join with "
        "/rummy join; it starts when the table is full.",
        "**{preset}**: Tisch {game}, eröffnet von {host}, für {players} Personen. Mitspielen "
        "mit /rummy join; es geht los, sobald der Tisch voll ist.",
    ),
    "thread_name": ("Rummy {game} ({preset})", "Rummy {game} ({preset})"),
    "created": ("Your table is open: {thread}", "Dein Tisch ist eröffnet: {thread}"),
    "joined": ("You sit at table {game}: {thread}", "Du sitzt an Tisch {game}: {thread}"),
    "left": ("You left table {game}.", "Du hast Tisch {game} verlassen."),
    "started": ("The game has started: {thread}", "Das Spiel hat begonnen: {thread}"),
    "aborted": ("Game {game} was aborted.", "Spiel {game} wurde abgebrochen."),
    "aborted_public": (
        "{who} aborted the game. It does not count for the ladder.",
        "{who} hat das Spiel abgebrochen. Es zählt nicht für die Rangliste.",
    ),
    "too_many_players": (
        "{players} seats cannot hold {bots} computer players and you.",
        "{players} Plätze reichen nicht für {bots} Computer und dich.",
    ),
    "thread_failed": (
        "I could not open a thread here (missing permission?). Nothing was created.",
        "Ich konnte hier keinen Thread eröffnen (fehlt eine Berechtigung?). Es wurde nichts "
        "angelegt.",
    ),
    # ------------------------------------------------------------------ turns, racks
    "turn": ("{mention}, it is your turn.", "{mention}, du bist am Zug."),
    "turn_deadline": (
        "{mention}, it is your turn (until {time}).",
        "{mention}, du bist am Zug (bis {time}).",
    ),
    "table_caption": ("Table after turn {turn}.", "Tisch nach Zug {turn}."),
    "rack_dm_head": (
        "**Game {game}** ({preset}) - {thread}",
        "**Spiel {game}** ({preset}) - {thread}",
    ),
    "dm_closed": (
        "{mention}, I cannot send you direct messages. Use /rack here to see your pieces "
        "privately; the game goes on.",
        "{mention}, ich kann dir keine Direktnachrichten schicken. Mit /rack siehst du deine "
        "Steine hier privat; das Spiel geht weiter.",
    ),
    "rack_empty": ("You have no pieces in this game.", "Du hast in diesem Spiel keine Steine."),
    "rack": ("Your rack ({count}): {pieces}", "Deine Steine ({count}): {pieces}"),
    "button_draw": ("Draw", "Ziehen"),
    "button_done": ("Done", "Fertig"),
    "button_reset": ("Reset", "Zurücksetzen"),
    "button_rack": ("My rack", "Meine Steine"),
    # ------------------------------------------------------------------ status, rules
    "status_lobby": (
        "Table {game} ({preset}) is waiting: {seats}. Host: {host}.",
        "Tisch {game} ({preset}) wartet: {seats}. Gastgeber: {host}.",
    ),
    "status_quarantined": (
        "Set aside (could not be loaded or continued; run rummy-bot verify-db): {count} game(s).",
        "Beiseitegelegt (nicht ladbar oder fortsetzbar; rummy-bot verify-db ausführen): "
        "{count} Spiel(e).",
    ),
    "status_playing": (
        "Game {game} ({preset}), turn {turn}: {current} to move. Pool: {pool}. Seats: {seats}.",
        "Spiel {game} ({preset}), Zug {turn}: {current} ist dran. Vorrat: {pool}. Plätze: {seats}.",
    ),
    "rules_more": (
        "All the rules, with every option and variant: docs/RULES.md in the bot's repository. "
        "Commands (several per message, separated by ; or |): draw, pick, meld, add, move, "
        "split, join, swap, take, claim, unclaim, place, hint, undo, reset, discard, done, knock.",
        "Alle Regeln mit allen Optionen und Varianten: docs/RULES.md im Repository des Bots. "
        "Befehle (mehrere pro Nachricht, getrennt mit ; oder |): draw, pick, meld, add, move, "
        "split, join, swap, take, claim, unclaim, place, hint, undo, reset, discard, done, knock.",
    ),
    "rules_stein": (
        "Stein-Rummy: draw two tiles (at most one from the open discards), meld and rearrange, "
        "then discard one. Opening: any meld of 3 from your hand. Runs wrap 12-13-1-2. Put your "
        "joker in place of a table tile to take it (`take`). Empty hand wins (the last discard "
        "may come from the table); the others rank by tiles left (n+1-k match points).",
        "Stein-Rummy: zwei Steine ziehen (höchstens einen vom offenen Alt-Bestand), auslegen "
        "und umbauen, dann einen abwerfen. Erstes Auslegen: eine Serie aus 3 Steinen. Reihen "
        "gehen rund 12-13-1-2. Mit dem Joker einen Tischstein nehmen (`take`). Wer keine Steine "
        "mehr hat, gewinnt (der letzte abgeworfene Stein darf vom Tisch kommen); die anderen "
        "nach Reststeinen (n+1-k Matchpunkte).",
    ),
    "rules_stein_plus": (
        "Stein-Rummy Plus: as Stein-Rummy, plus claims: a group of four you declare yours "
        "(`claim N`) is untouchable by others and earns one extra point if it stands at the end. "
        "Game points: empty hand 4, then 3, 2, 1 by tiles left, for any number of players.",
        "Stein-Rummy Plus: wie Stein-Rummy, dazu Claims: eine Vierergruppe, die du zu deiner "
        "erklärst (`claim N`), dürfen andere nicht anfassen; steht sie am Ende, gibt es einen "
        "Extrapunkt. Spielpunkte: leere Hand 4, dann 3, 2, 1 nach Reststeinen, bei jeder "
        "Spielerzahl.",
    ),
    "rules_rummikub": (
        "The 30-point tile game: play tiles or draw one. The first play must be new melds worth "
        "30 or more from your rack; then rearrange the table freely as long as every meld is "
        "valid at the end of the turn. A freed joker must go into a new meld with rack tiles "
        "in the same turn. The winner scores the others' rack values.",
        "Das 30-Punkte-Legespiel: Steine auslegen oder einen ziehen. Das erste Auslegen braucht "
        "neue Serien im Wert von 30 aus dem eigenen Bestand; danach darf der Tisch frei umgebaut "
        "werden, solange am Zugende jede Serie gültig ist. Ein freigespielter Joker muss im "
        "selben Zug mit eigenen Steinen in eine neue Serie. Der Sieger bekommt die Reststeine "
        "der anderen.",
    ),
    "rules_romme": (
        "Rommé: draw a card (stock or top discard), meld, lay off, discard one. The first meld "
        "must reach 40 points. Whoever goes out (the last card is discarded) ends the round; "
        "the others score penalty points for the cards left.",
        "Rommé: eine Karte ziehen (Stapel oder oberste Ablage), auslegen, anlegen, eine "
        "abwerfen. Das erste Auslegen braucht 40 Punkte. Wer ausmacht (die letzte Karte wird "
        "abgeworfen), beendet die Runde; die anderen bekommen Strafpunkte für ihre Restkarten.",
    ),
    "rules_rummy": (
        "Rummy: draw from the stock or the discard pile, meld sets and runs (ace low, no "
        "jokers), lay off, discard one. The first to go out scores the others' cards.",
        "Rummy: vom Stapel oder der Ablage ziehen, Sätze und Folgen auslegen (Ass niedrig, ohne "
        "Joker), anlegen, eine abwerfen. Wer zuerst ausmacht, bekommt die Karten der anderen.",
    ),
    # ------------------------------------------------------------------ config
    "config_saved": (
        "Server defaults: preset {preset}, turn time {turn_time}, help {help}, ladder channel "
        "{channel}.",
        "Server-Vorgaben: Spiel {preset}, Zugzeit {turn_time}, Hilfe {help}, Ranglisten-Kanal "
        "{channel}.",
    ),
    "none": ("none", "keine"),
    "on": ("on", "an"),
    "off": ("off", "aus"),
    # ------------------------------------------------------------------ ladder, stats
    "ladder_title": (
        "Ladder {preset}, season {season}",
        "Rangliste {preset}, Saison {season}",
    ),
    "ladder_empty": (
        "No ranked games yet for {preset} (season {season}).",
        "Noch keine gewerteten Spiele für {preset} (Saison {season}).",
    ),
    "ladder_row": (
        "{position}. {name}: {games} games, {wins} wins, {mp:g} MP, {percent:.1f}%, "
        "rating {rating:.2f}",
        "{position}. {name}: {games} Spiele, {wins} Siege, {mp:g} MP, {percent:.1f}%, "
        "Wertung {rating:.2f}",
    ),
    "ladder_update": (
        "Ladder update after game {game}:",
        "Neuer Ranglistenstand nach Spiel {game}:",
    ),
    "stats_none": ("{name} has no ranked games yet.", "{name} hat noch keine gewerteten Spiele."),
    "stats_line": (
        "{preset}: {games} games, {wins} wins, {percent:.1f}% of MP, rating {rating:.2f} "
        "(position {position})",
        "{preset}: {games} Spiele, {wins} Siege, {percent:.1f}% der MP, Wertung {rating:.2f} "
        "(Platz {position})",
    ),
    "stats_head": ("Stats of {name}:", "Statistik von {name}:"),
    # ------------------------------------------------------------------ tournaments
    "tournament_none": (
        "There is no tournament on this server. Create one with /tournament create.",
        "Auf diesem Server gibt es kein Turnier. Lege eins mit /tournament create an.",
    ),
    "tournament_created": (
        "Tournament {name} ({preset}) is open. Register with /tournament join.",
        "Turnier {name} ({preset}) ist eröffnet. Anmelden mit /tournament join.",
    ),
    "tournament_joined": (
        "{name} is registered ({count} players).",
        "{name} ist angemeldet ({count} Personen).",
    ),
    "tournament_round": ("Round {round}:", "Runde {round}:"),
    "tournament_table": ("Table {table}: {players}", "Tisch {table}: {players}"),
    "tournament_standings": ("Standings of {name}:", "Stand von {name}:"),
    "tournament_row": (
        "{position}. {player}: {mp:g}/{max_mp:g} MP ({percent:.1f}%), {games} games",
        "{position}. {player}: {mp:g}/{max_mp:g} MP ({percent:.1f}%), {games} Spiele",
    ),
    "tournament_recorded": (
        "Table {table}: game entered ({kind}).",
        "Tisch {table}: Spiel eingetragen ({kind}).",
    ),
    "tournament_organiser_only": (
        "Only the organiser or a member with Manage Server can do this.",
        "Das können nur die Turnierleitung oder Mitglieder mit „Server verwalten“.",
    ),
    "tournament_bad_numbers": (
        '"{text}" is not a list of numbers (e.g. "3 0 5").',
        '"{text}" ist keine Zahlenliste (z. B. "3 0 5").',
    ),
}


def lang_of(locale: Any) -> str:
    """``"de"`` for any German Discord locale, else ``"en"``."""
    value = getattr(locale, "value", locale)
    return "de" if str(value or "").lower().startswith("de") else "en"


def t(key: str, lang: str = "en", **params: Any) -> str:
    """The catalogue sentence ``key`` in ``lang`` ("en"/"de"), formatted with ``params``."""
    en, de = MESSAGES[key]
    return (de if lang == "de" else en).format(**params)


# German names/descriptions of the slash commands, options and choices (keyed by English).
COMMANDS_DE: dict[str, str] = {
    # names
    "rummy": "rummy",
    "new": "neu",
    "join": "beitreten",
    "leave": "verlassen",
    "start": "starten",
    "abort": "abbrechen",
    "rules": "regeln",
    "status": "status",
    "config": "einstellungen",
    "play": "spielen",
    "draw": "ziehen",
    "done": "fertig",
    "reset": "zuruecksetzen",
    "undo": "rueckgaengig",
    "rack": "steine",
    "hint": "tipp",
    "ladder": "rangliste",
    "stats": "statistik",
    "tournament": "turnier",
    "create": "anlegen",
    "round": "runde",
    "standings": "stand",
    "record": "eintragen",
    "director": "leitung",
    # option names
    "preset": "spiel",
    "players": "personen",
    "bots": "computer",
    "level": "stufe",
    "turn_time": "zugzeit",
    "help": "hilfe",
    "text": "befehle",
    "season": "saison",
    "user": "person",
    "name": "name",
    "table": "tisch",
    "tiles_left": "reststeine",
    "winner": "sieger",
    "action": "aktion",
    "values": "werte",
    "default_preset": "standardspiel",
    "ladder_channel": "ranglistenkanal",
    # descriptions
    "Play rummy on this server": "Rummy auf diesem Server spielen",
    "Open a new table (a thread) for a game": "Einen neuen Tisch (Thread) für ein Spiel eröffnen",
    "Take a seat at the open table": "Am offenen Tisch Platz nehmen",
    "Leave the table before the game starts": "Den Tisch vor Spielbeginn verlassen",
    "Deal and start the game (host)": "Austeilen und das Spiel starten (Gastgeber)",
    "Abort the game (host or Manage Server)": "Das Spiel abbrechen (Gastgeber oder Serververwaltung)",
    "Show the rules of a game": "Die Regeln eines Spiels zeigen",
    "Show the state of this game": "Den Stand dieses Spiels zeigen",
    "Server defaults for new games (Manage Server)": "Server-Vorgaben für neue Spiele (Serververwaltung)",
    "Which game": "Welches Spiel",
    "Seats at the table (starts when full)": "Plätze am Tisch (startet, wenn voll)",
    "Computer players to seat": "Anzahl Computer am Tisch",
    "Computer level": "Stufe der Computer",
    "Seconds per turn (0: no limit)": "Sekunden pro Zug (0: ohne Limit)",
    "Allow hints and the solver": "Tipps und Lösungshilfe erlauben",
    "Run commands, e.g. meld R5 R6 R7; done": "Befehle ausführen, z. B. meld R5 R6 R7; done",
    "Your commands": "Deine Befehle",
    "Draw from the pool": "Vom Vorrat ziehen",
    "End your turn": "Den Zug beenden",
    "Undo all changes of this turn": "Alle Änderungen dieses Zugs zurücknehmen",
    "Take back your last change": "Die letzte Änderung zurücknehmen",
    "Show your rack privately": "Deine Steine privat zeigen",
    "The best move, privately": "Der beste Zug, privat",
    "Show the ladder": "Die Rangliste zeigen",
    "Season number (default: current)": "Saisonnummer (Standard: aktuelle)",
    "A player's ladder statistics": "Ranglisten-Statistik einer Person",
    "Whose statistics": "Wessen Statistik",
    "Stein-Rummy tournaments": "Stein-Rummy-Turniere",
    "Create a tournament (you organise it)": "Ein Turnier anlegen (du leitest es)",
    "Tournament name": "Name des Turniers",
    "Register for the tournament": "Zum Turnier anmelden",
    "Seat the next round (organiser)": "Die nächste Runde setzen (Turnierleitung)",
    "Show the tournament standings": "Den Turnierstand zeigen",
    "Enter a finished table game (organiser)": "Ein beendetes Tischspiel eintragen (Turnierleitung)",
    "Table number": "Tischnummer",
    "Tiles left per seat, e.g. 0 3 5": "Reststeine pro Platz, z. B. 0 3 5",
    "Seat of the winner (1-based; 0: none)": "Platz des Siegers (ab 1; 0: keiner)",
    "Director action on a table game (organiser)": "Leitungsentscheidung zu einem Tischspiel",
    "What to do": "Was tun",
    "Numbers per seat (tiles left or MP)": "Zahlen pro Platz (Reststeine oder MP)",
    "Default game for /rummy new": "Standardspiel für /rummy new",
    "Default seconds per turn (0: none)": "Standard-Sekunden pro Zug (0: keine)",
    "Hints allowed by default": "Tipps standardmäßig erlaubt",
    "Where ladder updates are posted": "Wo neue Ranglistenstände erscheinen",
    # choices
    "easy": "leicht",
    "medium": "mittel",
    "strong": "stark",
    "end early (tiles left)": "vorzeitig beenden (Reststeine)",
    "award MP": "MP vergeben",
    "neutralise": "neutralisieren",
}
