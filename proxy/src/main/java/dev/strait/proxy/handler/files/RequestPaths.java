package dev.strait.proxy.handler.files;

import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Turns a request path, already normalised by {@link dev.strait.proxy.http.PathNormalizer} (dot
 * segments gone, unreserved escapes decoded, the rest still encoded), into the file path under the
 * root. The escapes left are decoded here as UTF-8, and what could reach outside the root or name
 * something else than the path says is refused: an encoded slash ({@code %2F}, one segment must not
 * become two), NUL, and any {@code .} or {@code ..} segment (defence in depth: none should be left).
 *
 * <p>The common path, without escapes, is one scan and returns the same string.
 */
final class RequestPaths {
    /**
     * Where '\' separates names (Windows) it is refused like an encoded slash, and ':' too, which
     * would make "C:/x" an absolute path or name an alternate data stream.
     */
    private static final boolean WINDOWS = File.separatorChar == '\\';

    private RequestPaths() {}

    /** The decoded path, starting with '/', or {@code null} when refused (the caller answers 404). */
    static String decode(String path) {
        int n = path.length();
        if (n == 0 || path.charAt(0) != '/') {
            return null;
        }
        for (int i = 1; i < n; i++) {
            if (path.charAt(i) == '%') {
                return slowPath(path);
            }
        }
        return acceptable(path) ? path : null;
    }

    private static String slowPath(String path) {
        int n = path.length();
        byte[] bytes = new byte[n];
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
                bytes[len++] = (byte) b;
                i += 2;
            } else if (c >= 0x80) {
                return null; // the normaliser lets only ASCII through
            } else {
                bytes[len++] = (byte) c;
            }
        }
        String decoded;
        try {
            decoded = StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes, 0, len))
                    .toString();
        } catch (CharacterCodingException e) {
            return null; // not UTF-8: no file name we could have written
        }
        return acceptable(decoded) ? decoded : null;
    }

    /** No NUL, no '.' or '..' segment (and on Windows no '\' or ':'). */
    private static boolean acceptable(String path) {
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
            } else if (c == 0 || WINDOWS && (c == '\\' || c == ':')) {
                return false;
            }
        }
        return true;
    }
}
