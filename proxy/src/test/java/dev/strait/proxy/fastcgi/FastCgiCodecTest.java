package dev.strait.proxy.fastcgi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.PooledByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.DecoderException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** FastCGI records both ways: what the client writes, and the decoder on an EmbeddedChannel. */
class FastCgiCodecTest {
    private final List<ByteBuf> toRelease = new ArrayList<>();
    private EmbeddedChannel ch;

    @AfterEach
    void nothingLeft() {
        toRelease.forEach(ByteBuf::release);
        if (ch != null) {
            assertThat(ch.finishAndReleaseAll()).as("messages left in the channel").isFalse();
        }
    }

    private ByteBuf buffer() {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer();
        toRelease.add(b);
        return b;
    }

    // ---- encoding ----

    @Test
    void beginRequestAsksToKeepTheConnection() {
        ByteBuf b = buffer();
        FastCgiRecords.beginRequest(b, 1, true);
        assertThat(ByteBufUtil.hexDump(b)).isEqualTo("0101000100080000" + "0001010000000000");
        ByteBuf c = buffer();
        FastCgiRecords.beginRequest(c, 258, false);
        assertThat(ByteBufUtil.hexDump(c)).isEqualTo("0101010200080000" + "0001000000000000");
    }

    @Test
    void nameValueLengthsTakeOneByteBelow128AndFourFrom128() {
        ByteBuf b = buffer();
        FastCgiRecords.ParamsWriter w = new FastCgiRecords.ParamsWriter(b, 1);
        w.add("A", "x".repeat(127));
        w.add("B", "y".repeat(128));
        w.add("N".repeat(300), "");
        w.finish();
        // record header, then: 01 7f 'A' x*127 | 01 80000080 'B' y*128 | 8000012c 00 N*300
        assertThat(b.getUnsignedByte(8)).isEqualTo((short) 1);
        assertThat(b.getUnsignedByte(9)).isEqualTo((short) 127);
        int second = 8 + 2 + 1 + 127;
        assertThat(b.getUnsignedByte(second)).isEqualTo((short) 1);
        assertThat(b.getInt(second + 1)).isEqualTo(0x80000080);
        int third = second + 5 + 1 + 128;
        assertThat(b.getInt(third)).isEqualTo(0x8000012c);
        assertThat(b.getUnsignedByte(third + 4)).isZero();
        assertThat(params(b)).containsEntry("A", "x".repeat(127)).containsEntry("B", "y".repeat(128))
                .containsEntry("N".repeat(300), "");
    }

    @Test
    void paramsArePaddedToEightAndEndWithAnEmptyRecord() {
        ByteBuf b = buffer();
        FastCgiRecords.ParamsWriter w = new FastCgiRecords.ParamsWriter(b, 1);
        w.add("AB", "c"); // 1 + 1 + 2 + 1 = 5 bytes of content, 3 of padding
        w.finish();
        assertThat(ByteBufUtil.hexDump(b)).isEqualTo("0104000100050300" + "0201414263" + "000000" + "0104000100000000");
    }

    @Test
    void noParamsIsJustTheEmptyRecord() {
        ByteBuf b = buffer();
        new FastCgiRecords.ParamsWriter(b, 1).finish();
        assertThat(ByteBufUtil.hexDump(b)).isEqualTo("0104000100000000");
    }

    @Test
    void aPairNeverSpansTwoRecords() {
        ByteBuf b = buffer();
        FastCgiRecords.ParamsWriter w = new FastCgiRecords.ParamsWriter(b, 1);
        Map<String, String> sent = new LinkedHashMap<>();
        for (int i = 0; i < 40; i++) {
            String name = "HTTP_X_" + i;
            String value = Integer.toString(i).repeat(1000 + i * 37);
            sent.put(name, value);
            assertThat(w.add(name, value)).isTrue();
        }
        w.finish();
        List<Integer> lengths = new ArrayList<>();
        Map<String, String> got = new LinkedHashMap<>();
        int pos = 0;
        while (pos < b.writerIndex()) {
            assertThat(b.getUnsignedByte(pos + 1)).isEqualTo((short) FastCgiRecords.PARAMS);
            int len = b.getUnsignedShort(pos + 4);
            int pad = b.getUnsignedByte(pos + 6);
            lengths.add(len);
            assertThat((len + pad) % 8).isZero();
            // Each record's content alone decodes to whole pairs (php-fpm reads them record by record).
            got.putAll(pairs(b.slice(pos + 8, len)));
            pos += 8 + len + pad;
        }
        assertThat(lengths).hasSizeGreaterThan(2).last().isEqualTo(0);
        assertThat(lengths).allSatisfy(l -> assertThat(l).isLessThanOrEqualTo(FastCgiRecords.MAX_CONTENT));
        assertThat(got).isEqualTo(sent);
    }

    @Test
    void aPairLongerThanARecordIsRefused() {
        ByteBuf b = buffer();
        FastCgiRecords.ParamsWriter w = new FastCgiRecords.ParamsWriter(b, 1);
        assertThat(w.add("HTTP_BIG", "x".repeat(70_000))).isFalse();
        assertThat(w.add("A", "b")).isTrue();
        w.finish();
        assertThat(params(b)).containsOnlyKeys("A");
    }

    @Test
    void paramBytesAreWrittenAsGiven() {
        ByteBuf b = buffer();
        FastCgiRecords.ParamsWriter w = new FastCgiRecords.ParamsWriter(b, 1);
        // Values are given one char per byte: a UTF-8 name is its bytes.
        w.add("SCRIPT_NAME", new String("/é.php".getBytes(StandardCharsets.UTF_8), StandardCharsets.ISO_8859_1));
        w.finish();
        byte[] value = "/é.php".getBytes(StandardCharsets.UTF_8);
        assertThat(ByteBufUtil.indexOf(Unpooled.wrappedBuffer(value), b)).isPositive();
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 4096, 4097, 65535, 65536, 200_000})
    void stdinIsCutIntoRecordsOfAtMost64k(int size) {
        byte[] bytes = new byte[size];
        for (int i = 0; i < size; i++) {
            bytes[i] = (byte) (i % 251);
        }
        ByteBuf data = PooledByteBufAllocator.DEFAULT.buffer(size).writeBytes(bytes);
        ByteBuf copy = data.copy();
        toRelease.add(copy);
        ByteBuf out = buffer();
        FastCgiRecords.writeStdin(PooledByteBufAllocator.DEFAULT, data, 1, part -> {
            out.writeBytes(part);
            part.release();
        });
        assertThat(data.refCnt()).as("the part is released").isZero();
        ByteBuf joined = buffer();
        int records = 0;
        while (out.isReadable()) {
            assertThat(out.readUnsignedByte()).isEqualTo((short) 1);
            assertThat(out.readUnsignedByte()).isEqualTo((short) FastCgiRecords.STDIN);
            assertThat(out.readUnsignedShort()).isEqualTo(1);
            int len = out.readUnsignedShort();
            int pad = out.readUnsignedByte();
            out.skipBytes(1);
            joined.writeBytes(out, len);
            out.skipBytes(pad);
            records++;
        }
        assertThat(joined).isEqualTo(copy);
        assertThat(records).as("no empty record: it would end the body").isEqualTo((size + 65534) / 65535);
    }

    // ---- decoding ----

    private static byte[] record(int type, int id, byte[] content, int padding) {
        ByteBuf b = Unpooled.buffer();
        FastCgiRecords.header(b, type, id, content.length, padding);
        b.writeBytes(content);
        b.writeZero(padding);
        return ByteBufUtil.getBytes(b);
    }

    private static byte[] stdout(String s, int padding) {
        return record(FastCgiRecords.STDOUT, 1, s.getBytes(StandardCharsets.ISO_8859_1), padding);
    }

    private static byte[] endRequest(long appStatus, int protocolStatus) {
        ByteBuf b = Unpooled.buffer();
        b.writeInt((int) appStatus).writeByte(protocolStatus).writeZero(3);
        return record(FastCgiRecords.END_REQUEST, 1, ByteBufUtil.getBytes(b), 0);
    }

    private static byte[] concat(byte[]... parts) {
        ByteBuf b = Unpooled.buffer();
        for (byte[] p : parts) {
            b.writeBytes(p);
        }
        return ByteBufUtil.getBytes(b);
    }

    /** Feeds the bytes in pieces of {@code step}; returns what was decoded, as text or END_REQUEST. */
    private List<String> decode(byte[] bytes, int step) {
        ch = new EmbeddedChannel(new FastCgiRecordDecoder());
        for (int i = 0; i < bytes.length; i += step) {
            ch.writeInbound(Unpooled.copiedBuffer(bytes, i, Math.min(step, bytes.length - i)));
        }
        List<String> out = new ArrayList<>();
        Object o;
        while ((o = ch.readInbound()) != null) {
            if (o instanceof FastCgiRecords.StreamRecord r) {
                String kind = r.type == FastCgiRecords.STDOUT ? "out" : r.type == FastCgiRecords.STDERR ? "err" : "t" + r.type;
                out.add(kind + ":" + r.data.toString(StandardCharsets.ISO_8859_1));
                r.release();
            } else {
                out.add(o.toString());
            }
        }
        return out;
    }

    private static String joined(List<String> decoded, String kind) {
        StringBuilder sb = new StringBuilder();
        decoded.stream().filter(s -> s.startsWith(kind + ":")).forEach(s -> sb.append(s.substring(kind.length() + 1)));
        return sb.toString();
    }

    @Test
    void severalStdoutRecordsWithPaddingAndTheEnd() {
        byte[] bytes = concat(stdout("Status: 200 OK\r\n", 0), stdout("Content-Type: text/plain\r\n\r\nhel", 5),
                stdout("lo", 6), record(FastCgiRecords.STDOUT, 1, new byte[0], 0), endRequest(0, 0));
        List<String> d = decode(bytes, bytes.length);
        assertThat(d).containsExactly("out:Status: 200 OK\r\n", "out:Content-Type: text/plain\r\n\r\nhel", "out:lo",
                "EndRequest[requestId=1, appStatus=0, protocolStatus=0]");
    }

    @ParameterizedTest(name = "pieces of {0} bytes")
    @ValueSource(ints = {1, 3, 7, 8, 9, 13, 64})
    void recordsSplitAcrossReadsGiveTheSameStreams(int step) {
        byte[] bytes = concat(stdout("X-A: 1\r\n\r\n", 3), record(FastCgiRecords.STDERR, 1, "PHP message: oops\n".getBytes(), 2),
                stdout("body".repeat(50), 7), endRequest(255, 0));
        List<String> d = decode(bytes, step);
        assertThat(joined(d, "out")).isEqualTo("X-A: 1\r\n\r\n" + "body".repeat(50));
        assertThat(joined(d, "err")).isEqualTo("PHP message: oops\n");
        assertThat(d.get(d.size() - 1)).isEqualTo("EndRequest[requestId=1, appStatus=255, protocolStatus=0]");
    }

    @Test
    void stdoutIsPassedOnBeforeTheWholeRecordArrived() {
        byte[] rec = stdout("x".repeat(1000), 0);
        ch = new EmbeddedChannel(new FastCgiRecordDecoder());
        ch.writeInbound(Unpooled.copiedBuffer(rec, 0, 508));
        FastCgiRecords.StreamRecord first = ch.readInbound();
        assertThat(first.data.readableBytes()).isEqualTo(500);
        first.release();
        ch.writeInbound(Unpooled.copiedBuffer(rec, 508, rec.length - 508));
        FastCgiRecords.StreamRecord second = ch.readInbound();
        assertThat(second.data.readableBytes()).isEqualTo(500);
        second.release();
    }

    @Test
    void protocolStatusesAreReported() {
        assertThat(decode(endRequest(0, FastCgiRecords.OVERLOADED), 8))
                .containsExactly("EndRequest[requestId=1, appStatus=0, protocolStatus=2]");
        ch.finishAndReleaseAll();
        assertThat(decode(endRequest(0, FastCgiRecords.CANT_MPX_CONN), 8))
                .containsExactly("EndRequest[requestId=1, appStatus=0, protocolStatus=1]");
    }

    @Test
    void managementRecordsAreSkipped() {
        byte[] bytes = concat(record(FastCgiRecords.GET_VALUES_RESULT, 0, "\u000e\u0001FCGI_MPXS_CONNS0".getBytes(), 2),
                record(FastCgiRecords.UNKNOWN_TYPE, 0, new byte[8], 0), stdout("a: b\n\n", 0));
        List<String> d = decode(bytes, 5);
        assertThat(d).allMatch(s -> s.startsWith("out:"));
        assertThat(joined(d, "out")).isEqualTo("a: b\n\n");
    }

    @Test
    void aWrongVersionIsAProtocolError() {
        ch = new EmbeddedChannel(new FastCgiRecordDecoder());
        byte[] bad = stdout("x", 0);
        bad[0] = 2;
        assertThatThrownBy(() -> ch.writeInbound(Unpooled.wrappedBuffer(bad)))
                .isInstanceOf(DecoderException.class).hasMessageContaining("version 2");
    }

    @Test
    void aShortEndRequestIsAProtocolError() {
        ch = new EmbeddedChannel(new FastCgiRecordDecoder());
        assertThatThrownBy(() -> ch.writeInbound(Unpooled.wrappedBuffer(record(FastCgiRecords.END_REQUEST, 1, new byte[4], 0))))
                .isInstanceOf(DecoderException.class).hasMessageContaining("END_REQUEST with 4 bytes");
    }

    // ---- helpers: a reader of name-value pairs, as php-fpm reads them ----

    /** Every pair of a PARAMS stream; checks the stream ends with an empty record. */
    static Map<String, String> params(ByteBuf b) {
        Map<String, String> out = new LinkedHashMap<>();
        int pos = b.readerIndex();
        boolean ended = false;
        while (pos < b.writerIndex()) {
            assertThat(ended).as("nothing after the empty PARAMS record").isFalse();
            int type = b.getUnsignedByte(pos + 1);
            int len = b.getUnsignedShort(pos + 4);
            int pad = b.getUnsignedByte(pos + 6);
            if (type == FastCgiRecords.PARAMS) {
                if (len == 0) {
                    ended = true;
                }
                out.putAll(pairs(b.slice(pos + 8, len)));
            }
            pos += 8 + len + pad;
        }
        assertThat(ended).as("PARAMS ends with an empty record").isTrue();
        return out;
    }

    static Map<String, String> pairs(ByteBuf content) {
        Map<String, String> out = new LinkedHashMap<>();
        while (content.isReadable()) {
            int nl = length(content);
            int vl = length(content);
            String name = content.readCharSequence(nl, StandardCharsets.ISO_8859_1).toString();
            String value = content.readCharSequence(vl, StandardCharsets.ISO_8859_1).toString();
            out.put(name, value);
        }
        return out;
    }

    private static int length(ByteBuf b) {
        int first = b.getUnsignedByte(b.readerIndex());
        return first < 128 ? b.readUnsignedByte() : b.readInt() & 0x7fffffff;
    }
}
