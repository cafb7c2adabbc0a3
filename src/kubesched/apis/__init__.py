"""The configuration types (upstream `pkg/scheduler/apis/config`): the completed
`KubeSchedulerConfiguration` as frozen dataclasses. A bottom-layer module: `config` builds these
types and the framework reads them, so neither needs the other."""
