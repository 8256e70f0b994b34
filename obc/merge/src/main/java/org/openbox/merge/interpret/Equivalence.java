package org.openbox.merge.interpret;

import java.util.ArrayList;
import java.util.List;
import org.openbox.merge.AppGraph;
import org.openbox.merge.Composition;
import org.openbox.merge.MergeResult;
import org.openbox.merge.core.BlockInfo;

/**
 * Checks a merged graph against the composition it implements, packet by packet: same exit
 * (the merged output terminal implements the application's), same final bytes, same alerts
 * and logs in the same order with the same origins.
 */
public final class Equivalence {
    private final Reference reference;
    private final Interpreter merged;
    private final MergeResult result;

    public Equivalence(List<AppGraph> apps, Composition c, MergeResult result, BlockInfo info) {
        this.reference = new Reference(apps, c, info);
        this.result = result;
        this.merged = new Interpreter(result.merged(), info, result.provenance()::originsOf);
    }

    /** The merged graph's input terminals. */
    public List<String> inputs() {
        return merged.inputs();
    }

    /** Null when both agree on the packet entering at merged input {@code input}, else a description. */
    public String check(String input, byte[] packet) {
        Outcome want = reference.run(result.provenance().originsOf(input), packet);
        Outcome got = merged.run(input, packet);
        String why = differs(want, got);
        return why == null ? null : why + "\n  input " + input + "\n  reference: " + want + "\n  merged:    " + got;
    }

    private String differs(Outcome want, Outcome got) {
        if (want.dropped() != got.dropped())
            return want.dropped() ? "merged graph forwards a dropped packet" : "merged graph drops the packet";
        if (!want.dropped()) {
            if (!result.provenance().originsOf(got.exit()).contains(reference.exitOrigin(want.exit()))) {
                return "different exit: merged " + got.exit() + " does not implement " + want.exit();
            }
        }
        if (!java.util.Arrays.equals(want.packet(), got.packet())) return "different packet bytes";
        if (!anonymous(want.effects()).equals(anonymous(got.effects()))) return "different alerts / logs";
        return countsMapBack();
    }

    /**
     * Per-rule provenance (how the controller answers an application's count reads): every
     * application rule the packet matched is implemented by a merged rule it matched.
     */
    private String countsMapBack() {
        List<Interpreter.Hit> mergedHits = merged.hits();
        for (org.openbox.merge.core.RuleRef r : reference.hits()) {
            List<String> blocks = result.provenance().mergedBlocksOf(r.app(), r.block());
            if (blocks.isEmpty() || result.provenance().folded(r.app(), r.block()))
                continue; // counts partial by design
            boolean found = false;
            for (Interpreter.Hit h : mergedHits) {
                if (result.provenance()
                        .mergedRulesOf(r.app(), r.block(), r.rule(), h.block())
                        .contains(h.rule())) {
                    found = true;
                    break;
                }
            }
            if (!found)
                return "rule " + r.rule() + " of " + r.app() + "." + r.block() + " matched, but no merged rule "
                        + "implementing it did (merged hits " + mergedHits + ")";
        }
        return null;
    }

    private static List<SideEffect> anonymous(List<SideEffect> e) {
        List<SideEffect> out = new ArrayList<>();
        for (SideEffect s : e) out.add(s.anonymous());
        return out;
    }
}
