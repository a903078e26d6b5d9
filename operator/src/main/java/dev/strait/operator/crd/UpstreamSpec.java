package dev.strait.operator.crd;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import io.fabric8.generator.annotation.Max;
import io.fabric8.generator.annotation.Min;
import io.fabric8.generator.annotation.Pattern;
import io.fabric8.generator.annotation.Required;
import io.fabric8.generator.annotation.Size;
import io.fabric8.generator.annotation.ValidationRule;

/**
 * An {@code upstreams[]} item of the config file with {@code service} in place of {@code endpoints}. Key
 * names, defaults and meanings are those of docs/config.md; ModelParityTest keeps the two in step.
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public class UpstreamSpec {
    /** Its ready endpoints (from EndpointSlices) become the upstream's endpoints. */
    @Required
    public ServiceRef service;

    public Protocol protocol;

    public LoadBalancer loadBalancer;

    /** What {@code consistent-hash} hashes; the client address when absent. */
    public HashOn hashOn;

    public HealthCheck healthCheck;

    /** Passive health: endpoints that keep failing are ejected for a while. */
    public OutlierDetection outlierDetection;

    /** Below this percentage of healthy endpoints, traffic goes to all of them. */
    @Min(0)
    @Max(100)
    public Integer panicThreshold;

    /** Connection pools, one per proxy event loop and endpoint. */
    public Pool pool;

    /** The most connections each proxy keeps to each endpoint (absent: fastcgi 4, http1 no cap). */
    @Min(1)
    @Max(100000)
    public Integer maxConnections;

    /** TLS to the endpoints (http1 and h2); the config file's {@code tls} with Secrets in place of PEM. */
    public Tls tls;

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

    public enum HashSource {
        @JsonProperty("header") HEADER,
        @JsonProperty("cookie") COOKIE,
        /** One query parameter's raw value (ingress-nginx's {@code $arg_NAME}). */
        @JsonProperty("query") QUERY,
        /** The request target, path and query as the client sent them (ingress-nginx's {@code $request_uri}). */
        @JsonProperty("uri") URI,
        /** The normalised path, without query (ingress-nginx's {@code $uri}). */
        @JsonProperty("path") PATH,
        @JsonProperty("client-address") CLIENT_ADDRESS
    }

    /** What a consistent hash reads first (its part's rule is inherited), and what else ({@code also}). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class HashOn extends HashPart {
        /**
         * More of the request hashed with the first, in order (ingress-nginx's {@code upstream-hash-by} with several
         * variables, {@code $host$request_uri}); a part a request lacks counts as empty. Not with an affinity cookie.
         */
        @Size(min = 1, max = 8)
        public java.util.List<HashPart> also;
    }

    /** One part of a consistent hash's key: a source, and a name for a header, cookie or query parameter. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "(has(self.source) && self.source in ['header', 'cookie', 'query']) == has(self.name)",
            message = "a header, cookie or query hash needs a name; uri, path and client-address take none")
    public static class HashPart {
        public HashSource source;

        @Pattern(Patterns.TOKEN)
        public String name;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class HealthCheck {
        @Pattern("^/")
        public String path;

        @Pattern(Patterns.DURATION)
        public String interval;

        @Pattern(Patterns.DURATION)
        public String timeout;

        @Min(1)
        @Max(100)
        public Integer unhealthyThreshold;

        @Min(1)
        @Max(100)
        public Integer healthyThreshold;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class OutlierDetection {
        /** Consecutive 5xx or connect failures that eject an endpoint; 0 turns ejection off. */
        @Min(0)
        @Max(1000)
        public Integer consecutiveFailures;

        @Pattern(Patterns.DURATION)
        public String baseEjectionTime;

        @Pattern(Patterns.DURATION)
        public String maxEjectionTime;
    }

    /**
     * The config's {@code upstreams[].tls}, with Secrets of the Upstream's namespace in place of PEM: the
     * operator puts their PEM inline in the snapshot. There is no switch to skip verification.
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @ValidationRule(value = "!has(self.verifyDepth) || has(self.caSecretName)",
            message = "tls.verifyDepth counts up to a CA of caSecretName, which it needs")
    public static class Tls {
        /** A Secret whose {@code ca.crt} holds the CA certificates (config {@code ca}); absent: the JDK's trust store. */
        @Pattern(Patterns.NAME)
        public String caSecretName;

        /** Sent as SNI and checked against the endpoint's certificate; absent: each endpoint's host. */
        @Pattern(Patterns.HOST_NAME)
        public String serverName;

        /** A {@code kubernetes.io/tls} Secret whose {@code tls.crt} and {@code tls.key} are the client certificate (mutual TLS). */
        @Pattern(Patterns.NAME)
        public String clientCertificateSecretName;

        /**
         * How far the endpoint's certificate may be from a CA of {@code caSecretName}: 1 issued by one directly, 2
         * through one intermediate (nginx's {@code proxy_ssl_verify_depth}); absent: any length.
         */
        @Min(1)
        @Max(10)
        public Integer verifyDepth;
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public static class Pool {
        @Min(0)
        @Max(100000)
        public Integer maxIdlePerLoop;

        @Pattern(Patterns.DURATION)
        public String idleTimeout;

        /** 0 means no limit. */
        @Min(0)
        public Integer maxRequestsPerConnection;

        @Pattern(Patterns.DURATION)
        public String connectTimeout;
    }
}
