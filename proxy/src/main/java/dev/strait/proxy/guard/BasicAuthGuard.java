package dev.strait.proxy.guard;

import dev.strait.model.Htpasswd;
import dev.strait.model.Route;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A rule's {@code basicAuth} (ADR 0061), compiled with the table: checks a request's {@code Authorization}
 * against the users. A hash costs the event loop from microseconds ({@code {SHA}}) to tens of milliseconds
 * (bcrypt), so credentials once proven are remembered (by their SHA-256, never as sent), and the loop time
 * spent on credentials not yet proven is rationed: 5% of a loop on average, with up to half a second at
 * once (a cold start's first checks run slower, before the JIT); past it, clients are asked to come back
 * ({@link Verdict#BUSY}) rather than let a password guesser take the loop from everyone else.
 */
public final class BasicAuthGuard {
    /** Loop time for hashes of unproven credentials, per rule: 1/20 of the time (50 ms a second)... */
    static final long DUTY = 20;
    /** ...with this much at once: half a second of hashing, as time owed. */
    static final long BURST_NANOS = 500_000_000L * DUTY;
    /** Proven credentials remembered; past it the memory starts again. */
    private static final int REMEMBERED = 1024;

    public enum Verdict { ADMIT, CHALLENGE, BUSY }

    private final Map<String, String> users;
    private final String challenge;
    private final Map<String, Boolean> proven = new ConcurrentHashMap<>();
    /**
     * When the hashing done so far is paid off, at {@link #DUTY} times its length (a GCRA over loop time, as
     * RateLimiter over requests); far ahead of now means over budget.
     */
    private final AtomicLong paidOff = new AtomicLong(System.nanoTime());

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
        if (authorization == null || authorization.length() < 7
                || !authorization.regionMatches(true, 0, "Basic ", 0, 6)) {
            return Verdict.CHALLENGE;
        }
        String token = authorization.substring(6).strip();
        String key = fingerprint(token);
        if (proven.containsKey(key)) {
            return Verdict.ADMIT;
        }
        byte[] decoded;
        try {
            decoded = Base64.getDecoder().decode(token);
        } catch (IllegalArgumentException e) {
            return Verdict.CHALLENGE;
        }
        int colon = indexOf(decoded, (byte) ':');
        if (colon < 0) {
            return Verdict.CHALLENGE;
        }
        String hash = users.get(new String(decoded, 0, colon, StandardCharsets.UTF_8));
        if (hash == null) {
            return Verdict.CHALLENGE;
        }
        if (busy(now)) {
            return Verdict.BUSY;
        }
        byte[] password = java.util.Arrays.copyOfRange(decoded, colon + 1, decoded.length);
        long start = System.nanoTime();
        boolean matches = PasswordHashes.matches(hash, password);
        spend(now, System.nanoTime() - start);
        if (!matches) {
            return Verdict.CHALLENGE;
        }
        if (proven.size() >= REMEMBERED) {
            proven.clear();
        }
        proven.put(key, Boolean.TRUE);
        return Verdict.ADMIT;
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
