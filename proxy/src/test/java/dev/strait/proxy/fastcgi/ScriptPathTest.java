package dev.strait.proxy.fastcgi;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.model.Route;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Script name and PATH_INFO from a request path, as nginx's fastcgi_split_path_info and fastcgi_index do. */
class ScriptPathTest {
    private static final Pattern DEFAULT = Pattern.compile(Route.FastCgi.DEFAULT_SPLIT_PATH_INFO);

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', nullValues = "null", value = {
            "/index.php                 | /index.php          | ''",
            "/                          | /index.php          | ''",
            "/blog/                     | /blog/index.php     | ''",
            "/index.php/a/b             | /index.php          | /a/b",
            "/a.php/b.php/c             | /a.php              | /b.php/c",
            "/img/logo.png              | /img/logo.png       | ''",
            "/up/evil.jpg/x.php         | /up/evil.jpg/x.php  | ''",
            "/caf%C3%A9.php/x%20y       | /caf\u00c3\u00a9.php | /x y",
            "/index.php/                | /index.php          | /",
    })
    void splitWithTheDefaultPattern(String path, String script, String info) {
        ScriptPath s = ScriptPath.of(path, DEFAULT, "index.php");
        assertThat(s.scriptName()).isEqualTo(script);
        assertThat(s.pathInfo()).isEqualTo(info);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/index.php/a", "/dir/"})
    void withoutSplitTheWholePathIsTheScript(String path) {
        ScriptPath s = ScriptPath.of(path, null, "app.php");
        assertThat(s.scriptName()).isEqualTo(path.endsWith("/") ? path + "app.php" : path);
        assertThat(s.pathInfo()).isEmpty();
        assertThat(s.decoded()).isEqualTo(path);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/a%2F..%2Fetc/passwd.php", "/a%2fb.php", "/x%00.php", "/%", "/%zz.php", "/a/%2E%2E/b.php",
            "relative.php", ""})
    void pathsThatCouldLeaveTheRootAreRefused(String path) {
        assertThat(ScriptPath.of(path, DEFAULT, "index.php")).isNull();
    }
}
