package dev.strait.proxy.config;

import dev.strait.model.Config;
import dev.strait.model.Limits;
import dev.strait.proxy.route.RouteTable;
import dev.strait.proxy.tls.ServerTls;
import dev.strait.proxy.upstream.UpstreamSpec;
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
