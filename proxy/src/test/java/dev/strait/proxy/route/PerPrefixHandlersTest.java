package dev.strait.proxy.route;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strait.model.ConfigParser;
import dev.strait.model.ConfigWriter;
import dev.strait.proxy.config.Snapshot;
import dev.strait.proxy.config.SnapshotBuilder;
import io.netty.handler.codec.http.DefaultHttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import org.junit.jupiter.api.Test;

/**
 * Rules that replace the matched prefix get one handler per Prefix match ({@link PrefixAware}); the others
 * keep one shared compiled rule, and an unchanged rule of either kind keeps its virtual host across the
 * incremental builds of ADR 0025.
 */
class PerPrefixHandlersTest {
    private static final String CONFIG = """
            listeners: [ { name: http, address: "127.0.0.1:0" } ]
            routes:
              - name: site
                hosts: [ "a.example" ]
                rules:
                  - matches: [ { path: { value: /a } }, { path: { value: /b/ } } ]
                    redirect: { path: { replacePrefixMatch: /c } }
                  - matches: [ { path: { value: /d } }, { path: { value: /e } } ]
                    redirect: { scheme: https }
            """;

    private static CompiledRule find(Snapshot s, String path) {
        return s.table().find("a.example", path, HttpMethod.GET, new DefaultHttpHeaders());
    }

    @Test
    void eachPrefixMatchHasItsHandlerAndOtherRulesShareOne() throws Exception {
        Snapshot s = SnapshotBuilder.build(ConfigParser.parse(CONFIG, "t"), "t");
        CompiledRule a = find(s, "/a/x");
        CompiledRule b = find(s, "/b/x");
        assertThat(a.index()).isEqualTo(b.index()).isZero();
        assertThat(a.handler()).isNotSameAs(b.handler());
        assertThat(((PrefixAware) a.handler()).unbound()).isSameAs(((PrefixAware) b.handler()).unbound());
        assertThat(find(s, "/d")).isSameAs(find(s, "/e"));
    }

    @Test
    void anUnchangedPrefixRuleKeepsItsHostInIncrementalBuilds() throws Exception {
        JsonNode doc = new ObjectMapper().readTree(ConfigWriter.toJson(ConfigParser.parse(CONFIG, "t"), false));
        ConfigParser.Memo parsed = new ConfigParser.Memo();
        SnapshotBuilder.Reuse reuse = new SnapshotBuilder.Reuse();
        Snapshot first = SnapshotBuilder.build(ConfigParser.parse(doc, "t", parsed), "t", reuse);
        Snapshot second = SnapshotBuilder.build(ConfigParser.parse(doc, "t", parsed), "t", reuse);
        assertThat(reuse.hostsReused()).isEqualTo(1);
        assertThat(find(second, "/b/x")).isSameAs(find(first, "/b/x"));
    }
}
