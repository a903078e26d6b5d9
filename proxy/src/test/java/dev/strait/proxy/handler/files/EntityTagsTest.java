package dev.strait.proxy.handler.files;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** RFC 9110 8.8.3.2 comparison against the strong tag {@code "abc-1"}. */
class EntityTagsTest {

    @ParameterizedTest(name = "{0}: weak {1}, strong {2}")
    @CsvSource(delimiter = '|', quoteCharacter = '\'', value = {
        "\"abc-1\"                     | true  | true",
        "W/\"abc-1\"                   | true  | false",
        "*                           | true  | true",
        "\"x\", \"abc-1\"                | true  | true",
        "\"x\",W/\"abc-1\"               | true  | false",
        "\"a,b\", \"abc-1\"              | true  | true",
        "\"x\" , , \"abc-1\"             | true  | true",
        "\"abc-2\"                     | false | false",
        "\"abc-1                      | false | false",
        "abc-1                       | false | false",
        "w/\"abc-1\"                   | false | false",
        "\"abc-1x\"                    | false | false",
        "\"abc\"                       | false | false",
        "\"a,\"abc-1\"\"                 | false | false",
    })
    void matches(String list, boolean weak, boolean strong) {
        assertThat(EntityTags.matches(list, "\"abc-1\"", true)).as("weak").isEqualTo(weak);
        assertThat(EntityTags.matches(list, "\"abc-1\"", false)).as("strong").isEqualTo(strong);
    }
}
