package dev.strait.proxy.http;

import java.nio.charset.StandardCharsets;

/** Percent-encoding for text that must travel as one URI component or one field value. */
public final class PercentEncoding {
    private PercentEncoding() {}

    /**
     * Every byte of {@code s}'s UTF-8 but RFC 3986's unreserved characters as {@code %XX}: a URL that is one query
     * value, a PEM certificate in one header line (nginx's {@code $ssl_client_escaped_cert}).
     */
    public static String component(String s) {
        StringBuilder out = new StringBuilder(s.length() + 16);
        for (byte b : s.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '.'
                    || c == '_' || c == '~') {
                out.append((char) c);
            } else {
                out.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 15, 16)));
            }
        }
        return out.toString();
    }
}
