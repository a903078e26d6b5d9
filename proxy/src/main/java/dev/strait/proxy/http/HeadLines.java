package dev.strait.proxy.http;

/** Edits of a pre-encoded response head ({@code name: value\r\n} lines after the status line). */
public final class HeadLines {
    private HeadLines() {}

    /** The status code of a head the proxy encoded ({@code HTTP/1.1 404 ...}). */
    public static int status(byte[] head) {
        return (head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0');
    }

    /** {@code a} followed by {@code b}: a head and lines to go after it. */
    public static byte[] concat(byte[] a, byte[] b) {
        byte[] out = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }

    /**
     * {@code head} without the lines of the fields {@code names} names (lower case; one ending in {@code *} names
     * every field starting so), or {@code head} itself when it has none of them. The status line is kept.
     */
    public static byte[] without(byte[] head, String[] names) {
        int n = head.length;
        java.io.ByteArrayOutputStream out = null;
        int copied = 0;
        for (int i = 0; i + 1 < n; i++) {
            if (head[i] != '\n' || !named(head, i + 1, names)) {
                continue;
            }
            int end = i + 1;
            while (end < n && head[end] != '\n') {
                end++;
            }
            if (out == null) {
                out = new java.io.ByteArrayOutputStream(n);
            }
            out.write(head, copied, i + 1 - copied); // up to and with the previous line's end
            copied = Math.min(n, end + 1);
            i = end - 1;
        }
        if (out == null) {
            return head;
        }
        out.write(head, copied, n - copied);
        return out.toByteArray();
    }

    /** Whether the line at {@code at} is a field {@code names} names. */
    private static boolean named(byte[] b, int at, String[] names) {
        for (String name : names) {
            boolean prefix = name.endsWith("*");
            int len = prefix ? name.length() - 1 : name.length();
            if (at + len >= b.length || !prefix && b[at + len] != ':') {
                continue;
            }
            boolean same = true;
            for (int k = 0; k < len && same; k++) {
                char c = name.charAt(k);
                byte x = b[at + k];
                same = c >= 'a' && c <= 'z' ? (x | 0x20) == c : x == c;
            }
            if (same) {
                return true;
            }
        }
        return false;
    }
}
