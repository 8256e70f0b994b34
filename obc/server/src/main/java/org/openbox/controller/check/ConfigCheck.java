package org.openbox.controller.check;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import org.openbox.controller.apps.AppCatalog;
import org.openbox.controller.apps.AppEntry;
import org.openbox.controller.apps.AppState;
import org.openbox.controller.apps.PlacedGraph;
import org.openbox.controller.apps.StartupGate;
import org.openbox.controller.tls.TransportSecurity;
import org.springframework.stereotype.Component;

/**
 * The configuration test ({@code ./openbox controller --check}, {@code ./openbox check}):
 * every application was loaded, configured and validated as at start-up; this adds the OBI's
 * compile of each valid application's graphs and prints one line per problem,
 * {@code FILE:LINE: what is wrong} where the application knows the rule's line, else
 * {@code app NAME: ...}. Exit code 0 when there is none, 1 otherwise. Southbound TLS set-up
 * the controller would refuse to start with (no certificates and no {@code openbox.insecure})
 * is a note: certificates belong to the machine the controller runs on, not to the
 * configuration under test.
 */
@Component
public class ConfigCheck {

    private final AppCatalog catalog;
    private final ObiGraphChecker obi;
    private final TransportSecurity transport;

    public ConfigCheck(AppCatalog catalog, ObiGraphChecker obi, TransportSecurity transport) {
        this.catalog = catalog;
        this.obi = obi;
        this.transport = transport;
    }

    /** Runs the test; problems go to {@code out}, notes to {@code err}; returns the exit code. */
    public int run(PrintStream out, PrintStream err) {
        List<AppEntry> entries = catalog.all();
        List<String> problems = new ArrayList<>(StartupGate.problems(entries));
        transport.problem().ifPresent(p -> err.println("note: " + p + "; the controller would not start so"));
        boolean compiled = obi.binary().isPresent();
        if (!compiled) {
            err.println("note: no OBI binary (" + obi.lookedFor() + "): block configs and payload patterns were"
                    + " not compiled with the OBI's engine; set openbox.obi-binary or build it (./openbox build)");
        }
        int valid = 0;
        for (AppEntry e : entries) {
            if (e.state() == AppState.REFUSED) {
                continue;
            }
            valid++;
            if (compiled) {
                for (PlacedGraph g : e.graphs()) {
                    problems.addAll(obiProblems(e, g));
                }
            }
        }
        for (String p : problems) {
            out.println(p);
        }
        err.println(
                problems.isEmpty()
                        ? "configuration OK: " + valid + " application(s)"
                                + (compiled ? ", graphs compiled by the OBI" : "")
                        : problems.size() + " problem(s)");
        return problems.isEmpty() ? 0 : 1;
    }

    private List<String> obiProblems(AppEntry e, PlacedGraph g) {
        List<String> out = new ArrayList<>();
        List<ObiGraphChecker.BlockProblem> found;
        try {
            found = obi.check(g.graph());
        } catch (IOException | RuntimeException ex) {
            return List.of("app " + e.name() + ": the OBI could not check the graph: " + ex.getMessage());
        } catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return List.of("app " + e.name() + ": interrupted while the OBI checked the graph");
        }
        for (ObiGraphChecker.BlockProblem p : found) {
            String what = p.message() + " (" + p.type() + "/" + p.subtype() + ")";
            String origin = null;
            if (p.rule() >= 0) {
                try {
                    origin = e.app().ruleOrigin(p.block(), p.rule()).orElse(null);
                } catch (RuntimeException ignored) {
                    origin = null; // an application that cannot say falls back to its name
                }
            }
            out.add(origin != null ? origin + ": " + what : "app " + e.name() + ": " + what);
        }
        return out;
    }
}
