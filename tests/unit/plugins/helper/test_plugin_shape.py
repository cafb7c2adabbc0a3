"""The one utilization-shape validator (kube-scheduler v1.37.2's texts, as its
`validateFunctionShape`) and the one broken-linear score of a shape."""

from typing import Any

import pytest

from kubesched.plugins.helper.args import ArgsError
from kubesched.plugins.helper.fielderrors import raise_all
from kubesched.plugins.helper.shape import Shape, decode_shape, shape_score, shape_to_v1

PATH = "VolumeBindingArgs.shape"


def parse_shape(points: list[Any], *, path: str) -> Shape:
    """The shape, or ArgsError with every error (as VolumeBindingArgs raises them)."""
    decoded, errors = decode_shape(points, path=path)
    raise_all(errors)
    return decoded


@pytest.mark.parametrize(
    ("points", "error"),
    [
        ([], f"{PATH}: Required value: at least one point must be specified"),
        (
            [{"utilization": 50, "score": 1}, {"utilization": 10, "score": 2}],
            f"{PATH}[1].utilization: Invalid value: 10: values must be sorted in increasing order",
        ),
        (
            [{"utilization": 50, "score": 11}],
            f"{PATH}[0].score: Invalid value: 11: not in valid range [0, 10]",
        ),
        (
            [{"utilization": 101, "score": 1}],
            f"{PATH}[0].utilization: Invalid value: 101: not in valid range [0, 100]",
        ),
        (  # every error, sorting before the ranges, aggregated as upstream lists them
            [{"utilization": 101}, {"utilization": 100}],
            (
                f"[{PATH}[1].utilization: Invalid value: 100: values must be sorted in increasing"
                f" order, {PATH}[0].utilization: Invalid value: 101: not in valid range [0, 100]]"
            ),
        ),
        ([{"utilization": 1, "weight": 2}], f'{PATH}[0]: unknown field "weight"'),
    ],
)
def test_bad_shapes_are_refused_with_kube_schedulers_text(points: list[Any], error: str) -> None:
    with pytest.raises(ArgsError) as caught:
        parse_shape(points, path=PATH)
    assert str(caught.value).startswith(error)


def test_a_shape_round_trips_and_missing_fields_are_zero() -> None:
    shape = parse_shape([{"utilization": 0, "score": 10}, {"utilization": 100}], path=PATH)
    assert shape == ((0, 10), (100, 0))
    assert shape_to_v1(shape) == [{"score": 10, "utilization": 0}, {"score": 0, "utilization": 100}]


def test_the_score_is_linear_between_points_and_flat_outside() -> None:
    score = shape_score(((20, 10), (80, 0)))
    assert [score(u) for u in (0, 20, 50, 79, 80, 100)] == [100, 100, 50, 2, 0, 0]
