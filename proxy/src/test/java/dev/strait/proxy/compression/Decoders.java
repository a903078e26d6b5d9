package dev.strait.proxy.compression;

import com.aayushatharva.brotli4j.decoder.BrotliInputStream;
import com.aayushatharva.brotli4j.decoder.DecoderJNI;
import com.github.luben.zstd.ZstdInputStream;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.zip.GZIPInputStream;

/** Each coding's reference decoder, for tests to read back what the proxy wrote. */
final class Decoders {
    private Decoders() {}

    static InputStream decoder(Coding coding, InputStream in) throws IOException {
        return switch (coding) {
            case GZIP -> new GZIPInputStream(in);
            case ZSTD -> new ZstdInputStream(in);
            case BROTLI -> new BrotliInputStream(in);
        };
    }

    /** A whole stream decoded; it must end where the bytes end. */
    static byte[] decode(Coding coding, byte[] body) throws IOException {
        try (InputStream in = decoder(coding, new ByteArrayInputStream(body))) {
            return in.readAllBytes();
        }
    }

    /**
     * What a stream that has no end yet decodes to so far: all that was flushed into it. brotli's stream reader
     * throws at a cut before handing out what it decoded, so its decoder is driven directly.
     */
    static byte[] decodePrefix(Coding coding, byte[] body) throws IOException {
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        if (coding == Coding.BROTLI) {
            DecoderJNI.Wrapper d = new DecoderJNI.Wrapper(Math.max(1, body.length));
            try {
                d.getInputBuffer().put(body);
                d.push(body.length);
                while (d.hasOutput()) {
                    ByteBuffer part = d.pull();
                    byte[] b = new byte[part.remaining()];
                    part.get(b);
                    got.write(b);
                }
            } finally {
                d.destroy();
            }
            return got.toByteArray();
        }
        byte[] chunk = new byte[256];
        try (InputStream in = decoder(coding, new ByteArrayInputStream(body))) {
            for (int n; (n = in.read(chunk, 0, chunk.length)) > 0; ) {
                got.write(chunk, 0, n);
            }
        } catch (IOException | RuntimeException expected) {
            // the stream's end is still to come
        }
        return got.toByteArray();
    }
}
