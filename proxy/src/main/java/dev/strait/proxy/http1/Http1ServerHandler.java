package dev.strait.proxy.http1;

import dev.strait.model.Config;
import dev.strait.model.Limits;
import dev.strait.model.PathNormalizer;
import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.http.AcceptedOn;
import dev.strait.proxy.http.PeerAddress;
import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.ConnectionTimer;
import dev.strait.proxy.http.DateHeader;
import dev.strait.proxy.http.ForwardedFor;
import dev.strait.proxy.http.ForwardedProto;
import dev.strait.proxy.http2.H2cUpgrade;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.route.CompiledRule;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.RouteTable;
import dev.strait.proxy.server.FatalErrors;
import dev.strait.proxy.tls.ClientCheck;
import dev.strait.proxy.tls.TlsConnection;
import dev.strait.proxy.tracing.RequestTrace;
import dev.strait.proxy.tracing.SpanExporter;
import dev.strait.proxy.upstream.IoUringPeerClose;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.uring.IoUringSocketChannel;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.ReferenceCounted;
import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The HTTP/1.1 server side of one connection. Sits right after {@link Http1RequestDecoder}:
 *
 * <pre>
 *   socket -> Http1RequestDecoder -> Http1ServerHandler -> route's Handler
 * </pre>
 *
 * It checks each request head (limits, Host, Expect, target form), picks the rule from the table
 * current when the head arrived, and frames the answer: {@code Date}, {@code Connection}, keep-alive
 * and close. Responses leave in request order (RFC 9112 9.3.2): a pipelined request is held back
 * until the one before it is answered. Writes are flushed once per read batch, not per response.
 */
public final class Http1ServerHandler extends ChannelInboundHandlerAdapter {
    private static final Logger log = LoggerFactory.getLogger(Http1ServerHandler.class);
    /** A closing connection reads on while the client sends (see closeGracefully): this long at most ... */
    private static final long ONE_SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final long LINGER_MAX_NANOS = TimeUnit.SECONDS.toNanos(30);
    /** ... and this long after the client last sent anything (nginx's lingering_time and lingering_timeout). */
    private static final long LINGER_QUIET_NANOS = TimeUnit.SECONDS.toNanos(5);
    private static final byte[] CONNECTION_CLOSE = "Connection: close\r\n".getBytes(StandardCharsets.ISO_8859_1);
    private static final byte[] CONNECTION_KEEP_ALIVE = "Connection: keep-alive\r\n".getBytes(StandardCharsets.ISO_8859_1);
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] CONTENT_LENGTH = "Content-Length: ".getBytes(StandardCharsets.ISO_8859_1);
    private static final byte[] CONTINUE = "HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
    private static final byte[][] STATUS_LINES = new byte[600][];

    static {
        for (int i = 100; i < 600; i++) {
            HttpResponseStatus s = HttpResponseStatus.valueOf(i);
            STATUS_LINES[i] = ("HTTP/1.1 " + i + " " + s.reasonPhrase() + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
        }
    }

    private final Serving serving;
    /** The listener that accepted the connection, whose routes it is served (null: not known, in tests). */
    private String listener;
    /** The connection's peer: the socket's, or the client a PROXY protocol header named ({@link PeerAddress}). */
    private SocketAddress peer;
    private final ProxyMetrics metrics;
    private final AccessLog accessLog;
    private final Http1RequestDecoder decoder;
    private final H2cUpgrade h2c;
    final boolean zeroCopy;

    private ChannelHandlerContext ctx;
    private boolean activated;
    /** The connection's TLS state, {@code null} for cleartext. */
    private TlsConnection tls;
    private String scheme = "http";
    /** The request being read or answered; {@code null} between requests. */
    private Http1Exchange current;
    /** Whether {@link #current}'s body has been read to its end. */
    private boolean currentBodyDone;
    private long bodyBytes;
    private long maxBodyBytes;
    /** Pipelined messages that arrived while {@link #current} was not yet answered. */
    private ArrayDeque<Object> backlog;
    private boolean inRead;
    /** A handler asked to batch its writes (Exchange.holdFlush): flush when it says so. */
    private boolean flushHeld;
    private boolean flushPending;
    private boolean closing;
    /** The output is shut down and the input read until the client closes: see {@link #closeGracefully}. */
    private boolean lingering;
    /** A refusal is being answered: the connection lingers when it closes, whatever was read. */
    private boolean lingerOnClose;
    private long lingerReadAt;
    private boolean drainRequested;
    private int requests;
    private long idleSince;
    private final ConnectionTimer timer = new ConnectionTimer(this::onTimer);
    private boolean pausedByHandler;
    private CompiledRule meteredRule;
    private ProxyMetrics.RouteMeters meters;
    /** The connection was handed over to a tunnel (WebSocket): bytes pass through untouched. */
    private boolean tunnel;
    /** The WebSocket handshake whose tunnel this connection carries: logged when the connection ends. */
    private Http1Exchange tunnelled;
    private boolean inBacklog;
    private Runnable writableTask;
    private long connectedAt;
    /** When the current request's body last brought bytes (or reading it resumed). */
    private long bodyProgressAt;
    /** When the client last stopped taking what we write (the channel became unwritable). */
    private long unwritableSince;

    public Http1ServerHandler(Serving serving, ProxyMetrics metrics, AccessLog accessLog, Http1RequestDecoder decoder,
                              boolean zeroCopy) {
        this(serving, metrics, accessLog, decoder, zeroCopy, null);
    }

    /** @param h2c {@code Upgrade: h2c} support (cleartext listeners), or {@code null} */
    public Http1ServerHandler(Serving serving, ProxyMetrics metrics, AccessLog accessLog, Http1RequestDecoder decoder,
                              boolean zeroCopy, H2cUpgrade h2c) {
        this.h2c = h2c;
        this.serving = serving;
        this.metrics = metrics;
        this.accessLog = accessLog;
        this.decoder = decoder;
        this.zeroCopy = zeroCopy;
    }

    ByteBufAllocator alloc() {
        return ctx.alloc();
    }

    /** Whether this connection runs on io_uring, whose file regions cannot reach past 2 GiB (Http1Exchange.sendFile). */
    boolean onIoUring() {
        return ctx.channel() instanceof IoUringSocketChannel;
    }

    /** Puts a chunked-write stage in front of this handler where there is none yet (TLS pipelines have one). */
    void ensureChunkedWrites() {
        if (ctx.pipeline().get(ChunkedWriteHandler.class) == null) {
            ctx.pipeline().addBefore(ctx.name(), "chunked", new ChunkedWriteHandler());
        }
    }

    byte[] statusLine(HttpResponseStatus status) {
        int code = status.code();
        return code >= 100 && code < 600 ? STATUS_LINES[code]
                : ("HTTP/1.1 " + status + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.listener = AcceptedOn.listener(ctx.channel());
        this.peer = PeerAddress.of(ctx.channel());
        TlsConnection t = TlsConnection.of(ctx.channel());
        this.tls = t;
        this.scheme = t != null ? "https" : "http";
        if (ctx.channel().isActive()) {
            // Added once the protocol is known (ALPN, or the first bytes on cleartext): channelActive is past.
            activate();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        activate();
        ctx.fireChannelActive();
    }

    private void activate() {
        if (activated) {
            return;
        }
        activated = true;
        idleSince = System.nanoTime();
        connectedAt = idleSince;
        timer.fireIn(ctx.executor(), serving.snapshot().limits().headerTimeout().toNanos());
    }

    String scheme() {
        return scheme;
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        Http1Exchange ex = current;
        if (ex != null) {
            abortBody(ex, new java.nio.channels.ClosedChannelException());
            Runnable cancel = ex.onCancel;
            ex.onCancel = null;
            if (!ex.responded) {
                abandoned(ex);
                if (cancel != null) {
                    cancel.run();
                }
            }
        }
        timer.cancel();
        if (backlog != null) {
            backlog.forEach(ReferenceCountUtil::release);
            backlog.clear();
        }
        if (tunnelled != null) {
            // The tunnel's end, whichever side ended it (a close, the idle or send timeout, an error, the
            // drain's end): its line has the whole duration and the bytes it carried, as nginx logs it.
            Http1Exchange handshake = tunnelled;
            tunnelled = null;
            long nanos = System.nanoTime() - handshake.startNanos;
            logAccess(handshake, nanos);
            reportSpan(handshake, nanos);
            runEnded(handshake); // gives back what the request held (an in-flight place) only now
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (tunnel) {
            ctx.fireChannelRead(msg);
            return;
        }
        inRead = true;
        if (closing) {
            lingerReadAt = System.nanoTime(); // see closeGracefully
            ReferenceCountUtil.release(msg);
            return;
        }
        if (backlog != null && !backlog.isEmpty() || msg instanceof HttpRequest
                && (current != null && currentBodyDone || current == null && !ctx.channel().isWritable())) {
            // Pipelined ahead of an unanswered request: keep order, stop reading until it is answered.
            // Likewise when the client is not reading our answers: one read can bring hundreds of
            // pipelined requests, and answering them all would pile their responses up in memory.
            if (backlog == null) {
                backlog = new ArrayDeque<>(4);
            }
            backlog.add(msg);
            updateAutoRead();
            return;
        }
        dispatch(msg);
    }

    private void dispatch(Object msg) {
        if (msg instanceof HttpRequest req) {
            onHead(req);
        }
        if (msg instanceof HttpContent content) {
            onContent(content);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (tunnel) {
            ctx.fireChannelReadComplete();
            return;
        }
        // A client that resets while we hold its upload back must be noticed now (ADR 0044), not at bodyTimeout.
        IoUringPeerClose.afterRead(ctx.channel());
        inRead = false;
        if (decoder.holding()) {
            updateAutoRead(); // an upgrade request waits for its answer: what follows it stays unread
        }
        if (flushPending) {
            flushPending = false;
            ctx.flush();
        }
        ctx.fireChannelReadComplete();
    }

    private void onHead(HttpRequest req) {
        Snapshot snapshot = serving.snapshot();
        long now = System.nanoTime();
        current = null;
        currentBodyDone = false;
        bodyBytes = 0;
        maxBodyBytes = snapshot.limits().maxBodyBytes();
        DecoderResult result = req.decoderResult();
        HttpHeaders headers = req.headers();
        Http1Exchange ex = new Http1Exchange(this, req, null, null, null, req.method() == HttpMethod.HEAD, now);
        current = ex;
        if (result.isFailure()) {
            Throwable cause = result.cause();
            HttpResponseStatus status = cause instanceof Http1Violation v ? v.status() : HttpResponseStatus.BAD_REQUEST;
            log.debug("{}: refused request head ({}): {}", ctx.channel().remoteAddress(), status.code(),
                    cause.getMessage());
            refuse(ex, status);
            return;
        }
        if (headers.size() > snapshot.limits().maxHeaderCount()) {
            refuse(ex, HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE);
            return;
        }
        HttpVersion version = req.protocolVersion();
        if (version.majorVersion() != 1) {
            refuse(ex, HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED);
            return;
        }
        // Host: the decoder (HeadParser) already refused a missing one on HTTP/1.1, a repeated or a
        // malformed one (RFC 9112 3.2); an absolute-form target's authority wins.
        String uri = req.uri();
        String hostHeader = headers.get(HttpHeaderNames.HOST);
        String target = uri;
        if (!uri.isEmpty() && uri.charAt(0) != '/') {
            int scheme = uri.indexOf("://");
            if (!(scheme == 4 && uri.regionMatches(true, 0, "http", 0, 4)
                    || scheme == 5 && uri.regionMatches(true, 0, "https", 0, 5))) {
                refuse(ex, HttpResponseStatus.BAD_REQUEST);
                return;
            }
            // The authority ends at the path, the query or a fragment (RFC 3986 3.2): "http://b?x=/y" has none.
            int end = scheme + 3;
            while (end < uri.length() && "/?#".indexOf(uri.charAt(end)) < 0) {
                end++;
            }
            hostHeader = uri.substring(scheme + 3, end);
            // It stands in for Host (RFC 9112 3.2.2), so it must be a Host the decoder would take; no userinfo.
            if (hostHeader.isEmpty() || hostHeader.indexOf('@') >= 0 || !HeadParser.validHost(hostHeader)) {
                refuse(ex, HttpResponseStatus.BAD_REQUEST);
                return;
            }
            target = end == uri.length() ? "/" : uri.charAt(end) == '/' ? uri.substring(end) : "/" + uri.substring(end);
        }
        String host = hostHeader == null ? "" : RouteTable.normalizeHost(hostHeader);
        int q = target.indexOf('?');
        String rawPath = q < 0 ? target : target.substring(0, q);
        String path = host == null || rawPath.indexOf('#') >= 0 ? null : PathNormalizer.normalize(rawPath);
        String matchPath = path == null ? null : PathNormalizer.forMatching(path);
        if (matchPath == null) {
            refuse(ex, HttpResponseStatus.BAD_REQUEST);
            return;
        }
        ex.host = host;
        ex.path = path;
        ex.snapshot = snapshot;
        ex.query = q < 0 ? null : target.substring(q + 1);
        Limits limits = snapshot.limits();
        ex.keepAlive = HttpUtil.isKeepAlive(req) && !serving.draining() && !drainRequested
                && (limits.maxRequestsPerConnection() == 0 || requests + 1 < limits.maxRequestsPerConnection())
                && (limits.maxConnectionAge().isZero() || now - connectedAt < limits.maxConnectionAge().toNanos());
        bodyProgressAt = now;

        long contentLength = HttpUtil.getContentLength(req, -1L);
        ex.hasBody = contentLength > 0 || HttpUtil.isTransferEncodingChunked(req);
        if (ex.hasBody) {
            timer.fireBy(ctx.executor(), now + limits.bodyTimeout().toNanos());
        }
        // The rule is found first: its own body limit, when it has one, decides the 413 (nginx's
        // client_max_body_size in a location), before 100 Continue asks for the body.
        Config.ForwardedHeaders trust = snapshot.config().forwardedHeaders();
        ex.scheme = ForwardedProto.scheme(scheme, headers, peer, trust);
        if (!trust.trustedPeers().isEmpty()) {
            ex.client = ForwardedFor.client(headers, peer, trust);
        }
        CompiledRule rule = snapshot.route(listener, tls != null, "https".equals(ex.scheme), host, matchPath, req.method(),
                headers);
        Config.Tracing tracing = snapshot.config().tracing();
        if (tracing != null && (rule == null || rule.tracing())) {
            ex.trace = RequestTrace.start(tracing, headers, peer);
        }
        if (rule != null && rule.maxBodyBytes() >= 0) {
            maxBodyBytes = rule.maxBodyBytes();
        }
        if (contentLength > maxBodyBytes) {
            ex.rule = rule;
            refuse(ex, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
            return;
        }
        String expect = headers.get(HttpHeaderNames.EXPECT);
        if (expect != null) {
            if (!HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(expect)) {
                refuse(ex, HttpResponseStatus.EXPECTATION_FAILED);
                return;
            }
            // Asked for as the action starts (continueBody): a request refused before then (no rule, a
            // client certificate, a guard, a forward-auth check) is answered without the body ever sent.
            ex.continuePending = version.minorVersion() == 1 && ex.hasBody;
        }

        if (tls != null && tls.misdirected(host)) {
            // The certificate this connection got does not cover the host: the client should connect anew.
            requests++;
            sendError(ex, HttpResponseStatus.MISDIRECTED_REQUEST);
            return;
        }
        ClientCheck client = ClientCheck.of(tls, snapshot.tls(), listener, host, rule);
        if (client.refusal() != null) {
            requests++;
            client.answer(ex);
            return;
        }
        client.applyTo(headers);
        if (h2c != null && requests == 0 && (backlog == null || backlog.isEmpty()) && expect == null
                && H2cUpgrade.accepts(req, ex.hasBody)) {
            if (ex.trace != null) {
                ex.trace.restore(headers); // served again as HTTP/2, which traces it
            }
            upgradeToH2c(req);
            return;
        }
        requests++;
        if (rule == null) {
            sendError(ex, HttpResponseStatus.NOT_FOUND,
                    "https".equals(ex.scheme) ? snapshot.hsts(listener, host) : null);
            return;
        }
        ex.rule = rule;
        if (rule.guard() != null && rule.guard().refuses(ex, rule.handler())) {
            return;
        }
        try {
            if (ex.continuePending) {
                Handler.start(rule.handler(), ex); // asks for the body unless the action decides first
            } else {
                rule.handler().handle(ex); // the hot path: nothing to ask for
            }
        } catch (RuntimeException e) {
            log.error("route {} rule {}: handler failed on {} {}", rule.route(), rule.index(), req.method(), uri, e);
            if (!ex.responded) {
                sendError(ex, HttpResponseStatus.INTERNAL_SERVER_ERROR);
            }
        }
    }

    private void onContent(HttpContent content) {
        try {
            if (current == null) {
                return;
            }
            Http1Exchange ex = current;
            if (content.decoderResult().isFailure()) {
                // A broken body (bad chunk size, ...): answer if not answered yet, and close either way.
                Throwable cause = content.decoderResult().cause();
                abortBody(ex, cause);
                // Trailers too large or too many get 431 like a head would; other breakage 400.
                refuse(ex, cause instanceof Http1Violation v ? v.status() : HttpResponseStatus.BAD_REQUEST);
                return;
            }
            int n = content.content().readableBytes();
            bodyBytes += n;
            if (n > 0) {
                bodyProgressAt = System.nanoTime();
            }
            if (bodyBytes > maxBodyBytes) {
                abortBody(ex, new IllegalStateException("request body over " + maxBodyBytes + " bytes"));
                refuse(ex, HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
                return;
            }
            BodyReceiver receiver = ex.receiver;
            if (receiver != null && n > 0) {
                receiver.onBodyPart(content.content().retain());
            }
            if (content instanceof LastHttpContent last) {
                currentBodyDone = true;
                if (receiver != null) {
                    ex.receiver = null;
                    receiver.onBodyEnd(last.trailingHeaders());
                }
                if (ex.responded && ex == current) {
                    requestDone();
                }
            }
        } finally {
            content.release();
        }
    }

    private static void abortBody(Http1Exchange ex, Throwable cause) {
        BodyReceiver r = ex.receiver;
        if (r != null) {
            ex.receiver = null;
            r.onBodyAbort(cause);
        }
    }

    /** A request made on behalf of {@code ex}, routed as it was (a forward-auth check without an upstream). */
    void dispatch(Http1Exchange ex, Exchange sub) {
        ex.snapshot.dispatch(listener, TlsConnection.of(ctx.channel()) != null, sub);
    }

    EventLoop eventLoop() {
        return ctx.channel().eventLoop();
    }

    SocketAddress remoteAddress() {
        return peer;
    }

    SocketAddress localAddress() {
        return ctx.channel().localAddress();
    }

    boolean isWritable() {
        return ctx.channel().isWritable();
    }

    void onWritable(Runnable task) {
        if (ctx.channel().isWritable()) {
            task.run();
        } else {
            writableTask = task;
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (!ctx.channel().isWritable()) {
            unwritableSince = System.nanoTime();
            // Tunnels too: a client that does not read what the upstream sends is cut at sendTimeout (as
            // nginx's send_timeout in an upgraded connection), also after the upstream closed its side.
            timer.fireBy(ctx.executor(), unwritableSince + serving.snapshot().limits().sendTimeout().toNanos());
        } else if (!tunnel) {
            if (current == null && backlog != null && !backlog.isEmpty()) {
                replayBacklog();
            }
            updateAutoRead();
        }
        Runnable task = writableTask;
        if (task != null && ctx.channel().isWritable()) {
            writableTask = null;
            task.run();
        }
        ctx.fireChannelWritabilityChanged();
    }

    /**
     * {@code Upgrade: h2c}: the 101 and the HTTP/2 handlers come from {@link H2cUpgrade}, the request is
     * answered as stream 1, and the HTTP/1.1 handlers leave; bytes the decoder still holds go to HTTP/2.
     */
    private void upgradeToH2c(HttpRequest req) {
        current = null;
        tunnel = true;
        timer.cancel();
        h2c.upgrade(ctx, req);
        ctx.pipeline().remove(this);
        decoder.startHeldBytesAtIndexZero();
        ctx.pipeline().remove(decoder);
    }

    /** See {@link dev.strait.proxy.http.Exchange#switchProtocols}. */
    void switchProtocols(Http1Exchange ex, HttpHeaders headers, io.netty.channel.ChannelHandler tunnelHandler) {
        if (ex.responded || ex.streaming || ex != current) {
            if (answeredAlready(ex)) {
                ReferenceCountUtil.release(tunnelHandler);
                return;
            }
            throw new IllegalStateException("response already started for " + ex.request.uri());
        }
        ByteBuf buf = ctx.alloc().ioBuffer(256);
        buf.writeBytes(statusLine(HttpResponseStatus.SWITCHING_PROTOCOLS));
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            CharSequence name = h.getKey();
            if (isFramingHeader(name)) {
                continue;
            }
            writeHeader(buf, name, h.getValue());
        }
        buf.writeCharSequence("Connection: Upgrade\r\n\r\n", StandardCharsets.ISO_8859_1);
        ex.status = 101;
        ex.responded = true;
        ex.receiver = null;
        // Counted now, with the handshake's time in the latency histogram; logged when the tunnel ends (ADR 0055).
        meter(ex, System.nanoTime() - ex.startNanos);
        tunnelled = ex;
        ctx.writeAndFlush(buf, ctx.voidPromise());
        // From here the connection is a byte stream: no timer, no HTTP framing, no pipelining.
        tunnel = true;
        current = null;
        timer.cancel();
        if (!ctx.channel().isWritable()) {
            timer.fireBy(ctx.executor(), unwritableSince + serving.snapshot().limits().sendTimeout().toNanos());
        }
        ctx.pipeline().addLast("tunnel-bytes", new TunnelBytes(ex));
        ctx.pipeline().addLast("tunnel", tunnelHandler);
        pausedByHandler = false;
        if (backlog != null) {
            backlog.forEach(ReferenceCountUtil::release);
            backlog.clear();
        }
        // Bytes the decoder still holds (sent right after the request) go on to the tunnel.
        ctx.pipeline().remove(decoder);
        ctx.channel().config().setAutoRead(true);
    }

    void pauseReading(boolean pause) {
        if (pausedByHandler && !pause) {
            bodyProgressAt = System.nanoTime(); // the wait was ours, not the client's
        }
        pausedByHandler = pause;
        updateAutoRead();
    }

    /**
     * Reads while nothing holds it back: a handler's backpressure, pipelined requests waiting their turn,
     * or a client that does not read its answers (no new request is read while the channel is unwritable,
     * so a pipelining client that never reads cannot make us buffer without bound).
     */
    private void updateAutoRead() {
        boolean readingBody = current != null && !currentBodyDone;
        boolean read = lingering || !pausedByHandler && (backlog == null || backlog.isEmpty()) && !closing
                && !decoder.holding() && (readingBody || ctx.channel().isWritable());
        if (ctx.channel().config().isAutoRead() != read) {
            ctx.channel().config().setAutoRead(read);
            if (read) {
                ctx.read();
            }
        }
    }

    /**
     * {@code 100 Continue} for a client that holds its body back, once its request goes to the action (read and
     * discarded where the action does not use it). Until then a final answer closes the connection instead
     * ({@link #writeFraming}): whether the body follows it is the client's choice (RFC 9110 10.1.1).
     */
    void continueBody(Http1Exchange ex) {
        if (!ex.continuePending || ex != current || ex.responded || ex.streaming) {
            return;
        }
        ex.continuePending = false;
        ctx.write(Unpooled.wrappedBuffer(CONTINUE), ctx.voidPromise());
        flushSoon();
    }

    /** An interim answer (103 Early Hints, ...) before the final one; HTTP/1.0 clients get none (RFC 9110 15.2). */
    void sendInformational(Http1Exchange ex, HttpResponseStatus status, HttpHeaders headers) {
        if (ex.responded || ex.streaming || ex != current || ex.request.protocolVersion().minorVersion() == 0) {
            return;
        }
        ByteBuf buf = ctx.alloc().ioBuffer(256);
        buf.writeBytes(statusLine(status));
        writeHeaders(buf, headers);
        buf.writeByte('\r').writeByte('\n');
        ctx.write(buf, ctx.voidPromise());
        flushSoon();
    }

    /** Head of a streamed response: our framing, the handler's other headers. */
    void startResponse(Http1Exchange ex, HttpResponseStatus status, HttpHeaders headers, long contentLength) {
        if (ex.responded || ex.streaming || ex != current) {
            if (answeredAlready(ex)) {
                return;
            }
            throw new IllegalStateException("response already started for " + ex.request.uri());
        }
        ex.streaming = true;
        ex.status = status.code();
        int code = status.code();
        ex.bodyless = ex.head || code == 204 || code == 304 || code / 100 == 1;
        ByteBuf buf = ctx.alloc().ioBuffer(512);
        buf.writeBytes(statusLine(status));
        boolean hasDate = writeHeaders(buf, headers);
        if (contentLength >= 0) {
            if (code != 204 && code / 100 != 1) {
                buf.writeBytes(CONTENT_LENGTH);
                writeDecimal(buf, contentLength);
                buf.writeByte('\r').writeByte('\n');
            }
        } else if (!ex.bodyless) {
            if (ex.request.protocolVersion().minorVersion() == 1) {
                ex.chunked = true;
                buf.writeCharSequence("Transfer-Encoding: chunked\r\n", StandardCharsets.ISO_8859_1);
            } else {
                ex.keepAlive = false; // an HTTP/1.0 client learns the end of the body from the close
            }
        }
        writeFraming(ex, buf, !hasDate);
        ctx.write(buf, ctx.voidPromise());
        flushSoon();
    }

    /** Writes a non-negative number in decimal without making a String (once per streamed response). */
    private static void writeDecimal(ByteBuf buf, long v) {
        if (v < 10) {
            buf.writeByte('0' + (int) v);
            return;
        }
        int digits = 1;
        for (long t = v / 10; t > 0; t /= 10) {
            digits++;
        }
        int end = buf.writerIndex() + digits;
        buf.ensureWritable(digits);
        for (int i = end - 1; i >= buf.writerIndex(); i--) {
            buf.setByte(i, '0' + (int) (v % 10));
            v /= 10;
        }
        buf.writerIndex(end);
    }

    void sendBodyPart(Http1Exchange ex, ByteBuf data) {
        if (!ex.streaming || ex.responded || ex != current || closing) {
            data.release();
            return;
        }
        int n = data.readableBytes();
        if (ex.bodyless || n == 0) {
            data.release();
            return;
        }
        ex.bytes += n;
        if (ex.chunked) {
            ByteBuf size = ctx.alloc().ioBuffer(12);
            ByteBufUtil.writeAscii(size, Integer.toHexString(n));
            size.writeByte('\r').writeByte('\n');
            ctx.write(size, ctx.voidPromise());
            ctx.write(data, ctx.voidPromise());
            ctx.write(Unpooled.wrappedBuffer(CRLF), ctx.voidPromise());
        } else {
            ctx.write(data, ctx.voidPromise());
        }
        flushSoon();
    }

    void endResponse(Http1Exchange ex, HttpHeaders trailers) {
        if (!ex.streaming || ex.responded || ex != current) {
            return;
        }
        if (ex.chunked) {
            ByteBuf end = ctx.alloc().ioBuffer(64);
            end.writeByte('0').writeByte('\r').writeByte('\n');
            if (trailers != null) {
                for (Iterator<Map.Entry<CharSequence, CharSequence>> it = trailers.iteratorCharSequence(); it.hasNext(); ) {
                    Map.Entry<CharSequence, CharSequence> h = it.next();
                    writeHeader(end, h.getKey(), h.getValue());
                }
            }
            end.writeByte('\r').writeByte('\n');
            ctx.write(end, ctx.voidPromise());
        }
        finish(ex);
    }

    /** Headers the server writes itself: a handler's copies are dropped. */
    private static boolean isFramingHeader(CharSequence name) {
        return HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name)
                || HttpHeaderNames.TRANSFER_ENCODING.contentEqualsIgnoreCase(name)
                || HttpHeaderNames.CONNECTION.contentEqualsIgnoreCase(name)
                || HttpHeaderNames.KEEP_ALIVE.contentEqualsIgnoreCase(name);
    }

    /** A handler's header lines, but framing and connection fields (ours to write); whether a Date was among them. */
    private static boolean writeHeaders(ByteBuf buf, HttpHeaders headers) {
        boolean hasDate = false;
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            CharSequence name = h.getKey();
            if (!isFramingHeader(name)) {
                hasDate |= HttpHeaderNames.DATE.contentEqualsIgnoreCase(name);
                writeHeader(buf, name, h.getValue());
            }
        }
        return hasDate;
    }

    private static void writeHeader(ByteBuf buf, CharSequence name, CharSequence value) {
        ByteBufUtil.writeAscii(buf, name);
        buf.writeByte(':').writeByte(' ');
        ByteBufUtil.writeAscii(buf, value);
        buf.writeByte('\r').writeByte('\n');
    }

    void abort(Http1Exchange ex) {
        if (ex != current || ex.responded) {
            return;
        }
        if (!ex.streaming) {
            ex.keepAlive = false;
            sendError(ex, HttpResponseStatus.BAD_GATEWAY);
            return;
        }
        ex.responded = true;
        ex.keepAlive = false;
        record(ex);
        abortBody(ex, new IllegalStateException("response aborted"));
        if (!closing) {
            closeGracefully(false); // the answer is cut anyway: nothing for the client to read to its end
        }
    }

    private void flushSoon() {
        if (inRead || flushHeld) {
            flushPending = true;
        } else {
            ctx.flush();
        }
    }

    void holdFlush(boolean hold) {
        flushHeld = hold;
        if (!hold && flushPending && !inRead) {
            flushPending = false;
            ctx.flush();
        }
    }

    /**
     * Whether {@link #writeFraming} would add only Date and the blank line: a keep-alive HTTP/1.1 answer
     * on a connection not draining, which {@link SharedAnswers} may then serve whole.
     */
    boolean plainFraming(Http1Exchange ex) {
        return ex.keepAlive && !drainRequested && ex.request.protocolVersion().minorVersion() == 1
                && !ex.continuePending;
    }

    /** Writes Date, Connection and the blank line that ends the head. */
    void writeFraming(Http1Exchange ex, ByteBuf buf) {
        writeFraming(ex, buf, true);
    }

    private void writeFraming(Http1Exchange ex, ByteBuf buf, boolean date) {
        if (date) {
            buf.writeBytes(DateHeader.line());
        }
        if (drainRequested) {
            ex.keepAlive = false; // SIGTERM came while this request was in flight: say so in its answer
        }
        if (ex.continuePending && !(ex == current && currentBodyDone)) {
            // Answered before the body was asked for: it may come or not, so nothing after it can be read.
            ex.keepAlive = false;
        }
        if (!ex.keepAlive) {
            buf.writeBytes(CONNECTION_CLOSE);
        } else if (ex.request.protocolVersion().minorVersion() == 0) {
            buf.writeBytes(CONNECTION_KEEP_ALIVE);
        }
        buf.writeByte('\r').writeByte('\n');
    }

    /** Called once per exchange with the encoded head (and body) to write. */
    void complete(Http1Exchange ex, ByteBuf headBuf, Object body, long bodyLength) {
        complete(ex, headBuf, body, bodyLength, null);
    }

    /** The same with a body of several messages (buffers and file regions), written in order. */
    void completeParts(Http1Exchange ex, ByteBuf headBuf, Object[] body, long bodyLength) {
        if (ex.responded || ex.streaming || ex != current) {
            for (Object o : body) {
                ReferenceCountUtil.release(o);
            }
            complete(ex, headBuf, null, bodyLength, null); // releases the head; refuses or drops quietly
            return;
        }
        ex.bytes = bodyLength;
        ctx.write(headBuf, ctx.voidPromise());
        for (Object o : body) {
            ctx.write(o, ctx.voidPromise());
        }
        finish(ex);
    }

    /** {@code bodyOwner}, when not null, is released once the body is written or dropped (a file's mapping). */
    void complete(Http1Exchange ex, ByteBuf headBuf, Object body, long bodyLength, ReferenceCounted bodyOwner) {
        if (ex.responded || ex.streaming || ex != current) {
            ReferenceCountUtil.release(headBuf);
            ReferenceCountUtil.release(body);
            ReferenceCountUtil.release(bodyOwner);
            if (answeredAlready(ex)) {
                return;
            }
            throw new IllegalStateException("response already sent for " + ex.request.uri());
        }
        // The body's bytes (nginx's $body_bytes_sent), in headBuf (a small body goes with the head) or not.
        ex.bytes = bodyLength;
        ctx.write(headBuf, ctx.voidPromise());
        if (body != null) {
            if (bodyOwner == null) {
                ctx.write(body, ctx.voidPromise());
            } else {
                ctx.write(body).addListener(written -> bodyOwner.release());
            }
        } else {
            ReferenceCountUtil.release(bodyOwner);
        }
        finish(ex);
    }

    /** The response is fully written: account for it, then keep the connection or close it. */
    private void finish(Http1Exchange ex) {
        ex.responded = true;
        long answeredAt = record(ex);
        if (!ex.keepAlive) {
            abortBody(ex, new IllegalStateException("connection closing"));
            closeGracefully(lingerOnClose || unreadInput());
            return;
        }
        flushSoon();
        if (currentBodyDone) {
            requestDone(answeredAt); // answered just now: one clock read serves both
        }
    }

    /**
     * The connection ended before the answer did (the client closed it, or it was cut: sendTimeout, the end
     * of a drain): the request is recorded now, once, as nginx does: 499 (client closed request) when no
     * answer had started, else the status that was sent, with the body bytes written so far. Whatever the
     * handler still sends for it is dropped ({@link #answeredAlready}).
     */
    private void abandoned(Http1Exchange ex) {
        ex.gone = true;
        ex.responded = true;
        if (!ex.streaming) {
            ex.status = 499;
        }
        record(ex);
    }

    /**
     * Whether {@code ex} was recorded already because its client left first ({@link #abandoned}): an answer
     * that comes after that is dropped quietly, as a write to the closed connection was before.
     */
    private boolean answeredAlready(Http1Exchange ex) {
        return ex.responded && ex == current && !ctx.channel().isActive();
    }

    /** Records the answer in the metrics and the access log; returns the clock reading it used. */
    private long record(Http1Exchange ex) {
        long end = System.nanoTime();
        long nanos = end - ex.startNanos;
        meter(ex, nanos);
        logAccess(ex, nanos);
        reportSpan(ex, end);
        runEnded(ex);
        return end;
    }

    /** Reports the span of {@code ex} when it has a sampled trace (the config has {@code tracing}). */
    private static void reportSpan(Http1Exchange ex, long end) {
        if (ex.trace != null) {
            HttpRequest req = ex.request;
            SpanExporter.report(ex.trace, ex.startNanos, end, req.method().name(), ex.scheme, ex.host, req.uri(),
                    req.protocolVersion().minorVersion() == 0 ? "1.0" : "1.1", ex.status, ex.bytes,
                    ex.rule == null ? null : ex.rule.route(), ex.clientAddress(), req.headers(), ex.upstream);
        }
    }

    /** Runs the exchange's {@code onEnd} task, once. */
    private static void runEnded(Http1Exchange ex) {
        Runnable ended = ex.ended;
        if (ended != null) {
            ex.ended = null;
            ended.run();
        }
    }

    /** Counts the answer by route and status, and {@code nanos} in the route's latency histogram. */
    private void meter(Http1Exchange ex, long nanos) {
        CompiledRule rule = ex.rule;
        if (rule != meteredRule || meters == null) {
            // A connection mostly hits one rule: look its meters up only when the rule changes.
            meteredRule = rule;
            meters = metrics.route(rule == null ? ProxyMetrics.NO_ROUTE : rule.route());
        }
        meters.record(ex.status, nanos);
    }

    /** Queues the access-log line of {@code ex}, which took {@code nanos}, when the log is on. */
    private void logAccess(Http1Exchange ex, long nanos) {
        CompiledRule rule = ex.rule;
        if (accessLog != null && serving.snapshot().accessLog() && (rule == null || rule.accessLog())) {
            SocketAddress remote = ex.clientAddress();
            HttpRequest req = ex.request;
            String method;
            String uri;
            String protocol;
            if (req instanceof Http1RequestDecoder.Unread unread) {
                // Refused before it was parsed, or unfinished: what came of the line, not the placeholder.
                String[] line = requestLine(unread);
                method = line[0];
                uri = line[1];
                protocol = line[2];
            } else {
                method = req.method().name();
                uri = req.uri();
                protocol = req.protocolVersion().text();
            }
            HttpHeaders headers = req.headers();
            accessLog.log(new AccessLog.Entry(System.currentTimeMillis(),
                    AccessLog.remote(remote),
                    method, uri, protocol, ex.host, ex.status, ex.bytes, nanos, rule == null ? null : rule.route(),
                    headers.get(HttpHeaderNames.USER_AGENT), AccessLog.requestId(headers), ex.upstream, ex.trace));
        }
    }

    /**
     * Counts the bytes a tunnel hands to the client, for its access-log line (nginx's {@code $body_bytes_sent}
     * of an upgraded connection: all it sent after the 101's head). It sits between this handler and the
     * tunnel's, which writes from the pipeline's end, so it sees every byte before TLS does, and nothing
     * this handler wrote itself (the 101).
     */
    private static final class TunnelBytes extends ChannelOutboundHandlerAdapter {
        private final Http1Exchange ex;

        TunnelBytes(Http1Exchange ex) {
            this.ex = ex;
        }

        @Override
        public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
            if (msg instanceof ByteBuf b) {
                ex.bytes += b.readableBytes();
            }
            ctx.write(msg, promise);
        }
    }

    /** The longest method or version, and target, the access log shows of a refused head (nginx reads heads in 1 KiB). */
    private static final int LOGGED_TOKEN = 32;
    private static final int LOGGED_TARGET = 1024;

    /**
     * Method, target and version of a head refused before it was parsed, as far as they came: the method
     * once a space ended it, the target up to the next space or as far as it came (at most
     * {@link #LOGGED_TARGET}), the version once the line ended; {@code null} for what did not come. Bytes
     * are taken as ISO-8859-1 and escaped by the log.
     */
    static String[] requestLine(Http1RequestDecoder.Unread u) {
        byte[] b = u.line;
        String[] out = new String[3];
        int sp = indexOf(b, ' ', 0);
        if (sp < 0) {
            // No space yet: a method still arriving (a 408), or no request line at all (binary, TLS on cleartext).
            if (b.length > 0 && !u.ended) {
                return out;
            }
            out[0] = b.length == 0 ? null : latin1(b, 0, b.length, LOGGED_TOKEN);
            return out;
        }
        out[0] = latin1(b, 0, sp, LOGGED_TOKEN);
        int sp2 = indexOf(b, ' ', sp + 1);
        int targetEnd = sp2 < 0 ? b.length : sp2;
        out[1] = targetEnd > sp + 1 ? latin1(b, sp + 1, targetEnd, LOGGED_TARGET) : null;
        if (sp2 >= 0 && u.ended && sp2 + 1 < b.length) {
            out[2] = latin1(b, sp2 + 1, b.length, LOGGED_TOKEN);
        }
        return out;
    }

    private static int indexOf(byte[] b, char c, int from) {
        for (int i = from; i < b.length; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }

    private static String latin1(byte[] b, int from, int to, int max) {
        return new String(b, from, Math.min(to - from, max), StandardCharsets.ISO_8859_1);
    }

    /** The current request is read and answered: get ready for the next, releasing held-back ones. */
    private void requestDone() {
        requestDone(System.nanoTime());
    }

    private void requestDone(long now) {
        if (flushHeld) {
            holdFlush(false); // a hold never outlives its exchange
        }
        current = null;
        currentBodyDone = false;
        idleSince = now;
        boolean wasHolding = decoder.holding();
        decoder.requestFinished(ctx);
        var limits = serving.snapshot().limits();
        // The next head already begun (it came with this one) has headerTimeout; an idle connection keepAliveTimeout.
        long deadline = idleSince + (decoder.hasPartialHead() ? limits.headerTimeout().toNanos() + ONE_SECOND
                : limits.keepAliveTimeout().toNanos());
        // Moves only when that is sooner than what the timer waits for now.
        timer.fireBy(ctx.executor(), deadline);
        if (drainRequested) {
            close();
            return;
        }
        replayBacklog();
        if (wasHolding) {
            updateAutoRead();
        }
    }

    /** Replays held-back messages until the next request must wait (for the one before it, or the client). */
    private void replayBacklog() {
        if (backlog != null && !inBacklog) {
            inBacklog = true;
            try {
                while (!closing && !backlog.isEmpty()) {
                    Object next = backlog.peek();
                    if (next instanceof HttpRequest && (current != null || !ctx.channel().isWritable())) {
                        break;
                    }
                    dispatch(backlog.poll());
                }
            } finally {
                inBacklog = false;
            }
            updateAutoRead();
        }
    }

    void sendError(Http1Exchange ex, HttpResponseStatus status) {
        sendError(ex, status, null);
    }

    /** @param hsts a {@code Strict-Transport-Security} value the answer carries, or null */
    private void sendError(Http1Exchange ex, HttpResponseStatus status, String hsts) {
        byte[] body = (status.code() + " " + status.reasonPhrase() + "\n").getBytes(StandardCharsets.ISO_8859_1);
        ByteBuf buf = ctx.alloc().ioBuffer(160 + body.length);
        buf.writeBytes(statusLine(status));
        buf.writeCharSequence("Content-Type: text/plain; charset=utf-8\r\nContent-Length: " + body.length + "\r\n",
                StandardCharsets.ISO_8859_1);
        if (hsts != null) {
            buf.writeCharSequence("Strict-Transport-Security: " + hsts + "\r\n", StandardCharsets.ISO_8859_1);
        }
        ex.status = status.code();
        writeFraming(ex, buf);
        if (!ex.head) {
            buf.writeBytes(body);
        }
        complete(ex, buf, null, ex.head ? 0 : body.length);
    }

    /** Answers with an error (unless already answered) and closes: the connection's framing is not trusted. */
    private void refuse(Http1Exchange ex, HttpResponseStatus status) {
        ex.keepAlive = false;
        lingerOnClose = true; // what follows a refused head or body is unread: the refusal must not be reset away
        if (ex.streaming && !ex.responded) {
            abort(ex);
        } else if (!ex.responded) {
            sendError(ex, status);
        } else {
            close();
        }
    }

    private void close() {
        if (!closing) {
            closeGracefully(lingerOnClose || unreadInput());
        }
    }

    /** Whether the client may have sent bytes we have not read: a body not read to its end, a next head, held requests. */
    private boolean unreadInput() {
        return current != null && !currentBodyDone || decoder.hasPartialHead() || backlog != null && !backlog.isEmpty();
    }

    /**
     * Ends the connection after what is written so far, without losing it to a reset (RFC 9112 9.6): a
     * socket closed with request bytes still unread (a body over the limit, pipelined requests, an upload
     * a {@code respond} rule never reads) makes the kernel send RST, which discards our unsent answer and
     * fails the client's read of what arrived. So the output is shut down (FIN after the answer; under
     * TLS, close_notify first) and whatever the client still sends is read and dropped until it closes,
     * has been quiet for {@link #LINGER_QUIET_NANOS}, or {@link #LINGER_MAX_NANOS} have passed, as nginx's
     * {@code lingering_close} does. Only where bytes may be unread ({@code linger}): after a refusal, or with
     * a body, a next head or held requests not read; otherwise (and for an answer cut anyway) a plain close.
     */
    private void closeGracefully(boolean linger) {
        closing = true;
        if (!linger) {
            // Nothing unread: a plain close after what is written sends FIN, not RST.
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(written -> {
            if (!written.isSuccess() || !(ctx.channel() instanceof DuplexChannel duplex) || !duplex.isActive()) {
                ctx.close();
                return;
            }
            SslHandler ssl = ctx.pipeline().get(SslHandler.class);
            if (ssl == null) {
                linger(duplex);
            } else {
                ssl.closeOutbound().addListener(notified -> linger(duplex));
            }
        });
    }

    private void linger(DuplexChannel channel) {
        if (!channel.isActive()) {
            return;
        }
        channel.shutdownOutput().addListener(shut -> {
            if (!shut.isSuccess() || !channel.isActive()) {
                channel.close();
                return;
            }
            lingering = true;
            long started = System.nanoTime();
            lingerReadAt = started;
            if (ctx.pipeline().context(decoder) != null) {
                ctx.pipeline().remove(decoder); // what it holds comes here, and is dropped
            }
            updateAutoRead();
            lingerCheck(started);
        });
    }

    private void lingerCheck(long started) {
        if (!ctx.channel().isActive()) {
            return;
        }
        long now = System.nanoTime();
        long deadline = Math.min(lingerReadAt + LINGER_QUIET_NANOS, started + LINGER_MAX_NANOS);
        if (now - deadline >= 0) {
            ctx.close();
        } else {
            ctx.executor().schedule(() -> lingerCheck(started), deadline - now, TimeUnit.NANOSECONDS);
        }
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == DrainEvent.INSTANCE && tunnel) {
            return; // a tunnel ends when either side closes it, or at the drain timeout
        }
        if (evt == DrainEvent.INSTANCE) {
            // SIGTERM: an idle connection closes now; a busy one, or one whose next request head is
            // arriving, after that answer (with Connection: close).
            drainRequested = true;
            if (current == null && !decoder.hasPartialHead()) {
                close();
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    /**
     * One timer per connection, moved lazily: it fires, checks how long the connection has waited
     * for a request head, and either acts or sleeps for the time left. No per-request scheduling.
     */
    private void onTimer() {
        if (closing || !ctx.channel().isActive()) {
            return;
        }
        var limits = serving.snapshot().limits();
        long now = System.nanoTime();
        long sendDeadline = unwritableSince + limits.sendTimeout().toNanos();
        if (!ctx.channel().isWritable() && now - sendDeadline >= 0) {
            // The client has not read what we sent for sendTimeout: cut it off (a graceful close would
            // wait behind the unread bytes).
            log.debug("{}: client did not read for {}, closing", ctx.channel().remoteAddress(), limits.sendTimeout());
            closing = true;
            ctx.channel().close();
            return;
        }
        if (tunnel) {
            // A tunnel's other limits are its relay's (the idle timeout); only sendTimeout is watched here.
            if (!ctx.channel().isWritable()) {
                timer.fireIn(ctx.executor(), sendDeadline - now);
            }
            return;
        }
        long next = limits.headerTimeout().toNanos();
        if (!ctx.channel().isWritable()) {
            next = Math.min(next, sendDeadline - now);
        }
        if (current != null) {
            if (!currentBodyDone && !pausedByHandler) {
                long bodyDeadline = bodyProgressAt + limits.bodyTimeout().toNanos();
                if (now - bodyDeadline >= 0) {
                    Http1Exchange ex = current;
                    abortBody(ex, new java.util.concurrent.TimeoutException("no request body for " + limits.bodyTimeout()));
                    refuse(ex, HttpResponseStatus.REQUEST_TIMEOUT);
                    return;
                }
                next = Math.min(next, bodyDeadline - now);
            }
            timer.fireIn(ctx.executor(), next);
            return;
        }
        boolean partial = decoder.hasPartialHead();
        // A head that began after an idle spell has headerTimeout from its start (known to a second; taken
        // a second late, so the 408 never comes early), not from the end of the last answer.
        long since = partial && requests > 0 ? Math.max(idleSince, decoder.headStartedAt() + ONE_SECOND) : idleSince;
        long waited = now - since;
        long allowed = partial || requests == 0 ? limits.headerTimeout().toNanos() : limits.keepAliveTimeout().toNanos();
        if (waited < allowed) {
            timer.fireIn(ctx.executor(), Math.min(next, allowed - waited));
            return;
        }
        if (partial) {
            // Logged with what came of its request line, not as a request it never was.
            Http1Exchange ex = new Http1Exchange(this, decoder.unfinishedHead(), null, null, null, false, idleSince);
            current = ex;
            refuse(ex, HttpResponseStatus.REQUEST_TIMEOUT);
        } else {
            close();
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        FatalErrors.check(cause); // out of memory: halt, never half alive (ADR 0043)
        log.debug("{}: connection error: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }

    /** Fired on every connection when the proxy starts draining (SIGTERM). */
    public enum DrainEvent { INSTANCE }
}
