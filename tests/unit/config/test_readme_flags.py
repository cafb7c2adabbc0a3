"""The README's flag tables name every flag kubesched accepts (and so, with the e2e check of
`kube-scheduler --help` against the parser, every kube-scheduler flag)."""

from __future__ import annotations

from pathlib import Path

from kubesched.config.flagtable import FLAGS

README = Path(__file__).resolve().parents[3] / "README.md"


def test_every_flag_is_in_the_readme() -> None:
    text = README.read_text()
    missing = [f"--{flag.name}" for flag in FLAGS if f"--{flag.name}" not in text]
    assert not missing, f"add these flags to README.md's flag tables: {missing}"
