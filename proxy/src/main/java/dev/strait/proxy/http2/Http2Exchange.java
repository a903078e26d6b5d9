package dev.strait.proxy.http2;

import dev.strait.model.Config;
import dev.strait.model.HostPort;
import dev.strait.model.Limits.UnderscoreHeaders;
import dev.strait.model.PathNormalizer;
import dev.strait.proxy.accesslog.AccessLog;
import dev.strait.proxy.config.Serving;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.DateHeader;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.PeerAddress;
import dev.strait.proxy.http.FileParts;
import dev.strait.proxy.http.ForwardedFor;
import dev.strait.proxy.http.ForwardedProto;
import dev.strait.proxy.http.RequestTokens;
import dev.strait.proxy.http1.HeadParser;
import dev.strait.proxy.metrics.ProxyMetrics;
import dev.strait.proxy.route.CompiledRule;
import dev.strait.proxy.route.Handler;
import dev.strait.proxy.route.RouteTable;
import dev.strait.proxy.tls.ClientCheck;
import dev.strait.proxy.tls.TlsConnection;
import dev.strait.proxy.tracing.RequestTrace;
import dev.strait.proxy.tracing.SpanExporter;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2Stream;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.PromiseNotifier;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One HTTP/2 stream: the request it carries and the means to answer it, as the same {@link Exchange}
 * that HTTP/1.1 requests are answered through, so every rule action works unchanged. It is kept on
 * Netty's stream object by the connection's {@link Http2ServerHandler}, which hands it the stream's
 * frames (ADR 0026; no child channel):
 *
 * <pre>
 *   connection -> Http2ServerHandler -> [stream] Http2Exchange -> route's Handler
 * </pre>
 *
 * <p>The request is shown to handlers as an HTTP/1.1-shaped head ({@code Host} from {@code :authority},
 * cookies joined, {@code Transfer-Encoding: chunked} when a body has no declared length, so proxying and
 * FastCGI frame it as they would a chunked HTTP/1.1 body); responses become HEADERS and DATA frames.
 * Writability is the stream's and the connection's flow-control windows (and the socket's); pausing
 * holds the body frames that still come (at most one stream window, as the client's window is not
 * given back meanwhile): backpressure works as on a connection. A RST_STREAM from the client runs
 * {@link #onCancel}.
 */
public final class Http2Exchange implements Exchange, StreamDeadlines.Expiry {
    private static final Logger log = LoggerFactory.getLogger(Http2Exchange.class);
    static final HttpVersion HTTP_2 = new HttpVersion("HTTP", 2, 0, true);
    private static final HttpRequest NO_REQUEST = new DefaultHttpRequest(HTTP_2, HttpMethod.GET, "/");
    /** Stands in for a {@code :method} that is missing or not a token (logged as null, as on HTTP/1.1). */
    private static final HttpMethod UNKNOWN_METHOD = new HttpMethod("-");

    /** File bodies are read and sent this much at a time, paced by the windows. */
    private static final int FILE_CHUNK = 16 * 1024;

    private final Http2ServerHandler connection;
    private final Http2Stream stream;
    private final ChannelHandlerContext ctx;
    private final Serving serving;
    private final ProxyMetrics metrics;
    private final AccessLog accessLog;

    private HttpRequest request = NO_REQUEST;
    /** No {@code :path} came (or an empty one): the access log shows none, as for an HTTP/1.1 head refused before its target. */
    private boolean noPath;
    /** The connection's, or a trusted peer's X-Forwarded-Proto, once the request is routed (ForwardedProto). */
    private String scheme;
    /** The client a trusted peer named ({@link ForwardedFor}); {@code null}: the connection's peer. */
    private SocketAddress client;
    /** The connection's peer ({@link PeerAddress}), read once when the head is; null before. */
    private SocketAddress peer;
    private String host;
    private String path;
    private String query;
    private boolean head;
    private boolean hasBody;
    /** The client sent {@code Expect: 100-continue} with a body and has not been asked for it yet. */
    private boolean continuePending;
    private boolean bodyDone;
    private long bodyBytes;
    private long maxBodyBytes;
    private long startNanos;
    private CompiledRule rule;
    /** The config this request was routed by, for requests made on its behalf. */
    private Snapshot snapshot;
    private BodyReceiver receiver;
    private Runnable onCancel;
    private Runnable writableTask;
    /** A streamed response has started (its HEADERS frame is written). */
    private boolean streaming;
    /** The response is complete, or the stream was reset. */
    private boolean responded;
    /** The stream was reset or its connection closed before the answer was complete. */
    private boolean gone;
    /** The response has no body (HEAD, 204, 304): body parts are dropped. */
    private boolean bodyless;
    private boolean flushHeld;
    private boolean flushPending;
    private int status;
    /** Set when we reset the stream before any answer started: the status it is recorded with ({@link #statusOfReset}). */
    private int resetStatus;
    private long bytes;
    /** The endpoint that served it, if an upstream did (logged). */
    private HostPort upstream;
    /** The request's trace while the config has {@code tracing}, else null. */
    private RequestTrace trace;
    /** What runs when the exchange is recorded ({@link #onEnd}), or null. */
    private Runnable ended;
    /** The write of the frame that ended the stream. */
    private ChannelFuture lastWrite;
    /** Answered before the request body ended: what still comes is dropped. */
    private boolean draining;
    private long drained;
    /** How much of an unwanted request body is read and dropped before the stream is reset: one window. */
    private static final long DRAIN_LIMIT = Http2Connections.STREAM_WINDOW;
    /** bodyTimeout and sendTimeout; made with the request's HEADERS. */
    private StreamDeadlines deadlines;
    /** Reading is paused (pauseReading): body frames wait in {@link #held}, their bytes not yet given back. */
    private boolean paused;
    /** Body frames (ByteBuf, or Http2Headers for trailers) that came while paused, in order. */
    private ArrayDeque<Object> held;
    private boolean heldEnd;
    /** A file body being sent, {@link #FILE_CHUNK} at a time as the windows open. */
    private FileParts.Chunks fileBody;
    private boolean resumeScheduled;

    Http2Exchange(Http2ServerHandler connection, Http2Stream stream) {
        this.connection = connection;
        this.stream = stream;
        this.ctx = connection.ctx();
        this.serving = connection.serving();
        this.metrics = connection.metrics();
        this.accessLog = connection.accessLog();
    }

    // ---- inbound (called by Http2ServerHandler) ----

    void onHeaders(Http2Headers h, boolean endStream) {
        Snapshot snapshot = serving.snapshot();
        this.snapshot = snapshot;
        startNanos = System.nanoTime();
        maxBodyBytes = snapshot.limits().maxBodyBytes();
        hasBody = !endStream;
        bodyDone = endStream;
        deadlines = new StreamDeadlines(ctx, snapshot.limits(), this);
        deadlines.waitForBody(hasBody);
        if (!connection.isWritable(stream)) {
            // Shut from the start (a zero window in the client's SETTINGS): no change will say so.
            deadlines.writability(false);
        }
        CharSequence method = h.method();
        CharSequence rawPath = h.path();
        CharSequence authority = h.authority();
        if (method == null || rawPath == null || !RequestTokens.isMethod(method) || !RequestTokens.isTarget(rawPath)
                || HttpMethod.CONNECT.asciiName().contentEquals(method)) {
            // No :method or :path (RFC 9113 8.3.1), one HTTP/1.1 would refuse (a space, a control or
            // non-ASCII byte: 400, logged with the bytes escaped), or CONNECT, which this server does
            // not tunnel.
            boolean connect = method != null && HttpMethod.CONNECT.asciiName().contentEquals(method);
            noPath = rawPath == null || rawPath.length() == 0;
            request = new DefaultHttpRequest(HTTP_2,
                    method != null && RequestTokens.isMethod(method) ? HttpMethod.valueOf(method.toString()) : UNKNOWN_METHOD,
                    rawPath == null || rawPath.length() == 0 ? "/" : RequestTokens.printable(rawPath, 1024));
            sendError(connect ? HttpResponseStatus.METHOD_NOT_ALLOWED : HttpResponseStatus.BAD_REQUEST);
            return;
        }
        HttpHeaders headers = DefaultHttpHeadersFactory.headersFactory().withValidation(false).newHeaders();
        String hostValue = authority == null ? null : authority.toString();
        if (hostValue != null) {
            headers.add(HttpHeaderNames.HOST, hostValue);
        }
        StringBuilder cookies = null;
        int count = 0;
        // The header list size as RFC 9113 6.5.2 counts it (and SETTINGS_MAX_HEADER_LIST_SIZE): names,
        // values and 32 per field, pseudo-header fields included.
        long listSize = 0;
        UnderscoreHeaders underscores = snapshot.limits().underscoreHeaders();
        boolean underscoreRefused = false;
        // Malformed (RFC 9113 8.3.1): no :scheme, or a Host naming another authority (or a second Host).
        boolean malformed = h.scheme() == null;
        for (Map.Entry<CharSequence, CharSequence> e : h) {
            CharSequence name = e.getKey();
            listSize += name.length() + e.getValue().length() + 32;
            if (name.length() > 0 && name.charAt(0) == ':') {
                continue;
            }
            if (underscores != UnderscoreHeaders.ALLOW && AsciiString.indexOf(name, '_', 0) >= 0) {
                // As on HTTP/1.1: X_Forwarded_For is X-Forwarded-For to CGI, FastCGI and WSGI.
                underscoreRefused |= underscores == UnderscoreHeaders.REJECT;
                continue;
            }
            if (HttpHeaderNames.COOKIE.contentEquals(name)) {
                // Split cookies are joined for HTTP/1.1 consumers (RFC 9113 8.2.3), and count as the one
                // field they are on HTTP/1.1.
                count += cookies == null ? 1 : 0;
                cookies = cookies == null ? new StringBuilder(e.getValue()) : cookies.append("; ").append(e.getValue());
                continue;
            }
            count++;
            if (HttpHeaderNames.HOST.contentEquals(name)) {
                if (hostValue == null) {
                    hostValue = e.getValue().toString();
                    headers.add(HttpHeaderNames.HOST, hostValue);
                } else if (!AsciiString.contentEqualsIgnoreCase(hostValue, e.getValue())) {
                    malformed = true;
                }
            } else {
                headers.add(name, e.getValue());
            }
        }
        if (cookies != null) {
            headers.add(HttpHeaderNames.COOKIE, cookies.toString());
        }
        String target = rawPath.toString();
        HttpMethod m = HttpMethod.valueOf(method.toString());
        head = m == HttpMethod.HEAD;
        long declared = -1;
        String cl = headers.get(HttpHeaderNames.CONTENT_LENGTH);
        if (cl != null) {
            try {
                declared = Long.parseLong(cl);
            } catch (NumberFormatException e) {
                declared = -2;
            }
        }
        if (hasBody && declared < 0) {
            headers.set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        }
        request = new DefaultHttpRequest(HTTP_2, m, target, headers);
        continuePending = hasBody
                && HttpHeaderValues.CONTINUE.contentEqualsIgnoreCase(headers.get(HttpHeaderNames.EXPECT));
        if (count > snapshot.limits().maxHeaderCount() || listSize > snapshot.limits().maxHeaderBytes()) {
            // As HTTP/1.1 answers a head too large; the codec decodes up to twice maxHeaderBytes
            // (Http2Connections.decodedHeaderListSize), so the stream is answered, not reset.
            sendError(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE);
            return;
        }
        if (declared == -2 || hostValue == null || underscoreRefused || malformed) {
            sendError(HttpResponseStatus.BAD_REQUEST);
            return;
        }
        host = RouteTable.normalizeHost(hostValue);
        int q = target.indexOf('?');
        String p = q < 0 ? target : target.substring(0, q);
        path = host == null || p.isEmpty() || p.charAt(0) != '/' || p.indexOf('#') >= 0 ? null : PathNormalizer.normalize(p);
        String matchPath = path == null ? null : PathNormalizer.forMatching(path);
        if (matchPath == null) {
            sendError(HttpResponseStatus.BAD_REQUEST);
            return;
        }
        query = q < 0 ? null : target.substring(q + 1);
        TlsConnection tls = TlsConnection.of(ctx.channel());
        if (tls != null && tls.misdirected(host)) {
            // HTTP/2 clients reuse a connection for every name its certificate covers; not this one.
            sendError(HttpResponseStatus.MISDIRECTED_REQUEST);
            return;
        }
        Config.ForwardedHeaders trust = snapshot.config().forwardedHeaders();
        peer = PeerAddress.of(ctx.channel());
        scheme = ForwardedProto.scheme(tls != null ? "https" : "http", headers, peer, trust);
        if (!trust.trustedPeers().isEmpty()) {
            client = ForwardedFor.client(headers, peer, trust);
        }
        CompiledRule r = snapshot.route(connection.listener(), tls != null, "https".equals(scheme), host, matchPath, m, headers);
        Config.Tracing tracing = snapshot.config().tracing();
        if (tracing != null && (r == null || r.tracing())) {
            trace = RequestTrace.start(tracing, headers, peer);
        }
        ClientCheck client = ClientCheck.of(tls, snapshot.tls(), connection.listener(), host, r);
        if (client.refusal() != null) {
            client.answer(this);
            return;
        }
        client.applyTo(headers);
        if (r != null && r.maxBodyBytes() >= 0) {
            maxBodyBytes = r.maxBodyBytes(); // the rule's own limit (nginx's client_max_body_size in a location)
        }
        if (declared > maxBodyBytes) {
            rule = r;
            sendError(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
            return;
        }
        if (r == null) {
            sendPlain(HttpResponseStatus.NOT_FOUND,
                    "https".equals(scheme) ? snapshot.hsts(connection.listener(), host) : null);
            return;
        }
        rule = r;
        if (r.guard() != null && r.guard().refuses(this, r.handler())) {
            return;
        }
        try {
            if (continuePending) {
                Handler.start(r.handler(), this); // asks for the body unless the action decides first
            } else {
                r.handler().handle(this);
            }
        } catch (RuntimeException e) {
            log.error("route {} rule {}: handler failed on {} {} (HTTP/2)", r.route(), r.index(), m, target, e);
            if (!responded && !streaming) {
                sendError(HttpResponseStatus.INTERNAL_SERVER_ERROR);
            }
        }
    }

    /**
     * A request whose header block the codec decoded but did not keep: more than it keeps (twice
     * maxHeaderBytes: 431), or fields it refused as malformed (upper case names, connection-specific
     * fields, bad pseudo-headers: 400). Its fields are gone, so the answer goes without them (method and
     * path logged as not read), as HTTP/1.1 answers and logs a refused head. The stream is then reset
     * with NO_ERROR, so a client still sending a body stops (RFC 9113 8.1).
     */
    void refusedHead(HttpResponseStatus status) {
        startNanos = System.nanoTime();
        bodyDone = true;
        noPath = true;
        request = new DefaultHttpRequest(HTTP_2, UNKNOWN_METHOD, "/");
        sendError(status);
        ChannelFuture last = lastWrite;
        int id = stream.id();
        if (last != null) {
            last.addListener(f -> connection.resetEnded(id, Http2Error.NO_ERROR));
        }
    }

    /**
     * A DATA frame of the request body (the caller keeps ownership of {@code content}); returns how many of
     * its bytes go back to the client's windows now: all, unless reading is paused.
     */
    int onData(ByteBuf content, boolean endStream) {
        int n = content.readableBytes();
        if (n > 0 && deadlines != null) {
            deadlines.bodyProgress();
        }
        if (paused || held != null) {
            hold(content.retainedSlice(), endStream);
            return 0;
        }
        deliverData(content, endStream);
        return n;
    }

    private void hold(Object frame, boolean end) {
        if (held == null) {
            held = new ArrayDeque<>(4);
        }
        held.add(frame);
        heldEnd |= end;
    }

    /** Hands held frames over while reading is not paused again, giving their bytes back as they go. */
    private void deliverHeld() {
        while (!paused && held != null) {
            Object frame = held.poll();
            if (frame == null) {
                held = null;
                if (heldEnd) {
                    heldEnd = false;
                    endBody(EMPTY_TRAILERS);
                }
                return;
            }
            if (frame instanceof ByteBuf data) {
                int n = data.readableBytes();
                boolean end = heldEnd && held.isEmpty();
                if (end) {
                    heldEnd = false;
                }
                try {
                    deliverData(data, end);
                } finally {
                    data.release();
                }
                connection.consumed(stream, n);
            } else {
                heldEnd = false;
                held = null;
                deliverTrailers((Http2Headers) frame);
                return;
            }
        }
    }

    private void releaseHeld() {
        ArrayDeque<Object> h = held;
        held = null;
        heldEnd = false;
        if (h != null) {
            for (Object frame : h) {
                ReferenceCountUtil.release(frame);
            }
        }
    }

    private void deliverData(ByteBuf content, boolean endStream) {
        int n = content.readableBytes();
        if (bodyDone && !draining) {
            return; // aborted or timed out: what still comes is dropped
        }
        if (draining) {
            // Answered already: the rest of the body is dropped, up to a limit.
            drained += n;
            boolean end = endStream;
            if (end) {
                draining = false;
                bodyDone = true;
                deadlines.waitForBody(false);
            } else if (drained > DRAIN_LIMIT) {
                draining = false;
                resetAfterAnswer(Http2Error.NO_ERROR);
            }
            return;
        }
        bodyBytes += n;
        if (bodyBytes > maxBodyBytes) {
            bodyDone = endStream;
            abortBody(new IllegalStateException("request body over " + maxBodyBytes + " bytes"));
            if (!responded && !streaming) {
                sendError(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE);
            } else {
                reset(Http2Error.CANCEL);
            }
            return;
        }
        BodyReceiver r = receiver;
        if (r != null && n > 0) {
            r.onBodyPart(content.retainedSlice());
        }
        if (endStream) {
            endBody(EMPTY_TRAILERS);
        }
    }

    private static final HttpHeaders EMPTY_TRAILERS = DefaultHttpHeadersFactory.trailersFactory().newEmptyHeaders();

    /** A second HEADERS block: the request's trailers, which end the body. */
    void onTrailers(Http2Headers h) {
        if (paused || held != null) {
            hold(h, true);
            return;
        }
        deliverTrailers(h);
    }

    private void deliverTrailers(Http2Headers h) {
        if (bodyDone && !draining) {
            return;
        }
        if (draining) {
            draining = false;
            bodyDone = true;
            deadlines.waitForBody(false);
            return;
        }
        HttpHeaders trailers = DefaultHttpHeadersFactory.trailersFactory().withValidation(false).newHeaders();
        for (Map.Entry<CharSequence, CharSequence> e : h) {
            CharSequence name = e.getKey();
            if (name.length() == 0 || name.charAt(0) == ':' || AsciiString.indexOf(name, '_', 0) >= 0) {
                continue; // underscores dropped, as HTTP/1.1 trailers do
            }
            if (HeadParser.forbiddenInTrailer(name)) {
                // A trailer may not frame, route or authorise the request: refused as on HTTP/1.1.
                bodyDone = true;
                deadlines.waitForBody(false);
                abortBody(new IllegalStateException("trailer field " + name + " not allowed"));
                if (!responded && !streaming) {
                    sendError(HttpResponseStatus.BAD_REQUEST);
                } else {
                    reset(Http2Error.PROTOCOL_ERROR);
                }
                return;
            }
            trailers.add(name, e.getValue());
        }
        endBody(trailers);
    }

    private void endBody(HttpHeaders trailers) {
        if (bodyDone && !draining) {
            return;
        }
        draining = false;
        bodyDone = true;
        deadlines.waitForBody(false);
        BodyReceiver r = receiver;
        if (r != null) {
            receiver = null;
            r.onBodyEnd(trailers);
        }
    }

    private void abortBody(Throwable cause) {
        BodyReceiver r = receiver;
        if (r != null) {
            receiver = null;
            r.onBodyAbort(cause);
        }
    }

    /** The stream is closed (answered, reset by either side, or the connection closed). */
    void closed() {
        if (deadlines != null) {
            deadlines.cancel();
        }
        releaseHeld();
        closeFile();
        cancelled();
    }

    /**
     * The stream is gone (reset by the client, or the connection closed) before the answer was complete.
     * The request is recorded now, once, as nginx does: 499 (client closed request) when no answer had
     * started, else the status that was sent, with the body bytes written so far.
     */
    void cancelled() {
        if (!bodyDone) {
            bodyDone = true;
            abortBody(new java.nio.channels.ClosedChannelException());
        }
        Runnable cancel = onCancel;
        onCancel = null;
        if (!responded) {
            responded = true;
            gone = true;
            if (!streaming) {
                status = resetStatus != 0 ? resetStatus : 499;
            }
            record();
            if (cancel != null) {
                cancel.run();
            }
        }
    }

    /**
     * The stream's windows (or the socket) opened or shut. Netty's flow controller calls this in the middle
     * of its own writing, so what waits for writability (a file, the handler's task) goes on in a task of
     * its own.
     */
    void writabilityChanged() {
        if (!open()) {
            // Ended on our side, or closing: Netty cancels a closing stream's flow state, which reads as
            // "unwritable"; a sendTimeout timer for it would be scheduled only to be cancelled.
            return;
        }
        boolean writable = isWritable();
        if (deadlines != null) {
            deadlines.writability(writable);
        }
        if (writable && !resumeScheduled && (fileBody != null || writableTask != null)) {
            resumeScheduled = true;
            ctx.executor().execute(this::resumeWriting);
        }
    }

    private void resumeWriting() {
        resumeScheduled = false;
        if (!isWritable()) {
            return;
        }
        if (fileBody != null) {
            sendFileChunks();
        }
        Runnable task = writableTask;
        if (task != null && isWritable()) {
            writableTask = null;
            task.run();
        }
    }

    /** Our own code failed on this stream: it is reset, the connection and its other streams go on. */
    void failed(Throwable cause) {
        log.error("{}: HTTP/2 stream {} failed", ctx.channel().remoteAddress(), stream.id(), cause);
        reset(Http2Error.INTERNAL_ERROR);
    }

    // ---- StreamDeadlines.Expiry ----

    /** The request body stopped for bodyTimeout: 408 if not answered yet, and the stream ends either way. */
    @Override
    public void bodyTimedOut() {
        if (bodyDone) {
            return;
        }
        log.debug("{}: stream {}: no request body for {} ms", ctx.channel().remoteAddress(), stream.id(), serving.snapshot().limits().bodyTimeout().toMillis());
        bodyDone = true;
        draining = false;
        abortBody(new java.util.concurrent.TimeoutException("no request body")); // the upstream call ends
        if (!responded && !streaming) {
            sendError(HttpResponseStatus.REQUEST_TIMEOUT);
            resetAfterAnswer(Http2Error.NO_ERROR); // the client is still sending: tell it to stop
        } else if (responded) {
            resetAfterAnswer(Http2Error.NO_ERROR); // answered early; the rest of the body is not coming
        } else {
            reset(Http2Error.CANCEL); // mid-answer, and the answer depended on that body
        }
    }

    /**
     * The client left the stream unwritable for sendTimeout (its window shut, or the connection not
     * drained): the stream is reset, which drops what Netty's flow controller holds for it, and the
     * upstream call is cancelled, so nothing more is read for it.
     */
    @Override
    public void sendTimedOut() {
        log.debug("{}: stream {} not writable for {} ms, resetting", ctx.channel().remoteAddress(), stream.id(),
                serving.snapshot().limits().sendTimeout().toMillis());
        Runnable cancel = onCancel;
        onCancel = null;
        reset(Http2Error.CANCEL);
        if (cancel != null) {
            cancel.run();
        }
    }

    // ---- Exchange: the request ----

    @Override
    public HttpRequest request() {
        return request;
    }

    @Override
    public String path() {
        return path;
    }

    @Override
    public String query() {
        return query;
    }

    @Override
    public boolean isHead() {
        return head;
    }

    @Override
    public ByteBufAllocator alloc() {
        return ctx.alloc();
    }

    @Override
    public EventLoop eventLoop() {
        return ctx.channel().eventLoop();
    }

    @Override
    public SocketAddress remoteAddress() {
        return peer != null ? peer : PeerAddress.of(ctx.channel());
    }

    @Override
    public SocketAddress clientAddress() {
        return client != null ? client : remoteAddress();
    }

    @Override
    public SocketAddress localAddress() {
        return ctx.channel().localAddress();
    }

    @Override
    public String scheme() {
        return scheme != null ? scheme : TlsConnection.of(ctx.channel()) != null ? "https" : "http";
    }

    @Override
    public String host() {
        return host;
    }

    @Override
    public long startNanos() {
        return startNanos;
    }

    @Override
    public boolean hasBody() {
        return hasBody;
    }

    @Override
    public void receiveBody(BodyReceiver receiver) {
        this.receiver = bodyDone ? null : receiver;
    }

    @Override
    public void pauseReading() {
        paused = true;
        if (deadlines != null) {
            deadlines.waitForBody(false); // our choice, not the client's stall
        }
    }

    @Override
    public void resumeReading() {
        if (paused) {
            paused = false;
            if (deadlines != null && !bodyDone) {
                deadlines.waitForBody(true); // the client's clock runs again, from now
            }
            deliverHeld();
        }
    }

    // ---- Exchange: the response ----

    @Override
    public void sendPreEncoded(byte[] headBytes, byte[] body) {
        sendPreEncoded(headBytes, body == null || body.length == 0 ? null : Unpooled.wrappedBuffer(body));
    }

    @Override
    public void sendPreEncoded(byte[] headBytes, ByteBuf body) {
        PreEncodedHead.Shared shared = PreEncodedHead.shared(headBytes);
        sendHeadAndBody(shared.headers, shared.status, body);
    }

    @Override
    public void sendPreEncoded(byte[] headBytes, byte[] extra, ByteBuf body) {
        // Extra lines differ per answer (the cache's Age): these headers are this answer's own.
        Http2Headers headers = PreEncodedHead.parse(headBytes);
        PreEncodedHead.addLines(headers, extra, 0);
        headers.set(HttpHeaderNames.DATE, DateHeader.value());
        sendHeadAndBody(headers, ((AsciiString) headers.status()).parseInt(), body);
    }

    private void sendHeadAndBody(Http2Headers headers, int status, ByteBuf body) {
        beginResponse(status);
        int len = body == null ? 0 : body.readableBytes();
        if (head || len == 0) {
            ReferenceCountUtil.release(body);
            writeHeaders(headers, true);
        } else {
            writeHeaders(headers, false);
            bytes += len;
            writeLastData(body);
        }
        complete();
    }

    @Override
    public void sendFile(byte[] headBytes, FileChannel fc, long offset, long length) {
        if (head || length == 0) {
            closeQuietly(fc);
            sendFileParts(headBytes, null);
            return;
        }
        sendFileParts(headBytes, FileParts.range(fc, offset, length));
    }

    /** {@code body} may be {@code null} for none (HEAD, an empty file). */
    @Override
    public void sendFileParts(byte[] headBytes, FileParts body) {
        PreEncodedHead.Shared shared = PreEncodedHead.shared(headBytes);
        Http2Headers headers = shared.headers;
        beginResponse(shared.status);
        if (head || body == null || body.length() == 0) {
            ReferenceCountUtil.release(body);
            writeHeaders(headers, true);
            complete();
            return;
        }
        writeHeaders(headers, false);
        bytes += body.length();
        fileBody = body.chunks(FILE_CHUNK);
        // The end of the answer is the write of the file's last chunk.
        lastWrite = ctx.newPromise();
        complete();
        sendFileChunks();
    }

    /**
     * Reads and sends the file {@link #FILE_CHUNK} at a time into pooled buffers while the stream, the
     * connection and the socket take more; {@link #writabilityChanged} goes on when they open again. Each
     * chunk but the last is flushed at once, so the socket's writability bounds what waits in memory.
     */
    private void sendFileChunks() {
        while (fileBody != null && isWritable()) {
            ByteBuf chunk;
            try {
                chunk = fileBody.readChunk(ctx.alloc());
            } catch (Exception e) {
                log.debug("{}: stream {}: reading the file failed: {}", ctx.channel().remoteAddress(), stream.id(), e.toString());
                closeFile();
                reset(Http2Error.INTERNAL_ERROR);
                return;
            }
            if (fileBody.isEndOfInput()) {
                ChannelPromise done = (ChannelPromise) lastWrite;
                closeFile();
                connection.writeData(stream, chunk, true).addListener(new PromiseNotifier<>(done));
                flushSoon();
                return;
            }
            connection.writeData(stream, chunk, false);
            connection.flush(ctx);
        }
    }

    private void closeFile() {
        FileParts.Chunks in = fileBody;
        if (in == null) {
            return;
        }
        fileBody = null;
        boolean cut = !in.isEndOfInput();
        in.close();
        if (cut && lastWrite instanceof ChannelPromise done) {
            done.tryFailure(new java.nio.channels.ClosedChannelException()); // cut short
        }
    }

    private static void closeQuietly(FileChannel fc) {
        try {
            fc.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    @Override
    public void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf body) {
        startResponse(status, headers, body == null ? 0 : body.readableBytes());
        if (body != null) {
            sendBodyPart(body);
        }
        endResponse(null);
    }

    @Override
    public void sendError(HttpResponseStatus status) {
        sendPlain(status, null);
    }

    /** The short plain-text answer of {@code status}; {@code hsts}: a {@code Strict-Transport-Security} value, or null. */
    private void sendPlain(HttpResponseStatus status, String hsts) {
        byte[] body = (status.code() + " " + status.reasonPhrase() + "\n").getBytes(StandardCharsets.ISO_8859_1);
        Http2Headers h = new DefaultHttp2Headers(false).status(status.codeAsText())
                .add(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8")
                .addLong(HttpHeaderNames.CONTENT_LENGTH, body.length);
        if (hsts != null) {
            h.add("strict-transport-security", hsts);
        }
        beginResponse(h);
        if (head) {
            writeHeaders(h, true);
        } else {
            writeHeaders(h, false);
            bytes += body.length;
            writeLastData(Unpooled.wrappedBuffer(body));
        }
        complete();
    }

    /** A handler's HTTP/1-style head as HTTP/2 headers: names lower-cased, connection-specific fields and length dropped. */
    private static Http2Headers http2Headers(HttpResponseStatus status, HttpHeaders headers) {
        Http2Headers h = new DefaultHttp2Headers(false).status(status.codeAsText());
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> e = it.next();
            AsciiString name = AsciiString.of(e.getKey()).toLowerCase();
            if (!PreEncodedHead.isConnectionSpecific(name) && !HttpHeaderNames.CONTENT_LENGTH.contentEquals(name)) {
                h.add(name, e.getValue());
            }
        }
        return h;
    }

    /**
     * {@code 100 Continue} as an interim HEADERS frame (RFC 9113 8.1) once the request goes to its action. An
     * answer before then ends the stream and resets it with NO_ERROR, so the client sends no body.
     */
    @Override
    public void continueBody() {
        if (continuePending) {
            continuePending = false;
            sendInformational(HttpResponseStatus.CONTINUE, EmptyHttpHeaders.INSTANCE);
        }
    }

    @Override
    public void sendInformational(HttpResponseStatus status, HttpHeaders headers) {
        if (responded || streaming || !open()) {
            return;
        }
        Http2Headers h = http2Headers(status, headers);
        connection.writeHeaders(stream, h, false); // an interim HEADERS frame: the stream stays open for the answer
        flushSoon();
    }

    @Override
    public void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) {
        Http2Headers h = http2Headers(status, headers);
        int code = status.code();
        if (contentLength >= 0 && code != 204 && code != 304 && code / 100 != 1) {
            h.setLong(HttpHeaderNames.CONTENT_LENGTH, contentLength);
        }
        beginResponse(h);
        streaming = true;
        bodyless = head || code == 204 || code == 304;
        writeHeaders(h, bodyless);
        if (bodyless) {
            onCancel = null; // the stream is ended: nothing left that a reset could cut short
        }
    }

    @Override
    public void sendBodyPart(ByteBuf data) {
        if (!streaming || bodyless || responded || data.readableBytes() == 0) {
            data.release();
            return;
        }
        if (!open()) {
            data.release();
            return;
        }
        bytes += data.readableBytes();
        connection.writeData(stream, data, false);
        flushSoon();
    }

    @Override
    public void endResponse(HttpHeaders trailers) {
        if (!streaming || responded) {
            return;
        }
        if (bodyless) {
            responded = true;
            record();
            return;
        }
        if (trailers != null && !trailers.isEmpty()) {
            Http2Headers t = new DefaultHttp2Headers(false);
            for (Iterator<Map.Entry<CharSequence, CharSequence>> it = trailers.iteratorCharSequence(); it.hasNext(); ) {
                Map.Entry<CharSequence, CharSequence> e = it.next();
                t.add(AsciiString.of(e.getKey()).toLowerCase(), e.getValue());
            }
            writeLastHeaders(t);
        } else {
            writeLastData(Unpooled.EMPTY_BUFFER);
        }
        complete();
    }

    @Override
    public boolean isWritable() {
        return open() && connection.isWritable(stream);
    }

    @Override
    public void onWritable(Runnable task) {
        if (isWritable()) {
            task.run();
        } else {
            writableTask = task;
        }
    }

    @Override
    public void onEnd(Runnable task) {
        ended = task;
    }

    @Override
    public void upstream(HostPort endpoint) {
        upstream = endpoint;
    }

    @Override
    public RequestTrace trace() {
        return trace;
    }

    @Override
    public void onCancel(Runnable task) {
        this.onCancel = task;
    }

    @Override
    public boolean clientGone() {
        return gone;
    }

    @Override
    public void abort() {
        if (responded) {
            return;
        }
        if (!streaming) {
            sendError(HttpResponseStatus.BAD_GATEWAY);
            return;
        }
        // The answer cannot be completed: the stream is reset, the connection and its other streams go on.
        reset(Http2Error.INTERNAL_ERROR);
    }

    @Override
    public void holdFlush() {
        flushHeld = true;
    }

    @Override
    public void flush() {
        flushHeld = false;
        if (flushPending) {
            flushPending = false;
            connection.flushSoon();
        }
    }

    @Override
    public void switchProtocols(HttpHeaders headers, ChannelHandler tunnel) {
        // HTTP/2 requests carry no Upgrade (RFC 9113 8.2.2), so an upstream 101 cannot be relayed.
        ReferenceCountUtil.release(tunnel);
        abort();
    }

    // ---- framing ----

    /** For headers built for this answer alone: adds {@code Date}. */
    private void beginResponse(Http2Headers headers) {
        beginResponse(((AsciiString) headers.status()).parseInt());
        if (!headers.contains(HttpHeaderNames.DATE)) {
            headers.add(HttpHeaderNames.DATE, DateHeader.value());
        }
    }

    private void beginResponse(int status) {
        if (responded || streaming) {
            throw new IllegalStateException("response already started for " + request.uri());
        }
        this.status = status;
    }

    private void writeHeaders(Http2Headers headers, boolean endStream) {
        if (endStream) {
            writeLastHeaders(headers);
            flushSoon();
        } else if (open()) {
            connection.writeHeaders(stream, headers, false);
        }
    }

    /** The stream takes frames from us: not closed, reset or ended on our side. */
    private boolean open() {
        Http2Stream.State state = stream.state();
        return state == Http2Stream.State.OPEN || state == Http2Stream.State.HALF_CLOSED_REMOTE;
    }

    private void complete() {
        responded = true;
        onCancel = null;
        record();
        if (!bodyDone && continuePending) {
            // Answered before the body was asked for: the client holds it back, so none is coming to drain;
            // the reset tells it to keep the answer and send nothing (RFC 9113 8.1).
            bodyDone = true;
            deadlines.waitForBody(false);
            abortBody(new IllegalStateException("answered before the body was asked for"));
            resetAfterAnswer(Http2Error.NO_ERROR);
        } else if (!bodyDone && !draining) {
            // Answered before the body ended (413, a fixed answer to a POST): the rest is read and dropped
            // up to DRAIN_LIMIT, then the stream is reset. Resetting at once made clients (curl) that were
            // still sending report an error instead of the answer.
            draining = true;
            abortBody(new IllegalStateException("answered before the body ended"));
            resumeReading();
        }
        flushSoon();
    }

    /**
     * Resets the stream once the answer's last frame has left: a reset written at once would make Netty's
     * flow controller drop DATA it still holds, and the client would see no answer at all. With a
     * complete answer the code is NO_ERROR: RFC 9113 8.1's "stop sending, and keep the response"
     * (clients such as h2load discard a response that a CANCEL follows).
     */
    private void resetAfterAnswer(Http2Error error) {
        ChannelFuture last = lastWrite;
        if (last == null) {
            reset(error);
            return;
        }
        last.addListener(f -> {
            if (stream.state() != Http2Stream.State.CLOSED) {
                connection.reset(stream, error); // the client's side is still open: tell it to stop sending
            }
        });
    }

    /** Writes the HEADERS that end the stream, keeping its future (see {@link #resetAfterAnswer}). */
    private void writeLastHeaders(Http2Headers headers) {
        if (open()) {
            lastWrite = connection.writeHeaders(stream, headers, true);
        }
    }

    /** Writes the DATA that ends the stream, keeping its future (see {@link #resetAfterAnswer}). */
    private void writeLastData(ByteBuf data) {
        if (open()) {
            lastWrite = connection.writeData(stream, data, true);
        } else {
            data.release();
        }
    }

    private void reset(Http2Error error) {
        if (stream.state() == Http2Stream.State.CLOSED) {
            return;
        }
        boolean wasResponded = responded;
        responded = true;
        onCancel = null;
        abortBody(new IllegalStateException("stream reset"));
        if (!wasResponded) {
            if (!streaming) {
                status = statusOfReset(error.code());
            }
            record();
        }
        closeFile();
        releaseHeld();
        connection.reset(stream, error);
    }

    /**
     * We are resetting the stream (our reset, or Netty's for a stream error of the client's): if no answer
     * has started, the status it is recorded with, instead of 499.
     */
    void resetting(long errorCode) {
        if (!responded && !streaming) {
            resetStatus = statusOfReset(errorCode);
        }
    }

    /**
     * The status recorded for a stream we reset before any answer started, as HTTP/1.1 records the same
     * case: 500 for our own failure (INTERNAL_ERROR: HTTP/1.1 answers a handler's failure 500; an upstream's
     * failure is answered 502 before any reset), 499 for a client that took nothing we wrote (CANCEL at
     * sendTimeout: HTTP/1.1 cuts the connection, recorded 499), and 400 for a client that broke the
     * stream's rules (flow control, a body longer or shorter than its content-length, ...), as HTTP/1.1
     * answers a broken body 400.
     */
    static int statusOfReset(long errorCode) {
        if (errorCode == Http2Error.INTERNAL_ERROR.code()) {
            return 500;
        }
        if (errorCode == Http2Error.CANCEL.code()) {
            return 499;
        }
        return 400;
    }

    private void flushSoon() {
        if (flushHeld) {
            flushPending = true;
        } else {
            connection.flushSoon();
        }
    }

    private void record() {
        Runnable end = ended;
        if (end != null) {
            ended = null;
            end.run();
        }
        long endNanos = System.nanoTime();
        long nanos = endNanos - startNanos;
        metrics.route(rule == null ? ProxyMetrics.NO_ROUTE : rule.route()).record(status, nanos);
        if (accessLog != null && serving.snapshot().accessLog() && (rule == null || rule.accessLog())) {
            SocketAddress remote = clientAddress();
            accessLog.log(new AccessLog.Entry(System.currentTimeMillis(),
                    AccessLog.remote(remote),
                    request.method() == UNKNOWN_METHOD ? null : request.method().name(), noPath ? null : request.uri(),
                    "HTTP/2.0",
                    host, status, bytes, nanos,
                    rule == null ? null : rule.route(), request.headers().get(HttpHeaderNames.USER_AGENT),
                    AccessLog.requestId(request.headers()), upstream, trace));
        }
        if (trace != null) {
            SpanExporter.report(trace, startNanos, endNanos, request.method().name(), scheme, host, request.uri(), "2", status, bytes,
                    rule == null ? null : rule.route(), clientAddress(), request.headers(), upstream);
        }
    }

    @Override
    public void dispatch(Exchange sub) {
        snapshot.dispatch(connection.listener(), TlsConnection.of(ctx.channel()) != null, sub);
    }
}
