package dev.strait.model;

import java.time.Duration;

/**
 * HTTP/1.1 limits. Defaults follow nginx where it has one and are documented in docs/config.md.
 *
 * @param maxRequestLine   request line bytes before 414
 * @param maxHeaderBytes   header block bytes before 431
 * @param maxHeaderCount   header fields before 431
 * @param maxBodyBytes     request body bytes before 413
 * @param headerTimeout    time to receive a whole request head before 408
 * @param keepAliveTimeout idle time between requests before the connection is closed
 * @param drainTimeout     on SIGTERM, how long in-flight requests may take before exit
 */
public record Limits(
        int maxRequestLine,
        int maxHeaderBytes,
        int maxHeaderCount,
        long maxBodyBytes,
        Duration headerTimeout,
        Duration keepAliveTimeout,
        Duration drainTimeout) {

    public static final Limits DEFAULTS = new Limits(
            8 * 1024, 32 * 1024, 100, 1024L * 1024 * 1024,
            Duration.ofSeconds(60), Duration.ofSeconds(75), Duration.ofSeconds(30));
}
