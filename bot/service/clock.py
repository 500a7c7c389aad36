"""Time for the service: the real clock, and a manual one for tests.

Turn timers, reminders and abandonment read ``clock.now()`` (POSIX seconds) and wait with
``await clock.sleep(seconds)`` (the :class:`~bot.service.ports.Clock` port). :class:`SystemClock` is monotonic within a run. :class:`ManualClock` only moves when a test calls
:meth:`ManualClock.advance`, which also wakes every sleeper whose time has come.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time


class SystemClock:
    """Wall-clock time that runs on the monotonic clock within a run, and asyncio sleeps.

    :meth:`now` is the wall time read when the clock was made plus the monotonic time since,
    so a wall clock stepped back (or forward) while the bot runs moves no timer: a deadline
    ``now() + 120`` fires 120 seconds later whatever happens to the system clock. The next
    start reads the wall clock afresh (stored deadlines are wall times)."""

    def __init__(self) -> None:
        self._wall0 = time.time()
        self._mono0 = time.monotonic()

    def now(self) -> float:
        return self._wall0 + (time.monotonic() - self._mono0)

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))


class ManualClock:
    """A clock that stands still until :meth:`advance` is called (for tests)."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = float(start)
        self._sleepers: list[tuple[float, int, asyncio.Future[None]]] = []
        self._counter = itertools.count()

    def now(self) -> float:
        return self._now

    async def sleep(self, seconds: float) -> None:
        if seconds <= 0:
            await asyncio.sleep(0)
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._sleepers, (self._now + seconds, next(self._counter), future))
        await future

    def advance(self, seconds: float) -> None:
        """Move time forward and wake the sleepers that are due (they run at the next await)."""
        self._now += seconds
        while self._sleepers and self._sleepers[0][0] <= self._now:
            _, _, future = heapq.heappop(self._sleepers)
            if not future.done():
                future.set_result(None)
