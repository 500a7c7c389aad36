"""Properties of the card games: conservation, atomic rejection, random full games end cleanly."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.autoplay import disjoint_melds
from engine.card.table import swap_position
from engine.cards import CardGame, romme_card_penalty, rummy_card_points
from engine.errors import RummyError
from engine.game import load_game
from engine.melds import readings
from engine.pieces import format_faces
from engine.rules import ROMME, RUMMY

# ---------------------------------------------------------------------- a random legal player


def _fits_quickly(meld_faces, face) -> bool:
    """Cheap pre-filter before asking the engine: same rank (group) or same suit (run)."""
    if face.is_joker:
        return True
    real = [f for f in meld_faces if not f.is_joker]
    return any(f.suit == face.suit for f in real) or all(f.rank == face.rank for f in real)


def random_turn(g: CardGame, rng: random.Random) -> None:
    """Play one legal turn for the seat to move (every message must be accepted)."""
    seat = g.current
    rules = g.rules
    spec = rules.meld_spec
    if g.turn["knock_due"]:
        open_card = g.deck[g.knocks[seat]["open"]]
        others = [f for f in g.rack(seat)]
        others.remove(open_card)
        pair = next(
            (a, b)
            for x, a in enumerate(others)
            for b in others[x + 1 :]
            if readings([open_card, a, b], spec)
        )
        g.apply(seat, f"meld {open_card} {pair[0]} {pair[1]}")
    if (
        rules.variant_announce_ten
        and g.announcer is None
        and not g.turn["drawn"]
        and sum(romme_card_penalty(f) for f in g.rack(seat)) <= 10
    ):
        g.apply(seat, "knock")
        return
    if rules.variant_colour_romme:
        suits = Counter(f.suit for f in g.rack(seat) if not f.is_joker)
        if suits and max(suits.values()) >= 10:
            g.apply(seat, "done")
            return
    if not g.turn["drawn"]:
        g.apply(seat, "pick" if g.discards and rng.random() < 0.25 else "draw")
    if g.status != "playing":
        return
    if rules.variant_knocking and g.turn["picked"] is None and rng.random() < 0.3:
        knocker = rng.randrange(len(g.players))
        if knocker != seat:
            before = g.to_json()
            try:
                g.apply(knocker, "knock")
            except RummyError:
                assert g.to_json() == before
    picked = g.deck[g.turn["picked"]] if g.turn["picked"] is not None else None
    opened = g.turn["opened_at_start"]
    if g.rules.must_open and opened:  # free table jokers with the cards they stand for
        swaps = []
        hand = list(g.rack(seat))
        for k, meld in enumerate(g.table):
            if not any(g.deck[i].is_joker for i in meld.ids):
                continue
            face = next(
                (f for f in hand if swap_position(g.deck, meld, f, g.rules.meld_spec) is not None),
                None,
            )
            if face is not None and len(hand) > 1:
                swaps.append(f"swap {k + 1} {face}")
                hand.remove(face)
        if swaps:
            g.apply(seat, "; ".join(swaps))
    hand = list(g.rack(seat))
    melds = disjoint_melds(hand, spec, rng)
    value = sum(readings(m, spec)[0].value for m in melds)
    if g.rules.must_open and not opened and value < rules.opening_minimum:
        melds = []
    rest = list(hand)
    for m in melds:
        for f in m:
            rest.remove(f)

    def discardable(cards) -> bool:
        return any(f != picked for f in cards) or (
            picked is not None and Counter(cards)[picked] > 1
        )

    while melds and not (discardable(rest) or (not rest and g.empty_hand_ok)):
        rest.extend(melds.pop())
    parts = ["meld " + " | ".join(format_faces(m) for m in melds)] if melds else []
    if not g.rules.must_open or opened:
        used: set[int] = set()
        table = g.table_faces()
        for face in list(rest):
            after = list(rest)
            after.remove(face)
            if not (discardable(after) or (not after and g.empty_hand_ok)):
                continue
            for k, meld in enumerate(table):
                if k in used or not _fits_quickly(meld, face) or not g.fits(k + 1, [face]):
                    continue
                parts.append(f"add {k + 1} {face}")
                used.add(k)
                rest.remove(face)
                break
    if rest:
        choices = [f for f in rest if f != picked] or rest
        parts.append(f"discard {rng.choice(choices)}")
    if parts:
        g.apply(seat, "; ".join(parts))


def play_game(rules, n: int, seed: int, max_turns: int = 3000) -> CardGame:
    g = CardGame.new(rules, [f"P{i}" for i in range(n)], seed)
    rng = random.Random(seed)
    size = len(g.deck)
    for _ in range(max_turns):
        if g.status != "playing":
            break
        random_turn(g, rng)
    assert g.status == "finished", f"seed {seed}: no end after {max_turns} turns"
    assert sorted(g.all_piece_ids()) == list(range(size))
    return g


def check_result(g: CardGame) -> None:
    r = g.result
    n = len(g.players)
    assert r is not None and len(r.points) == n and len(r.ranks) == n
    lefts = [[g.deck[i] for i in rack] for rack in g.racks]
    for seat, knock in enumerate(g.knocks):
        if knock:
            lefts[seat] += [g.deck[i] for i in knock["hidden"]]
    if r.reason in ("draw", "stalemate"):
        assert r.winner is None and r.points == [0] * n
        return
    w = r.winner
    assert w is not None and r.ranks[w] == 1
    if g.rules.game == "rummy":
        assert r.reason == "out" and not lefts[w]
        total = sum(rummy_card_points(f) for s in range(n) if s != w for f in lefts[s])
        assert r.points[w] == total * (2 if r.details["rummy"] else 1)
        assert all(p == 0 for s, p in enumerate(r.points) if s != w)
        return
    factor = 2 if r.details["hand_romme"] else 1
    jd = g.rules.variant_joker_double
    for s in range(n):
        if s == w or s == r.details.get("announcer"):
            assert r.points[s] == 0
        else:
            jokers = 2 if jd and any(f.is_joker for f in lefts[s]) else 1
            assert r.points[s] == factor * jokers * sum(romme_card_penalty(f) for f in lefts[s])
    if r.reason == "out":
        assert not lefts[w]


# ---------------------------------------------------------------------- random full games


@pytest.mark.parametrize("rules", [ROMME, RUMMY], ids=["romme", "rummy"])
def test_thousand_random_games_end_cleanly(rules):
    reasons: Counter = Counter()
    for seed in range(1000):
        n = rules.min_players + seed % (rules.max_players - rules.min_players + 1)
        g = play_game(rules, n, seed)
        check_result(g)
        reasons[g.result.reason] += 1
    assert reasons["out"] > (900 if rules.game == "romme" else 400), reasons


VARIANTS = [
    "variant_knocking",
    "variant_declared_joker",
    "variant_announce_ten",
    "variant_colour_romme",
    "variant_end_without_discard",
    "variant_joker_double",
    "variant_winner_strikes",
    "variant_draw_two",
]


def test_random_games_with_random_variants():
    reasons: Counter = Counter()
    for seed in range(200):
        rng = random.Random(seed)
        options = {v: rng.random() < 0.5 for v in VARIANTS}
        options["run_mode"] = rng.choice(["wrap", "ace_high"])
        options["opening_minimum"] = rng.choice([40, 30])
        options["pool_jokers"] = rng.randrange(7)
        options["hand_size"] = rng.randrange(10, 14)
        rules = ROMME.with_options(**options)
        g = play_game(rules, 2 + seed % 5, seed)
        check_result(g)
        if rules.variant_winner_strikes and g.result.winner is not None:
            assert g.result.details["strike"]["points"] in (10, 20)
        reasons[g.result.reason] += 1
    assert reasons["out"] > 100, reasons


def test_saved_game_replays_identically():
    g = CardGame.new(ROMME, ["A", "B", "C"], 11)
    rng = random.Random(11)
    for _ in range(30):
        if g.status != "playing":
            break
        random_turn(g, rng)
        assert load_game(g.to_json()).to_json() == g.to_json()


# ---------------------------------------------------------------------- Hypothesis


def _random_text(g: CardGame, data, seat: int) -> str:
    hand = [str(f) for f in g.rack(seat)] or ["AS"]
    any_card = st.sampled_from(["AS", "10H", "*", "KD", "2C", *hand])
    n_melds = max(1, len(g.table))
    verb = data.draw(
        st.sampled_from(
            ["draw", "pick", "discard", "meld", "add", "swap", "undo", "reset", "done", "knock"]
        )
    )
    if verb == "discard":
        return f"discard {data.draw(any_card)}"
    if verb == "pick" and g.discards and data.draw(st.booleans()):
        return f"pick {data.draw(any_card)}"
    if verb == "meld":
        cards = data.draw(st.lists(st.sampled_from(hand), min_size=1, max_size=5))
        return "meld " + " ".join(cards)
    if verb in ("add", "swap"):
        number = data.draw(st.integers(1, n_melds + 1))
        return f"{verb} {number} {data.draw(any_card)}"
    return verb


@settings(
    max_examples=60,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    data=st.data(),
    preset=st.sampled_from(["romme", "rummy"]),
    seed=st.integers(0, 10_000),
    knocking=st.booleans(),
)
def test_commands_conserve_cards_and_rejections_change_nothing(data, preset, seed, knocking):
    rules = ROMME.with_options(variant_knocking=knocking) if preset == "romme" else RUMMY
    n = data.draw(st.integers(rules.min_players, rules.max_players))
    g = CardGame.new(rules, [f"P{i}" for i in range(n)], seed)
    rng = random.Random(seed)
    size = len(g.deck)
    for _ in range(data.draw(st.integers(5, 40))):
        if g.status != "playing":
            break
        if data.draw(st.integers(0, 3)) == 0:
            random_turn(g, rng)
        else:
            seat = g.current if data.draw(st.integers(0, 4)) else data.draw(st.integers(0, n - 1))
            text = _random_text(g, data, seat)
            before = g.to_json()
            try:
                g.apply(seat, text)
            except RummyError:
                assert g.to_json() == before, text
        assert sorted(g.all_piece_ids()) == list(range(size))
        assert Counter(g.deck[i] for i in g.all_piece_ids()) == Counter(g.deck.faces)
