package dev.strait.proxy.tracing;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The resource every batch names (who sent the spans), as OpenTelemetry's SDKs make it: {@code service.name} from
 * {@code OTEL_SERVICE_NAME}, else from {@code OTEL_RESOURCE_ATTRIBUTES}, else the config's {@code tracing.serviceName};
 * the attributes {@code OTEL_RESOURCE_ATTRIBUTES} lists ({@code k8s.namespace.name=shop,k8s.pod.name=web-1}, values
 * percent-encoded), so a pod's downward-API fields reach every span; {@code host.name} from {@code HOSTNAME} (the pod's
 * name in Kubernetes) unless that list gives one. Read once, when the exporter is made.
 */
final class SpanResource {
    private final String serviceName;
    private final Map<String, String> attributes;

    private SpanResource(String serviceName, Map<String, String> attributes) {
        this.serviceName = serviceName;
        this.attributes = attributes;
    }

    static SpanResource fromEnvironment(Map<String, String> env) {
        Map<String, String> listed = OtlpHeaders.parse(env.get("OTEL_RESOURCE_ATTRIBUTES"));
        String service = env.get("OTEL_SERVICE_NAME");
        if (service == null || service.isBlank()) {
            service = listed.get("service.name");
        }
        listed.remove("service.name");
        Map<String, String> attributes = new LinkedHashMap<>();
        String host = env.get("HOSTNAME");
        if (host != null && !host.isBlank() && !listed.containsKey("host.name")) {
            attributes.put("host.name", host);
        }
        attributes.putAll(listed);
        return new SpanResource(service == null || service.isBlank() ? null : service.trim(), Map.copyOf(attributes));
    }

    /** The resource's attributes, {@code service.name} first: the environment's, else {@code configured}. */
    Map<String, String> attributes(String configured) {
        Map<String, String> out = new LinkedHashMap<>();
        out.put("service.name", serviceName != null ? serviceName : configured);
        out.putAll(new java.util.TreeMap<>(attributes)); // a stable order
        return out;
    }
}
