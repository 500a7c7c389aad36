-- Schema version 1: players, games, the append-only command log, results, generic key/value data.
-- Never edit a published migration; add the next number instead.
CREATE TABLE players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    locale TEXT NOT NULL DEFAULT 'en',
    is_bot INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    guild_id TEXT,
    channel_id TEXT,
    thread_id TEXT,
    preset TEXT NOT NULL,
    rules_json TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (status IN ('lobby', 'playing', 'finished', 'cancelled')),
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL,
    host_id TEXT NOT NULL,
    seats TEXT NOT NULL DEFAULT '[]',
    deadline REAL,
    reminder_sent INTEGER NOT NULL DEFAULT 0,
    last_activity REAL NOT NULL,
    snapshot_json TEXT,
    snapshot_seq INTEGER NOT NULL DEFAULT 0,
    seq INTEGER NOT NULL DEFAULT 0,
    meta TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX games_status ON games (status);
CREATE INDEX games_channel ON games (guild_id, channel_id);
CREATE TABLE commands (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq INTEGER NOT NULL,
    seat INTEGER,
    text TEXT NOT NULL,
    at REAL NOT NULL,
    PRIMARY KEY (game_id, seq)
) WITHOUT ROWID;
CREATE TRIGGER commands_no_update BEFORE UPDATE ON commands
BEGIN SELECT RAISE(ABORT, 'the command log is append-only'); END;
CREATE TRIGGER commands_no_delete BEFORE DELETE ON commands
BEGIN SELECT RAISE(ABORT, 'the command log is append-only'); END;
CREATE TABLE results (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat INTEGER NOT NULL,
    player_id TEXT NOT NULL,
    points REAL NOT NULL,
    rank INTEGER NOT NULL,
    winner INTEGER NOT NULL,
    reason TEXT NOT NULL,
    finished_at REAL NOT NULL,
    details TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (game_id, seat)
) WITHOUT ROWID;
CREATE INDEX results_player ON results (player_id);
CREATE TABLE kv (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (namespace, key)
) WITHOUT ROWID;
