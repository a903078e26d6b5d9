package dev.strait.proxy.handler.files;

import java.util.Arrays;

/**
 * One byte range of a representation, and what a {@code Range: bytes=...} header asks of a file
 * (RFC 9110 14.1.2, 14.2). One range is answered as a plain 206; several as a 206 with a
 * {@code multipart/byteranges} body ({@link Multipart}), within the limits of {@link #parse}.
 *
 * @param first first byte, inclusive
 * @param last  last byte, inclusive
 */
record ByteRange(long first, long last) {
    /**
     * The most ranges one request may have served (after those that lie past the end are dropped); a request
     * with more gets the whole file, as nginx does beyond {@code max_ranges}. Bounds what the part headers of
     * one answer add (about 100 bytes each) and the work per request.
     */
    static final int MAX_RANGES = 16;

    /** No range-spec overlaps the file: 416 with {@code Content-Range: bytes *}{@code /size}. */
    static final ByteRange[] UNSATISFIABLE = {};

    long length() {
        return last - first + 1;
    }

    /**
     * The ranges to serve from a file of {@code size} bytes, in the order asked, those that overlap or touch
     * the one before them merged into it (RFC 9110 15.3.7.2 lets a server coalesce); {@link #UNSATISFIABLE}
     * when none lies within the file; or {@code null} when the header is ignored and the whole file sent
     * (RFC 9110 14.2 lets a server ignore Range): not a bytes range, malformed, more than {@link #MAX_RANGES}
     * ranges within the file, or ranges that add up to more than the file. The last is the defence of
     * nginx and Go against overlapping ranges (RFC 9110 17.15, Apache's CVE-2011-3192): {@code bytes=0-,0-,...}
     * would otherwise make one request send the file many times over.
     */
    static ByteRange[] parse(String header, long size) {
        int n = header.length();
        int i = skipSpace(header, 0);
        if (!header.regionMatches(true, i, "bytes", 0, 5)) {
            return null; // an unknown range unit is ignored (RFC 9110 14.2)
        }
        i = skipSpace(header, i + 5);
        if (i >= n || header.charAt(i) != '=') {
            return null;
        }
        ByteRange[] ranges = new ByteRange[1];
        int count = 0;
        boolean any = false;
        long sum = 0;
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
            if (first < 0 && last < 0 || first >= 0 && last >= 0 && last < first) {
                return null; // "-" or "5-4": an invalid range-spec, the header is ignored
            }
            any = true;
            ByteRange range = resolve(first, last, size);
            if (range == null) {
                continue; // past the end: left out, the others are served (RFC 9110 15.3.7.2)
            }
            if (count == MAX_RANGES) {
                return null;
            }
            sum += range.length();
            if (sum > size) {
                return null;
            }
            if (count == ranges.length) {
                ranges = Arrays.copyOf(ranges, Math.min(count * 2, MAX_RANGES));
            }
            ranges[count++] = range;
        }
        if (count == 0) {
            return any ? UNSATISFIABLE : null;
        }
        return coalesce(ranges, count);
    }

    /** The satisfiable part of one range-spec, or {@code null} when it lies past the end (or is {@code -0}). */
    private static ByteRange resolve(long first, long last, long size) {
        if (first < 0) {
            // suffix-range: the last `last` bytes; longer than the file means all of it (14.1.3)
            return last == 0 ? null : new ByteRange(Math.max(0, size - last), size - 1);
        }
        if (first >= size) {
            return null;
        }
        return new ByteRange(first, last < 0 || last >= size ? size - 1 : last);
    }

    /** Merges each range into the one kept before it when the two overlap or touch; the order stays the client's. */
    private static ByteRange[] coalesce(ByteRange[] ranges, int count) {
        int kept = 1;
        for (int j = 1; j < count; j++) {
            ByteRange p = ranges[kept - 1];
            ByteRange r = ranges[j];
            if (r.first <= p.last + 1 && r.last + 1 >= p.first) {
                ranges[kept - 1] = new ByteRange(Math.min(p.first, r.first), Math.max(p.last, r.last));
            } else {
                ranges[kept++] = r;
            }
        }
        return kept == ranges.length ? ranges : Arrays.copyOf(ranges, kept);
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
