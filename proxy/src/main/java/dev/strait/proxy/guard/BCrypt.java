package dev.strait.proxy.guard;

import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Arrays;

/**
 * bcrypt ({@code $2a$}, {@code $2b$}, {@code $2y$}; Provos and Mazières, "A Future-Adaptable Password
 * Scheme", 1999): Blowfish with the expensive key schedule. Blowfish starts from the hexadecimal digits of
 * pi; they are worked out once, on first use, rather than kept as 4 KiB of constants.
 */
final class BCrypt {
    private static final String ALPHABET = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    private static final byte[] MAGIC = "OrpheanBeholderScryDoubt".getBytes(StandardCharsets.US_ASCII);
    /** The lowest and highest cost accepted: 2^4 to 2^16 rounds of the key schedule. */
    static final int MIN_COST = 4;
    static final int MAX_COST = 16;

    private final int[] p;
    private final int[] s;

    private BCrypt() {
        p = Arrays.copyOf(Pi.WORDS, 18);
        s = Arrays.copyOfRange(Pi.WORDS, 18, 18 + 1024);
    }

    /** Whether {@code password} is the one {@code hash} ({@code $2?$NN$} + 22 salt + 31 hash characters) was made from. */
    static boolean matches(String hash, byte[] password) {
        if (!wellFormed(hash)) {
            return false;
        }
        int cost = Integer.parseInt(hash.substring(4, 6));
        byte[] salt = decode(hash.substring(7, 29), 16);
        byte[] expected = decode(hash.substring(29), 23);
        byte[] key = Arrays.copyOf(password, Math.min(password.length + 1, 72)); // NUL-terminated, at most 72 bytes
        byte[] computed = new BCrypt().hash(key, salt, cost);
        return MessageDigest.isEqual(Arrays.copyOf(computed, 23), expected);
    }

    /** {@code $2a$}, {@code $2b$} or {@code $2y$}, a two-digit cost in range, 53 characters of the alphabet. */
    static boolean wellFormed(String hash) {
        if (hash.length() != 60 || hash.charAt(0) != '$' || hash.charAt(1) != '2' || "aby".indexOf(hash.charAt(2)) < 0
                || hash.charAt(3) != '$' || hash.charAt(6) != '$') {
            return false;
        }
        if (!Character.isDigit(hash.charAt(4)) || !Character.isDigit(hash.charAt(5))) {
            return false;
        }
        int cost = Integer.parseInt(hash.substring(4, 6));
        return cost >= MIN_COST && cost <= MAX_COST && hash.substring(7).chars().allMatch(c -> ALPHABET.indexOf(c) >= 0);
    }

    private byte[] hash(byte[] key, byte[] salt, int cost) {
        expand(salt, key);
        for (long i = 0, rounds = 1L << cost; i < rounds; i++) {
            expand(null, key);
            expand(null, salt);
        }
        int[] text = new int[6];
        int[] at = {0};
        for (int i = 0; i < 6; i++) {
            text[i] = word(MAGIC, at);
        }
        for (int i = 0; i < 64; i++) {
            for (int j = 0; j < 6; j += 2) {
                encipher(text, j);
            }
        }
        byte[] out = new byte[24];
        for (int i = 0; i < 6; i++) {
            out[4 * i] = (byte) (text[i] >>> 24);
            out[4 * i + 1] = (byte) (text[i] >>> 16);
            out[4 * i + 2] = (byte) (text[i] >>> 8);
            out[4 * i + 3] = (byte) text[i];
        }
        return out;
    }

    /**
     * Blowfish's key schedule with the key cycled into P; with {@code salt}, each block is mixed with the
     * salt's next 64 bits before it is enciphered (the "expensive" variant), without it plain Blowfish's.
     */
    private void expand(byte[] salt, byte[] key) {
        int[] k = {0};
        for (int i = 0; i < 18; i++) {
            p[i] ^= word(key, k);
        }
        int[] lr = {0, 0};
        int[] at = {0};
        for (int i = 0; i < 18; i += 2) {
            next(lr, salt, at);
            p[i] = lr[0];
            p[i + 1] = lr[1];
        }
        for (int i = 0; i < 1024; i += 2) {
            next(lr, salt, at);
            s[i] = lr[0];
            s[i + 1] = lr[1];
        }
    }

    private void next(int[] lr, byte[] salt, int[] at) {
        if (salt != null) {
            lr[0] ^= word(salt, at);
            lr[1] ^= word(salt, at);
        }
        encipher(lr, 0);
    }

    private int f(int x) {
        return ((s[x >>> 24] + s[256 | (x >>> 16) & 0xff]) ^ s[512 | (x >>> 8) & 0xff]) + s[768 | x & 0xff];
    }

    private void encipher(int[] block, int off) {
        int l = block[off] ^ p[0];
        int r = block[off + 1];
        for (int i = 1; i <= 16; i += 2) {
            r ^= f(l) ^ p[i];
            l ^= f(r) ^ p[i + 1];
        }
        block[off] = r ^ p[17];
        block[off + 1] = l;
    }

    /** The next 32 bits of {@code data} taken as a cycle, from {@code at[0]}, which moves on. */
    private static int word(byte[] data, int[] at) {
        int w = 0;
        for (int i = 0; i < 4; i++) {
            w = w << 8 | (data[at[0]] & 0xff);
            at[0] = (at[0] + 1) % data.length;
        }
        return w;
    }

    /** bcrypt's base64 (its own alphabet, no padding) to {@code n} bytes; spare bits at the end are dropped. */
    static byte[] decode(String text, int n) {
        byte[] out = new byte[n];
        int bits = 0;
        int acc = 0;
        int o = 0;
        for (int i = 0; i < text.length() && o < n; i++) {
            acc = acc << 6 | ALPHABET.indexOf(text.charAt(i));
            bits += 6;
            if (bits >= 8) {
                bits -= 8;
                out[o++] = (byte) (acc >>> bits);
            }
        }
        return out;
    }

    /** The fractional hexadecimal digits of pi, as Blowfish's P-array (18 words) and S-boxes (1024 words). */
    private static final class Pi {
        static final int[] WORDS = words(18 + 1024);

        /** pi by Machin's formula, pi = 16 atan(1/5) - 4 atan(1/239), in fixed point with 64 guard bits. */
        private static int[] words(int count) {
            int bits = 32 * count + 64;
            BigInteger pi = atan(5, bits).shiftLeft(4).subtract(atan(239, bits).shiftLeft(2));
            BigInteger fraction = pi.subtract(BigInteger.valueOf(3).shiftLeft(bits));
            int[] out = new int[count];
            for (int i = 0; i < count; i++) {
                out[i] = fraction.shiftRight(bits - 32 * (i + 1)).intValue();
            }
            return out;
        }

        /** atan(1/x) * 2^bits, by its series. */
        private static BigInteger atan(int x, int bits) {
            BigInteger xx = BigInteger.valueOf((long) x * x);
            BigInteger term = BigInteger.ONE.shiftLeft(bits).divide(BigInteger.valueOf(x));
            BigInteger sum = term;
            for (int k = 1; term.signum() != 0; k++) {
                term = term.divide(xx);
                BigInteger t = term.divide(BigInteger.valueOf(2L * k + 1));
                sum = (k & 1) != 0 ? sum.subtract(t) : sum.add(t);
            }
            return sum;
        }
    }

    /** Blowfish's start words (0x243F6A88, 0x85A308D3, ...), worked out on first use. */
    static int[] piWords() {
        return Pi.WORDS.clone();
    }
}
