package dev.strait.proxy.config;

import io.netty.handler.codec.http.HttpResponseStatus;
import dev.strait.proxy.http.Exchange;
import dev.strait.model.PathNormalizer;
import dev.strait.model.Config;
import dev.strait.model.Limits;
import dev.strait.proxy.route.CompiledRule;
import dev.strait.proxy.route.RouteTable;
import dev.strait.proxy.tls.ServerTls;
import dev.strait.proxy.upstream.UpstreamSpec;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.Map;

/**
 * What a request is served with: the compiled table and the settings that may change on reload,
 * swapped as one reference. A request reads it once and keeps it until it is answered.
 *
 * @param table      the routes served on every listener: when no route names listeners, every route
 * @param byListener each listener's table when a route names listeners ({@code null} when none does)
 */
public record Snapshot(Config config, RouteTable table, Limits limits, boolean accessLog,
                       Map<String, UpstreamSpec> upstreams, ServerTls tls, Map<String, RouteTable> byListener) {

    public Snapshot(Config config, RouteTable table, Limits limits, boolean accessLog,
                    Map<String, UpstreamSpec> upstreams, ServerTls tls) {
        this(config, table, limits, accessLog, upstreams, tls, null);
    }

    public Snapshot(Config config, RouteTable table, Limits limits, boolean accessLog) {
        this(config, table, limits, accessLog, Map.of(), ServerTls.NONE);
    }

    /**
     * The table of the listener a connection was accepted on ({@code null}: unknown, as in tests). Without
     * routes bound to listeners, one field read more than {@link #table()}. A listener this config does not
     * name (removed by a reload, still open until a restart) serves the routes on every listener.
     */
    public RouteTable table(String listener) {
        if (byListener == null || listener == null) {
            return table;
        }
        RouteTable t = byListener.get(listener);
        return t != null ? t : table;
    }

    /**
     * The rule that answers a request on {@code listener}, or {@code null} (404). A request made over https
     * (a TLS connection, or a trusted peer's {@code X-Forwarded-Proto}) that meets a rule which would only
     * send it to https is served as over https instead (ADR 0057): routed again, arriving on cleartext, as
     * the config's first TLS listener routes (its own listener's table when the config has none, or when
     * no route names listeners), and there such rules are passed over for the next that matches.
     *
     * @param tlsConnection whether the connection itself is TLS
     * @param https         whether the request was made over https (the Exchange's scheme)
     */
    public CompiledRule route(String listener, boolean tlsConnection, boolean https, String host, String path,
                              HttpMethod method, HttpHeaders headers) {
        RouteTable t = table(listener);
        CompiledRule r = t.find(host, path, method, headers);
        if (r == null || !https || !r.handler().upgradesToHttps()) {
            return r;
        }
        if (!tlsConnection && byListener != null) {
            for (Config.Listener l : config.listeners()) {
                if (l.tls() != null) {
                    t = table(l.name());
                    break;
                }
            }
        }
        return t.find(host, path, method, headers, true);
    }

    /** The HSTS value for a 404 of {@code host} on {@code listener} ({@link RouteTable#hsts}), or null. */
    public String hsts(String listener, String host) {
        return table(listener).hsts(host);
    }

    /**
     * Routes {@code sub}, a request made on behalf of one accepted on {@code listener} (a forward-auth check
     * without an upstream), as that request was routed, and has the rule found answer it: its guard first,
     * then its handler; 404 when no rule matches.
     */
    public void dispatch(String listener, boolean tlsConnection, Exchange sub) {
        String normalized = PathNormalizer.normalize(sub.path());
        String matchPath = normalized == null ? null : PathNormalizer.forMatching(normalized);
        CompiledRule r = matchPath == null ? null : route(listener, tlsConnection, "https".equals(sub.scheme()),
                sub.host(), matchPath, sub.request().method(), sub.request().headers());
        if (r == null) {
            sub.sendError(HttpResponseStatus.NOT_FOUND);
            return;
        }
        if (r.guard() != null && r.guard().refuses(sub, r.handler())) {
            return;
        }
        r.handler().handle(sub);
    }

    /**
     * Whether serving this instead of {@code other} changes anything: the config's content version, or
     * the content of certificate files it names (which the version, a digest of the config text, misses).
     */
    public boolean sameAs(Snapshot other) {
        return version().equals(other.version()) && tls.fingerprint().equals(other.tls.fingerprint());
    }

    public String version() {
        return table.version();
    }
}
