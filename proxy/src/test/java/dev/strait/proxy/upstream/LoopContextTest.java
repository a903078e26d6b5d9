package dev.strait.proxy.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.DefaultEventLoop;
import io.netty.channel.socket.nio.NioSocketChannel;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class LoopContextTest {

    @Test
    void hexWordsReadInOrder() {
        assertThat(text(hexWord(0x0123abcd))).isEqualTo("0123abcd");
        assertThat(text(hexWord(0xffffffff))).isEqualTo("ffffffff");
        assertThat(text(hexWord(0))).isEqualTo("00000000");
    }

    @Test
    void requestIdsShareTheLoopsPrefixAndCountUp() {
        DefaultEventLoop loop = new DefaultEventLoop();
        try {
            LoopContext lc = new LoopContext(null, loop, NioSocketChannel.class, false);
            String first = id(lc);
            String second = id(lc);
            assertThat(first).matches("[0-9a-f]{32}");
            assertThat(second).matches("[0-9a-f]{32}").startsWith(first.substring(0, 16));
            assertThat(Long.parseUnsignedLong(second.substring(16), 16))
                    .isEqualTo(Long.parseUnsignedLong(first.substring(16), 16) + 1);
            assertThat(Long.parseUnsignedLong(first.substring(16), 16)).isEqualTo(1);
        } finally {
            loop.shutdownGracefully();
        }
    }

    private static ByteBuf hexWord(int v) {
        return Unpooled.buffer(8).writeLong(LoopContext.hex8(v));
    }

    private static String id(LoopContext lc) {
        ByteBuf b = Unpooled.buffer(4); // smaller than an id: writeRequestId makes room itself
        lc.writeRequestId(b);
        return text(b);
    }

    private static String text(ByteBuf b) {
        try {
            return b.toString(StandardCharsets.US_ASCII);
        } finally {
            b.release();
        }
    }
}
