#!/bin/sh
# Re-run what docs/DEPLOY.md says was tried, offline, from the repository root:
#   sh docs/deploy/try.sh
# Needs systemd-analyze, psql and curl; starts its own PostgreSQL (tests/pg.py) and the tests'
# fake Discord; leaves nothing behind.
set -eu
ROOT=$(pwd)
PY="$ROOT/.venv/bin/python"
BOT="$ROOT/.venv/bin/rummy-bot"
WORK=$(mktemp -d)
PG_PID=
cleanup() { [ -n "$PG_PID" ] && kill "$PG_PID" 2>/dev/null; wait 2>/dev/null; rm -rf "$WORK"; }
trap cleanup EXIT
step() { printf '\n== %s\n' "$*"; }

step "1. the unit (paths pointed at this checkout)"
sed "s|/opt/rummy-bot/venv/bin/rummy-bot|$BOT|; s|/etc/rummy-bot/|$ROOT/docs/deploy/|g" \
    docs/deploy/rummy-bot@.service > "$WORK/rummy-bot@a.service"
systemd-analyze verify "$WORK/rummy-bot@a.service" && echo "systemd-analyze verify: ok"

step "2. the settings files, read by the bot's own parser"
"$PY" -m pytest -q -p no:cacheprovider tests/ops/test_deploy_files.py

step "3. PostgreSQL: role and database, two processes with their shard ranges, verify-db"
PYTHONPATH="$ROOT" "$PY" docs/deploy/try_pg.py > "$WORK/pg.url" &
PG_PID=$!
while [ ! -s "$WORK/pg.url" ]; do sleep 0.2; done
BASE=$(head -1 "$WORK/pg.url")
SOCKET=${BASE##*host=}
psql "$BASE" -qc "CREATE ROLE rummy LOGIN PASSWORD 'secret'"
psql "$BASE" -qc "CREATE DATABASE rummy OWNER rummy"
URL="postgresql://rummy:secret@/rummy?host=$SOCKET"
cd "$WORK"
"$BOT" soak --db "$URL" --games 4 --preset rummikub --shard-count 2 --shard-ids 0 --json &
A=$!
"$BOT" soak --db "$URL" --games 4 --preset rummikub --shard-count 2 --shard-ids 1 --json &
B=$!
wait "$A" "$B"
"$BOT" verify-db --db "$URL"
psql "$URL" -c "SELECT shard, shard_count, token, released IS NOT NULL AS released FROM shard_leases ORDER BY shard"

step "4. the bot process with a.env (no Discord here): JSON log lines, one error line, exit 1"
set +e
(set -a; . "$ROOT/docs/deploy/common.env"; . "$ROOT/docs/deploy/a.env"; DATABASE_URL="$URL"
 METRICS_HOST=127.0.0.1; set +a; exec "$BOT") 2> "$WORK/bot.log"
echo "exit code: $?"
set -e
jq -c '{level, logger, message}' "$WORK/bot.log"

step "5. bad settings: one line, exit 2"
set +e
METRICS_PORT=abc DISCORD_TOKEN=x "$BOT"; echo "exit code: $?"
set -e

step "6. the operations port of the running bot (fake Discord): curl /healthz and /metrics"
cd "$ROOT"
PYTHONPATH="$ROOT" "$PY" docs/deploy/try_fake_discord.py 2> "$WORK/fake.log"
jq -c '{level, logger, message}' "$WORK/fake.log"
