package dev.strait.proxy.guard;

import dev.strait.model.Htpasswd;
import dev.strait.model.Route;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;

/**
 * A rule's {@code basicAuth} (ADR 0061), compiled with the table: checks a request's {@code Authorization}
 * against the users. Credentials once proven are remembered (by their SHA-256, never as sent). A slow hash
 * (bcrypt, SHA-crypt: milliseconds to hundreds of them) is worked out on the {@link HashingThreads}
 * ({@link #hashOffLoop}), at most {@link #WAITING} of one rule's at once, while the request waits; a fast
 * one ({@code $apr1$}, {@code {SHA}}, ...) on the loop, whose time for credentials not yet proven is
 * rationed: 5% of a loop on average, with up to half a second at once. Past either, clients are asked to
 * come back ({@link Verdict#BUSY}) rather than let a password guesser take the proxy from everyone else.
 */
public final class BasicAuthGuard {
    /** Loop time for hashes of unproven credentials, per rule: 1/20 of the time (50 ms a second)... */
    static final long DUTY = 20;
    /** ...with this much at once: half a second of hashing, as time owed. */
    static final long BURST_NANOS = 500_000_000L * DUTY;
    /** Proven credentials remembered; past it the memory starts again. */
    private static final int REMEMBERED = 1024;

    /** Slow hashes of one rule being worked out or waiting for a thread, beyond which a new one is refused. */
    static final int WAITING = 32;

    /** {@code SLOW}: only a slow hash can tell; ask {@link #hashOffLoop}. */
    public enum Verdict { ADMIT, CHALLENGE, BUSY, SLOW }

    private final Map<String, String> users;
    private final String challenge;
    private final Map<String, Boolean> proven = new ConcurrentHashMap<>();
    /**
     * When the hashing done so far is paid off, at {@link #DUTY} times its length (a GCRA over loop time, as
     * RateLimiter over requests); far ahead of now means over budget.
     */
    private final AtomicLong paidOff = new AtomicLong(System.nanoTime());
    private final AtomicInteger waiting = new AtomicInteger();

    private BasicAuthGuard(Map<String, String> users, String realm) {
        this.users = Map.copyOf(users);
        this.challenge = "Basic realm=\"" + realm + "\", charset=\"UTF-8\"";
    }

    /** @throws IllegalArgumentException when no user can be taken (the parser refuses such configs first) */
    public static BasicAuthGuard of(Route.BasicAuth config) {
        Map<String, String> users = Htpasswd.parse(config.htpasswd(), (line, why) -> { });
        if (users.isEmpty()) {
            throw new IllegalArgumentException("basicAuth.htpasswd: lists no users");
        }
        if (users.values().stream().anyMatch(h -> Htpasswd.scheme(h) == Htpasswd.Scheme.BCRYPT)) {
            BCrypt.piWords(); // Blowfish's start (pi's digits, ~0.2 s cold) is worked out here, off the event loop
        }
        return new BasicAuthGuard(users, config.realm());
    }

    /** The {@code WWW-Authenticate} value of a 401 (RFC 7617, with the charset credentials are read in). */
    public String challenge() {
        return challenge;
    }

    /** @param authorization the request's {@code Authorization} value, or null */
    public Verdict check(String authorization) {
        return check(authorization, System.nanoTime());
    }

    Verdict check(String authorization, long now) {
        Claim claim = claim(authorization);
        if (claim == null) {
            return Verdict.CHALLENGE;
        }
        if (claim.hash == null) {
            return Verdict.ADMIT;
        }
        if (slow(claim.hash)) {
            return Verdict.SLOW;
        }
        if (busy(now)) {
            return Verdict.BUSY;
        }
        long start = System.nanoTime();
        boolean matches = PasswordHashes.matches(claim.hash, claim.password);
        spend(now, System.nanoTime() - start);
        return proven(claim, matches);
    }

    /**
     * Checks credentials {@link #check} found {@link Verdict#SLOW} on a hashing thread; {@code done} gets
     * {@code ADMIT} or {@code CHALLENGE} on {@code loop}. Returns false, with nothing started, when this rule
     * has {@link #WAITING} checks under way or all the threads' queue is full: the client is then BUSY.
     */
    public boolean hashOffLoop(String authorization, Executor loop, Consumer<Verdict> done) {
        Claim claim = claim(authorization);
        if (claim == null || claim.hash == null) {
            Verdict v = claim == null ? Verdict.CHALLENGE : Verdict.ADMIT;
            loop.execute(() -> done.accept(v));
            return true;
        }
        if (waiting.incrementAndGet() > WAITING) {
            waiting.decrementAndGet();
            return false;
        }
        boolean queued = HashingThreads.submit(() -> {
            Verdict v;
            try {
                v = proven(claim, PasswordHashes.matches(claim.hash, claim.password));
            } finally {
                waiting.decrementAndGet();
            }
            loop.execute(() -> done.accept(v));
        });
        if (!queued) {
            waiting.decrementAndGet();
        }
        return queued;
    }

    /** What an {@code Authorization} value claims: {@code null} if nothing (CHALLENGE); a null hash if proven. */
    private Claim claim(String authorization) {
        if (authorization == null || authorization.length() < 7
                || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return null;
        }
        String token = authorization.substring(6).strip();
        String key = fingerprint(token);
        if (proven.containsKey(key)) {
            return new Claim(key, null, null);
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(token);
        } catch (IllegalArgumentException e) {
            return null;
        }
        int colon = indexOf(decoded, (byte) ':');
        if (colon < 0) {
            return null;
        }
        String hash = users.get(new String(decoded, 0, colon, StandardCharsets.UTF_8));
        if (hash == null) {
            return null;
        }
        return new Claim(key, hash, java.util.Arrays.copyOfRange(decoded, colon + 1, decoded.length));
    }

    /** Credentials whose {@code key} (SHA-256) is remembered once they match {@code hash}. */
    private record Claim(String key, String hash, byte[] password) {}

    private Verdict proven(Claim claim, boolean matches) {
        if (!matches) {
            return Verdict.CHALLENGE;
        }
        if (proven.size() >= REMEMBERED) {
            proven.clear();
        }
        proven.put(claim.key, Boolean.TRUE);
        return Verdict.ADMIT;
    }

    /** Hashes that take milliseconds or more: worked out off the loop. */
    static boolean slow(String hash) {
        Htpasswd.Scheme scheme = Htpasswd.scheme(hash);
        return scheme == Htpasswd.Scheme.BCRYPT || scheme == Htpasswd.Scheme.SHA256_CRYPT
                || scheme == Htpasswd.Scheme.SHA512_CRYPT;
    }

    /** Whether the hashing owed at {@code now} is over the burst. Loops share it without a lock. */
    boolean busy(long now) {
        return paidOff.get() - now > BURST_NANOS;
    }

    /** Owes {@code nanos} of hashing done at {@code now}. */
    void spend(long now, long nanos) {
        while (true) {
            long p = paidOff.get();
            long from = p - now > 0 ? p : now;
            if (paidOff.compareAndSet(p, from + Math.max(1, nanos) * DUTY)) {
                return;
            }
        }
    }

    private static String fingerprint(String token) {
        try {
            byte[] d = MessageDigest.getInstance("SHA-256").digest(token.getBytes(StandardCharsets.ISO_8859_1));
            return Base64.getEncoder().encodeToString(d);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JDK", e);
        }
    }

    private static int indexOf(byte[] b, byte c) {
        for (int i = 0; i < b.length; i++) {
            if (b[i] == c) {
                return i;
            }
        }
        return -1;
    }
}
