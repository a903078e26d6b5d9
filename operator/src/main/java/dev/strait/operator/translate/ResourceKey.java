package dev.strait.operator.translate;

import io.fabric8.kubernetes.api.model.HasMetadata;
import java.util.Objects;

/**
 * A Route, Upstream or Ingress by kind, namespace and name. A value class rather than a record so that it
 * keeps its hash: keys are looked up in maps of every resource several times per publication (ADR 0025),
 * and recomputing the hash reads three strings scattered over the heap each time.
 */
public final class ResourceKey implements Comparable<ResourceKey> {
    private final String kind;
    private final String namespace;
    private final String name;
    private final int hash;

    public ResourceKey(String kind, String namespace, String name) {
        this.kind = kind;
        this.namespace = namespace;
        this.name = name;
        this.hash = (Objects.hashCode(kind) * 31 + Objects.hashCode(namespace)) * 31 + Objects.hashCode(name);
    }

    public static ResourceKey of(HasMetadata r) {
        return new ResourceKey(r.getKind(), r.getMetadata().getNamespace(), r.getMetadata().getName());
    }

    public String kind() {
        return kind;
    }

    public String namespace() {
        return namespace;
    }

    public String name() {
        return name;
    }

    @Override
    public int compareTo(ResourceKey o) {
        int c = kind.compareTo(o.kind);
        if (c == 0) {
            c = namespace.compareTo(o.namespace);
        }
        return c != 0 ? c : name.compareTo(o.name);
    }

    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof ResourceKey k && hash == k.hash && Objects.equals(name, k.name)
                && Objects.equals(namespace, k.namespace) && Objects.equals(kind, k.kind);
    }

    @Override
    public int hashCode() {
        return hash;
    }

    @Override
    public String toString() {
        return kind + " " + namespace + "/" + name;
    }
}
