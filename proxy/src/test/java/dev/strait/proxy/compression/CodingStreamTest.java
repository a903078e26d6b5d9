package dev.strait.proxy.compression;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Random;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What each coding's stream writes is one stream its reference decoder takes back byte for byte (gzip's CRC and
 * length too), whole or in parts of every shape; a flushed part can be read in full before the next is written.
 */
class CodingStreamTest {
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;

    @BeforeAll
    static void librariesLoad() {
        for (Coding c : Coding.values()) {
            assertThat(c.available()).as(c.token + "'s library loads here").isTrue();
        }
    }

    private static byte[] decode(Coding coding, byte[] b) throws IOException {
        return Decoders.decode(coding, b);
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

    @ParameterizedTest
    @EnumSource(Coding.class)
    void aWholeBodyAtEachLevelAndTheEmptyOne(Coding coding) throws IOException {
        byte[] body = sample(200_000, 1);
        for (int level = 1; level <= 9; level++) {
            ByteBuf in = ALLOC.directBuffer().writeBytes(body);
            byte[] zipped = bytes(coding.open(level, body.length).compress(in, ALLOC));
            assertThat(in.readableBytes()).as("the input is left as it was").isEqualTo(body.length);
            in.release();
            assertThat(zipped.length).as("level " + level + " compresses").isLessThan(body.length / 2);
            assertThat(decode(coding, zipped)).as("level " + level).isEqualTo(body);
        }
        assertThat(decode(coding, bytes(coding.open(1, 0).compress(Unpooled.EMPTY_BUFFER, ALLOC)))).isEmpty();
        byte[] heap = sample(3000, 9); // a heap body of unknown length, as a fixed answer's array
        assertThat(decode(coding, bytes(coding.open(4, -1).compress(Unpooled.wrappedBuffer(heap), ALLOC)))).isEqualTo(heap);
    }

    @ParameterizedTest
    @EnumSource(Coding.class)
    void partsOfEveryShapeMakeOneStreamAndAFlushedPartIsReadableAtOnce(Coding coding) throws IOException {
        byte[] body = sample(300_000, 2);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        CodingStream stream = coding.open(6, -1);
        int at = 0;
        int[] sizes = {0, 1, 17, 65_536, 1000, 100_000};
        for (int i = 0; at < body.length; i++) {
            int n = Math.min(body.length - at, sizes[i % sizes.length]);
            ByteBuf part;
            if (i % 3 == 0 && n > 1) {
                // A composite of heap and direct parts: each is read where it lies.
                CompositeByteBuf c = ALLOC.compositeBuffer();
                c.addComponent(true, Unpooled.wrappedBuffer(body, at, n / 2));
                c.addComponent(true, ALLOC.directBuffer().writeBytes(body, at + n / 2, n - n / 2));
                part = c;
            } else if (i % 3 == 1) {
                part = Unpooled.wrappedBuffer(body, at, n).asReadOnly();
            } else {
                part = ALLOC.heapBuffer().writeBytes(body, at, n);
            }
            boolean flush = i % 2 == 0;
            out.writeBytes(bytes(stream.encode(part, ALLOC, flush)));
            part.release();
            at += n;
            if (flush) {
                assertThat(Decoders.decodePrefix(coding, out.toByteArray())).as("all of a flushed part is out, after part " + i)
                        .hasSize(at);
            }
        }
        out.writeBytes(bytes(stream.finish(ALLOC)));
        assertThat(decode(coding, out.toByteArray())).isEqualTo(body);
    }

    @ParameterizedTest
    @EnumSource(Coding.class)
    void aStreamGivenUpLeavesTheNextOnesClean(Coding coding) throws IOException {
        // One stream given up midway, then others on the same thread: each must be whole on its own.
        CodingStream abandoned = coding.open(9, -1);
        bytes(abandoned.encode(Unpooled.wrappedBuffer(sample(50_000, 3)), ALLOC, false));
        abandoned.close();
        abandoned.close();
        for (int level : new int[] {1, 9, 3, 9}) {
            byte[] body = sample(10_000, level);
            CodingStream s = coding.open(level, level == 3 ? body.length : -1);
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            out.writeBytes(bytes(s.encode(Unpooled.wrappedBuffer(body), ALLOC, true)));
            out.writeBytes(bytes(s.finish(ALLOC)));
            assertThat(decode(coding, out.toByteArray())).as("level " + level).isEqualTo(body);
        }
    }
}
