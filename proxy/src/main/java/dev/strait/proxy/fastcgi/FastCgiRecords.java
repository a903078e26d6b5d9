package dev.strait.proxy.fastcgi;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.ByteBufUtil;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;

/**
 * FastCGI 1.0 records (https://fastcgi-archives.github.io/FastCGI_Specification.html): the constants,
 * the encoders the client needs, and the two messages {@link FastCgiRecordDecoder} emits.
 *
 * <pre>
 *   record = version(1) type(1) requestId(2) contentLength(2) paddingLength(1) reserved(1)
 *            content(contentLength) padding(paddingLength)
 * </pre>
 */
final class FastCgiRecords {
    static final int VERSION = 1;
    static final int HEADER_LENGTH = 8;
    static final int MAX_CONTENT = 0xFFFF;

    // Record types (spec 8)
    static final int BEGIN_REQUEST = 1;
    static final int ABORT_REQUEST = 2;
    static final int END_REQUEST = 3;
    static final int PARAMS = 4;
    static final int STDIN = 5;
    static final int STDOUT = 6;
    static final int STDERR = 7;
    static final int DATA = 8;
    static final int GET_VALUES = 9;
    static final int GET_VALUES_RESULT = 10;
    static final int UNKNOWN_TYPE = 11;

    static final int ROLE_RESPONDER = 1;
    /** BEGIN_REQUEST flag: the application keeps the connection open after the request (spec 5.1). */
    static final int FLAG_KEEP_CONN = 1;

    // END_REQUEST protocol status (spec 5.5)
    static final int REQUEST_COMPLETE = 0;
    static final int CANT_MPX_CONN = 1;
    static final int OVERLOADED = 2;
    static final int UNKNOWN_ROLE = 3;

    /**
     * One request per connection at a time (no multiplexing: php-fpm does not do it), so every request
     * uses id 1; id 0 is reserved for management records.
     */
    static final int REQUEST_ID = 1;

    private FastCgiRecords() {}

    static void header(ByteBuf out, int type, int requestId, int contentLength, int paddingLength) {
        out.writeByte(VERSION);
        out.writeByte(type);
        out.writeShort(requestId);
        out.writeShort(contentLength);
        out.writeByte(paddingLength);
        out.writeByte(0);
    }

    /** BEGIN_REQUEST for the responder role, keeping the connection when {@code keepConn}. */
    static void beginRequest(ByteBuf out, int requestId, boolean keepConn) {
        header(out, BEGIN_REQUEST, requestId, 8, 0);
        out.writeShort(ROLE_RESPONDER);
        out.writeByte(keepConn ? FLAG_KEEP_CONN : 0);
        out.writeZero(5);
    }

    /** An empty record: the end of a stream (PARAMS, STDIN). */
    static void endOfStream(ByteBuf out, int type, int requestId) {
        header(out, type, requestId, 0, 0);
    }

    /**
     * Writes {@code data} as STDIN records of at most {@link #MAX_CONTENT} bytes, taking ownership of it.
     * Small parts are copied behind their header (one buffer, one write); large ones go out as slices.
     * No padding: it is optional (spec 3.3), and leaving it out saves a write per record.
     */
    static void writeStdin(ByteBufAllocator alloc, ByteBuf data, int requestId, Sink sink) {
        int n = data.readableBytes();
        if (n == 0) {
            data.release(); // an empty STDIN record would end the body
            return;
        }
        if (n <= 4096) {
            ByteBuf out = alloc.ioBuffer(HEADER_LENGTH + n);
            header(out, STDIN, requestId, n, 0);
            out.writeBytes(data);
            data.release();
            sink.write(out);
            return;
        }
        try {
            while (data.isReadable()) {
                int len = Math.min(MAX_CONTENT, data.readableBytes());
                ByteBuf h = alloc.ioBuffer(HEADER_LENGTH);
                header(h, STDIN, requestId, len, 0);
                sink.write(h);
                sink.write(data.readRetainedSlice(len));
            }
        } finally {
            data.release();
        }
    }

    /** Where encoded buffers go (a channel's write, or a list in tests). */
    @FunctionalInterface
    interface Sink {
        void write(ByteBuf buf);
    }

    /**
     * Writes name-value pairs (spec 3.4) as PARAMS records, then the empty record that ends the stream.
     * A pair never spans two records: php-fpm parses each record's pairs on their own. Lengths below 128
     * take one byte, longer ones four with the high bit set. Content is padded to a multiple of 8 as the
     * spec recommends. Names and values are written one byte per char (ISO-8859-1): request bytes as they
     * came, with decoded paths kept as bytes the same way.
     */
    static final class ParamsWriter {
        private final ByteBuf out;
        private final int requestId;
        private int recordStart;

        ParamsWriter(ByteBuf out, int requestId) {
            this.out = out;
            this.requestId = requestId;
            openRecord();
        }

        /** Returns false (and writes nothing) for a pair too long for one record. */
        boolean add(CharSequence name, CharSequence value) {
            int nl = name.length();
            int vl = value.length();
            int size = (nl < 128 ? 1 : 4) + (vl < 128 ? 1 : 4) + nl + vl;
            if (size > MAX_CONTENT - 7) {
                return false;
            }
            if (contentLength() + size > MAX_CONTENT - 7) {
                closeRecord();
                openRecord();
            }
            length(nl);
            length(vl);
            ByteBufUtil.writeAscii(out, name);
            ByteBufUtil.writeAscii(out, value);
            return true;
        }

        /** Closes the last record and writes the empty one that ends the PARAMS stream. */
        void finish() {
            if (contentLength() > 0) {
                closeRecord();
                openRecord();
            }
            // The open record has no content: it is the terminator as it stands.
        }

        private void length(int len) {
            if (len < 128) {
                out.writeByte(len);
            } else {
                out.writeInt(len | 0x80000000);
            }
        }

        private int contentLength() {
            return out.writerIndex() - recordStart - HEADER_LENGTH;
        }

        private void openRecord() {
            recordStart = out.writerIndex();
            header(out, PARAMS, requestId, 0, 0);
        }

        private void closeRecord() {
            int len = contentLength();
            int padding = -len & 7;
            out.writeZero(padding);
            out.setShort(recordStart + 4, len);
            out.setByte(recordStart + 6, padding);
        }
    }

    /** Part of a STDOUT or STDERR stream (or of another stream type the client ignores). */
    static final class StreamRecord extends AbstractReferenceCounted {
        final int type;
        final int requestId;
        final ByteBuf data;

        StreamRecord(int type, int requestId, ByteBuf data) {
            this.type = type;
            this.requestId = requestId;
            this.data = data;
        }

        @Override
        protected void deallocate() {
            data.release();
        }

        @Override
        public ReferenceCounted touch(Object hint) {
            data.touch(hint);
            return this;
        }

        @Override
        public String toString() {
            return "StreamRecord(type=" + type + ", id=" + requestId + ", " + data.readableBytes() + " bytes)";
        }
    }

    /** END_REQUEST: the application's exit status and the protocol status. */
    record EndRequest(int requestId, long appStatus, int protocolStatus) {}
}
