package dev.strait.proxy.handler.files;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RequestPathsTest {

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "/                    | /",
        "/a.txt               | /a.txt",
        "/dir/                | /dir/",
        "/a//b                | /a//b",
        "/with%20space        | /with space",
        "/caf%C3%A9           | /caf\u00e9",
        "/caf%c3%a9           | /caf\u00e9",
        "/100%25              | /100%",
        "/%252e%252e          | /%2e%2e",
        "/...                 | /...",
        "/.hidden             | /.hidden",
        "/a..b/..c            | /a..b/..c",
    })
    void decodes(String path, String decoded) {
        assertThat(RequestPaths.decode(path)).isEqualTo(decoded);
    }

    @Test
    void pathWithoutEscapesIsReturnedAsIs() {
        String path = "/static/app.js";
        assertThat(RequestPaths.decode(path)).isSameAs(path);
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
        "/a.txt                        | false",
        "/a..b/c.d                     | false",
        "/.env                         | true",
        "/app/.git/config              | true",
        "/.well-known/acme-challenge/x | false",
        "/.well-known                  | false",
        "/.well-known/                 | false",
        "/.well-known/.x               | true",
        "/.well-knownx                 | true",
        "/a/.well-known/x              | true",
    })
    void namesStartingWithADot(String decoded, boolean dotName) {
        assertThat(RequestPaths.hasDotName(decoded)).isEqualTo(dotName);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "a.txt", "/a%2Fb", "/a%2fb", "/..%2Fx", "/a%00", "/a%", "/a%2", "/a%zz", "/caf%E9",
        "/%C0%AF", "/..", "/../x", "/a/../b", "/.", "/./a", "/a/.", "/%2e%2e/x", "/a/%2E%2E", "/x%2F%2E%2E"})
    void refuses(String path) {
        assertThat(RequestPaths.decode(path)).isNull();
    }
}
