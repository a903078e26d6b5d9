package dev.strait.proxy.compression;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;

/**
 * One answer's body in one content coding, compressed part by part as the parts come. The coding's native state is
 * taken when the stream is made and given back by {@link #finish} or {@link #close}, whichever comes first. Used on
 * one event loop only.
 */
abstract class CodingStream {
    /**
     * Compresses {@code in} (not released) into {@code out}, growing it: with {@code flush} every byte of {@code in} is
     * in {@code out} afterwards, so a streamed answer's client gets each part as it comes (server-sent events, long
     * polls); without, the coding may keep some back for a better ratio.
     */
    abstract void write(ByteBuf in, ByteBuf out, boolean flush);

    /** Ends the stream into {@code out} and gives the native state back. */
    abstract void finish(ByteBuf out);

    /** Gives the native state back without finishing: the answer was given up. Idempotent. */
    abstract void close();

    /** {@code in} (not released) compressed into a new buffer, which may be empty. */
    final ByteBuf encode(ByteBuf in, ByteBufAllocator alloc, boolean flush) {
        ByteBuf out = alloc.directBuffer(Math.max(256, in.readableBytes() / 2 + 64));
        try {
            write(in, out, flush);
            return out;
        } catch (RuntimeException | Error e) {
            out.release();
            throw e;
        }
    }

    /** The rest of the compressed body and the coding's end of stream. */
    final ByteBuf finish(ByteBufAllocator alloc) {
        return ending(null, alloc.directBuffer(64));
    }

    /** A whole body ({@code body} not released) compressed at once, start to end of stream, by this new stream. */
    final ByteBuf compress(ByteBuf body, ByteBufAllocator alloc) {
        return ending(body, alloc.directBuffer(body.readableBytes() / 3 + 64));
    }

    /** {@code out} with {@code last} (if any) and the end of stream; on a failure {@code out} is freed and so is the state. */
    private ByteBuf ending(ByteBuf last, ByteBuf out) {
        try {
            if (last != null) {
                write(last, out, false);
            }
            finish(out);
            return out;
        } catch (RuntimeException | Error e) {
            out.release();
            close();
            throw e;
        }
    }

    /** Room for at least {@code min} more bytes in {@code out}, grown by half its size or 4 KiB at a time. */
    static void room(ByteBuf out, int min) {
        if (out.writableBytes() < min) {
            out.ensureWritable(Math.max(Math.max(4096, min), out.capacity() / 2));
        }
    }
}
