package dev.strait.proxy.http;

/**
 * What a request line may hold, for every protocol: a method is an RFC 9110 token, a target is
 * visible ASCII without '#'. HTTP/1.1's head parser checks bytes as it scans; HTTP/2 gets its
 * {@code :method} and {@code :path} as strings from HPACK and checks them here, so both refuse the
 * same requests with 400 (RFC 9113 8.3.1 leaves HTTP/2's malformed requests to the same rules).
 */
public final class RequestTokens {
    private static final boolean[] TOKEN = new boolean[256];

    static {
        for (char c = '0'; c <= '9'; c++) {
            TOKEN[c] = true;
        }
        for (char c = 'a'; c <= 'z'; c++) {
            TOKEN[c] = true;
            TOKEN[c - 32] = true;
        }
        for (char c : "!#$%&'*+-.^_`|~".toCharArray()) {
            TOKEN[c] = true;
        }
    }

    private RequestTokens() {}

    /** Whether byte or char {@code c} is a tchar. */
    public static boolean token(int c) {
        return c < 256 && TOKEN[c];
    }

    /** A non-empty token: a method name. */
    public static boolean isMethod(CharSequence s) {
        if (s.length() == 0) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            if (!token(s.charAt(i))) {
                return false;
            }
        }
        return true;
    }

    /** A non-empty request target: visible ASCII (0x21-0x7E), no fragment. */
    public static boolean isTarget(CharSequence s) {
        if (s.length() == 0) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= 0x20 || c >= 0x7f || c == '#') {
                return false;
            }
        }
        return true;
    }

    /** {@code s} with every char outside visible ASCII percent-encoded (as bytes of its low 8 bits): for logs. */
    public static String printable(CharSequence s, int max) {
        StringBuilder b = new StringBuilder(Math.min(s.length(), max) + 8);
        for (int i = 0; i < s.length() && b.length() < max; i++) {
            char c = s.charAt(i);
            if (c <= 0x20 || c >= 0x7f || c == '%') {
                b.append('%').append(Character.forDigit(c >> 4 & 0xf, 16)).append(Character.forDigit(c & 0xf, 16));
            } else {
                b.append(c);
            }
        }
        return b.toString();
    }
}
