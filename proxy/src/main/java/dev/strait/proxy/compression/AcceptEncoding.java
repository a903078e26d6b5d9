package dev.strait.proxy.compression;

/**
 * Whether a request's {@code Accept-Encoding} takes gzip (RFC 9110 12.5.3): {@code gzip} (or its old name
 * {@code x-gzip}) with a weight above 0, or, when neither is named, {@code *} with a weight above 0. A field
 * without gzip, with {@code gzip;q=0}, or none at all: the answer goes as it is.
 */
final class AcceptEncoding {
    private AcceptEncoding() {}

    /** @param field the request's {@code Accept-Encoding} values joined by commas, or null */
    static boolean takesGzip(String field) {
        if (field == null) {
            return false;
        }
        int gzip = -1;
        int any = -1;
        int n = field.length();
        for (int start = 0; start < n; ) {
            int end = field.indexOf(',', start);
            if (end < 0) {
                end = n;
            }
            int semi = field.indexOf(';', start);
            int tokenEnd = semi >= 0 && semi < end ? semi : end;
            String coding = field.substring(start, tokenEnd).trim();
            int weight = tokenEnd < end ? weight(field.substring(tokenEnd + 1, end)) : 1000;
            if (weight >= 0) {
                if (coding.equalsIgnoreCase("gzip") || coding.equalsIgnoreCase("x-gzip")) {
                    gzip = Math.max(gzip, weight);
                } else if (coding.equals("*")) {
                    any = Math.max(any, weight);
                }
            }
            start = end + 1;
        }
        return gzip >= 0 ? gzip > 0 : any > 0;
    }

    /**
     * The weight in thousandths of {@code params} ({@code q=0.5} is 500; without {@code q}, 1000), or -1 when
     * {@code q} is no qvalue: such an element is left out, as if not sent.
     */
    private static int weight(String params) {
        for (String p : params.split(";")) {
            String t = p.trim();
            if (t.length() < 2 || (t.charAt(0) | 0x20) != 'q' || t.charAt(1) != '=') {
                continue;
            }
            String v = t.substring(2);
            if (v.equals("1") || v.matches("1\\.0{0,3}")) {
                return 1000;
            }
            if (!v.matches("0(\\.[0-9]{0,3})?")) {
                return -1;
            }
            String digits = v.length() > 2 ? v.substring(2) : "";
            return digits.isEmpty() ? 0 : Integer.parseInt((digits + "00").substring(0, 3));
        }
        return 1000;
    }
}
