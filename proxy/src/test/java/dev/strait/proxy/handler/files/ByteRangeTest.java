package dev.strait.proxy.handler.files;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** RFC 9110 14.1.2 and 14.2, against a 100-byte file. */
class ByteRangeTest {

    @ParameterizedTest(name = "{0} -> {1}-{2}")
    @CsvSource(delimiter = '|', value = {
        "bytes=0-0          | 0  | 0",
        "bytes=0-99         | 0  | 99",
        "bytes=0-100        | 0  | 99",
        "bytes=10-          | 10 | 99",
        "bytes=99-          | 99 | 99",
        "bytes=-1           | 99 | 99",
        "bytes=-100         | 0  | 99",
        "bytes=-1000        | 0  | 99",
        "bytes=5-99999999999999999999999 | 5 | 99",
        "BYTES=1-2          | 1  | 2",
        "  bytes = 1-2      | 1  | 2",
        "bytes=1-2 ,        | 1  | 2",
        "bytes=,1-2         | 1  | 2",
    })
    void single(String header, long first, long last) {
        assertThat(ByteRange.parse(header, 100)).isEqualTo(new ByteRange(first, last));
    }

    @ParameterizedTest
    @ValueSource(strings = {"bytes=100-", "bytes=100-200", "bytes=-0", "bytes=99999999999999999999999-"})
    void unsatisfiable(String header) {
        assertThat(ByteRange.parse(header, 100)).isSameAs(ByteRange.UNSATISFIABLE);
    }

    /** Ignored: the whole file is sent. */
    @ParameterizedTest
    @ValueSource(strings = {"bytes=0-1,5-6", "bytes=0-1, -5", "bytes=100-,0-1", "bytes=5-4", "bytes=-", "bytes=",
        "bytes", "bytes 0-1", "bytes=a-1", "bytes=1-b", "bytes=1-2-3", "bytes=+1-2", "items=0-1", "", "bytes=1 2-3"})
    void ignored(String header) {
        assertThat(ByteRange.parse(header, 100)).isNull();
    }
}
