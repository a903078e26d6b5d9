package dev.strait.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** A Service in the resource's own namespace and one of its ports (the Service port, not the target port). */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class ServiceRef {
    @Required
    @Pattern(Patterns.NAME)
    public String name;

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
