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

    @Override
    public String toString() {
        return kind + " " + namespace + "/" + name;
    }
}
