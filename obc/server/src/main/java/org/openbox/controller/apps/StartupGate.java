package org.openbox.controller.apps;

import java.util.ArrayList;
import java.util.List;
import org.openbox.controller.StartupProperties;
import org.springframework.stereotype.Component;

/**
 * Fail-closed start-up: once every application is registered, a REFUSED one stops the
 * controller (one line per problem, see {@link StartupRefusedException}) unless
 * {@code openbox.allow-failed-apps=true}, so a firewall whose rule file has a typo never
 * leaves the network running without it. The configuration test ({@code openbox.check})
 * lists the problems itself and is not stopped here.
 */
@Component
public class StartupGate {

    private final StartupProperties props;

    public StartupGate(StartupProperties props) {
        this.props = props;
    }

    /** Throws StartupRefusedException when an entry is REFUSED and that is not allowed. */
    public void verify(List<AppEntry> entries) {
        if (props.allowFailedApps() || props.check()) {
            return;
        }
        List<String> problems = problems(entries);
        if (!problems.isEmpty()) {
            throw new StartupRefusedException(problems);
        }
    }

    /** One line per REFUSED entry: {@code FILE:LINE: ...} when the error names a file line, else {@code app NAME: ...}. */
    public static List<String> problems(List<AppEntry> entries) {
        List<String> out = new ArrayList<>();
        for (AppEntry e : entries) {
            if (e.state() == AppState.REFUSED) {
                out.add(line(e.name(), e.error()));
            }
        }
        return out;
    }

    static String line(String name, String error) {
        String msg = error == null ? "refused" : error;
        if (AppLoader.RULE_FILE_LINE.matcher(msg).lookingAt() || msg.startsWith("app ")) {
            return msg;
        }
        return "app " + name + ": " + msg;
    }
}
