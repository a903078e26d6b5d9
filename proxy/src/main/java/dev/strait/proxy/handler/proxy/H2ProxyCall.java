package dev.strait.proxy.handler.proxy;

import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.server.FatalErrors;
import dev.strait.proxy.tracing.RequestTrace;
import dev.strait.proxy.tracing.SpanExporter;
import dev.strait.proxy.upstream.EndpointPool;
import dev.strait.proxy.upstream.H2Session;
import dev.strait.proxy.upstream.LoopContext;
import dev.strait.proxy.upstream.LoopUpstream;
import dev.strait.proxy.upstream.UpstreamSpec;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http2.DefaultHttp2DataFrame;
import io.netty.handler.codec.http2.DefaultHttp2Headers;
import io.netty.handler.codec.http2.DefaultHttp2HeadersFrame;
import io.netty.handler.codec.http2.Http2DataFrame;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2Headers;
import io.netty.handler.codec.http2.Http2HeadersFrame;
import io.netty.handler.codec.http2.Http2ResetFrame;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.util.ReferenceCountUtil;
import java.util.ArrayDeque;
import java.util.Map;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One request proxied to an {@code h2c} upstream: a stream on the loop's multiplexed connection to the
 * chosen endpoint ({@link H2Session}). The request head becomes a HEADERS frame
 * ({@link RequestHead#encodeHttp2}), the body DATA frames, the client's trailers a final HEADERS frame;
 * the answer comes back the same way, trailers included (gRPC's {@code grpc-status} travels in them).
 *
 * <p>The same rules as {@link ProxyCall}: retries (connect failures, REFUSED_STREAM, resets, timeouts
 * and listed statuses, never once body bytes left), timeouts, backpressure both ways (HTTP/2 flow
 * control upstream: a stream that is not read gets no WINDOW_UPDATE), and a client that goes away
 * resets the stream (CANCEL).
 */
@io.netty.channel.ChannelHandler.Sharable // the handler of each try's stream in turn; it checks which one is current
final class H2ProxyCall extends ChannelInboundHandlerAdapter implements BodyReceiver, H2Session.Opener {
    private static final Logger log = LoggerFactory.getLogger(H2ProxyCall.class);

    private final ProxyHandler rule;
    private final Exchange ex;
    private final LoopContext lc;
    private final UpstreamSpec spec;
    /** The rewritten request target, or {@code null} for the client's. */
    private final String target;
    private final boolean idempotent;
    private final long requestDeadline;
    private LoopUpstream upstream;
    private EndpointPool endpoint;
    private EndpointPool lastEndpoint;
    private Http2Headers head;
    /** The current try's span (tracing.upstreamSpans), or null. */
    private RequestTrace tryTrace;
    private long hash;
    /** The affinity cookie's key this call hands the client (hashOn.setCookie, the request had none), or null. */
    private String affinityKey;
    private Http2StreamChannel stream;

    private int retries;
    private boolean tryActive;
    private long tryStart;
    private long tryDeadline;
    private long lastActivity;
    private ScheduledFuture<?> timer;

    private ArrayDeque<ByteBuf> pendingBody;
    private boolean bodyEnded;
    private HttpHeaders bodyTrailers;
    private boolean bodySent;
    private boolean clientPaused;

    private boolean clientStarted;
    private int status;
    private boolean done;

    /** @param target the target to send instead of the client's ({@link ProxyHandler#rewrittenTarget}), or null */
    H2ProxyCall(ProxyHandler rule, Exchange ex, LoopContext lc, UpstreamSpec spec, String target) {
        this.target = target;
        this.rule = rule;
        this.ex = ex;
        this.lc = lc;
        this.spec = spec;
        HttpMethod m = ex.request().method();
        this.idempotent = m == HttpMethod.GET || m == HttpMethod.HEAD || m == HttpMethod.OPTIONS
                || m == HttpMethod.PUT || m == HttpMethod.DELETE || m == HttpMethod.TRACE;
        this.requestDeadline = rule.requestTimeoutNanos == 0 ? 0 : System.nanoTime() + rule.requestTimeoutNanos;
    }

    void start() {
        ex.onCancel(this::onClientGone);
        if (ex.hasBody()) {
            ex.receiveBody(this);
        } else {
            bodyEnded = true;
        }
        upstream = lc.upstream(spec);
        if (spec.config().hashOn() != null) {
            affinityKey = upstream.newAffinityKey(ex.request().headers());
            hash = affinityKey != null ? LoopUpstream.keyHash(affinityKey)
                    : upstream.hash(ex.request(), ex.path(), ex.query(), ex.clientAddress());
        }
        head = RequestHead.encodeHttp2(ex, lc, rule.hostRewrite, target, rule.keepsRequestId(ex),
                spec.fallbackHost(), spec.config().protocol() == dev.strait.model.Upstream.Protocol.H2 ? "https" : "http");
        upstream.firstTry();
        attempt();
    }

    // ---- tries

    private void attempt() {
        if (done) {
            return;
        }
        EndpointPool e = upstream.pick(hash, lastEndpoint);
        if (e == null) {
            fail(HttpResponseStatus.SERVICE_UNAVAILABLE, "no healthy endpoint");
            return;
        }
        endpoint = e;
        ex.upstream(e.address());
        long now = System.nanoTime();
        tryStart = now;
        lastActivity = now;
        tryDeadline = rule.perTryTimeoutNanos == 0 ? 0 : now + rule.perTryTimeoutNanos;
        status = 0;
        tryActive = true;
        tryTrace = SpanExporter.tryTrace(ex.trace());
        armTimer();
        e.openH2Stream(this, this, tryDeadline != 0 ? tryDeadline : requestDeadline);
    }

    @Override
    public void onStream(Http2StreamChannel s) {
        if (done || !tryActive) {
            s.close();
            return;
        }
        stream = s;
        lastActivity = System.nanoTime();
        boolean endNow = bodyEnded && pendingBody == null && bodyTrailers == null;
        if (tryTrace != null) {
            head.set(RequestTrace.TRACEPARENT, tryTrace.traceparent()); // this try's span, which the upstream's spans hang under
        }
        s.write(new DefaultHttp2HeadersFrame(head, endNow));
        if (pendingBody != null) {
            ByteBuf part;
            while ((part = pendingBody.poll()) != null) {
                writeBodyPart(part);
            }
            pendingBody = null;
        }
        if (bodyEnded && !endNow) {
            writeBodyEnd();
        }
        s.flush();
        if (s.isWritable()) {
            resumeClient();
        } else {
            pauseClient();
        }
    }

    @Override
    public void onStreamFailed(Throwable cause) {
        if (done || !tryActive) {
            return;
        }
        String why = "connect to " + endpoint.address() + " failed: " + describe(cause);
        endTry(0, why);
        if ((rule.retryOn & ProxyHandler.CONNECT_FAILURE) != 0 && mayRetry()) {
            retry(why);
            return;
        }
        fail(HttpResponseStatus.BAD_GATEWAY, why);
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
                endpoint.address(), retries, delay / 1000, why);
        lc.loopExecutor().schedule(this::attempt, delay, TimeUnit.NANOSECONDS);
    }

    private void endTry(int status, String failure) {
        if (!tryActive) {
            return;
        }
        tryActive = false;
        endpoint.done();
        upstream.meters().tried(status, System.nanoTime() - tryStart);
        if (tryTrace != null) {
            SpanExporter.reportTry(tryTrace, tryStart, ex.request().method().name(),
                    spec.config().protocol() == dev.strait.model.Upstream.Protocol.H2 ? "https" : "http",
                    endpoint.address(), String.valueOf(head.path()), "2", status, failure, retries, upstream.name(),
                    rule.route);
            tryTrace = null;
        }
        if (failure != null || status >= 500) {
            upstream.outcome(endpoint, status, failure);
        }
        Http2StreamChannel s = stream;
        stream = null;
        if (s != null) {
            s.close(); // RST_STREAM(CANCEL) unless the stream already ended both ways
        }
    }

    // ---- request body, client -> upstream

    @Override
    public void onBodyPart(ByteBuf data) {
        if (done) {
            data.release();
            return;
        }
        lastActivity = System.nanoTime();
        if (stream != null) {
            writeBodyPart(data);
            stream.flush();
            if (!stream.isWritable()) {
                pauseClient();
            }
        } else {
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
        bodyTrailers = trailers == null || trailers.isEmpty() ? null : trailers;
        if (!done && stream != null) {
            writeBodyEnd();
            stream.flush();
        }
    }

    @Override
    public void onBodyAbort(Throwable cause) {
        if (done) {
            return;
        }
        log.debug("route {}: client body aborted: {}", rule.route, cause.toString());
        finishQuietly();
    }

    private void writeBodyPart(ByteBuf data) {
        if (!data.isReadable()) {
            data.release();
            return;
        }
        bodySent = true;
        stream.write(new DefaultHttp2DataFrame(data, false));
    }

    private void writeBodyEnd() {
        if (bodyTrailers != null) {
            Http2Headers t = new DefaultHttp2Headers(false);
            for (Map.Entry<String, String> e : bodyTrailers) {
                t.add(io.netty.util.AsciiString.of(e.getKey()).toLowerCase(), e.getValue());
            }
            stream.write(new DefaultHttp2HeadersFrame(t, true));
        } else {
            stream.write(new DefaultHttp2DataFrame(Unpooled.EMPTY_BUFFER, true));
        }
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

    // ---- response, upstream -> client (this object is the stream's handler)

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        try {
            if (done || ctx.channel() != stream) {
                return;
            }
            lastActivity = System.nanoTime();
            if (msg instanceof Http2HeadersFrame h) {
                onHeaders(h);
            } else if (msg instanceof Http2DataFrame d) {
                onData(d);
            }
        } finally {
            ReferenceCountUtil.release(msg);
        }
    }

    private void onHeaders(Http2HeadersFrame f) {
        Http2Headers h = f.headers();
        if (!clientStarted) {
            HttpResponseStatus s;
            try {
                s = HttpResponseStatus.parseLine(h.status());
            } catch (RuntimeException e) {
                protocolError("response without a valid :status");
                return;
            }
            if (s.code() < 100 || s.code() > 599) {
                protocolError(":status " + s.code() + " outside 100-599"); // RFC 9110 15: invalid
                return;
            }
            if (s.code() < 200) {
                return; // 100 Continue, 103 Early Hints: not passed on
            }
            status = s.code();
            if (rule.retriesStatus(status) && idempotent && mayRetry()) {
                String why = "status " + status;
                endTry(status, null);
                retry(why);
                return;
            }
            HttpHeaders out = new DefaultHttpHeaders(false);
            long length = -1;
            for (Map.Entry<CharSequence, CharSequence> e : h) {
                CharSequence name = e.getKey();
                if (name.length() > 0 && name.charAt(0) == ':') {
                    continue;
                }
                if (HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name)) {
                    try {
                        length = Long.parseLong(e.getValue().toString().trim());
                    } catch (NumberFormatException bad) {
                        protocolError("bad content-length " + e.getValue());
                        return;
                    }
                    continue;
                }
                out.add(name, e.getValue());
            }
            HopByHop.stripResponse(out);
            if (rule.responseRewrite != null) {
                rule.responseRewrite.apply(ex, out);
            }
            String key = affinityKey != null ? affinityKey : upstream.reissuedKey(hash, endpoint);
            if (key != null) {
                out.add(HttpHeaderNames.SET_COOKIE, upstream.affinityCookie(key, endpoint, "https".equals(ex.scheme())));
            }
            clientStarted = true;
            if (f.isEndStream()) {
                ex.startResponse(s, out, ex.isHead() ? length : Math.max(length, 0));
                end(null);
            } else {
                ex.startResponse(s, out, length);
            }
            return;
        }
        // Trailers (gRPC: grpc-status, grpc-message).
        HttpHeaders trailers = new DefaultHttpHeaders(false);
        for (Map.Entry<CharSequence, CharSequence> e : h) {
            if (e.getKey().length() == 0 || e.getKey().charAt(0) != ':') {
                trailers.add(e.getKey(), e.getValue());
            }
        }
        end(trailers);
    }

    private void onData(Http2DataFrame d) {
        if (!clientStarted) {
            protocolError("DATA before the response head");
            return;
        }
        if (d.content().isReadable()) {
            ex.sendBodyPart(d.content().retain());
        }
        if (d.isEndStream()) {
            end(null);
        } else if (!ex.isWritable()) {
            // The client is slow: stop reading the stream, so no WINDOW_UPDATE goes out and the upstream waits.
            Http2StreamChannel s = stream;
            s.config().setAutoRead(false);
            ex.onWritable(() -> {
                if (!done && stream == s) {
                    s.config().setAutoRead(true);
                    s.read();
                }
            });
        }
    }

    private void onReset(long code) {
        String why = "stream reset by the upstream (" + Http2Error.valueOf(code) + ")";
        endTry(status, why);
        if (!clientStarted) {
            boolean refused = code == Http2Error.REFUSED_STREAM.code();
            if (refused && (rule.retryOn & ProxyHandler.REFUSED_STREAM) != 0 && mayRetry()
                    || !refused && idempotent && (rule.retryOn & ProxyHandler.RESET) != 0 && mayRetry()) {
                retry(why);
                return;
            }
            fail(HttpResponseStatus.BAD_GATEWAY, why);
        } else {
            abortClient(why);
        }
    }

    /** Netty passes RST_STREAM as a user event (it is not flow-controlled, so it skips the read queue). */
    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof Http2ResetFrame r) {
            if (!done && ctx.channel() == stream) {
                onReset(r.errorCode());
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        if (!done && ctx.channel() == stream) {
            onReset(Http2Error.CANCEL.code()); // the connection went away under the stream
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        if (!done && ctx.channel() == stream && stream.isWritable()) {
            resumeClient();
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        FatalErrors.check(cause); // out of memory: halt, never half alive (ADR 0043)
        if (!done && ctx.channel() == stream) {
            protocolError(describe(cause));
        }
    }

    private void end(HttpHeaders trailers) {
        done = true;
        endTry(status, null);
        cancelTimer();
        resumeClient();
        ex.endResponse(trailers);
    }

    private void protocolError(String why) {
        endTry(0, why);
        if (clientStarted) {
            abortClient(why);
        } else {
            fail(HttpResponseStatus.BAD_GATEWAY, why);
        }
    }

    // ---- timeouts

    private void armTimer() {
        long next = lastActivity + rule.idleTimeoutNanos;
        if (requestDeadline != 0 && requestDeadline - next < 0) {
            next = requestDeadline;
        }
        if (tryDeadline != 0 && !clientStarted && tryDeadline - next < 0) {
            next = tryDeadline;
        }
        if (timer != null) {
            timer.cancel(false);
        }
        timer = lc.loopExecutor().schedule(this::onTimer, Math.max(1, next - System.nanoTime()), TimeUnit.NANOSECONDS);
    }

    private void onTimer() {
        timer = null;
        if (done) {
            return;
        }
        long now = System.nanoTime();
        String what = null;
        boolean retryable = false;
        if (requestDeadline != 0 && now - requestDeadline >= 0) {
            what = "request timeout";
        } else if (tryDeadline != 0 && !clientStarted && tryActive && now - tryDeadline >= 0) {
            what = "per-try timeout";
            retryable = true;
        } else if (now - lastActivity >= rule.idleTimeoutNanos) {
            what = "idle timeout";
        }
        if (what == null) {
            armTimer();
            return;
        }
        endTry(clientStarted ? status : 0, what);
        if (retryable && idempotent && (rule.retryOn & ProxyHandler.TIMEOUT) != 0 && mayRetry()) {
            retry(what);
            armTimer();
            return;
        }
        if (clientStarted) {
            abortClient(what + " mid-response");
        } else {
            fail(HttpResponseStatus.GATEWAY_TIMEOUT, what);
        }
    }

    private void cancelTimer() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    // ---- endings

    private void fail(HttpResponseStatus s, String why) {
        if (done) {
            return;
        }
        done = true;
        log.warn("route {} upstream {}{}: {} ({})", rule.route, upstream == null ? "-" : upstream.name(),
                endpoint == null ? "" : " endpoint " + endpoint.address(), s.code(), why);
        endTry(0, null);
        cancelTimer();
        releasePending();
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
        endTry(status, null);
        cancelTimer();
        releasePending();
        ex.abort();
    }

    private void onClientGone() {
        if (!done) {
            log.debug("route {}: client went away before the answer ended", rule.route);
            finishQuietly();
        }
    }

    private void finishQuietly() {
        done = true;
        endTry(0, null);
        cancelTimer();
        releasePending();
        resumeClient();
    }

    private void releasePending() {
        if (pendingBody != null) {
            pendingBody.forEach(ByteBuf::release);
            pendingBody = null;
        }
    }

    private static String describe(Throwable t) {
        String m = t.getMessage();
        return t.getClass().getSimpleName() + (m == null ? "" : ": " + m);
    }
}
