package dev.strait.proxy.handler;

import dev.strait.model.PathNormalizer;
import dev.strait.model.PathSubstitution;
import dev.strait.model.Route;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A rule's {@code pathRewrite} (or a redirect's {@code path}), compiled: the whole path replaced, or the
 * Prefix match that chose the rule replaced by path element, as Gateway API's URLRewrite does: {@code /api}
 * matched for {@code /api/users} with {@code /v2} gives {@code /v2/users}, with {@code /} gives {@code /users};
 * {@code /api} alone gives {@code /v2} or {@code /}. Or every match of a regular expression replaced by a
 * substitution with its groups ({@code replaceRegexMatch}, ADR 0058), the pattern compiled here, once.
 * Immutable; one per rule, and for prefix replacement one per Prefix match of the rule ({@link #forPrefix}),
 * made when the table is built.
 */
public final class PathRewriter {
    /** The replaceFullPath value, or {@code null}. */
    private final String full;
    /** The matched prefix without its trailing slash, {@code ""} for {@code /}; {@code null} until bound. */
    private final String prefix;
    /** The replacePrefixMatch value without its trailing slash, {@code ""} for {@code /}. */
    private final String replacement;
    /** The replaceRegexMatch pattern, or {@code null}. */
    private final Pattern regex;
    private final PathSubstitution substitution;

    private PathRewriter(String full, String prefix, String replacement, Pattern regex, PathSubstitution substitution) {
        this.full = full;
        this.prefix = prefix;
        this.replacement = replacement;
        this.regex = regex;
        this.substitution = substitution;
    }

    /**
     * What {@link #apply} gives when the path a regex rewrite makes is not a request path (it climbs above
     * {@code /}, or a match cut an escape in two): the request is answered 400. Compared by identity.
     */
    public static final String NOT_A_PATH = new String(""); // a distinct instance: no path is this reference

    /**
     * The rewriter of {@code m}, or {@code null} for none; a prefix replacement still needs {@link #forPrefix}.
     *
     * @throws java.util.regex.PatternSyntaxException for a pattern the config check would have refused
     */
    public static PathRewriter of(Route.PathModifier m) {
        if (m == null) {
            return null;
        }
        return switch (m.type()) {
            case ReplaceFullPath -> new PathRewriter(m.value(), null, null, null, null);
            case ReplacePrefixMatch -> new PathRewriter(null, null, withoutTrailingSlash(m.value()), null, null);
            case ReplaceRegexMatch -> new PathRewriter(null, null, null, Pattern.compile(m.value()),
                    PathSubstitution.parse(m.substitution()));
        };
    }

    /** Whether the result depends on the prefix that matched. */
    public boolean byPrefix() {
        return full == null && regex == null;
    }

    /** This rewriter for requests chosen by the Prefix match {@code matched} (without trailing slash). */
    public PathRewriter forPrefix(String matched) {
        return !byPrefix() ? this : new PathRewriter(null, withoutTrailingSlash(matched), replacement, null, null);
    }

    /**
     * The new path for the normalised request path {@code path} (as {@link PathNormalizer#normalize} left it:
     * {@code %2F} still encoded). The prefix is cut where it ends in that path, so the rest keeps its escapes
     * ({@code /api/group%2Fproject} with {@code /v2} gives {@code /v2/group%2Fproject}); when the prefix
     * itself spanned an encoded slash (the rule saw {@code /api%2Fusers} as {@code /api/users}), the rest is
     * taken from the path the rule matched. A prefix rewriter not bound to a prefix returns {@code path}.
     *
     * <p>A regex rewrite returns {@code null} when its pattern matches nowhere in the path (the request then
     * goes as the client sent it), and {@link #NOT_A_PATH} when the result is not a request path; see
     * {@link #replaceRegexMatches}.
     */
    public String apply(String path) {
        if (full != null) {
            return full;
        }
        if (regex != null) {
            return replaceRegexMatches(path);
        }
        if (prefix == null) {
            return path;
        }
        String p = path;
        if (!startsWithElements(p, prefix)) {
            p = PathNormalizer.forMatching(path);
            if (p == null || !startsWithElements(p, prefix)) {
                return path; // cannot happen for a request this prefix chose
            }
        }
        String rest = p.substring(prefix.length());
        if (replacement.isEmpty()) {
            return rest.isEmpty() ? "/" : rest;
        }
        return rest.isEmpty() ? replacement : replacement.concat(rest);
    }

    /**
     * Every match of the pattern in the normalised path replaced, as Matcher.replaceAll does, with the
     * substitution's groups; when it matches nowhere there and the rule saw the path with encoded slashes as
     * separators, in that form instead (as a prefix is cut). The result gets a leading {@code /} when it has
     * none (as nginx's rewrite) and is normalised like a request path (dot segments, {@code //}), so the upstream
     * never gets {@code /a/../b} that a capture put together.
     */
    private String replaceRegexMatches(String path) {
        String in = path;
        Matcher m = regex.matcher(in);
        if (!m.find()) {
            in = PathNormalizer.forMatching(path);
            if (in == null || in.equals(path)) {
                return null;
            }
            m = regex.matcher(in);
            if (!m.find()) {
                return null;
            }
        }
        StringBuilder out = new StringBuilder(in.length() + 16);
        int last = 0;
        do {
            out.append(in, last, m.start());
            substitution.appendTo(out, m, in);
            last = m.end();
        } while (m.find());
        out.append(in, last, in.length());
        if (out.length() == 0 || out.charAt(0) != '/') {
            out.insert(0, '/');
        }
        String p = PathNormalizer.normalize(out.toString());
        return p == null ? NOT_A_PATH : p;
    }

    private static boolean startsWithElements(String path, String prefix) {
        return prefix.isEmpty() || path.startsWith(prefix)
                && (path.length() == prefix.length() || path.charAt(prefix.length()) == '/');
    }

    private static String withoutTrailingSlash(String v) {
        return v.endsWith("/") ? v.substring(0, v.length() - 1) : v;
    }
}
