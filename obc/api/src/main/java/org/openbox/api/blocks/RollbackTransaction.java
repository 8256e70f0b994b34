package org.openbox.api.blocks;

/**
 * Rolls back the named transaction.
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.32.
 * Config: name (string, required).
 * Read handles: count.
 * Write handles: reset.
 * <pre>new RollbackTransaction("rollback", "t1")</pre>
 */
public final class RollbackTransaction extends ProcessingBlock {

    public RollbackTransaction(String name, String transaction) {
        super(name);
        set("name", transaction);
    }
}
