package org.openbox.merge.core;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Pattern;
import org.openbox.protocol.match.MatchField;
import org.openbox.protocol.match.Term;

/**
 * One classifier rule in the merge's uniform form: a header match (per field, a union of
 * terms; absent field = any value) AND every regex of {@code patterns} found in the payload
 * (or, when {@code whole}, in the whole frame). A rule with no fields and no patterns matches
 * every packet. {@code refs} are the original application rules this rule implements.
 *
 * HeaderClassifier, RegexClassifier, RegexMatcher and HeaderPayloadClassifier rules all map
 * to this form (see {@link ClassifierRules}).
 */
public record Rule(Map<MatchField, List<Term>> header, List<String> patterns, boolean whole, List<RuleRef> refs) {

    public Rule {
        EnumMap<MatchField, List<Term>> h = new EnumMap<>(MatchField.class);
        header.forEach((f, t) -> h.put(f, List.copyOf(t)));
        header = Collections.unmodifiableMap(h);
        patterns = List.copyOf(new LinkedHashSet<>(patterns));
        refs = List.copyOf(refs);
    }

    public static Rule any(List<RuleRef> refs) {
        return new Rule(Map.of(), List.of(), false, refs);
    }

    /** True when the rule matches every packet. */
    public boolean isAny() {
        return header.isEmpty() && patterns.isEmpty();
    }

    /** True when some field admits no value: the rule matches nothing. */
    public boolean isEmpty() {
        for (List<Term> t : header.values()) {
            if (t.isEmpty()) return true;
        }
        return false;
    }

    public Rule withRefs(List<RuleRef> newRefs) {
        return new Rule(header, patterns, whole, newRefs);
    }

    /** Does the packet match? {@code compile} turns a regex into a Pattern (cached by the caller). */
    public boolean matches(FieldSource p, Function<String, Pattern> compile) {
        for (Map.Entry<MatchField, List<Term>> e : header.entrySet()) {
            BigInteger v = p.field(e.getKey());
            if (v == null) return false;
            boolean any = false;
            for (Term t : e.getValue()) {
                if (t.contains(v)) {
                    any = true;
                    break;
                }
            }
            if (!any) return false;
        }
        if (!patterns.isEmpty()) {
            String text = whole ? p.packetText() : p.payloadText();
            for (String re : patterns) {
                if (!compile.apply(re).matcher(text).find()) return false;
            }
        }
        return true;
    }

    /** The header fields the rule reads. */
    public java.util.Set<MatchField> fields() {
        return header.keySet();
    }

    static List<RuleRef> union(List<RuleRef> a, List<RuleRef> b) {
        List<RuleRef> out = new ArrayList<>(a);
        for (RuleRef r : b) if (!out.contains(r)) out.add(r);
        return out;
    }
}
