package dev.strait.proxy.compression;

import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import java.nio.ByteBuffer;
import java.util.zip.CRC32;
import java.util.zip.Deflater;

/**
 * One answer's body as a gzip member (RFC 1952): a fixed ten-byte header, zlib's raw deflate of the parts as
 * they come, and the CRC-32 and length of what went in. zlib reads the parts' memory and writes into the
 * output buffers directly (the JDK's {@code ByteBuffer} forms), so nothing is copied on the way.
 *
 * <p>A deflater holds ~260 KiB of native memory: each event loop keeps one idle deflater per level in use for
 * the next answer rather than asking zlib for fresh state per answer. Never one of another level with its level
 * changed: zlib's {@code deflateParams} then runs alone in the next call, which a flush or finish would have to
 * know about. Used on one event loop only.
 */
final class GzipStream extends CodingStream {
    /** Magic, deflate, no flags, no time, no extra flags, OS unknown. */
    private static final byte[] HEADER = {0x1f, (byte) 0x8b, 8, 0, 0, 0, 0, 0, 0, (byte) 0xff};
    /** This loop's idle deflater of each level (1 to 9), or null. */
    private static final FastThreadLocal<Deflater[]> IDLE = new FastThreadLocal<>() {
        @Override
        protected Deflater[] initialValue() {
            return new Deflater[Deflater.BEST_COMPRESSION + 1];
        }
    };

    private final CRC32 crc = new CRC32();
    private final int level;
    private Deflater deflater;
    private boolean headerWritten;
    private boolean finishing;
    private long inBytes;

    GzipStream(int level) {
        this.level = level;
        Deflater[] idle = IDLE.get();
        Deflater d = idle[level];
        idle[level] = null;
        this.deflater = d != null ? d : new Deflater(level, true);
    }

    @Override
    void close() {
        Deflater d = deflater;
        deflater = null;
        if (d == null) {
            return;
        }
        Deflater[] idle = IDLE.get();
        if (idle[level] == null) {
            d.reset();
            idle[level] = d;
        } else {
            d.end();
        }
    }

    @Override
    void write(ByteBuf in, ByteBuf out, boolean flush) {
        if (!headerWritten) {
            out.writeBytes(HEADER);
            headerWritten = true;
        }
        int n = in.readableBytes();
        if (n > 0) {
            for (ByteBuffer part : in.nioBuffers(in.readerIndex(), n)) {
                crc.update(part.duplicate());
                deflater.setInput(part);
                drain(out, Deflater.NO_FLUSH);
            }
            inBytes += n;
        }
        if (flush) {
            drain(out, Deflater.SYNC_FLUSH);
        }
    }

    @Override
    void finish(ByteBuf out) {
        if (!headerWritten) {
            out.writeBytes(HEADER);
            headerWritten = true;
        }
        deflater.finish();
        finishing = true;
        drain(out, Deflater.NO_FLUSH);
        out.writeIntLE((int) crc.getValue());
        out.writeIntLE((int) inBytes);
        close();
    }

    /**
     * Runs zlib until it has taken all its input (no flush), emptied itself (a flush) or ended the stream (after
     * {@code finish()}, whatever the flush), growing {@code out} as it fills.
     */
    private void drain(ByteBuf out, int flush) {
        while (true) {
            room(out, 64);
            int room = out.writableBytes();
            int wrote = deflater.deflate(out.nioBuffer(out.writerIndex(), room), flush);
            out.writerIndex(out.writerIndex() + wrote);
            if (deflater.finished()) {
                return;
            }
            if (wrote < room && !finishing && (flush != Deflater.NO_FLUSH || deflater.needsInput())) {
                return;
            }
        }
    }
}
