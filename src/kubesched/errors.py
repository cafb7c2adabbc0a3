"""The root of every exception kubesched defines, and of the fatal ones its user sees.

    KubeschedError          every exception class of kubesched derives from it (some also
    |                       from the builtin they refine: ValueError, OSError, ...)
    +-- FatalError          a fatal, user-facing error: one line naming the problem and the
                            fix; the command line prints it and exits non-zero, never a
                            traceback (bad flags or config, a Lease collision, an unloadable
                            plugin, a port in use, ...)

A leaf module: every layer may import it, it imports nothing of kubesched.
"""

from __future__ import annotations


class KubeschedError(Exception):
    """The root of kubesched's exceptions (`except KubeschedError` catches any of them)."""


class FatalError(KubeschedError):
    """A fatal, user-facing error; the message is one line that names the fix."""
