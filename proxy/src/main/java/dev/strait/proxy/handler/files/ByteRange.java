package dev.strait.proxy.handler.files;

/**
 * One byte range of a representation, from a {@code Range: bytes=...} header (RFC 9110 14.1.2).
 * Only a single range is served as 206; a request for several is answered with the whole file,
 * which the RFC allows (a server MAY ignore Range) and spares us multipart/byteranges.
 *
 * @param first first byte, inclusive
 * @param last  last byte, inclusive
 */
record ByteRange(long first, long last) {
    /** No range-spec overlaps the file: 416 with {@code Content-Range: bytes *}{@code /size}. */
    static final ByteRange UNSATISFIABLE = new ByteRange(-1, -1);

    long length() {
        return last - first + 1;
    }

    /**
     * The range to serve from a file of {@code size} bytes, {@link #UNSATISFIABLE}, or {@code null}
     * when the header is to be ignored and the whole file sent: not a bytes range, malformed, or
     * more than one range.
     */
    static ByteRange parse(String header, long size) {
        int n = header.length();
        int i = skipSpace(header, 0);
        if (!header.regionMatches(true, i, "bytes", 0, 5)) {
            return null; // an unknown range unit is ignored (RFC 9110 14.2)
        }
        i = skipSpace(header, i + 5);
        if (i >= n || header.charAt(i) != '=') {
            return null;
        }
        ByteRange range = null;
        i++;
        while (i < n) {
            // One list element; empty elements ("a, , b") are allowed by the list syntax (RFC 9110 5.6.1).
            i = skipSpace(header, i);
            if (i < n && header.charAt(i) == ',') {
                i++;
                continue;
            }
            if (i >= n) {
                break;
            }
            if (range != null) {
                return null; // a second range: send the whole file
            }
            long first = -1;
            long last = -1;
            int start = i;
            i = skipDigits(header, i);
            if (i > start) {
                first = number(header, start, i);
            }
            if (i >= n || header.charAt(i) != '-') {
                return null;
            }
            start = ++i;
            i = skipDigits(header, i);
            if (i > start) {
                last = number(header, start, i);
            }
            i = skipSpace(header, i);
            if (i < n && header.charAt(i) != ',') {
                return null;
            }
            range = resolve(first, last, size);
            if (range == null) {
                return null;
            }
        }
        return range;
    }

    private static ByteRange resolve(long first, long last, long size) {
        if (first < 0) {
            if (last < 0) {
                return null; // "-": neither bound
            }
            // suffix-range: the last `last` bytes; longer than the file means all of it (14.1.3)
            return last == 0 ? UNSATISFIABLE : new ByteRange(Math.max(0, size - last), size - 1);
        }
        if (last >= 0 && last < first) {
            return null; // invalid range-spec: the header is ignored
        }
        if (first >= size) {
            return UNSATISFIABLE;
        }
        return new ByteRange(first, last < 0 || last >= size ? size - 1 : last);
    }

    private static int skipSpace(String s, int i) {
        while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
            i++;
        }
        return i;
    }

    private static int skipDigits(String s, int i) {
        while (i < s.length() && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
            i++;
        }
        return i;
    }

    /** A decimal number, saturating at Long.MAX_VALUE: a huge bound is only ever compared with the size. */
    private static long number(String s, int from, int to) {
        long v = 0;
        for (int i = from; i < to; i++) {
            int d = s.charAt(i) - '0';
            if (v > (Long.MAX_VALUE - d) / 10) {
                return Long.MAX_VALUE;
            }
            v = v * 10 + d;
        }
        return v;
    }
}
