package dev.strait.proxy.upstream;

import dev.strait.proxy.http1.HeadParser;
import dev.strait.proxy.http1.Http1Framing;
import dev.strait.proxy.http1.Http1Violation;
import dev.strait.proxy.http1.KnownNames;
import dev.strait.proxy.server.FatalErrors;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Bytes from an upstream to a response head ({@link UpstreamResponse}, with its framing, keep-alive and
 * connection-specific fields already known), body parts
 * ({@link io.netty.handler.codec.http.HttpContent}, retained slices of the read buffer) and a
 * {@link LastHttpContent} (with the trailers of a chunked body), as Netty's {@code HttpResponseDecoder}
 * would emit them, but strict as a proxy must be and cheaper (issue #3: Netty's generic decoder was about
 * 12 % of our user CPU when proxying).
 *
 * <pre>
 *   socket -> UpstreamResponseDecoder -> UpstreamConnection -> ProxyCall
 * </pre>
 *
 * <p>Refused, as a head or last content whose decoder result is a failure (502, the connection is not
 * reused), whatever two parsers could read differently: bare LF or CR, obs-fold, whitespace before a
 * colon, control characters in values or the reason phrase, a status line that is not
 * {@code HTTP/1.x 3DIGIT [SP reason]}, a status line over 8 KiB or fields over 64 KiB, and (RFC 9112 6.3)
 * both Transfer-Encoding and Content-Length, several Content-Lengths, lengths that are not digits or
 * overflow, Transfer-Encoding other than a single {@code chunked} or in HTTP/1.0, malformed chunk sizes
 * (the chunk framing is shared with the request side, {@link Http1Framing}). Everything after a failure is
 * discarded.
 *
 * <p>The head's end is searched for incrementally (a slow upstream's head is not re-scanned from its
 * start on every read); once it is all here it is copied into the loop's scratch array and parsed in one
 * pass with the request side's field grammar ({@link HeadParser#fieldLine}); common names are shared
 * constants, and the header map does not validate again.
 *
 * <p>It also knows that a HEAD request's answer has no body ({@link #noBody}), tells when bytes followed
 * the end of a response in the same read, which a well-behaved server never sends
 * ({@link #takeBytesAfterBody}), and after a {@code 101} passes the bytes that follow as they are, until
 * {@link UpstreamConnection#tunnel} removes it. Public only for the JMH benchmark.
 */
public final class UpstreamResponseDecoder extends ByteToMessageDecoder {
    static final int MAX_STATUS_LINE = 8 * 1024;
    static final int MAX_HEAD = 64 * 1024;
    static final int MAX_PART = 64 * 1024;

    /** Fields arrive validated here, so the header maps do not check them again. */
    private static final HttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory().withValidation(false);
    private static final HttpHeadersFactory TRAILERS = DefaultHttpHeadersFactory.trailersFactory().withValidation(false);

    /** Names as servers usually spell them, shared instead of copied per response. */
    private static final KnownNames KNOWN_NAMES = KnownNames.of(
            "Server", "Date", "Content-Type", "Content-Length", "Connection", "Keep-Alive", "Transfer-Encoding",
            "Last-Modified", "ETag", "Accept-Ranges", "Cache-Control", "Expires", "Vary", "Set-Cookie", "Location",
            "Content-Encoding", "Content-Language", "Content-Range", "Content-Disposition", "Age", "Via", "Pragma",
            "Upgrade", "Sec-WebSocket-Accept", "Sec-WebSocket-Protocol", "Sec-WebSocket-Extensions", "Trailer",
            "X-Powered-By", "X-Content-Type-Options", "X-Frame-Options", "Strict-Transport-Security",
            "Access-Control-Allow-Origin", "WWW-Authenticate", "Retry-After", "Link", "Alt-Svc", "X-Request-Id");

    static final int TOKEN_CLOSE = 1;
    static final int TOKEN_KEEP_ALIVE = 2;
    static final int TOKEN_OTHER = 4;

    private enum State { HEAD, FIXED, UNTIL_CLOSE, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, TRAILERS, UPGRADED, BAD }

    /** The request being answered was HEAD: no body follows a final response head. */
    boolean noBody;
    /** Bytes examined while searching for the ends of heads and trailers: tests prove it stays linear. */
    long scannedBytes;
    private boolean bytesAfterBody;
    private State state = State.HEAD;
    private long remaining;
    /** How far the search for the head's (or trailers') end got, relative to the reader index. */
    private int scanned;
    /** Where the first line's LF is, relative to the reader index; -1 while not found. */
    private int firstLineEnd = -1;
    private final int[] at = new int[3];

    /** See {@link #exceptionCaught}: the close to come is not a clean end of a close-delimited body. */
    private boolean readFailed;

    public UpstreamResponseDecoder() {}

    /** Whether bytes followed the last response's end in the same read; clears the flag. */
    boolean takeBytesAfterBody() {
        boolean b = bytesAfterBody;
        bytesAfterBody = false;
        return b;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        try {
            // One response per call: the caller hands it on before the next starts, so that what follows
            // a LastHttpContent (the flag, a 101's tunnel bytes) is seen in order.
            boolean more = true;
            while (more) {
                more = switch (state) {
                    case HEAD -> head(in, out);
                    case FIXED -> fixed(in, out);
                    case UNTIL_CLOSE -> untilClose(in, out);
                    case CHUNK_SIZE -> chunkSize(in);
                    case CHUNK_DATA -> chunkData(in, out);
                    case CHUNK_END -> chunkEnd(in);
                    case TRAILERS -> trailers(in, out);
                    case UPGRADED -> upgraded(in, out);
                    case BAD -> bad(in);
                };
            }
        } catch (Http1Violation v) {
            fail(v, in, out);
        }
    }

    /**
     * A read failed (a reset, a TLS close without close_notify): the connection's end that follows is not
     * the clean close that ends a close-delimited body (RFC 9112 6.3, 8), so no end is made of it.
     */
    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) throws Exception {
        FatalErrors.check(cause); // out of memory: halt, never half alive (ADR 0043)
        readFailed = true;
        ctx.fireExceptionCaught(cause);
    }

    @Override
    protected void decodeLast(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) throws Exception {
        super.decodeLast(ctx, in, out);
        if (state == State.UNTIL_CLOSE && !in.isReadable() && !readFailed) {
            out.add(LastHttpContent.EMPTY_LAST_CONTENT); // a close-delimited body ends with the connection
            state = State.HEAD;
        } else if (state == State.HEAD && firstLineEnd >= 0) {
            // The status line came but not the rest of the head: an answer, but a broken one.
            fail(violation("connection closed inside the response head"), in, out);
        }
        // Inside a body with a length or chunks: nothing; the connection's close tells the call it was cut.
    }

    // ---- the head

    private boolean head(ByteBuf in, List<Object> out) throws Http1Violation {
        int end = findEnd(in);
        if (end < 0) {
            int readable = in.readableBytes();
            if (firstLineEnd < 0 && readable > MAX_STATUS_LINE + 2) {
                throw violation("status line longer than " + MAX_STATUS_LINE + " bytes");
            }
            if (firstLineEnd >= 0 && readable - firstLineEnd > MAX_HEAD + 2) {
                throw violation("response head longer than " + MAX_HEAD + " bytes");
            }
            return false;
        }
        int lineEnd = firstLineEnd;
        if (end - lineEnd > MAX_HEAD + 2) {
            throw violation("response head longer than " + MAX_HEAD + " bytes");
        }
        byte[] b = Http1Framing.scratch(end);
        in.getBytes(in.readerIndex(), b, 0, end);
        in.skipBytes(end);
        scanned = 0;
        firstLineEnd = -1;
        return parseHead(b, lineEnd, end, in, out);
    }

    /**
     * Searches for the blank line that ends a head or trailer section, from where the last search
     * stopped; every LF must follow a CR.
     *
     * @return the index just past the blank line, relative to the reader index, or -1
     */
    private int findEnd(ByteBuf in) throws Http1Violation {
        int start = in.readerIndex();
        int readable = in.readableBytes();
        int from = scanned;
        while (from < readable) {
            int lf = in.indexOf(start + from, start + readable, (byte) '\n');
            if (lf < 0) {
                scannedBytes += readable - from;
                from = readable;
                break;
            }
            int at = lf - start;
            scannedBytes += at + 1 - from;
            if (at == 0 || in.getByte(lf - 1) != '\r') {
                throw violation("bare LF");
            }
            if (firstLineEnd < 0) {
                firstLineEnd = at;
            } else if (in.getByte(lf - 2) == '\n') {
                return at + 1; // "\n\r\n": an empty line
            }
            from = at + 1;
        }
        scanned = from;
        return -1;
    }

    /** HTTP-version SP 3DIGIT [ SP reason-phrase ] CRLF, then the fields; {@code lf} is the first LF. */
    private boolean parseHead(byte[] b, int lf, int end, ByteBuf in, List<Object> out) throws Http1Violation {
        int cr = lf - 1;
        if (cr > MAX_STATUS_LINE) {
            throw violation("status line longer than " + MAX_STATUS_LINE + " bytes");
        }
        if (cr < 12 || b[0] != 'H' || b[1] != 'T' || b[2] != 'T' || b[3] != 'P' || b[4] != '/' || b[5] != '1'
                || b[6] != '.' || !digit(b[7]) || b[8] != ' ' || b[9] < '1' || b[9] > '5' || !digit(b[10])
                || !digit(b[11]) || cr > 12 && b[12] != ' ') {
            throw violation("malformed status line");
        }
        HttpVersion version = b[7] == '0' ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1;
        int code = (b[9] - '0') * 100 + (b[10] - '0') * 10 + (b[11] - '0');
        for (int k = 13; k < cr; k++) {
            int c = b[k] & 0xff;
            if (c < 0x20 && c != '\t' || c == 0x7f) {
                throw violation("control character in the reason phrase");
            }
        }
        HttpResponseStatus status = status(code, b, Math.min(13, cr), cr);

        HttpHeaders headers = HEADERS.newHeaders();
        int contentLengths = 0;
        long contentLength = -1;
        boolean chunked = false;
        int fields = 0;
        int tokens = 0;
        int i = lf + 1;
        while (b[i] != '\r') {
            int nameStart = i;
            i = fieldLine(b, i);
            AsciiString name = KNOWN_NAMES.name(b, nameStart, at[0]);
            int from = at[1];
            int to = at[2];
            if (name.length() == 14 && HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name)) {
                if (++contentLengths > 1) {
                    throw violation("more than one Content-Length");
                }
                contentLength = length(b, from, to);
            } else if (name.length() == 17 && HttpHeaderNames.TRANSFER_ENCODING.contentEqualsIgnoreCase(name)) {
                // Only a single, final "chunked": another coding is one we would pass on undecoded and unmarked.
                if (chunked || !HttpHeaderValues.CHUNKED.contentEqualsIgnoreCase(ascii(b, from, to))) {
                    throw violation("Transfer-Encoding other than a single chunked");
                }
                chunked = true;
            } else {
                int field = connectionField(name);
                fields |= field;
                if (field == UpstreamResponse.CONNECTION) {
                    tokens |= connectionTokens(b, from, to);
                }
            }
            headers.add(name, new String(b, from, to - from, StandardCharsets.ISO_8859_1));
        }
        if (i + 2 != end) {
            throw violation("bare CR");
        }
        if (chunked && contentLengths > 0) {
            throw violation("both Transfer-Encoding and Content-Length in a response");
        }
        if (chunked && version == HttpVersion.HTTP_1_0) {
            throw violation("Transfer-Encoding in an HTTP/1.0 response");
        }
        boolean keepAlive = (tokens & TOKEN_CLOSE) == 0
                && (version == HttpVersion.HTTP_1_1 || (tokens & TOKEN_KEEP_ALIVE) != 0);
        if ((tokens & TOKEN_OTHER) != 0) {
            fields |= UpstreamResponse.CONNECTION_TOKENS;
        }
        out.add(new UpstreamResponse(version, status, headers, contentLength, chunked, keepAlive, fields));
        if (code < 200 || code == 204 || code == 304 || noBody) {
            if (code == 101) {
                state = State.UPGRADED; // what follows is the new protocol's, until the tunnel takes over
            }
            return last(LastHttpContent.EMPTY_LAST_CONTENT, in, out);
        }
        if (chunked) {
            state = State.CHUNK_SIZE;
        } else if (contentLength == 0) {
            return last(LastHttpContent.EMPTY_LAST_CONTENT, in, out);
        } else if (contentLength > 0) {
            remaining = contentLength;
            state = State.FIXED;
        } else {
            state = State.UNTIL_CLOSE;
        }
        return true;
    }

    /** Which connection-specific field {@code name} is, as an {@link UpstreamResponse} bit; 0 for any other. */
    private static int connectionField(AsciiString name) {
        switch (name.length()) {
            case 2:
                return HttpHeaderNames.TE.contentEqualsIgnoreCase(name) ? UpstreamResponse.TE : 0;
            case 7:
                return HttpHeaderNames.UPGRADE.contentEqualsIgnoreCase(name) ? UpstreamResponse.UPGRADE : 0;
            case 10:
                return HttpHeaderNames.CONNECTION.contentEqualsIgnoreCase(name) ? UpstreamResponse.CONNECTION
                        : HttpHeaderNames.KEEP_ALIVE.contentEqualsIgnoreCase(name) ? UpstreamResponse.KEEP_ALIVE : 0;
            case 16:
                return HeadParser.PROXY_CONNECTION.contentEqualsIgnoreCase(name) ? UpstreamResponse.PROXY_CONNECTION : 0;
            default:
                return 0;
        }
    }

    /** The comma-separated tokens of a {@code Connection} value, as TOKEN_ bits (case-insensitive, OWS trimmed). */
    static int connectionTokens(byte[] b, int from, int to) {
        int out = 0;
        int i = from;
        while (i < to) {
            int end = i;
            while (end < to && b[end] != ',') {
                end++;
            }
            int s = i;
            int e = end;
            while (s < e && (b[s] == ' ' || b[s] == '\t')) {
                s++;
            }
            while (e > s && (b[e - 1] == ' ' || b[e - 1] == '\t')) {
                e--;
            }
            if (e > s) {
                out |= token(b, s, e, "close") ? TOKEN_CLOSE : token(b, s, e, "keep-alive") ? TOKEN_KEEP_ALIVE : TOKEN_OTHER;
            }
            i = end + 1;
        }
        return out;
    }

    /** Bytes {@code from..to} spell {@code lower} (lower-case ASCII) in any case. */
    private static boolean token(byte[] b, int from, int to, String lower) {
        if (to - from != lower.length()) {
            return false;
        }
        for (int k = 0; k < lower.length(); k++) {
            int c = b[from + k];
            int want = lower.charAt(k);
            if (c != want && !(want >= 'a' && want <= 'z' && c == want - ('a' - 'A'))) {
                return false;
            }
        }
        return true;
    }

    private int fieldLine(byte[] b, int i) throws Http1Violation {
        try {
            return HeadParser.fieldLine(b, i, at);
        } catch (Http1Violation v) {
            throw violation(v.getMessage());
        }
    }

    /** A standard status is shared when the reason is its usual one; otherwise the upstream's reason is kept. */
    private static HttpResponseStatus status(int code, byte[] b, int from, int to) {
        HttpResponseStatus known = HttpResponseStatus.valueOf(code);
        String reason = known.reasonPhrase();
        if (reason.length() == to - from) {
            boolean same = true;
            for (int k = 0; k < to - from && same; k++) {
                same = reason.charAt(k) == (b[from + k] & 0xff);
            }
            if (same) {
                return known;
            }
        }
        return new HttpResponseStatus(code, new String(b, from, to - from, StandardCharsets.ISO_8859_1));
    }

    private static long length(byte[] b, int from, int to) throws Http1Violation {
        if (to - from < 1 || to - from > 18) {
            throw violation("malformed Content-Length");
        }
        long n = 0;
        for (int k = from; k < to; k++) {
            if (!digit(b[k])) {
                throw violation("malformed Content-Length");
            }
            n = n * 10 + (b[k] - '0');
        }
        return n;
    }

    // ---- bodies

    private boolean fixed(ByteBuf in, List<Object> out) {
        int n = (int) Math.min(Math.min(in.readableBytes(), remaining), MAX_PART);
        if (n == 0) {
            return false;
        }
        ByteBuf part = in.readRetainedSlice(n);
        remaining -= n;
        if (remaining == 0) {
            state = State.HEAD;
            // No trailers without chunks: the shared empty map, not a new one per response.
            return last(new DefaultLastHttpContent(part, EmptyHttpHeaders.INSTANCE), in, out);
        }
        out.add(new DefaultHttpContent(part));
        return true;
    }

    private boolean untilClose(ByteBuf in, List<Object> out) {
        int n = Math.min(in.readableBytes(), MAX_PART);
        if (n == 0) {
            return false;
        }
        out.add(new DefaultHttpContent(in.readRetainedSlice(n)));
        return true;
    }

    private boolean chunkSize(ByteBuf in) throws Http1Violation {
        long size;
        try {
            size = Http1Framing.chunkSize(in);
        } catch (Http1Violation v) {
            throw violation(v.getMessage());
        }
        if (size == 0) {
            state = State.TRAILERS;
        } else if (size > 0) {
            remaining = size;
            state = State.CHUNK_DATA;
        }
        return size >= 0;
    }

    private boolean chunkData(ByteBuf in, List<Object> out) {
        int n = (int) Math.min(Math.min(in.readableBytes(), remaining), MAX_PART);
        if (n == 0) {
            return false;
        }
        out.add(new DefaultHttpContent(in.readRetainedSlice(n)));
        remaining -= n;
        if (remaining == 0) {
            state = State.CHUNK_END;
        }
        return true;
    }

    private boolean chunkEnd(ByteBuf in) throws Http1Violation {
        boolean done;
        try {
            done = Http1Framing.chunkEnd(in);
        } catch (Http1Violation v) {
            throw violation(v.getMessage());
        }
        if (done) {
            state = State.CHUNK_SIZE;
        }
        return done;
    }

    /** trailer-section CRLF: fields that frame the message are dropped, as Netty's decoder does. */
    private boolean trailers(ByteBuf in, List<Object> out) throws Http1Violation {
        int start = in.readerIndex();
        if (scanned == 0) {
            if (in.readableBytes() < 2) {
                return false;
            }
            if (in.getByte(start) == '\r' && in.getByte(start + 1) == '\n') {
                in.skipBytes(2);
                state = State.HEAD;
                return last(LastHttpContent.EMPTY_LAST_CONTENT, in, out);
            }
        }
        int end = findEnd(in);
        if (end < 0 ? in.readableBytes() > MAX_HEAD : end > MAX_HEAD + 2) {
            throw violation("trailers longer than " + MAX_HEAD + " bytes");
        }
        if (end < 0) {
            return false;
        }
        byte[] b = Http1Framing.scratch(end);
        in.getBytes(start, b, 0, end);
        in.skipBytes(end);
        scanned = 0;
        firstLineEnd = -1;
        HttpHeaders trailers = TRAILERS.newHeaders();
        int i = 0;
        while (b[i] != '\r') {
            int nameStart = i;
            i = fieldLine(b, i);
            AsciiString name = KNOWN_NAMES.name(b, nameStart, at[0]);
            if (!HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name)
                    && !HttpHeaderNames.TRANSFER_ENCODING.contentEqualsIgnoreCase(name)
                    && !HttpHeaderNames.TRAILER.contentEqualsIgnoreCase(name)) {
                trailers.add(name, new String(b, at[1], at[2] - at[1], StandardCharsets.ISO_8859_1));
            }
        }
        if (i + 2 != end) {
            throw violation("bare CR");
        }
        state = State.HEAD;
        return last(new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER, trailers), in, out);
    }

    private boolean upgraded(ByteBuf in, List<Object> out) {
        if (in.isReadable()) {
            out.add(in.readRetainedSlice(in.readableBytes()));
        }
        return false;
    }

    /** Ends a response: hand it on before reading on (see {@link #decode}). */
    private boolean last(LastHttpContent last, ByteBuf in, List<Object> out) {
        out.add(last);
        if (in.isReadable()) {
            bytesAfterBody = true;
        }
        return false;
    }

    // ---- failure

    private void fail(Http1Violation v, ByteBuf in, List<Object> out) {
        in.skipBytes(in.readableBytes());
        if (state == State.HEAD) {
            HttpResponse bad = new UpstreamResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.BAD_GATEWAY,
                    HEADERS.newHeaders(), -1, false, false, 0);
            bad.setDecoderResult(DecoderResult.failure(v));
            out.add(bad);
        } else {
            out.add(Http1Framing.failedLast(v));
        }
        state = State.BAD;
        scanned = 0;
        firstLineEnd = -1;
    }

    private static boolean bad(ByteBuf in) {
        in.skipBytes(in.readableBytes());
        return false;
    }

    private static Http1Violation violation(String reason) {
        return new Http1Violation(HttpResponseStatus.BAD_GATEWAY, reason);
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static AsciiString ascii(byte[] b, int from, int to) {
        return new AsciiString(b, from, to - from, false);
    }
}
