package dev.strait.proxy.compression;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Random;
import java.util.zip.Deflater;
import java.util.zip.GZIPInputStream;
import org.junit.jupiter.api.Test;

/** What {@link GzipStream} writes is a gzip member the JDK's reader takes back, byte for byte, CRC and length. */
class GzipStreamTest {
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    private static byte[] gunzip(byte[] b) throws IOException {
        try (GZIPInputStream in = new GZIPInputStream(new ByteArrayInputStream(b))) {
            return in.readAllBytes();
        }
    }

    private static byte[] bytes(ByteBuf b) {
        try {
            byte[] out = new byte[b.readableBytes()];
            b.getBytes(b.readerIndex(), out);
            return out;
        } finally {
            b.release();
        }
    }

    private static byte[] sample(int n, long seed) {
        Random r = new Random(seed);
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) ('a' + r.nextInt(6)); // compressible, never trivially
        }
        return b;
    }

    @Test
    void aWholeBodyAtEachLevelAndTheEmptyOne() throws IOException {
        byte[] body = sample(200_000, 1);
        for (int level = 1; level <= 9; level++) {
            ByteBuf in = ALLOC.directBuffer().writeBytes(body);
            byte[] zipped = bytes(GzipStream.compress(in, ALLOC, level));
            assertThat(in.readableBytes()).as("the input is left as it was").isEqualTo(body.length);
            in.release();
            assertThat(gunzip(zipped)).as("level " + level).isEqualTo(body);
        }
        assertThat(gunzip(bytes(GzipStream.compress(Unpooled.EMPTY_BUFFER, ALLOC, 1)))).isEmpty();
    }

    @Test
    void partsOfEveryShapeMakeOneStream() throws IOException {
        byte[] body = sample(300_000, 2);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        GzipStream gz = new GzipStream(6);
        int at = 0;
        int[] sizes = {0, 1, 17, 65_536, 1000, 100_000};
        for (int i = 0; at < body.length; i++) {
            int n = Math.min(body.length - at, sizes[i % sizes.length]);
            ByteBuf part;
            if (i % 3 == 0 && n > 1) {
                // A composite of heap and direct parts: zlib reads each where it lies.
                CompositeByteBuf c = ALLOC.compositeBuffer();
                c.addComponent(true, Unpooled.wrappedBuffer(body, at, n / 2));
                c.addComponent(true, ALLOC.directBuffer().writeBytes(body, at + n / 2, n - n / 2));
                part = c;
            } else {
                part = ALLOC.heapBuffer().writeBytes(body, at, n);
            }
            out.writeBytes(bytes(gz.encode(part, ALLOC, i % 2 == 0 ? Deflater.SYNC_FLUSH : Deflater.NO_FLUSH)));
            part.release();
            at += n;
        }
        out.writeBytes(bytes(gz.finish(ALLOC)));
        assertThat(gunzip(out.toByteArray())).isEqualTo(body);
    }

    @Test
    void aReusedDeflaterStartsClean() throws IOException {
        // One stream given up midway, then others on the same thread: each must be whole on its own.
        GzipStream abandoned = new GzipStream(9);
        bytes(abandoned.encode(Unpooled.wrappedBuffer(sample(50_000, 3)), ALLOC, Deflater.NO_FLUSH));
        abandoned.close();
        abandoned.close();
        for (int level : new int[] {1, 9, 3}) {
            byte[] body = sample(10_000, level);
            GzipStream gz = new GzipStream(level);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(bytes(gz.encode(Unpooled.wrappedBuffer(body), ALLOC, Deflater.SYNC_FLUSH)));
            out.writeBytes(bytes(gz.finish(ALLOC)));
            assertThat(gunzip(out.toByteArray())).isEqualTo(body);
        }
    }
}
