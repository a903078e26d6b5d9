package dev.strait.proxy.http;

import dev.strait.model.HostPort;
import dev.strait.model.PathNormalizer;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.ReferenceCounted;
import java.net.SocketAddress;
import java.nio.channels.FileChannel;

/**
 * One request and the means to answer it, as a route's handler sees it. The server that decoded the
 * request (HTTP/1.1 today) owns framing: it adds {@code Date}, {@code Connection} and the blank line,
 * drops the body for HEAD, and keeps responses in request order.
 *
 * <p>Every method runs on the connection's event loop; exactly one {@code send*} call answers.
 */
public interface Exchange {

    HttpRequest request();

    /** The request path after normalisation ({@link PathNormalizer}): no query, dot segments resolved. */
    String path();

    /** The raw query string without '?', or {@code null}. */
    String query();

    boolean isHead();

    ByteBufAllocator alloc();

    /**
     * Sends a pre-encoded response: {@code head} is the status line and header lines, each ending in
     * CRLF, without {@code Date}, {@code Connection} and the closing blank line (see {@link ResponseHead}).
     * {@code body} is sent unless the request was HEAD; its length must match the head's Content-Length.
     */
    void sendPreEncoded(byte[] head, byte[] body);

    /** Same as {@link #sendPreEncoded(byte[], byte[])} with the body in a buffer this call takes ownership of. */
    void sendPreEncoded(byte[] head, ByteBuf body);

    /**
     * Same as {@link #sendPreEncoded(byte[], ByteBuf)} with {@code extra} header lines (each ending in CRLF)
     * after {@code head}: the response cache's per-answer {@code Age} and {@code X-Cache}. Servers override
     * it to write both into one buffer; this default joins them first.
     */
    default void sendPreEncoded(byte[] head, byte[] extra, ByteBuf body) {
        byte[] joined = java.util.Arrays.copyOf(head, head.length + extra.length);
        System.arraycopy(extra, 0, joined, head.length, extra.length);
        sendPreEncoded(joined, body);
    }

    /**
     * Sends {@code head} followed by {@code length} bytes of the file open in {@code file} from {@code offset},
     * zero-copy where the connection allows it (cleartext), in chunks otherwise. This call takes ownership of
     * {@code file} and closes it once sent or dropped. The caller opened it, so an unreadable or vanished
     * file is answered (403, 404) before any head is written, and the bytes sent are those of the version
     * the caller checked, whatever the path names meanwhile.
     */
    void sendFile(byte[] head, FileChannel file, long offset, long length);

    /**
     * Sends {@code head} and a body of file ranges with bytes around them (a {@code multipart/byteranges}
     * answer, {@link FileParts}): the ranges zero-copy where the connection allows it, in chunks otherwise.
     * This call takes ownership of {@code body}'s reference; as with {@link #sendFile}, the caller opened
     * the file and checked its version before the head was made.
     */
    default void sendFileParts(byte[] head, FileParts body) {
        body.release();
        throw new UnsupportedOperationException("this exchange does not send files");
    }

    /**
     * Whether {@link #sendMapped} may be used: only where the body goes to the socket as it is, so that
     * nothing but the kernel reads it (cleartext HTTP/1.1; TLS would read it to encrypt it).
     */
    default boolean sendsMappedFiles() {
        return false;
    }

    /**
     * Sends {@code head} and a body that lies in a memory-mapped file. This call takes ownership of
     * {@code body} and of one reference to {@code mapping}, released once the body is written or dropped:
     * only then may the file be unmapped. The body is written as it is, never copied or read here: if the
     * file is truncated meanwhile, the socket write fails where a read from Java would fault. Only when
     * {@link #sendsMappedFiles()}.
     */
    default void sendMapped(byte[] head, ByteBuf body, ReferenceCounted mapping) {
        body.release();
        mapping.release();
        throw new UnsupportedOperationException("this exchange does not send mapped files");
    }

    /** A general response; {@code Content-Length} is set from the body, which this call takes ownership of. */
    void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf body);

    /** A short plain-text error response. */
    void sendError(HttpResponseStatus status);

    /**
     * The same short plain-text answer ({@code 401 Unauthorized}, say) with fields of its own, such as a
     * challenge, {@code Retry-After} or CORS fields; {@code headers} is taken and completed with the type.
     */
    default void sendError(HttpResponseStatus status, HttpHeaders headers) {
        headers.set(io.netty.handler.codec.http.HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        byte[] body = (status.code() + " " + status.reasonPhrase() + "\n").getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        send(status, headers, io.netty.buffer.Unpooled.wrappedBuffer(body));
    }

    /** The same short plain-text answer with a sentence that says why: {@code 400 Bad Request: <reason>}. */
    default void sendError(HttpResponseStatus status, String reason) {
        io.netty.handler.codec.http.HttpHeaders headers = new io.netty.handler.codec.http.DefaultHttpHeaders();
        headers.set(io.netty.handler.codec.http.HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        byte[] body = (status.code() + " " + status.reasonPhrase() + ": " + reason + "\n")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        send(status, headers, io.netty.buffer.Unpooled.wrappedBuffer(body));
    }

    // ---- streaming, for handlers that answer later (proxying) ----

    /** The loop this exchange runs on: upstream connections for it belong to the same loop. */
    EventLoop eventLoop();

    /** The connection's peer: what {@code X-Forwarded-For} gets appended. */
    SocketAddress remoteAddress();

    /**
     * The client the request came from: {@link #remoteAddress()}, or, from a peer the config trusts
     * ({@code forwardedHeaders.trustedPeers}), the client its {@code X-Forwarded-For} names
     * ({@link ForwardedFor}). The access log, FastCGI's {@code REMOTE_ADDR} and hashing on the client use it.
     */
    default SocketAddress clientAddress() {
        return remoteAddress();
    }

    /** The address the client connected to (CGI's SERVER_ADDR and SERVER_PORT), or {@code null} if unknown. */
    default SocketAddress localAddress() {
        return null;
    }

    /**
     * {@code http} or {@code https}: the scheme the client used. Its connection's, or, from a peer the config
     * trusts ({@code forwardedHeaders.trustedPeers}), what its {@code X-Forwarded-Proto} says ({@link ForwardedProto}).
     */
    String scheme();

    /** The request's host, lower case, without port (from Host or an absolute-form target). */
    String host();

    /**
     * {@code System.nanoTime()} when the request's head was read, so that what runs in the same dispatch
     * need not read the clock again; an exchange that does not know answers the time of the call.
     */
    default long startNanos() {
        return System.nanoTime();
    }

    /** Whether the request has a body (declared Content-Length over 0, or chunked). */
    boolean hasBody();

    /**
     * Sends the request body to {@code receiver} as it arrives. Call it from {@code handle}; without a
     * receiver the body is read and discarded.
     */
    void receiveBody(BodyReceiver receiver);

    /** Stops reading from the client (backpressure); {@link #resumeReading()} starts again. */
    void pauseReading();

    void resumeReading();

    /**
     * Asks for a body the client holds back until it hears {@code 100 Continue} ({@code Expect: 100-continue}),
     * if it still waits: the request is going to its action. The servers call it as the action starts, or a
     * handler that decides first ({@link dev.strait.proxy.route.Handler#decidesBeforeBody}) once it lets the
     * request through. A final answer sent while the client still waits closes an HTTP/1.1 connection (the
     * client may or may not send the body) and ends an HTTP/2 stream (RFC 9110 10.1.1). Otherwise a no-op.
     */
    default void continueBody() {
    }

    /**
     * An interim (1xx) response ahead of the final one, such as 103 Early Hints, which a proxy must pass on
     * (RFC 9110 15.2). Dropped where it cannot go: an HTTP/1.0 client, or once the final answer started.
     * {@code headers} must be free of hop-by-hop fields. By default nothing is sent.
     */
    default void sendInformational(HttpResponseStatus status, HttpHeaders headers) {
    }

    /**
     * Starts a streamed response. {@code headers} must not carry framing or connection headers
     * (Content-Length, Transfer-Encoding, Connection, Keep-Alive): the server writes its own.
     * {@code contentLength} below 0 means unknown: chunked for HTTP/1.1 clients, close-delimited for 1.0.
     */
    void startResponse(HttpResponseStatus status, HttpHeaders headers, long contentLength);

    /** A part of the streamed body; this call takes ownership of {@code data}. */
    void sendBodyPart(ByteBuf data);

    /** Ends the streamed response; {@code trailers} may be {@code null}. */
    void endResponse(HttpHeaders trailers);

    /** Whether the client connection can take more without buffering; see {@link #onWritable}. */
    boolean isWritable();

    /** Runs {@code task} once when the client connection becomes writable again. */
    void onWritable(Runnable task);

    /** Runs {@code task} if the client connection closes before the response is complete. */
    void onCancel(Runnable task);

    /**
     * Whether the client left before this exchange was answered (its connection closed, its stream reset):
     * its cancel has run, none will come any more, and whatever is sent through it is dropped. Work started
     * for an exchange after its dispatch (an error page's fetch) asks this first, since nothing would stop it.
     */
    default boolean clientGone() {
        return false;
    }

    /**
     * Runs {@code task} once when this exchange is over, however it ends (answered, refused, abandoned by its
     * client, a tunnel closed): when it is counted in the metrics and the access log. For what a guard holds
     * while a request is under way; one task per exchange.
     */
    default void onEnd(Runnable task) {
        throw new UnsupportedOperationException("only the servers' exchanges end");
    }

    /** The upstream endpoint this request went to (its last try), for the access log (nginx's $upstream_addr). */
    default void upstream(HostPort endpoint) {
    }

    /** The request's trace (its span the proxy's), or null when it is not traced. */
    default dev.strait.proxy.tracing.RequestTrace trace() {
        return null;
    }

    /**
     * Routes {@code sub}, a request made on behalf of this one (a forward-auth check without an upstream),
     * by the routing table, listener and scheme this request was routed by, and has the rule found answer
     * it, guards first, as nginx's subrequest to a location; 404 through {@code sub} when no rule matches.
     * By default there is no table to route by: 404.
     */
    default void dispatch(Exchange sub) {
        sub.sendError(HttpResponseStatus.NOT_FOUND);
    }

    /**
     * Whether the request's {@code X-Request-Id} was settled by this proxy before its action (a mirrored request's,
     * which its copies carry too, ADR 0086): sent upstream as it is, whoever the peer. By default it is not, and a
     * client's own is kept only from a peer {@code requestId.trustIncoming} trusts.
     */
    default boolean requestIdSettled() {
        return false;
    }

    /** Whether this exchange is a forward-auth check (which is never checked itself). */
    default boolean checking() {
        return false;
    }

    /** Gives up on a started response: the client connection is closed (it cannot be framed any more). */
    void abort();

    /**
     * Holds back flushing what the streaming calls write until {@link #flush()}, so that a batch of writes
     * (say, all that one upstream read brought) leaves in one system call.
     */
    void holdFlush();

    /** Ends {@link #holdFlush()}: flushes what was written meanwhile. */
    void flush();

    /**
     * Switches the client connection to another protocol once an upstream answered 101 (RFC 9110 7.8):
     * writes {@code 101 Switching Protocols} with {@code headers} (the server adds {@code Connection: Upgrade}),
     * then steps HTTP aside: from now on the connection's bytes go, as they are, to {@code tunnel}, which is
     * added at the end of the connection's pipeline. The exchange is answered by this call.
     */
    void switchProtocols(HttpHeaders headers, io.netty.channel.ChannelHandler tunnel);
}
