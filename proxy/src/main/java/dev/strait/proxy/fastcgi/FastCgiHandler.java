package dev.strait.proxy.fastcgi;

import dev.strait.model.Config;
import dev.strait.model.HostPort;
import dev.strait.model.Route;
import dev.strait.model.Upstream;
import dev.strait.proxy.bodyfiles.BodyFiles;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.ForwardingExchange;
import dev.strait.proxy.http.HeldBody;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.upstream.LoopContext;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.NetUtil;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A rule whose backends are FastCGI upstreams (php-fpm): each request becomes a FastCGI request on a
 * kept connection from the per-loop pool of the chosen endpoint. Where it sits:
 *
 * <pre>
 *   Http1ServerHandler -> RouteTable -> FastCgiHandler -> FastCgiCall
 *                                                           |  BEGIN_REQUEST, PARAMS, STDIN ->
 *                                                           |  <- STDOUT (CGI head, body), STDERR, END_REQUEST
 *                                                        FastCgiPool (this loop, that endpoint) -> php-fpm
 * </pre>
 *
 * Built once per config; one instance serves every loop and keeps no per-request state. Errors: 404
 * for a path that cannot name a script, 502 when the application cannot be reached or breaks the
 * protocol, 503 when it is overloaded or too many requests wait, 504 on a timeout, 411 for a chunked
 * body over {@code maxBufferedBody}. See docs/config.md ("FastCGI").
 */
public final class FastCgiHandler implements Handler {
    static final Logger log = LoggerFactory.getLogger(FastCgiHandler.class);
    /** When the rule sets no {@code timeouts.request}: nginx's {@code fastcgi_read_timeout}. */
    public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(60);
    public static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    final String route;
    /** The document root, one char per UTF-8 byte, without a trailing '/'. */
    final String root;
    final String index;
    final Pattern split;
    final Map<String, String> params;
    final long maxBufferedBody;
    final long requestTimeoutNanos;
    final int connectTimeoutMillis;
    private final Backend[] backends;
    private final int totalWeight;

    /** One upstream of the rule with its weight. */
    private record Backend(int weight, Target[] targets) {}

    /** One endpoint of an upstream, as requests use it. */
    record Target(String upstream, HostPort endpoint, SocketAddress address, int maxConnections, boolean refuseLocal) {
        String label() {
            return upstream + " (" + endpoint + ")";
        }
    }

    private FastCgiHandler(String route, Route.FastCgi settings, Duration requestTimeout, List<Backend> backends) {
        this.route = route;
        String r = bytes(settings.root());
        while (r.endsWith("/")) {
            r = r.substring(0, r.length() - 1);
        }
        this.root = r;
        this.index = bytes(settings.index());
        this.split = settings.splitPathInfo().isEmpty() ? null : Pattern.compile(settings.splitPathInfo());
        Map<String, String> p = new LinkedHashMap<>();
        settings.params().forEach((k, v) -> p.put(k, bytes(v)));
        this.params = p.isEmpty() ? null : Map.copyOf(p);
        this.maxBufferedBody = settings.maxBufferedBody();
        this.requestTimeoutNanos = requestTimeout.toNanos();
        this.connectTimeoutMillis = (int) Math.max(1, Math.min(CONNECT_TIMEOUT.toMillis(), requestTimeout.toMillis()));
        this.backends = backends.toArray(Backend[]::new);
        this.totalWeight = backends.stream().mapToInt(Backend::weight).sum();
    }

    /**
     * The handler for a rule whose backends name fastcgi upstreams.
     *
     * @param path the rule's field path, for messages
     * @throws IllegalArgumentException naming the field when the rule cannot be served
     */
    public static FastCgiHandler create(Config config, Route route, Route.Rule rule, String path) {
        if (rule.fastcgi() == null) {
            throw new IllegalArgumentException(path + ".fastcgi: is required when backends name a fastcgi upstream");
        }
        Map<String, Upstream> upstreams = new LinkedHashMap<>();
        config.upstreams().forEach(u -> upstreams.putIfAbsent(u.name(), u));
        List<Backend> backends = new ArrayList<>();
        Route.Backends action = (Route.Backends) rule.action();
        for (int i = 0; i < action.backends().size(); i++) {
            Route.Backend b = action.backends().get(i);
            Upstream u = upstreams.get(b.upstream());
            String bp = path + ".backends[" + i + "].upstream";
            if (u == null) {
                throw new IllegalArgumentException(bp + ": upstream \"" + b.upstream() + "\" is not defined in upstreams");
            }
            if (u.protocol() != Upstream.Protocol.FASTCGI) {
                throw new IllegalArgumentException(bp + ": upstream \"" + u.name() + "\" is not fastcgi; a rule's"
                        + " backends speak one protocol");
            }
            if (b.weight() == 0 || u.endpoints().isEmpty()) {
                continue;
            }
            int max = u.maxConnections() > 0 ? u.maxConnections() : Upstream.FASTCGI_DEFAULT_MAX_CONNECTIONS;
            Target[] targets = u.endpoints().stream()
                    .map(e -> new Target(u.name(), e, address(e), max, u.refuseLocalAddresses()))
                    .toArray(Target[]::new);
            backends.add(new Backend(b.weight(), targets));
        }
        Duration timeout = rule.timeouts() != null && rule.timeouts().request() != null
                && !rule.timeouts().request().isZero() ? rule.timeouts().request() : DEFAULT_REQUEST_TIMEOUT;
        return new FastCgiHandler(route.name(), rule.fastcgi(), timeout, backends);
    }

    /**
     * IP literals are used as they are; names are looked up when a connection is made (FastCgiPool); a unix
     * socket is Netty's address, which the pool hands the JDK's channels as the JDK's.
     */
    private static SocketAddress address(HostPort e) {
        if (e.isUnixSocket()) {
            return new DomainSocketAddress(e.host());
        }
        byte[] ip = NetUtil.createByteArrayFromIpAddressString(e.host());
        if (ip != null) {
            try {
                return new InetSocketAddress(java.net.InetAddress.getByAddress(ip), e.port());
            } catch (java.net.UnknownHostException impossible) {
                throw new IllegalStateException(impossible);
            }
        }
        return InetSocketAddress.createUnresolved(e.host(), e.port());
    }

    /** A string's UTF-8 bytes as chars: the form every param value is written in. */
    static String bytes(String s) {
        return new String(s.getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1);
    }

    @Override
    public void handle(Exchange ex) {
        ScriptPath script = ScriptPath.of(ex.path(), split, index);
        if (script == null) {
            ex.sendError(HttpResponseStatus.NOT_FOUND);
            return;
        }
        Target target = pick();
        if (target == null) {
            log.warn("route {}: no FastCGI endpoint to send {} {} to (no endpoints, or every weight is 0)", route,
                    ex.request().method(), ex.request().uri());
            ex.sendError(HttpResponseStatus.SERVICE_UNAVAILABLE);
            return;
        }
        if (ex.hasBody()) {
            long length = HttpUtil.getContentLength(ex.request(), -1L);
            LoopContext lc = LoopContext.current();
            BodyFiles files = lc == null ? null : lc.bodyFiles();
            if ((length < 0 || length > maxBufferedBody) && files != null && files.enabled()) {
                // Past what memory holds, the body goes to a file first, as nginx's fastcgi_request_buffering
                // does: no php-fpm child waits on a slow upload, and a chunked body gets its CONTENT_LENGTH.
                HeldBody.gather(ex, Long.MAX_VALUE, maxBufferedBody, files, body -> body.resume(ex, e ->
                        new FastCgiCall(this, target, body.whole() ? withLength(e, body.length()) : e, script).start()));
                return;
            }
        }
        new FastCgiCall(this, target, ex, script).start();
    }

    /**
     * {@code ex} as read whole: its request says the body's length in {@code Content-Length} (a chunked one's
     * too), which FastCGI needs before the body and php-fpm reads exactly.
     */
    private static Exchange withLength(Exchange ex, long length) {
        HttpRequest head = ex.request();
        HttpHeaders headers = head.headers().copy();
        headers.remove(HttpHeaderNames.TRANSFER_ENCODING);
        headers.set(HttpHeaderNames.CONTENT_LENGTH, length);
        HttpRequest read = new DefaultHttpRequest(head.protocolVersion(), head.method(), head.uri(), headers);
        return new ForwardingExchange(ex) {
            @Override
            public HttpRequest request() {
                return read;
            }
        };
    }

    /** Weighted choice of backend, then an endpoint of it, at random: no shared counter between loops. */
    private Target pick() {
        if (backends.length == 0) {
            return null;
        }
        Backend b = backends[0];
        if (backends.length > 1) {
            int r = ThreadLocalRandom.current().nextInt(totalWeight);
            for (Backend candidate : backends) {
                r -= candidate.weight();
                if (r < 0) {
                    b = candidate;
                    break;
                }
            }
        }
        Target[] t = b.targets();
        return t.length == 1 ? t[0] : t[ThreadLocalRandom.current().nextInt(t.length)];
    }
}
