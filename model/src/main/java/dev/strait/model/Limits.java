package dev.strait.model;

import java.time.Duration;

/**
 * Per-connection HTTP limits and timeouts. Defaults follow nginx where it has one and are documented,
 * beside nginx's and Envoy's, in docs/config.md.
 *
 * @param maxRequestLine           request line bytes before 414
 * @param maxHeaderBytes           header block bytes before 431
 * @param maxHeaderCount           header fields before 431
 * @param maxBodyBytes             request body bytes before 413
 * @param headerTimeout            time to receive a whole request head before 408
 * @param keepAliveTimeout         idle time between requests before the connection is closed
 * @param drainTimeout             on SIGTERM, how long in-flight requests may take before exit
 * @param bodyTimeout              longest wait between two reads of a request body before 408
 * @param sendTimeout              longest time a client may leave a response unread before it is cut off
 * @param maxRequestsPerConnection requests served on one connection before it is closed (0 = no limit)
 * @param maxConnectionAge         a connection older than this is closed after its current request
 *                                 (zero = no limit)
 * @param maxConnections           open client connections across all listeners; more are closed at
 *                                 once (0 = no limit)
 * @param underscoreHeaders        what to do with header names that contain {@code _}
 */
public record Limits(
        int maxRequestLine,
        int maxHeaderBytes,
        int maxHeaderCount,
        long maxBodyBytes,
        Duration headerTimeout,
        Duration keepAliveTimeout,
        Duration drainTimeout,
        Duration bodyTimeout,
        Duration sendTimeout,
        int maxRequestsPerConnection,
        Duration maxConnectionAge,
        int maxConnections,
        UnderscoreHeaders underscoreHeaders) {

    /**
     * {@code X_Real_IP} and {@code X-Real-IP} become one CGI variable ({@code HTTP_X_REAL_IP}), so a client
     * could shadow a header the proxy or a trusted hop set. nginx ignores them by default, Envoy allows.
     */
    public enum UnderscoreHeaders { DROP, REJECT, ALLOW }

    public static final Limits DEFAULTS = new Limits(
            8 * 1024, 32 * 1024, 100, 1024L * 1024 * 1024,
            Duration.ofSeconds(60), Duration.ofSeconds(75), Duration.ofSeconds(30),
            Duration.ofSeconds(60), Duration.ofSeconds(60), 1000, Duration.ZERO, 10_000, UnderscoreHeaders.DROP);

    /** The first seven limits, the others at their defaults. */
    public Limits(int maxRequestLine, int maxHeaderBytes, int maxHeaderCount, long maxBodyBytes,
                  Duration headerTimeout, Duration keepAliveTimeout, Duration drainTimeout) {
        this(maxRequestLine, maxHeaderBytes, maxHeaderCount, maxBodyBytes, headerTimeout, keepAliveTimeout,
                drainTimeout, Duration.ofSeconds(60), Duration.ofSeconds(60), 1000, Duration.ZERO, 10_000,
                UnderscoreHeaders.DROP);
    }
}
