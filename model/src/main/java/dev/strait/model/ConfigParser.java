package dev.strait.model;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeType;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.BiFunction;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads a config (YAML or JSON; JSON is YAML) into a {@link Config}, checking everything it can
 * without touching the machine: it reports every error at once, each with the path of its field,
 * so that {@code --check} and a refused reload say exactly what to fix.
 */
public final class ConfigParser {
    /** A key written twice is refused rather than the last one silently winning. */
    private static final Pattern HOST_LABELS = Pattern.compile("[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");
    private static final Pattern TOKEN = Pattern.compile("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+");
    /** A cookie's Path attribute value (RFC 6265 4.1.1: any CHAR but CTLs and ";"), starting with "/"; no spaces. */
    private static final Pattern COOKIE_PATH = Pattern.compile("/[\\x21-\\x3a\\x3c-\\x7e]{0,1023}");
    private static final Pattern NAME = Pattern.compile("[a-z0-9]([a-z0-9.-]{0,251}[a-z0-9])?");
    /** A CGI meta-variable name (RFC 3875 4.1): letters, digits and '_'. */
    private static final Pattern CGI_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
    /** A Host header value: a name or an address, with an optional port. */
    private static final Pattern HOST_VALUE =
            Pattern.compile("(\\[[0-9A-Fa-f:.]+]|[A-Za-z0-9]([A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(:[0-9]{1,5})?");
    private static final Pattern STATUS = Pattern.compile("[1-5][0-9][0-9]");
    /** Headers the proxy writes itself; a fixed response may not set them. */
    public static final Set<String> RESERVED_RESPONSE_HEADERS =
            Set.of("content-length", "transfer-encoding", "connection", "date", "keep-alive", "upgrade");
    /**
     * Request fields a rule cannot change: the framing and hop-by-hop ones, Host (that is hostRewrite) and X-Real-IP
     * (the proxy sets it to the client, ADR 0085).
     */
    public static final Set<String> RESERVED_REQUEST_HEADERS = Set.of("host", "content-length", "transfer-encoding",
            "connection", "keep-alive", "proxy-connection", "te", "upgrade", "expect", "trailer", "x-real-ip");

    private final List<ConfigError> errors = new ArrayList<>();
    private Memo memo;

    private ConfigParser() {}

    /** Parses and validates; throws with every error when anything is wrong. */
    public static Config parse(String text, String source) throws InvalidConfigException {
        JsonNode root;
        try {
            root = YamlTree.read(text);
        } catch (YamlTree.SyntaxError e) {
            throw new InvalidConfigException(source, List.of(new ConfigError("", e.getMessage())));
        }
        return parse(root, source);
    }

    /**
     * Validates a config already read into a tree (a control-channel message, a document a delta was
     * applied to), with the same checks and messages as {@link #parse(String, String)} of its JSON text,
     * without writing it out and reading it back. The tree is only read.
     */
    public static Config parse(JsonNode root, String source) throws InvalidConfigException {
        return parse(root, source, null);
    }

    /**
     * As {@link #parse(JsonNode, String)}, reusing the Routes and Upstreams that {@code memo} made from the
     * very same nodes (by identity) in its last successful parse: the result is the same as without it.
     * For trees that share unchanged items with the one parsed before (a delta's result, ADR 0024).
     *
     * @param memo null for none; on success it then holds the items of this parse, for the next
     */
    public static Config parse(JsonNode root, String source, Memo memo) throws InvalidConfigException {
        ConfigParser p = new ConfigParser();
        p.memo = memo;
        if (root == null || root.isMissingNode() || root.isNull()) {
            throw new InvalidConfigException(source, List.of(new ConfigError("", "the config is empty")));
        }
        Config config = p.config(root);
        if (!p.errors.isEmpty()) {
            if (memo != null) {
                memo.current.clear();
            }
            throw new InvalidConfigException(source, p.errors);
        }
        if (memo != null) {
            memo.commit();
        }
        return config;
    }

    /**
     * Routes and Upstreams parsed without error, by the identity of the node they were parsed from. An
     * item's parse reads nothing but its own node (its field path appears only in error messages, and
     * only error-free results are kept), so a node seen before gives the same value again. Cross-item
     * checks (duplicate names, backend references) are made on every parse. Only what the last
     * successful parse used is kept, so memory follows the document. The nodes must not be modified
     * after they were parsed (the control channel's trees are read only, ADR 0024). Not thread-safe.
     */
    public static final class Memo {
        private IdentityHashMap<JsonNode, Object> previous = new IdentityHashMap<>();
        private IdentityHashMap<JsonNode, Object> current = new IdentityHashMap<>();
        private long reused;

        /** Items taken from an earlier parse instead of parsed again, so far. */
        public long reused() {
            return reused;
        }

        @SuppressWarnings("unchecked")
        <T> T get(JsonNode n, Class<T> type) {
            Object v = previous.get(n);
            if (v == null) {
                v = current.get(n);
            }
            if (type.isInstance(v)) {
                current.put(n, v);
                reused++;
                return (T) v;
            }
            return null;
        }

        void put(JsonNode n, Object value) {
            current.put(n, value);
        }

        /**
         * A memo that starts from what this one kept and then goes its own way, for throwaway parses (the
         * proxy's warm-up, ADR 0030): the kept map is shared, which is safe because neither memo ever
         * modifies it in place (a parse adds to its own current map; a commit replaces the kept one).
         */
        public Memo copy() {
            Memo m = new Memo();
            m.previous = previous;
            return m;
        }

        private void commit() {
            previous = current;
            current = new IdentityHashMap<>();
        }
    }

    private <T> T memoized(JsonNode n, String path, Class<T> type, BiFunction<JsonNode, String, T> parse) {
        if (memo == null || n == null || !n.isContainerNode()) {
            return parse.apply(n, path);
        }
        T v = memo.get(n, type);
        if (v != null) {
            return v;
        }
        int before = errors.size();
        v = parse.apply(n, path);
        if (v != null && errors.size() == before) {
            memo.put(n, v);
        }
        return v;
    }

    private Config config(JsonNode n) {
        if (!object(n, "")) {
            return null;
        }
        known(n, "", "workers", "transport", "accessLog", "limits", "listeners", "admin", "upstreams", "routes",
                "requestId", "cache", "forwardedHeaders", "resolver", "tracing",
                "requestBodyFiles");
        int workers = integer(n.get("workers"), "workers", 0, 0, 1024);
        Config.Transport transport = enumValue(n.get("transport"), "transport", Config.Transport.AUTO,
                Config.Transport.class);
        Config.AccessLog accessLog = new Config.AccessLog(true);
        JsonNode al = n.get("accessLog");
        if (al != null && object(al, "accessLog")) {
            known(al, "accessLog", "enabled");
            accessLog = new Config.AccessLog(bool(al.get("enabled"), "accessLog.enabled", true));
        }
        Limits limits = limits(n.get("limits"));
        List<Config.Listener> listeners = list(n.get("listeners"), "listeners", true, this::listener);
        Set<String> listenerNames = new HashSet<>();
        List<Config.Listener> bound = new ArrayList<>();
        for (int i = 0; i < listeners.size(); i++) {
            Config.Listener l = listeners.get(i);
            if (l == null) {
                continue;
            }
            if (l.name() != null && !listenerNames.add(l.name())) {
                error("listeners[" + i + "].name", "duplicate listener name \"" + l.name() + "\"");
            }
            if (l.address() != null) {
                for (Config.Listener other : bound) {
                    if (l.address().port() != 0 && other.address().equals(l.address())) {
                        error("listeners[" + i + "].address", "address " + l.address() + " is used by another listener");
                        break;
                    }
                    if (other.address().overlaps(l.address())) {
                        error("listeners[" + i + "].address", "address " + l.address() + " takes the port of listener "
                                + other.name() + " (" + other.address() + ")");
                        break;
                    }
                }
                bound.add(l);
            }
        }
        Config.Admin admin = null;
        JsonNode ad = n.get("admin");
        if (ad != null && !ad.isNull() && object(ad, "admin")) {
            known(ad, "admin", "address");
            admin = new Config.Admin(address(ad.get("address"), "admin.address"));
            if (admin.address() != null) {
                for (Config.Listener l : bound) {
                    if (l.address().overlaps(admin.address())) {
                        error("admin.address", "address " + admin.address() + " takes the port of listener " + l.name()
                                + " (" + l.address() + ")");
                        break;
                    }
                }
            }
        }
        List<Upstream> upstreams = list(n.get("upstreams"), "upstreams", false,
                (u, p) -> memoized(u, p, Upstream.class, this::upstream));
        Map<String, Upstream> upstreamsByName = new HashMap<>();
        for (int i = 0; i < upstreams.size(); i++) {
            Upstream u = upstreams.get(i);
            if (u != null && u.name() != null && upstreamsByName.putIfAbsent(u.name(), u) != null) {
                error("upstreams[" + i + "].name", "duplicate upstream name \"" + u.name() + "\"");
            }
        }
        List<Route> routes = list(n.get("routes"), "routes", false,
                (r, p) -> memoized(r, p, Route.class, this::route));
        Set<String> routeNames = new HashSet<>();
        for (int i = 0; i < routes.size(); i++) {
            Route r = routes.get(i);
            if (r == null) {
                continue;
            }
            if (r.name() != null && !routeNames.add(r.name())) {
                error("routes[" + i + "].name", "duplicate route name \"" + r.name() + "\"");
            }
            checkBackendRefs(r, "routes[" + i + "]", upstreamsByName);
            checkListeners(r, "routes[" + i + "]", listenerNames);
            checkPassthroughHosts(routes, i);
        }
        checkCertificates(listeners, routes);
        Config.RequestId requestId = Config.RequestId.DEFAULTS;
        JsonNode rid = n.get("requestId");
        if (rid != null && !rid.isNull() && object(rid, "requestId")) {
            known(rid, "requestId", "trustIncoming");
            JsonNode ti = rid.get("trustIncoming");
            if (ti != null && ti.isArray()) {
                List<IpBlock> peers = nonNull(list(ti, "requestId.trustIncoming", true, this::ipBlock));
                requestId = new Config.RequestId(true, peers);
            } else if (ti != null && !ti.isNull() && !ti.isBoolean()) {
                error("requestId.trustIncoming", "must be true, false or a list of addresses and CIDR blocks, got "
                        + describe(ti));
            } else {
                requestId = new Config.RequestId(bool(ti, "requestId.trustIncoming", true));
            }
        }
        Config.CacheStore cacheStore = Config.CacheStore.DEFAULTS;
        JsonNode cs = n.get("cache");
        if (cs != null && !cs.isNull() && object(cs, "cache")) {
            known(cs, "cache", "maxBytes");
            cacheStore = new Config.CacheStore(longValue(cs.get("maxBytes"), "cache.maxBytes",
                    Config.CacheStore.DEFAULTS.maxBytes()));
        }
        Config.ForwardedHeaders forwarded = Config.ForwardedHeaders.DEFAULTS;
        JsonNode fh = n.get("forwardedHeaders");
        if (fh != null && !fh.isNull() && object(fh, "forwardedHeaders")) {
            known(fh, "forwardedHeaders", "trustedPeers");
            forwarded = new Config.ForwardedHeaders(nonNull(list(fh.get("trustedPeers"), "forwardedHeaders.trustedPeers",
                    false, this::ipBlock)));
        }
        Config.Resolver resolver = Config.Resolver.DEFAULTS;
        JsonNode rn = n.get("resolver");
        if (rn != null && !rn.isNull() && object(rn, "resolver")) {
            known(rn, "resolver", "nameservers", "timeout");
            List<HostPort> servers = list(rn.get("nameservers"), "resolver.nameservers", false, (e, p) -> {
                HostPort a = address(e, p);
                if (a != null) {
                    try {
                        IpBlock.parse(a.host());
                    } catch (IllegalArgumentException notAnAddress) {
                        error(p, "\"" + a.host() + "\" is not an IP address (a name server is not looked up by name)");
                        return null;
                    }
                }
                return a;
            });
            resolver = new Config.Resolver(nonNull(servers),
                    positiveDuration(rn.get("timeout"), "resolver.timeout", null));
        }
        JsonNode tn = n.get("tracing");
        Config.Tracing tracing = tn != null && !tn.isNull() && object(tn, "tracing") ? tracing(tn) : null;
        Config.RequestBodyFiles bodyFiles = Config.RequestBodyFiles.DEFAULTS;
        JsonNode bf = n.get("requestBodyFiles");
        if (bf != null && !bf.isNull() && object(bf, "requestBodyFiles")) {
            bodyFiles = requestBodyFiles(bf);
        }
        return new Config(workers, transport, accessLog, limits, nonNull(listeners), admin, nonNull(upstreams),
                nonNull(routes), requestId, cacheStore, forwarded, resolver, tracing, bodyFiles);
    }

    private static final Duration MIN_FLUSH_INTERVAL = Duration.ofMillis(10);
    private static final Duration MAX_FLUSH_INTERVAL = Duration.ofMinutes(1);

    /** {@code { endpoint, percent, serviceName, trustIncoming, flushInterval, headers, protocol }}; null when the endpoint is bad. */
    private Config.Tracing tracing(JsonNode n) {
        known(n, "tracing", "endpoint", "percent", "serviceName", "trustIncoming", "flushInterval", "headers", "protocol",
                "upstreamSpans");
        String protocol = text(n.get("protocol"), "tracing.protocol", Config.Tracing.PROTOBUF);
        if (!Config.Tracing.PROTOCOLS.contains(protocol)) {
            error("tracing.protocol", "must be http/protobuf, http/json or grpc, got \"" + protocol + "\"");
        }
        String endpoint = tracingEndpoint(requiredText(n.get("endpoint"), "tracing.endpoint"),
                protocol.equals(Config.Tracing.GRPC));
        double percent = 100;
        JsonNode pn = n.get("percent");
        if (pn != null && !pn.isNull()) {
            if (!pn.isNumber() || !(pn.asDouble() >= 0) || pn.asDouble() > 100) {
                error("tracing.percent", "must be a number from 0 to 100, got " + describe(pn));
            } else {
                percent = pn.asDouble();
            }
        }
        String service = text(n.get("serviceName"), "tracing.serviceName", Config.Tracing.DEFAULT_SERVICE_NAME);
        if (service.isBlank() || service.length() > 256 || !service.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
            error("tracing.serviceName", "must be 1 to 256 visible ASCII characters, got \"" + service + "\"");
        }
        boolean trust = true;
        List<IpBlock> peers = List.of();
        JsonNode ti = n.get("trustIncoming");
        if (ti != null && ti.isArray()) {
            peers = nonNull(list(ti, "tracing.trustIncoming", true, this::ipBlock));
        } else if (ti != null && !ti.isNull() && !ti.isBoolean()) {
            error("tracing.trustIncoming", "must be true, false or a list of addresses and CIDR blocks, got "
                    + describe(ti));
        } else {
            trust = bool(ti, "tracing.trustIncoming", true);
        }
        Duration flush = positiveDuration(n.get("flushInterval"), "tracing.flushInterval",
                Config.Tracing.DEFAULT_FLUSH_INTERVAL);
        if (flush.compareTo(MIN_FLUSH_INTERVAL) < 0 || flush.compareTo(MAX_FLUSH_INTERVAL) > 0) {
            error("tracing.flushInterval", "must be 10ms to 1m, got " + Durations.format(flush));
        }
        Map<String, String> headers = new java.util.LinkedHashMap<>();
        JsonNode hn = n.get("headers");
        if (hn != null && !hn.isNull() && object(hn, "tracing.headers")) {
            hn.fields().forEachRemaining(e -> {
                String name = e.getKey();
                String path = "tracing.headers." + name;
                String lower = name.toLowerCase(java.util.Locale.ROOT);
                String value = e.getValue().isValueNode() ? e.getValue().asText() : null;
                if (!HEADER_NAME.matcher(name).matches()) {
                    error(path, "is not a header name");
                } else if (COLLECTOR_OWN.contains(lower)) {
                    error(path, "is the exporter's own to set");
                } else if (value == null || value.isEmpty() || value.length() > 8192
                        || !value.chars().allMatch(c -> c == '\t' || c >= 0x20 && c < 0x7f)) {
                    error(path, "must be 1 to 8192 visible ASCII characters (spaces allowed)");
                } else if (headers.keySet().stream().anyMatch(k -> k.equalsIgnoreCase(name))) {
                    error(path, "is named twice (header names are case-insensitive)");
                } else {
                    headers.put(name, value);
                }
            });
        }
        return endpoint == null ? null
                : new Config.Tracing(endpoint, percent, service, trust, peers, flush, headers, protocol,
                        bool(n.get("upstreamSpans"), "tracing.upstreamSpans", false));
    }

    private static final java.util.regex.Pattern HEADER_NAME = java.util.regex.Pattern.compile("[!#$%&'*+\\-.^_`|~0-9A-Za-z]+");
    /** What the span exporter sets itself on each batch. */
    private static final Set<String> COLLECTOR_OWN = Set.of("content-type", "content-length", "host", "connection",
            "transfer-encoding", "expect", "te", "upgrade", "keep-alive");

    /**
     * The collector's URL: http or https, a host, no user, query or fragment. Over HTTP {@code /v1/traces} is
     * added when it has no path (as OpenTelemetry's exporters do with {@code OTEL_EXPORTER_OTLP_ENDPOINT}); over
     * gRPC it has none (the service's path is gRPC's own), and http or https says whether the connection is TLS.
     */
    private String tracingEndpoint(String s, boolean grpc) {
        if (s == null) {
            return null;
        }
        java.net.URI u;
        try {
            u = new java.net.URI(s);
        } catch (java.net.URISyntaxException e) {
            error("tracing.endpoint", "\"" + s + "\" is not a URL: " + e.getReason());
            return null;
        }
        String scheme = u.getScheme() == null ? "" : u.getScheme().toLowerCase(Locale.ROOT);
        if (!scheme.equals("http") && !scheme.equals("https")) {
            error("tracing.endpoint", "\"" + s + "\" must be an http:// or https:// URL (as "
                    + (grpc ? "http://otel-collector:4317" : "http://otel-collector:4318/v1/traces") + ")");
            return null;
        }
        if (u.getHost() == null || u.getRawUserInfo() != null || u.getRawQuery() != null || u.getRawFragment() != null) {
            error("tracing.endpoint", "\"" + s + "\" must be scheme://host[:port][/path], without user, query or "
                    + "fragment");
            return null;
        }
        String path = u.getRawPath();
        if (grpc) {
            if (path != null && !path.isEmpty() && !path.equals("/")) {
                error("tracing.endpoint", "\"" + s + "\" must have no path over gRPC (its service's path is fixed), as "
                        + "http://otel-collector:4317");
                return null;
            }
            return s.replaceAll("/$", "");
        }
        return path == null || path.isEmpty() || path.equals("/") ? s.replaceAll("/$", "") + "/v1/traces" : s;
    }

    /** A route's listeners must be listeners of this config: a typo would otherwise serve it nowhere. */
    private void checkListeners(Route r, String path, Set<String> listenerNames) {
        if (r.listeners() == null) {
            return;
        }
        for (int i = 0; i < r.listeners().size(); i++) {
            String l = r.listeners().get(i);
            if (l != null && !listenerNames.contains(l)) {
                error(path + ".listeners[" + i + "]", "listener \"" + l + "\" not found (listeners: "
                        + String.join(", ", new java.util.TreeSet<>(listenerNames)) + ")");
            }
        }
    }

    /**
     * A TLS listener without certificates can only pass TLS through: with no route doing so on it, every handshake
     * would fail.
     */
    private void checkCertificates(List<Config.Listener> listeners, List<Route> routes) {
        for (int i = 0; i < listeners.size(); i++) {
            Config.Listener l = listeners.get(i);
            if (l == null || l.tls() == null || !l.tls().certificates().isEmpty()) {
                continue;
            }
            boolean passes = routes.stream().anyMatch(r -> r != null && r.tlsPassthrough() != null
                    && (l.name() == null || r.servedOn(l.name())));
            if (!passes) {
                error("listeners[" + i + "].tls.certificates", "must list at least one certificate (a TLS listener"
                        + " without one only passes TLS through, and no route passes it through here)");
            } else if (!l.tls().clientValidation().isEmpty()) {
                error("listeners[" + i + "].tls.clientValidation", "needs a certificate of the listener's own to ask"
                        + " for clients' certificates under");
            }
        }
    }

    /** A host one listener passes through for two routes would leave its connections' way to chance. */
    private void checkPassthroughHosts(List<Route> routes, int i) {
        Route r = routes.get(i);
        if (r.tlsPassthrough() == null) {
            return;
        }
        for (int j = 0; j < i; j++) {
            Route o = routes.get(j);
            if (o == null || o.tlsPassthrough() == null || (r.listeners() != null && o.listeners() != null
                    && r.listeners().stream().noneMatch(o.listeners()::contains))) {
                continue;
            }
            for (int k = 0; k < r.hosts().size(); k++) {
                if (r.hosts().get(k) != null && o.hosts().contains(r.hosts().get(k))) {
                    error("routes[" + i + "].hosts[" + k + "]", "\"" + r.hosts().get(k) + "\" is passed through by route "
                            + o.name() + " already");
                }
            }
        }
    }

    private void checkBackendRefs(Route r, String path, Map<String, Upstream> upstreams) {
        if (r.tlsPassthrough() != null && r.tlsPassthrough().upstream() != null) {
            String p = path + ".tlsPassthrough.upstream";
            Upstream u = upstreams.get(r.tlsPassthrough().upstream());
            if (u == null) {
                error(p, "upstream \"" + r.tlsPassthrough().upstream() + "\" is not defined in upstreams");
            } else if (u.protocol() != Upstream.Protocol.HTTP1 || u.tls() != null || u.healthCheck() != null) {
                error(p, "upstream \"" + u.name() + "\" gets the client's TLS bytes as they are: it takes no protocol,"
                        + " tls or healthCheck (its endpoints' connect failures still eject them)");
            }
        }
        for (int j = 0; j < r.rules().size(); j++) {
            Route.Rule rule = r.rules().get(j);
            if (rule == null) {
                continue;
            }
            String rulePath = path + ".rules[" + j + "]";
            String fastcgiUpstream = null;
            String otherUpstream = null;
            if (rule.action() instanceof Route.Backends b) {
                for (int k = 0; k < b.backends().size(); k++) {
                    Route.Backend be = b.backends().get(k);
                    if (be == null || be.upstream() == null) {
                        continue;
                    }
                    Upstream u = upstreams.get(be.upstream());
                    if (u == null) {
                        error(rulePath + ".backends[" + k + "].upstream",
                                "upstream \"" + be.upstream() + "\" is not defined in upstreams");
                    } else if (u.protocol() == Upstream.Protocol.FASTCGI) {
                        fastcgiUpstream = fastcgiUpstream == null ? u.name() : fastcgiUpstream;
                    } else {
                        otherUpstream = otherUpstream == null ? u.name() : otherUpstream;
                    }
                }
            }
            checkFastCgiRule(rule, rulePath, fastcgiUpstream, otherUpstream);
            if (rule.errorPages() != null && rule.errorPages().upstream() != null) {
                Upstream u = upstreams.get(rule.errorPages().upstream());
                if (u == null) {
                    error(rulePath + ".errorPages.upstream",
                            "upstream \"" + rule.errorPages().upstream() + "\" is not defined in upstreams");
                } else if (u.protocol() == Upstream.Protocol.FASTCGI) {
                    error(rulePath + ".errorPages.upstream", "pages come from an HTTP upstream, not fastcgi \""
                            + u.name() + "\"");
                }
            }
            if (rule.requestBuffering() != null && rule.fastcgi() != null) {
                error(rulePath + ".requestBuffering", "FastCGI bodies are always read first, up to fastcgi.maxBufferedBody");
            }
            if (rule.responseRewrite() != null && rule.fastcgi() != null) {
                error(rulePath + ".responseRewrite", "applies to HTTP upstreams' answers, not to FastCGI's");
            }
            for (int m = 0; m < rule.mirrors().size(); m++) {
                String name = rule.mirrors().get(m).upstream();
                Upstream u = name == null ? null : upstreams.get(name);
                if (name != null && u == null) {
                    error(rulePath + ".mirrors[" + m + "].upstream", "upstream \"" + name + "\" is not defined in upstreams");
                } else if (u != null && u.protocol() == Upstream.Protocol.FASTCGI) {
                    error(rulePath + ".mirrors[" + m + "].upstream", "copies go to an HTTP upstream, not fastcgi \""
                            + name + "\"");
                }
            }
            if (rule.forwardAuth() != null && rule.forwardAuth().upstream() != null) {
                Upstream u = upstreams.get(rule.forwardAuth().upstream());
                if (u == null) {
                    error(rulePath + ".forwardAuth.upstream",
                            "upstream \"" + rule.forwardAuth().upstream() + "\" is not defined in upstreams");
                } else if (u.protocol() == Upstream.Protocol.FASTCGI) {
                    error(rulePath + ".forwardAuth.upstream", "the check goes to an HTTP upstream, not fastcgi \""
                            + u.name() + "\"");
                }
            }
        }
    }

    /** A rule speaks one protocol, and FastCGI needs to know where the scripts are. */
    private void checkFastCgiRule(Route.Rule rule, String path, String fastcgiUpstream, String otherUpstream) {
        if (fastcgiUpstream != null && otherUpstream != null) {
            error(path + ".backends", "mixes the fastcgi upstream \"" + fastcgiUpstream + "\" with \"" + otherUpstream
                    + "\", which is not fastcgi; a rule's backends speak one protocol");
        } else if (fastcgiUpstream != null && rule.fastcgi() == null) {
            error(path + ".fastcgi", "is required when backends name a fastcgi upstream (\"" + fastcgiUpstream
                    + "\"): at least { root: /path/to/scripts }");
        } else if (fastcgiUpstream == null && rule.fastcgi() != null) {
            error(path + ".fastcgi", "applies only to a rule whose backends name fastcgi upstreams");
        }
        if (fastcgiUpstream != null && rule.pathRewrite() != null) {
            error(path + ".pathRewrite", "does not apply to fastcgi upstreams (\"" + fastcgiUpstream
                    + "\"): their scripts are chosen by the request path; use fastcgi.splitPathInfo or params");
        }
    }

    private Limits limits(JsonNode n) {
        Limits d = Limits.DEFAULTS;
        if (n == null || n.isNull() || !object(n, "limits")) {
            return d;
        }
        known(n, "limits", "maxRequestLine", "maxHeaderBytes", "maxHeaderCount", "maxBodyBytes", "headerTimeout",
                "keepAliveTimeout", "drainTimeout", "bodyTimeout", "sendTimeout", "maxRequestsPerConnection",
                "maxConnectionAge", "maxConnections", "underscoreHeaders");
        return new Limits(
                integer(n.get("maxRequestLine"), "limits.maxRequestLine", d.maxRequestLine(), 256, 1 << 20),
                integer(n.get("maxHeaderBytes"), "limits.maxHeaderBytes", d.maxHeaderBytes(), 1024, 1 << 24),
                integer(n.get("maxHeaderCount"), "limits.maxHeaderCount", d.maxHeaderCount(), 1, 10_000),
                longValue(n.get("maxBodyBytes"), "limits.maxBodyBytes", d.maxBodyBytes()),
                duration(n.get("headerTimeout"), "limits.headerTimeout", d.headerTimeout()),
                duration(n.get("keepAliveTimeout"), "limits.keepAliveTimeout", d.keepAliveTimeout()),
                duration(n.get("drainTimeout"), "limits.drainTimeout", d.drainTimeout()),
                positiveDuration(n.get("bodyTimeout"), "limits.bodyTimeout", d.bodyTimeout()),
                positiveDuration(n.get("sendTimeout"), "limits.sendTimeout", d.sendTimeout()),
                integer(n.get("maxRequestsPerConnection"), "limits.maxRequestsPerConnection",
                        d.maxRequestsPerConnection(), 0, Integer.MAX_VALUE),
                duration(n.get("maxConnectionAge"), "limits.maxConnectionAge", d.maxConnectionAge()),
                integer(n.get("maxConnections"), "limits.maxConnections", d.maxConnections(), 0, 10_000_000),
                enumValue(n.get("underscoreHeaders"), "limits.underscoreHeaders", d.underscoreHeaders(),
                        Limits.UnderscoreHeaders.class));
    }

    private Config.Listener listener(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "name", "address", "tls", "maxConnections", "proxyProtocol");
        String name = name(n.get("name"), path + ".name");
        HostPort address = address(n.get("address"), path + ".address");
        Config.Tls tls = null;
        JsonNode t = n.get("tls");
        if (t != null && !t.isNull() && object(t, path + ".tls")) {
            known(t, path + ".tls", "certificates", "clientValidation", "ocspStapling", "minVersion", "ciphers");
            // May be empty when the listener only passes TLS through (checked with the routes: checkCertificates).
            List<Config.Certificate> certs = list(t.get("certificates"), path + ".tls.certificates", false,
                    (c, p) -> {
                        if (!object(c, p)) {
                            return null;
                        }
                        known(c, p, "cert", "key", "ocspResponse");
                        JsonNode ocsp = c.get("ocspResponse");
                        return new Config.Certificate(requiredText(c.get("cert"), p + ".cert"),
                                requiredText(c.get("key"), p + ".key"),
                                ocsp == null || ocsp.isNull() ? null : requiredText(ocsp, p + ".ocspResponse"));
                    });
            Set<String> validated = new HashSet<>();
            List<Config.ClientValidation> clients = list(t.get("clientValidation"), path + ".tls.clientValidation",
                    false, (c, p) -> clientValidation(c, p, validated));
            Config.TlsVersion min = tlsVersion(t.get("minVersion"), path + ".tls.minVersion");
            List<String> ciphers = ciphers(t.get("ciphers"), path + ".tls.ciphers");
            if (!ciphers.isEmpty() && min == Config.TlsVersion.TLS_1_3) {
                error(path + ".tls.ciphers", "choose TLS 1.2's suites, and minVersion 1.3 speaks no TLS 1.2 (TLS 1.3's"
                        + " suites are always offered): leave one of the two out");
            }
            tls = new Config.Tls(nonNull(certs), nonNull(clients),
                    bool(t.get("ocspStapling"), path + ".tls.ocspStapling", false), min, ciphers);
        }
        int maxConnections = integer(n.get("maxConnections"), path + ".maxConnections", 0, 0, 10_000_000);
        return new Config.Listener(name, address, tls, maxConnections,
                bool(n.get("proxyProtocol"), path + ".proxyProtocol", false));
    }

    /** {@code 1.2} or {@code 1.3} (a number or text; {@code TLSv1.3} as nginx writes it too); absent: 1.2. */
    private Config.TlsVersion tlsVersion(JsonNode n, String path) {
        if (n == null || n.isNull()) {
            return Config.TlsVersion.TLS_1_2;
        }
        String v = n.isNumber() ? n.decimalValue().toPlainString() : n.isTextual() ? n.asText().trim() : "";
        Config.TlsVersion t = Config.TlsVersion.of(v);
        if (t != null) {
            return t;
        }
        error(path, v.equals("1.0") || v.equals("1.1") || v.equals("1")
                ? "TLS " + v + " is not spoken (RFC 8996 retired it): 1.2 or 1.3"
                : "must be 1.2 or 1.3, got " + describe(n));
        return Config.TlsVersion.TLS_1_2;
    }

    /**
     * TLS 1.2 cipher suites: a list of names, or one string of names separated by colons as nginx's
     * {@code ssl_ciphers} and ingress-nginx's {@code ssl-ciphers} take them; OpenSSL or IANA names. Their IANA
     * names, in order, each once.
     */
    private List<String> ciphers(JsonNode n, String path) {
        if (n == null || n.isNull()) {
            return List.of();
        }
        List<String> given = new ArrayList<>();
        List<String> paths = new ArrayList<>();
        if (n.isTextual()) {
            String[] parts = n.asText().split(":");
            for (String part : parts) {
                if (!part.isBlank()) {
                    given.add(part.trim());
                    paths.add(path);
                }
            }
        } else if (n.isArray()) {
            for (int i = 0; i < n.size(); i++) {
                String p = path + "[" + i + "]";
                String name = requiredText(n.get(i), p);
                if (name != null) {
                    given.add(name);
                    paths.add(p);
                }
            }
        } else {
            error(path, "must be a list of cipher suite names, or one string of them separated by colons");
            return List.of();
        }
        if (given.isEmpty()) {
            error(path, "names no suite: leave it out for the default");
            return List.of();
        }
        java.util.LinkedHashSet<String> out = new java.util.LinkedHashSet<>();
        for (int i = 0; i < given.size(); i++) {
            String iana = TlsCiphers.ianaName(given.get(i));
            if (iana == null) {
                error(paths.get(i), "\"" + given.get(i) + "\" is not a suite Strait speaks: one of " + TlsCiphers.names()
                        + " (or its IANA name); suites without forward secrecy, DHE, 3DES and RC4 are not");
            } else {
                out.add(iana);
            }
        }
        if (!out.isEmpty() && out.stream().allMatch(TlsCiphers::cbc)) {
            error(path, "has no AEAD suite (GCM or CHACHA20-POLY1305): HTTP/2 clients on TLS 1.2 need one (RFC 9113"
                    + " 9.2.2)");
        }
        return List.copyOf(out);
    }

    /** One {@code clientValidation} entry of a TLS listener; {@code taken} holds the hosts of the entries before it. */
    private Config.ClientValidation clientValidation(JsonNode n, String path, Set<String> taken) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "hosts", "ca", "mode", "verifyDepth", "subjectMatch", "forwardCertificate", "crl", "errorPage",
                "ocsp", "ocspResponder");
        List<String> hosts = list(n.get("hosts"), path + ".hosts", true, (h, p) -> {
            String host = host(h, p);
            if (host != null && !taken.add(host)) {
                error(p, "\"" + host + "\" is in an earlier clientValidation entry of the listener");
            }
            return host;
        });
        Config.ClientValidationMode mode = enumValue(n.get("mode"), path + ".mode", Config.ClientValidationMode.REQUIRE,
                Config.ClientValidationMode.class);
        String ca = null;
        JsonNode cn = n.get("ca");
        if (cn != null && !cn.isNull()) {
            ca = requiredText(cn, path + ".ca");
        } else if (mode != Config.ClientValidationMode.OPTIONAL_NO_CA) {
            error(path + ".ca", "is required: the CAs that issue client certificates (only optional-no-ca takes any)");
        }
        int depth = integer(n.get("verifyDepth"), path + ".verifyDepth", Config.ClientValidation.DEFAULT_VERIFY_DEPTH,
                1, 10);
        String subject = null;
        JsonNode sn = n.get("subjectMatch");
        if (sn != null && !sn.isNull()) {
            subject = requiredText(sn, path + ".subjectMatch");
            if (subject != null) {
                try {
                    Pattern.compile(subject);
                } catch (PatternSyntaxException e) {
                    error(path + ".subjectMatch", "not a valid regular expression: " + e.getDescription());
                }
            }
        }
        boolean forward = bool(n.get("forwardCertificate"), path + ".forwardCertificate", false);
        String crl = null;
        JsonNode rn = n.get("crl");
        if (rn != null && !rn.isNull()) {
            crl = requiredText(rn, path + ".crl");
            if (ca == null) {
                error(path + ".crl", "revokes certificates of the ca's CAs: give a ca too");
            }
        }
        String errorPage = null;
        JsonNode ep = n.get("errorPage");
        if (ep != null && !ep.isNull()) {
            errorPage = requiredText(ep, path + ".errorPage");
            if (errorPage != null && !redirectTarget(errorPage)) {
                error(path + ".errorPage", "must be an http(s) URL or a path starting with /, without spaces, got \""
                        + errorPage + "\"");
            }
        }
        Config.ClientOcsp ocsp = enumValue(n.get("ocsp"), path + ".ocsp", Config.ClientOcsp.OFF, Config.ClientOcsp.class);
        if (ocsp != Config.ClientOcsp.OFF && ca == null) {
            error(path + ".ocsp", "asks the ca's CAs about certificates they issued: give a ca too");
        }
        String responder = null;
        JsonNode on = n.get("ocspResponder");
        if (on != null && !on.isNull()) {
            responder = requiredText(on, path + ".ocspResponder");
            if (responder != null && !httpUrl(responder)) {
                error(path + ".ocspResponder", "must be an http(s) URL, got \"" + responder + "\"");
            } else if (responder != null && ocsp == Config.ClientOcsp.OFF) {
                error(path + ".ocspResponder", "is asked only with ocsp: leaf or chain");
            }
        }
        return new Config.ClientValidation(nonNull(hosts), ca, mode, depth, subject, forward, crl, errorPage, ocsp,
                responder);
    }

    /** An absolute http or https URL with a host, as an OCSP responder's address is. */
    public static boolean httpUrl(String s) {
        try {
            java.net.URI u = new java.net.URI(s);
            return u.getHost() != null && ("http".equalsIgnoreCase(u.getScheme()) || "https".equalsIgnoreCase(u.getScheme()));
        } catch (java.net.URISyntaxException e) {
            return false;
        }
    }

    /** An absolute http(s) URL or a path, of printable ASCII: what a Location field may carry as given. */
    public static boolean redirectTarget(String s) {
        boolean absolute = s.startsWith("https://") || s.startsWith("http://");
        return (absolute || s.startsWith("/") && !s.startsWith("//")) && s.length() <= 2048
                && s.chars().noneMatch(ch -> ch <= 0x20 || ch >= 0x7f);
    }

    private Upstream upstream(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "name", "endpoints", "protocol", "loadBalancer", "hashOn", "healthCheck", "outlierDetection",
                "panicThreshold", "pool", "maxConnections", "tls", "refuseLocalAddresses");
        String name = name(n.get("name"), path + ".name");
        Map<HostPort, Integer> weights = new HashMap<>();
        List<HostPort> endpoints = list(n.get("endpoints"), path + ".endpoints", false, (e, p) -> {
            if (e != null && e.isObject()) {
                known(e, p, "address", "weight");
                HostPort a = endpoint(e.get("address"), p + ".address");
                int w = integer(e.get("weight"), p + ".weight", 1, 0, 1000);
                if (a != null && w != 1) {
                    weights.put(a, w);
                }
                return a;
            }
            return endpoint(e, p);
        });
        Set<HostPort> seen = new HashSet<>();
        for (int i = 0; i < endpoints.size(); i++) {
            if (endpoints.get(i) != null && endpoints.get(i).port() == 0 && !endpoints.get(i).isUnixSocket()) {
                error(path + ".endpoints[" + i + "]", "port 0 is no port to connect to");
            } else if (endpoints.get(i) != null && !seen.add(endpoints.get(i))) {
                error(path + ".endpoints[" + i + "]", "duplicate endpoint " + endpoints.get(i));
            }
        }
        Upstream.Protocol protocol = enumValue(n.get("protocol"), path + ".protocol", Upstream.Protocol.HTTP1,
                Upstream.Protocol.class);
        Upstream.LoadBalancer lb = enumValue(n.get("loadBalancer"), path + ".loadBalancer",
                Upstream.LoadBalancer.ROUND_ROBIN, Upstream.LoadBalancer.class);
        Upstream.HashOn hashOn = null;
        JsonNode ho = n.get("hashOn");
        if (ho != null && !ho.isNull() && object(ho, path + ".hashOn")) {
            known(ho, path + ".hashOn", "source", "name", "setCookie", "also");
            Upstream.HashPart first = hashPart(ho, path + ".hashOn");
            Upstream.HashSource source = first.source();
            String hn = first.name();
            List<Upstream.HashPart> also = List.of();
            JsonNode an = ho.get("also");
            if (an != null && !an.isNull()) {
                also = nonNull(list(an, path + ".hashOn.also", true, (node, p) -> {
                    if (!object(node, p)) {
                        return null;
                    }
                    known(node, p, "source", "name");
                    return hashPart(node, p);
                }));
                if (ho.hasNonNull("setCookie")) {
                    error(path + ".hashOn.also", "is not used with setCookie (an affinity cookie is the whole key)");
                } else if (an.size() > 8) {
                    error(path + ".hashOn.also", "must list at most 8 parts, got " + an.size());
                }
            }
            Upstream.SetCookie setCookie = null;
            JsonNode sc = ho.get("setCookie");
            if (sc != null && !sc.isNull() && object(sc, path + ".hashOn.setCookie")) {
                known(sc, path + ".hashOn.setCookie", "path", "maxAge", "sameSite", "changeOnFailure", "domain",
                        "secure", "mode");
                if (source != Upstream.HashSource.COOKIE) {
                    error(path + ".hashOn.setCookie", "is only used with source cookie");
                }
                String cookiePath = sc.has("path") ? requiredText(sc.get("path"), path + ".hashOn.setCookie.path") : "/";
                if (cookiePath != null && !COOKIE_PATH.matcher(cookiePath).matches()) {
                    error(path + ".hashOn.setCookie.path", "\"" + cookiePath + "\" is not a cookie path (starts with /;"
                            + " no spaces, ; or control characters)");
                }
                String sameSite = sc.hasNonNull("sameSite") ? requiredText(sc.get("sameSite"), path + ".hashOn.setCookie.sameSite")
                        : null;
                if (sameSite != null && !Upstream.SetCookie.SAME_SITE.contains(sameSite)) {
                    error(path + ".hashOn.setCookie.sameSite", "must be Strict, Lax or None, got \"" + sameSite + "\"");
                }
                String mode = text(sc.get("mode"), path + ".hashOn.setCookie.mode", Upstream.SetCookie.BALANCED);
                if (!mode.equals(Upstream.SetCookie.BALANCED) && !mode.equals(Upstream.SetCookie.PERSISTENT)) {
                    error(path + ".hashOn.setCookie.mode", "must be balanced or persistent, got \"" + mode + "\"");
                }
                setCookie = new Upstream.SetCookie(cookiePath,
                        positiveDuration(sc.get("maxAge"), path + ".hashOn.setCookie.maxAge", null), sameSite,
                        bool(sc.get("changeOnFailure"), path + ".hashOn.setCookie.changeOnFailure", false),
                        sc.hasNonNull("domain") ? cookieDomain(sc.get("domain"), path + ".hashOn.setCookie.domain") : null,
                        bool(sc.get("secure"), path + ".hashOn.setCookie.secure", false),
                        mode.equals(Upstream.SetCookie.PERSISTENT));
            }
            hashOn = new Upstream.HashOn(source, hn, setCookie, also);
            if (lb != Upstream.LoadBalancer.CONSISTENT_HASH) {
                error(path + ".hashOn", "is only used with loadBalancer: consistent-hash");
            }
        }
        Upstream.HealthCheck hc = null;
        JsonNode h = n.get("healthCheck");
        if (h != null && !h.isNull() && object(h, path + ".healthCheck")) {
            String hp0 = path + ".healthCheck";
            known(h, hp0, "path", "interval", "timeout", "unhealthyThreshold", "healthyThreshold");
            String hp = text(h.get("path"), hp0 + ".path", "/healthz");
            if (hp != null && !hp.startsWith("/")) {
                error(hp0 + ".path", "must start with /");
            } else if (hp != null && hp.chars().anyMatch(c -> c <= 0x20 || c >= 0x7f)) {
                error(hp0 + ".path", "must not contain spaces or control characters");
            }
            hc = new Upstream.HealthCheck(hp,
                    positiveDuration(h.get("interval"), hp0 + ".interval", Duration.ofSeconds(5)),
                    positiveDuration(h.get("timeout"), hp0 + ".timeout", Upstream.HealthCheck.DEFAULT_TIMEOUT),
                    integer(h.get("unhealthyThreshold"), hp0 + ".unhealthyThreshold", 3, 1, 100),
                    integer(h.get("healthyThreshold"), hp0 + ".healthyThreshold", 1, 1, 100));
        }
        Upstream.OutlierDetection od = Upstream.OutlierDetection.DEFAULTS;
        JsonNode o = n.get("outlierDetection");
        if (o != null && !o.isNull() && object(o, path + ".outlierDetection")) {
            String op = path + ".outlierDetection";
            known(o, op, "consecutiveFailures", "baseEjectionTime", "maxEjectionTime");
            od = new Upstream.OutlierDetection(
                    integer(o.get("consecutiveFailures"), op + ".consecutiveFailures", od.consecutiveFailures(), 0, 1000),
                    positiveDuration(o.get("baseEjectionTime"), op + ".baseEjectionTime", od.baseEjectionTime()),
                    positiveDuration(o.get("maxEjectionTime"), op + ".maxEjectionTime", od.maxEjectionTime()));
            if (od.maxEjectionTime().compareTo(od.baseEjectionTime()) < 0) {
                error(op + ".maxEjectionTime", "must not be shorter than baseEjectionTime");
            }
        }
        int panic = integer(n.get("panicThreshold"), path + ".panicThreshold", Upstream.DEFAULT_PANIC_THRESHOLD,
                0, 100);
        Upstream.Pool pool = Upstream.Pool.DEFAULTS;
        JsonNode pn = n.get("pool");
        if (pn != null && !pn.isNull() && object(pn, path + ".pool")) {
            String pp = path + ".pool";
            known(pn, pp, "maxIdlePerLoop", "idleTimeout", "maxRequestsPerConnection", "connectTimeout");
            pool = new Upstream.Pool(
                    integer(pn.get("maxIdlePerLoop"), pp + ".maxIdlePerLoop", pool.maxIdlePerLoop(), 0, 100_000),
                    positiveDuration(pn.get("idleTimeout"), pp + ".idleTimeout", pool.idleTimeout()),
                    integer(pn.get("maxRequestsPerConnection"), pp + ".maxRequestsPerConnection",
                            pool.maxRequestsPerConnection(), 0, Integer.MAX_VALUE),
                    positiveDuration(pn.get("connectTimeout"), pp + ".connectTimeout", pool.connectTimeout()));
        }
        int maxConnections = integer(n.get("maxConnections"), path + ".maxConnections", 0, 1, 100_000);
        Upstream.Tls tls = null;
        JsonNode t = n.get("tls");
        if (t != null && !t.isNull() && object(t, path + ".tls")) {
            String tp = path + ".tls";
            known(t, tp, "ca", "serverName", "cert", "key", "verify", "verifyDepth");
            boolean verify = bool(t.get("verify"), tp + ".verify", true);
            int depth = integer(t.get("verifyDepth"), tp + ".verifyDepth", 0, 1, 10);
            if (depth > 0 && !t.hasNonNull("ca")) {
                error(tp + ".verifyDepth", "needs ca (the depth counts up to one of its CAs)");
            }
            if (!verify && t.hasNonNull("ca")) {
                error(tp + ".ca", "is not used with verify: false (nothing is checked); give one or the other");
            }
            String serverName = text(t.get("serverName"), tp + ".serverName", null);
            if (serverName != null && !HOST_LABELS.matcher(serverName.toLowerCase(Locale.ROOT)).matches()) {
                error(tp + ".serverName", "\"" + serverName + "\" is not a host name");
            }
            String cert = text(t.get("cert"), tp + ".cert", null);
            String key = text(t.get("key"), tp + ".key", null);
            if (cert != null && key == null) {
                error(tp + ".key", "is required with cert (mutual TLS needs both)");
            } else if (key != null && cert == null) {
                error(tp + ".cert", "is required with key (mutual TLS needs both)");
            }
            if (protocol != Upstream.Protocol.HTTP1 && protocol != Upstream.Protocol.H2) {
                error(tp, "is only available for http1 and h2 upstreams (h2c and fastcgi are cleartext)");
            }
            tls = new Upstream.Tls(text(t.get("ca"), tp + ".ca", null), serverName, cert, key, verify, depth);
        }
        if (tls == null && protocol == Upstream.Protocol.H2) {
            tls = new Upstream.Tls(null, null, null, null); // h2 is HTTP/2 over TLS: the JDK's trust store, the endpoint's name
        }
        if (tls != null && endpoints.stream().anyMatch(e -> e != null && e.isUnixSocket())) {
            // A socket file is reached only from this host, and TLS to it would have no name to check.
            error(n.has("tls") ? path + ".tls" : path + ".protocol", "TLS is not spoken over unix socket endpoints ("
                    + (protocol == Upstream.Protocol.H2 ? "h2 is HTTP/2 over TLS; use h2c" : "leave tls out") + ")");
        }
        boolean refuseLocal = bool(n.get("refuseLocalAddresses"), path + ".refuseLocalAddresses", false);
        if (refuseLocal && endpoints.stream().anyMatch(e -> e != null && e.isUnixSocket())) {
            error(path + ".refuseLocalAddresses", "a unix socket endpoint is a local address");
        }
        return new Upstream(name, nonNull(endpoints), protocol, lb, hc, weights, hashOn, pool, od, panic,
                maxConnections, tls, refuseLocal);
    }

    private Route route(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "name", "hosts", "rules", "listeners", "tlsPassthrough", "hsts");
        String name = name(n.get("name"), path + ".name");
        List<String> hosts = list(n.get("hosts"), path + ".hosts", true, this::host);
        Route.TlsPassthrough passthrough = null;
        JsonNode tp = n.get("tlsPassthrough");
        if (tp != null && !tp.isNull() && object(tp, path + ".tlsPassthrough")) {
            known(tp, path + ".tlsPassthrough", "upstream", "proxyProtocol");
            passthrough = new Route.TlsPassthrough(name(tp.get("upstream"), path + ".tlsPassthrough.upstream"),
                    integer(tp.get("proxyProtocol"), path + ".tlsPassthrough.proxyProtocol", 0, 1, 2));
            for (int i = 0; i < hosts.size(); i++) {
                if ("*".equals(hosts.get(i))) {
                    error(path + ".hosts[" + i + "]", "tlsPassthrough needs host names: a connection is passed"
                            + " through on the name its ClientHello sends (SNI), so * cannot be told apart");
                }
            }
            if (n.hasNonNull("rules")) {
                error(path + ".rules", "a route with tlsPassthrough has no rules: its TLS connections go to the"
                        + " upstream as they are, and plain-HTTP requests for its hosts are redirected to https");
            }
        }
        List<Route.Rule> rules = passthrough != null ? List.of()
                : list(n.get("rules"), path + ".rules", true, this::rule);
        // Absent: every listener. Present: at least one name (an empty list would serve the route nowhere);
        // whether each names a listener of the config is checked with the whole config (checkListeners).
        JsonNode ln = n.get("listeners");
        List<String> listeners = null;
        if (ln != null && !ln.isNull()) {
            listeners = nonNull(list(ln, path + ".listeners", true, this::name));
            Set<String> seen = new HashSet<>();
            for (int i = 0; i < ln.size(); i++) {
                if (ln.get(i).isTextual() && !seen.add(ln.get(i).asText())) {
                    error(path + ".listeners[" + i + "]", "listener \"" + ln.get(i).asText() + "\" is listed twice");
                }
            }
        }
        Route.Hsts hsts = hsts(n.get("hsts"), path + ".hsts");
        if (hsts != null && passthrough != null) {
            error(path + ".hsts", "a route with tlsPassthrough gives no answers to add it to: its backend ends TLS");
        }
        return new Route(name, nonNull(hosts), nonNull(rules), listeners, passthrough, hsts);
    }

    /** {@code { maxAgeSeconds, includeSubDomains, preload }} ({@code {}}: one year); null when absent. */
    private Route.Hsts hsts(JsonNode n, String path) {
        if (n == null || n.isNull() || !object(n, path)) {
            return null;
        }
        known(n, path, "maxAgeSeconds", "includeSubDomains", "preload");
        JsonNode an = n.get("maxAgeSeconds");
        long maxAge = Route.Hsts.DEFAULT_MAX_AGE;
        if (an != null && !an.isNull()) {
            if (!an.isIntegralNumber() || !an.canConvertToLong() || an.asLong() < 0) {
                error(path + ".maxAgeSeconds", "must be a whole number of seconds (0 tells browsers to forget the"
                        + " host), got " + describe(an));
            } else {
                maxAge = an.asLong();
            }
        }
        boolean sub = bool(n.get("includeSubDomains"), path + ".includeSubDomains", false);
        boolean preload = bool(n.get("preload"), path + ".preload", false);
        if (preload && (!sub || maxAge < Route.Hsts.DEFAULT_MAX_AGE)) {
            error(path + ".preload", "needs includeSubDomains: true and maxAgeSeconds of at least 31536000 (one year),"
                    + " as the browsers' preload list requires");
        }
        return new Route.Hsts(maxAge, sub, preload);
    }

    /** A cookie's {@code Domain}, as {@link Upstream.SetCookie#domainProblem} takes it. */
    private String cookieDomain(JsonNode n, String path) {
        String d = requiredText(n, path);
        String problem = d == null ? null : Upstream.SetCookie.domainProblem(d);
        if (problem != null) {
            error(path, problem);
            return null;
        }
        return d;
    }

    private String host(JsonNode n, String path) {
        String h = requiredText(n, path);
        if (h == null) {
            return null;
        }
        h = h.toLowerCase(Locale.ROOT);
        if (h.equals("*")) {
            return h;
        }
        String labels = h.startsWith("*.") ? h.substring(2) : h;
        if (!HOST_LABELS.matcher(labels).matches()) {
            error(path, "\"" + h + "\" is not a host name (use example.com, *.example.com or *)");
            return null;
        }
        return h;
    }

    private Route.Rule rule(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "matches", "respond", "files", "backends", "redirect", "cache", "timeouts", "retries",
                "hostRewrite", "pathRewrite", "fastcgi", "clientAddresses",
                "basicAuth", "rateLimit", "cors", "maxBodyBytes", "requestHeaders", "responseHeaders", "inFlightLimit",
                "satisfy", "errorPages", "accessLog", "forwardAuth", "mirrors", "responseRewrite", "requestBuffering",
                "responseRate", "tracing", "compression", "jwtAuth");
        List<Route.Match> matches = n.has("matches")
                ? list(n.get("matches"), path + ".matches", true, this::match)
                : List.of(new Route.Match(null, null, List.of()));
        List<String> actions = new ArrayList<>();
        for (String a : List.of("respond", "files", "backends", "redirect")) {
            if (n.has(a)) {
                actions.add(a);
            }
        }
        Route.Action action = null;
        if (actions.size() != 1) {
            error(path, actions.isEmpty()
                    ? "needs one action: respond, files, backends or redirect"
                    : "has " + String.join(" and ", actions) + "; a rule takes exactly one action");
        } else {
            action = switch (actions.get(0)) {
                case "respond" -> respond(n.get("respond"), path + ".respond");
                case "files" -> files(n.get("files"), path + ".files");
                case "redirect" -> redirect(n.get("redirect"), path + ".redirect");
                default -> backends(n.get("backends"), path + ".backends");
            };
        }
        Route.Cache cache = null;
        JsonNode c = n.get("cache");
        if (c != null && !c.isNull()) {
            cache = cache(c, path + ".cache", action);
        }
        Route.Timeouts timeouts = null;
        JsonNode t = n.get("timeouts");
        if (t != null && !t.isNull() && object(t, path + ".timeouts")) {
            known(t, path + ".timeouts", "request", "perTry", "idle");
            timeouts = new Route.Timeouts(positiveDuration(t.get("request"), path + ".timeouts.request", null),
                    positiveDuration(t.get("perTry"), path + ".timeouts.perTry", null),
                    positiveDuration(t.get("idle"), path + ".timeouts.idle", null));
        }
        Route.Retries retries = null;
        JsonNode r = n.get("retries");
        if (r != null && !r.isNull() && object(r, path + ".retries")) {
            known(r, path + ".retries", "attempts", "retryOn", "backoff");
            List<String> retryOn = nonNull(list(r.get("retryOn"), path + ".retries.retryOn", false, (rn, cp) -> {
                String on = requiredText(rn, cp);
                if (on != null && !Route.Retries.CONDITIONS.contains(on) && !STATUS.matcher(on).matches()) {
                    error(cp, "must be one of " + String.join(", ", Route.Retries.CONDITIONS)
                            + " or a status code 100..599, got \"" + on + "\"");
                    return null;
                }
                return on;
            }));
            retries = new Route.Retries(integer(r.get("attempts"), path + ".retries.attempts", 1, 0, 10), retryOn,
                    positiveDuration(r.get("backoff"), path + ".retries.backoff", null));
        }
        String hostRewrite = hostRewrite(n.get("hostRewrite"), path + ".hostRewrite");
        if (hostRewrite != null && action != null && !(action instanceof Route.Backends)) {
            error(path + ".hostRewrite", "only applies to a rule with backends");
        }
        Route.PathModifier pathRewrite = null;
        JsonNode pr = n.get("pathRewrite");
        if (pr != null && !pr.isNull()) {
            pathRewrite = pathModifier(pr, path + ".pathRewrite", true);
            if (pathRewrite != null && action != null && !(action instanceof Route.Backends)) {
                error(path + ".pathRewrite", "only applies to a rule with backends");
            }
        }
        if (matches != null) {
            prefixOnly(pathRewrite, matches, path + ".pathRewrite");
            if (action instanceof Route.Redirect rd) {
                prefixOnly(rd.path(), matches, path + ".redirect.path");
            }
        }
        Route.FastCgi fastcgi = null;
        JsonNode f = n.get("fastcgi");
        if (f != null && !f.isNull()) {
            fastcgi = fastcgi(f, path + ".fastcgi");
        }
        Route.ClientAddresses clients = null;
        JsonNode ca = n.get("clientAddresses");
        if (ca != null && !ca.isNull()) {
            clients = clientAddresses(ca, path + ".clientAddresses");
        }
        Route.BasicAuth basicAuth = null;
        JsonNode ba = n.get("basicAuth");
        if (ba != null && !ba.isNull()) {
            basicAuth = basicAuth(ba, path + ".basicAuth");
        }
        Route.JwtAuth jwtAuth = null;
        JsonNode ja = n.get("jwtAuth");
        if (ja != null && !ja.isNull()) {
            jwtAuth = jwtAuth(ja, path + ".jwtAuth");
            if (basicAuth != null) {
                error(path + ".jwtAuth", "and basicAuth both read the Authorization field: a rule takes one of them");
            }
        }
        Route.RateLimit rateLimit = null;
        JsonNode rl = n.get("rateLimit");
        if (rl != null && !rl.isNull()) {
            rateLimit = rateLimit(rl, path + ".rateLimit");
        }
        Route.Cors cors = null;
        JsonNode co = n.get("cors");
        if (co != null && !co.isNull()) {
            cors = cors(co, path + ".cors");
        }
        JsonNode mb = n.get("maxBodyBytes");
        Long maxBodyBytes = mb == null || mb.isNull() ? null : longValue(mb, path + ".maxBodyBytes", 0);
        Route.HeaderEdits requestHeaders = headerEdits(n.get("requestHeaders"), path + ".requestHeaders",
                RESERVED_REQUEST_HEADERS, "is the proxy's to set (Host: use hostRewrite)");
        Route.HeaderEdits responseHeaders = headerEdits(n.get("responseHeaders"), path + ".responseHeaders",
                RESERVED_RESPONSE_HEADERS, "is set by the proxy and cannot be configured");
        Route.InFlightLimit inFlight = null;
        JsonNode fl = n.get("inFlightLimit");
        if (fl != null && !fl.isNull() && object(fl, path + ".inFlightLimit")) {
            known(fl, path + ".inFlightLimit", "requests", "exempt");
            if (!fl.has("requests")) {
                error(path + ".inFlightLimit.requests", "is required");
            }
            inFlight = new Route.InFlightLimit(integer(fl.get("requests"), path + ".inFlightLimit.requests", 1, 1, 100_000),
                    nonNull(list(fl.get("exempt"), path + ".inFlightLimit.exempt", false, this::ipBlock)));
        }
        Route.Satisfy satisfy = Route.Satisfy.ALL;
        JsonNode sa = n.get("satisfy");
        if (sa != null && !sa.isNull()) {
            switch (sa.asText("")) {
                case "all" -> { }
                case "any" -> {
                    satisfy = Route.Satisfy.ANY;
                    if (!n.hasNonNull("clientAddresses") || !n.hasNonNull("basicAuth")) {
                        error(path + ".satisfy", "\"any\" chooses between clientAddresses and basicAuth; the rule"
                                + " needs both");
                    }
                }
                default -> error(path + ".satisfy", "must be all or any, got " + sa);
            }
        }
        Route.ErrorPages errorPages = null;
        JsonNode ep = n.get("errorPages");
        if (ep != null && !ep.isNull() && object(ep, path + ".errorPages")) {
            String p = path + ".errorPages";
            known(ep, p, "statuses", "upstream", "path");
            List<Integer> statuses = nonNull(list(ep.get("statuses"), p + ".statuses", true,
                    (s, sp) -> integer(s, sp, 0, 400, 599)));
            if (statuses.size() > 100) {
                error(p + ".statuses", "lists more than 100 statuses");
            }
            if (!ep.has("upstream")) {
                error(p + ".upstream", "is required");
            }
            String pagePath = ep.hasNonNull("path") ? ep.get("path").asText("") : "/";
            if (!pagePath.startsWith("/") || pagePath.length() > 1024
                    || pagePath.chars().anyMatch(ch -> ch <= 0x20 || ch >= 0x7f || ch == '#')) {
                error(p + ".path", "must be a path starting with /, without spaces or '#', got \"" + pagePath + "\"");
            }
            errorPages = new Route.ErrorPages(statuses, name(ep.get("upstream"), p + ".upstream"), pagePath);
        }
        boolean logged = bool(n.get("accessLog"), path + ".accessLog", true);
        return new Route.Rule(nonNull(matches), action, cache, timeouts, retries, hostRewrite, fastcgi, pathRewrite,
                clients, basicAuth, rateLimit, cors, maxBodyBytes, requestHeaders, responseHeaders, inFlight, satisfy,
                errorPages, logged, forwardAuth(n.get("forwardAuth"), path + ".forwardAuth"),
                nonNull(list(n.get("mirrors"), path + ".mirrors", false, this::mirror)),
                responseRewrite(n.get("responseRewrite"), path + ".responseRewrite", action),
                requestBuffering(n.get("requestBuffering"), path + ".requestBuffering", action),
                responseRate(n.get("responseRate"), path + ".responseRate", action),
                bool(n.get("tracing"), path + ".tracing", true),
                compression(n.get("compression"), path + ".compression", action), jwtAuth);
    }

    /** A media type as {@code Content-Type} names it, or a whole top-level type ({@code text/*}). */
    private static final java.util.regex.Pattern MEDIA_RANGE = java.util.regex.Pattern.compile(
            "[a-z0-9][a-z0-9!#$&^_.+-]{0,126}/(\\*|[a-z0-9][a-z0-9!#$&^_.+-]{0,126})");

    /** {@code { types, minBytes, level, codings }} ({@code {}} for the defaults), not for redirects; null when absent. */
    private Route.Compression compression(JsonNode n, String path, Route.Action action) {
        if (n == null || n.isNull() || !object(n, path)) {
            return null;
        }
        known(n, path, "types", "minBytes", "level", "codings");
        if (action instanceof Route.Redirect) {
            error(path, "a redirect's answer has no body to compress");
        }
        List<String> types = Route.Compression.DEFAULT_TYPES;
        if (n.has("types")) {
            types = nonNull(list(n.get("types"), path + ".types", true, (e, p) -> {
                String t = requiredText(e, p);
                if (t == null) {
                    return null;
                }
                String lower = t.trim().toLowerCase(java.util.Locale.ROOT);
                if (!MEDIA_RANGE.matcher(lower).matches()) {
                    error(p, "must be a media type such as text/html, or type/* such as text/*, got \"" + t + "\"");
                    return null;
                }
                return lower;
            }));
        }
        long min = longValue(n.get("minBytes"), path + ".minBytes", Route.Compression.DEFAULT_MIN_BYTES);
        int level = integer(n.get("level"), path + ".level", Route.Compression.DEFAULT_LEVEL, 1, 9);
        List<String> codings = Route.Compression.DEFAULT_CODINGS;
        if (n.has("codings")) {
            codings = nonNull(list(n.get("codings"), path + ".codings", true, (e, p) -> {
                String s = requiredText(e, p);
                if (s != null && !Route.Compression.CODINGS.contains(s)) {
                    error(p, "must be zstd, br or gzip, got \"" + s + "\"");
                    return null;
                }
                return s;
            }));
            if (new java.util.HashSet<>(codings).size() < codings.size()) {
                error(path + ".codings", "names a coding twice: " + codings);
            }
        }
        return new Route.Compression(types, min, level, codings);
    }

    /** {@code { bytesPerSecond, afterBytes }}, only with backends; null when absent. */
    private Route.ResponseRate responseRate(JsonNode n, String path, Route.Action action) {
        if (n == null || n.isNull() || !object(n, path)) {
            return null;
        }
        known(n, path, "bytesPerSecond", "afterBytes");
        if (action != null && !(action instanceof Route.Backends)) {
            error(path, "only applies to a rule with backends (answers streamed from an upstream)");
        }
        if (n.get("bytesPerSecond") == null || n.get("bytesPerSecond").isNull()) {
            error(path + ".bytesPerSecond", "is required");
            return null;
        }
        long rate = longValue(n.get("bytesPerSecond"), path + ".bytesPerSecond", 0);
        if (rate < 1) {
            error(path + ".bytesPerSecond", "must be at least 1 byte a second, got " + rate);
        }
        return new Route.ResponseRate(rate, longValue(n.get("afterBytes"), path + ".afterBytes", 0));
    }

    /** The most of a buffered request body held in memory; the rest goes to a file ({@code requestBodyFiles}). */
    private static final long MAX_REQUEST_MEMORY = 64L << 20;
    /** The most of a request body read before its upstream is asked (1 TiB: no real bound but the files'). */
    private static final long MAX_REQUEST_BUFFER = 1L << 40;

    /** {@code { maxBytes, memoryBytes }} (default 1 MiB, all of it in memory), only with backends; null when absent. */
    private Route.RequestBuffering requestBuffering(JsonNode n, String path, Route.Action action) {
        if (n == null || n.isNull() || !object(n, path)) {
            return null;
        }
        known(n, path, "maxBytes", "memoryBytes");
        if (action != null && !(action instanceof Route.Backends)) {
            error(path, "only applies to a rule with backends");
        }
        long max = longValue(n.get("maxBytes"), path + ".maxBytes", 1L << 20);
        if (max < 1 || max > MAX_REQUEST_BUFFER) {
            error(path + ".maxBytes", "must be 1 to " + MAX_REQUEST_BUFFER + " bytes, got " + max);
        }
        long memory = longValue(n.get("memoryBytes"), path + ".memoryBytes",
                Math.min(max, Route.RequestBuffering.DEFAULT_MEMORY));
        if (memory < 0 || memory > MAX_REQUEST_MEMORY) {
            error(path + ".memoryBytes", "must be 0 to " + MAX_REQUEST_MEMORY + " bytes, got " + memory);
        } else if (memory > max) {
            error(path + ".memoryBytes", "must not be more than maxBytes (" + max + "), got " + memory);
        }
        return new Route.RequestBuffering(max, memory);
    }

    /** {@code requestBodyFiles: { directory, maxBytes }}. */
    private Config.RequestBodyFiles requestBodyFiles(JsonNode n) {
        known(n, "requestBodyFiles", "directory", "maxBytes");
        String dir = null;
        JsonNode d = n.get("directory");
        if (d != null && !d.isNull()) {
            if (!d.isTextual() || d.asText().isBlank()) {
                error("requestBodyFiles.directory", "must be a directory's path, got " + describe(d));
            } else if (!d.asText().startsWith("/")) {
                error("requestBodyFiles.directory", "must be an absolute path, got \"" + d.asText() + "\"");
            } else {
                dir = d.asText();
            }
        }
        long max = longValue(n.get("maxBytes"), "requestBodyFiles.maxBytes",
                Config.RequestBodyFiles.DEFAULTS.maxBytes());
        return new Config.RequestBodyFiles(dir, max);
    }

    /** {@code { location, cookiePath, cookieDomain }}, lists of {@code { from, to }}; null when absent. */
    private Route.ResponseRewrite responseRewrite(JsonNode n, String path, Route.Action action) {
        if (n == null || n.isNull() || !object(n, path)) {
            return null;
        }
        known(n, path, "location", "cookiePath", "cookieDomain");
        if (action != null && !(action instanceof Route.Backends)) {
            error(path, "only applies to a rule with backends");
        }
        Route.ResponseRewrite r = new Route.ResponseRewrite(
                nonNull(list(n.get("location"), path + ".location", false, (e, p) -> replace(e, p, URL_PART))),
                nonNull(list(n.get("cookiePath"), path + ".cookiePath", false, (e, p) -> replace(e, p, COOKIE_VALUE))),
                nonNull(list(n.get("cookieDomain"), path + ".cookieDomain", false, (e, p) -> replace(e, p, COOKIE_VALUE))));
        if (!n.has("location") && !n.has("cookiePath") && !n.has("cookieDomain")) {
            error(path, "needs location, cookiePath or cookieDomain");
        }
        return r;
    }

    /** Text that can stand in a Location field: visible ASCII. */
    private static final Pattern URL_PART = Pattern.compile("[\\x21-\\x7e]+");
    /** Text that can stand in a cookie attribute's value: visible ASCII but ';'. */
    private static final Pattern COOKIE_VALUE = Pattern.compile("[\\x21-\\x3a\\x3c-\\x7e]+");

    private Route.Replace replace(JsonNode n, String path, Pattern allowed) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "from", "to");
        String from = requiredText(n.get("from"), path + ".from");
        String to = requiredText(n.get("to"), path + ".to");
        if (from != null && !allowed.matcher(from).matches()) {
            error(path + ".from", "must be visible ASCII without spaces" + (allowed == COOKIE_VALUE ? " or ';'" : "")
                    + ", got \"" + from + "\"");
        }
        if (to != null && !to.isEmpty() && !allowed.matcher(to).matches()) {
            error(path + ".to", "must be visible ASCII without spaces" + (allowed == COOKIE_VALUE ? " or ';'" : "")
                    + ", got \"" + to + "\"");
        }
        return from == null || to == null ? null : new Route.Replace(from, to);
    }

    /** {@code { upstream, percent, hostRewrite, body }}. */
    private Route.Mirror mirror(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "upstream", "percent", "hostRewrite", "body");
        String upstream = name(n.get("upstream"), path + ".upstream");
        double percent = 100;
        JsonNode pn = n.get("percent");
        if (pn != null && !pn.isNull()) {
            if (!pn.isNumber() || !(pn.asDouble() > 0) || pn.asDouble() > 100) {
                error(path + ".percent", "must be a number over 0 and at most 100, got " + describe(pn));
            } else {
                percent = pn.asDouble();
            }
        }
        return new Route.Mirror(upstream, percent, hostRewrite(n.get("hostRewrite"), path + ".hostRewrite"),
                bool(n.get("body"), path + ".body", true));
    }

    /** A Host to send instead of the client's: a name or address with an optional port; null when absent or bad. */
    private String hostRewrite(JsonNode n, String path) {
        if (n == null || n.isNull()) {
            return null;
        }
        String host = requiredText(n, path);
        if (host != null && !HOST_VALUE.matcher(host).matches()) {
            error(path, "\"" + host + "\" is not a host (name or address, optional :port)");
            return null;
        }
        return host;
    }

    /** {@code { upstream, path, responseHeaders, signIn, alwaysSetCookie, cache }}, or null when absent. */
    private Route.ForwardAuth forwardAuth(JsonNode n, String path) {
        if (n == null || n.isNull() || !object(n, path)) {
            return null;
        }
        known(n, path, "upstream", "path", "responseHeaders", "signIn", "alwaysSetCookie", "cache");
        if (!n.hasNonNull("upstream") && !n.hasNonNull("path")) {
            // Routed by this proxy, the default / would ask the site's own root: the app, not a service.
            error(path + ".path", "is required without an upstream (the check is routed on the request's host)");
        }
        String check = n.hasNonNull("path") ? n.get("path").asText("") : "/";
        if (!check.startsWith("/") || check.length() > 1024
                || check.chars().anyMatch(ch -> ch <= 0x20 || ch >= 0x7f || ch == '#')) {
            error(path + ".path", "must be a path starting with /, without spaces or '#', got \"" + check + "\"");
        }
        List<String> copied = nonNull(list(n.get("responseHeaders"), path + ".responseHeaders", false, (h, hp) -> {
            String name = requiredText(h, hp);
            if (name != null && !TOKEN.matcher(name).matches()) {
                error(hp, "\"" + name + "\" is not a header name");
            } else if (name != null && RESERVED_REQUEST_HEADERS.contains(name.toLowerCase(Locale.ROOT))) {
                error(hp, "is the proxy's to set, not the authorization service's");
            }
            return name == null ? null : name.toLowerCase(Locale.ROOT);
        }));
        String signIn = null;
        JsonNode si = n.get("signIn");
        if (si != null && !si.isNull()) {
            signIn = si.asText("");
            if (!redirectTarget(signIn)) {
                error(path + ".signIn", "must be an http(s) URL or a path starting with /, without spaces, got \""
                        + signIn + "\"");
            }
        }
        // Without an upstream the check is routed as a request to this host (nginx's auth_request location).
        String upstream = n.hasNonNull("upstream") ? name(n.get("upstream"), path + ".upstream") : null;
        boolean always = bool(n.get("alwaysSetCookie"), path + ".alwaysSetCookie", false);
        return new Route.ForwardAuth(upstream, check, copied, signIn, always, authCache(n.get("cache"), path + ".cache"));
    }

    /** {@code { headers, cookies, duration }}, or null when absent. */
    private Route.AuthCache authCache(JsonNode n, String path) {
        if (n == null || n.isNull() || !object(n, path)) {
            return null;
        }
        known(n, path, "headers", "cookies", "duration");
        List<String> headers = nonNull(list(n.get("headers"), path + ".headers", false, (h, hp) -> {
            String name = requiredText(h, hp);
            if (name != null && !TOKEN.matcher(name).matches()) {
                error(hp, "\"" + name + "\" is not a header name");
                return null;
            }
            return name == null ? null : name.toLowerCase(Locale.ROOT);
        }));
        List<String> cookies = nonNull(list(n.get("cookies"), path + ".cookies", false, (c, cp) -> {
            String name = requiredText(c, cp);
            if (name != null && !TOKEN.matcher(name).matches()) {
                error(cp, "\"" + name + "\" is not a cookie name");
                return null;
            }
            return name;
        }));
        if (headers.isEmpty() && cookies.isEmpty()) {
            // Keyed by nothing, one client's yes would let every client in.
            error(path, "needs headers or cookies that say who the client is (a yes is kept for them alone)");
        }
        Duration d = duration(n.get("duration"), path + ".duration", null);
        if (d == null && !n.hasNonNull("duration")) {
            error(path + ".duration", "is required");
        } else if (d != null && (d.isZero() || d.compareTo(Duration.ofHours(24)) > 0)) {
            error(path + ".duration", "must be more than 0 and at most 24h");
        }
        return new Route.AuthCache(headers, cookies, d == null ? Duration.ofMinutes(1) : d);
    }

    /** {@code { set: {name: value}, add: {name: value}, remove: [name] }}, or null when absent. */
    private Route.HeaderEdits headerEdits(JsonNode n, String path, Set<String> reserved, String reservedWhy) {
        if (n == null || n.isNull() || !object(n, path)) {
            return null;
        }
        known(n, path, "set", "add", "remove");
        Map<String, String> set = fieldValues(n.get("set"), path + ".set", reserved, reservedWhy);
        Map<String, String> add = fieldValues(n.get("add"), path + ".add", reserved, reservedWhy);
        List<String> remove = nonNull(list(n.get("remove"), path + ".remove", false, (r, rp) -> {
            String name = requiredText(r, rp);
            if (name != null && !TOKEN.matcher(name).matches()) {
                error(rp, "\"" + name + "\" is not a header name");
            } else if (name != null && reserved.contains(name.toLowerCase(Locale.ROOT))) {
                error(rp, reservedWhy);
            }
            return name == null ? null : name.toLowerCase(Locale.ROOT);
        }));
        return new Route.HeaderEdits(set, add, remove);
    }

    /** Header fields and their values, names lower case; reserved names and control characters are errors. */
    private Map<String, String> fieldValues(JsonNode n, String path, Set<String> reserved, String reservedWhy) {
        Map<String, String> out = new LinkedHashMap<>();
        if (n == null || n.isNull() || !object(n, path)) {
            return out;
        }
        n.fields().forEachRemaining(e -> {
            String fp = path + "." + e.getKey();
            String name = e.getKey().toLowerCase(Locale.ROOT);
            if (!TOKEN.matcher(e.getKey()).matches()) {
                error(fp, "\"" + e.getKey() + "\" is not a header name");
            } else if (reserved.contains(name)) {
                error(fp, reservedWhy);
            } else if (out.containsKey(name)) {
                error(fp, "is named twice (names compare case-insensitively)");
            } else if (!e.getValue().isValueNode() || e.getValue().isNull()) {
                error(fp, "must be a string");
            } else if (e.getValue().asText().chars().anyMatch(ch -> ch < 0x20 && ch != '\t' || ch == 0x7f)) {
                error(fp, "contains control characters");
            } else if (e.getValue().asText().length() > 8192) {
                error(fp, "is longer than 8192 characters");
            } else {
                out.put(name, e.getValue().asText());
            }
        });
        return out;
    }

    /** {@code { allowOrigins, allowMethods, allowHeaders, exposeHeaders, allowCredentials, maxAge }}, ingress-nginx's defaults. */
    private Route.Cors cors(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "allowOrigins", "allowMethods", "allowHeaders", "exposeHeaders", "allowCredentials", "maxAge");
        List<String> origins = n.has("allowOrigins")
                ? nonNull(list(n.get("allowOrigins"), path + ".allowOrigins", true, this::requiredText)) : List.of("*");
        for (int i = 0; i < origins.size(); i++) {
            String o = origins.get(i);
            if (!o.equals("*") && !Route.Cors.isOrigin(o)) {
                error(path + ".allowOrigins[" + i + "]", "\"" + o + "\" is not * or an origin (https://app.example.com,"
                        + " https://*.example.com; lower case, no path)");
            }
        }
        if (origins.contains("*") && origins.size() > 1) {
            error(path + ".allowOrigins", "* allows every origin: list it alone");
        }
        List<String> methods = tokens(n.get("allowMethods"), path + ".allowMethods", Route.Cors.DEFAULT_METHODS);
        List<String> headers = tokens(n.get("allowHeaders"), path + ".allowHeaders", Route.Cors.DEFAULT_HEADERS);
        List<String> expose = tokens(n.get("exposeHeaders"), path + ".exposeHeaders", List.of());
        boolean credentials = bool(n.get("allowCredentials"), path + ".allowCredentials", true);
        Duration maxAge = duration(n.get("maxAge"), path + ".maxAge", Route.Cors.DEFAULT_MAX_AGE);
        return new Route.Cors(origins, methods, headers, expose, credentials, maxAge);
    }

    /** A list of HTTP tokens (methods, field names), or {@code dflt} when absent. */
    private List<String> tokens(JsonNode n, String path, List<String> dflt) {
        if (n == null || n.isNull()) {
            return dflt;
        }
        List<String> out = nonNull(list(n, path, false, this::requiredText));
        for (int i = 0; i < out.size(); i++) {
            if (!TOKEN.matcher(out.get(i)).matches()) {
                error(path + "[" + i + "]", "\"" + out.get(i) + "\" is not a method or field name");
            }
        }
        return out;
    }

    /** {@code { requests, per (1s), burst (0), exempt [] }}: a steady rate from 1 a day to 1,000,000 a second. */
    private Route.RateLimit rateLimit(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "requests", "per", "burst", "exempt");
        if (!n.has("requests")) {
            error(path + ".requests", "is required");
        }
        int requests = integer(n.get("requests"), path + ".requests", 1, 1, 1_000_000);
        Duration per = positiveDuration(n.get("per"), path + ".per", Duration.ofSeconds(1));
        if (per.compareTo(Duration.ofDays(1)) > 0) {
            error(path + ".per", "must be at most 24h");
        }
        int burst = integer(n.get("burst"), path + ".burst", 0, 0, 1_000);
        List<IpBlock> exempt = nonNull(list(n.get("exempt"), path + ".exempt", false, this::ipBlock));
        return new Route.RateLimit(requests, per, burst, exempt);
    }

    /** {@code { realm, htpasswd }}: at least one user, every line one the proxy can check. */
    private Route.BasicAuth basicAuth(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "realm", "htpasswd");
        String realm = text(n.get("realm"), path + ".realm", Route.BasicAuth.DEFAULT_REALM);
        if (realm != null && !realm.chars().allMatch(c -> c >= 0x20 && c < 0x7f && c != '"' && c != '\\')) {
            error(path + ".realm", "must be printable ASCII without '\"' or '\\'");
        }
        String htpasswd = requiredText(n.get("htpasswd"), path + ".htpasswd");
        if (htpasswd == null) {
            return null;
        }
        int[] users = {0};
        Htpasswd.parse(htpasswd, (line, why) -> error(path + ".htpasswd", "line " + line + ": " + why))
                .forEach((u, h) -> users[0]++);
        if (users[0] == 0 && Htpasswd.problems(htpasswd).isEmpty()) {
            error(path + ".htpasswd", "lists no users (name:hash per line)");
        }
        return new Route.BasicAuth(realm, htpasswd);
    }

    /** A cookie's name (RFC 6265 4.1.1: a token). */
    private static final Pattern COOKIE_NAME = Pattern.compile("[!#$%&'*+.^_`|~0-9A-Za-z-]+");
    /** A claim's name, or names of members down into objects joined by dots ({@code realm_access.roles}). */
    private static final Pattern CLAIM = Pattern.compile("[^.\\s]+(\\.[^.\\s]+)*");

    /** A rule's {@code jwtAuth}: the keys inline ({@code jwks}) or from a URL ({@code jwksUri}), and what tokens must say. */
    private Route.JwtAuth jwtAuth(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "issuer", "audiences", "jwks", "jwksUri", "refresh", "optional", "cookie", "claimHeaders", "realm",
                "require");
        String issuer = n.hasNonNull("issuer") ? requiredText(n.get("issuer"), path + ".issuer") : null;
        List<String> audiences = nonNull(list(n.get("audiences"), path + ".audiences", false,
                (a, p) -> requiredText(a, p)));
        String jwks = n.hasNonNull("jwks") ? requiredText(n.get("jwks"), path + ".jwks") : null;
        String jwksUri = n.hasNonNull("jwksUri") ? requiredText(n.get("jwksUri"), path + ".jwksUri") : null;
        boolean discovers = !n.hasNonNull("jwks") && !n.hasNonNull("jwksUri") && issuer != null && httpUrl(issuer);
        if (!n.hasNonNull("jwks") && !n.hasNonNull("jwksUri") && !discovers) {
            error(path, "needs the keys that sign tokens: jwksUri (the identity provider's jwks_uri), jwks (a JWK"
                    + " Set as JSON), or an issuer URL whose OpenID discovery names them");
        } else if (n.hasNonNull("jwks") && n.hasNonNull("jwksUri")) {
            error(path + ".jwks", "and jwksUri both give the keys: one of them");
        }
        if (jwks != null) {
            try {
                Jwks.parse(jwks);
            } catch (Jwks.Invalid e) {
                error(path + ".jwks", e.getMessage());
            }
        }
        if (jwksUri != null && !httpUrl(jwksUri)) {
            error(path + ".jwksUri", "must be an http(s) URL, got \"" + jwksUri + "\"");
        }
        Duration refresh = duration(n.get("refresh"), path + ".refresh", Route.JwtAuth.DEFAULT_REFRESH);
        if (n.hasNonNull("refresh") && jwksUri == null && !discovers) {
            error(path + ".refresh", "is how often the keys are fetched: with jwks there is nothing to fetch");
        } else if (refresh != null && refresh.compareTo(Duration.ofSeconds(30)) < 0) {
            error(path + ".refresh", "must be 30s at least, got " + refresh.toSeconds() + "s");
        }
        String cookie = n.hasNonNull("cookie") ? requiredText(n.get("cookie"), path + ".cookie") : null;
        if (cookie != null && !COOKIE_NAME.matcher(cookie).matches()) {
            error(path + ".cookie", "\"" + cookie + "\" is not a cookie name");
        }
        List<Route.ClaimHeader> claimHeaders = new ArrayList<>();
        JsonNode ch = n.get("claimHeaders");
        if (ch != null && !ch.isNull() && object(ch, path + ".claimHeaders")) {
            Set<String> names = new HashSet<>();
            ch.fields().forEachRemaining(e -> {
                String fp = path + ".claimHeaders." + e.getKey();
                String header = e.getValue().isTextual() ? e.getValue().asText() : null;
                if (!CLAIM.matcher(e.getKey()).matches()) {
                    error(fp, "\"" + e.getKey() + "\" is not a claim name");
                } else if (header == null || !TOKEN.matcher(header).matches()) {
                    error(fp, "must be a header name, got " + describe(e.getValue()));
                } else if (RESERVED_REQUEST_HEADERS.contains(header.toLowerCase(Locale.ROOT))
                        || header.equalsIgnoreCase("authorization") || header.equalsIgnoreCase("cookie")) {
                    error(fp, "\"" + header + "\" is a field the proxy keeps as it is");
                } else if (!names.add(header.toLowerCase(Locale.ROOT))) {
                    error(fp, "\"" + header + "\" is set from another claim already");
                } else {
                    claimHeaders.add(new Route.ClaimHeader(e.getKey(), header.toLowerCase(Locale.ROOT)));
                }
            });
        }
        String realm = text(n.get("realm"), path + ".realm", "strait");
        if (realm != null && !realm.chars().allMatch(c -> c >= 0x20 && c < 0x7f && c != '"' && c != '\\')) {
            error(path + ".realm", "must be printable ASCII without '\"' or '\\'");
        }
        List<Route.ClaimRequirement> require = new ArrayList<>();
        JsonNode rq = n.get("require");
        if (rq != null && !rq.isNull() && object(rq, path + ".require")) {
            rq.fields().forEachRemaining(e -> {
                String fp = path + ".require." + e.getKey();
                if (!CLAIM.matcher(e.getKey()).matches()) {
                    error(fp, "\"" + e.getKey() + "\" is not a claim name");
                    return;
                }
                List<String> values = nonNull(list(e.getValue(), fp, true, (v, p) -> {
                    String t = requiredText(v, p);
                    if (t != null && (t.isEmpty() || t.chars().anyMatch(Character::isWhitespace))) {
                        error(p, "must be one word (a scope, a group), got \"" + t + "\"");
                    }
                    return t;
                }));
                require.add(new Route.ClaimRequirement(e.getKey(), values));
            });
        }
        return new Route.JwtAuth(issuer, audiences, jwks, jwksUri, refresh, bool(n.get("optional"), path + ".optional",
                false), cookie, claimHeaders, realm, require);
    }

    /** {@code { allow: [ CIDR... ], deny: [ CIDR... ] }}, at least one of them with an address. */
    private Route.ClientAddresses clientAddresses(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "allow", "deny");
        int before = errors.size();
        List<IpBlock> allow = nonNull(list(n.get("allow"), path + ".allow", false, this::ipBlock));
        List<IpBlock> deny = nonNull(list(n.get("deny"), path + ".deny", false, this::ipBlock));
        if (allow.isEmpty() && deny.isEmpty() && errors.size() == before) {
            error(path, "names no addresses: give allow, deny or both (leave clientAddresses out to serve everyone)");
        }
        return new Route.ClientAddresses(allow, deny);
    }

    /**
     * replacePrefixMatch replaces the prefix that matched, so every match of the rule must be a Prefix match
     * (Gateway API's rule); a rule without matches is {@code Prefix /}.
     */
    private void prefixOnly(Route.PathModifier m, List<Route.Match> matches, String field) {
        if (m == null || m.type() != Route.PathModifierType.ReplacePrefixMatch) {
            return;
        }
        for (int i = 0; i < matches.size(); i++) {
            Route.Match match = matches.get(i);
            if (match != null && match.path() != null && match.path().type() != Route.PathType.Prefix) {
                error(field + ".replacePrefixMatch", "needs every match of the rule to be a Prefix match; "
                        + "matches[" + i + "] is " + match.path().type()
                        + " (use replaceFullPath, or a rule of its own)");
            }
        }
    }

    /**
     * {@code { replaceFullPath: /x }}, {@code { replacePrefixMatch: /y }} or, where {@code regex} (a rule's
     * pathRewrite; a redirect's path cannot take it yet), {@code { replaceRegexMatch: { pattern, substitution } }}.
     */
    private Route.PathModifier pathModifier(JsonNode n, String path, boolean regex) {
        if (!object(n, path)) {
            return null;
        }
        if (!regex && n.has("replaceRegexMatch")) {
            error(path + ".replaceRegexMatch", "applies to a rule's pathRewrite only; a redirect's path takes "
                    + "replaceFullPath or replacePrefixMatch");
            return null;
        }
        if (regex) {
            known(n, path, "replaceFullPath", "replacePrefixMatch", "replaceRegexMatch");
        } else {
            known(n, path, "replaceFullPath", "replacePrefixMatch");
        }
        boolean full = n.has("replaceFullPath");
        if (regex && n.has("replaceRegexMatch")) {
            if (full || n.has("replacePrefixMatch")) {
                error(path, "takes exactly one of replaceFullPath, replacePrefixMatch and replaceRegexMatch");
                return null;
            }
            return regexModifier(n.get("replaceRegexMatch"), path + ".replaceRegexMatch");
        }
        if (full == n.has("replacePrefixMatch")) {
            error(path, regex ? "takes exactly one of replaceFullPath, replacePrefixMatch and replaceRegexMatch"
                    : "takes exactly one of replaceFullPath and replacePrefixMatch");
            return null;
        }
        String field = full ? "replaceFullPath" : "replacePrefixMatch";
        String value = requiredText(n.get(field), path + "." + field);
        if (value == null) {
            return null;
        }
        if (!value.startsWith("/")) {
            error(path + "." + field, "must start with /, got \"" + value + "\"");
            return null;
        }
        if (value.indexOf('?') >= 0 || value.indexOf('#') >= 0) {
            error(path + "." + field, "\"" + value + "\" holds a query or fragment: the request's query is kept");
            return null;
        }
        if (PathNormalizer.normalize(value) == null) {
            error(path + "." + field, "\"" + value + "\" is not a request path (spaces, control or non-ASCII "
                    + "characters, a broken escape, or .. above /): write it percent-encoded");
            return null;
        }
        return new Route.PathModifier(full ? Route.PathModifierType.ReplaceFullPath
                : Route.PathModifierType.ReplacePrefixMatch, value);
    }

    /**
     * Every match of {@code pattern} in the path replaced by {@code substitution} (Envoy's regex_rewrite): the
     * pattern must compile, and the substitution be path text whose {@code $n} the pattern has.
     */
    private Route.PathModifier regexModifier(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "pattern", "substitution");
        String pattern = requiredText(n.get("pattern"), path + ".pattern");
        int groups = -1;
        if (pattern != null) {
            try {
                groups = Pattern.compile(pattern).matcher("").groupCount();
            } catch (PatternSyntaxException e) {
                error(path + ".pattern", "not a valid regular expression: " + e.getDescription() + " near index "
                        + e.getIndex() + " of \"" + pattern + "\"");
            }
        }
        JsonNode sn = n.get("substitution");
        String substitution = null;
        if (sn == null || sn.isNull()) {
            error(path + ".substitution", "is required (\"\" removes each match)");
        } else if (!sn.isTextual()) {
            error(path + ".substitution", "must be a string, got " + describe(sn));
        } else {
            substitution = sn.asText();
            try {
                int max = PathSubstitution.parse(substitution).maxGroup();
                if (groups >= 0 && max > groups) {
                    error(path + ".substitution", "\"" + substitution + "\" refers to group " + max + ", but the pattern has "
                            + (groups == 0 ? "no groups" : groups == 1 ? "1 group" : groups + " groups"));
                }
            } catch (IllegalArgumentException e) {
                error(path + ".substitution", e.getMessage());
                substitution = null;
            }
        }
        return pattern == null || substitution == null ? null
                : new Route.PathModifier(Route.PathModifierType.ReplaceRegexMatch, pattern, substitution);
    }

    private Route.Redirect redirect(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "scheme", "hostname", "port", "path", "statusCode");
        String scheme = text(n.get("scheme"), path + ".scheme", null);
        if (scheme != null && !scheme.equals("http") && !scheme.equals("https")) {
            error(path + ".scheme", "must be http or https, got \"" + scheme + "\"");
        }
        String hostname = null;
        JsonNode hn = n.get("hostname");
        if (hn != null && !hn.isNull()) {
            hostname = requiredText(hn, path + ".hostname");
            if (hostname != null && !HOST_LABELS.matcher(hostname).matches()) {
                error(path + ".hostname", "\"" + hostname + "\" is not a host name in lower case (without port; "
                        + "the port is redirect.port)");
            }
        }
        Integer port = null;
        JsonNode pn = n.get("port");
        if (pn != null && !pn.isNull()) {
            port = integer(pn, path + ".port", 0, 1, 65535);
        }
        Route.PathModifier p = null;
        JsonNode pm = n.get("path");
        if (pm != null && !pm.isNull()) {
            p = pathModifier(pm, path + ".path", false);
        }
        int status = Route.Redirect.DEFAULT_STATUS;
        JsonNode sn = n.get("statusCode");
        if (sn != null && !sn.isNull()) {
            if (sn.isIntegralNumber() && Route.Redirect.STATUS_CODES.contains(sn.asInt())) {
                status = sn.asInt();
            } else {
                error(path + ".statusCode", "must be one of 301, 302, 303, 307, 308, got " + describe(sn));
            }
        }
        return new Route.Redirect(scheme, hostname, port, p, status);
    }

    private Route.Cache cache(JsonNode c, String path, Route.Action action) {
        if (!object(c, path)) {
            return null;
        }
        known(c, path, "enabled", "maxBodySize", "defaultTtl", "ignoreCacheControl", "cacheSetCookie",
                "cacheAuthorization", "xCacheHeader", "staleWhileRevalidate", "staleIfError", "hitForPass",
                "lockTimeout");
        Route.Cache d = new Route.Cache(true);
        Route.Cache cache = new Route.Cache(
                bool(c.get("enabled"), path + ".enabled", true),
                longValue(c.get("maxBodySize"), path + ".maxBodySize", d.maxBodySize()),
                duration(c.get("defaultTtl"), path + ".defaultTtl", d.defaultTtl()),
                bool(c.get("ignoreCacheControl"), path + ".ignoreCacheControl", false),
                bool(c.get("cacheSetCookie"), path + ".cacheSetCookie", false),
                bool(c.get("cacheAuthorization"), path + ".cacheAuthorization", false),
                bool(c.get("xCacheHeader"), path + ".xCacheHeader", false),
                duration(c.get("staleWhileRevalidate"), path + ".staleWhileRevalidate",
                        d.staleWhileRevalidate()),
                duration(c.get("staleIfError"), path + ".staleIfError", d.staleIfError()),
                duration(c.get("hitForPass"), path + ".hitForPass", d.hitForPass()),
                positiveDuration(c.get("lockTimeout"), path + ".lockTimeout", d.lockTimeout()));
        if (cache.maxBodySize() > Integer.MAX_VALUE - 1024) {
            error(path + ".maxBodySize", "must be below 2 GiB (a cached body is held in one buffer), got "
                    + cache.maxBodySize());
        }
        if (cache.ignoreCacheControl() && cache.defaultTtl().isZero()) {
            error(path + ".defaultTtl", "must be longer than 0 with ignoreCacheControl (it is then the only freshness)");
        }
        if (cache.enabled() && action != null && !(action instanceof Route.Backends)) {
            error(path, "only applies to a rule with backends (respond and files answers are not cached)");
        }
        return cache;
    }

    private Route.FastCgi fastcgi(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "root", "index", "splitPathInfo", "params", "maxBufferedBody");
        String root = requiredText(n.get("root"), path + ".root");
        if (root != null && !root.startsWith("/")) {
            error(path + ".root", "must be an absolute path (as the FastCGI server sees it), got \"" + root + "\"");
        }
        String index = text(n.get("index"), path + ".index", Route.FastCgi.DEFAULT_INDEX);
        if (index.isEmpty() || index.contains("/") || index.equals(".") || index.equals("..")) {
            error(path + ".index", "must be a file name, got \"" + index + "\"");
        }
        String split = text(n.get("splitPathInfo"), path + ".splitPathInfo", Route.FastCgi.DEFAULT_SPLIT_PATH_INFO);
        if (!split.isEmpty()) {
            try {
                int groups = Pattern.compile(split).matcher("").groupCount();
                if (groups != 2) {
                    error(path + ".splitPathInfo", "must have two capture groups (script name, path info), has "
                            + groups);
                }
            } catch (PatternSyntaxException e) {
                error(path + ".splitPathInfo", "not a valid regular expression: " + e.getDescription());
            }
        }
        Map<String, String> params = new LinkedHashMap<>();
        JsonNode p = n.get("params");
        if (p != null && !p.isNull() && object(p, path + ".params")) {
            p.fields().forEachRemaining(e -> {
                String pp = path + ".params." + e.getKey();
                if (!CGI_NAME.matcher(e.getKey()).matches()) {
                    error(pp, "\"" + e.getKey() + "\" is not a CGI param name (letters, digits and _)");
                } else if (!e.getValue().isValueNode() || e.getValue().isNull()) {
                    error(pp, "must be a string");
                } else if (e.getValue().asText().chars().anyMatch(ch -> ch < 0x20 && ch != '\t' || ch == 0x7f)) {
                    error(pp, "contains control characters");
                } else if (e.getValue().asText().length() > 16 * 1024) {
                    error(pp, "is longer than 16384 characters");
                } else {
                    params.put(e.getKey(), e.getValue().asText());
                }
            });
        }
        long maxBuffered = longValue(n.get("maxBufferedBody"), path + ".maxBufferedBody",
                Route.FastCgi.DEFAULT_MAX_BUFFERED_BODY);
        return new Route.FastCgi(root, index, split, params, maxBuffered);
    }

    private Route.Match match(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "path", "method", "headers", "cookies");
        Route.PathMatch pm = null;
        JsonNode p = n.get("path");
        if (p != null && !p.isNull() && object(p, path + ".path")) {
            known(p, path + ".path", "type", "value", "priority");
            Route.PathType type = Route.PathType.Prefix;
            JsonNode tn = p.get("type");
            if (tn != null && !tn.isNull()) {
                try {
                    type = Route.PathType.valueOf(tn.asText());
                } catch (IllegalArgumentException e) {
                    error(path + ".path.type", "must be Exact, Prefix or RegularExpression, got \"" + tn.asText() + "\"");
                }
            }
            String value = requiredText(p.get("value"), path + ".path.value");
            String problem = value == null ? null : pathProblem(type, value);
            if (problem != null) {
                error(path + ".path.value", problem);
            }
            JsonNode pr = p.get("priority");
            int priority = integer(pr, path + ".path.priority", 0, -1_000_000, 1_000_000);
            if (priority != 0 && type != Route.PathType.RegularExpression) {
                error(path + ".path.priority", "orders RegularExpression paths only; " + type
                        + " paths are ordered by what they match");
            }
            pm = new Route.PathMatch(type, value, priority);
        }
        String method = null;
        JsonNode m = n.get("method");
        if (m != null && !m.isNull()) {
            method = requiredText(m, path + ".method");
            if (method != null && !TOKEN.matcher(method).matches()) {
                error(path + ".method", "\"" + method + "\" is not an HTTP method");
            }
        }
        List<Route.HeaderMatch> headers = list(n.get("headers"), path + ".headers", false, (h, hp) -> {
            if (!object(h, hp)) {
                return null;
            }
            known(h, hp, "name", "value", "type");
            String name = requiredText(h.get("name"), hp + ".name");
            if (name != null && !TOKEN.matcher(name).matches()) {
                error(hp + ".name", "\"" + name + "\" is not a header name");
            }
            Route.HeaderMatchType type = Route.HeaderMatchType.Exact;
            JsonNode tn = h.get("type");
            if (tn != null && !tn.isNull()) {
                String t = requiredText(tn, hp + ".type");
                if ("RegularExpression".equals(t)) {
                    type = Route.HeaderMatchType.RegularExpression;
                } else if (t != null && !"Exact".equals(t)) {
                    error(hp + ".type", "must be Exact or RegularExpression, got \"" + t + "\"");
                }
            }
            String value = requiredText(h.get("value"), hp + ".value");
            if (value != null && type == Route.HeaderMatchType.RegularExpression) {
                if (value.length() > 1024) {
                    error(hp + ".value", "is longer than 1024 characters");
                } else {
                    try {
                        Pattern.compile(value);
                    } catch (PatternSyntaxException e) {
                        error(hp + ".value", "not a valid regular expression: " + e.getDescription() + " near index "
                                + e.getIndex() + " of \"" + value + "\"");
                    }
                }
            }
            return new Route.HeaderMatch(name, value, type);
        });
        List<Route.CookieMatch> cookies = list(n.get("cookies"), path + ".cookies", false, (c, cp) -> {
            if (!object(c, cp)) {
                return null;
            }
            known(c, cp, "name", "value");
            String name = requiredText(c.get("name"), cp + ".name");
            if (name != null && !TOKEN.matcher(name).matches()) {
                error(cp + ".name", "\"" + name + "\" is not a cookie name");
            }
            String value = text(c.get("value"), cp + ".value", null);
            if (value == null) {
                error(cp + ".value", "is required");
            } else if (!value.chars().allMatch(ch -> ch > 0x20 && ch < 0x7f && ch != ';' && ch != ',' && ch != '"'
                    && ch != '\\')) {
                error(cp + ".value", "\"" + value + "\" is not a cookie value (printable ASCII, no ; , \" \\ or space)");
            }
            return new Route.CookieMatch(name, value);
        });
        return new Route.Match(pm, method, nonNull(headers), nonNull(cookies));
    }

    /**
     * Why a path match's value is refused (the message of its {@code path.value} error), or null when it is
     * valid. The operator asks this of each Ingress path, to leave out only the paths refused.
     */
    public static String pathProblem(Route.PathType type, String value) {
        if (type == Route.PathType.RegularExpression) {
            try {
                Pattern.compile(value);
                return null;
            } catch (PatternSyntaxException e) {
                return "not a valid regular expression: " + e.getDescription();
            }
        }
        if (!value.startsWith("/")) {
            return "must start with /, got \"" + value + "\"";
        }
        return unmatchablePath(value);
    }

    /**
     * Why an Exact or Prefix value can never equal a request path as routes see it (normalised by
     * {@link PathNormalizer}, then {@link PathNormalizer#forMatching}), or null. Such a rule would be
     * dead without a word, and a deny rule written that way would let everything through.
     */
    static String unmatchablePath(String value) {
        if (value.indexOf('?') >= 0 || value.indexOf('#') >= 0) {
            return "\"" + value + "\" holds a query or fragment: paths are matched without them";
        }
        String normal = PathNormalizer.normalize(value);
        if (normal == null) {
            return "\"" + value + "\" is not a request path (spaces, control or non-ASCII characters, a broken "
                    + "escape, or .. above /): write it percent-encoded";
        }
        String matched = PathNormalizer.forMatching(normal);
        if (matched == null || !matched.equals(value)) {
            return "\"" + value + "\" never meets a request: requests are matched after normalisation "
                    + "(unreserved escapes decoded, other escapes in upper case, %2F read as /, // merged, "
                    + ". and .. resolved)" + (matched == null ? "" : "; write \"" + matched + "\"");
        }
        return null;
    }

    private Route.Respond respond(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "status", "body", "headers");
        int status = integer(n.get("status"), path + ".status", 200, 200, 599);
        String body = text(n.get("body"), path + ".body", "");
        Map<String, String> headers = new LinkedHashMap<>();
        JsonNode h = n.get("headers");
        if (h != null && !h.isNull() && object(h, path + ".headers")) {
            h.fields().forEachRemaining(e -> {
                String hp = path + ".headers." + e.getKey();
                if (!TOKEN.matcher(e.getKey()).matches()) {
                    error(hp, "\"" + e.getKey() + "\" is not a header name");
                } else if (RESERVED_RESPONSE_HEADERS.contains(e.getKey().toLowerCase(Locale.ROOT))) {
                    error(hp, "is set by the proxy and cannot be configured");
                } else if (!e.getValue().isValueNode() || e.getValue().isNull()) {
                    error(hp, "must be a string");
                } else if (e.getValue().asText().chars().anyMatch(ch -> ch < 0x20 && ch != '\t' || ch == 0x7f)) {
                    error(hp, "contains control characters");
                } else {
                    headers.put(e.getKey(), e.getValue().asText());
                }
            });
        }
        return new Route.Respond(status, body == null ? "" : body, headers);
    }

    private Route.Files files(JsonNode n, String path) {
        if (!object(n, path)) {
            return null;
        }
        known(n, path, "root", "index", "followSymlinks", "dotfiles", "precompressed");
        String root = requiredText(n.get("root"), path + ".root");
        List<String> index = n.has("index")
                ? nonNull(list(n.get("index"), path + ".index", false, (i, ip) -> {
                    String s = requiredText(i, ip);
                    if (s != null && (s.contains("/") || s.equals("..") || s.equals("."))) {
                        error(ip, "must be a file name, got \"" + s + "\"");
                        return null;
                    }
                    return s;
                }))
                : List.of("index.html");
        List<String> precompressed = nonNull(list(n.get("precompressed"), path + ".precompressed", false, (e, p) -> {
            String s = requiredText(e, p);
            if (s != null && !Route.Files.ENCODINGS.containsKey(s)) {
                error(p, "must be br, zstd or gzip, got \"" + s + "\"");
                return null;
            }
            return s;
        }));
        if (new java.util.HashSet<>(precompressed).size() < precompressed.size()) {
            error(path + ".precompressed", "names a coding twice: " + precompressed);
        }
        return new Route.Files(root, index, bool(n.get("followSymlinks"), path + ".followSymlinks", false),
                enumValue(n.get("dotfiles"), path + ".dotfiles", Route.Dotfiles.IGNORE, Route.Dotfiles.class),
                precompressed);
    }

    private Route.Backends backends(JsonNode n, String path) {
        List<Route.Backend> list = list(n, path, true, (b, p) -> {
            if (!object(b, p)) {
                return null;
            }
            known(b, p, "upstream", "weight");
            return new Route.Backend(name(b.get("upstream"), p + ".upstream"),
                    integer(b.get("weight"), p + ".weight", 1, 0, 1_000_000));
        });
        return new Route.Backends(nonNull(list));
    }

    // ---- field helpers: each records an error with its path and returns a usable value ----

    private void error(String path, String message) {
        errors.add(new ConfigError(path, message));
    }

    private boolean object(JsonNode n, String path) {
        if (n == null || !n.isObject()) {
            error(path, "must be a mapping (key: value), got " + describe(n));
            return false;
        }
        return true;
    }

    private void known(JsonNode n, String path, String... keys) {
        Set<String> allowed = Set.of(keys);
        n.fieldNames().forEachRemaining(k -> {
            if (!allowed.contains(k)) {
                error(path.isEmpty() ? k : path + "." + k, "unknown field (expected one of " + String.join(", ", keys) + ")");
            }
        });
    }

    private <T> List<T> list(JsonNode n, String path, boolean required,
                             BiFunction<JsonNode, String, T> item) {
        if (n == null || n.isNull()) {
            if (required) {
                error(path, "is required and must list at least one item");
            }
            return List.of();
        }
        if (!n.isArray()) {
            error(path, "must be a list, got " + describe(n));
            return List.of();
        }
        if (required && n.isEmpty()) {
            error(path, "must list at least one item");
        }
        List<T> out = new ArrayList<>(n.size());
        for (int i = 0; i < n.size(); i++) {
            out.add(item.apply(n.get(i), path + "[" + i + "]"));
        }
        return out;
    }

    /** A hash's {@code { source, name }} at {@code path}: the name required for, and only for, the named sources. */
    private Upstream.HashPart hashPart(JsonNode n, String path) {
        Upstream.HashSource source = enumValue(n.get("source"), path + ".source", Upstream.HashSource.CLIENT_ADDRESS,
                Upstream.HashSource.class);
        String name = null;
        if (!source.named()) {
            if (n.has("name")) {
                error(path + ".name", "is only used with source header, cookie or query");
            }
        } else {
            name = requiredText(n.get("name"), path + ".name");
            if (name != null && !TOKEN.matcher(name).matches()) {
                error(path + ".name", "\"" + name + "\" is not a "
                        + (source == Upstream.HashSource.QUERY ? "query parameter" : configName(source)) + " name");
            }
        }
        return new Upstream.HashPart(source, name);
    }

    private static <T> List<T> nonNull(List<T> list) {
        List<T> out = new ArrayList<>(list.size());
        for (T t : list) {
            if (t != null) {
                out.add(t);
            }
        }
        return out;
    }

    private String requiredText(JsonNode n, String path) {
        if (n == null || n.isNull()) {
            error(path, "is required");
            return null;
        }
        if (!n.isTextual() && !n.isNumber()) {
            error(path, "must be a string, got " + describe(n));
            return null;
        }
        String s = n.asText();
        if (s.isEmpty()) {
            error(path, "must not be empty");
            return null;
        }
        return s;
    }

    private String text(JsonNode n, String path, String dflt) {
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (!n.isValueNode()) {
            error(path, "must be a string, got " + describe(n));
            return dflt;
        }
        return n.asText();
    }

    private String name(JsonNode n, String path) {
        String s = requiredText(n, path);
        if (s != null && !NAME.matcher(s).matches()) {
            error(path, "\"" + s + "\" must be lower case letters, digits, '-' and '.' (a Kubernetes name)");
        }
        return s;
    }

    private IpBlock ipBlock(JsonNode n, String path) {
        String s = requiredText(n, path);
        if (s == null) {
            return null;
        }
        try {
            return IpBlock.parse(s);
        } catch (IllegalArgumentException e) {
            error(path, e.getMessage());
            return null;
        }
    }

    private HostPort address(JsonNode n, String path) {
        return hostPort(n, path, HostPort::parse);
    }

    /** An upstream's endpoint: an address, or a unix socket's path. */
    private HostPort endpoint(JsonNode n, String path) {
        return hostPort(n, path, HostPort::parseEndpoint);
    }

    private HostPort hostPort(JsonNode n, String path, java.util.function.Function<String, HostPort> parser) {
        String s = requiredText(n, path);
        if (s == null) {
            return null;
        }
        try {
            return parser.apply(s);
        } catch (IllegalArgumentException e) {
            error(path, e.getMessage());
            return null;
        }
    }

    private int integer(JsonNode n, String path, int dflt, int min, int max) {
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (!n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < min || n.asLong() > max) {
            error(path, "must be a whole number " + min + ".." + max + ", got " + describe(n));
            return dflt;
        }
        return n.asInt();
    }

    private long longValue(JsonNode n, String path, long dflt) {
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (!n.isIntegralNumber() || !n.canConvertToLong() || n.asLong() < 0) {
            error(path, "must be a whole number of bytes, got " + describe(n));
            return dflt;
        }
        return n.asLong();
    }

    private boolean bool(JsonNode n, String path, boolean dflt) {
        if (n == null || n.isNull()) {
            return dflt;
        }
        if (n.isTextual()) {
            // YAML 1.1's other spellings, which the tree keeps as text (YamlTree): still meant as booleans here.
            switch (n.textValue().toLowerCase(java.util.Locale.ROOT)) {
                case "yes", "on" -> {
                    return true;
                }
                case "no", "off" -> {
                    return false;
                }
                default -> { }
            }
        }
        if (!n.isBoolean()) {
            error(path, "must be true or false, got " + describe(n));
            return dflt;
        }
        return n.asBoolean();
    }

    private Duration duration(JsonNode n, String path, Duration dflt) {
        if (n == null || n.isNull()) {
            return dflt;
        }
        try {
            return Durations.parse(n.isTextual() ? n.asText() : n.toString());
        } catch (IllegalArgumentException e) {
            error(path, e.getMessage());
            return dflt;
        }
    }

    private Duration positiveDuration(JsonNode n, String path, Duration dflt) {
        Duration d = duration(n, path, dflt);
        if (d != null && d != dflt && (d.isZero() || d.isNegative())) {
            error(path, "must be longer than 0");
            return dflt;
        }
        return d;
    }

    /** Enum values are written in config as lower case with dashes: {@code round-robin}, {@code io_uring}. */
    private <E extends Enum<E>> E enumValue(JsonNode n, String path, E dflt, Class<E> type) {
        if (n == null || n.isNull()) {
            return dflt;
        }
        Map<String, E> byName = new HashMap<>();
        for (E e : type.getEnumConstants()) {
            byName.put(configName(e), e);
        }
        E e = n.isTextual() ? byName.get(n.asText()) : null;
        if (e == null) {
            error(path, "must be one of " + String.join(", ", byName.keySet().stream().sorted().toList())
                    + ", got " + describe(n));
            return dflt;
        }
        return e;
    }

    /** How an enum constant is spelled in config. */
    public static String configName(Enum<?> e) {
        String s = e.name().toLowerCase(Locale.ROOT);
        return e instanceof Config.Transport ? s : s.replace('_', '-');
    }

    private static String describe(JsonNode n) {
        if (n == null || n.isNull()) {
            return "nothing";
        }
        if (n.getNodeType() == JsonNodeType.STRING) {
            return "\"" + n.asText() + "\"";
        }
        if (n.isValueNode()) {
            return n.asText();
        }
        return n.isArray() ? "a list" : "a mapping";
    }
}
