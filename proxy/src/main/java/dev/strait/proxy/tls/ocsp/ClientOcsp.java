package dev.strait.proxy.tls.ocsp;

import dev.strait.proxy.tls.Der;
import java.io.IOException;
import java.net.URI;
import java.security.GeneralSecurityException;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Asks the CAs' OCSP responders whether client certificates are revoked (ADR 0106; nginx's {@code ssl_ocsp}), for
 * every TLS handshake under a {@code clientValidation} entry with {@code ocsp}. Answers are kept, per certificate
 * and responder, until their nextUpdate but an hour at most, so a client that connects again is not asked about
 * twice; a failure is kept {@link Timing#afterFailure} only. Handshakes that want the same certificate's status
 * while it is being asked wait for that one question.
 *
 * <p>Questions run on their own daemon threads, made with the first one: never on an event loop, which only waits
 * for the answer (the connection's requests are held meanwhile, see {@code ClientOcspGate}).
 */
public final class ClientOcsp implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(ClientOcsp.class);

    /** The verdicts, in nginx's words (its {@code $ssl_client_verify} after {@code FAILED:}). */
    public static final String REVOKED = "certificate revoked";
    public static final String UNKNOWN = "certificate status unknown";
    public static final String FAILED = "certificate status request failed";

    /** Answers kept at most; past it, expired ones go first, then any. */
    private static final int MAX_KEPT = 10_000;

    /**
     * @param timeout           connecting to a responder, and its answer: a handshake waits this long at most
     * @param longest           the longest an answer is kept (a revocation shows within it)
     * @param withoutNextUpdate how long an answer without nextUpdate is kept
     * @param afterFailure      how long a failed question is not asked again (a responder down is not asked by every
     *                          new connection)
     */
    public record Timing(Duration timeout, Duration longest, Duration withoutNextUpdate, Duration afterFailure) {
        public static final Timing DEFAULT = new Timing(Duration.ofSeconds(5), Duration.ofHours(1),
                Duration.ofHours(1), Duration.ofSeconds(5));
    }

    /** A certificate to ask about, and the CA that issued it (an OCSP request names the issuer's name and key). */
    public record Query(X509Certificate certificate, X509Certificate issuer) {}

    /** A kept verdict ({@code null}: good) and until when it holds. */
    private record Kept(String verdict, Instant until) {}

    private final Timing timing;
    private final Map<String, Kept> kept = new ConcurrentHashMap<>();
    private final Map<String, CompletableFuture<String>> asking = new ConcurrentHashMap<>();
    private volatile ExecutorService questions;
    private volatile boolean closed;
    private final AtomicLong good = new AtomicLong();
    private final AtomicLong revoked = new AtomicLong();
    private final AtomicLong unknown = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final AtomicLong fromKept = new AtomicLong();

    public ClientOcsp() {
        this(Timing.DEFAULT);
    }

    public ClientOcsp(Timing timing) {
        this.timing = timing;
    }

    /**
     * The verdict on a chain: null when every certificate of {@code queries} is good, else the first one's failure
     * ({@link #REVOKED}, {@link #UNKNOWN}, {@link #FAILED}), leaf first.
     *
     * @param responder the responder to ask instead of the one each certificate names; null: its own
     */
    public CompletableFuture<String> check(List<Query> queries, URI responder) {
        @SuppressWarnings("unchecked")
        CompletableFuture<String>[] each = new CompletableFuture[queries.size()];
        for (int i = 0; i < each.length; i++) {
            each[i] = status(queries.get(i), responder);
        }
        return CompletableFuture.allOf(each).thenApply(v -> {
            for (CompletableFuture<String> f : each) {
                String verdict = f.join();
                if (verdict != null) {
                    return verdict;
                }
            }
            return null;
        });
    }

    /** One certificate's verdict: kept, being asked, or asked now. */
    private CompletableFuture<String> status(Query q, URI responder) {
        byte[] request;
        try {
            request = OcspMessages.request(q.certificate(), q.issuer());
        } catch (GeneralSecurityException | Der.Malformed e) {
            log.warn("OCSP: cannot ask about client certificate {}: {}", describe(q.certificate()), e.toString());
            return CompletableFuture.completedFuture(FAILED);
        }
        // The request is the certificate's id (issuer name and key hashes, serial): the same for the same certificate.
        String key = Base64.getEncoder().encodeToString(request) + (responder == null ? "" : " " + responder);
        Kept k = kept.get(key);
        if (k != null && k.until().isAfter(Instant.now())) {
            fromKept.incrementAndGet();
            return CompletableFuture.completedFuture(k.verdict());
        }
        CompletableFuture<String> mine = new CompletableFuture<>();
        CompletableFuture<String> theirs = asking.putIfAbsent(key, mine);
        if (theirs != null) {
            return theirs;
        }
        if (closed) {
            asking.remove(key, mine);
            mine.complete(FAILED);
            return mine;
        }
        try {
            executor().execute(() -> {
                Kept answer;
                try {
                    answer = ask(q, responder, request);
                } catch (RuntimeException e) {
                    answer = failure(q, "cannot ask it: " + e);
                }
                put(key, answer);
                asking.remove(key, mine);
                mine.complete(answer.verdict());
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            asking.remove(key, mine);
            mine.complete(FAILED);
        }
        return mine;
    }

    private Kept ask(Query q, URI override, byte[] request) {
        X509Certificate cert = q.certificate();
        Instant now = Instant.now();
        URI responder = override;
        if (responder == null) {
            try {
                responder = OcspMessages.responder(cert);
            } catch (Der.Malformed e) {
                return failure(q, "its Authority Information Access cannot be read: " + e.getMessage());
            }
            if (responder == null) {
                // As permanent as the certificate: kept as long as an answer, logged once per certificate and hour.
                failed.incrementAndGet();
                log.warn("OCSP: client certificate {} names no OCSP responder; clientValidation's ocspResponder can"
                        + " name one: its requests are refused ({})", describe(cert), FAILED);
                return new Kept(FAILED, now.plus(timing.longest()));
            }
        }
        String invalid;
        try {
            byte[] der = OcspHttp.post(responder, request, timing.timeout());
            OcspMessages.Answer a = OcspMessages.read(der, cert);
            if (a.status() == OcspMessages.Status.UNKNOWN) {
                unknown.incrementAndGet();
                log.warn("OCSP: {} does not know client certificate {}: its requests are refused ({})", responder,
                        describe(cert), UNKNOWN);
                return new Kept(UNKNOWN, now.plus(timing.afterFailure()));
            }
            invalid = OcspMessages.verify(der, cert, q.issuer(), now);
            Instant until = a.nextUpdate() != null ? a.nextUpdate() : now.plus(timing.withoutNextUpdate());
            Instant latest = now.plus(timing.longest());
            if (until.isAfter(latest)) {
                until = latest;
            }
            if (a.status() == OcspMessages.Status.REVOKED) {
                if ("revoked".equals(invalid)) { // the JDK read the same, from an answer it accepts
                    revoked.incrementAndGet();
                    log.info("OCSP: client certificate {} is revoked, says {}", describe(cert), responder);
                    return new Kept(REVOKED, until);
                }
                invalid = invalid != null ? invalid : "it says revoked, and the JDK's checks that it is not";
            } else if (invalid == null && until.isAfter(now)) {
                good.incrementAndGet();
                return new Kept(null, until);
            } else if (invalid == null) {
                invalid = "it expired at " + until;
            }
        } catch (IOException e) {
            return failure(q, "cannot ask " + responder + ": " + e);
        } catch (Der.Malformed e) {
            return failure(q, responder + " sent no OCSP answer: " + e.getMessage());
        }
        return failure(q, responder + " sent an answer that is not valid: " + invalid);
    }

    private Kept failure(Query q, String why) {
        failed.incrementAndGet();
        log.warn("OCSP: client certificate {}: {}; requests on its connections are refused ({}) until an answer comes",
                describe(q.certificate()), why, FAILED);
        return new Kept(FAILED, Instant.now().plus(timing.afterFailure()));
    }

    private void put(String key, Kept k) {
        if (kept.size() >= MAX_KEPT) {
            Instant now = Instant.now();
            kept.values().removeIf(v -> !v.until().isAfter(now));
            for (Iterator<String> it = kept.keySet().iterator(); kept.size() >= MAX_KEPT && it.hasNext(); ) {
                it.next();
                it.remove();
            }
        }
        kept.put(key, k);
    }

    private ExecutorService executor() {
        ExecutorService e = questions;
        if (e == null) {
            synchronized (this) {
                if (questions == null) {
                    // Up to four questions at once (to as many responders); more wait their turn.
                    ThreadPoolExecutor made = new ThreadPoolExecutor(4, 4, 30, TimeUnit.SECONDS,
                            new LinkedBlockingQueue<>(), r -> {
                                Thread t = new Thread(r, "strait-client-ocsp");
                                t.setDaemon(true);
                                return t;
                            });
                    made.allowCoreThreadTimeOut(true);
                    questions = made;
                }
                e = questions;
            }
        }
        return e;
    }

    private static String describe(X509Certificate c) {
        return c.getSubjectX500Principal().getName() + " (serial " + c.getSerialNumber().toString(16) + ")";
    }

    /** Answers fetched that said good. */
    public long goodAnswers() {
        return good.get();
    }

    /** Answers fetched that said revoked. */
    public long revokedAnswers() {
        return revoked.get();
    }

    /** Answers fetched that said the responder does not know the certificate. */
    public long unknownAnswers() {
        return unknown.get();
    }

    /** Questions that brought no answer: no responder, unreachable, an HTTP error, not OCSP, not valid, expired. */
    public long failedQuestions() {
        return failed.get();
    }

    /** Verdicts taken from kept answers, without asking. */
    public long keptVerdicts() {
        return fromKept.get();
    }

    @Override
    public void close() {
        closed = true;
        ExecutorService e = questions;
        if (e != null) {
            e.shutdownNow();
        }
        asking.values().forEach(f -> f.complete(FAILED));
    }
}
