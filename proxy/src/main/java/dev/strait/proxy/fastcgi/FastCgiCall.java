package dev.strait.proxy.fastcgi;

import static dev.strait.proxy.fastcgi.FastCgiRecords.REQUEST_ID;

import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.Exchange;
import io.netty.buffer.ByteBuf;
import io.netty.channel.Channel;
import io.netty.channel.ConnectTimeoutException;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * One request on its way through FastCGI, on its exchange's event loop from start to end:
 *
 * <ol>
 *   <li><b>Body.</b> A body of up to {@code maxBufferedBody} is read whole before a connection is taken, as
 *       nginx's fastcgi_request_buffering does: a slow upload never holds one of php-fpm's few children. A
 *       longer one with a Content-Length is streamed. FastCGI needs CONTENT_LENGTH before the body, so a
 *       chunked one must fit (longer: 411 Length Required, as nginx answers when it cannot buffer). php-fpm
 *       reads a body only up to CONTENT_LENGTH, so it must be right.
 *   <li><b>Connection.</b> From the loop's pool: an idle kept connection, a new one within the budget,
 *       or a place in the queue. Client reading pauses meanwhile, so at most one read of body waits.
 *   <li><b>Request.</b> BEGIN_REQUEST (keep the connection), PARAMS, the empty PARAMS record, and for a
 *       request without body the empty STDIN record: one buffer, one write. Body parts follow as STDIN
 *       records; when the connection's outbound buffer is full, client reading pauses until it drains.
 *   <li><b>Response.</b> STDOUT starts with a CGI head ({@link CgiResponseHead}); then the body streams to
 *       the client; when the client cannot take more, reading from the connection pauses. STDERR lines
 *       go to the log with route and upstream. END_REQUEST ends the response. What one read of the
 *       connection brings leaves for the client in one write (flushes are held until the read is done).
 *       A head without Content-Length waits for the end of its read: when END_REQUEST came in it too (a
 *       small page), the answer gets a Content-Length instead of chunked framing; else it streams.
 *   <li><b>Connection again.</b> Back to the pool only after a clean end: END_REQUEST with
 *       REQUEST_COMPLETE, and the whole body sent. Anything else (an error, a timeout, a client that went
 *       away mid-request) closes it: its state is unknown, and an unread STDIN would poison the next
 *       request.
 * </ol>
 */
final class FastCgiCall implements BodyReceiver, FastCgiPool.Waiter, FastCgiConnection.Listener {
    private final FastCgiHandler handler;
    private final FastCgiHandler.Target target;
    private final Exchange ex;
    private final EventLoop loop;
    private final ScriptPath script;

    private FastCgiPool pool;
    private FastCgiConnection conn;
    private boolean queued;
    private boolean reused;
    private boolean retried;

    /** The decoded body's length; -1 while a chunked body is being buffered to learn it. */
    private long contentLength;
    /** Whether CONTENT_LENGTH is sent ("" for a request without body or length header, as nginx does). */
    private boolean sendContentLength;
    /** Body parts that arrived before there was a connection (or while buffering a chunked body). */
    private ArrayDeque<ByteBuf> pending;
    private long buffered;
    /** The body is read whole before a connection is taken (it fits {@code maxBufferedBody}, or is chunked). */
    private boolean bufferFirst;
    private boolean bodyEnded;
    private boolean stdinEnded;
    private boolean bodyWritten;
    private boolean clientPaused;

    private CgiResponseHead head;
    private boolean started;
    private boolean bodyless;
    private long declared = -1;
    private long sent;
    private boolean upstreamPaused;
    /**
     * Body parts after a head without Content-Length, held until the read that brought them is done:
     * with END_REQUEST in that read the length is known. At most one read's worth.
     */
    private ArrayDeque<ByteBuf> held;
    private long heldBytes;
    /** The client exchange's flushes are held while a read of the connection is handed over. */
    private boolean holdingFlush;

    private boolean done;
    private ScheduledFuture<?> timer;

    FastCgiCall(FastCgiHandler handler, FastCgiHandler.Target target, Exchange ex, ScriptPath script) {
        this.handler = handler;
        this.target = target;
        this.ex = ex;
        this.loop = ex.eventLoop();
        this.script = script;
    }

    void start() {
        ex.onCancel(this::onClientGone);
        HttpHeaders headers = ex.request().headers();
        if (ex.hasBody()) {
            contentLength = HttpUtil.getContentLength(ex.request(), -1L);
            sendContentLength = true;
            if (contentLength < 0 && handler.maxBufferedBody == 0) {
                finish(() -> ex.sendError(HttpResponseStatus.LENGTH_REQUIRED), false);
                return;
            }
            bufferFirst = contentLength <= handler.maxBufferedBody;
            if (!bufferFirst) {
                // Streamed: nothing more is read until the connection takes it. Asked before the body is, so a
                // body read into a file first (HeldBody) is not handed over whole into memory meanwhile.
                pauseClient();
            }
            ex.receiveBody(this);
        } else {
            contentLength = 0;
            bodyEnded = true;
            sendContentLength = headers.contains(HttpHeaderNames.CONTENT_LENGTH);
        }
        // From the request's head: an upload read into a file before this call counts, as it did when read here.
        long left = handler.requestTimeoutNanos - (System.nanoTime() - ex.startNanos());
        timer = loop.schedule(this::onTimeout, Math.max(left, 0), TimeUnit.NANOSECONDS);
        if (!bufferFirst) {
            acquire();
        }
    }

    private void acquire() {
        ex.upstream(target.endpoint());
        pool = FastCgiPools.pool(loop, target.address(), target.maxConnections(), target.refuseLocal());
        queued = true;
        pool.acquire(this);
    }

    // ---- the pool ----

    @Override
    public int connectTimeoutMillis() {
        return handler.connectTimeoutMillis;
    }

    @Override
    public void onConnection(FastCgiConnection c, boolean reused) {
        queued = false;
        if (done) {
            c.pool.release(c); // gave up while connecting: someone else may use it
            return;
        }
        conn = c;
        this.reused = reused;
        Channel ch = c.channel;
        if (!ch.isActive()) {
            onConnectionLost(null); // closed between its release and now: its close was already reported
            return;
        }
        c.listener = this;
        ByteBuf out = ch.alloc().ioBuffer(1024);
        FastCgiRecords.beginRequest(out, REQUEST_ID, true);
        FastCgiRecords.ParamsWriter params = new FastCgiRecords.ParamsWriter(out, REQUEST_ID);
        CgiParams.write(params, ex, script, sendContentLength ? Long.toString(contentLength) : "", handler.root,
                handler.params);
        params.finish();
        if (bodyEnded && pending == null) {
            FastCgiRecords.endOfStream(out, FastCgiRecords.STDIN, REQUEST_ID);
            stdinEnded = true;
        }
        ch.write(out, ch.voidPromise());
        if (pending != null) {
            ByteBuf part;
            while ((part = pending.poll()) != null) {
                writeStdin(part);
            }
            pending = null;
            if (bodyEnded) {
                endStdin();
            }
        }
        ch.flush();
        if (clientPaused && !bodyEnded && ch.isWritable()) {
            resumeClient();
        }
    }

    @Override
    public void onConnectFailure(Throwable cause) {
        queued = false;
        if (done) {
            return; // timed out or cancelled while connecting: already answered
        }
        if (cause instanceof ConnectTimeoutException) {
            fail(HttpResponseStatus.GATEWAY_TIMEOUT, "connect timed out: " + cause.getMessage());
        } else {
            fail(HttpResponseStatus.BAD_GATEWAY, "cannot connect: " + cause);
        }
    }

    @Override
    public void onQueueFull() {
        queued = false;
        if (done) {
            return;
        }
        fail(HttpResponseStatus.SERVICE_UNAVAILABLE, FastCgiPool.MAX_WAITING + " requests wait already");
    }

    // ---- the request body ----

    @Override
    public void onBodyPart(ByteBuf data) {
        if (done) {
            data.release();
            return;
        }
        if (contentLength < 0) {
            buffered += data.readableBytes();
            if (buffered > handler.maxBufferedBody) {
                data.release();
                // Not an upstream error: the client's chunked body is larger than we may hold to count it.
                finish(() -> ex.sendError(HttpResponseStatus.LENGTH_REQUIRED), false);
                return;
            }
            keep(data);
            return;
        }
        if (conn == null) {
            keep(data);
            return;
        }
        writeStdin(data);
        Channel ch = conn.channel;
        ch.flush();
        if (!ch.isWritable()) {
            pauseClient();
        }
    }

    @Override
    public void onBodyEnd(HttpHeaders trailers) {
        if (done) {
            return;
        }
        bodyEnded = true;
        if (bufferFirst) {
            if (contentLength < 0) {
                contentLength = buffered;
            }
            acquire();
            return;
        }
        if (conn != null) {
            endStdin();
            conn.channel.flush();
        }
        resumeClient(); // nothing more to hold back; reading lets a client that leaves be seen
    }

    @Override
    public void onBodyAbort(Throwable cause) {
        if (!done) {
            // The server answers the client (400, 413 or a close); the request cannot reach the application whole.
            FastCgiHandler.log.debug("route {} upstream {}: request body aborted: {}", handler.route, target.label(),
                    cause.toString());
            finish(null, false);
        }
    }

    private void keep(ByteBuf data) {
        if (pending == null) {
            pending = new ArrayDeque<>(4);
        }
        pending.add(data);
    }

    private void writeStdin(ByteBuf data) {
        bodyWritten = true;
        Channel ch = conn.channel;
        FastCgiRecords.writeStdin(ch.alloc(), data, REQUEST_ID, b -> ch.write(b, ch.voidPromise()));
    }

    private void endStdin() {
        ByteBuf end = conn.channel.alloc().ioBuffer(FastCgiRecords.HEADER_LENGTH);
        FastCgiRecords.endOfStream(end, FastCgiRecords.STDIN, REQUEST_ID);
        conn.channel.write(end, conn.channel.voidPromise());
        stdinEnded = true;
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

    // ---- the connection ----

    @Override
    public void onWritabilityChanged(boolean writable) {
        if (writable && !done && !bodyEnded) {
            resumeClient();
        }
    }

    @Override
    public void onRecord(Object record) {
        if (!holdingFlush && !done) {
            holdingFlush = true;
            ex.holdFlush();
        }
        if (record instanceof FastCgiRecords.StreamRecord r) {
            try {
                if (r.requestId == REQUEST_ID) {
                    if (r.type == FastCgiRecords.STDOUT) {
                        onStdout(r.data.retain());
                    } else if (r.type == FastCgiRecords.STDERR) {
                        onStderr(r.data);
                    }
                }
            } finally {
                r.release();
            }
        } else if (record instanceof FastCgiRecords.EndRequest e) {
            if (e.requestId() == REQUEST_ID) {
                onEndRequest(e);
            }
        } else {
            ReferenceCountUtil.release(record);
        }
    }

    private void onStdout(ByteBuf data) {
        if (done) {
            data.release();
            return;
        }
        if (!started) {
            if (held != null) {
                hold(data);
                return;
            }
            if (head == null) {
                head = new CgiResponseHead(conn.channel.alloc());
            }
            ByteBuf body;
            try {
                body = head.feed(data);
            } catch (CgiResponseHead.InvalidHeadException e) {
                fail(HttpResponseStatus.BAD_GATEWAY, "invalid response head: " + e.getMessage());
                return;
            }
            if (body == null) {
                return;
            }
            if (head.contentLength() < 0 && !bodyless(head.status())) {
                held = new ArrayDeque<>(2);
                hold(body);
                return;
            }
            startResponse(head.contentLength());
            data = body;
            if (done) {
                data.release(); // the client went away as the head was written
                return;
            }
        }
        sendPart(data);
    }

    private void hold(ByteBuf data) {
        int n = data.readableBytes();
        if (n == 0) {
            data.release();
            return;
        }
        held.add(data);
        heldBytes += n;
    }

    /** Starts the answer held for the end of a read, with {@code length} (-1: unknown), and sends what was held. */
    private void startHeld(long length) {
        ArrayDeque<ByteBuf> parts = held;
        held = null;
        startResponse(length);
        for (ByteBuf part; (part = parts.poll()) != null; ) {
            if (done) {
                part.release(); // the client went away as the head was written
            } else {
                sendPart(part);
            }
        }
    }

    private void sendPart(ByteBuf data) {
        int n = data.readableBytes();
        if (n == 0) {
            data.release();
            return;
        }
        if (declared >= 0 && sent + n > declared) {
            // More than the application's Content-Length: the client gets what was declared, no more.
            n = (int) (declared - sent);
            if (n == 0) {
                data.release();
                return;
            }
            data.writerIndex(data.readerIndex() + n);
        }
        sent += n;
        ex.sendBodyPart(data);
        if (done) {
            return;
        }
        if (!ex.isWritable() && !upstreamPaused) {
            // The client is slower than the application: stop reading the connection until it drains.
            upstreamPaused = true;
            FastCgiConnection c = conn;
            c.channel.config().setAutoRead(false);
            ex.onWritable(() -> {
                if (conn == c && upstreamPaused) {
                    upstreamPaused = false;
                    c.channel.config().setAutoRead(true);
                }
            });
        }
    }

    private void startResponse(long contentLength) {
        started = true;
        int status = head.status();
        declared = contentLength;
        bodyless = bodyless(status);
        ex.startResponse(HttpResponseStatus.valueOf(status), head.headers(), declared);
        head = null;
    }

    private boolean bodyless(int status) {
        return ex.isHead() || status == 204 || status == 304;
    }

    @Override
    public void onReadComplete() {
        if (!done && !started && held != null) {
            startHeld(-1); // the application is still writing: stream the rest, chunked
        }
        releaseFlush();
    }

    private void releaseFlush() {
        if (holdingFlush) {
            holdingFlush = false;
            ex.flush();
        }
    }

    private void onStderr(ByteBuf data) {
        String text = data.toString(StandardCharsets.UTF_8);
        for (String line : text.split("\n")) {
            String l = line.strip();
            if (!l.isEmpty()) {
                FastCgiHandler.log.warn("route {} upstream {}: FastCGI stderr for {} {}: {}", handler.route,
                        target.label(), ex.request().method(), ex.request().uri(),
                        l.length() <= 4096 ? l : l.substring(0, 4096) + "...");
            }
        }
    }

    private void onEndRequest(FastCgiRecords.EndRequest e) {
        if (done) {
            return;
        }
        int ps = e.protocolStatus();
        if (ps != FastCgiRecords.REQUEST_COMPLETE) {
            HttpResponseStatus status = ps == FastCgiRecords.OVERLOADED
                    ? HttpResponseStatus.SERVICE_UNAVAILABLE : HttpResponseStatus.BAD_GATEWAY;
            String why = switch (ps) {
                case FastCgiRecords.CANT_MPX_CONN -> "CANT_MPX_CONN";
                case FastCgiRecords.OVERLOADED -> "OVERLOADED";
                case FastCgiRecords.UNKNOWN_ROLE -> "UNKNOWN_ROLE";
                default -> "protocol status " + ps;
            };
            fail(status, "request refused: " + why);
            return;
        }
        if (!started && held != null) {
            startHeld(heldBytes); // the whole answer came in this read: it has a length
            if (done) {
                return;
            }
        }
        if (!started) {
            fail(HttpResponseStatus.BAD_GATEWAY, head == null ? "request ended without a response"
                    : "request ended inside the response head");
            return;
        }
        boolean reusable = stdinEnded;
        if (declared >= 0 && sent < declared && !bodyless) {
            FastCgiHandler.log.warn("route {} upstream {}: {} {}: response body ended after {} of {} declared bytes",
                    handler.route, target.label(), ex.request().method(), ex.request().uri(), sent, declared);
            finish(ex::abort, reusable);
            return;
        }
        finish(() -> ex.endResponse(null), reusable);
    }

    @Override
    public void onConnectionLost(Throwable cause) {
        if (done) {
            return;
        }
        conn = null;
        if (reused && !retried && !started && head == null && !bodyWritten
                && !(cause instanceof io.netty.handler.codec.DecoderException)) {
            // A kept connection closed under us before anything came back (php-fpm recycles children
            // after pm.max_requests): nothing reached the application, so one fresh try is safe.
            retried = true;
            acquire();
            return;
        }
        fail(HttpResponseStatus.BAD_GATEWAY, "connection closed before the response ended"
                + (cause == null ? "" : ": " + cause));
    }

    // ---- ends ----

    private void onTimeout() {
        if (!done) {
            fail(HttpResponseStatus.GATEWAY_TIMEOUT, (queued ? "still waiting for a connection" : "no complete response")
                    + " after " + TimeUnit.NANOSECONDS.toMillis(handler.requestTimeoutNanos) + "ms");
        }
    }

    private void onClientGone() {
        if (!done) {
            FastCgiHandler.log.debug("route {} upstream {}: client went away during {} {}", handler.route,
                    target.label(), ex.request().method(), ex.request().uri());
            finish(null, false);
        }
    }

    /** An error of ours or the application's: a short answer if nothing was sent yet, else a cut. */
    private void fail(HttpResponseStatus status, String why) {
        if (done) {
            return;
        }
        FastCgiHandler.log.warn("route {} upstream {}: {} {}: {} ({})", handler.route, target.label(),
                ex.request().method(), ex.request().uri(), why, started ? "response cut" : status.code());
        boolean wasStarted = started;
        finish(() -> {
            if (wasStarted) {
                ex.abort();
            } else {
                ex.sendError(status);
            }
        }, false);
    }

    /**
     * Ends the call: the client's reading is let go first (so the answer cannot un-pause a request
     * pipelined behind this one), then the connection goes back to the pool or is closed, then
     * {@code answer} runs.
     */
    private void finish(Runnable answer, boolean reuseConnection) {
        if (done) {
            return;
        }
        done = true;
        if (timer != null) {
            timer.cancel(false);
        }
        if (pending != null) {
            pending.forEach(ByteBuf::release);
            pending = null;
        }
        if (head != null) {
            head.discard();
            head = null;
        }
        if (held != null) {
            held.forEach(ByteBuf::release);
            held = null;
        }
        if (queued) {
            queued = false;
            pool.cancel(this);
        }
        resumeClient();
        FastCgiConnection c = conn;
        conn = null;
        if (c != null) {
            c.listener = null;
            if (reuseConnection) {
                c.pool.release(c);
            } else {
                c.channel.close();
            }
        }
        if (answer != null) {
            answer.run();
        }
        releaseFlush(); // the connection is no longer this call's: its read-complete will not come here
    }
}
