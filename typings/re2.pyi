"""Type stubs for what kubesched uses of google-re2 (the package ships none): `compile`, a
pattern's `search` and `finditer`, a match's `group`, and the `error` it raises."""

from collections.abc import Iterator

class error(Exception): ...  # noqa: N801 - the module's own name

class _Match:
    def group(self, index: int = 0, /) -> str: ...

class _Regexp:
    def search(self, text: str, /) -> _Match | None: ...
    def finditer(self, text: str, /) -> Iterator[_Match]: ...

def compile(pattern: str) -> _Regexp: ...  # noqa: A001 - the module's own name
