"""Helpers several plugins share: argument decoding and typed args, utilization shapes, label
selectors, node selectors, tolerations, per-node counts (upstream `plugins/helper`)."""
