package dev.strait.proxy.route;

/**
 * A rule's action with something around it, made with the table (its CORS, its header edits): it keeps the
 * action's per-prefix forms ({@link PrefixAware}) and, for table reuse, the identity of the handler made.
 */
public abstract class HandlerDecorator implements PrefixAware {
    protected final Handler inner;

    protected HandlerDecorator(Handler inner) {
        this.inner = inner;
    }

    /** The same decoration around {@code bound}, a per-prefix form of the action. */
    protected abstract Handler around(Handler bound);

    @Override
    public boolean upgradesToHttps() {
        return inner.upgradesToHttps();
    }

    @Override
    public boolean decidesBeforeBody() {
        return inner.decidesBeforeBody();
    }

    @Override
    public Handler forPrefix(String prefix) {
        if (inner instanceof PrefixAware pa) {
            Handler bound = pa.forPrefix(prefix);
            return bound == inner ? this : around(bound);
        }
        return this;
    }

    @Override
    public Handler unbound() {
        return inner instanceof PrefixAware pa ? pa.unbound() : inner;
    }
}
