package dev.strait.proxy.http1;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.strait.proxy.http.DateHeader;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The loop's shared whole answers: the bytes are those of a framed answer, each caller owns what it
 * gets, and a new second or a new body builds a new copy without touching answers still being written.
 * Buffers left unreleased fail the build (paranoid leak detection in proxy tests).
 */
class SharedAnswersTest {
    private static final ByteBufAllocator ALLOC = ByteBufAllocator.DEFAULT;
    private static final byte[] HEAD = ascii("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n");
    private static final byte[] BODY = ascii("hello\n");

    @Test
    void theAnswerIsHeadDateBlankLineAndBody() {
        ByteBuf a = SharedAnswers.answer(ALLOC, HEAD, BODY);
        byte[] date = DateHeader.line();
        String text = text(a);
        assertThat(text).matches("HTTP/1\\.1 200 OK\r\nContent-Length: 6\r\nDate: [^\r]+ GMT\r\n\r\nhello\n");
        // Unless the second turned meanwhile, it is the Date every other answer carries now.
        if (date == DateHeader.line()) {
            assertThat(text).contains(new String(date, StandardCharsets.ISO_8859_1));
        }
        a.release();
    }

    @Test
    void eachCallerOwnsItsAnswerAndReleasingOneLeavesTheOthersIntact() {
        ByteBuf first = SharedAnswers.answer(ALLOC, HEAD, BODY);
        ByteBuf second = SharedAnswers.answer(ALLOC, HEAD, BODY);
        String expected = text(first);
        first.skipBytes(10); // a partial write moves only its own reader index
        assertThat(first.release()).isFalse();
        assertThat(text(second)).isEqualTo(expected);
        ByteBuf third = SharedAnswers.answer(ALLOC, HEAD, BODY);
        assertThat(third.readableBytes()).isEqualTo(expected.length());
        second.release();
        third.release();
    }

    @Test
    void anAnswerStillQueuedWhenTheSecondTurnsKeepsItsBytes() {
        ByteBuf old = SharedAnswers.answer(ALLOC, HEAD, BODY);
        String before = text(old);
        byte[] date = DateHeader.line();
        await().atMost(Duration.ofSeconds(3)).until(() -> DateHeader.line() != date);
        ByteBuf fresh = SharedAnswers.answer(ALLOC, HEAD, BODY);
        assertThat(text(fresh)).contains(new String(DateHeader.line(), StandardCharsets.ISO_8859_1))
                .isNotEqualTo(before);
        assertThat(text(old)).isEqualTo(before); // the loop's new copy did not free or overwrite it
        old.release();
        fresh.release();
    }

    @Test
    void aNewBodyForTheSameHeadIsNotAnsweredWithTheOldOne() {
        ByteBuf a = SharedAnswers.answer(ALLOC, HEAD, BODY);
        ByteBuf b = SharedAnswers.answer(ALLOC, HEAD, ascii("world\n"));
        assertThat(text(a)).endsWith("hello\n");
        assertThat(text(b)).endsWith("world\n");
        a.release();
        b.release();
    }

    @Test
    void moreHeadsThanItKeepsAreStillAnsweredRight() {
        for (int i = 0; i < SharedAnswers.MAX_ENTRIES * 3; i++) {
            byte[] head = ascii("HTTP/1.1 200 OK\r\nX-N: " + i + "\r\n");
            ByteBuf a = SharedAnswers.answer(ALLOC, head, BODY);
            assertThat(text(a)).startsWith("HTTP/1.1 200 OK\r\nX-N: " + i + "\r\nDate: ").endsWith("\r\n\r\nhello\n");
            a.release();
        }
    }

    @Test
    void onlySmallAnswersAreShared() {
        assertThat(SharedAnswers.fits(HEAD, BODY)).isTrue();
        assertThat(SharedAnswers.fits(HEAD, new byte[SharedAnswers.MAX_BYTES])).isFalse();
    }

    private static String text(ByteBuf b) {
        return b.toString(b.readerIndex(), b.readableBytes(), StandardCharsets.ISO_8859_1);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }
}
