# The two commands a user types: `make demo` and `make test`. Everything else is a step of them.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
E2E_WORKERS ?= 2

.PHONY: help venv binaries lint typecheck contracts unit e2e test demo lock clean parity image image-lock dist image-push image-registry-test

help:
	@echo "make demo   - start a local control plane with kube-scheduler and kubesched beside it"
	@echo "make test   - lint, types, import contracts, unit and end-to-end tests"

$(STAMP): requirements/dev.lock pyproject.toml
	@test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --require-hashes -r requirements/dev.lock
	$(BIN)/python -m pip install --quiet --disable-pip-version-check --no-deps -e .
	@touch $@

venv: $(STAMP)

# Builds etcd, kube-apiserver, kube-controller-manager, kube-scheduler, kubectl and kwok once
# (minutes), then reuses the cache.
binaries: $(STAMP)
	$(BIN)/kubesched dev-cluster build

lint: $(STAMP)
	$(BIN)/ruff check src tests tools
	$(BIN)/ruff format --check src tests tools

# mypy --strict over the package, tools/ and tests/ (pyproject.toml's [tool.mypy] packages).
typecheck: $(STAMP)
	$(BIN)/mypy

contracts: $(STAMP)
	$(BIN)/lint-imports

unit: $(STAMP)
	$(BIN)/pytest tests/unit -q

# The registry round trip (tests/e2e/test_image_registry.py) runs once crane is cached
# (`make image-registry-test` or `make image-push` builds it); until then it is left out.
# Likewise the older release's test (tests/e2e/test_apiserver_older_release.py) once its
# kube-apiserver is cached (`make older-apiserver` builds it: about 10 minutes cold).
REGISTRY_TEST := tests/e2e/test_image_registry.py
OLDER_RELEASE_TEST := tests/e2e/test_apiserver_older_release.py
e2e: binaries
	$(BIN)/kubesched dev-cluster build --helm --scheduler-plugins >/dev/null
	$(BIN)/pytest tests/e2e -q -n $(E2E_WORKERS) --durations=30 \
		$$(PYTHONPATH=tools $(BIN)/python -m kubesched_image crane --cached >/dev/null || echo --ignore=$(REGISTRY_TEST)) \
		$$($(BIN)/python -m tests.e2e.harness.older_apiserver --cached >/dev/null || echo --ignore=$(OLDER_RELEASE_TEST))

# kubesched against kube-apiserver of an older release (docs/development.md): builds it once.
.PHONY: older-apiserver
older-apiserver: binaries
	$(BIN)/python -m tests.e2e.harness.older_apiserver
	$(BIN)/pytest $(OLDER_RELEASE_TEST) -q

test: lint typecheck contracts unit e2e

demo: binaries
	$(BIN)/kubesched dev-cluster demo

# Throughput against kube-scheduler and a null binder (a few minutes); docs/performance.md.
# BENCH_ARGS passes options, e.g. make bench BENCH_ARGS="--workload constrained".
.PHONY: bench
bench: binaries
	$(BIN)/kubesched bench --out bench-results $(BENCH_ARGS)

# kubesched's memory under steady churn (docs/operations.md, "Memory under churn"): 300 nodes,
# 30 pods/s each deleted 90 s later, a node replaced every minute; RSS printed every minute;
# fails when it grew more than 5 % over the last two thirds. MINUTES: the run's length.
MINUTES ?= 10
.PHONY: soak
soak: binaries
	$(BIN)/python -m kubesched.bench.soak --minutes $(MINUTES)

# The scheduling cycle's CPU alone, in process (no control plane), e.g.
# make cycle-cost CYCLE_ARGS="--nodes 65000 --initial-pods 10000 --pods 2000".
.PHONY: cycle-cost
cycle-cost: $(STAMP)
	PYTHONPATH=tools $(BIN)/python -m kubesched_cyclecost $(CYCLE_ARGS)

# Differential parity campaign: seeded random clusters decided by kube-scheduler v1.37.2 and
# by kubesched (tests/e2e/test_parity_differential.py); prints the totals per comparison and
# writes a reproducer per mismatch to parity-failures/. SEEDS: "1-200", "5,9,40-60".
# QUOTA_SEEDS: random ElasticQuota scenarios decided by scheduler-plugins' build and by
# kubesched (tests/e2e/test_quota_differential.py). TOPOLOGY_SEEDS: random topology-constrained
# PodGroups decided by kube-scheduler and by kubesched (tests/e2e/test_topology_differential.py).
SEEDS ?= 1-200
QUOTA_SEEDS ?= 1-30
TOPOLOGY_SEEDS ?= 1-30
parity: binaries
	PARITY_SEEDS=$(SEEDS) QUEUEING_SEEDS=$(QUEUEING_SEEDS) QUOTA_SEEDS=$(QUOTA_SEEDS) TOPOLOGY_SEEDS=$(TOPOLOGY_SEEDS) $(BIN)/pytest tests/e2e/test_parity_differential.py tests/e2e/test_queueing_differential.py tests/e2e/test_quota_differential.py tests/e2e/test_topology_differential.py -q -n 0

# Kubernetes' own test/e2e/scheduling specs (v1.37.2, unchanged) against the local cluster with
# kubesched as default-scheduler and no kube-scheduler: once with the defaults, once with the
# GenericWorkload gate (docs/development.md). The specs' test binary is built once (~5 min
# cold) into ~/.cache/kubesched/bin. SCHEDULER=kube-scheduler runs the same specs with the
# real one; a kubesched run then names the specs that failed with it only. Results and logs:
# conformance-results/<run>/. CONFORMANCE_ARGS passes options, e.g. --focus=NodeSelector.
# CONFORMANCE_GATES=GenericWorkload=true,TopologyAwareWorkloadScheduling=true makes it one run
# with those gates on in every component, of every spec whose gates are on (~10 min).
SCHEDULER ?= kubesched
CONFORMANCE_GATES ?=
.PHONY: conformance
conformance: binaries
	PYTHONPATH=tools $(BIN)/python -m kubesched_conformance run --scheduler=$(SCHEDULER) --out conformance-results $(if $(CONFORMANCE_GATES),--feature-gates=$(CONFORMANCE_GATES)) $(CONFORMANCE_ARGS)

# Pin anew (a few minutes: pip-compile fetches every file's sha256 from the index), keeping the
# versions already pinned unless LOCK_ARGS=--upgrade (or --upgrade-package NAME): runtime.lock
# from pyproject.toml's dependencies (the image installs it), dev.lock from those and dev.in.
# Both carry --hash lines: pip installs them in hash-checking mode. Then `make image-lock`.
PIP_TOOLS   := pip-tools==7.6.2
LOCK_VENV   := /tmp/kubesched-lock
PIP_COMPILE := CUSTOM_COMPILE_COMMAND="make lock" $(LOCK_VENV)/bin/pip-compile --quiet \
	--generate-hashes --strip-extras --no-emit-index-url --no-emit-find-links \
	--no-emit-trusted-host $(LOCK_ARGS)
lock:
	$(PYTHON) -m venv $(LOCK_VENV) && $(LOCK_VENV)/bin/pip install --quiet $(PIP_TOOLS)
	$(PIP_COMPILE) --output-file=requirements/runtime.lock pyproject.toml
	$(PIP_COMPILE) --output-file=requirements/dev.lock pyproject.toml requirements/dev.in

# The wheel users install the command line from (README "Installing the command line only").
# The wheel alone, in seconds and without the development virtualenv: a throwaway venv gets
# the build backend pinned by hash (requirements/image-build.lock: setuptools and wheel, as
# the image's build uses), then builds with exactly that backend (no build isolation needed).
DIST_ENV := build/dist-env
dist:
	rm -rf dist build/lib build/bdist.* $(DIST_ENV)
	$(PYTHON) -m venv $(DIST_ENV)
	$(DIST_ENV)/bin/python -m pip install --quiet --disable-pip-version-check --require-hashes --no-deps -r requirements/image-build.lock
	$(DIST_ENV)/bin/python -m pip wheel --quiet --disable-pip-version-check --no-deps --no-build-isolation --wheel-dir dist .
	rm -rf $(DIST_ENV) build/lib build/bdist.*

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache

# The container image without a container engine (docs/deploying.md): Debian 12 packages and
# wheels pinned in requirements/image-*.lock, downloads and builds cached in
# ~/.cache/kubesched/image. Writes build/image/{oci/,kubesched-<version>.tar,*.spdx.json}.
# `docker build .` (the Dockerfile) makes the equivalent image where there is an engine.
# IMAGE_PLUGINS="a.py pkg/": plugin modules in a layer on top, on PYTHONPATH, tagged
# kubesched:<version>-plugins (docs/writing-plugins.md "Shipping a plugin in the image").
# IMAGE_PLUGIN_REQUIREMENTS=req.txt: their third-party distributions, hash-locked
# (pip-compile --generate-hashes), installed beside kubesched's pins in that layer.
# IMAGE_PLATFORMS=linux/amd64,linux/arm64: one image index of both (arm64 from Debian's arm64
# packages and aarch64 wheels, requirements/image-*-arm64.lock); default linux/amd64.
IMAGE_PLUGINS ?=
IMAGE_PLUGIN_REQUIREMENTS ?=
IMAGE_PLATFORMS ?=
IMAGE_OUT ?= build/image
IMAGE_ARGS = --out $(IMAGE_OUT) $(foreach p,$(IMAGE_PLUGINS),--plugin $(p)) \
	$(if $(IMAGE_PLUGIN_REQUIREMENTS),--plugin-requirements $(IMAGE_PLUGIN_REQUIREMENTS)) \
	$(if $(IMAGE_PLATFORMS),--platforms $(IMAGE_PLATFORMS))
image: $(STAMP)
	PYTHONPATH=tools $(BIN)/python -m kubesched_image build $(IMAGE_ARGS)

# Build the image (cached) and push it to $(REGISTRY):<version> without a container engine
# (docs/deploying.md, section 1): crane, built once from go-containerregistry's Go module into
# ~/.cache/kubesched/bin, pushes the OCI layout; by default linux/amd64 and linux/arm64 as one
# image index (with IMAGE_PLUGINS, the same plugin layer on both). IMAGE_PUSH_ARGS: crane
# push's options.
REGISTRY ?=
IMAGE_PUSH_ARGS ?=
image-push: $(STAMP)
	PYTHONPATH=tools $(BIN)/python -m kubesched_image push --registry "$(REGISTRY)" $(IMAGE_ARGS) $(foreach a,$(IMAGE_PUSH_ARGS),--push-arg=$(a))

# Build crane (about a minute cold, docs/development.md) and run the registry round trip.
image-registry-test: $(STAMP)
	PYTHONPATH=tools $(BIN)/python -m kubesched_image crane >/dev/null
	$(BIN)/pytest $(REGISTRY_TEST) -q -n 0

# Pin the image's Debian packages and wheels anew (after `apt-get update`, or when
# requirements/runtime.lock or image-debian.in changed).
image-lock: $(STAMP)
	PYTHONPATH=tools $(BIN)/python -m kubesched_image lock

# The Helm chart is written from the manifests model: run after changing kubesched.manifests
# (tests/unit/manifests/test_chart_drift.py fails until you do).
.PHONY: chart
chart: $(STAMP)
	$(BIN)/kubesched manifests --helm-chart charts/kubesched --overwrite >/dev/null
