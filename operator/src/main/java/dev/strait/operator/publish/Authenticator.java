package dev.strait.operator.publish;

import io.netty.channel.Channel;

/** Decides whether a proxy may have the snapshot it asks for. */
@FunctionalInterface
public interface Authenticator {
    /** Anyone who can reach the port: for tests and for clusters that restrict the port by NetworkPolicy. */
    Authenticator OPEN = (channel, identity, token) -> null;

    /** @return null to let it in, else why not (sent to the peer before closing) */
    String check(Channel channel, ProxyIdentity identity, String token);
}
