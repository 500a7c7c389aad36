"""Contract: a store provides every call of the ports that use it - the service's
:class:`bot.service.ports.GameStore` and the league's :class:`bot.league.repository.LeagueStore`
(its key/value rows and finished games) - with parameters those callers can pass."""

from __future__ import annotations

import inspect

import pytest

from bot.league.repository import LeagueStore
from bot.service.ports import GameStore
from bot.store import Store

PORTS = [GameStore, LeagueStore]


def port_methods(port: type) -> dict[str, object]:
    """The port's calls, its base protocols' included."""
    found: dict[str, object] = {}
    for klass in reversed(port.__mro__):
        for name, value in vars(klass).items():
            if inspect.iscoroutinefunction(value) and not name.startswith("_"):
                found[name] = value
    return found


def test_the_ports_have_calls():
    assert {"append_command", "load_game", "set_status", "kv_put"} <= set(port_methods(GameStore))
    assert {"kv_get", "kv_put", "kv_items", "load_game", "results"} <= set(
        port_methods(LeagueStore)
    )


@pytest.mark.parametrize("port", PORTS, ids=lambda p: p.__name__)
async def test_the_store_provides_every_call_of_the_port(store: Store, port: type):
    for name, call in port_methods(port).items():
        method = getattr(store, name, None)
        assert method is not None and inspect.iscoroutinefunction(method), name
        wanted = inspect.signature(call).parameters
        given = inspect.signature(method).parameters
        for parameter in list(wanted.values())[1:]:  # after self
            assert parameter.name in given, (name, parameter.name)
            assert given[parameter.name].kind == parameter.kind, (name, parameter.name)
            if parameter.default is not inspect.Parameter.empty:  # optional for the caller
                assert given[parameter.name].default is not inspect.Parameter.empty, name
        for extra in set(given) - set(wanted):  # anything more must have a default
            assert given[extra].default is not inspect.Parameter.empty, (name, extra)
