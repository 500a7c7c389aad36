"""Contract: a store provides every call of the service's store port
(:class:`bot.service.ports.GameStore`) with parameters the service can pass, and the calls the
league makes (kv_get, kv_put, kv_items, load_game, results, get_player)."""

from __future__ import annotations

import inspect

from bot.service.ports import GameStore
from bot.store import Store

LEAGUE_CALLS = ("kv_get", "kv_put", "kv_items", "load_game", "results", "get_player")


def port_methods() -> list[str]:
    return sorted(
        name
        for name, value in vars(GameStore).items()
        if inspect.iscoroutinefunction(value) and not name.startswith("_")
    )


def test_the_port_has_calls():
    assert {"append_command", "load_game", "set_status", "kv_put"} <= set(port_methods())


async def test_the_store_provides_every_call_of_the_port(store: Store):
    for name in [*port_methods(), *LEAGUE_CALLS]:
        method = getattr(store, name, None)
        assert method is not None and inspect.iscoroutinefunction(method), name
        if name not in vars(GameStore):
            continue
        wanted = inspect.signature(getattr(GameStore, name)).parameters
        given = inspect.signature(method).parameters
        for parameter in list(wanted.values())[1:]:  # after self
            assert parameter.name in given, (name, parameter.name)
            assert given[parameter.name].kind == parameter.kind, (name, parameter.name)
            if parameter.default is not inspect.Parameter.empty:  # optional for the service
                assert given[parameter.name].default is not inspect.Parameter.empty, name
        for extra in set(given) - set(wanted):  # anything more must have a default
            assert given[extra].default is not inspect.Parameter.empty, (name, extra)
