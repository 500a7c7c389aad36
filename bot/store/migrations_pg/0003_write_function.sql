-- PostgreSQL schema version 3: a batch of plain command writes (no result, key/value or hook
-- rows) as ONE call, one round trip and one implicit transaction: the lease check (the owner
-- row, or the shard lease rows with their fencing tokens, read FOR SHARE so a takeover waits),
-- the log rows and the game rows. A refusal raises and changes nothing: SQLSTATE RUM01 the owner
-- lease is not the caller's, RUM02 a shard lease is not (fenced), RUM03 a seq is not the next
-- one of a playing game. The store then redoes the batch as an ordinary transaction, which says
-- exactly what is wrong.
CREATE FUNCTION rummy_write_commands(
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
        PERFORM 1 FROM owner WHERE id = 1 AND token = owner_token AND released IS NULL
            FOR SHARE;
        IF NOT FOUND THEN
            RAISE EXCEPTION 'rummy:owner' USING ERRCODE = 'RUM01';
        END IF;
    END IF;
    IF lease_holder IS NOT NULL THEN
        SELECT count(*) INTO found_rows FROM (
            SELECT 1 FROM shard_leases AS s
            JOIN unnest(lease_shards, lease_tokens) AS h (shard, token)
                ON s.shard = h.shard AND s.token = h.token
            WHERE s.holder = lease_holder AND s.released IS NULL
            ORDER BY s.shard
            FOR SHARE OF s
        ) AS held;
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
