"""A stand-in for the writer process's main (`python fake_writer_child.py`), for the unit
tests of `kubesched.kube.writer_process`: it speaks the frames, and instead of the API server
it answers 201 with the request's path as the body. Path `/exit` makes it exit 3 at once,
`/hang` never answers, `/fenced` answers as a fenced write would."""

from __future__ import annotations

import os
import sys

from kubesched.kube.writer_frames import FENCED, FrameReader, encode


def main() -> None:
    reader = FrameReader()
    out = sys.stdout.buffer
    settings_seen = False
    while chunk := os.read(0, 65536):
        for header, _ in reader.feed(chunk):
            if not settings_seen:
                settings_seen = "settings" in header
                continue
            if "d" in header:
                out.write(encode({"i": header["d"], "s": 200}))
            elif header["p"] == "/exit":
                os._exit(3)
            elif header["p"] == "/fenced":
                out.write(encode({"i": header["i"], "s": FENCED, "e": "fence closed"}))
            elif header["p"] != "/hang":
                body = str(header["p"]).encode()
                sample = [header["m"], "fake", "201", 0.001, False]
                answer = {"i": header["i"], "s": 201, "n": len(body), "o": [sample]}
                out.write(encode(answer, body))
            out.flush()


if __name__ == "__main__":
    main()
