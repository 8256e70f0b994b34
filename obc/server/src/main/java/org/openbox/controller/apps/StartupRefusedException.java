package org.openbox.controller.apps;

import java.util.List;

/** The controller does not start: applications failed their configuration (one line each). */
public class StartupRefusedException extends RuntimeException {

    private final List<String> problems;

    public StartupRefusedException(List<String> problems) {
        super(String.join("\n", problems));
        this.problems = List.copyOf(problems);
    }

    public List<String> problems() {
        return problems;
    }
}
