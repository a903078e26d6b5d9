package dev.strait.proxy.auth;

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
 * against the users. A crypt hash costs up to milliseconds of the event loop, so credentials once proven
 * are remembered (by their SHA-256, never as sent), and hashes worked out for credentials not yet proven
 * are rationed per second: past that, clients are asked to come back ({@link Verdict#BUSY}) rather than let
 * a password guesser take the loop from everyone else.
 */
public final class BasicAuthGuard {
    /** Hash computations for unproven credentials per second, per rule. */
    static final int CHECKS_PER_SECOND = 50;
    /** Proven credentials remembered; past it the memory starts again. */
    private static final int REMEMBERED = 1024;

    public enum Verdict { ADMIT, CHALLENGE, BUSY }

    private final Map<String, String> users;
    private final String challenge;
    private final Map<String, Boolean> proven = new ConcurrentHashMap<>();
    /** The current second in the high bits, the checks made in it in the low 20. */
    private final AtomicLong window = new AtomicLong();

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
        return new BasicAuthGuard(users, config.realm());
    }

    /** The {@code WWW-Authenticate} value of a 401 (RFC 7617, with the charset credentials are read in). */
    public String challenge() {
        return challenge;
    }

    /** @param authorization the request's {@code Authorization} value, or null */
    public Verdict check(String authorization) {
        return check(authorization, System.currentTimeMillis() / 1000);
    }

    Verdict check(String authorization, long second) {
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
        if (!ration(second)) {
            return Verdict.BUSY;
        }
        byte[] password = java.util.Arrays.copyOfRange(decoded, colon + 1, decoded.length);
        if (!PasswordHashes.matches(hash, password)) {
            return Verdict.CHALLENGE;
        }
        if (proven.size() >= REMEMBERED) {
            proven.clear();
        }
        proven.put(key, Boolean.TRUE);
        return Verdict.ADMIT;
    }

    /** Takes one of this second's checks; false when they are used up. Lock-free: one CAS per check. */
    private boolean ration(long second) {
        while (true) {
            long w = window.get();
            long used = w >>> 44 == second ? w & 0xfffff : 0;
            if (used >= CHECKS_PER_SECOND) {
                return false;
            }
            if (window.compareAndSet(w, second << 44 | (used + 1))) {
                return true;
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
