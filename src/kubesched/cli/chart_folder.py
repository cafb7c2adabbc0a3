"""`kubesched manifests --helm-chart DIR` never replaces a file of DIR silently: DIR may be
missing (it is created), empty, or hold a chart whose files are what would be written (or
other files the chart does not write, such as dashboards/). A file that would change (a
values.yaml you edited, say) refuses the whole write unless `--overwrite` is given.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from kubesched.manifests import ManifestError

_SHOWN = 3


def check_chart_folder(folder: Path, files: Mapping[str, str]) -> None:
    """ManifestError, one line, when writing `files` (relative path -> text) into `folder`
    would replace anything or cannot be done."""
    if folder.exists() and not folder.is_dir():
        raise ManifestError(
            f"--helm-chart {folder}: is a file, not a folder; name a folder (it is created if "
            "missing)"
        )
    for parent in folder.parents:
        if parent.exists():
            if not parent.is_dir():
                raise ManifestError(f"--helm-chart {folder}: {parent} is a file, not a folder")
            break
    changed = [relative for relative, text in files.items() if _differs(folder / relative, text)]
    if not changed:
        return
    shown = ", ".join(changed[:_SHOWN])
    more = f" and {len(changed) - _SHOWN} more" if len(changed) > _SHOWN else ""
    verb = "differs" if len(changed) == 1 else "differ"
    raise ManifestError(
        f"--helm-chart {folder}: {shown}{more} {verb} from what kubesched writes; pass "
        "--overwrite to replace them, or write the chart into a new folder"
    )


def _differs(path: Path, text: str) -> bool:
    """True when `path` exists and holds something else than `text` (a folder or an
    unreadable file counts as different)."""
    if not path.exists():
        return False
    try:
        return path.read_text(encoding="utf-8") != text
    except (OSError, UnicodeDecodeError):
        return True
