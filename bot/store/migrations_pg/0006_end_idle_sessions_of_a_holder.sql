-- PostgreSQL schema version 6: a takeover ends EVERY session of the dead holder that is idle
-- inside a transaction, not only those holding the lease's lock (0005). A sharded store names
-- its connections 'rummy-bot <holder id>' (application_name), so its sessions are known by
-- the lease row's holder. A process stopped inside a write of no game (a player row, the
-- key/value rows, its own lease renewal) holds row locks without any lease lock: the writes
-- of the same rows by every other process (a computer player's row is written by each game
-- that seats it), and the takeover's FOR UPDATE of a lease row it was renewing, waited for
-- the server to end that session (idle_in_transaction_session_timeout). Only sessions idle
-- inside a transaction are ended (their client does not go on; their uncommitted work is
-- rolled back); a session of another role that we may not signal is left to the server's
-- time-out. Returns the sessions ended.
CREATE OR REPLACE FUNCTION rummy_end_idle_sessions(app TEXT) RETURNS INTEGER
LANGUAGE plpgsql AS $$
DECLARE
    ended INTEGER := 0;
    idle_pid INTEGER;
BEGIN
    FOR idle_pid IN
        SELECT a.pid FROM pg_stat_activity AS a
        WHERE a.datname = current_database() AND a.application_name = app
            AND a.pid <> pg_backend_pid() AND a.state LIKE 'idle in transaction%'
    LOOP
        BEGIN
            IF pg_terminate_backend(idle_pid) THEN
                ended := ended + 1;
            END IF;
        EXCEPTION WHEN insufficient_privilege THEN
            NULL;
        END;
    END LOOP;
    RETURN ended;
END;
$$;
