package dev.strait.operator.publish;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Who a proxy says it is in its {@code hello}: an ingress proxy names its class, a sidecar its
 * namespace and pod.
 */
public record ProxyIdentity(String ingressClass, String namespace, String pod) {

    public boolean sidecar() {
        return namespace != null;
    }

    /** Reads {@code {"ingressClass": ...}} or {@code {"namespace": ..., "pod": ...}}; null when neither. */
    static ProxyIdentity from(JsonNode node) {
        if (node == null || !node.isObject()) {
            return null;
        }
        String cls = text(node, "ingressClass");
        String ns = text(node, "namespace");
        String pod = text(node, "pod");
        if (cls != null && ns == null && pod == null) {
            return new ProxyIdentity(cls, null, null);
        }
        if (cls == null && ns != null && pod != null) {
            return new ProxyIdentity(null, ns, pod);
        }
        return null;
    }

    private static String text(JsonNode n, String field) {
        JsonNode v = n.get(field);
        return v != null && v.isTextual() && !v.asText().isEmpty() ? v.asText() : null;
    }

    @Override
    public String toString() {
        return sidecar() ? "sidecar " + namespace + "/" + pod : "ingress class " + ingressClass;
    }
}
