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
 */
public record Snapshot(Config config, RouteTable table, Limits limits, boolean accessLog,
                       Map<String, UpstreamSpec> upstreams, ServerTls tls) {

    public Snapshot(Config config, RouteTable table, Limits limits, boolean accessLog) {
        this(config, table, limits, accessLog, Map.of(), ServerTls.NONE);
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
