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
