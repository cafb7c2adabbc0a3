"""The DRA library, as upstream's `k8s.io/dynamic-resource-allocation` (`cel`, `structured`):
the CEL environment of device selectors and the structured-parameters allocator, beside the
plugins that use them. It imports `kubesched.model` only (see README.md)."""
