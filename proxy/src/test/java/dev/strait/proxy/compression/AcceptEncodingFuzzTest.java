package dev.strait.proxy.compression;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Locale;

/**
 * {@link AcceptEncoding#best} on any {@code Accept-Encoding} a client may send: it never fails, and it chooses what a
 * literal reading of RFC 9110 12.5.3 chooses (this test's own, written for clarity, not speed): each coding's own
 * weight, else {@code *}'s; the highest above 0, the server's first on a tie.
 */
class AcceptEncodingFuzzTest {
    private static final Coding[] ALL = {Coding.ZSTD, Coding.BROTLI, Coding.GZIP};

    @FuzzTest(maxDuration = "30s")
    void theChoiceIsTheLiteralReadings(FuzzedDataProvider data) {
        String field = data.consumeRemainingAsString();
        Coding chosen = AcceptEncoding.best(field, ALL);
        Coding expected = null;
        int best = 0;
        for (Coding c : ALL) {
            int w = literalWeight(field, c.token);
            assertThat(AcceptEncoding.weight(field, c.token)).as(c.token + " in \"" + field + "\"").isEqualTo(w);
            if (w > best) {
                expected = c;
                best = w;
            }
        }
        assertThat(chosen).as("\"" + field + "\"").isEqualTo(expected);
    }

    /** A coding's weight in thousandths, read element by element. */
    private static int literalWeight(String field, String coding) {
        int own = -1;
        int any = -1;
        for (String element : field.split(",", -1)) {
            String[] parts = element.split(";", -1);
            String token = parts[0].trim().toLowerCase(Locale.ROOT);
            int weight = 1000;
            for (int i = 1; i < parts.length; i++) {
                String p = parts[i].trim();
                if (p.length() >= 2 && Character.toLowerCase(p.charAt(0)) == 'q' && p.charAt(1) == '=') {
                    weight = qvalue(p.substring(2));
                    break;
                }
            }
            if (weight < 0) {
                continue; // no qvalue: the element is left out
            }
            if (token.equals(coding) || coding.equals("gzip") && token.equals("x-gzip")) {
                own = Math.max(own, weight);
            } else if (token.equals("*")) {
                any = Math.max(any, weight);
            }
        }
        return own >= 0 ? own : Math.max(any, 0);
    }

    /** RFC 9110's qvalue: 0 to 1 with up to three decimals, in thousandths; -1 when it is none. */
    private static int qvalue(String v) {
        if (v.matches("1(\\.0{0,3})?")) {
            return 1000;
        }
        if (!v.matches("0(\\.[0-9]{0,3})?")) {
            return -1;
        }
        String digits = v.length() > 2 ? v.substring(2) : "";
        return digits.isEmpty() ? 0 : Integer.parseInt((digits + "00").substring(0, 3));
    }
}
