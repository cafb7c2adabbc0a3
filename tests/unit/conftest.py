"""Unit tests. This conftest puts `tests/unit` on `sys.path` (pytest's prepend import mode), so
shared fakes such as `api_fakes` import from every test folder."""
