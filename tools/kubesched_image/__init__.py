"""The kubesched container image, built without a container engine from pinned inputs.

    python -m kubesched_image build --out build/image   # `make image`
    python -m kubesched_image lock                      # `make image-lock`

The root filesystem is Debian 12 (bookworm): the packages of its Python 3.11 and their shared
libraries, at the versions of `requirements/image-debian.lock`, fetched with `apt-get download`
and unpacked with `dpkg-deb -x` (no chroot, no maintainer scripts). kubesched's wheel and the
wheels of `requirements/image-wheels.lock` (`requirements/runtime.lock` with a file and hash per
distribution) are installed into the virtualenv `/opt/kubesched`, as the Dockerfile does; the
image runs as uid/gid 65532 with `ENTRYPOINT ["/opt/kubesched/bin/kubesched"]`.

Every file of a layer gets the same mtime (`SOURCE_DATE_EPOCH`), owner root (the user's home
excepted) and a sorted order, and bytecode is compiled by the image's own interpreter in a
fixed order with hash-based invalidation, so the same inputs give the same image digest.
Downloads are cached in `~/.cache/kubesched/image/`, finished builds there too, keyed on the
digest of every input (`build.inputs_digest`).
"""
