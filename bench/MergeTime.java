import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.OutputStream;
import java.io.PrintStream;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import org.openbox.catalogue.Catalogue;
import org.openbox.merge.AppGraph;
import org.openbox.merge.Composition;
import org.openbox.merge.GraphMerger;
import org.openbox.merge.MergeOptions;
import org.openbox.merge.MergeResult;
import org.openbox.merge.cli.MergeCli;
import org.openbox.protocol.graph.Graph;

/**
 * Chain-merge time of graph files, in one JVM after warm-up.
 *
 * <pre>java -cp obc/merge/target/classes:obc/merge/target/lib/* bench/MergeTime.java [--runs N] [--warmup W] \
 *     NAME=G1.json,G2.json[,...] ...</pre>
 *
 * The graph files are parsed once (each is one application, named after the file as
 * `./openbox merge` does); W rounds of untimed chain merges of every NAME warm up the JVM; then,
 * for each NAME, W untimed and N timed chain merges with the default options
 * (GraphMerger.merge, what `./openbox merge --chain` runs). Then the same number of
 * whole `merge --chain G1 G2 ... -o FILE` runs in-process (read, merge, write). One line per
 * NAME: {"workload":..,"merge_ms":median wall,"merge_cpu_ms":median CPU of the thread,
 * "merge_ms_min":..,"merge_ms_max":..,"merge_cli_ms":median,"runs":N}.
 */
public final class MergeTime {
    public static void main(String[] args) throws Exception {
        int runs = 5;
        int warmup = 3;
        List<String> specs = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                default -> specs.add(args[i]);
            }
        }
        ObjectMapper mapper = new ObjectMapper();
        GraphMerger merger = new GraphMerger(Catalogue.load());
        ThreadMXBean cpu = ManagementFactory.getThreadMXBean();
        PrintStream devnull = new PrintStream(OutputStream.nullOutputStream());
        List<String> names = new ArrayList<>();
        List<String[]> fileLists = new ArrayList<>();
        List<List<AppGraph>> workloads = new ArrayList<>();
        for (String spec : specs) {
            int eq = spec.indexOf('=');
            String[] files = spec.substring(eq + 1).split(",");
            List<AppGraph> apps = new ArrayList<>();
            for (String f : files) {
                String app = Path.of(f).getFileName().toString().replaceAll("\\.json$", "");
                String unique = app;
                for (int k = 2; uniqueTaken(apps, unique); k++) unique = app + "-" + k;
                apps.add(new AppGraph(unique, 0, Graph.fromJson(mapper.readTree(Files.readAllBytes(Path.of(f))))));
            }
            names.add(spec.substring(0, eq));
            fileLists.add(files);
            workloads.add(apps);
        }
        // every workload warms the code paths of all: W rounds over all of them before any timing
        for (int r = 0; r < warmup; r++) {
            for (List<AppGraph> apps : workloads) merger.merge(apps, Composition.CHAIN, MergeOptions.defaults());
        }
        for (int w = 0; w < workloads.size(); w++) {
            String name = names.get(w);
            String[] files = fileLists.get(w);
            List<AppGraph> apps = workloads.get(w);
            double[] wall = new double[runs];
            double[] cpuMs = new double[runs];
            for (int r = 0; r < warmup + runs; r++) {
                long c0 = cpu.getCurrentThreadCpuTime();
                long t0 = System.nanoTime();
                MergeResult m = merger.merge(apps, Composition.CHAIN, MergeOptions.defaults());
                long t1 = System.nanoTime();
                long c1 = cpu.getCurrentThreadCpuTime();
                if (m.merged() == null) throw new IllegalStateException("no merged graph");
                if (r >= warmup) {
                    wall[r - warmup] = (t1 - t0) / 1e6;
                    cpuMs[r - warmup] = (c1 - c0) / 1e6;
                }
            }
            Path tmp = Files.createTempFile("mergetime", ".json");
            List<String> cli = new ArrayList<>(List.of("--chain"));
            cli.addAll(Arrays.asList(files));
            cli.addAll(List.of("-o", tmp.toString()));
            double[] whole = new double[runs];
            for (int r = 0; r < warmup + runs; r++) {
                long t0 = System.nanoTime();
                int rc = MergeCli.run(cli.toArray(String[]::new), devnull, devnull);
                long t1 = System.nanoTime();
                if (rc != 0) throw new IllegalStateException("merge --chain exited with " + rc);
                if (r >= warmup) whole[r - warmup] = (t1 - t0) / 1e6;
            }
            Files.deleteIfExists(tmp);
            System.out.printf(Locale.ROOT,
                    "{\"workload\":\"%s\",\"merge_ms\":%.2f,\"merge_cpu_ms\":%.2f,\"merge_ms_min\":%.2f,\"merge_ms_max\":%.2f,"
                            + "\"merge_cli_ms\":%.2f,\"runs\":%d}%n",
                    name, median(wall), median(cpuMs), Arrays.stream(wall).min().orElse(0),
                    Arrays.stream(wall).max().orElse(0), median(whole), runs);
            System.out.flush();
        }
    }

    private static boolean uniqueTaken(List<AppGraph> apps, String name) {
        return apps.stream().anyMatch(a -> a.app().equals(name));
    }

    private static double median(double[] v) {
        double[] s = v.clone();
        Arrays.sort(s);
        return s.length == 0 ? 0 : s.length % 2 == 1 ? s[s.length / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
    }
}
