package dev.strait.proxy.http1;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.http.DefaultLastHttpContent;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.FastThreadLocal;

/**
 * Chunked-body framing (RFC 9112 7.1) shared by both directions: the request decoder reads a client's
 * chunked body, {@code upstream.UpstreamResponseDecoder} an upstream's. Strict in the same way on both
 * sides: CRLF only, hex sizes without overflow, extensions free of control characters, data exactly as
 * long as its size. Also the per-loop scratch array that heads are copied into to be parsed in one pass.
 */
public final class Http1Framing {
    /** A chunk-size line with extensions longer than this is refused (nginx and Envoy are stricter). */
    public static final int MAX_CHUNK_LINE = 4096;
    private static final FastThreadLocal<byte[]> SCRATCH = new FastThreadLocal<>() {
        @Override
        protected byte[] initialValue() {
            return new byte[4096];
        }
    };

    private Http1Framing() {}

    /**
     * Reads one chunk-size line ({@code chunk-size [ chunk-ext ] CRLF}) at the reader index.
     *
     * @return the size (0 for the last chunk), the line consumed; or -1 when the line is not complete yet
     */
    public static long chunkSize(ByteBuf in) throws Http1Violation {
        int start = in.readerIndex();
        int readable = in.readableBytes();
        int lf = in.indexOf(start, start + Math.min(readable, MAX_CHUNK_LINE), (byte) '\n');
        if (lf < 0) {
            if (readable >= MAX_CHUNK_LINE) {
                throw Http1Violation.bad("chunk size line too long");
            }
            return -1;
        }
        if (lf == start || in.getByte(lf - 1) != '\r') {
            throw Http1Violation.bad("bare LF in a chunk size line");
        }
        long size = 0;
        int i = start;
        int digits = 0;
        for (; i < lf - 1; i++) {
            int d = Character.digit(in.getByte(i), 16);
            if (d < 0) {
                break;
            }
            if (size == 0 && d == 0 && digits > 0) {
                continue; // leading zeros
            }
            if (++digits > 15) {
                throw Http1Violation.bad("chunk size too large");
            }
            size = size * 16 + d;
        }
        if (i == start) {
            throw Http1Violation.bad("malformed chunk size");
        }
        // chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS value ] ): checked only for what could split a line.
        if (i < lf - 1) {
            int j = i;
            while (j < lf - 1 && (in.getByte(j) == ' ' || in.getByte(j) == '\t')) {
                j++;
            }
            if (j == lf - 1 || in.getByte(j) != ';') {
                throw Http1Violation.bad("malformed chunk size");
            }
            for (; j < lf - 1; j++) {
                int c = in.getByte(j) & 0xff;
                if (c < 0x20 && c != '\t' || c == 0x7f) {
                    throw Http1Violation.bad("control character in a chunk extension");
                }
            }
        }
        in.skipBytes(lf + 1 - start);
        return size;
    }

    /**
     * Reads the CRLF that ends a chunk's data.
     *
     * @return true when it was read; false when it has not fully arrived yet
     */
    public static boolean chunkEnd(ByteBuf in) throws Http1Violation {
        if (in.readableBytes() < 2) {
            if (in.isReadable() && in.getByte(in.readerIndex()) != '\r') {
                throw Http1Violation.bad("chunk data longer than its size");
            }
            return false;
        }
        if (in.readByte() != '\r' || in.readByte() != '\n') {
            throw Http1Violation.bad("chunk data longer than its size");
        }
        return true;
    }

    /** The last content of a body that could not be read: its decoder result carries why. */
    public static LastHttpContent failedLast(Throwable cause) {
        LastHttpContent bad = new DefaultLastHttpContent(Unpooled.EMPTY_BUFFER);
        bad.setDecoderResult(DecoderResult.failure(cause));
        return bad;
    }

    /** This loop's scratch array, at least {@code size} bytes long; valid until the next call on this loop. */
    public static byte[] scratch(int size) {
        byte[] b = SCRATCH.get();
        if (b.length < size) {
            b = new byte[Math.max(size, b.length * 2)];
            SCRATCH.set(b);
        }
        return b;
    }
}
