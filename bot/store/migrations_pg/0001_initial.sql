-- PostgreSQL schema version 1: the tables of SQLite schema version 2 (players, games, the
-- append-only command log, results, key/value rows, the owner lease, quarantined games).
-- Never edit a published migration; add the next number instead.
CREATE TABLE players (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    locale TEXT NOT NULL DEFAULT 'en',
    is_bot BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    guild_id TEXT,
    channel_id TEXT,
    thread_id TEXT,
    preset TEXT NOT NULL,
    rules_json TEXT NOT NULL,
    seed BIGINT NOT NULL,
    status TEXT NOT NULL CHECK (
        status IN ('lobby', 'playing', 'finished', 'cancelled', 'quarantined')
    ),
    created_at DOUBLE PRECISION NOT NULL,
    updated_at DOUBLE PRECISION NOT NULL,
    host_id TEXT NOT NULL,
    seats TEXT NOT NULL DEFAULT '[]',
    deadline DOUBLE PRECISION,
    reminder_sent BOOLEAN NOT NULL DEFAULT FALSE,
    last_activity DOUBLE PRECISION NOT NULL,
    snapshot_json TEXT,
    snapshot_seq INTEGER NOT NULL DEFAULT 0,
    seq INTEGER NOT NULL DEFAULT 0,
    meta TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX games_status ON games (status);
CREATE INDEX games_channel ON games (guild_id, channel_id);
CREATE INDEX games_created ON games (created_at, id);
CREATE TABLE commands (
    game_id TEXT NOT NULL REFERENCES games (id),
    seq INTEGER NOT NULL,
    seat INTEGER,
    text TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (game_id, seq)
);
CREATE FUNCTION commands_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'the command log is append-only';
END;
$$;
CREATE TRIGGER commands_no_update BEFORE UPDATE OR DELETE ON commands
FOR EACH ROW EXECUTE FUNCTION commands_append_only();
CREATE TABLE results (
    game_id TEXT NOT NULL REFERENCES games (id),
    seat INTEGER NOT NULL,
    player_id TEXT NOT NULL,
    points DOUBLE PRECISION NOT NULL,
    rank INTEGER NOT NULL,
    winner BOOLEAN NOT NULL,
    reason TEXT NOT NULL,
    finished_at DOUBLE PRECISION NOT NULL,
    details TEXT NOT NULL DEFAULT '{}',
    PRIMARY KEY (game_id, seat)
);
CREATE INDEX results_player ON results (player_id);
CREATE TABLE kv (
    namespace TEXT NOT NULL,
    key TEXT NOT NULL,
    json TEXT NOT NULL,
    PRIMARY KEY (namespace, key)
);
CREATE TABLE owner (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    token TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    boot TEXT,
    started BIGINT,
    since DOUBLE PRECISION NOT NULL,
    heartbeat DOUBLE PRECISION NOT NULL,
    released DOUBLE PRECISION
);
CREATE TABLE quarantine (
    game_id TEXT PRIMARY KEY REFERENCES games (id),
    reason TEXT NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    previous_status TEXT NOT NULL
);
