-- PostgreSQL schema version 5: a takeover is not held up by a stopped process. A process
-- stopped inside a write transaction (SIGSTOP, a frozen VM, a process cut off from the
-- server without the server noticing) keeps the SHARED lease locks of that transaction
-- (migration 0004) until the server ends its session; the takeover, which takes the lock
-- EXCLUSIVE, waited that long (idle_in_transaction_session_timeout: the store's own lease, 30 s
-- by default, whatever the shard lease). rummy_lock_lease_exclusive takes the lease's lock
-- exclusive; when asked (end_idle: the store found the lease given back or expired, so its
-- holder counts as dead) and the lock is not free, it first ends the sessions that hold it
-- and are IDLE inside their transaction, waiting for a client that does not go on. A session
-- that is running a statement (a commit, a write waiting for a row) is waited for, as
-- before: its transaction ends by itself. An ended session's transaction is rolled back (its
-- client acknowledged nothing of it), or had committed before (it was checked under the old
-- holder's token, before the takeover changed the row); either way the takeover then reads
-- the row and a later write of the old holder is refused. A session of another role that we
-- may not signal is waited for (the server's own time-out ends it). Returns the sessions ended.
CREATE OR REPLACE FUNCTION rummy_lock_lease_exclusive(lease_key INTEGER, end_idle BOOLEAN)
RETURNS INTEGER LANGUAGE plpgsql AS $$
DECLARE
    ended INTEGER := 0;
    idle_pid INTEGER;
BEGIN
    IF end_idle AND NOT pg_try_advisory_xact_lock(19539, lease_key) THEN
        FOR idle_pid IN
            SELECT l.pid FROM pg_locks AS l JOIN pg_stat_activity AS a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
                AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND l.classid = 19539 AND l.objid::BIGINT = (lease_key::BIGINT & 4294967295)
                AND l.pid <> pg_backend_pid() AND a.state LIKE 'idle in transaction%'
        LOOP
            BEGIN
                IF pg_terminate_backend(idle_pid) THEN
                    ended := ended + 1;
                END IF;
            EXCEPTION WHEN insufficient_privilege THEN
                NULL;  -- not ours to end: waited for below
            END;
        END LOOP;
    END IF;
    -- (taken twice when the try above got it: a transaction lock, released once at the end)
    PERFORM pg_advisory_xact_lock(19539, lease_key);
    RETURN ended;
END;
$$;
