package dev.strait.operator.translate;

import com.fasterxml.jackson.databind.JsonNode;
import dev.strait.model.Durations;
import dev.strait.model.Upstream;
import java.time.Duration;
import java.util.List;
import java.util.regex.Pattern;

/**
 * How the upstream made for a Service backend spreads requests and connects: a sticky cookie
 * ({@code sessionAffinity}), a load balancer and what its consistent hash hashes, a connect timeout. Without
 * any it is round robin with the pool's defaults; each other setting is an upstream of its own, named by a
 * digest of it (a cookie's name need not be a Kubernetes name), so Routes that ask the same share one.
 *
 * @param connectTimeout null: the pool's default
 * @param clusterIp      the Service's cluster IP is the one endpoint ({@code useClusterIP})
 */
record ServiceBalancing(Upstream.LoadBalancer loadBalancer, Upstream.HashOn hashOn, Duration connectTimeout,
                        boolean clusterIp) {
    static final ServiceBalancing DEFAULT = new ServiceBalancing(Upstream.LoadBalancer.ROUND_ROBIN, null, null, false);

    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");

    /**
     * A backend's settings, its fields under {@code path}. What cannot be read is an error in {@code errors}
     * (the CRD's schema refuses it where an API server checks) and its default is used, so the digest is stable.
     */
    static ServiceBalancing of(JsonNode backend, String path, List<String> errors) {
        Upstream.HashOn hashOn = Translator.affinity(backend.get("sessionAffinity"), path + ".sessionAffinity", errors);
        Upstream.LoadBalancer lb = hashOn != null ? Upstream.LoadBalancer.CONSISTENT_HASH : null;
        JsonNode policy = backend.get("loadBalancer");
        JsonNode hash = backend.get("hashOn");
        if (hashOn != null && (policy != null || hash != null)) {
            errors.add(path + ": sessionAffinity is a consistent hash of its own; it takes no loadBalancer or hashOn");
        } else {
            if (policy != null) {
                lb = switch (policy.asText("")) {
                    case "round-robin" -> Upstream.LoadBalancer.ROUND_ROBIN;
                    case "least-request" -> Upstream.LoadBalancer.LEAST_REQUEST;
                    case "consistent-hash" -> Upstream.LoadBalancer.CONSISTENT_HASH;
                    default -> {
                        errors.add(path + ".loadBalancer: " + policy + " is not round-robin, least-request or consistent-hash");
                        yield null;
                    }
                };
            }
            if (hash != null) {
                hashOn = hashOn(hash, path + ".hashOn", errors);
                if (lb != null && lb != Upstream.LoadBalancer.CONSISTENT_HASH) {
                    errors.add(path + ".hashOn: applies to the consistent-hash load balancer, not " + policy);
                }
                lb = Upstream.LoadBalancer.CONSISTENT_HASH;
            }
        }
        Duration connect = null;
        JsonNode timeout = backend.get("connectTimeout");
        if (timeout != null) {
            try {
                connect = Durations.parse(timeout.asText(""));
                if (connect.isZero()) {
                    errors.add(path + ".connectTimeout: must be above 0");
                    connect = null;
                }
            } catch (IllegalArgumentException e) {
                errors.add(path + ".connectTimeout: " + e.getMessage());
            }
        }
        return new ServiceBalancing(lb == null ? Upstream.LoadBalancer.ROUND_ROBIN : lb,
                lb == Upstream.LoadBalancer.CONSISTENT_HASH && hashOn == null ? Upstream.HashOn.CLIENT_ADDRESS : hashOn,
                connect, backend.path("useClusterIP").asBoolean(false));
    }

    private static Upstream.HashOn hashOn(JsonNode h, String path, List<String> errors) {
        Upstream.HashOn first = hashPart(h, path, errors);
        JsonNode also = h.get("also");
        if (also == null || !also.isArray() || also.isEmpty()) {
            return first;
        }
        List<Upstream.HashPart> parts = new java.util.ArrayList<>();
        for (int i = 0; i < also.size() && i < 8; i++) {
            Upstream.HashOn part = hashPart(also.get(i), path + ".also[" + i + "]", errors);
            parts.add(new Upstream.HashPart(part.source(), part.name()));
        }
        return new Upstream.HashOn(first.source(), first.name(), null, parts);
    }

    private static Upstream.HashOn hashPart(JsonNode h, String path, List<String> errors) {
        String source = h.path("source").asText("");
        String name = h.path("name").isTextual() ? h.get("name").asText() : null;
        Upstream.HashSource s = switch (source) {
            case "header" -> Upstream.HashSource.HEADER;
            case "cookie" -> Upstream.HashSource.COOKIE;
            case "query" -> Upstream.HashSource.QUERY;
            case "uri" -> Upstream.HashSource.URI;
            case "path" -> Upstream.HashSource.PATH;
            case "client-address", "" -> Upstream.HashSource.CLIENT_ADDRESS; // absent: the client's address
            default -> null;
        };
        if (s == null) {
            errors.add(path + ".source: \"" + source + "\" is not header, cookie, query, uri, path or client-address");
            return Upstream.HashOn.CLIENT_ADDRESS;
        }
        if (!s.named()) {
            if (name != null) {
                errors.add(path + ".name: " + source + " takes none");
            }
            return s == Upstream.HashSource.CLIENT_ADDRESS ? Upstream.HashOn.CLIENT_ADDRESS : new Upstream.HashOn(s, null);
        }
        if (name == null || !TOKEN.matcher(name).matches()) {
            errors.add(path + ".name: a " + source + " hash needs the "
                    + (s == Upstream.HashSource.QUERY ? "query parameter" : source) + "'s name");
            return Upstream.HashOn.CLIENT_ADDRESS;
        }
        return new Upstream.HashOn(s, name);
    }

    /** What the upstream's name adds to the Service's: nothing for the default, else a digest of the settings. */
    String nameSuffix() {
        if (equals(DEFAULT)) {
            return "";
        }
        StringBuilder settings = new StringBuilder().append(loadBalancer);
        if (hashOn != null) {
            settings.append('|').append(hashOn.source()).append('|').append(hashOn.name());
            for (Upstream.HashPart part : hashOn.also()) { // none: the digest upstreams already have
                settings.append("|+").append(part.source()).append('|').append(part.name());
            }
            Upstream.SetCookie c = hashOn.setCookie();
            if (c != null) {
                settings.append('|').append(c.path()).append('|').append(c.maxAge() == null ? "" : c.maxAge().toSeconds());
                if (c.sameSite() != null) {
                    settings.append('|').append(c.sameSite()); // absent: the digest upstreams already have
                }
                if (c.changeOnFailure()) {
                    settings.append("|change-on-failure");
                }
                if (c.domain() != null) {
                    settings.append("|domain=").append(c.domain());
                }
                if (c.secure()) {
                    settings.append("|secure");
                }
                if (c.persistent()) {
                    settings.append("|persistent"); // balanced adds nothing: upstreams keep the names they had
                }
            }
        }
        if (connectTimeout != null) {
            settings.append('|').append(connectTimeout.toMillis());
        }
        if (clusterIp) {
            settings.append("|cluster-ip");
        }
        boolean sticky = hashOn != null && hashOn.setCookie() != null;
        return (sticky ? ".sticky-" : ".balanced-") + String.format("%08x", settings.toString().hashCode());
    }

    /** The pools with this connect timeout, or null for their defaults. */
    Upstream.Pool pool() {
        Upstream.Pool d = Upstream.Pool.DEFAULTS;
        return connectTimeout == null ? null
                : new Upstream.Pool(d.maxIdlePerLoop(), d.idleTimeout(), d.maxRequestsPerConnection(), connectTimeout);
    }
}
