package dev.strait.model;

import java.util.ArrayList;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.regex.Pattern;

/**
 * The users of a {@code basicAuth} (ADR 0061): lines {@code name:hash} as Apache's {@code htpasswd} and
 * {@code openssl passwd} write them, one user per line; blank lines and lines starting with {@code #} are
 * skipped. Only hashes the proxy can check are taken, so that a config never holds a user who can never
 * log in, or one whose line is not what it seems.
 */
public final class Htpasswd {
    /** The hash schemes checked, by how the hash starts. */
    public enum Scheme { BCRYPT, APR1, MD5_CRYPT, SHA256_CRYPT, SHA512_CRYPT, SHA1, SALTED_SHA1, PLAIN }

    private static final Pattern CRYPT_SALT = Pattern.compile("[./0-9A-Za-z]{1,8}");
    private static final Pattern MD5_CRYPT = Pattern.compile("\\$(apr1|1)\\$([./0-9A-Za-z]{1,8})\\$[./0-9A-Za-z]{22}");
    private static final Pattern BCRYPT = Pattern.compile("\\$2[aby]\\$[0-9]{2}\\$[./A-Za-z0-9]{53}");
    /**
     * bcrypt costs taken: from htpasswd's lowest to 12 (Laravel's and Spring's stronger settings), whose check
     * takes about 370 ms on a hashing thread (docs/config.md); each step up doubles it, and at 13 a first
     * login would wait most of a second.
     */
    public static final int BCRYPT_MIN_COST = 4;
    public static final int BCRYPT_MAX_COST = 12;
    /** SHA-crypt rounds taken: a million is ~0.35 s a check for {@code $6$}, as bcrypt's cost 12. */
    public static final int SHA_CRYPT_MAX_ROUNDS = 1_000_000;
    private static final Pattern SHA_CRYPT = Pattern.compile(
            "\\$([56])\\$(rounds=[0-9]{1,9}\\$)?[^$:\\s]{0,16}\\$[./0-9A-Za-z]+");

    private Htpasswd() {}

    /**
     * The users and their hashes, in order; each line that cannot be taken is told to {@code problem} with its
     * number (from 1) and what is wrong, and left out.
     */
    public static Map<String, String> parse(String text, BiConsumer<Integer, String> problem) {
        Map<String, String> users = new LinkedHashMap<>();
        String[] lines = text.split("\r?\n", -1);
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int colon = line.indexOf(':');
            if (colon <= 0) {
                problem.accept(i + 1, "is not name:hash");
                continue;
            }
            String user = line.substring(0, colon);
            String hash = line.substring(colon + 1);
            String why = user.chars().anyMatch(c -> c < 0x20 || c == 0x7f) ? "the name holds control characters"
                    : users.containsKey(user) ? "user \"" + user + "\" is listed twice"
                    : check(hash);
            if (why != null) {
                problem.accept(i + 1, why.startsWith("user") ? why : "user \"" + user + "\": " + why);
                continue;
            }
            users.put(user, hash);
        }
        return users;
    }

    /** The hash's scheme, or null for one not checked (see {@link #check}). */
    public static Scheme scheme(String hash) {
        if (hash.startsWith("$2a$") || hash.startsWith("$2b$") || hash.startsWith("$2y$")) {
            return Scheme.BCRYPT;
        }
        if (hash.startsWith("$apr1$")) {
            return Scheme.APR1;
        }
        if (hash.startsWith("$1$")) {
            return Scheme.MD5_CRYPT;
        }
        if (hash.startsWith("$5$")) {
            return Scheme.SHA256_CRYPT;
        }
        if (hash.startsWith("$6$")) {
            return Scheme.SHA512_CRYPT;
        }
        if (hash.startsWith("{SHA}")) {
            return Scheme.SHA1;
        }
        if (hash.startsWith("{SSHA}")) {
            return Scheme.SALTED_SHA1;
        }
        if (hash.startsWith("{PLAIN}")) {
            return Scheme.PLAIN;
        }
        return null;
    }

    /** Why {@code hash} cannot be checked, or null. */
    static String check(String hash) {
        Scheme s = scheme(hash);
        if (s == null) {
            if (hash.startsWith("$2")) {
                return "bcrypt hashes are checked as $2a$, $2b$ or $2y$ only ($2x$ is a known-broken variant)";
            }
            if (hash.length() == 13 && CRYPT_SALT.matcher(hash.substring(0, 2)).matches()) {
                return "DES crypt hashes are not checked: they keep 8 characters of a password; use htpasswd -m"
                        + " ($apr1$) or openssl passwd -6 ($6$)";
            }
            return "the hash is not one Strait checks ($2y$, $apr1$, $1$, $5$, $6$, {SHA}, {SSHA} or {PLAIN})";
        }
        return switch (s) {
            case BCRYPT -> !BCRYPT.matcher(hash).matches() ? "is not a whole bcrypt hash"
                    : Integer.parseInt(hash.substring(4, 6)) < BCRYPT_MIN_COST
                    || Integer.parseInt(hash.substring(4, 6)) > BCRYPT_MAX_COST
                    ? "has bcrypt cost " + hash.substring(4, 6) + "; Strait checks costs " + BCRYPT_MIN_COST + " to "
                    + BCRYPT_MAX_COST + " (a check costs 2^cost key schedules; htpasswd -B uses 5)"
                    : null;
            case APR1, MD5_CRYPT -> MD5_CRYPT.matcher(hash).matches() ? null : "is not a whole MD5-crypt hash";
            case SHA256_CRYPT, SHA512_CRYPT -> !SHA_CRYPT.matcher(hash).matches()
                    || hash.length() - hash.lastIndexOf('$') - 1 != (s == Scheme.SHA256_CRYPT ? 43 : 86)
                    ? "is not a whole SHA-crypt hash"
                    : shaCryptRounds(hash) > SHA_CRYPT_MAX_ROUNDS
                    ? "has SHA-crypt rounds=" + shaCryptRounds(hash) + "; Strait checks up to " + SHA_CRYPT_MAX_ROUNDS
                    + " (each check works them all out; openssl passwd -6 uses 5000)"
                    : null;
            case SHA1 -> decodedLength(hash.substring(5)) == 20 ? null : "is not a whole {SHA} hash";
            case SALTED_SHA1 -> decodedLength(hash.substring(6)) > 20 ? null : "is not a whole {SSHA} hash";
            case PLAIN -> null;
        };
    }

    /** The rounds a {@code $5$} or {@code $6$} hash names ({@code rounds=N$}), or the default 5000. */
    private static long shaCryptRounds(String hash) {
        if (!hash.startsWith("rounds=", 3)) {
            return 5000;
        }
        return Long.parseLong(hash.substring(10, hash.indexOf('$', 10)));
    }

    private static int decodedLength(String base64) {
        try {
            return Base64.getDecoder().decode(base64).length;
        } catch (IllegalArgumentException e) {
            return -1;
        }
    }

    /** The lines' problems as messages ({@code line 2: ...}), for a field's errors. */
    public static List<String> problems(String text) {
        List<String> out = new ArrayList<>();
        parse(text, (line, why) -> out.add("line " + line + ": " + why));
        return out;
    }
}
