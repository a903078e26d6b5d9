package dev.strait.proxy.http;

import dev.strait.model.PathNormalizer;

/**
 * Decodes what {@link PathNormalizer} left encoded, for handlers that turn a path into a name on disk
 * or a script name. Both refuse the same things: an encoded slash ({@code %2F}: one segment must not
 * become two), NUL, a broken escape, and any {@code .} or {@code ..} segment (defence in depth: the
 * normaliser removed them).
 */
public final class PathDecoding {
    private PathDecoding() {}

    /** Whether {@code path} needs {@link #bytes}: it still has escapes. */
    public static boolean hasEscapes(String path) {
        return path.indexOf('%') >= 0;
    }

    /**
     * The path as bytes with its escapes decoded, or {@code null} when refused. Only ASCII may stand
     * unescaped (the normaliser lets nothing else through).
     */
    public static byte[] bytes(String path) {
        int n = path.length();
        byte[] out = new byte[n];
        int len = 0;
        for (int i = 0; i < n; i++) {
            char c = path.charAt(i);
            if (c == '%') {
                if (i + 2 >= n) {
                    return null;
                }
                int hi = Character.digit(path.charAt(i + 1), 16);
                int lo = Character.digit(path.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return null;
                }
                int b = hi << 4 | lo;
                if (b == '/' || b == 0) {
                    return null;
                }
                out[len++] = (byte) b;
                i += 2;
            } else if (c >= 0x80) {
                return null;
            } else {
                out[len++] = (byte) c;
            }
        }
        return java.util.Arrays.copyOf(out, len);
    }

    /**
     * No NUL and no {@code .} or {@code ..} segment in a decoded path that starts with '/';
     * {@code alsoRefused} names further characters to refuse (e.g. {@code "\\:"} on Windows).
     */
    public static boolean plainSegments(String path, String alsoRefused) {
        int n = path.length();
        int segment = 1;
        for (int i = 1; i <= n; i++) {
            char c = i < n ? path.charAt(i) : '/';
            if (c == '/') {
                int len = i - segment;
                if (len == 1 && path.charAt(segment) == '.'
                        || len == 2 && path.charAt(segment) == '.' && path.charAt(segment + 1) == '.') {
                    return false;
                }
                segment = i + 1;
            } else if (c == 0 || alsoRefused.indexOf(c) >= 0) {
                return false;
            }
        }
        return true;
    }
}
