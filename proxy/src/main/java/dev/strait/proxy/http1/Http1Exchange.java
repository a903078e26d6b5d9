package dev.strait.proxy.http1;

import dev.strait.model.HostPort;
import dev.strait.proxy.tracing.RequestTrace;
import dev.strait.proxy.http.BodyReceiver;
import dev.strait.proxy.http.Exchange;
import dev.strait.proxy.http.FileParts;
import dev.strait.proxy.route.CompiledRule;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.stream.ChunkedInput;
import io.netty.handler.stream.ChunkedNioFile;
import io.netty.util.ReferenceCounted;
import java.io.IOException;
import java.net.SocketAddress;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;

/** One HTTP/1.1 request on its connection; answers are framed and written by {@link Http1ServerHandler}. */
final class Http1Exchange implements Exchange {
    /**
     * Bytes read from a file per chunk under TLS. Each chunk is one write and one flush: the SslHandler
     * cuts it into 16 KiB records and the socket gets them in one writev. 16 KiB chunks cost about twice
     * the CPU per 1 MiB response (a pread, a send and a promise per record, docs/benchmarks.md); at
     * most one chunk per connection is in flight, since the next is read only once the channel is
     * writable again.
     */
    private static final int TLS_FILE_CHUNK = 128 * 1024;

    final Http1ServerHandler connection;
    final HttpRequest request;
    /** The connection's, or a trusted peer's X-Forwarded-Proto once the head is read (ForwardedProto). */
    String scheme;
    /** The client a trusted peer named ({@code ForwardedFor}); {@code null}: the connection's peer. */
    SocketAddress client;
    String host;
    String path;
    String query;
    final boolean head;
    final long startNanos;
    CompiledRule rule;
    /** The config this request was routed by, for requests made on its behalf. */
    dev.strait.proxy.config.Snapshot snapshot;
    boolean keepAlive;
    /** The response is complete (all of it written). */
    boolean responded;
    /** A streamed response has started (its head is written). */
    boolean streaming;
    boolean chunked;
    boolean bodyless;
    boolean hasBody;
    /** The client sent {@code Expect: 100-continue} and has not been asked for its body yet. */
    boolean continuePending;
    BodyReceiver receiver;
    Runnable onCancel;
    /** The connection closed before the answer was complete ({@link #clientGone()}). */
    boolean gone;
    int status;
    long bytes;
    /** The endpoint that served it, if an upstream did (logged). */
    HostPort upstream;
    /** What runs when the exchange is recorded ({@link #onEnd}), or null. */
    Runnable ended;
    /** The request's trace while the config has {@code tracing}, else null. */
    RequestTrace trace;

    Http1Exchange(Http1ServerHandler connection, HttpRequest request, String host, String path, String query,
                  boolean head, long startNanos) {
        this.connection = connection;
        this.request = request;
        this.scheme = connection.scheme();
        this.host = host;
        this.path = path;
        this.query = query;
        this.head = head;
        this.startNanos = startNanos;
    }

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
        return connection.alloc();
    }

    @Override
    public void sendPreEncoded(byte[] headBytes, byte[] body) {
        if (!head && body != null && connection.plainFraming(this) && SharedAnswers.fits(headBytes, body)) {
            // The common keep-alive answer: the loop's shared copy, no allocation and no copy (ADR 0032).
            status = dev.strait.proxy.http.HeadLines.status(headBytes);
            finish(SharedAnswers.answer(alloc(), headBytes, body), null, body.length);
            return;
        }
        int bodyLen = head || body == null ? 0 : body.length;
        ByteBuf buf = startHead(headBytes, bodyLen);
        if (bodyLen > 0) {
            buf.writeBytes(body);
        }
        finish(buf, null, bodyLen);
    }

    @Override
    public void sendPreEncoded(byte[] headBytes, ByteBuf body) {
        sendPreEncoded(headBytes, null, body);
    }

    /** {@code extra} may be {@code null}. */
    @Override
    public void sendPreEncoded(byte[] headBytes, byte[] extra, ByteBuf body) {
        int len = head ? 0 : body.readableBytes();
        ByteBuf buf = startHead(headBytes, extra, len <= 1024 ? len : 0);
        if (head || len == 0) {
            body.release();
            finish(buf, null, 0);
        } else if (len <= 1024) {
            // Small bodies go out in the same buffer as the head: one write, one segment.
            buf.writeBytes(body, body.readerIndex(), len);
            body.release();
            finish(buf, null, len);
        } else {
            finish(buf, body, len);
        }
    }

    @Override
    public void sendFile(byte[] headBytes, FileChannel file, long offset, long length) {
        if (head || length == 0) {
            closeQuietly(file);
            finish(startHead(headBytes, 0), null, 0);
            return;
        }
        Object body;
        if (connection.zeroCopy && !(offset + length > Integer.MAX_VALUE && connection.onIoUring())) {
            body = new DefaultFileRegion(file, offset, length);
        } else {
            // TLS: the file is read in chunks into pooled (direct) buffers, never whole into the heap.
            // Cleartext on io_uring past 2 GiB too: Netty's io_uring file region keeps offsets in an int
            // and would send the wrong bytes (or none) there.
            try {
                body = new ChunkedNioFile(file, offset, length, TLS_FILE_CHUNK);
            } catch (IOException e) {
                closeQuietly(file);
                sendError(HttpResponseStatus.NOT_FOUND); // the head is not written yet
                return;
            }
            connection.ensureChunkedWrites();
        }
        finish(startHead(headBytes, 0), body, length);
    }

    @Override
    public void sendFileParts(byte[] headBytes, FileParts body) {
        long length = body.length();
        if (head) {
            body.release();
            finish(startHead(headBytes, 0), null, 0);
            return;
        }
        if (connection.zeroCopy && !(body.end() > Integer.MAX_VALUE && connection.onIoUring())) {
            // Each range a region of the one channel (sendfile, as for a single range), the bytes between
            // them small buffers: the first part's head goes with the response's.
            int n = body.count();
            ByteBuf headBuf = startHead(headBytes, body.head(0).length);
            headBuf.writeBytes(body.head(0));
            Object[] rest = new Object[2 * n];
            for (int i = 0; i < n; i++) {
                rest[2 * i] = body.region(i);
                byte[] next = i + 1 < n ? body.head(i + 1) : body.tail();
                rest[2 * i + 1] = alloc().ioBuffer(next.length).writeBytes(next);
            }
            body.release();
            connection.completeParts(this, headBuf, rest, length);
        } else {
            // TLS (and io_uring past 2 GiB, see sendFile): read in chunks into pooled buffers.
            ChunkedInput<ByteBuf> chunks = body.chunks(TLS_FILE_CHUNK);
            connection.ensureChunkedWrites();
            finish(startHead(headBytes, 0), chunks, length);
        }
    }

    private static void closeQuietly(FileChannel file) {
        try {
            file.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    @Override
    public boolean sendsMappedFiles() {
        return connection.zeroCopy;
    }

    @Override
    public void sendMapped(byte[] headBytes, ByteBuf body, ReferenceCounted mapping) {
        ByteBuf buf = startHead(headBytes, 0);
        if (head) {
            body.release();
            mapping.release();
            finish(buf, null, 0);
        } else {
            // Written as it is (see Exchange.sendMapped); the mapping is released when the write completes.
            connection.complete(this, buf, body, body.readableBytes(), mapping);
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
        connection.sendError(this, status);
    }

    @Override
    public EventLoop eventLoop() {
        return connection.eventLoop();
    }

    @Override
    public SocketAddress remoteAddress() {
        return connection.remoteAddress();
    }

    @Override
    public SocketAddress clientAddress() {
        return client != null ? client : connection.remoteAddress();
    }

    @Override
    public SocketAddress localAddress() {
        return connection.localAddress();
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
    public void receiveBody(BodyReceiver receiver) {
        this.receiver = receiver;
    }

    @Override
    public void pauseReading() {
        connection.pauseReading(true);
    }

    @Override
    public void resumeReading() {
        connection.pauseReading(false);
    }

    @Override
    public void continueBody() {
        connection.continueBody(this);
    }

    @Override
    public void sendInformational(HttpResponseStatus status, HttpHeaders headers) {
        connection.sendInformational(this, status, headers);
    }

    @Override
    public void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength) {
        connection.startResponse(this, status, headers, contentLength);
    }

    @Override
    public void sendBodyPart(ByteBuf data) {
        connection.sendBodyPart(this, data);
    }

    @Override
    public void endResponse(HttpHeaders trailers) {
        connection.endResponse(this, trailers);
    }

    @Override
    public boolean isWritable() {
        return connection.isWritable();
    }

    @Override
    public void onWritable(Runnable task) {
        connection.onWritable(task);
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
        connection.abort(this);
    }

    @Override
    public void switchProtocols(HttpHeaders headers, io.netty.channel.ChannelHandler tunnel) {
        connection.switchProtocols(this, headers, tunnel);
    }

    @Override
    public void holdFlush() {
        connection.holdFlush(true);
    }

    @Override
    public void flush() {
        connection.holdFlush(false);
    }

    private ByteBuf startHead(byte[] headBytes, int extra) {
        return startHead(headBytes, null, extra);
    }

    private ByteBuf startHead(byte[] headBytes, byte[] lines, int extra) {
        // Status code from the pre-encoded line: "HTTP/1.1 200 ..."
        status = dev.strait.proxy.http.HeadLines.status(headBytes);
        int n = lines == null ? 0 : lines.length;
        ByteBuf buf = alloc().ioBuffer(headBytes.length + n + 96 + extra);
        buf.writeBytes(headBytes);
        if (lines != null) {
            buf.writeBytes(lines);
        }
        connection.writeFraming(this, buf);
        return buf;
    }

    private void finish(ByteBuf headBuf, Object body, long bodyLen) {
        connection.complete(this, headBuf, body, bodyLen);
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
    public void dispatch(Exchange sub) {
        connection.dispatch(this, sub);
    }
}
