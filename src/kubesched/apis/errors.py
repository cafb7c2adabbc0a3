"""The root of the errors kubesched reports to its user: each is one line naming the problem
and the fix, and the command line prints it and exits non-zero (`cli` catches this one
class, never a traceback)."""

from __future__ import annotations


class KubeschedError(Exception):
    """A fatal, user-facing error (bad flags or config, a Lease collision, an unloadable
    plugin, a port in use, ...)."""
