package dev.strait.proxy.control;

import java.util.Map;

/**
 * Who this proxy is, as said in {@code hello}: an ingress proxy of a class ({@code STRAIT_INGRESS_CLASS},
 * default {@code strait}), or a sidecar ({@code STRAIT_POD_NAMESPACE} and {@code STRAIT_POD_NAME}, set from
 * the downward API).
 */
public record Identity(String ingressClass, String namespace, String pod) {

    public static Identity ingress(String ingressClass) {
        return new Identity(ingressClass, null, null);
    }

    public static Identity sidecar(String namespace, String pod) {
        return new Identity(null, namespace, pod);
    }

    public static Identity fromEnvironment(Map<String, String> env) {
        String ns = env.get("STRAIT_POD_NAMESPACE");
        String pod = env.get("STRAIT_POD_NAME");
        if (ns != null && !ns.isBlank() && pod != null && !pod.isBlank()) {
            return sidecar(ns, pod);
        }
        String cls = env.get("STRAIT_INGRESS_CLASS");
        return ingress(cls == null || cls.isBlank() ? "strait" : cls);
    }

    @Override
    public String toString() {
        return namespace != null ? "sidecar " + namespace + "/" + pod : "ingress class " + ingressClass;
    }
}
