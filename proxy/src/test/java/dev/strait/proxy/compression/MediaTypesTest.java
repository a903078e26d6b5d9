package dev.strait.proxy.compression;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

class MediaTypesTest {
    @Test
    void exactTypesAndWholeTopLevelTypesMatchWhateverTheParametersAndCase() {
        MediaTypes t = new MediaTypes(List.of("text/*", "application/json"));
        assertThat(t.matches("text/html")).isTrue();
        assertThat(t.matches("Text/CSS; charset=utf-8")).isTrue();
        assertThat(t.matches(" application/json ;charset=utf-8")).isTrue();
        assertThat(t.matches("application/json-seq")).isFalse();
        assertThat(t.matches("application/javascript")).isFalse();
        assertThat(t.matches("image/png")).isFalse();
        assertThat(t.matches("text")).isFalse();
        assertThat(t.matches("text/")).isFalse();
        assertThat(t.matches("")).isFalse();
        assertThat(t.matches(null)).isFalse();
        assertThat(new MediaTypes(List.of("*/*")).matches("video/mp4")).isTrue();
    }
}
