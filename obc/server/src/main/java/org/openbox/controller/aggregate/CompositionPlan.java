package org.openbox.controller.aggregate;

import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;

/**
 * How the applications of one OBI are composed: stages chained in priority order, the
 * applications of one stage distinct (each packet goes through exactly one of them).
 * Walking the applications from the highest priority, an application with a traffic class
 * joins the current stage when its class is disjoint from the class of every application
 * already in it; otherwise (no class, or a class overlapping one of the stage's) it starts
 * a new stage. An application without a class is a stage of its own and sees all traffic,
 * as in a plain chain. So two applications with disjoint classes become two branches behind
 * one front classifier, and applications without classes, or with overlapping ones, are
 * chained as before.
 *
 * @param stages the applications of each stage, in order
 */
public record CompositionPlan(List<List<AppPart>> stages) {

    public CompositionPlan {
        stages = stages.stream().map(List::copyOf).toList();
    }

    /** The plan for parts ordered by priority (highest first). */
    public static CompositionPlan of(List<AppPart> parts) {
        List<List<AppPart>> stages = new ArrayList<>();
        List<AppPart> current = null;
        for (AppPart p : parts) {
            if (current != null && p.trafficClass() != null && disjointFromAll(p, current)) {
                current.add(p);
                continue;
            }
            current = new ArrayList<>(List.of(p));
            stages.add(current);
            if (p.trafficClass() == null) current = null; // a classless application stays alone
        }
        return new CompositionPlan(stages);
    }

    private static boolean disjointFromAll(AppPart p, List<AppPart> stage) {
        for (AppPart q : stage) {
            if (q.trafficClass() == null || !TrafficClasses.disjoint(p.trafficClass(), q.trafficClass())) return false;
        }
        return true;
    }

    /** True when some stage has two or more applications. */
    public boolean distinct() {
        return stages.stream().anyMatch(s -> s.size() > 1);
    }

    /** E.g. "chain" or "distinct [web | dns] then chain [ids]". */
    public String describe() {
        if (!distinct()) return "chain";
        return stages.stream()
                .map(s -> s.size() == 1
                        ? s.get(0).app()
                        : "distinct [" + s.stream().map(AppPart::app).collect(Collectors.joining(" | ")) + "]")
                .collect(Collectors.joining(" then "));
    }
}
