package dev.strait.proxy.compression;

import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The content codings an answer may be compressed in (ADR 0097). gzip is the JDK's zlib and always there; zstd and
 * brotli are native libraries carried in the jar for Linux (x86-64, arm64), macOS and Windows, loaded the first time a
 * table uses them: where one does not load (another platform, no writable temporary directory) it is reported once and
 * rules answer in their other codings.
 */
enum Coding {
    ZSTD("zstd") {
        @Override
        CodingStream open(int level, long length) {
            return new ZstdStream(level, length);
        }

        @Override
        Throwable load() {
            try {
                com.github.luben.zstd.util.Native.load();
                return null;
            } catch (LinkageError | RuntimeException e) {
                return e;
            }
        }
    },
    BROTLI("br") {
        @Override
        CodingStream open(int level, long length) {
            return new BrotliStream(level);
        }

        @Override
        Throwable load() {
            try {
                return com.aayushatharva.brotli4j.Brotli4jLoader.isAvailable() ? null
                        : com.aayushatharva.brotli4j.Brotli4jLoader.getUnavailabilityCause();
            } catch (LinkageError | RuntimeException e) {
                return e;
            }
        }
    },
    GZIP("gzip") {
        @Override
        CodingStream open(int level, long length) {
            return new GzipStream(level);
        }

        @Override
        Throwable load() {
            return null;
        }
    };

    private static final Logger log = LoggerFactory.getLogger(Coding.class);

    /** As {@code Content-Encoding} and {@code Accept-Encoding} name it. */
    final String token;
    /** Whether the native library loaded, once known. */
    private volatile Boolean available;

    Coding(String token) {
        this.token = token;
    }

    /**
     * A new stream at {@code level} (1-9) for a body of {@code length} bytes, or -1 when not known; only for a coding
     * found {@link #available()} (its library loaded).
     */
    abstract CodingStream open(int level, long length);

    /** Loads the coding's library: null when it is usable, else why not. */
    abstract Throwable load();

    /** Whether this process can compress in this coding; the first call loads its library, off the event loops. */
    boolean available() {
        Boolean a = available;
        if (a == null) {
            synchronized (this) {
                a = available;
                if (a == null) {
                    Throwable cause = load();
                    if (cause != null) {
                        log.warn("compression: {} is not available on this machine ({} {}: {}): rules answer in their"
                                + " other codings", token, System.getProperty("os.name"), System.getProperty("os.arch"),
                                cause.toString());
                    }
                    available = a = cause == null;
                }
            }
        }
        return a;
    }

    static Coding of(String token) {
        for (Coding c : values()) {
            if (c.token.equals(token.toLowerCase(Locale.ROOT))) {
                return c;
            }
        }
        throw new IllegalArgumentException("no content coding " + token);
    }
}
