package dev.strait.proxy.http;

/** Edits of a pre-encoded response head ({@code name: value\r\n} lines after the status line). */
public final class HeadLines {
    private HeadLines() {}

    /** The status code of a head the proxy encoded ({@code HTTP/1.1 404 ...}). */
    public static int status(byte[] head) {
        return (head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0');
    }

    /**
     * The value of the first field {@code name} (lower case) names in {@code head}'s lines, spaces around it
     * trimmed, or null when there is none.
     */
    public static String value(byte[] head, String name) {
        String[] names = {name};
        for (int i = -1; i + 1 < head.length; i++) {
            if ((i < 0 ? fieldFirst(head) : head[i] == '\n') && named(head, i + 1, names)) {
                int from = i + 1 + name.length() + 1;
                int to = from;
                while (to < head.length && head[to] != '\r' && head[to] != '\n') {
                    to++;
                }
                return new String(head, from, to - from, java.nio.charset.StandardCharsets.ISO_8859_1).trim();
            }
        }
        return null;
    }

    /** Every field of {@code head}'s lines (after the status line), in order, into {@code into}. */
    public static io.netty.handler.codec.http.HttpHeaders fields(byte[] head,
                                                                 io.netty.handler.codec.http.HttpHeaders into) {
        int n = head.length;
        int line = 0;
        while (line < n && head[line] != '\n') {
            line++;
        }
        for (int start = line + 1; start < n; ) {
            int end = start;
            while (end < n && head[end] != '\n') {
                end++;
            }
            int stop = end > start && head[end - 1] == '\r' ? end - 1 : end;
            int colon = start;
            while (colon < stop && head[colon] != ':') {
                colon++;
            }
            if (colon < stop) {
                String name = new String(head, start, colon - start, java.nio.charset.StandardCharsets.ISO_8859_1);
                String value = new String(head, colon + 1, stop - colon - 1, java.nio.charset.StandardCharsets.ISO_8859_1);
                into.add(name, value.trim());
            }
            start = end + 1;
        }
        return into;
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
        for (int i = -1; i + 1 < n; i++) {
            if (!(i < 0 ? fieldFirst(head) : head[i] == '\n') || !named(head, i + 1, names)) {
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

    /**
     * Whether {@code lines} starts with a field line rather than a status line: lines to go after a head (a cache's
     * {@code Age}, a rule's edits) are edited and read like the head's own.
     */
    private static boolean fieldFirst(byte[] lines) {
        return lines.length < 5 || lines[0] != 'H' || lines[1] != 'T' || lines[2] != 'T' || lines[3] != 'P' || lines[4] != '/';
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
