package dev.strait.proxy.bodyfiles;

import dev.strait.model.Config;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where request bodies go that a rule reads before asking its upstream, once they outgrow what it holds in memory
 * (the config's {@code requestBodyFiles}; nginx's {@code client_body_temp_path}). One per server, shared by its
 * loops: each body is a file of its own, and what all of them hold at once is counted here against
 * {@code maxBytes}, so the directory (a pod's {@code emptyDir}, whose size limit gets the pod evicted) never holds
 * more. A body the files cannot take streams instead, as it would without them.
 */
public final class BodyFiles {
    static final Logger log = LoggerFactory.getLogger(BodyFiles.class);
    /** How often a directory that refuses files is logged again. */
    private static final long LOG_EVERY_NANOS = 60_000_000_000L;

    private volatile Config.RequestBodyFiles settings;
    private final AtomicLong held = new AtomicLong();
    private final AtomicLong refusals = new AtomicLong();
    private final AtomicLong lastLogged = new AtomicLong(System.nanoTime() - LOG_EVERY_NANOS);

    public BodyFiles(Config.RequestBodyFiles settings) {
        this.settings = settings;
    }

    /** A reload's settings: files already open keep counting against the new limit. */
    public void configure(Config.RequestBodyFiles settings) {
        this.settings = settings;
    }

    /** Bytes all open body files hold now (a gauge). */
    public long held() {
        return held.get();
    }

    /** Bodies the files could not take (or take on), counted since the start. */
    public long refusals() {
        return refusals.get();
    }

    /** Whether bodies may go to files at all ({@code maxBytes} above 0). */
    public boolean enabled() {
        return settings.maxBytes() > 0;
    }

    /**
     * A new, empty file for one body, or null when files are off or one cannot be made (logged, at most once a
     * minute, naming the directory). The file is unlinked at once: only its channel holds it, so neither a crash
     * nor a lost close leaves anything behind.
     */
    public BodyFile open() {
        Config.RequestBodyFiles s = settings;
        if (s.maxBytes() <= 0) {
            return null;
        }
        Path dir = Path.of(s.directory() != null ? s.directory() : System.getProperty("java.io.tmpdir"));
        Path path = dir.resolve("strait-body-" + Long.toHexString(ThreadLocalRandom.current().nextLong()));
        FileChannel ch;
        try {
            ch = FileChannel.open(path, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ,
                    StandardOpenOption.WRITE);
        } catch (IOException | RuntimeException e) {
            refused("cannot make a request body file in " + dir + ": " + e);
            return null;
        }
        try {
            Files.delete(path);
        } catch (IOException e) {
            // Still usable; it stays in the directory until someone removes it.
            log.warn("cannot unlink the request body file {} ({}); it stays until removed", path, e.toString());
        }
        return new BodyFile(this, ch);
    }

    /** Takes {@code n} bytes of the budget, or none and false (a refusal) when they do not fit. */
    boolean reserve(long n) {
        long max = settings.maxBytes();
        long now;
        do {
            now = held.get();
            if (now + n > max) {
                refusals.incrementAndGet();
                return false;
            }
        } while (!held.compareAndSet(now, now + n));
        return true;
    }

    void release(long n) {
        held.addAndGet(-n);
    }

    /** A file that could not be made or written: counted, and logged at most once a minute. */
    void refused(String why) {
        refusals.incrementAndGet();
        long now = System.nanoTime();
        long last = lastLogged.get();
        if (now - last >= LOG_EVERY_NANOS && lastLogged.compareAndSet(last, now)) {
            log.warn("{}; bodies that outgrow memory stream to their upstream instead", why);
        }
    }
}
