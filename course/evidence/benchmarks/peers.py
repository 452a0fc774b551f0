"""The queues people would pick instead of ours, driven the way their own documentation drives them.

    python -m course.evidence.benchmarks.peers pgqueuer --conninfo ... [--driver asyncpg|psycopg] [--no-install]
    python -m course.evidence.benchmarks.peers procrastinate --conninfo ... [--no-install]

Each runs as a process of its own (as the benchmark runs our workers), in a database of its own, with a
no-op handler; with N processes the benchmark starts N of these on one database, as it starts N of our
workers. The first installs the peer's tables (the others get --no-install and start once it is
ready), starts consuming, answers {"ready": true}, then waits on stdin:

    parent -> "fill 20000"    enqueue that many jobs in one statement (their batch API), then answer
    peer   -> {"filled": 12345.678}      time.monotonic() right after the commit: the clock starts here
    parent closes stdin       shut down and exit

The parent sends "fill" to one process only, and sees the drain end by polling the peer's table.

Settings: what each peer's own documentation recommends for throughput, per process (our worker runs
concurrency 32 per process, one connection claiming and acking for all 32):
  pgqueuer       5 QueueManagers per process, each on its own connection (its own benchmark,
                 tools/benchmark.py, runs `--dequeue 5`; its published figures, asyncpg 14.1k jobs/s and
                 psycopg 8.35k, were measured so: https://janbjorge.github.io/pgqueuer/comparisons/benchmarks/),
                 with batch_size 50, not the benchmark's 10: its tuning guide advises a larger batch_size
                 for short jobs (under a second), https://janbjorge.github.io/pgqueuer/guides/performance-tuning,
                 without a number, so we measured 5 x 10, 25, 50, 100 and 2 x 100, 10 x 50 on no-op jobs
                 (1 process, 3 alternating rounds, 2026-12-01, load 10-12): medians 3.5k, 4.7k, 5.1k, 5.0k,
                 5.0k, 4.9k jobs/s. Batch 50 was the fastest: we give it that (250 jobs in flight per
                 process, where our worker has 32). Default durability (logged tables), as ours.
  procrastinate  one worker per process, concurrency 30, async tasks: its how-to on running several jobs
                 at once says a worker takes one job at a time by default, that more processes raise
                 throughput, and gives concurrency=30 as the example for async sub-workers:
                 https://procrastinate.readthedocs.io/en/stable/howto/production/concurrency.html
                 Measured beside it (1 process, 3 rounds, same day): concurrency 4 125 jobs/s, 30 222,
                 30 with a 32-connection pool 117 (its default pool is kept).

Optional: `pip install pgqueuer procrastinate asyncpg` (the `bench` extra). `available()` says which are
installed, so the benchmark can say so instead of failing.
"""

from __future__ import annotations

import argparse
import asyncio
import importlib.util
import json
import sys
import time
from urllib.parse import quote

from psycopg.conninfo import conninfo_to_dict

PEERS = {
    # name: (modules it needs, what to install)
    "pgqueuer": (("pgqueuer", "asyncpg"), "pgqueuer asyncpg"),
    "procrastinate": (("procrastinate",), "procrastinate"),
}
PGQUEUER_MANAGERS = 5  # tools/benchmark.py --dequeue (default 5)
PGQUEUER_BATCH = 50  # the fastest we measured; its benchmark's default is 10 (see above)
PROCRASTINATE_CONCURRENCY = 30  # the example in procrastinate's "Execute multiple jobs at the same time"
SETTLE_S = 1.0
# Run inside the fill's transaction, which ANALYZE sees: the table has statistics from its first
# visible moment (as a queue that has been running a while has), and a peer's planner is not timed
# guessing. Every contender in the benchmark gets the same.
ANALYZE = "ANALYZE {table}"


def available() -> dict[str, str | None]:
    """peer -> its version, or None when it is not installed."""
    from importlib.metadata import PackageNotFoundError, version

    found = {}
    for name, (modules, _) in PEERS.items():
        try:
            ok = all(importlib.util.find_spec(module) for module in modules)
            found[name] = version(name) if ok else None
        except PackageNotFoundError:
            found[name] = None
    return found


def version_of(name: str) -> str:
    """The installed version of a peer, or "" (for labels)."""
    return available().get(name) or ""


def install_hint(missing: list[str]) -> str:
    packages = " ".join(sorted({p for name in missing for p in PEERS[name][1].split()}))
    return f".venv/bin/pip install {packages}   (or: make bench, which installs the bench extra)"


def as_url(conninfo: str) -> str:
    """asyncpg takes URLs only; our connection strings are key=value (a unix socket as host)."""
    params = conninfo_to_dict(conninfo)
    host = params.pop("host")
    user = params.pop("user")
    dbname = params.pop("dbname")
    query = "&".join(f"{key}={quote(str(value))}" for key, value in {"host": host, **params}.items())
    return f"postgresql://{quote(user)}@/{quote(dbname)}?{query}"


def answer(message: dict) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


async def settled() -> None:
    """Give the consumers a moment to connect and LISTEN, then tell the parent we are ready."""
    await asyncio.sleep(SETTLE_S)
    answer({"ready": True})


async def lines():
    """stdin, line by line, without blocking the event loop the consumers run on."""
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        yield line.strip()


# -- pgqueuer ----------------------------------------------------------------------------------------


async def run_pgqueuer(conninfo: str, driver_name: str, install: bool = True, managers: int = PGQUEUER_MANAGERS,
                       batch: int = PGQUEUER_BATCH) -> None:
    from pgqueuer import QueueManager
    from pgqueuer.db import AsyncpgDriver, PsycopgDriver
    from pgqueuer.queries import Queries
    from pgqueuer.types import QueueExecutionMode

    async def connect():
        if driver_name == "asyncpg":
            import asyncpg

            connection = await asyncpg.connect(as_url(conninfo))
            return connection, AsyncpgDriver(connection)
        import psycopg

        connection = await psycopg.AsyncConnection.connect(conninfo, autocommit=True)
        return connection, PsycopgDriver(connection)

    connection, driver = await connect()
    producer = Queries(driver)
    if install:
        await producer.install()
    managers = [QueueManager(Queries((await connect())[1])) for _ in range(managers)]
    for manager in managers:
        @manager.entrypoint("noop")
        async def noop(job) -> None:
            pass

    consuming = [asyncio.create_task(m.run(batch_size=batch, mode=QueueExecutionMode.continuous))
                 for m in managers]
    await settled()
    async for line in lines():
        if line.startswith("fill "):
            n = int(line.split()[1])
            async with connection.transaction():
                await producer.enqueue(["noop"] * n, [None] * n, [0] * n)
                await connection.execute(ANALYZE.format(table="pgqueuer"))
            answer({"filled": time.monotonic()})
    for manager in managers:
        manager.shutdown.set()
    await asyncio.gather(*consuming, return_exceptions=True)


# -- procrastinate -----------------------------------------------------------------------------------


async def run_procrastinate(conninfo: str, install: bool = True,
                            concurrency: int = PROCRASTINATE_CONCURRENCY, pool: int | None = None) -> None:
    import procrastinate
    import psycopg

    sizes = {} if pool is None else {"min_size": pool, "max_size": pool}
    app = procrastinate.App(connector=procrastinate.PsycopgConnector(conninfo=conninfo, **sizes))

    @app.task(name="noop", queue="bench")
    async def noop() -> None:
        pass

    async with app.open_async():
        if install:
            await app.schema_manager.apply_schema_async()
        consuming = asyncio.create_task(app.run_worker_async(
            queues=["bench"], concurrency=concurrency, install_signal_handlers=False))
        await settled()
        async for line in lines():
            if line.startswith("fill "):
                n = int(line.split()[1])
                async with await psycopg.AsyncConnection.connect(conninfo, autocommit=True) as connection:
                    async with connection.transaction():
                        await noop.configure(connection=connection).batch_defer_async(*({} for _ in range(n)))
                        await connection.execute(ANALYZE.format(table="procrastinate_jobs"))
                answer({"filled": time.monotonic()})
        consuming.cancel()
        await asyncio.gather(consuming, return_exceptions=True)


# How the parent sees the queue drained: no unfinished job left in the peer's table.
UNFINISHED = {
    "pgqueuer": "SELECT EXISTS (SELECT FROM pgqueuer)",
    "procrastinate": "SELECT EXISTS (SELECT FROM procrastinate_jobs WHERE status IN ('todo', 'doing'))",
}
TABLE = {"pgqueuer": "pgqueuer", "procrastinate": "procrastinate_jobs"}
# How many jobs its handler ran to success: pgqueuer deletes a finished job and logs its status in one
# statement; procrastinate keeps the row and marks it. A drain must count exactly the jobs it filled.
SUCCEEDED = {
    "pgqueuer": "SELECT count(*) FROM pgqueuer_log WHERE status = 'successful'",
    "procrastinate": "SELECT count(*) FROM procrastinate_jobs WHERE status = 'succeeded'",
}


def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m course.evidence.benchmarks.peers")
    parser.add_argument("peer", choices=sorted(PEERS))
    parser.add_argument("--conninfo", required=True)
    parser.add_argument("--driver", choices=["asyncpg", "psycopg"], default="asyncpg")
    parser.add_argument("--no-install", dest="install", action="store_false",
                        help="the tables are there already (another process of the same drain installed them)")
    parser.add_argument("--managers", type=int, default=PGQUEUER_MANAGERS, help="pgqueuer: QueueManagers")
    parser.add_argument("--batch", type=int, default=PGQUEUER_BATCH, help="pgqueuer: batch_size")
    parser.add_argument("--concurrency", type=int, default=PROCRASTINATE_CONCURRENCY, help="procrastinate")
    parser.add_argument("--pool", type=int, help="procrastinate: connection pool size (default: its own)")
    args = parser.parse_args()
    run = asyncio.run
    if importlib.util.find_spec("uvloop"):  # pgqueuer's own benchmark runs on uvloop
        import uvloop

        run = uvloop.run
    if args.peer == "pgqueuer":
        run(run_pgqueuer(args.conninfo, args.driver, args.install, args.managers, args.batch))
    else:
        run(run_procrastinate(args.conninfo, args.install, args.concurrency, args.pool))


if __name__ == "__main__":
    main()
