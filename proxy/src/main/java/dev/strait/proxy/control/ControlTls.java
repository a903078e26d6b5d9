package dev.strait.proxy.control;

import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.function.Supplier;
import javax.net.ssl.SSLException;

/**
 * The channel's TLS and credentials from the environment, read again at every dial so that a rotated
 * CA bundle (a mounted ConfigMap) or a refreshed projected token is picked up without a restart:
 * {@code STRAIT_CONTROL_CA} (PEM bundle to trust; turns TLS on, with host name verification),
 * {@code STRAIT_CONTROL_CERT} and {@code STRAIT_CONTROL_KEY} (a client certificate, optional),
 * {@code STRAIT_CONTROL_TOKEN_FILE} or {@code STRAIT_CONTROL_TOKEN} (a bearer token for hello).
 */
public final class ControlTls {
    private ControlTls() {}

    /** Null when {@code STRAIT_CONTROL_CA} is not set (plain TCP). */
    public static Supplier<SslContext> fromEnvironment(Map<String, String> env) {
        String ca = env.get("STRAIT_CONTROL_CA");
        if (ca == null || ca.isBlank()) {
            return null;
        }
        String cert = env.get("STRAIT_CONTROL_CERT");
        String key = env.get("STRAIT_CONTROL_KEY");
        return () -> client(Path.of(ca), blank(cert) ? null : Path.of(cert), blank(key) ? null : Path.of(key));
    }

    public static Supplier<String> tokenFromEnvironment(Map<String, String> env) {
        String file = env.get("STRAIT_CONTROL_TOKEN_FILE");
        if (!blank(file)) {
            return () -> {
                try {
                    return Files.readString(Path.of(file), StandardCharsets.UTF_8).trim();
                } catch (IOException e) {
                    throw new UncheckedIOException("cannot read STRAIT_CONTROL_TOKEN_FILE " + file, e);
                }
            };
        }
        String token = env.get("STRAIT_CONTROL_TOKEN");
        return blank(token) ? null : () -> token;
    }

    /** TLS 1.3 to the operator, trusting {@code ca}, checking the operator's name; with a client certificate when given. */
    public static SslContext client(Path ca, Path cert, Path key) {
        try {
            SslContextBuilder b = SslContextBuilder.forClient()
                    .trustManager(ca.toFile())
                    .endpointIdentificationAlgorithm("HTTPS")
                    .protocols("TLSv1.3");
            if (cert != null && key != null) {
                b.keyManager(cert.toFile(), key.toFile());
            }
            return b.build();
        } catch (SSLException | IllegalArgumentException e) {
            throw new IllegalStateException("cannot set up TLS to the operator with CA " + ca + ": " + e.getMessage(), e);
        }
    }

    private static boolean blank(String s) {
        return s == null || s.isBlank();
    }

}
