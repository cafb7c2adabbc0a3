"""What the image is, stated once: the Dockerfile's final stage says the same
(tests/unit/image/test_dockerfile_equivalence.py checks that it does)."""

from __future__ import annotations

from kubesched_image.rootfs import GID, UID

PREFIX = "/opt/kubesched"
"""The virtualenv holding kubesched and its locked dependencies."""
PYTHON = "/usr/bin/python3.11"
ENTRYPOINT = (f"{PREFIX}/bin/kubesched",)
USER = f"{UID}:{GID}"
ENV = (
    f"PATH={PREFIX}/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    "LANG=C.UTF-8",
    "PYTHONDONTWRITEBYTECODE=1",
    "PYTHONUNBUFFERED=1",
)
EXPOSED_PORTS = ("10259/tcp",)
LABELS = {
    "org.opencontainers.image.title": "kubesched",
    "org.opencontainers.image.description": (
        "A Kubernetes scheduler in Python that runs beside kube-scheduler"
    ),
    "org.opencontainers.image.licenses": "Apache-2.0",
}
