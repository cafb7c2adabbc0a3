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
PLUGINS_DIR = f"{PREFIX}/plugins"
"""Where `make image IMAGE_PLUGINS=...` puts plugin modules, in a layer of their own."""
PLUGINS_ENV = f"PYTHONPATH={PLUGINS_DIR}"
"""What that layer adds to the environment, so `--plugin-module NAME` imports them."""
PLUGINS_TAG_SUFFIX = "-plugins"
"""`kubesched:0.1.0-plugins`: the image with plugin modules is never mistaken for the plain one."""
LABELS = {
    "org.opencontainers.image.title": "kubesched",
    "org.opencontainers.image.description": (
        "A Kubernetes scheduler in Python that runs beside kube-scheduler"
    ),
    "org.opencontainers.image.licenses": "Apache-2.0",
}
