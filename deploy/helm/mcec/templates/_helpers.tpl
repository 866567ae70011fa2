{{- define "mcec.fullname" -}}
{{- if contains .Chart.Name .Release.Name -}}
{{- .Release.Name | trunc 52 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name .Chart.Name | trunc 52 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "mcec.selectorLabels" -}}
app.kubernetes.io/name: {{ .Chart.Name }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{- define "mcec.labels" -}}
{{ include "mcec.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "mcec.secretName" -}}
{{- if .Values.token.existingSecret -}}
{{- .Values.token.existingSecret -}}
{{- else -}}
{{- printf "%s-token" (include "mcec.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- define "mcec.consoleSecretName" -}}
{{- if .Values.console.existingSecret -}}
{{- .Values.console.existingSecret -}}
{{- else -}}
{{- printf "%s-console" (include "mcec.fullname" .) -}}
{{- end -}}
{{- end -}}

{{- /* The host name of this pod's console in console.peerURL (with $(POD_NAME) for the pod),
without a port; empty without a console or a peerURL. */ -}}
{{- define "mcec.consoleHost" -}}
{{- if and .Values.console.enabled .Values.console.peerURL -}}
{{- $host := (urlParse (replace "{pod}" "podnameplaceholder" .Values.console.peerURL)).host -}}
{{- regexReplaceAll ":[0-9]+$" $host "" | replace "podnameplaceholder" "$(POD_NAME)" -}}
{{- end -}}
{{- end -}}
