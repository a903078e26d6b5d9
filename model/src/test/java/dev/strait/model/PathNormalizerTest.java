package dev.strait.model;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class PathNormalizerTest {
    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(nullValues = "-", value = {
            "/, /",
            "/a/b, /a/b",
            "/a/b/, /a/b/",
            "/%61dmin, /admin",
            "/%7Euser, /~user",
            "/a/./b, /a/b",
            "/a/../b, /b",
            "/a/b/.., /a/",
            "/a/%2e%2e/b, /b",
            "/a/%2E%2e/%2e/b, /b",
            "/a%2fb, /a%2Fb",
            "/a%20b, /a%20b",
            "//admin, /admin",
            "/a//b///c, /a/b/c",
            "/a/%2F/b, /a/%2F/b",
            "//../etc, -",
            "/.., -",
            "/../etc/passwd, -",
            "/%2e%2e/etc/passwd, -",
            "/a/../../b, -",
            "/a%00b, -",
            "/a%zz, -",
            "/a%2, -",
            "relative, -",
            "'', -",
    })
    void normalizes(String in, String out) {
        assertThat(PathNormalizer.normalize(in)).isEqualTo(out);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(nullValues = "-", value = {
            "/a/b, /a/b",
            "/a%20b, /a%20b",
            "/admin%2Fusers, /admin/users",
            "/admin%5Cusers, /admin/users",
            "/x/..%2Fadmin, /admin",
            "/x%2F..%2Fadmin, /admin",
            "/a%2F%2Fb, /a/b",
            "/..%2Fadmin, -",
            "/a%2F..%2F..%2Fetc, -",
    })
    void matchesEncodedSlashesAsSeparators(String in, String out) {
        assertThat(PathNormalizer.forMatching(PathNormalizer.normalize(in))).isEqualTo(out);
    }
}
