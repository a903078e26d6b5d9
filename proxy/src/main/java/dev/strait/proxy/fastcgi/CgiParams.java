package dev.strait.proxy.fastcgi;

import dev.strait.proxy.http.Exchange;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import io.netty.util.NetUtil;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * The CGI meta-variables (RFC 3875 4.1) a FastCGI request carries, the set nginx's {@code fastcgi.conf}
 * sends, computed from the exchange and the rule's {@code fastcgi} settings; the rule's {@code params}
 * come last and replace computed ones of the same name.
 *
 * <p>Request headers become {@code HTTP_*} variables, except:
 * <ul>
 *   <li>{@code Proxy}: never {@code HTTP_PROXY}, which CGI libraries read as their outgoing proxy
 *       (httpoxy, CVE-2016-5385);
 *   <li>names with anything but letters, digits and '-' (notably '_'): {@code X_Foo} and {@code X-Foo}
 *       would both become {@code HTTP_X_FOO}, letting a client forge a header a front proxy set (nginx
 *       drops them too);
 *   <li>{@code Content-Type} and {@code Content-Length} (they are {@code CONTENT_TYPE} and
 *       {@code CONTENT_LENGTH}), and hop-by-hop headers, which describe the client connection.
 * </ul>
 * Repeated headers are joined with ", " ({@code Cookie} with "; ").
 */
final class CgiParams {
    private static final Set<String> NOT_PASSED = Set.of("proxy", "content-type", "content-length", "connection",
            "keep-alive", "proxy-connection", "transfer-encoding", "te", "trailer", "upgrade", "expect");

    private CgiParams() {}

    /**
     * @param contentLength CONTENT_LENGTH: the decoded body's length, or "" without a body
     * @param root          the document root, bytes as chars, without a trailing '/'
     * @param overrides     the rule's params, written last; computed params of the same name are left out
     */
    static void write(FastCgiRecords.ParamsWriter w, Exchange ex, ScriptPath script, String contentLength, String root,
                      Map<String, String> overrides) {
        Params p = new Params(w, overrides);
        HttpHeaders headers = ex.request().headers();
        String query = ex.query();
        String contentType = headers.get(HttpHeaderNames.CONTENT_TYPE);
        boolean https = "https".equals(ex.scheme());
        p.add("SCRIPT_FILENAME", root + script.scriptName());
        p.add("QUERY_STRING", query == null ? "" : query);
        p.add("REQUEST_METHOD", ex.request().method().name());
        p.add("CONTENT_TYPE", contentType == null ? "" : contentType);
        p.add("CONTENT_LENGTH", contentLength);
        p.add("SCRIPT_NAME", script.scriptName());
        p.add("REQUEST_URI", requestUri(ex.request().uri()));
        p.add("DOCUMENT_URI", script.decoded());
        p.add("DOCUMENT_ROOT", root.isEmpty() ? "/" : root);
        p.add("SERVER_PROTOCOL", ex.request().protocolVersion().text());
        p.add("REQUEST_SCHEME", https ? "https" : "http");
        if (https) {
            p.add("HTTPS", "on");
        }
        p.add("GATEWAY_INTERFACE", "CGI/1.1");
        p.add("SERVER_SOFTWARE", "strait");
        SocketAddress remote = ex.clientAddress();
        if (remote instanceof InetSocketAddress r && r.getAddress() != null) {
            p.add("REMOTE_ADDR", NetUtil.toAddressString(r.getAddress()));
            // A client a trusted balancer named (ForwardedFor) comes without a port: empty, as nginx's.
            p.add("REMOTE_PORT", r.getPort() > 0 ? Integer.toString(r.getPort()) : "");
        }
        SocketAddress local = ex.localAddress();
        String serverAddr = null;
        if (local instanceof InetSocketAddress l && l.getAddress() != null) {
            serverAddr = NetUtil.toAddressString(l.getAddress());
            p.add("SERVER_ADDR", serverAddr);
            p.add("SERVER_PORT", Integer.toString(l.getPort()));
        }
        String host = ex.host();
        p.add("SERVER_NAME", host != null && !host.isEmpty() ? host : serverAddr != null ? serverAddr : "");
        // PHP built with --enable-force-cgi-redirect refuses to run without it; nginx sends it too.
        p.add("REDIRECT_STATUS", "200");
        p.add("PATH_INFO", script.pathInfo());
        headers(p, headers);
        if (overrides != null) {
            overrides.forEach(w::add);
        }
    }

    /** The request target as sent, in origin form (an absolute-form target loses scheme and authority). */
    static String requestUri(String uri) {
        if (uri.isEmpty() || uri.charAt(0) == '/') {
            return uri;
        }
        int scheme = uri.indexOf("://");
        if (scheme < 0) {
            return uri;
        }
        int path = uri.indexOf('/', scheme + 3);
        int query = uri.indexOf('?', scheme + 3);
        if (path < 0 || query >= 0 && query < path) {
            return query < 0 ? "/" : "/" + uri.substring(query);
        }
        return uri.substring(path);
    }

    private static void headers(Params p, HttpHeaders headers) {
        Set<String> connectionTokens = connectionTokens(headers);
        Map<String, String> merged = new LinkedHashMap<>();
        for (Iterator<Map.Entry<CharSequence, CharSequence>> it = headers.iteratorCharSequence(); it.hasNext(); ) {
            Map.Entry<CharSequence, CharSequence> h = it.next();
            CharSequence name = h.getKey();
            if (!plainName(name)) {
                continue;
            }
            String lower = AsciiString.of(name).toLowerCase().toString();
            if (NOT_PASSED.contains(lower) || connectionTokens != null && connectionTokens.contains(lower)) {
                continue;
            }
            String cgi = "HTTP_" + lower.toUpperCase(Locale.ROOT).replace('-', '_');
            String value = h.getValue().toString();
            merged.merge(cgi, value, (a, b) -> a + (lower.equals("cookie") ? "; " : ", ") + b);
        }
        merged.forEach(p::add);
    }

    /** Header names made of letters, digits and '-' only. */
    private static boolean plainName(CharSequence name) {
        int n = name.length();
        if (n == 0) {
            return false;
        }
        for (int i = 0; i < n; i++) {
            char c = name.charAt(i);
            if (!(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-')) {
                return false;
            }
        }
        return true;
    }

    /** Header names listed in Connection are hop-by-hop too (RFC 9110 7.6.1). */
    private static Set<String> connectionTokens(HttpHeaders headers) {
        String connection = headers.get(HttpHeaderNames.CONNECTION);
        if (connection == null) {
            return null;
        }
        Set<String> tokens = new java.util.HashSet<>();
        for (String t : connection.split(",")) {
            tokens.add(t.trim().toLowerCase(Locale.ROOT));
        }
        return tokens;
    }

    /** Writes params, leaving out the ones the rule overrides; a pair too long for a record is dropped. */
    private record Params(FastCgiRecords.ParamsWriter w, Map<String, String> overrides) {
        void add(String name, String value) {
            if (overrides == null || !overrides.containsKey(name)) {
                w.add(name, value);
            }
        }
    }
}
