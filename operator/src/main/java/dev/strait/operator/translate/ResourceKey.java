package dev.strait.operator.translate;

import io.fabric8.kubernetes.api.model.HasMetadata;

/** A Route or an Upstream by kind, namespace and name. */
public record ResourceKey(String kind, String namespace, String name) implements Comparable<ResourceKey> {

    public static ResourceKey of(HasMetadata r) {
        return new ResourceKey(r.getKind(), r.getMetadata().getNamespace(), r.getMetadata().getName());
    }

    @Override
    public int compareTo(ResourceKey o) {
        int c = kind.compareTo(o.kind);
        if (c == 0) {
            c = namespace.compareTo(o.namespace);
        }
        return c != 0 ? c : name.compareTo(o.name);
    }

    // Written out rather than the record's generated ones: keys are looked up in maps of every resource
    // several times per publication (ADR 0025), and the name differs first far more often than the kind.
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof ResourceKey k && java.util.Objects.equals(name, k.name)
                && java.util.Objects.equals(namespace, k.namespace) && java.util.Objects.equals(kind, k.kind);
    }

    @Override
    public int hashCode() {
        return (java.util.Objects.hashCode(kind) * 31 + java.util.Objects.hashCode(namespace)) * 31
                + java.util.Objects.hashCode(name);
    }

    @Override
    public String toString() {
        return kind + " " + namespace + "/" + name;
    }
}
