package dev.strait.proxy.cache;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
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

    @ParameterizedTest(name = "stored {0}, 304 with {1}: updates {2}")
    @CsvSource(delimiter = '|', nullValues = "none", value = {
            "\"a\"   | \"a\"   | true",
            "\"a\"   | none    | true",    // a 304 without a validator contradicts nothing
            "\"a\"   | \"b\"   | false",   // RFC 9111 4.3.4: another strong validator updates nothing
            "W/\"a\" | \"a\"   | false",   // a strong validator needs a strong match
            "\"a\"   | W/\"a\" | true",    // a weak one is compared weakly
            "W/\"a\" | W/\"a\" | true",
            "W/\"a\" | W/\"b\" | false",
            "none    | \"a\"   | false"})
    void a304UpdatesOnlyTheResponseItsValidatorNames(String stored, String notModified, boolean updates) {
        DefaultHttpHeaders h = new DefaultHttpHeaders();
        if (stored != null) {
            h.add("etag", stored);
        }
        Entry e = new Entry("k", 200, h, Unpooled.EMPTY_BUFFER, new Freshness(null, 60_000, 0, 0, 0, false), 0, null);
        DefaultHttpHeaders reply = new DefaultHttpHeaders();
        if (notModified != null) {
            reply.add("etag", notModified);
        }
        assertThat(e.describedBy(reply)).isEqualTo(updates);
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
