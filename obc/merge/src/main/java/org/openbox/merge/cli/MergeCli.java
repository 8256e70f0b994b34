package org.openbox.merge.cli;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.AppGraph;
import org.openbox.merge.Composition;
import org.openbox.merge.Concatenator;
import org.openbox.merge.GraphMerger;
import org.openbox.merge.MergeException;
import org.openbox.merge.MergeOptions;
import org.openbox.merge.MergeResult;
import org.openbox.merge.core.CatalogueBlockInfo;
import org.openbox.protocol.ProtocolException;
import org.openbox.protocol.graph.Graph;

/**
 * Offline graph merge: {@code ./openbox merge [--chain | --distinct | --concat] G1.json G2.json ...
 * [-o OUT.json] [--dot] [--max-rules N]}. With --concat the graphs are only joined at their
 * terminals ({@link Concatenator}): the naive chain the merge is compared with.
 *
 * <p>Each graph file is one application (named after the file, without .json), in chain
 * order. The merged graph file goes to stdout or to -o; the report (sizes before and
 * after, combinations made, refused and fused) goes to stderr. With --dot, Graphviz of the merged
 * graph goes to stdout (instead of the JSON when there is no -o); a single graph with --dot
 * is rendered as it is, without merging. Exit codes: 0 ok, 1 bad graph, 2 bad arguments.
 */
public final class MergeCli {
    static final String USAGE =
            """
            usage: ./openbox merge [--chain | --distinct | --concat] G1.json G2.json ... [-o OUT.json] [--dot] [--max-rules N] [--no-fold] [--no-split] [--no-fuse]

              Merges the processing graphs of several applications into one equivalent graph.
              --chain          G1 then G2 then ... (default): output terminals lead into the next graph
              --distinct       each packet goes through exactly one graph (shared inputs are split
                               by one front classifier, in file order)
              --concat         chain without merging: each output terminal is replaced by a link to
                               what the next graph's input terminal fed (same joins as --chain, no
                               classifier combining; the naive baseline for tests and benchmarks)
              -o OUT.json      write the merged graph there (default: stdout)
              --dot            print Graphviz dot of the merged graph on stdout (instead of the JSON
                               when there is no -o); with a single graph, render it without merging
              --max-rules N    largest product of classifiers the merge may build, counted on the
                               real intersections (default 10000); above it the classifiers stay
                               in sequence
              --no-fuse        no shared classification pass: no 'fuse' key, and every product
                               within --max-rules is made (default: a product only where it is not
                               larger than the classifiers apart or small; classifiers kept in
                               sequence are looked up in one pass by the first, its 'fuse' key)
              --no-fold        keep classifiers whose only rule matches everything (exact per-rule
                               counts on every path)
              --no-split       keep a combined classifier that mixes header-only and payload rules
                               as one HeaderPayloadClassifier (default: a HeaderClassifier first,
                               and only packets that need a payload look-up go on to one)
              --help           this text
            The report (blocks, connectors, rules before/after; what was combined, kept in sequence
            and fused into one classification pass) goes to stderr. With --dot, fused classifiers
            share a fill colour and a dashed "fused" edge leads to each target.
            Exit status: 0 ok, 1 invalid graph, 2 bad arguments.
            """;

    private MergeCli() {}

    public static void main(String[] args) {
        System.exit(run(args, System.out, System.err));
    }

    /** Runs the command; returns the exit status. */
    public static int run(String[] args, PrintStream out, PrintStream err) {
        Composition composition = Composition.CHAIN;
        boolean compositionSet = false;
        boolean concat = false;
        String output = null;
        boolean dot = false;
        boolean fold = true;
        boolean split = true;
        boolean fuse = true;
        int maxRules = MergeOptions.DEFAULT_MAX_RULES;
        List<Path> files = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            String a = args[i];
            switch (a) {
                case "-h", "--help" -> {
                    out.print(USAGE);
                    return 0;
                }
                case "--chain", "--distinct" -> {
                    Composition c = a.equals("--chain") ? Composition.CHAIN : Composition.DISTINCT;
                    if (compositionSet && c != composition)
                        return usage(err, "--chain and --distinct exclude each other");
                    if (concat && c == Composition.DISTINCT)
                        return usage(err, "--concat and --distinct exclude each other");
                    composition = c;
                    compositionSet = true;
                }
                case "-o", "--output" -> {
                    if (++i >= args.length) return usage(err, a + " needs a file name");
                    output = args[i];
                }
                case "--concat" -> {
                    if (composition == Composition.DISTINCT)
                        return usage(err, "--concat and --distinct exclude each other");
                    concat = true;
                }
                case "--dot" -> dot = true;
                case "--no-fold" -> fold = false;
                case "--no-split" -> split = false;
                case "--no-fuse" -> fuse = false;
                case "--max-rules" -> {
                    if (++i >= args.length) return usage(err, "--max-rules needs a number");
                    try {
                        maxRules = Integer.parseInt(args[i]);
                    } catch (NumberFormatException e) {
                        return usage(err, "--max-rules needs a positive integer, got '" + args[i] + "'");
                    }
                    if (maxRules < 1) return usage(err, "--max-rules needs a positive integer, got '" + args[i] + "'");
                }
                default -> {
                    if (a.startsWith("-") && a.length() > 1) return usage(err, "unknown option '" + a + "'");
                    files.add(Path.of(a));
                }
            }
        }
        if (files.isEmpty()) return usage(err, "no graph file given (see --help)");
        for (Path f : files) {
            if (!Files.isRegularFile(f)) return usage(err, "no such graph file: " + f);
        }
        ObjectMapper mapper = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);
        Catalogue catalogue = Catalogue.load();
        CatalogueBlockInfo info = new CatalogueBlockInfo(catalogue);
        List<AppGraph> apps = new ArrayList<>();
        Set<String> names = new HashSet<>();
        for (Path f : files) {
            Graph g;
            try {
                g = Graph.fromJson(mapper.readTree(Files.readAllBytes(f)));
            } catch (ProtocolException e) {
                err.println("merge: " + f + ": " + e.getMessage());
                return 1;
            } catch (IOException e) {
                err.println("merge: " + f + ": not a JSON graph file: " + firstLine(e.getMessage()));
                return 1;
            }
            String name = appName(f);
            String unique = name;
            for (int k = 2; !names.add(unique); k++) unique = name + "-" + k;
            apps.add(new AppGraph(unique, 0, g));
        }
        try {
            if (dot && files.size() == 1 && output == null) {
                Graph g = apps.get(0).graph();
                for (var b : g.blocks()) info.validate(b);
                out.print(DotWriter.write(g, info::kind));
                return 0;
            }
            MergeResult r = concat
                    ? new Concatenator(info).concat(apps)
                    : new GraphMerger(info).merge(apps, composition, new MergeOptions(maxRules, fold, split, fuse));
            String json = mapper.writeValueAsString(r.merged().toJson()) + "\n";
            if (output != null) {
                Files.writeString(Path.of(output), json, StandardCharsets.UTF_8);
            } else if (!dot) {
                out.print(json);
            }
            if (dot) out.print(DotWriter.write(r.merged(), info::kind));
            err.print((concat
                            ? "concatenation (no merge)"
                            : composition == Composition.CHAIN ? "chain merge" : "distinct merge")
                    + " of " + apps.stream().map(AppGraph::app).toList() + "\n"
                    + r.report().summary());
            return 0;
        } catch (MergeException e) {
            err.println("merge: " + e.getMessage());
            return 1;
        } catch (NoSuchFileException e) {
            return usage(err, "cannot write " + e.getFile());
        } catch (IOException e) {
            err.println("merge: " + e.getMessage());
            return 2;
        }
    }

    private static String appName(Path f) {
        String n = f.getFileName().toString();
        return n.endsWith(".json") ? n.substring(0, n.length() - 5) : n;
    }

    private static String firstLine(String s) {
        if (s == null) return "";
        int nl = s.indexOf('\n');
        return nl < 0 ? s : s.substring(0, nl);
    }

    private static int usage(PrintStream err, String reason) {
        err.println("merge: " + reason);
        return 2;
    }
}
