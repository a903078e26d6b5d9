/**
 * The control channel's server: proxies dial in, say who they are, get the snapshot of their scope,
 * and ACK or NACK each version. The protocol (length-prefixed JSON messages) is in
 * docs/control-channel.md; the decision record is docs/adr/0008-control-channel.md.
 *
 * <p>Pipeline of one proxy's connection, in order: (TLS, when configured) -> {@code
 * LengthFieldBasedFrameDecoder} / {@code LengthFieldPrepender} (4-byte big-endian length) -> {@code
 * IdleStateHandler} (pings when quiet, closes a silent peer) -> {@link ProxySession} (the protocol).
 * {@link Fleet} holds every session and the latest translation; it is the only shared state.
 */
package dev.strait.operator.publish;
