"""The scheduling core (upstream `pkg/scheduler`): the scheduling cycle (`schedule_one`), the
binding cycle (`binder`), informer event handlers that feed the cache and the queue
(`eventhandlers`), the Handle implementation plugins receive (`handle`), the preemption
executor, PodScheduled condition patches, the event recorder and the metric families.
"""
