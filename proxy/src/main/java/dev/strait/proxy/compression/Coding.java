package dev.strait.proxy.compression;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
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
                if (!com.aayushatharva.brotli4j.Brotli4jLoader.isAvailable()) {
                    return com.aayushatharva.brotli4j.Brotli4jLoader.getUnavailabilityCause();
                }
                removeUnpackedCopies(Path.of(System.getProperty("java.io.tmpdir")));
                return null;
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

    /**
     * brotli4j unpacks its library into a directory of its own in the temporary directory and removes it only when the
     * JVM exits normally: a proxy killed (out of memory, a failed probe) leaves its copy, about 1 MB, and in a pod the
     * {@code /tmp} volume outlives the container, so restarts would fill it. Copies older than a minute go (their
     * processes have loaded them, or are gone; a loaded library stays mapped without its file); a younger one may be
     * another process's between unpacking and loading, and stays. Where a file cannot go it is left.
     */
    static void removeUnpackedCopies(Path tmp) {
        long before = System.currentTimeMillis() - 60_000;
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(tmp, "com_aayushatharva_brotli4j_*")) {
            for (Path dir : dirs) {
                if (Files.getLastModifiedTime(dir).toMillis() > before) {
                    continue;
                }
                try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
                    for (Path f : files) {
                        Files.deleteIfExists(f);
                    }
                }
                Files.deleteIfExists(dir);
            }
        } catch (IOException | RuntimeException e) {
            log.debug("compression: brotli's unpacked copies in {} left: {}", tmp, e.toString());
        }
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
