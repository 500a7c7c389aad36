-- Schema version 3: shard leases (several processes over one database, each owning the games of
-- the guilds on its shards). One row per shard; token is the fencing token, which grows on every
-- acquisition but a renewal; every write of a game checks its shard's row in its transaction.
CREATE TABLE shard_leases (
    shard INTEGER PRIMARY KEY,
    shard_count INTEGER NOT NULL,
    holder TEXT NOT NULL,
    token INTEGER NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    boot TEXT,
    started INTEGER,
    since REAL NOT NULL,
    heartbeat REAL NOT NULL,
    expires REAL NOT NULL,
    released REAL
);
