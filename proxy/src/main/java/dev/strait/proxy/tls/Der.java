package dev.strait.proxy.tls;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;

/**
 * Just enough DER for what the JDK's public API leaves to us: wrapping PKCS#1 and SEC1 keys as PKCS#8
 * ({@link PemMaterial}), writing OCSP requests and walking OCSP answers to the few fields the stapler schedules by
 * ({@code tls/ocsp}). What an answer proves (its signature, who signed it, which certificate it is about) is
 * checked by the JDK's own OCSP code, not here.
 *
 * <p>Every read is bounds-checked against the element it is in: an OCSP answer is bytes from the network.
 */
public final class Der {
    public static final int SEQUENCE = 0x30;
    public static final int INTEGER = 0x02;
    public static final int BIT_STRING = 0x03;
    public static final int OCTET_STRING = 0x04;
    public static final int NULL = 0x05;
    public static final int OID = 0x06;
    public static final int ENUMERATED = 0x0a;
    public static final int GENERALIZED_TIME = 0x18;

    private Der() {}

    /** Thrown for bytes that are not the DER expected: the caller names what it was reading. */
    public static final class Malformed extends Exception {
        public Malformed(String message) {
            super(message);
        }
    }

    /** One element: its tag, where it starts in {@code bytes} ({@code from}), and where its contents lie. */
    public record Element(byte[] bytes, int tag, int from, int start, int end) {
        public int length() {
            return end - start;
        }

        public byte[] contents() {
            return java.util.Arrays.copyOfRange(bytes, start, end);
        }

        /** The whole element, tag and length too. */
        public byte[] encoded() {
            return java.util.Arrays.copyOfRange(bytes, from, end);
        }

        /** A reader over this element's contents (a constructed element's children). */
        public Reader children() {
            return new Reader(bytes, start, end);
        }

        public boolean isContext(int number) {
            return (tag & 0xdf) == (0x80 | number); // context class, primitive or constructed
        }

        public Element expect(int want, String what) throws Malformed {
            if (tag != want) {
                throw new Malformed(what + ": tag 0x" + Integer.toHexString(tag) + " where 0x"
                        + Integer.toHexString(want) + " was expected");
            }
            return this;
        }

        /** A GeneralizedTime ({@code YYYYMMDDHHMMSS[.fff]Z}, as RFC 5280 4.1.2.5.2 has it). */
        public Instant time(String what) throws Malformed {
            expect(GENERALIZED_TIME, what);
            String s = new String(bytes, start, length(), StandardCharsets.US_ASCII);
            if (s.length() < 15 || !s.endsWith("Z")) {
                throw new Malformed(what + ": not a UTC GeneralizedTime: " + s);
            }
            try {
                Instant whole = LocalDateTime.parse(s.substring(0, 14), DateTimeFormatter.ofPattern("yyyyMMddHHmmss"))
                        .toInstant(ZoneOffset.UTC);
                return whole; // fractions of a second do not move a schedule
            } catch (DateTimeParseException e) {
                throw new Malformed(what + ": not a GeneralizedTime: " + s);
            }
        }
    }

    /** Reads the elements one after another between two offsets. */
    public static final class Reader {
        private final byte[] bytes;
        private int at;
        private final int end;

        public Reader(byte[] bytes) {
            this(bytes, 0, bytes.length);
        }

        private Reader(byte[] bytes, int start, int end) {
            this.bytes = bytes;
            this.at = start;
            this.end = end;
        }

        public boolean hasNext() {
            return at < end;
        }

        /** The next element's tag without reading it, or -1 at the end. */
        public int peekTag() {
            return at < end ? bytes[at] & 0xff : -1;
        }

        public Element next(String what) throws Malformed {
            if (at + 2 > end) {
                throw new Malformed(what + ": missing");
            }
            int from = at;
            int tag = bytes[at] & 0xff;
            if ((tag & 0x1f) == 0x1f) {
                throw new Malformed(what + ": a multi-byte tag"); // none in OCSP
            }
            int len = bytes[at + 1] & 0xff;
            int p = at + 2;
            if (len >= 0x80) {
                int n = len & 0x7f;
                if (n == 0 || n > 3 || p + n > end) {
                    throw new Malformed(what + ": a length of " + n + " bytes");
                }
                len = 0;
                for (int i = 0; i < n; i++) {
                    len = (len << 8) | (bytes[p++] & 0xff);
                }
            }
            if (len > end - p) {
                throw new Malformed(what + ": " + len + " bytes, only " + (end - p) + " left");
            }
            at = p + len;
            return new Element(bytes, tag, from, p, p + len);
        }
    }

    /** An element with {@code contents}, as DER bytes. */
    public static byte[] element(int tag, byte[]... contents) {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        for (byte[] c : contents) {
            body.writeBytes(c);
        }
        int n = body.size();
        ByteArrayOutputStream out = new ByteArrayOutputStream(n + 6);
        out.write(tag);
        if (n < 0x80) {
            out.write(n);
        } else if (n < 0x100) {
            out.write(0x81);
            out.write(n);
        } else if (n < 0x10000) {
            out.write(0x82);
            out.write(n >> 8);
            out.write(n);
        } else {
            out.write(0x83);
            out.write(n >> 16);
            out.write(n >> 8);
            out.write(n);
        }
        out.writeBytes(body.toByteArray());
        return out.toByteArray();
    }

    public static byte[] sequence(byte[]... contents) {
        return element(SEQUENCE, contents);
    }

    /** An OBJECT IDENTIFIER from its dotted form. */
    public static byte[] oid(String dotted) {
        String[] parts = dotted.split("\\.");
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        base128(body, Long.parseLong(parts[0]) * 40 + Long.parseLong(parts[1]));
        for (int i = 2; i < parts.length; i++) {
            base128(body, Long.parseLong(parts[i]));
        }
        return element(OID, body.toByteArray());
    }

    private static void base128(ByteArrayOutputStream out, long v) {
        int groups = 1;
        for (long x = v >>> 7; x != 0; x >>>= 7) {
            groups++;
        }
        for (int g = groups - 1; g >= 0; g--) {
            int b = (int) ((v >>> (7 * g)) & 0x7f);
            out.write(g == 0 ? b : b | 0x80);
        }
    }

    /** Whether {@code e} is the OBJECT IDENTIFIER {@code dotted}. */
    public static boolean isOid(Element e, String dotted) {
        byte[] want = oid(dotted);
        return e.tag() == OID && e.length() == want.length - 2
                && java.util.Arrays.equals(e.bytes(), e.start(), e.end(), want, 2, want.length);
    }
}
