package dev.strait.operator.publish;

import io.netty.channel.Channel;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

/** Decides whether a proxy may have the snapshot of the identity it claims. */
@FunctionalInterface
public interface Authenticator {
    /** Anyone who can reach the port: for tests and for clusters that restrict the port by NetworkPolicy. */
    Authenticator OPEN = (channel, identity, token) -> CompletableFuture.completedFuture(null);

    /**
     * May take time (an API call); must not block the calling event loop.
     *
     * @return completes with null to let it in, else why not (sent to the peer before closing)
     */
    CompletionStage<String> check(Channel channel, ProxyIdentity identity, String token);
}
