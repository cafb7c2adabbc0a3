"""The objects a queueing hint receives, checked by kind (upstream `util.As`)."""

from __future__ import annotations

import pytest

from kubesched.model import Node, Pod
from kubesched.plugins.helper.event_objects import added_or_updated, updated
from kubesched.testing import make_node, make_pod


def test_an_add_has_no_old_object() -> None:
    node = make_node().model()
    assert added_or_updated(Node, None, node) == (None, node)


def test_an_update_has_both() -> None:
    old, new = make_pod().name("p").model(), make_pod().name("p").label("a", "b").model()
    assert updated(Pod, old, new) == (old, new)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        pytest.param(None, "not-a-node", id="wrong new"),
        pytest.param("not-a-node", make_node().model(), id="wrong old"),
        pytest.param(None, None, id="no new (a delete)"),
        pytest.param(make_pod().model(), make_node().model(), id="mixed kinds"),
    ],
)
def test_anything_else_is_a_type_error(old: object, new: object) -> None:
    with pytest.raises(TypeError, match="expected Node"):
        added_or_updated(Node, old, new)


def test_an_update_without_its_old_object_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="expected Pod, but got NoneType"):
        updated(Pod, None, make_pod().model())
