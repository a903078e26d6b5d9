package dev.strait.proxy.fastcgi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.PooledByteBufAllocator;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The CGI response head at the start of STDOUT, fed in pieces as records and reads deliver it. */
class CgiResponseHeadTest {
    private final List<ByteBuf> fed = new ArrayList<>();
    private final List<ByteBuf> bodies = new ArrayList<>();
    private final CgiResponseHead head = new CgiResponseHead(PooledByteBufAllocator.DEFAULT);

    @AfterEach
    void released() {
        head.discard();
        bodies.forEach(ByteBuf::release);
        assertThat(fed).as("fed buffers are released").allSatisfy(b -> assertThat(b.refCnt()).isZero());
    }

    private ByteBuf buf(String s) {
        ByteBuf b = PooledByteBufAllocator.DEFAULT.buffer();
        b.writeCharSequence(s, StandardCharsets.ISO_8859_1);
        fed.add(b);
        return b;
    }

    /** Feeds the pieces; returns the body bytes after the head, or null if the head never completed. */
    private String feed(String... pieces) throws Exception {
        for (String p : pieces) {
            ByteBuf body = head.feed(buf(p));
            if (body != null) {
                bodies.add(body);
                return body.toString(StandardCharsets.ISO_8859_1);
            }
        }
        return null;
    }

    @Test
    void headInOnePiece() throws Exception {
        assertThat(feed("Status: 404 Not Found\r\nContent-Type: text/html\r\n\r\n<h1>no</h1>")).isEqualTo("<h1>no</h1>");
        assertThat(head.status()).isEqualTo(404);
        assertThat(head.headers().get("content-type")).isEqualTo("text/html");
        assertThat(head.headers().contains("status")).isFalse();
        assertThat(head.contentLength()).isEqualTo(-1);
    }

    @Test
    void headSplitAcrossRecordsEvenInsideTheBlankLine() throws Exception {
        assertThat(feed("X-Powered-By: PHP/8.2\r", "\nContent-Ty", "pe: text/plain\r\n", "\r", "\nbody")).isEqualTo("body");
        assertThat(head.status()).isEqualTo(200);
        assertThat(head.headers().get("X-Powered-By")).isEqualTo("PHP/8.2");
        assertThat(head.headers().get("Content-Type")).isEqualTo("text/plain");
    }

    @Test
    void headByteByByte() throws Exception {
        String all = "Status: 201\nLocation: /x\nSet-Cookie: a=1\nSet-Cookie: b=2\n\nrest";
        String[] pieces = all.split("");
        assertThat(feed(pieces)).isEmpty(); // the head ends with the piece "\n"; the body comes later
        assertThat(head.status()).isEqualTo(201);
        assertThat(head.headers().getAll("set-cookie")).containsExactly("a=1", "b=2");
    }

    @Test
    void headWithoutBody() throws Exception {
        assertThat(feed("Content-Type: text/plain\n", "\n")).isEmpty();
    }

    @Test
    void incompleteHeadGivesNothingYet() throws Exception {
        assertThat(feed("Content-Type: text/plain\r\n", "X-A: 1\r\n")).isNull();
    }

    @Test
    void locationWithoutStatusIsAFoundRedirect() throws Exception {
        feed("Location: https://example.com/\r\n\r\n");
        assertThat(head.status()).isEqualTo(302);
        assertThat(head.headers().get("location")).isEqualTo("https://example.com/");
    }

    @Test
    void statusWinsOverLocation() throws Exception {
        feed("Location: /a\r\nStatus: 301 Moved Permanently\r\n\r\n");
        assertThat(head.status()).isEqualTo(301);
    }

    @Test
    void contentLengthIsTakenOutOfTheHeaders() throws Exception {
        feed("Content-Length: 5\r\nTransfer-Encoding: chunked\r\nConnection: close\r\nKeep-Alive: 5\r\n\r\nhello");
        assertThat(head.contentLength()).isEqualTo(5);
        assertThat(head.headers().isEmpty()).isTrue();
    }

    @Test
    void valuesAreTrimmedAndKeepTheirBytes() throws Exception {
        feed("X-Name:   caf\u00e9 \t\r\n\r\n");
        assertThat(head.headers().get("x-name")).isEqualTo("caf\u00e9");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "no colon | Content-Type text/plain | without a name",
            "empty name | : x | without a name",
            "space in name | Content Type: x | invalid response header name",
            "bad status | Status: abc | invalid Status",
            "status 1xx | Status: 100 Continue | not a final status",
            "status 600 | Status: 600 | not a final status",
            "bad length | Content-Length: -1 | invalid Content-Length",
            "control character | X-A: a\u0001b | control character",
    })
    void invalidHeadsAreRefused(String what, String line, String message) {
        assertThatThrownBy(() -> feed(line + "\r\n\r\n"))
                .isInstanceOf(CgiResponseHead.InvalidHeadException.class).hasMessageContaining(message);
    }

    @Test
    void twoDifferentLengthsAreRefused() {
        assertThatThrownBy(() -> feed("Content-Length: 1\r\nContent-Length: 2\r\n\r\n"))
                .hasMessageContaining("two different Content-Length");
    }

    @Test
    void twoStatusesAreRefused() {
        assertThatThrownBy(() -> feed("Status: 200\r\nStatus: 500\r\n\r\n")).hasMessageContaining("two Status");
    }

    @ParameterizedTest
    @ValueSource(ints = {1, 1000})
    void aHeadThatNeverEndsIsRefusedAtTheLimit(int piece) {
        String line = ("X-Long: " + "a".repeat(piece) + "\r\n");
        assertThatThrownBy(() -> {
            for (int i = 0; i < CgiResponseHead.MAX_HEAD_BYTES / line.length() + 2; i++) {
                feed(line);
            }
        }).hasMessageContaining("longer than");
    }

    /** The limit held only while the end was still to come: a 40 KB head in one record was taken. */
    @ParameterizedTest
    @ValueSource(ints = {0, 16 * 1024, 32 * 1024})
    void aHeadOverTheLimitIsRefusedWhenItsEndComesInTheSamePiece(int firstPiece) {
        String whole = "X-Long: " + "a".repeat(40_000) + "\r\n\r\nbody";
        assertThatThrownBy(() -> feed(whole.substring(0, firstPiece), whole.substring(firstPiece)))
                .hasMessageContaining("longer than");
    }

    @Test
    void aHeadOfExactlyTheLimitIsTaken() throws Exception {
        String head = "X-Long: " + "a".repeat(CgiResponseHead.MAX_HEAD_BYTES - 12) + "\r\n\r\n";
        assertThat(head).hasSize(CgiResponseHead.MAX_HEAD_BYTES);
        assertThat(feed(head.substring(0, 100), head.substring(100) + "body")).isEqualTo("body");
    }
}
