"""Run a command on a busy machine: N processes burn CPU while it runs, then they stop.

    python tests/under_load.py                  make test, with one burner per core
    python tests/under_load.py -n 4 -- make test-fast
    make test-under-load                        the same as the first line

Students run the suite on laptops that are doing other things; this makes such a laptop on demand, so
a test that only passes on an idle machine fails here first. It prints the load and how long the
command took, and exits with the command's exit code. The burners are this script's children, stopped
by pid when the command ends (also on Ctrl-C).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

BURN = "while True: pass"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-n", "--burners", type=int, default=os.cpu_count() or 2,
                        help="processes that burn CPU while the command runs (default: one per core)")
    parser.add_argument("command", nargs="*", default=["make", "test"],
                        help="the command to run (default: make test); put it after --")
    args = parser.parse_args(argv)
    if args.burners < 0:
        parser.error(f"--burners must be 0 or more, not {args.burners}")
    burners = [subprocess.Popen([sys.executable, "-c", BURN]) for _ in range(args.burners)]
    print(f"under_load: {len(burners)} CPU burners (pids {', '.join(str(b.pid) for b in burners)}) on "
          f"{os.cpu_count()} cores; running: {' '.join(args.command)}", flush=True)
    started = time.monotonic()
    try:
        code = subprocess.call(args.command)
    except KeyboardInterrupt:
        code = 130
    finally:
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        for burner in burners:
            burner.kill()
            burner.wait()
    took = time.monotonic() - started
    print(f"under_load: exit {code} after {took / 60:.1f} min ({took:.0f} s) with {len(burners)} burners; "
          f"load average at the end {load:.1f}", flush=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
