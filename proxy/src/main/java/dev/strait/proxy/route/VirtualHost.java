package dev.strait.proxy.route;

import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.Map;

/**
 * The rules of one host name, indexed by path so that choosing a rule never scans the host's rules:
 * exact paths in a hash map, prefixes in a hash map walked from the longest element boundary of the
 * request path down to {@code /}, then regular expressions in config order.
 */
final class VirtualHost {
    private static final Candidate[] NONE = new Candidate[0];

    private final Map<String, Candidate[]> exact;
    private final Map<String, Candidate[]> prefix;
    private final Candidate[] regex;
    private final Candidate[] rootPrefix;
    private final boolean onlyRootPrefix;
    /** The {@code Strict-Transport-Security} value the host's 404 carries over https (its routes' first), or null. */
    final String hsts;

    VirtualHost(Map<String, Candidate[]> exact, Map<String, Candidate[]> prefix, Candidate[] regex, String hsts) {
        this.hsts = hsts;
        this.exact = Map.copyOf(exact);
        this.prefix = Map.copyOf(prefix);
        this.regex = regex;
        this.rootPrefix = prefix.getOrDefault("/", NONE);
        this.onlyRootPrefix = prefix.size() == 1 && prefix.containsKey("/") || prefix.isEmpty();
    }

    /** @param https a request made over https: rules that only send it to https are passed over */
    CompiledRule find(String path, HttpMethod method, HttpHeaders headers, boolean https) {
        if (!exact.isEmpty()) {
            CompiledRule r = first(exact.get(path), method, headers, https);
            if (r != null) {
                return r;
            }
        }
        if (!onlyRootPrefix) {
            // Element-wise prefixes (Kubernetes and Gateway API): /api matches /api and /api/x, not /apix.
            String s = path.length() > 1 && path.charAt(path.length() - 1) == '/'
                    ? path.substring(0, path.length() - 1) : path;
            while (s.length() > 1) {
                CompiledRule r = first(prefix.get(s), method, headers, https);
                if (r != null) {
                    return r;
                }
                int slash = s.lastIndexOf('/');
                s = slash <= 0 ? "/" : s.substring(0, slash);
            }
        }
        CompiledRule r = first(rootPrefix, method, headers, https);
        if (r != null) {
            return r;
        }
        for (Candidate c : regex) {
            if (c.regex.matcher(path).matches() && c.accepts(method, headers) && !(https && c.rule.handler().upgradesToHttps())) {
                return c.rule;
            }
        }
        return null;
    }

    private static CompiledRule first(Candidate[] cs, HttpMethod method, HttpHeaders headers, boolean https) {
        if (cs == null) {
            return null;
        }
        for (Candidate c : cs) {
            if (c.accepts(method, headers) && !(https && c.rule.handler().upgradesToHttps())) {
                return c.rule;
            }
        }
        return null;
    }
}
