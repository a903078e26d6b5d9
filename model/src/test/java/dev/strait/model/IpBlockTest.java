package dev.strait.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/** Addresses and CIDR blocks of {@code forwardedHeaders.trustedPeers}: literals only, matched bit by bit. */
class IpBlockTest {

    @ParameterizedTest(name = "{0} contains {1}: {2}")
    @CsvSource({
        "10.0.0.0/8,       10.255.1.2,          true",
        "10.0.0.0/8,       11.0.0.1,            false",
        "10.0.0.0/8,       ::ffff:10.1.2.3,     true",
        "192.0.2.7,        192.0.2.7,           true",
        "192.0.2.7,        192.0.2.8,           false",
        "192.0.2.7/32,     192.0.2.7,           true",
        "172.16.0.0/12,    172.31.255.255,      true",
        "172.16.0.0/12,    172.32.0.0,          false",
        "0.0.0.0/0,        203.0.113.9,         true",
        "0.0.0.0/0,        2001:db8::1,         false",
        "fd00::/8,         fd12:3456::1,        true",
        "fd00::/8,         fe80::1,             false",
        "fd00::/8,         10.0.0.1,            false",
        "::1,              ::1,                 true",
        "::1,              127.0.0.1,           false",
        "2001:db8::/32,    2001:db8:ffff::1,    true",
        "2001:db8::/32,    2001:db9::1,         false",
        "2001:db8:0:0:8000::/65, 2001:db8::8000:0:0:1, true",
        "2001:db8:0:0:8000::/65, 2001:db8::1,   false",
        "::/0,             2001:db8::1,         true",
        "::ffff:10.0.0.0/104, 10.9.9.9,         true",
    })
    void contains(String block, String address, boolean expected) throws Exception {
        // Literal addresses: InetAddress.getByName looks nothing up for them.
        assertThat(IpBlock.parse(block).contains(InetAddress.getByName(address))).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"lb.internal", "localhost", "10.1", "10.0.0.256", "10.0.0.0/", "10.0.0.0/x", "10.0.0.0/33",
        "fd00::/129", "10.0.0.1/8", "fd00::1/8", "::g", "1:2:3:4:5:6:7:8:9", ".::1", "fe80::1%eth0", "", "/8", "010.0.0.0.0"})
    void refused(String text) {
        assertThatThrownBy(() -> IpBlock.parse(text)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("\"" + text + "\"");
    }

    /** nginx masks the bits past an allow entry's prefix; ingress-nginx's source-range annotations are read so. */
    @ParameterizedTest(name = "{0} is {1}")
    @CsvSource({
        "10.1.2.3/8,           10.0.0.0/8",
        "10.0.0.0/8,           10.0.0.0/8",
        "192.0.2.77/24,        192.0.2.0/24",
        "192.0.2.7,            192.0.2.7",
        "192.0.2.7/0,          0.0.0.0/0",
        "2001:db8::1/32,       2001:db8:0:0:0:0:0:0/32",
        "2001:db8:1:2:8001::/65, 2001:db8:1:2:8000:0:0:0/65",
        "fd00::1,              fd00::1",
    })
    void parseMaskedTakesTheBlocksFirstAddress(String text, String network) {
        IpBlock masked = IpBlock.parseMasked(text);
        assertThat(masked.text()).isEqualTo(network);
        assertThat(masked).isEqualTo(IpBlock.parse(network));
    }

    @ParameterizedTest
    @ValueSource(strings = {"office", "10.0.0.0/33", "10.0.0.0/", "10.1/8", "fd00::/129", "10.0.0.0/x"})
    void parseMaskedRefusesWhatIsNoBlock(String text) {
        assertThatThrownBy(() -> IpBlock.parseMasked(text)).isInstanceOf(IllegalArgumentException.class);
    }
}
