package dev.strait.proxy.handler.proxy;

import dev.strait.model.Config;
import dev.strait.model.Route;
import dev.strait.model.Upstream;
import dev.strait.proxy.cache.CachePolicy;
import dev.strait.proxy.cache.Origin;
import dev.strait.proxy.cache.ResponseCache;
import dev.strait.proxy.grpcweb.GrpcWebExchange;
import dev.strait.proxy.handler.PathRewriter;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.HeldBody;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.PrefixAware;
import dev.strait.proxy.upstream.LoopContext;
import dev.strait.proxy.upstream.UpstreamSpec;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The {@code backends} action: forwards a request to one of the rule's upstreams (chosen by weight)
 * and streams the answer back. Everything is decided when the table is built (upstreams, timeouts in
 * nanoseconds, retry conditions as bits and a status table), so a request only reads it. Each
 * request gets a {@link ProxyCall}, which runs on the client connection's event loop and uses that
 * loop's pools. A rule whose {@code pathRewrite} replaces the matched prefix has one handler per Prefix
 * match ({@link #forPrefix}), sharing everything but the prefix.
 */
public final class ProxyHandler implements PrefixAware {
    private static final Logger log = LoggerFactory.getLogger(ProxyHandler.class);

    static final int CONNECT_FAILURE = 1;
    static final int REFUSED_STREAM = 2;
    static final int RESET = 4;
    static final int TIMEOUT = 8;
    /** nginx's proxy_read_timeout: an upstream silent this long while a request is in flight is given up on. */
    static final Duration DEFAULT_IDLE = Duration.ofSeconds(60);
    /** Envoy's default retry backoff base. */
    static final Duration DEFAULT_BACKOFF = Duration.ofMillis(25);

    final String route;
    final int ruleIndex;
    private final UpstreamSpec[] upstreams;
    private final int[] cumulativeWeights;
    private final int totalWeight;
    final String hostRewrite;
    /** Whose X-Request-Id is kept: {@code requestId.trustIncoming}. */
    private final dev.strait.model.Config.RequestId requestId;
    final long requestTimeoutNanos;
    final long perTryTimeoutNanos;
    final long idleTimeoutNanos;
    final int attempts;
    final int retryOn;
    private final boolean[] retryStatus;
    final long backoffNanos;
    /** The rule's cache settings, or {@code null}: requests then go straight to {@link #forward}. */
    private final CachePolicy cache;
    private final Origin origin = this::forward;
    /** How much of a request body is read before the upstream is asked ({@code requestBuffering}); 0: none. */
    private final long bufferBytes;
    /** ...of which the first bytes are held in memory, the rest in a file ({@code requestBuffering.memoryBytes}). */
    private final long bufferMemory;
    /** What changes in the upstream's redirects and cookies ({@code responseRewrite}); {@code null}: nothing. */
    final ResponseRewriter responseRewrite;
    /** The rule's path rewrite, bound to the matched prefix where it replaces one; {@code null}: none. */
    private final PathRewriter pathRewrite;
    /** The handler this one was made from by {@link #forPrefix}, or this one. */
    private final ProxyHandler unbound;

    private ProxyHandler(String route, int ruleIndex, Route.Rule rule, UpstreamSpec[] upstreams, int[] weights,
                         dev.strait.model.Config.RequestId requestId) {
        this.route = route;
        this.ruleIndex = ruleIndex;
        this.upstreams = upstreams;
        this.cumulativeWeights = new int[weights.length];
        int total = 0;
        for (int i = 0; i < weights.length; i++) {
            total += weights[i];
            cumulativeWeights[i] = total;
        }
        this.totalWeight = total;
        this.retryStatus = new boolean[600];
        this.hostRewrite = rule.hostRewrite();
        this.requestId = requestId;
        Route.Timeouts t = rule.timeouts();
        this.requestTimeoutNanos = t == null || t.request() == null ? 0 : t.request().toNanos();
        this.perTryTimeoutNanos = t == null || t.perTry() == null ? 0 : t.perTry().toNanos();
        this.idleTimeoutNanos = (t == null || t.idle() == null ? DEFAULT_IDLE : t.idle()).toNanos();
        Route.Retries r = rule.retries();
        this.attempts = r == null ? 1 : r.attempts();
        this.backoffNanos = (r == null || r.backoff() == null ? DEFAULT_BACKOFF : r.backoff()).toNanos();
        int on = 0;
        if (r == null || r.retryOn().isEmpty()) {
            on = CONNECT_FAILURE | REFUSED_STREAM;
        } else {
            for (String c : r.retryOn()) {
                switch (c) {
                    case "connect-failure" -> on |= CONNECT_FAILURE;
                    case "refused-stream" -> on |= REFUSED_STREAM;
                    case "reset" -> on |= RESET;
                    case "timeout" -> on |= TIMEOUT;
                    case "5xx" -> java.util.Arrays.fill(retryStatus, 500, 600, true);
                    case "gateway-error" -> {
                        retryStatus[502] = true;
                        retryStatus[503] = true;
                        retryStatus[504] = true;
                    }
                    default -> retryStatus[Integer.parseInt(c)] = true;
                }
            }
        }
        this.retryOn = on;
        this.cache = CachePolicy.of(route, ruleIndex, rule);
        this.pathRewrite = PathRewriter.of(rule.pathRewrite());
        this.responseRewrite = ResponseRewriter.of(rule.responseRewrite());
        this.bufferBytes = rule.requestBuffering() == null ? 0 : rule.requestBuffering().maxBytes();
        this.bufferMemory = rule.requestBuffering() == null ? 0 : rule.requestBuffering().memoryBytes();
        this.unbound = this;
    }

    /** {@code base} with its path rewrite bound to {@code prefix}; the same upstreams, cache and settings. */
    private ProxyHandler(ProxyHandler base, String prefix) {
        this.route = base.route;
        this.ruleIndex = base.ruleIndex;
        this.upstreams = base.upstreams;
        this.cumulativeWeights = base.cumulativeWeights;
        this.totalWeight = base.totalWeight;
        this.hostRewrite = base.hostRewrite;
        this.requestId = base.requestId;
        this.requestTimeoutNanos = base.requestTimeoutNanos;
        this.perTryTimeoutNanos = base.perTryTimeoutNanos;
        this.idleTimeoutNanos = base.idleTimeoutNanos;
        this.attempts = base.attempts;
        this.retryOn = base.retryOn;
        this.retryStatus = base.retryStatus;
        this.backoffNanos = base.backoffNanos;
        this.cache = base.cache;
        this.pathRewrite = base.pathRewrite.forPrefix(prefix);
        this.responseRewrite = base.responseRewrite;
        this.bufferBytes = base.bufferBytes;
        this.bufferMemory = base.bufferMemory;
        this.unbound = base;
    }

    @Override
    public Handler forPrefix(String prefix) {
        return pathRewrite == null || !pathRewrite.byPrefix() ? this : new ProxyHandler(this, prefix);
    }

    @Override
    public Handler unbound() {
        return unbound;
    }

    /**
     * The request target to send upstream instead of the client's, or {@code null} to send the client's as
     * it came: with a path rewrite, the rewritten normalised path and the client's query (a regex rewrite
     * whose pattern matches nowhere in the path leaves the target as it came);
     * {@link PathRewriter#NOT_A_PATH} when the rewritten path is not one.
     */
    String rewrittenTarget(Exchange ex) {
        if (pathRewrite == null) {
            return null;
        }
        String p = pathRewrite.apply(ex.path());
        if (p == null || p == PathRewriter.NOT_A_PATH) {
            return p;
        }
        String q = ex.query();
        return q == null ? p : p + '?' + q;
    }

    /**
     * @param path the rule's field path, for errors
     * @throws IllegalArgumentException naming the field when a backend cannot be served
     */
    public static ProxyHandler create(String route, int ruleIndex, Route.Rule rule, Route.Backends backends,
                                      Map<String, UpstreamSpec> specs, Config.RequestId requestId, String path) {
        UpstreamSpec[] ups = new UpstreamSpec[backends.backends().size()];
        int[] weights = new int[ups.length];
        for (int i = 0; i < ups.length; i++) {
            Route.Backend b = backends.backends().get(i);
            UpstreamSpec s = specs.get(b.upstream());
            String field = path + ".backends[" + i + "].upstream";
            if (s == null) {
                throw new IllegalArgumentException(field + ": upstream \"" + b.upstream() + "\" is not defined");
            }
            if (s.config().protocol() == Upstream.Protocol.FASTCGI) {
                throw new IllegalArgumentException(field + ": upstream \"" + b.upstream() + "\" speaks fastcgi");
            }
            ups[i] = s;
            weights[i] = b.weight();
        }
        return new ProxyHandler(route, ruleIndex, rule, ups, weights, requestId);
    }

    @Override
    public void handle(Exchange exchange) {
        if (cache != null) {
            ResponseCache rc = ResponseCache.current();
            if (rc != null) {
                rc.handle(exchange, cache, origin); // it answers, or comes back through forward()
                return;
            }
        }
        forward(exchange);
    }

    /**
     * Proxies one exchange: the client's, or the cache's own fetch. With {@code requestBuffering}, a body is read
     * (up to its limit; past memory into a file) before the call starts, so the upstream is asked only once it is in.
     */
    private void forward(Exchange exchange) {
        if (bufferBytes > 0 && exchange.hasBody() && !isGrpc(exchange)) {
            LoopContext lc = LoopContext.current();
            HeldBody.gather(exchange, bufferBytes, bufferMemory, lc == null ? null : lc.bodyFiles(),
                    body -> body.resume(exchange, this::call));
            return;
        }
        call(exchange);
    }

    /**
     * A gRPC call (or gRPC-Web's) streams its messages: a client stream read first would wait for its end, or for
     * the buffer's limit, before the server saw a message. Such calls are never gathered.
     */
    private static boolean isGrpc(Exchange ex) {
        String type = ex.request().headers().get(io.netty.handler.codec.http.HttpHeaderNames.CONTENT_TYPE);
        return type != null && type.regionMatches(true, 0, "application/grpc", 0, 16);
    }

    private void call(Exchange exchange) {
        LoopContext lc = LoopContext.current();
        if (lc == null) {
            log.error("route {}: proxying is not set up on this thread; answering 503", route);
            exchange.sendError(HttpResponseStatus.SERVICE_UNAVAILABLE);
            return;
        }
        String target = rewrittenTarget(exchange); // null without a rewrite: nothing made
        if (target == PathRewriter.NOT_A_PATH) {
            // A capture put ".." above "/", or a match cut an escape in two: no path to send (ADR 0058).
            log.debug("route {}: the path rewrite of {} gives no request path; answering 400", route, exchange.path());
            exchange.sendError(HttpResponseStatus.BAD_REQUEST);
            return;
        }
        UpstreamSpec spec = chooseUpstream();
        Upstream.Protocol protocol = spec == null ? null : spec.config().protocol();
        boolean webSocket = ProxyCall.isWebSocketHandshake(exchange);
        if (protocol == Upstream.Protocol.H2 && webSocket) {
            log.warn("route {}: a WebSocket handshake cannot go to the h2 upstream {} (HTTP/1.1 only); answering 501",
                    route, spec.name());
            exchange.sendError(HttpResponseStatus.NOT_IMPLEMENTED);
            return;
        }
        if ((protocol == Upstream.Protocol.H2C || protocol == Upstream.Protocol.H2) && !webSocket) {
            // A browser's gRPC-Web call to a gRPC upstream is translated both ways, as Envoy's grpc_web filter
            // does for Contour (ADR 0088); an http1 upstream gets it as it came (it speaks gRPC-Web itself).
            Exchange call = GrpcWebExchange.isGrpcWeb(exchange) ? GrpcWebExchange.toGrpc(exchange) : exchange;
            new H2ProxyCall(this, call, lc, spec, target).start();
        } else {
            new ProxyCall(this, exchange, lc, spec, target).start();
        }
    }

    /** Whether {@code ex} asks for a WebSocket, which an upstream's 101 turns into a tunnel. */
    public static boolean isWebSocketHandshake(Exchange ex) {
        return ProxyCall.isWebSocketHandshake(ex);
    }

    /** The upstream for one request: by weight among the rule's backends; {@code null} when all weigh 0. */
    UpstreamSpec chooseUpstream() {
        if (totalWeight == 0) {
            return null;
        }
        if (upstreams.length == 1) {
            return upstreams[0];
        }
        int r = ThreadLocalRandom.current().nextInt(totalWeight);
        for (int i = 0; i < cumulativeWeights.length; i++) {
            if (r < cumulativeWeights[i]) {
                return upstreams[i];
            }
        }
        return upstreams[upstreams.length - 1];
    }

    /** Full-jitter exponential backoff before retry number {@code retries} (1-based), capped at 10x the base. */
    long retryDelayNanos(int retries) {
        long cap = Math.min(backoffNanos << Math.min(retries - 1, 20), backoffNanos * 10);
        return ThreadLocalRandom.current().nextLong(Math.max(cap, 1));
    }

    boolean retriesStatus(int status) {
        return retryStatus[status];
    }

    /**
     * Whether the X-Request-Id the request came with is kept: one this proxy settled (a mirrored request's), or
     * from a peer {@code requestId.trustIncoming} trusts.
     */
    boolean keepsRequestId(Exchange ex) {
        return ex.requestIdSettled() || requestId.trusts(ex.remoteAddress() instanceof java.net.InetSocketAddress a ? a.getAddress() : null);
    }
}
