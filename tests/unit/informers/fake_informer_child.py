"""A stand-in for the informer process's main (`python fake_informer_child.py`), for the unit
tests of `kubesched.informers.process`: instead of listing from an API server it lists the
nodes named in the settings' `state_file` (a JSON list of [name, resourceVersion]) for each
informer, sends one health delta, then waits until its stdin closes."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from kubesched.informers.deltas import HEALTH, LIST_ENDED, LIST_STARTED, LISTED, DeltaReader, encode
from kubesched.model import Node


def main() -> None:
    reader = DeltaReader()
    settings = None
    while settings is None and (chunk := os.read(0, 65536)):
        for deltas in reader.feed(chunk):
            settings = next(payload for _, op, payload in deltas if op == "settings")
    if settings is None:
        return
    state = json.loads(Path(settings["state_file"]).read_text())
    nodes = [Node(name, resource_version=rv) for name, rv in state]
    for index, _ in enumerate(settings["informers"]):
        deltas = [(index, LIST_STARTED, None), (index, LISTED, nodes), (index, LIST_ENDED, "9")]
        deltas.append((index, HEALTH, (True, False, "", 0.0)))
        sys.stdout.buffer.write(encode(deltas))
    sys.stdout.buffer.flush()
    while os.read(0, 65536):
        pass


if __name__ == "__main__":
    main()
