package dev.strait.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;

/** An {@code upstreams[]} item of the config file with {@code service} in place of {@code endpoints}. */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UpstreamSpec {
    /** Its ready endpoints (from EndpointSlices) become the upstream's endpoints. */
    @Required
    public ServiceRef service;

    public Protocol protocol;

    public LoadBalancer loadBalancer;

    public HealthCheck healthCheck;

    /** At most this many connections per endpoint (for fastcgi: at most php-fpm's pm.max_children). */
    @io.fabric8.generator.annotation.Min(1)
    public Integer maxConnections;

    public enum Protocol {
        @JsonProperty("http1") HTTP1,
        @JsonProperty("h2c") H2C,
        @JsonProperty("h2") H2,
        @JsonProperty("fastcgi") FASTCGI
    }

    public enum LoadBalancer {
        @JsonProperty("round-robin") ROUND_ROBIN,
        @JsonProperty("least-request") LEAST_REQUEST,
        @JsonProperty("consistent-hash") CONSISTENT_HASH
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class HealthCheck {
        @Pattern("^/")
        public String path;

        @Pattern(Patterns.DURATION)
        public String interval;
    }
}
