package dev.strait.proxy.cors;

import dev.strait.model.Route;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

/**
 * A rule's {@code cors}, compiled with the table (ADR 0065): which origins are allowed, and the fields an
 * answer to one of them gets, encoded once. Only {@code Access-Control-Allow-Origin} is made per request
 * (it echoes the origin, except for {@code *}).
 */
final class CorsPolicy {
    private final boolean any;
    private final List<String> exact;
    /** Origins of a wildcard entry: scheme + "://", the suffix after "*" (".example.com"), and ":port" or "". */
    private final List<String[]> wildcards;
    /** The fields every allowed answer gets besides the origin: credentials, exposed headers. */
    final byte[] answerLines;
    /** The fields a preflight's 204 gets besides the origin: credentials, methods, headers, max age. */
    final byte[] preflightLines;
    final String allowMethods;
    final String allowHeaders;
    final String exposeHeaders;
    final boolean credentials;
    final long maxAgeSeconds;

    CorsPolicy(Route.Cors c) {
        any = c.allowOrigins().contains("*");
        exact = c.allowOrigins().stream().filter(o -> !o.contains("*")).toList();
        wildcards = c.allowOrigins().stream().filter(o -> o.contains("://*.")).map(o -> {
            int star = o.indexOf("://*.");
            String rest = o.substring(star + 4);
            int colon = rest.indexOf(':');
            return new String[] {o.substring(0, star + 3), colon < 0 ? rest : rest.substring(0, colon),
                colon < 0 ? "" : rest.substring(colon)};
        }).toList();
        credentials = c.allowCredentials();
        allowMethods = String.join(", ", c.allowMethods());
        allowHeaders = String.join(", ", c.allowHeaders());
        exposeHeaders = String.join(", ", c.exposeHeaders());
        maxAgeSeconds = c.maxAge().toSeconds();
        StringBuilder a = new StringBuilder();
        if (credentials) {
            a.append("Access-Control-Allow-Credentials: true\r\n");
        }
        if (!exposeHeaders.isEmpty()) {
            a.append("Access-Control-Expose-Headers: ").append(exposeHeaders).append("\r\n");
        }
        answerLines = a.toString().getBytes(StandardCharsets.ISO_8859_1);
        StringBuilder p = new StringBuilder();
        if (credentials) {
            p.append("Access-Control-Allow-Credentials: true\r\n");
        }
        p.append("Access-Control-Allow-Methods: ").append(allowMethods).append("\r\n");
        if (!allowHeaders.isEmpty()) {
            p.append("Access-Control-Allow-Headers: ").append(allowHeaders).append("\r\n");
        }
        p.append("Access-Control-Max-Age: ").append(maxAgeSeconds).append("\r\n");
        preflightLines = p.toString().getBytes(StandardCharsets.ISO_8859_1);
    }

    /**
     * The {@code Access-Control-Allow-Origin} value for a request from {@code origin}, or null when it is not
     * allowed (or the request is not a cross-origin one): {@code *} when every origin is, else the origin
     * itself, as browsers compare it.
     */
    String allowOrigin(String origin) {
        if (origin == null || origin.isEmpty()) {
            return null;
        }
        if (any) {
            return "*";
        }
        String o = origin.toLowerCase(Locale.ROOT);
        if (exact.contains(o)) {
            return origin;
        }
        for (String[] w : wildcards) {
            if (o.startsWith(w[0]) && o.endsWith(w[2]) && o.length() > w[0].length() + w[1].length() + w[2].length()) {
                String host = o.substring(w[0].length(), o.length() - w[2].length());
                if (host.endsWith(w[1]) && host.indexOf(':') < 0 && !host.startsWith(".")) {
                    return origin;
                }
            }
        }
        return null;
    }
}
