package dev.strait.proxy.mirror;

import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.FileParts;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandler;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCounted;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.FileChannel;
import java.util.ArrayDeque;

/**
 * One copy of a client's request on its way to a mirror (ADR 0086). It stands on its own: what it needs of the
 * client's exchange is copied when it is made (the request's line and fields, addresses, scheme, loop), so it
 * may outlive that exchange, which the server reuses or forgets once answered, and nothing it does reaches the
 * client. Its answer is read and dropped.
 *
 * <p>The client's body comes as copies of its parts ({@link #part}). The client never waits for it: reading
 * pauses are ignored, and a copy whose call holds more than {@link #MAX_BEHIND} bytes it could not send yet (not
 * connected, or its upstream not taking them) is given up, as is one whose client's body broke off.
 */
final class MirrorExchange implements Exchange {
    /**
     * The most body a copy may hold that its upstream has not taken, before it is given up. Above what a paused
     * client connection may still take in from io_uring's read ring (io.netty.channel.uring.ReadRing, 128 KiB).
     */
    static final int MAX_BEHIND = 256 * 1024;

    private enum State { LIVE, OVER }

    private final MirrorHandler.Target target;
    private final HttpRequest request;
    private final String path;
    private final String query;
    private final String host;
    private final String scheme;
    private final SocketAddress remote;
    private final SocketAddress client;
    private final SocketAddress local;
    private final EventLoop loop;
    private final ByteBufAllocator alloc;
    private final boolean hasBody;
    private final long startNanos = System.nanoTime();

    private State state = State.LIVE;
    private BodyReceiver receiver;
    /** Parts that came before the copy's call took its receiver. */
    private ArrayDeque<ByteBuf> waiting;
    private HttpHeaders trailers;
    private boolean bodyEnded;
    /** The copy's call asked for no more body (it is not connected, or its upstream is full). */
    private boolean behind;
    private long behindBytes;
    private Runnable cancel;
    private Runnable end;

    /** @param withBody the copy carries the client's body (the client sent one and the mirror wants it) */
    MirrorExchange(Exchange client, MirrorHandler.Target target, boolean withBody) {
        this.target = target;
        HttpRequest original = client.request();
        HttpHeaders headers = original.headers().copy();
        if (!withBody) {
            headers.remove(HttpHeaderNames.CONTENT_LENGTH);
            headers.remove(HttpHeaderNames.TRANSFER_ENCODING);
            headers.remove(HttpHeaderNames.EXPECT);
        }
        this.request = new DefaultHttpRequest(original.protocolVersion(), original.method(), original.uri(), headers);
        this.path = client.path();
        this.query = client.query();
        this.host = client.host();
        this.scheme = client.scheme();
        this.remote = client.remoteAddress();
        this.client = client.clientAddress();
        this.local = client.localAddress();
        this.loop = client.eventLoop();
        this.alloc = client.alloc();
        this.hasBody = withBody;
    }

    /** Sends the copy through its mirror's proxy handler. */
    void start() {
        target.proxy.handle(this);
    }

    // ---- the client's body, as the tee hands it over ----

    /** Whether this copy still wants the client's body. */
    boolean takesBody() {
        return hasBody && state == State.LIVE;
    }

    /** A copy of a part of the client's body; taken. */
    void part(ByteBuf data) {
        if (state != State.LIVE) {
            data.release();
            return;
        }
        if (receiver == null || behind) {
            behindBytes += data.readableBytes();
            if (behindBytes > MAX_BEHIND) {
                data.release();
                abandon(new IOException("the mirror fell more than " + MAX_BEHIND + " bytes behind the client's body"));
                return;
            }
        }
        if (receiver != null) {
            receiver.onBodyPart(data);
        } else {
            if (waiting == null) {
                waiting = new ArrayDeque<>(4);
            }
            waiting.add(data);
        }
    }

    void bodyEnd(HttpHeaders trailers) {
        if (state != State.LIVE) {
            return;
        }
        if (receiver != null) {
            receiver.onBodyEnd(trailers);
        } else {
            this.trailers = trailers;
            bodyEnded = true;
        }
    }

    /** The client's body broke off: the copy cannot be completed. */
    void abandon(Throwable cause) {
        if (state != State.LIVE) {
            return;
        }
        BodyReceiver r = receiver;
        receiver = null;
        if (r != null) {
            r.onBodyAbort(cause);
        }
        Runnable c = cancel;
        cancel = null;
        if (c != null) {
            c.run(); // the call lets its upstream connection go
        }
        over(MirrorHandler.Outcome.ABANDONED);
    }

    private void over(MirrorHandler.Outcome outcome) {
        if (state == State.OVER) {
            return;
        }
        state = State.OVER;
        if (waiting != null) {
            waiting.forEach(ByteBuf::release);
            waiting = null;
        }
        target.ended(outcome);
        Runnable e = end;
        end = null;
        if (e != null) {
            e.run();
        }
    }

    // ---- the request, as the mirror's proxy call reads it ----

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
        return request.method() == HttpMethod.HEAD;
    }

    @Override
    public ByteBufAllocator alloc() {
        return alloc;
    }

    @Override
    public EventLoop eventLoop() {
        return loop;
    }

    @Override
    public SocketAddress remoteAddress() {
        return remote;
    }

    @Override
    public SocketAddress clientAddress() {
        return client;
    }

    @Override
    public SocketAddress localAddress() {
        return local;
    }

    @Override
    public String scheme() {
        return scheme;
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
    public void receiveBody(BodyReceiver r) {
        if (state != State.LIVE) {
            return;
        }
        receiver = r;
        if (waiting != null) {
            ByteBuf part;
            while ((part = waiting.poll()) != null && receiver == r) {
                r.onBodyPart(part);
            }
        }
        if (bodyEnded && receiver == r) {
            r.onBodyEnd(trailers);
        }
    }

    /** The client is never held back for a copy; the copy keeps count of what it could not send instead. */
    @Override
    public void pauseReading() {
        behind = true;
    }

    @Override
    public void resumeReading() {
        behind = false;
        behindBytes = 0;
    }

    /** Settled by the mirror handler: the copy carries the client's request's own id. */
    @Override
    public boolean requestIdSettled() {
        return true;
    }

    @Override
    public boolean clientGone() {
        return state != State.LIVE;
    }

    @Override
    public void onCancel(Runnable task) {
        cancel = task;
    }

    @Override
    public void onEnd(Runnable task) {
        end = task;
    }

    // ---- the mirror's answer, read and dropped ----

    @Override
    public void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) {
    }

    @Override
    public void sendBodyPart(ByteBuf data) {
        data.release();
    }

    @Override
    public void endResponse(HttpHeaders trailers) {
        over(MirrorHandler.Outcome.ANSWERED);
    }

    @Override
    public void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf body) {
        if (body != null) {
            body.release();
        }
        over(MirrorHandler.Outcome.ANSWERED);
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] body) {
        over(MirrorHandler.Outcome.ANSWERED);
    }

    @Override
    public void sendPreEncoded(byte[] head, ByteBuf body) {
        body.release();
        over(MirrorHandler.Outcome.ANSWERED);
    }

    @Override
    public void sendPreEncoded(byte[] head, byte[] extra, ByteBuf body) {
        sendPreEncoded(head, body);
    }

    @Override
    public void sendFile(byte[] head, FileChannel file, long offset, long length) {
        try {
            file.close();
        } catch (IOException ignored) {
            // nothing was read from it
        }
        over(MirrorHandler.Outcome.ANSWERED);
    }

    @Override
    public void sendFileParts(byte[] head, FileParts body) {
        body.release();
        over(MirrorHandler.Outcome.ANSWERED);
    }

    @Override
    public void sendMapped(byte[] head, ByteBuf body, ReferenceCounted mapping) {
        body.release();
        mapping.release();
        over(MirrorHandler.Outcome.ANSWERED);
    }

    /** The proxy's own answer: the mirror could not be asked (no endpoint, refused, timed out). */
    @Override
    public void sendError(HttpResponseStatus status) {
        over(MirrorHandler.Outcome.FAILED);
    }

    @Override
    public void sendError(HttpResponseStatus status, HttpHeaders headers) {
        over(MirrorHandler.Outcome.FAILED);
    }

    @Override
    public void sendError(HttpResponseStatus status, String reason) {
        over(MirrorHandler.Outcome.FAILED);
    }

    /** The mirror's answer broke off. */
    @Override
    public void abort() {
        over(MirrorHandler.Outcome.FAILED);
    }

    /** A copy never asks to switch protocols (upgrades are not mirrored); refused if it came to that. */
    @Override
    public void switchProtocols(HttpHeaders headers, ChannelHandler tunnel) {
        over(MirrorHandler.Outcome.FAILED);
    }

    /** Nobody waits on a copy's answer: it is always taken, as fast as the mirror sends it. */
    @Override
    public boolean isWritable() {
        return true;
    }

    @Override
    public void onWritable(Runnable task) {
        loop.execute(task);
    }

    @Override
    public void holdFlush() {
    }

    @Override
    public void flush() {
    }
}
