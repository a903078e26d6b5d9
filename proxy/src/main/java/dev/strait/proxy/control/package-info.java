/**
 * The proxy's end of the operator's control channel ({@code --control HOST:PORT}): dial in, say who we
 * are, validate each snapshot exactly as a config file is validated, swap it in whole, ACK or NACK its
 * version. When the channel drops the last good table keeps serving and the client redials with
 * backoff and jitter; the last accepted snapshot is kept in {@code --state-dir} so that a restart
 * serves before the operator answers. After an accepted config, {@link WarmUp} runs the delta path on
 * copies until it is compiled, giving way to every message (ADR 0030). The protocol is in
 * docs/control-channel.md.
 */
package dev.strait.proxy.control;
