package dev.strait.proxy.guard;

import dev.strait.model.Htpasswd;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Arrays;
import java.util.Base64;

/**
 * Checks a password against an htpasswd hash ({@link Htpasswd.Scheme}): Apache's {@code $apr1$} and
 * crypt's {@code $1$} (MD5-crypt), crypt's {@code $5$} and {@code $6$} (SHA-crypt, Drepper's
 * specification), {@code {SHA}}, {@code {SSHA}} and {@code {PLAIN}}. Everything is the JDK's
 * MessageDigest; the comparison of what is computed takes the same time wherever it differs.
 */
public final class PasswordHashes {
    private static final char[] B64 = "./0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz".toCharArray();
    /** SHA-crypt's output order: triples of digest bytes, each written as 4 characters (the last as fewer). */
    private static final int[][] SHA256_ORDER = order(32, 10);
    private static final int[][] SHA512_ORDER = order(64, 21);

    private PasswordHashes() {}

    /** Whether {@code password} (UTF-8) is the one {@code hash} was made from; false for a hash not checked. */
    public static boolean matches(String hash, byte[] password) {
        Htpasswd.Scheme scheme = Htpasswd.scheme(hash);
        if (scheme == null) {
            return false;
        }
        byte[] computed;
        byte[] expected;
        switch (scheme) {
            case BCRYPT -> {
                return BCrypt.matches(hash, password);
            }
            case APR1, MD5_CRYPT -> {
                expected = hash.getBytes(StandardCharsets.US_ASCII);
                computed = md5Crypt(password, hash).getBytes(StandardCharsets.US_ASCII);
            }
            case SHA256_CRYPT, SHA512_CRYPT -> {
                expected = hash.getBytes(StandardCharsets.US_ASCII);
                computed = shaCrypt(password, hash).getBytes(StandardCharsets.US_ASCII);
            }
            case SHA1 -> {
                expected = Base64.getDecoder().decode(hash.substring(5));
                computed = digest("SHA-1").digest(password);
            }
            case SALTED_SHA1 -> {
                byte[] stored = Base64.getDecoder().decode(hash.substring(6));
                byte[] salt = Arrays.copyOfRange(stored, 20, stored.length);
                MessageDigest d = digest("SHA-1");
                d.update(password);
                d.update(salt);
                expected = Arrays.copyOf(stored, 20);
                computed = d.digest();
            }
            case PLAIN -> {
                expected = hash.substring(7).getBytes(StandardCharsets.UTF_8);
                computed = password;
            }
            default -> throw new IllegalStateException(scheme.toString());
        }
        return MessageDigest.isEqual(computed, expected);
    }

    /** MD5-crypt with {@code setting}'s magic ({@code $1$} or {@code $apr1$}) and salt. */
    static String md5Crypt(byte[] pw, String setting) {
        String magic = setting.startsWith("$apr1$") ? "$apr1$" : "$1$";
        String rest = setting.substring(magic.length());
        int end = rest.indexOf('$');
        String salt = (end < 0 ? rest : rest.substring(0, end));
        salt = salt.substring(0, Math.min(8, salt.length()));
        byte[] s = salt.getBytes(StandardCharsets.US_ASCII);
        MessageDigest ctx = digest("MD5");
        ctx.update(pw);
        ctx.update(magic.getBytes(StandardCharsets.US_ASCII));
        ctx.update(s);
        MessageDigest alt = digest("MD5");
        alt.update(pw);
        alt.update(s);
        alt.update(pw);
        byte[] f = alt.digest();
        for (int i = pw.length; i > 0; i -= 16) {
            ctx.update(f, 0, Math.min(16, i));
        }
        for (int i = pw.length; i != 0; i >>>= 1) {
            if ((i & 1) != 0) {
                ctx.update((byte) 0);
            } else {
                ctx.update(pw.length > 0 ? pw[0] : 0);
            }
        }
        f = ctx.digest();
        for (int i = 0; i < 1000; i++) {
            MessageDigest c = digest("MD5");
            c.update((i & 1) != 0 ? pw : f);
            if (i % 3 != 0) {
                c.update(s);
            }
            if (i % 7 != 0) {
                c.update(pw);
            }
            c.update((i & 1) != 0 ? f : pw);
            f = c.digest();
        }
        StringBuilder out = new StringBuilder(magic).append(salt).append('$');
        to64(out, (f[0] & 0xff) << 16 | (f[6] & 0xff) << 8 | (f[12] & 0xff), 4);
        to64(out, (f[1] & 0xff) << 16 | (f[7] & 0xff) << 8 | (f[13] & 0xff), 4);
        to64(out, (f[2] & 0xff) << 16 | (f[8] & 0xff) << 8 | (f[14] & 0xff), 4);
        to64(out, (f[3] & 0xff) << 16 | (f[9] & 0xff) << 8 | (f[15] & 0xff), 4);
        to64(out, (f[4] & 0xff) << 16 | (f[10] & 0xff) << 8 | (f[5] & 0xff), 4);
        to64(out, f[11] & 0xff, 2);
        return out.toString();
    }

    /** SHA-crypt ({@code $5$} SHA-256, {@code $6$} SHA-512) with {@code setting}'s rounds and salt. */
    static String shaCrypt(byte[] p, String setting) {
        boolean sha512 = setting.startsWith("$6$");
        String algorithm = sha512 ? "SHA-512" : "SHA-256";
        String rest = setting.substring(3);
        int rounds = 5000;
        boolean roundsGiven = false;
        if (rest.startsWith("rounds=")) {
            int end = rest.indexOf('$');
            long r = Long.parseLong(rest.substring(7, end));
            rounds = (int) Math.max(1000, Math.min(999_999_999L, r));
            roundsGiven = true;
            rest = rest.substring(end + 1);
        }
        int end = rest.indexOf('$');
        String salt = end < 0 ? rest : rest.substring(0, end);
        salt = salt.substring(0, Math.min(16, salt.length()));
        byte[] s = salt.getBytes(StandardCharsets.UTF_8);

        MessageDigest b = digest(algorithm);
        b.update(p);
        b.update(s);
        b.update(p);
        byte[] bd = b.digest();
        int size = bd.length;
        MessageDigest a = digest(algorithm);
        a.update(p);
        a.update(s);
        for (int i = p.length; i > 0; i -= size) {
            a.update(bd, 0, Math.min(size, i));
        }
        for (int i = p.length; i > 0; i >>>= 1) {
            if ((i & 1) != 0) {
                a.update(bd);
            } else {
                a.update(p);
            }
        }
        byte[] ad = a.digest();
        MessageDigest dp = digest(algorithm);
        for (int i = 0; i < p.length; i++) {
            dp.update(p);
        }
        byte[] pBytes = repeat(dp.digest(), p.length);
        MessageDigest ds = digest(algorithm);
        for (int i = 0; i < 16 + (ad[0] & 0xff); i++) {
            ds.update(s);
        }
        byte[] sBytes = repeat(ds.digest(), s.length);
        byte[] c = ad;
        MessageDigest r = digest(algorithm);
        for (int i = 0; i < rounds; i++) {
            r.update((i & 1) != 0 ? pBytes : c);
            if (i % 3 != 0) {
                r.update(sBytes);
            }
            if (i % 7 != 0) {
                r.update(pBytes);
            }
            r.update((i & 1) != 0 ? c : pBytes);
            c = r.digest();
        }
        StringBuilder out = new StringBuilder(sha512 ? "$6$" : "$5$");
        if (roundsGiven) {
            out.append("rounds=").append(rounds).append('$');
        }
        out.append(salt).append('$');
        for (int[] t : sha512 ? SHA512_ORDER : SHA256_ORDER) {
            int w = 0;
            for (int k = 0; k < 3; k++) {
                w = w << 8 | (t[k] < 0 ? 0 : c[t[k]] & 0xff);
            }
            to64(out, w, t[3]);
        }
        return out.toString();
    }

    /**
     * The byte triples SHA-crypt writes, for a digest of {@code size} bytes in groups {@code stride} apart:
     * group i takes bytes i, i+stride, i+2*stride, turned by i (their place in the triple rotates), and
     * the bytes left over go last (-1: a zero byte).
     */
    private static int[][] order(int size, int stride) {
        int[][] out = new int[stride + 1][];
        for (int i = 0; i < stride; i++) {
            int[] v = {i, i + stride, i + 2 * stride};
            int turn = size == 32 ? (3 - i % 3) % 3 : i % 3;
            out[i] = new int[] {v[turn % 3], v[(turn + 1) % 3], v[(turn + 2) % 3], 4};
        }
        out[stride] = size == 32 ? new int[] {-1, 31, 30, 3} : new int[] {-1, -1, 63, 2};
        return out;
    }

    private static byte[] repeat(byte[] block, int length) {
        byte[] out = new byte[length];
        for (int i = 0; i < length; i++) {
            out[i] = block[i % block.length];
        }
        return out;
    }

    private static void to64(StringBuilder out, int v, int n) {
        for (int i = 0; i < n; i++) {
            out.append(B64[v & 0x3f]);
            v >>>= 6;
        }
    }

    private static MessageDigest digest(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " is part of every JDK", e);
        }
    }
}
