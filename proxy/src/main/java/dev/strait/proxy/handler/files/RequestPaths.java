package dev.strait.proxy.handler.files;

import dev.strait.proxy.http.PathDecoding;
import java.io.File;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Turns a request path, already normalised by {@link dev.strait.model.PathNormalizer} (dot
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
    /** Published on purpose (RFC 8615), though its name starts with '.'. */
    private static final String WELL_KNOWN = "/.well-known";

    private RequestPaths() {}

    /**
     * Whether a decoded path names a file or directory starting with '.' ({@code /.git/config},
     * {@code /app/.env}), other than the first segment {@code .well-known} (RFC 8615: ACME challenges,
     * security.txt), which sites publish on purpose. Deploying a checkout as the root must not publish
     * its {@code .git} or {@code .env}: nginx serves them, serve-static and this proxy do not by default.
     */
    static boolean hasDotName(String decoded) {
        int i = decoded.indexOf("/.");
        if (i < 0) {
            return false;
        }
        if (i == 0 && decoded.startsWith(WELL_KNOWN)
                && (decoded.length() == WELL_KNOWN.length() || decoded.charAt(WELL_KNOWN.length()) == '/')) {
            i = decoded.indexOf("/.", WELL_KNOWN.length());
        }
        return i >= 0;
    }

    /** The decoded path, starting with '/', or {@code null} when refused (the caller answers 404). */
    static String decode(String path) {
        if (path.isEmpty() || path.charAt(0) != '/') {
            return null;
        }
        String decoded = path;
        if (PathDecoding.hasEscapes(path)) {
            byte[] bytes = PathDecoding.bytes(path);
            if (bytes == null) {
                return null;
            }
            try {
                decoded = StandardCharsets.UTF_8.newDecoder()
                        .onMalformedInput(CodingErrorAction.REPORT)
                        .onUnmappableCharacter(CodingErrorAction.REPORT)
                        .decode(ByteBuffer.wrap(bytes))
                        .toString();
            } catch (CharacterCodingException e) {
                return null; // not UTF-8: no file name we could have written
            }
        }
        return PathDecoding.plainSegments(decoded, WINDOWS ? "\\:" : "") ? decoded : null;
    }
}
