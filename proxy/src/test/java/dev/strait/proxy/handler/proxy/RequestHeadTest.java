package dev.strait.proxy.handler.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RequestHeadTest {
    @ParameterizedTest
    @CsvSource({"Connection,1", "connection,1", "KEEP-ALIVE,1", "Proxy-Connection,1", "Transfer-Encoding,1",
            "Content-Length,1", "Upgrade,1", "Proxy-Authorization,1", "Expect,1", "Host,1", "X-Forwarded-Proto,1",
            "X-Forwarded-Host,1", "TE,2", "X-Forwarded-For,3", "x-request-id,4", "Accept,0", "Cookie,0",
            "Trailer,0", "Authorization,0", "X-Hop,0"})
    void headerKinds(String name, int kind) {
        assertThat(RequestHead.kind(name)).isEqualTo(kind);
    }

    @ParameterizedTest
    @ValueSource(strings = {"abc", "0f8fad5b-d9cb-469f-a165-70867728950e", "Root=1-5759e988-bd862e3fe1be46a994272793",
            "a+b/c=", "x@y~z.q:1_2"})
    void saneRequestIds(String id) {
        assertThat(RequestHead.saneRequestId(id)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "has space", "quote\"d", "semi;colon", "tab\tx", "ünï"})
    void insaneRequestIds(String id) {
        assertThat(RequestHead.saneRequestId(id)).isFalse();
        assertThat(RequestHead.saneRequestId("a".repeat(129))).isFalse();
    }
}
