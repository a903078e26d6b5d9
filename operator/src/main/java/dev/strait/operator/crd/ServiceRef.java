package dev.strait.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/**
 * A Service and one of its ports (the Service port, not the target port), in the resource's own namespace unless
 * {@code namespace} names another, whose Service must then accept references from this one's namespace (its
 * annotation {@code strait.dev/accept-references-from}).
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ServiceRef {
    @Required
    @Pattern(Patterns.NAME)
    public String name;

    /** Another namespace's Service; absent: the resource's own namespace. */
    @Pattern(Patterns.NAME)
    public String namespace;

    @Required
    @Min(1)
    @Max(65535)
    public Integer port;

    public ServiceRef() {}

    public ServiceRef(String name, int port) {
        this.name = name;
        this.port = port;
    }
}
