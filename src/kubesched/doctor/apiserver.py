"""Check: the API server answers, with which version (warn outside the supported versions,
`kubesched.apis.support`), and who we are to it."""

from __future__ import annotations

from kubesched.apis.support import SUPPORTED, ServerVersion
from kubesched.doctor.context import Context
from kubesched.doctor.result import CheckResult, fail, ok, warn
from kubesched.kube.api import KubeApi
from kubesched.kube.errors import ApiError, ConnectionFailed, Unauthorized

NAME = "api-server"
SELF_SUBJECT_REVIEWS = "/apis/authentication.k8s.io/v1/selfsubjectreviews"
_FIX_CONNECT = (
    "check --kubeconfig (or KUBECONFIG, or --master) points at the cluster and that the "
    "API server is up: kubectl get --raw /version"
)
_FIX_CREDENTIALS = "the credentials of the kubeconfig were refused: renew the token or certificate"


async def whoami(api: KubeApi) -> str:
    """The user name the API server sees for our credentials ("" if it cannot tell)."""
    body = {"apiVersion": "authentication.k8s.io/v1", "kind": "SelfSubjectReview"}
    try:
        review = await api.post(SELF_SUBJECT_REVIEWS, body, timeout=5.0)
    except ApiError:
        return ""
    user = (review.get("status") or {}).get("userInfo") or {}
    return str(user.get("username") or "")


async def check_api_server(ctx: Context) -> CheckResult:
    """ok with the version, fail when unreachable or when the credentials are refused."""
    server = ctx.server or "the API server"
    try:
        version = await ctx.api.get("/version", timeout=5.0)
        user = await whoami(ctx.api)
    except ConnectionFailed as exc:
        return fail(NAME, f"cannot reach {server}: {exc.message}", _FIX_CONNECT, server=server)
    except Unauthorized as exc:
        return fail(NAME, f"{server} refused our credentials: {exc}", _FIX_CREDENTIALS)
    except ApiError as exc:
        return fail(NAME, f"{server} answered /version with {exc}", _FIX_CONNECT, server=server)
    parsed = ServerVersion.from_json(version)
    as_user = f" as {user}" if user else ""
    detail = f"{server} answers{as_user}, Kubernetes {parsed.git_version}"
    data = {"server": server, "version": parsed.git_version, "user": user, "supported": SUPPORTED}
    if note := parsed.support_note():
        return warn(
            NAME,
            f"{detail}: {note}",
            "use a cluster of a supported version; kubesched starts anyway and names at "
            "start-up what it cannot do there",
            **data,
        )
    return ok(NAME, f"{detail} (kubesched supports {SUPPORTED})", **data)
