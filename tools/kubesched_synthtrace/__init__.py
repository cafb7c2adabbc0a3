"""Synthetic traces for `kubesched replay` and `kubesched bench --trace` (docs/replay.md)."""
