"""Games owned by shards (issue 17 item 2): several services over ONE real SQLite file, each
running only the games of the guilds on its shards (``ShardPlan``), with the per-shard lease and
its fencing token in the database.

- a service with SHARD_COUNT=2 resumes only its shards' games;
- two services with different shard ids never both write one game;
- a paused service (its lease expired and taken over) is refused at its next write and drops
  the game; the replacement takes over within one lease period (a shared ManualClock);
- a deadline fires exactly once across the takeover;
- the leases are renewed while a takeover's games are still loading.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from bot.service import ErrorReply, GameService, ManualClock, ServiceConfig
from bot.store import ShardPlan, SqliteStore, shard_of

T0 = 1_700_000_000.0
LEASE = 30.0
TIMEOUT = "!timeout"


def guild(shard: int, n: int = 0) -> str:
    """A guild id on ``shard`` of 2 (Discord's formula)."""
    return str(((600 + shard) << 22) + n)


class Process:
    """One bot process: its own store and service over the shared file, on the shared clock."""

    def __init__(self, path: Path, clock: ManualClock, ids: list[int], **config) -> None:
        self.path = path
        self.clock = clock
        self.plan = ShardPlan.of(2, ids, lease_seconds=LEASE)
        self.config = ServiceConfig(pictures=False, bot_pause=0.0, think_in_worker=False, **config)
        self.commits: list[tuple[str, int, str]] = []
        self.store: SqliteStore | None = None
        self.service: GameService | None = None

    def on_commit(self, game_id: str, seq: int, seat: int | None, text: str, seconds: float):
        self.commits.append((game_id, seq, text))

    async def start(self) -> GameService:
        self.store = SqliteStore(self.path, shard_count=2)
        await self.store.open()
        self.service = GameService(
            self.store,
            config=self.config,
            clock=self.clock,
            shards=self.plan,
            on_commit=self.on_commit,
        )
        await self.service.start(run_timers=False)
        return self.service

    def pause(self) -> None:
        """The process stops renewing its leases (SIGSTOP, a long GC pause, a cut network)."""
        self.manual()

    def manual(self) -> None:
        """No lease loop of its own: the test runs its renewal rounds (``renewals``)."""
        for task in list(self.service.registry.tasks):
            if task.get_name() == "service-shards":
                task.cancel()

    async def stop(self) -> None:
        if self.service is not None:
            await self.service.stop()
        if self.store is not None:
            await self.store.close()
        self.service = self.store = None


@pytest.fixture
async def procs(tmp_path: Path) -> AsyncIterator[list[Process]]:
    made: list[Process] = []
    yield made
    for proc in made:
        await proc.stop()


def errors(out: list) -> list[ErrorReply]:
    return [m for m in out if isinstance(m, ErrorReply)]


async def people_game(service: GameService, shard: int, n: int = 0, **options) -> str:
    await service.register_player("alice", "Alice", "en")
    await service.register_player("bob", "Bob", "en")
    game_id, out = await service.create_game(
        "alice", "rummikub", options or None, seed=1 + n, guild_id=guild(shard, n)
    )
    assert game_id is not None, out
    assert not errors(await service.join(game_id, "bob"))
    assert not errors(await service.start_game(game_id, "alice"))
    return game_id


def mover(service: GameService, game_id: str) -> str:
    seats = service.seats(game_id)
    return seats[service.view(game_id).current].player_id


async def renewals(clock: ManualClock, seconds: float, *procs: Process) -> None:
    """Move the shared clock by ``seconds`` in steps of the lease loop's period (a third of the
    lease), running one renewal round of each of ``procs`` (paused ones run none) after each
    step, as their lease loops do."""
    done = 0.0
    while done < seconds:
        step = min(LEASE / 3, seconds - done)
        clock.advance(step)
        done += step
        for proc in procs:
            await proc.service.shards.tick()


async def test_a_service_with_two_shards_resumes_only_its_shards_games(
    tmp_path: Path, procs: list[Process]
):
    clock = ManualClock(T0)
    path = tmp_path / "shards.sqlite3"
    both = Process(path, clock, [0, 1])
    procs.append(both)
    s = await both.start()
    games = {shard: [await people_game(s, shard, n) for n in range(3)] for shard in (0, 1)}
    assert {shard_of(guild(sh), 2) for sh in (0, 1)} == {0, 1}
    await both.stop()
    procs.remove(both)

    zero, one = Process(path, clock, [0]), Process(path, clock, [1])
    procs += [zero, one]
    s0, s1 = await zero.start(), await one.start()
    assert sorted(s0.live_game_ids()) == sorted(games[0])
    assert sorted(s1.live_game_ids()) == sorted(games[1])
    assert zero.store.held_shards == {0: 2} and one.store.held_shards == {1: 2}
    # each one moves its own games; the other's are not here
    g0, g1 = games[0][0], games[1][0]
    assert not errors(await s0.handle(g0, mover(s0, g0), "draw"))
    assert [e.code for e in errors(await s0.handle(g1, "alice", "draw"))] == ["game.not_found"]
    assert not errors(await s1.handle(g1, mover(s1, g1), "draw"))
    assert {c[0] for c in zero.commits} == {g0} and {c[0] for c in one.commits} == {g1}


async def test_two_services_over_one_database_never_both_write_one_game(
    tmp_path: Path, procs: list[Process]
):
    """Computer-only games on both shards, played by two services at once: every game is
    written by the holder of its shard only, and every game is played to its end."""
    clock = ManualClock(T0)
    path = tmp_path / "shards.sqlite3"
    zero, one = Process(path, clock, [0]), Process(path, clock, [1])
    procs += [zero, one]
    s0, s1 = await zero.start(), await one.start()
    ids: dict[str, int] = {}
    for n in range(6):
        shard = n % 2
        s = s0 if shard == 0 else s1
        game_id, _ = await s.create_game(
            "host", "rummikub", seed=n, guild_id=guild(shard, n), seat_host=False
        )
        for _ in range(3):
            await s.add_bot(game_id, "host", "easy")
        ids[game_id] = shard
    # the other service may not even start a game it does not own
    foreign = next(g for g, sh in ids.items() if sh == 1)
    assert [e.code for e in errors(await s0.start_game(foreign, "host"))] == ["game.not_found"]
    for game_id, shard in ids.items():
        assert not errors(await (s0 if shard == 0 else s1).start_game(game_id, "host"))
    await asyncio.gather(*(s.wait_finished(g) for g in ids for s in (s0, s1)))
    by_zero = {g for g, _, _ in zero.commits}
    by_one = {g for g, _, _ in one.commits}
    assert by_zero == {g for g, sh in ids.items() if sh == 0}
    assert by_one == {g for g, sh in ids.items() if sh == 1}
    reader = SqliteStore(path, readonly=True)
    await reader.open()
    try:
        for game_id in ids:
            record = await reader.load_game(game_id)
            assert record.status == "finished"
            logged = [(c.seq, c.text) for c in await reader.commands(game_id)]
            writer = zero if ids[game_id] == 0 else one
            acked = [(seq, text) for g, seq, text in writer.commits if g == game_id]
            assert logged == acked  # every logged move acknowledged by its owner, once
    finally:
        await reader.close()


async def test_a_paused_service_is_fenced_off_and_the_other_takes_over_within_a_lease(
    tmp_path: Path, procs: list[Process]
):
    clock = ManualClock(T0)
    path = tmp_path / "shards.sqlite3"
    first, second = Process(path, clock, [0, 1]), Process(path, clock, [0, 1])
    procs += [first, second]
    s1 = await first.start()
    game_id = await people_game(s1, 0)
    s2 = await second.start()  # both shards are held: it waits for them
    second.manual()
    assert second.store.held_shards == {} and s2.live_game_ids() == []
    await renewals(clock, LEASE, first, second)  # while the first renews, nothing changes
    assert second.store.held_shards == {} and s2.live_game_ids() == []
    first.pause()
    await renewals(clock, LEASE - LEASE / 3, second)  # first's last lease still runs
    assert second.store.held_shards == {} and s2.live_game_ids() == []
    await renewals(clock, LEASE / 3, second)  # one lease period after first's last renewal
    assert game_id in s2.live_game_ids()
    assert second.store.held_shards == {0: 2, 1: 2}
    # the paused one wakes up and tries a move: refused, nothing written, the game dropped
    who = mover(s1, game_id)
    out = await s1.handle(game_id, who, "draw")
    assert [e.code for e in errors(out)] == ["service.store"]
    assert game_id not in s1.live_game_ids()
    assert first.store.held_shards == {1: 1} or first.store.held_shards == {}
    assert first.commits == []
    # the new holder goes on from the stored state
    assert not errors(await s2.handle(game_id, mover(s2, game_id), "draw"))
    assert [c[1] for c in second.commits] == [1]


async def test_a_deadline_fires_exactly_once_across_a_takeover(
    tmp_path: Path, procs: list[Process]
):
    clock = ManualClock(T0)
    path = tmp_path / "shards.sqlite3"
    first, second = Process(path, clock, [0]), Process(path, clock, [0])
    procs += [first, second]
    s1 = await first.start()
    game_id = await people_game(s1, 0, turn_seconds=60)
    s2 = await second.start()
    second.manual()
    first.pause()
    await renewals(clock, LEASE, second)
    assert game_id in s2.live_game_ids()
    # nobody ran the game since the first's last renewal (at T0): its deadline moves by that
    assert s1.deadline(game_id) == T0 + 60 and s2.deadline(game_id) == T0 + 60 + LEASE
    clock.advance(61)  # now T0 + 91: both deadlines have passed
    assert game_id in s1.live_game_ids()  # the paused one does not know yet
    await s1.run_due()  # its time-out is fenced off: nothing written, the game dropped
    assert game_id not in s1.live_game_ids() and first.commits == []
    await s2.run_due()
    await s2.run_due()  # a second tick finds a new deadline, nothing due
    assert [(seq, text) for _, seq, text in second.commits] == [(1, TIMEOUT)]
    reader = SqliteStore(path, readonly=True)
    await reader.open()
    try:
        assert [(c.seq, c.text) for c in await reader.commands(game_id)] == [(1, TIMEOUT)]
    finally:
        await reader.close()


async def _until(condition, what: str) -> None:
    """Let the services' own tasks run (their store calls use a thread) until ``condition``
    holds; a bounded wait, not a timing check."""
    for _ in range(500):
        if condition():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"never happened: {what}")


async def _round(clock: ManualClock, step: float) -> None:
    """Advance the clock by one lease-loop period and wait until the loop sleeps again (it
    has run its round)."""
    clock.advance(step)
    due = clock.now() + step
    await _until(lambda: any(when == due for when, *_ in clock._sleepers), "a lease round")


async def test_the_leases_are_renewed_while_a_takeover_resumes_its_games(
    tmp_path: Path, procs: list[Process]
):
    """The replacement's own lease loop takes the shards over and resumes their games in a task
    of its own: however long the resume takes (here: until the test lets it go), the renewals
    go on, so the lease just taken is not lost meanwhile."""
    clock = ManualClock(T0)
    path = tmp_path / "shards.sqlite3"
    first, second = Process(path, clock, [0, 1]), Process(path, clock, [0, 1])
    procs += [first, second]
    s1 = await first.start()
    game_id = await people_game(s1, 0)
    s2 = await second.start()  # its lease loop runs (not manual)
    first.pause()
    registry = s2.registry
    resume, loading = registry.resume, asyncio.Event()

    async def slow_resume(*args, **kwargs):
        await loading.wait()
        return await resume(*args, **kwargs)

    registry.resume = slow_resume
    step = LEASE / 3
    while second.store.held_shards != {0: 2, 1: 2}:
        assert clock.now() < T0 + 3 * LEASE, "never taken over"
        await _round(clock, step)
    taken_at = clock.now()
    assert game_id not in s2.live_game_ids()  # still loading
    for _ in range(9):  # three lease periods while the resume waits
        await _round(clock, step)
    leases = {lease.shard: lease for lease in await second.store.shard_leases()}
    assert second.store.held_shards == {0: 2, 1: 2}
    assert all(leases[s].heartbeat > taken_at + 2 * LEASE for s in (0, 1)), leases
    assert game_id not in s2.live_game_ids()
    loading.set()
    await _until(lambda: game_id in s2.live_game_ids(), "the game resumed")
    assert not errors(await s2.handle(game_id, mover(s2, game_id), "draw"))
