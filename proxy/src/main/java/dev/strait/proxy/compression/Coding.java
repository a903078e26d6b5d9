package dev.strait.proxy.compression;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The content codings an answer may be compressed in (ADR 0097). gzip is the JDK's zlib and always there; zstd and
 * brotli are native libraries carried in the jar for Linux (x86-64, arm64), macOS and Windows, loaded the first time a
 * table uses them: where one does not load (another platform, no writable temporary directory) it is reported once and
 * rules answer in their other codings.
 */
enum Coding {
    ZSTD("zstd", ZstdStream::new, Coding::loadZstd),
    BROTLI("br", (level, length) -> new BrotliStream(level), Coding::loadBrotli),
    GZIP("gzip", (level, length) -> new GzipStream(level), () -> null);

    /** A new stream of the coding at a level (1-9) for a body of a length, or -1 when not known. */
    private interface Opener {
        CodingStream open(int level, long length);
    }

    private static final Logger log = LoggerFactory.getLogger(Coding.class);

    /** As {@code Content-Encoding} and {@code Accept-Encoding} name it. */
    final String token;
    private final Opener opener;
    /** Loads the coding's library: null when it is usable, else why not (or it throws why). */
    private final Supplier<Throwable> loader;
    /** Whether the native library loaded, once known. */
    private volatile Boolean available;

    Coding(String token, Opener opener, Supplier<Throwable> loader) {
        this.token = token;
        this.opener = opener;
        this.loader = loader;
    }

    /**
     * A new stream at {@code level} (1-9) for a body of {@code length} bytes, or -1 when not known; only for a coding
     * found {@link #available()} (its library loaded).
     */
    CodingStream open(int level, long length) {
        return opener.open(level, length);
    }

    private static Throwable loadZstd() {
        com.github.luben.zstd.util.Native.load();
        return null;
    }

    private static Throwable loadBrotli() {
        if (!com.aayushatharva.brotli4j.Brotli4jLoader.isAvailable()) {
            return com.aayushatharva.brotli4j.Brotli4jLoader.getUnavailabilityCause();
        }
        removeUnpackedCopies(Path.of(System.getProperty("java.io.tmpdir")));
        return null;
    }

    /** Whether this process can compress in this coding; the first call loads its library, off the event loops. */
    boolean available() {
        Boolean a = available;
        if (a == null) {
            synchronized (this) {
                a = available;
                if (a == null) {
                    Throwable cause;
                    try {
                        cause = loader.get();
                    } catch (LinkageError | RuntimeException e) {
                        cause = e;
                    }
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
