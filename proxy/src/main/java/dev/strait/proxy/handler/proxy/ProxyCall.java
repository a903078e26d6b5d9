package dev.strait.proxy.handler.proxy;

import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.tracing.RequestTrace;
import dev.strait.proxy.tracing.SpanExporter;
import dev.strait.proxy.upstream.EndpointPool;
import dev.strait.proxy.upstream.LoopContext;
import dev.strait.proxy.upstream.LoopUpstream;
import dev.strait.proxy.upstream.UpstreamConnection;
import dev.strait.proxy.upstream.UpstreamListener;
import dev.strait.proxy.upstream.UpstreamResponse;
import dev.strait.proxy.upstream.UpstreamSpec;
import io.netty.buffer.ByteBuf;
import io.netty.channel.ConnectTimeoutException;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObject;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.CharsetUtil;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One proxied request, from the client's request head to the end of the upstream's answer, on the
 * client connection's event loop (the upstream connection is on the same loop, so nothing here is
 * shared between threads).
 *
 * <p>Tries: choose an endpoint, take a pooled connection or make one, send the head (and the body as
 * it streams in), relay the answer. A failed try is retried, within the rule's attempts and the
 * upstream's retry budget, with backoff, only while that is safe: connect failures always (nothing
 * was sent); a reused keep-alive connection that closed before answering, once, on a fresh
 * connection; resets, timeouts and listed statuses for idempotent requests; never once request body
 * bytes went upstream, with one exception: the body of an idempotent request sent on a reused
 * connection is kept, up to {@link #REPLAY_LIMIT}, until the first byte of an answer, so that the
 * keep-alive race (the upstream closed the connection as we reused it) is retried for a PUT with a
 * small body as it is for a GET. nginx, which buffers request bodies, hides that race the same way.
 *
 * <p>Backpressure both ways: while the upstream cannot take more, the client is not read; while the
 * client cannot take more, the upstream is not read. Nothing is buffered whole: at most what one
 * read brought.
 *
 * <p>The answer's head is held until the end of the upstream read that brought it, so that a
 * response whose end is followed by stray bytes in the same read (bad framing) is caught before the
 * client sees anything: it gets 502 and the connection is closed, never reused.
 */
final class ProxyCall implements UpstreamListener, BodyReceiver, Runnable {
    private static final Logger log = LoggerFactory.getLogger(ProxyCall.class);
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] LAST_CHUNK = {'0', '\r', '\n'};

    private final ProxyHandler rule;
    private final Exchange ex;
    private final LoopContext lc;
    /** How long an upstream may take none of a request body before the call gives up (nginx's proxy_send_timeout). */
    static final long UPSTREAM_SEND_TIMEOUT = TimeUnit.SECONDS.toNanos(60);
    /** The most request body kept to replay on a fresh connection after the keep-alive race. */
    static final int REPLAY_LIMIT = 64 * 1024;
    private final boolean idempotent;
    private final boolean chunkedBody;
    /** A WebSocket handshake: the upstream may answer 101, and then the connections become a tunnel. */
    private final boolean upgrade;
    private final long startNanos;
    private final long requestDeadline;
    private LoopUpstream upstream;
    private EndpointPool endpoint;
    private EndpointPool lastEndpoint;
    private UpstreamConnection conn;
    private boolean reused;
    private ByteBuf head;
    private long hash;
    /** The affinity cookie's key this call hands the client (hashOn.setCookie, the request had none), or null. */
    private String affinityKey;

    // tries
    private int retries;
    private boolean freshRetryUsed;
    private boolean tryActive;
    /** A try has started (the first one reuses the request's start time). */
    private boolean attempted;
    /** Inside {@code EndpointPool.acquire}: a connection handed over now is handed over at {@code tryStart}. */
    private boolean acquiring;
    private long tryStart;
    private long tryDeadline;
    private long lastActivity;
    private ScheduledFuture<?> backoff;

    // request body
    private ArrayDeque<ByteBuf> pendingBody;
    private boolean bodyEnded;
    private HttpHeaders bodyTrailers;
    /** Body bytes went to the current connection: from now on no retry (but see {@link #replay}). */
    private boolean bodySent;
    /**
     * Every body byte sent so far on a reused connection, while it is an idempotent request's first use
     * of one and under {@link #REPLAY_LIMIT}: what a fresh connection gets if the upstream closes this
     * one without answering. Null when not kept; dropped at the first byte of an answer.
     */
    private ArrayDeque<ByteBuf> replay;
    private int replayBytes;
    /** The whole request (head, body, end) went to the current connection. */
    private boolean requestSent;
    private boolean clientPaused;
    /** When the upstream connection last stopped taking the request body (became unwritable). */
    private long upstreamStalledSince;
    /** Reading the upstream stopped until the client takes what we sent it (see onReadComplete). */
    private boolean upstreamReadPaused;

    // response
    private boolean gotBytes;
    private boolean informational;
    private UpstreamResponse pendingHead;
    private ArrayDeque<ByteBuf> pendingParts;
    private boolean clientStarted;
    private boolean holding;
    private int status;
    private boolean upstreamKeepAlive;
    private boolean done;

    /** The upstream this request goes to, chosen by weight (null: every backend weighs 0). */
    private final UpstreamSpec spec;
    /** The rewritten request target, or {@code null} for the client's. */
    private final String target;
    /** The current try's span (tracing.upstreamSpans), or null. */
    private RequestTrace tryTrace;
    /** Where the span id of the head's {@code traceparent} is; -1 before it is looked for or when it is absent. */
    private int traceSpanAt = -1;
    /** The head went to a connection already: a later try writes a copy with its own span id. */
    private boolean headWritten;

    /** @param target the target to send instead of the client's ({@link ProxyHandler#rewrittenTarget}), or null */
    ProxyCall(ProxyHandler rule, Exchange ex, LoopContext lc, UpstreamSpec spec, String target) {
        this.target = target;
        this.rule = rule;
        this.spec = spec;
        this.ex = ex;
        this.lc = lc;
        HttpMethod m = ex.request().method();
        this.idempotent = m == HttpMethod.GET || m == HttpMethod.HEAD || m == HttpMethod.OPTIONS
                || m == HttpMethod.PUT || m == HttpMethod.DELETE || m == HttpMethod.TRACE;
        this.chunkedBody = ex.hasBody() && HttpUtil.isTransferEncodingChunked(ex.request());
        this.upgrade = isWebSocketHandshake(ex);
        this.startNanos = ex.startNanos(); // read in this same dispatch: no second clock read
        this.requestDeadline = rule.requestTimeoutNanos == 0 ? 0 : startNanos + rule.requestTimeoutNanos;
    }

    void start() {
        ex.onCancel(this::onClientGone);
        if (ex.hasBody()) {
            ex.receiveBody(this);
        } else {
            bodyEnded = true;
        }
        if (spec == null) {
            fail(HttpResponseStatus.SERVICE_UNAVAILABLE, "every backend has weight 0");
            return;
        }
        upstream = lc.upstream(spec);
        if (spec.config().hashOn() != null) {
            affinityKey = upstream.newAffinityKey(ex.request().headers());
            hash = affinityKey != null ? LoopUpstream.keyHash(affinityKey)
                    : upstream.hash(ex.request(), ex.path(), ex.query(), ex.clientAddress());
        }
        head = RequestHead.encode(ex, lc, rule.hostRewrite, target, rule.keepsRequestId(ex), chunkedBody,
                spec.fallbackHost(), upgrade);
        upstream.firstTry();
        attempt(false);
    }

    /** The affinity cookie for a new browser, or a new key for one its endpoint failed (changeOnFailure). */
    private void addAffinityCookie(HttpHeaders h) {
        String key = affinityKey != null ? affinityKey : upstream.reissuedKey(hash, endpoint);
        if (key != null) {
            h.add(HttpHeaderNames.SET_COOKIE, upstream.affinityCookie(key, endpoint, "https".equals(ex.scheme())));
        }
    }

    // ---- tries ----

    private void attempt(boolean fresh) {
        backoff = null;
        if (done) {
            return;
        }
        // The first try starts in the dispatch that read the request; later ones need the clock.
        long now = attempted ? System.nanoTime() : startNanos;
        attempted = true;
        EndpointPool e = upstream.pick(hash, lastEndpoint, now);
        if (e == null) {
            fail(HttpResponseStatus.SERVICE_UNAVAILABLE, "no healthy endpoint");
            return;
        }
        endpoint = e;
        ex.upstream(e.address());
        tryStart = now;
        lastActivity = now;
        tryDeadline = rule.perTryTimeoutNanos == 0 ? 0 : now + rule.perTryTimeoutNanos;
        gotBytes = false;
        informational = false;
        status = 0;
        tryActive = true;
        long deadline = requestDeadline;
        if (tryDeadline != 0 && (deadline == 0 || tryDeadline - deadline < 0)) {
            deadline = tryDeadline;
        }
        tryTrace = SpanExporter.tryTrace(ex.trace());
        if (tryTrace != null && traceSpanAt < 0) {
            traceSpanAt = UpstreamTraceparent.spanIdAt(head, ex.trace());
        }
        acquiring = true;
        try {
            e.acquire(this, fresh, deadline);
        } finally {
            acquiring = false;
        }
    }

    /** The current try is over: account for it once. {@code status} 0 means no answer. */
    private void endTry(int status, String failure) {
        endTry(status, failure, System.nanoTime());
    }

    /** {@code end}: when the try ended, e.g. the time of the read that brought its last bytes. */
    private void endTry(int status, String failure, long end) {
        if (!tryActive) {
            return;
        }
        tryActive = false;
        endpoint.forget(this);
        endpoint.done();
        upstream.meters().tried(status, end - tryStart);
        if (tryTrace != null) {
            SpanExporter.reportTry(tryTrace, tryStart, ex.request().method().name(),
                    spec.config().tls() != null ? "https" : "http", endpoint.address(),
                    target != null ? target : ex.request().uri(), "1.1", status, failure, retries, upstream.name(),
                    rule.route);
            tryTrace = null;
        }
        if (failure != null || status >= 500) {
            upstream.outcome(endpoint, status, failure);
        }
    }

    private boolean mayRetry() {
        return retries < rule.attempts && !bodySent && !clientStarted
                && (requestDeadline == 0 || System.nanoTime() - requestDeadline < 0) && upstream.allowRetry();
    }

    private void retry(String why) {
        retries++;
        upstream.meters().retry();
        lastEndpoint = endpoint;
        long delay = rule.retryDelayNanos(retries);
        log.debug("route {} upstream {} endpoint {}: retry {} in {} us ({})", rule.route, upstream.name(),
                endpoint.address(),
                retries, delay / 1000, why);
        backoff = lc.loopExecutor().schedule(() -> attempt(false), delay, TimeUnit.NANOSECONDS);
    }

    @Override
    public void onConnected(UpstreamConnection c, boolean reused) {
        if (done) {
            c.release(true); // a fresh connection is still worth keeping
            return;
        }
        conn = c;
        this.reused = reused;
        if (reused && !freshRetryUsed && idempotent && ex.hasBody() && !bodySent) {
            replay = new ArrayDeque<>(4);
        }
        // An idle pooled connection is handed over within acquire(), in the dispatch that started the try.
        lastActivity = acquiring ? tryStart : System.nanoTime();
        c.startRequest(ex.isHead());
        c.write(tryTrace == null || traceSpanAt < 0 ? head.retainedDuplicate()
                : UpstreamTraceparent.withSpan(head, traceSpanAt, tryTrace, headWritten));
        headWritten = true;
        if (pendingBody != null) {
            ByteBuf part;
            while ((part = pendingBody.poll()) != null) {
                writeBodyPart(part);
            }
        }
        if (bodyEnded) {
            writeBodyEnd();
        }
        c.flush();
        c.armTimer(nextDeadline());
        if (c.isWritable()) {
            resumeClient();
        } else {
            pauseClient();
        }
    }

    @Override
    public void onConnectFailed(Throwable cause) {
        if (done) {
            return;
        }
        if (cause instanceof EndpointPool.PoolFullException full) {
            // Our own limit, not the endpoint's failure: no ejection, no retry storm; 503 as for no endpoint.
            endTry(0, null);
            fail(HttpResponseStatus.SERVICE_UNAVAILABLE, full.getMessage());
            return;
        }
        String why = "connect to " + endpoint.address() + " failed: " + describe(cause);
        endTry(0, why);
        if ((rule.retryOn & ProxyHandler.CONNECT_FAILURE) != 0 && mayRetry()) {
            retry(why);
            return;
        }
        // No answer in time (the connect timeout, or the request's or try's deadline that bounded it) is a
        // gateway timeout, as nginx's proxy_connect_timeout and our FastCGI calls say; a refusal is a 502.
        fail(cause instanceof ConnectTimeoutException ? HttpResponseStatus.GATEWAY_TIMEOUT
                : HttpResponseStatus.BAD_GATEWAY, why);
    }

    // ---- request body, client -> upstream ----

    @Override
    public void onBodyPart(ByteBuf data) {
        if (done) {
            data.release();
            return;
        }
        lastActivity = System.nanoTime();
        if (conn != null) {
            writeBodyPart(data);
            conn.flush();
            if (!conn.isWritable()) {
                pauseClient();
            }
        } else {
            // Not connected yet (or between tries): hold the part and stop reading until we are.
            if (pendingBody == null) {
                pendingBody = new ArrayDeque<>(4);
            }
            pendingBody.add(data);
            pauseClient();
        }
    }

    @Override
    public void onBodyEnd(HttpHeaders trailers) {
        bodyEnded = true;
        if (tryActive && rule.perTryTimeoutNanos != 0) {
            // A try's time is the upstream's to answer: it runs from the request's end, not through the
            // client's upload (Envoy's per-try timeout does the same; nginx's read timeout too).
            tryDeadline = System.nanoTime() + rule.perTryTimeoutNanos;
        }
        bodyTrailers = trailers == null || trailers.isEmpty() ? null : trailers;
        if (!done && conn != null) {
            writeBodyEnd();
            conn.flush();
        }
    }

    @Override
    public void onBodyAbort(Throwable cause) {
        if (done) {
            return;
        }
        // The client's body broke off: the server side answers the client (or closes); the upstream
        // got a partial body and cannot be reused.
        log.debug("route {}: client body aborted: {}", rule.route, cause.toString());
        finishQuietly();
    }

    private void writeBodyPart(ByteBuf data) {
        int n = data.readableBytes();
        if (n == 0) {
            data.release();
            return;
        }
        bodySent = true;
        if (replay != null) {
            keepForReplay(data, n);
        }
        if (chunkedBody) {
            ByteBuf size = ex.alloc().ioBuffer(12);
            ByteBufUtil.writeAscii(size, Integer.toHexString(n));
            size.writeBytes(CRLF);
            conn.write(size);
            conn.write(data);
            conn.write(Unpooled.wrappedBuffer(CRLF));
        } else {
            conn.write(data);
        }
    }

    private void keepForReplay(ByteBuf data, int n) {
        if (replayBytes + n > REPLAY_LIMIT) {
            dropReplay(); // too much to keep: this body is streamed, as any other
            return;
        }
        replayBytes += n;
        replay.add(data.retainedDuplicate()); // the write moves data's reader index, not the duplicate's
    }

    private void dropReplay() {
        if (replay != null) {
            replay.forEach(ByteBuf::release);
            replay = null;
            replayBytes = 0;
        }
    }

    private void writeBodyEnd() {
        requestSent = true;
        if (!chunkedBody || !ex.hasBody()) {
            return;
        }
        ByteBuf end = ex.alloc().ioBuffer(bodyTrailers == null ? 5 : 256);
        end.writeBytes(LAST_CHUNK);
        if (bodyTrailers != null) {
            for (Iterator<Map.Entry<CharSequence, CharSequence>> it = bodyTrailers.iteratorCharSequence(); it.hasNext(); ) {
                Map.Entry<CharSequence, CharSequence> h = it.next();
                end.writeCharSequence(h.getKey(), CharsetUtil.ISO_8859_1);
                end.writeByte(':').writeByte(' ');
                end.writeCharSequence(h.getValue(), CharsetUtil.ISO_8859_1);
                end.writeBytes(CRLF);
            }
        }
        end.writeBytes(CRLF);
        conn.write(end);
    }

    private void pauseClient() {
        if (!clientPaused) {
            clientPaused = true;
            ex.pauseReading();
        }
    }

    private void resumeClient() {
        if (clientPaused) {
            clientPaused = false;
            ex.resumeReading();
        }
    }

    @Override
    public void onWritabilityChanged(boolean writable) {
        if (done) {
            return;
        }
        if (writable) {
            lastActivity = System.nanoTime(); // the upstream took some of the body
            resumeClient();
        } else {
            upstreamStalledSince = System.nanoTime();
            pauseClient();
        }
    }

    // ---- response, upstream -> client ----

    @Override
    public void onMessage(HttpObject msg) {
        if (done) {
            io.netty.util.ReferenceCountUtil.release(msg);
            return;
        }
        gotBytes = true;
        if (replay != null) {
            dropReplay(); // the upstream is answering: the race is over
        }
        if (!holding) {
            // First message of this read (holding ends with the read): one clock read serves the read.
            lastActivity = System.nanoTime();
            holding = true;
            ex.holdFlush();
        }
        if (msg instanceof UpstreamResponse r) {
            onHead(r);
        }
        if (msg instanceof HttpContent c) {
            if (done) {
                c.release();
                return;
            }
            onContent(c);
        }
    }

    private void onHead(UpstreamResponse r) {
        if (r.decoderResult().isFailure()) {
            protocolError("bad response head: " + describe(r.decoderResult().cause()));
            return;
        }
        int code = r.status().code();
        if (code == 101 && upgrade && r.headers().containsValue(HttpHeaderNames.UPGRADE, "websocket", true)) {
            startTunnel(r);
            return;
        }
        if (code < 200) {
            if (code == 101) {
                protocolError(upgrade ? "101 Switching Protocols without Upgrade: websocket"
                        : "101 Switching Protocols to a request that asked for no upgrade");
                return;
            }
            informational = true; // wait for the real answer
            if (code != 100) {
                // 103 Early Hints and other interim answers go on to the client (RFC 9110 15.2: a proxy
                // must). 100 Continue does not: the client had its own, from us, when it asked.
                HopByHop.stripResponse(r.headers(), r.connectionFields());
                ex.sendInformational(r.status(), r.headers());
            }
            return;
        }
        // Framing (both Transfer-Encoding and Content-Length, several lengths) was refused by the decoder.
        status = code;
        if (rule.retriesStatus(code) && idempotent && mayRetry()) {
            endTry(code, null, lastActivity);
            conn.close(); // the rest of this answer is not wanted; closing is cheaper than reading it
            conn = null;
            retry("status " + code);
            return;
        }
        upstreamKeepAlive = r.keepAlive();
        pendingHead = r;
    }

    /** The upstream accepted the WebSocket handshake: both connections become one tunnel. */
    private void startTunnel(UpstreamResponse r) {
        UpstreamConnection c = conn;
        conn = null;
        status = 101;
        endTry(101, null, lastActivity);
        upstream.outcome(endpoint, 101, null);
        done = true;
        release();
        if (holding) {
            holding = false;
            ex.flush();
        }
        resumeClient();
        HttpHeaders h = r.headers();
        String upgradeTo = h.get(HttpHeaderNames.UPGRADE);
        HopByHop.stripResponse(h, r.connectionFields());
        h.set(HttpHeaderNames.UPGRADE, upgradeTo);
        addAffinityCookie(h);
        TunnelRelay[] relays = TunnelRelay.pair(c.channel(), rule.idleTimeoutNanos);
        ex.switchProtocols(h, relays[0]);
        c.tunnel(relays[1]);
    }

    private void onContent(HttpContent c) {
        if (informational) {
            if (c instanceof LastHttpContent) {
                informational = false;
                conn.bytesAfterBody(); // the final answer follows a 1xx in the same read: that is expected
            }
            c.release();
            return;
        }
        if (c.decoderResult().isFailure()) {
            c.release();
            protocolError("bad response body: " + describe(c.decoderResult().cause()));
            return;
        }
        boolean last = c instanceof LastHttpContent;
        if (!clientStarted) {
            if (last) {
                if (conn.bytesAfterBody()) {
                    c.release();
                    protocolError("bytes after the end of the response");
                    return;
                }
                startClientResponse();
            } else {
                if (c.content().isReadable()) {
                    if (pendingParts == null) {
                        pendingParts = new ArrayDeque<>(4);
                    }
                    pendingParts.add(c.content().retain());
                }
                c.release();
                return;
            }
        }
        ByteBuf data = c.content();
        if (data.isReadable()) {
            ex.sendBodyPart(data.retain());
        }
        if (last) {
            HttpHeaders trailers = ((LastHttpContent) c).trailingHeaders();
            c.release();
            responseComplete(trailers.isEmpty() ? null : trailers);
        } else {
            c.release();
        }
    }

    private void startClientResponse() {
        clientStarted = true;
        UpstreamResponse r = pendingHead;
        pendingHead = null;
        HttpHeaders h = r.headers();
        long length;
        if (r.chunked()) {
            length = -1;
        } else {
            length = r.contentLength();
            int code = r.status().code();
            if (length < 0 && !ex.isHead() && code != 204 && code != 304) {
                upstreamKeepAlive = false; // close-delimited: the connection ends with the body
            }
        }
        HopByHop.stripResponse(h, r.connectionFields());
        if (rule.responseRewrite != null) {
            rule.responseRewrite.apply(ex, h);
        }
        addAffinityCookie(h);
        ex.startResponse(r.status(), h, length);
        if (pendingParts != null) {
            ByteBuf part;
            while ((part = pendingParts.poll()) != null) {
                ex.sendBodyPart(part);
            }
        }
    }

    @Override
    public void onReadComplete() {
        if (done) {
            return;
        }
        if (pendingHead != null && !clientStarted) {
            startClientResponse();
        }
        if (holding) {
            holding = false;
            ex.flush();
        }
        if (clientStarted && conn != null && !ex.isWritable()) {
            // The client reads slower than the upstream writes: stop reading the upstream until it catches up.
            conn.setReading(false);
            upstreamReadPaused = true;
            ex.onWritable(this); // run(): read the upstream again
        }
    }

    /** The client can take more again: read the upstream again. */
    @Override
    public void run() {
        upstreamReadPaused = false;
        if (!done && conn != null) {
            lastActivity = System.nanoTime(); // the client took what we had
            conn.setReading(true);
        }
    }

    private void responseComplete(HttpHeaders trailers) {
        UpstreamConnection c = conn;
        conn = null;
        boolean reusable = upstreamKeepAlive && requestSent && !c.bytesAfterBody();
        endTry(status, null, lastActivity);
        if (status < 500) {
            upstream.outcome(endpoint, status, null);
        }
        done = true;
        // Back to the pool before the client's response ends: a pipelined next request may want it at once.
        c.release(reusable);
        release();
        ex.endResponse(trailers);
        if (holding) {
            holding = false;
            ex.flush();
        }
        resumeClient();
    }

    // ---- failures ----

    @Override
    public void onClosed(Throwable cause) {
        conn = null;
        if (done) {
            return;
        }
        String why = describe(cause);
        if (clientStarted) {
            endTry(status, "closed mid-response: " + why);
            abortClient("upstream closed the connection mid-response (" + why + ")");
            return;
        }
        if (pendingHead != null) {
            endTry(status, "closed mid-response: " + why);
            fail(HttpResponseStatus.BAD_GATEWAY, "upstream closed the connection mid-response (" + why + ")");
            return;
        }
        boolean nothing = !gotBytes;
        endTry(0, "closed before answering: " + why);
        if (nothing && reused && !freshRetryUsed && idempotent && (!bodySent || replay != null)) {
            // A keep-alive connection the upstream closed as we reused it: try once more on a new one,
            // with the body sent so far, if any, sent again ahead of the rest.
            freshRetryUsed = true;
            requeueReplay();
            attempt(true);
            return;
        }
        if (nothing && !bodySent && idempotent) {
            if ((rule.retryOn & (ProxyHandler.REFUSED_STREAM | ProxyHandler.RESET)) != 0 && mayRetry()) {
                retry("closed before answering");
                return;
            }
        } else if (!nothing && !bodySent && idempotent && (rule.retryOn & ProxyHandler.RESET) != 0 && mayRetry()) {
            retry("reset while answering");
            return;
        }
        fail(HttpResponseStatus.BAD_GATEWAY, "upstream closed the connection before answering (" + why + ")");
    }

    private void requeueReplay() {
        if (replay == null) {
            return;
        }
        if (pendingBody == null) {
            pendingBody = new ArrayDeque<>(replay.size());
        }
        // Parts that arrived after the close are already queued: the kept ones go in front of them.
        for (java.util.Iterator<ByteBuf> it = replay.descendingIterator(); it.hasNext(); ) {
            pendingBody.addFirst(it.next());
        }
        replay = null;
        replayBytes = 0;
        bodySent = false;
        requestSent = false;
        pauseClient(); // as for any part that waits for a connection
    }

    @Override
    public long onTimer(long now) {
        if (done) {
            return 0;
        }
        boolean answered = clientStarted || pendingHead != null;
        if (requestDeadline != 0 && now - requestDeadline >= 0) {
            timeout("request timeout", false);
            return 0;
        }
        if (!answered && bodyEnded && tryDeadline != 0 && now - tryDeadline >= 0) {
            timeout("per-try timeout", true);
            return 0;
        }
        if (upstreamReadPaused) {
            // The client is slower than the upstream: we are not waiting for the upstream, so it is not
            // idle. The client's own sendTimeout cuts a client that takes nothing.
            lastActivity = now;
        } else if (clientPaused && conn != null && !conn.isWritable()) {
            // The upstream is taking the body slower than the client sends it: not idle either, but one
            // that takes nothing for UPSTREAM_SEND_TIMEOUT (nginx's proxy_send_timeout) is given up.
            if (now - upstreamStalledSince >= Math.max(rule.idleTimeoutNanos, UPSTREAM_SEND_TIMEOUT)) {
                timeout("send timeout (the upstream took none of the request body)", false);
                return 0;
            }
            lastActivity = now;
        }
        if (now - lastActivity >= rule.idleTimeoutNanos) {
            timeout("idle timeout", true);
            return 0;
        }
        return nextDeadline();
    }

    private long nextDeadline() {
        long next = lastActivity + rule.idleTimeoutNanos;
        if (requestDeadline != 0 && requestDeadline - next < 0) {
            next = requestDeadline;
        }
        if (tryDeadline != 0 && bodyEnded && !clientStarted && pendingHead == null && tryDeadline - next < 0) {
            next = tryDeadline;
        }
        return next;
    }

    private void timeout(String what, boolean retryable) {
        UpstreamConnection c = conn;
        conn = null;
        if (c != null) {
            c.close();
        }
        endTry(clientStarted ? status : 0, what);
        if (retryable && !clientStarted && pendingHead == null && idempotent
                && (rule.retryOn & ProxyHandler.TIMEOUT) != 0 && mayRetry()) {
            retry(what);
            return;
        }
        if (clientStarted) {
            abortClient(what + " mid-response");
        } else {
            fail(HttpResponseStatus.GATEWAY_TIMEOUT, what);
        }
    }

    private void protocolError(String why) {
        UpstreamConnection c = conn;
        conn = null;
        if (c != null) {
            c.close(); // never reused: nothing after a framing error can be trusted
        }
        endTry(0, why);
        if (clientStarted) {
            abortClient("upstream protocol error: " + why);
        } else {
            fail(HttpResponseStatus.BAD_GATEWAY, "upstream protocol error: " + why);
        }
    }

    private void fail(HttpResponseStatus s, String why) {
        if (done) {
            return;
        }
        done = true;
        log.warn("route {} upstream {}{}: {} ({})", rule.route, upstream == null ? "-" : upstream.name(),
                endpoint == null ? "" : " endpoint " + endpoint.address(), s.code(), why);
        closeUpstream();
        release();
        if (holding) {
            holding = false;
            ex.flush();
        }
        resumeClient();
        ex.sendError(s);
    }

    private void abortClient(String why) {
        if (done) {
            return;
        }
        done = true;
        log.warn("route {} upstream {} endpoint {}: response cut short ({})", rule.route, upstream.name(),
                endpoint == null ? "-" : endpoint.address(), why);
        closeUpstream();
        release();
        holding = false;
        ex.flush();
        ex.abort();
    }

    private void onClientGone() {
        if (done) {
            return;
        }
        log.debug("route {}: client went away before the answer ended", rule.route);
        finishQuietly();
    }

    private void finishQuietly() {
        done = true;
        closeUpstream();
        endTry(0, null);
        release();
        if (holding) {
            holding = false;
            ex.flush();
        }
        resumeClient();
    }

    private void closeUpstream() {
        UpstreamConnection c = conn;
        conn = null;
        if (c != null) {
            c.close();
        }
        if (tryActive) {
            tryActive = false;
            endpoint.forget(this);
            endpoint.done();
        }
        if (backoff != null) {
            backoff.cancel(false);
            backoff = null;
        }
    }

    private void release() {
        dropReplay();
        if (head != null) {
            head.release();
            head = null;
        }
        if (pendingBody != null) {
            pendingBody.forEach(ByteBuf::release);
            pendingBody.clear();
        }
        if (pendingParts != null) {
            pendingParts.forEach(ByteBuf::release);
            pendingParts.clear();
        }
        pendingHead = null;
    }

    /**
     * {@code Connection: upgrade} and {@code Upgrade: websocket} on an HTTP/1.1 GET without a body (RFC 6455 4.1):
     * the one upgrade that is forwarded, and the one request that needs an HTTP/1.1 upstream (RFC 8441's
     * extended CONNECT is not used). Any other {@code Upgrade} ({@code h2c} on a POST, as
     * {@code curl --http2} sends) is a hop-by-hop field, dropped, and the request goes as any other: to
     * an h2c or h2 upstream over HTTP/2. A handshake with a body is not one: a tunnel that started while
     * the body was still arriving would carry its rest, re-framed or not, as tunnel bytes.
     */
    static boolean isWebSocketHandshake(Exchange ex) {
        HttpHeaders h = ex.request().headers();
        // Upgrade on HTTP/1.0 is ignored (RFC 9110 7.8): the request goes on as an ordinary one.
        if (ex.request().method() != HttpMethod.GET || ex.hasBody()
                || ex.request().protocolVersion().minorVersion() == 0
                || !h.containsValue(HttpHeaderNames.UPGRADE, "websocket", true)) {
            return false;
        }
        java.util.List<String> tokens = HopByHop.connectionTokens(h);
        if (tokens != null) {
            for (String t : tokens) {
                if (t.equalsIgnoreCase("upgrade")) {
                    return true;
                }
            }
        }
        return false;
    }

    private static String describe(Throwable t) {
        if (t == null) {
            return "closed";
        }
        String m = t.getMessage();
        return m == null ? t.getClass().getSimpleName() : t.getClass().getSimpleName() + ": " + m;
    }
}
