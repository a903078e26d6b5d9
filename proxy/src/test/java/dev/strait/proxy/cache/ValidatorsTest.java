package dev.strait.proxy.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.handler.codec.http.DefaultHttpHeaders;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Entity-tag comparison for clients' If-None-Match, and the Vary names a key splits on. */
class ValidatorsTest {

    @ParameterizedTest(name = "If-None-Match {0} vs ETag {1}: {2}")
    @CsvSource(delimiter = '|', value = {
            "\"a\"            | \"a\"   | true",
            "W/\"a\"          | \"a\"   | true",   // weak comparison (RFC 9110 8.8.3.2)
            "\"a\"            | W/\"a\" | true",
            "\"b\", \"a\"     | \"a\"   | true",
            "*                | \"a\"   | true",
            "\"b\"            | \"a\"   | false",
            "\"A\"            | \"a\"   | false"})
    void ifNoneMatchUsesWeakComparison(String ifNoneMatch, String etag, boolean matches) {
        assertThat(Entry.etagMatches(ifNoneMatch, etag)).isEqualTo(matches);
    }

    @Test
    void varyNamesAreLowerCaseSortedAndDistinct() {
        assertThat(Variants.names(List.of("Accept-Encoding, accept-language", "ACCEPT-ENCODING", " ")))
                .containsExactly("accept-encoding", "accept-language");
    }

    @Test
    void variantKeysDifferByValuesNotByWhitespaceAroundThem() {
        Variants v = new Variants(new String[] {"accept-language"});
        String en = v.key("http://h/p", new DefaultHttpHeaders().add("Accept-Language", "en"));
        // a decoder may hand over values with their surrounding whitespace; Netty's own map would refuse it
        var loose = io.netty.handler.codec.http.DefaultHttpHeadersFactory.headersFactory().withValidation(false)
                .newHeaders().add("accept-language", " en ");
        assertThat(v.key("http://h/p", loose)).isEqualTo(en);
        assertThat(v.key("http://h/p", new DefaultHttpHeaders().add("Accept-Language", "de"))).isNotEqualTo(en);
        assertThat(v.key("http://h/p", new DefaultHttpHeaders())).isNotEqualTo(en);
        // another marker (after a purge) gives other keys: its old variants are out of reach
        assertThat(new Variants(new String[] {"accept-language"}).key("http://h/p",
                new DefaultHttpHeaders().add("Accept-Language", "en"))).isNotEqualTo(en);
    }
}
