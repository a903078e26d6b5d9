package dev.strait.proxy.handler.files;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Arrays;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
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
        assertThat(ByteRange.parse(header, 100)).containsExactly(new ByteRange(first, last));
    }

    @ParameterizedTest
    @ValueSource(strings = {"bytes=100-", "bytes=100-200", "bytes=-0", "bytes=99999999999999999999999-",
        "bytes=100-,200-300", "bytes=-0, 100-"})
    void unsatisfiable(String header) {
        assertThat(ByteRange.parse(header, 100)).isSameAs(ByteRange.UNSATISFIABLE);
    }

    /** Several ranges: in the order asked, those past the end left out, overlapping or touching ones merged. */
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "bytes=0-1,5-6          | 0-1 5-6",
        "bytes=50-59, 0-9       | 50-59 0-9",
        "bytes=0-1, 100-        | 0-1",
        "bytes=100-, 0-1, 3-4   | 0-1 3-4",
        "bytes=-0, 0-1, 3-4     | 0-1 3-4",
        "bytes=0-1,-5           | 0-1 95-99",
        "bytes=0-4,5-9          | 0-9",
        "bytes=0-4,3-9          | 0-9",
        "bytes=5-9,0-4          | 0-9",
        "bytes=5-9,0-6,20-29    | 0-9 20-29",
        "bytes=0-1,4-5,2-3      | 0-1 2-5",
        "bytes=10-19,0-0        | 10-19 0-0",
    })
    void several(String header, String expected) {
        assertThat(text(ByteRange.parse(header, 100))).isEqualTo(expected);
    }

    /** Ignored: the whole file is sent. */
    @ParameterizedTest
    @ValueSource(strings = {"bytes=5-4", "bytes=-", "bytes=", "bytes=0-1,5-4", "bytes=0-1,-",
        "bytes", "bytes 0-1", "bytes=a-1", "bytes=1-b", "bytes=1-2-3", "bytes=+1-2", "items=0-1", "", "bytes=1 2-3",
        "bytes=0-1;3-4"})
    void ignored(String header) {
        assertThat(ByteRange.parse(header, 100)).isNull();
    }

    @Test
    void upToSixteenRangesAreServedAndMoreGetTheWholeFile() {
        assertThat(ByteRange.parse(oneByteRanges(16), 100)).hasSize(16);
        assertThat(ByteRange.parse(oneByteRanges(17), 100)).isNull();
        // Ranges past the end are not counted; merged ones are counted as asked.
        assertThat(ByteRange.parse(oneByteRanges(16) + ",100-,200-", 100)).hasSize(16);
        assertThat(ByteRange.parse("bytes=" + IntStream.range(0, 17).mapToObj(i -> i + "-" + i)
                .collect(Collectors.joining(",")), 100)).isNull();
    }

    /** CVE-2011-3192: ranges that add up to more than the file get the whole file once, not several times. */
    @ParameterizedTest
    @ValueSource(strings = {"bytes=0-,0-", "bytes=0-99,0-0", "bytes=0-60,40-99", "bytes=-60,-41", "bytes=1-,0-1"})
    void rangesThatAddUpToMoreThanTheFileGetTheWholeFile(String header) {
        assertThat(ByteRange.parse(header, 100)).isNull();
    }

    @Test
    void rangesThatAddUpToTheFileAreServed() {
        assertThat(text(ByteRange.parse("bytes=0-49,50-99", 100))).isEqualTo("0-99");
        assertThat(text(ByteRange.parse("bytes=50-99,0-48", 100))).isEqualTo("50-99 0-48");
    }

    /** Every other byte of the file, as 16 one-byte ranges. */
    private static String oneByteRanges(int n) {
        return "bytes=" + IntStream.range(0, n).mapToObj(i -> 2 * i + "-" + 2 * i).collect(Collectors.joining(","));
    }

    private static String text(ByteRange[] ranges) {
        return Arrays.stream(ranges).map(r -> r.first() + "-" + r.last()).collect(Collectors.joining(" "));
    }
}
