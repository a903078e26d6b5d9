package dev.strait.model;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;
import java.util.TreeMap;

/**
 * Writes a {@link Config} back in the config file's own shape (what {@link ConfigParser} reads), so
 * {@code /config}, the state directory and the control channel all speak one format.
 */
public final class ConfigWriter {
    private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

    private ConfigWriter() {}

    public static String toJson(Config c, boolean pretty) {
        return Json.write(toTree(c), pretty);
    }

    /** The canonical JSON of a tree made by {@link #toTree}: the same text {@link #toJson} gives for its config. */
    public static String toJson(ObjectNode tree) {
        return Json.write(tree, false);
    }

    /** A content version: the first 12 hex digits of the SHA-256 of the canonical JSON. */
    public static String version(Config c) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(toJson(c, false).getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 6);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    public static ObjectNode toTree(Config c) {
        ObjectNode n = NODES.objectNode();
        n.put("workers", c.workers());
        n.put("transport", ConfigParser.configName(c.transport()));
        n.putObject("accessLog").put("enabled", c.accessLog().enabled());
        Limits l = c.limits();
        ObjectNode ln = n.putObject("limits");
        ln.put("maxRequestLine", l.maxRequestLine());
        ln.put("maxHeaderBytes", l.maxHeaderBytes());
        ln.put("maxHeaderCount", l.maxHeaderCount());
        ln.put("maxBodyBytes", l.maxBodyBytes());
        ln.put("headerTimeout", Durations.format(l.headerTimeout()));
        ln.put("keepAliveTimeout", Durations.format(l.keepAliveTimeout()));
        ln.put("drainTimeout", Durations.format(l.drainTimeout()));
        ln.put("bodyTimeout", Durations.format(l.bodyTimeout()));
        ln.put("sendTimeout", Durations.format(l.sendTimeout()));
        ln.put("maxRequestsPerConnection", l.maxRequestsPerConnection());
        ln.put("maxConnectionAge", Durations.format(l.maxConnectionAge()));
        ln.put("maxConnections", l.maxConnections());
        ln.put("underscoreHeaders", l.underscoreHeaders().name().toLowerCase(java.util.Locale.ROOT));
        ArrayNode listeners = n.putArray("listeners");
        for (Config.Listener li : c.listeners()) {
            ObjectNode o = listeners.addObject();
            o.put("name", li.name());
            o.put("address", li.address().toString());
            if (li.maxConnections() > 0) {
                o.put("maxConnections", li.maxConnections());
            }
            if (li.tls() != null) {
                ArrayNode certs = o.putObject("tls").putArray("certificates");
                li.tls().certificates().forEach(ce -> certs.addObject().put("cert", ce.cert()).put("key", ce.key()));
            }
        }
        if (c.admin() != null) {
            n.putObject("admin").put("address", c.admin().address().toString());
        }
        n.putObject("requestId").put("trustIncoming", c.requestId().trustIncoming());
        if (!c.cache().equals(Config.CacheStore.DEFAULTS)) {
            // Only when set, so that configs without a cache keep the version they had before it existed.
            n.putObject("cache").put("maxBytes", c.cache().maxBytes());
        }
        ArrayNode ups = n.putArray("upstreams");
        for (Upstream u : c.upstreams()) {
            upstream(ups.addObject(), u);
        }
        ArrayNode routes = n.putArray("routes");
        for (Route r : c.routes()) {
            ObjectNode o = routes.addObject();
            o.put("name", r.name());
            ArrayNode hosts = o.putArray("hosts");
            r.hosts().forEach(hosts::add);
            ArrayNode rules = o.putArray("rules");
            r.rules().forEach(rule -> rule(rules.addObject(), rule));
        }
        return n;
    }

    private static void upstream(ObjectNode o, Upstream u) {
        o.put("name", u.name());
        ArrayNode eps = o.putArray("endpoints");
        for (HostPort e : u.endpoints()) {
            int w = u.weight(e);
            if (w == 1) {
                eps.add(e.toString());
            } else {
                eps.addObject().put("address", e.toString()).put("weight", w);
            }
        }
        o.put("protocol", ConfigParser.configName(u.protocol()));
        o.put("loadBalancer", ConfigParser.configName(u.loadBalancer()));
        if (u.hashOn() != null) {
            ObjectNode h = o.putObject("hashOn").put("source", ConfigParser.configName(u.hashOn().source()));
            if (u.hashOn().name() != null) {
                h.put("name", u.hashOn().name());
            }
        }
        Upstream.HealthCheck hc = u.healthCheck();
        if (hc != null) {
            o.putObject("healthCheck").put("path", hc.path())
                    .put("interval", Durations.format(hc.interval()))
                    .put("timeout", Durations.format(hc.timeout()))
                    .put("unhealthyThreshold", hc.unhealthyThreshold())
                    .put("healthyThreshold", hc.healthyThreshold());
        }
        Upstream.OutlierDetection od = u.outlierDetection();
        o.putObject("outlierDetection").put("consecutiveFailures", od.consecutiveFailures())
                .put("baseEjectionTime", Durations.format(od.baseEjectionTime()))
                .put("maxEjectionTime", Durations.format(od.maxEjectionTime()));
        o.put("panicThreshold", u.panicThreshold());
        Upstream.Pool p = u.pool();
        o.putObject("pool").put("maxIdlePerLoop", p.maxIdlePerLoop())
                .put("idleTimeout", Durations.format(p.idleTimeout()))
                .put("maxRequestsPerConnection", p.maxRequestsPerConnection())
                .put("connectTimeout", Durations.format(p.connectTimeout()));
        if (u.maxConnections() > 0) {
            o.put("maxConnections", u.maxConnections());
        }
        Upstream.Tls t = u.tls();
        if (t != null) {
            ObjectNode to = o.putObject("tls");
            putIf(to, "ca", t.ca());
            putIf(to, "serverName", t.serverName());
            putIf(to, "cert", t.cert());
            putIf(to, "key", t.key());
        }
    }

    private static void putIf(ObjectNode o, String name, String value) {
        if (value != null) {
            o.put(name, value);
        }
    }

    private static void rule(ObjectNode o, Route.Rule rule) {
        ArrayNode matches = o.putArray("matches");
        for (Route.Match m : rule.matches()) {
            ObjectNode mo = matches.addObject();
            if (m.path() != null) {
                mo.putObject("path").put("type", m.path().type().name()).put("value", m.path().value());
            }
            if (m.method() != null) {
                mo.put("method", m.method());
            }
            if (!m.headers().isEmpty()) {
                ArrayNode hs = mo.putArray("headers");
                m.headers().forEach(h -> hs.addObject().put("name", h.name()).put("value", h.value()));
            }
        }
        if (rule.action() instanceof Route.Respond r) {
            ObjectNode ro = o.putObject("respond").put("status", r.status()).put("body", r.body());
            if (!r.headers().isEmpty()) {
                ObjectNode hs = ro.putObject("headers");
                for (Map.Entry<String, String> e : new TreeMap<>(r.headers()).entrySet()) {
                    hs.put(e.getKey(), e.getValue());
                }
            }
        } else if (rule.action() instanceof Route.Files f) {
            ObjectNode fo = o.putObject("files").put("root", f.root()).put("followSymlinks", f.followSymlinks());
            ArrayNode idx = fo.putArray("index");
            f.index().forEach(idx::add);
        } else if (rule.action() instanceof Route.Backends b) {
            ArrayNode bs = o.putArray("backends");
            b.backends().forEach(be -> bs.addObject().put("upstream", be.upstream()).put("weight", be.weight()));
        }
        if (rule.cache() != null) {
            Route.Cache ca = rule.cache();
            o.putObject("cache").put("enabled", ca.enabled())
                    .put("maxBodySize", ca.maxBodySize())
                    .put("defaultTtl", Durations.format(ca.defaultTtl()))
                    .put("ignoreCacheControl", ca.ignoreCacheControl())
                    .put("cacheSetCookie", ca.cacheSetCookie())
                    .put("cacheAuthorization", ca.cacheAuthorization())
                    .put("xCacheHeader", ca.xCacheHeader())
                    .put("staleWhileRevalidate", Durations.format(ca.staleWhileRevalidate()))
                    .put("staleIfError", Durations.format(ca.staleIfError()))
                    .put("hitForPass", Durations.format(ca.hitForPass()))
                    .put("lockTimeout", Durations.format(ca.lockTimeout()));
        }
        if (rule.timeouts() != null) {
            ObjectNode to = o.putObject("timeouts");
            if (rule.timeouts().request() != null) {
                to.put("request", Durations.format(rule.timeouts().request()));
            }
            if (rule.timeouts().perTry() != null) {
                to.put("perTry", Durations.format(rule.timeouts().perTry()));
            }
            if (rule.timeouts().idle() != null) {
                to.put("idle", Durations.format(rule.timeouts().idle()));
            }
        }
        if (rule.retries() != null) {
            ObjectNode ro = o.putObject("retries").put("attempts", rule.retries().attempts());
            ArrayNode on = ro.putArray("retryOn");
            rule.retries().retryOn().forEach(on::add);
            if (rule.retries().backoff() != null) {
                ro.put("backoff", Durations.format(rule.retries().backoff()));
            }
        }
        if (rule.hostRewrite() != null) {
            o.put("hostRewrite", rule.hostRewrite());
        }
        if (rule.fastcgi() != null) {
            Route.FastCgi f = rule.fastcgi();
            ObjectNode fo = o.putObject("fastcgi").put("root", f.root()).put("index", f.index())
                    .put("splitPathInfo", f.splitPathInfo()).put("maxBufferedBody", f.maxBufferedBody());
            ObjectNode ps = fo.putObject("params");
            new TreeMap<>(f.params()).forEach(ps::put);
        }
    }
}
