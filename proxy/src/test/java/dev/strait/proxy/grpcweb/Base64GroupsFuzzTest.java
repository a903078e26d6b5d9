package dev.strait.proxy.grpcweb;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufUtil;
import io.netty.buffer.Unpooled;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * {@link Base64Groups} against the JDK's encoder: pieces encoded apart, each padded, decode group by group to the
 * bytes that were encoded; any four bytes decode to one to three bytes or are refused, never more, never a failure.
 */
class Base64GroupsFuzzTest {
    @FuzzTest(maxDuration = "30s")
    void paddedPiecesDecodeToWhatWasEncoded(FuzzedDataProvider data) {
        ByteArrayOutputStream raw = new ByteArrayOutputStream();
        StringBuilder text = new StringBuilder();
        for (int i = data.consumeInt(0, 4); i >= 0; i--) {
            byte[] piece = data.consumeBytes(20);
            raw.writeBytes(piece);
            text.append(Base64.getEncoder().encodeToString(piece));
        }
        byte[] chars = text.toString().getBytes(StandardCharsets.US_ASCII);
        ByteBuf out = Unpooled.buffer();
        try {
            for (int at = 0; at < chars.length; at += 4) {
                assertThat(Base64Groups.decode(java.util.Arrays.copyOfRange(chars, at, at + 4), out)).isTrue();
            }
            assertThat(ByteBufUtil.getBytes(out)).isEqualTo(raw.toByteArray());

            byte[] group = data.consumeBytes(4);
            if (group.length == 4) {
                ByteBuf one = Unpooled.buffer();
                boolean ok = Base64Groups.decode(group, one);
                assertThat(one.readableBytes()).isBetween(0, ok ? 3 : 0);
                one.release();
            }
        } finally {
            out.release();
        }
    }
}
