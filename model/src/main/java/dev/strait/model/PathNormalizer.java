package dev.strait.model;

/**
 * Turns a request target's path into the form routes are matched on, so that {@code /%61dmin} and
 * {@code /x/../admin} cannot slip past a rule written for {@code /admin} (RFC 3986 6.2.2):
 * percent-encoded unreserved characters are decoded, dot segments are removed, everything else
 * (notably {@code %2F}) stays encoded, and runs of slashes are merged into one (as nginx's
 * {@code merge_slashes} does), so {@code //admin} meets the rule for {@code /admin}. A path that
 * climbs above the root is refused.
 */
public final class PathNormalizer {
    private PathNormalizer() {}

    /** The normalised path, or {@code null} when the path is not acceptable (caller answers 400). */
    public static String normalize(String path) {
        if (path.isEmpty() || path.charAt(0) != '/') {
            return null;
        }
        boolean simple = true;
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c == '%' || (c == '.' || c == '/') && i > 0 && path.charAt(i - 1) == '/') {
                simple = false;
                break;
            }
            if (c <= 0x20 || c >= 0x7f) {
                return null;
            }
        }
        return simple ? path : slowPath(path);
    }

    private static String slowPath(String path) {
        StringBuilder decoded = new StringBuilder(path.length());
        for (int i = 0; i < path.length(); i++) {
            char c = path.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                return null;
            }
            if (c == '%') {
                if (i + 2 >= path.length()) {
                    return null;
                }
                int hi = Character.digit(path.charAt(i + 1), 16);
                int lo = Character.digit(path.charAt(i + 2), 16);
                if (hi < 0 || lo < 0) {
                    return null;
                }
                char d = (char) (hi << 4 | lo);
                if (d == 0) {
                    return null;
                }
                if (isUnreserved(d)) {
                    decoded.append(d);
                } else {
                    decoded.append('%').append(Character.toUpperCase(path.charAt(i + 1)))
                            .append(Character.toUpperCase(path.charAt(i + 2)));
                }
                i += 2;
            } else if (c != '/' || decoded.length() == 0 || decoded.charAt(decoded.length() - 1) != '/') {
                decoded.append(c);
            }
        }
        return removeDotSegments(decoded);
    }

    /**
     * The path routes are matched on: the normalised path with an encoded slash or backslash
     * ({@code %2F}, {@code %5C}) read as a separator, then normalised again; {@code null} when that
     * climbs above the root (caller answers 400). The path sent upstream stays as the client wrote it,
     * and many backends (WSGI, Rails, Go's mux before 1.22) decode {@code %2F} before they route, so a
     * rule for {@code /admin} must also see {@code /admin%2Fusers} and {@code /x/..%2Fadmin}, as nginx's
     * locations do (Envoy's CVE-2021-29492 was this bypass). The {@code files} action keeps refusing
     * {@code %2F} on the normalised path.
     */
    public static String forMatching(String normalized) {
        if (normalized.indexOf('%') < 0 || normalized.indexOf("%2F") < 0 && normalized.indexOf("%5C") < 0) {
            return normalized; // normalize() upper-cased every escape it kept
        }
        return normalize(normalized.replace("%2F", "/").replace("%5C", "/"));
    }

    private static boolean isUnreserved(char c) {
        return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
                || c == '-' || c == '.' || c == '_' || c == '~';
    }

    private static String removeDotSegments(CharSequence in) {
        // Segments between '/', rebuilt onto an output stack.
        StringBuilder out = new StringBuilder(in.length());
        int i = 0;
        int n = in.length();
        while (i < n) {
            int next = i + 1;
            while (next < n && in.charAt(next) != '/') {
                next++;
            }
            // segment is in[i+1, next)
            int len = next - i - 1;
            boolean dot = len == 1 && in.charAt(i + 1) == '.';
            boolean dotdot = len == 2 && in.charAt(i + 1) == '.' && in.charAt(i + 2) == '.';
            boolean last = next >= n;
            if (dot) {
                if (last) {
                    out.append('/');
                }
            } else if (dotdot) {
                if (out.length() == 0) {
                    return null;
                }
                out.setLength(out.lastIndexOf("/"));
                if (last) {
                    out.append('/');
                }
            } else {
                out.append(in, i, next);
            }
            i = next;
        }
        return out.length() == 0 ? "/" : out.toString();
    }
}
