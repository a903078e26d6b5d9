package dev.strait.proxy.bodyfiles;

import dev.strait.model.Config;
import io.netty.util.concurrent.FastThreadLocal;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayDeque;
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
 *
 * <p>Making a file and unlinking it costs more than writing a 128 KiB body into it (160 us against 15 on this
 * machine's ext4: two journaled metadata changes), so each loop keeps the files of small bodies open once they are
 * done (as many as uploads run at once, within {@link #SPARE_BYTES_PER_LOOP}) and gives the next body the one kept
 * last, overwritten from its start. What they hold on disk stays counted against the budget, a body that needs the
 * room has them closed first, and one unused for {@link #SPARE_IDLE_NANOS} is closed as the loop next keeps one.
 */
public final class BodyFiles {
    static final Logger log = LoggerFactory.getLogger(BodyFiles.class);
    /** How often a directory that refuses files is logged again. */
    private static final long LOG_EVERY_NANOS = 60_000_000_000L;

    /** A file is kept for a loop's next bodies if it holds no more than this on disk; else it is closed. */
    static final long SPARE_MAX_BYTES = 1L << 20;
    /** ...and if what the loop keeps stays within this. */
    static final long SPARE_BYTES_PER_LOOP = 64L << 20;
    /** A kept file unused this long is closed (once its loop keeps another). */
    static final long SPARE_IDLE_NANOS = 30_000_000_000L;

    private volatile Config.RequestBodyFiles settings;
    /** Per loop: the files whose bodies are done, kept for the next ones (used by their loop only). */
    private final FastThreadLocal<Spares> spares = new FastThreadLocal<>() {
        @Override
        protected Spares initialValue() {
            return new Spares();
        }

        @Override
        protected void onRemoval(Spares kept) {
            kept.closeAll(); // the loop's thread ends (the server closes): its kept files with it
        }
    };

    /** One loop's kept files, last kept first (its pages the likeliest still cached), and what they hold. */
    private static final class Spares {
        final ArrayDeque<BodyFile> files = new ArrayDeque<>();
        long bytes;

        BodyFile take() {
            BodyFile f = files.pollLast();
            if (f != null) {
                bytes -= f.capacity();
            }
            return f;
        }

        /** Closes every kept file, giving their space back; whether there were any. */
        boolean closeAll() {
            boolean any = !files.isEmpty();
            BodyFile f;
            while ((f = take()) != null) {
                f.discard();
            }
            return any;
        }
    }
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

    /**
     * Says at start and at each reload, naming the field, when {@code config} has rules that read bodies first
     * ({@code requestBuffering}, FastCGI) but its directory is no writable directory (a read-only root without a
     * volume at {@code /tmp}), rather than at the first large upload; those bodies then stream past memory.
     */
    public static void checkDirectory(Config config) {
        Config.RequestBodyFiles s = config.requestBodyFiles();
        boolean used = config.routes().stream().flatMap(r -> r.rules().stream())
                .anyMatch(rule -> rule.requestBuffering() != null || rule.fastcgi() != null);
        if (!used || s.maxBytes() <= 0) {
            return;
        }
        Path dir = Path.of(s.directory() != null ? s.directory() : System.getProperty("java.io.tmpdir"));
        if (!Files.isDirectory(dir) || !Files.isWritable(dir)) {
            log.warn("requestBodyFiles.directory: {} is not a writable directory{}; request bodies that outgrow their"
                    + " rule's memory will stream to their upstream instead of waiting in a file (set"
                    + " requestBodyFiles.directory, or maxBytes: 0 to say so)", dir,
                    s.directory() == null ? " (java.io.tmpdir)" : "");
        }
    }

    /** Bytes all open body files hold on disk now, kept ones included (a gauge). */
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
     * An empty file for one body (one this loop kept, or a new one), or null when files are off or one cannot be
     * made (logged, at most once a minute, naming the directory). A new file is unlinked at once: only its channel
     * holds it, so neither a crash nor a lost close leaves anything behind.
     */
    public BodyFile open() {
        Config.RequestBodyFiles s = settings;
        if (s.maxBytes() <= 0) {
            spares.get().closeAll(); // turned off by a reload: what this loop kept goes too
            return null;
        }
        BodyFile spare = spares.get().take();
        if (spare != null) {
            spare.reuse();
            return spare;
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

    /** Whether {@code f}, its body done, is kept open for this loop's next body (else the caller closes it). */
    boolean keep(BodyFile f) {
        Spares here = spares.get();
        long now = System.nanoTime();
        BodyFile oldest;
        while ((oldest = here.files.peekFirst()) != null && now - oldest.keptAt > SPARE_IDLE_NANOS) {
            here.files.pollFirst();
            here.bytes -= oldest.capacity();
            oldest.discard();
        }
        f.keptAt = now;
        long size = f.capacity();
        if (size > SPARE_MAX_BYTES || here.bytes + size > SPARE_BYTES_PER_LOOP || held.get() > settings.maxBytes()) {
            return false; // (over the budget: a reload lowered it, or turned files off)
        }
        here.files.addLast(f);
        here.bytes += size;
        return true;
    }

    /**
     * Takes {@code n} bytes of the budget, or none and false (a refusal) when they do not fit even once this loop's
     * kept files are closed.
     */
    boolean reserve(long n) {
        if (tryReserve(n) || (closeSpares() && tryReserve(n))) {
            return true;
        }
        refusals.incrementAndGet();
        return false;
    }

    private boolean tryReserve(long n) {
        long max = settings.maxBytes();
        long now;
        do {
            now = held.get();
            if (now + n > max) {
                return false;
            }
        } while (!held.compareAndSet(now, now + n));
        return true;
    }

    /** Closes the calling loop's kept files, giving their space back; whether there were any. */
    private boolean closeSpares() {
        return spares.get().closeAll();
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
