package dev.strait.proxy.bodyfiles;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;

/**
 * One request body's file: written as the body comes, read back once as it goes upstream, then closed. Used on one
 * event loop only. Writes go to the page cache, as nginx's temporary files do from its workers: a body reaches
 * here only past what its rule holds in memory, so only large uploads pay for it.
 */
public final class BodyFile {
    /** What one read back hands on: as much as a socket write usually takes. */
    static final int CHUNK = 64 * 1024;

    private final BodyFiles owner;
    private final FileChannel channel;
    private long written;
    private long read;
    private boolean closed;

    BodyFile(BodyFiles owner, FileChannel channel) {
        this.owner = owner;
        this.channel = channel;
    }

    /**
     * Appends {@code data} and releases it: true once it is in the file, false (nothing written, {@code data}
     * kept) when the files' budget cannot take it or the write fails (logged); the caller streams from there.
     */
    public boolean append(ByteBuf data) {
        int n = data.readableBytes();
        if (closed || !owner.reserve(n)) {
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
            owner.release(n);
            owner.refused("cannot write a request body file: " + e);
            return false;
        }
        written += n;
        data.release();
        return true;
    }

    /** Bytes in the file. */
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
            throw e;
        }
        read += n;
        return buf;
    }

    /** Closes the file (its space is freed) and gives its bytes back to the budget; again: nothing. */
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        owner.release(written);
        try {
            channel.close();
        } catch (IOException e) {
            BodyFiles.log.debug("closing a request body file: {}", e.toString());
        }
    }
}
