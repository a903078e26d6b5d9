package dev.strait.proxy.http1;

import dev.strait.model.Limits;
import dev.strait.proxy.http.DateHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import java.util.List;

/**
 * Bytes to request heads ({@link HttpRequest}) and body parts ({@link io.netty.handler.codec.http.HttpContent},
 * the last one a {@link LastHttpContent}), as Netty's codec would emit them, but with our own strict
 * parsing ({@link HeadParser}): a proxy must refuse what a server behind it could read differently, and
 * Netty's decoder accepts obs-fold, loose request lines and unknown transfer codings. It is also cheaper:
 * the head is parsed in one pass over a copy in a per-loop scratch array, common names are shared.
 *
 * <p>A violation is emitted as a request (or last content) whose decoder result is a failure carrying an
 * {@link Http1Violation}; everything after it is discarded, as the server closes the connection.
 *
 * <p>When the client goes away inside a body nothing more is emitted: the server handler's
 * {@code channelInactive} aborts the body's receiver.
 *
 * <p>It also tells whether bytes of a next request head have arrived, so the connection timer can tell
 * a slow head (408) from an idle keep-alive connection (closed quietly).
 */
public final class Http1RequestDecoder extends ByteToMessageDecoder {
    private static final int MAX_PART = 64 * 1024;
    /** Empty lines tolerated before a request line (RFC 9112 2.2: after a body, some clients add CRLF). */
    private static final int MAX_LEADING_EMPTY_LINES = 8;

    /** {@code HELD}: after a request asking to upgrade, until it is answered (see {@link #holding()}). */
    private enum State { HEAD, FIXED, CHUNK_SIZE, CHUNK_DATA, CHUNK_END, TRAILERS, HELD, BAD }

    private final int maxRequestLine;
    private final int maxHeaderBytes;
    private final int maxFields;
    private final Limits.UnderscoreHeaders underscores;
    private State state = State.HEAD;
    private long remaining;
    /** How far the search for the end of the head (or trailers) got, relative to the reader index, so it is not redone. */
    private int scanned;
    /** Bytes the trailer search has looked at, over the decoder's life: tests prove it linear. */
    long trailerBytesScanned;
    private int firstLineEnd = -1;
    private int emptyLines;
    private boolean headStarted;
    /** {@link DateHeader#nanos()} when the partial head's first bytes came: up to a second before they did. */
    private long headStartedAt;

    public Http1RequestDecoder(Limits limits) {
        this.maxRequestLine = limits.maxRequestLine();
        this.maxHeaderBytes = limits.maxHeaderBytes();
        this.maxFields = limits.maxHeaderCount();
        this.underscores = limits.underscoreHeaders();
    }

    /** True when bytes arrived after the last complete request (and its body) was read. */
    boolean hasPartialHead() {
        return headStarted;
    }

    /** When the partial head began, as {@link DateHeader#nanos()}: at most a second early. */
    long headStartedAt() {
        return headStartedAt;
    }

    /**
     * The handler calls this when a request has been read and answered. Bytes already here past it (sent
     * in the same packet) are the next head's start: its header timeout runs from now, not the keep-alive one.
     * Bytes held after an upgrade request are decoded now: the answer was not a switch, so they are HTTP.
     */
    void requestFinished(ChannelHandlerContext handlerCtx) {
        headStarted = false;
        boolean held = state == State.HELD;
        if (held) {
            state = State.HEAD;
        }
        if (state == State.HEAD && actualReadableBytes() > 0) {
            startHead();
            if (held) {
                // Not from here: this may run inside this decoder's own read, which goes on decoding anyway.
                ChannelHandlerContext own = handlerCtx.pipeline().context(this);
                handlerCtx.executor().execute(() -> decodeHeld(own));
            }
        }
    }

    private void decodeHeld(ChannelHandlerContext own) {
        if (own == null || own.isRemoved() || !own.channel().isActive()) {
            return;
        }
        try {
            channelRead(own, Unpooled.EMPTY_BUFFER);
            channelReadComplete(own);
        } catch (Exception e) {
            own.fireExceptionCaught(e);
        }
    }

    /**
     * After a request head that asks for a protocol switch ({@code Upgrade}, no body), the bytes that follow
     * are held as they came, not decoded, until the request is answered (RFC 9110 7.8): after a 101 they are
     * the new protocol's and go to the tunnel as they are (the decoder is removed); after any other answer
     * they are decoded as the next request. Decoding them at once as a pipelined request would lose them
     * to the tunnel. While this is true the handler does not read, so what is held is what came with the head.
     */
    boolean holding() {
        return state == State.HELD;
    }

    /**
     * Before the decoder leaves for HTTP/2 (h2c Upgrade): what it holds is handed on as it is, and Netty's
     * preface check misreads a buffer whose reader index is not 0 (bytes other than the preface then
     * end in an INTERNAL_ERROR with an index message, where they are a PROTOCOL_ERROR).
     */
    void startHeldBytesAtIndexZero() {
        ByteBuf held = internalBuffer();
        if (held.isReadable() && held.readerIndex() > 0) {
            held.discardReadBytes();
        }
    }

    private void startHead() {
        headStarted = true;
        headStartedAt = DateHeader.nanos();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        if (!headStarted && msg instanceof ByteBuf b && b.isReadable() && state == State.HEAD) {
            startHead();
        }
        super.channelRead(ctx, msg);
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        try {
            switch (state) {
                case HEAD -> head(in, out);
                case FIXED -> fixed(in, out);
                case CHUNK_SIZE -> chunkSize(in);
                case CHUNK_DATA -> chunkData(in, out);
                case CHUNK_END -> chunkEnd(in);
                case TRAILERS -> trailers(in, out);
                case HELD -> { }
                case BAD -> in.skipBytes(in.readableBytes());
            }
        } catch (Http1Violation v) {
            fail(v, in, out);
        }
    }

    // ---- the head

    private void head(ByteBuf in, List<Object> out) throws Http1Violation {
        int start = in.readerIndex();
        int readable = in.readableBytes();
        if (scanned == 0) {
            while (readable >= 2 && in.getByte(start) == '\r' && in.getByte(start + 1) == '\n') {
                if (++emptyLines > MAX_LEADING_EMPTY_LINES) {
                    throw Http1Violation.bad("too many empty lines before the request line");
                }
                in.skipBytes(2);
                start += 2;
                readable -= 2;
            }
            if (readable == 0 || readable == 1 && in.getByte(start) == '\r') {
                return;
            }
        }
        // Find the blank line ending the head; every LF must follow a CR.
        int end = -1;
        int from = scanned;
        while (from < readable) {
            int lf = in.indexOf(start + from, start + readable, (byte) '\n');
            if (lf < 0) {
                break;
            }
            int at = lf - start;
            if (at == 0 || in.getByte(lf - 1) != '\r') {
                throw Http1Violation.bad("bare LF");
            }
            if (firstLineEnd < 0) {
                firstLineEnd = at;
                if (at - 1 > maxRequestLine) {
                    throw new Http1Violation(HttpResponseStatus.REQUEST_URI_TOO_LONG, "request line too long");
                }
            } else if (at >= 3 && in.getByte(lf - 2) == '\n') {
                end = at + 1;
                break;
            }
            from = at + 1;
        }
        if (end < 0) {
            scanned = Math.max(0, Math.min(from, readable - 1));
            if (firstLineEnd < 0 && readable > maxRequestLine + 2) {
                throw new Http1Violation(HttpResponseStatus.REQUEST_URI_TOO_LONG, "request line too long");
            }
            if (firstLineEnd >= 0 && readable - firstLineEnd > maxHeaderBytes + 2) {
                throw new Http1Violation(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "header block too large");
            }
            return;
        }
        if (end - firstLineEnd > maxHeaderBytes + 2) {
            throw new Http1Violation(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "header block too large");
        }
        byte[] b = Http1Framing.scratch(end);
        in.getBytes(start, b, 0, end);
        scanned = 0;
        firstLineEnd = -1;
        emptyLines = 0;
        HeadParser.Head head = HeadParser.parse(b, end, maxFields, underscores);
        in.skipBytes(end); // after the parse: a refused head is still there for the access log (fail)
        out.add(head.request());
        headStarted = false;
        if (in.isReadable()) {
            startHead();
        }
        if (head.chunked()) {
            state = State.CHUNK_SIZE;
        } else if (head.contentLength() > 0) {
            remaining = head.contentLength();
            state = State.FIXED;
        } else {
            out.add(LastHttpContent.EMPTY_LAST_CONTENT);
            if (head.request().headers().contains(HttpHeaderNames.UPGRADE)) {
                state = State.HELD;
            }
        }
    }

    // ---- bodies

    private void fixed(ByteBuf in, List<Object> out) {
        int n = (int) Math.min(Math.min(in.readableBytes(), remaining), MAX_PART);
        if (n == 0) {
            return;
        }
        ByteBuf part = in.readRetainedSlice(n);
        remaining -= n;
        if (remaining == 0) {
            out.add(new DefaultLastHttpContent(part));
            state = State.HEAD;
        } else {
            out.add(new DefaultHttpContent(part));
        }
    }

    private void chunkSize(ByteBuf in) throws Http1Violation {
        long size = Http1Framing.chunkSize(in);
        if (size == 0) {
            state = State.TRAILERS;
        } else if (size > 0) {
            remaining = size;
            state = State.CHUNK_DATA;
        }
    }

    private void chunkData(ByteBuf in, List<Object> out) {
        int n = (int) Math.min(Math.min(in.readableBytes(), remaining), MAX_PART);
        if (n == 0) {
            return;
        }
        out.add(new DefaultHttpContent(in.readRetainedSlice(n)));
        remaining -= n;
        if (remaining == 0) {
            state = State.CHUNK_END;
        }
    }

    private void chunkEnd(ByteBuf in) throws Http1Violation {
        if (Http1Framing.chunkEnd(in)) {
            state = State.CHUNK_SIZE;
        }
    }

    private void trailers(ByteBuf in, List<Object> out) throws Http1Violation {
        int start = in.readerIndex();
        int readable = in.readableBytes();
        if (readable < 2) {
            return;
        }
        if (in.getByte(start) == '\r' && in.getByte(start + 1) == '\n') {
            in.skipBytes(2);
            out.add(LastHttpContent.EMPTY_LAST_CONTENT);
            state = State.HEAD;
            return;
        }
        // Resume where the last read's search stopped: trailers sent a byte per packet must not be
        // scanned from their start on every read (quadratic in the 32 KiB allowed).
        int end = -1;
        int from = scanned;
        while (from < readable) {
            int lf = in.indexOf(start + from, start + readable, (byte) '\n');
            if (lf < 0) {
                trailerBytesScanned += readable - from;
                from = readable;
                break;
            }
            trailerBytesScanned += lf - start + 1 - from;
            if (lf == start || in.getByte(lf - 1) != '\r') {
                throw Http1Violation.bad("bare LF in trailers");
            }
            if (lf - start >= 3 && in.getByte(lf - 2) == '\n') {
                end = lf - start + 1;
                break;
            }
            from = lf - start + 1;
        }
        if (end < 0) {
            scanned = from;
            if (readable > maxHeaderBytes) {
                throw new Http1Violation(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "trailers too large");
            }
            return;
        }
        // The same limit when the end came in the read that crossed it (the blank line not counted).
        if (end > maxHeaderBytes + 2) {
            throw new Http1Violation(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "trailers too large");
        }
        scanned = 0;
        byte[] b = Http1Framing.scratch(end);
        in.getBytes(start, b, 0, end);
        in.skipBytes(end);
        HttpHeaders trailers = DefaultHttpHeadersFactory.trailersFactory().withValidation(false).newHeaders();
        HeadParser.parseTrailers(b, 0, end, maxFields, trailers);
        out.add(new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER, trailers));
        state = State.HEAD;
    }

    // ---- failure

    private void fail(Http1Violation v, ByteBuf in, List<Object> out) {
        if (state == State.HEAD) {
            Unread bad = Unread.of(in);
            bad.setDecoderResult(DecoderResult.failure(v));
            out.add(bad);
        } else {
            out.add(Http1Framing.failedLast(v));
        }
        in.skipBytes(in.readableBytes());
        state = State.BAD;
    }

    /** The head begun and not finished (a 408): what came of its request line. */
    Unread unfinishedHead() {
        return Unread.of(internalBuffer());
    }

    /**
     * A head that never became a request (refused, or unfinished): a placeholder for the server (whose
     * {@code GET /bad-request} is nothing the client sent), with the first bytes of the request line as
     * they came, which the access log shows instead.
     */
    static final class Unread extends DefaultHttpRequest {
        /** Enough for a method, a target cut at 1 KiB and a version. */
        private static final int KEPT = 1100;
        /** Up to {@link #KEPT} bytes of the request line, without leading empty lines and CRLF. */
        final byte[] line;
        /** Whether the line ended (CRLF) within what is kept. */
        final boolean ended;

        private Unread(byte[] line, boolean ended) {
            super(HttpVersion.HTTP_1_1, HttpMethod.GET, "/bad-request");
            this.line = line;
            this.ended = ended;
        }

        static Unread of(ByteBuf in) {
            int i = in.readerIndex();
            int end = in.writerIndex();
            while (end - i >= 2 && in.getByte(i) == '\r' && in.getByte(i + 1) == '\n') {
                i += 2;
            }
            int max = Math.min(end, i + KEPT);
            int lf = in.indexOf(i, max, (byte) '\n');
            int to = lf < 0 ? max : lf > i && in.getByte(lf - 1) == '\r' ? lf - 1 : lf;
            byte[] line = new byte[to - i];
            in.getBytes(i, line);
            return new Unread(line, lf >= 0);
        }
    }

}
