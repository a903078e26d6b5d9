package dev.strait.proxy.route;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.Map;

/**
 * The immutable routing table: compiled once from a config, then only read. A request reads the
 * current table reference once and keeps it, so a swap never changes a request half-way.
 *
 * <p>Host precedence: an exact name, then the longest matching wildcard suffix ({@code *.example.com}
 * matches {@code a.example.com} and {@code a.b.example.com}), then {@code *}. The host chosen is final:
 * when none of its rules match, the answer is 404 (as with nginx server blocks and Envoy virtual hosts).
 */
public final class RouteTable {
    private final String version;
    private final Map<String, VirtualHost> exactHosts;
    private final Map<String, VirtualHost> wildcardHosts;
    private final VirtualHost anyHost;

    RouteTable(String version, Map<String, VirtualHost> exactHosts, Map<String, VirtualHost> wildcardHosts,
               VirtualHost anyHost) {
        this.version = version;
        this.exactHosts = Map.copyOf(exactHosts);
        this.wildcardHosts = Map.copyOf(wildcardHosts);
        this.anyHost = anyHost;
    }

    public String version() {
        return version;
    }

    /**
     * The rule that answers, or {@code null} for 404.
     *
     * @param host the request's host, lower case, without port (see {@link #normalizeHost})
     * @param path the normalised path
     */
    public CompiledRule find(String host, String path, HttpMethod method, HttpHeaders headers) {
        return find(host, path, method, headers, false);
    }

    /**
     * The same for a request made over https when {@code https}: a rule that would only send it to https
     * ({@link Handler#upgradesToHttps}) is passed over, and the next that matches answers (ADR 0057).
     */
    public CompiledRule find(String host, String path, HttpMethod method, HttpHeaders headers, boolean https) {
        VirtualHost vh = virtualHost(host);
        return vh == null ? null : vh.find(path, method, headers, https);
    }

    /**
     * The {@code Strict-Transport-Security} value of {@code host}'s routes (the first that has one), or null: a request
     * over https that no rule of the host answers gets it on its 404, as nginx's {@code add_header ... always} in a
     * server block (ingress-nginx's HSTS) puts it on every answer of the host.
     */
    public String hsts(String host) {
        VirtualHost vh = virtualHost(host);
        return vh == null ? null : vh.hsts;
    }

    private VirtualHost virtualHost(String host) {
        VirtualHost vh = host == null ? null : exactHosts.get(host);
        if (vh == null && host != null && !wildcardHosts.isEmpty()) {
            int dot = host.indexOf('.');
            while (dot >= 0 && vh == null) {
                vh = wildcardHosts.get(host.substring(dot + 1));
                dot = host.indexOf('.', dot + 1);
            }
        }
        return vh == null ? anyHost : vh;
    }

    /**
     * Lower-cases a Host header value and strips its port and a trailing dot; {@code null} when the
     * value is not a plausible host (caller answers 400).
     */
    public static String normalizeHost(String value) {
        if (value == null) {
            return null;
        }
        int end = value.length();
        if (end == 0) {
            return "";
        }
        if (value.charAt(0) == '[') {
            int close = value.indexOf(']');
            return close < 0 ? null : value.substring(0, close + 1).toLowerCase(java.util.Locale.ROOT);
        }
        int colon = value.lastIndexOf(':');
        if (colon >= 0) {
            for (int i = colon + 1; i < end; i++) {
                char c = value.charAt(i);
                if (c < '0' || c > '9') {
                    return null;
                }
            }
            end = colon;
        }
        if (end > 0 && value.charAt(end - 1) == '.') {
            end--;
        }
        boolean lower = true;
        for (int i = 0; i < end; i++) {
            char c = value.charAt(i);
            if (c >= 'A' && c <= 'Z') {
                lower = false;
            } else if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_')) {
                return null;
            }
        }
        String h = end == value.length() ? value : value.substring(0, end);
        return lower ? h : h.toLowerCase(java.util.Locale.ROOT);
    }
}
