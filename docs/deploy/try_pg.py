"""A throwaway PostgreSQL server for docs/deploy/try.sh (the tests' own, tests/pg.py): prints
its superuser URL, then runs until it receives SIGTERM (and removes its data)."""

from __future__ import annotations

import signal
import sys
import threading

from tests.pg import start_server

server = start_server()
print(server.base_url, flush=True)
stop = threading.Event()
signal.signal(signal.SIGTERM, lambda *_: stop.set())
stop.wait()
server.close()
sys.exit(0)
