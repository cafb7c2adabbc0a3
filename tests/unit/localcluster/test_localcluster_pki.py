"""Certificates of the local control plane."""

from __future__ import annotations

import ipaddress
from pathlib import Path

from cryptography import x509

from kubesched.localcluster.pki import write_pki


def test_serving_certificate_is_signed_by_the_ca_for_loopback_names(tmp_path: Path) -> None:
    pki = write_pki(tmp_path)

    ca = x509.load_pem_x509_certificate(pki.ca_cert.read_bytes())
    serving = x509.load_pem_x509_certificate(pki.serving_cert.read_bytes())

    serving.verify_directly_issued_by(ca)
    names = serving.extensions.get_extension_for_class(x509.SubjectAlternativeName).value
    assert "localhost" in names.get_values_for_type(x509.DNSName)
    assert "kubernetes.default.svc" in names.get_values_for_type(x509.DNSName)
    assert ipaddress.ip_address("127.0.0.1") in names.get_values_for_type(x509.IPAddress)
    assert ca.extensions.get_extension_for_class(x509.BasicConstraints).value.ca


def test_private_keys_are_private(tmp_path: Path) -> None:
    pki = write_pki(tmp_path)

    assert pki.serving_key.stat().st_mode & 0o077 == 0
    assert pki.sa_private_key.stat().st_mode & 0o077 == 0
    assert b"PUBLIC KEY" in pki.sa_public_key.read_bytes()
