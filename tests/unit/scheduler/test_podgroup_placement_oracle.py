"""The placement algorithm against an independent oracle, on random racks: members of 1 cpu,
nodes of 0-3 cpu in up to 4 racks (some nodes without the key), a gang of minCount m with n
members. The oracle counts each rack's room (its nodes' whole cpus): the gang fits a rack
holding at least m; where one does, every placed member is in one such rack, as many as that
rack holds (up to n), and no rack holding more of them was passed over (PodGroupPodsCount);
where none does, nothing is placed and the group says `0/R placements are available`."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from kubesched.framework import Code
from tests.unit.scheduler.test_podgroup_placement import RACK, _Cluster, _group

NODE = st.tuples(st.integers(0, 3), st.sampled_from(["r0", "r1", "r2", "r3", ""]))


@settings(max_examples=40, deadline=None)
@given(
    nodes=st.lists(NODE, min_size=1, max_size=8),
    min_count=st.integers(1, 5),
    extra=st.integers(0, 2),
)
def test_the_chosen_rack_is_one_the_oracle_accepts(
    nodes: list[tuple[int, str]], min_count: int, extra: int
) -> None:
    members = min_count + extra
    spec = {
        f"n{i}": (str(cpu), {RACK: rack} if rack else {}) for i, (cpu, rack) in enumerate(nodes)
    }
    room: dict[str, int] = {}
    for cpu, rack in nodes:
        if rack:
            room[rack] = room.get(rack, 0) + cpu
    rack_of = {f"n{i}": rack for i, (_, rack) in enumerate(nodes)}
    result = _Cluster(spec).place(_group(min_count), members)
    fits = {rack: min(held, members) for rack, held in room.items() if held >= min_count}
    if not room:
        assert result.status.message == "no feasible placements found"
        return
    if not fits:
        assert result.status.code is Code.UNSCHEDULABLE
        assert result.status.message.startswith(
            f"pod group is unschedulable, 0/{len(room)} placements are available, "
        )
        return
    assert result.status.is_success()
    hosts = [member.host for member in result.members if member.host]
    chosen = {rack_of[host] for host in hosts}
    assert len(chosen) == 1
    (rack,) = chosen
    assert rack in fits
    assert len(hosts) == fits[rack] == max(fits.values())
