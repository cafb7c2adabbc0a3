{{/* The name of the namespaced objects: .Values.name, else the first profile's schedulerName. */}}
{{- define "kubesched.name" -}}
{{- .Values.name | default (index (include "kubesched.profiles" . | fromYamlArray) 0).schedulerName -}}
{{- end -}}

{{/* The Lease's namespace: leaderElection.resourceNamespace, else the release's. */}}
{{- define "kubesched.leaseNamespace" -}}
{{- .Values.leaderElection.resourceNamespace | default .Release.Namespace -}}
{{- end -}}

{{/* The Lease's name: leaderElection.resourceName, else the first profile's schedulerName. */}}
{{- define "kubesched.leaseName" -}}
{{- $first := index (include "kubesched.profiles" . | fromYamlArray) 0 -}}
{{- .Values.leaderElection.resourceName | default $first.schedulerName -}}
{{- end -}}

{{/* The image: repository@digest when a digest is set, else repository:tag (appVersion). */}}
{{- define "kubesched.image" -}}
{{- if .Values.image.digest -}}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest -}}
{{- else -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{- define "kubesched.pullSecrets" -}}
{{- $secrets := list -}}
{{- range .Values.imagePullSecrets }}{{ $secrets = append $secrets (dict "name" .) }}{{ end -}}
{{- toYaml $secrets -}}
{{- end -}}

{{/* The selector of kubesched's pods: the app and the release (Helm's instance label). */}}
{{- define "kubesched.selectorLabels" -}}
app.kubernetes.io/name: APP_NAME
app.kubernetes.io/instance: {{ .Release.Name | quote }}
{{- end -}}

{{/* The labels of every object, as Helm's conventions name them. */}}
{{- define "kubesched.labels" -}}
{{ include "kubesched.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: COMPONENT
app.kubernetes.io/managed-by: {{ .Release.Service | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" | quote }}
{{- end -}}

{{/* The labels of a hook's objects (.component of the release .top): their own name and
component, so that no selector of the scheduler's (PodDisruptionBudget, Service) counts their pods. */}}
{{- define "kubesched.hookLabels" -}}
{{- $own := dict "app.kubernetes.io/name" (printf "APP_NAME-%s" .component) "app.kubernetes.io/component" .component -}}
{{- toYaml (merge $own (include "kubesched.labels" .top | fromYaml)) -}}
{{- end -}}

{{- define "kubesched.checkLabels" -}}
{{- include "kubesched.hookLabels" (dict "top" . "component" "config-check") -}}
{{- end -}}

{{- define "kubesched.testLabels" -}}
{{- include "kubesched.hookLabels" (dict "top" . "component" "test") -}}
{{- end -}}

{{/* The pods' labels: the chart's, and podLabels that do not replace one of them. */}}
{{- define "kubesched.podLabels" -}}
{{- toYaml (merge (include "kubesched.labels" . | fromYaml) .Values.podLabels) -}}
{{- end -}}

{{/* The hash of the configuration (16 hex digits of its sha256). */}}
{{- define "kubesched.configHash" -}}
{{- include "kubesched.config" . | sha256sum | trunc 16 -}}
{{- end -}}

{{/* The ConfigMap of the configuration: one per config hash, never edited in place. */}}
{{- define "kubesched.configMapName" -}}
{{- printf "%s-config-%s" (include "kubesched.name" .) (include "kubesched.configHash" .) -}}
{{- end -}}

{{/* The pods' annotations: the config hash (a changed config rolls the pods) and podAnnotations. */}}
{{- define "kubesched.podAnnotations" -}}
{{- toYaml (merge (dict "CONFIG_HASH_ANNOTATION" (include "kubesched.configHash" .)) .Values.podAnnotations) -}}
{{- end -}}

{{/* The ServiceMonitor's labels: the chart's, and serviceMonitor.labels (a Prometheus selects by them). */}}
{{- define "kubesched.serviceMonitorLabels" -}}
{{- toYaml (merge (include "kubesched.labels" . | fromYaml) .Values.serviceMonitor.labels) -}}
{{- end -}}

{{/* The Secret holding the scrape token: serviceMonitor.authorization.credentials.name, else the chart's. */}}
{{- define "kubesched.metricsTokenSecret" -}}
{{- .Values.serviceMonitor.authorization.credentials.name | default (printf "%sMETRICS_TOKEN_SUFFIX" (include "kubesched.name" .)) -}}
{{- end -}}

{{- define "kubesched.affinity" -}}
{{- if .Values.affinity -}}
{{- toYaml .Values.affinity -}}
{{- else -}}
SPREAD_AFFINITY
{{- end -}}
{{- end -}}

{{/* The profiles: .Values.profiles, else one of schedulerName, plugins and pluginConfig. */}}
{{- define "kubesched.profiles" -}}
{{- if .Values.profiles -}}
{{- toYaml .Values.profiles -}}
{{- else -}}
{{- $profile := dict "schedulerName" .Values.schedulerName -}}
{{- with .Values.plugins }}{{ $_ := set $profile "plugins" . }}{{ end -}}
{{- with .Values.pluginConfig }}{{ $_ := set $profile "pluginConfig" . }}{{ end -}}
{{- toYaml (list $profile) -}}
{{- end -}}
{{- end -}}

{{/* The KubeSchedulerConfiguration of the ConfigMap; kubesched completes the defaults. */}}
{{- define "kubesched.config" -}}
{{- $election := deepCopy .Values.leaderElection -}}
{{- $_ := set $election "resourceNamespace" (include "kubesched.leaseNamespace" .) -}}
{{- $_ := set $election "resourceName" (include "kubesched.leaseName" .) -}}
{{- if .Values.shadow.schedulerName }}{{ $_ := set $election "leaderElect" false }}{{ end -}}
{{- $config := deepCopy .Values.config -}}
{{- $_ := set $config "leaderElection" $election -}}
{{- $_ := set $config "profiles" (include "kubesched.profiles" . | fromYamlArray) -}}
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
{{ toYaml $config }}
{{- end -}}

{{/* The container's arguments (kubesched.manifests.workload.container_args). */}}
{{- define "kubesched.args" -}}
FIXED_ARGS
{{- range .Values.pluginModules }}
- {{ printf "--plugin-module=%s" . | quote }}
{{- end }}
{{- with .Values.featureGates }}
{{- $gates := list }}
{{- range $gate, $on := . }}{{ $gates = append $gates (printf "%s=%t" $gate $on) }}{{ end }}
- {{ printf "--feature-gates=%s" (join "," $gates) | quote }}
{{- end }}
{{- with .Values.verbosity }}
- {{ printf "-v=%v" . | quote }}
{{- end }}
{{- if ne .Values.loggingFormat "text" }}
- {{ printf "--logging-format=%s" .Values.loggingFormat | quote }}
{{- end }}
{{- range .Values.extraArgs }}
- {{ . | quote }}
{{- end }}
{{- with .Values.shadow.schedulerName }}
- {{ printf "SHADOW_FLAG=%s" . | quote }}
{{- end }}
{{- end -}}

{{/* The config check's arguments: the scheduler's, then print the checked config and exit
(1 with one line when a plugin, its args or a plugin module is wrong). */}}
{{- define "kubesched.checkArgs" -}}
{{ include "kubesched.args" . }}
- "--write-config-to=-"
{{- end -}}

{{/* "true" when plugin .plugin runs at extension point .point of a profile whose plugins are
.plugins; .default false: not a default plugin (kubesched.manifests.preemption.plugin_enabled). */}}
{{- define "kubesched.runsAt" -}}
{{- $plugins := .plugins | default dict -}}{{- $plugin := .plugin -}}
{{- $multiOff := list -}}{{- range (dig "multiPoint" "disabled" list $plugins) }}{{ $multiOff = append $multiOff .name }}{{ end -}}
{{- $multiOn := list -}}{{- range (dig "multiPoint" "enabled" list $plugins) }}{{ $multiOn = append $multiOn .name }}{{ end -}}
{{- $pointOn := list -}}{{- range (dig .point "enabled" list $plugins) }}{{ $pointOn = append $pointOn .name }}{{ end -}}
{{- $pointOff := list -}}{{- range (dig .point "disabled" list $plugins) }}{{ $pointOff = append $pointOff .name }}{{ end -}}
{{- $default := true -}}{{- if hasKey . "default" }}{{ $default = .default }}{{ end -}}
{{- $fromDefaults := and $default (not (or (has "*" $multiOff) (has $plugin $multiOff))) -}}
{{- $inMulti := or $fromDefaults (has $plugin $multiOn) -}}
{{- $kept := not (or (has "*" $pointOff) (has $plugin $pointOff)) -}}
{{- or (has $plugin $pointOn) (and $inMulti $kept) -}}
{{- end -}}

{{/* "true" when some profile runs DefaultPreemption, CapacityScheduling, or Coscheduling with
gangPreemption: true at PostFilter (rbac.preemption overrides). */}}
{{- define "kubesched.preempts" -}}
{{- $preempts := false -}}
{{- if kindIs "bool" .Values.rbac.preemption -}}
{{- $preempts = .Values.rbac.preemption -}}
{{- else -}}
{{- range (include "kubesched.profiles" . | fromYamlArray) -}}
{{- if eq (include "kubesched.runsAt" (dict "plugins" .plugins "plugin" "PREEMPTION_PLUGIN" "point" "postFilter")) "true" }}{{ $preempts = true }}{{ end -}}
{{- if eq (include "kubesched.runsAt" (dict "plugins" .plugins "plugin" "QUOTA_PREEMPTION_PLUGIN" "point" "postFilter" "default" false)) "true" }}{{ $preempts = true }}{{ end -}}
{{- $gangs := false -}}
{{- range (.pluginConfig | default list) }}{{ if eq .name "Coscheduling" }}{{ $on := dig "gangPreemption" nil (.args | default dict) }}{{ if and (kindIs "bool" $on) $on }}{{ $gangs = true }}{{ end }}{{ end }}{{ end -}}
{{- if and $gangs (eq (include "kubesched.runsAt" (dict "plugins" .plugins "plugin" "Coscheduling" "point" "postFilter" "default" false)) "true") }}{{ $preempts = true }}{{ end -}}
{{- end -}}
{{- end -}}
{{- $preempts -}}
{{- end -}}

{{/* "true" when some profile runs a volume plugin at Filter (kubesched.manifests.preemption.volumes_enabled). */}}
{{- define "kubesched.volumes" -}}
{{- $volumes := false -}}
{{- range (include "kubesched.profiles" . | fromYamlArray) -}}
{{- $plugins := .plugins -}}
{{- range (list VOLUME_PLUGINS) -}}
{{- if eq (include "kubesched.runsAt" (dict "plugins" $plugins "plugin" . "point" "filter")) "true" }}{{ $volumes = true }}{{ end -}}
{{- end -}}
{{- end -}}
{{- $volumes -}}
{{- end -}}

{{/* "true" when the container's arguments turn the feature gate `.gate` on (`.root` is the
chart's context): the last --feature-gates pair naming it wins
(kubesched.config.flags.feature_gates). */}}
{{- define "kubesched.gateOn" -}}
{{- $gate := .gate -}}
{{- $args := include "kubesched.args" .root | fromYamlArray -}}
{{- $on := false -}}
{{- range $i, $arg := $args -}}
{{- $value := "" -}}
{{- if hasPrefix "--feature-gates=" $arg -}}
{{- $value = trimPrefix "--feature-gates=" $arg -}}
{{- else if and (eq $arg "--feature-gates") (lt (add1 $i) (len $args)) -}}
{{- $value = index $args (add1 $i) -}}
{{- end -}}
{{- range (splitList "," $value) -}}
{{- $pair := splitn "=" 2 . -}}
{{- if eq (trim $pair._0) $gate -}}
{{- $on = has (trim (toString $pair._1)) (list TRUE_VALUES) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- $on -}}
{{- end -}}

{{/* "true" when the GenericWorkload feature gate is on (native PodGroups). */}}
{{- define "kubesched.genericWorkload" -}}
{{- include "kubesched.gateOn" (dict "root" . "gate" "GENERIC_WORKLOAD_GATE") -}}
{{- end -}}

{{/* "true" when the CompositePodGroup feature gate is on (groups of PodGroups). */}}
{{- define "kubesched.compositePodGroup" -}}
{{- include "kubesched.gateOn" (dict "root" . "gate" "COMPOSITE_POD_GROUP_GATE") -}}
{{- end -}}

{{/* Every plugin some profile instantiates (kubesched.framework.resources.enabled_plugin_names):
the plugins each extension point enables, and the default ones multiPoint does not disable. */}}
{{- define "kubesched.enabledPlugins" -}}
{{- $defaults := list DEFAULT_PLUGINS -}}
{{- if eq (include "kubesched.genericWorkload" .) "true" -}}
{{- $defaults = concat $defaults (list GENERIC_WORKLOAD_PLUGINS) -}}
{{- end -}}
{{- $names := list -}}
{{- range (include "kubesched.profiles" . | fromYamlArray) -}}
{{- $plugins := .plugins | default dict -}}
{{- range $point := list EXTENSION_POINTS -}}
{{- range (dig $point "enabled" list $plugins) }}{{ $names = append $names .name }}{{ end -}}
{{- end -}}
{{- $off := list -}}{{- range (dig "multiPoint" "disabled" list $plugins) }}{{ $off = append $off .name }}{{ end -}}
{{- if not (has "*" $off) -}}
{{- range $defaults }}{{ if not (has . $off) }}{{ $names = append $names . }}{{ end }}{{ end -}}
{{- end -}}
{{- end -}}
{{- toYaml (uniq $names) -}}
{{- end -}}

{{/* The rules of a list with their read verbs only; rules left with none are dropped
(kubesched.manifests.shadow.read_only_rules). */}}
{{- define "kubesched.readOnlyRules" -}}
{{- $kept := list -}}
{{- range . -}}
{{- $verbs := list -}}
{{- range .verbs }}{{ if has . (list READ_VERBS) }}{{ $verbs = append $verbs . }}{{ end }}{{ end -}}
{{- if $verbs }}{{ $kept = append $kept (set (deepCopy .) "verbs" $verbs) }}{{ end -}}
{{- end -}}
{{- toYaml $kept -}}
{{- end -}}

{{/* The refusals of `kubesched manifests`, as template failures. */}}
{{- define "kubesched.validate" -}}
{{- $election := .Values.leaderElection -}}
{{- $profiles := include "kubesched.profiles" . | fromYamlArray -}}
{{- if and .Values.shadow.schedulerName (gt (len $profiles) 1) -}}
{{- fail (printf "shadow.schedulerName with %d profiles: a shadow compares one profile's decisions; keep one profile" (len $profiles)) -}}
{{- end -}}
{{- if and (gt (int .Values.replicas) 1) (not $election.leaderElect) (not .Values.shadow.schedulerName) -}}
{{- fail (printf "replicas=%v with leaderElection.leaderElect=false would run %v active schedulers placing the same pods; keep leader election on or set replicas=1" .Values.replicas .Values.replicas) -}}
{{- end -}}
{{- range (include "kubesched.profiles" . | fromYamlArray) -}}
{{- if eq .schedulerName "default-scheduler" -}}
{{- fail "schedulerName default-scheduler is kube-scheduler's: pods without a schedulerName would go to two schedulers; choose a name of its own (Configure Multiple Schedulers)" -}}
{{- end -}}
{{- end -}}
{{- if and $election.leaderElect (eq (include "kubesched.leaseName" .) "kube-scheduler") (eq (include "kubesched.leaseNamespace" .) "kube-system") -}}
{{- fail "leaderElection kube-system/kube-scheduler is kube-scheduler's Lease: kubesched would wait forever to acquire it; set leaderElection.resourceName to a Lease of its own" -}}
{{- end -}}
{{- end -}}

{{/* The chart makes the Lease's namespace: asked to (namespace.create), not the release's, not built in. */}}
{{- define "kubesched.createLeaseNamespace" -}}
{{- $namespace := include "kubesched.leaseNamespace" . -}}
{{- and .Values.namespace.create .Values.leaderElection.leaderElect (not .Values.shadow.schedulerName) (ne $namespace .Release.Namespace) (not (has $namespace (list BUILT_IN_NAMESPACES))) -}}
{{- end -}}
