"""`/flagz` and `/statusz` as kube-scheduler v1.37.2 serves them (component-base zpages,
behind the ComponentFlagz and ComponentStatusz feature gates, beta and on by default in 1.37):

* no `Accept` header, or one that takes `text/plain`: a text page, `text/plain;
  charset=utf-8`, opening with an empty line, `<component> flagz` (or `statusz`) and the
  warning that it is not machine parseable; then `name<delim>value` per flag in name order,
  or the status lines (Started, Up, Go version, Binary version, Emulation version, Paths).
  The delimiter is chosen at random among `:`, `: `, `=` and ` ` (flagz: once per process;
  statusz: per request), as upstream, so that nobody parses it;
* `Accept: application/json;as=Flagz;v=v1beta1;g=config.k8s.io` (`as=Statusz` for
  statusz; `application/yaml` for YAML): the `config.k8s.io/v1beta1` object, with that
  content type; `v=v1alpha1` the same object as `v1alpha1` with a deprecation `Warning`;
* anything else: 406 and a `Status` naming the media types accepted.

kubesched is no Go binary: statusz's "Go version" says so and names the Python version; the
binary version is kubesched's own, the emulation version the kube-scheduler release it
follows (1.37).
"""

from __future__ import annotations

import json
import platform
import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

import yaml

WARNING = (
    "Warning: This endpoint is not meant to be machine parseable, has no formatting "
    "compatibility guarantees and is for debugging purposes only."
)
DELIMITERS = (":", ": ", "=", " ")
GROUP, VERSION, DEPRECATED = "config.k8s.io", "v1beta1", "v1alpha1"
TEXT = "text/plain; charset=utf-8"
_ACCEPTED = (
    "only the following media types are accepted: application/json, application/yaml, text/plain"
)


@dataclass(frozen=True, slots=True)
class Answer:
    """One response: status, content type, body."""

    status: int
    content_type: str
    body: str
    warning: str = ""
    """A `Warning` header (a deprecated version was asked for)."""


@dataclass(frozen=True, slots=True)
class _Wanted:
    """What the client accepts first: the text page, or an object in a media type."""

    media: str = "text/plain"
    version: str = VERSION

    @property
    def text(self) -> bool:
        return self.media == "text/plain"


def _structured(accept: str, kind: str) -> _Wanted | None:
    """What to answer; None when nothing acceptable was asked for."""
    if not accept.strip():
        return _Wanted()
    for item in accept.split(","):
        media, *params = (part.strip() for part in item.split(";"))
        values = dict(p.partition("=")[::2] for p in params)
        if media in ("text/plain", "text/*", "*/*"):
            return _Wanted()
        if media in ("application/json", "application/yaml") and (
            values.get("as") == kind
            and values.get("g") == GROUP
            and values.get("v") in (VERSION, DEPRECATED)
        ):
            return _Wanted(media, values["v"])
    return None


def _not_acceptable() -> Answer:
    status = {
        "kind": "Status",
        "apiVersion": "v1",
        "metadata": {},
        "status": "Failure",
        "message": _ACCEPTED,
        "reason": "NotAcceptable",
        "code": 406,
    }
    return Answer(406, "application/json", json.dumps(status, separators=(",", ":")))


def _object(kind: str, component: str, fields: Mapping[str, object], wanted: _Wanted) -> Answer:
    version = wanted.version
    head = {"kind": kind, "apiVersion": f"{GROUP}/{version}", "metadata": {"name": component}}
    document = {**head, **fields}
    content_type = f"{wanted.media};g={GROUP};v={version};as={kind}"
    if wanted.media == "application/yaml":
        body = yaml.safe_dump(document, sort_keys=True)
    else:
        body = json.dumps(document, separators=(",", ":"))
    warning = ""
    if version == DEPRECATED:
        page = kind.lower()
        warning = (
            f'299 - "This version of the {page} endpoint is deprecated. Please use a newer '
            'version."'
        )
    return Answer(200, content_type, body, warning)


def _header(component: str, page: str) -> str:
    return f"\n{component} {page}\n{WARNING}\n"


@dataclass
class Flagz:
    """`/flagz`: `flags` maps each flag name to its value as pflag prints it."""

    component: str
    flags: Mapping[str, str]
    delimiter: str = field(default_factory=lambda: random.choice(DELIMITERS))  # noqa: S311

    def answer(self, accept: str) -> Answer:
        wanted = _structured(accept, "Flagz")
        if wanted is None:
            return _not_acceptable()
        if not wanted.text:
            flags = {"flags": dict(sorted(self.flags.items()))}
            return _object("Flagz", self.component, flags, wanted)
        lines = "".join(f"{k}{self.delimiter}{v}\n" for k, v in sorted(self.flags.items()))
        return Answer(200, TEXT, _header(self.component, "flagz") + lines)


@dataclass
class Statusz:
    """`/statusz`: when the process started, its versions and the listed paths."""

    component: str
    binary_version: str
    emulation_version: str
    paths: Sequence[str]
    started: float = field(default_factory=time.time)
    clock: Callable[[], float] = time.time
    go_version: str = field(
        default_factory=lambda: f"none (kubesched runs on Python {platform.python_version()})"
    )

    def answer(self, accept: str) -> Answer:
        wanted = _structured(accept, "Statusz")
        if wanted is None:
            return _not_acceptable()
        start = datetime.fromtimestamp(int(self.started), tz=UTC)
        up = max(0, int(self.clock() - self.started))
        if not wanted.text:
            fields = {
                "startTime": start.strftime("%Y-%m-%dT%H:%M:%SZ"),
                "uptimeSeconds": up,
                "goVersion": self.go_version,
                "binaryVersion": self.binary_version,
                "emulationVersion": self.emulation_version,
                "paths": list(self.paths),
            }
            return _object("Statusz", self.component, fields, wanted)
        d = random.choice(DELIMITERS)  # noqa: S311 - not a secret: upstream's anti-parsing
        uptime = f"{up // 3600} hr {up % 3600 // 60:02d} min {up % 60:02d} sec"
        body = (
            f"\nStarted{d} {_unix_date(start)}\nUp{d} {uptime}\nGo version{d} {self.go_version}\n"
            f"Binary version{d} {self.binary_version}\n"
            f"Emulation version{d} {self.emulation_version}\nPaths{d} {' '.join(self.paths)}\n"
        )
        return Answer(200, TEXT, _header(self.component, "statusz") + body)


def _unix_date(moment: datetime) -> str:
    """Go's time.UnixDate: `Mon Jan _2 15:04:05 MST 2006`."""
    return f"{moment:%a %b} {moment.day:2d} {moment:%H:%M:%S} UTC {moment.year}"
