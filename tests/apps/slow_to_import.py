"""Handlers whose module takes half a minute to import (a slow dependency, a cold disk): the worker tests
stop a worker while it is still importing them."""

import sys
import time

from course.core.worker import Registry

print("importing the handlers", file=sys.stderr, flush=True)
time.sleep(30)

handlers = Registry()
