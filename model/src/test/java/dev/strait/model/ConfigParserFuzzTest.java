package dev.strait.model;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Any text given as a config either parses or is refused with field-path errors: never another
 * exception, never a hang. What parses survives a round trip through the canonical JSON unchanged
 * (the snapshot the operator sends is that JSON).
 *
 * <p>{@code mvn test} replays the inputs in {@code ConfigParserFuzzTestInputs/}; {@code JAZZER_FUZZ=1}
 * searches for new ones (docs/hardening.md).
 */
class ConfigParserFuzzTest {
    @FuzzTest(maxDuration = "2m")
    void parsesOrRefusesWithFieldPaths(byte[] input) {
        String text = new String(input, StandardCharsets.UTF_8);
        Config c;
        try {
            c = ConfigParser.parse(text, "fuzz");
        } catch (InvalidConfigException e) {
            assertThat(e.errors()).isNotEmpty();
            e.errors().forEach(err -> assertThat(err.message()).isNotBlank());
            return;
        }
        String json = ConfigWriter.toJson(c, false);
        Config again;
        try {
            again = ConfigParser.parse(json, "round trip");
        } catch (InvalidConfigException e) {
            throw new AssertionError("the canonical form of a valid config was refused: " + e.getMessage()
                    + "\n" + json, e);
        }
        assertThat(ConfigWriter.toJson(again, false)).isEqualTo(json);
    }
}
