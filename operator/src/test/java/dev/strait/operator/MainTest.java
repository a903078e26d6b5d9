package dev.strait.operator;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.model.Config;
import dev.strait.model.IpBlock;
import org.junit.jupiter.api.Test;

/** The operator's own flags that become part of every snapshot. */
class MainTest {
    @Test
    void trustedPeersAreAListOfAddressesAndBlocks() {
        assertThat(Main.trustedPeers(null)).isEqualTo(Config.ForwardedHeaders.DEFAULTS);
        assertThat(Main.trustedPeers(" ")).isEqualTo(Config.ForwardedHeaders.DEFAULTS);
        assertThat(Main.trustedPeers("10.0.0.0/8, 192.0.2.7,,fd00::/8").trustedPeers()).extracting(IpBlock::text)
                .containsExactly("10.0.0.0/8", "192.0.2.7", "fd00::/8");
        assertThatThrownBy(() -> Main.trustedPeers("10.0.0.0/8,lb.internal"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("lb.internal");
    }

    @Test
    void proxyProtocolIsTrueOrFalseAndOffByDefault() {
        assertThat(Main.proxyProtocol(null)).isFalse();
        assertThat(Main.proxyProtocol(" ")).isFalse();
        assertThat(Main.proxyProtocol("true")).isTrue();
        assertThat(Main.proxyProtocol("TRUE")).isTrue();
        assertThat(Main.proxyProtocol("false")).isFalse();
        assertThatThrownBy(() -> Main.proxyProtocol("yes"))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("\"yes\"");
    }

    @Test
    void proxyProtocolIsAnOptionOfItsOwn() {
        assertThat(Main.options(new String[] {"--proxy-protocol=true"})).containsEntry("proxy-protocol", "true");
        assertThat(Main.options(new String[] {"--proxy-protocol", "false"})).containsEntry("proxy-protocol", "false");
    }
}
