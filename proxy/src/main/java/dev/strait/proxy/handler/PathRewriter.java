package dev.strait.proxy.handler;

import dev.strait.model.PathNormalizer;
import dev.strait.model.Route;

/**
 * A rule's {@code pathRewrite} (or a redirect's {@code path}), compiled: the whole path replaced, or the
 * Prefix match that chose the rule replaced by path element, as Gateway API's URLRewrite does: {@code /api}
 * matched for {@code /api/users} with {@code /v2} gives {@code /v2/users}, with {@code /} gives {@code /users};
 * {@code /api} alone gives {@code /v2} or {@code /}. Immutable; one per rule, and for prefix replacement
 * one per Prefix match of the rule ({@link #forPrefix}), made when the table is built.
 */
public final class PathRewriter {
    /** The replaceFullPath value, or {@code null}. */
    private final String full;
    /** The matched prefix without its trailing slash, {@code ""} for {@code /}; {@code null} until bound. */
    private final String prefix;
    /** The replacePrefixMatch value without its trailing slash, {@code ""} for {@code /}. */
    private final String replacement;

    private PathRewriter(String full, String prefix, String replacement) {
        this.full = full;
        this.prefix = prefix;
        this.replacement = replacement;
    }

    /** The rewriter of {@code m}, or {@code null} for none; a prefix replacement still needs {@link #forPrefix}. */
    public static PathRewriter of(Route.PathModifier m) {
        if (m == null) {
            return null;
        }
        return m.type() == Route.PathModifierType.ReplaceFullPath
                ? new PathRewriter(m.value(), null, null)
                : new PathRewriter(null, null, withoutTrailingSlash(m.value()));
    }

    /** Whether the result depends on the prefix that matched. */
    public boolean byPrefix() {
        return full == null;
    }

    /** This rewriter for requests chosen by the Prefix match {@code matched} (without trailing slash). */
    public PathRewriter forPrefix(String matched) {
        return full != null ? this : new PathRewriter(null, withoutTrailingSlash(matched), replacement);
    }

    /**
     * The new path for the normalised request path {@code path} (as {@link PathNormalizer#normalize} left it:
     * {@code %2F} still encoded). The prefix is cut where it ends in that path, so the rest keeps its escapes
     * ({@code /api/group%2Fproject} with {@code /v2} gives {@code /v2/group%2Fproject}); when the prefix
     * itself spanned an encoded slash (the rule saw {@code /api%2Fusers} as {@code /api/users}), the rest is
     * taken from the path the rule matched. A prefix rewriter not bound to a prefix returns {@code path}.
     */
    public String apply(String path) {
        if (full != null) {
            return full;
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

    private static boolean startsWithElements(String path, String prefix) {
        return prefix.isEmpty() || path.startsWith(prefix)
                && (path.length() == prefix.length() || path.charAt(prefix.length()) == '/');
    }

    private static String withoutTrailingSlash(String v) {
        return v.endsWith("/") ? v.substring(0, v.length() - 1) : v;
    }
}
