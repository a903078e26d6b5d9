package dev.strait.model;

import java.time.Duration;
import java.util.List;

/** A named group of endpoints that route backends send traffic to. */
public record Upstream(
        String name,
        List<HostPort> endpoints,
        Protocol protocol,
        LoadBalancer loadBalancer,
        HealthCheck healthCheck) {

    public Upstream {
        endpoints = List.copyOf(endpoints);
    }

    public enum Protocol { HTTP1, H2C, H2, FASTCGI }

    public enum LoadBalancer { ROUND_ROBIN, LEAST_REQUEST, CONSISTENT_HASH }

    /** Active health checking; {@code null} on an upstream means none. */
    public record HealthCheck(String path, Duration interval) {}
}
