package org.openbox.controller.aggregate;

import org.openbox.merge.Origin;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.openbox.merge.ChainExits;
import org.openbox.protocol.graph.Block;
import org.openbox.protocol.graph.Connector;
import org.openbox.protocol.graph.Graph;

/**
 * Composition without optimisation: the application graphs are concatenated as a service
 * chain (correct, but nothing is merged). Every output terminal (ToDevice, ToDump) of the
 * chain so far is replaced by the successors of the next graph's single input terminal
 * (FromDevice, FromDump), except a ToDevice on one of its own graph's input devices, a
 * reply that stays an exit ({@link ChainExits}); a graph with zero or several input terminals is placed beside
 * the others instead. With more than one application, block names get the prefix
 * {@code <app>.} so they stay unique.
 */
public final class ChainComposer implements GraphComposer {

    private static final Set<String> INPUTS = Set.of("FromDevice", "FromDump");
    private static final Set<String> OUTPUTS = Set.of("ToDevice", "ToDump");

    @Override
    public Composed compose(List<AppPart> parts) {
        MapOrigins origins = new MapOrigins();
        List<Block> blocks = new ArrayList<>();
        List<Connector> connectors = new ArrayList<>();
        Set<String> openOutputs = new HashSet<>();
        boolean prefix = parts.size() > 1;
        StringBuilder report = new StringBuilder("chain (unmerged):");
        for (AppPart part : parts) {
            String p = prefix ? part.app() + "." : "";
            List<Block> inputs = part.graph().blocks().stream().filter(b -> INPUTS.contains(b.type())).toList();
            boolean joins = !blocks.isEmpty() && !openOutputs.isEmpty() && inputs.size() == 1;
            String joinedInput = joins ? inputs.get(0).name() : null;
            List<String> inputDevices = inputs.stream().map(ChainComposer::devname).filter(d -> d != null).toList();
            if (joins) {
                List<Connector> intoOutputs = connectors.stream().filter(c -> openOutputs.contains(c.dst())).toList();
                List<Connector> fromInput = part.graph().connectors().stream()
                        .filter(c -> c.src().equals(joinedInput)).toList();
                connectors.removeAll(intoOutputs);
                blocks.removeIf(b -> openOutputs.contains(b.name()));
                openOutputs.forEach(origins::remove);
                for (Connector in : intoOutputs) {
                    for (Connector out : fromInput) {
                        connectors.add(new Connector(in.src(), in.srcPort(), p + out.dst(), out.dstPort()));
                    }
                }
                openOutputs.clear();
                report.append(' ').append(part.app()).append(" chained;");
            } else {
                report.append(' ').append(part.app()).append(blocks.isEmpty() ? " first;" : " beside;");
            }
            for (Block b : part.graph().blocks()) {
                if (b.name().equals(joinedInput)) {
                    continue;
                }
                blocks.add(new Block(b.type(), p + b.name(), b.config()));
                origins.add(p + b.name(), new Origin(part.app(), b.name()));
                if (OUTPUTS.contains(b.type()) && !ChainExits.repliesToInput(devname(b), inputDevices)) {
                    openOutputs.add(p + b.name());
                }
            }
            for (Connector c : part.graph().connectors()) {
                if (!c.src().equals(joinedInput)) {
                    connectors.add(new Connector(p + c.src(), c.srcPort(), p + c.dst(), c.dstPort()));
                }
            }
        }
        return new Composed(new Graph(List.copyOf(blocks), List.copyOf(connectors)), origins, report.toString());
    }

    private static String devname(Block b) {
        if (!b.type().endsWith("Device") || b.config() == null || !b.config().has("devname")) return null;
        return b.config().get("devname").asText();
    }
}
