package dev.strait.proxy.handler.proxy;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import dev.strait.model.Route;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.List;

/**
 * {@link ResponseRewriter} on any field values an upstream may send: it never fails, a {@code Location} changes
 * only where it starts with an entry's {@code from}, and a cookie keeps its name, value and every attribute but
 * the {@code Path} and {@code Domain} it rewrites.
 */
class ResponseRewriterFuzzTest {
    private static final ResponseRewriter REWRITER = ResponseRewriter.of(new Route.ResponseRewrite(
            List.of(new Route.Replace("http://a:8/", "https://b/x/"), new Route.Replace("/", "/app/")),
            List.of(new Route.Replace("/", "/app/")), List.of(new Route.Replace("a.internal", "example.com"))));

    @FuzzTest(maxDuration = "30s")
    void fieldsAreRewrittenOnlyWhereAnEntryMatches(FuzzedDataProvider data) {
        String location = data.consumeString(60);
        String refresh = data.consumeString(40);
        String cookie = data.consumeRemainingAsString();
        HttpHeaders h = new DefaultHttpHeaders(false);
        h.add("location", location).add("refresh", refresh).add("set-cookie", cookie);
        REWRITER.apply(null, h); // no {host} or {scheme}: the exchange is never asked

        String l = h.get("location");
        if (location.startsWith("http://a:8/")) {
            assertThat(l).isEqualTo("https://b/x/" + location.substring(11));
        } else if (location.startsWith("/")) {
            assertThat(l).isEqualTo("/app/" + location.substring(1));
        } else {
            assertThat(l).isEqualTo(location);
        }
        String c = h.get("set-cookie");
        int semi = cookie.indexOf(';');
        assertThat(c).as("the cookie itself").startsWith(semi < 0 ? cookie : cookie.substring(0, semi));
        assertThat(c.chars().filter(ch -> ch == ';').count()).as("as many attributes")
                .isEqualTo(cookie.chars().filter(ch -> ch == ';').count());
        if (!cookie.toLowerCase().contains("path") && !cookie.toLowerCase().contains("domain")) {
            assertThat(c).isEqualTo(cookie);
        }
        if (!refresh.toLowerCase().contains("url=")) {
            assertThat(h.get("refresh")).isEqualTo(refresh);
        }
    }
}
