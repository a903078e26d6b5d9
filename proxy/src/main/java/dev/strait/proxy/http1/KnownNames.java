package dev.strait.proxy.http1;

import io.netty.util.AsciiString;
import java.util.Arrays;
import java.util.Locale;

/**
 * Header names as peers usually spell them, so a parsed name is a shared constant rather than a copy
 * (and later lookups hit the constant's cached hash). Each name is kept as usually spelled and in lower
 * case; a lookup hashes the length and the first and last bytes into a small table, so a field costs
 * one or two comparisons instead of a scan over every known name.
 */
public final class KnownNames {
    private static final int SLOTS = 128;
    private final AsciiString[][] table = new AsciiString[SLOTS][];

    private KnownNames(String... names) {
        for (String n : names) {
            add(AsciiString.cached(n));
            add(AsciiString.cached(n.toLowerCase(Locale.ROOT)));
        }
    }

    /** The names to share, each as usually spelled (its lower-case form is added). */
    public static KnownNames of(String... names) {
        return new KnownNames(names);
    }

    private void add(AsciiString name) {
        byte[] a = name.array();
        int i = slot(a, name.arrayOffset(), name.arrayOffset() + name.length());
        AsciiString[] s = table[i];
        for (AsciiString k : s == null ? new AsciiString[0] : s) {
            if (k.equals(name)) {
                return; // a name already all lower case
            }
        }
        s = s == null ? new AsciiString[1] : Arrays.copyOf(s, s.length + 1);
        s[s.length - 1] = name;
        table[i] = s;
    }

    private static int slot(byte[] b, int from, int to) {
        return ((to - from) * 31 + b[from] * 7 + b[to - 1]) & (SLOTS - 1);
    }

    /** The name in {@code b[from, to)} (not empty): a shared constant when spelled as one, else a copy. */
    public AsciiString name(byte[] b, int from, int to) {
        AsciiString[] s = table[slot(b, from, to)];
        if (s != null) {
            for (AsciiString k : s) {
                if (equals(k, b, from, to)) {
                    return k;
                }
            }
        }
        return new AsciiString(b, from, to - from, true);
    }

    /** {@code s} spelled exactly as {@code b[from, to)}. */
    static boolean equals(AsciiString s, byte[] b, int from, int to) {
        if (s.length() != to - from) {
            return false;
        }
        byte[] a = s.array();
        int off = s.arrayOffset();
        for (int k = 0; k < to - from; k++) {
            if (a[off + k] != b[from + k]) {
                return false;
            }
        }
        return true;
    }
}
