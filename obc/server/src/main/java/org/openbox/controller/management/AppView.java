package org.openbox.controller.management;

import org.openbox.controller.apps.AppEntry;

/** An application as listed by GET /api/apps; {@code error} says why it was refused or failed. */
public record AppView(String name, int priority, String state, String source, String error, int statements) {

    static AppView of(AppEntry e) {
        return new AppView(e.name(), e.priority(), e.state().name(), e.source(), e.error(), e.graphs().size());
    }
}
