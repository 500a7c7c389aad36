"""A fake Discord server for end-to-end tests of a real discord.py client on loopback.

:class:`FakeDiscord` runs an aiohttp server on ``127.0.0.1`` (random free port) that speaks just
enough of Discord's gateway (v10, JSON) and REST API for a ``commands.Bot`` with application
commands, persistent views, files, threads and DMs to work unmodified.  Nothing ever leaves the
machine: :meth:`FakeDiscord.patched` points ``discord.http.Route.BASE`` (REST and webhooks),
``DiscordWebSocket.DEFAULT_GATEWAY`` (the gateway; a plain ``Client`` never asks ``/gateway/bot``)
and ``discord.Asset.BASE`` (the CDN) at the fake, and restores them afterwards.

Everything the client does is recorded:

* :attr:`FakeDiscord.requests`: every REST call as a :class:`RecordedRequest` (method, path, route
  template, path parameters, JSON payload or ``payload_json``, uploaded files, status, response);
* :attr:`FakeDiscord.messages`: every message as a :class:`StoredMessage` (current data, files,
  deleted flag); :meth:`~FakeDiscord.messages_in`, :meth:`~FakeDiscord.dms_to`;
* :meth:`~FakeDiscord.interaction_responses`, :meth:`~FakeDiscord.synced_commands`,
  :attr:`~FakeDiscord.gateway_received`.

People are simulated with :meth:`~FakeDiscord.slash`, :meth:`~FakeDiscord.click`,
:meth:`~FakeDiscord.autocomplete`, :meth:`~FakeDiscord.submit_modal` and
:meth:`~FakeDiscord.user_message`, which build interaction / message payloads shaped like the real
ones and dispatch them over the gateway.  Tests then ``await fake.wait_for(predicate)``.

Deliberate fidelity (so tests catch real bugs): interactions may be acknowledged once (400/40060
after that), follow-ups need an acknowledged interaction, slash commands must have been synced
(``strict_commands``), messages and command definitions are checked against Discord's main size
limits (400/50035), a DM to a user with closed DMs answers 403/50007, MESSAGE_CREATE events honour
the GUILD_MESSAGES / DIRECT_MESSAGES / MESSAGE_CONTENT intents, GUILD_CREATE carries only the bot
member unless GUILD_PRESENCES was requested (GUILD_MEMBERS clients chunk over op 8), and the first follow-up after a "thinking"
defer replaces the loading message as Discord does.

Transport compression: discord.py always asks for ``compress=zlib-stream`` (or ``zstd-stream`` if
``zstandard`` is installed) in the gateway URL.  It only decompresses *binary* frames and parses
*text* frames directly, so the fake answers zlib-stream with real zlib-compressed binary frames
(``transport_compression=True``, the default) and anything else with plain JSON text frames.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import datetime as dt
import itertools
import json
import logging
import mimetypes
import re
import struct
import time
import zlib
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import discord
import yarl
from aiohttp import WSMsgType, web
from discord.gateway import DiscordWebSocket

log = logging.getLogger(__name__)

JSON = dict[str, Any]
T = TypeVar("T")

DISCORD_EPOCH_MS = 1_420_070_400_000
#: Generated snowflakes start at 2024-01-01T00:00:00Z and advance one millisecond per id.
ID_BASE_MS = 1_704_067_200_000

DEFAULT_BOT_ID = 1_180_000_000_000_000_001
#: Any token works unless FakeDiscord(token=...) demands one; this is not a secret.
DEFAULT_TOKEN = "fake-bot-token"

# Message flags.
EPHEMERAL = 1 << 6
LOADING = 1 << 7
HAS_THREAD = 1 << 5
COMPONENTS_V2 = 1 << 15
SUPPRESS_NOTIFICATIONS = 1 << 12
#: Component types of Discord's "components v2" (need the IS_COMPONENTS_V2 flag).
V2_TYPES = {
    9: "section",
    10: "text display",
    11: "thumbnail",
    12: "media gallery",
    13: "file",
    14: "separator",
    17: "container",
}
#: What may stand at the top level of a components v2 message.
V2_TOP_LEVEL = {1, 9, 10, 12, 13, 14, 17}
V2_MAX_COMPONENTS = 40
V2_MAX_TEXT = 4000

# Gateway intents that change what the fake sends.
INTENT_GUILD_MEMBERS = 1 << 1
INTENT_GUILD_PRESENCES = 1 << 8
INTENT_GUILD_MESSAGES = 1 << 9
INTENT_DIRECT_MESSAGES = 1 << 12
INTENT_MESSAGE_CONTENT = 1 << 15

# Channel types.
GUILD_TEXT = 0
DM = 1
CATEGORY = 4
PUBLIC_THREAD = 11
PRIVATE_THREAD = 12
THREAD_TYPES = (10, PUBLIC_THREAD, PRIVATE_THREAD)

ALL_PERMISSIONS = discord.Permissions.all().value
EVERYONE_PERMISSIONS = discord.Permissions(
    view_channel=True,
    send_messages=True,
    send_messages_in_threads=True,
    create_public_threads=True,
    embed_links=True,
    attach_files=True,
    add_reactions=True,
    read_message_history=True,
    use_application_commands=True,
    use_external_emojis=True,
).value
BOT_PERMISSIONS = (
    EVERYONE_PERMISSIONS
    | discord.Permissions(
        manage_messages=True,
        manage_threads=True,
        create_private_threads=True,
    ).value
)

ATTACHMENT_SIZE_LIMIT = 10 * 1024 * 1024

_OPTION_TYPES = {bool: 5, int: 4, float: 10, str: 3}


# --------------------------------------------------------------------------------------------
# Small helpers
# --------------------------------------------------------------------------------------------


def snowflake_time(snowflake: int) -> str:
    """ISO-8601 timestamp (as Discord writes it) encoded in a snowflake."""
    ms = (snowflake >> 22) + DISCORD_EPOCH_MS
    return dt.datetime.fromtimestamp(ms / 1000, tz=dt.UTC).isoformat()


def option(name: str, value: Any, type: int | None = None, *, focused: bool = False) -> JSON:
    """Build one application-command option as Discord sends it.

    The type is inferred from ``value`` (bool 5, int 4, float 10, str 3) unless given, e.g.
    ``option("player", user_id, 6)`` for a user option (ids are sent as strings).
    """
    if type is None:
        type = next(t for py, t in _OPTION_TYPES.items() if isinstance(value, py))
    if type in (6, 7, 8, 9, 11):
        value = str(value)
    opt: JSON = {"name": name, "type": type, "value": value}
    if focused:
        opt["focused"] = True
    return opt


def subcommand(name: str, *options: JSON) -> JSON:
    """Build a sub-command option (type 1) wrapping ``options``."""
    return {"name": name, "type": 1, "options": list(options)}


def subcommand_group(name: str, *subcommands: JSON) -> JSON:
    """Build a sub-command group option (type 2) wrapping sub-commands."""
    return {"name": name, "type": 2, "options": list(subcommands)}


def _tiny_png() -> bytes:
    """A valid 1x1 grey PNG, served for every CDN asset (avatars, icons)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        body = kind + data
        return struct.pack(">I", len(data)) + body + struct.pack(">I", zlib.crc32(body))

    header = struct.pack(">IIBBBBB", 1, 1, 8, 0, 0, 0, 0)
    pixels = zlib.compress(b"\x00\x80")
    return (
        b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", pixels) + chunk(b"IEND", b"")
    )


def _walk_components(components: list[JSON]) -> Iterator[JSON]:
    """Yield every component in a (possibly nested) component tree."""
    for comp in components:
        yield comp
        for key in ("components",):
            yield from _walk_components(comp.get(key) or [])
        for key in ("accessory", "component"):
            if isinstance(comp.get(key), dict):
                yield from _walk_components([comp[key]])


def _texts(components: list[JSON]) -> list[str]:
    """The contents of every text display in a component tree."""
    return [c.get("content") or "" for c in _walk_components(components) if c.get("type") == 10]


def _v2_problems(payload: JSON, components: list[JSON], *, edit: bool) -> list[str]:
    """What Discord refuses in a components v2 message (IS_COMPONENTS_V2)."""
    problems: list[str] = []
    for key in ("content", "embeds", "sticker_ids", "poll"):
        if payload.get(key):
            problems.append(f"{key}: cannot be used with the IS_COMPONENTS_V2 flag")
    if not edit and not components:
        problems.append("components: a components v2 message needs components")
    every = list(_walk_components(components))
    if len(every) > V2_MAX_COMPONENTS:
        problems.append(f"components: at most {V2_MAX_COMPONENTS} in all ({len(every)})")
    if sum(len(t) for t in _texts(components)) > V2_MAX_TEXT:
        problems.append(f"components: text displays hold at most {V2_MAX_TEXT} characters")
    for comp in components:
        if comp.get("type") not in V2_TOP_LEVEL:
            problems.append(f"components: type {comp.get('type')} cannot be at the top level")
    for comp in every:
        kind = comp.get("type")
        if kind == 1:
            inner = comp.get("components") or []
            if not 1 <= len(inner) <= 5:
                problems.append("components: an action row holds 1 to 5 components")
            if any(c.get("type") not in (2, 3, 5, 6, 7, 8) for c in inner):
                problems.append("components: an action row holds only buttons and selects")
        elif kind == 10 and not comp.get("content"):
            problems.append("components: a text display needs content")
        elif kind == 12 and not 1 <= len(comp.get("items") or []) <= 10:
            problems.append("components: a media gallery holds 1 to 10 items")
    return problems


class ApiError(Exception):
    """An error answer of the fake REST API: ``{"message": ..., "code": ...}`` with a status."""

    def __init__(self, status: int, message: str, code: int = 0, errors: Any = None) -> None:
        super().__init__(f"{status} {message} (code {code})")
        self.status = status
        self.body: JSON = {"message": message, "code": code}
        if errors is not None:
            self.body["errors"] = errors


def _invalid_form(problems: list[str]) -> ApiError:
    return ApiError(
        400, "Invalid Form Body", 50035, {"_errors": [{"message": p} for p in problems]}
    )


# --------------------------------------------------------------------------------------------
# Model of the fake world
# --------------------------------------------------------------------------------------------


@dataclass
class FakeUser:
    """A Discord user known to the fake."""

    id: int
    username: str
    global_name: str | None = None
    bot: bool = False
    dms_closed: bool = False

    def to_dict(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "username": self.username,
            "global_name": self.global_name,
            "discriminator": "0",
            "avatar": None,
            "public_flags": 0,
            "flags": 0,
            "banner": None,
            "accent_color": None,
            "avatar_decoration_data": None,
        }
        if self.bot:
            data["bot"] = True
        return data


@dataclass
class FakeRole:
    """A guild role; the ``@everyone`` role has the guild's id."""

    id: int
    name: str
    permissions: int
    position: int = 0
    bot_id: int | None = None

    def to_dict(self) -> JSON:
        data: JSON = {
            "id": str(self.id),
            "name": self.name,
            "permissions": str(self.permissions),
            "position": self.position,
            "color": 0,
            "colors": {"primary_color": 0, "secondary_color": None, "tertiary_color": None},
            "hoist": False,
            "managed": self.bot_id is not None,
            "mentionable": False,
            "icon": None,
            "unicode_emoji": None,
            "flags": 0,
        }
        if self.bot_id is not None:
            data["tags"] = {"bot_id": str(self.bot_id)}
        return data


@dataclass
class FakeMember:
    """A user's membership in a guild."""

    user_id: int
    roles: list[int] = field(default_factory=list)
    nick: str | None = None
    joined_at: str = "2024-01-01T00:00:00+00:00"


@dataclass
class FakeChannel:
    """A guild channel, thread or DM channel."""

    id: int
    type: int
    name: str | None = None
    guild_id: int | None = None
    parent_id: int | None = None
    position: int = 0
    topic: str | None = None
    recipient_id: int | None = None  # DM channels
    owner_id: int | None = None  # threads
    archived: bool = False
    locked: bool = False
    invitable: bool = True
    auto_archive_duration: int = 1440
    last_message_id: int | None = None
    message_count: int = 0
    thread_members: set[int] = field(default_factory=set)

    @property
    def is_thread(self) -> bool:
        return self.type in THREAD_TYPES


@dataclass
class FakeGuild:
    """A guild with its roles, members and channels."""

    id: int
    name: str
    owner_id: int
    preferred_locale: str = "en-US"
    roles: dict[int, FakeRole] = field(default_factory=dict)
    members: dict[int, FakeMember] = field(default_factory=dict)
    channel_ids: list[int] = field(default_factory=list)


@dataclass
class RecordedFile:
    """An uploaded file: multipart field name (``files[0]``), file name, content type, bytes."""

    field: str
    filename: str
    content_type: str
    data: bytes


@dataclass
class RecordedRequest:
    """One REST request the client made, and the fake's answer."""

    method: str
    path: str
    route: str | None
    params: dict[str, str]
    query: dict[str, str]
    json: Any
    files: list[RecordedFile]
    status: int = 0
    response: Any = None
    #: ``time.perf_counter()`` when the request arrived (for the benchmarks' latencies).
    at: float = 0.0

    @property
    def interaction_id(self) -> int | None:
        value = self.params.get("interaction_id")
        return int(value) if value else None

    @property
    def token(self) -> str | None:
        return self.params.get("token")

    @property
    def channel_id(self) -> int | None:
        value = self.params.get("channel_id")
        return int(value) if value else None

    @property
    def ok(self) -> bool:
        return 200 <= self.status < 300

    def __str__(self) -> str:
        return f"{self.method} {self.path} -> {self.status}"


@dataclass
class StoredMessage:
    """A message as the fake currently knows it (``data`` is the Discord message object)."""

    data: JSON
    files: list[RecordedFile] = field(default_factory=list)
    deleted: bool = False
    interaction_id: int | None = None
    #: ``time.perf_counter()`` when it was created, and of each later edit.
    created: float = 0.0
    edited: list[float] = field(default_factory=list)
    #: The users this message notified when it was created (mentions allowed to ping, or the
    #: recipient of a DM), unless it was sent silently; edits never notify.
    notified: tuple[int, ...] = ()

    @property
    def id(self) -> int:
        return int(self.data["id"])

    @property
    def channel_id(self) -> int:
        return int(self.data["channel_id"])

    @property
    def author_id(self) -> int:
        return int(self.data["author"]["id"])

    @property
    def content(self) -> str:
        return self.data["content"]

    @property
    def text(self) -> str:
        """What a reader sees as text: the content, then every text display (components v2)."""
        parts = [self.content] if self.content else []
        parts += [
            c.get("content") or "" for c in _walk_components(self.components) if c.get("type") == 10
        ]
        return "\n".join(parts)

    @property
    def is_v2(self) -> bool:
        return bool(self.flags & COMPONENTS_V2)

    def media_urls(self) -> list[str]:
        """The media a components v2 message shows (``attachment://name`` references)."""
        urls = []
        for comp in _walk_components(self.components):
            if comp.get("type") == 12:
                urls += [
                    (item.get("media") or {}).get("url", "") for item in comp.get("items") or []
                ]
            elif comp.get("type") in (11, 13):
                urls.append(((comp.get("media") or comp.get("file")) or {}).get("url", ""))
        return urls

    @property
    def flags(self) -> int:
        return self.data.get("flags", 0)

    @property
    def ephemeral(self) -> bool:
        return bool(self.flags & EPHEMERAL)

    @property
    def embeds(self) -> list[JSON]:
        return self.data.get("embeds", [])

    @property
    def components(self) -> list[JSON]:
        return self.data.get("components", [])

    @property
    def attachments(self) -> list[JSON]:
        return self.data.get("attachments", [])

    def custom_ids(self) -> list[str]:
        """All component ``custom_id`` values on the message, depth first."""
        return [c["custom_id"] for c in _walk_components(self.components) if "custom_id" in c]

    def file(self, filename: str) -> bytes:
        """Bytes of the attached file called ``filename`` (KeyError if absent)."""
        for f in self.files:
            if f.filename == filename:
                return f.data
        raise KeyError(filename)


@dataclass
class SentInteraction:
    """An interaction the fake dispatched to the bot."""

    id: int
    token: str
    payload: JSON


@dataclass
class _InteractionState:
    sent: SentInteraction
    channel_id: int
    guild_id: int | None
    user_id: int
    source_message_id: int | None = None
    callback_type: int | None = None
    original_message_id: int | None = None
    loading: bool = False


@dataclass
class _Call:
    """What a REST handler gets: the request, path parameters, body and files."""

    request: web.Request
    params: dict[str, str]
    body: Any
    files: list[RecordedFile]

    @property
    def query(self) -> Any:
        return self.request.query

    def int_param(self, name: str) -> int:
        try:
            return int(self.params[name])
        except ValueError:
            raise ApiError(404, f"Unknown {name}", 10003) from None


class _GatewaySession:
    """One client websocket connection to the fake gateway."""

    def __init__(self, ws: web.WebSocketResponse, zlib_stream: bool) -> None:
        self.ws = ws
        self.seq = 0
        self.session_id: str | None = None
        self.intents = 0
        self.identified = False
        self._compressor = zlib.compressobj() if zlib_stream else None
        self._lock = asyncio.Lock()

    @property
    def live(self) -> bool:
        return self.identified and not self.ws.closed

    async def send(self, payload: JSON) -> None:
        text = json.dumps(payload)
        async with self._lock:
            if self.ws.closed:
                return
            if self._compressor is not None:
                data = self._compressor.compress(text.encode()) + self._compressor.flush(
                    zlib.Z_SYNC_FLUSH
                )
                await self.ws.send_bytes(data)
            else:
                await self.ws.send_str(text)

    async def dispatch(self, event: str, data: JSON) -> None:
        self.seq += 1
        await self.send({"op": 0, "t": event, "s": self.seq, "d": data})


# --------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------

_Handler = Callable[[_Call], Awaitable[tuple[int, Any]]]


class FakeDiscord:
    """A loopback Discord (gateway + REST) for one bot application.

    Configure the world with :meth:`add_user`, :meth:`add_guild`, :meth:`add_channel` and
    :meth:`add_member` (before or after the bot connects; changes after connection are not
    announced over the gateway), then ``await start()`` and ``with fake.patched(): ...``.
    """

    def __init__(
        self,
        *,
        bot_id: int = DEFAULT_BOT_ID,
        bot_name: str = "RummyBot",
        application_id: int | None = None,
        token: str | None = None,
        heartbeat_interval_ms: int = 41_250,
        strict_commands: bool = True,
        transport_compression: bool = True,
        application_flags: int = 0,
    ) -> None:
        self.bot_user = FakeUser(bot_id, bot_name, bot=True)
        self.application_id = application_id or bot_id
        self.application_flags = application_flags
        #: If set, REST and IDENTIFY must present exactly this token (else 401 / close 4004).
        self.token = token
        self.heartbeat_interval_ms = heartbeat_interval_ms
        #: Refuse to dispatch slash commands that the bot has not synced (as Discord would).
        self.strict_commands = strict_commands
        self.transport_compression = transport_compression
        #: How often :meth:`wait_until` re-checks its probe without a recorded change.
        self.poll_interval = 0.01

        self.users: dict[int, FakeUser] = {bot_id: self.bot_user}
        self.guilds: dict[int, FakeGuild] = {}
        self.channels: dict[int, FakeChannel] = {}
        self.messages: dict[int, StoredMessage] = {}
        #: Every REST request in arrival order.
        self.requests: list[RecordedRequest] = []
        #: Every payload the client sent over the gateway (IDENTIFY, heartbeats, ...).
        self.gateway_received: list[JSON] = []
        #: Commands currently registered, keyed by guild id (``None`` = global).
        self.commands: dict[int | None, list[JSON]] = {}
        #: Every PUT of a command list: ``(guild_id or None, payload)``.
        self.command_syncs: list[tuple[int | None, list[JSON]]] = []
        #: One entry per gateway connection: its query (``v``, ``encoding``, ``compress``) and
        #: whether the fake answers with zlib-stream compressed binary frames.
        self.gateway_connections: list[JSON] = []
        #: Routes that were requested but are not implemented (``"GET /path"``).
        self.unknown_routes: list[str] = []

        self._ids = itertools.count(1)
        self._interactions: dict[str, _InteractionState] = {}
        self._sessions: list[_GatewaySession] = []
        self._session_ids: set[str] = set()
        self._attachments: dict[int, RecordedFile] = {}
        self._changed = asyncio.Event()
        self._runner: web.AppRunner | None = None
        self._port: int | None = None
        self._routes: list[tuple[str, re.Pattern[str], str, _Handler, bool]] = []
        self._register_routes()

    # ---------------------------------------------------------------- configuration

    def new_id(self) -> int:
        """A fresh, deterministic snowflake."""
        n = next(self._ids)
        return ((ID_BASE_MS - DISCORD_EPOCH_MS + n) << 22) | (n & 0xFFF)

    def add_user(
        self,
        user_id: int,
        username: str,
        *,
        global_name: str | None = None,
        bot: bool = False,
        dms_closed: bool = False,
    ) -> FakeUser:
        """Register a user; ``dms_closed`` makes DMs to them fail with 403/50007."""
        user = FakeUser(user_id, username, global_name, bot=bot, dms_closed=dms_closed)
        self.users[user_id] = user
        return user

    def add_guild(
        self,
        guild_id: int,
        name: str,
        *,
        owner_id: int,
        preferred_locale: str = "en-US",
        everyone_permissions: int = EVERYONE_PERMISSIONS,
    ) -> FakeGuild:
        """Register a guild with its ``@everyone`` role, the bot's managed role and the bot member.

        The owner must be a registered user; they become a member too.
        """
        guild = FakeGuild(guild_id, name, owner_id, preferred_locale)
        guild.roles[guild_id] = FakeRole(guild_id, "@everyone", everyone_permissions)
        bot_role = FakeRole(
            self.new_id(), self.bot_user.username, BOT_PERMISSIONS, 1, self.bot_user.id
        )
        guild.roles[bot_role.id] = bot_role
        guild.members[self.bot_user.id] = FakeMember(self.bot_user.id, [bot_role.id])
        self.guilds[guild_id] = guild
        self.add_member(guild_id, owner_id)
        return guild

    def add_role(self, guild_id: int, role_id: int, name: str, permissions: int) -> FakeRole:
        """Add a role to a guild."""
        guild = self.guilds[guild_id]
        role = FakeRole(role_id, name, permissions, position=len(guild.roles))
        guild.roles[role_id] = role
        return role

    def add_member(
        self,
        guild_id: int,
        user_id: int,
        *,
        roles: list[int] | None = None,
        nick: str | None = None,
    ) -> FakeMember:
        """Make a registered user a member of a guild."""
        if user_id not in self.users:
            raise KeyError(f"unknown user {user_id}: add_user() first")
        member = FakeMember(user_id, list(roles or []), nick)
        self.guilds[guild_id].members[user_id] = member
        return member

    def add_channel(
        self,
        guild_id: int,
        channel_id: int,
        name: str,
        *,
        type: int = GUILD_TEXT,
        parent_id: int | None = None,
        topic: str | None = None,
    ) -> FakeChannel:
        """Add a guild channel (text by default)."""
        guild = self.guilds[guild_id]
        channel = FakeChannel(
            channel_id,
            type,
            name,
            guild_id=guild_id,
            parent_id=parent_id,
            position=len(guild.channel_ids),
            topic=topic,
        )
        self.channels[channel_id] = channel
        guild.channel_ids.append(channel_id)
        return channel

    def dm_channel(self, user_id: int) -> FakeChannel:
        """The DM channel between the bot and ``user_id`` (created on first use)."""
        for channel in self.channels.values():
            if channel.type == DM and channel.recipient_id == user_id:
                return channel
        if user_id not in self.users:
            raise ApiError(404, "Unknown User", 10013)
        channel = FakeChannel(self.new_id(), DM, recipient_id=user_id)
        self.channels[channel.id] = channel
        return channel

    # ---------------------------------------------------------------- lifecycle

    @property
    def port(self) -> int:
        if self._port is None:
            raise RuntimeError("FakeDiscord is not started")
        return self._port

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_base(self) -> str:
        """What ``discord.http.Route.BASE`` becomes while patched."""
        return f"{self.root_url}/api/v10"

    @property
    def gateway_url(self) -> str:
        return f"ws://127.0.0.1:{self.port}/gateway/"

    async def start(self) -> FakeDiscord:
        """Start listening on a random free loopback port."""
        app = web.Application(client_max_size=64 * 1024 * 1024)
        app.router.add_get("/gateway/", self._gateway_handler)
        app.router.add_route("*", r"/api/v{version:\d+}/{tail:.*}", self._rest_handler)
        app.router.add_get(
            "/attachments/{channel}/{attachment}/{filename}", self._attachment_handler
        )
        app.router.add_get("/cdn/{tail:.*}", self._cdn_handler)
        app.router.add_route("*", "/{tail:.*}", self._rest_handler)
        self._runner = web.AppRunner(app, access_log=None, handle_signals=False)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", 0)
        await site.start()
        self._port = self._runner.addresses[0][1]
        return self

    async def close(self) -> None:
        """Close gateway connections and stop the server."""
        for session in list(self._sessions):
            await session.ws.close(code=1001, message=b"fake server shutting down")
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> FakeDiscord:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    @contextlib.contextmanager
    def patched(self) -> Iterator[FakeDiscord]:
        """Point discord.py's REST base, gateway URL and CDN at this fake; restore on exit."""
        saved = (discord.http.Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY, discord.Asset.BASE)
        discord.http.Route.BASE = self.api_base
        DiscordWebSocket.DEFAULT_GATEWAY = yarl.URL(self.gateway_url)
        discord.Asset.BASE = f"{self.root_url}/cdn"
        try:
            yield self
        finally:
            discord.http.Route.BASE, DiscordWebSocket.DEFAULT_GATEWAY, discord.Asset.BASE = saved

    # ---------------------------------------------------------------- waiting

    def _notify(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    async def wait_until(
        self, probe: Callable[[], T | None], timeout: float = 5.0, what: str = "condition"
    ) -> T:
        """Wait until ``probe()`` returns something other than ``None`` and return it.

        ``probe`` is re-evaluated whenever the fake records a request, a message or a gateway
        event, and at least every :attr:`poll_interval` seconds.  Raises :class:`TimeoutError`
        listing the latest requests.
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while True:
            result = probe()
            if result is not None:
                return result
            remaining = deadline - loop.time()
            if remaining <= 0:
                raise TimeoutError(
                    f"timed out after {timeout}s waiting for {what}; latest requests:\n"
                    + self.format_requests(last=15)
                )
            # Wake up on any recorded change, and poll anyway: the probe may look at bot state.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._changed.wait(), min(remaining, self.poll_interval))

    async def wait_for(
        self,
        predicate: Callable[[RecordedRequest], bool],
        timeout: float = 5.0,
        *,
        after: int = 0,
    ) -> RecordedRequest:
        """Wait for the first recorded request (index >= ``after``) matching ``predicate``.

        Requests already recorded count, so no race with the bot.  A predicate that raises
        (e.g. ``r.json["type"]`` on a GET) counts as "no match".
        """

        def probe() -> RecordedRequest | None:
            for req in self.requests[after:]:
                with contextlib.suppress(Exception):
                    if predicate(req):
                        return req
            return None

        return await self.wait_until(probe, timeout, "a matching request")

    async def wait_for_message(
        self, predicate: Callable[[StoredMessage], bool], timeout: float = 5.0
    ) -> StoredMessage:
        """Wait for a (not deleted) message matching ``predicate``."""

        def probe() -> StoredMessage | None:
            for msg in list(self.messages.values()):
                with contextlib.suppress(Exception):
                    if not msg.deleted and predicate(msg):
                        return msg
            return None

        return await self.wait_until(probe, timeout, "a matching message")

    async def wait_for_response(
        self, interaction: SentInteraction | int, timeout: float = 5.0
    ) -> RecordedRequest:
        """Wait for the (successful) callback the bot sent for ``interaction``."""
        iid = interaction.id if isinstance(interaction, SentInteraction) else interaction
        return await self.wait_for(
            lambda r: r.interaction_id == iid and r.route is not None and r.ok, timeout
        )

    async def wait_for_gateway(self, timeout: float = 5.0) -> None:
        """Wait until at least one client has identified on the gateway."""
        await self.wait_until(
            lambda: True if self._live_sessions() else None, timeout, "a gateway IDENTIFY"
        )

    # ---------------------------------------------------------------- inspection

    def format_requests(self, last: int | None = None) -> str:
        """Human-readable list of recorded requests (for assertion messages)."""
        reqs = self.requests if last is None else self.requests[-last:]
        return "\n".join(f"  {r}" for r in reqs) or "  (none)"

    def messages_in(
        self, channel_id: int, *, include_ephemeral: bool = True
    ) -> list[StoredMessage]:
        """Messages currently in a channel, oldest first (deleted ones left out)."""
        return [
            m
            for m in self.messages.values()
            if m.channel_id == channel_id
            and not m.deleted
            and (include_ephemeral or not m.ephemeral)
        ]

    def dms_to(self, user_id: int) -> list[StoredMessage]:
        """Messages the bot successfully sent to ``user_id`` by DM."""
        channel_ids = {
            c.id for c in self.channels.values() if c.type == DM and c.recipient_id == user_id
        }
        return [
            m
            for m in self.messages.values()
            if m.channel_id in channel_ids and m.author_id == self.bot_user.id and not m.deleted
        ]

    def threads_in(self, channel_id: int) -> list[FakeChannel]:
        """Threads created under ``channel_id``."""
        return [c for c in self.channels.values() if c.is_thread and c.parent_id == channel_id]

    def interaction_responses(self, interaction: SentInteraction | int) -> list[RecordedRequest]:
        """Callback and webhook (follow-up / @original) requests made for one interaction."""
        token = self._state_for(interaction).sent.token
        return [r for r in self.requests if r.token == token]

    def original_message(self, interaction: SentInteraction | int) -> StoredMessage | None:
        """The interaction's ``@original`` message, if it has one."""
        state = self._state_for(interaction)
        if state.original_message_id is None:
            return None
        return self.messages.get(state.original_message_id)

    def synced_commands(self, guild_id: int | None = None) -> list[JSON]:
        """Commands currently registered for ``guild_id`` (``None``: global), as Discord stores them."""
        return copy.deepcopy(self.commands.get(guild_id, []))

    def _state_for(self, interaction: SentInteraction | int) -> _InteractionState:
        iid = interaction.id if isinstance(interaction, SentInteraction) else interaction
        for state in self._interactions.values():
            if state.sent.id == iid:
                return state
        raise KeyError(f"unknown interaction {iid}")

    # ---------------------------------------------------------------- serialisation

    def member_permissions(self, guild_id: int, user_id: int) -> int:
        """Guild-level permissions of a member (owner and administrators get everything)."""
        guild = self.guilds[guild_id]
        if user_id == guild.owner_id:
            return ALL_PERMISSIONS
        perms = guild.roles[guild.id].permissions
        member = guild.members.get(user_id)
        for role_id in member.roles if member else []:
            perms |= guild.roles[role_id].permissions
        if perms & discord.Permissions(administrator=True).value:
            return ALL_PERMISSIONS
        return perms

    def member_dict(self, guild_id: int, user_id: int, *, with_user: bool = True) -> JSON:
        """The guild member object for ``user_id``."""
        member = self.guilds[guild_id].members.get(user_id)
        if member is None:
            raise ApiError(404, "Unknown Member", 10007)
        data: JSON = {
            "roles": [str(r) for r in member.roles],
            "nick": member.nick,
            "avatar": None,
            "banner": None,
            "joined_at": member.joined_at,
            "premium_since": None,
            "deaf": False,
            "mute": False,
            "flags": 0,
            "pending": False,
            "communication_disabled_until": None,
        }
        if with_user:
            data["user"] = self.users[user_id].to_dict()
        return data

    def channel_dict(self, channel: FakeChannel) -> JSON:
        """The channel object as Discord's REST API returns it."""
        last = str(channel.last_message_id) if channel.last_message_id else None
        if channel.type == DM:
            return {
                "id": str(channel.id),
                "type": DM,
                "last_message_id": last,
                "flags": 0,
                "recipients": [self.users[channel.recipient_id].to_dict()],  # type: ignore[index]
            }
        data: JSON = {
            "id": str(channel.id),
            "type": channel.type,
            "guild_id": str(channel.guild_id),
            "name": channel.name,
            "parent_id": str(channel.parent_id) if channel.parent_id else None,
            "last_message_id": last,
            "rate_limit_per_user": 0,
            "flags": 0,
        }
        if channel.is_thread:
            data.update(
                owner_id=str(channel.owner_id),
                message_count=channel.message_count,
                total_message_sent=channel.message_count,
                member_count=len(channel.thread_members),
                thread_metadata={
                    "archived": channel.archived,
                    "auto_archive_duration": channel.auto_archive_duration,
                    "archive_timestamp": snowflake_time(channel.id),
                    "locked": channel.locked,
                    "invitable": channel.invitable,
                    "create_timestamp": snowflake_time(channel.id),
                },
            )
        else:
            data.update(
                position=channel.position,
                permission_overwrites=[],
                topic=channel.topic,
                nsfw=False,
            )
        return data

    def guild_create_payload(self, guild_id: int, intents: int = 0) -> JSON:
        """The GUILD_CREATE payload.

        Like Discord for a small guild, it lists every member only with the GUILD_PRESENCES
        intent; otherwise just the bot, and a client with GUILD_MEMBERS chunks the rest (op 8).
        """
        guild = self.guilds[guild_id]
        member_ids = list(guild.members)
        if not intents & INTENT_GUILD_PRESENCES:
            member_ids = [self.bot_user.id]
        channels = [self.channels[c] for c in guild.channel_ids]
        threads = [
            c
            for c in self.channels.values()
            if c.is_thread and c.guild_id == guild_id and not c.archived
        ]
        return {
            "id": str(guild.id),
            "name": guild.name,
            "icon": None,
            "splash": None,
            "discovery_splash": None,
            "banner": None,
            "description": None,
            "owner_id": str(guild.owner_id),
            "afk_channel_id": None,
            "afk_timeout": 300,
            "verification_level": 0,
            "default_message_notifications": 0,
            "explicit_content_filter": 0,
            "mfa_level": 0,
            "nsfw_level": 0,
            "premium_tier": 0,
            "premium_subscription_count": 0,
            "premium_progress_bar_enabled": False,
            "preferred_locale": guild.preferred_locale,
            "features": [],
            "application_id": None,
            "system_channel_id": None,
            "system_channel_flags": 0,
            "rules_channel_id": None,
            "public_updates_channel_id": None,
            "safety_alerts_channel_id": None,
            "vanity_url_code": None,
            "max_members": 500000,
            "max_video_channel_users": 25,
            "roles": [r.to_dict() for r in guild.roles.values()],
            "emojis": [],
            "stickers": [],
            "joined_at": "2024-01-01T00:00:00+00:00",
            "large": False,
            "unavailable": False,
            "lazy": True,
            "member_count": len(guild.members),
            "members": [self.member_dict(guild_id, uid) for uid in member_ids],
            "channels": [self.channel_dict(c) for c in channels],
            "threads": [self.channel_dict(t) for t in threads],
            "voice_states": [],
            "presences": [],
            "stage_instances": [],
            "guild_scheduled_events": [],
            "soundboard_sounds": [],
        }

    def _app_info(self) -> JSON:
        return {
            "id": str(self.application_id),
            "name": self.bot_user.username,
            "icon": None,
            "description": "",
            "summary": "",
            "type": None,
            "bot_public": True,
            "bot_require_code_grant": False,
            "verify_key": "0" * 64,
            "flags": self.application_flags,
            "owner": self.users[min(self.users)].to_dict() if len(self.users) > 1 else None,
            "team": None,
            "bot": self.bot_user.to_dict(),
            "rpc_origins": [],
            "tags": [],
            "redirect_uris": [],
            "interactions_endpoint_url": None,
            "role_connections_verification_url": None,
            "install_params": None,
            "integration_types_config": {"0": {}},
            "approximate_guild_count": len(self.guilds),
        }

    # ---------------------------------------------------------------- gateway

    def _live_sessions(self) -> list[_GatewaySession]:
        return [s for s in self._sessions if s.live]

    async def dispatch(self, event: str, data: JSON, *, intent: int = 0) -> int:
        """Dispatch a gateway event to every identified client; return how many got it.

        With ``intent`` set, only sessions that requested that intent bit receive it.
        """
        sessions = [s for s in self._live_sessions() if not intent or s.intents & intent]
        for session in sessions:
            await session.dispatch(event, copy.deepcopy(data))
        return len(sessions)

    async def request_reconnect(self) -> None:
        """Send op 7 RECONNECT to every client; they reconnect and RESUME their session."""
        for session in self._live_sessions():
            await session.send({"op": 7, "s": None, "t": None, "d": None})

    async def _gateway_handler(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse(max_msg_size=0)
        await ws.prepare(request)
        zlib_stream = self.transport_compression and request.query.get("compress") == "zlib-stream"
        session = _GatewaySession(ws, zlib_stream)
        self.gateway_connections.append({"query": dict(request.query), "zlib_stream": zlib_stream})
        self._sessions.append(session)
        try:
            await session.send(
                {
                    "op": 10,
                    "s": None,
                    "t": None,
                    "d": {"heartbeat_interval": self.heartbeat_interval_ms},
                }
            )
            async for msg in ws:
                if msg.type not in (WSMsgType.TEXT, WSMsgType.BINARY):
                    break
                payload = json.loads(msg.data)
                self.gateway_received.append(payload)
                await self._on_gateway_payload(session, payload)
        finally:
            self._sessions.remove(session)
            self._notify()
        return ws

    async def _on_gateway_payload(self, session: _GatewaySession, payload: JSON) -> None:
        op, data = payload.get("op"), payload.get("d")
        if op == 1:  # HEARTBEAT
            await session.send({"op": 11, "s": None, "t": None, "d": None})
        elif op == 2:  # IDENTIFY
            await self._identify(session, data)
        elif op == 6:  # RESUME
            if data.get("session_id") in self._session_ids and (
                self.token is None or data.get("token") == self.token
            ):
                session.session_id = data["session_id"]
                session.seq = data.get("seq") or 0
                session.identified = True
                await session.dispatch("RESUMED", {})
                self._notify()
            else:
                await session.send({"op": 9, "s": None, "t": None, "d": False})
        elif op == 8:  # REQUEST_GUILD_MEMBERS
            await self._send_member_chunk(session, data)
        else:  # presence (3), voice (4) ... are recorded only
            log.debug("fake gateway ignoring op %s", op)

    async def _identify(self, session: _GatewaySession, data: JSON) -> None:
        if self.token is not None and data.get("token") != self.token:
            await session.ws.close(code=4004, message=b"Authentication failed.")
            return
        session.intents = int(data.get("intents", 0))
        session.session_id = f"fake-session-{self.new_id()}"
        self._session_ids.add(session.session_id)
        session.identified = True
        me = self.bot_user.to_dict() | {"verified": True, "mfa_enabled": False, "email": None}
        ready: JSON = {
            "v": 10,
            "user": me,
            "user_settings": {},
            "guilds": [{"id": str(g), "unavailable": True} for g in self.guilds],
            "session_id": session.session_id,
            "session_type": "normal",
            "resume_gateway_url": self.gateway_url,
            "private_channels": [],
            "relationships": [],
            "presences": [],
            "guild_join_requests": [],
            "geo_ordered_rtc_regions": ["fake"],
            "application": {"id": str(self.application_id), "flags": self.application_flags},
            "auth": {},
            "_trace": ['["fake-gateway",{"micros":0}]'],
        }
        if "shard" in data:
            ready["shard"] = data["shard"]
        await session.dispatch("READY", ready)
        for guild_id in self.guilds:
            await session.dispatch(
                "GUILD_CREATE", self.guild_create_payload(guild_id, session.intents)
            )
        self._notify()

    async def _send_member_chunk(self, session: _GatewaySession, data: JSON) -> None:
        guild = self.guilds.get(int(data["guild_id"]))
        if guild is None:
            return
        wanted = [int(u) for u in data.get("user_ids") or []]
        query = (data.get("query") or "").lower()
        ids = [
            uid
            for uid in guild.members
            if (not wanted or uid in wanted) and self.users[uid].username.lower().startswith(query)
        ]
        if data.get("limit"):
            ids = ids[: data["limit"]]
        chunk: JSON = {
            "guild_id": str(guild.id),
            "members": [self.member_dict(guild.id, uid) for uid in ids],
            "chunk_index": 0,
            "chunk_count": 1,
            "not_found": [str(u) for u in wanted if u not in guild.members],
        }
        if "nonce" in data:
            chunk["nonce"] = data["nonce"]
        await session.dispatch("GUILD_MEMBERS_CHUNK", chunk)

    async def _dispatch_message(self, event: str, msg: StoredMessage) -> None:
        """MESSAGE_CREATE / MESSAGE_UPDATE honouring the message intents."""
        if msg.ephemeral:
            return
        channel = self.channels[msg.channel_id]
        bit = INTENT_GUILD_MESSAGES if channel.guild_id else INTENT_DIRECT_MESSAGES
        mentioned = any(int(u["id"]) == self.bot_user.id for u in msg.data.get("mentions", []))
        content_visible = channel.guild_id is None or mentioned or msg.author_id == self.bot_user.id
        for session in self._live_sessions():
            if not session.intents & bit:
                continue
            data = copy.deepcopy(msg.data)
            guild = self.guilds.get(channel.guild_id or 0)
            if guild is not None and msg.author_id in guild.members:
                data["member"] = self.member_dict(guild.id, msg.author_id, with_user=False)
            if not content_visible and not session.intents & INTENT_MESSAGE_CONTENT:
                data.update(content="", embeds=[], attachments=[], components=[])
            await session.dispatch(event, data)

    # ---------------------------------------------------------------- simulated people

    def _interaction_payload(
        self,
        type: int,
        user_id: int,
        channel: FakeChannel,
        data: JSON | None,
        *,
        locale: str,
        guild_locale: str | None,
        message: StoredMessage | None = None,
    ) -> _InteractionState:
        if user_id not in self.users:
            raise KeyError(f"unknown user {user_id}: add_user() first")
        iid = self.new_id()
        token = f"aW50ZXJhY3Rpb246{iid}:fake-interaction-token"
        guild_id = channel.guild_id
        channel_data = self.channel_dict(channel)
        payload: JSON = {
            "id": str(iid),
            "application_id": str(self.application_id),
            "type": type,
            "channel_id": str(channel.id),
            "channel": channel_data,
            "token": token,
            "version": 1,
            "locale": locale,
            "entitlements": [],
            "authorizing_integration_owners": {"0": str(guild_id) if guild_id else "0"},
            "attachment_size_limit": ATTACHMENT_SIZE_LIMIT,
        }
        if data is not None:
            payload["data"] = data
        if guild_id is not None:
            guild = self.guilds[guild_id]
            if user_id not in guild.members:
                raise KeyError(f"user {user_id} is not a member of guild {guild_id}")
            perms = str(self.member_permissions(guild_id, user_id))
            channel_data["permissions"] = perms
            payload.update(
                guild_id=str(guild_id),
                guild={
                    "id": str(guild_id),
                    "locale": guild_locale or guild.preferred_locale,
                    "features": [],
                },
                guild_locale=guild_locale or guild.preferred_locale,
                member=self.member_dict(guild_id, user_id) | {"permissions": perms},
                app_permissions=str(self.member_permissions(guild_id, self.bot_user.id)),
                context=0,
            )
        else:
            channel_data["permissions"] = str(EVERYONE_PERMISSIONS)
            payload.update(
                user=self.users[user_id].to_dict(),
                app_permissions=str(BOT_PERMISSIONS),
                context=1 if channel.recipient_id == user_id else 2,
            )
        if message is not None:
            payload["message"] = copy.deepcopy(message.data)
        state = _InteractionState(
            SentInteraction(iid, token, payload),
            channel.id,
            guild_id,
            user_id,
            source_message_id=message.id if message else None,
        )
        self._interactions[token] = state
        return state

    async def _send_interaction(self, state: _InteractionState) -> SentInteraction:
        if not await self.dispatch("INTERACTION_CREATE", state.sent.payload):
            raise RuntimeError("no bot is connected to the fake gateway")
        return state.sent

    def _resolve_channel(
        self, user_id: int, guild_id: int | None, channel_id: int | None
    ) -> FakeChannel:
        if channel_id is None:
            if guild_id is not None:
                raise ValueError("a guild interaction needs a channel_id")
            return self.dm_channel(user_id)
        channel = self.channels[channel_id]
        if guild_id is not None and channel.guild_id != guild_id:
            raise ValueError(f"channel {channel_id} is not in guild {guild_id}")
        return channel

    def _find_command(self, name: str, guild_id: int | None, type: int) -> tuple[JSON | None, bool]:
        """Find a synced command by name; returns (command, is_guild_command)."""
        if guild_id is not None:
            for cmd in self.commands.get(guild_id, []):
                if cmd["name"] == name and cmd.get("type", 1) == type:
                    return cmd, True
        for cmd in self.commands.get(None, []):
            if cmd["name"] == name and cmd.get("type", 1) == type:
                return cmd, False
        return None, False

    def _resolved_for(self, options: list[JSON], guild_id: int | None) -> JSON:
        """The ``resolved`` map for user / channel / role options, as Discord builds it."""
        resolved: JSON = {}
        stack = list(options)
        while stack:
            opt = stack.pop()
            stack.extend(opt.get("options") or [])
            kind, value = opt.get("type"), opt.get("value")
            if kind not in (6, 7, 8, 9) or value is None:
                continue
            ident = int(value)
            if kind in (6, 9) and ident in self.users:
                resolved.setdefault("users", {})[str(ident)] = self.users[ident].to_dict()
                guild = self.guilds.get(guild_id or 0)
                if guild is not None and ident in guild.members:
                    member = self.member_dict(guild.id, ident, with_user=False)
                    member["permissions"] = str(self.member_permissions(guild.id, ident))
                    resolved.setdefault("members", {})[str(ident)] = member
            if kind in (7, 9) and ident in self.channels:
                channel = self.channel_dict(self.channels[ident])
                channel["permissions"] = str(EVERYONE_PERMISSIONS)
                resolved.setdefault("channels", {})[str(ident)] = channel
            if kind in (8, 9) and guild_id is not None and ident in self.guilds[guild_id].roles:
                role = self.guilds[guild_id].roles[ident].to_dict()
                resolved.setdefault("roles", {})[str(ident)] = role
        return resolved

    def _command_data(
        self, name: str, guild_id: int | None, options: list[JSON] | None, type: int = 1
    ) -> JSON:
        cmd, is_guild = self._find_command(name, guild_id, type)
        if cmd is None and self.strict_commands:
            raise LookupError(
                f"command {name!r} was not synced for guild {guild_id} or globally "
                f"(synced: {[(g, c['name']) for g, cs in self.commands.items() for c in cs]})"
            )
        data: JSON = {
            "id": cmd["id"] if cmd else str(self.new_id()),
            "name": name,
            "type": type,
        }
        if options:
            data["options"] = copy.deepcopy(options)
        resolved = self._resolved_for(options or [], guild_id)
        if resolved:
            data["resolved"] = resolved
        if is_guild:
            data["guild_id"] = str(guild_id)
        return data

    async def slash(
        self,
        user_id: int,
        guild_id: int | None,
        channel_id: int | None,
        name: str,
        options: list[JSON] | None = None,
        *,
        locale: str = "en-US",
        guild_locale: str | None = None,
    ) -> SentInteraction:
        """A user runs ``/name ...``: dispatch an APPLICATION_COMMAND (type 2) interaction.

        ``options`` are Discord-shaped option dicts, e.g.
        ``[subcommand("start", option("variant", "stein"))]``.  With ``guild_id`` and
        ``channel_id`` both ``None`` the command is run in the user's DM with the bot.
        """
        channel = self._resolve_channel(user_id, guild_id, channel_id)
        data = self._command_data(name, channel.guild_id, options)
        state = self._interaction_payload(
            2, user_id, channel, data, locale=locale, guild_locale=guild_locale
        )
        return await self._send_interaction(state)

    async def autocomplete(
        self,
        user_id: int,
        guild_id: int | None,
        channel_id: int | None,
        name: str,
        options: list[JSON],
        *,
        locale: str = "en-US",
        guild_locale: str | None = None,
        timeout: float = 5.0,
    ) -> list[JSON]:
        """A user types into an option (mark it with ``focused=True``); return the bot's choices."""
        channel = self._resolve_channel(user_id, guild_id, channel_id)
        data = self._command_data(name, channel.guild_id, options)
        state = self._interaction_payload(
            4, user_id, channel, data, locale=locale, guild_locale=guild_locale
        )
        sent = await self._send_interaction(state)
        reply = await self.wait_for_response(sent, timeout)
        return reply.json["data"]["choices"]

    async def click(
        self,
        user_id: int,
        channel_id: int,
        message_id: int,
        custom_id: str,
        *,
        component_type: int = 2,
        values: list[str] | None = None,
        locale: str = "en-US",
        guild_locale: str | None = None,
    ) -> SentInteraction:
        """A user clicks a button (or picks ``values`` in a select, ``component_type=3``).

        The message must exist and carry a component with that ``custom_id``.
        """
        message = self.messages.get(message_id)
        if message is None or message.deleted or message.channel_id != channel_id:
            raise LookupError(f"no message {message_id} in channel {channel_id}")
        if custom_id not in message.custom_ids():
            raise LookupError(
                f"message {message_id} has no component {custom_id!r}: {message.custom_ids()}"
            )
        data: JSON = {"custom_id": custom_id, "component_type": component_type}
        if values is not None:
            data["values"] = list(values)
        state = self._interaction_payload(
            3,
            user_id,
            self.channels[channel_id],
            data,
            locale=locale,
            guild_locale=guild_locale,
            message=message,
        )
        return await self._send_interaction(state)

    async def submit_modal(
        self,
        user_id: int,
        channel_id: int,
        custom_id: str,
        values: dict[str, str],
        *,
        message_id: int | None = None,
        locale: str = "en-US",
        guild_locale: str | None = None,
    ) -> SentInteraction:
        """A user submits a modal: ``values`` maps text-input custom ids to what was typed."""
        rows = [
            {"type": 1, "components": [{"type": 4, "custom_id": key, "value": value}]}
            for key, value in values.items()
        ]
        message = self.messages.get(message_id) if message_id else None
        state = self._interaction_payload(
            5,
            user_id,
            self.channels[channel_id],
            {"custom_id": custom_id, "components": rows},
            locale=locale,
            guild_locale=guild_locale,
            message=message,
        )
        return await self._send_interaction(state)

    async def user_message(
        self, user_id: int, channel_id: int | None, content: str
    ) -> StoredMessage:
        """A user posts ``content`` in a channel (``None``: their DM with the bot).

        MESSAGE_CREATE follows the intents rules: without MESSAGE_CONTENT the bot sees empty
        content in guild channels unless it is mentioned.
        """
        channel = self.channels[channel_id] if channel_id is not None else self.dm_channel(user_id)
        msg = self._new_message(channel, self.users[user_id].to_dict(), {"content": content}, [])
        await self._dispatch_message("MESSAGE_CREATE", msg)
        return msg

    def post_as_bot(self, channel_id: int, payload: JSON) -> StoredMessage:
        """Put a message in a channel as if the bot had posted it earlier (say, an older version
        of the bot, before a restart); checked like a real post, no gateway event."""
        self._validate_message(payload, [])
        return self._new_message(self.channels[channel_id], self._bot_author(), payload, [])

    # ---------------------------------------------------------------- messages

    def _new_message(
        self,
        channel: FakeChannel,
        author: JSON,
        payload: JSON,
        files: list[RecordedFile],
        *,
        message_id: int | None = None,
        msg_type: int = 0,
        flags: int = 0,
        extra: JSON | None = None,
    ) -> StoredMessage:
        mid = message_id or self.new_id()
        flags |= int(payload.get("flags") or 0) & (EPHEMERAL | COMPONENTS_V2 | (1 << 2) | (1 << 12))
        stored = StoredMessage({}, interaction_id=None)
        attachments = self._apply_attachments(
            stored, payload, files, channel.id, flags & EPHEMERAL, []
        )
        content = payload.get("content") or ""
        self._check_media(payload.get("components") or [], attachments)
        shown = "\n".join([content, *_texts(payload.get("components") or [])])
        mentions = self._mentions(shown, payload.get("allowed_mentions"))
        data: JSON = {
            "id": str(mid),
            "type": msg_type,
            "channel_id": str(channel.id),
            "author": author,
            "content": content,
            "timestamp": snowflake_time(mid),
            "edited_timestamp": None,
            "tts": bool(payload.get("tts")),
            "mention_everyone": False,
            "mentions": mentions,
            "mention_roles": [],
            "attachments": attachments,
            "embeds": copy.deepcopy(payload.get("embeds") or []),
            "components": copy.deepcopy(payload.get("components") or []),
            "pinned": False,
            "flags": flags,
        }
        if channel.guild_id is not None:
            data["guild_id"] = str(channel.guild_id)
        if payload.get("nonce") is not None:
            data["nonce"] = payload["nonce"]
        ref = payload.get("message_reference")
        if ref and ref.get("message_id") and int(ref["message_id"]) in self.messages:
            data["type"] = 19
            data["message_reference"] = {
                "type": 0,
                "message_id": str(ref["message_id"]),
                "channel_id": str(ref.get("channel_id") or channel.id),
                **({"guild_id": str(channel.guild_id)} if channel.guild_id else {}),
            }
            data["referenced_message"] = copy.deepcopy(self.messages[int(ref["message_id"])].data)
        if extra:
            data.update(extra)
        stored.data = data
        stored.created = time.perf_counter()
        if not flags & (SUPPRESS_NOTIFICATIONS | EPHEMERAL | LOADING) and author.get("bot"):
            pinged = [int(u["id"]) for u in mentions]
            if channel.type == DM and channel.recipient_id is not None:
                pinged.append(channel.recipient_id)
            stored.notified = tuple(dict.fromkeys(pinged))
        self.messages[mid] = stored
        channel.last_message_id = mid
        channel.message_count += 1
        self._notify()
        return stored

    def _edit_message(self, msg: StoredMessage, payload: JSON, files: list[RecordedFile]) -> None:
        data = msg.data
        if "attachments" in payload or files:
            before = list(msg.files)
            attachments = self._apply_attachments(
                msg,
                payload,
                files,
                msg.channel_id,
                data.get("flags", 0) & EPHEMERAL,
                data["attachments"],
            )
            try:
                self._check_media(payload.get("components", data["components"]) or [], attachments)
            except ApiError:
                msg.files = before
                raise
            data["attachments"] = attachments
        elif "components" in payload:
            self._check_media(payload["components"] or [], data["attachments"])
        for key in ("content", "embeds", "components"):
            if key in payload:
                data[key] = (
                    copy.deepcopy(payload[key])
                    if payload[key] is not None
                    else ("" if key == "content" else [])
                )
        if "content" in payload or "components" in payload:
            shown = "\n".join([data["content"], *_texts(data["components"])])
            allowed = payload.get("allowed_mentions")
            data["mentions"] = self._mentions(shown, allowed)
        if "flags" in payload and payload["flags"] is not None:
            keep = data.get("flags", 0) & (EPHEMERAL | HAS_THREAD)
            data["flags"] = keep | (int(payload["flags"]) & ~(EPHEMERAL | LOADING))
        data["edited_timestamp"] = snowflake_time(self.new_id())
        msg.edited.append(time.perf_counter())
        self._notify()

    def _apply_attachments(
        self,
        msg: StoredMessage,
        payload: JSON,
        files: list[RecordedFile],
        channel_id: int,
        ephemeral: int,
        existing: list[JSON],
    ) -> list[JSON]:
        """Attachment objects after applying ``payload["attachments"]`` and new uploads."""
        uploads = {}
        for f in files:
            match = re.fullmatch(r"files\[(\d+)\]", f.field)
            uploads[int(match.group(1)) if match else len(uploads)] = f
        meta = payload.get("attachments")
        if meta is None:
            meta = [{"id": a["id"]} for a in existing] + [{"id": i} for i in sorted(uploads)]
        existing_by_id = {str(a["id"]): a for a in existing}
        result: list[JSON] = []
        kept_files: list[RecordedFile] = []
        for entry in meta:
            key = str(entry.get("id"))
            if key in existing_by_id:
                result.append(existing_by_id[key])
                kept_files.append(self._attachments[int(key)])
                continue
            upload = uploads.get(int(key)) if key.isdigit() else None
            if upload is None:
                raise ApiError(
                    400, "Invalid Form Body", 50035, {"attachments": f"unknown id {key}"}
                )
            aid = self.new_id()
            filename = entry.get("filename") or upload.filename
            content_type = mimetypes.guess_type(filename)[0] or upload.content_type
            attachment: JSON = {
                "id": str(aid),
                "filename": filename,
                "size": len(upload.data),
                "url": f"{self.root_url}/attachments/{channel_id}/{aid}/{filename}",
                "proxy_url": f"{self.root_url}/attachments/{channel_id}/{aid}/{filename}",
                "content_type": content_type,
            }
            if entry.get("description"):
                attachment["description"] = entry["description"]
            if ephemeral:
                attachment["ephemeral"] = True
            stored = RecordedFile(upload.field, filename, content_type, upload.data)
            self._attachments[aid] = stored
            kept_files.append(stored)
            result.append(attachment)
        msg.files = kept_files
        return result

    def _mentions(self, content: str, allowed: JSON | None = None) -> list[JSON]:
        """The users a text mentions, as far as ``allowed_mentions`` lets them be pinged."""
        ids = list(dict.fromkeys(int(m) for m in re.findall(r"<@!?(\d+)>", content)))
        if allowed is not None and "users" not in (allowed.get("parse") or []):
            permitted = {int(u) for u in allowed.get("users") or []}
            ids = [i for i in ids if i in permitted]
        return [self.users[i].to_dict() for i in ids if i in self.users]

    @staticmethod
    def _check_media(components: list[JSON], attachments: list[JSON]) -> None:
        """Every ``attachment://name`` a component shows must be one of the message's files."""
        names = {a["filename"] for a in attachments}
        probe = StoredMessage({"components": components})
        for url in probe.media_urls():
            if url.startswith("attachment://") and url.removeprefix("attachment://") not in names:
                raise _invalid_form([f"components: {url} is not an attachment of the message"])

    @staticmethod
    def _validate_message(
        payload: JSON,
        files: list[RecordedFile],
        *,
        edit: bool = False,
        current: StoredMessage | None = None,
    ) -> None:
        """Reject what Discord rejects (the common limits), with 400/50035 or 50006."""
        problems: list[str] = []
        content = payload.get("content") or ""
        if len(content) > 2000:
            problems.append(f"content: must be 2000 or fewer in length ({len(content)})")
        embeds = payload.get("embeds") or []
        if len(embeds) > 10:
            problems.append("embeds: must be 10 or fewer")
        for i, embed in enumerate(embeds):
            limits = {"title": 256, "description": 4096}
            total = 0
            for key, limit in limits.items():
                size = len(embed.get(key) or "")
                total += size
                if size > limit:
                    problems.append(f"embeds.{i}.{key}: must be {limit} or fewer in length")
            fields = embed.get("fields") or []
            if len(fields) > 25:
                problems.append(f"embeds.{i}.fields: must be 25 or fewer")
            for j, fld in enumerate(fields):
                total += len(fld.get("name", "")) + len(fld.get("value", ""))
                if not fld.get("name") or len(fld["name"]) > 256:
                    problems.append(f"embeds.{i}.fields.{j}.name: 1-256 characters")
                if not fld.get("value") or len(fld["value"]) > 1024:
                    problems.append(f"embeds.{i}.fields.{j}.value: 1-1024 characters")
            footer = (embed.get("footer") or {}).get("text") or ""
            author = (embed.get("author") or {}).get("name") or ""
            total += len(footer) + len(author)
            if total > 6000:
                problems.append(f"embeds.{i}: total length must be 6000 or fewer")
        components = payload.get("components") or []
        v2 = bool(int(payload.get("flags") or 0) & COMPONENTS_V2)
        if current is not None and current.is_v2:
            if payload.get("flags") is not None and not v2:
                problems.append("flags: IS_COMPONENTS_V2 cannot be removed from a message")
            v2 = True
        if v2:
            problems += _v2_problems(payload, components, edit=edit)
        else:
            if len(components) > 5:
                problems.append("components: must be 5 or fewer action rows")
            for row in components:
                if row.get("type") != 1:
                    kind = V2_TYPES.get(row.get("type"), row.get("type"))
                    problems.append(f"components: {kind} needs the IS_COMPONENTS_V2 flag")
                if len(row.get("components") or []) > 5:
                    problems.append("components: an action row holds at most 5 components")
        for comp in _walk_components(components):
            if len(comp.get("custom_id") or "") > 100:
                problems.append("components: custom_id must be 100 or fewer in length")
            if len(comp.get("label") or "") > 80:
                problems.append("components: label must be 80 or fewer in length")
        if len(files) > 10:
            problems.append("files: at most 10 attachments")
        if problems:
            raise _invalid_form(problems)
        if any(len(f.data) > ATTACHMENT_SIZE_LIMIT for f in files):
            raise ApiError(413, "Request entity too large", 40005)
        has_body = content or embeds or components or files or payload.get("sticker_ids")
        if not edit and not has_body and not payload.get("poll"):
            raise ApiError(400, "Cannot send an empty message", 50006)

    def _bot_author(self) -> JSON:
        return self.bot_user.to_dict()

    def _get_message(self, channel_id: int, message_id: int) -> StoredMessage:
        msg = self.messages.get(message_id)
        if msg is None or msg.deleted or msg.channel_id != channel_id:
            raise ApiError(404, "Unknown Message", 10008)
        return msg

    def _get_channel(self, channel_id: int) -> FakeChannel:
        channel = self.channels.get(channel_id)
        if channel is None:
            raise ApiError(404, "Unknown Channel", 10003)
        return channel

    async def _post_message(
        self, channel: FakeChannel, payload: JSON, files: list[RecordedFile]
    ) -> StoredMessage:
        """The bot posts a message in a channel (permission and DM checks included)."""
        if channel.type == DM:
            recipient = self.users[channel.recipient_id]  # type: ignore[index]
            if recipient.dms_closed or recipient.bot:
                raise ApiError(403, "Cannot send messages to this user", 50007)
        if channel.is_thread and (channel.archived or channel.locked):
            raise ApiError(400, "Thread is archived", 50083)
        self._validate_message(payload, files)
        # Only interaction responses can be ephemeral; Discord ignores the flag elsewhere.
        payload = payload | {"flags": int(payload.get("flags") or 0) & ~EPHEMERAL}
        msg = self._new_message(channel, self._bot_author(), payload, files)
        await self._dispatch_message("MESSAGE_CREATE", msg)
        return msg

    # ---------------------------------------------------------------- REST plumbing

    def _register_routes(self) -> None:
        table: list[tuple[str, str, _Handler, bool]] = [
            ("GET", "/gateway", self._h_gateway, False),
            ("GET", "/gateway/bot", self._h_gateway_bot, True),
            ("GET", "/users/@me", self._h_me, True),
            ("GET", "/users/{user_id}", self._h_user, True),
            ("POST", "/users/@me/channels", self._h_create_dm, True),
            ("GET", "/oauth2/applications/@me", self._h_app, True),
            ("GET", "/applications/@me", self._h_app, True),
            ("GET", "/applications/{application_id}/commands", self._h_get_commands, True),
            ("PUT", "/applications/{application_id}/commands", self._h_put_commands, True),
            ("POST", "/applications/{application_id}/commands", self._h_post_command, True),
            (
                "DELETE",
                "/applications/{application_id}/commands/{command_id}",
                self._h_delete_command,
                True,
            ),
            (
                "GET",
                "/applications/{application_id}/guilds/{guild_id}/commands",
                self._h_get_commands,
                True,
            ),
            (
                "PUT",
                "/applications/{application_id}/guilds/{guild_id}/commands",
                self._h_put_commands,
                True,
            ),
            (
                "POST",
                "/applications/{application_id}/guilds/{guild_id}/commands",
                self._h_post_command,
                True,
            ),
            (
                "DELETE",
                "/applications/{application_id}/guilds/{guild_id}/commands/{command_id}",
                self._h_delete_command,
                True,
            ),
            ("GET", "/guilds/{guild_id}", self._h_get_guild, True),
            ("GET", "/guilds/{guild_id}/channels", self._h_guild_channels, True),
            ("GET", "/guilds/{guild_id}/members/{user_id}", self._h_get_member, True),
            ("GET", "/channels/{channel_id}", self._h_get_channel, True),
            ("PATCH", "/channels/{channel_id}", self._h_edit_channel, True),
            ("POST", "/channels/{channel_id}/typing", self._h_no_content, True),
            ("GET", "/channels/{channel_id}/messages", self._h_history, True),
            ("POST", "/channels/{channel_id}/messages", self._h_create_message, True),
            ("GET", "/channels/{channel_id}/messages/{message_id}", self._h_get_message, True),
            ("PATCH", "/channels/{channel_id}/messages/{message_id}", self._h_edit_message, True),
            (
                "DELETE",
                "/channels/{channel_id}/messages/{message_id}",
                self._h_delete_message,
                True,
            ),
            (
                "PUT",
                "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
                self._h_react,
                True,
            ),
            (
                "DELETE",
                "/channels/{channel_id}/messages/{message_id}/reactions/{emoji}/@me",
                self._h_react,
                True,
            ),
            (
                "POST",
                "/channels/{channel_id}/messages/{message_id}/threads",
                self._h_thread_from_message,
                True,
            ),
            ("POST", "/channels/{channel_id}/threads", self._h_thread, True),
            ("PUT", "/channels/{channel_id}/thread-members/{user_id}", self._h_thread_member, True),
            (
                "DELETE",
                "/channels/{channel_id}/thread-members/{user_id}",
                self._h_thread_member,
                True,
            ),
            ("POST", "/interactions/{interaction_id}/{token}/callback", self._h_callback, False),
            ("POST", "/webhooks/{application_id}/{token}", self._h_followup, False),
            (
                "GET",
                "/webhooks/{application_id}/{token}/messages/{message_id}",
                self._h_wh_get,
                False,
            ),
            (
                "PATCH",
                "/webhooks/{application_id}/{token}/messages/{message_id}",
                self._h_wh_edit,
                False,
            ),
            (
                "DELETE",
                "/webhooks/{application_id}/{token}/messages/{message_id}",
                self._h_wh_delete,
                False,
            ),
        ]
        for method, template, handler, auth in table:
            pattern = re.compile("^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", template) + "$")
            self._routes.append((method, pattern, template, handler, auth))

    def _match(self, method: str, path: str) -> tuple[str, _Handler, bool, dict[str, str]] | None:
        # Literal segments (``@me``) win over parameters: the table lists them first.
        for route_method, pattern, template, handler, auth in self._routes:
            if route_method != method:
                continue
            m = pattern.match(path)
            if m:
                return template, handler, auth, m.groupdict()
        return None

    @staticmethod
    async def _read_body(request: web.Request) -> tuple[Any, list[RecordedFile]]:
        if request.content_type.startswith("multipart/"):
            payload: Any = None
            files: list[RecordedFile] = []
            reader = await request.multipart()
            while (part := await reader.next()) is not None:
                data = bytes(await part.read())  # type: ignore[union-attr]
                if part.name == "payload_json":
                    payload = json.loads(data)
                elif part.filename is not None:  # type: ignore[union-attr]
                    content_type = part.headers.get("Content-Type", "application/octet-stream")
                    files.append(RecordedFile(part.name or "", part.filename, content_type, data))  # type: ignore[union-attr]
            return payload, files
        raw = await request.read()
        if not raw:
            return None, []
        try:
            return json.loads(raw), []
        except ValueError:
            return raw.decode("utf-8", "replace"), []

    @staticmethod
    def _json_response(status: int, body: Any) -> web.Response:
        if body is None:
            return web.Response(status=204)
        # discord.py compares the header with == "application/json": no charset allowed.
        return web.Response(
            status=status,
            body=json.dumps(body).encode(),
            headers={"Content-Type": "application/json"},
        )

    async def _rest_handler(self, request: web.Request) -> web.Response:
        tail = request.match_info.get("tail", "")
        path = "/" + tail if "version" in request.match_info else request.path
        body, files = await self._read_body(request)
        matched = self._match(request.method, path) if "version" in request.match_info else None
        record = RecordedRequest(
            request.method,
            path,
            matched[0] if matched else None,
            matched[3] if matched else {},
            dict(request.query),
            body,
            files,
            at=time.perf_counter(),
        )
        try:
            if matched is None:
                self.unknown_routes.append(f"{request.method} {path}")
                log.warning("fake discord: unknown route %s %s", request.method, path)
                raise ApiError(404, "Unknown", 0)
            _, handler, needs_auth, params = matched
            if needs_auth:
                self._check_auth(request)
            status, response = await handler(_Call(request, params, body, files))
        except ApiError as exc:
            status, response = exc.status, exc.body
        record.status = 204 if response is None else status
        record.response = response
        self.requests.append(record)
        self._notify()
        return self._json_response(status, response)

    def _check_auth(self, request: web.Request) -> None:
        header = request.headers.get("Authorization", "")
        if not header.startswith("Bot ") or (self.token is not None and header[4:] != self.token):
            raise ApiError(401, "401: Unauthorized", 0)

    async def _attachment_handler(self, request: web.Request) -> web.Response:
        stored = self._attachments.get(int(request.match_info["attachment"]))
        if stored is None:
            return web.Response(status=404)
        return web.Response(body=stored.data, headers={"Content-Type": stored.content_type})

    async def _cdn_handler(self, request: web.Request) -> web.Response:
        return web.Response(body=_tiny_png(), headers={"Content-Type": "image/png"})

    # ---------------------------------------------------------------- REST handlers

    async def _h_no_content(self, call: _Call) -> tuple[int, Any]:
        return 204, None

    async def _h_gateway(self, call: _Call) -> tuple[int, Any]:
        return 200, {"url": self.gateway_url.rstrip("/")}

    async def _h_gateway_bot(self, call: _Call) -> tuple[int, Any]:
        limit = {"total": 1000, "remaining": 999, "reset_after": 0, "max_concurrency": 1}
        return 200, {"url": self.gateway_url.rstrip("/"), "shards": 1, "session_start_limit": limit}

    async def _h_me(self, call: _Call) -> tuple[int, Any]:
        return 200, self.bot_user.to_dict() | {"verified": True, "mfa_enabled": False}

    async def _h_user(self, call: _Call) -> tuple[int, Any]:
        user = self.users.get(call.int_param("user_id"))
        if user is None:
            raise ApiError(404, "Unknown User", 10013)
        return 200, user.to_dict()

    async def _h_app(self, call: _Call) -> tuple[int, Any]:
        return 200, self._app_info()

    async def _h_create_dm(self, call: _Call) -> tuple[int, Any]:
        channel = self.dm_channel(int(call.body["recipient_id"]))
        return 200, self.channel_dict(channel)

    def _command_scope(self, call: _Call) -> int | None:
        if call.int_param("application_id") != self.application_id:
            raise ApiError(403, "Missing Access", 50001)
        guild_id = call.params.get("guild_id")
        if guild_id is None:
            return None
        if int(guild_id) not in self.guilds:
            raise ApiError(403, "Missing Access", 50001)
        return int(guild_id)

    @staticmethod
    def _validate_command(cmd: JSON) -> list[str]:
        problems: list[str] = []

        def check(item: JSON, where: str, chat_input: bool) -> None:
            name = item.get("name", "")
            if chat_input and (not re.fullmatch(r"[-_\w]{1,32}", name) or name != name.lower()):
                problems.append(f"{where}.name: invalid {name!r}")
            elif not 1 <= len(name) <= 32:
                problems.append(f"{where}.name: must be 1-32 characters")
            for locale, text in (item.get("name_localizations") or {}).items():
                if not 1 <= len(text) <= 32 or (chat_input and text != text.lower()):
                    problems.append(f"{where}.name_localizations.{locale}: invalid {text!r}")
            if chat_input:
                desc = item.get("description", "")
                if not 1 <= len(desc) <= 100:
                    problems.append(f"{where}.description: must be 1-100 characters")
                for locale, text in (item.get("description_localizations") or {}).items():
                    if not 1 <= len(text) <= 100:
                        problems.append(f"{where}.description_localizations.{locale}: 1-100 chars")
            options = item.get("options") or []
            if len(options) > 25:
                problems.append(f"{where}.options: must be 25 or fewer")
            for i, opt in enumerate(options):
                check(opt, f"{where}.options.{i}", True)
                if len(opt.get("choices") or []) > 25:
                    problems.append(f"{where}.options.{i}.choices: must be 25 or fewer")

        check(cmd, cmd.get("name", "?"), cmd.get("type", 1) == 1)
        return problems

    def _store_command(self, scope: int | None, cmd: JSON, existing: list[JSON]) -> JSON:
        previous = next(
            (c for c in existing if c["name"] == cmd["name"] and c["type"] == cmd.get("type", 1)),
            None,
        )
        stored: JSON = {
            "type": 1,
            "description": "",
            "options": [],
            "default_member_permissions": None,
            "nsfw": False,
            "name_localizations": None,
            "description_localizations": None,
        }
        stored.update(copy.deepcopy(cmd))
        stored.update(
            id=previous["id"] if previous else str(self.new_id()),
            application_id=str(self.application_id),
            version=str(self.new_id()),
        )
        if scope is not None:
            stored["guild_id"] = str(scope)
        else:
            stored.setdefault("contexts", None)
            stored.setdefault("integration_types", [0])
        return stored

    async def _h_get_commands(self, call: _Call) -> tuple[int, Any]:
        return 200, copy.deepcopy(self.commands.get(self._command_scope(call), []))

    async def _h_put_commands(self, call: _Call) -> tuple[int, Any]:
        scope = self._command_scope(call)
        payload = call.body or []
        if len(payload) > 100:
            raise _invalid_form(["at most 100 chat input commands"])
        names = [(c["name"], c.get("type", 1)) for c in payload]
        problems = [p for c in payload for p in self._validate_command(c)]
        if len(set(names)) != len(names):
            problems.append("duplicate command names")
        if problems:
            raise _invalid_form(problems)
        existing = self.commands.get(scope, [])
        self.commands[scope] = [self._store_command(scope, c, existing) for c in payload]
        self.command_syncs.append((scope, copy.deepcopy(payload)))
        return 200, copy.deepcopy(self.commands[scope])

    async def _h_post_command(self, call: _Call) -> tuple[int, Any]:
        scope = self._command_scope(call)
        problems = self._validate_command(call.body)
        if problems:
            raise _invalid_form(problems)
        existing = self.commands.setdefault(scope, [])
        stored = self._store_command(scope, call.body, existing)
        self.commands[scope] = [c for c in existing if c["id"] != stored["id"]] + [stored]
        return 201, copy.deepcopy(stored)

    async def _h_delete_command(self, call: _Call) -> tuple[int, Any]:
        scope = self._command_scope(call)
        before = self.commands.get(scope, [])
        after = [c for c in before if c["id"] != call.params["command_id"]]
        if len(after) == len(before):
            raise ApiError(404, "Unknown application command", 10063)
        self.commands[scope] = after
        return 204, None

    def _guild(self, call: _Call) -> FakeGuild:
        guild = self.guilds.get(call.int_param("guild_id"))
        if guild is None:
            raise ApiError(404, "Unknown Guild", 10004)
        return guild

    async def _h_get_guild(self, call: _Call) -> tuple[int, Any]:
        data = self.guild_create_payload(self._guild(call).id)
        for key in ("members", "channels", "threads", "voice_states", "presences", "joined_at"):
            data.pop(key, None)
        return 200, data

    async def _h_guild_channels(self, call: _Call) -> tuple[int, Any]:
        guild = self._guild(call)
        return 200, [self.channel_dict(self.channels[c]) for c in guild.channel_ids]

    async def _h_get_member(self, call: _Call) -> tuple[int, Any]:
        return 200, self.member_dict(self._guild(call).id, call.int_param("user_id"))

    async def _h_get_channel(self, call: _Call) -> tuple[int, Any]:
        return 200, self.channel_dict(self._get_channel(call.int_param("channel_id")))

    async def _h_edit_channel(self, call: _Call) -> tuple[int, Any]:
        channel = self._get_channel(call.int_param("channel_id"))
        body = call.body or {}
        for key in ("name", "topic", "archived", "locked", "invitable", "auto_archive_duration"):
            if key in body:
                setattr(channel, key, body[key])
        data = self.channel_dict(channel)
        event = "THREAD_UPDATE" if channel.is_thread else "CHANNEL_UPDATE"
        if channel.guild_id is not None:
            await self.dispatch(event, data)
        return 200, data

    async def _h_history(self, call: _Call) -> tuple[int, Any]:
        channel = self._get_channel(call.int_param("channel_id"))
        limit = int(call.query.get("limit", 50))
        msgs = [m for m in self.messages_in(channel.id, include_ephemeral=False)]
        if "before" in call.query:
            msgs = [m for m in msgs if m.id < int(call.query["before"])]
        if "after" in call.query:
            msgs = [m for m in msgs if m.id > int(call.query["after"])]
            return 200, [m.data for m in msgs[:limit]][::-1]
        return 200, [m.data for m in reversed(msgs)][:limit]

    async def _h_create_message(self, call: _Call) -> tuple[int, Any]:
        channel = self._get_channel(call.int_param("channel_id"))
        msg = await self._post_message(channel, call.body or {}, call.files)
        return 200, msg.data

    async def _h_get_message(self, call: _Call) -> tuple[int, Any]:
        msg = self._get_message(call.int_param("channel_id"), call.int_param("message_id"))
        return 200, msg.data

    async def _h_edit_message(self, call: _Call) -> tuple[int, Any]:
        msg = self._get_message(call.int_param("channel_id"), call.int_param("message_id"))
        if msg.author_id != self.bot_user.id and set(call.body or {}) - {"flags"}:
            raise ApiError(403, "Cannot edit a message authored by another user", 50005)
        self._validate_message(call.body or {}, call.files, edit=True, current=msg)
        self._edit_message(msg, call.body or {}, call.files)
        await self._dispatch_message("MESSAGE_UPDATE", msg)
        return 200, msg.data

    async def _delete(self, msg: StoredMessage) -> None:
        msg.deleted = True
        self._notify()
        if not msg.ephemeral:
            data: JSON = {"id": str(msg.id), "channel_id": str(msg.channel_id)}
            if "guild_id" in msg.data:
                data["guild_id"] = msg.data["guild_id"]
            channel = self.channels[msg.channel_id]
            bit = INTENT_GUILD_MESSAGES if channel.guild_id else INTENT_DIRECT_MESSAGES
            await self.dispatch("MESSAGE_DELETE", data, intent=bit)

    async def _h_delete_message(self, call: _Call) -> tuple[int, Any]:
        msg = self._get_message(call.int_param("channel_id"), call.int_param("message_id"))
        await self._delete(msg)
        return 204, None

    async def _h_react(self, call: _Call) -> tuple[int, Any]:
        msg = self._get_message(call.int_param("channel_id"), call.int_param("message_id"))
        emoji = call.params["emoji"]
        reactions = [r for r in msg.data.get("reactions", []) if r["emoji"]["name"] != emoji]
        if call.request.method == "PUT":
            reactions.append({"count": 1, "me": True, "emoji": {"id": None, "name": emoji}})
        msg.data["reactions"] = reactions
        return 204, None

    def _new_thread(
        self, parent: FakeChannel, thread_id: int, body: JSON, default_type: int
    ) -> FakeChannel:
        if parent.guild_id is None or parent.is_thread:
            raise ApiError(400, "Cannot execute action on this channel type", 50024)
        name = (body.get("name") or "").strip()
        if not 1 <= len(name) <= 100:
            raise _invalid_form(["name: must be 1-100 characters"])
        thread = FakeChannel(
            thread_id,
            int(body.get("type") or default_type),
            name,
            guild_id=parent.guild_id,
            parent_id=parent.id,
            owner_id=self.bot_user.id,
            auto_archive_duration=int(body.get("auto_archive_duration") or 4320),
            invitable=bool(body.get("invitable", True)),
            thread_members={self.bot_user.id},
        )
        self.channels[thread.id] = thread
        return thread

    def _thread_with_member(self, thread: FakeChannel) -> JSON:
        data = self.channel_dict(thread)
        data["member"] = {
            "id": str(thread.id),
            "user_id": str(self.bot_user.id),
            "join_timestamp": snowflake_time(thread.id),
            "flags": 0,
        }
        return data

    async def _h_thread_from_message(self, call: _Call) -> tuple[int, Any]:
        parent = self._get_channel(call.int_param("channel_id"))
        msg = self._get_message(parent.id, call.int_param("message_id"))
        if msg.id in self.channels:
            raise ApiError(400, "A thread has already been created for this message", 160004)
        thread = self._new_thread(parent, msg.id, call.body or {}, PUBLIC_THREAD)
        msg.data["flags"] = msg.flags | HAS_THREAD
        msg.data["thread"] = self.channel_dict(thread)
        data = self._thread_with_member(thread)
        await self.dispatch("THREAD_CREATE", data | {"newly_created": True})
        return 201, data

    async def _h_thread(self, call: _Call) -> tuple[int, Any]:
        parent = self._get_channel(call.int_param("channel_id"))
        thread = self._new_thread(parent, self.new_id(), call.body or {}, PRIVATE_THREAD)
        data = self._thread_with_member(thread)
        await self.dispatch("THREAD_CREATE", data | {"newly_created": True})
        return 201, data

    async def _h_thread_member(self, call: _Call) -> tuple[int, Any]:
        thread = self._get_channel(call.int_param("channel_id"))
        if not thread.is_thread:
            raise ApiError(400, "Cannot execute action on this channel type", 50024)
        raw = call.params["user_id"]
        user_id = self.bot_user.id if raw == "@me" else int(raw)
        if call.request.method == "PUT":
            thread.thread_members.add(user_id)
        else:
            thread.thread_members.discard(user_id)
        return 204, None

    # ---------------------------------------------------------------- interactions

    def _interaction_state(self, call: _Call, *, webhook: bool) -> _InteractionState:
        state = self._interactions.get(call.params["token"])
        if webhook:
            if state is None or call.int_param("application_id") != self.application_id:
                raise ApiError(404, "Unknown Webhook", 10015)
            if state.callback_type is None:
                raise ApiError(404, "Unknown Webhook", 10015)
        elif state is None or str(state.sent.id) != call.params["interaction_id"]:
            raise ApiError(404, "Unknown interaction", 10062)
        return state

    def _interaction_extra(
        self, state: _InteractionState, *, followup_of: int | None = None
    ) -> JSON:
        payload = state.sent.payload
        user = payload["member"]["user"] if "member" in payload else payload["user"]
        metadata: JSON = {
            "id": payload["id"],
            "type": payload["type"],
            "user": user,
            "authorizing_integration_owners": payload["authorizing_integration_owners"],
        }
        if state.source_message_id:
            metadata["interacted_message_id"] = str(state.source_message_id)
        if followup_of:
            metadata["original_response_message_id"] = str(followup_of)
        extra: JSON = {
            "webhook_id": str(self.application_id),
            "application_id": str(self.application_id),
            "interaction_metadata": metadata,
        }
        if payload["type"] == 2:
            extra["interaction"] = {
                "id": payload["id"],
                "type": 2,
                "name": payload["data"]["name"],
                "user": user,
            }
        return extra

    def _response_message_type(self, state: _InteractionState) -> int:
        payload = state.sent.payload
        if payload["type"] != 2:
            return 0
        return 20 if payload["data"].get("type", 1) == 1 else 23

    async def _h_callback(self, call: _Call) -> tuple[int, Any]:
        state = self._interaction_state(call, webhook=False)
        if state.callback_type is not None:
            raise ApiError(400, "Interaction has already been acknowledged.", 40060)
        body = call.body or {}
        kind = int(body.get("type", 0))
        data = body.get("data") or {}
        itype = state.sent.payload["type"]
        allowed = {2: {4, 5, 9}, 3: {4, 5, 6, 7, 9}, 4: {8}, 5: {4, 5, 6, 7}}[itype]
        if kind not in allowed:
            raise ApiError(400, f"Interaction response type {kind} not allowed here", 40043)
        channel = self.channels[state.channel_id]
        resource: JSON = {"type": kind}
        if kind == 4:
            self._validate_message(data, call.files)
            msg = self._new_message(
                channel,
                self._bot_author(),
                data,
                call.files,
                msg_type=self._response_message_type(state),
                extra=self._interaction_extra(state),
            )
            msg.interaction_id = state.sent.id
            state.original_message_id = msg.id
            await self._dispatch_message("MESSAGE_CREATE", msg)
            resource["message"] = msg.data
        elif kind == 5:
            msg = self._new_message(
                channel,
                self._bot_author(),
                {"content": ""},
                [],
                msg_type=self._response_message_type(state),
                flags=LOADING | (int(data.get("flags") or 0) & EPHEMERAL),
                extra=self._interaction_extra(state),
            )
            msg.interaction_id = state.sent.id
            state.original_message_id = msg.id
            state.loading = True
            await self._dispatch_message("MESSAGE_CREATE", msg)
            resource["message"] = msg.data
        elif kind in (6, 7):
            if state.source_message_id is None:
                raise ApiError(400, "This interaction has no message to update", 40043)
            state.original_message_id = state.source_message_id
            if kind == 7:
                msg = self.messages[state.source_message_id]
                self._validate_message(data, call.files, edit=True, current=msg)
                self._edit_message(msg, data, call.files)
                await self._dispatch_message("MESSAGE_UPDATE", msg)
                resource["message"] = msg.data
        elif kind == 8:
            choices = data.get("choices") or []
            if len(choices) > 25:
                raise _invalid_form(["data.choices: must be 25 or fewer"])
        state.callback_type = kind
        self._notify()
        answer: JSON = {
            "interaction": {
                "id": str(state.sent.id),
                "type": itype,
                "response_message_loading": kind == 5,
                "response_message_ephemeral": bool(int(data.get("flags") or 0) & EPHEMERAL),
            },
            "resource": resource,
        }
        if state.original_message_id is not None and kind in (4, 5, 7):
            answer["interaction"]["response_message_id"] = str(state.original_message_id)
        if call.query.get("with_response") in ("1", "true", "True"):
            return 200, answer
        return 204, None

    def _webhook_message(self, state: _InteractionState, call: _Call) -> StoredMessage:
        key = call.params["message_id"]
        mid = state.original_message_id if key == "@original" else int(key)
        msg = self.messages.get(mid or 0)
        if msg is None or msg.deleted:
            raise ApiError(404, "Unknown Message", 10008)
        if key != "@original" and msg.interaction_id != state.sent.id:
            raise ApiError(404, "Unknown Message", 10008)
        return msg

    async def _h_followup(self, call: _Call) -> tuple[int, Any]:
        state = self._interaction_state(call, webhook=True)
        body = call.body or {}
        self._validate_message(body, call.files)
        wait = call.query.get("wait", "false").lower() in ("1", "true")
        if state.loading and state.original_message_id is not None:
            # The first follow-up after a "thinking" defer replaces the loading message.
            msg = self.messages[state.original_message_id]
            state.loading = False
            msg.data["flags"] = msg.flags & ~LOADING
            self._edit_message(msg, body | {"flags": None}, call.files)
            msg.data["edited_timestamp"] = None
            await self._dispatch_message("MESSAGE_UPDATE", msg)
        else:
            msg = self._new_message(
                self.channels[state.channel_id],
                self._bot_author(),
                body,
                call.files,
                msg_type=self._response_message_type(state),
                extra=self._interaction_extra(state, followup_of=state.original_message_id),
            )
            msg.interaction_id = state.sent.id
            await self._dispatch_message("MESSAGE_CREATE", msg)
        return (200, msg.data) if wait else (204, None)

    async def _h_wh_get(self, call: _Call) -> tuple[int, Any]:
        state = self._interaction_state(call, webhook=True)
        return 200, self._webhook_message(state, call).data

    async def _h_wh_edit(self, call: _Call) -> tuple[int, Any]:
        state = self._interaction_state(call, webhook=True)
        msg = self._webhook_message(state, call)
        body = call.body or {}
        self._validate_message(body, call.files, edit=True, current=msg)
        if msg.id == state.original_message_id and state.loading:
            state.loading = False
            msg.data["flags"] = msg.flags & ~LOADING
        self._edit_message(msg, body, call.files)
        await self._dispatch_message("MESSAGE_UPDATE", msg)
        return 200, msg.data

    async def _h_wh_delete(self, call: _Call) -> tuple[int, Any]:
        state = self._interaction_state(call, webhook=True)
        await self._delete(self._webhook_message(state, call))
        return 204, None


@contextlib.asynccontextmanager
async def running(
    client: discord.Client, token: str = DEFAULT_TOKEN, *, timeout: float = 5.0
) -> AsyncIterator[discord.Client]:
    """Start ``client`` (login, setup_hook, gateway), wait until ready, close it on exit.

    The fake must be started and patched.  discord.py waits ``guild_ready_timeout`` (2 s by
    default) after the last GUILD_CREATE before firing ``on_ready``; since the fake sends all
    guilds at once, this lowers that private timeout to 10 ms to keep tests fast.
    """
    state = client._connection
    state.guild_ready_timeout = min(state.guild_ready_timeout, 0.01)
    task = asyncio.create_task(client.start(token), name="fake-discord-client")
    ready = asyncio.create_task(client.wait_until_ready(), name="fake-discord-ready")
    started = False
    try:
        done, _ = await asyncio.wait(
            {task, ready}, timeout=timeout, return_when=asyncio.FIRST_COMPLETED
        )
        if task in done:
            task.result()  # raises the start-up error, if any
            raise RuntimeError("client stopped before becoming ready")
        if not done:
            raise TimeoutError(f"client not ready after {timeout}s")
        started = True
        yield client
    finally:
        ready.cancel()
        await client.close()
        await asyncio.wait({task, ready}, timeout=timeout)
        if not task.done():
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        elif not task.cancelled() and (error := task.exception()) is not None and started:
            raise RuntimeError("the client task failed while the test ran") from error
