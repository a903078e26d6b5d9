package dev.strait.proxy.handler.files;

/**
 * Entity-tag comparison (RFC 9110 8.8.3.2) against the strong tag we send, without splitting or
 * allocating: a list is walked in place, quoted tags may contain commas.
 */
final class EntityTags {
    private EntityTags() {}

    /**
     * Whether a list of tags, or {@code *}, matches {@code etag} (a quoted strong tag).
     *
     * @param weak weak comparison (If-None-Match): a {@code W/} tag matches its strong twin;
     *             strong comparison (If-Match): only strong tags match
     */
    static boolean matches(String list, String etag, boolean weak) {
        int n = list.length();
        int i = 0;
        while (i < n) {
            char c = list.charAt(i);
            if (c == ' ' || c == '\t' || c == ',') {
                i++;
                continue;
            }
            if (c == '*') {
                return true;
            }
            boolean isWeak = false;
            if (c == 'W' && i + 1 < n && list.charAt(i + 1) == '/') {
                isWeak = true;
                i += 2;
            }
            if (i >= n || list.charAt(i) != '"') {
                return false; // malformed: stop, nothing matched
            }
            int close = list.indexOf('"', i + 1);
            if (close < 0) {
                return false;
            }
            int len = close + 1 - i;
            if ((weak || !isWeak) && len == etag.length() && list.regionMatches(i, etag, 0, len)) {
                return true;
            }
            i = close + 1;
        }
        return false;
    }
}
