package dev.strait.proxy.fastcgi;

import dev.strait.proxy.http.PathDecoding;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which script a request path names, as nginx computes {@code $fastcgi_script_name} and
 * {@code $fastcgi_path_info}:
 * <ol>
 *   <li>the normalised path's remaining escapes are decoded to bytes (kept one byte per char, so
 *       UTF-8 names reach the application as the client sent them); an encoded slash ({@code %2F}),
 *       NUL, or a {@code .}/{@code ..} segment is refused, so a script name can never climb out of the
 *       document root;
 *   <li>{@code splitPathInfo} (two groups) splits it into script name and PATH_INFO; without a match
 *       the whole path is the script name;
 *   <li>a script name ending in '/' gets the index file appended.
 * </ol>
 *
 * @param decoded    the decoded request path (DOCUMENT_URI)
 * @param scriptName SCRIPT_NAME
 * @param pathInfo   PATH_INFO, possibly empty
 */
record ScriptPath(String decoded, String scriptName, String pathInfo) {

    /** The script for {@code path}, or {@code null} when the path is refused (the caller answers 404). */
    static ScriptPath of(String path, Pattern split, String index) {
        String decoded = decode(path);
        if (decoded == null) {
            return null;
        }
        String script = decoded;
        String info = "";
        if (split != null) {
            Matcher m = split.matcher(decoded);
            if (m.matches()) {
                script = m.group(1) == null ? "" : m.group(1);
                info = m.group(2) == null ? "" : m.group(2);
            }
        }
        if (script.isEmpty() || script.charAt(0) != '/') {
            return null;
        }
        if (script.charAt(script.length() - 1) == '/') {
            script = script + index;
        }
        return new ScriptPath(decoded, script, info);
    }

    /** Percent-decodes to one char per byte; {@code null} for what may not name a script. */
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
            decoded = new String(bytes, java.nio.charset.StandardCharsets.ISO_8859_1);
        }
        return PathDecoding.plainSegments(decoded, "") ? decoded : null;
    }
}
