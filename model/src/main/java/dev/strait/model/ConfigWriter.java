package dev.strait.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.IdentityHashMap;
import java.util.List;
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

    /**
     * The config as {@link #toJson(Config, boolean)} writes it, with every private key given inline (PEM
     * text, as the operator sends Secrets) replaced by its length and a digest: what the admin
     * {@code /config} shows, since whoever reaches the admin port must not take the listeners' keys (nor a tracing
     * collector's key, from {@code tracing.headers}).
     * Keys given as file paths are shown as they are.
     */
    public static String toRedactedJson(Config c) {
        ObjectNode tree = toTree(c);
        redactPrivateKeys(tree);
        // A tracing collector's fields are its credentials (an API key): their names are shown, not their values.
        if (tree.path("tracing").path("headers") instanceof ObjectNode headers) {
            headers.fields().forEachRemaining(f ->
                    f.setValue(NODES.textNode("[redacted: " + f.getValue().asText().length() + " characters]")));
        }
        return Json.write(tree, true);
    }

    private static void redactPrivateKeys(JsonNode node) {
        if (node instanceof ObjectNode o) {
            var fields = o.fields();
            while (fields.hasNext()) {
                var f = fields.next();
                JsonNode v = f.getValue();
                if (f.getKey().equals("key") && v.isTextual() && v.textValue().contains("PRIVATE KEY")) {
                    String pem = v.textValue();
                    f.setValue(NODES.textNode("[redacted: " + pem.length() + " characters, sha256 "
                            + versionOf(pem) + "]"));
                } else {
                    redactPrivateKeys(v);
                }
            }
        } else if (node != null && node.isArray()) {
            node.forEach(ConfigWriter::redactPrivateKeys);
        }
    }

    /** The canonical JSON of a tree made by {@link #toTree}: the same text {@link #toJson} gives for its config. */
    public static String toJson(ObjectNode tree) {
        return Json.write(tree, false);
    }

    /** A content version: the first 12 hex digits of the SHA-256 of the canonical JSON. */
    public static String version(Config c) {
        return versionOf(toJson(c, false));
    }

    /**
     * As {@link #version(Config)}, writing the Routes and Upstreams {@code memo} has written before only
     * once: the same SHA-256 of the same bytes, fed to the digest item by item from each item's cached
     * UTF-8 instead of from the whole document written out (at 10k Routes, 2.5 MB of text and its bytes
     * per version that only the hash read).
     */
    public static String version(Config c, Memo memo) {
        synchronized (memo) {
            MessageDigest d = sha256();
            String head = Json.write(head(c), false);
            // As toJson(Config, Memo): the head without its closing brace, then the two lists.
            d.update(head.substring(0, head.length() - 1).getBytes(StandardCharsets.UTF_8));
            d.update(UPSTREAMS);
            for (int i = 0; i < c.upstreams().size(); i++) {
                if (i > 0) {
                    d.update((byte) ',');
                }
                d.update(memo.fragment(c.upstreams().get(i)).utf8());
            }
            d.update(ROUTES);
            for (int i = 0; i < c.routes().size(); i++) {
                if (i > 0) {
                    d.update((byte) ',');
                }
                d.update(memo.fragment(c.routes().get(i)).utf8());
            }
            d.update(END);
            memo.commit();
            return HexFormat.of().formatHex(d.digest(), 0, 6);
        }
    }

    private static final byte[] UPSTREAMS = ",\"upstreams\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] ROUTES = "],\"routes\":[".getBytes(StandardCharsets.US_ASCII);
    private static final byte[] END = "]}".getBytes(StandardCharsets.US_ASCII);

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The content version of canonical JSON already written. */
    public static String versionOf(String json) {
        return HexFormat.of().formatHex(sha256().digest(json.getBytes(StandardCharsets.UTF_8)), 0, 6);
    }

    public static ObjectNode toTree(Config c) {
        ObjectNode n = head(c);
        ArrayNode ups = n.putArray("upstreams");
        for (Upstream u : c.upstreams()) {
            ups.add(upstream(u));
        }
        ArrayNode routes = n.putArray("routes");
        for (Route r : c.routes()) {
            routes.add(route(r));
        }
        return n;
    }

    /**
     * As {@link #toTree(Config)}, with each Route's and Upstream's node taken from {@code memo} when it
     * wrote that very value (by identity) before: unchanged items are the same nodes in successive
     * trees, which makes comparing the trees cheap ({@link ConfigDelta#diff}). The tree is read only.
     */
    public static ObjectNode toTree(Config c, Memo memo) {
        synchronized (memo) {
            ObjectNode n = head(c);
            ArrayNode ups = n.putArray("upstreams");
            for (Upstream u : c.upstreams()) {
                ups.add(memo.fragment(u).node);
            }
            ArrayNode routes = n.putArray("routes");
            for (Route r : c.routes()) {
                routes.add(memo.fragment(r).node);
            }
            memo.commit();
            return n;
        }
    }

    /** A document as a tree and as its canonical JSON (what its version hashes). */
    public record Written(ObjectNode tree, String json) {}

    /** {@link #toTree(Config, Memo)} and {@link #toJson(Config, Memo)} in one pass over the items. */
    public static Written write(Config c, Memo memo) {
        synchronized (memo) {
            ObjectNode n = head(c);
            String head = Json.write(n, false);
            StringBuilder sb = new StringBuilder((int) Math.min(Integer.MAX_VALUE - 16, head.length() + 64 + memo.size));
            sb.append(head, 0, head.length() - 1).append(",\"upstreams\":[");
            ArrayNode ups = n.putArray("upstreams");
            for (int i = 0; i < c.upstreams().size(); i++) {
                Memo.Fragment f = memo.fragment(c.upstreams().get(i));
                ups.add(f.node());
                sb.append(i == 0 ? "" : ",").append(f.json());
            }
            sb.append("],\"routes\":[");
            ArrayNode routes = n.putArray("routes");
            for (int i = 0; i < c.routes().size(); i++) {
                Memo.Fragment f = memo.fragment(c.routes().get(i));
                routes.add(f.node());
                sb.append(i == 0 ? "" : ",").append(f.json());
            }
            sb.append("]}");
            memo.commit();
            return new Written(n, sb.toString());
        }
    }

    /** The canonical JSON of {@link #toTree(Config)}, with the items {@code memo} has written before written once. */
    public static String toJson(Config c, Memo memo) {
        synchronized (memo) {
            String head = Json.write(head(c), false);
            StringBuilder sb = new StringBuilder((int) Math.min(Integer.MAX_VALUE - 16, head.length() + 64 + memo.size));
            // head() is an object with at least one key, and the two lists come last in toTree().
            sb.append(head, 0, head.length() - 1).append(",\"upstreams\":[");
            for (int i = 0; i < c.upstreams().size(); i++) {
                sb.append(i == 0 ? "" : ",").append(memo.fragment(c.upstreams().get(i)).json);
            }
            sb.append("],\"routes\":[");
            for (int i = 0; i < c.routes().size(); i++) {
                sb.append(i == 0 ? "" : ",").append(memo.fragment(c.routes().get(i)).json);
            }
            sb.append("]}");
            memo.commit();
            return sb.toString();
        }
    }

    /**
     * The nodes and JSON written for Routes and Upstreams, by the identity of the model value: model
     * values are immutable records, so a value written before is written the same again. Keeps what the
     * last document used (a writer per stream of documents: one per scope). Thread-safe.
     */
    public static final class Memo {
        private IdentityHashMap<Object, Fragment> previous = new IdentityHashMap<>();
        private IdentityHashMap<Object, Fragment> current = new IdentityHashMap<>();
        private long size;
        private long written;

        /** Items written (not taken from an earlier document) so far. */
        public synchronized long written() {
            return written;
        }

        private Fragment fragment(Object item) {
            Fragment f = current.get(item);
            if (f == null) {
                f = previous.get(item);
                if (f == null) {
                    ObjectNode node = item instanceof Route r ? route(r) : upstream((Upstream) item);
                    f = new Fragment(node, Json.write(node, false));
                    written++;
                }
                current.put(item, f);
            }
            return f;
        }

        /**
         * A memo that starts from what this one kept and then goes its own way, for throwaway writes (the
         * proxy's warm-up, ADR 0030): the kept map and its fragments are shared, which is safe because
         * neither memo modifies the map in place and a fragment's only later write (its UTF-8, made once)
         * is volatile.
         */
        public synchronized Memo copy() {
            Memo m = new Memo();
            m.previous = previous;
            m.size = size;
            return m;
        }

        private void commit() {
            long chars = 0;
            for (Fragment f : current.values()) {
                chars += f.json.length() + 1;
            }
            size = chars;
            previous = current;
            current = new IdentityHashMap<>();
        }

        /** An item's node and JSON, and that JSON's UTF-8 once a version has needed it (then kept with it). */
        private static final class Fragment {
            private final ObjectNode node;
            private final String json;
            /** Made at most once per fragment; volatile because copies of a memo share fragments across threads. */
            private volatile byte[] utf8;

            Fragment(ObjectNode node, String json) {
                this.node = node;
                this.json = json;
            }

            ObjectNode node() {
                return node;
            }

            String json() {
                return json;
            }

            /** Read under the memo's lock, as every fragment is. */
            byte[] utf8() {
                byte[] b = utf8;
                if (b == null) {
                    b = json.getBytes(StandardCharsets.UTF_8);
                    utf8 = b;
                }
                return b;
            }
        }
    }

    /** Everything but the two named lists, which {@link #toTree} adds last, upstreams then routes. */
    private static ObjectNode head(Config c) {
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
            if (li.proxyProtocol()) {
                o.put("proxyProtocol", true);
            }
            if (li.tls() != null) {
                ObjectNode to = o.putObject("tls");
                ArrayNode certs = to.putArray("certificates");
                li.tls().certificates().forEach(ce -> {
                    ObjectNode co = certs.addObject().put("cert", ce.cert()).put("key", ce.key());
                    if (ce.ocspResponse() != null) {
                        co.put("ocspResponse", ce.ocspResponse());
                    }
                });
                if (li.tls().ocspStapling()) {
                    to.put("ocspStapling", true);
                }
                if (li.tls().minVersion() != Config.TlsVersion.TLS_1_2) {
                    to.put("minVersion", li.tls().minVersion().number());
                }
                if (!li.tls().ciphers().isEmpty()) {
                    li.tls().ciphers().forEach(to.putArray("ciphers")::add);
                }
                if (!li.tls().clientValidation().isEmpty()) {
                    ArrayNode cvs = to.putArray("clientValidation");
                    for (Config.ClientValidation cv : li.tls().clientValidation()) {
                        ObjectNode co = cvs.addObject();
                        cv.hosts().forEach(co.putArray("hosts")::add);
                        if (cv.ca() != null) {
                            co.put("ca", cv.ca());
                        }
                        co.put("mode", ConfigParser.configName(cv.mode())).put("verifyDepth", cv.verifyDepth());
                        if (cv.subjectMatch() != null) {
                            co.put("subjectMatch", cv.subjectMatch());
                        }
                        if (cv.forwardCertificate()) {
                            co.put("forwardCertificate", true);
                        }
                        if (cv.crl() != null) {
                            co.put("crl", cv.crl());
                        }
                        if (cv.errorPage() != null) {
                            co.put("errorPage", cv.errorPage());
                        }
                        if (cv.ocsp() != Config.ClientOcsp.OFF) {
                            co.put("ocsp", ConfigParser.configName(cv.ocsp()));
                        }
                        if (cv.ocspResponder() != null) {
                            co.put("ocspResponder", cv.ocspResponder());
                        }
                    }
                }
            }
        }
        if (c.admin() != null) {
            n.putObject("admin").put("address", c.admin().address().toString());
        }
        if (c.requestId().trustedPeers().isEmpty()) {
            n.putObject("requestId").put("trustIncoming", c.requestId().trustIncoming());
        } else {
            ArrayNode peers = n.putObject("requestId").putArray("trustIncoming");
            c.requestId().trustedPeers().forEach(b -> peers.add(b.text()));
        }
        if (!c.cache().equals(Config.CacheStore.DEFAULTS)) {
            // Only when set, so that configs without a cache keep the version they had before it existed.
            n.putObject("cache").put("maxBytes", c.cache().maxBytes());
        }
        if (!c.requestBodyFiles().equals(Config.RequestBodyFiles.DEFAULTS)) {
            // Only when set, as the cache: configs without it keep their version.
            ObjectNode f = n.putObject("requestBodyFiles").put("maxBytes", c.requestBodyFiles().maxBytes());
            if (c.requestBodyFiles().directory() != null) {
                f.put("directory", c.requestBodyFiles().directory());
            }
        }
        if (!c.forwardedHeaders().trustedPeers().isEmpty()) {
            // Only when set, as the cache: configs without it keep their version.
            ArrayNode peers = n.putObject("forwardedHeaders").putArray("trustedPeers");
            c.forwardedHeaders().trustedPeers().forEach(b -> peers.add(b.text()));
        }
        if (!c.resolver().equals(Config.Resolver.DEFAULTS)) {
            ObjectNode r = n.putObject("resolver");
            if (!c.resolver().nameservers().isEmpty()) {
                ArrayNode servers = r.putArray("nameservers");
                c.resolver().nameservers().forEach(a -> servers.add(a.toString()));
            }
            if (c.resolver().timeout() != null) {
                r.put("timeout", Durations.format(c.resolver().timeout()));
            }
        }
        if (c.tracing() != null) {
            Config.Tracing t = c.tracing();
            ObjectNode o = n.putObject("tracing");
            o.put("endpoint", t.endpoint());
            o.put("percent", t.percent());
            o.put("serviceName", t.serviceName());
            if (t.trustedPeers().isEmpty()) {
                o.put("trustIncoming", t.trustIncoming());
            } else {
                ArrayNode peers = o.putArray("trustIncoming");
                t.trustedPeers().forEach(b -> peers.add(b.text()));
            }
            o.put("flushInterval", Durations.format(t.flushInterval()));
            if (!t.protocol().equals(Config.Tracing.PROTOBUF)) {
                o.put("protocol", t.protocol()); // the default left out: a proxy older than the key still takes the rest
            }
            if (t.upstreamSpans()) {
                o.put("upstreamSpans", true); // as protocol: only when not the default
            }
            if (!t.headers().isEmpty()) {
                ObjectNode hs = o.putObject("headers");
                new TreeMap<>(t.headers()).forEach(hs::put);
            }
        }
        return n;
    }

    private static ObjectNode route(Route r) {
        ObjectNode o = NODES.objectNode();
        o.put("name", r.name());
        ArrayNode hosts = o.putArray("hosts");
        r.hosts().forEach(hosts::add);
        if (r.listeners() != null) {
            // Only when set, so that routes on every listener keep the version they had before the key existed.
            ArrayNode listeners = o.putArray("listeners");
            r.listeners().forEach(listeners::add);
        }
        if (r.hsts() != null) {
            o.putObject("hsts").put("maxAgeSeconds", r.hsts().maxAgeSeconds())
                    .put("includeSubDomains", r.hsts().includeSubDomains()).put("preload", r.hsts().preload());
        }
        if (r.tlsPassthrough() != null) {
            ObjectNode tp = o.putObject("tlsPassthrough").put("upstream", r.tlsPassthrough().upstream());
            if (r.tlsPassthrough().proxyProtocol() > 0) {
                tp.put("proxyProtocol", r.tlsPassthrough().proxyProtocol());
            }
            return o;
        }
        ArrayNode rules = o.putArray("rules");
        r.rules().forEach(rule -> rule(rules.addObject(), rule));
        return o;
    }

    private static ObjectNode upstream(Upstream u) {
        ObjectNode o = NODES.objectNode();
        upstream(o, u);
        return o;
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
            if (!u.hashOn().also().isEmpty()) { // written only when used (older proxies refuse the key)
                var also = h.putArray("also");
                for (Upstream.HashPart part : u.hashOn().also()) {
                    ObjectNode p = also.addObject().put("source", ConfigParser.configName(part.source()));
                    if (part.name() != null) {
                        p.put("name", part.name());
                    }
                }
            }
            Upstream.SetCookie sc = u.hashOn().setCookie();
            if (sc != null) {
                ObjectNode c = h.putObject("setCookie").put("path", sc.path());
                if (sc.maxAge() != null) {
                    c.put("maxAge", Durations.format(sc.maxAge()));
                }
                if (sc.sameSite() != null) {
                    c.put("sameSite", sc.sameSite());
                }
                if (sc.changeOnFailure()) {
                    c.put("changeOnFailure", true);
                }
                if (sc.domain() != null) {
                    c.put("domain", sc.domain());
                }
                if (sc.secure()) {
                    c.put("secure", true);
                }
                if (sc.persistent()) {
                    c.put("mode", Upstream.SetCookie.PERSISTENT); // balanced, the default, unwritten (older proxies)
                }
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
        if (u.refuseLocalAddresses()) {
            o.put("refuseLocalAddresses", true);
        }
        Upstream.Tls t = u.tls();
        if (t != null) {
            ObjectNode to = o.putObject("tls");
            putIf(to, "ca", t.ca());
            putIf(to, "serverName", t.serverName());
            putIf(to, "cert", t.cert());
            putIf(to, "key", t.key());
            if (!t.verify()) {
                to.put("verify", false);
            }
            if (t.verifyDepth() > 0) {
                to.put("verifyDepth", t.verifyDepth());
            }
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
                ObjectNode po = mo.putObject("path").put("type", m.path().type().name()).put("value", m.path().value());
                if (m.path().priority() != 0) {
                    po.put("priority", m.path().priority());
                }
            }
            if (m.method() != null) {
                mo.put("method", m.method());
            }
            if (!m.headers().isEmpty()) {
                ArrayNode hs = mo.putArray("headers");
                m.headers().forEach(h -> {
                    ObjectNode ho = hs.addObject().put("name", h.name()).put("value", h.value());
                    if (h.type() == Route.HeaderMatchType.RegularExpression) {
                        ho.put("type", "RegularExpression");
                    }
                });
            }
            if (!m.cookies().isEmpty()) {
                ArrayNode cs = mo.putArray("cookies");
                m.cookies().forEach(c -> cs.addObject().put("name", c.name()).put("value", c.value()));
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
            ObjectNode fo = o.putObject("files").put("root", f.root()).put("followSymlinks", f.followSymlinks())
                    .put("dotfiles", ConfigParser.configName(f.dotfiles()));
            ArrayNode idx = fo.putArray("index");
            f.index().forEach(idx::add);
            if (!f.precompressed().isEmpty()) {
                f.precompressed().forEach(fo.putArray("precompressed")::add);
            }
        } else if (rule.action() instanceof Route.Backends b) {
            ArrayNode bs = o.putArray("backends");
            b.backends().forEach(be -> bs.addObject().put("upstream", be.upstream()).put("weight", be.weight()));
        } else if (rule.action() instanceof Route.Redirect r) {
            ObjectNode ro = o.putObject("redirect");
            putIf(ro, "scheme", r.scheme());
            putIf(ro, "hostname", r.hostname());
            if (r.port() != null) {
                ro.put("port", r.port());
            }
            if (r.path() != null) {
                pathModifier(ro.putObject("path"), r.path());
            }
            ro.put("statusCode", r.statusCode());
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
        if (rule.pathRewrite() != null) {
            pathModifier(o.putObject("pathRewrite"), rule.pathRewrite());
        }
        if (rule.clientAddresses() != null) {
            ObjectNode co = o.putObject("clientAddresses");
            if (!rule.clientAddresses().allow().isEmpty()) {
                ArrayNode allow = co.putArray("allow");
                rule.clientAddresses().allow().forEach(b -> allow.add(b.text()));
            }
            if (!rule.clientAddresses().deny().isEmpty()) {
                ArrayNode deny = co.putArray("deny");
                rule.clientAddresses().deny().forEach(b -> deny.add(b.text()));
            }
        }
        if (rule.cors() != null) {
            Route.Cors c = rule.cors();
            ObjectNode co = o.putObject("cors");
            c.allowOrigins().forEach(co.putArray("allowOrigins")::add);
            c.allowMethods().forEach(co.putArray("allowMethods")::add);
            c.allowHeaders().forEach(co.putArray("allowHeaders")::add);
            c.exposeHeaders().forEach(co.putArray("exposeHeaders")::add);
            co.put("allowCredentials", c.allowCredentials()).put("maxAge", Durations.format(c.maxAge()));
        }
        if (rule.rateLimit() != null) {
            Route.RateLimit r = rule.rateLimit();
            ObjectNode ro = o.putObject("rateLimit").put("requests", r.requests()).put("per", Durations.format(r.per()))
                    .put("burst", r.burst());
            if (!r.exempt().isEmpty()) {
                ArrayNode ex = ro.putArray("exempt");
                r.exempt().forEach(b -> ex.add(b.text()));
            }
        }
        if (rule.maxBodyBytes() != null) {
            o.put("maxBodyBytes", rule.maxBodyBytes());
        }
        if (rule.inFlightLimit() != null) {
            ObjectNode fl = o.putObject("inFlightLimit").put("requests", rule.inFlightLimit().requests());
            if (!rule.inFlightLimit().exempt().isEmpty()) {
                ArrayNode ex = fl.putArray("exempt");
                rule.inFlightLimit().exempt().forEach(b -> ex.add(b.text()));
            }
        }
        headerEdits(o, "requestHeaders", rule.requestHeaders());
        headerEdits(o, "responseHeaders", rule.responseHeaders());
        if (rule.basicAuth() != null) {
            o.putObject("basicAuth").put("realm", rule.basicAuth().realm()).put("htpasswd", rule.basicAuth().htpasswd());
        }
        if (rule.jwtAuth() != null) {
            Route.JwtAuth j = rule.jwtAuth();
            ObjectNode jo = o.putObject("jwtAuth");
            if (j.issuer() != null) {
                jo.put("issuer", j.issuer());
            }
            if (!j.audiences().isEmpty()) {
                j.audiences().forEach(jo.putArray("audiences")::add);
            }
            if (j.jwks() != null) {
                jo.put("jwks", j.jwks());
            }
            if (j.jwksUri() != null) {
                jo.put("jwksUri", j.jwksUri());
            }
            if (j.jwks() == null) {
                jo.put("refresh", Durations.format(j.refresh()));
            }
            if (j.optional()) {
                jo.put("optional", true);
            }
            if (j.cookie() != null) {
                jo.put("cookie", j.cookie());
            }
            if (!j.claimHeaders().isEmpty()) {
                ObjectNode ch = jo.putObject("claimHeaders");
                j.claimHeaders().forEach(c -> ch.put(c.claim(), c.header()));
            }
            jo.put("realm", j.realm());
            if (!j.require().isEmpty()) {
                ObjectNode rq = jo.putObject("require");
                j.require().forEach(r -> r.anyOf().forEach(rq.putArray(r.claim())::add));
            }
        }
        if (rule.satisfy() == Route.Satisfy.ANY) {
            o.put("satisfy", "any");
        }
        if (!rule.accessLog()) {
            o.put("accessLog", false);
        }
        if (!rule.tracing()) {
            o.put("tracing", false); // only when off, as accessLog: rules without it keep their version
        }
        if (rule.errorPages() != null) {
            ObjectNode ep = o.putObject("errorPages");
            ArrayNode st = ep.putArray("statuses");
            rule.errorPages().statuses().forEach(st::add);
            ep.put("upstream", rule.errorPages().upstream()).put("path", rule.errorPages().path());
        }
        if (rule.forwardAuth() != null) {
            Route.ForwardAuth fa = rule.forwardAuth();
            ObjectNode fo = o.putObject("forwardAuth");
            if (fa.upstream() != null) {
                fo.put("upstream", fa.upstream());
            }
            fo.put("path", fa.path());
            if (!fa.responseHeaders().isEmpty()) {
                ArrayNode names = fo.putArray("responseHeaders");
                fa.responseHeaders().forEach(names::add);
            }
            if (fa.signIn() != null) {
                fo.put("signIn", fa.signIn());
            }
            if (fa.alwaysSetCookie()) {
                fo.put("alwaysSetCookie", true);
            }
            if (fa.cache() != null) {
                ObjectNode co = fo.putObject("cache");
                fa.cache().headers().forEach(co.putArray("headers")::add);
                fa.cache().cookies().forEach(co.putArray("cookies")::add);
                co.put("duration", Durations.format(fa.cache().duration()));
            }
        }
        if (!rule.mirrors().isEmpty()) {
            ArrayNode mirrors = o.putArray("mirrors");
            for (Route.Mirror m : rule.mirrors()) {
                ObjectNode mo = mirrors.addObject().put("upstream", m.upstream());
                if (m.percent() != 100) {
                    mo.put("percent", m.percent());
                }
                if (m.hostRewrite() != null) {
                    mo.put("hostRewrite", m.hostRewrite());
                }
                if (!m.body()) {
                    mo.put("body", false);
                }
            }
        }
        if (rule.requestBuffering() != null) {
            Route.RequestBuffering rb = rule.requestBuffering();
            ObjectNode b = o.putObject("requestBuffering").put("maxBytes", rb.maxBytes());
            if (rb.memoryBytes() != Math.min(rb.maxBytes(), Route.RequestBuffering.DEFAULT_MEMORY)) {
                b.put("memoryBytes", rb.memoryBytes());
            }
        }
        if (rule.compression() != null) {
            Route.Compression cz = rule.compression();
            ObjectNode co = o.putObject("compression");
            cz.types().forEach(co.putArray("types")::add);
            co.put("minBytes", cz.minBytes());
            co.put("level", cz.level());
            if (!cz.codings().equals(Route.Compression.DEFAULT_CODINGS)) {
                cz.codings().forEach(co.putArray("codings")::add); // as protocol: only when not the default
            }
        }
        if (rule.responseRate() != null) {
            ObjectNode rr = o.putObject("responseRate");
            rr.put("bytesPerSecond", rule.responseRate().bytesPerSecond());
            rr.put("afterBytes", rule.responseRate().afterBytes());
        }
        if (rule.responseRewrite() != null) {
            Route.ResponseRewrite rr = rule.responseRewrite();
            ObjectNode ro = o.putObject("responseRewrite");
            replaces(ro, "location", rr.location());
            replaces(ro, "cookiePath", rr.cookiePath());
            replaces(ro, "cookieDomain", rr.cookieDomain());
        }
        if (rule.fastcgi() != null) {
            Route.FastCgi f = rule.fastcgi();
            ObjectNode fo = o.putObject("fastcgi").put("root", f.root()).put("index", f.index())
                    .put("splitPathInfo", f.splitPathInfo()).put("maxBufferedBody", f.maxBufferedBody());
            ObjectNode ps = fo.putObject("params");
            new TreeMap<>(f.params()).forEach(ps::put);
        }
    }

    private static void pathModifier(ObjectNode o, Route.PathModifier m) {
        switch (m.type()) {
            case ReplaceFullPath -> o.put("replaceFullPath", m.value());
            case ReplacePrefixMatch -> o.put("replacePrefixMatch", m.value());
            case ReplaceRegexMatch -> o.putObject("replaceRegexMatch").put("pattern", m.value())
                    .put("substitution", m.substitution());
        }
    }

    private static void headerEdits(ObjectNode rule, String key, Route.HeaderEdits e) {
        if (e == null) {
            return;
        }
        ObjectNode o = rule.putObject(key);
        if (!e.set().isEmpty()) {
            ObjectNode set = o.putObject("set");
            new TreeMap<>(e.set()).forEach(set::put);
        }
        if (!e.add().isEmpty()) {
            ObjectNode add = o.putObject("add");
            new TreeMap<>(e.add()).forEach(add::put);
        }
        if (!e.remove().isEmpty()) {
            ArrayNode remove = o.putArray("remove");
            e.remove().stream().sorted().forEach(remove::add);
        }
    }

    private static void replaces(ObjectNode o, String name, List<Route.Replace> list) {
        if (!list.isEmpty()) {
            ArrayNode a = o.putArray(name);
            list.forEach(r -> a.addObject().put("from", r.from()).put("to", r.to()));
        }
    }
}
