"""The exhaustive first-fit search (upstream `allocateOne`).

One call places one wanted device, then recurses for the next: the next device of the
same request (starting after this one's position, so a request tries combinations, not
permutations), else the next request, else the next claim. A `firstAvailable` request tries
its subrequests in order; `All` takes its precomputed devices in order. Whatever a branch
took is undone before the next candidate is tried.
"""

from __future__ import annotations

import time

from kubesched.dra.structured.devices import Devices
from kubesched.dra.structured.pools import Pool
from kubesched.dra.structured.state import (
    Candidate,
    MaxSizeExceeded,
    RequestData,
    RequestKey,
    Undo,
)
from kubesched.dra.structured.types import (
    ALLOCATION_RESULTS_MAX_SIZE,
    AllocationError,
    DeviceID,
)
from kubesched.model.dra import ResourceSlice
from kubesched.model.dra_claims import ALLOCATION_MODE_ALL

Location = tuple[int, int, int]
"""(pool index, slice index, device index) where a request's next device is searched."""
_START: Location = (0, 0, 0)


class Search(Devices):
    def allocate_one(
        self, key: RequestKey, device_index: int, *, sub: bool, start: Location
    ) -> bool:
        """True once everything from `key`'s device `device_index` on is placed."""
        self.a.num_allocate_one_invocations += 1
        if self.deadline is not None and time.monotonic() > self.deadline:
            raise AllocationError("filter operation aborted: context deadline exceeded")
        claim_index, request_index, _ = key
        if claim_index >= len(self.claims) or request_index >= len(
            self.claims[claim_index].requests
        ):
            return self._next_claim(claim_index)
        data = self.request_data[key]
        if not sub and data.parent is not None:
            return self._first_available(key, device_index)
        all_mode = data.request.allocation_mode == ALLOCATION_MODE_ALL
        if all_mode and not data.all_devices:
            return False
        if device_index >= data.num_devices:
            return self.allocate_one(
                (claim_index, request_index + 1, 0), 0, sub=False, start=_START
            )
        remaining = data.num_devices - device_index
        if remaining > ALLOCATION_RESULTS_MAX_SIZE - len(self.results[claim_index]):
            raise MaxSizeExceeded
        if all_mode:
            return self._next_of_all(key, data, device_index, sub=sub)
        return self._search_pools(key, data, device_index, sub=sub, start=start)

    def _next_claim(self, claim_index: int) -> bool:
        """Past the claim's last request: the next claim (past the last claim: done)."""
        if claim_index >= len(self.claims):
            return True
        try:
            return self.allocate_one((claim_index + 1, 0, 0), 0, sub=False, start=_START)
        except MaxSizeExceeded:
            return False  # another subrequest of an earlier claim may need fewer devices

    def _first_available(self, key: RequestKey, device_index: int) -> bool:
        """The subrequests in order; the first that leads to a full solution is chosen."""
        claim_index, request_index, _ = key
        all_exceeded = True
        sub_index = 0
        while (claim_index, request_index, sub_index) in self.request_data:
            sub_key = (claim_index, request_index, sub_index)
            try:
                done = self.allocate_one(sub_key, device_index, sub=True, start=_START)
            except MaxSizeExceeded:
                sub_index += 1
                continue
            all_exceeded = False
            if done:
                self.request_data[(claim_index, request_index, 0)].selected_subrequest = sub_index
                return True
            sub_index += 1
        if all_exceeded:
            raise MaxSizeExceeded
        return False

    def _next_of_all(
        self, key: RequestKey, data: RequestData, device_index: int, *, sub: bool
    ) -> bool:
        undo = self.allocate_device(key, data.all_devices[device_index], must=True)
        if undo is None:
            return False  # the order does not matter for All: no other try can succeed
        return self._continue(undo, key, device_index + 1, sub=sub, start=_START)

    def _search_pools(
        self, key: RequestKey, data: RequestData, device_index: int, *, sub: bool, start: Location
    ) -> bool:
        for pool_index in range(start[0], len(self.pools)):
            pool = self.pools[pool_index]
            if pool.is_incomplete or pool.is_invalid:
                continue
            first_slice = start[1] if pool_index == start[0] else 0
            for slice_index in range(first_slice, len(pool.slices_targeting_node)):
                slice_ = pool.slices_targeting_node[slice_index]
                first_device = start[2] if (pool_index, slice_index) == start[:2] else 0
                for index in range(first_device, len(slice_.devices)):
                    candidate = self._candidate(key, data, pool, slice_, index)
                    undo = candidate and self.allocate_device(key, candidate, must=False)
                    if not undo:
                        continue
                    location = (pool_index, slice_index, index + 1)
                    if self._continue(undo, key, device_index + 1, sub=sub, start=location):
                        return True
        return False

    def _candidate(
        self, key: RequestKey, data: RequestData, pool: Pool, slice_: ResourceSlice, index: int
    ) -> Candidate | None:
        """The device when it is free (admin access: not taken for this claim), selectable
        and has room for the request's capacity."""
        device = slice_.devices[index]
        device_id = DeviceID(pool.driver, pool.pool, device.name)
        if data.request.admin_access:
            if key[0] in self.allocating.get(device_id, ()):
                return None
        elif self.in_use(device_id):
            return None
        if not self.selectable(key, data, slice_, index):
            return None
        if self.features.consumable_capacity and not self.fits_remaining(
            data, device, device_id, self.claims[key[0]]
        ):
            return None
        return Candidate(device_id, device, slice_, pool)

    def _continue(
        self, undo: Undo, key: RequestKey, device_index: int, *, sub: bool, start: Location
    ) -> bool:
        """Recurses for the next device; undoes this one unless a solution was found."""
        try:
            done = self.allocate_one(key, device_index, sub=sub, start=start)
        except BaseException:
            undo()
            raise
        if not done:
            undo()
        return done
