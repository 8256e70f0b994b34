package org.openbox.protocol.match;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.List;

/**
 * The parsed value of one header-match field: a union of terms (nested lists flattened in
 * source order). Converts to the canonical form of protocol/README.md and back to a wire value.
 */
public record FieldMatch(MatchField field, List<Term> terms) {
    public FieldMatch {
        terms = List.copyOf(terms);
    }

    /** True when some term admits v. */
    public boolean contains(BigInteger v) {
        for (Term t : terms) {
            if (t.contains(v)) {
                return true;
            }
        }
        return false;
    }

    /** {"field": "TCP_DST", "terms": [{"value": "0x50", "mask": "0xffff"}, {"min": .., "max": ..}]}. */
    public ObjectNode toCanonical() {
        JsonNodeFactory f = JsonNodeFactory.instance;
        ObjectNode out = f.objectNode();
        out.put("field", field.name());
        ArrayNode arr = out.putArray("terms");
        for (Term t : terms) {
            ObjectNode o = arr.addObject();
            if (t instanceof Term.Masked m) {
                o.put("value", Scalars.hex(m.value()));
                o.put("mask", Scalars.hex(m.mask()));
            } else if (t instanceof Term.Range r) {
                o.put("min", Scalars.hex(r.min()));
                o.put("max", Scalars.hex(r.max()));
            }
        }
        return out;
    }

    /**
     * A value string in the header-match grammar that parses back to these terms: "v" for an
     * exact value, "v%m" for a masked one, "[a:b]" for a range, "[t1,t2,...]" for several.
     * MAC and IPv6 fields have no range syntax, so a range on them is written as the list of
     * prefixes covering it (the same set of values, as masked terms).
     */
    public JsonNode toWireValue() {
        List<String> parts = new ArrayList<>();
        for (Term t : terms) {
            if (t instanceof Term.Masked m) {
                String v = Scalars.format(field.syntax(), m.value().and(m.mask()));
                parts.add(m.mask().equals(field.fullMask()) ? v : v + "%" + Scalars.format(field.syntax(), m.mask()));
            } else if (t instanceof Term.Range r) {
                if (field.syntax() == Syntax.INTEGER || field.syntax() == Syntax.IPV4) {
                    parts.add("[" + Scalars.format(field.syntax(), r.min()) + ":"
                            + Scalars.format(field.syntax(), r.max()) + "]");
                } else {
                    for (Term.Masked m : rangeToPrefixes(r.min(), r.max(), field.width())) {
                        parts.add(Scalars.format(field.syntax(), m.value()) + "%"
                                + Scalars.format(field.syntax(), m.mask()));
                    }
                }
            }
        }
        if (parts.isEmpty()) {
            throw new IllegalStateException("field " + field + " has no terms");
        }
        return TextNode.valueOf(parts.size() == 1 ? parts.get(0) : "[" + String.join(",", parts) + "]");
    }

    /** The minimal list of aligned prefixes whose union is [min, max]. */
    static List<Term.Masked> rangeToPrefixes(BigInteger min, BigInteger max, int width) {
        List<Term.Masked> out = new ArrayList<>();
        BigInteger full = BigInteger.ONE.shiftLeft(width).subtract(BigInteger.ONE);
        BigInteger cur = min;
        while (cur.compareTo(max) <= 0) {
            int size = cur.signum() == 0 ? width : cur.getLowestSetBit();
            while (size > 0
                    && cur.add(BigInteger.ONE.shiftLeft(size))
                                    .subtract(BigInteger.ONE)
                                    .compareTo(max)
                            > 0) {
                size--;
            }
            BigInteger mask = full.xor(BigInteger.ONE.shiftLeft(size).subtract(BigInteger.ONE));
            out.add(new Term.Masked(cur, mask));
            cur = cur.add(BigInteger.ONE.shiftLeft(size));
        }
        return out;
    }
}
