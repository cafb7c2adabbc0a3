"""The resource plugins' sign (`framework.signs.resources_sign`): pods whose node accounting is
alike but whose spec asks differently (a pod resized in place) never share a signature, since
NodeResourcesFit's Filter reads the spec's requests."""

from __future__ import annotations

import dataclasses

from kubesched.framework.signs import resources_sign
from kubesched.model import Resource
from kubesched.testing import make_pod


def test_the_spec_requests_are_part_of_the_sign_when_they_differ() -> None:
    plain = make_pod().name("a").req(cpu="1").model()
    assert plain.spec_requests is None
    resized = dataclasses.replace(plain, spec_requests=Resource(milli_cpu=2000))
    other = dataclasses.replace(plain, spec_requests=Resource(milli_cpu=3000))
    signs = {resources_sign(plain), resources_sign(resized), resources_sign(other)}
    assert len(signs) == 3
    assert resources_sign(make_pod().name("b").req(cpu="1").model()) == resources_sign(plain)
