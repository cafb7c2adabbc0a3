"""Score: prefers nodes that already hold the pod's images (upstream `imagelocality`)."""

from kubesched.plugins.image_locality.plugin import ImageLocality

__all__ = ["ImageLocality"]
