package dev.strait.proxy.tls.ocsp;

import dev.strait.proxy.tls.Der;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the staples of the serving snapshot's certificates fresh (ADR 0104): asks each certificate's responder
 * when the snapshot first serves it, again every {@link Timing#refresh} (or before its answer expires, if sooner),
 * and after a failure with a backoff, stapling the last good answer until its nextUpdate meanwhile. An answer is
 * stapled only when the JDK's OCSP checks accept it and it says "good": a revoked certificate gets no staple (and
 * an error in the log), as from nginx.
 *
 * <p>Fetches run on their own two daemon threads, made with the first staple: never on an event loop, and not at
 * all for a {@code --check} run or a config without {@code ocspStapling}.
 */
public final class OcspStapler implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(OcspStapler.class);

    /**
     * When to ask.
     *
     * @param refresh           the longest a good answer is kept before asking again (nginx: an hour)
     * @param margin            asked again at least this long before the held answer expires
     * @param firstRetry        the wait after a first failure, doubled after each further one ...
     * @param maxRetry          ... up to this
     * @param withoutNextUpdate how long an answer without nextUpdate is stapled
     * @param timeout           connecting to the responder, and its answer
     */
    public record Timing(Duration refresh, Duration margin, Duration firstRetry, Duration maxRetry,
                         Duration withoutNextUpdate, Duration timeout) {
        public static final Timing DEFAULT = new Timing(Duration.ofHours(1), Duration.ofMinutes(5),
                Duration.ofSeconds(30), Duration.ofMinutes(10), Duration.ofHours(1), Duration.ofSeconds(10));
    }

    /** A followed staple's schedule; touched under the stapler's lock. */
    private static final class Followed {
        ScheduledFuture<?> next;
        int failures;
    }

    private final Timing timing;
    private final Map<OcspStaple, Followed> followed = new IdentityHashMap<>();
    private ScheduledExecutorService fetches;
    private boolean closed;
    private final AtomicLong good = new AtomicLong();
    private final AtomicLong revoked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();

    public OcspStapler() {
        this(Timing.DEFAULT);
    }

    public OcspStapler(Timing timing) {
        this.timing = timing;
    }

    /**
     * Follows exactly these staples (the serving snapshot's): new ones are fetched now, ones no longer served are
     * let go. A staple already followed keeps its answer and schedule.
     */
    public synchronized void follow(Collection<OcspStaple> staples) {
        if (closed) {
            return;
        }
        Map<OcspStaple, Boolean> now = new IdentityHashMap<>();
        staples.forEach(s -> now.put(s, Boolean.TRUE));
        followed.entrySet().removeIf(e -> {
            if (now.containsKey(e.getKey())) {
                return false;
            }
            if (e.getValue().next != null) {
                e.getValue().next.cancel(false);
            }
            return true;
        });
        for (OcspStaple s : now.keySet()) {
            if (!followed.containsKey(s)) {
                Followed f = new Followed();
                followed.put(s, f);
                f.next = executor().schedule(() -> fetch(s, f), 0, TimeUnit.MILLISECONDS);
            }
        }
    }

    private ScheduledExecutorService executor() {
        if (fetches == null) {
            ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(2, r -> {
                Thread t = new Thread(r, "strait-ocsp");
                t.setDaemon(true);
                return t;
            });
            e.setRemoveOnCancelPolicy(true);
            fetches = e;
        }
        return fetches;
    }

    /** Certificates followed whose handshakes get a staple now. */
    public synchronized long stapled() {
        return followed.keySet().stream().filter(s -> s.response() != null).count();
    }

    /** Certificates followed whose handshakes go without one: no good answer yet, the last expired, or revoked. */
    public synchronized long unstapled() {
        return followed.size() - stapled();
    }

    /** Answers taken and stapled. */
    public long goodAnswers() {
        return good.get();
    }

    /** Answers that said "revoked". */
    public long revokedAnswers() {
        return revoked.get();
    }

    /** Fetches that brought no answer to staple: unreachable, an HTTP error, not OCSP, not valid, expired, unknown. */
    public long failedFetches() {
        return failed.get();
    }

    /** One fetch for {@code s}, followed as {@code f}: a fetch of a staple let go and followed again schedules nothing. */
    private void fetch(OcspStaple s, Followed f) {
        Instant now = Instant.now();
        String failure;
        try {
            byte[] der = OcspHttp.post(s.responder, s.request, timing.timeout());
            OcspMessages.Answer a = OcspMessages.read(der, s.leaf);
            String invalid = a.status() == OcspMessages.Status.UNKNOWN ? "the responder does not know the certificate"
                    : OcspMessages.verify(der, s.leaf, s.issuer, now);
            if (a.status() == OcspMessages.Status.REVOKED || "revoked".equals(invalid)) {
                s.drop();
                revoked.incrementAndGet();
                log.error("OCSP: {} is revoked, says its responder: its handshakes go without a staple", s);
                again(s, f, timing.refresh(), false);
                return;
            }
            Instant until = a.nextUpdate() != null ? a.nextUpdate() : now.plus(timing.withoutNextUpdate());
            if (invalid == null && !until.isAfter(now)) {
                invalid = "the answer expired at " + until;
            }
            if (invalid == null) {
                boolean first = s.heldUntil() == null;
                s.hold(der, until);
                good.incrementAndGet();
                Duration left = Duration.between(now, until);
                Duration wait = left.minus(timing.margin());
                if (wait.compareTo(timing.refresh()) > 0) {
                    wait = timing.refresh();
                } else if (wait.compareTo(left.dividedBy(2)) < 0) {
                    wait = left.dividedBy(2); // an answer that lives less than twice the margin: halfway
                }
                if (first) {
                    log.info("OCSP: stapling {}: good until {}", s, until);
                } else {
                    log.debug("OCSP: stapling {}: good until {}", s, until);
                }
                again(s, f, wait, false);
                return;
            }
            failure = "not a valid answer: " + invalid;
        } catch (IOException e) {
            failure = "cannot ask it: " + e;
        } catch (Der.Malformed e) {
            failure = "not an OCSP answer: " + e.getMessage();
        } catch (RuntimeException e) {
            failure = "cannot ask it: " + e;
        }
        failed.incrementAndGet();
        Duration wait = again(s, f, null, true);
        if (wait != null) {
            Instant held = s.heldUntil();
            log.warn("OCSP: {}: {}; asking again in {} s ({})", s, failure, wait.toMillis() / 1000.0,
                    held != null && held.isAfter(now) ? "stapling the last good answer until " + held
                            : "its handshakes go without a staple until then");
        }
    }

    /** Schedules the next fetch (after {@code wait}, or the backoff after a failure); null when no longer followed. */
    private synchronized Duration again(OcspStaple s, Followed f, Duration wait, boolean failure) {
        if (followed.get(s) != f || closed) {
            return null;
        }
        if (failure) {
            f.failures++;
            long factor = 1L << Math.min(f.failures - 1, 20);
            wait = timing.firstRetry().multipliedBy(factor);
            if (wait.compareTo(timing.maxRetry()) > 0) {
                wait = timing.maxRetry();
            }
        } else {
            f.failures = 0;
        }
        f.next = executor().schedule(() -> fetch(s, f), Math.max(1, wait.toMillis()), TimeUnit.MILLISECONDS);
        return wait;
    }

    @Override
    public synchronized void close() {
        closed = true;
        followed.clear();
        if (fetches != null) {
            fetches.shutdownNow();
        }
    }
}
