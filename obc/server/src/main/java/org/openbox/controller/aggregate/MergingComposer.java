package org.openbox.controller.aggregate;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.AppGraph;
import org.openbox.merge.CheckedGraphs;
import org.openbox.merge.GraphMerger;
import org.openbox.merge.MergeOptions;
import org.openbox.merge.MergeResult;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Composes application graphs with the graph merger (classifiers combined or fused into one
 * classification pass, statics moved, identical subtrees shared), keeping the merger's
 * provenance. The composition follows the applications' traffic classes
 * ({@link CompositionPlan}): a stage of applications with disjoint classes is merged as
 * distinct branches, each application's graph first filtered by its class (a
 * HeaderClassifier {@value #CLASS_BLOCK} behind each input terminal; the merger turns the
 * filters into one front classifier, so packets of a class reach only its application and
 * packets of no class of the stage are dropped); stages are chained in priority order.
 * The merger is made per composition over the current catalogue, which includes the block
 * types of the applications' custom modules.
 */
public final class MergingComposer implements GraphComposer {

    private static final Logger log = LoggerFactory.getLogger(MergingComposer.class);
    /**
     * Application graphs whose checks are kept between merges: those placed (the others are
     * dropped, {@link #retain}), up to this many.
     */
    private static final int CHECKED_GRAPHS = 32;

    private final Supplier<Catalogue> catalogue;
    private final MergeOptions options;
    // The checks of the graphs merged before, valid for the catalogue they were made with:
    // a merge after one application's reload checks only that application's graph again.
    private Catalogue checkedWith;
    private CheckedGraphs checked;

    public MergingComposer(Supplier<Catalogue> catalogue, MergeOptions options) {
        this.catalogue = catalogue;
        this.options = options;
        new GraphMerger(catalogue.get()); // fails here, at start-up, when the merger cannot be used
    }

    /** Name of the traffic-class filter added to an application's graph in a distinct stage. */
    static final String CLASS_BLOCK = "traffic-class";

    @Override
    public Composed compose(List<AppPart> parts) {
        CompositionPlan plan = CompositionPlan.of(parts);
        List<List<AppGraph>> stages = new ArrayList<>();
        for (List<AppPart> stage : plan.stages()) {
            List<AppGraph> graphs = new ArrayList<>();
            for (AppPart p : stage) {
                Graph g = stage.size() > 1 ? filtered(p.graph(), p.trafficClass()) : p.graph();
                graphs.add(new AppGraph(p.app(), p.priority(), g));
            }
            stages.add(graphs);
        }
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long start = System.nanoTime(), cpuStart = threads.getCurrentThreadCpuTime();
        MergeResult r = merger().mergeStages(stages, options);
        // the thread's CPU time leaves out collector pauses and other threads' load
        log.info(
                "merged {} ({}, {} blocks) in {} ms ({} ms CPU)",
                parts.stream().map(AppPart::app).toList(),
                plan.describe(),
                r.merged().blocks().size(),
                (System.nanoTime() - start) / 1_000_000,
                (threads.getCurrentThreadCpuTime() - cpuStart) / 1_000_000);
        String report = "composition: " + plan.describe() + System.lineSeparator()
                + r.report().summary();
        return new Composed(r.merged(), r.provenance(), report, plan.describe());
    }

    @Override
    public synchronized void retain(Predicate<Graph> placed) {
        if (checked != null) checked.retain(placed);
    }

    /** How many application graphs have their checks kept. */
    synchronized int keptChecks() {
        return checked == null ? 0 : checked.size();
    }

    private synchronized GraphMerger merger() {
        Catalogue current = catalogue.get();
        if (current != checkedWith) {
            checkedWith = current;
            checked = new CheckedGraphs(CHECKED_GRAPHS);
        }
        return new GraphMerger(current, checked);
    }

    /** The graph with a one-rule HeaderClassifier (the traffic class) right behind each input terminal. */
    static Graph filtered(Graph g, ObjectNode trafficClass) {
        Set<String> names = new HashSet<>();
        Set<String> inputs = new HashSet<>();
        for (Block b : g.blocks()) {
            names.add(b.name());
            if (b.type().equals("FromDevice") || b.type().equals("FromDump")) inputs.add(b.name());
        }
        List<Block> blocks = new ArrayList<>(g.blocks());
        List<Connector> connectors = new ArrayList<>();
        Map<String, String> filterOf = new LinkedHashMap<>();
        for (String in : inputs.stream().sorted().toList()) {
            String name = CLASS_BLOCK;
            for (int k = 2; names.contains(name); k++) name = CLASS_BLOCK + "-" + k;
            names.add(name);
            filterOf.put(in, name);
            ObjectNode config = JsonNodeFactory.instance.objectNode();
            config.putArray("match").add(trafficClass.deepCopy());
            blocks.add(new Block("HeaderClassifier", name, config));
            connectors.add(new Connector(in, 0, name, 0));
        }
        for (Connector c : g.connectors()) {
            String f = filterOf.get(c.src());
            connectors.add(f == null ? c : new Connector(f, 0, c.dst(), c.dstPort()));
        }
        return new Graph(blocks, connectors);
    }
}
