package dev.strait.model;

import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.UnknownHostException;

/**
 * An IP address or CIDR block as written in config: {@code 10.0.0.0/8}, {@code 192.0.2.7} (one address),
 * {@code fd00::/8}, {@code ::1}. Literal addresses only: nothing here ever looks a name up.
 *
 * @param text   as written
 * @param v6     an IPv6 block; IPv4 addresses are matched in their own 32 bits
 * @param high   the first 64 bits of an IPv6 block's address (0 for IPv4)
 * @param low    the last 64 bits of an IPv6 block's address, or the IPv4 address
 * @param bits   the prefix length: 0..32 for IPv4, 0..128 for IPv6
 */
public record IpBlock(String text, boolean v6, long high, long low, int bits) {

    /**
     * Parses an address or {@code address/bits}; the bits past the prefix must be zero, so that
     * {@code 10.1.2.3/8} is not taken for {@code 10.0.0.0/8} unnoticed.
     *
     * @throws IllegalArgumentException with a message fit to follow a field path
     */
    public static IpBlock parse(String text) {
        int slash = text.indexOf('/');
        String address = slash < 0 ? text : text.substring(0, slash);
        boolean v6 = address.indexOf(':') >= 0;
        long high = 0;
        long low;
        if (v6) {
            byte[] b = v6Literal(address, text);
            for (int i = 0; i < 8; i++) {
                high = high << 8 | (b[i] & 0xff);
            }
            low = 0;
            for (int i = 8; i < 16; i++) {
                low = low << 8 | (b[i] & 0xff);
            }
        } else {
            low = v4Literal(address, text);
        }
        int max = v6 ? 128 : 32;
        int bits = max;
        if (slash >= 0) {
            String b = text.substring(slash + 1);
            if (b.isEmpty() || b.length() > 3 || !b.chars().allMatch(c -> c >= '0' && c <= '9')
                    || Integer.parseInt(b) > max) {
                throw new IllegalArgumentException("\"" + text + "\": the prefix length must be 0.." + max);
            }
            bits = Integer.parseInt(b);
        }
        if (v6 && bits >= 96 && high == 0 && (low >>> 32) == 0xffffL) {
            // ::ffff:10.0.0.0/104 is 10.0.0.0/8: peers show as IPv4 addresses (see contains)
            v6 = false;
            low &= 0xffffffffL;
            bits -= 96;
        }
        IpBlock block = new IpBlock(text, v6, high, low, bits);
        if (block.high != (high & block.highMask()) || block.low != (low & block.lowMask())) {
            throw new IllegalArgumentException("\"" + text + "\" has address bits past its /" + bits
                    + " prefix; write the block's first address");
        }
        return block;
    }

    /**
     * What nginx makes of an {@code allow} entry with bits past its prefix (it warns and masks them):
     * {@code 10.1.2.3/8} is {@code 10.0.0.0/8}. For text written for nginx (ingress-nginx's annotations);
     * a config's own lists use {@link #parse}, which refuses such text.
     *
     * @throws IllegalArgumentException as {@link #parse}, for text that is no address or block
     */
    public static IpBlock parseMasked(String text) {
        int slash = text.indexOf('/');
        if (slash < 0) {
            return parse(text);
        }
        IpBlock whole = parse(text.substring(0, slash));
        IpBlock probe = new IpBlock(text, whole.v6, 0, 0, whole.v6 ? 128 : 32);
        String bits = text.substring(slash + 1);
        if (bits.isEmpty() || bits.length() > 3 || !bits.chars().allMatch(c -> c >= '0' && c <= '9')
                || Integer.parseInt(bits) > probe.bits) {
            return parse(text); // the prefix is what is wrong: parse says so
        }
        IpBlock masked = new IpBlock(text, whole.v6, 0, 0, Integer.parseInt(bits));
        long high = whole.high & masked.highMask();
        long low = whole.low & masked.lowMask();
        byte[] b = new byte[whole.v6 ? 16 : 4];
        for (int i = 0; i < b.length; i++) {
            int shift = 8 * (b.length == 4 ? 3 - i : 7 - i % 8);
            b[i] = (byte) ((b.length == 16 && i < 8 ? high : low) >>> shift);
        }
        try {
            return parse(InetAddress.getByAddress(b).getHostAddress() + "/" + bits);
        } catch (UnknownHostException e) {
            throw new IllegalStateException(e); // not reached: 4 or 16 bytes
        }
    }

    /** Whether {@code a} lies in any of {@code blocks}. */
    public static boolean anyContains(java.util.List<IpBlock> blocks, InetAddress a) {
        for (IpBlock b : blocks) {
            if (b.contains(a)) {
                return true;
            }
        }
        return false;
    }

    /** Whether {@code a} lies in this block; an IPv4-mapped IPv6 address ({@code ::ffff:10.1.2.3}) counts as IPv4. */
    public boolean contains(InetAddress a) {
        byte[] b = a.getAddress();
        if (b.length == 16 && isV4Mapped(b)) {
            b = new byte[] {b[12], b[13], b[14], b[15]};
        }
        if (b.length == 4) {
            if (v6) {
                return false;
            }
            long v = (b[0] & 0xffL) << 24 | (b[1] & 0xffL) << 16 | (b[2] & 0xffL) << 8 | (b[3] & 0xffL);
            return (v & lowMask()) == low;
        }
        if (!v6) {
            return false;
        }
        long h = 0;
        long l = 0;
        for (int i = 0; i < 8; i++) {
            h = h << 8 | (b[i] & 0xff);
            l = l << 8 | (b[i + 8] & 0xff);
        }
        return (h & highMask()) == high && (l & lowMask()) == low;
    }

    private long highMask() {
        if (!v6) {
            return 0;
        }
        return bits >= 64 ? -1L : bits == 0 ? 0 : -1L << (64 - bits);
    }

    private long lowMask() {
        if (!v6) {
            return bits == 0 ? 0 : (0xffffffffL << (32 - bits)) & 0xffffffffL;
        }
        return bits <= 64 ? 0 : bits == 128 ? -1L : -1L << (128 - bits);
    }

    private static boolean isV4Mapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return b[10] == (byte) 0xff && b[11] == (byte) 0xff;
    }

    /** Four decimal numbers 0..255 joined by dots, nothing else (no {@code 10.1} shorthand, no names). */
    private static long v4Literal(String s, String text) {
        String[] parts = s.split("\\.", -1);
        long v = 0;
        boolean ok = parts.length == 4;
        for (int i = 0; ok && i < 4; i++) {
            String p = parts[i];
            ok = !p.isEmpty() && p.length() <= 3 && p.chars().allMatch(c -> c >= '0' && c <= '9')
                    && Integer.parseInt(p) <= 255;
            v = ok ? v << 8 | Integer.parseInt(p) : 0;
        }
        if (!ok) {
            throw new IllegalArgumentException("\"" + text + "\" is not an IP address or CIDR block"
                    + " (10.0.0.0/8, 192.0.2.7, fd00::/8)");
        }
        return v;
    }

    /** An IPv6 literal: hex digits, ':' and a dotted IPv4 tail only, so the JDK parses it without a lookup. */
    private static byte[] v6Literal(String s, String text) {
        // The first character too: the JDK looks up what does not start like a literal (".::1").
        boolean chars = !s.isEmpty() && (s.charAt(0) == ':' || Character.digit(s.charAt(0), 16) >= 0) && s.chars().allMatch(c -> c >= '0' && c <= '9' || c >= 'a' && c <= 'f'
                || c >= 'A' && c <= 'F' || c == ':' || c == '.');
        if (chars) {
            try {
                InetAddress a = InetAddress.getByName(s);
                byte[] b = a.getAddress();
                if (b.length == 16 && a instanceof Inet6Address) {
                    return b;
                }
                if (b.length == 4) { // the JDK gives an IPv4-mapped literal back as IPv4
                    return new byte[] {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, (byte) 0xff, (byte) 0xff, b[0], b[1], b[2], b[3]};
                }
            } catch (UnknownHostException e) {
                // not a literal
            }
        }
        throw new IllegalArgumentException("\"" + text + "\" is not an IP address or CIDR block"
                + " (10.0.0.0/8, 192.0.2.7, fd00::/8)");
    }

    @Override
    public String toString() {
        return text;
    }
}
