"""The variant registry (engine/variants/): a game is one registered variant, and nothing else
needs to know it.

The proof (issue 15): a throwaway variant, Rummikub with a 25-point opening, defined only in this
file, is registered, played by computer players through the game service over a real SQLite file,
reloaded from the store, counted on the league's ladder, and unregistered again.
"""

from __future__ import annotations

import dataclasses
import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

import i18n
from bot.league import League, LeagueError
from bot.league.service import NS_RESULT
from bot.service import GameService, ManualClock, ServiceConfig
from bot.service.soak import verify_game
from bot.store import SqliteStore
from bot.wiring import build_service
from engine.errors import RummyError
from engine.game import Result, load_game
from engine.rules import PRESETS, RuleSet, preset
from engine.tiles import TileGame
from engine.variants import (
    BUILTIN,
    DEFAULT_TOURNAMENT_VARIANT,
    DEFAULT_VARIANT,
    Ladder,
    Variant,
    register,
    tournament_variants,
    unregister,
    variant,
    variant_names,
    variants,
)

T0 = 1_700_000_000.0
GUILD = "g1"

RUMMIKUB25 = Variant(
    dataclasses.replace(
        preset("rummikub"),
        preset="rummikub25",
        name="Rummikub (25-point opening)",
        opening_minimum=25,
    ),
    ladder=Ladder.PLACE_BY_POINTS,
    text_key="variant.rummikub",  # it borrows Rummikub's texts
)


@pytest.fixture
def rummikub25() -> Iterator[Variant]:
    register(RUMMIKUB25)
    try:
        yield RUMMIKUB25
    finally:
        unregister(RUMMIKUB25.name)


# --------------------------------------------------------------------------- the registry


def test_the_five_presets_in_order_with_their_kinds() -> None:
    assert variant_names() == BUILTIN == ("stein", "stein_plus", "rummikub", "romme", "rummy")
    assert list(PRESETS) == list(BUILTIN)
    kinds = {v.name: (v.family, v.ladder, v.tournaments, v.scoring) for v in variants()}
    assert kinds == {
        "stein": ("tile", Ladder.STEIN_MP, True, "places"),
        "stein_plus": ("tile", Ladder.STEIN_PLUS_MP, True, "places"),
        "rummikub": ("tile", Ladder.PLACE_BY_POINTS, False, "rack_points"),
        "romme": ("card", Ladder.PLACE_BY_PENALTY, False, "penalty"),
        "rummy": ("card", Ladder.MATCH_WINNER, False, "card_points"),
    }
    assert tournament_variants() == ("stein", "stein_plus")
    assert (
        DEFAULT_VARIANT in variant_names() and DEFAULT_TOURNAMENT_VARIANT in tournament_variants()
    )
    for v in variants():
        assert v.rules.preset == v.name and PRESETS[v.name] is v.rules
        assert v.game_class.__name__ == {"tile": "TileGame", "card": "CardGame"}[v.family]
        assert v.rules.to_dict() == {"preset": v.name}  # the stored form of a preset


def test_the_rule_flags_say_what_the_preset_names_used_to_decide() -> None:
    """Behaviour unchanged: each flag holds for exactly the presets whose name the engine used to
    compare (``rules.game == "stein"`` and so on)."""
    for v in variants():
        r, game = v.rules, v.rules.game
        assert r.draw_first == (game == "stein")
        assert r.start_by_lot == (game == "rummikub") == (not r.discard_pile)
        assert (
            r.scoring
            == {
                "stein": "places",
                "rummikub": "rack_points",
                "romme": "penalty",
                "rummy": "card_points",
            }[game]
        )
        romme = game == "romme"
        assert r.must_open == r.melds_owned == r.reshuffle_keeps_top == romme
        assert r.final_discard == r.romme_variants == romme
        assert r.deal_range == ((10, 13) if romme else None)


def test_names_are_normalised_and_unknown_ones_refused() -> None:
    assert variant("Stein-Plus") is variant("stein_plus")
    assert preset(" RUMMIKUB ") is variant("rummikub").rules
    with pytest.raises(RummyError) as caught:
        preset("poker")
    assert caught.value.code == "rules.unknown_preset"
    assert caught.value.params == {
        "preset": "poker",
        "choices": "stein, stein_plus, rummikub, romme, rummy",
    }
    with pytest.raises(ValueError):
        register(variant("stein"))  # taken
    with pytest.raises(ValueError):
        unregister("stein")  # the built-ins stay


def test_structural_fields_are_no_host_options() -> None:
    """The fields that make a game what it is belong to its variant, not to the host."""
    for name in ("draw_first", "scoring", "must_open", "game", "family"):
        with pytest.raises(RummyError) as caught:
            preset("rummikub").with_options(**{name: preset("stein").__getattribute__(name)})
        assert caught.value.code == "rules.option"


def test_a_registered_variant_is_a_preset_and_goes_away_again(rummikub25: Variant) -> None:
    assert variant("rummikub25") is rummikub25
    assert variant_names()[-1] == "rummikub25" and "rummikub25" in PRESETS
    rules = preset("rummikub25")
    assert rules.to_dict() == {"preset": "rummikub25"}
    assert RuleSet.from_dict({"preset": "rummikub25", "turn_seconds": 60}) == dataclasses.replace(
        rules, turn_seconds=60
    )
    unregister("rummikub25")
    try:
        assert "rummikub25" not in PRESETS
        with pytest.raises(RummyError):
            variant("rummikub25")
    finally:
        register(rummikub25)


def test_the_throwaway_variant_opens_with_25_points(rummikub25: Variant) -> None:
    """Its one rule that differs, played by the engine: 27 points open it, not Rummikub."""
    position = ("", ["R8 R9 R10 K1 K2"])
    refused = TileGame.position(preset("rummikub"), *position, opened=[False])
    with pytest.raises(RummyError) as caught:
        refused.apply(0, "meld R8 R9 R10; done")
    assert caught.value.code == "opening.below_minimum"
    game = TileGame.position(preset("rummikub25"), *position, opened=[False])
    game.apply(0, "meld R8 R9 R10; done")
    assert game.opened[0]
    again = load_game(game.to_json())
    assert again.rules.preset == "rummikub25" and again.to_json() == game.to_json()


# --------------------------------------------------------------------------- texts


def test_every_registered_variant_has_its_texts(rummikub25: Variant) -> None:
    """`/rummy rules` and the preset choices word every variant the registry holds."""
    for v in variants():
        for key in (v.name_key, v.rules_key):
            assert i18n.has(key), f"{v.name}: no text {key!r}"
            for lang in i18n.LANGS:
                assert i18n.t(key, lang).strip()


# --------------------------------------------------------------------------- service, store, ladder


async def open_world(path: Path) -> tuple[SqliteStore, League, GameService]:
    """The store on a real SQLite file, the league, and the service wired as the bot wires it."""
    store = SqliteStore(path)
    await store.open()
    clock = ManualClock(T0)
    league = await League(store, clock=clock.now).open()
    config = ServiceConfig(pictures=False, bot_pause=0.0, abandon_after=None, lobby_expiry=None)
    service = build_service(store, config=config, clock=clock, league=league, pictures=False)
    await service.start(run_timers=False)
    return store, league, service


async def play(service: GameService, game_id: str, name: str, bots: int, seed: int) -> None:
    made, _ = await service.create_game(
        "host", name, guild_id=GUILD, channel_id="c1", game_id=game_id, seed=seed, seat_host=False
    )
    assert made == game_id
    for _ in range(bots):
        await service.add_bot(game_id, "host", "medium")
    await service.start_game(game_id, "host")
    await service.wait_finished(game_id)


async def test_the_throwaway_variant_through_service_store_and_ladder(
    tmp_path: Path, rummikub25: Variant, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.WARNING)
    path = tmp_path / "variant.sqlite3"
    store, league, service = await open_world(path)
    try:
        await play(service, "r25a", "rummikub25", 3, seed=3)
        await play(service, "r25b", "Rummikub25", 2, seed=4)
        for game_id, n in (("r25a", 3), ("r25b", 2)):
            record = await store.load_game(game_id)
            assert record is not None and record.status == "finished"
            assert record.preset == "rummikub25"
            assert await verify_game(store, record) == []  # the log replays to the saved state
            assert RuleSet.from_dict(json.loads(record.rules_json)) == preset("rummikub25")
            results = await store.results(game_id)
            assert len(results) == n and sum(1 for r in results if r.rank == 1) >= 1
            counted = await store.kv_get(NS_RESULT, game_id)
            assert counted is not None and counted["preset"] == "rummikub25"
            mp = [line["mp"] for line in counted["players"]]
            assert sum(mp) == pytest.approx(n * (n + 1) / 2)  # place MP by points
        ladder = await league.ladder(GUILD, "rummikub25")
        assert ladder.games == ("r25a", "r25b")
        assert ladder.rows
        assert (await league.ladder(GUILD, "rummikub")).games == ()  # its own ladder
        # the computer players' worker process knows the variant too (it thought for them)
        assert not [r for r in caplog.records if "unknown_preset" in r.getMessage()]
    finally:
        await service.stop()
        await store.close()
    # a restart reads it all back
    store, league, service = await open_world(path)
    try:
        assert (await league.ladder(GUILD, "rummikub25")).games == ("r25a", "r25b")
    finally:
        await service.stop()
        await store.close()


async def test_the_league_asks_the_registry(tmp_path: Path, rummikub25: Variant) -> None:
    """A variant the registry holds is ranked by its ladder kind; a game of one it does not hold
    is refused with an error, never silently left unranked."""
    store, league, service = await open_world(tmp_path / "league.sqlite3")
    try:
        await play(service, "r25", "rummikub25", 2, seed=5)
        assert (await league.ladder(GUILD, "rummikub25")).games == ("r25",)
        record = dataclasses.replace(await store.load_game("r25"), id="r25-again")
        result = Result("out", 0, [12.0, -12.0], [1, 2], [[], ["R12"]])
        assert league.result_hook(record, result, T0 + 1).kv_hooks  # ranked: rows to write
        unregister("rummikub25")
        try:
            with pytest.raises(LeagueError) as caught:
                league.result_hook(record, result, T0 + 2)
            assert caught.value.code == "result.unknown_preset"
        finally:
            register(rummikub25)
        with pytest.raises(LeagueError):
            await league.ladder(GUILD, "poker")
    finally:
        await service.stop()
        await store.close()
