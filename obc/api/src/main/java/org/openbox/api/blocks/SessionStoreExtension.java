package org.openbox.api.blocks;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import org.openbox.protocol.ErrorSubtype;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.match.HeaderMatchParser;
import org.openbox.protocol.match.MatchField;

/**
 * Stores packet field values in the session storage for later SessionClassifier rules; the
 * packet passes through unchanged.
 *
 * <p>Conveniences beside the generated {@link SessionStore}, whose Javadoc lists the ports,
 * config and handles of blocks/catalogue/SessionStore.json.
 * <pre>new SessionStore("remember").store(MatchField.IPV4_SRC, "client", "255.255.255.0")</pre>
 */
public abstract class SessionStoreExtension extends ProcessingBlock {

    SessionStoreExtension(String name) {
        super(name);
    }

    /** Stores the whole value of {@code field} under {@code key}. */
    public SessionStore store(MatchField field, String key) {
        ((ObjectNode) get("fields")).put(field.name(), key);
        return (SessionStore) this;
    }

    /** Stores the value of {@code field} ANDed with {@code mask} (of the field's syntax) under {@code key}. */
    public SessionStore store(MatchField field, String key, String mask) {
        try {
            HeaderMatchParser.parseValue(field.name(), JsonNodeFactory.instance.textNode(mask));
        } catch (ProtocolException e) {
            throw invalid(ErrorSubtype.BAD_BLOCK, "mask of " + field + ": " + e.getMessage());
        }
        ((ObjectNode) get("fields")).putObject(field.name()).put("key", key).put("mask", mask);
        return (SessionStore) this;
    }

    @Override
    public void check() {
        requireRules("fields", "fields to store");
    }
}
