"""Stein-Rummy tournaments (RULES.md "Tournaments and ladder"; seed 000 "Turniere").

A tournament is an immutable :class:`Tournament` value; every operation is a pure function that
returns a new one, and ``to_dict()`` / ``from_dict()`` let it survive restarts.

Rules implemented, with the decisions taken where the seed is silent:

- Seating (:func:`table_sizes`): tables of 3, with as few tables of 4 as the count needs
  (6 -> 3+3, 7 -> 4+3, 8 -> 4+4, 10 -> 4+3+3, 11 -> 4+4+3). Tables of 4 get the low numbers.
  Fewer than 3 players, and exactly 5, cannot be seated.
- A round: each table plays as many single games as it has seats; game ``i`` is started by seat
  ``i``, so everybody starts exactly once ("Das Rundenprinzip").
- Movement (:func:`move_players`, seed: "wechselt ein Spieler zum nächsten Tisch mit der höheren
  Nummer"): the highest table number is the top table. After a round, the round winner of every
  table except the top one *swaps* with the round loser of the next higher table: the winner
  takes the loser's seat there and the loser takes the winner's seat here. The top table's winner
  and the lowest table's loser stay. Every table keeps its size; everybody else keeps their seat.
  Round winner: most MP this round, then most tournament MP, then the lower seat. Round loser:
  fewest MP this round, then fewest tournament MP, then the higher seat.
- Standings: percent = MP won / maximum possible MP over the games played (seed example: three
  games at a table of three, maximum 9). The maximum of a game is n, plus the claims standing at
  its end in ``stein_plus`` (as on the ladder, see ``presets.py``).
- Director actions (all logged in :attr:`Tournament.actions`):
  ``end_game_early`` scores by tiles left, n+1-k with ties averaged, no winner;
  ``award_game`` enters arbitrary MP per seat (each between 0 and n), e.g.
  :func:`slow_player_award`;
  ``neutralise_game`` enters the table's average for a game not played: every seat gets the mean
  MP per seat per game of the games already entered at that table this round ((n+1)/2 if none,
  which is also the mean of any game without claims), optionally minus half a point; its maximum
  is the mean maximum of those games (n if none).
- Strength groups: each group is seated and moves separately, with its own table numbers in one
  global sequence (group order). Groups are set by the organiser (:func:`set_groups`), chosen by
  the players at registration (:func:`choose_group`), or formed by promotion after K rounds
  (:func:`promote`, or automatically from :attr:`Tournament.promotion`): players are sorted by
  standings, the best ``sizes[0]`` form the winners' group, the next ``sizes[1]`` the next group,
  and so on. A group's player list is its seating order: the first players fill table 1, so
  promotion lists the weakest first and the strongest sit at the top table.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from bot.league.errors import LeagueError
from bot.league.ladder import percent
from bot.league.mp import first_round_out_mp, stein_mp
from engine.codec import Record
from engine.variants import DEFAULT_TOURNAMENT_VARIANT, Ladder, tournament_variants, variant

GAME_KINDS = ("played", "ended_early", "awarded", "neutralised")
DEFAULT_GROUP = "main"
_EPS = 1e-9


# --------------------------------------------------------------------------- seating


def table_sizes(count: int) -> list[int]:
    """Tables of 3, with only as many tables of 4 as ``count`` needs (seed 000 "Turniere")."""
    if count < 3:
        raise LeagueError("tournament.too_few_players", count=count)
    fours = count % 3  # 4 = 1 (mod 3): each table of 4 absorbs one extra player
    if 4 * fours > count:
        raise LeagueError("tournament.cannot_seat", count=count)
    return [4] * fours + [3] * ((count - 4 * fours) // 3)


def seat_tables(players: Sequence[str]) -> list[list[str]]:
    """Split ``players`` in order into tables of :func:`table_sizes` (table 1 first)."""
    _check_unique(players)
    tables: list[list[str]] = []
    start = 0
    for size in table_sizes(len(players)):
        tables.append(list(players[start : start + size]))
        start += size
    return tables


def _check_unique(players: Iterable[str]) -> None:
    seen: set[str] = set()
    for player in players:
        if player in seen:
            raise LeagueError("tournament.duplicate_player", player=player)
        seen.add(player)


# --------------------------------------------------------------------------- value types


@dataclass(frozen=True)
class TableGame(Record):
    """One single game at a table; ``mp`` in seat order, ``max_mp`` the maximum for each seat.

    Game ``number`` (0-based) is started by seat ``number``.
    """

    number: int
    kind: str
    mp: tuple[float, ...]
    max_mp: float
    tiles_left: tuple[int, ...] | None = None
    claims: tuple[int, ...] | None = None
    game_id: str | None = None
    note: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "mp", tuple(float(v) for v in self.mp))
        object.__setattr__(self, "max_mp", float(self.max_mp))
        if self.tiles_left is not None:
            object.__setattr__(self, "tiles_left", tuple(int(v) for v in self.tiles_left))
        if self.claims is not None:
            object.__setattr__(self, "claims", tuple(int(v) for v in self.claims))

    @property
    def starter(self) -> int:
        return self.number


@dataclass(frozen=True)
class Table(Record):
    """A table in one round: its seats (seat order) and the games played so far."""

    number: int
    group: str
    seats: tuple[str, ...]
    games: tuple[TableGame, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "seats", tuple(self.seats))
        object.__setattr__(self, "games", tuple(self.games))

    @property
    def complete(self) -> bool:
        return len(self.games) == len(self.seats)

    @property
    def next_starter(self) -> str | None:
        """Who starts the next game (seat rotation), or None when the round is done here."""
        return None if self.complete else self.seats[len(self.games)]

    def round_mp(self) -> list[float]:
        """Each seat's MP over this round's games at this table."""
        return [sum(game.mp[seat] for game in self.games) for seat in range(len(self.seats))]


@dataclass(frozen=True)
class Round(Record):
    number: int
    tables: tuple[Table, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "tables", tuple(self.tables))

    @property
    def complete(self) -> bool:
        return all(table.complete for table in self.tables)

    def table(self, number: int) -> Table:
        for table in self.tables:
            if table.number == number:
                return table
        raise LeagueError("tournament.unknown_table", table=number, round=self.number)


@dataclass(frozen=True)
class Group(Record):
    """A strength group; ``players`` is its seating order (first players at table 1)."""

    name: str
    players: tuple[str, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "players", tuple(self.players))


@dataclass(frozen=True)
class Promotion(Record):
    """Regroup by standings once ``after_rounds`` rounds are complete (seed: "Aufstieg")."""

    after_rounds: int
    sizes: tuple[int, ...]
    names: tuple[str, ...] = ()


@dataclass(frozen=True)
class DirectorAction(Record):
    """An entry of the director's log; ``detail`` holds JSON values only."""

    kind: str
    round: int | None
    table: int | None
    game: int | None
    detail: dict[str, Any] = field(default_factory=dict)
    note: str = ""


@dataclass(frozen=True)
class Tournament(Record):
    """The whole state of a Stein-Rummy tournament."""

    tournament_id: str
    preset: str = DEFAULT_TOURNAMENT_VARIANT
    players: tuple[str, ...] = ()
    groups: tuple[Group, ...] = ()
    rounds: tuple[Round, ...] = ()
    actions: tuple[DirectorAction, ...] = ()
    promotion: Promotion | None = None

    def __post_init__(self) -> None:
        for name in ("players", "groups", "rounds", "actions"):
            object.__setattr__(self, name, tuple(getattr(self, name)))
        if self.preset not in tournament_variants():
            raise LeagueError(
                "result.unknown_preset",
                preset=self.preset,
                choices=", ".join(tournament_variants()),
            )
        _check_unique(self.players)

    @property
    def started(self) -> bool:
        return bool(self.rounds)

    @property
    def current_round(self) -> Round | None:
        """The round being played, or None between rounds."""
        if self.rounds and not self.rounds[-1].complete:
            return self.rounds[-1]
        return None

    def effective_groups(self) -> tuple[Group, ...]:
        """The strength groups; one group "main" of everybody when none were set."""
        return self.groups or (Group(DEFAULT_GROUP, self.players),)

    def group_of(self, player: str) -> str:
        for group in self.effective_groups():
            if player in group.players:
                return group.name
        raise LeagueError("tournament.unknown_player", player=player)


# --------------------------------------------------------------------------- registration, groups


def new_tournament(
    tournament_id: str,
    players: Sequence[str] = (),
    *,
    preset: str = DEFAULT_TOURNAMENT_VARIANT,
    promotion: Promotion | None = None,
) -> Tournament:
    """A tournament with ``players`` registered in this order (the first seating order)."""
    return Tournament(
        tournament_id=tournament_id,
        preset=preset,
        players=tuple(players),
        promotion=promotion,
    )


def register(t: Tournament, player: str, *, group: str | None = None) -> Tournament:
    """Register a player before the first round, optionally choosing a strength group."""
    if t.started:
        raise LeagueError("tournament.started", what="registering")
    if player in t.players:
        raise LeagueError("tournament.duplicate_player", player=player)
    t = replace(t, players=(*t.players, player))
    if t.groups and group is None:
        group = t.groups[0].name
    return choose_group(t, player, group) if group is not None else t


def choose_group(t: Tournament, player: str, group: str) -> Tournament:
    """Self-selection: ``player`` joins the strength group ``group`` (created if new)."""
    if t.started:
        raise LeagueError("tournament.started", what="choosing a group")
    if player not in t.players:
        raise LeagueError("tournament.unknown_player", player=player)
    groups = t.groups or ()
    if not groups:
        others = tuple(p for p in t.players if p != player)
        groups = (Group(DEFAULT_GROUP, others),) if others else ()
    moved = [Group(g.name, tuple(p for p in g.players if p != player)) for g in groups]
    if any(g.name == group for g in moved):
        moved = [Group(g.name, (*g.players, player)) if g.name == group else g for g in moved]
    else:
        moved.append(Group(group, (player,)))
    return replace(t, groups=tuple(g for g in moved if g.players))


def set_groups(
    t: Tournament, groups: Mapping[str, Sequence[str]] | Sequence[Group], *, note: str = ""
) -> Tournament:
    """The organiser sets the strength groups (between rounds); every player exactly once."""
    if t.current_round is not None:
        raise LeagueError("tournament.round_open", round=t.current_round.number)
    if isinstance(groups, Mapping):
        made = tuple(Group(name, tuple(players)) for name, players in groups.items())
    else:
        made = tuple(groups)
    _check_groups(t, made)
    action = DirectorAction(
        kind="set_groups",
        round=len(t.rounds),
        table=None,
        game=None,
        detail={"groups": {g.name: list(g.players) for g in made}},
        note=note,
    )
    return replace(t, groups=made, actions=(*t.actions, action))


def _check_groups(t: Tournament, groups: Sequence[Group]) -> None:
    names = [g.name for g in groups]
    if len(set(names)) != len(names):
        raise LeagueError("tournament.bad_groups", why={"key": "why.groups.name_twice"})
    members = [p for g in groups for p in g.players]
    if len(set(members)) != len(members):
        raise LeagueError("tournament.bad_groups", why={"key": "why.groups.player_twice"})
    unknown = sorted(set(members) - set(t.players))
    if unknown:
        raise LeagueError("tournament.unknown_player", player=unknown[0])
    missing = [p for p in t.players if p not in set(members)]
    if missing:
        why = {"key": "why.groups.player_missing", "player": missing[0]}
        raise LeagueError("tournament.bad_groups", why=why)
    for group in groups:
        table_sizes(len(group.players))


def promote(
    t: Tournament, sizes: Sequence[int], names: Sequence[str] = (), *, note: str = ""
) -> Tournament:
    """Promotion after some rounds: regroup everybody by standings (seed 000 "Aufstieg").

    The best ``sizes[0]`` players form the first (winners') group, the next ``sizes[1]`` the next
    one, and so on. Each group lists its players weakest first so the strongest sit at its top
    table.
    """
    if t.current_round is not None:
        raise LeagueError("tournament.round_open", round=t.current_round.number)
    if sum(sizes) != len(t.players):
        raise LeagueError(
            "tournament.bad_promotion",
            why={"key": "why.promotion.sizes", "total": sum(sizes), "players": len(t.players)},
        )
    labels = list(names) + [
        "winners" if i == 0 else f"group {i + 1}" for i in range(len(names), len(sizes))
    ]
    ranked = [row.player_id for row in standings(t)]
    ranked += [p for p in t.players if p not in set(ranked)]
    groups: list[Group] = []
    start = 0
    for label, size in zip(labels, sizes, strict=False):
        best_first = ranked[start : start + size]
        groups.append(Group(label, tuple(reversed(best_first))))
        start += size
    _check_groups(t, groups)
    action = DirectorAction(
        kind="promote",
        round=len(t.rounds),
        table=None,
        game=None,
        detail={"groups": {g.name: list(g.players) for g in groups}},
        note=note,
    )
    return replace(t, groups=tuple(groups), actions=(*t.actions, action))


# --------------------------------------------------------------------------- rounds and movement


def round_winner(mp: Sequence[float], totals: Sequence[float]) -> int:
    """Seat of a table's round winner: most round MP, then most tournament MP, then lower seat."""
    return min(range(len(mp)), key=lambda s: (-mp[s], -totals[s], s))


def round_loser(mp: Sequence[float], totals: Sequence[float]) -> int:
    """Seat of a table's round loser: fewest round MP, then fewest tournament MP, higher seat."""
    return min(range(len(mp)), key=lambda s: (mp[s], totals[s], -s))


def move_players(
    tables: Sequence[Sequence[str]],
    round_mp: Sequence[Sequence[float]],
    totals: Mapping[str, float],
) -> list[list[str]]:
    """The next round's seats of one group's tables (given lowest number first).

    The winner at table i swaps seats with the loser at table i+1; the top table's winner and
    the lowest table's loser stay (seed 000 "Turniere", see the module docstring).
    """
    seats = [list(table) for table in tables]
    winners = [
        round_winner(mp, [totals.get(p, 0.0) for p in table])
        for table, mp in zip(tables, round_mp, strict=True)
    ]
    losers = [
        round_loser(mp, [totals.get(p, 0.0) for p in table])
        for table, mp in zip(tables, round_mp, strict=True)
    ]
    for i in range(len(tables) - 1):
        up, down = tables[i][winners[i]], tables[i + 1][losers[i + 1]]
        seats[i + 1][losers[i + 1]] = up
        seats[i][winners[i]] = down
    return seats


def start_round(t: Tournament) -> Tournament:
    """Seat the next round: fresh seating in round 1 or after regrouping, else movement."""
    if t.current_round is not None:
        raise LeagueError("tournament.round_open", round=t.current_round.number)
    if t.promotion is not None and len(t.rounds) == t.promotion.after_rounds and t.rounds:
        t = promote(t, t.promotion.sizes, t.promotion.names, note="automatic promotion")
    previous = t.rounds[-1] if t.rounds else None
    totals = {row.player_id: row.mp for row in standings(t)}
    tables: list[Table] = []
    for group in t.effective_groups():
        last = [table for table in previous.tables if table.group == group.name] if previous else []
        same = sorted(p for table in last for p in table.seats) == sorted(group.players)
        if last and same:
            seatings = move_players(
                [table.seats for table in last], [table.round_mp() for table in last], totals
            )
        else:
            seatings = seat_tables(group.players)
        for seats in seatings:
            tables.append(Table(number=len(tables) + 1, group=group.name, seats=tuple(seats)))
    return replace(t, rounds=(*t.rounds, Round(number=len(t.rounds) + 1, tables=tuple(tables))))


# --------------------------------------------------------------------------- entering games


def _open_table(t: Tournament, table_number: int) -> tuple[Round, Table]:
    rnd = t.current_round
    if rnd is None:
        raise LeagueError("tournament.no_round")
    table = rnd.table(table_number)
    if table.complete:
        raise LeagueError(
            "tournament.table_done", table=table_number, games=len(table.seats), round=rnd.number
        )
    return rnd, table


def _enter(
    t: Tournament, rnd: Round, table: Table, game: TableGame, action: DirectorAction | None
) -> Tournament:
    new_table = replace(table, games=(*table.games, game))
    new_round = replace(
        rnd, tables=tuple(new_table if x.number == table.number else x for x in rnd.tables)
    )
    actions = t.actions if action is None else (*t.actions, action)
    return replace(t, rounds=(*t.rounds[:-1], new_round), actions=actions)


def _claims(t: Tournament, table: Table, claims: Sequence[int] | None) -> tuple[int, ...]:
    values = tuple(claims) if claims is not None else (0,) * len(table.seats)
    if len(values) != len(table.seats):
        raise LeagueError(
            "mp.length_mismatch", what="claims", expected=len(table.seats), got=len(values)
        )
    if variant(t.preset).ladder is not Ladder.STEIN_PLUS_MP and any(values):
        raise LeagueError(
            "tournament.bad_award",
            table=table.number,
            why={"key": "why.award.claims_plus_only"},
        )
    for seat, value in enumerate(values):
        if value < 0:
            raise LeagueError("mp.negative", seat=seat, value=value)
    return values


def record_game(
    t: Tournament,
    table_number: int,
    tiles_left: Sequence[int],
    winner: int | None,
    *,
    claims: Sequence[int] | None = None,
    first_round_out: str | None = None,
    game_id: str | None = None,
) -> Tournament:
    """Enter the next game at a table from tiles left (RULES.md ``stein`` "Match points").

    ``first_round_out`` = ``split`` / ``equal`` when the winner went out in the very first round
    of turns (RULES.md option); ``claims`` per seat in ``stein_plus``.
    """
    rnd, table = _open_table(t, table_number)
    n = len(table.seats)
    if len(tiles_left) != n:
        raise LeagueError("mp.length_mismatch", what="tiles_left", expected=n, got=len(tiles_left))
    cmp = _claims(t, table, claims)
    if first_round_out in (None, "normal"):
        smp = stein_mp(tiles_left, winner)
    else:
        if winner is None:
            raise LeagueError("mp.bad_winner", winner=None, count=n)
        stein_mp(tiles_left, winner)  # validates the tiles
        smp = first_round_out_mp(n, winner, first_round_out)
    game = TableGame(
        number=len(table.games),
        kind="played",
        mp=tuple(s + c for s, c in zip(smp, cmp, strict=True)),
        max_mp=n + sum(cmp),
        tiles_left=tuple(tiles_left),
        claims=cmp,
        game_id=game_id,
    )
    return _enter(t, rnd, table, game, None)


def end_game_early(
    t: Tournament,
    table_number: int,
    tiles_left: Sequence[int],
    *,
    claims: Sequence[int] | None = None,
    game_id: str | None = None,
    note: str = "",
) -> Tournament:
    """The director ends a game: scored by tiles left, ties averaged (seed 000 b)."""
    rnd, table = _open_table(t, table_number)
    n = len(table.seats)
    if len(tiles_left) != n:
        raise LeagueError("mp.length_mismatch", what="tiles_left", expected=n, got=len(tiles_left))
    cmp = _claims(t, table, claims)
    smp = stein_mp(tiles_left, None)
    game = TableGame(
        number=len(table.games),
        kind="ended_early",
        mp=tuple(s + c for s, c in zip(smp, cmp, strict=True)),
        max_mp=n + sum(cmp),
        tiles_left=tuple(tiles_left),
        claims=cmp,
        game_id=game_id,
        note=note,
    )
    action = DirectorAction(
        kind="end_early",
        round=rnd.number,
        table=table.number,
        game=game.number,
        detail={"tiles_left": list(tiles_left), "claims": list(cmp)},
        note=note,
    )
    return _enter(t, rnd, table, game, action)


def slow_player_award(count: int, slow: Iterable[int], base: float | None = None) -> list[float]:
    """Equal MP for all and one less for the slow seats (seed 000 "Langsames Spiel").

    ``base`` defaults to the mean MP of a game, (n+1)/2.
    """
    level = (count + 1) / 2 if base is None else float(base)
    slow_seats = set(slow)
    return [level - 1 if seat in slow_seats else level for seat in range(count)]


def award_game(
    t: Tournament,
    table_number: int,
    mp: Sequence[float],
    *,
    game_id: str | None = None,
    note: str = "",
) -> Tournament:
    """The director ends a game and awards MP at discretion, per seat, each within 0..n."""
    rnd, table = _open_table(t, table_number)
    n = len(table.seats)
    if len(mp) != n:
        raise LeagueError("mp.length_mismatch", what="mp", expected=n, got=len(mp))
    for seat, value in enumerate(mp):
        if not -_EPS <= value <= n + _EPS:
            raise LeagueError(
                "tournament.bad_award",
                table=table.number,
                why={"key": "why.award.mp_range", "seat": seat, "value": value, "n": n},
            )
    game = TableGame(
        number=len(table.games),
        kind="awarded",
        mp=tuple(mp),
        max_mp=n,
        game_id=game_id,
        note=note,
    )
    action = DirectorAction(
        kind="award",
        round=rnd.number,
        table=table.number,
        game=game.number,
        detail={"mp": [float(v) for v in mp]},
        note=note,
    )
    return _enter(t, rnd, table, game, action)


def table_average(table: Table) -> tuple[float, float]:
    """Mean MP per seat per game and mean maximum of the games entered at a table this round.

    Without any game yet: ((n+1)/2, n), the mean of a game without claims.
    """
    n = len(table.seats)
    games = [game for game in table.games if game.kind != "neutralised"]
    if not games:
        return (n + 1) / 2, float(n)
    mean_mp = sum(sum(game.mp) for game in games) / (n * len(games))
    mean_max = sum(game.max_mp for game in games) / len(games)
    return mean_mp, mean_max


def neutralise_game(
    t: Tournament, table_number: int, *, minus_half: bool = False, note: str = ""
) -> Tournament:
    """The director neutralises a game not played (seed 000 "Alle Spieler sind langsam").

    Everybody gets the same MP, the table's average (:func:`table_average`), optionally minus
    half a point each.
    """
    rnd, table = _open_table(t, table_number)
    mean_mp, mean_max = table_average(table)
    level = max(0.0, mean_mp - (0.5 if minus_half else 0.0))
    game = TableGame(
        number=len(table.games),
        kind="neutralised",
        mp=(level,) * len(table.seats),
        max_mp=mean_max,
        note=note,
    )
    action = DirectorAction(
        kind="neutralise",
        round=rnd.number,
        table=table.number,
        game=game.number,
        detail={"minus_half": minus_half, "mp": level},
        note=note,
    )
    return _enter(t, rnd, table, game, action)


# --------------------------------------------------------------------------- standings


@dataclass(frozen=True)
class TournamentRow(Record):
    position: int
    player_id: str
    group: str
    games: int
    mp: float
    max_mp: float
    percent: float


def standings(t: Tournament, *, group: str | None = None) -> list[TournamentRow]:
    """Players by percent of the maximum possible MP (seed 000), then total MP, then id.

    Every registered player is listed, those without games at 0%.
    """
    games = dict.fromkeys(t.players, 0)
    mp = dict.fromkeys(t.players, 0.0)
    top = dict.fromkeys(t.players, 0.0)
    for rnd in t.rounds:
        for table in rnd.tables:
            for game in table.games:
                for seat, player in enumerate(table.seats):
                    games[player] += 1
                    mp[player] += game.mp[seat]
                    top[player] += game.max_mp
    chosen = [p for p in t.players if group is None or t.group_of(p) == group]
    chosen.sort(key=lambda p: (-percent(mp[p], top[p]), -mp[p], p))
    return [
        TournamentRow(
            position=i + 1,
            player_id=p,
            group=t.group_of(p),
            games=games[p],
            mp=mp[p],
            max_mp=top[p],
            percent=percent(mp[p], top[p]),
        )
        for i, p in enumerate(chosen)
    ]
