package dev.strait.operator.translate;

/**
 * Which Routes a proxy serves: those of one ingress class, in every namespace ({@code namespace} null),
 * or, for sidecars, those of the sidecar class in the sidecar's own namespace. Conflicts are resolved
 * within a scope, since only Routes served by the same proxies can collide.
 */
public record Scope(String ingressClass, String namespace) implements Comparable<Scope> {

    public static Scope ingress(String ingressClass) {
        return new Scope(ingressClass, null);
    }

    public static Scope sidecar(String sidecarClass, String namespace) {
        return new Scope(sidecarClass, namespace);
    }

    @Override
    public int compareTo(Scope o) {
        int c = ingressClass.compareTo(o.ingressClass);
        if (c != 0) {
            return c;
        }
        return String.valueOf(namespace).compareTo(String.valueOf(o.namespace));
    }

    // Written out rather than the record's generated ones (compared per resource per publication).
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof Scope s && java.util.Objects.equals(ingressClass, s.ingressClass)
                && java.util.Objects.equals(namespace, s.namespace);
    }

    @Override
    public int hashCode() {
        return java.util.Objects.hashCode(ingressClass) * 31 + java.util.Objects.hashCode(namespace);
    }

    @Override
    public String toString() {
        return namespace == null ? "class " + ingressClass : "class " + ingressClass + " in namespace " + namespace;
    }
}
