package dev.strait.proxy.route;

/**
 * A handler whose answer depends on which Prefix match chose its rule: a path rewrite or redirect that
 * replaces the matched prefix ({@code replacePrefixMatch}). The table builder asks it for a handler per
 * Prefix match of its rule, so the one a request reaches already knows its prefix: choosing a rule stays
 * as it is, and rules without such a rewrite are served exactly as before (ADR 0052).
 */
public interface PrefixAware extends Handler {
    /**
     * The handler for requests that the Prefix match {@code prefix} chose, or this one when the prefix
     * does not matter to it.
     *
     * @param prefix the match's value without a trailing slash ({@code /} for the root)
     */
    Handler forPrefix(String prefix);

    /** The handler {@link #forPrefix} was called on, for one it made; else this one. */
    default Handler unbound() {
        return this;
    }
}
