package dev.strait.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code --check FILE} (and {@code STRAIT_CHECK=FILE}): validates like {@code nginx -t}, printing every
 * error with its field path; exit 0 when valid, 1 when not, 2 for a usage error.
 */
class CheckCommandTest {
    private static final String GOOD = """
            listeners:
              - { name: http, address: "127.0.0.1:0" }
            admin: { address: "127.0.0.1:0" }
            routes:
              - name: site
                hosts: [ "example.com", "*.example.com" ]
                rules:
                  - matches: [ { path: { type: Exact, value: /healthz } } ]
                    respond: { status: 200, body: "ok\\n", headers: { content-type: text/plain } }
                  - matches: [ { path: { type: RegularExpression, value: "^/v[0-9]+/" } } ]
                    respond: { status: 404 }
            """;

    /** Three independent mistakes: each must be reported, with its own field path. */
    private static final String BAD = """
            listeners:
              - { name: http, address: "127.0.0.1:0", colour: blue }
            routes:
              - name: empty
                hosts: [ "*" ]
                rules: []
              - name: regex
                hosts: [ "*" ]
                rules:
                  - matches: [ { path: { type: RegularExpression, value: "/(unclosed" } } ]
                    respond: { status: 200 }
            """;

    @RegisterExtension
    final StraitProcesses strait = new StraitProcesses();

    @TempDir
    Path dir;

    @Test
    void aValidConfigIsOkWithItsVersion() throws Exception {
        StraitProcesses.Result r = strait.run("--check", write("good.yaml", GOOD).toString());

        assertThat(r.exitCode()).as(r.output()).isZero();
        assertThat(r.stdout()).contains("good.yaml: ok").containsPattern("version [0-9a-f]+").contains("1 route(s)");
    }

    @Test
    void everyErrorIsPrintedWithItsFieldPath() throws Exception {
        StraitProcesses.Result r = strait.run("--check", write("bad.yaml", BAD).toString());

        assertThat(r.exitCode()).as(r.output()).isEqualTo(1);
        assertThat(r.output())
                .contains("bad.yaml")
                .contains("3 error(s)")
                .contains("listeners[0].colour: unknown field")
                .contains("routes[0].rules: must list at least one item")
                .contains("routes[1].rules[0].matches[0].path.value: not a valid regular expression");
        assertThat(r.stdout()).doesNotContain("ok (version");
    }

    @Test
    void aYamlSyntaxErrorNamesItsLine() throws Exception {
        Path file = write("broken.yaml", """
                listeners:
                  - { name: http, address: "127.0.0.1:0"
                routes: []
                """);

        StraitProcesses.Result r = strait.run("--check", file.toString());

        assertThat(r.exitCode()).as(r.output()).isEqualTo(1);
        assertThat(r.output()).contains("broken.yaml").contains("not valid YAML").containsPattern("line \\d+");
    }

    @Test
    void aMissingFileIsAnError() throws Exception {
        StraitProcesses.Result r = strait.run("--check", dir.resolve("nope.yaml").toString());

        assertThat(r.exitCode()).as(r.output()).isEqualTo(1);
        assertThat(r.output()).contains("nope.yaml");
    }

    @Test
    void theEnvironmentVariableWorksLikeTheFlag() throws Exception {
        StraitProcesses.Result good = strait.run(Map.of("STRAIT_CHECK", write("good.yaml", GOOD).toString()));
        StraitProcesses.Result bad = strait.run(Map.of("STRAIT_CHECK", write("bad.yaml", BAD).toString()));

        assertThat(good.exitCode()).as(good.output()).isZero();
        assertThat(good.stdout()).contains("good.yaml: ok");
        assertThat(bad.exitCode()).as(bad.output()).isEqualTo(1);
        assertThat(bad.output()).contains("routes[0].rules");
    }

    @Test
    void anUnknownOptionIsAUsageError() throws Exception {
        StraitProcesses.Result r = strait.run("--no-such-option", "x");

        assertThat(r.exitCode()).as(r.output()).isEqualTo(2);
        assertThat(r.output()).contains("--no-such-option").contains("usage:").contains("--check FILE");
    }

    private Path write(String name, String text) throws IOException {
        return Files.writeString(dir.resolve(name), text);
    }
}
