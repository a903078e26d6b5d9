package dev.strait.model;

import java.time.Duration;
import java.util.List;

/**
 * A named group of endpoints that route backends send traffic to.
 *
 * @param maxConnections the most connections this proxy keeps to each endpoint; {@code 0} means the
 *                       protocol's default (fastcgi: {@link #FASTCGI_DEFAULT_MAX_CONNECTIONS})
 */
public record Upstream(
        String name,
        List<HostPort> endpoints,
        Protocol protocol,
        LoadBalancer loadBalancer,
        HealthCheck healthCheck,
        int maxConnections) {

    /** Below php-fpm's stock {@code pm.max_children = 5}: each kept FastCGI connection pins one child. */
    public static final int FASTCGI_DEFAULT_MAX_CONNECTIONS = 4;

    public Upstream {
        endpoints = List.copyOf(endpoints);
    }

    /** An upstream with the protocol's default connection bound. */
    public Upstream(String name, List<HostPort> endpoints, Protocol protocol, LoadBalancer loadBalancer,
                    HealthCheck healthCheck) {
        this(name, endpoints, protocol, loadBalancer, healthCheck, 0);
    }

    public enum Protocol { HTTP1, H2C, H2, FASTCGI }

    public enum LoadBalancer { ROUND_ROBIN, LEAST_REQUEST, CONSISTENT_HASH }

    /** Active health checking; {@code null} on an upstream means none. */
    public record HealthCheck(String path, Duration interval) {}
}
