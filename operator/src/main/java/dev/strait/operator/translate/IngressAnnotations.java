package dev.strait.operator.translate;

import dev.strait.model.PathNormalizer;
import dev.strait.operator.crd.RouteSpec;
import java.net.URI;
import java.net.URISyntaxException;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * The ingress-nginx annotations of an Ingress that Strait reads, as what Routes already have (ADR 0054,
 * docs/adr/0054-ingress-nginx-annotations.md): the redirects become a {@code redirect} on every rule, the
 * common forms of {@code rewrite-target} a {@code pathRewrite}, {@code ssl-redirect} and
 * {@code force-ssl-redirect} the https binding and its {@code -to-https} Route. What cannot be expressed
 * exactly is an error naming the annotation, and the paths it applies to answer 503 rather than reach the
 * app with a path or at an address it was not meant to get.
 */
final class IngressAnnotations {
    static final String PREFIX = "nginx.ingress.kubernetes.io/";
    /** {@code "false"} turns off the redirect of TLS hosts to https. */
    static final String SSL_REDIRECT = PREFIX + "ssl-redirect";
    /** {@code "true"} redirects to https even a host without TLS (terminated elsewhere, or by another Ingress). */
    static final String FORCE_SSL_REDIRECT = PREFIX + "force-ssl-redirect";
    static final String PERMANENT_REDIRECT = PREFIX + "permanent-redirect";
    static final String PERMANENT_REDIRECT_CODE = PREFIX + "permanent-redirect-code";
    /** ingress-nginx spells it so ("temporal", not "temporary"). */
    static final String TEMPORAL_REDIRECT = PREFIX + "temporal-redirect";
    static final String TEMPORAL_REDIRECT_CODE = PREFIX + "temporal-redirect-code";
    static final String REWRITE_TARGET = PREFIX + "rewrite-target";
    static final String USE_REGEX = PREFIX + "use-regex";
    /** The annotations whose values change a host's rules (not its listeners), in the order of {@link #key}. */
    private static final List<String> RULE_ANNOTATIONS = List.of(PERMANENT_REDIRECT, PERMANENT_REDIRECT_CODE,
            TEMPORAL_REDIRECT, TEMPORAL_REDIRECT_CODE, REWRITE_TARGET, USE_REGEX);
    /** The end of ingress-nginx's documented path idiom {@code /prefix(/|$)(.*)} with {@code rewrite-target: /$2}. */
    static final String STRIP_IDIOM = "(/|$)(.*)";
    private static final Pattern REGEX_CHARS = Pattern.compile("[()\\[\\]{}*+?|^$\\\\]");
    private static final Pattern HOST = Pattern.compile(
            "[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");
    private static final List<Integer> CODES = List.of(301, 302, 303, 307, 308);

    final boolean sslRedirect;
    final boolean forceSslRedirect;
    /** Every rule's action, or null. */
    final RouteSpec.Redirect redirect;
    /** Why the redirect annotation cannot be expressed, or null. */
    final String redirectError;
    final String rewriteTarget;
    /** {@code use-regex: "true"}: the Ingress's paths are regular expressions to ingress-nginx. */
    final boolean useRegex;
    /** The values of the annotations that change rules, empty without any: part of a piece's memo key. */
    final String key;

    IngressAnnotations(Map<String, String> annotations) {
        Map<String, String> a = annotations == null ? Map.of() : annotations;
        sslRedirect = !"false".equals(a.get(SSL_REDIRECT));
        forceSslRedirect = "true".equals(a.get(FORCE_SSL_REDIRECT));
        rewriteTarget = a.get(REWRITE_TARGET);
        useRegex = "true".equals(a.get(USE_REGEX));
        StringBuilder k = new StringBuilder();
        for (String name : RULE_ANNOTATIONS) {
            if (a.containsKey(name)) {
                k.append('|').append(name.substring(PREFIX.length())).append('=').append(a.get(name));
            }
        }
        key = k.toString();
        // ingress-nginx reads temporal-redirect first: with both, it wins.
        String name = a.get(TEMPORAL_REDIRECT) != null && !a.get(TEMPORAL_REDIRECT).isEmpty() ? TEMPORAL_REDIRECT
                : a.get(PERMANENT_REDIRECT) != null && !a.get(PERMANENT_REDIRECT).isEmpty() ? PERMANENT_REDIRECT : null;
        RouteSpec.Redirect r = null;
        String error = null;
        if (name != null) {
            boolean temporal = name.equals(TEMPORAL_REDIRECT);
            String codeName = temporal ? TEMPORAL_REDIRECT_CODE : PERMANENT_REDIRECT_CODE;
            String code = a.get(codeName);
            Integer status = temporal ? 302 : 301;
            if (code != null) {
                try {
                    status = Integer.valueOf(code.trim());
                } catch (NumberFormatException e) {
                    status = null;
                }
                if (status == null || !CODES.contains(status)) {
                    error = field(codeName) + ": \"" + code + "\" is not a redirect status Strait sends (301, 302, 303, "
                            + "307 or 308)";
                }
            }
            if (error == null) {
                r = new RouteSpec.Redirect();
                error = url(a.get(name), r);
                if (error != null) {
                    error = field(name) + ": \"" + a.get(name) + "\" " + error;
                    r = null;
                } else {
                    r.statusCode = status;
                }
            }
            if (error != null) {
                error = error + "; every path of the Ingress answers 503";
            }
        }
        redirect = r;
        redirectError = error;
    }

    static String field(String annotation) {
        return "metadata.annotations[" + annotation + "]";
    }

    /**
     * Fills {@code r} from a redirect URL, which ingress-nginx sends as given: an absolute http(s) URL or a
     * path on the request's scheme and host. Returns why it cannot be expressed, else null.
     */
    private static String url(String value, RouteSpec.Redirect r) {
        if (value.indexOf('$') >= 0) {
            return "uses nginx variables, which Strait does not have";
        }
        URI u;
        try {
            u = new URI(value.trim());
        } catch (URISyntaxException e) {
            return "is not a URL (" + e.getReason() + ")";
        }
        if (u.getRawQuery() != null) {
            return "has a query: a redirect keeps the request's query, so a fixed one cannot be expressed";
        }
        if (u.getRawFragment() != null) {
            return "has a fragment, which a redirect cannot carry";
        }
        if (u.getScheme() == null) {
            if (u.getRawAuthority() != null || u.getRawPath() == null || !u.getRawPath().startsWith("/")) {
                return "is neither an http(s) URL nor a path starting with /";
            }
        } else {
            String scheme = u.getScheme().toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                return "is not an http or https URL";
            }
            if (u.getRawUserInfo() != null) {
                return "has user information, which a redirect cannot carry";
            }
            String host = u.getHost() == null ? null : u.getHost().toLowerCase(Locale.ROOT);
            if (host == null || !HOST.matcher(host).matches()) {
                return "has no host name Strait can redirect to (IP literals in brackets are not supported)";
            }
            r.scheme = scheme.equals("https") ? RouteSpec.Scheme.HTTPS : RouteSpec.Scheme.HTTP;
            r.hostname = host;
            // Explicit, so the request's port never leaks into a URL that named none.
            r.port = u.getPort() != -1 ? u.getPort() : scheme.equals("https") ? 443 : 80;
        }
        // No path (https://example.com) is the root, as browsers read it.
        String path = u.getRawPath() == null || u.getRawPath().isEmpty() ? "/" : u.getRawPath();
        if (PathNormalizer.normalize(path) == null) {
            return "has a path that is not a request path (spaces, non-ASCII characters or a broken escape)";
        }
        r.path = new RouteSpec.PathModifier();
        r.path.replaceFullPath = path;
        return null;
    }

    /** A path of the Ingress under {@code rewrite-target}: the match it becomes and the rewrite, or why not. */
    record Rewritten(RouteSpec.PathType type, String path, RouteSpec.PathRewrite rewrite, String error) {}

    /**
     * ingress-nginx (since 0.22) rewrites the whole URI to the target, with {@code $n} taken from the path's
     * regex groups. Two forms are exactly expressible: a literal target (every request of the path is sent
     * that path: {@code replaceFullPath}, the path itself then being literal) and the documented idiom
     * {@code /prefix(/|$)(.*)} with {@code /$2}, which is the prefix stripped ({@code Prefix /prefix},
     * {@code replacePrefixMatch: /}). A target equal to the path is no rewrite, as in ingress-nginx.
     */
    Rewritten rewrite(RouteSpec.PathType type, String path, String pathField) {
        String target = rewriteTarget;
        if (target == null) {
            if (useRegex && !literal(path)) {
                // Read as a literal prefix it would never match, and nothing would say so.
                return new Rewritten(null, null, null, field(USE_REGEX) + ": " + pathField + " \"" + path
                        + "\" is a regular expression, which Strait does not read from an Ingress (a Route can "
                        + "match it with a RegularExpression path); the path answers 503");
            }
            return new Rewritten(type, path, null, null);
        }
        if (path.endsWith(STRIP_IDIOM)) {
            String prefix = path.substring(0, path.length() - STRIP_IDIOM.length());
            if (target.equals("/$2") && prefix.startsWith("/") && !prefix.endsWith("/") && literal(prefix)) {
                RouteSpec.PathRewrite m = new RouteSpec.PathRewrite();
                m.replacePrefixMatch = "/";
                return new Rewritten(RouteSpec.PathType.Prefix, prefix, m, null);
            }
        } else if (target.indexOf('$') < 0 && literal(path)) {
            if (target.equals(path)) {
                return new Rewritten(type, path, null, null);
            }
            if (!target.startsWith("/") || target.indexOf('?') >= 0 || target.indexOf('#') >= 0
                    || PathNormalizer.normalize(target) == null) {
                return unsupported(target, path, pathField, "a target must be a request path without query");
            }
            RouteSpec.PathRewrite m = new RouteSpec.PathRewrite();
            m.replaceFullPath = target;
            return new Rewritten(type, path, m, null);
        }
        return unsupported(target, path, pathField, "Strait supports a literal target with a literal path, and "
                + "\"/$2\" with a path \"/prefix(/|$)(.*)\"");
    }

    private static Rewritten unsupported(String target, String path, String pathField, String why) {
        return new Rewritten(null, null, null, field(REWRITE_TARGET) + ": \"" + target + "\" with " + pathField
                + " \"" + path + "\" cannot be expressed (" + why + "); the path answers 503");
    }

    private static boolean literal(String path) {
        return !REGEX_CHARS.matcher(path).find();
    }
}
