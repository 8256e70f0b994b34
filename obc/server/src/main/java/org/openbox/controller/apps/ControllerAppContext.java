package org.openbox.controller.apps;

import org.openbox.api.AppContext;
import org.openbox.api.HandleClient;
import org.openbox.api.Topology;

/** What an application gets at start: its own handle client and the topology. */
record ControllerAppContext(HandleClient handles, Topology topology) implements AppContext {}
