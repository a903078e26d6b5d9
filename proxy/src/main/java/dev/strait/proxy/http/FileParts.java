package dev.strait.proxy.http;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.DefaultFileRegion;
import io.netty.channel.FileRegion;
import io.netty.handler.stream.ChunkedInput;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.ReferenceCounted;
import java.io.EOFException;
import java.io.IOException;
import java.nio.channels.FileChannel;

/**
 * A body made of ranges of one open file, each after a few bytes of its own, and a few bytes after the
 * last: a {@code multipart/byteranges} body (RFC 9110 14.6), whose part delimiters and header lines are
 * those bytes. A server sends it either as file regions with the bytes between them ({@link #region},
 * zero-copy) or read into buffers ({@link #chunks}, for TLS and HTTP/2).
 *
 * <p>Reference counted, since every region of the file shares its one channel: the channel is closed
 * when the last reference goes, and whoever {@code Exchange#sendFileParts} hands it to owns one.
 */
public final class FileParts extends AbstractReferenceCounted {
    private static final byte[] NONE = new byte[0];

    private final FileChannel file;
    private final byte[][] heads;
    private final long[] offsets;
    private final long[] lengths;
    private final byte[] tail;
    private final long length;

    /**
     * @param heads   the bytes before each range (its delimiter and header lines)
     * @param offsets where each range starts in the file
     * @param lengths each range's length, at least 1
     * @param tail    the bytes after the last range (the closing delimiter)
     */
    public FileParts(FileChannel file, byte[][] heads, long[] offsets, long[] lengths, byte[] tail) {
        this.file = file;
        this.heads = heads;
        this.offsets = offsets;
        this.lengths = lengths;
        this.tail = tail;
        long n = tail.length;
        for (int i = 0; i < heads.length; i++) {
            n += heads[i].length + lengths[i];
        }
        this.length = n;
    }

    /** One range of the file and nothing around it: the body of a 200, or of a 206 for one range. */
    public static FileParts range(FileChannel file, long offset, long length) {
        return new FileParts(file, new byte[][] {NONE}, new long[] {offset}, new long[] {length}, NONE);
    }

    /** The body's length in bytes: the Content-Length of the answer. */
    public long length() {
        return length;
    }

    public int count() {
        return heads.length;
    }

    public byte[] head(int i) {
        return heads[i];
    }

    public byte[] tail() {
        return tail;
    }

    /** Where the last range ends in the file. */
    public long end() {
        long end = 0;
        for (int i = 0; i < offsets.length; i++) {
            end = Math.max(end, offsets[i] + lengths[i]);
        }
        return end;
    }

    /**
     * Range {@code i} as a file region of the shared channel ({@code sendfile}, or {@code splice} on io_uring,
     * since the transports know a {@link DefaultFileRegion}). It holds a reference to this body, given back
     * when it is released, instead of closing the channel as a region of its own would.
     */
    public FileRegion region(int i) {
        retain();
        return new SharedRegion(file, offsets[i], lengths[i], this);
    }

    /**
     * The whole body read into buffers of at most {@code chunkSize} bytes, part heads with the file's bytes.
     * The input takes over one reference, given back when it is closed. A file found shorter than its ranges
     * fails the read ({@link EOFException}): the answer is cut off, never completed with other bytes.
     */
    public Chunks chunks(int chunkSize) {
        return new Chunks(chunkSize);
    }

    @Override
    protected void deallocate() {
        try {
            file.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    @Override
    public FileParts touch(Object hint) {
        return this;
    }

    /** A region whose channel belongs to the {@link FileParts}: released, it gives back its reference. */
    private static final class SharedRegion extends DefaultFileRegion {
        private final ReferenceCounted owner;

        SharedRegion(FileChannel file, long position, long count, ReferenceCounted owner) {
            super(file, position, count);
            this.owner = owner;
        }

        @Override
        protected void deallocate() {
            owner.release(); // not super's: that would close the channel the other regions send from
        }
    }

    /** The body read in chunks ({@link #chunks}): head 0, range 0, head 1, range 1, ..., the tail. */
    public final class Chunks implements ChunkedInput<ByteBuf> {
        private final int chunkSize;
        /** The segment being read: 2i is head i, 2i+1 range i, 2n the tail; 2n+1 is the end. */
        private int segment;
        /** Bytes of the segment already read. */
        private long done;
        private long progress;
        private boolean closed;

        Chunks(int chunkSize) {
            this.chunkSize = chunkSize;
            skipEmpty();
        }

        @Override
        public boolean isEndOfInput() {
            return segment > 2 * heads.length;
        }

        @Override
        public void close() {
            if (!closed) {
                closed = true;
                release();
            }
        }

        @Deprecated
        @Override
        public ByteBuf readChunk(ChannelHandlerContext ctx) throws Exception {
            return readChunk(ctx.alloc());
        }

        @Override
        public ByteBuf readChunk(ByteBufAllocator allocator) throws IOException {
            if (isEndOfInput()) {
                return null;
            }
            int n = (int) Math.min(chunkSize, length - progress);
            ByteBuf chunk = allocator.buffer(n);
            try {
                while (chunk.isWritable() && !isEndOfInput()) {
                    int part = segment >> 1;
                    long left = segmentLength() - done;
                    int k = (int) Math.min(chunk.writableBytes(), left);
                    if ((segment & 1) == 0) {
                        chunk.writeBytes(part < heads.length ? heads[part] : tail, (int) done, k);
                    } else if ((k = chunk.writeBytes(file, offsets[part] + done, k)) < 0) {
                        throw new EOFException("file shorter than announced");
                    }
                    done += k;
                    skipEmpty();
                }
                progress += chunk.readableBytes();
                return chunk;
            } catch (IOException | RuntimeException e) {
                chunk.release();
                throw e;
            }
        }

        private long segmentLength() {
            int part = segment >> 1;
            return (segment & 1) == 1 ? lengths[part] : part < heads.length ? heads[part].length : tail.length;
        }

        /** Moves past the segment once it is read, and past empty ones, so the end shows as soon as it is reached. */
        private void skipEmpty() {
            while (!isEndOfInput() && done == segmentLength()) {
                segment++;
                done = 0;
            }
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public long progress() {
            return progress;
        }
    }
}
