"""Helpers several plugins share: argument decoding, label selectors, node selectors,
tolerations, per-node counts (upstream `plugins/helper`)."""
