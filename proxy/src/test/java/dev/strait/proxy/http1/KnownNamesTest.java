package dev.strait.proxy.http1;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.util.AsciiString;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class KnownNamesTest {
    private static final String[] NAMES = {"Host", "TE", "Te-X", "Connection", "Keep-Alive", "Content-Type",
        "Content-Length", "X-Forwarded-For", "Upgrade-Insecure-Requests", "DNT"};
    private final KnownNames known = KnownNames.of(NAMES);

    private AsciiString name(String s) {
        byte[] b = ("xx" + s + ": v").getBytes(StandardCharsets.ISO_8859_1); // not at the array's start
        return known.name(b, 2, 2 + s.length());
    }

    @Test
    void everyNameInBothSpellingsIsTheSharedConstant() {
        for (String n : NAMES) {
            assertThat((Object) name(n)).isSameAs(name(n)).hasToString(n);
            String lower = n.toLowerCase(java.util.Locale.ROOT);
            assertThat((Object) name(lower)).isSameAs(name(lower)).hasToString(lower);
        }
    }

    @Test
    void otherNamesAndOtherSpellingsAreCopies() {
        for (String n : new String[] {"HOST", "Hosts", "Hos", "X-Forwarded-Fox", "content-TYPE", "T", "X"}) {
            assertThat((Object) name(n)).hasToString(n).isNotSameAs(name(n));
        }
    }
}
