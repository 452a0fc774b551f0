"""A handlers module with a bug at import time: the worker must say so in one line."""

from course.core.worker import Registry

handlers = Registry()
RATE = 1 / 0
