-- PostgreSQL schema version 4: the lease check of a write takes no row lock. A write first takes
-- a SHARED advisory transaction lock per lease it needs (class 19539, "LS"; key: the shard, or
-- -1 for the owner lease), then reads the lease row without locking it; a process taking a lease
-- over takes the same lock EXCLUSIVE before it changes the row. So the takeover still waits for
-- the writes in flight, and a write that gets its lock after the takeover reads the new row
-- (each statement of these functions reads with a snapshot taken after its locks were granted;
-- a transaction's locks are released only after its commit is visible) and is refused. Reading
-- the row FOR SHARE, as before, wrote a row lock into every lease row on every commit (WAL, a
-- dirtied page, a MultiXact when two of a process's commits shared it); an advisory lock lives
-- in the server's memory only. The takeover still reads the rows FOR UPDATE too, so a process of
-- an older version, which reads them FOR SHARE, is waited for as well.
CREATE OR REPLACE FUNCTION rummy_lock_leases(lease_keys INTEGER[]) RETURNS VOID
LANGUAGE plpgsql AS $$
DECLARE
    k INTEGER;
BEGIN
    -- in one order for every caller (the takeover takes its exclusive locks in this order too)
    FOREACH k IN ARRAY ARRAY(SELECT DISTINCT x FROM unnest(lease_keys) AS x ORDER BY x) LOOP
        PERFORM pg_advisory_xact_lock_shared(19539, k);
    END LOOP;
END;
$$;

-- the unreleased lease rows of lease_holder among lease_shards, read after their shared locks
CREATE OR REPLACE FUNCTION rummy_held_shards(lease_holder TEXT, lease_shards INTEGER[])
RETURNS TABLE (held_shard INTEGER, held_token BIGINT) LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rummy_lock_leases(lease_shards);
    RETURN QUERY SELECT s.shard, s.token FROM shard_leases AS s
        WHERE s.shard = ANY(lease_shards) AND s.holder = lease_holder AND s.released IS NULL
        ORDER BY s.shard;
END;
$$;

-- the owner row, read after its shared lock
CREATE OR REPLACE FUNCTION rummy_owner_row()
RETURNS TABLE (o_token TEXT, o_pid INTEGER, o_host TEXT, o_since DOUBLE PRECISION,
    o_heartbeat DOUBLE PRECISION, o_released DOUBLE PRECISION, o_boot TEXT, o_started BIGINT)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM rummy_lock_leases(ARRAY[-1]);
    RETURN QUERY SELECT o.token, o.pid, o.host, o.since, o.heartbeat, o.released, o.boot,
        o.started FROM owner AS o WHERE o.id = 1;
END;
$$;

CREATE OR REPLACE FUNCTION rummy_write_commands(
    owner_token TEXT,
    lease_holder TEXT,
    lease_shards INTEGER[],
    lease_tokens BIGINT[],
    ids TEXT[],
    seqs INTEGER[],
    seats INTEGER[],
    texts TEXT[],
    ats DOUBLE PRECISION[],
    statuses TEXT[],
    deadlines DOUBLE PRECISION[],
    reminders BOOLEAN[],
    snapshots TEXT[],
    activities BOOLEAN[]
) RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE
    found_rows INTEGER;
BEGIN
    IF owner_token IS NOT NULL THEN
        PERFORM rummy_lock_leases(ARRAY[-1]);
        PERFORM 1 FROM owner WHERE id = 1 AND token = owner_token AND released IS NULL;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'rummy:owner' USING ERRCODE = 'RUM01';
        END IF;
    END IF;
    IF lease_holder IS NOT NULL THEN
        PERFORM rummy_lock_leases(lease_shards);
        SELECT count(*) INTO found_rows FROM shard_leases AS s
            JOIN unnest(lease_shards, lease_tokens) AS h (shard, token)
                ON s.shard = h.shard AND s.token = h.token
            WHERE s.holder = lease_holder AND s.released IS NULL;
        IF found_rows <> cardinality(lease_shards) THEN
            RAISE EXCEPTION 'rummy:fenced' USING ERRCODE = 'RUM02';
        END IF;
    END IF;
    INSERT INTO commands (game_id, seq, seat, text, at)
        SELECT * FROM unnest(ids, seqs, seats, texts, ats);
    UPDATE games SET seq = v.seq, status = v.status, deadline = v.deadline,
        reminder_sent = v.reminder_sent, updated_at = v.at,
        snapshot_json = COALESCE(v.snapshot, games.snapshot_json),
        snapshot_seq = CASE WHEN v.snapshot IS NULL THEN games.snapshot_seq ELSE v.seq END,
        last_activity = CASE WHEN v.activity THEN v.at ELSE games.last_activity END
    FROM unnest(ids, seqs, statuses, deadlines, reminders, ats, snapshots, activities)
        AS v (id, seq, status, deadline, reminder_sent, at, snapshot, activity)
    WHERE games.id = v.id AND games.seq = v.seq - 1 AND games.status = 'playing';
    GET DIAGNOSTICS found_rows = ROW_COUNT;
    IF found_rows <> cardinality(ids) THEN
        RAISE EXCEPTION 'rummy:seq' USING ERRCODE = 'RUM03';
    END IF;
    RETURN found_rows;
END;
$$;
