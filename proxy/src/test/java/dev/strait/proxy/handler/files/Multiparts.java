package dev.strait.proxy.handler.files;

import static java.nio.charset.StandardCharsets.ISO_8859_1;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A strict reader of {@code multipart/byteranges} bodies (RFC 9110 14.6, RFC 2046 5.1.1) for tests: each
 * part's bytes are taken by the length its {@code Content-Range} names, so binary content cannot confuse
 * it, and every delimiter must be where that length puts it, up to the closing one at the very end.
 */
final class Multiparts {
    private static final Pattern BOUNDARY = Pattern.compile("multipart/byteranges; boundary=([0-9A-Za-z'()+_,./:=?-]{1,70})");
    private static final Pattern RANGE = Pattern.compile("bytes (\\d+)-(\\d+)/(\\d+)");

    /** One part: its header fields (names in lower case), the range it names, and its bytes. */
    record Part(Map<String, String> headers, long first, long last, long size, byte[] bytes) {
        String contentRange() {
            return headers.get("content-range");
        }
    }

    private Multiparts() {}

    static List<Part> parse(String contentType, byte[] body) {
        assertThat(contentType).as("Content-Type").isNotNull();
        Matcher m = BOUNDARY.matcher(contentType);
        assertThat(m.matches()).as("a multipart/byteranges Content-Type with a boundary: %s", contentType).isTrue();
        byte[] delimiter = ("--" + m.group(1)).getBytes(ISO_8859_1);
        List<Part> parts = new ArrayList<>();
        int at = expect(body, 0, delimiter);
        while (true) {
            if (startsWith(body, at, "--\r\n".getBytes(ISO_8859_1))) {
                assertThat(at + 4).as("the closing delimiter ends the body").isEqualTo(body.length);
                break;
            }
            at = expect(body, at, "\r\n".getBytes(ISO_8859_1));
            Map<String, String> headers = new LinkedHashMap<>();
            while (!startsWith(body, at, "\r\n".getBytes(ISO_8859_1))) {
                int eol = indexOf(body, at, "\r\n".getBytes(ISO_8859_1));
                assertThat(eol).as("a header line ends").isGreaterThan(at);
                String line = new String(body, at, eol - at, ISO_8859_1);
                int colon = line.indexOf(':');
                assertThat(colon).as("a header line: %s", line).isPositive();
                assertThat(headers.put(line.substring(0, colon).toLowerCase(Locale.ROOT), line.substring(colon + 1).trim()))
                        .as("once: %s", line).isNull();
                at = eol + 2;
            }
            at += 2;
            String range = headers.get("content-range");
            assertThat(range).as("each part has a Content-Range").isNotNull();
            Matcher r = RANGE.matcher(range);
            assertThat(r.matches()).as("Content-Range %s", range).isTrue();
            long first = Long.parseLong(r.group(1));
            long last = Long.parseLong(r.group(2));
            int n = (int) (last - first + 1);
            assertThat(at + n).as("the part's bytes are there").isLessThanOrEqualTo(body.length);
            parts.add(new Part(headers, first, last, Long.parseLong(r.group(3)), Arrays.copyOfRange(body, at, at + n)));
            at = expect(body, at + n, "\r\n".getBytes(ISO_8859_1));
            at = expect(body, at, delimiter);
        }
        assertThat(parts).as("a multipart answer has two parts or more").hasSizeGreaterThan(1);
        return parts;
    }

    private static int expect(byte[] body, int at, byte[] what) {
        assertThat(startsWith(body, at, what)).as("\"%s\" at %d of %d in %s", new String(what, ISO_8859_1), at,
                body.length, new String(body, 0, Math.min(body.length, at + 40), ISO_8859_1)).isTrue();
        return at + what.length;
    }

    private static boolean startsWith(byte[] body, int at, byte[] what) {
        return at + what.length <= body.length && Arrays.equals(body, at, at + what.length, what, 0, what.length);
    }

    private static int indexOf(byte[] body, int from, byte[] what) {
        for (int i = from; i + what.length <= body.length; i++) {
            if (startsWith(body, i, what)) {
                return i;
            }
        }
        return -1;
    }
}
