-- PostgreSQL schema version 2: shard leases (several processes over one database, each owning
-- the games of the guilds on its shards), as SQLite's schema version 3. token is the fencing
-- token, which grows on every acquisition but a renewal; every write of a game reads its shard's
-- row FOR SHARE in its transaction, so a takeover waits for the writes in flight.
CREATE TABLE shard_leases (
    shard INTEGER PRIMARY KEY,
    shard_count INTEGER NOT NULL,
    holder TEXT NOT NULL,
    token BIGINT NOT NULL,
    pid INTEGER NOT NULL,
    host TEXT NOT NULL,
    boot TEXT,
    started BIGINT,
    since DOUBLE PRECISION NOT NULL,
    heartbeat DOUBLE PRECISION NOT NULL,
    expires DOUBLE PRECISION NOT NULL,
    released DOUBLE PRECISION
);
