package dev.strait.proxy.handler.files;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.util.AbstractReferenceCounted;
import io.netty.util.IllegalReferenceCountException;
import io.netty.util.internal.PlatformDependent;
import java.io.IOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;

/**
 * A large file mapped into memory once, written from there by every response that sends it
 * (ADR 0034). The kernel copies from the page cache into the socket in the same call as the head:
 * no {@code read()} into a buffer, and on io_uring not the two {@code splice} calls a file region
 * costs. Clients also take these bytes faster than a {@code sendfile}'s.
 *
 * <p>Reference counted: the cache entry holds one reference and each response one more, given
 * back when its write completes or fails ({@code Exchange#sendMapped}), so the file is unmapped
 * when the last is released, never while a write may still read it. Where the runtime cannot
 * unmap on demand, the garbage collector does once nothing refers to the mapping.
 *
 * <p>Only the kernel reads these bytes: if the file is truncated while mapped, a socket write
 * fails, where a read from Java would fault.
 */
final class MappedFile extends AbstractReferenceCounted {
    /** Larger files keep the file region: mapping them would buy little and hold much address space. */
    static final long MAX_SIZE = 64L * 1024 * 1024;

    private final MappedByteBuffer mapping;
    /** The mapping as a (read-only) buffer; each response writes a retained slice of it. */
    private final ByteBuf bytes;

    private MappedFile(MappedByteBuffer mapping) {
        this.mapping = mapping;
        this.bytes = Unpooled.wrappedBuffer(mapping);
    }

    /**
     * Maps {@code size} bytes of the file open in {@code ch} read-only; the caller owns the one reference
     * and still closes {@code ch} (the mapping stays valid without it).
     */
    static MappedFile map(FileChannel ch, long size) throws IOException {
        if (size > MAX_SIZE) {
            throw new IllegalArgumentException(size + " bytes is over " + MAX_SIZE);
        }
        return new MappedFile(ch.map(FileChannel.MapMode.READ_ONLY, 0, size));
    }

    /**
     * {@code length} bytes from {@code offset} for one response, with this mapping retained for it
     * (the response releases it once written); {@code null} when the mapping was already released
     * (its entry left the cache meanwhile) and the caller must send otherwise.
     */
    ByteBuf retainedSliceOrNull(long offset, long length) {
        try {
            retain();
        } catch (IllegalReferenceCountException e) {
            return null; // released, perhaps unmapped: never touch it
        }
        return bytes.retainedSlice((int) offset, (int) length);
    }

    @Override
    protected void deallocate() {
        bytes.release();
        try {
            PlatformDependent.freeDirectBuffer(mapping); // unmaps now
        } catch (UnsupportedOperationException e) {
            // This runtime's cleaner frees only its own buffers: the collector unmaps this one.
        }
    }

    @Override
    public MappedFile touch(Object hint) {
        return this;
    }
}
