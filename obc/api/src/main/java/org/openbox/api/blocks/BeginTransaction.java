package org.openbox.api.blocks;

/**
 * Begins a transaction: the blocks up to the matching CommitTransaction or RollbackTransaction succeed or fail as a whole.
 *
 * <p>Ports: 1 input, 1 output. Class: modifier; spec 5.30.
 * Config: name (string, required).
 * Read handles: count.
 * Write handles: reset.
 * <pre>new BeginTransaction("begin", "t1")</pre>
 */
public final class BeginTransaction extends ProcessingBlock {

    public BeginTransaction(String name, String transaction) {
        super(name);
        set("name", transaction);
    }
}
