package dev.strait.proxy.compression;

import com.github.luben.zstd.EndDirective;
import com.github.luben.zstd.ZstdCompressCtx;
import io.netty.buffer.ByteBuf;
import io.netty.util.concurrent.FastThreadLocal;
import java.nio.ByteBuffer;

/**
 * One answer's body as a zstd frame (RFC 8878), through the reference library's streaming API (zstd-jni), which
 * reads the parts' memory and writes into the output buffer in place.
 *
 * <p>Windows are held to {@link #WINDOW_LOG} (512 KiB, zstd's own at level 1; RFC 8878 asks HTTP decoders for up to
 * 8 MiB), so one compressing answer holds about a MiB of native memory whatever the level. As with gzip each event
 * loop keeps one idle context per level for the next answer. Used on one event loop only.
 */
final class ZstdStream extends CodingStream {
    static final int WINDOW_LOG = 19;
    /** Worst-case growth of one flush: a block header per 128 KiB block and the frame's end. */
    private static final int FLUSH_ROOM = 64;
    private static final FastThreadLocal<ZstdCompressCtx[]> IDLE = new FastThreadLocal<>() {
        @Override
        protected ZstdCompressCtx[] initialValue() {
            return new ZstdCompressCtx[10];
        }
    };

    private final int level;
    private ZstdCompressCtx ctx;

    /** @param length the body's length where it is known (then written in the frame's header), else -1 */
    ZstdStream(int level, long length) {
        this.level = level;
        ZstdCompressCtx[] idle = IDLE.get();
        ZstdCompressCtx c = idle[level];
        idle[level] = null;
        if (c == null) {
            c = new ZstdCompressCtx();
        } else {
            c.reset(); // the session and parameters of the last frame, finished or given up
        }
        c.setLevel(level).setWindowLog(WINDOW_LOG).setChecksum(false);
        if (length >= 0) {
            c.setPledgedSrcSize(length);
        }
        this.ctx = c;
    }

    @Override
    void write(ByteBuf in, ByteBuf out, boolean flush) {
        int n = in.readableBytes();
        if (n > 0) {
            for (ByteBuffer part : in.nioBuffers(in.readerIndex(), n)) {
                run(readable(part), out, EndDirective.CONTINUE);
            }
        }
        if (flush) {
            run(ByteBuffer.allocate(0), out, EndDirective.FLUSH);
        }
    }

    @Override
    void finish(ByteBuf out) {
        run(ByteBuffer.allocate(0), out, EndDirective.END);
        close();
    }

    /** zstd takes direct or array-backed memory: a read-only heap part is copied. */
    private static ByteBuffer readable(ByteBuffer part) {
        if (part.isDirect() || part.hasArray()) {
            return part;
        }
        ByteBuffer copy = ByteBuffer.allocate(part.remaining()).put(part.duplicate());
        return copy.flip();
    }

    /** Runs zstd on {@code src} until it has taken all of it and, for a flush or end, written everything out. */
    private void run(ByteBuffer src, ByteBuf out, EndDirective directive) {
        while (true) {
            room(out, Math.max(FLUSH_ROOM, Math.min(src.remaining() / 2, 128 * 1024)));
            int at = out.writerIndex();
            ByteBuffer dst = out.nioBuffer(at, out.writableBytes());
            boolean done = ctx.compressByteBufferStream(dst, src, directive);
            out.writerIndex(at + dst.position());
            if (directive == EndDirective.CONTINUE ? !src.hasRemaining() : done) {
                return;
            }
        }
    }

    @Override
    void close() {
        ZstdCompressCtx c = ctx;
        ctx = null;
        if (c == null) {
            return;
        }
        ZstdCompressCtx[] idle = IDLE.get();
        if (idle[level] == null) {
            idle[level] = c;
        } else {
            c.close();
        }
    }
}
