package dev.strait.proxy.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class HeadLinesTest {
    private static final byte[] HEAD = ("HTTP/1.1 200 OK\r\nContent-Type:  text/html; charset=utf-8 \r\n"
            + "Vary: Cookie\r\nX-Content-Type: no\r\nvary: Origin\r\nContent-Length: 12\r\n")
            .getBytes(StandardCharsets.ISO_8859_1);

    @Test
    void aValueIsTheFirstFieldOfThatNameTrimmed() {
        assertThat(HeadLines.value(HEAD, "content-type")).isEqualTo("text/html; charset=utf-8");
        assertThat(HeadLines.value(HEAD, "vary")).isEqualTo("Cookie");
        assertThat(HeadLines.value(HEAD, "content-length")).isEqualTo("12");
        assertThat(HeadLines.value(HEAD, "content")).isNull();
        assertThat(HeadLines.value(HEAD, "etag")).isNull();
        assertThat(HeadLines.status(HEAD)).isEqualTo(200);
    }

    @Test
    void fieldsAreEveryLineAfterTheStatusInOrder() {
        HttpHeaders h = HeadLines.fields(HEAD, new DefaultHttpHeaders());
        assertThat(h.size()).isEqualTo(5);
        assertThat(h.getAll("vary")).containsExactly("Cookie", "Origin");
        assertThat(h.get("content-type")).isEqualTo("text/html; charset=utf-8");
        assertThat(h.get("x-content-type")).isEqualTo("no");
        assertThat(HeadLines.fields("HTTP/1.1 204 No Content\r\n".getBytes(StandardCharsets.ISO_8859_1),
                new DefaultHttpHeaders()).isEmpty()).isTrue();
    }

    @Test
    void linesWithoutAStatusLineAreReadAndEditedFromTheirFirst() {
        byte[] extra = "Age: 5\r\nX-Cache: HIT\r\n".getBytes(StandardCharsets.ISO_8859_1);
        assertThat(HeadLines.value(extra, "age")).isEqualTo("5");
        assertThat(new String(HeadLines.without(extra, new String[] {"age"}), StandardCharsets.ISO_8859_1))
                .isEqualTo("X-Cache: HIT\r\n");
        assertThat(new String(HeadLines.without(extra, new String[] {"x-*"}), StandardCharsets.ISO_8859_1))
                .isEqualTo("Age: 5\r\n");
        // A head's status line is never taken for a field, whatever the names.
        assertThat(HeadLines.without(HEAD, new String[] {"h*"})).startsWith("HTTP/1.1 200 OK\r\n".getBytes(StandardCharsets.ISO_8859_1));
        assertThat(HeadLines.value(HEAD, "http/1.1 200 ok")).isNull();
    }
}
