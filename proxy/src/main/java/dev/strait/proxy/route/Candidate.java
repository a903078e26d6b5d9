package dev.strait.proxy.route;

import dev.strait.model.Route;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import java.util.regex.Pattern;

/** One match of one rule, compiled: the conditions besides the path that must hold too. */
final class Candidate {
    final Route.PathType pathType;
    final String pathValue;
    final String method;
    final String[] headerNames;
    final String[] headerValues;
    final Pattern regex;
    final CompiledRule rule;
    final int order;

    Candidate(Route.PathType pathType, String pathValue, String method, String[] headerNames,
              String[] headerValues, Pattern regex, CompiledRule rule, int order) {
        this.pathType = pathType;
        this.pathValue = pathValue;
        this.method = method;
        this.headerNames = headerNames;
        this.headerValues = headerValues;
        this.regex = regex;
        this.rule = rule;
        this.order = order;
    }

    boolean accepts(HttpMethod m, HttpHeaders headers) {
        if (method != null && !method.equals(m.name())
                && !(method.equals("GET") && m == HttpMethod.HEAD)) {
            return false;
        }
        for (int i = 0; i < headerNames.length; i++) {
            if (!headerValues[i].equals(headers.get(headerNames[i]))) {
                return false;
            }
        }
        return true;
    }

    /** Gateway API precedence among equal paths: a method match first, then more header matches. */
    int specificity() {
        return (method != null ? 1000 : 0) + headerNames.length;
    }
}
