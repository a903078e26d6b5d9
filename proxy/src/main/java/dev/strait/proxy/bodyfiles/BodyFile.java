package dev.strait.proxy.bodyfiles;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * One request body's file: written as the body comes, read back once as it goes upstream, then closed (or kept
 * by its loop for a later body, {@link BodyFiles}). Used on one event loop only. Writes go to the page cache, as
 * nginx's temporary files do from its workers: a body reaches here only past what its rule holds in memory, so
 * only large uploads pay for it.
 */
public final class BodyFile {
    /** What one read back hands on: as much as a socket write usually takes. */
    static final int CHUNK = 64 * 1024;

    private final BodyFiles owner;
    private final FileChannel channel;
    /** What the file holds on disk (the most any of its bodies wrote), counted against the budget. */
    private long capacity;
    private long written;
    private long read;
    private boolean closed;
    /** When it was last kept for a later body ({@link BodyFiles#keep}). */
    long keptAt;
    /** A write or read failed: what the file holds is unknown, so it is never given to another body. */
    private boolean broken;

    BodyFile(BodyFiles owner, FileChannel channel) {
        this.owner = owner;
        this.channel = channel;
    }

    /** A kept file for a new body: overwritten from its start. */
    void reuse() {
        closed = false;
        written = 0;
        read = 0;
    }

    long capacity() {
        return capacity;
    }

    /**
     * Appends {@code data} and releases it: true once it is in the file, false (nothing written, {@code data}
     * kept) when the files' budget cannot take it or the write fails (logged); the caller streams from there.
     */
    public boolean append(ByteBuf data) {
        int n = data.readableBytes();
        long end = written + n;
        long grow = Math.max(end - capacity, 0);
        if (closed || broken || (grow > 0 && !owner.reserve(grow))) {
            return false;
        }
        try {
            long at = written;
            int index = data.readerIndex();
            while (index < data.writerIndex()) {
                ByteBuffer nio = data.nioBuffer(index, data.writerIndex() - index);
                int w = channel.write(nio, at);
                at += w;
                index += w;
            }
        } catch (IOException e) {
            owner.release(grow);
            broken = true;
            owner.refused("cannot write a request body file: " + e);
            return false;
        }
        written = end;
        capacity += grow;
        data.release();
        return true;
    }

    /** Bytes of this body in the file. */
    public long length() {
        return written;
    }

    /** The next part of the body, from {@code alloc}; null once all of it was read. */
    public ByteBuf read(ByteBufAllocator alloc) throws IOException {
        if (read >= written) {
            return null;
        }
        int n = (int) Math.min(CHUNK, written - read);
        ByteBuf buf = alloc.ioBuffer(n);
        try {
            while (buf.writerIndex() < n) {
                int r = buf.writeBytes(channel, read + buf.writerIndex(), n - buf.writerIndex());
                if (r < 0) {
                    throw new IOException("the request body file ended at " + (read + buf.writerIndex()) + " of "
                            + written + " bytes");
                }
            }
        } catch (IOException | RuntimeException e) {
            buf.release();
            broken = true;
            throw e;
        }
        read += n;
        return buf;
    }

    /**
     * The body is done with its file: kept open for this loop's next body when it is small, else closed (its space
     * freed and given back to the budget). Again: nothing.
     */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        if (!broken && owner.keep(this)) {
            return;
        }
        discard();
    }

    /** Closes the file for good, its space freed and given back to the budget. */
    void discard() {
        closed = true;
        owner.release(capacity);
        capacity = 0;
        try {
            channel.close();
        } catch (IOException e) {
            BodyFiles.log.debug("closing a request body file: {}", e.toString());
        }
    }
}
