# kubesched container image: build with `docker build -t <registry>/kubesched:0.1.0 .`
# (see docs/deploying.md). Two stages: the builder installs the pinned runtime
# dependencies (requirements/runtime.lock) and kubesched into a virtualenv; the final image
# is python:3.11-slim with only that virtualenv, running as the non-root uid 65532.
# `make image` builds the same image without a container engine (tools/kubesched_image, from
# Debian 12 packages): keep the two alike (tests/unit/image/test_image_dockerfile.py).
ARG PYTHON_IMAGE=python:3.11-slim

FROM ${PYTHON_IMAGE} AS builder
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_ROOT_USER_ACTION=ignore
WORKDIR /build
# A virtualenv without pip: the system pip installs into it (`pip --python`).
RUN python -m venv --without-pip /opt/kubesched
# Dependencies first (their layer is reused while only kubesched's code changes); binary
# wheels only, so no compiler is needed; every file checked against the lock's sha256.
COPY requirements/runtime.lock requirements/runtime.lock
RUN pip --python /opt/kubesched/bin/python install --only-binary=:all: --no-deps \
        --require-hashes -r requirements/runtime.lock
COPY pyproject.toml README.md LICENSE ./
COPY src ./src
RUN pip --python /opt/kubesched/bin/python install --no-deps . \
    && pip --python /opt/kubesched/bin/python check \
    && /opt/kubesched/bin/kubesched --help >/dev/null

FROM ${PYTHON_IMAGE}
LABEL org.opencontainers.image.title="kubesched" \
      org.opencontainers.image.description="A Kubernetes scheduler in Python that runs beside kube-scheduler" \
      org.opencontainers.image.licenses="Apache-2.0"
# No packaging or build tools at run time: drop the base image's pip, setuptools and wheel.
RUN python -m pip uninstall --yes --quiet pip setuptools wheel 2>/dev/null || true
COPY --from=builder /opt/kubesched /opt/kubesched
ENV PATH=/opt/kubesched/bin:$PATH \
    LANG=C.UTF-8 \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1
# The uid/gid the generated Deployment runs as (Pod Security "restricted").
USER 65532:65532
EXPOSE 10259
ENTRYPOINT ["/opt/kubesched/bin/kubesched"]
