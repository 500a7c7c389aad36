-- Schema version 2: the owner lease (table owner), quarantined games (a status of their own,
-- the reason in table quarantine). games is rebuilt for the new CHECK of its status.
CREATE TABLE games_v2 (
    id TEXT PRIMARY KEY,
    guild_id TEXT,
    channel_id TEXT,
    thread_id TEXT,
    preset TEXT NOT NULL,
    rules_json TEXT NOT NULL,
    seed INTEGER NOT NULL,
    status TEXT NOT NULL CHECK (
        status IN ('lobby', 'playing', 'finished', 'cancelled', 'quarantined')
    ),
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
INSERT INTO games_v2 SELECT * FROM games;
DROP TABLE games;
ALTER TABLE games_v2 RENAME TO games;
CREATE INDEX games_status ON games (status);
CREATE INDEX games_channel ON games (guild_id, channel_id);
CREATE TABLE owner (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    token TEXT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    boot TEXT,
    started INTEGER,
    since REAL NOT NULL,
    heartbeat REAL NOT NULL,
    released REAL
);
CREATE TABLE quarantine (
    game_id TEXT PRIMARY KEY REFERENCES games (id),
    reason TEXT NOT NULL,
    at REAL NOT NULL,
    previous_status TEXT NOT NULL
) WITHOUT ROWID;
