{{/* The release's base name: the release name, with "strait" appended unless it already contains it. */}}
{{- define "strait.fullname" -}}
{{- if contains "strait" .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-strait" .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "strait.operator" -}}{{ include "strait.fullname" . }}-operator{{- end -}}
{{- define "strait.proxy" -}}{{ include "strait.fullname" . }}-proxy{{- end -}}
{{- define "strait.webhook" -}}{{ include "strait.fullname" . }}-sidecar-injector{{- end -}}

{{- define "strait.labels" -}}
app.kubernetes.io/name: strait
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "strait.operatorSelector" -}}
app.kubernetes.io/name: strait
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: operator
{{- end -}}

{{- define "strait.proxySelector" -}}
app.kubernetes.io/name: strait
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/component: proxy
{{- end -}}

{{- define "strait.image" -}}
{{- $tag := .root.Values.image.tag | default .root.Chart.AppVersion -}}
{{- printf "%s/%s:%s" .root.Values.image.registry .name $tag -}}
{{- end -}}

{{/* The control channel's address as proxies dial it; the serving certificate names it. */}}
{{- define "strait.controlHost" -}}{{ include "strait.operator" . }}.{{ .Release.Namespace }}.svc{{- end -}}

{{/* The pod's security context; the context's seccompProfile (the proxy's value) replaces RuntimeDefault.
     RuntimeDefault refuses io_uring_setup on containerd and Docker: the proxy's transport "auto" then
     runs on epoll and logs why (docs/adr/0035). */}}
{{- define "strait.podSecurity" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile: {{ toJson (default (dict "type" "RuntimeDefault") .seccompProfile) }}
{{- end -}}

{{- define "strait.containerSecurity" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities: { drop: [ ALL ] }
{{- end -}}

{{/* The proxies' request body file budget in bytes (proxy.requestBodyFiles.maxBytes), as a whole number: values read
     from a file are float64, and printing one would give 2.68435456e+08. */}}
{{- define "strait.bodyFilesMaxBytes" -}}{{ int64 .Values.proxy.requestBodyFiles.maxBytes }}{{- end -}}

{{/* The proxies' /tmp sizeLimit: the unpacked native libraries (16Mi) and the request body files' budget rounded up
     to a whole Mi, so the files can never outgrow the volume (the kubelet evicts a pod whose emptyDir does). 272Mi
     for the default 256 MiB, 16Mi for 0. The operator sizes injected sidecars' /tmp the same way (SidecarInjector). */}}
{{- define "strait.proxyTmpSize" -}}
{{- $max := int64 .Values.proxy.requestBodyFiles.maxBytes -}}
{{- add 16 (div $max 1048576) (ternary 1 0 (gt (mod $max 1048576) 0)) -}}Mi
{{- end -}}
