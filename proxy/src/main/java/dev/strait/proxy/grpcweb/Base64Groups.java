package dev.strait.proxy.grpcweb;

import io.netty.buffer.ByteBuf;
import java.util.Arrays;

/**
 * Decodes base64 one group of four characters at a time: a gRPC-Web text body may be several padded pieces one
 * after another (each message base64-encoded alone), so padding may end any group, not only the last.
 */
final class Base64Groups {
    private static final byte[] VALUE = new byte[128];

    static {
        Arrays.fill(VALUE, (byte) -1);
        String alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        for (int i = 0; i < alphabet.length(); i++) {
            VALUE[alphabet.charAt(i)] = (byte) i;
        }
        VALUE['-'] = 62; // the URL-safe alphabet, which some clients use
        VALUE['_'] = 63;
    }

    private Base64Groups() {
    }

    /** Writes the one to three bytes of {@code group} (four characters) to {@code out}; false if it is not base64. */
    static boolean decode(byte[] group, ByteBuf out) {
        int a = value(group[0]);
        int b = value(group[1]);
        if (a < 0 || b < 0) {
            return false;
        }
        if (group[2] == '=') {
            if (group[3] != '=') {
                return false;
            }
            out.writeByte(a << 2 | b >> 4);
            return true;
        }
        int c = value(group[2]);
        if (c < 0) {
            return false;
        }
        if (group[3] == '=') {
            out.writeByte(a << 2 | b >> 4).writeByte((b & 0xf) << 4 | c >> 2);
            return true;
        }
        int d = value(group[3]);
        if (d < 0) {
            return false;
        }
        out.writeByte(a << 2 | b >> 4).writeByte((b & 0xf) << 4 | c >> 2).writeByte((c & 0x3) << 6 | d);
        return true;
    }

    private static int value(byte c) {
        return c < 0 ? -1 : VALUE[c];
    }
}
