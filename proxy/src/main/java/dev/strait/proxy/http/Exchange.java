package dev.strait.proxy.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.File;

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
     * Sends {@code head} followed by {@code length} bytes of {@code file} from {@code offset}, zero-copy where
     * the connection allows it (cleartext), in chunks otherwise.
     */
    void sendFile(byte[] head, File file, long offset, long length);

    /** A general response; {@code Content-Length} is set from the body, which this call takes ownership of. */
    void send(HttpResponseStatus status, HttpHeaders headers, ByteBuf body);

    /** A short plain-text error response. */
    void sendError(HttpResponseStatus status);
}
