package dev.strait.model;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A named group of endpoints that route backends send traffic to, and how the proxy talks to them.
 *
 * @param name             a Kubernetes name
 * @param endpoints        {@code host:port} list, in config order
 * @param protocol         how to speak to the endpoints
 * @param loadBalancer     how an endpoint is chosen for a request
 * @param healthCheck      active HTTP health checking, or {@code null} for none
 * @param weights          endpoint weights other than the default 1 (round-robin and consistent hash use them)
 * @param hashOn           what consistent hashing hashes; {@code null} unless {@code loadBalancer} is consistent-hash
 * @param pool             the per-event-loop connection pools' settings
 * @param outlierDetection passive health: consecutive failures eject an endpoint for a while
 * @param panicThreshold   percent of healthy endpoints below which all endpoints are used (0 = never)
 * @param maxConnections   the most connections this proxy keeps to each endpoint; {@code 0} means the
 *                         protocol's default (fastcgi: {@link #FASTCGI_DEFAULT_MAX_CONNECTIONS}, http: no cap)
 * @param tls              TLS to the endpoints (http1 only), or {@code null} for cleartext
 * @param refuseLocalAddresses whether an endpoint given by name may not resolve to a loopback, link-local,
 *                         unspecified or multicast address (the operator sets it for ExternalName Services,
 *                         whose owners must not reach the proxy's own ports or the node's metadata service)
 */
public record Upstream(
        String name,
        List<HostPort> endpoints,
        Protocol protocol,
        LoadBalancer loadBalancer,
        HealthCheck healthCheck,
        Map<HostPort, Integer> weights,
        HashOn hashOn,
        Pool pool,
        OutlierDetection outlierDetection,
        int panicThreshold,
        int maxConnections,
        Tls tls,
        boolean refuseLocalAddresses) {

    public static final int DEFAULT_PANIC_THRESHOLD = 50;
    /** Below php-fpm's stock {@code pm.max_children = 5}: each kept FastCGI connection pins one child. */
    public static final int FASTCGI_DEFAULT_MAX_CONNECTIONS = 4;

    public Upstream {
        endpoints = List.copyOf(endpoints);
        weights = Map.copyOf(weights);
        if (pool == null) {
            pool = Pool.DEFAULTS;
        }
        if (outlierDetection == null) {
            outlierDetection = OutlierDetection.DEFAULTS;
        }
        if (hashOn == null && loadBalancer == LoadBalancer.CONSISTENT_HASH) {
            hashOn = HashOn.CLIENT_ADDRESS;
        }
    }

    /** Without TLS to the endpoints. */
    public Upstream(String name, List<HostPort> endpoints, Protocol protocol, LoadBalancer loadBalancer,
                    HealthCheck healthCheck, Map<HostPort, Integer> weights, HashOn hashOn, Pool pool,
                    OutlierDetection outlierDetection, int panicThreshold, int maxConnections) {
        this(name, endpoints, protocol, loadBalancer, healthCheck, weights, hashOn, pool, outlierDetection,
                panicThreshold, maxConnections, null, false);
    }

    /** Names may resolve to any address. */
    public Upstream(String name, List<HostPort> endpoints, Protocol protocol, LoadBalancer loadBalancer,
                    HealthCheck healthCheck, Map<HostPort, Integer> weights, HashOn hashOn, Pool pool,
                    OutlierDetection outlierDetection, int panicThreshold, int maxConnections, Tls tls) {
        this(name, endpoints, protocol, loadBalancer, healthCheck, weights, hashOn, pool, outlierDetection,
                panicThreshold, maxConnections, tls, false);
    }

    /**
     * TLS to an upstream's endpoints. Each value may be PEM text or a file path, like listener certificates.
     *
     * @param ca         the CA certificates the endpoints' certificates are checked against; {@code null}:
     *                   the JDK's default trust store
     * @param serverName the name sent as SNI and checked against the endpoint's certificate; {@code null}:
     *                   each endpoint's host
     * @param cert       the client certificate chain for mutual TLS, or {@code null}
     * @param key        its private key (given exactly when {@code cert} is)
     * @param verify     whether the endpoint's certificate is checked (chain and name); false only on request,
     *                   for endpoints with certificates nobody issued for them (ingress-nginx's
     *                   {@code backend-protocol: HTTPS}, Envoy without a validation context)
     * @param verifyDepth the most certificates that may stand between the endpoint's and a CA of {@code ca}
     *                    (nginx's {@code proxy_ssl_verify_depth}: 1, issued by such a CA directly); 0: any
     */
    public record Tls(String ca, String serverName, String cert, String key, boolean verify, int verifyDepth) {

        /** Without a limit on the chain's length. */
        public Tls(String ca, String serverName, String cert, String key, boolean verify) {
            this(ca, serverName, cert, key, verify, 0);
        }

        /** Checked TLS. */
        public Tls(String ca, String serverName, String cert, String key) {
            this(ca, serverName, cert, key, true);
        }

        /** TLS whose endpoint certificates are taken unchecked: the connection is encrypted, nothing more. */
        public static final Tls UNVERIFIED = new Tls(null, null, null, null, false);
    }

    /** An upstream with the defaults for everything but its name, endpoints, protocol, balancer and health check. */
    public Upstream(String name, List<HostPort> endpoints, Protocol protocol, LoadBalancer loadBalancer,
                    HealthCheck healthCheck) {
        this(name, endpoints, protocol, loadBalancer, healthCheck, Map.of(), null, null, null,
                DEFAULT_PANIC_THRESHOLD, 0);
    }

    /** An endpoint's weight (1 unless configured). */
    public int weight(HostPort endpoint) {
        return weights.getOrDefault(endpoint, 1);
    }

    public enum Protocol { HTTP1, H2C, H2, FASTCGI }

    public enum LoadBalancer { ROUND_ROBIN, LEAST_REQUEST, CONSISTENT_HASH }

    /**
     * Active health checking: {@code GET path} on every endpoint each {@code interval}; 2xx and 3xx pass.
     *
     * @param unhealthyThreshold consecutive failed checks that make an endpoint unhealthy
     * @param healthyThreshold   consecutive passed checks that make it healthy again
     */
    public record HealthCheck(String path, Duration interval, Duration timeout, int unhealthyThreshold,
                              int healthyThreshold) {
        public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(2);

        public HealthCheck(String path, Duration interval) {
            this(path, interval, DEFAULT_TIMEOUT, 3, 1);
        }
    }

    /**
     * What consistent hashing hashes: a request header, a cookie, the request target ({@code uri}: path and query
     * as the client sent them, nginx's {@code $request_uri}; {@code path}: the normalised path, nginx's
     * {@code $uri}), one query parameter, or the client's address.
     *
     * @param name      the header's, cookie's or query parameter's name; null for the other sources
     * @param setCookie with a cookie source: the cookie the proxy sets on the answer to a request without it, so
     *                  that a browser stays on the endpoint its first request went to (sticky sessions); null: none
     *                  is set, and a request without the cookie is hashed on its client address
     * @param also      more of the request hashed with the first, in order (ingress-nginx's {@code upstream-hash-by}
     *                  with several variables, {@code $host$request_uri}); one a request lacks counts as empty, and a
     *                  request lacking them all is hashed on its client address. Empty: the first alone. Not with
     *                  {@code setCookie}
     */
    public record HashOn(HashSource source, String name, SetCookie setCookie, java.util.List<HashPart> also) {
        public static final HashOn CLIENT_ADDRESS = new HashOn(HashSource.CLIENT_ADDRESS, null);

        public HashOn {
            also = also == null ? java.util.List.of() : java.util.List.copyOf(also);
        }

        public HashOn(HashSource source, String name, SetCookie setCookie) {
            this(source, name, setCookie, java.util.List.of());
        }

        public HashOn(HashSource source, String name) {
            this(source, name, null);
        }
    }

    /** One more thing a consistent hash reads ({@link HashOn#also}): a source, and a name for the named ones. */
    public record HashPart(HashSource source, String name) {}

    /**
     * The affinity cookie a consistent-hash upstream sets (ingress-nginx's {@code affinity: cookie}, Envoy's cookie
     * hash policy with a TTL): a random key, hashed as the cookie will be on the requests that bring it back.
     *
     * @param path     the cookie's {@code Path}
     * @param maxAge   its {@code Max-Age}; null: a session cookie, gone when the browser closes
     * @param sameSite its {@code SameSite} ({@code Strict}, {@code Lax} or {@code None}), or null for none (browsers
     *                 take {@code Lax}); {@code None} is only sent with {@code Secure}, as browsers drop it otherwise
     * @param changeOnFailure a browser served by another endpoint than its key's (its own failed or was
     *                 ejected) gets a new key for the one that served it, and stays there (ingress-nginx's
     *                 {@code session-cookie-change-on-failure}); otherwise it goes back once its own recovers
     * @param domain   its {@code Domain} (ingress-nginx's {@code session-cookie-domain}), so that the browser sends it
     *                 to the subdomains too (a leading dot is allowed and ignored by browsers); null: none, the
     *                 cookie goes back to the host that set it only
     * @param secure   {@code Secure} on every answer, also over plain http (ingress-nginx's
     *                 {@code session-cookie-secure}: TLS ended before a peer that is not trusted to say so);
     *                 false: {@code Secure} only when the request came over https
     * @param persistent the cookie names the endpoint that served the browser, which keeps it for as long as the
     *                 endpoint is in the upstream, through scale-ups (ingress-nginx's {@code affinity-mode: persistent});
     *                 false ("balanced"): a random key hashed on the ring, which moves about 1/n of the browsers when
     *                 the endpoints change, so new endpoints take their share at once
     */
    public record SetCookie(String path, Duration maxAge, String sameSite, boolean changeOnFailure, String domain,
                            boolean secure, boolean persistent) {
        public static final SetCookie SESSION = new SetCookie("/", null, null, false);
        public static final java.util.List<String> SAME_SITE = java.util.List.of("Strict", "Lax", "None");
        public static final String BALANCED = "balanced";
        public static final String PERSISTENT = "persistent";

        /** A balanced cookie. */
        public SetCookie(String path, Duration maxAge, String sameSite, boolean changeOnFailure, String domain,
                         boolean secure) {
            this(path, maxAge, sameSite, changeOnFailure, domain, secure, false);
        }

        public SetCookie(String path, Duration maxAge, String sameSite, boolean changeOnFailure) {
            this(path, maxAge, sameSite, changeOnFailure, null, false);
        }

        public SetCookie(String path, Duration maxAge, String sameSite) {
            this(path, maxAge, sameSite, false);
        }

        public SetCookie(String path, Duration maxAge) {
            this(path, maxAge, null, false);
        }

        private static final java.util.regex.Pattern DOMAIN = java.util.regex.Pattern.compile(
                "\\.?[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");

        /**
         * Why {@code domain} cannot be the cookie's {@code Domain}, or null when it can: it must be a host name, a
         * leading dot allowed (old RFC 2109 cookies; browsers drop it, RFC 6265 5.2.3), so that no port, path or
         * {@code ;} changes the cookie. RFC 6265 would take an IP address, but browsers then send the cookie back to
         * that address only, which is what a cookie without Domain does: refused, as more likely a mistake.
         */
        public static String domainProblem(String domain) {
            String d = domain.toLowerCase(java.util.Locale.ROOT);
            if (d.length() > 254 || !DOMAIN.matcher(d).matches()) {
                return "\"" + domain + "\" is not a domain (a host name such as example.com or .example.com; no port,"
                        + " scheme or path)";
            }
            if (d.substring(d.lastIndexOf('.') + 1).chars().allMatch(Character::isDigit)) {
                return "\"" + domain + "\" is an IP address; browsers ignore Domain for addresses (leave it out: the"
                        + " cookie then goes back to the address that set it)";
            }
            return null;
        }
    }

    public enum HashSource {
        HEADER, COOKIE, QUERY, URI, PATH, CLIENT_ADDRESS;

        /** Whether the source names what it hashes (a header, cookie or query parameter). */
        public boolean named() {
            return this == HEADER || this == COOKIE || this == QUERY;
        }
    }

    /**
     * Connection pools, one per event loop and endpoint.
     *
     * @param maxIdlePerLoop           idle keep-alive connections kept per loop and endpoint
     * @param idleTimeout              an idle pooled connection is closed after this
     * @param maxRequestsPerConnection a connection is closed after this many requests (0 = no limit)
     * @param connectTimeout           time to establish a connection
     */
    public record Pool(int maxIdlePerLoop, Duration idleTimeout, int maxRequestsPerConnection,
                       Duration connectTimeout) {
        public static final Pool DEFAULTS = new Pool(128, Duration.ofSeconds(60), 0, Duration.ofSeconds(5));
    }

    /**
     * Passive health: {@code consecutiveFailures} (5xx answers, connect failures, resets, timeouts) in a row
     * eject an endpoint for {@code baseEjectionTime}, doubled on each ejection up to {@code maxEjectionTime}.
     * {@code consecutiveFailures: 0} turns it off.
     */
    public record OutlierDetection(int consecutiveFailures, Duration baseEjectionTime, Duration maxEjectionTime) {
        public static final OutlierDetection DEFAULTS =
                new OutlierDetection(5, Duration.ofSeconds(30), Duration.ofMinutes(5));
    }
}
