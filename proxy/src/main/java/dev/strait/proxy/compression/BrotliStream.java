package dev.strait.proxy.compression;

import com.aayushatharva.brotli4j.encoder.Encoder;
import com.aayushatharva.brotli4j.encoder.EncoderJNI;
import io.netty.buffer.ByteBuf;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;

/**
 * One answer's body as a brotli stream (RFC 7932), through Google's encoder (brotli4j): the parts are copied into the
 * encoder's input buffer and its output copied out. A brotli encoder cannot be reset, so each answer makes its own
 * and frees it at the end; windows are held to {@link #WINDOW_BITS} (512 KiB) as zstd's are.
 */
final class BrotliStream extends CodingStream {
    static final int WINDOW_BITS = 19;
    private static final int INPUT = 64 * 1024;

    private EncoderJNI.Wrapper encoder;

    BrotliStream(int quality) {
        try {
            encoder = new EncoderJNI.Wrapper(INPUT, quality, WINDOW_BITS, Encoder.Mode.GENERIC);
        } catch (IOException e) {
            throw new UncheckedIOException("brotli's encoder did not start", e);
        }
    }

    @Override
    void write(ByteBuf in, ByteBuf out, boolean flush) {
        int n = in.readableBytes();
        if (n > 0) {
            for (ByteBuffer part : in.nioBuffers(in.readerIndex(), n)) {
                ByteBuffer src = part.duplicate();
                while (src.hasRemaining()) {
                    ByteBuffer input = encoder.getInputBuffer();
                    input.clear();
                    int take = Math.min(input.remaining(), src.remaining());
                    int limit = src.limit();
                    src.limit(src.position() + take);
                    input.put(src);
                    src.limit(limit);
                    encoder.push(EncoderJNI.Operation.PROCESS, take);
                    drain(out, EncoderJNI.Operation.PROCESS);
                }
            }
        }
        if (flush) {
            encoder.push(EncoderJNI.Operation.FLUSH, 0);
            drain(out, EncoderJNI.Operation.FLUSH);
        }
    }

    @Override
    void finish(ByteBuf out) {
        encoder.push(EncoderJNI.Operation.FINISH, 0);
        drain(out, EncoderJNI.Operation.FINISH);
        close();
    }

    /** Pulls what the encoder has until it has taken its input (and, for a flush or finish, written all out). */
    private void drain(ByteBuf out, EncoderJNI.Operation op) {
        while (true) {
            if (!encoder.isSuccess()) {
                throw new IllegalStateException("brotli's encoder failed");
            }
            if (encoder.hasMoreOutput()) {
                ByteBuffer pulled = encoder.pull();
                room(out, pulled.remaining());
                out.writeBytes(pulled);
            } else if (encoder.hasRemainingInput() || op == EncoderJNI.Operation.FINISH && !encoder.isFinished()) {
                encoder.push(op, 0);
            } else {
                return;
            }
        }
    }

    @Override
    void close() {
        EncoderJNI.Wrapper e = encoder;
        encoder = null;
        if (e != null) {
            e.destroy();
        }
    }
}
