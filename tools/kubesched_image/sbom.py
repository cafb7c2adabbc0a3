"""The image's SBOM: an SPDX 2.3 JSON document listing every Debian package and every Python
distribution in the image, with its version, the sha256 of the file it came from and its purl.

Spec: https://spdx.github.io/spdx-spec/v2.3/ ; purl: https://github.com/package-url/purl-spec
"""

from __future__ import annotations

import datetime as dt
import re
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

DEBIAN_MIRROR = "http://deb.debian.org/debian"
DISTRO = "debian-12"
_SPDX_ID = re.compile(r"[^A-Za-z0-9.-]")


@dataclass(frozen=True)
class Component:
    """One package in the image."""

    ecosystem: str
    """`deb`, `pypi`, or `generic` (a plugin module copied in)."""
    name: str
    version: str
    sha256: str
    """Of the .deb or the wheel it was installed from."""
    file_name: str
    download: str = "NOASSERTION"
    architecture: str = ""
    supplier: str = ""
    source: str = ""

    @property
    def purl(self) -> str:
        version = quote(self.version, safe="")
        if self.ecosystem == "deb":
            return f"pkg:deb/debian/{self.name}@{version}?arch={self.architecture}&distro={DISTRO}"
        if self.ecosystem == "generic":
            return f"pkg:generic/{quote(self.name, safe='')}?checksum=sha256:{self.sha256}"
        return f"pkg:pypi/{self.name.lower().replace('_', '-')}@{version}"

    @property
    def spdx_id(self) -> str:
        return f"SPDXRef-{self.ecosystem}-{_SPDX_ID.sub('-', self.name)}"


def _package(component: Component) -> dict[str, Any]:
    package: dict[str, Any] = {
        "SPDXID": component.spdx_id,
        "name": component.name,
        "versionInfo": component.version,
        "packageFileName": component.file_name,
        "downloadLocation": component.download,
        "filesAnalyzed": False,
        "checksums": [{"algorithm": "SHA256", "checksumValue": component.sha256}],
        "licenseConcluded": "NOASSERTION",
        "licenseDeclared": "NOASSERTION",
        "copyrightText": "NOASSERTION",
        "supplier": component.supplier or "NOASSERTION",
        "primaryPackagePurpose": "LIBRARY",
        "externalRefs": [
            {
                "referenceCategory": "PACKAGE-MANAGER",
                "referenceType": "purl",
                "referenceLocator": component.purl,
            }
        ],
    }
    if component.source:
        package["sourceInfo"] = component.source
    if not component.version:
        del package["versionInfo"]  # a plugin module has none (SPDX: optional)
    return package


def _image(*, name: str, version: str, manifest_digest: str) -> dict[str, Any]:
    digest = quote(manifest_digest, safe="")
    return {
        "SPDXID": "SPDXRef-image",
        "name": name,
        "versionInfo": version,
        "downloadLocation": "NOASSERTION",
        "filesAnalyzed": False,
        "checksums": [
            {"algorithm": "SHA256", "checksumValue": manifest_digest.removeprefix("sha256:")}
        ],
        "licenseConcluded": "NOASSERTION",
        "licenseDeclared": "NOASSERTION",
        "copyrightText": "NOASSERTION",
        "primaryPackagePurpose": "CONTAINER",
        "externalRefs": [
            {
                "referenceCategory": "PACKAGE-MANAGER",
                "referenceType": "purl",
                "referenceLocator": f"pkg:oci/{name}@{digest}?tag={version}",
            }
        ],
    }


def document(
    *,
    name: str,
    version: str,
    manifest_digest: str,
    components: Sequence[Component],
    epoch: int,
) -> dict[str, Any]:
    """The SPDX document of the image `name:version` whose manifest is `manifest_digest`."""
    created = dt.datetime.fromtimestamp(epoch, tz=dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    namespace = uuid.uuid5(uuid.NAMESPACE_URL, f"oci:{name}@{manifest_digest}")
    image = _image(name=name, version=version, manifest_digest=manifest_digest)
    ordered = sorted(components, key=lambda c: (c.ecosystem, c.name))
    relationships = [
        {
            "spdxElementId": "SPDXRef-DOCUMENT",
            "relationshipType": "DESCRIBES",
            "relatedSpdxElement": "SPDXRef-image",
        }
    ]
    relationships += [
        {
            "spdxElementId": "SPDXRef-image",
            "relationshipType": "CONTAINS",
            "relatedSpdxElement": component.spdx_id,
        }
        for component in ordered
    ]
    return {
        "spdxVersion": "SPDX-2.3",
        "dataLicense": "CC0-1.0",
        "SPDXID": "SPDXRef-DOCUMENT",
        "name": f"{name}-{version}",
        "documentNamespace": f"https://spdx.org/spdxdocs/{name}-{version}-{namespace}",
        "creationInfo": {"created": created, "creators": ["Tool: kubesched-image"]},
        "packages": [image, *(_package(component) for component in ordered)],
        "relationships": relationships,
    }


def extended(
    base: dict[str, Any],
    *,
    name: str,
    version: str,
    manifest_digest: str,
    components: Sequence[Component],
) -> dict[str, Any]:
    """The SPDX document `base` of an image, for the image `name:version` made of it plus
    `components` (a layer on top)."""
    namespace = uuid.uuid5(uuid.NAMESPACE_URL, f"oci:{name}@{manifest_digest}")
    image = _image(name=name, version=version, manifest_digest=manifest_digest)
    ordered = sorted(components, key=lambda c: (c.ecosystem, c.name))
    packages = [p for p in base["packages"] if p["SPDXID"] != "SPDXRef-image"]
    contains = [
        {
            "spdxElementId": "SPDXRef-image",
            "relationshipType": "CONTAINS",
            "relatedSpdxElement": component.spdx_id,
        }
        for component in ordered
    ]
    return {
        **base,
        "name": f"{name}-{version}",
        "documentNamespace": f"https://spdx.org/spdxdocs/{name}-{version}-{namespace}",
        "packages": [image, *packages, *(_package(component) for component in ordered)],
        "relationships": [*base["relationships"], *contains],
    }
