package dev.strait.proxy.compression;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class AcceptEncodingTest {
    @ParameterizedTest(name = "[{0}] takes gzip: {1}")
    @CsvSource(delimiter = '|', nullValues = "NULL", value = {
            "NULL | false",
            "'' | false",
            "gzip | true",
            "GZip | true",
            "x-gzip | true",
            "gzip, deflate, br, zstd | true",
            "br;q=1.0, gzip;q=0.8, *;q=0.1 | true",
            "gzip;q=0 | false",
            "gzip; q=0.000 | false",
            "gzip;q=0.001 | true",
            "gzip;Q=1 | true",
            "br, deflate | false",
            "identity | false",
            "* | true",
            "*;q=0 | false",
            "*, gzip;q=0 | false",
            "gzip;q=0, * | false",
            "gzip;q=2 | false",
            "gzip;q=abc | false",
            "gzip;q=0.5;level=1 | true",
            "  gzip  ;  q=0.5  | true",
            "gzipped | false",
            "deflate, , gzip | true",
    })
    void readsTheWeights(String field, boolean takes) {
        assertThat(AcceptEncoding.best(field, new Coding[] {Coding.GZIP})).isEqualTo(takes ? Coding.GZIP : null);
    }

    @Test
    void theBestCodingIsTheClientsHighestWeightThenTheServersFirst() {
        Coding[] ours = {Coding.ZSTD, Coding.BROTLI, Coding.GZIP};
        assertThat(AcceptEncoding.best("gzip, deflate, br, zstd", ours)).isEqualTo(Coding.ZSTD);
        assertThat(AcceptEncoding.best("gzip, deflate, br, zstd", new Coding[] {Coding.GZIP, Coding.ZSTD})).isEqualTo(Coding.GZIP);
        assertThat(AcceptEncoding.best("gzip, deflate, br", ours)).isEqualTo(Coding.BROTLI);
        assertThat(AcceptEncoding.best("gzip;q=1, br;q=0.5, zstd;q=0.7", ours)).isEqualTo(Coding.GZIP);
        assertThat(AcceptEncoding.best("*;q=0.5, zstd;q=0", ours)).isEqualTo(Coding.BROTLI);
        assertThat(AcceptEncoding.best("zstd;q=0, br;q=0, gzip;q=0", ours)).isNull();
        assertThat(AcceptEncoding.best(null, ours)).isNull();
    }

    @Test
    void codingsAreRankedByTheClientsWeightThenTheServersOrder() {
        List<String> ours = List.of("zstd", "br", "gzip");
        assertThat(AcceptEncoding.ranked("gzip, deflate, br, zstd", ours)).containsExactly("zstd", "br", "gzip");
        assertThat(AcceptEncoding.ranked("gzip, deflate, br", ours)).containsExactly("br", "gzip");
        assertThat(AcceptEncoding.ranked("gzip;q=1, br;q=0.5, zstd;q=0.7", ours)).containsExactly("gzip", "zstd", "br");
        assertThat(AcceptEncoding.ranked("x-gzip", ours)).containsExactly("gzip");
        assertThat(AcceptEncoding.ranked("*;q=0.5, zstd;q=0", ours)).containsExactly("br", "gzip");
        assertThat(AcceptEncoding.ranked("identity", ours)).isEmpty();
        assertThat(AcceptEncoding.ranked("br;q=0, gzip;q=0", List.of("br", "gzip"))).isEmpty();
        assertThat(AcceptEncoding.ranked(null, ours)).isEmpty();
    }
}
