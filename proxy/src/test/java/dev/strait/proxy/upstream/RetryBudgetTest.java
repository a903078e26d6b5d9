package dev.strait.proxy.upstream;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class RetryBudgetTest {
    @Test
    void aFifthOfRequestsPlusTheReserve() {
        RetryBudget b = new RetryBudget();
        long now = System.nanoTime();
        int allowed = 0;
        for (int i = 0; i < 100; i++) {
            b.deposit();
            if (b.withdraw(now)) {
                allowed++;
            }
        }
        assertThat(allowed).isBetween(20, 23);
    }

    @Test
    void theReserveRefillsOverTime() {
        RetryBudget b = new RetryBudget();
        long now = System.nanoTime();
        while (b.withdraw(now)) {
            // spend it all
        }
        assertThat(b.withdraw(now + 500_000_000L)).isFalse();
        assertThat(b.withdraw(now + 2_000_000_000L)).isTrue();
    }

    @Test
    void cookieValuesAreFoundAmongOthers() {
        long a = LoopUpstream.cookieHash("theme=dark; sid=abc; x=1", "sid");
        assertThat(a).isNotZero().isEqualTo(LoopUpstream.cookieHash("sid=abc", "sid"))
                .isEqualTo(LoopUpstream.cookieHash("sid=\"abc\"", "sid"));
        assertThat(LoopUpstream.cookieHash("xsid=abc; sidx=abc", "sid")).isZero();
        assertThat(LoopUpstream.cookieHash("sid=abd", "sid")).isNotEqualTo(a);
    }
}
