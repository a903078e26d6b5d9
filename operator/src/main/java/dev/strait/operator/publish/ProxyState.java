package dev.strait.operator.publish;

import dev.strait.operator.translate.Scope;

/**
 * One connected proxy as the status side sees it.
 *
 * @param acked       the last version it ACKed (it serves that), or null
 * @param ackedSeq    that version's place in its scope's history (higher is newer), or -1
 * @param nacked      the last version it refused, when that is newer than what it ACKed; else null
 * @param nackError   why it refused {@code nacked}
 */
public record ProxyState(long id, String remote, ProxyIdentity identity, Scope scope, String acked, long ackedSeq,
                         String nacked, String nackError) {
}
