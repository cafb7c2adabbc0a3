"""kubectl's ways to the API server, end to end: the kubeconfig's `proxy-url` (http, https,
socks5) and `tls-server-name`, and HTTPS_PROXY / NO_PROXY, through real proxies on 127.0.0.1
(`harness.proxies`) to the real kube-apiserver, for `leases`, `doctor`, `explain` and `run`.

The API server is named by addresses that show which way a request went:
- `apiserver.proxied.test` resolves only inside the proxy (`.test` is reserved, RFC 6761): a
  request that did not go through the proxy cannot reach it;
- `0.0.0.0` reaches 127.0.0.1 directly on Linux but is not a loopback address, so the
  environment's proxy applies to it (Go exempts only `localhost` and loopback addresses);
  neither name is in the serving certificate's SANs, so TLS needs `tls-server-name`.
"""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

import pytest
import yaml

from kubesched.localcluster import LocalCluster
from kubesched.localcluster.pki import write_pki
from kubesched.testing import make_node, make_pod
from tests.e2e.harness import ApiClient, is_bound, wait_for
from tests.e2e.harness.fixtures import StartKubesched
from tests.e2e.harness.proxies import TunnelProxy

PROXIED = "apiserver.proxied.test"
SAN = "kubernetes"  # one of the serving certificate's DNS names
PROXY_VARIABLES = ("HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy", "NO_PROXY", "no_proxy")


@dataclass(frozen=True)
class Apiserver:
    """The local kube-apiserver, and kubeconfigs that name it in other ways."""

    cluster: LocalCluster
    port: int
    folder: Path

    def kubeconfig(self, name: str, host: str, **extra: str) -> Path:
        """An admin kubeconfig for `https://HOST:PORT` with the cluster keys of `extra`
        (`tls-server-name`, `proxy-url`, `certificate-authority`)."""
        server = f"https://{host}:{self.port}"
        entry = {"server": server, "certificate-authority": str(self.cluster.ca_file), **extra}
        config = {
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "c", "cluster": entry}],
            "users": [{"name": "admin", "user": {"token": self.cluster.admin_token}}],
            "contexts": [{"name": "c", "context": {"cluster": "c", "user": "admin"}}],
            "current-context": "c",
        }
        path = self.folder / name
        path.write_text(yaml.safe_dump(config))
        return path


@pytest.fixture
def apiserver(local_cluster: LocalCluster, tmp_path: Path) -> Apiserver:
    port = urlsplit(local_cluster.server).port
    assert port is not None
    return Apiserver(local_cluster, port, tmp_path)


def kubesched_cli(
    *args: str, kubeconfig: Path, env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`python -m kubesched ARGS --kubeconfig=...` with only `env`'s proxy variables."""
    clean = {k: v for k, v in os.environ.items() if k not in {*PROXY_VARIABLES, "KUBECONFIG"}}
    return subprocess.run(
        [sys.executable, "-m", "kubesched", *args, f"--kubeconfig={kubeconfig}"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**clean, **(env or {})},
        check=False,
    )


def leases(kubeconfig: Path, env: dict[str, str] | None = None) -> set[str]:
    """The names of the Leases `kubesched leases -A` lists (it must succeed)."""
    done = kubesched_cli("leases", "-A", "-o", "json", kubeconfig=kubeconfig, env=env)
    assert done.returncode == 0, done.stderr
    return {row["name"] for row in json.loads(done.stdout)["leases"]}


def test_https_proxy_carries_every_request_and_no_proxy_cidrs_bypass_it(
    apiserver: Apiserver,
) -> None:
    kubeconfig = apiserver.kubeconfig("kubeconfig", "0.0.0.0", **{"tls-server-name": SAN})
    port = apiserver.port
    with TunnelProxy("http") as proxy:
        env = {"HTTPS_PROXY": proxy.url, "NO_PROXY": "10.0.0.0/8,.example.com,0.0.0.1"}
        assert "kube-scheduler" in leases(kubeconfig, env)
        assert proxy.tunnels
        assert set(proxy.tunnels) == {f"0.0.0.0:{port}"}
        through = len(proxy.tunnels)
        # NO_PROXY naming the address (a CIDR, `*`, the IP, IP:port): straight there.
        for no_proxy in ("0.0.0.0/8", "*", "0.0.0.0", f"0.0.0.0:{port}"):
            assert "kube-scheduler" in leases(
                kubeconfig, {"https_proxy": proxy.url, "no_proxy": no_proxy}
            )
        # HTTP_PROXY is for http:// servers only: an https one is reached directly.
        assert "kube-scheduler" in leases(kubeconfig, {"HTTP_PROXY": proxy.url})
        assert len(proxy.tunnels) == through


def test_tls_server_name_verifies_an_address_outside_the_certificate(
    apiserver: Apiserver,
) -> None:
    refused = kubesched_cli("leases", "-A", kubeconfig=apiserver.kubeconfig("plain", "0.0.0.0"))
    assert refused.returncode != 0
    assert "certificate is not valid for '0.0.0.0'" in refused.stderr, refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    named = apiserver.kubeconfig("named", "0.0.0.0", **{"tls-server-name": SAN})
    assert "kube-scheduler" in leases(named)
    wrong = apiserver.kubeconfig("wrong", "0.0.0.0", **{"tls-server-name": "not-the-apiserver"})
    refused = kubesched_cli("leases", "-A", kubeconfig=wrong)
    assert "not-the-apiserver" in refused.stderr, refused.stderr


def test_no_proxy_domain_suffixes_bypass_the_proxy(apiserver: Apiserver) -> None:
    kubeconfig = apiserver.kubeconfig("kubeconfig", PROXIED, **{"tls-server-name": SAN})
    with TunnelProxy("http", hosts={PROXIED: "127.0.0.1"}) as proxy:
        for no_proxy in ("", "proxied.test:1", "other.test", "test.example", "10.0.0.0/8"):
            assert "kube-scheduler" in leases(
                kubeconfig, {"HTTPS_PROXY": proxy.url, "NO_PROXY": no_proxy}
            )
        through = len(proxy.tunnels)
        assert through >= 5
        for no_proxy in ("proxied.test", ".proxied.test", "*.test", f"{PROXIED}:{apiserver.port}"):
            env = {"HTTPS_PROXY": proxy.url, "NO_PROXY": f"10.0.0.1, {no_proxy}"}
            bypassed = kubesched_cli("leases", "-A", kubeconfig=kubeconfig, env=env)
            # Directly, the name does not resolve: the request never reached the proxy.
            assert bypassed.returncode != 0
            assert f"cannot connect to {PROXIED}:" in bypassed.stderr, bypassed.stderr
            assert len(bypassed.stderr.strip().splitlines()) == 1, bypassed.stderr
        assert len(proxy.tunnels) == through


def test_kubeconfig_proxy_url_wins_over_the_environment(apiserver: Apiserver) -> None:
    with TunnelProxy("socks5", credentials=("ops", "s3cret")) as socks, TunnelProxy() as http:
        # Even a loopback server goes through the kubeconfig's proxy-url, and NO_PROXY is
        # not looked at (as kubectl: http.ProxyURL).
        kubeconfig = apiserver.kubeconfig("kubeconfig", "127.0.0.1", **{"proxy-url": socks.url})
        assert "kube-scheduler" in leases(kubeconfig, {"HTTPS_PROXY": http.url, "NO_PROXY": "*"})
        assert socks.tunnels
        assert set(socks.tunnels) == {f"127.0.0.1:{apiserver.port}"}
        assert http.tunnels == []
        wrong = socks.url.replace("s3cret", "guess")
        bad = apiserver.kubeconfig("bad", "127.0.0.1", **{"proxy-url": wrong})
        refused = kubesched_cli("leases", "-A", kubeconfig=bad)
        assert refused.returncode != 0
        assert "refused the user and password" in refused.stderr, refused.stderr
        assert "guess" not in refused.stderr
        assert "s3cret" not in refused.stderr


def test_an_https_proxy_with_a_password(apiserver: Apiserver, tmp_path: Path) -> None:
    pki = write_pki(tmp_path / "proxy-pki")
    tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    tls.load_cert_chain(pki.serving_cert, pki.serving_key)
    # As kubectl, the proxy's certificate is checked with the cluster's trust: its CA file.
    bundle = tmp_path / "ca-bundle.crt"
    bundle.write_bytes(apiserver.cluster.ca_file.read_bytes() + pki.ca_cert.read_bytes())
    extra = {"tls-server-name": SAN, "certificate-authority": str(bundle)}
    hosts = {PROXIED: "127.0.0.1"}
    with TunnelProxy(tls=tls, credentials=("ops", "p@ss"), hosts=hosts) as proxy:
        good = proxy.url.replace("p@ss", "p%40ss")
        kubeconfig = apiserver.kubeconfig("kubeconfig", PROXIED, **{"proxy-url": good}, **extra)
        assert "kube-scheduler" in leases(kubeconfig)
        assert set(proxy.tunnels) == {f"{PROXIED}:{apiserver.port}"}
        bad = proxy.url.replace("p@ss", "nope")
        wrong = apiserver.kubeconfig("wrong", PROXIED, **{"proxy-url": bad}, **extra)
        refused = kubesched_cli("leases", "-A", kubeconfig=wrong)
        assert "407 Proxy Authentication Required" in refused.stderr, refused.stderr
        assert proxy.refused


def test_run_doctor_and_explain_through_a_socks5_proxy(
    apiserver: Apiserver, kubesched: StartKubesched, api: ApiClient, namespace: str
) -> None:
    with TunnelProxy("socks5", hosts={PROXIED: "127.0.0.1"}) as proxy:
        extra = {"proxy-url": proxy.url, "tls-server-name": SAN}
        kubeconfig = apiserver.kubeconfig("kubeconfig", PROXIED, **extra)
        api.create(make_node().name("proxied-node").obj())
        # The scheduler's lists, watches, Lease, bindings and events (and its TokenReviews):
        # only the proxy resolves the API server's name, so the pod is bound only if every
        # one of them went through it.
        lease_namespace = f"--leader-elect-resource-namespace={namespace}"
        kubesched("--scheduler-name=proxied", lease_namespace, kubeconfig=kubeconfig)
        api.create(make_pod().name("p").namespace(namespace).scheduler("proxied").obj())
        bound = wait_for(
            lambda: api.get("Pod", "p", namespace=namespace), until=is_bound, message="p bound"
        )
        assert bound["spec"]["nodeName"] == "proxied-node"
        doctor = kubesched_cli(
            "doctor",
            "--scheduler-name=proxied",
            lease_namespace,
            "-o",
            "json",
            kubeconfig=kubeconfig,
        )
        checks = {check["name"]: check for check in json.loads(doctor.stdout)["checks"]}
        assert checks, doctor.stderr
        api.create(
            make_pod().name("big").namespace(namespace).scheduler("proxied").req(cpu="1000").obj()
        )
        explain = kubesched_cli(
            "explain", f"{namespace}/big", "--scheduler-name=proxied", kubeconfig=kubeconfig
        )
        assert explain.returncode == 0, explain.stderr
        assert "Insufficient cpu" in explain.stdout, explain.stdout
        assert set(proxy.tunnels) == {f"{PROXIED}:{apiserver.port}"}


@pytest.mark.parametrize(
    ("extra", "env", "expected"),
    [
        (
            {"proxy-url": "socks4://127.0.0.1:1080"},
            {},
            "unsupported scheme 'socks4', must be http, https, or socks5",
        ),
        ({"proxy-url": "socks5h://127.0.0.1:1080"}, {}, "must be http, https, or socks5"),
        ({}, {"HTTPS_PROXY": "ftp://user:pw@proxy:21"}, "HTTPS_PROXY=ftp://user:xxxxx@proxy:21"),
        ({}, {"HTTPS_PROXY": "http://proxy:port"}, "is not a URL"),
    ],
)
def test_a_proxy_kubesched_cannot_use_is_refused_with_one_line(
    apiserver: Apiserver, extra: dict[str, str], env: dict[str, str], expected: str
) -> None:
    kubeconfig = apiserver.kubeconfig("kubeconfig", "0.0.0.0", **extra)
    refused = kubesched_cli("leases", "-A", kubeconfig=kubeconfig, env=env)
    assert refused.returncode != 0
    assert expected in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1, refused.stderr
