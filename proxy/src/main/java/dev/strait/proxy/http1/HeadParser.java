package dev.strait.proxy.http1;

import dev.strait.model.Limits.UnderscoreHeaders;
import dev.strait.proxy.http.RequestTokens;
import io.netty.handler.codec.http.DefaultHttpHeadersFactory;
import io.netty.handler.codec.http.DefaultHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpHeadersFactory;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;

/**
 * Parses one complete HTTP/1.1 request head (request line, fields, blank line) strictly, as a proxy in
 * front of other servers must: whatever two parsers could read differently is refused (RFC 9112 2.2,
 * 3, 5, 6.1-6.3 and 11.2). Lines end in CRLF only; no obs-fold; names are tokens with the colon right
 * after; values hold no control characters; one Host; one Content-Length of digits; Transfer-Encoding
 * only as a final, single {@code chunked}, never with Content-Length or in HTTP/1.0.
 *
 * <p>Pure and allocation-light (common names and methods are shared constants), so it is also what the
 * fuzz tests drive.
 */
public final class HeadParser {
    /** Fields arrive validated here, so the header map does not check them again. */
    private static final HttpHeadersFactory HEADERS = DefaultHttpHeadersFactory.headersFactory().withValidation(false);

    /** The obsolete {@code Proxy-Connection} field, connection-specific wherever it appears (Netty's constant is deprecated). */
    public static final AsciiString PROXY_CONNECTION = AsciiString.cached("proxy-connection");

    /** Request fields that may not come in a trailer: they frame, route or authorise the request. */
    private static final AsciiString[] TRAILER_FORBIDDEN = {
            HttpHeaderNames.CONTENT_LENGTH, HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.HOST,
            HttpHeaderNames.CONNECTION, HttpHeaderNames.KEEP_ALIVE, HttpHeaderNames.TE, HttpHeaderNames.TRAILER,
            HttpHeaderNames.UPGRADE, HttpHeaderNames.EXPECT, HttpHeaderNames.AUTHORIZATION,
            HttpHeaderNames.CONTENT_TYPE, HttpHeaderNames.CONTENT_ENCODING, HttpHeaderNames.PROXY_AUTHORIZATION,
            PROXY_CONNECTION};

    /** Whether a request trailer may not carry {@code name} (HTTP/2 trailers are checked against it too). */
    public static boolean forbiddenInTrailer(CharSequence name) {
        for (AsciiString forbidden : TRAILER_FORBIDDEN) {
            if (forbidden.contentEqualsIgnoreCase(name)) {
                return true;
            }
        }
        return false;
    }

    /** Names as clients usually spell them, shared instead of copied per request. */
    private static final KnownNames KNOWN_NAMES = KnownNames.of(
            "Host", "User-Agent", "Accept", "Accept-Encoding", "Accept-Language", "Connection", "Content-Length",
            "Content-Type", "Transfer-Encoding", "Cookie", "Authorization", "Cache-Control", "Pragma", "Referer",
            "Origin", "Expect", "Upgrade", "Range", "If-Range", "If-None-Match", "If-Modified-Since", "TE",
            "Keep-Alive", "X-Forwarded-For", "X-Forwarded-Proto", "X-Forwarded-Host", "X-Request-Id",
            "X-Real-IP", "Sec-WebSocket-Key", "Sec-WebSocket-Version", "Sec-WebSocket-Extensions",
            "Sec-WebSocket-Protocol", "Sec-Fetch-Mode", "Sec-Fetch-Site", "Sec-Fetch-Dest", "Upgrade-Insecure-Requests",
            "DNT", "Priority", "Content-Encoding", "Trailer");

    private static final HttpMethod[] METHODS = {
            HttpMethod.GET, HttpMethod.POST, HttpMethod.HEAD, HttpMethod.PUT, HttpMethod.DELETE, HttpMethod.OPTIONS,
            HttpMethod.PATCH, HttpMethod.TRACE, HttpMethod.CONNECT};

    /**
     * A parsed head.
     *
     * @param contentLength the declared length, or -1 when there is none
     * @param chunked       whether the body is chunked
     */
    public record Head(HttpRequest request, long contentLength, boolean chunked) {
        public boolean hasBody() {
            return chunked || contentLength > 0;
        }
    }

    private HeadParser() {}

    /**
     * @param b         bytes from the request line's first byte
     * @param end       index just past the head's final CRLF CRLF
     * @param maxFields more fields than this is a 431
     * @param underscores what to do with names that contain {@code _}
     */
    public static Head parse(byte[] b, int end, int maxFields, UnderscoreHeaders underscores) throws Http1Violation {
        // ---- request line: method SP request-target SP HTTP-version CRLF
        int i = 0;
        while (i < end && RequestTokens.token(b[i] & 0xff)) {
            i++;
        }
        if (i == 0 || i >= end || b[i] != ' ') {
            throw Http1Violation.bad("malformed method");
        }
        HttpMethod method = method(b, i);
        int targetStart = ++i;
        while (i < end && b[i] > 0x20 && b[i] < 0x7f && b[i] != '#') {
            i++;
        }
        if (i == targetStart || i >= end || b[i] != ' ') {
            throw Http1Violation.bad("malformed request target");
        }
        String uri = new String(b, targetStart, i - targetStart, StandardCharsets.ISO_8859_1);
        i++;
        if (i + 10 > end || b[i] != 'H' || b[i + 1] != 'T' || b[i + 2] != 'T' || b[i + 3] != 'P' || b[i + 4] != '/'
                || !digit(b[i + 5]) || b[i + 6] != '.' || !digit(b[i + 7]) || b[i + 8] != '\r' || b[i + 9] != '\n') {
            throw Http1Violation.bad("malformed HTTP version");
        }
        int major = b[i + 5] - '0';
        int minor = b[i + 7] - '0';
        if (major != 1) {
            throw new Http1Violation(HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED, "HTTP/" + major + "." + minor);
        }
        HttpVersion version = minor == 0 ? HttpVersion.HTTP_1_0 : HttpVersion.HTTP_1_1;
        i += 10;

        HttpHeaders headers = HEADERS.newHeaders();
        Framing framing = new Framing();
        parseFields(b, i, end, maxFields, underscores, headers, framing, false);
        if (framing.hosts > 1 || framing.hosts == 0 && minor >= 1) {
            throw Http1Violation.bad(framing.hosts == 0 ? "no Host" : "more than one Host");
        }
        if (framing.transferEncodings > 0) {
            if (minor == 0) {
                throw Http1Violation.bad("Transfer-Encoding in HTTP/1.0");
            }
            if (framing.contentLength >= 0 || framing.contentLengths > 0) {
                throw Http1Violation.bad("both Content-Length and Transfer-Encoding");
            }
        }
        if (method == HttpMethod.CONNECT) {
            // Not a forward proxy: no resource here takes CONNECT (RFC 9110 15.6.2), so 501, which needs no Allow.
            throw new Http1Violation(HttpResponseStatus.NOT_IMPLEMENTED, "CONNECT");
        }
        HttpRequest request = new DefaultHttpRequest(version, method, uri, headers);
        return new Head(request, framing.contentLength, framing.transferEncodings > 0);
    }

    /**
     * Parses a chunked body's trailer section ({@code from} just past the last chunk's CRLF, {@code end}
     * just past the closing blank line) into {@code into}; fields that frame or route a request are refused.
     */
    public static void parseTrailers(byte[] b, int from, int end, int maxFields, HttpHeaders into) throws Http1Violation {
        parseFields(b, from, end, maxFields, UnderscoreHeaders.DROP, into, null, true);
    }

    private static final class Framing {
        int hosts;
        int contentLengths;
        long contentLength = -1;
        int transferEncodings;
    }

    private static void parseFields(byte[] b, int i, int end, int maxFields, UnderscoreHeaders underscores,
                                    HttpHeaders headers, Framing framing, boolean trailers) throws Http1Violation {
        int fields = 0;
        int[] at = new int[3];
        while (true) {
            if (i + 1 >= end) {
                throw Http1Violation.bad("head ends inside a field line");
            }
            if (b[i] == '\r') {
                if (b[i + 1] != '\n' || i + 2 != end) {
                    throw Http1Violation.bad("bare CR");
                }
                return;
            }
            int nameStart = i;
            i = fieldLine(b, i, at);
            int nameEnd = at[0];
            int valueStart = at[1];
            int valueEnd = at[2];
            if (++fields > maxFields) {
                throw new Http1Violation(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "too many fields");
            }
            if (underscores != UnderscoreHeaders.ALLOW && hasUnderscore(b, nameStart, nameEnd)) {
                // X_Real_IP and X-Real-IP are one CGI variable; a client's spelling must not shadow ours.
                if (underscores == UnderscoreHeaders.REJECT) {
                    throw Http1Violation.bad("underscore in a field name");
                }
                continue;
            }
            AsciiString name = KNOWN_NAMES.name(b, nameStart, nameEnd);
            if (trailers) {
                if (forbiddenInTrailer(name)) {
                    throw Http1Violation.bad("trailer field " + name + " not allowed");
                }
            } else if (framing != null) {
                frame(framing, name, b, valueStart, valueEnd);
            }
            headers.add(name, new String(b, valueStart, valueEnd - valueStart, StandardCharsets.ISO_8859_1));
        }
    }

    /**
     * Parses the field line at {@code i} ({@code field-name ":" OWS field-value OWS CRLF}) of a section
     * that ends in CRLF CRLF (so every scan stops at a CR): the name is a token with the colon right after,
     * the value holds no control character, the line ends in CRLF. Stores the name's end and the value's
     * trimmed bounds in {@code at[0..2]}; returns the index just past the line's CRLF.
     */
    public static int fieldLine(byte[] b, int i, int[] at) throws Http1Violation {
        int nameStart = i;
        while (RequestTokens.token(b[i] & 0xff)) {
            i++;
        }
        if (i == nameStart) {
            throw Http1Violation.bad(b[i] == ' ' || b[i] == '\t' ? "obs-fold or whitespace before a field name"
                    : "malformed field name");
        }
        if (b[i] != ':') {
            throw Http1Violation.bad(b[i] == ' ' || b[i] == '\t' ? "whitespace before the colon"
                    : "malformed field name");
        }
        at[0] = i++;
        while (b[i] == ' ' || b[i] == '\t') {
            i++;
        }
        int valueStart = i;
        int valueEnd = i;
        while (true) {
            int c = b[i] & 0xff;
            if (c == '\r') {
                break;
            }
            if (c < 0x20 && c != '\t' || c == 0x7f) {
                throw Http1Violation.bad(c == '\n' ? "bare LF" : "control character in a field value");
            }
            i++;
            if (c != ' ' && c != '\t') {
                valueEnd = i;
            }
        }
        if (b[i + 1] != '\n') {
            throw Http1Violation.bad("bare CR");
        }
        at[1] = valueStart;
        at[2] = valueEnd;
        return i + 2;
    }

    private static void frame(Framing f, AsciiString name, byte[] b, int from, int to) throws Http1Violation {
        if (name.length() == 4 && HttpHeaderNames.HOST.contentEqualsIgnoreCase(name)) {
            f.hosts++;
            if (!validHost(b, from, to)) {
                throw Http1Violation.bad("malformed Host");
            }
        } else if (name.length() == 14 && HttpHeaderNames.CONTENT_LENGTH.contentEqualsIgnoreCase(name)) {
            if (++f.contentLengths > 1) {
                throw Http1Violation.bad("more than one Content-Length");
            }
            if (to - from < 1 || to - from > 18) {
                throw Http1Violation.bad("malformed Content-Length");
            }
            long n = 0;
            for (int k = from; k < to; k++) {
                if (!digit(b[k])) {
                    throw Http1Violation.bad("malformed Content-Length");
                }
                n = n * 10 + (b[k] - '0');
            }
            f.contentLength = n;
        } else if (name.length() == 17 && HttpHeaderNames.TRANSFER_ENCODING.contentEqualsIgnoreCase(name)) {
            if (++f.transferEncodings > 1) {
                throw Http1Violation.bad("more than one Transfer-Encoding");
            }
            transferCoding(b, from, to);
        }
    }

    /** Only a single, final {@code chunked}: anything else is 400 (misplaced) or 501 (not known). */
    private static void transferCoding(byte[] b, int from, int to) throws Http1Violation {
        String value = new String(b, from, to - from, StandardCharsets.ISO_8859_1);
        if (value.equalsIgnoreCase("chunked")) {
            return;
        }
        String[] codings = value.split(",", -1);
        int chunked = 0;
        for (String c : codings) {
            String t = c.strip();
            if (t.isEmpty()) {
                throw Http1Violation.bad("empty transfer coding");
            }
            if (t.equalsIgnoreCase("chunked")) {
                chunked++;
            }
        }
        boolean last = codings[codings.length - 1].strip().equalsIgnoreCase("chunked");
        if (chunked > 1 || chunked == 1 && !last) {
            throw Http1Violation.bad("chunked must be the single, final transfer coding");
        }
        // Not exactly "chunked", so some coding here is one we do not decode.
        throw new Http1Violation(HttpResponseStatus.NOT_IMPLEMENTED, "transfer coding " + value);
    }

    /** {@link #validHost(byte[], int, int)} for an absolute-form target's authority. */
    static boolean validHost(String authority) {
        byte[] b = authority.getBytes(java.nio.charset.StandardCharsets.ISO_8859_1);
        return validHost(b, 0, b.length);
    }

    /** uri-host [ ":" port ]: a reg-name or an IP literal, no userinfo, path or list. */
    private static boolean validHost(byte[] b, int from, int to) {
        if (from == to) {
            return true; // an empty Host is allowed when the target has no authority (RFC 9112 3.2)
        }
        int i = from;
        if (b[i] == '[') {
            while (i < to && b[i] != ']') {
                int c = b[i];
                if (!(digit(b[i]) || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == ':' || c == '.' || c == '[')) {
                    return false;
                }
                i++;
            }
            if (i == to) {
                return false;
            }
            i++;
        } else {
            while (i < to && b[i] != ':') {
                int c = b[i];
                if (!(digit(b[i]) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '-' || c == '.' || c == '_'
                        || c == '~' || c == '%' || c == '!' || c == '$' || c == '&' || c == '\'' || c == '('
                        || c == ')' || c == '*' || c == '+' || c == ';' || c == '=')) {
                    return false;
                }
                i++;
            }
        }
        if (i < to) {
            if (b[i] != ':' || to - i > 6) {
                return false;
            }
            for (int k = i + 1; k < to; k++) {
                if (!digit(b[k])) {
                    return false;
                }
            }
        }
        return true;
    }

    private static boolean hasUnderscore(byte[] b, int from, int to) {
        for (int k = from; k < to; k++) {
            if (b[k] == '_') {
                return true;
            }
        }
        return false;
    }

    private static boolean digit(byte c) {
        return c >= '0' && c <= '9';
    }

    private static HttpMethod method(byte[] b, int len) {
        for (HttpMethod m : METHODS) {
            if (KnownNames.equals(m.asciiName(), b, 0, len)) {
                return m;
            }
        }
        return HttpMethod.valueOf(new String(b, 0, len, StandardCharsets.ISO_8859_1));
    }
}
