package org.openbox.merge;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Map;

/**
 * A JSON value as a hash key that is equal exactly when the two values are written as the
 * same text: objects compare their fields in order, arrays their elements, strings their
 * text and other scalars their written form. Cheaper than writing the text (a merged
 * classifier's config holds thousands of rules) and walked without recursion, so any
 * nesting depth is safe. The value must not change while it is used as a key.
 */
final class JsonKey {
    private final JsonNode value;
    private int hash;
    private boolean hashed;

    JsonKey(JsonNode value) {
        this.value = value;
    }

    /** Computed on first use: a key compared with no other (the usual case) is never walked. */
    @Override
    public int hashCode() {
        if (!hashed) {
            hash = hash(value);
            hashed = true;
        }
        return hash;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof JsonKey k)) return false;
        return k.value == value || (k.hashCode() == hashCode() && same(value, k.value));
    }

    private static int hash(JsonNode root) {
        int h = 1;
        ArrayDeque<JsonNode> todo = new ArrayDeque<>();
        todo.push(root);
        while (!todo.isEmpty()) {
            JsonNode n = todo.pop();
            if (n.isObject()) {
                h = 31 * h + 'o' + n.size();
                for (Iterator<Map.Entry<String, JsonNode>> it = n.fields(); it.hasNext(); ) {
                    Map.Entry<String, JsonNode> e = it.next();
                    h = 31 * h + e.getKey().hashCode();
                    h = 31 * h + scalarHash(e.getValue(), todo);
                }
            } else if (n.isArray()) {
                h = 31 * h + 'a' + n.size();
                for (JsonNode c : n) h = 31 * h + scalarHash(c, todo);
            } else {
                h = 31 * h + scalarHash(n, todo);
            }
        }
        return h;
    }

    /** The hash of a scalar; a container is queued (its contents are hashed when popped) and counts as its kind. */
    private static int scalarHash(JsonNode n, ArrayDeque<JsonNode> todo) {
        if (n.isContainerNode()) {
            todo.push(n);
            return n.isObject() ? 'O' : 'A';
        }
        return n.isTextual() ? n.textValue().hashCode() : 7 * n.toString().hashCode();
    }

    private static boolean same(JsonNode a0, JsonNode b0) {
        ArrayDeque<JsonNode> todo = new ArrayDeque<>();
        todo.push(a0);
        todo.push(b0);
        while (!todo.isEmpty()) {
            JsonNode b = todo.pop(), a = todo.pop();
            if (a.isObject() != b.isObject() || a.isArray() != b.isArray() || a.size() != b.size()) return false;
            if (a.isObject()) {
                Iterator<Map.Entry<String, JsonNode>> x = a.fields(), y = b.fields();
                while (x.hasNext()) {
                    Map.Entry<String, JsonNode> ex = x.next(), ey = y.next();
                    if (!ex.getKey().equals(ey.getKey())) return false;
                    todo.push(ex.getValue());
                    todo.push(ey.getValue());
                }
            } else if (a.isArray()) {
                for (int i = 0; i < a.size(); i++) {
                    todo.push(a.get(i));
                    todo.push(b.get(i));
                }
            } else if (a.isTextual() != b.isTextual()
                    || !(a.isTextual()
                            ? a.textValue().equals(b.textValue())
                            : a.toString().equals(b.toString()))) {
                return false;
            }
        }
        return true;
    }
}
